// SPDX-License-Identifier: GPL-2.0
// Less common data-path behaviour: SEND with invalidate, fences, the
// outstanding READ/atomic limit, 128-byte CQEs, CQ overrun reported as a
// CQ error event (and the QP that overran it in error), and loopback on
// one HCA.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespSend = 2, kRespSendInv = 4, kRespErr = 14, kReqErr = 13;

TEST(ExecMisc, SendWithInvalidate)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	// A key that allows remote invalidation (en_rinval) on the responder.
	Msg c(0x200, 0, 0x110 + 16);
	uint64_t buf = p.b.mem().alloc(4096, 4096);
	c.set({ctx_dw(0), 9, 8}, 1).set({ctx_dw(0), 14, 10}, A_ALL >> 10).set({ctx_dw(1), 7, 0}, 7);
	c.set({ctx_dw(3), 24, 24}, 1).set({ctx_dw(3), 23, 0}, p.b.pd).be64(0x20, buf).be64(0x28, 4096);
	c.set({ctx_dw(0xe), 5, 0}, 12).set({0x18, 31, 0}, 1).be64(0x110, buf);
	auto out = p.b.h.ok(c, 16);
	uint32_t inv_key = (be32_at(out, 8) & 0xffffff) << 8 | 7;
	p.recv(dst, 64);
	DpHca::Wr w = DpHca::send_wr(src, 8);
	w.opcode = OP_SEND_INV;
	w.imm = inv_key; // the WQE carries the rkey to invalidate
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(r.opcode, kRespSendInv);
	EXPECT_EQ(bits::load_be32(reinterpret_cast<uint8_t *>(&r.imm)), inv_key);
	EXPECT_EQ(e.opcode, kReq);
	// The key is gone: a WRITE through it is a remote access error.
	p.send(DpHca::rdma_wr(OP_WRITE, src, 8, buf, inv_key));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, 0x13);
}

TEST(ExecMisc, InvalidatingAKeyWithoutTheRightFails)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.recv(dst, 64);
	DpHca::Wr w = DpHca::send_wr(src, 8);
	w.opcode = OP_SEND_INV;
	w.imm = dst.key; // registered without en_rinval
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(r.opcode, kRespErr);
	EXPECT_EQ(e.syndrome, 0x12) << "remote invalid request";
}

TEST(ExecMisc, ReadAtomicLimitAndFence)
{
	DpHca::RcParams pa; // log_sra_max 4 in to_rts_rc: 16 outstanding
	RcPair p(pa);
	auto loc = p.a.reg_mr(65536), rem = p.b.reg_mr(65536);
	fill(p.b.mem(), rem.addr, 65536, 2);
	// 40 READs, a doorbell each: the limit holds back all but 16
	// until responses arrive; all complete in order.
	std::vector<uint16_t> idx;
	for (int i = 0; i < 40; ++i) // the device takes each at once
		idx.push_back(p.send(DpHca::rdma_wr(OP_READ, loc, 1024, rem.addr + 1024ull * i, rem.key, 1024ull * i)));
	Cqe e;
	for (int i = 0; i < 40; ++i) {
		ASSERT_TRUE(p.a.poll(p.acq, &e)) << i;
		EXPECT_EQ(e.wqe_counter, idx[i]);
	}
	EXPECT_EQ(p.a.mem().bytes(loc.addr, 40 * 1024), p.b.mem().bytes(rem.addr, 40 * 1024));
	// A fenced SEND after a READ waits for the READ's data.
	auto dst = p.b.reg_mr(4096);
	p.recv(dst, 1024);
	p.a.post_send(p.aqp, DpHca::rdma_wr(OP_READ, loc, 1024, rem.addr, rem.key, 60000), false);
	DpHca::Wr s = DpHca::send_wr(loc, 1024, 60000);
	s.flags = F_SIGNALED | F_FENCE;
	p.send(s);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 1024), p.b.mem().bytes(rem.addr, 1024)) << "sent what the READ fetched";
}

