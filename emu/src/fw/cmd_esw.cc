// SPDX-License-Identifier: GPL-2.0
// The e-switch manager's commands of the legacy e-switch (the adapter's
// steer::Eswitch; its FDB and ACL tables are flow tables, cmd_flow_table.cc):
// QUERY/MODIFY_ESW_VPORT_CONTEXT (a vport's C-VLAN strip and insert: VST),
// SET/DELETE_L2_TABLE_ENTRY (the MPFS, the unicast MACs the uplink takes
// in) and CREATE/MODIFY/QUERY/DESTROY_SCHEDULING_ELEMENT of the E_SWITCH
// hierarchy (vport rates, steer/esw_qos.h). Never a VF's (Who::Manager); a
// PF without VFs is no e-switch manager either.
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/eth.h"
#include "prm/prm.h"
#include "prm/qos.h"

namespace mlx5emu {

namespace {

using namespace prm;
namespace ev = esw_vport;

enum Reason : uint32_t {
	kNotManager = 1,
	kVport = 2,
	kUnsupported = 3,
	kInsert = 4,
	kNoElement = 5,
};

// The adapter's e-switch, when this function manages it.
steer::Eswitch *eswitch(CmdCtx &c)
{
	if (!c.fw.caps.gen(cmd_hca_cap::eswitch_manager) || !c.fw.cfg.adapter) {
		c.fail(status::BAD_OP, kNotManager);
		return nullptr;
	}
	return &c.fw.cfg.adapter->eswitch();
}

void query_esw_vport_context(CmdCtx &c)
{
	steer::Eswitch *esw = eswitch(c);
	int n = esw ? target_vport(c, kVport) : -1;
	if (n < 0)
		return;
	steer::EswVportCtx x;
	{
		auto lk = c.fw.dp().lock();
		x = esw->vport_ctx_of(static_cast<uint16_t>(n));
	}
	uint8_t *o = c.out + ev::kAt;
	bits::set(o, ev::vport_cvlan_strip, x.cvlan_strip);
	bits::set(o, ev::vport_cvlan_insert, x.cvlan_insert);
	bits::set(o, ev::cvlan_id, x.cvlan_id);
	bits::set(o, ev::cvlan_pcp, x.cvlan_pcp);
	bits::set(o, ev::cvlan_cfi, x.cvlan_cfi);
}

// VST of a vport as the in-tree and our PF set it: strip on its receive,
// insert-if-none on its transmit, with the VLAN ID and priority (both off
// and 0 clears it). The vport's record takes the VLAN too (the VF's data
// path applies it, as the control channel's `hca N vport vlan` does).
void modify_esw_vport_context(CmdCtx &c)
{
	steer::Eswitch *esw = eswitch(c);
	int n = esw ? target_vport(c, kVport) : -1;
	if (n < 0)
		return;
	uint32_t sel = c.get(ev::field_select);
	if (sel & ~uint32_t(ev::SEL_CVLAN_STRIP | ev::SEL_CVLAN_INSERT))
		return c.fail(status::BAD_PARAM, kUnsupported); // S-VLAN, metadata: not advertised
	const uint8_t *x = c.in + ev::kAt;
	if (bits::get(x, ev::vport_svlan_strip) || bits::get(x, ev::vport_svlan_insert))
		return c.fail(status::BAD_PARAM, kUnsupported);
	uint32_t insert = bits::get(x, ev::vport_cvlan_insert);
	if ((sel & ev::SEL_CVLAN_INSERT) && insert != ev::INSERT_NONE && insert != ev::INSERT_WHEN_NO_CVLAN)
		return c.fail(status::BAD_PARAM, kInsert); // only vport_cvlan_insert_if_not_exist
	uint16_t vid = static_cast<uint16_t>(bits::get(x, ev::cvlan_id));
	auto vport = static_cast<uint16_t>(n);
	steer::EswVportCtx now;
	{
		auto lk = c.fw.dp().lock();
		steer::EswVportCtx &v = esw->vport_ctx(vport);
		if (sel & ev::SEL_CVLAN_STRIP)
			v.cvlan_strip = bits::get(x, ev::vport_cvlan_strip);
		if (sel & ev::SEL_CVLAN_INSERT) {
			v.cvlan_insert = static_cast<uint8_t>(insert);
			v.cvlan_id = insert ? vid : 0;
			v.cvlan_pcp = insert ? static_cast<uint8_t>(bits::get(x, ev::cvlan_pcp)) : 0;
			v.cvlan_cfi = insert && bits::get(x, ev::cvlan_cfi);
		}
		now = v;
	}
	if (vport == 0)
		return; // the manager's own vport: its driver tags its own frames
	bool vst = now.cvlan_insert && now.cvlan_strip && now.cvlan_id; // VLAN 0: priority tags, not modelled
	c.fw.cfg.adapter->set_vport(
		vport,
		[&](VportRecord &r) {
			r.vst_vlan = vst ? now.cvlan_id : 0;
			r.vst_qos = vst ? now.cvlan_pcp : 0;
		},
		&c.fw);
}

void set_l2_table_entry(CmdCtx &c)
{
	steer::Eswitch *esw = eswitch(c);
	if (!esw)
		return;
	if (c.get(l2_table::silent_mode_valid) && c.get(l2_table::silent_mode))
		return c.fail(status::BAD_PARAM, kUnsupported); // silent mode: no loopback to model
	steer::L2Entry e;
	std::memcpy(e.mac.data(), c.in + l2_table::kMac, 6);
	e.vlan_valid = c.get(l2_table::vlan_valid);
	e.vlan = static_cast<uint16_t>(c.get(l2_table::vlan));
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	if (uint8_t st = esw->set_l2(c.get(l2_table::table_index), e, &reason))
		c.fail(st, 0x100 | reason);
}

void delete_l2_table_entry(CmdCtx &c)
{
	steer::Eswitch *esw = eswitch(c);
	if (!esw)
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	if (uint8_t st = esw->delete_l2(c.get(l2_table::table_index), &reason))
		c.fail(st, 0x100 | reason);
}

// The e-switch's scheduling elements (`ip link set <pf> vf N max_tx_rate
// M min_tx_rate m`: the in-tree PF's root TSAR, then a VPORT element per
// VF whose maximum and share it modifies). Only the E_SWITCH hierarchy,
// TSARs of type DWRR and VPORT elements: what the QOS caps advertise.
namespace se = sched_elem;

uint32_t max_bw_share(CmdCtx &c)
{
	const Caps::Block *q = c.fw.caps.cur(cap_type_qos::QOS);
	return q ? bits::get(q->data(), esw_qos_caps::max_tsar_bw_share) : 0;
}

steer::Eswitch *sched_eswitch(CmdCtx &c)
{
	steer::Eswitch *esw = eswitch(c);
	if (esw && c.get(se::scheduling_hierarchy) != se::HIERARCHY_E_SWITCH) {
		c.fail(status::BAD_PARAM, kUnsupported); // the NIC hierarchy is not advertised
		return nullptr;
	}
	return esw;
}

void create_scheduling_element(CmdCtx &c)
{
	steer::Eswitch *esw = sched_eswitch(c);
	if (!esw)
		return;
	const uint8_t *x = c.in + se::kCtxAt;
	steer::SchedElement e;
	e.type = static_cast<uint8_t>(bits::get(x, se::element_type));
	if (e.type == se::TYPE_TSAR && bits::get(x, se::tsar_type) != se::TSAR_DWRR)
		return c.fail(status::BAD_PARAM, kUnsupported);
	if (e.type == se::TYPE_VPORT)
		e.vport = static_cast<uint16_t>(bits::get(x, se::vport_number));
	if (bits::get(x, se::max_bw_obj_id))
		return c.fail(status::BAD_PARAM, kUnsupported); // no rate-limit elements
	e.parent = bits::get(x, se::parent_element_id);
	e.bw_share = bits::get(x, se::bw_share);
	e.max_average_bw = bits::get(x, se::max_average_bw);
	uint32_t share = max_bw_share(c), id = 0, reason = 0;
	auto lk = c.fw.dp().lock();
	if (uint8_t st = esw->qos().create(e, share, &id, &reason))
		return c.fail(st, reason);
	bits::set(c.out, se::out_element_id, id);
}

void modify_scheduling_element(CmdCtx &c)
{
	steer::Eswitch *esw = sched_eswitch(c);
	if (!esw)
		return;
	const uint8_t *x = c.in + se::kCtxAt;
	uint32_t share = max_bw_share(c), reason = 0;
	auto lk = c.fw.dp().lock();
	if (uint8_t st = esw->qos().modify(c.get(se::scheduling_element_id), c.get(se::modify_bitmask),
					   bits::get(x, se::bw_share), bits::get(x, se::max_average_bw), share,
					   &reason))
		c.fail(st, reason);
}

void query_scheduling_element(CmdCtx &c)
{
	steer::Eswitch *esw = sched_eswitch(c);
	if (!esw)
		return;
	auto lk = c.fw.dp().lock();
	const steer::SchedElement *e = esw->qos().find(c.get(se::scheduling_element_id));
	if (!e)
		return c.fail(status::BAD_PARAM, kNoElement);
	uint8_t *o = c.out + se::kCtxAt;
	bits::set(o, se::element_type, e->type);
	if (e->type == se::TYPE_VPORT)
		bits::set(o, se::vport_number, e->vport);
	bits::set(o, se::parent_element_id, e->parent);
	bits::set(o, se::bw_share, e->bw_share);
	bits::set(o, se::max_average_bw, e->max_average_bw);
}

void destroy_scheduling_element(CmdCtx &c)
{
	steer::Eswitch *esw = sched_eswitch(c);
	if (!esw)
		return;
	uint32_t reason = 0;
	auto lk = c.fw.dp().lock();
	if (uint8_t st = esw->qos().destroy(c.get(se::scheduling_element_id), &reason))
		c.fail(st, reason);
}

constexpr uint32_t kOut = hdr_out::kMinLen;

constexpr CmdSpec kCommands[] = {
	{esw_op::QUERY_ESW_VPORT_CONTEXT, query_esw_vport_context, 16, ev::kAt + ev::kSize, Need::EthInitialized,
	 Who::Manager},
	{esw_op::MODIFY_ESW_VPORT_CONTEXT, modify_esw_vport_context, ev::kAt + ev::kSize, kOut,
	 Need::EthInitialized, Who::Manager},
	{esw_op::SET_L2_TABLE_ENTRY, set_l2_table_entry, l2_table::kSize, kOut, Need::EthInitialized, Who::Manager},
	{esw_op::DELETE_L2_TABLE_ENTRY, delete_l2_table_entry, l2_table::kSize, kOut, Need::EthInitialized,
	 Who::Manager},
	{sched_op::CREATE_SCHEDULING_ELEMENT, create_scheduling_element, se::kInSize, se::kCreateOutSize,
	 Need::EthInitialized, Who::Manager},
	{sched_op::MODIFY_SCHEDULING_ELEMENT, modify_scheduling_element, se::kInSize, kOut, Need::EthInitialized,
	 Who::Manager},
	{sched_op::QUERY_SCHEDULING_ELEMENT, query_scheduling_element, se::kDestroyInSize, se::kInSize,
	 Need::EthInitialized, Who::Manager},
	{sched_op::DESTROY_SCHEDULING_ELEMENT, destroy_scheduling_element, se::kDestroyInSize, kOut,
	 Need::EthInitialized, Who::Manager},
};

} // namespace

std::span<const CmdSpec> esw_commands() { return kCommands; }

} // namespace mlx5emu
