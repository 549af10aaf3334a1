// SPDX-License-Identifier: GPL-2.0
#include "pci/config_space.h"

#include <cstring>

namespace mlx5emu::pci {

namespace {
bool in_range(uint32_t offset, uint32_t len) { return offset <= ConfigSpace::kSize && len <= ConfigSpace::kSize - offset; }
} // namespace

bool ConfigSpace::read(uint32_t offset, void *dst, uint32_t len) const
{
	if (!in_range(offset, len))
		return false;
	std::memcpy(dst, bytes_.data() + offset, len);
	return true;
}

bool ConfigSpace::write(uint32_t offset, const void *src, uint32_t len)
{
	if (!in_range(offset, len))
		return false;
	const auto *in = static_cast<const uint8_t *>(src);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t o = offset + i;
		uint8_t v = bytes_[o];
		v = uint8_t((v & ~writable_[o]) | (in[i] & writable_[o]));
		v = uint8_t(v & ~(in[i] & w1c_[o]));
		bytes_[o] = v;
	}
	return true;
}

uint8_t ConfigSpace::read8(uint32_t offset) const { return bytes_.at(offset); }

uint16_t ConfigSpace::read16(uint32_t offset) const
{
	return uint16_t(read8(offset) | read8(offset + 1) << 8);
}

uint32_t ConfigSpace::read32(uint32_t offset) const
{
	return uint32_t(read16(offset)) | uint32_t(read16(offset + 2)) << 16;
}

void ConfigSpace::set8(uint32_t offset, uint8_t v) { bytes_.at(offset) = v; }

void ConfigSpace::set16(uint32_t offset, uint16_t v)
{
	set8(offset, uint8_t(v));
	set8(offset + 1, uint8_t(v >> 8));
}

void ConfigSpace::set32(uint32_t offset, uint32_t v)
{
	set16(offset, uint16_t(v));
	set16(offset + 2, uint16_t(v >> 16));
}

void ConfigSpace::set_writable16(uint32_t offset, uint16_t mask)
{
	writable_.at(offset) = uint8_t(mask);
	writable_.at(offset + 1) = uint8_t(mask >> 8);
}

void ConfigSpace::set_writable32(uint32_t offset, uint32_t mask)
{
	set_writable16(offset, uint16_t(mask));
	set_writable16(offset + 2, uint16_t(mask >> 16));
}

void ConfigSpace::set_w1c16(uint32_t offset, uint16_t mask)
{
	w1c_.at(offset) = uint8_t(mask);
	w1c_.at(offset + 1) = uint8_t(mask >> 8);
}

void ConfigSpace::save_defaults() { defaults_ = bytes_; }
void ConfigSpace::restore_defaults() { bytes_ = defaults_; }

} // namespace mlx5emu::pci
