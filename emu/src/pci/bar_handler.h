// SPDX-License-Identifier: GPL-2.0
// The device side of a trapped memory BAR.
#pragma once

#include <cstdint>

namespace mlx5emu {

// Trapped BAR access. Offsets are relative to the BAR start; size is 1, 2,
// 4 or 8 and the value is in host (little-endian) order, exactly the bytes
// the guest CPU wrote, i.e. a big-endian register written with
// iowrite32be() arrives byte-swapped and the handler must be64toh/be32toh it.
class BarHandler {
public:
	virtual ~BarHandler() = default;
	virtual uint64_t bar_read(uint64_t offset, unsigned size) = 0;
	virtual void bar_write(uint64_t offset, unsigned size, uint64_t value) = 0;
	// DEVICE_RESET from the client, or the function being re-initialised.
	virtual void reset() = 0;
};

} // namespace mlx5emu
