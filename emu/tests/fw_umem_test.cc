// SPDX-License-Identifier: GPL-2.0
// DEVX user memory (fw/cmd_umem.cc): CREATE_UMEM / DESTROY_UMEM under the
// uid of the command, the limits a guest cannot pass, bad input; CQs and
// QPs whose buffers and doorbell records live in a umem (the way UCX
// creates them through the in-tree mlx5_ib), used only by the context that
// made the umem, which stays until they are gone; QUERY_LAG.
#include <string>

#include "dp_harness.h"
#include "fw/firmware.h"
#include "queues/umem.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kBadParam = 0x03, kBadResource = 0x05, kExceedLim = 0x08, kBadResState = 0x09,
		  kNoResources = 0x0f, kBadInputLen = 0x50;
constexpr uint16_t kCreateUctx = 0xa04, kCreateUmem = 0xa08, kDestroyUmem = 0xa0a, kQueryLag = 0x842;

uint64_t stat(Firmware &fw, const std::string &name)
{
	for (const std::string &l : fw.stats_lines())
		if (l.rfind(name + " ", 0) == 0)
			return std::stoull(l.substr(name.size() + 1));
	ADD_FAILURE() << "no counter " << name;
	return 0;
}

// CREATE_UMEM of `n` MTTs of 4 KiB << log_page_12 pages from `mtt[]`,
// the umem starting `page_offset` bytes into the first.
Msg create_umem_msg(const std::vector<uint64_t> &mtt, uint32_t page_offset = 0, uint32_t log_page_12 = 0,
		    uint64_t n = ~0ull)
{
	Msg m(kCreateUmem, 0, static_cast<uint32_t>(0x30 + 8 * mtt.size()));
	m.set({8, 4, 0}, log_page_12).set({9, 31, 0}, page_offset).be64(0x28, n == ~0ull ? mtt.size() : n);
	for (size_t i = 0; i < mtt.size(); ++i)
		m.be64(0x30 + 8 * i, mtt[i] | 3); // rd_en | wr_en
	return m;
}
Msg destroy_umem_msg(uint32_t id) { return Msg(kDestroyUmem, 0, 16).set({2, 23, 0}, id); }

struct UmemTest : ::testing::Test {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};

	uint16_t create_uctx(DpHca &d)
	{
		auto out = d.h.ok(Msg(kCreateUctx, 0, 0x40), 16);
		return static_cast<uint16_t>(be32_at(out, 8) & 0xffff);
	}
	FwHarness::Result run(DpHca &d, uint16_t uid, const Msg &m, uint32_t outlen = 16)
	{
		d.h.uid = uid;
		auto r = d.h.exec(m, outlen);
		d.h.uid = 0;
		return r;
	}
	// `pages` guest pages, contiguous, and their MTTs.
	std::vector<uint64_t> pages(DpHca &d, size_t n, uint64_t *base)
	{
		*base = d.h.mem.alloc(n * 4096, 4096);
		std::vector<uint64_t> v;
		for (size_t i = 0; i < n; ++i)
			v.push_back(*base + 4096 * i);
		return v;
	}
	uint32_t umem(DpHca &d, uint16_t uid, const std::vector<uint64_t> &mtt, uint32_t page_offset = 0)
	{
		auto r = run(d, uid, create_umem_msg(mtt, page_offset));
		EXPECT_EQ(r.status, 0) << std::hex << r.syndrome;
		return be32_at(r.out, 8) & 0xffffff;
	}

	// CREATE_CQ of 2^log 64-byte CQEs at byte `off` of umem `buf_id`, its
	// doorbell record at byte `dbr_off` of umem `dbr_id`.
	Msg cq_msg(DpHca &d, unsigned log, uint32_t buf_id, uint64_t off, uint32_t dbr_id, uint64_t dbr_off)
	{
		Msg c(0x400, 0, 0x110);
		c.set({ctx_dw(0), 25, 25}, 1).set({ctx_dw(1), 31, 0}, dbr_id);
		c.set({ctx_dw(3), 28, 24}, log).set({ctx_dw(3), 23, 0}, d.uar);
		c.set({ctx_dw(5), 31, 0}, d.eq.eqn).be64(0x48, dbr_off);
		c.be64(0x50, off).set({0x16, 31, 0}, buf_id).set({0x17, 31, 31}, 1);
		return c;
	}
	// The CQ (as the data-path harness polls it) at `base + off`.
	DpHca::Cq umem_cq(DpHca &d, uint16_t uid, unsigned log, uint32_t id, uint64_t base, uint64_t off,
			  uint64_t dbr_off)
	{
		DpHca::Cq q;
		q.log = log;
		q.buf = base + off;
		q.dbr = base + dbr_off;
		for (size_t i = 0; i < (1u << log); ++i) {
			uint8_t inv = 0xf0;
			d.h.mem.write(q.buf + i * 64 + 63, &inv, 1);
		}
		auto r = run(d, uid, cq_msg(d, log, id, off, id, dbr_off));
		EXPECT_EQ(r.status, 0) << std::hex << r.syndrome;
		q.cqn = be32_at(r.out, 8) & 0xffffff;
		return q;
	}
	// CREATE_QP (RC, 2^4 receive WQEs of 64 bytes, 2^log_sq send WQEBBs)
	// with its queue at byte `off` of umem `id` and its doorbell record at
	// `dbr_off`.
	Msg qp_msg(DpHca &d, const DpHca::Cq &cq, uint32_t pd, unsigned log_sq, uint32_t id, uint64_t off,
		   uint64_t dbr_off)
	{
		Msg c(0x500, 0, 0x110);
		c.set({qpc_dw(0), 23, 16}, ST_RC).set({qpc_dw(0), 12, 11}, 3).set({qpc_dw(1), 23, 0}, pd);
		c.set({qpc_dw(2), 22, 19}, 4).set({qpc_dw(2), 18, 16}, 2);
		c.set({qpc_dw(2), 14, 11}, log_sq).set({qpc_dw(3), 23, 0}, d.uar).set({qpc_dw(4), 23, 0}, 0xffffff);
		c.set({qpc_dw(0x1f), 23, 0}, cq.cqn).set({qpc_dw(0x27), 23, 0}, cq.cqn).be64(0x18 + 0xa0, dbr_off);
		c.set({qpc_dw(0x34), 28, 28}, 1).set({qpc_dw(0x39), 31, 0}, id);
		c.be64(0x100, off).set({0x42, 31, 0}, id).set({0x43, 31, 31}, 1);
		return c;
	}
};

