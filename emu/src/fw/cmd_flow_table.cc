// SPDX-License-Identifier: GPL-2.0
// Flow steering commands of an Ethernet function: NIC receive flow tables,
// groups, entries, the root table and flow counters (steer/flow_table.h
// holds them, steer/match.h matches on them); on the e-switch manager also
// the adapter's FDB and vport ACL tables (steer/eswitch.h).
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/eth.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kVport = 2,
	kTableType = 3,
	kUnsupported = 4,
	kSize = 6,
	kInlen = 7,
	kDests = 8,
	kOutlen = 9,
	kNoCounter = 10,
	kNotManager = 11,
};

// The tables a command names: the function's own NIC receive tables, or,
// on the e-switch manager, the adapter's FDB (its own vport) or a vport's
// ingress/egress ACL (other_vport: a VF's). No NIC transmit tables.
struct Target {
	uint8_t type = flow_table_type::NIC_RX;
	uint16_t vport = 0;
};

bool target(CmdCtx &c, Target *t)
{
	uint8_t type = static_cast<uint8_t>(c.get(ft_in::table_type));
	if (type == flow_table_type::NIC_RX) {
		if (!own_vport(c, kVport))
			return false;
		*t = Target{};
		return true;
	}
	if (type != flow_table_type::FDB && type != flow_table_type::ESW_INGRESS_ACL &&
	    type != flow_table_type::ESW_EGRESS_ACL) {
		c.fail(status::BAD_PARAM, kTableType);
		return false;
	}
	// A VF or a PF without VFs is no e-switch manager (caps.cc): the
	// table types are not advertised to it.
	if (!c.fw.caps.gen(cmd_hca_cap::eswitch_manager) || !c.fw.cfg.adapter) {
		if (c.fw.cfg.is_vf())
			++c.fw.refusals.vf_refused;
		c.fail(status::BAD_OP, kNotManager);
		return false;
	}
	int v = target_vport(c, kVport);
	if (v < 0)
		return false;
	if (type == flow_table_type::FDB && v != 0) {
		c.fail(status::BAD_PARAM, kVport);
		return false;
	}
	t->type = type;
	t->vport = static_cast<uint16_t>(v);
	return true;
}

// The flow_table_prop_layout of the target's table type.
const uint8_t *props(CmdCtx &c, const Target &t)
{
	switch (t.type) {
	case flow_table_type::NIC_RX:
		return c.fw.caps.max(cap_type_eth::FLOW_TABLE)->data() + ft_caps::kNicRx;
	case flow_table_type::FDB:
		return c.fw.caps.max(cap_type_eth::ESWITCH_FLOW_TABLE)->data() + esw_ft_caps::kFdb;
	case flow_table_type::ESW_INGRESS_ACL:
		return c.fw.caps.max(cap_type_eth::ESWITCH_FLOW_TABLE)->data() + esw_ft_caps::kIngressAcl;
	default:
		return c.fw.caps.max(cap_type_eth::ESWITCH_FLOW_TABLE)->data() + esw_ft_caps::kEgressAcl;
	}
}

steer::Steering &steering(CmdCtx &c) { return c.fw.dp().res().steering; }

// The target's tables (the state lock held). target() checked the type
// and the vport, so the e-switch always has the namespace.
steer::Steering &steering(CmdCtx &c, const Target &t)
{
	if (t.type == flow_table_type::NIC_RX)
		return steering(c);
	return *c.fw.cfg.adapter->eswitch().tables(t.type, t.vport);
}

void result(CmdCtx &c, uint8_t st, uint32_t reason)
{
	if (st)
		c.fail(st, 0x100 | reason);
}

void create_flow_table(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	const uint8_t *x = c.in + ftc::kAt;
	if (bits::get(x, ftc::reformat_en) || bits::get(x, ftc::decap_en) || bits::get(x, ftc::sw_owner) ||
	    bits::get(x, ftc::termination_table))
		return c.fail(status::BAD_PARAM, kUnsupported);
	steer::FlowTable t;
	t.type = tg.type;
	t.level = static_cast<uint8_t>(bits::get(x, ftc::level));
	t.log_size = static_cast<uint8_t>(bits::get(x, ftc::log_size));
	t.miss_action = static_cast<uint8_t>(bits::get(x, ftc::table_miss_action));
	t.miss_table = bits::get(x, ftc::table_miss_id);
	const uint8_t *rx = props(c, tg);
	// The level orders the tables of a namespace in the driver; a frame
	// goes where the entries and miss tables send it, so any level works.
	if (t.log_size > bits::get(rx, ft_caps::log_max_ft_size))
		return c.fail(status::BAD_PARAM, kSize);
	auto lk = c.fw.dp().lock();
	uint32_t id = 0, reason = 0;
	uint8_t st = steering(c, tg).create_table(t, &id, &reason);
	if (st)
		return result(c, st, reason);
	c.put(create_ft::table_id_out, id);
}

