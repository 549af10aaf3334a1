// SPDX-License-Identifier: GPL-2.0
// The firmware of a VF (`--function vf`): its caps (no manager bits, its
// vport as vhca_id), refusals of other functions and vports, of manager-only
// commands and of port-shaping register writes, each answered at once with
// its status; and the PF, which keeps what it had.
#include "fw_harness.h"

#include "ctl/ctl_commands.h"
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fabric/smp.h"
#include "prm/eth.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
namespace gc = cmd_hca_cap;
namespace ar = access_register_in;

HcaConfig vf_config(LinkType link = LinkType::Eth, uint16_t vf_index = 0)
{
	HcaConfig c;
	c.role = pci::FunctionRole::Vf;
	c.vf_index = vf_index;
	c.device_id = 0x1018;
	c.link = link;
	return c;
}

HcaConfig pf_config(LinkType link = LinkType::Eth)
{
	HcaConfig c;
	c.link = link;
	return c;
}

// The general caps, MAXIMUM (op_mod 0) or CURRENT (op_mod 1).
std::vector<uint8_t> general_caps(FwHarness &h, bool current)
{
	auto out = h.ok(Msg(op::QUERY_HCA_CAP, current ? 1 : 0, 16), query_hca_cap_in::kOutSize);
	return std::vector<uint8_t>(out.begin() + query_hca_cap_in::kCapability, out.end());
}

// A command that must fail with `status` and the syndrome's reason.
void refused(FwHarness &h, const Msg &m, uint32_t outlen, uint8_t status, uint32_t reason)
{
	auto r = h.exec(m, outlen);
	ASSERT_TRUE(r.done) << "a refused command completes";
	EXPECT_EQ(r.status, status) << "opcode 0x" << std::hex << bits::load_be16(m.b.data());
	EXPECT_EQ(r.syndrome, uint32_t(bits::load_be16(m.b.data())) << 16 | reason)
		<< "opcode 0x" << std::hex << bits::load_be16(m.b.data());
}

// ACCESS_REG of `id` with `size` bytes of register data.
Msg reg_msg(uint16_t id, bool write, unsigned size, std::vector<std::pair<bits::Field, uint32_t>> set)
{
	Msg m(op::ACCESS_REG, write ? ar::WRITE : ar::READ, ar::kData + size);
	m.set(ar::register_id, id);
	for (auto &[f, v] : set)
		m.set(f.at(ar::kData), v);
	return m;
}

TEST(FwVf, CapsHaveNoManagerBitsAndTheVportAsVhcaId)
{
	for (uint16_t index : {0, 2}) {
		FwHarness h(vf_config(LinkType::Eth, index));
		h.enable();
		for (bool current : {false, true}) {
			auto g = general_caps(h, current);
			EXPECT_EQ(field(g, gc::vhca_id), index + 1u) << "VF n (1-based) is vhca_id n";
			EXPECT_EQ(field(g, gc::vport_group_manager), 0u);
			EXPECT_EQ(field(g, gc::eswitch_manager), 0u);
			EXPECT_EQ(field(g, gc::nic_vport_change_event), 0u);
			EXPECT_EQ(field(g, gc::port_type), gc::PORT_TYPE_ETH) << "the rest of the profile stays";
		}
	}
	FwHarness pf(pf_config());
	pf.enable();
	EXPECT_EQ(field(general_caps(pf, false), gc::vhca_id), 0u) << "the PF is vhca 0";
}

// Function 0 is the VF itself: its pages are asked and given for 0, so the
// driver counts them as its own.
TEST(FwVf, PagesAreTheFunctionsOwn)
{
	FwHarness h(vf_config());
	h.enable();
	auto out = h.ok(Msg(op::QUERY_PAGES, query_pages_opmod::BOOT, 16), 16);
	EXPECT_EQ(field(out, query_pages_out::function_id), 0u);
	EXPECT_GT(field(out, query_pages_out::num_pages), 0u);
	h.bring_up();
}

