// SPDX-License-Identifier: GPL-2.0
// A PF and its VFs on one adapter (fw/adapter.h), without PCI: the PF
// enables its VFs (ENABLE_HCA function_id n), which live only then; the
// firmware asks the PF for pages on a VF's behalf and gives them back after
// DISABLE_HCA; the PF reads a VF's caps (other_function) and manages its
// vport (other_vport), which the VF sees; a VF's address-list change reaches
// the PF as a NIC_VPORT_CHANGE when the PF armed it.
#include "fw_harness.h"
#include "poll_for.h"

#include <algorithm>
#include <cstring>

#include "ctl/ctl_commands.h"
#include "fw/adapter.h"
#include "prm/eth.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
namespace gc = cmd_hca_cap;
namespace nv = nic_vport;
namespace hv = hca_vport_context;

constexpr uint32_t kReasonNotAlive = 0xff09;

// The initializing bit of the init segment (0x1fc bit 31).
bool initializing(FwHarness &h) { return h.rd32(0x1fc) >> 31; }

Msg enable_vf_msg(uint16_t op, uint32_t function_id)
{
	return Msg(op, 0, 16).set(enable_hca_in::function_id, function_id);
}

// An EQ of `h`'s taking the events of `mask`, read in order.
struct EventEq {
	FwHarness &h;
	FwHarness::EqBuf eq;
	uint32_t ci = 0;
	EventEq(FwHarness &fh, uint64_t mask) : h(fh), eq(fh.create_eq(4, mask, 0, fh.alloc_uar())) {}
	// The next EQE, which must be of `type`.
	std::vector<uint8_t> next(uint8_t type)
	{
		EXPECT_TRUE(h.wait_eqe(eq, ci)) << "no EQE of type 0x" << std::hex << unsigned(type);
		auto e = h.eqe(eq, ci++);
		EXPECT_EQ(e[eqe::kType], type);
		return e;
	}
	bool pending() { return h.eqe_ready(eq, ci); }
};

int32_t page_request_pages(const std::vector<uint8_t> &e)
{
	return static_cast<int32_t>(bits::load_be32(e.data() + eqe::kPageReqNumPages));
}
uint16_t page_request_func(const std::vector<uint8_t> &e) { return bits::load_be16(e.data() + eqe::kPageReqFuncId); }

// MANAGE_PAGES GIVE of `n` new pages to function `fid`.
FwHarness::Result give_to(FwHarness &h, uint16_t fid, uint32_t n, std::vector<uint64_t> *pas)
{
	Msg m(op::MANAGE_PAGES, manage_pages_opmod::GIVE, 16 + 8ull * n);
	m.set(manage_pages_in::function_id, fid).set(manage_pages_in::input_num_entries, n);
	for (uint32_t i = 0; i < n; ++i) {
		uint64_t pa = h.mem.alloc(4096, 4096);
		pas->push_back(pa);
		m.be64(16 + 8ull * i, pa);
	}
	return h.exec(m, 16);
}

std::vector<uint64_t> take_from(FwHarness &h, uint16_t fid, uint32_t n)
{
	Msg m(op::MANAGE_PAGES, manage_pages_opmod::TAKE, 16);
	m.set(manage_pages_in::function_id, fid).set(manage_pages_in::input_num_entries, n);
	auto out = h.ok(m, 16 + 8 * n);
	std::vector<uint64_t> v;
	for (uint32_t i = 0; i < field(out, manage_pages_out::output_num_entries); ++i)
		v.push_back(be64_at(out, manage_pages_out::kPas + 8 * i));
	return v;
}

MacAddr nic_mac(const std::vector<uint8_t> &out)
{
	MacAddr m;
	std::memcpy(m.data(), out.data() + nv::kQueryAt + 4 * nv::perm_mac_47_32.dw + 2, 6);
	return m;
}

Msg query_nic(uint32_t vport, uint32_t list_type = 0)
{
	Msg m(op::QUERY_NIC_VPORT_CONTEXT, 0, 16);
	if (vport)
		m.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport);
	return m.set(nv::query_allowed_list_type, list_type);
}
constexpr uint32_t kNicOut = nv::kQueryAt + nv::kAddressList + 8 * 16;

Msg modify_nic(uint32_t vport, uint32_t sel)
{
	Msg m(op::MODIFY_NIC_VPORT_CONTEXT, 0, nv::kModifyMinLen + 8 * 4);
	if (vport)
		m.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport);
	return m.set(nv::modify_field_select, sel);
}

Msg set_mac(Msg m, const MacAddr &mac)
{
	std::memcpy(m.b.data() + nv::kModifyAt + 4 * nv::perm_mac_47_32.dw + 2, mac.data(), 6);
	return m;
}

