// SPDX-License-Identifier: GPL-2.0
// The legacy e-switch's commands on its manager (fw/cmd_esw.cc, the FDB and
// ACL table types of cmd_flow_table.cc, steer/eswitch.h): the caps a PF with
// VFs reports on Ethernet, the FDB and vport ACL tables with vport and
// uplink destinations, the MPFS, the esw vport context (VST), the
// scheduling elements of the e-switch's transmit rates, and their refusal
// on a VF and on a PF without VFs.
#include "fw_harness.h"
#include "poll_for.h"

#include <cstring>

#include "exec/datapath.h"
#include "fw/adapter.h"
#include "prm/eth.h"
#include "prm/qos.h"
#include "steer/headers.h"
#include "steer/match.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
namespace gc = cmd_hca_cap;
namespace ftt = flow_table_type;
namespace ev = esw_vport;

std::vector<uint8_t> caps_of(FwHarness &h, uint16_t type)
{
	auto out = h.ok(Msg(op::QUERY_HCA_CAP, static_cast<uint16_t>(type << 1 | 1), 16), query_hca_cap_in::kOutSize);
	return std::vector<uint8_t>(out.begin() + query_hca_cap_in::kCapability, out.end());
}

// A flow-table command naming table type `type` of `vport` (other_vport
// when non-zero).
Msg ft_msg(uint16_t opcode, size_t size, uint8_t type, uint16_t vport)
{
	Msg m(opcode, 0, size);
	m.set(ft_in::table_type, type);
	if (vport)
		m.set(ft_in::other_vport, 1).set(ft_in::vport_number, vport);
	return m;
}

Msg create_table(uint8_t type, uint16_t vport, unsigned log_size)
{
	return ft_msg(nic_op::CREATE_FLOW_TABLE, 0x40, type, vport).set(ftc::log_size.at(ftc::kAt), log_size);
}

// A group over flow index `index` matching `criteria` on the outer headers
// (and the misc parameters, for source_port).
Msg create_group(uint8_t type, uint16_t vport, uint32_t table, uint32_t index, const steer::MatchParam &criteria)
{
	Msg m = ft_msg(nic_op::CREATE_FLOW_GROUP, create_fg::kSize, type, vport);
	m.set(ft_in::table_id, table).set(create_fg::start_flow_index, index).set(create_fg::end_flow_index, index);
	m.set(create_fg::match_criteria_enable, 1u << match::SEC_OUTER | 1u << match::SEC_MISC);
	std::memcpy(m.b.data() + create_fg::kMatchCriteria, criteria.data(), criteria.size());
	return m;
}

struct Dst {
	uint8_t type;
	uint32_t id;
};

Msg set_entry(uint8_t type, uint16_t vport, uint32_t table, uint32_t group, uint32_t index, uint16_t action,
	      const steer::MatchParam &value, std::initializer_list<Dst> dests = {})
{
	Msg m = ft_msg(nic_op::SET_FLOW_TABLE_ENTRY, set_fte::kMinSize + 8 * dests.size(), type, vport);
	unsigned fc = set_fte::kFlowContext;
	m.set(ft_in::table_id, table).set(set_fte::flow_index, index);
	m.set(flow_ctx::group_id.at(fc), group).set(flow_ctx::action.at(fc), action);
	m.set(flow_ctx::destination_list_size.at(fc), static_cast<uint32_t>(dests.size()));
	std::memcpy(m.b.data() + fc + flow_ctx::kMatchValue, value.data(), value.size());
	unsigned at = fc + flow_ctx::kDestinations;
	for (const Dst &d : dests) {
		m.set(dest::type.at(at), d.type).set(dest::id.at(at), d.id);
		at += 8;
	}
	return m;
}

uint32_t created_id(const std::vector<uint8_t> &out) { return be32_at(out, 8) & 0xffffff; }

