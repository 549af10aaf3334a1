// SPDX-License-Identifier: GPL-2.0
// GuestMemory::copy_from through a bounce buffer, for views that cannot
// name their host memory.
#include "dma/guest_memory.h"

#include <algorithm>

namespace mlx5emu {

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
