// SPDX-License-Identifier: GPL-2.0
// HCA/function control commands and the capability profile.
#include "fw_harness.h"
#include "fw/caps.h"

namespace mlx5emu::test {
namespace {

namespace op = prm::op;
namespace gc = prm::cmd_hca_cap;

// A general-capability field in a QUERY_HCA_CAP output (capability at 0x10).
uint32_t cap(const std::vector<uint8_t> &out, bits::Field f) { return field(out, f.at(0x10)); }

TEST(FwHca, EnableDisable)
{
	FwHarness h;
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
	h.enable();
	EXPECT_EQ(h.fw().function_state(), FnState::Enabled);
	h.ok(Msg(op::DISABLE_HCA, 0, 16), 12);
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
	// Another function, or an embedded-CPU function, does not exist.
	h.fails(Msg(op::ENABLE_HCA, 0, 16).set({2, 15, 0}, 3), 12, 0x03);
	h.fails(Msg(op::ENABLE_HCA, 0, 16).set({2, 31, 31}, 1), 12, 0x03);
}

TEST(FwHca, Issi)
{
	FwHarness h;
	h.enable();
	auto out = h.ok(Msg(op::QUERY_ISSI, 0, 16), 112);
	EXPECT_EQ(be32_at(out, 0x6c), 0x3u) << "supported_issi_dw0";
	EXPECT_EQ(field(out, {2, 15, 0}), 0u) << "current_issi";
	h.ok(Msg(op::SET_ISSI, 0, 16).set({2, 15, 0}, 1), 16);
	out = h.ok(Msg(op::QUERY_ISSI, 0, 16), 112);
	EXPECT_EQ(field(out, {2, 15, 0}), 1u);
	h.fails(Msg(op::SET_ISSI, 0, 16).set({2, 15, 0}, 2), 16, 0x03);
}

TEST(FwHca, GeneralCapabilityProfile)
{
	FwHarness h;
	h.enable();
	for (uint16_t mode : {0, 1}) {
		auto out = h.ok(Msg(op::QUERY_HCA_CAP, mode, 16), 4112);
		// Literal positions (dword, bits) of cmd_hca_cap fields.
		EXPECT_EQ(cap(out, {0xd, 9, 8}), 0u) << "port_type IB";
		EXPECT_EQ(cap(out, {0xd, 7, 0}), 1u) << "num_ports";
		EXPECT_GE(cap(out, {0x7, 3, 0}), 5u) << "log_max_eq";
		EXPECT_GE(cap(out, {0x7, 31, 24}), 13u) << "log_max_eq_sz";
		EXPECT_GT(cap(out, {0x6, 4, 0}), 0u) << "log_max_cq";
		EXPECT_GT(cap(out, {0x4, 4, 0}), 0u) << "log_max_qp";
		EXPECT_GT(cap(out, {0x7, 21, 16}), 0u) << "log_max_mkey";
		EXPECT_GT(cap(out, {0x19, 20, 16}), 0u) << "log_max_pd";
		EXPECT_EQ(cap(out, {0x13, 30, 30}), 1u) << "driver_version";
		EXPECT_EQ(cap(out, {0x11, 0, 0}), 1u) << "rc";
		EXPECT_EQ(cap(out, {0x11, 2, 2}), 1u) << "ud";
		EXPECT_EQ(cap(out, {0x11, 3, 3}), 1u) << "xrc (domains, XRC SRQs, XRC QPs)";
		EXPECT_EQ(cap(out, {0x11, 30, 30}), 1u) << "cq_resize";
		EXPECT_EQ(cap(out, {0x11, 29, 29}), 1u) << "cq_moderation";
		EXPECT_EQ(cap(out, {0x11, 28, 28}), 1u) << "cq_period_mode_modify";
		EXPECT_EQ(cap(out, {0x11, 20, 20}), 1u) << "cq_period_start_from_cqe";
		EXPECT_EQ(cap(out, {0x11, 1, 1}), 1u) << "uc";
		EXPECT_EQ(cap(out, {0x10, 1, 1}), 1u) << "atomic (executed by the data path)";
		// The in-tree mlx5_ib's max_fast_reg_page_list_len is 1 << this;
		// nvme-rdma needs 257 (256 pages a request, plus one).
		EXPECT_EQ(cap(out, {0x8, 5, 0}), Caps::kLogMaxFastRegList) << "log_max_klm_list_size";
		EXPECT_GE(1u << cap(out, {0x8, 5, 0}), 257u);
		// Nothing the emulator does not do.
		EXPECT_EQ(cap(out, {0x10, 3, 3}), 0u) << "eth_net_offloads";
		EXPECT_EQ(cap(out, {0x10, 2, 2}), 0u) << "roce";
		EXPECT_EQ(cap(out, {0xd, 25, 25}), 0u) << "nic_flow_table";
		EXPECT_EQ(cap(out, {0xd, 24, 24}), 0u) << "eswitch_manager";
		EXPECT_EQ(cap(out, {0xd, 21, 21}), 0u) << "pcam";
		EXPECT_EQ(cap(out, {0xd, 22, 22}), 1u) << "mcam (firmware update, fw_update_test)";
		EXPECT_EQ(cap(out, {0xb, 16, 16}), 0u) << "qcam";
		EXPECT_EQ(cap(out, {0xc, 28, 28}), 0u) << "debug";
		EXPECT_EQ(cap(out, {0xd, 23, 23}), 1u) << "device_memory (MEMIC, fw_memic_test)";
		EXPECT_EQ(cap(out, {0x7, 4, 4}), 0u) << "fast_teardown";
		EXPECT_EQ(cap(out, {0x8, 15, 15}), 0u) << "force_teardown";
		EXPECT_EQ(cap(out, {0x1, 31, 31}), 0u) << "hca_cap_2";
		EXPECT_EQ(cap(out, {0x11, 24, 24}), 1u) << "pg (ODP, exec_odp_test)";
		EXPECT_EQ(cap(out, {0x0, 25, 25}), 0u) << "page_request_disable";
	}
}

TEST(FwHca, QueryCapErrors)
{
	HcaConfig no_atomic;
	no_atomic.caps_atomic = false;
	FwHarness h(no_atomic);
	h.enable();
	h.fails(Msg(op::QUERY_HCA_CAP, 3 << 1 | 1, 16), 4112, 0x03); // ATOMIC not advertised
	h.fails(Msg(op::QUERY_HCA_CAP, 1 << 1 | 1, 16), 4112, 0x03); // ETH_OFFLOADS
	h.fails(Msg(op::QUERY_HCA_CAP, 1, 16).set({2, 31, 31}, 1), 4112, 0x03); // other_function
}

TEST(FwHca, SetHcaCapAppliesWritableFieldsOnly)
{
	FwHarness h;
	h.enable();
	auto cur = h.ok(Msg(op::QUERY_HCA_CAP, 1, 16), 4112);
	Msg set(op::SET_HCA_CAP, 0, 4112);
	std::copy(cur.begin() + 16, cur.end(), set.b.begin() + 16);
	set.set(gc::log_max_qp.at(0x10), 10);
	set.set(gc::num_ports.at(0x10), 7); // read-only: ignored
	set.set(gc::cmdif_checksum.at(0x10), 0);
	h.ok(set, 16);
	cur = h.ok(Msg(op::QUERY_HCA_CAP, 1, 16), 4112);
	EXPECT_EQ(cap(cur, gc::log_max_qp), 10u);
	EXPECT_EQ(cap(cur, gc::num_ports), 1u);
	auto max = h.ok(Msg(op::QUERY_HCA_CAP, 0, 16), 4112);
	EXPECT_EQ(cap(max, gc::log_max_qp), 12u) << "MAXIMUM unchanged";

	// Beyond MAXIMUM.
	set.set(gc::log_max_qp.at(0x10), 20);
	h.fails(set, 16, 0x03);
	// Unknown type, CUR op_mod bit.
	h.fails(Msg(op::SET_HCA_CAP, 5 << 1, 4112), 16, 0x03);
	h.fails(Msg(op::SET_HCA_CAP, 1, 4112), 16, 0x03);
}

TEST(FwHca, InitHcaNeedsPagesAndTeardown)
{
	FwHarness h;
	h.enable();
	h.fails(Msg(op::INIT_HCA, 0, 32), 16, 0x0f); // no pages yet
	h.give_pages(static_cast<uint32_t>(h.query_pages(1)));
	h.give_pages(static_cast<uint32_t>(h.query_pages(2)));
	h.ok(Msg(op::INIT_HCA, 0, 32), 16);
	EXPECT_EQ(h.fw().function_state(), FnState::Initialized);
	h.fails(Msg(op::INIT_HCA, 0, 32), 16, 0x04);     // twice
	h.fails(Msg(op::SET_HCA_CAP, 0, 4112), 16, 0x04); // after INIT_HCA

	h.fails(Msg(op::TEARDOWN_HCA, 0, 16).set({2, 15, 0}, 1), 16, 0x03); // force: not advertised
	h.fails(Msg(op::TEARDOWN_HCA, 0, 16).set({2, 15, 0}, 2), 16, 0x03); // fast: not advertised
	auto out = h.ok(Msg(op::TEARDOWN_HCA, 0, 16), 16);
	EXPECT_EQ(out[0xf] & 1, 0) << "state";
	EXPECT_EQ(h.fw().function_state(), FnState::Enabled);
	h.fails(Msg(op::TEARDOWN_HCA, 0, 16), 16, 0x04);
}

TEST(FwHca, InitHcaRejectsUnadvertisedSwVhcaId)
{
	FwHarness h;
	h.enable();
	h.give_pages(48);
	h.fails(Msg(op::INIT_HCA, 0, 32).set({3, 29, 16}, 5), 16, 0x03);
}

TEST(FwHca, DriverVersionAndAdapter)
{
	FwHarness h;
	h.bring_up();
	Msg v(op::SET_DRIVER_VERSION, 0, 80);
	const char s[] = "Linux,mlx5_core,7.3.4";
	std::memcpy(v.b.data() + 16, s, sizeof s - 1);
	h.ok(v, 16);
	{
		std::lock_guard<std::mutex> lk(h.fw().mu);
		EXPECT_EQ(h.fw().driver_version, s);
	}
	auto out = h.ok(Msg(op::QUERY_ADAPTER, 0, 16), 272);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(out.data() + 0x100), 13), "MT_0000000008");
	EXPECT_EQ(be32_at(out, 0x28) & 0xffffff, 0x0002c9u) << "ieee_vendor_id";
	EXPECT_EQ(be32_at(out, 0x2c) & 0xffff, 0x15b3u) << "vsd_vendor_id";
}

