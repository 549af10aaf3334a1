// SPDX-License-Identifier: GPL-2.0
// The data-path object commands, success and error paths: PD / XRC domain
// / transport domain / Q counter / MAD demux, MKEY, CQ, QP (create, query,
// every transition and its state check), SRQ, XRC SRQ and RMP.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kBadParam = 0x03, kBadQpState = 0x10, kBusy = 0x06;

struct Cmds : ::testing::Test {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca d{fabric, 0};
};

TEST_F(Cmds, DomainsAndCounters)
{
	for (uint16_t alloc : {0x800, 0x80e, 0x816}) {
		auto out = d.h.ok(Msg(alloc, 0, 16), 16);
		uint32_t n = be32_at(out, 8) & 0xffffff;
		EXPECT_NE(n, 0u);
		d.h.ok(Msg(static_cast<uint16_t>(alloc + 1), 0, 16).set({2, 23, 0}, n), 16);
		d.h.fails(Msg(static_cast<uint16_t>(alloc + 1), 0, 16).set({2, 23, 0}, n), 16, kBadParam);
	}
	auto q = d.h.ok(Msg(0x771, 0, 16), 16);
	uint32_t set = q[0xb];
	EXPECT_NE(set, 0u);
	auto stats = d.h.ok(Msg(0x773, 0, 32).set({7, 7, 0}, set), 256);
	EXPECT_EQ(be32_at(stats, 0x30), 0u) << "out_of_buffer";
	d.h.ok(Msg(0x772, 0, 16).set({2, 7, 0}, set), 16);
	d.h.fails(Msg(0x773, 0, 32).set({7, 7, 0}, set), 256, kBadParam);
	d.h.ok(Msg(0x80c, 0, 16).set({3, 25, 24}, 2), 16);
	d.h.fails(Msg(0x80c, 0, 16).set({3, 25, 24}, 1), 16, kBadParam);
	d.h.ok(Msg(0x80b, 0, 16), 20);
}

TEST_F(Cmds, MkeyCreateQueryDestroy)
{
	DpHca::Mr mr = d.reg_mr(3 * 4096 + 100, A_LR | A_LW | A_RR);
	auto out = d.h.ok(Msg(0x201, 0, 16).set({2, 23, 0}, mr.index), 0x110 + 64);
	EXPECT_EQ(field(out, {ctx_dw(0), 9, 8}), 1u) << "MTT mode";
	EXPECT_EQ(field(out, {ctx_dw(0), 14, 10}), (A_LR | A_LW | A_RR) >> 10);
	EXPECT_EQ(field(out, {ctx_dw(1), 7, 0}), mr.key & 0xff);
	EXPECT_EQ(field(out, {ctx_dw(3), 23, 0}), d.pd);
	EXPECT_EQ(be64_at(out, 0x20), mr.addr);
	EXPECT_EQ(be64_at(out, 0x28), mr.len);
	EXPECT_EQ(be64_at(out, 0x110) & ~0xffull, mr.addr);
	EXPECT_EQ(be64_at(out, 0x118) & ~0xffull, mr.addr + 4096);
	d.h.ok(Msg(0x202, 0, 16).set({2, 23, 0}, mr.index), 16);
	d.h.fails(Msg(0x202, 0, 16).set({2, 23, 0}, mr.index), 16, kBadParam);
	d.h.fails(Msg(0x201, 0, 16).set({2, 23, 0}, mr.index), 0x110, kBadParam);
}

TEST_F(Cmds, MkeyErrors)
{
	auto base = [&] {
		Msg c(0x200, 0, 0x110 + 16);
		c.set({ctx_dw(0), 9, 8}, 1).set({ctx_dw(3), 23, 0}, d.pd).be64(0x20, 0x100000).be64(0x28, 4096);
		c.set({ctx_dw(0xe), 5, 0}, 12).set({0x18, 31, 0}, 1).be64(0x110, 0x100000000ull);
		return c;
	};
	d.h.ok(base(), 16);
	d.h.fails(base().set({ctx_dw(3), 23, 0}, 999), 16, kBadParam);      // no such PD
	d.h.fails(base().set({ctx_dw(0), 9, 8}, 2), 16, kBadParam);         // KLM
	d.h.fails(base().set({ctx_dw(0xe), 5, 0}, 10), 16, kBadParam);      // 1 KiB pages
	d.h.fails(base().be64(0x110, 0x100000800ull), 16, kBadParam);       // unaligned page
	d.h.fails(base().set({3, 30, 30}, 1), 16, kBadParam);               // umem
	d.h.fails(base().be64(0x28, 3 * 4096), 16, 0x50);                   // MTT too short
	// PA mode covering everything (get_dma_mr).
	Msg pa(0x200, 0, 0x110);
	pa.set({ctx_dw(0), 14, 10}, 3).set({ctx_dw(3), 31, 31}, 1).set({ctx_dw(3), 23, 0}, d.pd);
	d.h.ok(pa, 16);
}