steer::MatchParam dmac_criteria()
{
	steer::MatchParam p{};
	bits::set(p.data(), match::dmac_47_16, 0xffffffff);
	bits::set(p.data(), match::dmac_15_0, 0xffff);
	return p;
}

steer::MatchParam dmac_value(const uint8_t *mac)
{
	steer::MatchParam p{};
	bits::set(p.data(), match::dmac_47_16, bits::load_be32(mac));
	bits::set(p.data(), match::dmac_15_0, bits::load_be16(mac + 4));
	return p;
}

// An Ethernet frame from `src` to `dst`.
std::vector<uint8_t> frame(const uint8_t *dst, const uint8_t *src)
{
	std::vector<uint8_t> f(64, 0);
	std::memcpy(f.data(), dst, 6);
	std::memcpy(f.data() + 6, src, 6);
	f[12] = 0x08;
	return f;
}

constexpr uint8_t kVfMac[6] = {0x02, 0, 0, 0, 0x32, 0x01};
constexpr uint8_t kOtherMac[6] = {0x02, 0, 0, 0, 0x32, 0x99};

// The manager's caps on Ethernet: eswitch_manager, the VST offloads of the
// E_SWITCH type and the FDB/ACL tables of ESWITCH_FLOW_TABLE; none of it
// on a PF without VFs or on InfiniBand.
TEST(FwEsw, ManagerCaps)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.enable();
	EXPECT_EQ(field(caps_of(pf, 0), gc::eswitch_manager), 1u);
	auto e = caps_of(pf, cap_type_eth::ESWITCH);
	EXPECT_EQ(field(e, esw_caps::vport_cvlan_strip), 1u);
	EXPECT_EQ(field(e, esw_caps::vport_cvlan_insert_if_not_exist), 1u);
	EXPECT_EQ(field(e, esw_caps::vport_cvlan_insert_always), 0u);
	auto f = caps_of(pf, cap_type_eth::ESWITCH_FLOW_TABLE);
	for (unsigned at : {esw_ft_caps::kFdb, esw_ft_caps::kIngressAcl, esw_ft_caps::kEgressAcl}) {
		EXPECT_EQ(field(f, ft_caps::ft_support.at(at)), 1u) << std::hex << at;
		EXPECT_EQ(field(f, ft_caps::flow_counter.at(at)), 0u) << "no ACL drop counters";
	}
	EXPECT_EQ(field(f, ft_caps::log_max_ft_size.at(esw_ft_caps::kFdb)), 16u);
	// The e-switch's transmit scheduling (vport rates).
	EXPECT_EQ(field(caps_of(pf, 0), gc::qos), 1u);
	auto q = caps_of(pf, cap_type_qos::QOS);
	EXPECT_EQ(field(q, esw_qos_caps::esw_scheduling), 1u);
	EXPECT_EQ(field(q, esw_qos_caps::esw_bw_share), 1u);
	EXPECT_EQ(field(q, esw_qos_caps::esw_element_type),
		  uint32_t(esw_qos_caps::ELEMENT_CAP_TSAR | esw_qos_caps::ELEMENT_CAP_VPORT));
	EXPECT_EQ(field(q, esw_qos_caps::esw_tsar_type), uint32_t(esw_qos_caps::TSAR_CAP_DWRR));
	EXPECT_EQ(field(q, esw_qos_caps::log_esw_max_sched_depth), 0u) << "vports hang off the root";
	EXPECT_GT(field(q, esw_qos_caps::max_tsar_bw_share), 0u);

	FwHarness alone(pf_config(nullptr));
	alone.enable();
	EXPECT_EQ(field(caps_of(alone, 0), gc::eswitch_manager), 0u);
	EXPECT_EQ(alone.exec(Msg(op::QUERY_HCA_CAP, cap_type_eth::ESWITCH << 1 | 1, 16), query_hca_cap_in::kOutSize)
			  .status,
		  status::BAD_PARAM);

	auto b = std::make_shared<Adapter>(2, true);
	FwHarness ib(pf_config(b, LinkType::Ib));
	ib.enable();
	EXPECT_EQ(field(caps_of(ib, 0), gc::eswitch_manager), 0u) << "no e-switch on InfiniBand";
}