// No other function or vport: ENABLE/DISABLE_HCA, QUERY_HCA_CAP and the page
// commands for another function_id, and every vport command for another
// vport, fail BAD_PARAM at once.
TEST(FwVf, OtherFunctionsAndVportsAreRefused)
{
	FwHarness h(vf_config());
	h.bring_up();
	refused(h, Msg(op::ENABLE_HCA, 0, 16).set(enable_hca_in::function_id, 1), 16, status::BAD_PARAM, 1);
	refused(h, Msg(op::DISABLE_HCA, 0, 16).set(enable_hca_in::function_id, 1), 16, status::BAD_PARAM, 1);
	refused(h, Msg(op::QUERY_HCA_CAP, 0, 16).set(query_hca_cap_in::other_function, 1).set(query_hca_cap_in::function_id, 1),
		query_hca_cap_in::kOutSize, status::BAD_PARAM, 1);
	refused(h, Msg(op::QUERY_PAGES, 1, 16).set(query_pages_in::function_id, 1), 16, status::BAD_PARAM, 1);
	refused(h, Msg(op::MANAGE_PAGES, 1, 16).set(manage_pages_in::function_id, 1), 16, status::BAD_PARAM, 1);
	Msg other_nic(op::MODIFY_NIC_VPORT_CONTEXT, 0, nic_vport::kModifyMinLen);
	other_nic.set(vport_in::other_vport, 1).set(vport_in::vport_number, 1);
	other_nic.set(nic_vport::modify_field_select, nic_vport::SEL_PERMANENT_ADDRESS);
	refused(h, other_nic, 16, status::BAD_PARAM, 1);
	refused(h, Msg(op::QUERY_NIC_VPORT_CONTEXT, 0, 16).set(vport_in::other_vport, 1).set(vport_in::vport_number, 2),
		nic_vport_context::kOutSize, status::BAD_PARAM, 1);
	refused(h, Msg(op::QUERY_VPORT_STATE, 0, 16).set(vport_in::other_vport, 1).set(vport_in::vport_number, 1), 16,
		status::BAD_PARAM, 1);
	refused(h, Msg(nic_op::QUERY_VPORT_COUNTER, 0, 32).set(vport_in::other_vport, 1).set(vport_in::vport_number, 1),
		vport_counter::kOutSize, status::BAD_PARAM, 1);
	// The function goes on: its own vport answers.
	auto st = h.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16);
	EXPECT_EQ(field(st, vport_state::state), vport_state::UP) << "a VF's port is the PF's, up";
}

// Manager-only commands are BAD_OP on a VF (its caps do not advertise the
// manager role): the one implemented today, MODIFY_VPORT_STATE, with the
// manager reason, and the e-switch commands no function has yet.
TEST(FwVf, ManagerCommandsAreBadOp)
{
	FwHarness vf(vf_config());
	vf.bring_up();
	Msg modify(nic_op::MODIFY_VPORT_STATE, 0, 16);
	modify.set(vport_state::modify_admin_state, vport_state::DOWN);
	refused(vf, modify, 16, status::BAD_OP, 0xff08);
	EXPECT_EQ(field(vf.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16), vport_state::state), vport_state::UP)
		<< "the refused command changed nothing";
	EXPECT_EQ(vf.fw().refusals.vf_refused.load(), 1u);
	for (uint16_t opcode : {0x740, 0x752, 0x753, 0x782, 0x829, 0x82b})
		vf.fails(Msg(opcode, 0, 0x100), 16, status::BAD_OP);

	FwHarness pf(pf_config());
	pf.bring_up();
	pf.ok(modify, 16);
	EXPECT_EQ(pf.fw().refusals.vf_refused.load(), 0u);
}

// The registry's Who column: which implemented commands a VF may not issue.
TEST(FwVf, RegistryMarksTheManagerCommands)
{
	const CmdSpec *s = find_command(nic_op::MODIFY_VPORT_STATE);
	ASSERT_NE(s, nullptr);
	EXPECT_EQ(s->who, Who::Manager);
	for (uint16_t opcode : {op::QUERY_VPORT_STATE, op::QUERY_NIC_VPORT_CONTEXT, op::MODIFY_NIC_VPORT_CONTEXT,
				op::ACCESS_REG, op::ENABLE_HCA, op::QUERY_HCA_CAP, op::MANAGE_PAGES}) {
		s = find_command(opcode);
		ASSERT_NE(s, nullptr) << std::hex << opcode;
		EXPECT_EQ(s->who, Who::Any) << std::hex << opcode;
	}
}