TEST_F(Cmds, CqCreateQueryModifyDestroy)
{
	DpHca::Cq cq = d.create_cq(5, 1);
	auto out = d.h.ok(Msg(0x402, 0, 16).set({2, 23, 0}, cq.cqn), 0x110 + 8);
	EXPECT_EQ(field(out, {ctx_dw(3), 28, 24}), 5u);
	EXPECT_EQ(field(out, {ctx_dw(0), 23, 21}), 1u) << "128-byte CQEs";
	EXPECT_EQ(field(out, {ctx_dw(3), 23, 0}), d.uar);
	EXPECT_EQ(field(out, {ctx_dw(5), 31, 0}), d.eq.eqn);
	EXPECT_EQ(field(out, {ctx_dw(0), 11, 8}), 0xau) << "not armed: fired";
	EXPECT_EQ(be64_at(out, 0x48), cq.dbr);
	EXPECT_EQ(be64_at(out, 0x110), cq.buf);
	d.arm(cq, false);
	ASSERT_TRUE(d.settle());
	out = d.h.ok(Msg(0x402, 0, 16).set({2, 23, 0}, cq.cqn), 0x110);
	EXPECT_EQ(field(out, {ctx_dw(0), 11, 8}), 0x9u) << "armed";
	d.h.ok(Msg(0x403, 0, 0x110).set({2, 23, 0}, cq.cqn).set({3, 31, 0}, 3).set({ctx_dw(4), 15, 0}, 16), 16);
	out = d.h.ok(Msg(0x402, 0, 16).set({2, 23, 0}, cq.cqn), 0x110);
	EXPECT_EQ(field(out, {ctx_dw(4), 15, 0}), 16u) << "cq_max_count";
	d.h.fails(Msg(0x403, 1, 0x110).set({2, 23, 0}, cq.cqn), 16, kBadParam); // resize: not advertised
	d.h.ok(Msg(0x401, 0, 16).set({2, 23, 0}, cq.cqn), 16);
	d.h.fails(Msg(0x401, 0, 16).set({2, 23, 0}, cq.cqn), 16, kBadParam);
	d.h.fails(Msg(0x402, 0, 16).set({2, 23, 0}, cq.cqn), 0x110, kBadParam);
}

TEST_F(Cmds, CqLargePagesAndPageOffset)
{
	// 128 CQEs (8 KiB) in 8 KiB pages starting 4 KiB into the first page
	// (page_offset 32 of 64ths): two pages needed, one is too short.
	uint64_t p0 = d.mem().alloc(8192, 8192), p1 = d.mem().alloc(8192, 8192);
	auto base = [&](unsigned npas) {
		Msg c(0x400, 0, 0x110 + 8 * npas);
		c.set({ctx_dw(3), 28, 24}, 7).set({ctx_dw(3), 23, 0}, d.uar).set({ctx_dw(5), 31, 0}, d.eq.eqn);
		c.set({ctx_dw(6), 28, 24}, 1).set({ctx_dw(2), 11, 6}, 32);
		c.be64(0x48, d.mem().alloc(64)).be64(0x110, p0);
		if (npas > 1)
			c.be64(0x118, p1);
		return c;
	};
	d.h.fails(base(1), 16, 0x50);
	auto out = d.h.ok(base(2), 16);
	uint32_t cqn = be32_at(out, 8) & 0xffffff;
	out = d.h.ok(Msg(0x402, 0, 16).set({2, 23, 0}, cqn), 0x110 + 16);
	EXPECT_EQ(field(out, {ctx_dw(6), 28, 24}), 1u) << "log_page_size";
	EXPECT_EQ(field(out, {ctx_dw(2), 11, 6}), 32u) << "page_offset";
	EXPECT_EQ(be64_at(out, 0x110), p0);
	EXPECT_EQ(be64_at(out, 0x118), p1);
	Msg misaligned = base(2);
	misaligned.be64(0x118, p1 + 4096); // not aligned to the 8 KiB page
	d.h.fails(misaligned, 16, kBadParam);
}

