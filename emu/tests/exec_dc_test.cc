// SPDX-License-Identifier: GPL-2.0
// DC: DCIs on one HCA reach DCTs on another, one destination per WQE
// (the address vector's DCT number and DC access key). SENDs land in the
// DCT's SRQ and complete to its CQ with the DCT's number, the DCI's QPN
// and the DCT's user index; WRITE and READ go through the DCT's PD. A
// wrong key is dropped (the DCI runs out of retries) and raises the key
// violation event once armed; a drained DCT answers nothing. The DCT
// commands refuse unknown numbers, other contexts' DCTs and wrong states.
#include "dp_harness.h"
#include "poll_for.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespSend = 2, kReqErr = 13;
constexpr uint8_t kRetryExc = 0x15, kFlush = 0x05;
constexpr uint8_t kDctDrained = 0x1c, kDctKeyViolation = 0x1d;
constexpr uint16_t kCreateDct = 0x710, kDestroyDct = 0x711, kDrainDct = 0x712, kQueryDct = 0x713,
		   kArmDct = 0x714;
constexpr uint64_t kKey = 0x1122334455667788ull;

struct Dct {
	uint32_t n = 0;
};

struct DcSetup {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(6), bcq = b.create_cq(6);
	DpHca::Srq srq = b.create_rmp(5);
	// b's async events (DCT_DRAINED, DCT key violation).
	FwHarness::EqBuf aeq = b.h.create_eq(4, 1ull << kDctDrained | 1ull << kDctKeyViolation, 2, b.uar);
	uint32_t aeq_ci = 0;

	DcSetup() { b.h.eq_doorbell(aeq, 0, true); }

	Msg create_dct_msg(uint64_t key = kKey, uint32_t user_index = 0x77)
	{
		Msg m(kCreateDct, 0, 0x80);
		m.set({ctx_dw(1), 23, 0}, user_index).set({ctx_dw(2), 23, 0}, bcq.cqn);
		m.set({ctx_dw(3), 19, 17}, 7); // rre, rwe, rae
		m.set({ctx_dw(4), 12, 8}, 1).set({ctx_dw(5), 23, 0}, srq.n).set({ctx_dw(6), 23, 0}, b.pd);
		m.be64(0x10 + 0x20, key);
		m.set({ctx_dw(0xa), 26, 24}, 5).set({ctx_dw(0xa), 23, 16}, 1);
		return m;
	}
	Dct create_dct(uint64_t key = kKey, uint32_t user_index = 0x77)
	{
		auto out = b.h.ok(create_dct_msg(key, user_index), 16);
		return Dct{be32_at(out, 8) & 0xffffff};
	}
	FwHarness::Result dct_cmd(uint16_t op, uint32_t dctn, uint32_t outlen = 16)
	{
		return b.h.exec(Msg(op, 0, 16).set({2, 23, 0}, dctn), outlen);
	}
	// The DCT context QUERY_DCT returns (its dword d).
	uint32_t query(uint32_t dctn, bits::Field f)
	{
		auto r = dct_cmd(kQueryDct, dctn, 0x80);
		EXPECT_EQ(r.status, 0);
		return r.out.size() >= 0x80 ? bits::get(r.out.data() + 0x10, f) : 0xffffffff;
	}

	// A DCI as the in-tree mlx5_ib creates one: no receive queue.
	DpHca::Qp create_dci(DpHca::RcParams p = {})
	{
		DpHca::Qp q;
		q.st = ST_DCI;
		q.log_sq = 6;
		q.buf = a.h.mem.alloc(64ull << q.log_sq, 4096);
		q.dbr = a.h.mem.alloc(64, 64);
		Msg c(0x500, 0, 0x110 + 8 * ((64ull << q.log_sq) / 4096));
		c.set({qpc_dw(0), 23, 16}, ST_DCI).set({qpc_dw(0), 12, 11}, 3).set({qpc_dw(1), 23, 0}, a.pd);
		c.set({qpc_dw(2), 14, 11}, q.log_sq).set({qpc_dw(3), 23, 0}, a.uar);
		c.set({qpc_dw(0x1f), 23, 0}, acq.cqn).set({qpc_dw(0x27), 23, 0}, acq.cqn);
		c.set({qpc_dw(0x2b), 26, 24}, 3).be64(0x18 + 0xa0, q.dbr);
		for (size_t i = 0; i < (64ull << q.log_sq) / 4096; ++i)
			c.be64(0x110 + 8 * i, q.buf + 4096 * i);
		auto out = a.h.ok(c, 16);
		q.qpn = be32_at(out, 8) & 0xffffff;
		a.to_rts_rc(q, p);
		return q;
	}
	DpHca::Wr to(const Dct &d, DpHca::Wr w, uint64_t key = kKey)
	{
		w.dqpn = d.n;
		w.dlid = b.lid();
		w.dc_key = key;
		return w;
	}
	// The next event on b's async EQ: its type and DCT number.
	bool next_event(uint8_t *type, uint32_t *dctn)
	{
		if (!b.h.wait_eqe(aeq, aeq_ci))
			return false;
		auto e = b.h.eqe(aeq, aeq_ci++);
		*type = e[1];
		*dctn = bits::load_be32(&e[0x38]) & 0xffffff;
		b.h.eq_doorbell(aeq, aeq_ci, true);
		return true;
	}
	uint64_t counter(uint64_t DataPath::Counters::*f)
	{
		auto lk = b.dp().lock();
		return b.dp().counters().*f;
	}
};

