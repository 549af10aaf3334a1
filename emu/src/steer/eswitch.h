// SPDX-License-Identifier: GPL-2.0
// The legacy e-switch of one adapter, as its manager (the PF) programs it:
// the FDB tables, each vport's ingress and egress ACL tables (one
// steer::Steering namespace each, ids unique on the adapter), the MPFS
// (the L2 table of the unicast MACs the uplink takes in) and each vport's
// e-switch context (VLAN strip and insert). Plain data: the adapter holds
// it, read and written under the data path engine's state lock.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "steer/esw_qos.h"
#include "steer/flow_table.h"

namespace mlx5emu::steer {

// esw_vport_context: what the e-switch does to a vport's VLAN tags.
struct EswVportCtx {
	bool cvlan_strip = false;  // egress (to the vport): the C-tag removed
	uint8_t cvlan_insert = 0;  // ingress: prm::esw_vport::INSERT_*
	uint16_t cvlan_id = 0;
	uint8_t cvlan_pcp = 0;
	bool cvlan_cfi = false;
};

// One MPFS entry.
struct L2Entry {
	std::array<uint8_t, 6> mac{};
	bool vlan_valid = false;
	uint16_t vlan = 0;
};

class Eswitch {
public:
	// max_vport: the adapter's last VF (vports 0..max_vport).
	Eswitch(uint16_t max_vport, unsigned log_l2_size);
	Eswitch(const Eswitch &) = delete;
	Eswitch &operator=(const Eswitch &) = delete;

	uint16_t max_vport() const { return max_vport_; }

	// The tables of one namespace: `type` FDB (vport 0) or an ACL
	// (prm::flow_table_type::ESW_INGRESS_ACL / ESW_EGRESS_ACL) of `vport`.
	// Made on first use; null for another type or a vport beyond the
	// adapter's.
	Steering *tables(uint8_t type, uint16_t vport);
	const Steering *find(uint8_t type, uint16_t vport) const;

	// The frame (`len` bytes) through vport `vport`'s ACL of `type` as
	// its manager programmed it: false when a DROP rule took it. No
	// table (no root) or no rule matching: it passes. The ingress ACL
	// sees the frame as the function sent it, the egress ACL as the
	// e-switch hands it over (before any VST strip). Counts the rules'
	// flow counters.
	bool acl_passes(uint8_t type, uint16_t vport, const uint8_t *frame, size_t len);

	EswVportCtx &vport_ctx(uint16_t vport) { return ctx_[vport]; }
	EswVportCtx vport_ctx_of(uint16_t vport) const;

	// SET_L2_TABLE_ENTRY / DELETE_L2_TABLE_ENTRY: 0 or a command status,
	// with *reason for the syndrome.
	uint8_t set_l2(uint32_t index, const L2Entry &e, uint32_t *reason);
	uint8_t delete_l2(uint32_t index, uint32_t *reason);
	const std::map<uint32_t, L2Entry> &l2() const { return l2_; }
	unsigned l2_size() const { return 1u << log_l2_size_; }
	// Whether the MPFS takes a unicast frame to `mac` in from the uplink.
	bool mpfs_has(const uint8_t *mac) const;

	// The transmit scheduling elements and each vport's rate
	// (steer/esw_qos.h).
	EswQos &qos() { return qos_; }
	const EswQos &qos() const { return qos_; }

	// The manager's reset: every table, entry and context gone.
	void clear();
	std::vector<std::string> describe() const;

private:
	const uint16_t max_vport_;
	const unsigned log_l2_size_;
	std::map<std::pair<uint8_t, uint16_t>, Steering> ns_;
	std::map<uint16_t, EswVportCtx> ctx_;
	std::map<uint32_t, L2Entry> l2_;
	EswQos qos_;
};

} // namespace mlx5emu::steer
