// SPDX-License-Identifier: GPL-2.0
// NIC receive flow steering of one function: flow tables, their groups
// (match criteria over a range of flow indexes) and entries (match value,
// actions, destinations, counters), the root table, and the walk a received
// frame takes through them. Plain data under the data path's state lock.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "steer/match.h"

namespace mlx5emu::steer {

struct Dest {
	uint8_t type = 0; // prm::dest::*
	uint32_t id = 0;
};

struct FlowEntry {
	uint32_t index = 0;
	uint32_t group_id = 0;
	uint16_t action = 0; // prm::flow_ctx::ACT_*
	uint32_t flow_tag = 0;
	MatchParam value{};
	std::vector<Dest> dests;
	std::vector<uint32_t> counters;
};

struct FlowGroup {
	uint32_t id = 0;
	uint32_t start = 0, end = 0; // flow indexes, inclusive
	uint8_t enable = 0;          // match_criteria_enable
	MatchParam criteria{};
};

struct FlowTable {
	uint32_t id = 0;
	uint8_t type = 0;
	uint8_t level = 0;
	uint8_t log_size = 0;
	uint8_t miss_action = 0; // prm::ftc::MISS_*
	uint32_t miss_table = 0;
	std::map<uint32_t, FlowGroup> groups;   // by id
	std::map<uint32_t, FlowEntry> entries;  // by flow index (match order)
};

struct FlowCounter {
	uint64_t packets = 0, bytes = 0;
};

// Where a frame goes: the TIRs (normally one) and the flow tag of the
// entry that sent it there; empty tirs = dropped. In an e-switch table: the
// vports (prm::dest::kUplinkVport for the uplink) and whether an ALLOW rule
// let it through (an ACL).
struct Verdict {
	std::vector<uint32_t> tirs;
	uint32_t flow_tag = 0;
	bool dropped_by_rule = false; // a DROP action (else: no rule matched)
	std::vector<uint16_t> vports;
	bool allowed = false;
	bool matched = false; // some rule matched (else: every table missed)
};

class Steering {
public:
	// One namespace's tables. The NIC receive tables of a function: ids
	// from 1, TIR and table destinations. An e-switch namespace (FDB, a
	// vport's ACL): ids from `first_id` (unique on the adapter), VPORT
	// destinations 0..max_vport, UPLINK, and the source_port match.
	Steering() = default;
	Steering(uint32_t first_id, uint16_t max_vport)
		: esw_(true), max_vport_(max_vport), next_table_(first_id), next_group_(first_id)
	{
	}

	static constexpr unsigned kMaxTables = 1024;
	static constexpr unsigned kMaxEntries = 1u << 16; // per function
	static constexpr unsigned kMaxCounters = 1u << 16;
	static constexpr unsigned kMaxDepth = 32;        // tables a frame may pass

	// Each returns 0 or a command status, with *reason for the syndrome.
	uint8_t create_table(const FlowTable &t, uint32_t *id, uint32_t *reason);
	uint8_t destroy_table(uint32_t id, uint32_t *reason);
	uint8_t modify_miss(uint32_t id, uint8_t miss_action, uint32_t miss_table, uint32_t *reason);
	uint8_t set_root(uint32_t id, uint32_t *reason); // 0: back to none
	uint8_t create_group(uint32_t table, const FlowGroup &g, uint32_t *id, uint32_t *reason);
	uint8_t destroy_group(uint32_t table, uint32_t id, uint32_t *reason);
	// `modify`: replace an existing entry (SET_FLOW_TABLE_ENTRY op_mod 1).
	uint8_t set_entry(uint32_t table, const FlowEntry &e, bool modify, uint32_t *reason);
	uint8_t delete_entry(uint32_t table, uint32_t index, uint32_t *reason);
	uint8_t alloc_counters(unsigned n, uint32_t *first, uint32_t *reason);
	uint8_t dealloc_counter(uint32_t id, uint32_t *reason);
	// Counter `id` (zeros for an id not allocated, as in a bulk query).
	FlowCounter *counter(uint32_t id);

	const FlowTable *table(uint32_t id) const;
	uint32_t root() const { return root_; }
	size_t tables() const { return tables_.size(); }
	size_t entries() const { return n_entries_; }

	// Walks the tables from the root for a frame with match image `img`
	// and `bytes` bytes: counts, drops or forwards.
	Verdict classify(const MatchParam &img, uint32_t bytes);

	void clear();
	std::vector<std::string> describe() const;

private:
	std::map<uint32_t, FlowTable> tables_;
	std::map<uint32_t, FlowCounter> counters_;
	bool esw_ = false;
	uint16_t max_vport_ = 0;
	uint32_t root_ = 0;
	uint32_t next_table_ = 1, next_group_ = 1, next_counter_ = 1;
	size_t n_entries_ = 0;
};

} // namespace mlx5emu::steer
