// SPDX-License-Identifier: GPL-2.0
// On-device memory (MEMIC): a window at the top of BAR0 that software maps
// and writes with the CPU, that ALLOC_MEMIC / DEALLOC_MEMIC carve into
// allocations, and that the data path reads and writes through MEMIC
// memory keys (queues/mkey.cc). Its own lock: the BAR path (vfio-user
// thread) and the data path (engine) both touch it; nothing else is
// taken while it is held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace mlx5emu {

class DeviceMemory {
public:
	// Allocations are multiples of this and start at multiples of
	// kGranule << log_alignment (PRM: 64 bytes * 2^log_memic_addr_alignment).
	static constexpr uint32_t kGranule = 64;

	enum class Alloc { Ok, BadParam, NoRoom };

	// `size` bytes at BAR0 offset `bar_offset` (both multiples of 4 KiB).
	DeviceMemory(uint64_t bar_offset, uint32_t size);

	uint64_t bar_offset() const { return base_; }
	uint32_t size() const { return static_cast<uint32_t>(mem_.size()); }
	// The largest log_memic_addr_alignment ALLOC_MEMIC takes.
	uint8_t max_log_alignment() const;
	bool contains(uint64_t bar_off) const { return bar_off >= base_ && bar_off - base_ < mem_.size(); }

	// CPU accesses through BAR0 (1, 2, 4 or 8 bytes, little-endian as
	// the bytes lie in memory). Outside the window: reads 0, writes dropped.
	uint64_t bar_read(uint64_t bar_off, unsigned size) const;
	void bar_write(uint64_t bar_off, unsigned size, uint64_t value);

	// ALLOC_MEMIC: `size` bytes (a multiple of kGranule) at the lowest
	// address aligned to kGranule << log_alignment inside
	// [range_start, range_start + range_size) that no allocation uses;
	// *addr gets its BAR0 offset.
	Alloc alloc(uint64_t range_start, uint32_t range_size, uint32_t size, uint8_t log_alignment,
		    uint64_t *addr);
	// DEALLOC_MEMIC: exactly an allocation.
	bool dealloc(uint64_t addr, uint32_t size);
	// True if [addr, addr + len) lies inside one allocation.
	bool allocated(uint64_t addr, uint64_t len) const;
	size_t allocations() const;

	// Data path: [addr, addr + len) (BAR0 offsets) inside one allocation.
	bool read(uint64_t addr, void *dst, size_t len) const;
	bool write(uint64_t addr, const void *src, size_t len);

	// Function reset: no allocation, memory zeroed.
	void clear();

private:
	bool allocated_locked(uint64_t addr, uint64_t len) const;

	mutable std::mutex mu_;
	uint64_t base_;
	std::vector<uint8_t> mem_;
	std::map<uint64_t, uint32_t> allocs_; // BAR0 offset -> size
};

} // namespace mlx5emu
