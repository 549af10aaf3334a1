// SPDX-License-Identifier: GPL-2.0
// XRC: an initiator QP on one HCA sends into XRC SRQs behind one target QP
// on another; completions go to each SRQ's CQ with its user index, memory
// is checked against the SRQ's PD, a request naming an SRQ outside the
// target's domain (or none) is a remote invalid request, and the RC
// reliability (lost packets, RNR) carries over. RC opcodes do not reach
// an XRC target.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespSend = 2, kRespSendImm = 3, kReqErr = 13;
constexpr uint8_t kRemoteInvReq = 0x12, kFlush = 0x05;

struct XrcSetup {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(5);
	// b: the target's own CQ (c0 in mlx5_ib), one CQ per XRC SRQ.
	DpHca::Cq tcq = b.create_cq(5), cq1 = b.create_cq(5), cq2 = b.create_cq(5);
	uint32_t a_xrcd = a.alloc_xrcd(), xrcd = b.alloc_xrcd(), other_xrcd = b.alloc_xrcd();
	DpHca::Srq a_s0 = a.create_xrc_srq(2, a_xrcd, acq, 0xffffff);
	DpHca::Srq s1 = b.create_xrc_srq(4, xrcd, cq1, 0x111), s2 = b.create_xrc_srq(4, xrcd, cq2, 0x222);
	DpHca::Srq foreign = b.create_xrc_srq(4, other_xrcd, cq2, 0x333);
	DpHca::Qp ini = a.create_xrc_qp(false, acq, a_xrcd, a_s0, 6);
	DpHca::Qp tgt = b.create_xrc_qp(true, tcq, xrcd, s1);

	explicit XrcSetup(DpHca::RcParams pa = {}, DpHca::RcParams pb = {}) { connect_rc(a, ini, b, tgt, pa, pb); }

	DpHca::Wr send_to(uint32_t srqn, const DpHca::Mr &src, uint32_t len)
	{
		DpHca::Wr w = DpHca::send_wr(src, len);
		w.xrc_srqn = srqn;
		return w;
	}
	uint64_t ctr(uint64_t QpCounters::*f)
	{
		auto lk = b.dp().lock();
		return b.dp().res().qp(tgt.qpn)->ctr.*f;
	}
	uint8_t tgt_state()
	{
		auto lk = b.dp().lock();
		return b.dp().res().qp(tgt.qpn)->state;
	}
};

// A target naming no PD, CQ or SRQ of its own (our mlx5_ib's): its
// requests still land in the XRC SRQ they name, with that SRQ's CQ and PD.
TEST(ExecXrc, BareTargetReceivesIntoTheNamedSrq)
{
	XrcSetup x;
	DpHca::Qp ini = x.a.create_xrc_qp(false, x.acq, x.a_xrcd, x.a_s0, 6);
	DpHca::Qp tgt = x.b.create_xrc_qp(true, x.tcq, x.xrcd, x.s1, 4, true);
	connect_rc(x.a, ini, x.b, tgt, {}, {});
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	fill(x.a.mem(), src.addr, 4096, 3);
	x.b.post_srq_recv(x.s2, {dst.addr, 4096, dst.key});
	x.a.post_send(ini, x.send_to(x.s2.n, src, 1000));
	Cqe e, r;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(x.b.poll(x.cq2, &r));
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.qpn, tgt.qpn);
	EXPECT_EQ(r.srqn_uidx, 0x222u);
	EXPECT_EQ(x.b.mem().bytes(dst.addr, 1000), x.a.mem().bytes(src.addr, 1000));
}