TEST(ExecDc, SendWriteReadFromADciToADct)
{
	DcSetup x;
	Dct d = x.create_dct();
	DpHca::Qp dci = x.create_dci();
	auto src = x.a.reg_mr(3 * 4096), dst = x.b.reg_mr(3 * 4096);
	fill(x.a.mem(), src.addr, 3 * 4096, 5);

	// SEND of three MTU packets into the DCT's SRQ.
	x.b.post_srq_recv(x.srq, {dst.addr, 3 * 4096, dst.key});
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 10000)));
	Cqe e, r;
	ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.qpn, dci.qpn);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.qpn, d.n);
	EXPECT_EQ(r.flags_rqpn & 0xffffff, dci.qpn);
	EXPECT_EQ(r.srqn_uidx, 0x77u);
	EXPECT_EQ(r.byte_cnt, 10000u);
	EXPECT_EQ(x.b.mem().bytes(dst.addr, 10000), x.a.mem().bytes(src.addr, 10000));

	// WRITE into b, then READ it back into the second half of src.
	fill(x.a.mem(), src.addr, 4096, 21);
	x.a.post_send(dci, x.to(d, DpHca::rdma_wr(OP_WRITE, src, 4096, dst.addr + 4096, dst.key)));
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(x.b.mem().bytes(dst.addr + 4096, 4096), x.a.mem().bytes(src.addr, 4096));
	x.a.post_send(dci, x.to(d, DpHca::rdma_wr(OP_READ, src, 4096, dst.addr + 4096, dst.key, 2 * 4096)));
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(x.a.mem().bytes(src.addr + 2 * 4096, 4096), x.a.mem().bytes(src.addr, 4096));
	EXPECT_TRUE(x.b.empty(x.bcq)); // WRITE and READ consume no receive
}

TEST(ExecDc, TwoDcisShareOneDct)
{
	DcSetup x;
	Dct d = x.create_dct();
	DpHca::Qp d1 = x.create_dci(), d2 = x.create_dci();
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(16 * 256);
	fill(x.a.mem(), src.addr, 4096, 1);
	for (int i = 0; i < 16; ++i)
		x.b.post_srq_recv(x.srq, {dst.addr + 256ull * i, 256, dst.key});
	// Both DCIs start at the same PSN: the DCT keeps one connection each.
	for (int i = 0; i < 8; ++i) {
		x.a.post_send(d1, x.to(d, DpHca::send_wr(src, 100, 200 * i)));
		x.a.post_send(d2, x.to(d, DpHca::send_wr(src, 100, 200 * i + 100)));
	}
	unsigned from1 = 0, from2 = 0;
	for (int i = 0; i < 16; ++i) {
		Cqe e, r;
		ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.bcq, &r)) << i;
		EXPECT_EQ(e.opcode, kReq);
		EXPECT_EQ(r.opcode, kRespSend);
		EXPECT_EQ(r.qpn, d.n);
		uint32_t from = r.flags_rqpn & 0xffffff;
		from1 += from == d1.qpn;
		from2 += from == d2.qpn;
	}
	EXPECT_EQ(from1, 8u);
	EXPECT_EQ(from2, 8u);
	EXPECT_EQ(x.counter(&DataPath::Counters::dc_conns_opened), 2u);
}

