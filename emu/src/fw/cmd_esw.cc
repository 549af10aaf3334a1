// SPDX-License-Identifier: GPL-2.0
// The e-switch manager's commands of the legacy e-switch (the adapter's
// steer::Eswitch; its FDB and ACL tables are flow tables, cmd_flow_table.cc):
// QUERY/MODIFY_ESW_VPORT_CONTEXT (a vport's C-VLAN strip and insert: VST)
// and SET/DELETE_L2_TABLE_ENTRY (the MPFS, the unicast MACs the uplink
// takes in). Never a VF's (Who::Manager); a PF without VFs is no e-switch
// manager either.
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/eth.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;
namespace ev = esw_vport;

enum Reason : uint32_t {
	kNotManager = 1,
	kVport = 2,
	kUnsupported = 3,
	kInsert = 4,
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

constexpr uint32_t kOut = hdr_out::kMinLen;

constexpr CmdSpec kCommands[] = {
	{esw_op::QUERY_ESW_VPORT_CONTEXT, query_esw_vport_context, 16, ev::kAt + ev::kSize, Need::EthInitialized,
	 Who::Manager},
	{esw_op::MODIFY_ESW_VPORT_CONTEXT, modify_esw_vport_context, ev::kAt + ev::kSize, kOut,
	 Need::EthInitialized, Who::Manager},
	{esw_op::SET_L2_TABLE_ENTRY, set_l2_table_entry, l2_table::kSize, kOut, Need::EthInitialized, Who::Manager},
	{esw_op::DELETE_L2_TABLE_ENTRY, delete_l2_table_entry, l2_table::kSize, kOut, Need::EthInitialized,
	 Who::Manager},
};

} // namespace

std::span<const CmdSpec> esw_commands() { return kCommands; }

} // namespace mlx5emu