TEST(ExecXrc, SendLandsInTheNamedSrqAndCompletesToItsCq)
{
	XrcSetup x;
	auto src = x.a.reg_mr(3 * 4096), dst = x.b.reg_mr(4 * 4096);
	fill(x.a.mem(), src.addr, 3 * 4096, 9);
	x.b.post_srq_recv(x.s1, {dst.addr, 4096, dst.key});
	x.b.post_srq_recv(x.s2, {dst.addr + 4096, 3 * 4096, dst.key});

	// Three MTU packets into s2, then an immediate into s1.
	x.a.post_send(x.ini, x.send_to(x.s2.n, src, 10000));
	DpHca::Wr w = x.send_to(x.s1.n, src, 100);
	w.opcode = OP_SEND_IMM;
	w.imm = 0x01020304;
	x.a.post_send(x.ini, w);
	Cqe e, r;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);

	ASSERT_TRUE(x.b.poll(x.cq2, &r));
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.byte_cnt, 10000u);
	EXPECT_EQ(r.qpn, x.tgt.qpn) << "the target QP";
	EXPECT_EQ(r.srqn_uidx, 0x222u) << "the XRC SRQ's user index";
	EXPECT_EQ(r.wqe_counter, 0u) << "the SRQ WQE index";
	EXPECT_EQ(x.b.mem().bytes(dst.addr + 4096, 10000), x.a.mem().bytes(src.addr, 10000));

	ASSERT_TRUE(x.b.poll(x.cq1, &r));
	EXPECT_EQ(r.opcode, kRespSendImm);
	EXPECT_EQ(r.srqn_uidx, 0x111u);
	uint8_t imm[4];
	std::memcpy(imm, &r.imm, 4);
	EXPECT_EQ(bits::load_be32(imm), 0x01020304u);
	EXPECT_EQ(r.flags_rqpn & 0xffffff, x.ini.qpn);
	EXPECT_TRUE(x.b.empty(x.tcq)) << "nothing on the target's own CQ";
}

TEST(ExecXrc, RcOpcodesDoNotReachAnXrcTarget)
{
	XrcSetup x;
	// An RC QP aimed at the target: its packets carry RC opcodes, which
	// the target drops (an initiator's carry 0xa0 | the RC opcode).
	DpHca::Qp rc = x.a.create_qp(ST_RC, x.acq, x.acq);
	DpHca::RcParams p;
	p.dlid = x.b.lid();
	p.dqpn = x.tgt.qpn;
	p.retry = 0;
	x.a.to_rts_rc(rc, p);
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	x.b.post_srq_recv(x.s1, {dst.addr, 64, dst.key});
	uint64_t dropped = [&] {
		auto lk = x.b.dp().lock();
		return x.b.dp().counters().dropped_packets;
	}();
	x.a.post_send(rc, DpHca::send_wr(src, 8));
	Cqe e;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr) << "never acknowledged";
	{
		auto lk = x.b.dp().lock();
		EXPECT_GE(x.b.dp().counters().dropped_packets, dropped + 1);
	}
	EXPECT_TRUE(x.b.empty(x.cq1));
	// The initiator's SEND to the same target is taken.
	x.a.post_send(x.ini, x.send_to(x.s1.n, src, 8));
	Cqe r;
	ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.cq1, &r));
	EXPECT_EQ(r.opcode, kRespSend);
}

TEST(ExecXrc, MemoryIsCheckedAgainstTheSrqPd)
{
	XrcSetup x;
	// The SRQ on a PD of its own; the target QP is on b's first PD.
	uint32_t pd2 = x.b.alloc_pd();
	DpHca::Srq s3 = x.b.create_xrc_srq(4, x.xrcd, x.cq1, 0x444, pd2);
	auto src = x.a.reg_mr(4096);
	auto good = x.b.reg_mr(4096, A_ALL, pd2), bad = x.b.reg_mr(4096, A_ALL);
	fill(x.a.mem(), src.addr, 64, 3);
	x.b.post_srq_recv(s3, {good.addr, 64, good.key});
	x.a.post_send(x.ini, x.send_to(s3.n, src, 64));
	Cqe e, r;
	ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.cq1, &r));
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.srqn_uidx, 0x444u);
	EXPECT_EQ(x.b.mem().bytes(good.addr, 64), x.a.mem().bytes(src.addr, 64));

	// RDMA WRITE through the SRQ: its PD's key works, the QP's PD's does not.
	DpHca::Wr wr = DpHca::rdma_wr(OP_WRITE, src, 64, good.addr, good.key);
	wr.xrc_srqn = s3.n;
	x.a.post_send(x.ini, wr);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	wr = DpHca::rdma_wr(OP_WRITE, src, 64, bad.addr, bad.key);
	wr.xrc_srqn = s3.n;
	x.a.post_send(x.ini, wr);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, 0x13) << "remote access error";
}

