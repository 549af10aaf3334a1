// SPDX-License-Identifier: GPL-2.0
#include "pci/connectx_config.h"

#include <utility>

#include "pci/sriov_cap.h"

namespace mlx5emu::pci {

namespace {

constexpr uint16_t kPmAt = 0x40;
constexpr uint16_t kMsixAt = 0x50;
constexpr uint16_t kExpAt = 0x60;
constexpr uint16_t kVscAt = 0xa0;
// ConnectX vendor-specific capability (the "VSC gateway"): control at +0x4,
// counter +0x8, semaphore +0xc, address +0x10, data +0x14. The driver finds
// it at probe; only crdump and SW reset use the gateway, which this model
// keeps as plain registers (semaphore free, reads of the space return 0).
constexpr uint8_t kVscLength = 0x18;

// PF device ID -> the device ID of its VFs (the IDs mlx5_core's PCI table
// marks as VFs). From ConnectX-6 Dx on, every generation's VFs share the
// "ConnectX Family mlx5Gen Virtual Function" ID.
constexpr std::pair<uint16_t, uint16_t> kVfDeviceIds[] = {
	{0x1011, 0x1012}, // Connect-IB
	{0x1013, 0x1014}, // ConnectX-4
	{0x1015, 0x1016}, // ConnectX-4 Lx
	{0x1017, 0x1018}, // ConnectX-5
	{0x1019, 0x101a}, // ConnectX-5 Ex
	{0x101b, 0x101c}, // ConnectX-6
	{0x101d, 0x101e}, // ConnectX-6 Dx
	{0x101f, 0x101e}, // ConnectX-6 Lx
	{0x1021, 0x101e}, // ConnectX-7
	{0x1023, 0x101e}, // ConnectX-8
	{0xa2d2, 0xa2d3}, // BlueField (integrated ConnectX-5)
};

// A 64-bit memory BAR of `size` at BARn/BARn+1: type bits, address mask.
void add_bar64(ConfigSpace &cs, unsigned n, uint64_t size, bool prefetchable)
{
	uint16_t reg = uint16_t(kBar0 + 4 * n);
	uint64_t mask = ~(size - 1) & ~uint64_t(0xf);
	cs.set32(reg, kBarMem64 | (prefetchable ? kBarPrefetch : 0));
	cs.set32(reg + 4, 0);
	cs.set_writable32(reg, uint32_t(mask));
	cs.set_writable32(reg + 4, uint32_t(mask >> 32));
}

void add_header(ConfigSpace &cs, const FunctionConfig &cfg)
{
	cs.set16(kVendorId, kMellanoxVendorId);
	cs.set16(kDeviceId, cfg.device_id);
	cs.set16(kCommand, 0);
	cs.set_writable16(kCommand, kCommandMemory | kCommandMaster | kCommandParity | kCommandSerr |
					    kCommandIntxDisable);
	cs.set16(kStatus, kStatusCapList);
	cs.set_w1c16(kStatus, kStatusErrorBits);
	cs.set8(kRevisionId, 0);
	cs.set8(kClassProgIf, uint8_t(cfg.class_code));
	cs.set16(kClassProgIf + 1, uint16_t(cfg.class_code >> 8));
	cs.set8(kCacheLineSize, 0);
	cs.set_writable16(kCacheLineSize, 0x00ff); // latency timer: 0, read-only on PCIe
	cs.set8(kHeaderType, 0);
	add_bar64(cs, 0, cfg.bar0_size, true);
	add_bar64(cs, kMsixBar, kMsixBarSize, false);
	cs.set16(kSubsystemVendorId, kMellanoxVendorId);
	cs.set16(kSubsystemId, kSubsystemDeviceId);
	cs.set32(kRomBar, 0); // no expansion ROM
	// A VF has no PM capability (a ConnectX VF's list starts at MSI-X).
	cs.set8(kCapabilityPointer, cfg.role == FunctionRole::Vf ? kMsixAt : kPmAt);
	cs.set8(kInterruptLine, 0);
	cs.set_writable16(kInterruptLine, 0x00ff); // line is scratch; pin 0 = no INTx
	cs.set8(kInterruptPin, 0);
}

void add_pm(ConfigSpace &cs, uint16_t at, uint8_t next)
{
	cs.set8(at, kCapPm);
	cs.set8(at + 1, next);
	cs.set16(at + kPmCaps, 0x0003); // version 3 (PM 1.2), no PME, no D1/D2
	cs.set16(at + kPmControl, kPmControlNoSoftReset); // D0
	cs.set_writable16(at + kPmControl, kPmControlStateMask);
}

void add_msix(ConfigSpace &cs, uint16_t at, uint8_t next, uint32_t vectors)
{
	cs.set8(at, kCapMsix);
	cs.set8(at + 1, next);
	cs.set16(at + kMsixControl, uint16_t(vectors - 1));
	cs.set_writable16(at + kMsixControl, kMsixControlEnable | kMsixControlMaskAll);
	cs.set32(at + kMsixTable, kMsixTableOffset | kMsixBar);
	cs.set32(at + kMsixPba, kMsixPbaOffset | kMsixBar);
}

void add_express(ConfigSpace &cs, uint16_t at, uint8_t next, FunctionRole role)
{
	cs.set8(at, kCapExp);
	cs.set8(at + 1, next);
	cs.set16(at + kExpFlags, uint16_t(kExpTypeEndpoint << 4 | 2)); // version 2, Endpoint

	// DevCap: max payload 512 B, extended tags, L0s/L1 acceptable latency
	// unlimited, role-based error reporting, FLR.
	cs.set32(at + kExpDevCap, 0x2 | 1u << 5 | 7u << 6 | 7u << 9 | 1u << 15 | 1u << 28);
	// DevCtl: relaxed ordering, no snoop, MPS 128 B, MRRS 512 B.
	cs.set16(at + kExpDevCtl, 1u << 4 | 1u << 11 | 2u << 12);
	// Error reporting enables, RO, MPS, ext tag, no snoop, MRRS. Bit 15
	// (initiate FLR) reads 0 and is acted on by PciFunction.
	cs.set_writable16(at + kExpDevCtl, 0x79ff);
	cs.set_w1c16(at + kExpDevSta, 0x000f);

	// LinkCap: 8 GT/s, x8, ASPM optionality compliance, port 0. A VF
	// reports its PF's.
	cs.set32(at + kExpLinkCap, 3u | 8u << 4 | 1u << 22);

	// DevCap2: completion timeout ranges A-D and disable supported.
	cs.set32(at + kExpDevCap2, 0x1f);
	// DevCtl2: completion timeout value/disable, AtomicOp requester enable.
	cs.set_writable16(at + kExpDevCtl2, 0x005f);

	// A VF's link control is reserved, and its link status, LinkCap2
	// and LinkCtl2 read 0 (lspci of a ConnectX VF: "LnkSta: Speed
	// unknown, Width x0"): the link is the PF's.
	if (role == FunctionRole::Vf)
		return;
	cs.set_writable16(at + kExpLinkCtl, 0x00cb); // ASPM control, RCB, common clock, ext synch
	// LinkSta: trained at 8 GT/s x8, slot clock.
	cs.set16(at + kExpLinkSta, 3u | 8u << 4 | 1u << 12);
	// LinkCap2: supported speeds 2.5, 5 and 8 GT/s.
	cs.set32(at + kExpLinkCap2, 0x0e);
	// LinkCtl2: target link speed 8 GT/s.
	cs.set16(at + kExpLinkCtl2, 3);
	cs.set_writable16(at + kExpLinkCtl2, 0x003f);
}

void add_vendor_specific(ConfigSpace &cs, uint16_t at, uint8_t next)
{
	cs.set8(at, kCapVendor);
	cs.set8(at + 1, next);
	cs.set8(at + 2, kVscLength);
	for (uint16_t off = 0x4; off < kVscLength; off += 4)
		cs.set_writable32(uint16_t(at + off), 0xffffffff);
}

} // namespace

uint16_t vf_device_id(uint16_t pf)
{
	for (const auto &[p, v] : kVfDeviceIds)
		if (p == pf)
			return v;
	return 0;
}

bool is_vf_device_id(uint16_t id)
{
	for (const auto &[p, v] : kVfDeviceIds)
		if (v == id)
			return true;
	return false;
}

const char *check_function_config(const FunctionConfig &cfg)
{
	if (cfg.msix_vectors < 1 || cfg.msix_vectors > kMaxMsixVectors)
		return "MSI-X vector count must be 1..512";
	if (cfg.bar0_size < 4096 || (cfg.bar0_size & (cfg.bar0_size - 1)))
		return "BAR0 size must be a power of 2 of at least 4 KiB";
	if (cfg.role == FunctionRole::Vf && !is_vf_device_id(cfg.device_id))
		return "a VF needs a VF device ID";
	if (cfg.total_vfs) {
		if (cfg.role == FunctionRole::Vf)
			return "a VF has no VFs";
		if (cfg.total_vfs > kMaxVfs)
			return "at most 7 VFs (functions 1-7 of the PF's slot)";
		if (!vf_device_id(cfg.device_id))
			return "no VF device ID is known for this device ID";
		if (cfg.vf_bar0_size < 4096 || (cfg.vf_bar0_size & (cfg.vf_bar0_size - 1)))
			return "VF BAR0 size must be a power of 2 of at least 4 KiB";
	}
	return "";
}

ConfigLayout build_connectx_config(ConfigSpace &cs, const FunctionConfig &cfg)
{
	cs = ConfigSpace{};
	add_header(cs, cfg);
	add_msix(cs, kMsixAt, kExpAt, cfg.msix_vectors);
	if (cfg.role == FunctionRole::Vf) {
		// No vendor-specific capability: mlx5_core uses the VSC gateway
		// on a PF only. No SR-IOV capability: a VF has none.
		add_express(cs, kExpAt, 0, cfg.role);
		cs.save_defaults();
		return ConfigLayout{0, kMsixAt, kExpAt};
	}
	add_pm(cs, kPmAt, kMsixAt);
	add_express(cs, kExpAt, kVscAt, cfg.role);
	add_vendor_specific(cs, kVscAt, 0);
	ConfigLayout layout{kPmAt, kMsixAt, kExpAt};
	// 0x100: the SR-IOV capability alone on a PF with VFs, else no
	// extended capability (header 0).
	if (cfg.total_vfs) {
		add_sriov_cap(cs, kExtCapStart, 0,
			      SriovCapConfig{cfg.total_vfs, vf_device_id(cfg.device_id), cfg.vf_bar0_size, kMsixBarSize});
		layout.sriov = kExtCapStart;
	}
	cs.save_defaults();
	return layout;
}

} // namespace mlx5emu::pci
