// SPDX-License-Identifier: GPL-2.0
// UD sends with address vectors (GRH room, Q_Key check, source QPN and
// LID in the CQE), the GSI QP answering QP number 1, SRQ (RMP) receives
// with user indices, and the doorbell forms: 64-bit, two 32-bit halves and
// BlueFlame copies into either half of a register.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespSend = 2, kRespSendImm = 3, kReqErr = 13, kRespErr = 14;

struct UdPair {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(5), bcq = b.create_cq(5);
	DpHca::Qp aqp = a.create_qp(ST_UD, acq, acq), bqp = b.create_qp(ST_UD, bcq, bcq);
	UdPair()
	{
		a.to_rts_ud(aqp, 0x1111);
		b.to_rts_ud(bqp, 0x2222);
	}
	// A SEND from a to b's QP with `qkey`: `len` bytes in `src`.
	DpHca::Wr to_b(const DpHca::Mr &src, uint32_t len, uint32_t qkey = 0x2222)
	{
		DpHca::Wr w = DpHca::send_wr(src, len);
		w.dlid = b.lid();
		w.dqpn = bqp.qpn;
		w.qkey = qkey;
		return w;
	}
};

TEST(ExecUd, SendWithAddressVector)
{
	UdPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 300, 4);
	p.b.post_recv(p.bqp, dst, 40 + 300);
	DpHca::Wr w = p.to_b(src, 300);
	w.opcode = OP_SEND_IMM;
	w.imm = 77;
	p.a.post_send(p.aqp, w);
	Cqe e, r;
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSendImm);
	EXPECT_EQ(r.byte_cnt, 340u) << "payload + 40-byte GRH room";
	EXPECT_EQ(r.flags_rqpn & 0xffffff, p.aqp.qpn);
	EXPECT_EQ(r.slid, p.a.lid());
	EXPECT_EQ(p.b.mem().bytes(dst.addr + 40, 300), p.a.mem().bytes(src.addr, 300));
}

TEST(ExecUd, QkeyMismatchAndNoReceiveAreDropped)
{
	UdPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.b.post_recv(p.bqp, dst, 100);
	DpHca::Wr w = p.to_b(src, 8, 0x9999);
	p.a.post_send(p.aqp, w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq) << "UD: the sender completes regardless";
	EXPECT_TRUE(p.b.empty(p.bcq));
	{
		auto lk = p.b.dp().lock();
		EXPECT_EQ(p.b.dp().res().qp(p.bqp.qpn)->ctr.qkey_violations, 1u);
	}
	// The Q_Key of the QP when the high bit is set in the WQE.
	p.b.h.ok(p.b.modify_msg(0x505, p.bqp, 1u << 5).set({qpc_dw(0x2a), 31, 0}, 0x1111), 16);
	w.qkey = 0x80000000;
	p.a.post_send(p.aqp, w);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
}

TEST(ExecUd, MessageLargerThanTheMtuIsALocalLengthError)
{
	UdPair p;
	auto src = p.a.reg_mr(8192);
	p.a.post_send(p.aqp, p.to_b(src, 4097));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, 0x01);
	auto out = p.a.h.ok(Msg(0x50b, 0, 16).set({2, 23, 0}, p.aqp.qpn), 0x110);
	EXPECT_EQ(field(out, {qpc_dw(0), 31, 28}), 4u) << "SQE; SQERR2RTS recovers";
	EXPECT_EQ(p.a.modify_status(0x506, p.aqp), 0);
}

TEST(ExecUd, GsiQpAnswersQpOne)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0), b(f, 1);
	auto acq = a.create_cq(5), bcq = b.create_cq(5);
	auto aqp = a.create_qp(ST_QP1, acq, acq), bqp = b.create_qp(ST_QP1, bcq, bcq);
	a.to_rts_ud(aqp, 0x80010000);
	b.to_rts_ud(bqp, 0x80010000);
	auto src = a.reg_mr(4096), dst = b.reg_mr(4096);
	b.post_recv(bqp, dst, 40 + 256);
	DpHca::Wr w = DpHca::send_wr(src, 256);
	w.dlid = b.lid();
	w.dqpn = 1;
	w.qkey = 0x80010000;
	a.post_send(aqp, w);
	Cqe e;
	ASSERT_TRUE(b.poll(bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.qpn, bqp.qpn) << "the CQE names the GSI QP's own number";
	EXPECT_EQ(e.flags_rqpn & 0xffffff, 1u) << "sent from QP1";
	EXPECT_EQ(e.byte_cnt, 296u);
	EXPECT_EQ(bits::load_be32(reinterpret_cast<uint8_t *>(&e.imm)) & 0xffff, 0xffffu) << "P_Key";
}

