// SPDX-License-Identifier: GPL-2.0
// The fabric on its own: delivery by destination LID on the engine
// thread, unknown LIDs, drop injection (with skip) and link delay; and the
// engine's timers.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "fabric/fabric.h"
#include "poll_for.h"

namespace mlx5emu::test {
namespace {

using namespace std::chrono_literals;

struct Port : FabricPort {
	std::vector<uint32_t> psns;
	void receive(const Packet &p) override { psns.push_back(p.psn); }
};

Packet to(uint16_t dlid, uint32_t psn)
{
	Packet p;
	p.dlid = dlid;
	p.dqpn = 0x42; // QPN 0 takes VL15 only
	p.psn = psn;
	p.payload.assign(10, 0);
	return p;
}

// Runs fn on the engine with the state lock, as data-path code does.
void on_engine(Fabric &f, std::function<void()> fn)
{
	f.engine().post(std::move(fn));
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
}

// Attaches `p` as HCA `index` with LID index + 1, as the internal SM does.
void join(Fabric &f, unsigned index, FabricPort *p)
{
	f.attach(index, p);
	on_engine(f, [&] { f.set_lid(p, static_cast<uint16_t>(index + 1), 0); });
}

TEST(Fabric, RoutesByLid)
{
	Fabric f;
	Port a, b;
	join(f, 0, &a);
	join(f, 1, &b);
	on_engine(f, [&] {
		f.transmit(&a, to(2, 10));
		f.transmit(&a, to(1, 11));
		f.transmit(&a, to(7, 12));
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(b.psns, std::vector<uint32_t>{10});
	EXPECT_EQ(a.psns, std::vector<uint32_t>{11});
	Fabric::Counters c = f.counters();
	EXPECT_EQ(c.packets, 3u);
	EXPECT_EQ(c.delivered, 2u);
	EXPECT_EQ(c.no_route, 1u);
	EXPECT_EQ(c.bytes, 30u);
	f.detach(&b);
	on_engine(f, [&] { f.transmit(&a, to(2, 13)); });
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(b.psns.size(), 1u) << "detached";
}

TEST(Fabric, DropInjection)
{
	Fabric f;
	Port a;
	join(f, 0, &a);
	f.drop_next(2, 1);
	on_engine(f, [&] {
		for (uint32_t i = 0; i < 5; ++i)
			f.transmit(&a, to(1, i));
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(a.psns, (std::vector<uint32_t>{0, 3, 4})) << "one passes, two are dropped";
	EXPECT_EQ(f.counters().dropped, 2u);
	EXPECT_EQ(f.counters().drops_pending, 0u);
}

TEST(Fabric, LinkDelay)
{
	Fabric f;
	Port a;
	join(f, 0, &a);
	f.set_delay_ms(30);
	auto t0 = std::chrono::steady_clock::now();
	on_engine(f, [&] { f.transmit(&a, to(1, 1)); });
	std::atomic<bool> got{false};
	while (!got && std::chrono::steady_clock::now() - t0 < kPatience) {
		std::this_thread::sleep_for(1ms);
		on_engine(f, [&] { got = !a.psns.empty(); });
	}
	EXPECT_TRUE(got);
	EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);
	EXPECT_EQ(f.counters().delayed, 1u);
}

// Holds the engine in a task until open(): timers posted meanwhile wait
// (tasks run before timers), so a test's cancel races no deadline, however
// late the test thread runs.
class EngineGate {
public:
	explicit EngineGate(Engine &e) : s_(std::make_shared<State>())
	{
		e.post([s = s_] {
			std::unique_lock<std::mutex> g(s->m);
			s->cv.wait(g, [&] { return s->open; });
		});
	}
	~EngineGate() { open(); }
	void open()
	{
		std::lock_guard<std::mutex> g(s_->m);
		s_->open = true;
		s_->cv.notify_all();
	}

private:
	// Shared with the task, which may still be leaving its wait when the
	// gate goes.
	struct State {
		std::mutex m;
		std::condition_variable cv;
		bool open = false;
	};
	std::shared_ptr<State> s_;
};

TEST(Engine, TimersRunInOrderAndCanBeCancelled)
{
	Engine e;
	std::vector<int> order;
	std::mutex m;
	EngineGate gate(e);
	auto now = Engine::Clock::now();
	e.post_at(now + 3ms, [&](uint64_t) { std::lock_guard<std::mutex> g(m); order.push_back(2); });
	uint64_t id = e.post_at(now + 2ms, [&](uint64_t) { std::lock_guard<std::mutex> g(m); order.push_back(99); });
	e.post_at(now + 1ms, [&](uint64_t) { std::lock_guard<std::mutex> g(m); order.push_back(1); });
	e.cancel(id);
	gate.open();
	poll_for([&] { return e.timers_pending() == 0; });
	ASSERT_TRUE(e.wait_idle(kPatience));
	std::lock_guard<std::mutex> g(m);
	EXPECT_EQ(order, (std::vector<int>{1, 2}));
	EXPECT_EQ(e.counters().timers_cancelled, 1u);
}

// A timer's id names that timer only: once it ran (or was cancelled) its
// slot serves the next timer, and the old id cancels nothing.
TEST(Engine, AnOldTimerIdCancelsNothing)
{
	Engine e;
	std::atomic<int> ran{0};
	uint64_t first = e.post_at(Engine::Clock::now(), [&](uint64_t id) { ran += id != 0; });
	poll_for([&] { return ran.load() >= 1; });
	ASSERT_EQ(ran.load(), 1);
	uint64_t id_seen = 0;
	EngineGate gate(e);
	uint64_t second = e.post_at(Engine::Clock::now(), [&](uint64_t id) {
		id_seen = id;
		++ran;
	});
	EXPECT_NE(second, first);
	e.cancel(first);
	EXPECT_EQ(e.timers_pending(), 1u);
	gate.open();
	poll_for([&] { return ran.load() >= 2; });
	ASSERT_TRUE(e.wait_idle(kPatience));
	EXPECT_EQ(ran.load(), 2);
	EXPECT_EQ(id_seen, second) << "a timer's task gets its own id";
	EXPECT_EQ(e.counters().timers_cancelled, 0u);
}

// cancel_owned() forgets every pending timer of one owner, no other.
TEST(Engine, CancelOwnedForgetsOneOwnersTimers)
{
	Engine e;
	int a = 0, b = 0;
	std::atomic<int> ran_a{0}, ran_b{0};
	EngineGate gate(e);
	for (int i = 0; i < 10; ++i) {
		e.post_at(Engine::Clock::now(), [&](uint64_t) { ++ran_a; }, &a);
		e.post_at(Engine::Clock::now(), [&](uint64_t) { ++ran_b; }, &b);
	}
	EXPECT_EQ(e.timers_pending(), 20u);
	e.cancel_owned(&a);
	EXPECT_EQ(e.timers_pending(), 10u);
	gate.open();
	poll_for([&] { return ran_b.load() >= 10; });
	ASSERT_TRUE(e.wait_idle(kPatience));
	EXPECT_EQ(ran_b.load(), 10);
	EXPECT_EQ(ran_a.load(), 0);
	EXPECT_EQ(e.counters().timers_cancelled, 10u);
	EXPECT_EQ(e.timers_pending(), 0u);
}

// The engine sleeps until its first timer's deadline; cancelling that timer
// frees it meanwhile, and the engine must not read it when it wakes (ASan:
// heap-use-after-free in Engine::run, found by emu/fuzz's seed generator).
TEST(Engine, CancellingTheTimerItSleepsForIsSafe)
{
	Engine e;
	std::atomic<int> ran{0};
	for (int i = 0; i < 50; ++i) {
		// Far enough never to fire before the cancel below, however
		// late this thread runs (it counts on timers_cancelled).
		uint64_t id = e.post_at(Engine::Clock::now() + std::chrono::minutes(10), [](uint64_t) {});
		ASSERT_TRUE(e.wait_idle(kPatience));
		e.cancel(id);
		e.post([&] { ++ran; });
	}
	ASSERT_TRUE(e.wait_idle(kPatience));
	EXPECT_EQ(ran.load(), 50);
	EXPECT_EQ(e.counters().timers_cancelled, 50u);
}


// A task the engine thread posts (a fabric port's drain, a QP's next step)
// goes to the engine's own list, without the queue lock or a wake-up, and
// runs right after the batch that posted it: before a task another thread
// queued while that batch ran (with the queue lock per post, it ran after).
// wait_idle() counts those tasks too.
TEST(Engine, TasksTheEngineQueuesRunBeforeOthersQueuedMeanwhile)
{
	Engine e;
	std::vector<char> order; // engine thread only
	std::mutex m;
	std::condition_variable cv;
	bool b_posted = false;
	e.post([&] {
		order.push_back('A');
		// Another thread queues B while this batch runs...
		std::thread t([&] {
			e.post([&] { order.push_back('B'); });
			std::lock_guard<std::mutex> g(m);
			b_posted = true;
			cv.notify_all();
		});
		{
			std::unique_lock<std::mutex> g(m);
			cv.wait(g, [&] { return b_posted; });
		}
		t.join();
		// ... then this task queues C.
		e.post([&] { order.push_back('C'); });
	});
	ASSERT_TRUE(e.wait_idle(kPatience));
	EXPECT_EQ(order, (std::vector<char>{'A', 'C', 'B'}));

	// A chain of tasks each posting the next: idle only at its end.
	std::atomic<int> n{0};
	std::function<void()> step = [&] {
		if (++n < 1000)
			e.post(step);
	};
	e.post(step);
	ASSERT_TRUE(e.wait_idle(kPatience));
	EXPECT_EQ(n.load(), 1000);
	EXPECT_TRUE(e.idle());
}

} // namespace
} // namespace mlx5emu::test
