// SPDX-License-Identifier: GPL-2.0
// Flow steering commands of an Ethernet function: NIC receive flow tables,
// groups, entries, the root table and flow counters (steer/flow_table.h
// holds them, steer/match.h matches on them).
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
};

// Our own vport's NIC receive tables only (no eswitch, no transmit tables).
bool own_nic_rx(CmdCtx &c)
{
	if (!own_vport(c, kVport))
		return false;
	if (c.get(ft_in::table_type) != flow_table_type::NIC_RX) {
		c.fail(status::BAD_PARAM, kTableType);
		return false;
	}
	return true;
}

steer::Steering &steering(CmdCtx &c) { return c.fw.dp().res().steering; }

void result(CmdCtx &c, uint8_t st, uint32_t reason)
{
	if (st)
		c.fail(st, 0x100 | reason);
}

void create_flow_table(CmdCtx &c)
{
	if (!own_nic_rx(c))
		return;
	const uint8_t *x = c.in + ftc::kAt;
	if (bits::get(x, ftc::reformat_en) || bits::get(x, ftc::decap_en) || bits::get(x, ftc::sw_owner) ||
	    bits::get(x, ftc::termination_table))
		return c.fail(status::BAD_PARAM, kUnsupported);
	steer::FlowTable t;
	t.type = flow_table_type::NIC_RX;
	t.level = static_cast<uint8_t>(bits::get(x, ftc::level));
	t.log_size = static_cast<uint8_t>(bits::get(x, ftc::log_size));
	t.miss_action = static_cast<uint8_t>(bits::get(x, ftc::table_miss_action));
	t.miss_table = bits::get(x, ftc::table_miss_id);
	const uint8_t *rx = c.fw.caps.max(cap_type_eth::FLOW_TABLE)->data() + ft_caps::kNicRx;
	// The level orders the tables of a namespace in the driver; a frame
	// goes where the entries and miss tables send it, so any level works.
	if (t.log_size > bits::get(rx, ft_caps::log_max_ft_size))
		return c.fail(status::BAD_PARAM, kSize);
	auto lk = c.fw.dp().lock();
	uint32_t id = 0, reason = 0;
	uint8_t st = steering(c).create_table(t, &id, &reason);
	if (st)
		return result(c, st, reason);
	c.put(create_ft::table_id_out, id);
}

void destroy_flow_table(CmdCtx &c)
{
	if (!own_nic_rx(c))
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c).destroy_table(c.get(ft_in::table_id), &reason);
	result(c, st, reason);
}

void query_flow_table(CmdCtx &c)
{
	if (!own_nic_rx(c))
		return;
	auto lk = c.fw.dp().lock();
	const steer::FlowTable *t = steering(c).table(c.get(ft_in::table_id));
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
	if (!own_nic_rx(c))
		return;
	uint32_t sel = c.get(modify_ft::modify_field_select);
	if (sel & ~uint32_t(modify_ft::SEL_MISS_TABLE_ID))
		return c.fail(status::BAD_PARAM, kUnsupported);
	const uint8_t *x = c.in + ftc::kAt;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	if (!(sel & modify_ft::SEL_MISS_TABLE_ID))
		return;
	uint8_t st = steering(c).modify_miss(c.get(ft_in::table_id),
					     static_cast<uint8_t>(bits::get(x, ftc::table_miss_action)),
					     bits::get(x, ftc::table_miss_id), &reason);
	result(c, st, reason);
}

void set_flow_table_root(CmdCtx &c)
{
	if (!own_nic_rx(c))
		return;
	if (c.get(ft_root::underlay_qpn))
		return c.fail(status::BAD_PARAM, kUnsupported);
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	// op_mod 1 disconnects the root.
	uint8_t st = steering(c).set_root(c.op_mod ? 0 : c.get(ft_in::table_id), &reason);
	result(c, st, reason);
}

void create_flow_group(CmdCtx &c)
{
	if (!own_nic_rx(c))
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
	uint8_t st = steering(c).create_group(c.get(ft_in::table_id), g, &id, &reason);
	if (st)
		return result(c, st, reason);
	c.put(create_fg::group_id_out, id);
}

void destroy_flow_group(CmdCtx &c)
{
	if (!own_nic_rx(c))
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c).destroy_group(c.get(ft_in::table_id), c.get(create_fg::group_id_in), &reason);
	result(c, st, reason);
}

void set_flow_table_entry(CmdCtx &c)
{
	if (!own_nic_rx(c))
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
	const uint8_t *rx = c.fw.caps.max(cap_type_eth::FLOW_TABLE)->data() + ft_caps::kNicRx;
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
	uint8_t st = steering(c).set_entry(c.get(ft_in::table_id), e, c.op_mod == 1, &reason);
	result(c, st, reason);
}

void delete_flow_table_entry(CmdCtx &c)
{
	if (!own_nic_rx(c))
		return;
	auto lk = c.fw.dp().lock();
	uint32_t reason = 0;
	uint8_t st = steering(c).delete_entry(c.get(ft_in::table_id), c.get(delete_fte::flow_index), &reason);
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
