// SPDX-License-Identifier: GPL-2.0
// RoCE framing: a transport packet (fabric/packet.h) as an Ethernet frame
// and back. RoCEv2: Ethernet [VLAN] / IPv4 or IPv6 / UDP (destination
// port 4791) / BTH / extended headers / payload / pad / ICRC. RoCEv1:
// Ethernet [VLAN] / ethertype 0x8915 / GRH / BTH ... / ICRC. The GID table
// entry (SET_ROCE_ADDRESS) a packet is sent from decides the version, the
// IP version, the source MAC and the VLAN.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fabric/packet.h"

namespace mlx5emu {

namespace roce {
constexpr uint16_t kUdpPort = 4791;
constexpr uint16_t kEthertypeV1 = 0x8915;
constexpr uint8_t VERSION_1 = 0, VERSION_2 = 2;  // roce_addr_layout.roce_version
constexpr uint8_t L3_IPV4 = 0, L3_IPV6 = 1;      // roce_addr_layout.roce_l3_type
constexpr uint8_t CQE_GRH = 0, CQE_IPV6 = 1, CQE_IPV4 = 2; // CQE flags_rqpn[25:24]
} // namespace roce

// One GID table entry (roce_addr_layout). All-zero address: empty.
struct RoceGid {
	Gid gid{};
	std::array<uint8_t, 6> mac{};
	bool vlan_valid = false;
	uint16_t vlan_id = 0;
	uint8_t version = roce::VERSION_1;
	uint8_t l3_type = roce::L3_IPV4;

	bool valid() const;
	// RoCEv2 over IPv4 (an IPv4-mapped address).
	bool ipv4() const { return version == roce::VERSION_2 && l3_type == roce::L3_IPV4; }
};

// ::ffff:a.b.c.d
bool is_ipv4_mapped(const Gid &g);

// The frame of `p` sent from GID entry `src` to MAC `dmac`: p.grh gives
// the destination GID, traffic class (IPv4 TOS: DSCP and ECN), flow label
// and hop limit (TTL); p.roce.udp_sport the UDP source port (RoCEv2).
std::vector<uint8_t> roce_encode(const Packet &p, const RoceGid &src, const std::array<uint8_t, 6> &dmac);

// The packet in a RoCE frame. False when the frame is not RoCE (not
// ethertype 0x8915, not UDP to port 4791) or is malformed (lengths,
// opcode, ICRC); *is_roce says whether it was RoCE at all.
bool roce_decode(const uint8_t *frame, size_t len, Packet *p, bool *is_roce);

// The ICRC of a RoCE frame whose network header starts at `l3` (the
// invariant fields: the variant ones masked to ones, IBA A17.3.3).
uint32_t roce_icrc(const uint8_t *frame, size_t len, size_t l3, bool v1);

} // namespace mlx5emu