// The PF enables VF n and sets VF Enable: the VF lives (polled).
void enable_and_wait(FwHarness &pf, Adapter &a, FwHarness &vf, uint32_t n)
{
	pf.ok(enable_vf_msg(op::ENABLE_HCA, n), 16);
	a.sriov_control(a.total_vfs(), true, true);
	ASSERT_TRUE(poll_for([&] { return !initializing(vf); })) << "VF " << n << " never came alive";
	ASSERT_TRUE(vf.idle());
	vf.init_cmdq();
}

// A VF of a guest PF lives only while the PF has it enabled and VF Enable
// is set: until then its init segment says initializing and its commands
// are refused at once; DISABLE_HCA by the PF resets it.
TEST(FwSriov, VfLivesOnlyWhileItsPfEnablesIt)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0));
	EXPECT_TRUE(initializing(vf)) << "not enabled by its PF";
	auto r = vf.exec(Msg(op::ENABLE_HCA, 0, 16), 16);
	ASSERT_TRUE(r.done) << "a refused command completes";
	EXPECT_EQ(r.status, status::BAD_SYS_STATE);
	EXPECT_EQ(r.syndrome, uint32_t(op::ENABLE_HCA) << 16 | kReasonNotAlive);
	EXPECT_EQ(vf.fw().refusals.vf_dead.load(), 1u);

	// ENABLE_HCA comes first (the in-tree PF sends it before it sets
	// VF Enable): taken, the VF still waits for VF Enable.
	pf.ok(enable_vf_msg(op::ENABLE_HCA, 1), 16);
	EXPECT_TRUE(a->vf_enabled(1));
	ASSERT_TRUE(vf.idle());
	EXPECT_TRUE(initializing(vf)) << "VF Enable is still clear";
	a->sriov_control(2, true, true);
	ASSERT_TRUE(poll_for([&] { return !initializing(vf); }));
	vf.init_cmdq();
	vf.bring_up();
	EXPECT_EQ(vf.fw().function_state(), FnState::Initialized);

	// The PF disables it: the VF is reset and dead again.
	pf.ok(enable_vf_msg(op::DISABLE_HCA, 1), 16);
	ASSERT_TRUE(poll_for([&] { return initializing(vf); }));
	ASSERT_TRUE(vf.idle());
	EXPECT_EQ(vf.fw().function_state(), FnState::Disabled);
	vf.init_cmdq();
	EXPECT_EQ(vf.exec(Msg(op::ENABLE_HCA, 0, 16), 16).status, status::BAD_SYS_STATE);
}

// A PF brought up, both its VFs enabled by it and brought up.
struct FwSriovTwoVfs : ::testing::Test {
	std::shared_ptr<Adapter> a = std::make_shared<Adapter>(2, true);
	FwHarness pf{pf_config(a)};
	FwHarness vf0{vf_config(a, 0)}, vf1{vf_config(a, 1)};
	void SetUp() override
	{
		pf.bring_up();
		enable_and_wait(pf, *a, vf0, 1);
		enable_and_wait(pf, *a, vf1, 2);
		vf0.bring_up();
		vf1.bring_up();
	}
};

// VF Enable cleared (pci_disable_sriov) or NumVFs below the VF: the VF is
// reset. The PF's own reset takes its VFs down too.
TEST_F(FwSriovTwoVfs, VfEnableAndThePfsResetGovernTheVfs)
{
	a->sriov_control(1, true, true);
	ASSERT_TRUE(poll_for([&] { return initializing(vf1); })) << "VF 2 is beyond NumVFs 1";
	EXPECT_FALSE(initializing(vf0));
	a->sriov_control(1, false, false);
	ASSERT_TRUE(poll_for([&] { return initializing(vf0); })) << "VF Enable cleared";
	ASSERT_TRUE(vf0.idle());
	EXPECT_EQ(vf0.fw().function_state(), FnState::Disabled);

	a->sriov_control(2, true, true);
	ASSERT_TRUE(poll_for([&] { return !initializing(vf0) && !initializing(vf1); }));
	pf.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	EXPECT_FALSE(a->vf_enabled(1));
	EXPECT_FALSE(a->vf_enabled(2));
	ASSERT_TRUE(poll_for([&] { return initializing(vf0) && initializing(vf1); })) << "the PF's reset";
}

// nic_interface of the init segment (0x14 bits 10..8): 0 FULL_DRIVER,
// 1 DISABLED.
uint32_t nic_interface(FwHarness &h) { return (h.rd32(0x14) >> 8) & 7; }
uint8_t health_synd(FwHarness &h) { return static_cast<uint8_t>(h.rd32(0x200 + health::kIriscIndex) >> 16); }
uint8_t health_rfr(FwHarness &h) { return static_cast<uint8_t>(h.rd32(0x200 + health::kRfrSeverity) >> 24); }
uint32_t health_counter(FwHarness &h) { return h.rd32(0x1010); }

