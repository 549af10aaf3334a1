// SPDX-License-Identifier: GPL-2.0
// The data path's steady state allocates nothing from the heap: neither
// per packet (the engine thread: WQE parsing, the fabric's delivery
// rings, the responder, ACKs, CQEs) nor per doorbell (the BAR write that
// queues the send queue's task). A binary of its own: it replaces the
// global operator new to count calls, which the other tests need not
// carry. The test thread's own allocations (the harness builds WQEs in
// vectors) are not counted, except inside the doorbell write.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "dp_harness.h"
#include "poll_for.h"

namespace {

std::atomic<uint64_t> g_news{0};
// The test thread: not counted, but for its doorbell writes.
thread_local bool t_quiet = false;

} // namespace

// GCC cannot tell that these malloc/free pairs are the replacement's own.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void *operator new(std::size_t n)
{
	if (!t_quiet)
		g_news.fetch_add(1, std::memory_order_relaxed);
	if (void *p = std::malloc(n ? n : 1))
		return p;
	throw std::bad_alloc();
}
void *operator new[](std::size_t n) { return operator new(n); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

namespace mlx5emu::test {
namespace {

constexpr unsigned kDepth = 16;
constexpr uint32_t kBuf = 1u << 20;

struct Quiet {
	Quiet() { t_quiet = true; }
	~Quiet() { t_quiet = false; }
};

// Posts `n` messages of `op` (WRITE, READ or SEND) of `size` bytes from
// a to b, `depth` in flight, a doorbell per WQE; every completion polled
// and checked. Returns the operator new calls made meanwhile by every
// thread but this one, and by this one inside its doorbell writes.
::testing::AssertionResult stream(RcPair &p, uint8_t op, uint32_t size, unsigned n, const DpHca::Mr &la,
				  const DpHca::Mr &rb, uint64_t *news, unsigned depth = kDepth)
{
	Quiet q;
	unsigned inflight = 0, posted = 0, done = 0;
	uint64_t before = g_news.load();
	while (done < n) {
		while (posted < n && inflight < depth) {
			DpHca::Wr w = op == OP_SEND ? DpHca::send_wr(la, size) : DpHca::rdma_wr(op, la, size, rb.addr, rb.key);
			uint16_t idx = p.a.post_send(p.aqp, w, false);
			// The doorbell: the control segment's first 8 bytes
			// (the harness's WQE layout: ctrl, raddr for RDMA, one
			// data segment).
			uint8_t ctrl[8];
			bits::store_be32(ctrl, static_cast<uint32_t>(idx) << 8 | op);
			bits::store_be32(ctrl + 4, p.aqp.qpn << 8 | (op == OP_SEND ? 2u : 3u));
			t_quiet = false;
			p.a.ring_sq(p.aqp, ctrl);
			t_quiet = true;
			++inflight;
			++posted;
		}
		Cqe e;
		if (!p.a.poll(p.acq, &e))
			return ::testing::AssertionFailure() << "no requester completion after " << done;
		if (e.opcode != 0)
			return ::testing::AssertionFailure() << "error CQE, syndrome 0x" << std::hex << unsigned(e.syndrome);
		--inflight;
		++done;
		if (op == OP_SEND) {
			if (!p.b.poll(p.bcq, &e) || e.opcode != 2)
				return ::testing::AssertionFailure() << "no receive completion for message " << done;
			p.b.post_recv(p.bqp, rb, kBuf);
		}
	}
	if (!p.fabric->engine().wait_idle(std::chrono::seconds(5)))
		return ::testing::AssertionFailure() << "the engine did not go idle";
	*news = g_news.load() - before;
	return ::testing::AssertionSuccess();
}

struct Case {
	uint8_t op;
	uint32_t size;
	const char *name;
};

class PacketAlloc : public ::testing::TestWithParam<Case> {};

TEST_P(PacketAlloc, SteadyStateAllocatesNothing)
{
	const Case c = GetParam();
	// A retransmission timeout of about 4 s: no engine timer is
	// started in the measured stream (a timer's start allocates: once a
	// timeout period while requests are outstanding, not per packet).
	DpHca::RcParams slow;
	slow.ack_timeout = 20;
	RcPair p(slow, slow);
	auto la = p.a.reg_mr(kBuf), rb = p.b.reg_mr(kBuf);
	for (unsigned i = 0; c.op == OP_SEND && i < kDepth; ++i)
		p.b.post_recv(p.bqp, rb, kBuf);
	// Warm-up: every ring, pool and table reaches its working size.
	uint64_t news = 0;
	ASSERT_TRUE(stream(p, c.op, c.size, 16 * kDepth, la, rb, &news));
	// The counter works: the harness's allocations outside Quiet count.
	uint64_t probe = g_news.load();
	::operator delete(::operator new(64));
	ASSERT_EQ(g_news.load() - probe, 1u);
	const unsigned n = c.size >= 65536 ? 64 : 512;
	ASSERT_TRUE(stream(p, c.op, c.size, n, la, rb, &news));
	unsigned packets = n * ((c.size + 4095) / 4096);
	EXPECT_EQ(news, 0u) << n << " messages, " << packets << " packets of data";
}

INSTANTIATE_TEST_SUITE_P(Rc, PacketAlloc,
			 ::testing::Values(Case{OP_WRITE, 8, "write_8"}, Case{OP_WRITE, 65536, "write_64k"},
					   Case{OP_READ, 8, "read_8"}, Case{OP_READ, 65536, "read_64k"},
					   Case{OP_SEND, 8, "send_8"}, Case{OP_SEND, 65536, "send_64k"}),
			 [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

// Polled doorbells (--doorbells poll): the scan that takes them, the
// doorbell tasks and the record sweeps of the page allocate nothing once
// warm. Two QPs of one polled page ring the same BlueFlame register, so
// every scan takes one doorbell and the sweep recovers the other.
TEST(PolledDoorbellAlloc, ScanAndSweepAllocateNothing)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0, false, LinkType::Ib, true};
	a.uar = a.h.alloc_uar();
	uint8_t *page = a.h.fw().dbpages->page_memory(a.uar);
	DpHca::RcParams slow;
	slow.ack_timeout = 20;
	auto cq = a.create_cq(8), rcq = a.create_cq(8);
	std::vector<DpHca::Qp> q, r;
	for (unsigned i = 0; i < 2; ++i) {
		q.push_back(a.create_qp(ST_RC, cq, cq, 4, 6));
		r.push_back(a.create_qp(ST_RC, rcq, rcq, 4, 6));
		connect_rc(a, q[i], a, r[i], slow, slow);
	}
	auto m = a.reg_mr(4096);
	Quiet quiet;
	auto rounds = [&](unsigned n, uint64_t *news) {
		uint64_t before = g_news.load();
		for (unsigned k = 0; k < n; ++k) {
			for (unsigned i = 0; i < 2; ++i) {
				uint16_t idx = a.post_send(q[i], DpHca::rdma_wr(OP_WRITE, m, 8, m.addr + 2048, m.key), false);
				uint8_t ctrl[8];
				bits::store_be32(ctrl, static_cast<uint32_t>(idx) << 8 | OP_WRITE);
				bits::store_be32(ctrl + 4, q[i].qpn << 8 | 3u);
				uint64_t v;
				std::memcpy(&v, ctrl, 8);
				__atomic_store_n(reinterpret_cast<uint64_t *>(page + 0x800), v, __ATOMIC_RELEASE);
			}
			t_quiet = false;
			unsigned taken = a.h.fw().poll_doorbells();
			t_quiet = true;
			if (taken != 1)
				return ::testing::AssertionFailure() << "scan " << k << " took " << taken << " doorbells";
			for (unsigned i = 0; i < 2; ++i) {
				Cqe e;
				if (!a.poll(cq, &e) || e.opcode != 0)
					return ::testing::AssertionFailure() << "no good completion in round " << k;
			}
		}
		if (!fabric->engine().wait_idle(std::chrono::seconds(5)))
			return ::testing::AssertionFailure() << "the engine did not go idle";
		*news = g_news.load() - before;
		return ::testing::AssertionSuccess();
	};
	uint64_t news = 0;
	ASSERT_TRUE(rounds(64, &news));
	const uint64_t recovered0 = a.dp().counters().doorbells_recovered;
	ASSERT_TRUE(rounds(512, &news));
	EXPECT_EQ(a.dp().counters().doorbells_recovered - recovered0, 512u) << "one doorbell per scan from the records";
	EXPECT_EQ(news, 0u) << "512 scans, 1024 WQEs";
}

// The retransmission timer runs all along: a timeout of about 1 ms (the
// shortest period the requester uses), one message in flight at a time
// (the latency pattern: the send queue drains after each message), so
// timers start, move and fire over and over in the measured stream.
TEST(TimerAlloc, RetransmissionTimersAllocateNothing)
{
	DpHca::RcParams fast;
	fast.ack_timeout = 8;
	RcPair p(fast, fast);
	auto la = p.a.reg_mr(kBuf), rb = p.b.reg_mr(kBuf);
	uint64_t news = 0;
	ASSERT_TRUE(stream(p, OP_WRITE, 8, 256, la, rb, &news, 1));
	const uint64_t fired0 = p.fabric->engine().counters().timers_fired;
	auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	uint64_t total = 0;
	unsigned n = 0;
	// At least 20 timers fired in the measured part (the host's speed
	// decides how many messages that takes).
	while (p.fabric->engine().counters().timers_fired < fired0 + 20 && std::chrono::steady_clock::now() < until) {
		ASSERT_TRUE(stream(p, OP_WRITE, 8, 256, la, rb, &news, 1));
		total += news;
		n += 256;
	}
	const uint64_t fired = p.fabric->engine().counters().timers_fired - fired0;
	ASSERT_GE(fired, 20u) << "the retransmission timer did not run in " << n << " messages";
	std::printf("# %u messages, %llu retransmission timers fired\n", n, static_cast<unsigned long long>(fired));
	EXPECT_EQ(total, 0u) << n << " messages, " << fired << " timers fired";
}

// The engine's timer pool: once it holds the most timers pending at once,
// starting, cancelling and firing timers allocates nothing, however often
// a far timer is cancelled and started again (its stale deadlines are
// dropped in place, so the heap stays within its capacity).
TEST(TimerAlloc, EngineTimerPoolIsReused)
{
	Engine e;
	std::atomic<unsigned> ran{0};
	// Each round: a far timer started and cancelled, a due one started
	// and waited for (a timer or two pending at any time).
	auto cycle = [&](unsigned rounds) {
		for (unsigned i = 0; i < rounds; ++i) {
			uint64_t far = e.post_at(Engine::Clock::now() + std::chrono::hours(1),
						 [&ran](uint64_t) { ran += 1000000; });
			e.cancel(far);
			const unsigned want = ran.load() + 1;
			e.post_at(Engine::Clock::now(), [&ran](uint64_t) { ++ran; });
			if (!poll_for([&] { return ran.load() >= want; }) || ran.load() != want)
				return false;
		}
		return true;
	};
	Quiet q;
	ASSERT_TRUE(cycle(100));
	t_quiet = false;
	uint64_t before = g_news.load();
	ASSERT_TRUE(cycle(20000));
	uint64_t news = g_news.load() - before;
	t_quiet = true;
	EXPECT_EQ(ran.load(), 20100u) << "every due timer ran, no cancelled one";
	EXPECT_EQ(e.timers_pending(), 0u);
	EXPECT_EQ(news, 0u) << "20000 far timers cancelled, 20000 due ones run";
}

} // namespace
} // namespace mlx5emu::test