// The VF's MAC is its manager's: the VF reads it, and may not set it.
TEST(FwVf, PermanentMacIsTheManagers)
{
	FwHarness vf(vf_config());
	vf.bring_up();
	Msg m(op::MODIFY_NIC_VPORT_CONTEXT, 0, nic_vport::kModifyMinLen);
	m.set(nic_vport::modify_field_select, nic_vport::SEL_PERMANENT_ADDRESS);
	m.set(nic_vport::perm_mac_31_0.at(nic_vport::kModifyAt), 0x01020304);
	refused(vf, m, 16, status::BAD_PARAM, 7);
	// Its own lists and MTU stay its own.
	Msg mtu(op::MODIFY_NIC_VPORT_CONTEXT, 0, nic_vport::kModifyMinLen);
	mtu.set(nic_vport::modify_field_select, nic_vport::SEL_MTU).set(nic_vport::mtu.at(nic_vport::kModifyAt), 1500);
	vf.ok(mtu, 16);

	FwHarness pf(pf_config());
	pf.bring_up();
	pf.ok(m, 16);
}

// Port registers on a VF: reads show the physical port; PAOS writes are
// taken and change nothing (mlx5e writes it at every open); PMTU is the
// VF's own; PTYS, PFCC, PPCNT and HOST_ENDIANNESS writes are refused.
TEST(FwVf, PortRegisterWrites)
{
	FwHarness h(vf_config());
	h.bring_up();
	auto paos_down = reg_msg(reg_eth::PAOS, true, paos::kSize,
				 {{paos::local_port, 1}, {paos::ase, 1}, {paos::admin_status, paos::DOWN}});
	auto o = h.ok(paos_down, ar::kData + paos::kSize);
	EXPECT_EQ(field(o, paos::admin_status.at(ar::kData)), paos::UP) << "the PF's port stays up";
	EXPECT_EQ(field(o, paos::oper_status.at(ar::kData)), paos::UP);
	o = h.ok(reg_msg(reg_eth::PAOS, false, paos::kSize, {{paos::local_port, 1}}), ar::kData + paos::kSize);
	EXPECT_EQ(field(o, paos::oper_status.at(ar::kData)), paos::UP);
	EXPECT_EQ(field(h.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16), vport_state::state), vport_state::UP);

	o = h.ok(reg_msg(reg_eth::PMTU, true, pmtu::kSize, {{pmtu::local_port, 1}, {pmtu::admin_mtu, 4000}}),
		 ar::kData + pmtu::kSize);
	EXPECT_EQ(field(o, pmtu::oper_mtu.at(ar::kData)), 4000u);

	refused(h,
		reg_msg(reg_eth::PTYS, true, ptys::kSize,
			{{ptys::local_port, 1}, {ptys::proto_mask, ptys::PROTO_EN}, {ptys::eth_proto_admin, ptys::kMode100GbaseCr4}}),
		ar::kData + ptys::kSize, status::BAD_PARAM, 0x11);
	refused(h, reg_msg(reg_eth::PFCC, true, pfcc::kSize, {{pfcc::local_port, 1}}), ar::kData + pfcc::kSize,
		status::BAD_PARAM, 0x11);
	refused(h, reg_msg(reg_eth::PPCNT, true, ppcnt::kSize, {{ppcnt::local_port, 1}}), ar::kData + ppcnt::kSize,
		status::BAD_PARAM, 0x11);
	refused(h, reg_msg(reg::HOST_ENDIANNESS, true, 16, {}), ar::kData + 16, status::BAD_PARAM, 0x11);
	EXPECT_EQ(h.fw().refusals.vf_refused.load(), 4u);

	// Reads stay open.
	o = h.ok(reg_msg(reg_eth::PTYS, false, ptys::kSize, {{ptys::local_port, 1}, {ptys::proto_mask, ptys::PROTO_EN}}),
		 ar::kData + ptys::kSize);
	EXPECT_EQ(field(o, ptys::eth_proto_oper.at(ar::kData)), ptys::kMode100GbaseCr4);
	h.ok(reg_msg(reg_eth::PPCNT, false, ppcnt::kSize, {{ppcnt::local_port, 1}}), ar::kData + ppcnt::kSize);

	// A function reset keeps the VF's port up.
	h.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	h.bring_up();
	EXPECT_EQ(field(h.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16), vport_state::state), vport_state::UP);
}

