// SPDX-License-Identifier: GPL-2.0
// How one VFIO region of the function looks to the client: size, access,
// and (for BARs with shared-memory pages) the mmap-able areas of a file.
#pragma once

#include <cstdint>
#include <vector>

namespace mlx5emu::pci {

struct MmapArea {
	uint64_t offset; // within the region
	uint64_t size;
};

struct RegionDescription {
	uint64_t size = 0; // 0 = not implemented
	bool readable = false;
	bool writable = false;
	// Sparse mmap: areas of the region backed by mmap_fd (borrowed, owned by
	// the function), at file offset mmap_offset + area.offset. Empty = fully
	// trapped.
	std::vector<MmapArea> mmap_areas;
	int mmap_fd = -1;
	uint64_t mmap_offset = 0;

	bool mappable() const { return !mmap_areas.empty() && mmap_fd >= 0; }
};

} // namespace mlx5emu::pci
