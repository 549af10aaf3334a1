// SPDX-License-Identifier: GPL-2.0
// Vport and port queries: QUERY_VPORT_STATE, QUERY/MODIFY_HCA_VPORT_CONTEXT
// (a function's own vport: its capability mask within what it may change),
// QUERY_HCA_VPORT_GID/PKEY and MAD_IFC (mad.cc); the NIC vport context is in
// cmd_nic_vport.cc.
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "fw/mad.h"
#include "prm/eth.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

// Only our own vport of our only port can be queried.
bool own_vport_port(CmdCtx &c, bool has_port)
{
	if (!own_vport(c, 1))
		return false;
	if (has_port && c.get(vport_in::port_num) > 1) {
		c.fail(status::BAD_PARAM, 2);
		return false;
	}
	return true;
}

// The entries a table query asks for: `index` 0xffff is the whole table
// of `len`, each entry `size` bytes from `at` in the output. False, with
// the command failed, beyond the table or the output.
bool table_entries(CmdCtx &c, unsigned len, uint32_t index, unsigned at, unsigned size, unsigned *first,
		   unsigned *count)
{
	*first = index == 0xffff ? 0 : index;
	*count = index == 0xffff ? len : 1;
	if (*first >= len) {
		c.fail(status::BAD_PARAM, 3);
		return false;
	}
	if (at + static_cast<uint64_t>(size) * *count > c.outlen) {
		c.fail(status::BAD_OUTPUT_LEN, 4);
		return false;
	}
	return true;
}

// The vport of a command that a manager may send for a VF's vport (with
// its port: port 1 only); -1 with the command failed otherwise.
int target_vport_port(CmdCtx &c)
{
	int vport = target_vport(c, 1);
	if (vport >= 0 && c.get(vport_in::port_num) > 1) {
		c.fail(status::BAD_PARAM, 2);
		return -1;
	}
	return vport;
}

void query_vport_state(CmdCtx &c)
{
	int vport = target_vport(c, 1);
	if (vport < 0)
		return;
	if (vport > 0) {
		// A VF's vport (op_mod VNIC or ESW_VPORT): its manager's admin
		// state and the state its function reports.
		if (c.op_mod > vport_state::OPMOD_ESW_VPORT)
			return c.fail(status::BAD_PARAM, 2);
		VportRecord r = c.fw.cfg.adapter->vport(static_cast<uint16_t>(vport));
		bool up = c.fw.is_eth() ? r.oper_up : r.ib_state == mad::PORT_ACTIVE;
		c.put(query_vport_state_out::admin_state, static_cast<uint32_t>(r.admin));
		c.put(query_vport_state_out::state, up ? query_vport_state_out::STATE_UP : 0);
		return;
	}
	if (c.fw.is_eth()) {
		// The port (PAOS, the cable) and the vport's admin state, which
		// its manager sets (MODIFY_VPORT_STATE, a VF's host side).
		const EthPort &e = c.fw.eth;
		c.put(query_vport_state_out::admin_state, static_cast<uint32_t>(e.vport_admin));
		c.put(query_vport_state_out::state, e.oper_up() ? query_vport_state_out::STATE_UP : 0);
		return;
	}
	c.put(query_vport_state_out::admin_state, c.fw.cfg.is_vf() ? static_cast<uint32_t>(c.fw.ib_vport_admin)
							    : uint32_t{query_vport_state_out::STATE_UP});
	c.put(query_vport_state_out::state,
	      c.fw.ib_vport_state() == mad::PORT_ACTIVE ? query_vport_state_out::STATE_UP : 0);
}

// The manager's view of VF n's HCA vport: its GUIDs and state as the VF
// reports them, the policy the manager set, the PF's port (one physical
// port: LID, SM) and no SMI.
void query_other_hca_vport(CmdCtx &c, uint16_t n)
{
	namespace hv = hca_vport_context;
	VportRecord r = c.fw.cfg.adapter->vport(n);
	const PortAttrs &p = c.fw.port();
	uint8_t *ctx = c.out + hv::kAt;
	bits::set(ctx, hv::has_smi, 0);
	bits::set(ctx, hv::port_physical_state, mad::PHYS_LINK_UP);
	bits::set(ctx, hv::port_state, p.state);
	bits::set(ctx, hv::vport_state, r.ib_state);
	bits::set(ctx, hv::vport_state_policy, static_cast<uint32_t>(r.admin));
	bits::store_be64(ctx + hv::kSystemImageGuid, p.system_image_guid);
	bits::store_be64(ctx + hv::kPortGuid, r.cur_port_guid);
	bits::store_be64(ctx + hv::kNodeGuid, r.cur_node_guid);
	bits::set(ctx, hv::lid, p.lid);
	bits::set(ctx, hv::lmc, p.lmc);
	bits::set(ctx, hv::subnet_timeout, p.subnet_timeout);
	bits::set(ctx, hv::sm_lid, p.sm_lid);
	bits::set(ctx, hv::sm_sl, p.sm_sl);
}

