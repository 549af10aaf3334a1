// SPDX-License-Identifier: GPL-2.0
// CRC-32 (IEEE 802.3, reflected polynomial 0xedb88320), the raw update
// step: callers start from ~0 and invert at the end for the usual CRC-32
// (zlib's, Ethernet's), or keep the register as RoCE's ICRC needs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mlx5emu {

inline uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	static const auto table = [] {
		std::array<uint32_t, 256> t{};
		for (uint32_t i = 0; i < 256; ++i) {
			uint32_t c = i;
			for (int k = 0; k < 8; ++k)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			t[i] = c;
		}
		return t;
	}();
	for (size_t i = 0; i < n; ++i)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

} // namespace mlx5emu
