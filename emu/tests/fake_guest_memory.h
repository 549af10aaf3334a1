// SPDX-License-Identifier: GPL-2.0
// Test doubles: guest memory backed by a host buffer, and an interrupt sink
// that records every vector raised.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "dma/guest_memory.h"
#include "irq/interrupt_sink.h"
#include "poll_for.h"

namespace mlx5emu::test {

// One contiguous window [base, base + size) of guest "physical" memory,
// plus a bump allocator for the test's own structures. Anything outside the
// window is unmapped.
class FakeGuestMemory : public GuestMemory {
public:
	// calloc: large zeroed allocations come straight from the kernel,
	// which keeps building many of these cheap.
	explicit FakeGuestMemory(uint64_t base = 0x100000000ull, size_t size = 64u << 20)
		: base_(base), size_(size), mem_(static_cast<uint8_t *>(std::calloc(size, 1))), next_(base)
	{
	}
	~FakeGuestMemory() override { std::free(mem_); }
	FakeGuestMemory(const FakeGuestMemory &) = delete;
	FakeGuestMemory &operator=(const FakeGuestMemory &) = delete;

	// Reads share the lock (as DmaMapTable's do), writes take it alone:
	// a poller never sees half of a CQE.
	bool read(uint64_t iova, void *dst, size_t len) override
	{
		auto lk = shared_lock();
		if (!mapped(iova, len))
			return false;
		std::memcpy(dst, &mem_[iova - base_], len);
		return true;
	}

	bool write(uint64_t iova, const void *src, size_t len) override
	{
		if (shared_writes_) {
			auto lk = shared_lock();
			if (!mapped(iova, len))
				return false;
			std::memcpy(&mem_[iova - base_], src, len);
			return true;
		}
		if (before_write_)
			before_write_(iova, len);
		std::unique_lock<std::shared_mutex> lk(mu_);
		if (!mapped(iova, len))
			return false;
		std::memcpy(&mem_[iova - base_], src, len);
		return true;
	}

	// One memcpy from the source's memory into this window (a memmove
	// inside it when the source is this window).
	Copy copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len) override
	{
		GuestMemory *s = src.source();
		if (!s)
			return Copy::BadSource;
		std::shared_lock<std::shared_mutex> shared(mu_, std::defer_lock);
		std::unique_lock<std::shared_mutex> alone(mu_, std::defer_lock);
		if (!shared_writes_)
			alone.lock();
		else if (!held_here())
			shared.lock();
		if (!mapped(iova, len))
			return Copy::BadDest;
		if (s == this) {
			if (!mapped(src_iova, len))
				return Copy::BadSource;
			std::memmove(&mem_[iova - base_], &mem_[src_iova - base_], len);
			return Copy::Ok;
		}
		++copies_from_;
		return s->read(src_iova, &mem_[iova - base_], len) ? Copy::Ok : Copy::BadSource;
	}
	// What the host CPU does to its own RAM, where a driver or the
	// harness writes WQEs and reads CQEs: no lock with share_writes()
	// (the device's DMA takes its table's lock; the CPU never does),
	// as write() / bytes() otherwise.
	bool cpu_write(uint64_t iova, const void *src, size_t len)
	{
		if (!shared_writes_)
			return write(iova, src, len);
		if (!mapped(iova, len))
			return false;
		std::memcpy(&mem_[iova - base_], src, len);
		return true;
	}
	std::vector<uint8_t> cpu_bytes(uint64_t iova, size_t len)
	{
		if (!shared_writes_)
			return bytes(iova, len);
		std::vector<uint8_t> v(len);
		if (mapped(iova, len))
			std::memcpy(v.data(), &mem_[iova - base_], len);
		return v;
	}

	// As DmaMapTable's, with share_writes() only (writes take the lock
	// alone otherwise, which a thread holding it shared would wait for).
	void hold() override
	{
		if (shared_writes_ && note_hold() == Hold::First)
			mu_.lock_shared();
	}
	void release() override
	{
		if (note_release() == Hold::Last)
			mu_.unlock_shared();
	}