// What a bound VF driver sees when its PF disables it: the interface reads
// DISABLED (the in-tree health poller's NIC_DISABLED sensor, so it stops
// waiting for commands and recovers), the command queue is forgotten, the
// heartbeat goes on (the recovery's wait for a live counter), and the init
// segment says initializing until the PF enables it again; then the
// driver's new command queue works.
void expect_vf_lost(FwHarness &vf, const char *why)
{
	ASSERT_TRUE(poll_for([&] { return nic_interface(vf) == iseg::NIC_IFC_DISABLED; }))
		<< why << ": nic_interface " << nic_interface(vf);
	ASSERT_TRUE(vf.idle());
	EXPECT_TRUE(initializing(vf)) << why;
	EXPECT_EQ(vf.fw().function_state(), FnState::Disabled) << why;
	EXPECT_EQ(vf.rd32(0x14) & 0xfffff000u, 0u) << why << ": command queue address kept";
	uint32_t c0 = health_counter(vf);
	EXPECT_TRUE(poll_for([&] { return health_counter(vf) != c0; })) << why << ": heartbeat stopped";
}

void expect_vf_back(FwHarness &pf, Adapter &a, FwHarness &vf, uint32_t n)
{
	enable_and_wait(pf, a, vf, n);
	EXPECT_EQ(nic_interface(vf), iseg::NIC_IFC_FULL_DRIVER) << "the driver's new command queue";
	vf.bring_up();
	EXPECT_EQ(vf.fw().function_state(), FnState::Initialized);
}

// DISABLE_HCA of a live VF by its PF, then ENABLE_HCA again.
TEST(FwSriov, VfDisabledUnderItsDriverSeesItAndComesBack)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0));
	enable_and_wait(pf, *a, vf, 1);
	vf.bring_up();
	EXPECT_EQ(nic_interface(vf), iseg::NIC_IFC_FULL_DRIVER);
	pf.ok(enable_vf_msg(op::DISABLE_HCA, 1), 16);
	expect_vf_lost(vf, "DISABLE_HCA");
	EXPECT_EQ(health_synd(vf), 0) << "no firmware error";
	expect_vf_back(pf, *a, vf, 1);

	// ENABLE_HCA of the enabled VF starts it over: its driver sees it.
	pf.ok(enable_vf_msg(op::ENABLE_HCA, 1), 16);
	ASSERT_TRUE(poll_for([&] { return nic_interface(vf) == iseg::NIC_IFC_DISABLED; }));
	ASSERT_TRUE(vf.idle());
	EXPECT_FALSE(initializing(vf)) << "still enabled";
	vf.init_cmdq();
	vf.bring_up();
}

// A fatal error of the PF's firmware: the health buffer is the adapter's,
// so each VF shows the syndrome (reset-for-recovery set) and is lost as
// above; clearing it (the PF's software reset) clears theirs; the PF's
// driver, loaded again, enables them again.
TEST_F(FwSriovTwoVfs, PfCrashReachesItsVfs)
{
	EXPECT_EQ(health_synd(vf0), 0);

	pf.fw().set_health_syndrome(1, 0x42, true);
	EXPECT_FALSE(a->vf_enabled(1)) << "the crash disabled the VFs";
	expect_vf_lost(vf0, "PF crash");
	expect_vf_lost(vf1, "PF crash");
	for (FwHarness *vf : {&vf0, &vf1}) {
		EXPECT_EQ(health_synd(*vf), 1) << "the adapter's health buffer";
		EXPECT_EQ(vf->rd32(0x200 + health::kIriscIndex) & 0xffff, 0x42u);
		EXPECT_TRUE(health_rfr(*vf) & health::kRfrBit);
		// A VF of its own: the VF's commands (a new queue) find it dead.
		vf->init_cmdq();
		EXPECT_EQ(vf->exec(Msg(op::ENABLE_HCA, 0, 16), 16).status, status::BAD_SYS_STATE);
	}

	// The PF's software reset clears the syndrome everywhere.
	pf.wr32(0x14, iseg::NIC_IFC_SW_RESET << 8);
	ASSERT_TRUE(poll_for([&] { return health_synd(vf0) == 0 && health_synd(vf1) == 0; }));
	EXPECT_EQ(health_rfr(vf0), 0);
	EXPECT_TRUE(initializing(vf0)) << "until the PF enables it again";
	pf.init_cmdq();
	pf.bring_up();
	expect_vf_back(pf, *a, vf0, 1);
	expect_vf_back(pf, *a, vf1, 2);

	// A VF's own syndrome stays its own: not the PF's, not its sibling's.
	vf0.fw().set_health_syndrome(7, 0, false);
	EXPECT_EQ(health_synd(vf0), 7);
	EXPECT_EQ(health_synd(vf1), 0);
	EXPECT_EQ(health_synd(pf), 0);
	vf0.fw().set_health_syndrome(0, 0, false);
}

