// SPDX-License-Identifier: GPL-2.0
// GuestMemory::copy_from through a bounce buffer, for views that cannot
// name their host memory; the calling thread's holds.
#include "dma/guest_memory.h"

#include <algorithm>

namespace mlx5emu {

namespace {
// The memories the calling thread holds and how many times: a thread
// holds at most a few (a burst's receiver and senders).
struct ThreadHolds {
	static constexpr unsigned kSlots = 8;
	const GuestMemory *mem[kSlots];
	unsigned count[kSlots];
	unsigned n = 0;

	int find(const GuestMemory *m) const
	{
		for (unsigned i = 0; i < n; ++i)
			if (mem[i] == m)
				return int(i);
		return -1;
	}
};
thread_local ThreadHolds tl_holds;
} // namespace

GuestMemory::Hold GuestMemory::note_hold() const
{
	ThreadHolds &h = tl_holds;
	int i = h.find(this);
	if (i >= 0) {
		++h.count[i];
		return Hold::Again;
	}
	if (h.n == ThreadHolds::kSlots)
		return Hold::None;
	h.mem[h.n] = this;
	h.count[h.n++] = 1;
	return Hold::First;
}

GuestMemory::Hold GuestMemory::note_release() const
{
	ThreadHolds &h = tl_holds;
	int i = h.find(this);
	if (i < 0)
		return Hold::None;
	if (--h.count[i])
		return Hold::Again;
	h.mem[i] = h.mem[h.n - 1];
	h.count[i] = h.count[h.n - 1];
	--h.n;
	return Hold::Last;
}

bool GuestMemory::held_here() const
{
	const ThreadHolds &h = tl_holds;
	return h.n && h.find(this) >= 0;
}

GuestMemory::Copy GuestMemory::copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len)
{
	GuestMemory *s = src.source();
	if (!s)
		return Copy::BadSource;
	uint8_t b[4096];
	for (size_t done = 0; done < len;) {
		size_t n = std::min(sizeof b, len - done);
		if (!s->read(src_iova + done, b, n))
			return Copy::BadSource;
		if (!write(iova + done, b, n))
			return Copy::BadDest;
		done += n;
	}
	return Copy::Ok;
}

} // namespace mlx5emu
