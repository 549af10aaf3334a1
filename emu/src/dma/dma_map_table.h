// SPDX-License-Identifier: GPL-2.0
// The DMA_MAP table of one PCI function: IOVA ranges the client mapped,
// each either mmap()ed from the fd that came with DMA_MAP (guest RAM in a
// memfd) or only recorded (no fd: ROM / peer BAR, not reachable here).
// It is also the device's GuestMemory: the firmware thread reads and writes
// through it while the socket thread maps and unmaps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <map>
#include <shared_mutex>

#include "dma/guest_memory.h"

namespace mlx5emu {

class DmaMapTable final : public GuestMemory {
public:
	static constexpr uint32_t kRead = 1u << 0;
	static constexpr uint32_t kWrite = 1u << 1;

	explicit DmaMapTable(size_t max_mappings = 65535);
	~DmaMapTable() override;
	DmaMapTable(const DmaMapTable &) = delete;
	DmaMapTable &operator=(const DmaMapTable &) = delete;

	// Maps [iova, iova+size). fd (borrowed; the caller closes it) is
	// mmap()ed MAP_SHARED at fd_offset with protection from access
	// (kRead|kWrite); fd < 0 records the range only. Returns 0 or an errno:
	// EINVAL (empty/overflowing range or bad access bits), EEXIST (overlap),
	// ENOSPC (table full), or mmap's errno.
	int map(uint64_t iova, uint64_t size, uint64_t fd_offset, uint32_t access, int fd);
	// Unmaps the mapping that exactly matches [iova, iova+size): 0 or ENOENT.
	// Waits for readers, so no reference to the range survives the call.
	int unmap(uint64_t iova, uint64_t size);
	void unmap_all();
	size_t size() const;

	bool read(uint64_t iova, void *dst, size_t len) override;
	bool write(uint64_t iova, const void *src, size_t len) override;
	// One memcpy from the source view's host memory into this table's
	// (both ranges under this table's lock when the source is this table).
	Copy copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len) override;
	// The table's lock, shared, for the calling thread's accesses until
	// release(): map() and unmap() wait for it.
	void hold() override;
	void release() override;

	// Bus Master Enable of the function's command register: while it is
	// clear the device must not touch guest memory, and every read or
	// write fails (a driver that cleared it may have freed the buffers).
	void set_bus_master(bool enabled) { bus_master_.store(enabled, std::memory_order_release); }
	bool bus_master() const { return bus_master_.load(std::memory_order_acquire); }

private:
	struct Mapping {
		uint64_t size = 0;
		uint32_t access = 0;
		uint8_t *host = nullptr;     // address of iova; null without fd
		void *mmap_base = nullptr;   // what munmap() takes
		size_t mmap_len = 0;
	};
	using Map = std::map<uint64_t, Mapping>; // by IOVA

	// Calls fn(host_ptr, chunk_len) for each piece of [iova, iova+len) if
	// every byte is mapped with `access`; returns false and calls nothing
	// otherwise. Caller holds lock_ (shared).
	template <class Fn> bool for_each_piece(uint64_t iova, size_t len, uint32_t access, Fn fn) const;
	// The lock for one access: shared, or nothing when this thread holds
	// the table (hold()).
	std::shared_lock<std::shared_mutex> access_lock() const;
	static void release(Mapping &m);

	std::atomic<bool> bus_master_{true};
	mutable std::shared_mutex lock_;
	Map maps_;
	size_t max_mappings_;
};

} // namespace mlx5emu