TEST(ExecXrc, SrqOfAnotherDomainIsARemoteInvalidRequest)
{
	XrcSetup x;
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	x.b.post_srq_recv(x.foreign, {dst.addr, 4096, dst.key});
	x.a.post_send(x.ini, x.send_to(x.foreign.n, src, 32));
	x.a.post_send(x.ini, x.send_to(x.s1.n, src, 32));
	Cqe e;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteInvReq);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.syndrome, kFlush) << "the WQE behind it is flushed";
	EXPECT_TRUE(x.b.empty(x.cq2)) << "the foreign SRQ's WQE stays";
	EXPECT_EQ(x.ctr(&QpCounters::xrc_bad_srq), 1u);
	EXPECT_EQ(x.tgt_state(), 6) << "the target enters ERR";
}

TEST(ExecXrc, UnknownSrqNumberIsARemoteInvalidRequest)
{
	XrcSetup x;
	auto src = x.a.reg_mr(4096);
	x.a.post_send(x.ini, x.send_to(0x7777, src, 32));
	Cqe e;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteInvReq);
	// A basic SRQ or an RMP is not an XRC SRQ either.
	XrcSetup y;
	DpHca::Srq rmp = y.b.create_rmp(2);
	auto src2 = y.a.reg_mr(4096), dst2 = y.b.reg_mr(4096);
	y.b.post_srq_recv(rmp, {dst2.addr, 64, dst2.key});
	y.a.post_send(y.ini, y.send_to(rmp.n, src2, 32));
	ASSERT_TRUE(y.a.poll(y.acq, &e));
	EXPECT_EQ(e.syndrome, kRemoteInvReq);
}

TEST(ExecXrc, LostPacketsAndRnrUseTheRcReliability)
{
	DpHca::RcParams pa;
	pa.min_rnr = 1;
	XrcSetup x(pa);
	auto src = x.a.reg_mr(3 * 4096), dst = x.b.reg_mr(3 * 4096);
	fill(x.a.mem(), src.addr, 3 * 4096, 5);
	// No SRQ WQE yet: RNR NAKs until one is posted.
	x.a.post_send(x.ini, x.send_to(x.s1.n, src, 9000));
	ASSERT_TRUE(x.b.settle());
	EXPECT_GE(x.ctr(&QpCounters::rnr_naks_sent), 1u);
	x.fabric->drop_next(1, 1); // the second packet of the retry is lost
	x.b.post_srq_recv(x.s1, {dst.addr, 3 * 4096, dst.key});
	Cqe e, r;
	ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.cq1, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.byte_cnt, 9000u);
	EXPECT_EQ(x.b.mem().bytes(dst.addr, 9000), x.a.mem().bytes(src.addr, 9000));
	EXPECT_GE(x.ctr(&QpCounters::seq_naks) + x.ctr(&QpCounters::duplicates), 1u);
}

TEST(ExecXrc, TargetErrorFlushesTheTakenWqeToTheSrqCq)
{
	// No retransmission (ack_timeout 0 is infinite): a retry landing
	// before the modify below would complete the SEND instead.
	DpHca::RcParams pa;
	pa.ack_timeout = 0;
	XrcSetup x(pa);
	auto src = x.a.reg_mr(3 * 4096), dst = x.b.reg_mr(3 * 4096);
	x.b.post_srq_recv(x.s1, {dst.addr, 3 * 4096, dst.key});
	// The first packet of a 3-packet SEND takes the WQE; the rest never
	// arrives and the target is moved to ERR.
	x.fabric->drop_next(2, 1);
	x.a.post_send(x.ini, x.send_to(x.s1.n, src, 9000));
	ASSERT_TRUE(x.b.settle());
	x.b.h.ok(x.b.modify_msg(0x507, x.tgt), 16); // 2ERR
	Cqe r;
	ASSERT_TRUE(x.b.poll(x.cq1, &r));
	EXPECT_EQ(r.syndrome, kFlush);
	EXPECT_EQ(r.srqn_uidx, 0x111u);
	EXPECT_TRUE(x.b.empty(x.tcq));
}

} // namespace
} // namespace mlx5emu::test
