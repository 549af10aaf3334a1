// SPDX-License-Identifier: GPL-2.0
// The L2-L4 headers of an Ethernet frame, parsed once per frame and used
// by the match engine (match.cc), the RSS hash (rss.cc), the receive CQE
// (checksums, packet type) and the send path (checksum offload, LSO).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlx5emu::steer {

namespace ethertype {
constexpr uint16_t IPV4 = 0x0800, IPV6 = 0x86dd, VLAN = 0x8100, QINQ = 0x88a8, ARP = 0x0806;
}
namespace ipproto {
constexpr uint8_t TCP = 6, UDP = 17, ICMP = 1, ICMPV6 = 58;
}

struct Headers {
	uint8_t dmac[6] = {}, smac[6] = {};
	bool cvlan = false, svlan = false;
	uint16_t vlan_tci = 0;      // the first VLAN tag's TCI
	uint16_t ethertype = 0;     // after the VLAN tags
	unsigned l3_off = 0;        // 0: no L3 header parsed
	uint8_t ip_version = 0;     // 4, 6 or 0
	uint8_t ip_proto = 0;
	uint8_t dscp = 0, ecn = 0, ttl = 0;
	bool frag = false;
	uint8_t src_ip[16] = {}, dst_ip[16] = {}; // IPv4 in the last 4 bytes
	unsigned l3_len = 0;        // IPv4 total length / IPv6 40 + payload length
	unsigned l4_off = 0;        // 0: no L4 header parsed (or a fragment)
	uint16_t sport = 0, dport = 0;
	uint16_t tcp_flags = 0;
	unsigned l4_hdr_len = 0;    // TCP data offset * 4, UDP 8

	bool is_tcp() const { return l4_off && ip_proto == ipproto::TCP; }
	bool is_udp() const { return l4_off && ip_proto == ipproto::UDP; }
	bool broadcast() const;
	bool multicast() const { return dmac[0] & 1; }
};

// Parses what it can of `len` bytes; a truncated or unknown header stops
// the parse there (the fields after it stay 0).
Headers parse_headers(const uint8_t *frame, size_t len);

// The Internet checksum (RFC 1071) of `len` bytes folded with `sum`.
uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len);
uint16_t csum_fold(uint32_t sum);
// The L4 pseudo-header sum of an IPv4 or IPv6 packet for `l4_len` bytes.
uint32_t pseudo_header_sum(const Headers &h, unsigned l4_len);
// True when the IPv4 header checksum / the TCP or UDP checksum of the
// frame verify (UDP checksum 0 on IPv4 counts as good).
bool ipv4_csum_ok(const uint8_t *frame, size_t len, const Headers &h);
bool l4_csum_ok(const uint8_t *frame, size_t len, const Headers &h);

} // namespace mlx5emu::steer