// The PF's port registers are as before: its port starts down, PAOS brings
// it up, PTYS is writable.
TEST(FwVf, PfPortRegistersUnchanged)
{
	FwHarness h(pf_config());
	h.bring_up();
	EXPECT_EQ(field(h.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16), vport_state::state), 0u);
	auto o = h.ok(reg_msg(reg_eth::PAOS, true, paos::kSize,
			      {{paos::local_port, 1}, {paos::ase, 1}, {paos::admin_status, paos::UP}}),
		      ar::kData + paos::kSize);
	EXPECT_EQ(field(o, paos::oper_status.at(ar::kData)), paos::UP);
	h.ok(reg_msg(reg_eth::PTYS, true, ptys::kSize,
		     {{ptys::local_port, 1}, {ptys::proto_mask, ptys::PROTO_EN}, {ptys::eth_proto_admin, ptys::kMode100GbaseCr4}}),
	     ar::kData + ptys::kSize);
	h.ok(reg_msg(reg::HOST_ENDIANNESS, true, 16, {}), ar::kData + 16);
}

// An InfiniBand VF: the same caps rule plus ib_virt; its node description
// stays its own, its capability mask is not PCAP's (a VF claiming IsSM on
// the port).
TEST(FwVf, InfinibandVf)
{
	FwHarness h(vf_config(LinkType::Ib));
	h.bring_up();
	EXPECT_EQ(field(general_caps(h, true), gc::vhca_id), 1u);
	EXPECT_EQ(field(general_caps(h, true), gc::port_type), gc::PORT_TYPE_IB);
	EXPECT_EQ(field(general_caps(h, true), gc::ib_virt), 1u);
	refused(h, reg_msg(reg::PCAP, true, 20, {{bits::Field{0, 23, 16}, 1}, {bits::Field{1, 31, 0}, 0x02010048}}),
		ar::kData + 20, status::BAD_PARAM, 0x11);
	h.ok(reg_msg(reg::NODE_DESC, true, 64, {}), ar::kData + 64);
	refused(h, reg_msg(reg::HOST_ENDIANNESS, true, 16, {}), ar::kData + 16, status::BAD_PARAM, 0x11);

	FwHarness eth(vf_config(LinkType::Eth));
	eth.bring_up();
	EXPECT_EQ(field(general_caps(eth, true), gc::ib_virt), 0u) << "ib_virt is InfiniBand's";
	FwHarness pf(pf_config(LinkType::Ib));
	pf.bring_up();
	EXPECT_EQ(field(general_caps(pf, true), gc::ib_virt), 0u) << "a PF reads its port through its SMA";
	pf.ok(reg_msg(reg::PCAP, true, 20, {{bits::Field{0, 23, 16}, 1}, {bits::Field{1, 31, 0}, 0x02010048}}),
	      ar::kData + 20);
}

namespace hv = hca_vport_context;

std::vector<uint8_t> hca_vport(FwHarness &h)
{
	auto out = h.ok(Msg(op::QUERY_HCA_VPORT_CONTEXT, 0, 16).set(vport_in::port_num, 1), hv::kOutSize);
	return std::vector<uint8_t>(out.begin() + hv::kAt, out.end());
}

Msg modify_hca_vport(uint32_t field_select, uint32_t mask, uint32_t mask_select)
{
	namespace mi = modify_hca_vport_context_in;
	Msg m(op::MODIFY_HCA_VPORT_CONTEXT, 0, mi::kSize);
	m.set(vport_in::port_num, 1);
	m.set(hv::field_select.at(mi::kContext), field_select);
	m.set(hv::cap_mask1.at(mi::kContext), mask);
	m.set(hv::cap_mask1_field_select.at(mi::kContext), mask_select);
	return m;
}

