// SPDX-License-Identifier: GPL-2.0
// CQ resize (MODIFY_CQ op_mod 1): the resize CQE in the old buffer after
// the CQEs software has not polled, the next CQE at the next index of the
// new buffer with the owner bit of the new size, traffic running through
// a resize, and the failures (fewer entries than CQEs present, no room for
// the resize CQE, bad sizes).
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kResize = 5;
constexpr uint8_t kBadParam = 0x03;

struct ResizeSetup : RcPair {
	DpHca::Mr src = a.reg_mr(4096), dst = b.reg_mr(64 * 4096);
	// `n` signaled SENDs from a to b (receives posted), their requester
	// CQEs left on a's CQ.
	void sends(unsigned n)
	{
		for (unsigned i = 0; i < n; ++i)
			recv(dst, 4096, 4096ull * (i % 64));
		for (unsigned i = 0; i < n; ++i)
			send(DpHca::send_wr(src, 8));
	}
	uint32_t producer()
	{
		auto lk = a.dp().lock();
		return a.dp().res().cq(acq.cqn)->producer();
	}
	bool wait_producer(uint32_t n)
	{
		auto end = std::chrono::steady_clock::now() + kPatience;
		while (producer() < n && std::chrono::steady_clock::now() < end)
			std::this_thread::sleep_for(1ms);
		return producer() >= n;
	}
};

TEST(ExecCqResize, CqesPresentStayInTheOldBufferBeforeTheResizeCqe)
{
	ResizeSetup s;
	Cqe e;
	// Move the producer off zero: 5 CQEs polled.
	s.sends(5);
	for (int i = 0; i < 5; ++i)
		ASSERT_TRUE(s.a.poll(s.acq, &e));
	s.sends(3);
	ASSERT_TRUE(s.wait_producer(8));
	DpHca::Cq next;
	auto r = s.a.resize_cq(s.acq, 3, &next);
	ASSERT_EQ(r.status, 0) << std::hex << r.syndrome;
	std::vector<Cqe> before;
	ASSERT_TRUE(s.a.follow_resize(s.acq, next, &before));
	ASSERT_EQ(before.size(), 3u);
	for (unsigned i = 0; i < 3; ++i) {
		EXPECT_EQ(before[i].opcode, kReq);
		EXPECT_EQ(before[i].wqe_counter, 5 + i);
	}
	EXPECT_EQ(s.acq.ci, 9u) << "the resize CQE took index 8";
	// The next CQEs: index 9.. of the 8-entry buffer, wrapping twice.
	for (unsigned i = 0; i < 20; ++i) {
		s.sends(1);
		ASSERT_TRUE(s.a.poll(s.acq, &e)) << i;
		EXPECT_EQ(e.opcode, kReq);
		EXPECT_EQ(e.wqe_counter, 8 + i);
		EXPECT_EQ(e.owner, ((9 + i) >> 3) & 1);
	}
	auto q = s.a.h.ok(Msg(0x402, 0, 16).set({2, 23, 0}, s.acq.cqn), 0x118);
	EXPECT_EQ(field(q, {ctx_dw(3), 28, 24}), 3u) << "QUERY_CQ: log_cq_size";
	EXPECT_EQ(be64_at(q, 0x110), next.buf) << "QUERY_CQ: the new page list";
	auto lk = s.a.dp().lock();
	EXPECT_EQ(s.a.dp().res().cq(s.acq.cqn)->counters().resizes, 1u);
}