TEST_F(Cmds, CqErrors)
{
	uint64_t buf = d.mem().alloc(4096, 4096);
	auto base = [&] {
		Msg c(0x400, 0, 0x110 + 8);
		c.set({ctx_dw(3), 28, 24}, 6).set({ctx_dw(3), 23, 0}, d.uar).set({ctx_dw(5), 31, 0}, d.eq.eqn);
		c.be64(0x48, d.mem().alloc(64)).be64(0x110, buf);
		return c;
	};
	d.h.ok(base(), 16);
	d.h.fails(base().set({ctx_dw(5), 31, 0}, 77), 16, kBadParam);         // no such EQ
	d.h.fails(base().set({ctx_dw(3), 23, 0}, 4000), 16, kBadParam);       // UAR not allocated
	d.h.fails(base().set({ctx_dw(3), 28, 24}, 23), 16, kBadParam);        // > log_max_cq_sz
	d.h.fails(base().set({ctx_dw(0), 23, 21}, 3), 16, kBadParam);         // cqe_sz
	d.h.fails(base().set({ctx_dw(3), 28, 24}, 7), 16, 0x50);              // pas too short
	d.h.fails(base().set({ctx_dw(0), 14, 14}, 1), 16, kBadParam);         // compression
}

TEST_F(Cmds, QpCreateAndTransitions)
{
	DpHca::Cq cq = d.create_cq(4);
	DpHca::Qp qp = d.create_qp(ST_RC, cq, cq);
	auto q = [&] { return d.h.ok(Msg(0x50b, 0, 16).set({2, 23, 0}, qp.qpn), 0x110); };
	EXPECT_EQ(field(q(), {qpc_dw(0), 31, 28}), 0u) << "RST";
	// Every transition but RST2INIT (and 2ERR/2RST) is refused in RST.
	for (uint16_t op : {0x503, 0x504, 0x505, 0x506, 0x50e, 0x50c})
		EXPECT_EQ(d.modify_status(op, qp), kBadQpState) << std::hex << op;
	DpHca::RcParams p;
	p.dlid = 9;
	p.dqpn = 0x123;
	d.to_rts_rc(qp, p);
	auto out = q();
	EXPECT_EQ(field(out, {qpc_dw(0), 31, 28}), 3u) << "RTS";
	EXPECT_EQ(field(out, {qpc_dw(7), 15, 0}), 9u) << "rlid";
	EXPECT_EQ(field(out, {qpc_dw(5), 23, 0}), 0x123u) << "remote_qpn";
	EXPECT_EQ(field(out, {qpc_dw(0x1e), 23, 0}), p.sq_psn);
	EXPECT_EQ(field(out, {qpc_dw(0x25), 23, 0}), p.rq_psn);
	EXPECT_EQ(field(out, {qpc_dw(2), 31, 29}), 5u) << "mtu";
	EXPECT_EQ(field(out, {qpc_dw(8), 31, 27}), p.ack_timeout);
	EXPECT_EQ(field(out, {qpc_dw(0x1c), 18, 16}), p.retry);
	EXPECT_EQ(be64_at(out, 0x18 + 0xa0), qp.dbr);
	EXPECT_EQ(d.modify_status(0x502, qp), kBadQpState) << "RST2INIT in RTS";
	EXPECT_EQ(d.modify_status(0x505, qp), 0) << "RTS2RTS";
	EXPECT_EQ(d.modify_status(0x506, qp), kBadQpState) << "SQERR2RTS in RTS";
	EXPECT_EQ(d.modify_status(0x507, qp), 0) << "2ERR";
	EXPECT_EQ(field(q(), {qpc_dw(0), 31, 28}), 6u) << "ERR";
	EXPECT_EQ(d.modify_status(0x505, qp), kBadQpState) << "RTS2RTS in ERR";
	EXPECT_EQ(d.modify_status(0x50a, qp), 0) << "2RST";
	EXPECT_EQ(d.modify_status(0x502, qp), 0) << "RST2INIT again";
	EXPECT_EQ(d.modify_status(0x50e, qp), 0) << "INIT2INIT";
	d.h.ok(Msg(0x501, 0, 16).set({2, 23, 0}, qp.qpn), 16);
	EXPECT_EQ(d.modify_status(0x507, qp), kBadParam) << "destroyed";
	d.h.fails(Msg(0x501, 0, 16).set({2, 23, 0}, qp.qpn), 16, kBadParam);
}

