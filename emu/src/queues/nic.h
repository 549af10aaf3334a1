// SPDX-License-Identifier: GPL-2.0
// The NIC (Ethernet) queue objects of one function: send queues (SQ) bound
// to transport interface send objects (TIS), receive queues (RQ), RQ tables
// (RQT) and transport interface receive objects (TIR, direct to one RQ or
// spreading over an RQT by an RSS hash). Plain data; exec/ drives them and
// fw/cmd_nic.cc creates them. SQ and RQ numbers share the QP number space,
// as they do on a ConnectX (a CQE's qpn names an SQ or an RQ).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "queues/page_list.h"

namespace mlx5emu {

// The work-queue part of an SQ or RQ context.
struct WqConfig {
	uint8_t type = 0; // prm::wq::TYPE_*
	uint32_t pd = 0;
	uint32_t uar_page = 0;
	uint64_t dbr_addr = 0;
	uint8_t log_stride = 0; // bytes per WQE (RQ) or WQEBB (SQ, always 6)
	uint8_t log_size = 0;   // WQEs (RQ) or WQEBBs (SQ)
	PageList buf;

	uint32_t entries() const { return 1u << log_size; }
	uint32_t stride() const { return 1u << log_stride; }
	uint64_t bytes() const { return static_cast<uint64_t>(entries()) << log_stride; }
};

struct NicCounters {
	uint64_t packets = 0, bytes = 0, drops = 0, errors = 0, doorbells = 0, cqes = 0;
};

struct NicSq {
	uint32_t sqn = 0;
	uint8_t state = 0; // prm::wq_state
	uint32_t cqn = 0;
	uint32_t tisn = 0;
	uint32_t user_index = 0;
	uint8_t min_inline_mode = 0;
	bool rlky = false; // sqc.rlky: its data segments may name the reserved lkey
	WqConfig wq;
	// Run-time state.
	uint16_t pi = 0; // producer (WQEBBs) from doorbells
	uint16_t ci = 0; // next WQEBB to execute
	// The pacing timer of the vport's transmit rate (exec/nic_send.cc):
	// the SQ waits for it; 0: none pending.
	uint64_t pace_timer = 0;
	NicCounters ctr;
};

struct NicRq {
	uint32_t rqn = 0;
	uint8_t state = 0; // prm::wq_state
	uint32_t cqn = 0;
	uint32_t user_index = 0;
	bool vlan_strip = false; // !vsd
	bool scatter_fcs = false;
	uint8_t counter_set_id = 0;
	bool rlky = false; // rqc.rlky: its data segments may name the reserved lkey
	WqConfig wq;
	// Run-time state.
	uint16_t ci = 0;   // next WQE to fill (cyclic: a counter)
	uint16_t next = 0; // linked list: the index of the next WQE to fill
	NicCounters ctr;
	uint64_t out_of_buffer = 0;
};

struct Tis {
	uint32_t tisn = 0;
	uint32_t td = 0;
	uint8_t prio = 0;
};

struct Tir {
	uint32_t tirn = 0;
	uint32_t td = 0;
	uint8_t disp_type = 0; // prm::tirc::DISP_*
	uint32_t inline_rqn = 0;
	uint32_t rqtn = 0;
	uint8_t hash_fn = 0;   // prm::tirc::HASH_*
	bool hash_symmetric = false;
	uint8_t self_lb_block = 0;
	bool hash_l3_ipv6 = false; // selector l3_prot_type: 0 IPv4, 1 IPv6
	bool hash_l4_udp = false;  // selector l4_prot_type: 0 TCP, 1 UDP
	uint32_t hash_fields = 0;  // prm::tirc::SEL_*
	std::array<uint8_t, 40> toeplitz_key{};
};

struct Rqt {
	uint32_t rqtn = 0;
	uint32_t max_size = 0;
	std::vector<uint32_t> rqns;
};

} // namespace mlx5emu
