// SPDX-License-Identifier: GPL-2.0
// The data path's lifetime against the fabric's engine, which outlives
// it: an HCA destroyed while the engine has one of its tasks in hand (taken
// before the destructor took the state lock, run while it waits for the
// queue) leaves no timer and no task behind that names it. The fuzz input
// corpus/doorbell_fuzz/regress_timer-after-destroy found it: a flush poll
// re-armed itself while ~DataPath waited and fired on the freed object.
#include <atomic>
#include <chrono>
#include <thread>

#include "dp_harness.h"
#include "poll_for.h"

namespace mlx5emu::test {
namespace {


TEST(ExecLifetime, TaskInHandWhileDestroyedStartsNoTimer)
{
	auto fabric = std::make_shared<Fabric>();
	Engine &eng = fabric->engine();
	DpHca::RcParams p;
	p.dlid = 77; // nobody: a SEND waits for its ACK
	p.dqpn = 0x123;
	p.ack_timeout = 20; // 4.3 s: still pending when looked at
	for (int round = 0; round < 20; ++round) {
		auto a = std::make_unique<DpHca>(fabric, 0);
		DpHca::Cq cq = a->create_cq(6);
		DpHca::Mr mr = a->reg_mr(4096);
		// A QP in ERR: its flush poll keeps a timer started, which the
		// destructor cancels (what the engine's task below waits for).
		DpHca::Qp err = a->create_qp(ST_RC, cq, cq, 4, 4);
		a->to_rts_rc(err, p);
		ASSERT_EQ(a->modify_status(0x507, err), 0);
		DpHca::Qp qp = a->create_qp(ST_RC, cq, cq, 4, 4);
		a->to_rts_rc(qp, p);
		// The flush poll restarts itself every 10 ms: between the engine
		// taking it and its task starting the next, none is pending
		// (a loaded host can hold the engine there): wait for it.
		ASSERT_TRUE(poll_for([&] { return eng.timers_pending() == 1; })) << "the flush poll";

		// The engine takes `hold`, which lets go of the state lock until
		// the destructor cancelled the flush poll: the doorbell's task,
		// queued behind it, then runs as one the engine had taken before
		// the destructor took the lock (it sends, and would start the
		// retransmission timer).
		const uint64_t cancelled0 = eng.counters().timers_cancelled;
		std::atomic<bool> released{false};
		bool cancelled = false;
		eng.post([&] {
			eng.state_mutex().unlock();
			released = true;
			cancelled = poll_for([&] { return eng.counters().timers_cancelled > cancelled0; });
			eng.state_mutex().lock();
		});
		ASSERT_TRUE(poll_for([&] { return released.load(); }));
		a->post_send(qp, DpHca::send_wr(mr, 8));
		std::thread destroy([&] { a.reset(); });
		destroy.join();
		EXPECT_TRUE(cancelled) << "round " << round;
		ASSERT_EQ(eng.timers_pending(), 0u) << "a timer names the destroyed HCA, round " << round;
		ASSERT_TRUE(eng.wait_idle(kPatience)) << "round " << round;
	}
}

} // namespace
} // namespace mlx5emu::test
