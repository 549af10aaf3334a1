// SPDX-License-Identifier: GPL-2.0
#include "steer/rss.h"

#include <algorithm>
#include <cstring>

#include "prm/eth.h"

namespace mlx5emu::steer {

namespace tc = prm::tirc;

uint32_t toeplitz(const std::array<uint8_t, 40> &key, const uint8_t *in, unsigned len)
{
	uint32_t result = 0;
	// The 32-bit window of the key starting at bit i of the input.
	uint32_t window = static_cast<uint32_t>(key[0]) << 24 | key[1] << 16 | key[2] << 8 | key[3];
	unsigned next = 4;
	for (unsigned i = 0; i < len; ++i) {
		for (int b = 7; b >= 0; --b) {
			if (in[i] >> b & 1)
				result ^= window;
			window <<= 1;
			unsigned kbit = (i * 8 + (7 - b));           // key bit entering the window
			unsigned byte = next + kbit / 8;
			if (byte < key.size() && (key[byte] >> (7 - kbit % 8) & 1))
				window |= 1;
		}
	}
	return result;
}

uint32_t rss_hash(const RssConfig &c, const Headers &h, uint8_t *hash_type)
{
	*hash_type = 0;
	if (c.fn == tc::HASH_NONE || !h.ip_version || h.ip_version != (c.l3_ipv6 ? 6 : 4))
		return 0;
	uint8_t in[36];
	unsigned n = 0;
	unsigned alen = h.ip_version == 4 ? 4 : 16;
	const uint8_t *src = h.ip_version == 4 ? h.src_ip + 12 : h.src_ip;
	const uint8_t *dst = h.ip_version == 4 ? h.dst_ip + 12 : h.dst_ip;
	uint16_t sport = h.sport, dport = h.dport;
	bool ports = (c.fields & (tc::SEL_L4_SPORT | tc::SEL_L4_DPORT)) &&
		     (c.l4_udp ? h.is_udp() : h.is_tcp());
	if (c.symmetric) {
		// The same hash for both directions: order the pairs.
		if (std::memcmp(src, dst, alen) > 0)
			std::swap(src, dst);
		if (sport > dport)
			std::swap(sport, dport);
	}
	if (c.fields & tc::SEL_SRC_IP) {
		std::memcpy(in + n, src, alen);
		n += alen;
	}
	if (c.fields & tc::SEL_DST_IP) {
		std::memcpy(in + n, dst, alen);
		n += alen;
	}
	if (ports && (c.fields & tc::SEL_L4_SPORT)) {
		in[n++] = static_cast<uint8_t>(sport >> 8);
		in[n++] = static_cast<uint8_t>(sport);
	}
	if (ports && (c.fields & tc::SEL_L4_DPORT)) {
		in[n++] = static_cast<uint8_t>(dport >> 8);
		in[n++] = static_cast<uint8_t>(dport);
	}
	if (!n)
		return 0;
	*hash_type = static_cast<uint8_t>((h.ip_version == 4 ? 1 : 2) << 2 | (ports ? (c.l4_udp ? 2 : 1) : 0) << 6);
	if (c.fn == tc::HASH_TOEPLITZ)
		return toeplitz(c.key, in, n);
	uint8_t x = 0;
	for (unsigned i = 0; i < n; ++i)
		x ^= in[i];
	return static_cast<uint8_t>(~x);
}

} // namespace mlx5emu::steer
