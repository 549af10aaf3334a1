// SPDX-License-Identifier: GPL-2.0
// On-demand paging, responder side (exec/odp.cc): an RDMA WRITE or READ
// meeting an MTT entry that is not present raises a PAGE_FAULT EQE (sub
// type RDMA) when an EQ listens for it, the requester is held with RNR
// NAKs (they count against its rnr_retry; one fault per QP, however often
// it retries) until
// PAGE_FAULT_RESUME, then the retried access uses the translation
// software filled in; a resume with the error bit fails the access with
// a remote access error; without a listening EQ a missing page is a
// remote access error at once. The caps: `pg` and the ODP cap type.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kReqErr = 13, kRemoteAccess = 0x13;
constexpr uint8_t kPageFault = 0x0c, kSubRdma = 1, kTypeRdma = 4, kTypeWrite = 2;

QpCounters counters(DpHca &d, const DpHca::Qp &q)
{
	auto lk = d.dp().lock();
	return d.dp().res().qp(q.qpn)->ctr;
}

uint8_t qp_state(DpHca &d, const DpHca::Qp &q)
{
	auto out = d.h.ok(Msg(0x50b, 0, 16).set({2, 23, 0}, q.qpn), 0x110);
	return static_cast<uint8_t>(field(out, {qpc_dw(0), 31, 28}));
}

// Software zaps page `page` of `m` (as a UMR with no present bits does).
void zap(DpHca &d, const DpHca::Mr &m, unsigned page)
{
	auto lk = d.dp().lock();
	d.dp().res().mkeys.find_index(m.index)->mtt[page] = Mkey::kNotPresent;
}

// Software maps page `page` of `m` to guest address `ga`.
void map(DpHca &d, const DpHca::Mr &m, unsigned page, uint64_t ga)
{
	auto lk = d.dp().lock();
	d.dp().res().mkeys.find_index(m.index)->mtt[page] = ga;
}

FwHarness::Result resume(DpHca &d, uint32_t token, uint8_t type, bool error)
{
	Msg m(0x204, 0, 16);
	m.set({2, 31, 31}, error).set({2, 26, 24}, type).set({2, 23, 0}, token).set({3, 23, 0}, token);
	return d.h.exec(m, 16);
}

// An RC pair whose responder b listens for page faults on its own EQ.
struct OdpPair : RcPair {
	FwHarness::EqBuf pfq = b.h.create_eq(4, 1ull << kPageFault, 2, b.uar);

	explicit OdpPair(DpHca::RcParams pa = {}) : RcPair(pa) {}

	// The fault EQE at `ci`: type, sub_type, rkey, VA, length, pftype/token.
	struct Fault {
		uint8_t type = 0, sub_type = 0, pftype = 0;
		uint32_t rkey = 0, op_len = 0, token = 0;
		uint16_t packet_len = 0;
		uint64_t va = 0;
	};
	::testing::AssertionResult fault(uint32_t ci, Fault *f)
	{
		if (!b.h.wait_eqe(pfq, ci))
			return ::testing::AssertionFailure() << "no PAGE_FAULT EQE " << ci;
		auto e = b.h.eqe(pfq, ci);
		f->type = e[1];
		f->sub_type = e[3];
		f->rkey = bits::load_be32(&e[0x24]);
		f->packet_len = static_cast<uint16_t>(e[0x2a] << 8 | e[0x2b]);
		f->op_len = bits::load_be32(&e[0x2c]);
		f->va = bits::load_be64(&e[0x30]);
		f->pftype = e[0x38];
		f->token = bits::load_be32(&e[0x38]) & 0xffffff;
		return ::testing::AssertionSuccess();
	}
	// Waits until b answered at least `n` requests with an RNR NAK.
	bool rnr_naks(uint64_t n)
	{
		auto end = std::chrono::steady_clock::now() + kPatience;
		while (counters(b, bqp).rnr_naks_sent < n)
			if (std::chrono::steady_clock::now() > end)
				return false;
		return true;
	}
};

TEST(ExecOdp, CapsAdvertiseRcWriteAndReadFaults)
{
	FwHarness h;
	h.enable();
	auto gen = h.ok(Msg(0x100, 0 << 1 | 1, 16), 0x1010);
	EXPECT_EQ(field(gen, {4 + 0x11, 24, 24}), 1u) << "pg";
	auto odp = h.ok(Msg(0x100, 2 << 1 | 1, 16), 0x1010);
	EXPECT_EQ(field(odp, {4 + 4, 31, 24}), 0x30u) << "rc_odp_caps: write and read only";
	EXPECT_EQ(field(odp, {4 + 6, 31, 24}), 0u) << "no UD";
	EXPECT_EQ(field(odp, {4 + 0x30, 31, 31}), 0u) << "no memory scheme";
}

