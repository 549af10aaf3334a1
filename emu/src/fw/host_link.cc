// SPDX-License-Identifier: GPL-2.0
// The function's link to the host (fw/host_link.h).
#include "fw/host_link.h"

namespace mlx5emu {

bool HostLink::read(uint64_t iova, void *dst, size_t len)
{
	if (is_cut()) {
		lost_.fetch_add(1, std::memory_order_relaxed);
		return false;
	}
	return mem_.read(iova, dst, len);
}

bool HostLink::write(uint64_t iova, const void *src, size_t len)
{
	if (is_cut()) {
		lost_.fetch_add(1, std::memory_order_relaxed);
		return false;
	}
	return mem_.write(iova, src, len);
}

GuestMemory::Copy HostLink::copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len)
{
	if (is_cut()) {
		lost_.fetch_add(1, std::memory_order_relaxed);
		return Copy::BadDest;
	}
	return mem_.copy_from(iova, src, src_iova, len);
}

void HostLink::raise(uint32_t vector)
{
	if (is_cut()) {
		lost_.fetch_add(1, std::memory_order_relaxed);
		return;
	}
	irq_.raise(vector);
}

} // namespace mlx5emu