// The HCA vport context of an InfiniBand VF: no SMI, the port's LID and
// state, the GUIDs, and IsCM as the one mask bit it may change; GUIDs and
// policy are its manager's, another vport is refused.
TEST(FwVf, InfinibandVportContext)
{
	FwHarness h(vf_config(LinkType::Ib));
	h.bring_up();
	auto c = hca_vport(h);
	EXPECT_EQ(field(c, hv::has_smi), 0u);
	EXPECT_EQ(field(c, hv::vport_state), mad::PORT_ACTIVE) << "the internal SM brought the port up";
	EXPECT_EQ(field(c, hv::lid), h.fw().port().lid);
	EXPECT_EQ(bits::load_be64(c.data() + hv::kPortGuid), h.fw().port().port_guid);
	EXPECT_EQ(field(c, hv::cap_mask1_field_select), kCapCm);

	h.ok(modify_hca_vport(0, 0, kCapCm), 16);
	EXPECT_EQ(field(hca_vport(h), hv::cap_mask1) & kCapCm, 0u) << "IsCM cleared";
	h.ok(modify_hca_vport(0, kCapCm, kCapCm), 16);
	EXPECT_NE(field(hca_vport(h), hv::cap_mask1) & kCapCm, 0u) << "IsCM set";
	constexpr uint32_t kIsSm = 1u << 1;
	uint32_t before = field(hca_vport(h), hv::cap_mask1);
	refused(h, modify_hca_vport(0, kIsSm, kIsSm), 16, status::BAD_PARAM, 6);
	refused(h, modify_hca_vport(hv::SEL_PORT_GUID, 0, 0), 16, status::BAD_PARAM, 5);
	refused(h, modify_hca_vport(hv::SEL_STATE_POLICY, 0, 0), 16, status::BAD_PARAM, 5);
	Msg other = modify_hca_vport(0, kCapCm, kCapCm);
	other.set(vport_in::other_vport, 1).set(vport_in::vport_number, 2);
	refused(h, other, 16, status::BAD_PARAM, 1);
	EXPECT_EQ(field(hca_vport(h), hv::cap_mask1), before) << "the refused commands changed nothing";
	EXPECT_EQ(h.fw().port().cap_mask, before) << "the SMA reports the vport's mask";

	FwHarness pf(pf_config(LinkType::Ib));
	pf.bring_up();
	EXPECT_EQ(field(hca_vport(pf), hv::has_smi), 1u);
}

// A MAD_IFC with an SMP (LID-routed or directed-route) is refused on a
// function without the SMI; performance management still goes through.
TEST(FwVf, InfinibandVfSendsNoSmpThroughMadIfc)
{
	FwHarness h(vf_config(LinkType::Ib));
	h.bring_up();
	auto mad_ifc = [](uint8_t cls) {
		Msg m(op::MAD_IFC, 1, 16 + 256);
		m.set({2, 7, 0}, 1);
		uint8_t *mad = m.b.data() + 16;
		mad[0] = 1;
		mad[1] = cls;
		mad[2] = 1;
		mad[3] = 1;                          // Get
		bits::store_be16(mad + 16, 0x0015);  // PortInfo / PortCounters' 0x12 below
		return m;
	};
	refused(h, mad_ifc(0x01), 16 + 256, status::BAD_PARAM, 3);
	refused(h, mad_ifc(0x81), 16 + 256, status::BAD_PARAM, 3);
	Msg pma = mad_ifc(0x04);
	bits::store_be16(pma.b.data() + 16 + 16, 0x0012);
	h.ok(pma, 16 + 256);

	FwHarness pf(pf_config(LinkType::Ib));
	pf.bring_up();
	pf.ok(mad_ifc(0x01), 16 + 256);
}

