// SPDX-License-Identifier: GPL-2.0
// What one owner can do to another through the firmware, and what a guest
// can make it allocate (fw/cmd_uid.h, fw/README.md "User contexts and
// uids"): objects remember the uid of the command that created them and
// only that user context (or the kernel) may query, modify or destroy
// them, or name them in a context; DESTROY_UCTX waits for the context's
// objects; DEALLOC_PD / DEALLOC_XRCD wait for the objects naming them;
// CREATE_MKEY is bounded by log_max_klm_list_size and the function's
// translation budget; device memory and polled UAR pages reach a new owner
// cleared; every refusal is counted.
#include <algorithm>
#include <string>

#include "dp_harness.h"
#include "fw/firmware.h"
#include "prm/mkey.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kBadParam = 0x03, kBadResource = 0x05, kBadResState = 0x09, kNoResources = 0x0f;
constexpr uint16_t kCreateUctx = 0xa04, kDestroyUctx = 0xa06;

// The value of counter `name` in the function's statistics.
uint64_t stat(Firmware &fw, const std::string &name)
{
	for (const std::string &l : fw.stats_lines())
		if (l.rfind(name + " ", 0) == 0)
			return std::stoull(l.substr(name.size() + 1));
	ADD_FAILURE() << "no counter " << name;
	return 0;
}

struct Isolation : ::testing::Test {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca d{fabric, 0};

	uint16_t create_uctx()
	{
		auto out = d.h.ok(Msg(kCreateUctx, 0, 0x40), 16);
		return static_cast<uint16_t>(be32_at(out, 8) & 0xffff);
	}
	FwHarness::Result destroy_uctx(uint16_t uid)
	{
		return d.h.exec(Msg(kDestroyUctx, 0, 16).set({2, 15, 0}, uid), 16);
	}
	// Runs `fn` with every command carrying `uid`.
	template <class Fn> auto as(uint16_t uid, Fn fn)
	{
		d.h.uid = uid;
		struct Restore {
			FwHarness &h;
			~Restore() { h.uid = 0; }
		} r{d.h};
		return fn();
	}
	// A command's status and syndrome with `uid` in its header.
	FwHarness::Result run(uint16_t uid, const Msg &m, uint32_t outlen = 16)
	{
		return as(uid, [&] { return d.h.exec(m, outlen); });
	}
	DpHca::Cq cq_of(uint16_t uid) { return as(uid, [&] { return d.create_cq(4); }); }
	uint32_t pd_of(uint16_t uid) { return as(uid, [&] { return d.alloc_pd(); }); }
	DpHca::Mr mr_of(uint16_t uid, uint32_t pd) { return as(uid, [&] { return d.reg_mr(4096, A_ALL, pd); }); }
	DpHca::Qp qp_of(uint16_t uid, uint32_t pd, const DpHca::Cq &cq)
	{
		uint32_t saved = d.pd;
		d.pd = pd;
		DpHca::Qp q = as(uid, [&] { return d.create_qp(ST_RC, cq, cq); });
		d.pd = saved;
		return q;
	}
};

Msg query_mkey(uint32_t index) { return Msg(0x201, 0, 16).set({2, 23, 0}, index); }
Msg destroy_mkey(uint32_t index) { return Msg(0x202, 0, 16).set({2, 23, 0}, index); }
Msg query_cq(uint32_t cqn) { return Msg(0x402, 0, 16).set({2, 23, 0}, cqn); }
Msg destroy_cq(uint32_t cqn) { return Msg(0x401, 0, 16).set({2, 23, 0}, cqn); }
Msg query_qp(uint32_t qpn) { return Msg(0x50b, 0, 16).set({2, 23, 0}, qpn); }
Msg destroy_qp(uint32_t qpn) { return Msg(0x501, 0, 16).set({2, 23, 0}, qpn); }
Msg dealloc_pd(uint32_t pd) { return Msg(0x801, 0, 16).set({2, 23, 0}, pd); }

