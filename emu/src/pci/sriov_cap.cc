// SPDX-License-Identifier: GPL-2.0
#include "pci/sriov_cap.h"

#include "pci/pci_defs.h"

namespace mlx5emu::pci {

namespace {

// A 64-bit VF BAR (VF BARn and n+1) of `size` per VF: type bits, and the
// address bits software may write (the size mask, as for a function BAR).
void add_vf_bar64(ConfigSpace &cs, uint16_t at, unsigned n, uint64_t size, bool prefetchable)
{
	uint16_t reg = uint16_t(at + kSriovVfBar0 + 4 * n);
	uint64_t mask = ~(size - 1) & ~uint64_t(0xf);
	cs.set32(reg, kBarMem64 | (prefetchable ? kBarPrefetch : 0));
	cs.set32(reg + 4, 0);
	cs.set_writable32(reg, uint32_t(mask));
	cs.set_writable32(reg + 4, uint32_t(mask >> 32));
}

} // namespace

void add_sriov_cap(ConfigSpace &cs, uint16_t at, uint16_t next, const SriovCapConfig &cfg)
{
	cs.set32(at, ext_cap_header(kExtCapSriov, 1, next));
	cs.set32(at + kSriovCaps, 0); // no VF migration, no ARI-capable hierarchy preserved
	cs.set16(at + kSriovControl, 0);
	cs.set_writable16(at + kSriovControl,
			  kSriovControlVfEnable | kSriovControlVfMse | kSriovControlAriHierarchy);
	cs.set16(at + kSriovStatus, 0);
	cs.set16(at + kSriovInitialVfs, cfg.total_vfs);
	cs.set16(at + kSriovTotalVfs, cfg.total_vfs);
	cs.set16(at + kSriovNumVfs, 0);
	cs.set_writable16(at + kSriovNumVfs, 0xffff); // PciFunction keeps it <= TotalVFs
	cs.set8(at + kSriovFuncLink, 0);
	cs.set16(at + kSriovVfOffset, kSriovFirstVfOffset);
	cs.set16(at + kSriovVfStride, kSriovStride);
	cs.set16(at + kSriovVfDeviceId, cfg.vf_device_id);
	cs.set32(at + kSriovSupportedPageSizes, kSriovPageSizes);
	cs.set32(at + kSriovSystemPageSize, 1); // 4 KiB
	cs.set_writable32(at + kSriovSystemPageSize, kSriovPageSizes);
	add_vf_bar64(cs, at, 0, cfg.vf_bar0_size, true);
	add_vf_bar64(cs, at, 2, cfg.vf_bar2_size, false);
	// VF BAR4/5 unused (read 0), no VF migration state array.
	cs.set32(at + kSriovVfMigrationState, 0);
}

SriovState sriov_state(const ConfigSpace &cs, uint16_t at)
{
	uint16_t ctl = cs.read16(at + kSriovControl);
	return SriovState{cs.read16(at + kSriovNumVfs), bool(ctl & kSriovControlVfEnable),
			  bool(ctl & kSriovControlVfMse)};
}

} // namespace mlx5emu::pci