// The FDB: a dmac rule to VF 1's vport and one to the uplink, the root set;
// a frame's walk reaches the vport. The ACLs are per vport (other_vport);
// FDB, TIR and vport-range mistakes are refused.
TEST(FwEsw, FdbAndAclTables)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();

	uint32_t fdb = created_id(pf.ok(create_table(ftt::FDB, 0, 4), 16));
	uint32_t g = created_id(pf.ok(create_group(ftt::FDB, 0, fdb, 0, dmac_criteria()), 16));
	steer::MatchParam src{};
	bits::set(src.data(), match::source_port, 0xffff);
	uint32_t g2 = created_id(pf.ok(create_group(ftt::FDB, 0, fdb, 1, src), 16));
	pf.ok(set_entry(ftt::FDB, 0, fdb, g, 0, flow_ctx::ACT_FWD_DEST, dmac_value(kVfMac), {{dest::VPORT, 1}}), 16);
	steer::MatchParam from_vf{};
	bits::set(from_vf.data(), match::source_port, 1);
	pf.ok(set_entry(ftt::FDB, 0, fdb, g2, 1, flow_ctx::ACT_FWD_DEST, from_vf, {{dest::UPLINK, 0}}), 16);
	pf.ok(ft_msg(nic_op::SET_FLOW_TABLE_ROOT, 0x40, ftt::FDB, 0).set(ft_in::table_id, fdb), 16);

	// Mistakes: the FDB is the manager's own; no TIR in an e-switch
	// table; no vport beyond the adapter; no ACL of vport 3.
	EXPECT_EQ(pf.exec(create_table(ftt::FDB, 1, 4), 16).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(set_entry(ftt::FDB, 0, fdb, g, 0, flow_ctx::ACT_FWD_DEST, dmac_value(kOtherMac),
				     {{dest::TIR, 1}}),
			  16)
			  .status,
		  status::BAD_PARAM);
	EXPECT_EQ(pf.exec(set_entry(ftt::FDB, 0, fdb, g, 0, flow_ctx::ACT_FWD_DEST, dmac_value(kOtherMac),
				     {{dest::VPORT, 3}}),
			  16)
			  .status,
		  status::BAD_PARAM);
	EXPECT_EQ(pf.exec(create_table(ftt::ESW_INGRESS_ACL, 3, 2), 16).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(create_table(ftt::NIC_TX, 0, 2), 16).status, status::BAD_PARAM);

	// VF 1's ingress ACL: allow its own source MAC, drop the rest.
	uint32_t acl = created_id(pf.ok(create_table(ftt::ESW_INGRESS_ACL, 1, 2), 16));
	EXPECT_NE(acl, fdb) << "table ids are unique on the adapter";
	steer::MatchParam smac{};
	bits::set(smac.data(), match::smac_47_16, 0xffffffff);
	bits::set(smac.data(), match::smac_15_0, 0xffff);
	uint32_t ga = created_id(pf.ok(create_group(ftt::ESW_INGRESS_ACL, 1, acl, 0, smac), 16));
	uint32_t gd = created_id(pf.ok(create_group(ftt::ESW_INGRESS_ACL, 1, acl, 1, steer::MatchParam{}), 16));
	steer::MatchParam own{};
	bits::set(own.data(), match::smac_47_16, bits::load_be32(kVfMac));
	bits::set(own.data(), match::smac_15_0, bits::load_be16(kVfMac + 4));
	pf.ok(set_entry(ftt::ESW_INGRESS_ACL, 1, acl, ga, 0, flow_ctx::ACT_ALLOW, own), 16);
	pf.ok(set_entry(ftt::ESW_INGRESS_ACL, 1, acl, gd, 1, flow_ctx::ACT_DROP, steer::MatchParam{}), 16);
	pf.ok(ft_msg(nic_op::SET_FLOW_TABLE_ROOT, 0x40, ftt::ESW_INGRESS_ACL, 1).set(ft_in::table_id, acl), 16);
	// Its tables are not the FDB's and not another vport's.
	EXPECT_EQ(pf.exec(ft_msg(nic_op::DESTROY_FLOW_TABLE, 0x40, ftt::ESW_INGRESS_ACL, 2).set(ft_in::table_id, acl),
			  16)
			  .status,
		  status::BAD_PARAM);

	auto lk = pf.fw().dp().lock();
	steer::Eswitch &esw = a->eswitch();
	auto walk = [&](uint8_t type, uint16_t vport, const uint8_t *dst, const uint8_t *s, uint16_t from) {
		auto f = frame(dst, s);
		return esw.tables(type, vport)->classify(
			steer::esw_match_image(steer::parse_headers(f.data(), f.size()), from), 64);
	};
	auto v = walk(ftt::FDB, 0, kVfMac, kOtherMac, 0xffff);
	ASSERT_EQ(v.vports.size(), 1u);
	EXPECT_EQ(v.vports[0], 1u);
	v = walk(ftt::FDB, 0, kOtherMac, kVfMac, 1);
	ASSERT_EQ(v.vports.size(), 1u);
	EXPECT_EQ(v.vports[0], dest::kUplinkVport) << "from VF 1 to an unknown MAC: the uplink";
	EXPECT_TRUE(walk(ftt::FDB, 0, kOtherMac, kVfMac, 2).vports.empty());
	v = walk(ftt::ESW_INGRESS_ACL, 1, kOtherMac, kVfMac, 1);
	EXPECT_TRUE(v.allowed && !v.dropped_by_rule);
	v = walk(ftt::ESW_INGRESS_ACL, 1, kOtherMac, kOtherMac, 1);
	EXPECT_TRUE(v.dropped_by_rule) << "a spoofed source MAC";
	const steer::Steering *other = esw.find(ftt::ESW_INGRESS_ACL, 2);
	EXPECT_TRUE(!other || other->tables() == 0) << "VF 2's ACLs are apart";
}