TEST_F(Isolation, AContextTouchesOnlyItsOwnObjects)
{
	uint16_t a = create_uctx(), b = create_uctx();
	ASSERT_NE(a, b);
	uint32_t pd = pd_of(a);
	DpHca::Mr mr = mr_of(a, pd);
	DpHca::Cq cq = cq_of(a);
	DpHca::Qp qp = qp_of(a, pd, cq);

	// Context b: every query and destroy of a's objects is refused, each
	// site with its own syndrome, and nothing changes.
	std::vector<uint32_t> syndromes;
	for (const Msg &m : {query_mkey(mr.index), destroy_mkey(mr.index), query_cq(cq.cqn), destroy_cq(cq.cqn),
			     query_qp(qp.qpn), destroy_qp(qp.qpn), dealloc_pd(pd)}) {
		auto r = run(b, m, 0x400);
		EXPECT_EQ(r.status, kBadResource) << "opcode 0x" << std::hex << be32_at(m.b, 0);
		syndromes.push_back(r.syndrome);
	}
	std::sort(syndromes.begin(), syndromes.end());
	EXPECT_EQ(std::unique(syndromes.begin(), syndromes.end()), syndromes.end()) << "one syndrome per site";
	EXPECT_EQ(stat(d.h.fw(), "refused_foreign_touch"), 7u);
	// Modify of another context's QP and CQ: refused too.
	EXPECT_EQ(run(b, d.modify_msg(0x502, qp)).status, kBadResource);
	EXPECT_EQ(run(b, Msg(0x403, 0, 0x110).set({2, 23, 0}, cq.cqn).set({3, 31, 0}, 3)).status, kBadResource);

	// The owner and the kernel may.
	EXPECT_EQ(run(a, query_mkey(mr.index), 0x400).status, 0);
	EXPECT_EQ(run(0, query_cq(cq.cqn), 0x400).status, 0);
	EXPECT_EQ(run(a, query_qp(qp.qpn), 0x400).status, 0);
	EXPECT_EQ(run(a, destroy_qp(qp.qpn)).status, 0);
	EXPECT_EQ(run(a, destroy_mkey(mr.index)).status, 0);
	EXPECT_EQ(run(0, destroy_cq(cq.cqn)).status, 0);
	EXPECT_EQ(run(a, dealloc_pd(pd)).status, 0);
	// The kernel's own objects are out of reach too.
	EXPECT_EQ(run(b, dealloc_pd(d.pd)).status, kBadResource);
}

TEST_F(Isolation, AContextNamesItsOwnObjectsAndTheKernelsNeverAnothers)
{
	uint16_t a = create_uctx(), b = create_uctx();
	uint32_t pd_a = pd_of(a);
	DpHca::Cq cq_a = cq_of(a);
	DpHca::Cq cq_b = cq_of(b);
	uint64_t before = stat(d.h.fw(), "refused_foreign_name");
	// b's key on a's PD; b's QP on a's PD or with a's CQ.
	as(b, [&] {
		Msg c(0x200, 0, 0x110);
		c.set({ctx_dw(0), 9, 8}, 2).set({ctx_dw(0), 30, 30}, 1).set({ctx_dw(0), 15, 15}, 1);
		c.set({ctx_dw(3), 23, 0}, pd_a).set({ctx_dw(0xd), 31, 0}, 4);
		d.h.fails(c, 16, kBadResource);
	});
	// A whole CREATE_QP built as the harness does, with one field foreign.
	auto qp_msg = [&](uint32_t pd, const DpHca::Cq &scq, const DpHca::Cq &rcq) {
		uint64_t buf = d.mem().alloc(8192, 4096), dbr = d.mem().alloc(64, 64);
		Msg c(0x500, 0, 0x110 + 16);
		c.set({qpc_dw(0), 23, 16}, ST_RC).set({qpc_dw(0), 12, 11}, 3).set({qpc_dw(1), 23, 0}, pd);
		c.set({qpc_dw(2), 22, 19}, 4).set({qpc_dw(2), 18, 16}, 2).set({qpc_dw(2), 14, 11}, 4);
		c.set({qpc_dw(3), 23, 0}, d.uar).set({qpc_dw(4), 23, 0}, 0xffffff);
		c.set({qpc_dw(0x1f), 23, 0}, scq.cqn).set({qpc_dw(0x27), 23, 0}, rcq.cqn).be64(0x18 + 0xa0, dbr);
		c.be64(0x110, buf).be64(0x118, buf + 4096);
		return c;
	};
	uint32_t pd_b = pd_of(b);
	auto r1 = run(b, qp_msg(pd_a, cq_b, cq_b));
	auto r2 = run(b, qp_msg(pd_b, cq_a, cq_b));
	auto r3 = run(b, qp_msg(pd_b, cq_b, cq_a));
	EXPECT_EQ(r1.status, kBadResource);
	EXPECT_EQ(r2.status, kBadResource);
	EXPECT_EQ(r3.status, kBadResource);
	EXPECT_NE(r2.syndrome, r3.syndrome);
	EXPECT_EQ(stat(d.h.fw(), "refused_foreign_name"), before + 4);
	// Its own objects, and the kernel's PD (our driver's DEVX keys name
	// the verbs PDs, uid 0), are fine.
	EXPECT_EQ(run(b, qp_msg(pd_b, cq_b, cq_b)).status, 0);
	DpHca::Mr on_kernel_pd = mr_of(b, d.pd);
	EXPECT_NE(on_kernel_pd.index, 0u);
}

