// SPDX-License-Identifier: GPL-2.0
// The configuration space of the emulated ConnectX function: IDs, class,
// BAR types, and the PM, MSI-X and PCI Express (v2, Endpoint) capabilities;
// on a PF with VFs, the SR-IOV extended capability at 0x100.
// A virtual function (role Vf) has the VF device ID of its PF's generation
// and the config space a ConnectX VF shows: no PM and no vendor-specific
// capability, an Express link that reports no speed or width.
#pragma once

#include <cstdint>

#include "pci/config_space.h"

namespace mlx5emu::pci {

inline constexpr uint16_t kMellanoxVendorId = 0x15b3;
inline constexpr uint16_t kSubsystemDeviceId = 0x0008;
inline constexpr uint32_t kClassInfiniband = 0x020700;
inline constexpr uint32_t kClassEthernet = 0x020000;

// A physical function, or a virtual function as a VM sees one passed to it.
enum class FunctionRole : uint8_t { Pf, Vf };

struct FunctionConfig {
	uint16_t device_id = 0x1017;       // ConnectX-5
	uint32_t msix_vectors = 64;        // 1..kMaxMsixVectors
	uint64_t bar0_size = 32ull << 20;  // power of 2, >= 4 KiB
	FunctionRole role = FunctionRole::Pf;
	uint32_t class_code = kClassInfiniband;
	// A PF with VFs (0..kMaxVfs): the SR-IOV capability describes that
	// many VFs of vf_device_id(device_id), each with a BAR0 of
	// vf_bar0_size and the MSI-X BAR2.
	uint16_t total_vfs = 0;
	uint64_t vf_bar0_size = 32ull << 20;
};

// The device ID of the VFs of a PF with device ID `pf` (the ConnectX
// generations mlx5_core binds); 0 for an ID with no known VF.
uint16_t vf_device_id(uint16_t pf);

// True when `id` is the device ID of a VF (of any generation in the table).
bool is_vf_device_id(uint16_t id);

// BAR2: MSI-X table at 0, PBA at 0x2000 (QEMU emulates the table itself).
inline constexpr unsigned kMsixBar = 2;
inline constexpr uint64_t kMsixBarSize = 16 << 10;
inline constexpr uint32_t kMsixTableOffset = 0;
inline constexpr uint32_t kMsixPbaOffset = 0x2000;
inline constexpr uint32_t kMaxMsixVectors = kMsixPbaOffset / kMsixEntrySize; // 512

// Where the capabilities landed.
struct ConfigLayout {
	uint16_t pm = 0;
	uint16_t msix = 0;
	uint16_t exp = 0;
	uint16_t sriov = 0; // extended; 0: none
};

// Empty string when cfg is usable, else what is wrong with it.
const char *check_function_config(const FunctionConfig &cfg);

// Fills cs (all registers, write masks) and saves it as its defaults.
ConfigLayout build_connectx_config(ConfigSpace &cs, const FunctionConfig &cfg);

} // namespace mlx5emu::pci