	// Writes and copies share the lock as DmaMapTable's do (the device's
	// own writes then cost what they cost against real guest memory):
	// for benchmarks, whose pollers read only CQEs, which the device
	// writes body first (peek). Tests keep writes exclusive, so a test
	// reading a structure while the device writes it never sees half.
	void share_writes(bool on) { shared_writes_ = on; }
	// Called on the writer's thread just before each write() lands (not
	// under the lock): lets a test see what else the device has done by the
	// instant one of its writes becomes visible. Set it before the device
	// runs and leave it for the memory's lifetime; not with share_writes().
	void before_write(std::function<void(uint64_t iova, size_t len)> fn) { before_write_ = std::move(fn); }
	// copy_from calls that read another memory straight into this one.
	uint64_t copies_from() const { return copies_from_.load(); }

	// Allocate zeroed guest memory.
	uint64_t alloc(size_t len, size_t align = 64)
	{
		std::unique_lock<std::shared_mutex> lk(mu_);
		uint64_t a = (next_ + align - 1) / align * align;
		next_ = a + len;
		if (next_ > base_ + size_)
			return 0;
		std::memset(&mem_[a - base_], 0, len);
		return a;
	}

	// One byte as a CPU polling guest memory reads it: no lock, an
	// acquire load (the device writes a CQE's body before its op_own
	// byte). A poller spinning on the lock would bounce its cache line
	// against every DMA the device does, a cost no real host has.
	uint8_t peek(uint64_t iova) const
	{
		if (!mapped(iova, 1))
			return 0;
		return std::atomic_ref<uint8_t>(mem_[iova - base_]).load(std::memory_order_acquire);
	}

	uint8_t byte(uint64_t iova)
	{
		uint8_t b = 0;
		read(iova, &b, 1);
		return b;
	}
	std::vector<uint8_t> bytes(uint64_t iova, size_t len)
	{
		std::vector<uint8_t> v(len);
		read(iova, v.data(), len);
		return v;
	}
	uint64_t base() const { return base_; }
	size_t size() const { return size_; }

private:
	std::shared_lock<std::shared_mutex> shared_lock()
	{
		if (held_here())
			return std::shared_lock<std::shared_mutex>(mu_, std::defer_lock);
		return std::shared_lock<std::shared_mutex>(mu_);
	}
	bool mapped(uint64_t iova, size_t len) const
	{
		return iova >= base_ && len <= size_ && iova - base_ <= size_ - len;
	}

	// Read by every access, a CPU's polling included: a cache line that
	// the device's lock and counters do not share (else each DMA would
	// take it from the poller's core and back, a cost of the double).
	alignas(64) bool shared_writes_ = false;
	std::function<void(uint64_t, size_t)> before_write_;
	uint64_t base_;
	size_t size_;
	uint8_t *mem_;
	alignas(64) std::shared_mutex mu_;
	uint64_t next_;
	alignas(64) std::atomic<uint64_t> copies_from_{0};
};

class RecordingInterruptSink : public InterruptSink {
public:
	void raise(uint32_t vector) override
	{
		{
			std::lock_guard<std::mutex> lk(mu_);
			raised_.push_back(vector);
		}
		cv_.notify_all();
	}

	std::vector<uint32_t> raised() const
	{
		std::lock_guard<std::mutex> lk(mu_);
		return raised_;
	}
	size_t count() const
	{
		std::lock_guard<std::mutex> lk(mu_);
		return raised_.size();
	}
	size_t count(uint32_t vector) const
	{
		std::lock_guard<std::mutex> lk(mu_);
		size_t n = 0;
		for (uint32_t v : raised_)
			n += v == vector;
		return n;
	}
	// Wait until at least `n` interrupts in total have been raised.
	bool wait_for(size_t n, std::chrono::milliseconds timeout = kPatience)
	{
		std::unique_lock<std::mutex> lk(mu_);
		return cv_.wait_for(lk, timeout, [&] { return raised_.size() >= n; });
	}
	// Wait until `vector` has been raised at least `n` times.
	bool wait_for_vector(uint32_t vector, size_t n, std::chrono::milliseconds timeout = kPatience)
	{
		std::unique_lock<std::mutex> lk(mu_);
		return cv_.wait_for(lk, timeout, [&] {
			size_t c = 0;
			for (uint32_t v : raised_)
				c += v == vector;
			return c >= n;
		});
	}
	void clear()
	{
		std::lock_guard<std::mutex> lk(mu_);
		raised_.clear();
	}

private:
	mutable std::mutex mu_;
	std::condition_variable cv_;
	std::vector<uint32_t> raised_;
};

} // namespace mlx5emu::test