// The firmware asks the PF for pages on VF n's behalf (PAGE_REQUEST
// func_id n) when the PF enables it; the PF gives them with MANAGE_PAGES
// function_id n, within a budget; after DISABLE_HCA the firmware asks for
// every one back (a negative request) and TAKE returns them.
TEST(FwSriov, VfPagesGoToThePfAndBack)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	EventEq events(pf, 1ull << event::PAGE_REQUEST);

	pf.ok(enable_vf_msg(op::ENABLE_HCA, 2), 16);
	auto e = events.next(event::PAGE_REQUEST);
	EXPECT_EQ(page_request_func(e), 2u);
	EXPECT_EQ(page_request_pages(e), Adapter::kVfPfPages);
	auto q = pf.ok(Msg(op::QUERY_PAGES, query_pages_opmod::REGULAR, 16).set(query_pages_in::function_id, 2), 16);
	EXPECT_EQ(field(q, query_pages_out::function_id), 2u);
	EXPECT_EQ(static_cast<int32_t>(field(q, query_pages_out::num_pages)), Adapter::kVfPfPages);

	std::vector<uint64_t> given;
	auto r = give_to(pf, 2, Adapter::kVfPfPages, &given);
	EXPECT_EQ(r.status, 0) << std::hex << r.syndrome;
	EXPECT_EQ(pf.fw().pages.held({false, 2}), uint64_t(Adapter::kVfPfPages));
	EXPECT_EQ(pf.fw().pages.held({}), 48u) << "the PF's own pages are apart";

	// Beyond the budget: refused, nothing taken.
	std::vector<uint64_t> extra;
	r = give_to(pf, 2, Adapter::kVfPageBudget, &extra);
	EXPECT_EQ(r.status, status::NO_RESOURCES);
	EXPECT_EQ(pf.fw().pages.held({false, 2}), uint64_t(Adapter::kVfPfPages));
	EXPECT_EQ(pf.fw().refusals.vf_page_budget.load(), 1u);
	// A VF the PF has not enabled gets none.
	r = give_to(pf, 1, 1, &extra);
	EXPECT_EQ(r.status, status::BAD_PARAM);
	// Beyond TotalVFs, or an embedded-CPU function: no such function.
	r = give_to(pf, 3, 1, &extra);
	EXPECT_EQ(r.status, status::BAD_PARAM);

	pf.ok(enable_vf_msg(op::DISABLE_HCA, 2), 16);
	e = events.next(event::PAGE_REQUEST);
	EXPECT_EQ(page_request_func(e), 2u);
	EXPECT_EQ(page_request_pages(e), -Adapter::kVfPfPages) << "every page back";
	auto back = take_from(pf, 2, Adapter::kVfPfPages);
	std::sort(back.begin(), back.end());
	std::sort(given.begin(), given.end());
	EXPECT_EQ(back, given);
	EXPECT_EQ(pf.fw().pages.held({false, 2}), 0u);
	EXPECT_EQ(pf.fw().pages.counters().leaked_pages, 0u);
}