TEST_F(UmemTest, CreateAndDestroyUnderTheCommandsUid)
{
	uint16_t u = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 4, &base);
	uint32_t id = umem(a, u, mtt);
	EXPECT_NE(id, 0u);
	uint32_t id2 = umem(a, u, mtt, 0x100);
	EXPECT_NE(id2, id);
	EXPECT_EQ(a.h.fw().dp().res().umems.size(), 2u);
	// The uid has objects: its context stays.
	EXPECT_EQ(a.h.exec(Msg(0xa06, 0, 16).set({2, 15, 0}, u), 16).status, kBadResState);
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, 0);
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, kBadParam) << "gone";
	EXPECT_EQ(run(a, u, destroy_umem_msg(id2)).status, 0);
	EXPECT_EQ(a.h.fw().dp().res().umems.size(), 0u);
	EXPECT_EQ(a.h.exec(Msg(0xa06, 0, 16).set({2, 15, 0}, u), 16).status, 0);
}

TEST_F(UmemTest, BadInputIsRefused)
{
	uint16_t u = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 2, &base);
	// The kernel registers no user memory (no umem_uid_0).
	EXPECT_EQ(run(a, 0, create_umem_msg(mtt)).status, kBadParam);
	// Page offset outside the first page, page size over 4 KiB << 20.
	EXPECT_EQ(run(a, u, create_umem_msg(mtt, 4096)).status, kBadParam);
	EXPECT_EQ(run(a, u, create_umem_msg(mtt, 0, 21)).status, kBadParam);
	// No MTT; more MTTs than the input holds; more than a umem may have.
	EXPECT_EQ(run(a, u, create_umem_msg(mtt, 0, 0, 0)).status, kBadParam);
	EXPECT_EQ(run(a, u, create_umem_msg(mtt, 0, 0, 3)).status, kBadInputLen);
	EXPECT_EQ(run(a, u, create_umem_msg(mtt, 0, 0, UmemTable::kMaxMtts + 1)).status, kExceedLim);
	// An address not aligned to the page (8 KiB pages here), or zero.
	EXPECT_EQ(run(a, u, create_umem_msg({base % 8192 ? base : base + 4096}, 0, 1)).status, kBadParam);
	EXPECT_EQ(run(a, u, create_umem_msg({0})).status, kBadParam);
	EXPECT_EQ(stat(a.h.fw(), "refused_umem_budget"), 1u);
	EXPECT_EQ(a.h.fw().dp().res().umems.size(), 0u) << "nothing half made";
	// DESTROY_UMEM of a umem that never was.
	EXPECT_EQ(run(a, u, destroy_umem_msg(77)).status, kBadParam);
}