TEST_F(Cmds, QpTransitionParameterChecks)
{
	DpHca::Cq cq = d.create_cq(4);
	DpHca::Qp qp = d.create_qp(ST_RC, cq, cq);
	d.h.ok(d.modify_msg(0x502, qp).set({qpc_dw(0xf), 23, 16}, 1), 16);
	d.h.fails(d.modify_msg(0x503, qp).set({qpc_dw(2), 31, 29}, 6), 16, kBadParam);        // MTU 8K
	d.h.fails(d.modify_msg(0x503, qp).set({qpc_dw(2), 31, 29}, 5).set({qpc_dw(0x24), 23, 21}, 7), 16,
		  kBadParam); // responder resources beyond log_max_ra_res_qp
	d.h.ok(d.modify_msg(0x503, qp).set({qpc_dw(2), 31, 29}, 3), 16);
	d.h.fails(d.modify_msg(0x504, qp).set({qpc_dw(0x1c), 23, 21}, 7), 16, kBadParam); // initiator depth
	EXPECT_EQ(d.modify_status(0x504, qp), 0);
	d.h.fails(d.modify_msg(0x502, qp).set({qpc_dw(0xf), 23, 16}, 2), 16, kBadQpState);
}

TEST_F(Cmds, QpCreateErrors)
{
	DpHca::Cq cq = d.create_cq(4);
	auto base = [&](uint8_t st) {
		uint64_t buf = d.mem().alloc(4096, 4096);
		Msg c(0x500, 0, 0x110 + 8);
		c.set({qpc_dw(0), 23, 16}, st).set({qpc_dw(1), 23, 0}, d.pd).set({qpc_dw(2), 22, 19}, 2);
		c.set({qpc_dw(2), 18, 16}, 2).set({qpc_dw(2), 14, 11}, 2).set({qpc_dw(3), 23, 0}, d.uar);
		c.set({qpc_dw(0x1f), 23, 0}, cq.cqn).set({qpc_dw(0x27), 23, 0}, cq.cqn);
		c.be64(0x18 + 0xa0, d.mem().alloc(64)).be64(0x110, buf);
		return c;
	};
	d.h.ok(base(ST_RC), 16);
	d.h.ok(base(ST_UC), 16);                                                  // UC
	d.h.fails(base(ST_XRC), 16, kBadParam);                                    // XRC without a domain
	d.h.ok(base(ST_XRC).set({qpc_dw(0x26), 23, 0}, d.alloc_xrcd()), 16);
	d.h.fails(base(ST_RC).set({qpc_dw(1), 23, 0}, 77), 16, kBadParam);          // PD
	d.h.fails(base(ST_RC).set({qpc_dw(0x1f), 23, 0}, 77), 16, kBadParam);       // send CQ
	d.h.fails(base(ST_RC).set({qpc_dw(0x27), 23, 0}, 77), 16, kBadParam);       // receive CQ
	d.h.fails(base(ST_RC).set({qpc_dw(3), 23, 0}, 4000), 16, kBadParam);        // UAR
	d.h.fails(base(ST_RC).set({qpc_dw(0x2b), 26, 24}, 1).set({qpc_dw(0x2b), 23, 0}, 77), 16, kBadParam);
	d.h.fails(base(ST_RC).set({qpc_dw(2), 14, 11}, 7), 16, 0x50);               // pas too short
	d.h.fails(base(ST_RC).be64(0x18 + 0xa0, 0), 16, kBadParam);                 // no doorbell record
	d.h.ok(base(ST_QP1), 16);
	d.h.fails(base(ST_QP1), 16, kBusy); // one GSI QP per port
}