// The PF reads a VF's caps with other_function: the VF profile (its vport
// as vhca_id, no manager bits, RoCE as the PF's); its own caps say it is
// the VFs' vport group manager. Without VFs nothing changes.
TEST(FwSriov, OtherFunctionCapsAndTheManagersCaps)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.enable();
	for (bool current : {false, true}) {
		Msg m(op::QUERY_HCA_CAP, current ? 1 : 0, 16);
		m.set(query_hca_cap_in::other_function, 1).set(query_hca_cap_in::function_id, 2);
		auto out = pf.ok(m, query_hca_cap_in::kOutSize);
		std::vector<uint8_t> g(out.begin() + query_hca_cap_in::kCapability, out.end());
		EXPECT_EQ(field(g, gc::vhca_id), 2u);
		EXPECT_EQ(field(g, gc::roce), 1u);
		EXPECT_EQ(field(g, gc::vport_group_manager), 0u);
	}
	Msg beyond(op::QUERY_HCA_CAP, 0, 16);
	beyond.set(query_hca_cap_in::other_function, 1).set(query_hca_cap_in::function_id, 3);
	EXPECT_EQ(pf.exec(beyond, query_hca_cap_in::kOutSize).status, status::BAD_PARAM);
	auto own = pf.ok(Msg(op::QUERY_HCA_CAP, 0, 16), query_hca_cap_in::kOutSize);
	std::vector<uint8_t> g(own.begin() + query_hca_cap_in::kCapability, own.end());
	EXPECT_EQ(field(g, gc::vport_group_manager), 1u);
	EXPECT_EQ(field(g, gc::nic_vport_change_event), 1u);
	EXPECT_EQ(field(g, gc::eswitch_manager), 1u) << "the legacy e-switch's manager on Ethernet (fw_esw_test.cc)";
	EXPECT_EQ(field(g, gc::vhca_id), 0u);

	FwHarness alone(pf_config(nullptr));
	alone.enable();
	auto o = alone.ok(Msg(op::QUERY_HCA_CAP, 0, 16), query_hca_cap_in::kOutSize);
	std::vector<uint8_t> ga(o.begin() + query_hca_cap_in::kCapability, o.end());
	// An Ethernet PF manages its port's QoS (the in-tree mlx5e's dcbnl
	// needs vport_group_manager), but has no VFs' vports to hear about.
	EXPECT_EQ(field(ga, gc::vport_group_manager), 1u) << "an Ethernet PF manages its port";
	EXPECT_EQ(field(ga, gc::nic_vport_change_event), 0u) << "a PF without VFs has no VF vports";
	FwHarness ib_alone(pf_config(nullptr, LinkType::Ib));
	ib_alone.enable();
	auto oi = ib_alone.ok(Msg(op::QUERY_HCA_CAP, 0, 16), query_hca_cap_in::kOutSize);
	std::vector<uint8_t> gi(oi.begin() + query_hca_cap_in::kCapability, oi.end());
	EXPECT_EQ(field(gi, gc::vport_group_manager), 0u) << "an InfiniBand PF without VFs manages nothing";
	EXPECT_EQ(alone.exec(beyond.set(query_hca_cap_in::function_id, 1), query_hca_cap_in::kOutSize).status,
		  status::BAD_PARAM);
	EXPECT_EQ(alone.exec(enable_vf_msg(op::ENABLE_HCA, 1), 16).status, status::BAD_PARAM);
}

// A VF still names no other function or vport, with an adapter too; the PF
// names no function or vport its adapter does not have.
TEST(FwSriov, RefusalsStay)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0));
	enable_and_wait(pf, *a, vf, 1);
	vf.bring_up();
	EXPECT_EQ(vf.exec(enable_vf_msg(op::ENABLE_HCA, 2), 16).status, status::BAD_PARAM);
	EXPECT_EQ(vf.exec(query_nic(2), kNicOut).status, status::BAD_PARAM);
	EXPECT_EQ(vf.exec(Msg(op::QUERY_NIC_VPORT_CONTEXT, 0, 16).set(vport_in::other_vport, 1), kNicOut).status,
		  status::BAD_PARAM)
		<< "not even other_vport naming vport 0";
	Msg cap(op::QUERY_HCA_CAP, 0, 16);
	cap.set(query_hca_cap_in::other_function, 1).set(query_hca_cap_in::function_id, 2);
	EXPECT_EQ(vf.exec(cap, query_hca_cap_in::kOutSize).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(enable_vf_msg(op::ENABLE_HCA, 3), 16).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(enable_vf_msg(op::ENABLE_HCA, 1).set(enable_hca_in::embedded_cpu_function, 1), 16).status,
		  status::BAD_PARAM);
	EXPECT_EQ(pf.exec(query_nic(3), kNicOut).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(modify_nic(1, nv::SEL_PROMISC), 16).status, status::BAD_PARAM)
		<< "a VF's promiscuous modes are its own";
	Msg state(nic_op::MODIFY_VPORT_STATE, vport_state::OPMOD_VNIC_VPORT, 16);
	state.set(vport_in::other_vport, 1).set(vport_in::vport_number, 1);
	EXPECT_EQ(pf.exec(state, 16).status, status::BAD_PARAM) << "a VF's state is set on its e-switch vport";
}