void query_hca_vport_context(CmdCtx &c)
{
	namespace hv = hca_vport_context;
	int vport = target_vport_port(c);
	if (vport < 0)
		return;
	if (vport > 0)
		return query_other_hca_vport(c, static_cast<uint16_t>(vport));
	const PortAttrs &p = c.fw.port();
	uint8_t *ctx = c.out + hv::kAt;
	bits::set(ctx, hv::has_smi, c.fw.has_smi());
	bits::set(ctx, hv::port_physical_state, mad::PHYS_LINK_UP);
	bits::set(ctx, hv::port_state, p.state);
	bits::set(ctx, hv::vport_state, c.fw.ib_vport_state());
	bits::set(ctx, hv::vport_state_policy, static_cast<uint32_t>(c.fw.ib_vport_admin));
	bits::store_be64(ctx + hv::kSystemImageGuid, p.system_image_guid);
	bits::store_be64(ctx + hv::kPortGuid, p.port_guid);
	bits::store_be64(ctx + hv::kNodeGuid, p.node_guid);
	bits::set(ctx, hv::cap_mask1, p.cap_mask);
	bits::set(ctx, hv::cap_mask1_field_select, kVportCapMaskChangeable);
	bits::set(ctx, hv::lid, p.lid);
	bits::set(ctx, hv::lmc, p.lmc);
	bits::set(ctx, hv::subnet_timeout, p.subnet_timeout);
	bits::set(ctx, hv::sm_lid, p.sm_lid);
	bits::set(ctx, hv::sm_sl, p.sm_sl);
}

// A function sets the capability mask bits of its vport it may change
// (ib_cm's IsCM); its GUIDs and its state policy are its manager's.
// The manager sets VF n's GUIDs and state policy (the in-tree
// set_vf_guid, set_vf_link_state and the GUIDs restored at SR-IOV enable);
// the VF learns them (an action on its engine). Nothing else.
void modify_other_hca_vport(CmdCtx &c, uint16_t n)
{
	namespace hv = hca_vport_context;
	const uint8_t *ctx = c.in + modify_hca_vport_context_in::kContext;
	uint32_t sel = bits::get(ctx, hv::field_select);
	if (sel & ~(hv::SEL_PORT_GUID | hv::SEL_NODE_GUID | hv::SEL_STATE_POLICY) ||
	    bits::get(ctx, hv::cap_mask1_field_select))
		return c.fail(status::BAD_PARAM, 5);
	uint32_t policy = bits::get(ctx, hv::vport_state_policy);
	if (sel & hv::SEL_STATE_POLICY && policy > static_cast<uint32_t>(VportAdmin::Auto))
		return c.fail(status::BAD_PARAM, 7);
	uint64_t node = bits::load_be64(ctx + hv::kNodeGuid);
	uint64_t port = bits::load_be64(ctx + hv::kPortGuid);
	c.fw.cfg.adapter->set_vport(
		n,
		[&](VportRecord &r) {
			if (sel & hv::SEL_NODE_GUID)
				r.node_guid = node;
			if (sel & hv::SEL_PORT_GUID)
				r.port_guid = port;
			if (sel & hv::SEL_STATE_POLICY)
				r.admin = static_cast<VportAdmin>(policy);
		},
		&c.fw);
}

void modify_hca_vport_context(CmdCtx &c)
{
	namespace hv = hca_vport_context;
	int vport = target_vport_port(c);
	if (vport < 0)
		return;
	if (vport > 0)
		return modify_other_hca_vport(c, static_cast<uint16_t>(vport));
	const uint8_t *ctx = c.in + modify_hca_vport_context_in::kContext;
	if (bits::get(ctx, hv::field_select))
		return c.fail(status::BAD_PARAM, 5);
	uint32_t sel = bits::get(ctx, hv::cap_mask1_field_select);
	if (sel & ~kVportCapMaskChangeable)
		return c.fail(status::BAD_PARAM, 6);
	PortAttrs &p = c.fw.port();
	p.cap_mask = (p.cap_mask & ~sel) | (bits::get(ctx, hv::cap_mask1) & sel);
}

void query_hca_vport_gid(CmdCtx &c)
{
	namespace qg = query_hca_vport_gid;
	if (!own_vport_port(c, true))
		return;
	unsigned first, count;
	if (!table_entries(c, c.fw.caps.gid_table_len(), c.get(qg::gid_index), qg::kGids, 16, &first, &count))
		return;
	const PortAttrs &p = c.fw.port();
	// GID[i] = the subnet prefix + GUID[i] (the port GUID, then the
	// alias GUIDs an SM set through GUIDInfo); unset entries are zero.
	for (unsigned i = 0; i < count; ++i) {
		uint64_t guid = first + i < p.guids.size() ? p.guids[first + i] : 0;
		if (guid) {
			bits::store_be64(c.out + qg::kGids + 16 * i, p.gid_prefix);
			bits::store_be64(c.out + qg::kGids + 16 * i + 8, guid);
		}
	}
	c.put(qg::gids_num, count);
}

void query_hca_vport_pkey(CmdCtx &c)
{
	namespace qp = query_hca_vport_pkey;
	if (!own_vport_port(c, true))
		return;
	unsigned first, count;
	if (!table_entries(c, c.fw.caps.pkey_table_len(), c.get(qp::pkey_index), qp::kPkeys, 4, &first, &count))
		return;
	const PortAttrs &p = c.fw.port();
	for (unsigned i = 0; i < count && first + i < p.pkeys.size(); ++i)
		bits::store_be32(c.out + qp::kPkeys + 4 * i, p.pkeys[first + i]);
}

constexpr CmdSpec kCommands[] = {
	{op::QUERY_VPORT_STATE, query_vport_state, 16, 16, Need::Initialized},
	{op::QUERY_HCA_VPORT_CONTEXT, query_hca_vport_context, 16, hca_vport_context::kOutSize, Need::Initialized},
	{op::MODIFY_HCA_VPORT_CONTEXT, modify_hca_vport_context, modify_hca_vport_context_in::kSize, 16,
	 Need::Initialized},
	{op::QUERY_HCA_VPORT_GID, query_hca_vport_gid, 16, 16, Need::Initialized},
	{op::QUERY_HCA_VPORT_PKEY, query_hca_vport_pkey, 16, 16, Need::Initialized},
	{op::MAD_IFC, mad_ifc, mad_ifc_in::kSize, mad_ifc_in::kSize, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> vport_commands() { return kCommands; }

} // namespace mlx5emu