TEST(FwHca, CommandsNeedInitializedFunction)
{
	FwHarness h;
	h.enable();
	h.fails(Msg(op::QUERY_ADAPTER, 0, 16), 272, 0x04);
	h.fails(Msg(op::ALLOC_UAR, 0, 16), 16, 0x04);
	h.fails(Msg(op::SET_DRIVER_VERSION, 0, 80), 16, 0x04);
}

TEST(FwHca, ReEnableResetsTheFunction)
{
	FwHarness h;
	h.bring_up();
	h.alloc_uar();
	h.enable(); // e.g. a driver that crashed and probes again
	EXPECT_EQ(h.fw().function_state(), FnState::Enabled);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	EXPECT_EQ(h.fw().pages.counters().leak_reports, 1u);
}

TEST(FwHca, AtomicCapabilityWhenEnabled)
{
	HcaConfig c;
	c.caps_atomic = true;
	FwHarness h(c);
	h.enable();
	auto gen = h.ok(Msg(op::QUERY_HCA_CAP, 1, 16), 4112);
	EXPECT_EQ(cap(gen, gc::atomic), 1u);
	auto max = h.ok(Msg(op::QUERY_HCA_CAP, 3 << 1, 16), 4112);
	EXPECT_EQ(field(max, bits::Field{2, 25, 25}.at(0x10)), 1u) << "endianness mode 1 supported";
	EXPECT_EQ(field(max, bits::Field{4, 15, 0}.at(0x10)) & 3, 3u) << "CAS and FA";
	EXPECT_EQ(field(max, bits::Field{5, 15, 0}.at(0x10)) & 8, 8u) << "8-byte QP atomics";
	Msg set(op::SET_HCA_CAP, 3 << 1, 4112);
	set.set(bits::Field{2, 31, 30}.at(0x10), 1);
	h.ok(set, 16);
	auto cur = h.ok(Msg(op::QUERY_HCA_CAP, 3 << 1 | 1, 16), 4112);
	EXPECT_EQ(field(cur, bits::Field{2, 31, 30}.at(0x10)), 1u);
	set.set(bits::Field{2, 31, 30}.at(0x10), 2);
	h.fails(set, 16, 0x03);
}

TEST(FwHca, DisableResetsCapabilities)
{
	FwHarness h;
	h.enable();
	Msg set(op::SET_HCA_CAP, 0, 4112);
	auto cur = h.ok(Msg(op::QUERY_HCA_CAP, 1, 16), 4112);
	std::copy(cur.begin() + 16, cur.end(), set.b.begin() + 16);
	set.set(gc::log_max_qp.at(0x10), 3);
	h.ok(set, 16);
	h.ok(Msg(op::DISABLE_HCA, 0, 16), 12);
	h.enable();
	cur = h.ok(Msg(op::QUERY_HCA_CAP, 1, 16), 4112);
	EXPECT_EQ(cap(cur, gc::log_max_qp), 12u);
}

} // namespace
} // namespace mlx5emu::test
