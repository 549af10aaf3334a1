// SPDX-License-Identifier: GPL-2.0
// What a WQE cannot do to the emulator: a send WQE too short for the
// segments its opcode and QP type call for (or with an opcode its QP type
// lacks) completes with LOCAL_QP_OP and fails its QP, on every QP type
// and in the flush of a QP in ERR; data-path work that throws fails its
// QP (or raises the function's internal error) and the engine serves the
// others; the reserved lkey serves only queues whose context has rlky.
#include <algorithm>
#include <stdexcept>

#include "dp_harness.h"
#include "prm/qp.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t OP_UMR = 0x25;
constexpr uint8_t kReq = 0, kRespSend = 2, kReqErr = 13;
constexpr uint8_t kLocalQpOp = 0x02, kLocalProt = 0x04, kFlush = 0x05;

// An XRC initiator on a sending into XRC SRQ s1 behind a target on b.
struct Xrc {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(5), tcq = b.create_cq(5), cq1 = b.create_cq(5);
	uint32_t a_xrcd = a.alloc_xrcd(), xrcd = b.alloc_xrcd();
	DpHca::Srq a_s0 = a.create_xrc_srq(2, a_xrcd, acq, 0xffffff);
	DpHca::Srq s1 = b.create_xrc_srq(4, xrcd, cq1, 0x111);
	DpHca::Qp ini = a.create_xrc_qp(false, acq, a_xrcd, a_s0, 6);
	DpHca::Qp tgt = b.create_xrc_qp(true, tcq, xrcd, s1);

	Xrc() { connect_rc(a, ini, b, tgt); }
};

uint64_t dp_counter(DpHca &h, uint64_t DataPath::Counters::*f)
{
	auto lk = h.dp().lock();
	return h.dp().counters().*f;
}

// A WQE of only its control segment (ds 1).
uint16_t post_bare(DpHca &h, DpHca::Qp &q, uint8_t opcode)
{
	return h.post_wqe(q, opcode, F_SIGNALED, 0, std::vector<uint8_t>(16, 0));
}

// The UMR WQE of ds 1 on an XRC initiator used to throw std::length_error
// out of the WQE parser (the XRC segment taken past the WQE's end) and
// abort the emulator; so did its flush once the QP was in ERR.
TEST(WqeGuard, UmrOfOnlyAControlSegmentOnAnXrcInitiatorFailsTheQp)
{
	Xrc x;
	uint16_t idx = post_bare(x.a, x.ini, OP_UMR);
	Cqe e;
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalQpOp);
	EXPECT_EQ(e.wqe_counter, idx);
	EXPECT_EQ(x.a.qp_state(x.ini), prm::qp_state::ERR);
	// In ERR: the same WQE is flushed.
	post_bare(x.a, x.ini, OP_UMR);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.syndrome, kFlush);
	EXPECT_EQ(dp_counter(x.a, &DataPath::Counters::malformed_wqes), 2u);
	// The HCA serves the next initiator.
	DpHca::Qp ini2 = x.a.create_xrc_qp(false, x.acq, x.a_xrcd, x.a_s0, 6);
	DpHca::Qp tgt2 = x.b.create_xrc_qp(true, x.tcq, x.xrcd, x.s1);
	connect_rc(x.a, ini2, x.b, tgt2);
	auto src = x.a.reg_mr(4096), dst = x.b.reg_mr(4096);
	fill(x.a.mem(), src.addr, 256, 3);
	x.b.post_srq_recv(x.s1, {dst.addr, 4096, dst.key});
	DpHca::Wr w = DpHca::send_wr(src, 256);
	w.xrc_srqn = x.s1.n;
	x.a.post_send(ini2, w);
	ASSERT_TRUE(x.a.poll(x.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	Cqe r;
	ASSERT_TRUE(x.b.poll(x.cq1, &r));
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(x.b.mem().bytes(dst.addr, 256), x.a.mem().bytes(src.addr, 256));
}

TEST(WqeGuard, UmrOfOnlyAControlSegmentOnAnRcQpFailsTheQp)
{
	RcPair p;
	post_bare(p.a, p.aqp, OP_UMR);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalQpOp);
	EXPECT_EQ(p.a.qp_state(p.aqp), prm::qp_state::ERR);
	post_bare(p.a, p.aqp, OP_UMR);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.syndrome, kFlush);
}

