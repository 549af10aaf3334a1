// SPDX-License-Identifier: GPL-2.0
#include "fw/init_segment.h"

#include <endian.h>

#include "prm/device_clock.h"
#include "fw/hca.h"
#include "fw/health.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace is = prm::iseg;

InitSegment::InitSegment(const HcaConfig &cfg, Health &health, std::function<void(uint32_t)> ring,
			 std::function<void()> sw_reset)
	: cfg_(cfg), health_(health), ring_(std::move(ring)), sw_reset_(std::move(sw_reset))
{
}

bool InitSegment::contains(uint64_t offset) const { return offset < is::kSize; }

uint64_t InitSegment::cmdq_addr() const
{
	return static_cast<uint64_t>(cmdq_h_.load()) << 32 | cmdq_l_.load();
}

void InitSegment::reset()
{
	cmdq_h_ = 0;
	cmdq_l_ = 0;
	nic_ifc_ = 0;
}

void InitSegment::disable()
{
	cmdq_h_ = 0;
	cmdq_l_ = 0;
	nic_ifc_ = is::NIC_IFC_DISABLED;
}

uint32_t InitSegment::dword(uint32_t off) const
{
	using namespace std::chrono;
	switch (off) {
	case is::kFwRev:
		return (health_.fw_version() >> 16 & 0xff) << 16 | health_.fw_version() >> 24;
	case is::kCmdifRevFwSub:
		return is::kCmdifRev << 16 | (health_.fw_version() & 0xffff);
	case is::kCmdqAddrH:
		return cmdq_h_.load();
	case is::kCmdqAddrLSz:
		return cmdq_l_.load() | static_cast<uint32_t>(nic_ifc_.load() & 7) << 8 |
		       is::kLogCmdqSize << 4 | is::kLogCmdqStride;
	case is::kInitializing:
		// Not an embedded CPU; ready unless a VF waits for its PF.
		return (ready_.load() ? 0 : is::kInitializingBit) | is::kFwResetSupported;
	case is::kCmdExecTo:
	case is::kCmdQInitTo:
		return 0; // timeouts not reported: driver defaults, no DTOR
	case is::kHealthCounter:
		return health_.counter();
	case is::kInternalTimerH:
	case is::kInternalTimerL: {
		uint64_t ns = device_clock_ns();
		return off == is::kInternalTimerH ? static_cast<uint32_t>(ns >> 32) : static_cast<uint32_t>(ns);
	}
	case is::kRealTimeH:
	case is::kRealTimeL: {
		uint64_t ns = static_cast<uint64_t>(
			duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count());
		return off == is::kRealTimeH ? static_cast<uint32_t>(ns >> 32) : static_cast<uint32_t>(ns);
	}
	default:
		if (off >= is::kHealth && off < is::kHealth + prm::health::kSize)
			return health_.buffer_dword(off - is::kHealth);
		return 0;
	}
}

uint64_t InitSegment::read(uint64_t offset, unsigned size) const
{
	// Assemble the bytes [offset, offset + size) of the big-endian
	// register file, then return them as the host-order value the guest
	// CPU sees for that access.
	// Each register is read once per access: the timers change between
	// two reads, and a value assembled from several would be torn.
	uint64_t v = 0;
	uint32_t at = ~0u, d = 0;
	for (unsigned i = 0; i < size; ++i) {
		uint64_t o = offset + i;
		if (static_cast<uint32_t>(o & ~3ull) != at) {
			at = static_cast<uint32_t>(o & ~3ull);
			d = dword(at);
		}
		uint8_t byte = static_cast<uint8_t>(d >> (8 * (3 - (o & 3))));
		v |= static_cast<uint64_t>(byte) << (8 * i);
	}
	return v;
}

void InitSegment::write_dword(uint32_t off, uint32_t v)
{
	switch (off) {
	case is::kCmdqAddrH:
		cmdq_h_ = v;
		break;
	case is::kCmdqAddrLSz:
		if (((v >> 8) & 7) == is::NIC_IFC_SW_RESET) {
			// The reset forgets the command queue; the interface
			// reads DISABLED until the driver starts over.
			sw_reset_();
			disable();
			break;
		}
		cmdq_l_ = v & 0xfffff000u;
		nic_ifc_ = static_cast<uint8_t>((v >> 8) & 7);
		break;
	case is::kCmdDbell:
		if (v)
			ring_(v);
		break;
	default:
		break;
	}
}

bool InitSegment::write(uint64_t offset, unsigned size, uint64_t value)
{
	if ((offset & 3) || (size != 4 && size != 8))
		return false; // registers are written as whole dwords
	uint32_t off = static_cast<uint32_t>(offset);
	bool known = true;
	for (unsigned i = 0; i < size / 4; ++i, off += 4) {
		uint32_t v = be32toh(static_cast<uint32_t>(value >> (32 * i)));
		if (off != is::kCmdqAddrH && off != is::kCmdqAddrLSz && off != is::kCmdDbell)
			known = false;
		write_dword(off, v);
	}
	return known;
}

} // namespace mlx5emu
