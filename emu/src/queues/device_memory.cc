// SPDX-License-Identifier: GPL-2.0
// On-device memory (MEMIC): see device_memory.h.
#include "queues/device_memory.h"

#include <bit>
#include <algorithm>
#include <cstddef>
#include <cstring>

namespace mlx5emu {

DeviceMemory::DeviceMemory(uint64_t bar_offset, uint32_t size) : base_(bar_offset), mem_(size, 0) {}

uint8_t DeviceMemory::max_log_alignment() const
{
	// Aligned to the whole window at most.
	unsigned log = std::bit_width(mem_.size()) - 1;
	return static_cast<uint8_t>(log > 6 ? log - 6 : 0);
}

uint64_t DeviceMemory::bar_read(uint64_t bar_off, unsigned size) const
{
	uint64_t v = 0;
	std::lock_guard<std::mutex> lk(mu_);
	if (contains(bar_off) && size <= 8 && bar_off - base_ + size <= mem_.size())
		std::memcpy(&v, &mem_[bar_off - base_], size);
	return v;
}

void DeviceMemory::bar_write(uint64_t bar_off, unsigned size, uint64_t value)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (contains(bar_off) && size <= 8 && bar_off - base_ + size <= mem_.size())
		std::memcpy(&mem_[bar_off - base_], &value, size);
}

DeviceMemory::Alloc DeviceMemory::alloc(uint64_t range_start, uint32_t range_size, uint32_t size,
					uint8_t log_alignment, uint64_t *addr)
{
	if (!size || size % kGranule || size > range_size || log_alignment > max_log_alignment())
		return Alloc::BadParam;
	if (!contains(range_start) || range_size > mem_.size() - (range_start - base_))
		return Alloc::BadParam;
	uint64_t align = uint64_t(kGranule) << log_alignment;
	uint64_t end = range_start + range_size;
	std::lock_guard<std::mutex> lk(mu_);
	uint64_t a = (range_start + align - 1) / align * align;
	while (a + size <= end) {
		// The first allocation ending after a, if it starts before a + size, is in the way.
		auto it = allocs_.upper_bound(a);
		if (it != allocs_.begin()) {
			auto prev = std::prev(it);
			if (prev->first + prev->second > a) {
				a = (prev->first + prev->second + align - 1) / align * align;
				continue;
			}
		}
		if (it != allocs_.end() && it->first < a + size) {
			a = (it->first + it->second + align - 1) / align * align;
			continue;
		}
		allocs_.emplace(a, size);
		// A new owner finds it zeroed, never what the previous one left.
		std::fill_n(mem_.begin() + static_cast<std::ptrdiff_t>(a - base_), size, uint8_t{0});
		*addr = a;
		return Alloc::Ok;
	}
	return Alloc::NoRoom;
}

bool DeviceMemory::dealloc(uint64_t addr, uint32_t size)
{
	std::lock_guard<std::mutex> lk(mu_);
	auto it = allocs_.find(addr);
	if (it == allocs_.end() || it->second != size)
		return false;
	allocs_.erase(it);
	return true;
}

bool DeviceMemory::allocated_locked(uint64_t addr, uint64_t len) const
{
	auto it = allocs_.upper_bound(addr);
	if (it == allocs_.begin())
		return false;
	--it;
	return addr + len >= addr && addr + len <= it->first + it->second;
}

bool DeviceMemory::allocated(uint64_t addr, uint64_t len) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return allocated_locked(addr, len);
}

size_t DeviceMemory::allocations() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return allocs_.size();
}

bool DeviceMemory::read(uint64_t addr, void *dst, size_t len) const
{
	std::lock_guard<std::mutex> lk(mu_);
	if (!allocated_locked(addr, len))
		return false;
	std::memcpy(dst, &mem_[addr - base_], len);
	return true;
}

bool DeviceMemory::write(uint64_t addr, const void *src, size_t len)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (!allocated_locked(addr, len))
		return false;
	std::memcpy(&mem_[addr - base_], src, len);
	return true;
}

void DeviceMemory::clear()
{
	std::lock_guard<std::mutex> lk(mu_);
	allocs_.clear();
	std::fill(mem_.begin(), mem_.end(), 0);
}

} // namespace mlx5emu
