// SPDX-License-Identifier: GPL-2.0
// A PCI configuration space: 4096 bytes with a per-byte write mask and a
// per-byte write-1-to-clear mask. Reads and writes at any offset and size.
// Not thread-safe: only the connection thread touches config space.
#pragma once

#include <array>
#include <cstdint>

#include "pci/pci_defs.h"

namespace mlx5emu::pci {

class ConfigSpace {
public:
	static constexpr uint32_t kSize = kConfigSpaceSize;

	// False (nothing done) when [offset, offset+len) is outside the space.
	bool read(uint32_t offset, void *dst, uint32_t len) const;
	// Per byte: writable bits take the new value, write-1-to-clear bits are
	// cleared where the value has a 1, every other bit keeps its value.
	bool write(uint32_t offset, const void *src, uint32_t len);

	uint8_t read8(uint32_t offset) const;
	uint16_t read16(uint32_t offset) const;
	uint32_t read32(uint32_t offset) const;

	// Building the space (these ignore the masks).
	void set8(uint32_t offset, uint8_t v);
	void set16(uint32_t offset, uint16_t v);
	void set32(uint32_t offset, uint32_t v);
	void set_writable16(uint32_t offset, uint16_t mask);
	void set_writable32(uint32_t offset, uint32_t mask);
	void set_w1c16(uint32_t offset, uint16_t mask);

	// Remember the current contents as the power-on state / go back to it.
	void save_defaults();
	void restore_defaults();

private:
	std::array<uint8_t, kSize> bytes_{};
	std::array<uint8_t, kSize> defaults_{};
	std::array<uint8_t, kSize> writable_{};
	std::array<uint8_t, kSize> w1c_{};
};

} // namespace mlx5emu::pci