TEST_F(Isolation, DestroyUctxWaitsForItsObjectsThenTheUidIsDead)
{
	uint16_t a = create_uctx();
	uint32_t pd = pd_of(a);
	auto r = destroy_uctx(a);
	EXPECT_EQ(r.status, kBadResState);
	EXPECT_EQ(stat(d.h.fw(), "refused_uctx_busy"), 1u);
	// Still alive: its commands run.
	EXPECT_EQ(run(a, query_cq(0), 0x400).status, kBadParam) << "no such CQ, but a live uid";
	EXPECT_EQ(run(a, dealloc_pd(pd)).status, 0);
	EXPECT_EQ(destroy_uctx(a).status, 0);
	EXPECT_EQ(destroy_uctx(a).status, kBadParam);
	// A uid no context holds.
	auto dead = run(a, Msg(0x800, 0, 16));
	EXPECT_EQ(dead.status, kBadParam);
	EXPECT_EQ(dead.syndrome & 0xffff, 0xff06u);
	EXPECT_EQ(stat(d.h.fw(), "refused_dead_uid"), 1u);
	// Only the kernel destroys user contexts.
	uint16_t b = create_uctx(), c = create_uctx();
	EXPECT_EQ(run(b, Msg(kDestroyUctx, 0, 16).set({2, 15, 0}, c)).status, kBadParam);
	EXPECT_EQ(destroy_uctx(c).status, 0);
}

// QP0 (SMPs on VL15), QP1 and the UMR QP (any key's translations) are the
// kernel's: CREATE_QP of one with a user uid is refused before anything
// else is read.
TEST_F(Isolation, AContextCannotCreateTheKernelsSpecialQps)
{
	uint16_t uid = create_uctx();
	for (uint8_t st : {ST_QP0, ST_QP1, ST_UMR}) {
		Msg m(0x500, 0, 0x110);
		m.set({qpc_dw(0), 23, 16}, st);
		EXPECT_EQ(run(uid, m).status, kBadParam) << "st " << int(st);
	}
	EXPECT_EQ(stat(d.h.fw(), "refused_privileged_qp"), 3u);
	// The kernel's own CREATE_QP of the same message fails for another
	// reason (it names nothing), uncounted.
	Msg m(0x500, 0, 0x110);
	m.set({qpc_dw(0), 23, 16}, ST_UMR);
	EXPECT_NE(run(0, m).status, 0);
	EXPECT_EQ(stat(d.h.fw(), "refused_privileged_qp"), 3u);
}

// A handler that throws (here on purpose: Faults::throw_cmd) fails its
// command with INTERNAL_ERR and the firmware goes on; before, the
// exception reached std::terminate and every function lost its HCA.
TEST_F(Isolation, ACommandThatThrowsFailsAloneWithInternalError)
{
	constexpr uint8_t kInternalErr = 0x01;
	d.h.fw().faults.throw_cmd(0x800, 1); // ALLOC_PD
	EXPECT_EQ(d.h.exec(Msg(0x800, 0, 16), 16).status, kInternalErr);
	EXPECT_EQ(stat(d.h.fw(), "command_exceptions"), 1u);
	EXPECT_NE(d.alloc_pd(), 0u); // the next one works
	EXPECT_EQ(stat(d.h.fw(), "command_exceptions"), 1u);
}

TEST_F(Isolation, PdNamedByAnObjectCannotBeFreed)
{
	uint32_t pd = d.alloc_pd();
	DpHca::Mr mr = d.reg_mr(4096, A_ALL, pd);
	auto r = d.h.exec(dealloc_pd(pd), 16);
	EXPECT_EQ(r.status, kBadResState);
	EXPECT_EQ(stat(d.h.fw(), "refused_parent_busy"), 1u);
	// Nothing changed: the key still works in its PD.
	d.h.ok(query_mkey(mr.index), 0x200);
	{
		auto lk = d.dp().lock();
		EXPECT_TRUE(d.dp().res().pds.contains(pd));
	}
	d.h.ok(destroy_mkey(mr.index), 16);
	// A QP naming it.
	DpHca::Cq cq = d.create_cq(4);
	uint32_t saved = d.pd;
	d.pd = pd;
	DpHca::Qp qp = d.create_qp(ST_RC, cq, cq);
	d.pd = saved;
	EXPECT_EQ(d.h.exec(dealloc_pd(pd), 16).status, kBadResState);
	d.h.ok(destroy_qp(qp.qpn), 16);
	// An RMP naming it.
	d.pd = pd;
	DpHca::Srq rmp = d.create_rmp(4);
	d.pd = saved;
	EXPECT_EQ(d.h.exec(dealloc_pd(pd), 16).status, kBadResState);
	d.h.ok(Msg(0x90e, 0, 16).set({2, 23, 0}, rmp.n), 16);
	d.h.ok(dealloc_pd(pd), 16);
	EXPECT_EQ(stat(d.h.fw(), "refused_parent_busy"), 3u);
}