TEST(ExecOdp, WriteFaultsIsHeldAndRetriedAfterResume)
{
	OdpPair p; // rnr_retry 7: the requester retries through the RNR NAKs of the fault
	auto src = p.a.reg_mr(8192), dst = p.b.reg_mr(8192);
	fill(p.a.mem(), src.addr, 8192, 0x31);
	zap(p.b, dst, 1);
	p.send(DpHca::rdma_wr(OP_WRITE, src, 8192, dst.addr, dst.key));
	OdpPair::Fault f;
	ASSERT_TRUE(p.fault(0, &f));
	EXPECT_EQ(f.type, kPageFault);
	EXPECT_EQ(f.sub_type, kSubRdma);
	EXPECT_EQ(f.rkey, dst.key);
	EXPECT_EQ(f.va, dst.addr + 4096) << "the second packet (MTU 4096) meets the missing page";
	EXPECT_EQ(f.packet_len, 4096u);
	EXPECT_EQ(f.op_len, 4096u) << "the rest of the message";
	EXPECT_EQ(f.pftype, kTypeRdma | kTypeWrite);
	EXPECT_EQ(f.token, p.bqp.qpn);
	// Held: the retries get RNR NAKs, and raise no new fault.
	ASSERT_TRUE(p.rnr_naks(5));
	EXPECT_TRUE(p.a.empty(p.acq));
	EXPECT_FALSE(p.b.h.eqe_ready(p.pfq, 1)) << "one fault per QP";
	// Software maps the page elsewhere (a moved buffer) and resumes.
	uint64_t moved = p.b.mem().alloc(4096, 4096);
	map(p.b, dst, 1, moved);
	EXPECT_EQ(resume(p.b, f.token, f.pftype, false).status, 0u);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(moved, 4096), p.a.mem().bytes(src.addr + 4096, 4096));
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 4096), p.a.mem().bytes(src.addr, 4096));
	EXPECT_NE(resume(p.b, f.token, f.pftype, false).status, 0u) << "no fault left to resume";
	auto lk = p.b.dp().lock();
	EXPECT_EQ(p.b.dp().counters().page_faults, 1u);
	EXPECT_EQ(p.b.dp().counters().fault_resumes, 1u);
}

TEST(ExecOdp, ReadFaultsAndIsAnsweredAfterResume)
{
	OdpPair p;
	auto back = p.a.reg_mr(4096), src = p.b.reg_mr(4096);
	fill(p.b.mem(), src.addr, 4096, 0x52);
	zap(p.b, src, 0);
	p.send(DpHca::rdma_wr(OP_READ, back, 4096, src.addr, src.key));
	OdpPair::Fault f;
	ASSERT_TRUE(p.fault(0, &f));
	EXPECT_EQ(f.pftype, kTypeRdma);
	EXPECT_EQ(f.va, src.addr);
	EXPECT_EQ(f.op_len, 4096u);
	EXPECT_NE(resume(p.b, f.token, kTypeRdma | kTypeWrite, false).status, 0u) << "not the fault's type";
	map(p.b, src, 0, src.addr);
	EXPECT_EQ(resume(p.b, f.token, f.pftype, false).status, 0u);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(p.a.mem().bytes(back.addr, 4096), p.b.mem().bytes(src.addr, 4096));
}

TEST(ExecOdp, ResumeWithErrorFailsTheAccess)
{
	OdpPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	zap(p.b, dst, 0);
	uint16_t idx = p.send(DpHca::rdma_wr(OP_WRITE, src, 4096, dst.addr, dst.key));
	OdpPair::Fault f;
	ASSERT_TRUE(p.fault(0, &f));
	EXPECT_EQ(resume(p.b, f.token, f.pftype, true).status, 0u);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteAccess);
	EXPECT_EQ(e.wqe_counter, idx);
	EXPECT_EQ(qp_state(p.b, p.bqp), 6) << "the responder QP fails as for a bad rkey";
}

TEST(ExecOdp, MissingPageWithoutListenerIsARemoteAccessError)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	zap(p.b, dst, 0);
	p.send(DpHca::rdma_wr(OP_WRITE, src, 4096, dst.addr, dst.key));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteAccess);
	auto lk = p.b.dp().lock();
	EXPECT_EQ(p.b.dp().counters().page_faults, 0u);
}

} // namespace
} // namespace mlx5emu::test
