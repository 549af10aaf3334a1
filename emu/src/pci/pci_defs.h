// SPDX-License-Identifier: GPL-2.0
// PCI / PCI Express configuration-space register offsets and bits used by
// the emulated function (values from the PCI and PCIe base specifications).
#pragma once

#include <cstdint>

namespace mlx5emu::pci {

inline constexpr uint32_t kConfigSpaceSize = 4096; // PCIe extended config space

// Type 0 header.
inline constexpr uint16_t kVendorId = 0x00;
inline constexpr uint16_t kDeviceId = 0x02;
inline constexpr uint16_t kCommand = 0x04;
inline constexpr uint16_t kStatus = 0x06;
inline constexpr uint16_t kRevisionId = 0x08;
inline constexpr uint16_t kClassProgIf = 0x09; // then subclass 0x0a, class 0x0b
inline constexpr uint16_t kCacheLineSize = 0x0c;
inline constexpr uint16_t kLatencyTimer = 0x0d;
inline constexpr uint16_t kHeaderType = 0x0e;
inline constexpr uint16_t kBar0 = 0x10; // BARn at 0x10 + 4n
inline constexpr uint16_t kSubsystemVendorId = 0x2c;
inline constexpr uint16_t kSubsystemId = 0x2e;
inline constexpr uint16_t kRomBar = 0x30;
inline constexpr uint16_t kCapabilityPointer = 0x34;
inline constexpr uint16_t kInterruptLine = 0x3c;
inline constexpr uint16_t kInterruptPin = 0x3d;

inline constexpr uint16_t kCommandMemory = 1u << 1;
inline constexpr uint16_t kCommandMaster = 1u << 2;
inline constexpr uint16_t kCommandParity = 1u << 6;
inline constexpr uint16_t kCommandSerr = 1u << 8;
inline constexpr uint16_t kCommandIntxDisable = 1u << 10;

inline constexpr uint16_t kStatusCapList = 1u << 4;
// Error bits, write-1-to-clear: master data parity, signaled target abort,
// received target/master abort, signaled system error, detected parity.
inline constexpr uint16_t kStatusErrorBits = 0xf900;

inline constexpr uint32_t kBarMem64 = 0x4;
inline constexpr uint32_t kBarPrefetch = 0x8;

// Capability IDs.
inline constexpr uint8_t kCapPm = 0x01;
inline constexpr uint8_t kCapVendor = 0x09;
inline constexpr uint8_t kCapExp = 0x10;
inline constexpr uint8_t kCapMsix = 0x11;

// Power management capability (8 bytes).
inline constexpr uint16_t kPmCaps = 0x02;
inline constexpr uint16_t kPmControl = 0x04;
inline constexpr uint16_t kPmControlNoSoftReset = 1u << 3;
inline constexpr uint16_t kPmControlStateMask = 0x3;

// MSI-X capability (12 bytes).
inline constexpr uint16_t kMsixControl = 0x02;
inline constexpr uint16_t kMsixTable = 0x04;
inline constexpr uint16_t kMsixPba = 0x08;
inline constexpr uint16_t kMsixControlEnable = 1u << 15;
inline constexpr uint16_t kMsixControlMaskAll = 1u << 14;
inline constexpr uint32_t kMsixEntrySize = 16;

// PCI Express capability, version 2 (60 bytes).
inline constexpr uint16_t kExpCapSize = 0x3c;
inline constexpr uint16_t kExpFlags = 0x02;
inline constexpr uint16_t kExpDevCap = 0x04;
inline constexpr uint16_t kExpDevCtl = 0x08;
inline constexpr uint16_t kExpDevSta = 0x0a;
inline constexpr uint16_t kExpLinkCap = 0x0c;
inline constexpr uint16_t kExpLinkCtl = 0x10;
inline constexpr uint16_t kExpLinkSta = 0x12;
inline constexpr uint16_t kExpDevCap2 = 0x24;
inline constexpr uint16_t kExpDevCtl2 = 0x28;
inline constexpr uint16_t kExpLinkCap2 = 0x2c;
inline constexpr uint16_t kExpLinkCtl2 = 0x30;
inline constexpr uint16_t kExpDevCtlInitiateFlr = 1u << 15;
inline constexpr uint16_t kExpTypeEndpoint = 0x0;

// Extended capabilities (from 0x100): a 32-bit header of ID (15:0),
// version (19:16) and next offset (31:20).
inline constexpr uint16_t kExtCapStart = 0x100;
inline constexpr uint16_t kExtCapSriov = 0x0010;

constexpr uint32_t ext_cap_header(uint16_t id, uint8_t version, uint16_t next)
{
	return uint32_t(id) | uint32_t(version & 0xf) << 16 | uint32_t(next & 0xffc) << 20;
}

// Single Root I/O Virtualization capability, version 1 (64 bytes).
inline constexpr uint16_t kSriovCapSize = 0x40;
inline constexpr uint16_t kSriovCaps = 0x04;
inline constexpr uint16_t kSriovControl = 0x08;
inline constexpr uint16_t kSriovStatus = 0x0a;
inline constexpr uint16_t kSriovInitialVfs = 0x0c;
inline constexpr uint16_t kSriovTotalVfs = 0x0e;
inline constexpr uint16_t kSriovNumVfs = 0x10;
inline constexpr uint16_t kSriovFuncLink = 0x12;
inline constexpr uint16_t kSriovVfOffset = 0x14;
inline constexpr uint16_t kSriovVfStride = 0x16;
inline constexpr uint16_t kSriovVfDeviceId = 0x1a;
inline constexpr uint16_t kSriovSupportedPageSizes = 0x1c;
inline constexpr uint16_t kSriovSystemPageSize = 0x20;
inline constexpr uint16_t kSriovVfBar0 = 0x24; // VF BARn at 0x24 + 4n
inline constexpr uint16_t kSriovVfMigrationState = 0x3c;

inline constexpr uint16_t kSriovControlVfEnable = 1u << 0;
inline constexpr uint16_t kSriovControlVfMse = 1u << 3;
inline constexpr uint16_t kSriovControlAriHierarchy = 1u << 4;

} // namespace mlx5emu::pci