TEST_F(Isolation, XrcdNamedByAnXrcSrqCannotBeFreed)
{
	uint32_t xrcd = d.alloc_xrcd();
	DpHca::Cq cq = d.create_cq(4);
	DpHca::Srq s = d.create_xrc_srq(4, xrcd, cq, 0);
	Msg dealloc = Msg(0x80f, 0, 16).set({2, 23, 0}, xrcd);
	EXPECT_EQ(d.h.exec(dealloc, 16).status, kBadResState);
	d.h.ok(Msg(0x706, 0, 16).set({2, 23, 0}, s.n), 16);
	d.h.ok(dealloc, 16);
}

// A free KLM key (UMR fills it) with room for `octwords` entries.
Msg klm_key(uint32_t pd, uint32_t octwords)
{
	Msg c(0x200, 0, 0x110);
	c.set({ctx_dw(0), 9, 8}, 2).set({ctx_dw(0), 30, 30}, 1).set({ctx_dw(0), 15, 15}, 1);
	c.set({ctx_dw(1), 31, 8}, 0xffffff).set({ctx_dw(3), 23, 0}, pd).set({ctx_dw(0xd), 31, 0}, octwords);
	return c;
}

TEST_F(Isolation, KlmListsAreBoundedByTheAdvertisedSize)
{
	auto g = d.h.ok(Msg(0x100, 1, 16), 0x1010);
	unsigned log = bits::get(g.data() + 0x10, prm::cmd_hca_cap::log_max_klm_list_size);
	ASSERT_EQ(log, 15u);
	size_t keys = [&] {
		auto lk = d.dp().lock();
		return d.dp().res().mkeys.size();
	}();
	d.h.ok(klm_key(d.pd, 1u << log), 16);
	auto r = d.h.exec(klm_key(d.pd, (1u << log) + 4), 16);
	EXPECT_EQ(r.status, kBadParam);
	EXPECT_EQ(r.syndrome, 0x200u << 16 | 12);
	EXPECT_EQ(stat(d.h.fw(), "refused_klm_list"), 1u);
	auto lk = d.dp().lock();
	EXPECT_EQ(d.dp().res().mkeys.size(), keys + 1) << "nothing allocated for the refused key";
}

TEST_F(Isolation, MttKeysAreBoundedByTheFunctionsTranslationBudget)
{
	// Room beyond the whole budget: refused before anything is read.
	Msg huge(0x200, 0, 0x110);
	huge.set({ctx_dw(0), 9, 8}, 1).set({ctx_dw(0), 30, 30}, 1).set({ctx_dw(0), 15, 15}, 1);
	huge.set({ctx_dw(3), 23, 0}, d.pd).set({ctx_dw(0xe), 5, 0}, 12);
	huge.set({ctx_dw(0xd), 31, 0}, static_cast<uint32_t>(MkeyTable::kMaxXltEntries / 2 + 4));
	auto r = d.h.exec(huge, 16);
	EXPECT_EQ(r.status, kBadParam);
	EXPECT_EQ(r.syndrome, 0x200u << 16 | 13);
	// The budget nearly used up (by other keys): a two-page key no longer fits.
	{
		auto lk = d.dp().lock();
		ASSERT_TRUE(d.dp().res().mkeys.xlt_resized(0, MkeyTable::kMaxXltEntries - 1));
	}
	size_t keys = [&] {
		auto lk = d.dp().lock();
		return d.dp().res().mkeys.size();
	}();
	uint64_t addr = d.mem().alloc(8192, 4096);
	Msg c(0x200, 0, 0x110 + 16);
	c.set({ctx_dw(0), 9, 8}, 1).set({ctx_dw(0), 15, 10}, A_ALL >> 10).set({ctx_dw(3), 23, 0}, d.pd);
	c.be64(0x20, addr).be64(0x28, 8192).set({ctx_dw(0xd), 31, 0}, 1).set({ctx_dw(0xe), 5, 0}, 12);
	c.set({0x18, 31, 0}, 1).be64(0x110, addr | 3).be64(0x118, (addr + 4096) | 3);
	r = d.h.exec(c, 16);
	EXPECT_EQ(r.status, kNoResources);
	EXPECT_EQ(r.syndrome, 0x200u << 16 | 14);
	EXPECT_EQ(stat(d.h.fw(), "refused_mkey_budget"), 2u);
	{
		auto lk = d.dp().lock();
		EXPECT_EQ(d.dp().res().mkeys.size(), keys);
		EXPECT_EQ(d.dp().res().mkeys.xlt_entries(), MkeyTable::kMaxXltEntries - 1);
		d.dp().res().mkeys.xlt_resized(MkeyTable::kMaxXltEntries - 1, 0);
	}
	d.h.ok(c, 16);
}

