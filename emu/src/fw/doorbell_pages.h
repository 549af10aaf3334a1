// SPDX-License-Identifier: GPL-2.0
// Polled UAR pages: the part of BAR0 that QEMU maps from shared memory
// (a sparse-mmap area of a memfd), so that a doorbell or BlueFlame write
// is a plain store that never leaves the guest, and the emulator finds it
// by looking (fw/doorbell_poller.h).
//
// Every doorbell register of a live page (one allocated with ALLOC_UAR)
// holds all-ones while empty: no doorbell a driver writes is all-ones (the
// object number fields would exceed every limit the device advertises).
// take() swaps a register back to all-ones atomically, so a store lands
// either before the swap (taken now) or after it (taken next time), never
// in between. A store that overwrites another the emulator has not taken
// yet replaces it; the data path recovers such doorbells from the queues'
// doorbell records (DataPath::sweep_uar).
//
// Registers (offsets in the page): +0x20 the CQ doorbell (8 bytes),
// +0x40 / +0x48 the EQ arm and CI doorbells (4 bytes each), +0x800 +
// k * 0x100 (k = 0..7) the first 8 bytes of each half of the four
// BlueFlame registers (send doorbells). Doorbells must be single 8-byte
// stores here (two 4-byte halves are taken as two bad doorbells).
//
// Threads: the firmware worker opens and closes pages; the poller thread
// takes doorbells. The live bits are atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace mlx5emu {

class DoorbellPages {
public:
	// Shared memory as large as BAR0 (file offset = BAR0 offset), of
	// which pages [first, end) are polled. Check ok() afterwards.
	DoorbellPages(uint64_t bar0_size, uint32_t first, uint32_t end);
	~DoorbellPages();
	DoorbellPages(const DoorbellPages &) = delete;
	DoorbellPages &operator=(const DoorbellPages &) = delete;

	bool ok() const { return base_ != nullptr; }
	const std::string &error() const { return error_; }
	int fd() const { return fd_; }
	uint32_t first() const { return first_; }
	uint32_t end() const { return end_; }
	bool polled(uint32_t page) const { return page >= first_ && page < end_; }

	// ALLOC_UAR: the page zeroed, registers emptied, then polled. DEALLOC_UAR / reset: no
	// longer polled (what is still in it is dropped).
	void open_page(uint32_t page);
	void close_page(uint32_t page);
	void close_all();

	struct Register {
		uint16_t offset;
		uint8_t size;
	};
	static constexpr Register kRegisters[] = {
		{0x20, 8}, {0x40, 4}, {0x48, 4}, {0x800, 8}, {0x900, 8}, {0xa00, 8},
		{0xb00, 8}, {0xc00, 8}, {0xd00, 8}, {0xe00, 8}, {0xf00, 8},
	};

	// Calls fn(page, offset, size, value) for every doorbell written to a
	// live page since the last call, value as the bytes lie in memory
	// (little-endian host order, as a trapped write delivers them).
	// Returns how many.
	template <class Fn> unsigned take(Fn &&fn)
	{
		unsigned n = 0;
		for (uint32_t w = first_ / 64; w < words_; ++w) {
			uint64_t bits = live_[w].load(std::memory_order_acquire);
			while (bits) {
				uint32_t page = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
				bits &= bits - 1;
				n += take_page(page, fn);
			}
		}
		return n;
	}

	// The memory of a page (tests write doorbells here as a guest would).
	uint8_t *page_memory(uint32_t page) { return base_ + static_cast<uint64_t>(page) * 4096; }

private:
	template <class Fn> unsigned take_page(uint32_t page, Fn &fn)
	{
		unsigned n = 0;
		uint8_t *p = page_memory(page);
		for (const Register &r : kRegisters) {
			uint64_t v;
			if (r.size == 8) {
				auto *a = reinterpret_cast<uint64_t *>(p + r.offset);
				if (__atomic_load_n(a, __ATOMIC_ACQUIRE) == ~0ull)
					continue;
				v = __atomic_exchange_n(a, ~0ull, __ATOMIC_ACQ_REL);
			} else {
				auto *a = reinterpret_cast<uint32_t *>(p + r.offset);
				if (__atomic_load_n(a, __ATOMIC_ACQUIRE) == ~0u)
					continue;
				v = __atomic_exchange_n(a, ~0u, __ATOMIC_ACQ_REL);
			}
			fn(page, r.offset, r.size, v);
			++n;
		}
		return n;
	}

	uint64_t size_ = 0;
	uint32_t first_ = 0, end_ = 0, words_ = 0;
	int fd_ = -1;
	uint8_t *base_ = nullptr;
	std::unique_ptr<std::atomic<uint64_t>[]> live_;
	std::string error_;
};

} // namespace mlx5emu