TEST_F(Cmds, SrqRmpXrcSrq)
{
	DpHca::Cq cq = d.create_cq(4);
	DpHca::Srq rmp = d.create_rmp(4);
	auto out = d.h.ok(Msg(0x90f, 0, 16).set({2, 23, 0}, rmp.n), 0x110);
	EXPECT_EQ(field(out, {0x14 + 8, 4, 0}), 4u) << "log_wq_sz";
	EXPECT_EQ(field(out, {0x14 + 8, 19, 16}), 6u) << "log_wq_stride";
	EXPECT_EQ(be64_at(out, 0x60), rmp.dbr);
	// MODIFY_RMP: the limit (lwm) only.
	Msg m(0x90d, 0, 0x110);
	m.set({2, 31, 28}, 1).set({2, 23, 0}, rmp.n).set({5, 0, 0}, 1).set({0x14 + 1, 15, 0}, 3);
	d.h.ok(m, 16);
	EXPECT_EQ(field(d.h.ok(Msg(0x90f, 0, 16).set({2, 23, 0}, rmp.n), 0x110), {0x14 + 1, 15, 0}), 3u);
	// A QP on the RMP holds it.
	DpHca::Qp qp = d.create_qp(ST_RC, cq, cq, 0, 4, &rmp);
	d.h.fails(Msg(0x90e, 0, 16).set({2, 23, 0}, rmp.n), 16, kBusy);
	d.h.ok(Msg(0x501, 0, 16).set({2, 23, 0}, qp.qpn), 16);
	d.h.ok(Msg(0x90e, 0, 16).set({2, 23, 0}, rmp.n), 16);
	d.h.fails(Msg(0x90f, 0, 16).set({2, 23, 0}, rmp.n), 0x110, kBadParam);

	// CREATE_SRQ (ISSI 0) and CREATE_XRC_SRQ.
	uint64_t buf = d.mem().alloc(4096, 4096);
	auto srqc = [&](uint16_t op) {
		Msg c(op, 0, 0x110 + 8);
		c.set({ctx_dw(0), 27, 24}, 4).set({ctx_dw(1), 26, 24}, 2).set({ctx_dw(6), 23, 0}, d.pd);
		c.be64(0x10 + 0x28, d.mem().alloc(64)).be64(0x110, buf);
		return c;
	};
	auto s = d.h.ok(srqc(0x700), 16);
	uint32_t srqn = be32_at(s, 8) & 0xffffff;
	out = d.h.ok(Msg(0x702, 0, 16).set({2, 23, 0}, srqn), 0x50);
	EXPECT_EQ(field(out, {ctx_dw(0), 27, 24}), 4u);
	d.h.ok(Msg(0x703, 1, 16).set({2, 23, 0}, srqn).set({3, 15, 0}, 2), 16);
	d.h.fails(Msg(0x703, 0, 16).set({2, 23, 0}, srqn), 16, kBadParam); // ARM_RQ of an RQ
	d.h.ok(Msg(0x701, 0, 16).set({2, 23, 0}, srqn), 16);
	auto x = d.h.ok(Msg(0x80e, 0, 16), 16);
	uint32_t xrcd = be32_at(x, 8) & 0xffffff;
	d.h.fails(srqc(0x705).set({ctx_dw(2), 23, 0}, cq.cqn), 16, kBadParam); // no XRC domain
	s = d.h.ok(srqc(0x705).set({ctx_dw(1), 23, 0}, xrcd).set({ctx_dw(2), 23, 0}, cq.cqn).set({ctx_dw(4), 23, 0}, 77),
		   16);
	uint32_t xsrq = be32_at(s, 8) & 0xffffff;
	out = d.h.ok(Msg(0x707, 0, 16).set({2, 23, 0}, xsrq), 0x50);
	EXPECT_EQ(field(out, {ctx_dw(4), 23, 0}), 77u) << "user_index";
	d.h.fails(Msg(0x90e, 0, 16).set({2, 23, 0}, xsrq), 16, kBadParam); // not an RMP
	d.h.ok(Msg(0x706, 0, 16).set({2, 23, 0}, xsrq), 16);
}

} // namespace
} // namespace mlx5emu::test