// The MPFS: one index per unicast address, within log_max_l2_table.
TEST(FwEsw, L2Table)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	auto entry = [](uint16_t opcode, uint32_t index, const uint8_t *mac) {
		Msg m(opcode, 0, l2_table::kSize);
		m.set(l2_table::table_index, index);
		if (mac)
			std::memcpy(m.b.data() + l2_table::kMac, mac, 6);
		return m;
	};
	pf.ok(entry(esw_op::SET_L2_TABLE_ENTRY, 0, kVfMac), 16);
	pf.ok(entry(esw_op::SET_L2_TABLE_ENTRY, 0, kVfMac), 16); // the same again: fine
	EXPECT_EQ(pf.exec(entry(esw_op::SET_L2_TABLE_ENTRY, 1, kVfMac), 16).status, status::BAD_PARAM);
	const uint8_t mc[6] = {0x01, 0, 0x5e, 0, 0, 1};
	EXPECT_EQ(pf.exec(entry(esw_op::SET_L2_TABLE_ENTRY, 2, mc), 16).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(entry(esw_op::SET_L2_TABLE_ENTRY, 1u << Adapter::kLogL2Table, kOtherMac), 16).status,
		  status::BAD_PARAM);
	pf.ok(entry(esw_op::SET_L2_TABLE_ENTRY, 5, kOtherMac), 16);
	{
		auto lk = pf.fw().dp().lock();
		EXPECT_TRUE(a->eswitch().mpfs_has(kVfMac));
		EXPECT_TRUE(a->eswitch().mpfs_has(kOtherMac));
	}
	pf.ok(entry(esw_op::DELETE_L2_TABLE_ENTRY, 0, nullptr), 16);
	EXPECT_EQ(pf.exec(entry(esw_op::DELETE_L2_TABLE_ENTRY, 0, nullptr), 16).status, status::BAD_PARAM);
	{
		auto lk = pf.fw().dp().lock();
		EXPECT_FALSE(a->eswitch().mpfs_has(kVfMac));
	}
	// The PF's reset takes its e-switch with it.
	pf.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	auto lk = pf.fw().dp().lock();
	EXPECT_TRUE(a->eswitch().l2().empty());
}

