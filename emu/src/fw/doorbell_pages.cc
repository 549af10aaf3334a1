// SPDX-License-Identifier: GPL-2.0
#include "fw/doorbell_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mlx5emu {

DoorbellPages::DoorbellPages(uint64_t bar0_size, uint32_t first, uint32_t end)
	: size_(bar0_size), first_(first), end_(end), words_((end + 63) / 64)
{
	live_ = std::make_unique<std::atomic<uint64_t>[]>(words_);
	for (uint32_t i = 0; i < words_; ++i)
		live_[i].store(0);
	fd_ = ::memfd_create("mlx5-emu-uar", MFD_CLOEXEC);
	if (fd_ < 0 || ::ftruncate(fd_, static_cast<off_t>(size_)) < 0) {
		error_ = std::string("memfd for the UAR pages: ") + std::strerror(errno);
		return;
	}
	void *p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
	if (p == MAP_FAILED) {
		error_ = std::string("mmap of the UAR pages: ") + std::strerror(errno);
		return;
	}
	base_ = static_cast<uint8_t *>(p);
}

DoorbellPages::~DoorbellPages()
{
	if (base_)
		::munmap(base_, size_);
	if (fd_ >= 0)
		::close(fd_);
}

void DoorbellPages::open_page(uint32_t page)
{
	if (!ok() || !polled(page))
		return;
	// A new owner finds nothing of the previous one's (BlueFlame copies
	// of its WQEs): the page zeroed, then the registers emptied.
	uint8_t *p = page_memory(page);
	std::memset(p, 0, 4096);
	for (const Register &r : kRegisters)
		std::memset(p + r.offset, 0xff, r.size);
	live_[page / 64].fetch_or(1ull << (page % 64), std::memory_order_release);
}

void DoorbellPages::close_page(uint32_t page)
{
	if (!polled(page))
		return;
	live_[page / 64].fetch_and(~(1ull << (page % 64)), std::memory_order_release);
}

void DoorbellPages::close_all()
{
	for (uint32_t i = 0; i < words_; ++i)
		live_[i].store(0, std::memory_order_release);
}

} // namespace mlx5emu
