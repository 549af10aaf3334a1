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
	p.b.post_recv(p.bqp, {{dst.addr, 16384, dst.key}});
	p.b.post_recv(p.bqp, {});
	DpHca::Wr s;
	s.sgl = {{src.addr, 10000, src.key}}; // 3 packets at MTU 4096
	p.a.post_send(p.aqp, s);
	DpHca::Wr w;
	w.opcode = OP_WRITE_IMM;
	w.imm = 7;
	w.raddr = dst.addr + 12000;
	w.rkey = dst.key;
	w.sgl = {{src.addr + 12000, 4000, src.key}};
	p.a.post_send(p.aqp, w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.byte_cnt, 10000u);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespWrImm);
	EXPECT_EQ(e.byte_cnt, 4000u);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 10000), p.a.mem().bytes(src.addr, 10000));
	EXPECT_EQ(p.b.mem().bytes(dst.addr + 12000, 4000), p.a.mem().bytes(src.addr + 12000, 4000));
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(p.fabric->counters().packets, 4u) << "3 + 1 request packets, not a single ACK";
}

TEST(ExecUc, ReadAndAtomicsAreLocalErrors)
{
	RcPair p({}, {}, ST_UC);
	auto loc = p.a.reg_mr(4096), rem = p.b.reg_mr(4096);
	DpHca::Wr r;
	r.opcode = OP_READ;
	r.raddr = rem.addr;
	r.rkey = rem.key;
	r.sgl = {{loc.addr, 64, loc.key}};
	p.a.post_send(p.aqp, r);
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
	p.b.post_recv(p.bqp, {{dst.addr, 16384, dst.key}});
	// The middle packet of the first 3-packet SEND is lost.
	p.fabric->drop_next(1, 1);
	DpHca::Wr s;
	s.sgl = {{src.addr, 10000, src.key}};
	p.a.post_send(p.aqp, s);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq) << "UC requesters never learn of the loss";
	ASSERT_TRUE(p.a.settle());
	EXPECT_FALSE(p.b.poll(p.bcq, &e, 50ms)) << "no completion for a partial message";
	EXPECT_EQ(uc_dropped(p.b, p.bqp.qpn), 1u);
	// The next message lands in the same receive WQE.
	s.sgl = {{src.addr + 100, 5000, src.key}};
	p.a.post_send(p.aqp, s);
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
	DpHca::Wr s;
	s.sgl = {{src.addr, 100, src.key}};
	p.a.post_send(p.aqp, s);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(uc_dropped(p.b, p.bqp.qpn), 1u);
	p.b.post_recv(p.bqp, {{dst.addr, 4096, dst.key}});
	s.sgl = {{src.addr + 1, 50, src.key}};
	p.a.post_send(p.aqp, s);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.byte_cnt, 50u);
	EXPECT_EQ(p.fabric->counters().packets, 2u) << "no RNR NAK on UC";
}

} // namespace
} // namespace mlx5emu::test
