// SPDX-License-Identifier: GPL-2.0
#include "pci/function.h"

#include <linux/vfio.h>

#include <cerrno>
#include <cstring>

#include "util/log.h"

namespace mlx5emu::pci {

namespace {

bool in_region(uint64_t offset, uint32_t count, uint64_t size)
{
	return count > 0 && offset < size && count <= size - offset;
}

bool overlaps(uint64_t offset, uint32_t count, uint64_t reg, uint32_t size)
{
	return offset < reg + size && reg < offset + count;
}

// Largest naturally aligned access (8/4/2/1) that fits at offset.
unsigned piece_size(uint64_t offset, uint32_t remaining)
{
	for (unsigned s = 8; s > 1; s /= 2)
		if (remaining >= s && (offset % s) == 0)
			return s;
	return 1;
}

} // namespace

PciFunction::PciFunction(const FunctionConfig &cfg, BarHandler &bar0) : cfg_(cfg), bar0_(bar0)
{
	layout_ = build_connectx_config(config_, cfg_);
}

RegionDescription PciFunction::region(unsigned index) const
{
	RegionDescription r;
	switch (index) {
	case VFIO_PCI_BAR0_REGION_INDEX:
		r.size = cfg_.bar0_size;
		r.readable = r.writable = true;
		if (bar0_mmap_fd_ >= 0) {
			r.mmap_areas = bar0_mmap_areas_;
			r.mmap_fd = bar0_mmap_fd_;
			r.mmap_offset = bar0_mmap_offset_;
		}
		break;
	case VFIO_PCI_BAR2_REGION_INDEX:
		r.size = kMsixBarSize;
		r.readable = r.writable = true;
		break;
	case VFIO_PCI_CONFIG_REGION_INDEX:
		r.size = ConfigSpace::kSize;
		r.readable = r.writable = true;
		break;
	default: // BAR1/3 (upper halves of 64-bit BARs), BAR4/5, ROM, VGA
		break;
	}
	return r;
}

int PciFunction::read(unsigned region_index, uint64_t offset, void *dst, uint32_t count)
{
	RegionDescription r = region(region_index);
	if (!r.readable || !in_region(offset, count, r.size))
		return EINVAL;
	switch (region_index) {
	case VFIO_PCI_CONFIG_REGION_INDEX: {
		std::lock_guard lk(config_mu_);
		config_.read(uint32_t(offset), dst, count);
		return 0;
	}
	case VFIO_PCI_BAR0_REGION_INDEX:
		bar0_read(offset, static_cast<uint8_t *>(dst), count);
		return 0;
	case VFIO_PCI_BAR2_REGION_INDEX:
		// Table: QEMU keeps its own copy. PBA: nothing pending here.
		std::memset(dst, 0, count);
		return 0;
	}
	return EINVAL;
}

int PciFunction::write(unsigned region_index, uint64_t offset, const void *src, uint32_t count)
{
	RegionDescription r = region(region_index);
	if (!r.writable || !in_region(offset, count, r.size))
		return EINVAL;
	switch (region_index) {
	case VFIO_PCI_CONFIG_REGION_INDEX:
		return config_write(offset, src, count);
	case VFIO_PCI_BAR0_REGION_INDEX:
		bar0_write(offset, static_cast<const uint8_t *>(src), count);
		return 0;
	case VFIO_PCI_BAR2_REGION_INDEX:
		log_debug("BAR2 write at 0x%llx (%u bytes) ignored", (unsigned long long)offset, count);
		return 0;
	}
	return EINVAL;
}

void PciFunction::notify_bus_master()
{
	std::lock_guard lk(notify_mu_);
	if (bus_master_listener_)
		bus_master_listener_(bus_master_enabled());
}

SriovState PciFunction::sriov_state() const
{
	if (!layout_.sriov)
		return {};
	std::lock_guard lk(config_mu_);
	return pci::sriov_state(config_, layout_.sriov);
}

void PciFunction::notify_sriov()
{
	if (!layout_.sriov)
		return;
	std::lock_guard lk(notify_mu_);
	SriovState now = sriov_state();
	if (now == reported_sriov_)
		return;
	reported_sriov_ = now;
	if (sriov_listener_)
		sriov_listener_(now);
}

// NumVFs takes a value up to TotalVFs, and only while VF Enable is clear
// (a write of the control register and NumVFs together sees the old VF
// Enable). Called with config_mu_ held.
void PciFunction::keep_num_vfs_sane(uint64_t offset, uint32_t count, const SriovState &before)
{
	uint16_t reg = uint16_t(layout_.sriov + kSriovNumVfs);
	if (!overlaps(offset, count, reg, 2))
		return;
	uint16_t want = config_.read16(reg);
	uint16_t total = config_.read16(layout_.sriov + kSriovTotalVfs);
	if (want == before.num_vfs)
		return;
	if (before.vf_enable)
		log_info("SR-IOV: NumVFs write of %u while VF Enable is set ignored (NumVFs stays %u)", want,
			 before.num_vfs);
	else if (want > total)
		log_info("SR-IOV: NumVFs write of %u above TotalVFs %u ignored (NumVFs stays %u)", want, total,
			 before.num_vfs);
	else
		return;
	config_.set16(reg, before.num_vfs);
}

int PciFunction::config_write(uint64_t offset, const void *src, uint32_t count)
{
	bool flr = false;
	{
		std::lock_guard lk(config_mu_);
		SriovState before = layout_.sriov ? pci::sriov_state(config_, layout_.sriov) : SriovState{};
		config_.write(uint32_t(offset), src, count);
		if (layout_.sriov)
			keep_num_vfs_sane(offset, count, before);

		// DevCtl "initiate FLR" (bit 15 = bit 7 of DevCtl's second byte).
		uint64_t flr_byte = uint64_t(layout_.exp) + kExpDevCtl + 1;
		if (offset <= flr_byte && flr_byte < offset + count)
			flr = static_cast<const uint8_t *>(src)[flr_byte - offset] & (kExpDevCtlInitiateFlr >> 8);
	}
	if (offset <= kCommand && kCommand < offset + count)
		notify_bus_master();
	if (layout_.sriov && (overlaps(offset, count, layout_.sriov + kSriovControl, 2) ||
			      overlaps(offset, count, layout_.sriov + kSriovNumVfs, 2)))
		notify_sriov();
	if (flr) {
		flr_count_++;
		log_info("function level reset requested through config space");
		reset();
	}
	return 0;
}

void PciFunction::bar0_read(uint64_t offset, uint8_t *dst, uint32_t count)
{
	while (count) {
		unsigned s = piece_size(offset, count);
		uint64_t v = bar0_.bar_read(offset, s);
		for (unsigned i = 0; i < s; i++)
			dst[i] = uint8_t(v >> (8 * i));
		offset += s;
		dst += s;
		count -= s;
	}
}

void PciFunction::bar0_write(uint64_t offset, const uint8_t *src, uint32_t count)
{
	while (count) {
		unsigned s = piece_size(offset, count);
		uint64_t v = 0;
		for (unsigned i = 0; i < s; i++)
			v |= uint64_t(src[i]) << (8 * i);
		bar0_.bar_write(offset, s, v);
		offset += s;
		src += s;
		count -= s;
	}
}

void PciFunction::reset()
{
	{
		std::lock_guard lk(config_mu_);
		config_.restore_defaults();
	}
	notify_bus_master();
	notify_sriov();
	bar0_.reset();
}

void PciFunction::set_bar0_mmap(int fd, uint64_t file_offset, std::vector<MmapArea> areas)
{
	bar0_mmap_fd_ = areas.empty() ? -1 : fd;
	bar0_mmap_offset_ = file_offset;
	bar0_mmap_areas_ = std::move(areas);
}

bool PciFunction::bus_master_enabled() const
{
	std::lock_guard lk(config_mu_);
	return config_.read16(kCommand) & kCommandMaster;
}

} // namespace mlx5emu::pci