TEST(ExecSrq, RmpReceivesWithUserIndex)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0), b(f, 1);
	auto acq = a.create_cq(5), bcq = b.create_cq(5);
	DpHca::Srq srq = b.create_rmp(3);
	auto aqp = a.create_qp(ST_RC, acq, acq);
	auto bqp = b.create_qp(ST_RC, bcq, bcq, 0, 4, &srq, 0x42);
	connect_rc(a, aqp, b, bqp);
	auto src = a.reg_mr(4096), dst = b.reg_mr(4096);
	fill(a.mem(), src.addr, 64, 8);
	for (int i = 0; i < 3; ++i)
		b.post_srq_recv(srq, {dst.addr + 512ull * i, 512, dst.key});
	DpHca::Wr w = DpHca::send_wr(src, 64);
	for (int i = 0; i < 3; ++i)
		a.post_send(aqp, w);
	Cqe e;
	for (uint16_t i = 0; i < 3; ++i) {
		ASSERT_TRUE(b.poll(bcq, &e)) << i;
		EXPECT_EQ(e.opcode, kRespSend);
		EXPECT_EQ(e.wqe_counter, i) << "the SRQ WQE index";
		EXPECT_EQ(e.srqn_uidx, 0x42u) << "cqe_version 1: the QP's user index";
		EXPECT_EQ(b.mem().bytes(dst.addr + 512ull * i, 64), a.mem().bytes(src.addr, 64));
	}
	// The fourth SEND finds the SRQ empty: RNR until a WQE is posted.
	a.post_send(aqp, w);
	EXPECT_TRUE(b.empty(bcq));
	b.post_srq_recv(srq, {dst.addr + 2048, 512, dst.key});
	ASSERT_TRUE(b.poll(bcq, &e));
	EXPECT_EQ(e.wqe_counter, 3);
	// The SRQ limit event once fewer than lwm WQEs are left.
	Msg m(0x90d, 0, 0x110);
	m.set({2, 31, 28}, 1).set({2, 23, 0}, srq.n).set({5, 0, 0}, 1).set({0x14 + 1, 15, 0}, 2);
	b.h.ok(m, 16);
	b.post_srq_recv(srq, {dst.addr, 512, dst.key});
	b.post_srq_recv(srq, {dst.addr, 512, dst.key});
	a.post_send(aqp, w);
	ASSERT_TRUE(b.poll(bcq, &e));
	ASSERT_TRUE(b.settle());
	auto lk = b.dp().lock();
	EXPECT_EQ(b.dp().res().srq(srq.n)->limit_events, 1u);
	EXPECT_EQ(b.dp().res().srq(srq.n)->cfg.lwm, 0u) << "disarmed: the limit reads back as 0";
}

TEST(ExecDoorbell, SplitAndBlueFlameDoorbells)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0);
	auto cq = a.create_cq(5);
	auto qp = a.create_qp(ST_UD, cq, cq);
	a.to_rts_ud(qp, 0x10);
	DpHca::Wr w;
	w.opcode = OP_NOP;
	// Two 32-bit halves at +0x800 / +0x804.
	uint16_t idx = a.post_send(qp, w, false);
	uint8_t ctrl[8];
	a.mem().read(qp.buf + qp.rq_bytes() + 64ull * idx, ctrl, 8);
	uint32_t lo, hi;
	std::memcpy(&lo, ctrl, 4);
	std::memcpy(&hi, ctrl + 4, 4);
	a.h.hca->bar_write(a.uar * 4096ull + 0x800, 4, lo);
	EXPECT_TRUE(a.empty(cq)) << "half a doorbell does nothing";
	a.h.hca->bar_write(a.uar * 4096ull + 0x804, 4, hi);
	Cqe e;
	ASSERT_TRUE(a.poll(cq, &e));
	EXPECT_EQ(e.wqe_counter, idx);
	// BlueFlame: the whole WQE as eight 8-byte writes, into the second
	// half of the register, then into the first half of register 1.
	for (unsigned off : {0x100u, 0x200u}) {
		idx = a.post_send(qp, w, false);
		std::vector<uint8_t> bb = a.mem().bytes(qp.buf + qp.rq_bytes() + 64ull * idx, 64);
		for (unsigned i = 0; i < 64; i += 8) {
			uint64_t v;
			std::memcpy(&v, &bb[i], 8);
			a.h.hca->bar_write(a.uar * 4096ull + 0x800 + off + i, 8, v);
		}
		ASSERT_TRUE(a.poll(cq, &e)) << std::hex << off;
		EXPECT_EQ(e.wqe_counter, idx);
		EXPECT_TRUE(a.empty(cq)) << "one WQE, one completion";
	}
}

} // namespace
} // namespace mlx5emu::test