// The PF sets VF 1's MAC and link state with other_vport: the VF reads the
// MAC, gets a PORT_CHANGE and reads its vport down; the PF reads back what
// it set and what the VF reports. The control channel's host side writes the
// same record.
TEST(FwSriov, ManagerVportWritesAreSeenByTheVf)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0));
	enable_and_wait(pf, *a, vf, 1);
	vf.bring_up();
	EventEq events(vf, 1ull << event::PORT_CHANGE);

	const MacAddr mac{0x02, 0x00, 0x00, 0x00, 0x32, 0x10};
	pf.ok(set_mac(modify_nic(1, nv::SEL_PERMANENT_ADDRESS), mac), 16);
	ASSERT_TRUE(poll_for([&] { return nic_mac(vf.ok(query_nic(0), kNicOut)) == mac; }));
	EXPECT_EQ(nic_mac(pf.ok(query_nic(1), kNicOut)), mac);
	EXPECT_NE(nic_mac(pf.ok(query_nic(0), kNicOut)), mac) << "the PF's own vport is apart";

	auto state_of = [](FwHarness &h, uint32_t vport) {
		Msg m(op::QUERY_VPORT_STATE, vport ? vport_state::OPMOD_ESW_VPORT : 0, 16);
		if (vport)
			m.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport);
		return h.ok(m, 16);
	};
	EXPECT_EQ(field(state_of(pf, 1), vport_state::state), vport_state::UP);
	Msg down(nic_op::MODIFY_VPORT_STATE, vport_state::OPMOD_ESW_VPORT, 16);
	down.set(vport_in::other_vport, 1).set(vport_in::vport_number, 1);
	down.set(vport_state::modify_admin_state, vport_state::DOWN);
	pf.ok(down, 16);
	auto e = events.next(event::PORT_CHANGE);
	EXPECT_EQ(e[eqe::kSubType], port_change::DOWN);
	auto st = state_of(vf, 0);
	EXPECT_EQ(field(st, vport_state::admin_state), vport_state::DOWN);
	EXPECT_EQ(field(st, vport_state::state), vport_state::DOWN);
	ASSERT_TRUE(poll_for([&] { return field(state_of(pf, 1), vport_state::state) == vport_state::DOWN; }));
	EXPECT_EQ(field(state_of(pf, 1), vport_state::admin_state), vport_state::DOWN);
	EXPECT_EQ(field(state_of(pf, 0), vport_state::admin_state), vport_state::FOLLOW) << "the PF's own vport";

	// The control channel's `hca N vport mac` on the VF: the PF reads it.
	const MacAddr host{0x02, 0x00, 0x00, 0x00, 0x32, 0x11};
	EXPECT_EQ(vf.fw().set_host_vport_mac(host), "");
	EXPECT_EQ(nic_mac(pf.ok(query_nic(1), kNicOut)), host);
	EXPECT_EQ(nic_mac(vf.ok(query_nic(0), kNicOut)), host);

	// The VF's counters, through the PF.
	Msg cnt(nic_op::QUERY_VPORT_COUNTER, 0, 32);
	cnt.set(vport_in::other_vport, 1).set(vport_in::vport_number, 1);
	pf.ok(cnt, vport_counter::kOutSize);
}

// A VF's address-list change reaches the PF as a NIC_VPORT_CHANGE naming
// its vport, once per arming; the PF then reads the list with other_vport.
TEST(FwSriov, NicVportChangeToThePf)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf0(vf_config(a, 0)), vf1(vf_config(a, 1));
	enable_and_wait(pf, *a, vf0, 1);
	enable_and_wait(pf, *a, vf1, 2);
	vf0.bring_up();
	vf1.bring_up();
	EventEq events(pf, 1ull << event::NIC_VPORT_CHANGE);

	auto arm = [&](uint32_t vport) {
		Msg m = modify_nic(vport, nv::SEL_CHANGE_EVENT);
		m.set(nv::arm_change_event.at(nv::kModifyAt), 1);
		m.set(nv::event_on_uc_address_change.at(nv::kModifyAt), 1);
		pf.ok(m, 16);
		auto q = pf.ok(query_nic(vport), kNicOut);
		EXPECT_EQ(field(q, nv::event_on_uc_address_change.at(nv::kQueryAt)), 1u);
	};
	auto uc_list = [&](FwHarness &vf, uint8_t last) {
		Msg m = modify_nic(0, nv::SEL_ADDRESSES_LIST);
		m.set(nv::allowed_list_type.at(nv::kModifyAt), nv::LIST_UC);
		m.set(nv::allowed_list_size.at(nv::kModifyAt), 1);
		const uint8_t addr[6] = {0x02, 0x00, 0x00, 0x00, 0x77, last};
		std::memcpy(m.b.data() + nv::kModifyAt + nv::kAddressList + 2, addr, 6);
		vf.ok(m, 16);
	};
	arm(1);
	uc_list(vf0, 1);
	auto e = events.next(event::NIC_VPORT_CHANGE);
	EXPECT_EQ(bits::load_be16(e.data() + eqe::kVportChangeVportNum), 1u);
	auto q = pf.ok(query_nic(1, nv::LIST_UC), kNicOut);
	ASSERT_EQ(field(q, nv::allowed_list_size.at(nv::kQueryAt)), 1u);
	EXPECT_EQ(q[nv::kQueryAt + nv::kAddressList + 7], 1);
	EXPECT_EQ(field(q, nv::event_on_uc_address_change.at(nv::kQueryAt)), 0u) << "fired: disarmed";

	// Not armed again: VF 1's next change is silent; VF 2's armed one is
	// the next event.
	uc_list(vf0, 2);
	arm(2);
	uc_list(vf1, 3);
	e = events.next(event::NIC_VPORT_CHANGE);
	EXPECT_EQ(bits::load_be16(e.data() + eqe::kVportChangeVportNum), 2u);
	ASSERT_TRUE(pf.idle());
	EXPECT_FALSE(events.pending());
	EXPECT_EQ(a->vport(1).change_events, 1u);
	EXPECT_EQ(a->vport(2).change_events, 1u);
}