void destroy_flow_table(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c, tg).destroy_table(c.get(ft_in::table_id), &reason);
	result(c, st, reason);
}

void query_flow_table(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	auto lk = c.fw.dp().lock();
	const steer::FlowTable *t = steering(c, tg).table(c.get(ft_in::table_id));
	if (!t)
		return c.fail(status::BAD_PARAM, 0x101);
	uint8_t *o = c.out + ftc::kAt;
	bits::set(o, ftc::level, t->level);
	bits::set(o, ftc::log_size, t->log_size);
	bits::set(o, ftc::table_miss_action, t->miss_action);
	bits::set(o, ftc::table_miss_id, t->miss_table);
}

void modify_flow_table(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	uint32_t sel = c.get(modify_ft::modify_field_select);
	if (sel & ~uint32_t(modify_ft::SEL_MISS_TABLE_ID))
		return c.fail(status::BAD_PARAM, kUnsupported);
	const uint8_t *x = c.in + ftc::kAt;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	if (!(sel & modify_ft::SEL_MISS_TABLE_ID))
		return;
	uint8_t st = steering(c, tg).modify_miss(c.get(ft_in::table_id),
					     static_cast<uint8_t>(bits::get(x, ftc::table_miss_action)),
					     bits::get(x, ftc::table_miss_id), &reason);
	result(c, st, reason);
}

void set_flow_table_root(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	if (c.get(ft_root::underlay_qpn))
		return c.fail(status::BAD_PARAM, kUnsupported);
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	// op_mod 1 disconnects the root.
	uint8_t st = steering(c, tg).set_root(c.op_mod ? 0 : c.get(ft_in::table_id), &reason);
	result(c, st, reason);
}

void create_flow_group(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	if (c.get(create_fg::group_type))
		return c.fail(status::BAD_PARAM, kUnsupported); // no range / hash-split groups
	steer::FlowGroup g;
	g.start = c.get(create_fg::start_flow_index);
	g.end = c.get(create_fg::end_flow_index);
	g.enable = static_cast<uint8_t>(c.get(create_fg::match_criteria_enable));
	std::memcpy(g.criteria.data(), c.in + create_fg::kMatchCriteria, g.criteria.size());
	auto lk = c.fw.dp().lock();
	uint32_t id = 0, reason = 0;
	uint8_t st = steering(c, tg).create_group(c.get(ft_in::table_id), g, &id, &reason);
	if (st)
		return result(c, st, reason);
	c.put(create_fg::group_id_out, id);
}

void destroy_flow_group(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c, tg).destroy_group(c.get(ft_in::table_id), c.get(create_fg::group_id_in), &reason);
	result(c, st, reason);
}

void set_flow_table_entry(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	if (c.op_mod > 1)
		return c.fail(status::BAD_PARAM, kUnsupported);
	const uint8_t *fc = c.in + set_fte::kFlowContext;
	if (bits::get(fc, flow_ctx::extended_destination))
		return c.fail(status::BAD_PARAM, kUnsupported);
	steer::FlowEntry e;
	e.index = c.get(set_fte::flow_index);
	e.group_id = bits::get(fc, flow_ctx::group_id);
	e.action = static_cast<uint16_t>(bits::get(fc, flow_ctx::action));
	e.flow_tag = bits::get(fc, flow_ctx::flow_tag);
	std::memcpy(e.value.data(), fc + flow_ctx::kMatchValue, e.value.size());
	unsigned ndest = bits::get(fc, flow_ctx::destination_list_size);
	unsigned ncnt = bits::get(fc, flow_ctx::flow_counter_list_size);
	const uint8_t *rx = props(c, tg);
	if (ndest > (1u << bits::get(rx, ft_caps::log_max_destination)) || ncnt > 64)
		return c.fail(status::BAD_PARAM, kDests);
	if (set_fte::kFlowContext + flow_ctx::kDestinations + 8ull * (ndest + ncnt) > c.inlen)
		return c.fail(status::BAD_INPUT_LEN, kInlen);
	const uint8_t *d = fc + flow_ctx::kDestinations;
	if (e.action & flow_ctx::ACT_FWD_DEST)
		for (unsigned i = 0; i < ndest; ++i, d += 8)
			e.dests.push_back({static_cast<uint8_t>(bits::get(d, dest::type)), bits::get(d, dest::id)});
	else
		d += 8 * ndest;
	if (e.action & flow_ctx::ACT_COUNT)
		for (unsigned i = 0; i < ncnt; ++i, d += 8)
			e.counters.push_back(bits::get(d, dest::counter_id));
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c, tg).set_entry(c.get(ft_in::table_id), e, c.op_mod == 1, &reason);
	result(c, st, reason);
}

