// SPDX-License-Identifier: GPL-2.0
// The Single Root I/O Virtualization extended capability (v1) of a PF:
// its registers, their write masks, and the control state that software
// sets in it (NumVFs, VF Enable, VF Memory Space Enable).
//
// The VFs themselves are separate functions (separate vfio-user sockets);
// this capability only describes them: TotalVFs, where their routing IDs
// are (First VF Offset, VF Stride), their device ID and the size of each
// VF BAR. See Documentation/emulator.md, "SR-IOV".
#pragma once

#include <cstdint>

#include "pci/config_space.h"

namespace mlx5emu::pci {

// VFs on functions 1..7 of the PF's slot: offset 1, stride 1, no ARI.
inline constexpr uint16_t kMaxVfs = 7;
inline constexpr uint16_t kSriovFirstVfOffset = 1;
inline constexpr uint16_t kSriovStride = 1;
// 4 KiB to 4 MiB (bits 0-10), as a ConnectX PF reports.
inline constexpr uint32_t kSriovPageSizes = 0x7ff;

struct SriovCapConfig {
	uint16_t total_vfs = 0;    // 1..kMaxVfs; Initial VFs = TotalVFs
	uint16_t vf_device_id = 0;
	// Each VF's BAR0 (64-bit prefetchable) and BAR2 (64-bit): powers of 2,
	// at least 4 KiB.
	uint64_t vf_bar0_size = 0;
	uint64_t vf_bar2_size = 0;
};

// What software set in the capability.
struct SriovState {
	uint16_t num_vfs = 0;
	bool vf_enable = false;
	bool vf_mse = false;
	bool operator==(const SriovState &) const = default;
};

// Writes the capability at `at` (a dword offset in the extended space)
// with `next` as its next-capability offset.
void add_sriov_cap(ConfigSpace &cs, uint16_t at, uint16_t next, const SriovCapConfig &cfg);

// The control state of the capability at `at`.
SriovState sriov_state(const ConfigSpace &cs, uint16_t at);

} // namespace mlx5emu::pci
