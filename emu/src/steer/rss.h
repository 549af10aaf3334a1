// SPDX-License-Identifier: GPL-2.0
// Receive-side scaling: the hash a TIR computes over a frame's addresses
// and ports (Toeplitz or inverted XOR8) and the CQE hash type.
#pragma once

#include <array>
#include <cstdint>

#include "steer/headers.h"

namespace mlx5emu::steer {

struct RssConfig {
	uint8_t fn = 0;            // prm::tirc::HASH_*
	bool symmetric = false;
	bool l3_ipv6 = false;      // the TIR hashes IPv6 (else IPv4) packets
	bool l4_udp = false;       // the TIR hashes UDP (else TCP) ports
	uint32_t fields = 0;       // prm::tirc::SEL_*
	std::array<uint8_t, 40> key{};
};

uint32_t toeplitz(const std::array<uint8_t, 40> &key, const uint8_t *in, unsigned len);

// The hash of `h` and the CQE rss_hash_type ([3:2] IPv4 1 / IPv6 2,
// [7:6] TCP 1 / UDP 2); 0 and 0 when the TIR's selector does not apply.
uint32_t rss_hash(const RssConfig &c, const Headers &h, uint8_t *hash_type);

} // namespace mlx5emu::steer
