// SPDX-License-Identifier: GPL-2.0
// UC execution: SEND and RDMA WRITE (+immediate) without acknowledgements,
// the requester completing once the message is sent, READ/atomics refused
// locally, and the responder dropping a message with a lost packet or no
// receive WQE while the QP carries on.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespWrImm = 1, kRespSend = 2, kReqErr = 13;
constexpr uint8_t kLocalQpOp = 0x02;

uint64_t uc_dropped(DpHca &h, uint32_t qpn)
{
	auto lock = h.dp().lock();
	Qp *qp = h.dp().res().qp(qpn);
	return qp ? qp->ctr.uc_dropped_msgs : ~0ull;
}

TEST(ExecUc, SendAndWriteImmWithoutAcks)
{
	RcPair p({}, {}, ST_UC);
	auto src = p.a.reg_mr(16384), dst = p.b.reg_mr(16384);
	fill(p.a.mem(), src.addr, 16384, 5);
	p.recv(dst, 16384);
	p.b.post_recv(p.bqp, {});
	p.send(DpHca::send_wr(src, 10000)); // 3 packets at MTU 4096
	DpHca::Wr w = DpHca::rdma_wr(OP_WRITE_IMM, src, 4000, dst.addr + 12000, dst.key, 12000);
	w.imm = 7;
	p.send(w);
	Cqe e, r;
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.byte_cnt, 10000u);
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespWrImm);
	EXPECT_EQ(r.byte_cnt, 4000u);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 10000), p.a.mem().bytes(src.addr, 10000));
	EXPECT_EQ(p.b.mem().bytes(dst.addr + 12000, 4000), p.a.mem().bytes(src.addr + 12000, 4000));
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(p.fabric->counters().packets, 4u) << "3 + 1 request packets, not a single ACK";
}

TEST(ExecUc, ReadAndAtomicsAreLocalErrors)
{
	RcPair p({}, {}, ST_UC);
	auto loc = p.a.reg_mr(4096), rem = p.b.reg_mr(4096);
	p.send(DpHca::rdma_wr(OP_READ, loc, 64, rem.addr, rem.key));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalQpOp);
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(p.fabric->counters().packets, 0u);
}

TEST(ExecUc, LostPacketDropsTheMessageOnly)
{
	RcPair p({}, {}, ST_UC);
	auto src = p.a.reg_mr(16384), dst = p.b.reg_mr(16384);
	fill(p.a.mem(), src.addr, 16384, 9);
	p.recv(dst, 16384);
	// The middle packet of the first 3-packet SEND is lost.
	p.fabric->drop_next(1, 1);
	p.send(DpHca::send_wr(src, 10000));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq) << "UC requesters never learn of the loss";
	ASSERT_TRUE(p.a.settle());
	EXPECT_FALSE(p.b.poll(p.bcq, &e, 50ms)) << "no completion for a partial message";
	EXPECT_EQ(uc_dropped(p.b, p.bqp.qpn), 1u);
	// The next message lands in the same receive WQE.
	p.send(DpHca::send_wr(src, 5000, 100));
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.wqe_counter, 0);
	EXPECT_EQ(e.byte_cnt, 5000u);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 5000), p.a.mem().bytes(src.addr + 100, 5000));
}

TEST(ExecUc, NoReceiveWqeDropsTheMessage)
{
	RcPair p({}, {}, ST_UC);
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 1);
	p.send(DpHca::send_wr(src, 100));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(uc_dropped(p.b, p.bqp.qpn), 1u);
	p.recv(dst, 4096);
	p.send(DpHca::send_wr(src, 50, 1));
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.byte_cnt, 50u);
	EXPECT_EQ(p.fabric->counters().packets, 2u) << "no RNR NAK on UC";
}

} // namespace
} // namespace mlx5emu::test