// The InfiniBand port registers a driver with ib_virt reads: PTYS (4x
// EDR), PMTU (4096), PVLC (VL0); writes are refused on any function.
TEST(FwVf, InfinibandPortRegisters)
{
	for (bool vf : {true, false}) {
		FwHarness h(vf ? vf_config(LinkType::Ib) : pf_config(LinkType::Ib));
		h.bring_up();
		auto o = h.ok(reg_msg(reg_eth::PTYS, false, ptys::kSize, {{ptys::local_port, 1}, {ptys::proto_mask, ptys::PROTO_IB}}),
			      ar::kData + ptys::kSize);
		EXPECT_EQ(field(o, ptys::ib_link_width_oper.at(ar::kData)), 1u << 2) << "4x";
		EXPECT_EQ(field(o, ptys::ib_proto_oper.at(ar::kData)), 1u << 5) << "EDR";
		o = h.ok(reg_msg(reg_eth::PMTU, false, pmtu::kSize, {{pmtu::local_port, 1}}), ar::kData + pmtu::kSize);
		EXPECT_EQ(field(o, pmtu::max_mtu.at(ar::kData)), 4096u);
		EXPECT_EQ(field(o, pmtu::oper_mtu.at(ar::kData)), 4096u);
		o = h.ok(reg_msg(reg::PVLC, false, pvlc::kSize, {{pvlc::local_port, 1}}), ar::kData + pvlc::kSize);
		EXPECT_EQ(field(o, pvlc::vl_hw_cap.at(ar::kData)), 1u) << "VL0";
		h.fails(reg_msg(reg_eth::PTYS, false, ptys::kSize, {{ptys::local_port, 1}, {ptys::proto_mask, ptys::PROTO_EN}}),
			ar::kData + ptys::kSize, status::BAD_PARAM);
		h.fails(reg_msg(reg_eth::PMTU, true, pmtu::kSize, {{pmtu::local_port, 1}, {pmtu::admin_mtu, 2048}}),
			ar::kData + pmtu::kSize, status::BAD_PARAM);
		h.fails(reg_msg(reg::PVLC, false, pvlc::kSize, {{pvlc::local_port, 2}}), ar::kData + pvlc::kSize,
			status::BAD_PARAM);
	}
}

// The host sets an InfiniBand VF's GUIDs: the vport context, GID[0] and
// the SMA's NodeInfo show them at once, a function reset keeps them, 0
// restores the emulator's; a PF and an Ethernet VF have none to set.
TEST(FwVf, HostSideGuids)
{
	FwHarness h(vf_config(LinkType::Ib));
	h.bring_up();
	uint64_t port0 = h.fw().port().port_guid, node0 = h.fw().port().node_guid;
	EXPECT_EQ(h.fw().set_host_vport_guid(false, 0x0002c90000abcd01ull), "");
	EXPECT_EQ(h.fw().set_host_vport_guid(true, 0x0002c90000abcd00ull), "");
	for (int pass = 0; pass < 2; ++pass) {
		auto c = hca_vport(h);
		EXPECT_EQ(bits::load_be64(c.data() + hv::kPortGuid), 0x0002c90000abcd01ull) << "pass " << pass;
		EXPECT_EQ(bits::load_be64(c.data() + hv::kNodeGuid), 0x0002c90000abcd00ull) << "pass " << pass;
		auto g = h.ok(Msg(op::QUERY_HCA_VPORT_GID, 0, 16).set(vport_in::port_num, 1), 32);
		EXPECT_EQ(bits::load_be64(g.data() + query_hca_vport_gid::kGids + 8), 0x0002c90000abcd01ull);
		h.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
		h.bring_up();
	}
	EXPECT_EQ(h.fw().set_host_vport_guid(false, 0), "");
	EXPECT_EQ(h.fw().set_host_vport_guid(true, 0), "");
	EXPECT_EQ(h.fw().port().port_guid, port0);
	EXPECT_EQ(h.fw().port().node_guid, node0);

	FwHarness pf(pf_config(LinkType::Ib));
	EXPECT_NE(pf.fw().set_host_vport_guid(false, 1), "");
	FwHarness eth(vf_config(LinkType::Eth));
	EXPECT_NE(eth.fw().set_host_vport_guid(false, 1), "");

	std::vector<Hca *> hcas{h.hca.get()};
	auto ask = [&](const std::string &l) { return execute_control_command(hcas, l); };
	EXPECT_EQ(ask("hca 0 vport guid port 0x0002c90000abcd01"), "ok\n");
	EXPECT_EQ(ask("hca 0 vport guid node 0002c90000abcd00"), "ok\n");
	EXPECT_EQ(ask("hca 0 vport"), "hca 0 vport\nfunction vf\nnode_guid 0x0002c90000abcd00 port_guid "
				      "0x0002c90000abcd01\nsmi no ib_virt yes\nlink auto\nstate active\n.\n");
	EXPECT_EQ(ask("hca 0 vport guid port 0xzz"), "error: vport: guid node|port 0xGUID\n");
	EXPECT_EQ(ask("hca 0 vport guid host 1"), "error: vport: guid node|port 0xGUID\n");
}

