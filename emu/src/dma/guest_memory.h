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

	enum class Copy { Ok, BadSource, BadDest };
	// Copy len bytes from guest address src_iova as `src` sees guest RAM
	// (another device's view, or this one) to iova here: what one device
	// moving a payload from its host memory into another's does. Views
	// that can name their host memory copy once, source to destination;
	// this default goes through a bounce buffer. BadSource / BadDest: a
	// byte of that side is not mapped (bytes before it may be written).
	virtual Copy copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len);
	// The view a copy reads through when this is its source: itself, or
	// the memory a wrapper forwards to; null when it cannot be read now.
	virtual GuestMemory *source() { return this; }
};

} // namespace mlx5emu