// InfiniBand: the PF (ib_virt) sets VF 1's GUIDs and state policy with
// MODIFY_HCA_VPORT_CONTEXT other_vport; the VF reads them in its HCA vport
// context, and the PF reads them back.
TEST(FwSriov, InfinibandManagerSetsVfGuidsAndPolicy)
{
	auto a = std::make_shared<Adapter>(1, true);
	FwHarness pf(pf_config(a, LinkType::Ib));
	pf.bring_up();
	auto own = pf.ok(Msg(op::QUERY_HCA_CAP, 0, 16), query_hca_cap_in::kOutSize);
	std::vector<uint8_t> g(own.begin() + query_hca_cap_in::kCapability, own.end());
	EXPECT_EQ(field(g, gc::ib_virt), 1u);
	FwHarness vf(vf_config(a, 0, LinkType::Ib));
	enable_and_wait(pf, *a, vf, 1);
	vf.bring_up();
	EventEq events(vf, 1ull << event::PORT_CHANGE);
	auto vf_state = [&vf] { return vf.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16); };
	ASSERT_EQ(field(vf_state(), vport_state::state), vport_state::UP) << "the internal SM's ACTIVE port";

	Msg m(op::MODIFY_HCA_VPORT_CONTEXT, 0, modify_hca_vport_context_in::kSize);
	m.set(vport_in::other_vport, 1).set(vport_in::vport_number, 1).set(vport_in::port_num, 1);
	const unsigned at = modify_hca_vport_context_in::kContext;
	m.set(hv::field_select.at(at), hv::SEL_NODE_GUID | hv::SEL_PORT_GUID | hv::SEL_STATE_POLICY);
	m.set(hv::vport_state_policy.at(at), static_cast<uint32_t>(VportAdmin::Down));
	m.be64(at + hv::kNodeGuid, 0x1122334455667788ull).be64(at + hv::kPortGuid, 0x1122334455667789ull);
	pf.ok(m, 16);

	auto query = [](FwHarness &h, uint32_t vport) {
		Msg q(op::QUERY_HCA_VPORT_CONTEXT, 0, 16);
		q.set(vport_in::port_num, 1);
		if (vport)
			q.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport);
		return h.ok(q, hv::kOutSize);
	};
	ASSERT_TRUE(poll_for([&] { return be64_at(query(vf, 0), hv::kAt + hv::kNodeGuid) == 0x1122334455667788ull; }));
	auto v = query(vf, 0);
	EXPECT_EQ(be64_at(v, hv::kAt + hv::kPortGuid), 0x1122334455667789ull);
	EXPECT_EQ(field(v, hv::vport_state_policy.at(hv::kAt)), static_cast<uint32_t>(VportAdmin::Down));
	EXPECT_NE(field(v, hv::vport_state.at(hv::kAt)), 4u) << "held down by the policy";
	// The VF hears of it (PORT_CHANGE DOWN) and reads its vport down.
	EXPECT_EQ(events.next(event::PORT_CHANGE)[eqe::kSubType], port_change::DOWN);
	EXPECT_EQ(field(vf_state(), vport_state::state), vport_state::DOWN);
	EXPECT_EQ(field(vf_state(), vport_state::admin_state), vport_state::DOWN);
	auto p = query(pf, 1);
	EXPECT_EQ(be64_at(p, hv::kAt + hv::kPortGuid), 0x1122334455667789ull);
	EXPECT_EQ(field(p, hv::vport_state_policy.at(hv::kAt)), static_cast<uint32_t>(VportAdmin::Down));
	EXPECT_EQ(field(p, hv::has_smi.at(hv::kAt)), 0u);
	EXPECT_EQ(field(query(pf, 0), hv::has_smi.at(hv::kAt)), 1u) << "the PF keeps its SMI";
	// Only the GUIDs and the policy.
	Msg bad = m;
	bad.set(hv::field_select.at(at), 1u << 3);
	EXPECT_EQ(pf.exec(bad, 16).status, status::BAD_PARAM);

	// Policy "follow" (ip link ... state auto): the port's ACTIVE again,
	// with a PORT_CHANGE ACTIVE; only the policy changed.
	Msg follow(op::MODIFY_HCA_VPORT_CONTEXT, 0, modify_hca_vport_context_in::kSize);
	follow.set(vport_in::other_vport, 1).set(vport_in::vport_number, 1).set(vport_in::port_num, 1);
	follow.set(hv::field_select.at(at), hv::SEL_STATE_POLICY);
	follow.set(hv::vport_state_policy.at(at), static_cast<uint32_t>(VportAdmin::Auto));
	pf.ok(follow, 16);
	EXPECT_EQ(events.next(event::PORT_CHANGE)[eqe::kSubType], port_change::ACTIVE);
	EXPECT_EQ(field(vf_state(), vport_state::state), vport_state::UP);
	EXPECT_EQ(field(query(vf, 0), hv::vport_state.at(hv::kAt)), 4u);
	EXPECT_EQ(be64_at(query(pf, 1), hv::kAt + hv::kNodeGuid), 0x1122334455667788ull);
	// A policy beyond "follow" is refused, and changes nothing.
	follow.set(hv::vport_state_policy.at(at), 3);
	EXPECT_EQ(pf.exec(follow, 16).status, status::BAD_PARAM);
	EXPECT_EQ(field(query(pf, 1), hv::vport_state_policy.at(hv::kAt)), static_cast<uint32_t>(VportAdmin::Auto));
	ASSERT_TRUE(vf.idle());
	EXPECT_FALSE(events.pending());
}