TEST(ExecDc, OneDciAlternatesBetweenTwoDcts)
{
	DcSetup x;
	Dct d1 = x.create_dct(kKey, 1), d2 = x.create_dct(kKey + 1, 2);
	DpHca::Qp dci = x.create_dci();
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	fill(x.a.mem(), src.addr, 4096, 3);
	// Posted at once: each WQE to the other DCT waits for the ones before.
	for (int i = 0; i < 6; ++i) {
		const Dct &d = i % 2 ? d2 : d1;
		x.a.post_send(dci, x.to(d, DpHca::rdma_wr(OP_WRITE, src, 512, dst.addr + 512ull * i, dst.key, 512ull * i),
					i % 2 ? kKey + 1 : kKey));
	}
	for (int i = 0; i < 6; ++i) {
		Cqe e;
		ASSERT_TRUE(x.a.poll(x.acq, &e)) << i;
		EXPECT_EQ(e.opcode, kReq) << i;
		EXPECT_EQ(e.wqe_counter, 2 * i); // control, address vector, remote address, data: 2 WQEBBs
	}
	EXPECT_EQ(x.b.mem().bytes(dst.addr, 3072), x.a.mem().bytes(src.addr, 3072));
	EXPECT_EQ(x.counter(&DataPath::Counters::dc_conns_opened), 6u);
}

TEST(ExecDc, WrongKeyEndsInRetryExceededAndTheArmedEvent)
{
	DcSetup x;
	Dct d = x.create_dct();
	DpHca::RcParams p;
	p.retry = 1;
	p.ack_timeout = 1; // the 1 ms floor
	DpHca::Qp dci = x.create_dci(p);
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	x.b.post_srq_recv(x.srq, {dst.addr, 4096, dst.key});
	ASSERT_EQ(x.dct_cmd(kArmDct, d.n).status, 0);
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 64), kKey ^ 1));
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 64)));
	Cqe e;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRetryExc);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.syndrome, kFlush);
	EXPECT_TRUE(x.b.empty(x.bcq));
	// One event per arm, though the DCI tried twice.
	uint8_t type = 0;
	uint32_t n = 0;
	ASSERT_TRUE(x.next_event(&type, &n));
	EXPECT_EQ(type, kDctKeyViolation);
	EXPECT_EQ(n, d.n);
	EXPECT_FALSE(x.b.h.wait_eqe(x.aeq, x.aeq_ci, 50ms));
	EXPECT_EQ(x.counter(&DataPath::Counters::dc_key_violations), 2u);
	EXPECT_EQ(x.query(d.n, {0xc, 31, 0}), 2u); // dc_access_key_violation_count

	// The DCI recovers through reset (its queue from index 0 again) and
	// reaches the DCT with the key, on a connection of its own.
	ASSERT_EQ(x.a.modify_status(0x50a, dci), 0);
	dci.sq_pi = 0;
	x.a.to_rts_rc(dci, p);
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 64)));
	Cqe r;
	ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSend);
}

TEST(ExecDc, DrainedDctAnswersNothingAndRefusesASecondDrain)
{
	DcSetup x;
	Dct d = x.create_dct();
	DpHca::RcParams p;
	p.retry = 1;
	p.ack_timeout = 1;
	DpHca::Qp dci = x.create_dci(p);
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	x.b.post_srq_recv(x.srq, {dst.addr, 4096, dst.key});
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 64)));
	Cqe e, r;
	ASSERT_TRUE(poll_both(x.a, x.acq, &e, x.b, x.bcq, &r));

	EXPECT_EQ(x.dct_cmd(kDrainDct, d.n).status, 0);
	uint8_t type = 0;
	uint32_t n = 0;
	ASSERT_TRUE(x.next_event(&type, &n));
	EXPECT_EQ(type, kDctDrained);
	EXPECT_EQ(n, d.n);
	EXPECT_EQ(x.query(d.n, {0, 27, 24}), 2u); // DRAINED
	EXPECT_EQ(x.dct_cmd(kDrainDct, d.n).status, 0x10);

	x.b.post_srq_recv(x.srq, {dst.addr, 4096, dst.key});
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 64)));
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRetryExc);
	EXPECT_TRUE(x.b.empty(x.bcq));
	EXPECT_GT(x.counter(&DataPath::Counters::dc_not_active), 0u);
	EXPECT_EQ(x.dct_cmd(kDestroyDct, d.n).status, 0);
	EXPECT_EQ(x.dct_cmd(kQueryDct, d.n, 0x80).status, 3);
}