// VST through the esw vport context: strip + insert-if-none with VLAN and
// priority, read back, and taken into VF 1's vport record (its data path's
// VST); cleared with both off. S-VLAN and insert-always are not advertised.
TEST(FwEsw, EswVportContext)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	auto modify = [](uint16_t vport, uint32_t sel, bool strip, uint32_t insert, uint16_t vid, uint8_t pcp) {
		Msg m(esw_op::MODIFY_ESW_VPORT_CONTEXT, 0, ev::kAt + ev::kSize);
		m.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport).set(ev::field_select, sel);
		m.set(ev::vport_cvlan_strip.at(ev::kAt), strip).set(ev::vport_cvlan_insert.at(ev::kAt), insert);
		m.set(ev::cvlan_id.at(ev::kAt), vid).set(ev::cvlan_pcp.at(ev::kAt), pcp);
		return m;
	};
	auto query = [&](uint16_t vport) {
		Msg m(esw_op::QUERY_ESW_VPORT_CONTEXT, 0, 16);
		m.set(vport_in::other_vport, 1).set(vport_in::vport_number, vport);
		auto out = pf.ok(m, ev::kAt + ev::kSize);
		return std::vector<uint8_t>(out.begin() + ev::kAt, out.end());
	};
	constexpr uint32_t kBoth = ev::SEL_CVLAN_STRIP | ev::SEL_CVLAN_INSERT;
	pf.ok(modify(1, kBoth, true, ev::INSERT_WHEN_NO_CVLAN, 100, 3), 16);
	auto q = query(1);
	EXPECT_EQ(field(q, ev::vport_cvlan_strip), 1u);
	EXPECT_EQ(field(q, ev::vport_cvlan_insert), ev::INSERT_WHEN_NO_CVLAN);
	EXPECT_EQ(field(q, ev::cvlan_id), 100u);
	EXPECT_EQ(field(q, ev::cvlan_pcp), 3u);
	EXPECT_EQ(a->vport(1).vst_vlan, 100u);
	EXPECT_EQ(a->vport(1).vst_qos, 3u);
	EXPECT_EQ(field(query(2), ev::cvlan_id), 0u) << "VF 2 untouched";

	EXPECT_EQ(pf.exec(modify(1, kBoth, true, ev::INSERT_ALWAYS, 100, 0), 16).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(modify(1, ev::SEL_SVLAN_STRIP, false, 0, 0, 0), 16).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(modify(3, kBoth, false, 0, 0, 0), 16).status, status::BAD_PARAM) << "no VF 3";
	EXPECT_EQ(a->vport(1).vst_vlan, 100u) << "a refused command changes nothing";

	pf.ok(modify(1, kBoth, false, ev::INSERT_NONE, 0, 0), 16);
	EXPECT_EQ(field(query(1), ev::cvlan_id), 0u);
	EXPECT_EQ(a->vport(1).vst_vlan, 0u);
}

// A VF is no e-switch manager: the commands and table types fail BAD_OP at
// once; a PF without VFs neither.
namespace se = sched_elem;