void delete_flow_table_entry(CmdCtx &c)
{
	Target tg;
	if (!target(c, &tg))
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c, tg).delete_entry(c.get(ft_in::table_id), c.get(delete_fte::flow_index), &reason);
	result(c, st, reason);
}

void alloc_flow_counter(CmdCtx &c)
{
	unsigned n = 1;
	if (uint32_t log = c.get(flow_counter::bulk_log_size))
		n = 1u << log;
	else if (uint32_t bulk = c.get(flow_counter::bulk))
		n = 128u * bulk; // the older form: multiples of 128
	if (n > (1u << c.fw.caps.gen(eth_gen_caps::log_max_flow_counter_bulk)) && n > 1)
		return c.fail(status::BAD_PARAM, kUnsupported);
	auto lk = c.fw.dp().lock();
	uint32_t first = 0, reason = 0;
	uint8_t st = steering(c).alloc_counters(n, &first, &reason);
	if (st)
		return result(c, st, reason);
	c.put(flow_counter::id_out, first);
}

void dealloc_flow_counter(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c).dealloc_counter(c.get(flow_counter::id_in), &reason);
	result(c, st, reason);
}

void query_flow_counter(CmdCtx &c)
{
	unsigned n = c.get(flow_counter::query_num);
	uint32_t first = c.get(flow_counter::query_id);
	bool bulk = n != 0;
	if (!n)
		n = 1;
	if (flow_counter::kQueryStats + 16ull * n > c.outlen)
		return c.fail(status::BAD_OUTPUT_LEN, kOutlen);
	bool clear = c.get(flow_counter::query_clear);
	auto lk = c.fw.dp().lock();
	for (unsigned i = 0; i < n; ++i) {
		steer::FlowCounter *fc = steering(c).counter(first + i);
		if (!fc) {
			if (!bulk)
				return c.fail(status::BAD_PARAM, kNoCounter);
			continue;
		}
		uint8_t *o = c.out + flow_counter::kQueryStats + 16 * i;
		bits::store_be64(o, fc->packets);
		bits::store_be64(o + 8, fc->bytes);
		if (clear)
			*fc = steer::FlowCounter{};
	}
}

constexpr uint32_t kOut = hdr_out::kMinLen;

constexpr CmdSpec kCommands[] = {
	{nic_op::CREATE_FLOW_TABLE, create_flow_table, create_ft::kSize, 16, Need::EthInitialized},
	{nic_op::DESTROY_FLOW_TABLE, destroy_flow_table, 0x40, kOut, Need::EthInitialized},
	{nic_op::QUERY_FLOW_TABLE, query_flow_table, 0x40, 0x40, Need::EthInitialized},
	{nic_op::MODIFY_FLOW_TABLE, modify_flow_table, 0x40, kOut, Need::EthInitialized},
	{nic_op::SET_FLOW_TABLE_ROOT, set_flow_table_root, 0x40, kOut, Need::EthInitialized},
	{nic_op::CREATE_FLOW_GROUP, create_flow_group, create_fg::kSize, 16, Need::EthInitialized},
	{nic_op::DESTROY_FLOW_GROUP, destroy_flow_group, 0x40, kOut, Need::EthInitialized},
	{nic_op::SET_FLOW_TABLE_ENTRY, set_flow_table_entry, set_fte::kMinSize, kOut, Need::EthInitialized},
	{nic_op::DELETE_FLOW_TABLE_ENTRY, delete_flow_table_entry, 0x40, kOut, Need::EthInitialized},
	{nic_op::ALLOC_FLOW_COUNTER, alloc_flow_counter, 16, 16, Need::EthInitialized},
	{nic_op::DEALLOC_FLOW_COUNTER, dealloc_flow_counter, 16, kOut, Need::EthInitialized},
	{nic_op::QUERY_FLOW_COUNTER, query_flow_counter, 32, 0x20, Need::EthInitialized},
};

} // namespace

std::span<const CmdSpec> flow_table_commands() { return kCommands; }

} // namespace mlx5emu