TEST_F(UmemTest, CountAndMttsAreBounded)
{
	uint16_t u = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 1, &base);
	// The MTT budget of the function: umems of kMaxMtts entries each
	// (all naming one page: the firmware does not care).
	std::vector<uint64_t> big(UmemTable::kMaxMtts, base);
	unsigned made = 0;
	for (; made < UmemTable::kMaxTotalMtts / UmemTable::kMaxMtts; ++made)
		ASSERT_EQ(run(a, u, create_umem_msg(big)).status, 0);
	auto r = run(a, u, create_umem_msg(mtt));
	EXPECT_EQ(r.status, kNoResources) << "MTT budget spent";
	EXPECT_EQ(a.h.fw().dp().res().umems.total_mtts(), UmemTable::kMaxTotalMtts);
	for (uint32_t id = 1; id <= made; ++id)
		ASSERT_EQ(run(a, u, destroy_umem_msg(id)).status, 0);
	// The id space: 2^kLogMax - 1 umems.
	for (unsigned i = 1; i < (1u << UmemTable::kLogMax); ++i)
		ASSERT_EQ(run(a, u, create_umem_msg(mtt)).status, 0) << i;
	EXPECT_EQ(run(a, u, create_umem_msg(mtt)).status, kNoResources);
	EXPECT_EQ(stat(a.h.fw(), "refused_umem_budget"), 2u);
}

TEST_F(UmemTest, OnlyItsContextUsesOrDestroysAUmem)
{
	uint16_t u = create_uctx(a), v = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 4, &base);
	uint32_t id = umem(a, u, mtt);
	// Another context: neither a CQ on it nor its destruction.
	auto r = run(a, v, cq_msg(a, 4, id, 0, id, 0x2000));
	EXPECT_EQ(r.status, kBadResource);
	EXPECT_EQ(run(a, v, destroy_umem_msg(id)).status, kBadResource);
	// Nor the kernel's commands: a umem is its process's.
	EXPECT_EQ(run(a, 0, cq_msg(a, 4, id, 0, id, 0x2000)).status, kBadResource);
	EXPECT_EQ(stat(a.h.fw(), "refused_foreign_name"), 2u);
	EXPECT_EQ(stat(a.h.fw(), "refused_foreign_touch"), 1u);
	EXPECT_TRUE(a.h.fw().dp().res().cqs.empty());
	EXPECT_EQ(run(a, u, cq_msg(a, 4, id, 0, id, 0x2000)).status, 0);
}

TEST_F(UmemTest, QueueRangesStayInsideTheUmem)
{
	uint16_t u = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 2, &base);
	uint32_t id = umem(a, u, mtt, 0x800); // 8 KiB - 2 KiB = 6 KiB of umem
	// 64 CQEs = 4 KiB: at 2 KiB it fits, at 2 KiB + 64 it does not.
	EXPECT_EQ(run(a, u, cq_msg(a, 6, id, 0x800, id, 0)).status, 0);
	EXPECT_EQ(run(a, u, cq_msg(a, 6, id, 0x840, id, 0)).status, kBadParam);
	EXPECT_EQ(run(a, u, cq_msg(a, 6, id, ~0ull - 8, id, 0)).status, kBadParam) << "offset wraps";
	// Doorbell records: inside, 8-byte aligned.
	EXPECT_EQ(run(a, u, cq_msg(a, 4, id, 0, id, 0x1800)).status, kBadParam);
	EXPECT_EQ(run(a, u, cq_msg(a, 4, id, 0, id, 0x17f8)).status, 0);
	EXPECT_EQ(run(a, u, cq_msg(a, 4, id, 0, id, 0x44)).status, kBadParam);
	// An unknown umem.
	EXPECT_EQ(run(a, u, cq_msg(a, 4, id + 5, 0, id, 0)).status, kBadParam);
	EXPECT_EQ(run(a, u, cq_msg(a, 4, id, 0, id + 5, 0)).status, kBadParam);
}