TEST(ExecCqResize, TrafficInFlightThroughAResize)
{
	ResizeSetup s;
	// Three rounds of 15 SENDs (b's RQ holds 16); the CQ is resized while
	// each round completes: 64 -> 128 -> 32 -> 16 entries.
	DpHca::Cq next;
	std::vector<Cqe> got;
	Cqe e;
	for (unsigned log : {7u, 5u, 4u}) {
		size_t want = got.size() + 15;
		s.sends(15);
		ASSERT_TRUE(s.wait_producer(static_cast<uint32_t>(got.size() + 1)));
		auto r = s.a.resize_cq(s.acq, log, &next);
		ASSERT_EQ(r.status, 0) << std::hex << r.syndrome;
		ASSERT_TRUE(s.a.follow_resize(s.acq, next, &got));
		while (got.size() < want && s.a.poll(s.acq, &e))
			got.push_back(e);
		ASSERT_EQ(got.size(), want);
	}
	for (unsigned i = 0; i < got.size(); ++i) {
		EXPECT_EQ(got[i].opcode, kReq) << i;
		EXPECT_EQ(got[i].wqe_counter, i) << "every CQE once, in order";
	}
	EXPECT_TRUE(s.a.empty(s.acq));
	auto lk = s.a.dp().lock();
	EXPECT_EQ(s.a.dp().counters().cqe_drops, 0u);
	EXPECT_EQ(s.a.dp().res().cq(s.acq.cqn)->counters().resizes, 3u);
}

TEST(ExecCqResize, ShrinkingBelowTheCqesPresentFails)
{
	ResizeSetup s;
	s.sends(5);
	ASSERT_TRUE(s.wait_producer(5));
	DpHca::Cq next;
	auto r = s.a.resize_cq(s.acq, 2, &next); // 4 entries < 5 CQEs
	EXPECT_EQ(r.status, kBadParam);
	EXPECT_EQ(r.syndrome & 0xffff, 14u);
	// Nothing changed: the 5 CQEs in the old buffer, no resize CQE.
	Cqe e;
	for (unsigned i = 0; i < 5; ++i) {
		ASSERT_TRUE(s.a.poll(s.acq, &e));
		EXPECT_EQ(e.opcode, kReq);
		EXPECT_EQ(e.wqe_counter, i);
	}
	EXPECT_TRUE(s.a.empty(s.acq));
	// Exactly as many entries as CQEs present is enough.
	s.sends(4);
	ASSERT_TRUE(s.wait_producer(9));
	ASSERT_EQ(s.a.resize_cq(s.acq, 2, &next).status, 0);
	std::vector<Cqe> before;
	ASSERT_TRUE(s.a.follow_resize(s.acq, next, &before));
	EXPECT_EQ(before.size(), 4u);
}

TEST(ExecCqResize, BadRequestsFail)
{
	ResizeSetup s;
	DpHca::Cq next;
	Msg big(0x403, 1, 0x118);
	big.set({2, 23, 0}, s.acq.cqn).set({3, 31, 0}, 7).set({ctx_dw(3), 28, 24}, 23).be64(0x110, s.acq.buf);
	EXPECT_EQ(s.a.h.exec(big, 16).status, kBadParam) << "beyond log_max_cq_sz";
	// A full CQ has no room for the resize CQE.
	DpHca::Cq small = s.a.create_cq(2);
	DpHca::Qp q = s.a.create_qp(ST_RC, small, small);
	(void)q;
	{
		auto lk = s.a.dp().lock();
		Cq *cq = s.a.dp().res().cq(small.cqn);
		uint8_t cqe[64] = {};
		for (int i = 0; i < 4; ++i)
			ASSERT_TRUE(cq->push(s.a.mem(), cqe, false).written);
	}
	EXPECT_EQ(s.a.resize_cq(small, 4, &next).status, kBadParam);
	// No such CQ; the select bits missing.
	DpHca::Cq none = s.acq;
	none.cqn = 0x3333;
	EXPECT_EQ(s.a.resize_cq(none, 4, &next).status, kBadParam);
	Msg c(0x403, 1, 0x118);
	c.set({2, 23, 0}, s.acq.cqn).set({3, 31, 0}, 1).set({ctx_dw(3), 28, 24}, 0).be64(0x110, next.buf);
	EXPECT_EQ(s.a.h.exec(c, 16).status, kBadParam);
}

} // namespace
} // namespace mlx5emu::test