MacAddr queried_mac(FwHarness &h)
{
	auto out = h.ok(Msg(op::QUERY_NIC_VPORT_CONTEXT, 0, 16), nic_vport_context::kOutSize);
	MacAddr m;
	std::copy_n(out.begin() + nic_vport::kQueryAt + 4 * nic_vport::perm_mac_47_32.dw + 2, 6, m.begin());
	return m;
}

uint32_t vport_state_of(FwHarness &h, bits::Field f)
{
	return field(h.ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16), f);
}

// An EQ of `h`'s that takes PORT_CHANGE events, read in order.
struct PortChangeEq {
	FwHarness &h;
	FwHarness::EqBuf eq;
	uint32_t ci = 0;
	explicit PortChangeEq(FwHarness &fh) : h(fh), eq(fh.create_eq(4, 1ull << event::PORT_CHANGE, 0, fh.alloc_uar())) {}
	// The next event is a PORT_CHANGE of `subtype`.
	void next(uint8_t subtype)
	{
		ASSERT_TRUE(h.wait_eqe(eq, ci));
		auto e = h.eqe(eq, ci++);
		EXPECT_EQ(e[eqe::kType], event::PORT_CHANGE);
		EXPECT_EQ(e[eqe::kSubType], subtype);
	}
};

// The host side sets the MAC a VF reads; it outlives the VF's function
// reset (a driver reload), and a PF has no host side.
TEST(FwVf, HostSideMacIsWhatTheVfReads)
{
	FwHarness vf(vf_config());
	vf.bring_up();
	const MacAddr mac{0x02, 0x00, 0x00, 0x00, 0x32, 0x01};
	EXPECT_NE(queried_mac(vf), mac);
	EXPECT_EQ(vf.fw().set_host_vport_mac(mac), "");
	EXPECT_EQ(queried_mac(vf), mac);
	vf.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	vf.bring_up();
	EXPECT_EQ(queried_mac(vf), mac) << "the host's setting outlives the reset";

	FwHarness pf(pf_config());
	EXPECT_NE(pf.fw().set_host_vport_mac(mac), "");
	FwHarness ib(vf_config(LinkType::Ib));
	EXPECT_NE(ib.fw().set_host_vport_mac(mac), "");
}

// The host side's link setting: disable takes the vport down, enable holds
// it up with the cable out, auto follows the cable; each change of the
// operational state is a PORT_CHANGE to the VF, and the setting outlives a
// function reset.
TEST(FwVf, HostSideLinkFlapsTheVport)
{
	FwHarness vf(vf_config());
	vf.bring_up();
	PortChangeEq events(vf);
	EXPECT_EQ(vport_state_of(vf, vport_state::admin_state), vport_state::FOLLOW);
	EXPECT_EQ(vport_state_of(vf, vport_state::state), vport_state::UP);

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Down), "");
	events.next(port_change::DOWN);
	EXPECT_EQ(vport_state_of(vf, vport_state::admin_state), vport_state::DOWN);
	EXPECT_EQ(vport_state_of(vf, vport_state::state), 0u);

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Up), "");
	events.next(port_change::ACTIVE);
	ASSERT_TRUE(vf.fw().set_eth_cable(false));
	EXPECT_EQ(vport_state_of(vf, vport_state::state), vport_state::UP) << "enable holds it up";

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Auto), "");
	events.next(port_change::DOWN);
	ASSERT_TRUE(vf.fw().set_eth_cable(true));
	events.next(port_change::ACTIVE);

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Down), "");
	vf.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	vf.bring_up();
	EXPECT_EQ(vport_state_of(vf, vport_state::state), 0u) << "the host's setting outlives the reset";

	FwHarness pf(pf_config());
	EXPECT_NE(pf.fw().set_host_vport_admin(VportAdmin::Down), "");
}