TEST_F(UmemTest, AUmemStaysWhileAQueueUsesIt)
{
	uint16_t u = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 4, &base);
	uint32_t id = umem(a, u, mtt);
	auto r = run(a, u, cq_msg(a, 4, id, 0x1000, id, 0));
	ASSERT_EQ(r.status, 0);
	uint32_t cqn = be32_at(r.out, 8) & 0xffffff;
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, kBadResState);
	EXPECT_EQ(stat(a.h.fw(), "refused_umem_busy"), 1u);
	// QUERY_CQ: the CQ's pages are the umem's from the offset on, its
	// doorbell record the umem's first bytes.
	auto q = run(a, u, Msg(0x402, 0, 16).set({2, 23, 0}, cqn), 0x118);
	ASSERT_EQ(q.status, 0);
	EXPECT_EQ(bits::load_be64(q.out.data() + 0x110), base + 0x1000);
	EXPECT_EQ(bits::load_be64(q.out.data() + 0x10 + 0x38), base);
	EXPECT_EQ(run(a, u, Msg(0x401, 0, 16).set({2, 23, 0}, cqn)).status, 0);
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, 0);
}

// A CQ and an RC QP built on umems (as UCX builds them) carry traffic: the
// send WQE is read from the umem, the CQE lands in it.
TEST_F(UmemTest, UmemQueuesCarryRcTraffic)
{
	uint16_t u = create_uctx(a);
	uint64_t base;
	auto mtt = pages(a, 8, &base);
	uint32_t id = umem(a, u, mtt, 0);
	a.h.uid = u;
	uint32_t pd = a.alloc_pd();
	DpHca::Mr src = a.reg_mr(4096, A_ALL, pd);
	a.h.uid = 0;
	// CQ: 64 CQEs in page 1; doorbell records at 0 (CQ) and 0x40 (QP).
	DpHca::Cq acq = umem_cq(a, u, 6, id, base, 0x1000, 0);
	DpHca::Qp aqp;
	aqp.st = ST_RC;
	aqp.log_rq = 4;
	aqp.log_rq_stride = 2;
	aqp.log_sq = 4;
	aqp.buf = base + 0x2000;
	aqp.dbr = base + 0x40;
	auto r = run(a, u, qp_msg(a, acq, pd, 4, id, 0x2000, 0x40));
	ASSERT_EQ(r.status, 0) << std::hex << r.syndrome;
	aqp.qpn = be32_at(r.out, 8) & 0xffffff;

	DpHca::Cq bcq = b.create_cq(6);
	DpHca::Qp bqp = b.create_qp(ST_RC, bcq, bcq);
	a.h.uid = u;
	connect_rc(a, aqp, b, bqp);
	a.h.uid = 0;
	DpHca::Mr dst = b.reg_mr(4096);
	fill(a.mem(), src.addr, 200, 9);
	b.post_recv(bqp, dst, 4096);
	a.post_send(aqp, DpHca::send_wr(src, 200));
	Cqe e, f;
	ASSERT_TRUE(poll_both(a, acq, &e, b, bcq, &f));
	EXPECT_EQ(e.opcode, 0) << "requester CQE in the umem";
	EXPECT_EQ(e.qpn, aqp.qpn);
	EXPECT_EQ(f.byte_cnt, 200u);
	EXPECT_EQ(b.mem().bytes(dst.addr, 200), a.mem().bytes(src.addr, 200));
	// The umem stays until both queues are gone.
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, kBadResState);
	EXPECT_EQ(run(a, u, Msg(0x501, 0, 16).set({2, 23, 0}, aqp.qpn)).status, 0);
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, kBadResState);
	EXPECT_EQ(run(a, u, Msg(0x401, 0, 16).set({2, 23, 0}, acq.cqn)).status, 0);
	EXPECT_EQ(run(a, u, destroy_umem_msg(id)).status, 0);
}

TEST_F(UmemTest, QueryLagSaysNoLag)
{
	uint16_t u = create_uctx(a);
	auto r = run(a, u, Msg(kQueryLag, 0, 16), 16);
	ASSERT_EQ(r.status, 0);
	EXPECT_EQ(be32_at(r.out, 8) & 7, 0u) << "lag_state";
	EXPECT_EQ(a.h.exec(Msg(kQueryLag, 0, 8), 16).status, kBadInputLen);
}

} // namespace
} // namespace mlx5emu::test
