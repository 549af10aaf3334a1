// SPDX-License-Identifier: GPL-2.0
// EthPath, the Ethernet path of a DataPath: the NIC's send queues onto the L2
// switch (nic_send.cc), frames through flow steering into its receive queues
// (nic_recv.cc), SQ/RQ state and the link (nic.cc), and RoCE: the RDMA
// packets of an Ethernet port as frames, out and in (roce.cc).
//
// Engine thread, the engine's state lock held (see datapath.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "exec/roce_wire.h"
#include "fabric/packet.h"
#include "queues/resources.h"
#include "steer/eswitch.h"
#include "steer/vport_acl.h"

namespace mlx5emu {

class DataPath;
namespace steer {
struct Headers;
}

// RoCE traffic of an Ethernet port (roce.cc).
struct RoceCounters {
	uint64_t tx = 0, rx = 0;
	uint64_t tx_no_gid = 0;     // the source GID entry is empty, RoCE off or the link down
	uint64_t loopback = 0;      // frames that went back to this function
	uint64_t lb_blocked = 0;    // kept back by disable_uc/mc_local_lb
	uint64_t lb_full = 0;       // dropped: kLoopbackCap frames already waiting
	uint64_t rx_bad = 0;        // malformed, bad ICRC
	uint64_t rx_no_gid = 0;     // to our MAC, but no GID entry of that address and version
};

// Ethernet vport traffic counters (QUERY_VPORT_COUNTER, PPCNT).
struct EthCounters {
	enum Cast { Ucast, Mcast, Bcast };
	struct Pair {
		uint64_t packets = 0, bytes = 0;
	};
	Pair tx[3], rx[3];
	uint64_t rx_dropped = 0;     // no rule, a DROP rule, the port down
	uint64_t rx_no_wqe = 0;      // the RQ had no WQE (out of buffer)
	uint64_t rx_too_long = 0;    // longer than the port MTU or the WQE
	uint64_t rx_errors = 0, tx_errors = 0;
	uint64_t tx_link_down = 0;   // sent while the port was down: dropped
	// Dropped by the vport ACLs (steer/vport_acl.h): a spoofed source
	// MAC, a tag of the function's own under VST, another VLAN.
	uint64_t tx_spoofed = 0, tx_tagged = 0, rx_vlan_dropped = 0, rx_unicast_filtered = 0;
	// Dropped by a rule of the vport's ingress (tx) or egress (rx) ACL
	// table that its e-switch manager programmed (steer/eswitch.h).
	uint64_t tx_acl_dropped = 0, rx_acl_dropped = 0;
	uint64_t lso_segments = 0;
	// Times an SQ waited for its vport's transmit rate (the e-switch's
	// scheduling elements, steer/esw_qos.h).
	uint64_t tx_rate_waits = 0;
};

class EthPath {
public:
	explicit EthPath(DataPath &dp) : dp_(dp) {}
	EthPath(const EthPath &) = delete;
	EthPath &operator=(const EthPath &) = delete;

	static constexpr unsigned kRoceGids = 128;
	static constexpr uint32_t kLoopbackCap = 1024; // looped-back frames waiting
	static constexpr uint16_t kUdpSportMin = 0xc000, kUdpSportMax = 0xffff;

	// nic.cc: the port's operational state and hardware MTU, SQ/RQ state
	// changes from MODIFY_SQ/RQ, the control channel's lines.
	void set_eth_link(bool up, uint16_t hw_mtu);
	// The vport ACLs its manager set (a VF's host side).
	void set_vport_acl(const steer::VportAcl &acl) { acl_ = acl; }
	// The function's e-switch (its adapter's, steer/eswitch.h) and its
	// vport there: its frames pass the ACL tables the manager programmed
	// (before the VST of set_vport_acl). Null: a function alone.
	void set_eswitch(steer::Eswitch *esw, uint16_t vport)
	{
		esw_ = esw;
		esw_vport_ = vport;
	}
	void nic_sq_state(NicSq &sq, uint8_t next);
	void nic_rq_state(NicRq &rq, uint8_t next);
	std::vector<std::string> nic_lines();
	const EthCounters &eth_counters() const { return eth_; }

	// nic_send.cc: the Ethernet send path of an SQ.
	void nic_sq_doorbell(NicSq &sq, uint32_t dw0, uint32_t dw1);
	void nic_run_sq(NicSq &sq);
	// The SQ's pacing timer `id` fired: it sends again.
	void nic_sq_paced(uint32_t sqn, uint64_t id);

	// nic_recv.cc: a frame from the switch (engine thread).
	void receive_frame(const std::vector<uint8_t> &frame);

	// roce.cc: packets of an Ethernet port as RoCE frames; the GID table
	// (SET_ROCE_ADDRESS), RoCE on in the NIC vport context (roce_en),
	// unicast local loopback off (disable_uc_local_lb).
	void roce_transmit(Packet p);
	// The source GID of packets from `sgid_index` (IB: GID[0]).
	Gid source_gid(uint8_t sgid_index) const;
	void set_roce_gid(unsigned index, const RoceGid &g) { gids_.at(index) = g; }
	const RoceGid &roce_gid(unsigned index) const { return gids_.at(index); }
	void set_roce(bool enabled, bool uc_local_lb_disabled)
	{
		roce_en_ = enabled;
		uc_local_lb_disabled_ = uc_local_lb_disabled;
	}
	const RoceCounters &roce_counters() const { return roce_; }

private:
	friend class DataPath; // wiring: the switch port, a function reset

	// nic_send.cc
	bool nic_send_wqe(NicSq &sq, uint16_t *nbb);
	void nic_transmit(const std::vector<uint8_t> &frame);
	void nic_transmit_accepted(const std::vector<uint8_t> &frame);
	void nic_complete_sq(NicSq &sq, uint16_t wqe_counter, uint8_t opcode, uint8_t syndrome);

	// nic_recv.cc: a frame through flow steering into an RQ.
	void receive_frame_now(const std::vector<uint8_t> &frame);
	void receive_accepted(const std::vector<uint8_t> &frame);
	void nic_deliver(uint32_t tirn, const std::vector<uint8_t> &frame, const steer::Headers &h,
			 uint32_t flow_tag);
	bool nic_fill_rq(NicRq &rq, const std::vector<uint8_t> &frame, const steer::Headers &h,
			 uint32_t rss_hash, uint8_t hash_type, uint32_t flow_tag);

	// roce.cc
	bool roce_receive(const std::vector<uint8_t> &frame);
	void roce_loopback(const std::vector<uint8_t> &frame);
	bool roce_own_mac(const std::array<uint8_t, 6> &mac) const;

	DataPath &dp_;
	uint32_t eth_port_ = 0; // switch port number (0: not on the switch)
	bool eth_up_ = false;
	uint16_t eth_hw_mtu_ = 1500 + 26;
	steer::VportAcl acl_;
	steer::Eswitch *esw_ = nullptr;
	uint16_t esw_vport_ = 0;
	EthCounters eth_;
	// RoCE
	std::array<RoceGid, kRoceGids> gids_{};
	bool roce_en_ = false;
	bool uc_local_lb_disabled_ = false;
	uint32_t lb_queued_ = 0;
	RoceCounters roce_;
};

} // namespace mlx5emu