// CREATE_SCHEDULING_ELEMENT of the E_SWITCH hierarchy, as the in-tree PF
// sends it: `type`, its parent, maximum (Mb/s) and share; a VPORT element
// names its vport.
Msg create_sched(uint8_t type, uint32_t parent, uint32_t max, uint32_t share, uint16_t vport = 0)
{
	Msg m(sched_op::CREATE_SCHEDULING_ELEMENT, 0, se::kInSize);
	m.set(se::scheduling_hierarchy, se::HIERARCHY_E_SWITCH);
	m.set(se::element_type.at(se::kCtxAt), type).set(se::parent_element_id.at(se::kCtxAt), parent);
	m.set(se::max_average_bw.at(se::kCtxAt), max).set(se::bw_share.at(se::kCtxAt), share);
	if (type == se::TYPE_VPORT)
		m.set(se::vport_number.at(se::kCtxAt), vport);
	else
		m.set(se::tsar_type.at(se::kCtxAt), se::TSAR_DWRR);
	return m;
}

Msg sched_msg(uint16_t op, uint32_t id, size_t size = se::kDestroyInSize)
{
	Msg m(op, 0, size);
	return m.set(se::scheduling_hierarchy, se::HIERARCHY_E_SWITCH).set(se::scheduling_element_id, id);
}

// `ip link set <pf> vf 0 max_tx_rate 300 min_tx_rate 50` on the in-tree
// PF: a root TSAR, VF 0's VPORT element under it, modified;
// the vport's rate follows; refusals; the PF's reset clears them.
TEST(FwEsw, SchedulingElementsSetVportRates)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	uint32_t share = field(caps_of(pf, cap_type_qos::QOS), esw_qos_caps::max_tsar_bw_share);

	auto root_out = pf.ok(create_sched(se::TYPE_TSAR, 0, 0, 0), se::kCreateOutSize);
	uint32_t root = field(root_out, se::out_element_id);
	EXPECT_NE(root, 0u);
	auto vp_out = pf.ok(create_sched(se::TYPE_VPORT, root, 300, 0, 1), se::kCreateOutSize);
	uint32_t vp = field(vp_out, se::out_element_id);
	EXPECT_NE(vp, root);
	{
		auto lk = pf.fw().dp().lock();
		EXPECT_EQ(a->eswitch().qos().vport_rate(1), 300u);
		EXPECT_EQ(a->eswitch().qos().vport_rate(2), 0u);
	}
	Msg mod = sched_msg(sched_op::MODIFY_SCHEDULING_ELEMENT, vp, se::kInSize);
	mod.set(se::modify_bitmask, se::MODIFY_MAX_AVERAGE_BW | se::MODIFY_BW_SHARE);
	mod.set(se::max_average_bw.at(se::kCtxAt), 100).set(se::bw_share.at(se::kCtxAt), share);
	pf.ok(mod, 16);
	auto got = pf.ok(sched_msg(sched_op::QUERY_SCHEDULING_ELEMENT, vp), se::kInSize);
	EXPECT_EQ(field(got, se::element_type.at(se::kCtxAt)), uint32_t(se::TYPE_VPORT));
	EXPECT_EQ(field(got, se::vport_number.at(se::kCtxAt)), 1u);
	EXPECT_EQ(field(got, se::parent_element_id.at(se::kCtxAt)), root);
	EXPECT_EQ(field(got, se::max_average_bw.at(se::kCtxAt)), 100u);
	EXPECT_EQ(field(got, se::bw_share.at(se::kCtxAt)), share);
	{
		auto lk = pf.fw().dp().lock();
		EXPECT_EQ(a->eswitch().qos().vport_rate(1), 100u);
	}
	bool listed = false;
	for (const std::string &l : pf.fw().esw_lines())
		listed |= l.find("vport 1 tx_rate_mbps 100") != std::string::npos;
	EXPECT_TRUE(listed) << "hca N esw shows the rate";

	// Refused: another hierarchy, a share above the cap, a vport under
	// no TSAR, a TSAR with a child, an unknown element.
	Msg nic = create_sched(se::TYPE_TSAR, 0, 0, 0);
	nic.set(se::scheduling_hierarchy, 0);
	EXPECT_EQ(pf.exec(nic, se::kCreateOutSize).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(create_sched(se::TYPE_VPORT, root, 0, share + 1, 2), se::kCreateOutSize).status,
		  status::BAD_PARAM);
	EXPECT_EQ(pf.exec(create_sched(se::TYPE_VPORT, 0, 10, 0, 2), se::kCreateOutSize).status, status::BAD_PARAM);
	EXPECT_EQ(pf.exec(sched_msg(sched_op::DESTROY_SCHEDULING_ELEMENT, root), 16).status, status::BAD_RES_STATE);
	EXPECT_EQ(pf.exec(sched_msg(sched_op::QUERY_SCHEDULING_ELEMENT, 0x777), se::kInSize).status,
		  status::BAD_PARAM);

	// The in-tree PF's teardown order: the vport, then the root.
	pf.ok(sched_msg(sched_op::DESTROY_SCHEDULING_ELEMENT, vp), 16);
	{
		auto lk = pf.fw().dp().lock();
		EXPECT_EQ(a->eswitch().qos().vport_rate(1), 0u);
	}
	pf.ok(sched_msg(sched_op::DESTROY_SCHEDULING_ELEMENT, root), 16);

	// The PF's reset takes its e-switch's elements with it.
	uint32_t again = field(pf.ok(create_sched(se::TYPE_TSAR, 0, 0, 0), se::kCreateOutSize), se::out_element_id);
	pf.ok(create_sched(se::TYPE_VPORT, again, 10, 0, 2), se::kCreateOutSize);
	pf.ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	auto lk = pf.fw().dp().lock();
	EXPECT_TRUE(a->eswitch().qos().elements().empty());
	EXPECT_EQ(a->eswitch().qos().vport_rate(2), 0u);
}