TEST_F(Isolation, KeyIndexesEndAtLogMaxMkey)
{
	auto g = d.h.ok(Msg(0x100, 1, 16), 0x1010);
	EXPECT_EQ(bits::get(g.data() + 0x10, prm::cmd_hca_cap::log_max_mkey), MkeyTable::kLogMaxKeys);
	// A table nearly full (the first index is 0x10): one more PA key fits.
	{
		auto lk = d.dp().lock();
		d.dp().res().mkeys.set_limit(MkeyTable::kFirstIndex + 1);
	}
	Msg pa(0x200, 0, 0x110);
	pa.set({ctx_dw(0), 14, 10}, 3).set({ctx_dw(3), 31, 31}, 1).set({ctx_dw(3), 23, 0}, d.pd);
	d.h.ok(pa, 16);
	auto r = d.h.exec(pa, 16);
	EXPECT_EQ(r.status, kNoResources);
	EXPECT_EQ(r.syndrome, 0x200u << 16 | 7);
	EXPECT_EQ(stat(d.h.fw(), "refused_mkey_table"), 1u);
}

TEST(IsolationMemic, AllocationReachesANewOwnerZeroed)
{
	FwHarness h;
	h.bring_up();
	constexpr uint64_t kWindow = (32ull << 20) - 256 * 1024;
	auto alloc = [&] {
		Msg m = Msg(0x205, 0, 32).be64(0x10, kWindow).set({6, 31, 0}, 256 * 1024).set({7, 31, 0}, 4096);
		return bits::load_be64(h.ok(m, 16).data() + 8);
	};
	uint64_t a = alloc();
	for (unsigned off = 0; off < 4096; off += 8)
		h.hca->bar_write(a + off, 8, 0x5ec7e75ec7e75ec7ull);
	EXPECT_EQ(h.hca->bar_read(a + 64, 8), 0x5ec7e75ec7e75ec7ull);
	h.ok(Msg(0x206, 0, 32).be64(0x10, a).set({6, 31, 0}, 4096), 16);
	uint64_t b = alloc();
	ASSERT_EQ(b, a) << "the same device memory again";
	for (unsigned off = 0; off < 4096; off += 8)
		ASSERT_EQ(h.hca->bar_read(b + off, 8), 0u) << "offset " << off;
}

TEST(IsolationPolled, UarPageReachesANewOwnerCleared)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca d{fabric, 0, false, LinkType::Ib, true};
	uint32_t page = d.h.alloc_uar();
	ASSERT_TRUE(d.h.fw().dbpages && d.h.fw().dbpages->polled(page));
	uint8_t *mem = d.h.fw().dbpages->page_memory(page);
	// BlueFlame copies of a WQE beyond the registers' first 8 bytes.
	std::memset(mem + 0x808, 0xa5, 0xf8);
	std::memset(mem + 0x100, 0x5a, 0x100);
	d.h.ok(Msg(0x803, 0, 16).set({2, 23, 0}, page), 16);
	ASSERT_EQ(d.h.alloc_uar(), page);
	for (unsigned off = 0; off < 4096; ++off) {
		bool reg = false;
		for (const DoorbellPages::Register &r : DoorbellPages::kRegisters)
			reg = reg || (off >= r.offset && off < r.offset + r.size);
		ASSERT_EQ(mem[off], reg ? 0xff : 0) << "offset 0x" << std::hex << off;
	}
}

TEST(IsolationPolled, CreateCqWritesNothingIntoTheDoorbellRecord)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca d{fabric, 0, false, LinkType::Ib, true};
	d.uar = d.h.alloc_uar();
	ASSERT_TRUE(d.h.fw().dbpages->polled(d.uar));
	DpHca::Cq cq = d.create_cq(4);
	EXPECT_EQ(d.mem().bytes(cq.dbr, 64), std::vector<uint8_t>(64, 0));
}

} // namespace
} // namespace mlx5emu::test