// InfiniBand vport counters (the in-tree get_vf_stats): the PF reads a
// VF's with other_vport, the VF its own; a vport beyond the VFs and a VF
// naming another vport are refused.
TEST(FwSriov, InfinibandVportCounters)
{
	auto a = std::make_shared<Adapter>(1, true);
	FwHarness pf(pf_config(a, LinkType::Ib));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0, LinkType::Ib));
	enable_and_wait(pf, *a, vf, 1);
	vf.bring_up();
	auto counters = [](uint32_t vport) {
		Msg m(nic_op::QUERY_VPORT_COUNTER, 0, 32);
		if (vport)
			m.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport);
		return m;
	};
	auto out = pf.ok(counters(1), vport_counter::kOutSize);
	for (unsigned at : {vport_counter::kRxIbUnicast, vport_counter::kTxIbUnicast, vport_counter::kRxIbMulticast,
			    vport_counter::kTxIbMulticast})
		EXPECT_EQ(be64_at(out, at), 0u) << "no traffic yet, at 0x" << std::hex << at;
	pf.ok(counters(0), vport_counter::kOutSize);
	vf.ok(counters(0), vport_counter::kOutSize);
	EXPECT_EQ(pf.exec(counters(2), vport_counter::kOutSize).status, status::BAD_PARAM) << "no VF 2";
	EXPECT_EQ(vf.exec(counters(1), vport_counter::kOutSize).status, status::BAD_PARAM) << "a VF's own only";
}

// `hca N vfs`: the SR-IOV state and each VF, on the PF; an error elsewhere.
TEST(FwSriov, ControlChannelVfs)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0));
	enable_and_wait(pf, *a, vf, 1);
	std::vector<uint64_t> given;
	ASSERT_EQ(give_to(pf, 1, 3, &given).status, 0);
	std::vector<Hca *> hcas{pf.hca.get(), vf.hca.get()};
	std::string s = execute_control_command(hcas, "hca 0 vfs");
	EXPECT_NE(s.find("total_vfs 2 num_vfs 2 vfe 1 mse 1 pf guest"), std::string::npos) << s;
	EXPECT_NE(s.find("vf 0 vport 1 enabled yes alive yes function attached pages_held 3 pages_wanted 8"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("vf 1 vport 2 enabled no alive no function absent pages_held 0"), std::string::npos) << s;
	EXPECT_EQ(execute_control_command(hcas, "hca 1 vfs").rfind("error: vfs: not a PF with VFs", 0), 0u);
	// `hca N vport` on the PF: its own vport, then each VF's.
	const MacAddr mac{0x02, 0x00, 0x00, 0x00, 0x32, 0x20};
	EXPECT_EQ(vf.fw().set_host_vport_mac(mac), "");
	s = execute_control_command(hcas, "hca 0 vport");
	EXPECT_NE(s.find("function pf"), std::string::npos) << s;
	EXPECT_NE(s.find("vf 0 vport 1 link auto"), std::string::npos) << s;
	EXPECT_NE(s.find("mac 02:00:00:00:32:20 state up"), std::string::npos) << s;
	EXPECT_NE(s.find("vf 1 vport 2 link auto"), std::string::npos) << s;
}

} // namespace
} // namespace mlx5emu::test
