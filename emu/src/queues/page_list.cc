// SPDX-License-Identifier: GPL-2.0
#include "queues/page_list.h"

#include <algorithm>

#include "dma/guest_memory.h"
#include "prm/bits.h"

namespace mlx5emu {

namespace {

template <class Fn> bool for_each_chunk(const PageList &pl, uint64_t off, size_t len, Fn fn)
{
	uint64_t page = pl.page_size();
	uint64_t pos = pl.offset + off;
	size_t done = 0;
	while (done < len) {
		uint64_t idx = pos >> pl.log_page;
		if (idx >= pl.pas.size())
			return false;
		uint64_t in_page = pos & (page - 1);
		size_t n = static_cast<size_t>(std::min<uint64_t>(len - done, page - in_page));
		if (!fn(pl.pas[idx] + in_page, done, n))
			return false;
		done += n;
		pos += n;
	}
	return true;
}

} // namespace

bool PageList::read(GuestMemory &mem, uint64_t off, void *dst, size_t len) const
{
	auto *d = static_cast<uint8_t *>(dst);
	return for_each_chunk(*this, off, len, [&](uint64_t ga, size_t at, size_t n) { return mem.read(ga, d + at, n); });
}

bool PageList::write(GuestMemory &mem, uint64_t off, const void *src, size_t len) const
{
	auto *s = static_cast<const uint8_t *>(src);
	return for_each_chunk(*this, off, len, [&](uint64_t ga, size_t at, size_t n) { return mem.write(ga, s + at, n); });
}

bool parse_pas(const uint8_t *p, size_t n, uint32_t log_page, std::vector<uint64_t> *out)
{
	uint64_t mask = (1ull << log_page) - 1;
	out->clear();
	out->reserve(n);
	for (size_t i = 0; i < n; ++i) {
		uint64_t pa = bits::load_be64(p + 8 * i);
		if (!pa || (pa & mask))
			return false;
		out->push_back(pa);
	}
	return true;
}

} // namespace mlx5emu