// Segments cut short by ds: the remote address of a WRITE, the atomic
// segment of an atomic, a UD address vector, the XRC segment; and opcodes
// the QP type lacks. Each is LOCAL_QP_OP, never data from past the WQE.
TEST(WqeGuard, SegmentsPastTheWqeSizeAreLocalQpOperationErrors)
{
	struct Case {
		uint8_t st, opcode;
		unsigned ds; // in 16-byte units, control segment included
	};
	const Case cases[] = {
		{ST_RC, OP_WRITE, 1}, {ST_RC, OP_READ, 1}, {ST_RC, OP_CAS, 2}, {ST_RC, OP_FAA, 1},
		{ST_UC, OP_WRITE_IMM, 1}, {ST_UC, OP_READ, 4}, {ST_UD, OP_SEND, 2}, {ST_UD, OP_SEND, 3},
		{ST_UD, OP_WRITE, 5}, {ST_UD, OP_UMR, 8}, {ST_RC, 0x7f, 4}, {ST_RC, OP_UMR, 7},
	};
	for (const Case &c : cases) {
		SCOPED_TRACE(testing::Message() << "st " << unsigned(c.st) << " opcode 0x" << std::hex << unsigned(c.opcode)
						<< " ds " << std::dec << c.ds);
		auto fabric = std::make_shared<Fabric>();
		DpHca a{fabric, 0};
		DpHca::Cq cq = a.create_cq(5);
		DpHca::Qp q = a.create_qp(c.st, cq, cq, 4, 4);
		if (c.st == ST_UD) {
			a.to_rts_ud(q, 0x11);
		} else {
			DpHca::RcParams pa;
			pa.dlid = a.lid();
			pa.dqpn = q.qpn;
			pa.rq_psn = pa.sq_psn;
			a.to_rts_rc(q, pa);
		}
		// Segments full of a pattern: a parser reading past ds would
		// find an address, a key and a length in them.
		std::vector<uint8_t> wqe(16 * c.ds, 0);
		for (size_t i = 16; i < wqe.size(); ++i)
			wqe[i] = static_cast<uint8_t>(i);
		a.post_wqe(q, c.opcode, F_SIGNALED, 0, wqe);
		Cqe e;
		ASSERT_TRUE(a.poll(cq, &e));
		EXPECT_EQ(e.opcode, kReqErr);
		EXPECT_EQ(e.syndrome, kLocalQpOp);
		EXPECT_NE(a.qp_state(q), prm::qp_state::RTS);
	}
}

// A throwing task on the engine: counted, logged, and the next task runs.
TEST(WqeGuard, EngineSurvivesATaskThatThrows)
{
	RcPair p;
	Engine &eng = p.fabric->engine();
	eng.post([] { throw std::runtime_error("injected by the test"); });
	eng.post([] { throw 42; });
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 512, 1);
	p.recv(dst, 4096);
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(src, 512, &e, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(eng.counters().task_exceptions, 2u);
}

// Data-path work of one QP that throws fails that QP (error state, its
// WQEs flushed) and no other; with no QP known, the function's health
// syndrome (internal error) is set.
TEST(WqeGuard, AThrowingQpTaskFailsThatQpAndTheOthersRun)
{
	RcPair p;
	DpHca::Qp a2 = p.a.create_qp(ST_RC, p.acq, p.acq, 4, 6), b2 = p.b.create_qp(ST_RC, p.bcq, p.bcq, 4, 6);
	connect_rc(p.a, a2, p.b, b2);
	Engine &eng = p.fabric->engine();
	DataPath &dp = p.a.dp();
	uint32_t qpn = p.aqp.qpn;
	eng.post([&dp, qpn] { dp.guarded(qpn, [] { throw std::logic_error("injected by the test"); }); });
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(p.a.qp_state(p.aqp), prm::qp_state::ERR);
	EXPECT_EQ(dp_counter(p.a, &DataPath::Counters::task_exceptions), 1u);
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 300, 5);
	// The failed QP flushes what it is given.
	p.send(DpHca::send_wr(src, 300));
	Cqe e, r;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.qpn, p.aqp.qpn);
	EXPECT_EQ(e.syndrome, kFlush);
	// The other QP of the same function sends.
	p.b.post_recv(b2, dst, 4096);
	p.a.post_send(a2, DpHca::send_wr(src, 300));
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.qpn, a2.qpn);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 300), p.a.mem().bytes(src.addr, 300));
	// No queue known: the function's internal error.
	EXPECT_EQ(p.a.h.fw().health.syndrome(), 0u);
	eng.post([&dp] { dp.guarded(0, [] { throw std::runtime_error("injected by the test"); }); });
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(p.a.h.fw().health.syndrome(), 1u);
	EXPECT_EQ(dp_counter(p.a, &DataPath::Counters::task_exceptions), 2u);
}

