// SPDX-License-Identifier: GPL-2.0
#include "steer/flow_table.h"

#include <cstdio>

#include "prm/prm.h"
#include "prm/eth.h"
#include "util/fmt.h"

namespace mlx5emu::steer {

namespace st = prm::status;
namespace act = prm::flow_ctx;

const FlowTable *Steering::table(uint32_t id) const
{
	auto it = tables_.find(id);
	return it == tables_.end() ? nullptr : &it->second;
}

uint8_t Steering::create_table(const FlowTable &t, uint32_t *id, uint32_t *reason)
{
	if (tables_.size() >= kMaxTables)
		return *reason = 1, st::NO_RESOURCES;
	if (t.miss_action == prm::ftc::MISS_FWD && !tables_.count(t.miss_table))
		return *reason = 2, st::BAD_PARAM;
	if (t.miss_action > prm::ftc::MISS_FWD)
		return *reason = 3, st::BAD_PARAM;
	uint32_t n = next_table_++ & 0xffffff;
	if (!n || tables_.count(n))
		return *reason = 4, st::NO_RESOURCES;
	FlowTable &nt = tables_[n];
	nt = t;
	nt.id = n;
	nt.groups.clear();
	nt.entries.clear();
	*id = n;
	return st::OK;
}

uint8_t Steering::destroy_table(uint32_t id, uint32_t *reason)
{
	auto it = tables_.find(id);
	if (it == tables_.end())
		return *reason = 1, st::BAD_PARAM;
	if (!it->second.groups.empty())
		return *reason = 3, st::RESOURCE_BUSY;
	for (const auto &[n, t] : tables_) {
		if (n != id && t.miss_action == prm::ftc::MISS_FWD && t.miss_table == id)
			return *reason = 4, st::RESOURCE_BUSY;
		for (const auto &[i, e] : t.entries)
			for (const Dest &d : e.dests)
				if (d.type == prm::dest::FLOW_TABLE && d.id == id)
					return *reason = 5, st::RESOURCE_BUSY;
	}
	// The root may go: frames then find no table (the driver destroys
	// its last table without setting another root).
	if (root_ == id)
		root_ = 0;
	tables_.erase(it);
	return st::OK;
}

uint8_t Steering::modify_miss(uint32_t id, uint8_t miss_action, uint32_t miss_table, uint32_t *reason)
{
	auto it = tables_.find(id);
	if (it == tables_.end())
		return *reason = 1, st::BAD_PARAM;
	if (miss_action > prm::ftc::MISS_FWD)
		return *reason = 2, st::BAD_PARAM;
	if (miss_action == prm::ftc::MISS_FWD && (!tables_.count(miss_table) || miss_table == id))
		return *reason = 3, st::BAD_PARAM;
	it->second.miss_action = miss_action;
	it->second.miss_table = miss_action == prm::ftc::MISS_FWD ? miss_table : 0;
	return st::OK;
}

uint8_t Steering::set_root(uint32_t id, uint32_t *reason)
{
	if (id && !tables_.count(id))
		return *reason = 1, st::BAD_PARAM;
	root_ = id;
	return st::OK;
}

uint8_t Steering::create_group(uint32_t table, const FlowGroup &g, uint32_t *id, uint32_t *reason)
{
	auto it = tables_.find(table);
	if (it == tables_.end())
		return *reason = 1, st::BAD_PARAM;
	FlowTable &t = it->second;
	uint64_t size = 1ull << t.log_size;
	if (g.start > g.end || g.end >= size)
		return *reason = 2, st::BAD_PARAM;
	for (const auto &[n, o] : t.groups)
		if (g.start <= o.end && o.start <= g.end)
			return *reason = 3, st::BAD_PARAM; // overlapping ranges
	if (!criteria_supported(g.criteria, g.enable, esw_))
		return *reason = 4, st::BAD_PARAM; // a field the emulator does not match on
	uint32_t n = next_group_++;
	FlowGroup &ng = t.groups[n];
	ng = g;
	ng.id = n;
	*id = n;
	return st::OK;
}

uint8_t Steering::destroy_group(uint32_t table, uint32_t id, uint32_t *reason)
{
	auto it = tables_.find(table);
	if (it == tables_.end())
		return *reason = 1, st::BAD_PARAM;
	auto g = it->second.groups.find(id);
	if (g == it->second.groups.end())
		return *reason = 2, st::BAD_PARAM;
	for (const auto &[i, e] : it->second.entries)
		if (e.group_id == id)
			return *reason = 3, st::RESOURCE_BUSY;
	it->second.groups.erase(g);
	return st::OK;
}

uint8_t Steering::set_entry(uint32_t table, const FlowEntry &e, bool modify, uint32_t *reason)
{
	auto it = tables_.find(table);
	if (it == tables_.end())
		return *reason = 1, st::BAD_PARAM;
	FlowTable &t = it->second;
	auto g = t.groups.find(e.group_id);
	if (g == t.groups.end() || e.index < g->second.start || e.index > g->second.end)
		return *reason = 2, st::BAD_PARAM;
	constexpr uint16_t kKnown = act::ACT_ALLOW | act::ACT_DROP | act::ACT_FWD_DEST | act::ACT_COUNT;
	if (e.action & ~kKnown)
		return *reason = 3, st::BAD_PARAM; // reformat, decap, header rewrite, VLAN push/pop: not modelled
	if ((e.action & act::ACT_DROP) && (e.action & act::ACT_FWD_DEST))
		return *reason = 4, st::BAD_PARAM;
	if ((e.action & act::ACT_FWD_DEST) && e.dests.empty())
		return *reason = 5, st::BAD_PARAM;
	for (const Dest &d : e.dests) {
		if (d.type == prm::dest::FLOW_TABLE) {
			if (!tables_.count(d.id) || d.id == table)
				return *reason = 6, st::BAD_PARAM;
		} else if (esw_ && d.type == prm::dest::VPORT) {
			if (d.id > max_vport_ && d.id != prm::dest::kUplinkVport)
				return *reason = 12, st::BAD_PARAM;
		} else if (esw_ && d.type == prm::dest::UPLINK) {
		} else if (d.type != prm::dest::TIR || esw_) {
			return *reason = 7, st::BAD_PARAM; // vport / uplink: no eswitch; a TIR: not an e-switch's
		}
	}
	for (uint32_t c : e.counters)
		if (!counters_.count(c))
			return *reason = 8, st::BAD_PARAM;
	auto old = t.entries.find(e.index);
	if (old != t.entries.end() && !modify)
		return *reason = 9, st::BAD_PARAM;
	if (old == t.entries.end()) {
		if (modify)
			return *reason = 10, st::BAD_PARAM;
		if (n_entries_ >= kMaxEntries)
			return *reason = 11, st::NO_RESOURCES;
		++n_entries_;
	}
	t.entries[e.index] = e;
	return st::OK;
}

uint8_t Steering::delete_entry(uint32_t table, uint32_t index, uint32_t *reason)
{
	auto it = tables_.find(table);
	if (it == tables_.end())
		return *reason = 1, st::BAD_PARAM;
	if (!it->second.entries.erase(index))
		return *reason = 2, st::BAD_PARAM;
	--n_entries_;
	return st::OK;
}

uint8_t Steering::alloc_counters(unsigned n, uint32_t *first, uint32_t *reason)
{
	if (!n || counters_.size() + n > kMaxCounters)
		return *reason = 1, st::NO_RESOURCES;
	// A bulk is a run of consecutive ids; ids are never reused before
	// they wrap, so a run is found at the end of the space.
	if (next_counter_ + n >= (1u << 24))
		next_counter_ = 1;
	for (unsigned i = 0; i < n; ++i)
		if (counters_.count(next_counter_ + i))
			return *reason = 2, st::NO_RESOURCES;
	*first = next_counter_;
	for (unsigned i = 0; i < n; ++i)
		counters_[next_counter_ + i] = FlowCounter{};
	next_counter_ += n;
	return st::OK;
}

uint8_t Steering::dealloc_counter(uint32_t id, uint32_t *reason)
{
	auto it = counters_.find(id);
	if (it == counters_.end())
		return *reason = 1, st::BAD_PARAM;
	for (const auto &[n, t] : tables_)
		for (const auto &[i, e] : t.entries)
			for (uint32_t c : e.counters)
				if (c == id)
					return *reason = 2, st::RESOURCE_BUSY;
	counters_.erase(it);
	return st::OK;
}

FlowCounter *Steering::counter(uint32_t id)
{
	auto it = counters_.find(id);
	return it == counters_.end() ? nullptr : &it->second;
}

Verdict Steering::classify(const MatchParam &img, uint32_t bytes)
{
	Verdict v;
	// Tables to visit: a forward to several tables replicates the frame.
	std::vector<uint32_t> todo;
	if (root_)
		todo.push_back(root_);
	unsigned visited = 0;
	while (!todo.empty() && visited < kMaxDepth) {
		uint32_t tid = todo.back();
		todo.pop_back();
		++visited;
		auto it = tables_.find(tid);
		if (it == tables_.end())
			continue;
		const FlowTable &t = it->second;
		const FlowEntry *hit = nullptr;
		for (const auto &[idx, e] : t.entries) {
			auto g = t.groups.find(e.group_id);
			if (g != t.groups.end() && matches(img, g->second.criteria, e.value, g->second.enable)) {
				hit = &e;
				break;
			}
		}
		if (!hit) {
			if (t.miss_action == prm::ftc::MISS_FWD)
				todo.push_back(t.miss_table);
			continue;
		}
		if (hit->action & act::ACT_COUNT) {
			for (uint32_t c : hit->counters) {
				auto ci = counters_.find(c);
				if (ci != counters_.end()) {
					++ci->second.packets;
					ci->second.bytes += bytes;
				}
			}
		}
		v.matched = true;
		if (hit->action & act::ACT_DROP) {
			v.dropped_by_rule = true;
			continue;
		}
		if (hit->action & act::ACT_ALLOW)
			v.allowed = true;
		if (!(hit->action & act::ACT_FWD_DEST))
			continue;
		for (const Dest &d : hit->dests) {
			if (d.type == prm::dest::TIR) {
				v.tirs.push_back(d.id);
				v.flow_tag = hit->flow_tag;
			} else if (d.type == prm::dest::FLOW_TABLE) {
				todo.push_back(d.id);
			} else if (d.type == prm::dest::VPORT) {
				v.vports.push_back(static_cast<uint16_t>(d.id));
			} else if (d.type == prm::dest::UPLINK) {
				v.vports.push_back(prm::dest::kUplinkVport);
			}
		}
	}
	return v;
}

void Steering::clear()
{
	tables_.clear();
	counters_.clear();
	root_ = 0;
	n_entries_ = 0;
}

std::vector<std::string> Steering::describe() const
{
	std::vector<std::string> out;
	out.push_back(fmt("flow steering: root %u, %zu tables, %zu entries, %zu counters", root_, tables_.size(),
			  n_entries_, counters_.size()));
	for (const auto &[id, t] : tables_) {
		out.push_back(fmt("  table %u level %u size 2^%u groups %zu entries %zu miss %s %u", id, t.level,
				  t.log_size, t.groups.size(), t.entries.size(),
				  t.miss_action == prm::ftc::MISS_FWD ? "fwd" : "default", t.miss_table));
	}
	return out;
}

} // namespace mlx5emu::steer