TEST(FwEsw, RefusedOffTheManager)
{
	auto a = std::make_shared<Adapter>(2, true);
	FwHarness pf(pf_config(a));
	pf.bring_up();
	FwHarness vf(vf_config(a, 0));
	pf.ok(Msg(op::ENABLE_HCA, 0, 16).set(enable_hca_in::function_id, 1), 16);
	a->sriov_control(2, true, true);
	ASSERT_TRUE(poll_for([&] { return !(vf.rd32(0x1fc) >> 31); }));
	ASSERT_TRUE(vf.idle());
	vf.init_cmdq();
	vf.bring_up();
	FwHarness alone(pf_config(nullptr));
	alone.bring_up();
	for (FwHarness *h : {&vf, &alone}) {
		EXPECT_EQ(h->exec(create_table(ftt::FDB, 0, 2), 16).status, status::BAD_OP);
		EXPECT_EQ(h->exec(create_table(ftt::ESW_EGRESS_ACL, 0, 2), 16).status, status::BAD_OP);
		EXPECT_EQ(h->exec(Msg(esw_op::SET_L2_TABLE_ENTRY, 0, l2_table::kSize), 16).status, status::BAD_OP);
		EXPECT_EQ(h->exec(Msg(esw_op::MODIFY_ESW_VPORT_CONTEXT, 0, ev::kAt + ev::kSize), 16).status,
			  status::BAD_OP);
		EXPECT_EQ(h->exec(Msg(esw_op::QUERY_ESW_VPORT_CONTEXT, 0, 16), ev::kAt + ev::kSize).status,
			  status::BAD_OP);
		EXPECT_EQ(h->exec(create_sched(se::TYPE_TSAR, 0, 0, 0), se::kCreateOutSize).status, status::BAD_OP);
		EXPECT_EQ(h->exec(sched_msg(sched_op::DESTROY_SCHEDULING_ELEMENT, 1), 16).status, status::BAD_OP);
	}
	EXPECT_GT(vf.fw().refusals.vf_refused, 0u);
	// The NIC receive tables stay every function's own.
	vf.ok(create_table(ftt::NIC_RX, 0, 2), 16);
}

} // namespace
} // namespace mlx5emu::test
