// SPDX-License-Identifier: GPL-2.0
#include "dma/dma_map_table.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <mutex>

namespace mlx5emu {

DmaMapTable::DmaMapTable(size_t max_mappings) : max_mappings_(max_mappings) {}

DmaMapTable::~DmaMapTable() { unmap_all(); }

void DmaMapTable::release(Mapping &m)
{
	if (m.mmap_base)
		::munmap(m.mmap_base, m.mmap_len);
	m.mmap_base = nullptr;
	m.host = nullptr;
}

int DmaMapTable::map(uint64_t iova, uint64_t size, uint64_t fd_offset, uint32_t access, int fd)
{
	if (size == 0 || iova + size < iova || (access & ~(kRead | kWrite)))
		return EINVAL;

	Mapping m;
	m.size = size;
	m.access = access;
	if (fd >= 0) {
		static const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
		uint64_t head = fd_offset & (page - 1);
		if (size > SIZE_MAX - head)
			return EINVAL;
		int prot = ((access & kRead) ? PROT_READ : 0) | ((access & kWrite) ? PROT_WRITE : 0);
		m.mmap_len = size_t(size + head);
		void *p = ::mmap(nullptr, m.mmap_len, prot ? prot : PROT_NONE, MAP_SHARED, fd,
				 off_t(fd_offset - head));
		if (p == MAP_FAILED)
			return errno;
		m.mmap_base = p;
		m.host = static_cast<uint8_t *>(p) + head;
	}

	std::unique_lock guard(lock_);
	int err = 0;
	if (maps_.size() >= max_mappings_) {
		err = ENOSPC;
	} else {
		// Overlap with the next mapping or with the one before.
		auto next = maps_.lower_bound(iova);
		if (next != maps_.end() && next->first < iova + size)
			err = EEXIST;
		if (next != maps_.begin()) {
			auto prev = std::prev(next);
			if (prev->first + prev->second.size > iova)
				err = EEXIST;
		}
	}
	if (err) {
		guard.unlock();
		release(m);
		return err;
	}
	maps_.emplace(iova, m);
	return 0;
}

int DmaMapTable::unmap(uint64_t iova, uint64_t size)
{
	Mapping m;
	{
		std::unique_lock guard(lock_);
		auto it = maps_.find(iova);
		if (it == maps_.end() || it->second.size != size)
			return ENOENT;
		m = it->second;
		maps_.erase(it);
	}
	// No reader can hold a pointer into it: readers copy under the lock.
	release(m);
	return 0;
}

void DmaMapTable::unmap_all()
{
	Map old;
	{
		std::unique_lock guard(lock_);
		old.swap(maps_);
	}
	for (auto &[iova, m] : old)
		release(m);
}

size_t DmaMapTable::size() const
{
	std::shared_lock guard(lock_);
	return maps_.size();
}

void DmaMapTable::hold()
{
	if (note_hold() == Hold::First)
		lock_.lock_shared();
}

void DmaMapTable::release()
{
	if (note_release() == Hold::Last)
		lock_.unlock_shared();
}

std::shared_lock<std::shared_mutex> DmaMapTable::access_lock() const
{
	if (held_here())
		return std::shared_lock<std::shared_mutex>(lock_, std::defer_lock);
	return std::shared_lock<std::shared_mutex>(lock_);
}

template <class Fn>
bool DmaMapTable::for_each_piece(uint64_t iova, size_t len, uint32_t access, Fn fn) const
{
	if (len == 0)
		return true;
	if (iova + len < iova)
		return false;

	auto first = maps_.upper_bound(iova);
	if (first == maps_.begin())
		return false;
	--first;

	// Check: every byte covered by contiguous, fd-backed mappings with access.
	uint64_t pos = iova, end = iova + len;
	auto it = first;
	while (pos < end) {
		if (it == maps_.end() || it->first > pos)
			return false;
		const Mapping &m = it->second;
		if (!m.host || (m.access & access) != access || it->first + m.size <= pos)
			return false;
		pos = it->first + m.size;
		++it;
	}
	// Copy.
	pos = iova;
	for (it = first; pos < end; ++it) {
		const Mapping &m = it->second;
		uint64_t in_map = pos - it->first;
		size_t chunk = size_t(std::min<uint64_t>(m.size - in_map, end - pos));
		fn(m.host + in_map, chunk);
		pos += chunk;
	}
	return true;
}

bool DmaMapTable::read(uint64_t iova, void *dst, size_t len)
{
	if (!bus_master())
		return false;
	auto guard = access_lock();
	auto *out = static_cast<uint8_t *>(dst);
	return for_each_piece(iova, len, kRead, [&](const uint8_t *host, size_t n) {
		std::memcpy(out, host, n);
		out += n;
	});
}

bool DmaMapTable::write(uint64_t iova, const void *src, size_t len)
{
	if (!bus_master())
		return false;
	auto guard = access_lock();
	auto *in = static_cast<const uint8_t *>(src);
	return for_each_piece(iova, len, kWrite, [&](uint8_t *host, size_t n) {
		std::memcpy(host, in, n);
		in += n;
	});
}

GuestMemory::Copy DmaMapTable::copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len)
{
	if (!bus_master())
		return Copy::BadDest;
	GuestMemory *s = src.source();
	if (!s)
		return Copy::BadSource;
	auto guard = access_lock();
	bool src_ok = true;
	size_t done = 0;
	bool dst_ok = for_each_piece(iova, len, kWrite, [&](uint8_t *host, size_t n) {
		if (!src_ok)
			return;
		if (s == this) // the lock is held: read the source pieces directly
			src_ok = for_each_piece(src_iova + done, n, kRead, [&](const uint8_t *from, size_t k) {
				std::memmove(host, from, k);
				host += k;
			});
		else
			src_ok = s->read(src_iova + done, host, n);
		done += n;
	});
	if (!dst_ok)
		return Copy::BadDest;
	return src_ok ? Copy::Ok : Copy::BadSource;
}

} // namespace mlx5emu
