// SPDX-License-Identifier: GPL-2.0
// A queue buffer in guest memory described by a page list (the `pas` of a
// CREATE_* command): byte offsets of the queue map to guest addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlx5emu {

class GuestMemory;

struct PageList {
	uint32_t log_page = 12; // log2 of the page size in bytes
	uint64_t offset = 0;    // byte offset of the queue in the first page
	std::vector<uint64_t> pas;

	uint64_t page_size() const { return 1ull << log_page; }
	// Bytes the list can hold after `offset`.
	uint64_t capacity() const { return (static_cast<uint64_t>(pas.size()) << log_page) - offset; }
	// Pages needed for `bytes` of queue at `offset`.
	static size_t pages_for(uint64_t bytes, uint64_t offset, uint32_t log_page)
	{
		uint64_t page = 1ull << log_page;
		return static_cast<size_t>((offset + bytes + page - 1) / page);
	}

	// Copies across page boundaries; false if a byte lies outside the
	// list or the guest memory refuses the access.
	bool read(GuestMemory &mem, uint64_t off, void *dst, size_t len) const;
	bool write(GuestMemory &mem, uint64_t off, const void *src, size_t len) const;
};

// The `pas` array of a command: `n` big-endian addresses at `p`. False if
// one is zero or not aligned to the page.
bool parse_pas(const uint8_t *p, size_t n, uint32_t log_page, std::vector<uint64_t> *out);

} // namespace mlx5emu
