// SPDX-License-Identifier: GPL-2.0
// Big-endian field access for PRM structures.
//
// Every firmware structure is a byte array of big-endian dwords. A field is
// named by (dword index, high bit, low bit) inside that dword, LSB = bit 0,
// so layouts in prm.h read like the tables of the hardware manual.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mlx5emu::bits {

struct Field {
	uint16_t dw; // dword index from the start of the structure
	uint8_t hi;  // most significant bit, 31..0
	uint8_t lo;  // least significant bit, lo <= hi

	constexpr unsigned width() const { return hi - lo + 1u; }
	constexpr uint32_t mask() const
	{
		return width() >= 32 ? 0xffffffffu : ((1u << width()) - 1u);
	}
	// The same field in a structure embedded at byte offset `byte_off`
	// (which must be dword aligned).
	constexpr Field at(size_t byte_off) const
	{
		return Field{static_cast<uint16_t>(dw + byte_off / 4), hi, lo};
	}
};

inline uint16_t load_be16(const uint8_t *p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t *p)
{
	return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
	       static_cast<uint32_t>(p[2]) << 8 | p[3];
}
inline uint64_t load_be64(const uint8_t *p)
{
	return static_cast<uint64_t>(load_be32(p)) << 32 | load_be32(p + 4);
}
inline void store_be16(uint8_t *p, uint16_t v)
{
	p[0] = static_cast<uint8_t>(v >> 8);
	p[1] = static_cast<uint8_t>(v);
}
inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = static_cast<uint8_t>(v >> 24);
	p[1] = static_cast<uint8_t>(v >> 16);
	p[2] = static_cast<uint8_t>(v >> 8);
	p[3] = static_cast<uint8_t>(v);
}
inline void store_be64(uint8_t *p, uint64_t v)
{
	store_be32(p, static_cast<uint32_t>(v >> 32));
	store_be32(p + 4, static_cast<uint32_t>(v));
}

inline uint32_t get(const uint8_t *base, Field f)
{
	return (load_be32(base + 4u * f.dw) >> f.lo) & f.mask();
}
inline void set(uint8_t *base, Field f, uint32_t v)
{
	uint8_t *p = base + 4u * f.dw;
	uint32_t m = f.mask() << f.lo;
	store_be32(p, (load_be32(p) & ~m) | ((v << f.lo) & m));
}

// Range-checked variants for buffers whose length comes from the guest:
// reads past the end yield 0, writes past the end are dropped.
inline uint32_t get(const uint8_t *base, size_t len, Field f)
{
	return 4u * f.dw + 4u <= len ? get(base, f) : 0u;
}
inline void set(uint8_t *base, size_t len, Field f, uint32_t v)
{
	if (4u * f.dw + 4u <= len)
		set(base, f, v);
}

} // namespace mlx5emu::bits