TEST(ExecMisc, Cqe128AndOverrunEvent)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0);
	// An async EQ for CQ errors.
	auto async = a.h.create_eq(6, 1ull << 0x04, 0, a.uar);
	a.h.eq_doorbell(async, 0, true);
	auto cq = a.create_cq(1, 1); // 2 entries of 128 bytes
	auto qp = a.create_qp(ST_UD, cq, cq);
	a.to_rts_ud(qp, 0x10);
	DpHca::Wr w;
	w.opcode = OP_NOP;
	a.post_send(qp, w);
	Cqe e;
	ASSERT_TRUE(a.poll(cq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(a.mem().byte(cq.buf + 127) >> 4, 0) << "the CQE is in the second half";
	// Software stops consuming: the third unconsumed CQE overruns.
	for (int i = 0; i < 3; ++i)
		a.post_send(qp, w);
	ASSERT_TRUE(a.h.wait_eqe(async, 0));
	auto eqe = a.h.eqe(async, 0);
	EXPECT_EQ(eqe[1], 0x04) << "CQ error";
	EXPECT_EQ(bits::load_be32(&eqe[0x20]) & 0xffffff, cq.cqn);
	EXPECT_EQ(eqe[0x2b], 1) << "overrun";
	auto out = a.h.ok(Msg(0x402, 0, 16).set({2, 23, 0}, cq.cqn), 0x110);
	EXPECT_EQ(field(out, {ctx_dw(0), 31, 28}), 9u) << "status: overflow";
}

// IBA 11.6.3.1: the work queue whose CQE the CQ in error refuses gets a
// local work queue catastrophic error and enters ERR; its other queue is
// flushed to its own (healthy) CQ; the peer is not affected.
TEST(ExecMisc, CqOverrunPutsTheQpInError)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0), b(f, 1);
	auto async = a.h.create_eq(6, 1ull << 0x04 | 1ull << 0x05, 0, a.uar);
	a.h.eq_doorbell(async, 0, true);
	auto scq = a.create_cq(1), rcq = a.create_cq(4), bcq = b.create_cq(6);
	auto aqp = a.create_qp(ST_RC, scq, rcq, 4, 6), bqp = b.create_qp(ST_RC, bcq, bcq, 4, 6);
	connect_rc(a, aqp, b, bqp);
	auto src = a.reg_mr(4096), dst = b.reg_mr(4096);
	a.post_recv(aqp, src, 64, 2048);

	// Six signaled WRITEs into a CQ of two entries nobody consumes.
	for (int i = 0; i < 6; ++i)
		a.post_send(aqp, DpHca::rdma_wr(OP_WRITE, src, 8, dst.addr + 8 * i, dst.key));
	ASSERT_TRUE(a.h.wait_eqe(async, 0));
	auto e0 = a.h.eqe(async, 0);
	EXPECT_EQ(e0[1], 0x04) << "CQ error first";
	EXPECT_EQ(bits::load_be32(&e0[0x20]) & 0xffffff, scq.cqn);
	ASSERT_TRUE(a.h.wait_eqe(async, 1));
	auto e1 = a.h.eqe(async, 1);
	EXPECT_EQ(e1[1], 0x05) << "then the QP's catastrophic error";
	EXPECT_EQ(bits::load_be32(&e1[0x38]) & 0xffffff, aqp.qpn);
	ASSERT_TRUE(a.settle());
	auto q = a.h.ok(Msg(0x50b, 0, 16).set({2, 23, 0}, aqp.qpn), 0x110);
	EXPECT_EQ(field(q, {qpc_dw(0), 31, 28}), 6u) << "ERR";
	auto qb = b.h.ok(Msg(0x50b, 0, 16).set({2, 23, 0}, bqp.qpn), 0x110);
	EXPECT_EQ(field(qb, {qpc_dw(0), 31, 28}), 3u) << "the peer stays in RTS";
	Cqe e;
	ASSERT_TRUE(a.poll(rcq, &e)) << "the receive is flushed to the healthy CQ";
	EXPECT_EQ(e.opcode, 14);
	EXPECT_EQ(e.syndrome, 0x05);
	EXPECT_FALSE(a.h.wait_eqe(async, 2, 100ms)) << "one catastrophic error per QP";
}

TEST(ExecMisc, LoopbackOnOneHca)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0);
	auto cq = a.create_cq(5);
	auto q1 = a.create_qp(ST_RC, cq, cq), q2 = a.create_qp(ST_RC, cq, cq);
	connect_rc(a, q1, a, q2);
	auto m = a.reg_mr(8192);
	fill(a.mem(), m.addr, 100, 6);
	a.post_recv(q2, m, 100, 4096);
	a.post_send(q1, DpHca::send_wr(m, 100));
	Cqe e1, e2;
	ASSERT_TRUE(poll_both(a, cq, &e1, a, cq, &e2));
	EXPECT_EQ(a.mem().bytes(m.addr + 4096, 100), a.mem().bytes(m.addr, 100));
}

} // namespace
} // namespace mlx5emu::test
