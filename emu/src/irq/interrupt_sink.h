// SPDX-License-Identifier: GPL-2.0
// Where the device's MSI-X messages go.
#pragma once

#include <cstdint>

namespace mlx5emu {

class InterruptSink {
public:
	virtual ~InterruptSink() = default;
	// Raise MSI-X table entry `vector`. A vector without a registered
	// eventfd is dropped (and counted) by the implementation.
	virtual void raise(uint32_t vector) = 0;
};

} // namespace mlx5emu
