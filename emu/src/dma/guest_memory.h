// SPDX-License-Identifier: GPL-2.0
// Guest memory as the device sees it: DMA reads and writes by IOVA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlx5emu {

// Abstract DMA window into guest RAM. The vfio-user transport provides the
// real one (memfd regions from DMA_MAP); unit tests provide a fake.
class GuestMemory {
public:
	virtual ~GuestMemory() = default;
	// Copy len bytes from guest address iova into dst. Returns false (and
	// copies nothing) when any byte of the range is not mapped.
	virtual bool read(uint64_t iova, void *dst, size_t len) = 0;
	// Copy len bytes from src to guest address iova. Returns false (and
	// writes nothing) when any byte of the range is not mapped writable.
	virtual bool write(uint64_t iova, const void *src, size_t len) = 0;
};

} // namespace mlx5emu