// An InfiniBand VF's link policy: disable holds the vport DOWN (vport
// context, QUERY_VPORT_STATE, a PORT_CHANGE DOWN event, and the data path
// drops its traffic); auto gives it the port's state back (ACTIVE event);
// enable follows the port as auto does; the policy outlives a reset.
TEST(FwVf, HostSideIbLinkPolicy)
{
	FwHarness vf(vf_config(LinkType::Ib));
	vf.bring_up();
	PortChangeEq events(vf);
	auto ctx_state = [&] { return field(hca_vport(vf), hv::vport_state); };
	EXPECT_EQ(ctx_state(), mad::PORT_ACTIVE);
	EXPECT_EQ(field(hca_vport(vf), hv::vport_state_policy), 2u) << "follow";

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Down), "");
	events.next(port_change::DOWN);
	EXPECT_EQ(ctx_state(), mad::PORT_DOWN);
	EXPECT_EQ(field(hca_vport(vf), hv::port_state), mad::PORT_ACTIVE) << "the port itself stays the SM's";
	EXPECT_EQ(field(hca_vport(vf), hv::vport_state_policy), 0u);
	EXPECT_EQ(vport_state_of(vf, vport_state::state), 0u);
	{
		auto lk = vf.fw().dp().lock();
		EXPECT_NE(vf.fw().dp().port_state(), mad::PORT_ACTIVE) << "the data path takes no traffic";
	}

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Auto), "");
	events.next(port_change::ACTIVE);
	EXPECT_EQ(ctx_state(), mad::PORT_ACTIVE);
	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Up), "");
	EXPECT_EQ(ctx_state(), mad::PORT_ACTIVE) << "enable follows the port";

	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Down), "");
	vf.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	vf.bring_up();
	EXPECT_EQ(ctx_state(), mad::PORT_DOWN) << "the host's setting outlives the reset";
	EXPECT_EQ(vf.fw().set_host_vport_admin(VportAdmin::Auto), "");
	EXPECT_EQ(ctx_state(), mad::PORT_ACTIVE);

	FwHarness pf(pf_config(LinkType::Ib));
	EXPECT_NE(pf.fw().set_host_vport_admin(VportAdmin::Down), "");
}

// The control channel's `hca N vport`: what it shows and sets on a VF.
TEST(FwVf, ControlChannelVport)
{
	FwHarness vf(vf_config());
	vf.bring_up();
	std::vector<Hca *> hcas{vf.hca.get()};
	auto ask = [&](const std::string &l) { return execute_control_command(hcas, l); };
	EXPECT_EQ(ask("hca 0 vport mac 02:00:00:00:32:01"), "ok\n");
	EXPECT_EQ(ask("hca 0 vport"), "hca 0 vport\nfunction vf\nmac 02:00:00:00:32:01\nlink auto\n"
				      "vlan 0 qos 0 spoofchk off trust off\nstate up cable in\n.\n");
	EXPECT_EQ(ask("hca 0 vport link disable"), "ok\n");
	EXPECT_EQ(ask("hca 0 vport vlan 100 3"), "ok\n");
	EXPECT_EQ(ask("hca 0 vport spoofchk on"), "ok\n");
	EXPECT_EQ(ask("hca 0 vport"), "hca 0 vport\nfunction vf\nmac 02:00:00:00:32:01\nlink disable\n"
				      "vlan 100 qos 3 spoofchk on trust off\nstate down cable in\n.\n");
	EXPECT_EQ(ask("hca 0 vport vlan 4096"), "error: vport: VLAN is 0..4095, QOS 0..7\n");
	EXPECT_EQ(ask("hca 0 vport vlan 0 3"), "ok\n");
	EXPECT_NE(ask("hca 0 vport").find("vlan 0 qos 0 spoofchk on"), std::string::npos) << "vlan 0 clears";
	EXPECT_EQ(ask("hca 0 vport trust on"), "ok\n");
	EXPECT_NE(ask("hca 0 vport").find("spoofchk on trust on"), std::string::npos);
	EXPECT_EQ(ask("hca 0 vport trust maybe"), "error: vport: trust on or off\n");
	EXPECT_EQ(queried_mac(vf), (MacAddr{0x02, 0, 0, 0, 0x32, 0x01}));
}

} // namespace
} // namespace mlx5emu::test