TEST(ExecDc, DestroyedUnderTrafficLeavesTheDciInRetryExceeded)
{
	DcSetup x;
	Dct d = x.create_dct();
	DpHca::RcParams p;
	p.retry = 1;
	p.ack_timeout = 1;
	p.rnr_retry = 7;
	DpHca::Qp dci = x.create_dci(p);
	auto src = x.a.reg_mr(4096);
	// No receive WQE: the DCT's connection answers RNR NAKs forever,
	// until the DCT goes away under the stream.
	x.a.post_send(dci, x.to(d, DpHca::send_wr(src, 64)));
	ASSERT_TRUE(poll_for([&] { return x.counter(&DataPath::Counters::dc_conns_opened) == 1; }));
	EXPECT_EQ(x.dct_cmd(kDestroyDct, d.n).status, 0);
	Cqe e;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRetryExc);
	auto lk = x.b.dp().lock();
	EXPECT_EQ(x.b.dp().res().qps.size(), 0u); // the connection went with it
}

TEST(ExecDc, CommandsRefuseBadInput)
{
	DcSetup x;
	Dct d = x.create_dct();
	DpHca::Qp rc = x.b.create_qp(ST_RC, x.bcq, x.bcq);
	// Not a DCT: nothing, a QP.
	for (uint16_t op : {kDestroyDct, kDrainDct, kArmDct})
		for (uint32_t n : {0x12345u, rc.qpn})
			EXPECT_EQ(x.dct_cmd(op, n).status, 3) << std::hex << op << " " << n;
	EXPECT_EQ(x.dct_cmd(kQueryDct, rc.qpn, 0x80).status, 3);
	// A DCT is no QP to the QP commands.
	EXPECT_EQ(x.b.h.exec(Msg(0x501, 0, 16).set({2, 23, 0}, d.n), 16).status, 3);
	EXPECT_EQ(x.b.h.exec(Msg(0x50b, 0, 16).set({2, 23, 0}, d.n), 0x110).status, 3);
	EXPECT_EQ(x.b.h.exec(Msg(0x507, 0, 16).set({2, 23, 0}, d.n), 16).status, 3);
	// Objects that do not exist, an MTU the port lacks, an XRC SRQ.
	EXPECT_EQ(x.b.h.exec(x.create_dct_msg().set({ctx_dw(6), 23, 0}, 0x999), 16).status, 3);
	EXPECT_EQ(x.b.h.exec(x.create_dct_msg().set({ctx_dw(2), 23, 0}, 0x999), 16).status, 3);
	EXPECT_EQ(x.b.h.exec(x.create_dct_msg().set({ctx_dw(5), 23, 0}, 0x999), 16).status, 3);
	EXPECT_EQ(x.b.h.exec(x.create_dct_msg().set({ctx_dw(0xa), 26, 24}, 0), 16).status, 3);
	EXPECT_EQ(x.b.h.exec(x.create_dct_msg().set({ctx_dw(0xa), 26, 24}, 7), 16).status, 3);
	uint32_t xrcd = x.b.alloc_xrcd();
	DpHca::Srq xs = x.b.create_xrc_srq(2, xrcd, x.bcq, 0);
	EXPECT_EQ(x.b.h.exec(x.create_dct_msg().set({ctx_dw(5), 23, 0}, xs.n), 16).status, 3);
	// Another user context's DCT: not to be touched; its own, fine.
	auto out = x.b.h.ok(Msg(0xa04, 0, 0x40), 16);
	uint16_t uid = static_cast<uint16_t>(be32_at(out, 8) & 0xffff);
	x.b.h.uid = uid;
	for (uint16_t op : {kDestroyDct, kDrainDct, kArmDct})
		EXPECT_EQ(x.dct_cmd(op, d.n).status, 5) << std::hex << op;
	EXPECT_EQ(x.dct_cmd(kQueryDct, d.n, 0x80).status, 5);
	// Its CREATE_DCT naming the kernel's PD is fine (uid 0 objects are
	// shared), its DCT is its own.
	auto mine = x.b.h.exec(x.create_dct_msg(), 16);
	ASSERT_EQ(mine.status, 0);
	uint32_t n = be32_at(mine.out, 8) & 0xffffff;
	EXPECT_EQ(x.dct_cmd(kArmDct, n).status, 0);
	EXPECT_EQ(x.dct_cmd(kDestroyDct, n).status, 0);
	x.b.h.uid = 0;
	EXPECT_EQ(x.dct_cmd(kDestroyDct, d.n).status, 0);
	EXPECT_EQ(x.dct_cmd(kDestroyDct, d.n).status, 3);
}

} // namespace
} // namespace mlx5emu::test