// The reserved lkey (QUERY_SPECIAL_CONTEXTS resd_lkey) names guest
// physical memory: only for a QP whose context has rlky (the kernel's).
// Elsewhere it is no key: LOCAL_PROT, nothing read or written.
TEST(WqeGuard, ReservedLkeyOnlyOnQpsWithRlky)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.b.mem(), dst.addr, 4096, 7);
	// Any guest page of a: a READ would land there, a WRITE take it.
	uint64_t victim = p.a.mem().alloc(4096, 4096);
	fill(p.a.mem(), victim, 4096, 9);
	auto before = p.a.mem().bytes(victim, 4096);
	DpHca::Wr rd = DpHca::rdma_wr(OP_READ, src, 64, dst.addr, dst.key);
	rd.sgl = {{victim, 64, MkeyTable::kReservedLkey}};
	p.send(rd);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalProt);
	ASSERT_TRUE(p.a.settle());
	EXPECT_EQ(p.a.mem().bytes(victim, 4096), before);
	EXPECT_EQ(dp_counter(p.a, &DataPath::Counters::resd_lkey_refused), 1u);
	{
		// What `hca N stats` prints.
		auto lk = p.a.dp().lock();
		auto lines = p.a.dp().stats_lines();
		EXPECT_NE(std::find(lines.begin(), lines.end(), "resd_lkey_refused 1"), lines.end());
	}

	// A QP created with rlky: the same READ lands in guest memory.
	auto fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	a.rlky = true;
	DpHca::Cq acq = a.create_cq(5), bcq = b.create_cq(5);
	DpHca::Qp aq = a.create_qp(ST_RC, acq, acq), bq = b.create_qp(ST_RC, bcq, bcq);
	connect_rc(a, aq, b, bq);
	auto dst2 = b.reg_mr(4096);
	fill(b.mem(), dst2.addr, 4096, 7);
	uint64_t page = a.mem().alloc(4096, 4096);
	DpHca::Wr rd2;
	rd2.opcode = OP_READ;
	rd2.sgl = {{page, 64, MkeyTable::kReservedLkey}};
	rd2.raddr = dst2.addr;
	rd2.rkey = dst2.key;
	a.post_send(aq, rd2);
	ASSERT_TRUE(a.poll(acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(a.mem().bytes(page, 64), b.mem().bytes(dst2.addr, 64));
	EXPECT_EQ(dp_counter(a, &DataPath::Counters::resd_lkey_refused), 0u);
}

// A UD QP without rlky: a SEND gathering through the reserved lkey fails
// (the send queue's error state), nothing leaves.
TEST(WqeGuard, ReservedLkeyRefusedOnUd)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(5), bcq = b.create_cq(5);
	DpHca::Qp aq = a.create_qp(ST_UD, acq, acq), bq = b.create_qp(ST_UD, bcq, bcq);
	a.to_rts_ud(aq, 0x11);
	b.to_rts_ud(bq, 0x11);
	auto dst = b.reg_mr(4096);
	b.post_recv(bq, dst, 4096);
	uint64_t page = a.mem().alloc(4096, 4096);
	DpHca::Wr w;
	w.sgl = {{page, 64, MkeyTable::kReservedLkey}};
	w.dlid = b.lid();
	w.dqpn = bq.qpn;
	w.qkey = 0x11;
	a.post_send(aq, w);
	Cqe e;
	ASSERT_TRUE(a.poll(acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalProt);
	EXPECT_TRUE(b.empty(bcq));
	EXPECT_EQ(dp_counter(a, &DataPath::Counters::resd_lkey_refused), 1u);
}

} // namespace
} // namespace mlx5emu::test
