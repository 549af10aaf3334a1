// SPDX-License-Identifier: GPL-2.0
// Replays the in-tree mlx5_core probe and remove sequences
// (hw-interface.md sections 2.5, 3.6, 5 and 6), using only literal layout
// offsets, with commands completing by polling until the command EQ exists
// and through CMD EQEs + MSI-X afterwards.
#include "fw_harness.h"

namespace mlx5emu::test {
namespace {

class Driver {
public:
	explicit Driver(FwHarness &h) : h(h) {}

	// --- command interface ------------------------------------------------
	std::vector<uint8_t> cmd(const Msg &m, uint32_t outlen, unsigned slot = 0)
	{
		if (!events)
			return h.ok(m, outlen, slot);
		size_t irqs = h.irq.count(0);
		auto p = h.prepare(slot, m.b, outlen);
		h.ring(1u << slot);
		EXPECT_TRUE(h.wait_eqe(cmd_eq, cmd_ci)) << "no CMD EQE for opcode 0x" << std::hex
							 << bits::load_be16(m.b.data());
		EXPECT_TRUE(h.irq.wait_for_vector(0, irqs + 1)) << "MSI-X vector 0";
		auto e = h.eqe(cmd_eq, cmd_ci);
		EXPECT_EQ(e[1], 0x0a);
		EXPECT_EQ(bits::load_be32(e.data() + 0x20), 1u << slot);
		++cmd_ci;
		h.eq_doorbell(cmd_eq, cmd_ci, true); // update CI and re-arm
		EXPECT_EQ(h.mem.byte(p.entry + 0x3f) & 1, 0) << "owner returned before the EQE";
		auto r = h.collect(p);
		EXPECT_EQ(r.delivery, 0);
		EXPECT_EQ(r.status, 0) << "opcode 0x" << std::hex << bits::load_be16(m.b.data()) << " syndrome 0x"
				       << r.syndrome;
		return r.out;
	}

	int32_t query_pages(uint16_t op_mod)
	{
		auto out = cmd(Msg(0x107, op_mod, 16), 16);
		return static_cast<int32_t>(be32_at(out, 0xc));
	}

	void give(uint32_t n)
	{
		// Sent even for 0 pages; MANAGE_PAGES always uses the last slot.
		Msg m(0x108, 1, 16 + 8ull * n);
		m.set({3, 31, 0}, n);
		for (uint32_t i = 0; i < n; ++i)
			m.be64(16 + 8ull * i, h.mem.alloc(4096, 4096));
		cmd(m, 16, 31);
		pages += n;
	}

	void reclaim_all()
	{
		while (pages) {
			Msg m(0x108, 2, 16);
			m.set({3, 31, 0}, 768);
			auto out = cmd(m, 16 + 8 * 768, 31);
			uint32_t got = be32_at(out, 8);
			ASSERT_GT(got, 0u) << "reclaim made no progress";
			ASSERT_LE(got, pages);
			pages -= got;
		}
	}

	FwHarness::EqBuf create_eq(unsigned nent, uint64_t mask0, uint16_t intr)
	{
		unsigned log = 0;
		while ((1u << log) < nent + 128)
			++log;
		FwHarness::EqBuf e;
		e.log_size = log;
		e.uar = uar;
		e.intr = intr;
		auto out = cmd(h.create_eq_msg(log, mask0, intr, uar, &e.buf), 16);
		e.eqn = out[0xb];
		h.eq_doorbell(e, 0, true); // mlx5_eq_enable: arm
		return e;
	}

