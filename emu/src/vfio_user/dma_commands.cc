// SPDX-License-Identifier: GPL-2.0
// DMA_MAP / DMA_UNMAP: guest RAM ranges entering and leaving the device's
// view. An fd that came with DMA_MAP is mmap()ed then closed here.
#include <cerrno>
#include <cstring>

#include "vfio_user/commands.h"
#include "util/log.h"

namespace mlx5emu::vfio_user {

Reply CommandHandler::dma_map(Message &msg)
{
	DmaMapPayload p{};
	if (!load(msg.payload(), p) || p.argsz < sizeof(p)) {
		log_info("%s: DMA_MAP: payload %zu bytes, argsz %u: too small", tag(), msg.body.size(), p.argsz);
		return Reply::failure(EINVAL);
	}
	if (msg.fds.size() > 1) {
		log_info("%s: DMA_MAP: %zu fds, at most 1 expected", tag(), msg.fds.size());
		return Reply::failure(EINVAL);
	}
	if (p.flags & ~(kDmaMapRead | kDmaMapWrite)) {
		log_info("%s: DMA_MAP: unknown flags 0x%x", tag(), p.flags);
		return Reply::failure(EINVAL);
	}
	int fd = msg.fds.empty() ? -1 : msg.fds[0].get();
	int err = ctx_.dma.map(p.address, p.size, p.offset, p.flags, fd);
	msg.fds.clear(); // the mapping (if any) keeps the memory; close the fd now
	if (err) {
		log_info("%s: DMA_MAP [0x%llx, +0x%llx) %s%s fd-offset 0x%llx: %s", tag(),
			 (unsigned long long)p.address, (unsigned long long)p.size,
			 (p.flags & kDmaMapRead) ? "R" : "", (p.flags & kDmaMapWrite) ? "W" : "",
			 (unsigned long long)p.offset, std::strerror(err));
		return Reply::failure(err);
	}
	log_debug("%s: DMA_MAP [0x%llx, +0x%llx) %s%s %s", tag(), (unsigned long long)p.address,
		  (unsigned long long)p.size, (p.flags & kDmaMapRead) ? "R" : "",
		  (p.flags & kDmaMapWrite) ? "W" : "", fd >= 0 ? "mapped" : "no fd");
	return Reply::empty();
}

Reply CommandHandler::dma_unmap(const Message &msg)
{
	DmaUnmapPayload p{};
	if (!load(msg.payload(), p) || p.argsz < sizeof(p)) {
		log_info("%s: DMA_UNMAP: payload %zu bytes, argsz %u: too small", tag(), msg.body.size(), p.argsz);
		return Reply::failure(EINVAL);
	}
	if (p.flags & ~uint32_t(VFIO_DMA_UNMAP_FLAG_ALL)) {
		// No dirty bitmaps (no migration), no vaddr invalidation.
		log_info("%s: DMA_UNMAP: unsupported flags 0x%x", tag(), p.flags);
		return Reply::failure(EINVAL);
	}
	if (p.flags & VFIO_DMA_UNMAP_FLAG_ALL) {
		// Kernel VFIO wants address = size = 0 here; be lenient.
		log_debug("%s: DMA_UNMAP all (%zu mappings)", tag(), ctx_.dma.size());
		ctx_.dma.unmap_all();
	} else {
		int err = ctx_.dma.unmap(p.address, p.size);
		if (err) {
			log_info("%s: DMA_UNMAP [0x%llx, +0x%llx): no such mapping", tag(),
				 (unsigned long long)p.address, (unsigned long long)p.size);
			return Reply::failure(err);
		}
		log_debug("%s: DMA_UNMAP [0x%llx, +0x%llx)", tag(), (unsigned long long)p.address,
			  (unsigned long long)p.size);
	}
	// The reply echoes the unmapped entry (24 bytes: never more than the
	// request, so it fits QEMU's reply buffer).
	Reply r;
	append(r.payload, p);
	return r;
}

} // namespace mlx5emu::vfio_user
