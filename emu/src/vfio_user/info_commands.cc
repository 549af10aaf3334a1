// SPDX-License-Identifier: GPL-2.0
// DEVICE_GET_INFO, DEVICE_GET_REGION_INFO, DEVICE_GET_IRQ_INFO.
// QEMU's reply buffer is as large as its request (reply-size rule): the
// device and irq info replies are exactly 32 bytes, the region info reply
// at most 16 + the argsz the client sent.
#include <cerrno>

#include "vfio_user/commands.h"
#include "util/log.h"

namespace mlx5emu::vfio_user {

Reply CommandHandler::device_get_info(const Message &msg)
{
	DeviceInfoPayload in{};
	if (!load(msg.payload(), in) || in.argsz < sizeof(in)) {
		log_info("%s: DEVICE_GET_INFO: payload %zu bytes, argsz %u: too small", tag(), msg.body.size(), in.argsz);
		return Reply::failure(EINVAL);
	}
	DeviceInfoPayload out{};
	out.argsz = sizeof(out);
	out.flags = VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI;
	out.num_regions = kNumRegions;
	out.num_irqs = kNumIrqs;
	Reply r;
	append(r.payload, out);
	return r;
}

std::vector<uint8_t> encode_region_info(uint32_t index, const pci::RegionDescription &r,
					uint32_t client_argsz, int *attach_fd)
{
	*attach_fd = -1;
	vfio_region_info info{};
	info.index = index;
	info.size = r.size;
	if (r.readable)
		info.flags |= VFIO_REGION_INFO_FLAG_READ;
	if (r.writable)
		info.flags |= VFIO_REGION_INFO_FLAG_WRITE;

	std::vector<uint8_t> caps;
	if (r.mappable()) {
		info.flags |= VFIO_REGION_INFO_FLAG_MMAP;
		info.offset = r.mmap_offset;
		vfio_region_info_cap_sparse_mmap sparse{};
		sparse.header.id = VFIO_REGION_INFO_CAP_SPARSE_MMAP;
		sparse.header.version = 1;
		sparse.header.next = 0;
		sparse.nr_areas = uint32_t(r.mmap_areas.size());
		append(caps, sparse);
		for (const pci::MmapArea &a : r.mmap_areas)
			append(caps, vfio_region_sparse_mmap_area{a.offset, a.size});
	}

	const uint32_t needed = uint32_t(sizeof(info) + caps.size());
	info.argsz = needed;
	std::vector<uint8_t> out;
	if (caps.empty() || client_argsz >= needed) {
		if (!caps.empty()) {
			info.flags |= VFIO_REGION_INFO_FLAG_CAPS;
			info.cap_offset = sizeof(info);
			*attach_fd = r.mmap_fd;
		}
		append(out, info);
		out.insert(out.end(), caps.begin(), caps.end());
	} else {
		// Too small for the caps: say how much is needed and send the
		// bare struct (no CAPS flag, no fd); the client retries.
		append(out, info);
	}
	return out;
}

Reply CommandHandler::device_get_region_info(const Message &msg)
{
	vfio_region_info in{};
	if (!load(msg.payload(), in) || in.argsz < sizeof(in)) {
		log_info("%s: DEVICE_GET_REGION_INFO: payload %zu bytes, argsz %u: too small", tag(), msg.body.size(),
			 in.argsz);
		return Reply::failure(EINVAL);
	}
	if (in.index >= kNumRegions) {
		log_info("%s: DEVICE_GET_REGION_INFO: no region %u", tag(), in.index);
		return Reply::failure(EINVAL);
	}
	Reply r;
	r.payload = encode_region_info(in.index, ctx_.pci.region(in.index), in.argsz, &r.fd);
	log_debug("%s: DEVICE_GET_REGION_INFO %u: size 0x%llx, reply %zu bytes", tag(), in.index,
		  (unsigned long long)ctx_.pci.region(in.index).size, r.payload.size());
	return r;
}

Reply CommandHandler::device_get_irq_info(const Message &msg)
{
	vfio_irq_info in{};
	if (!load(msg.payload(), in) || in.argsz < sizeof(in)) {
		log_info("%s: DEVICE_GET_IRQ_INFO: payload %zu bytes, argsz %u: too small", tag(), msg.body.size(),
			 in.argsz);
		return Reply::failure(EINVAL);
	}
	if (in.index >= kNumIrqs) {
		log_info("%s: DEVICE_GET_IRQ_INFO: no irq index %u", tag(), in.index);
		return Reply::failure(EINVAL);
	}
	vfio_irq_info out{};
	out.argsz = sizeof(out);
	out.index = in.index;
	out.count = ctx_.irqs.count(in.index);
	// Eventfd signalling; MSI-X deliberately without NORESIZE (QEMU would
	// tear down and rebuild all vectors whenever a new one is used).
	out.flags = VFIO_IRQ_INFO_EVENTFD;
	Reply r;
	append(r.payload, out);
	return r;
}

} // namespace mlx5emu::vfio_user