	FwHarness &h;
	bool events = false;
	FwHarness::EqBuf cmd_eq;
	uint32_t cmd_ci = 0;
	uint32_t uar = 0;
	uint64_t pages = 0;
};

TEST(FwProbe, InTreeDriverProbeAndRemove)
{
	HcaConfig cfg;
	cfg.caps_atomic = false; // the optional ATOMIC type is covered by FwHca tests
	FwHarness h(cfg);
	Driver d(h);

	// 2.5: firmware version, command interface revision, readiness.
	ASSERT_EQ(h.rd32(0x004) >> 16, 5u);
	ASSERT_EQ(h.rd32(0x1fc) >> 31, 0u);
	uint32_t lsz = h.rd32(0x014) & 0xff;
	ASSERT_LE(1u << (lsz >> 4), 32u);
	ASSERT_LE((lsz >> 4) + (lsz & 0xf), 12u);
	h.init_cmdq();
	ASSERT_EQ(h.rd32(0xffc), 0u) << "no iseg timeouts: no DTOR query";

	// 5.1 mlx5_function_enable.
	d.cmd(Msg(0x104, 0, 16), 12); // ENABLE_HCA
	auto issi = d.cmd(Msg(0x10a, 0, 16), 112);
	ASSERT_TRUE(be32_at(issi, 0x6c) & 2);
	d.cmd(Msg(0x10b, 0, 16).set({2, 15, 0}, 1), 16); // SET_ISSI 1
	d.give(static_cast<uint32_t>(d.query_pages(1)));

	// 5.2 mlx5_function_open.
	Msg he(0x805, 0, 32);
	he.set({2, 15, 0}, 0x7004);
	d.cmd(he, 32);
	auto cur = d.cmd(Msg(0x100, 1, 16), 4112);
	auto max = d.cmd(Msg(0x100, 0, 16), 4112);
	Msg set(0x109, 0, 4112);
	std::copy(cur.begin() + 16, cur.end(), set.b.begin() + 16);
	set.set(bits::Field{0xc, 15, 0}.at(0x10), 0); // pkey_table_size: 128
	uint32_t max_qp = field(max, bits::Field{0x4, 4, 0}.at(0x10));
	set.set(bits::Field{0x4, 4, 0}.at(0x10), std::min(18u, max_qp));
	set.set(bits::Field{0x10, 15, 14}.at(0x10), 0); // cmdif_checksum
	set.set(bits::Field{0x24, 15, 0}.at(0x10), 0);  // log_uar_page_sz
	d.cmd(set, 16);
	// Optional capability types are gated by general bits, all clear here.
	cur = d.cmd(Msg(0x100, 1, 16), 4112);
	ASSERT_EQ(field(cur, bits::Field{0x10, 1, 1}.at(0x10)), 0u) << "atomic";
	ASSERT_EQ(field(cur, bits::Field{0x1, 31, 31}.at(0x10)), 0u) << "hca_cap_2";
	d.give(static_cast<uint32_t>(d.query_pages(2)));
	d.cmd(Msg(0x102, 0, 32), 16); // INIT_HCA
	ASSERT_EQ(field(cur, bits::Field{0x13, 30, 30}.at(0x10)), 1u);
	Msg ver(0x10d, 0, 80);
	std::memcpy(ver.b.data() + 16, "Linux,mlx5_core,7.3.4", 21);
	d.cmd(ver, 16);
	cur = d.cmd(Msg(0x100, 1, 16), 4112); // mlx5_query_hca_caps
	ASSERT_EQ(field(cur, bits::Field{0x4, 4, 0}.at(0x10)), 12u);

	// 5.4 mlx5_init_once.
	auto adapter = d.cmd(Msg(0x101, 0, 16), 272);
	EXPECT_EQ(adapter[0x100], 'M');

	// 5.5 mlx5_load: UAR, command EQ (polling), then events.
	auto uar = d.cmd(Msg(0x802, 0, 16), 16);
	d.uar = be32_at(uar, 8) & 0xffffff;
	ASSERT_GE(d.uar, 3u);
	h.irq.clear();
	d.cmd_eq = d.create_eq(32, 1ull << 0x0a, 0);
	ASSERT_TRUE(h.idle());
	EXPECT_FALSE(h.eqe_ready(d.cmd_eq, 0)) << "no EQE for the command EQ's own CREATE_EQ";
	EXPECT_EQ(h.irq.count(), 0u);
	d.events = true;

	const uint64_t async_mask = 1ull << 1 | 1ull << 2 | 1ull << 3 | 1ull << 4 | 1ull << 5 | 1ull << 7 |
				    1ull << 9 | 1ull << 0x10 | 1ull << 0x11 | 1ull << 0x12 | 1ull << 0x13 |
				    1ull << 0x14;
	auto async_eq = d.create_eq(4096, async_mask, 0);
	EXPECT_EQ(async_eq.log_size, 13u);
	auto pages_eq = d.create_eq(1, 1ull << 0x0b, 0);
	EXPECT_EQ(h.fw().eqs.count(), 3u);

	// Runtime: the firmware asks for more pages through the pages EQ.
	std::string err;
	ASSERT_TRUE(h.fw().page_request(5, &err)) << err;
	ASSERT_TRUE(h.wait_eqe(pages_eq, 0));
	int32_t want = static_cast<int32_t>(bits::load_be32(h.eqe(pages_eq, 0).data() + 0x24));
	h.eq_doorbell(pages_eq, 1, true);
	d.give(static_cast<uint32_t>(want));
	EXPECT_EQ(h.fw().pages_outstanding(), 16u + 32u + 5u);

	// A completion EQ created on demand (vector 1), and a burst of
	// commands with the command EQ re-arming every time.
	auto comp_eq = d.create_eq(1024, 0, 1);
	for (int i = 0; i < 300; ++i)
		d.cmd(Msg(0x80d, 0, 16), 16, static_cast<unsigned>(i % 31));
	EXPECT_GT(d.cmd_ci, d.cmd_eq.nent()) << "the command EQ wrapped at least once";

	// 5.6 unload.
	d.cmd(Msg(0x302, 0, 16).set({2, 7, 0}, comp_eq.eqn), 16);
	d.cmd(Msg(0x302, 0, 16).set({2, 7, 0}, pages_eq.eqn), 16);
	d.cmd(Msg(0x302, 0, 16).set({2, 7, 0}, async_eq.eqn), 16);
	d.events = false; // back to polling before the command EQ goes
	d.cmd(Msg(0x302, 0, 16).set({2, 7, 0}, d.cmd_eq.eqn), 16);
	d.cmd(Msg(0x803, 0, 16).set({2, 23, 0}, d.uar), 16);
	d.cmd(Msg(0x103, 0, 16), 16); // TEARDOWN_HCA graceful
	d.reclaim_all();
	d.cmd(Msg(0x105, 0, 16), 12); // DISABLE_HCA

	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	EXPECT_EQ(h.fw().pages.counters().leak_reports, 0u);
	EXPECT_EQ(h.fw().eqs.count(), 0u);
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
	EXPECT_EQ(h.fw().eqs.counters().overruns, 0u);
	for (const TraceEntry &t : h.fw().trace_entries()) {
		EXPECT_EQ(t.delivery, 0) << CommandTrace::format(t);
		EXPECT_EQ(t.status, 0) << CommandTrace::format(t);
	}

	// A second probe on the same device works the same way.
	d.events = false;
	d.pages = 0;
	d.cmd(Msg(0x104, 0, 16), 12);
	d.give(static_cast<uint32_t>(d.query_pages(1)));
	d.give(static_cast<uint32_t>(d.query_pages(2)));
	d.cmd(Msg(0x102, 0, 32), 16);
	d.cmd(Msg(0x103, 0, 16), 16);
	d.reclaim_all();
	d.cmd(Msg(0x105, 0, 16), 12);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	EXPECT_EQ(h.fw().pages.counters().leak_reports, 0u);
}

} // namespace
} // namespace mlx5emu::test
