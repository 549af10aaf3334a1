// SPDX-License-Identifier: GPL-2.0
// On-device memory: ALLOC_MEMIC and DEALLOC_MEMIC carve the MEMIC window
// (queues/device_memory.h) into allocations that software maps from BAR0
// and names in MEMIC memory keys.
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kNoMemic = 1,
	kBadRange = 2,
	kNoRoom = 3,
	kNoAlloc = 4,
};

void alloc_memic(CmdCtx &c)
{
	DeviceMemory *dm = c.fw.memic.get();
	if (!dm)
		return c.fail(status::BAD_OP, kNoMemic);
	uint64_t start = bits::load_be64(c.in + memic_cmd::kRangeStartAddr), addr = 0;
	auto r = dm->alloc(start, c.get(memic_cmd::range_size), c.get(memic_cmd::alloc_memic_size),
			   static_cast<uint8_t>(c.get(memic_cmd::log_memic_addr_alignment)), &addr);
	if (r == DeviceMemory::Alloc::BadParam)
		return c.fail(status::BAD_PARAM, kBadRange);
	// Taken: software tries the next range (the in-tree driver on EAGAIN).
	if (r == DeviceMemory::Alloc::NoRoom)
		return c.fail(status::NO_RESOURCES, kNoRoom);
	// A device that answers an address it was not asked for (control
	// channel): the allocation is undone, the bogus address freeable.
	if (auto how = c.fw.faults.take_bogus_memic()) {
		dm->dealloc(addr, c.get(memic_cmd::alloc_memic_size));
		addr = *how == Faults::MemicBogus::Outside ? dm->bar_offset() + dm->size() : addr + 8;
		c.fw.faults.remember_bogus_memic(addr);
	}
	bits::store_be64(c.out + memic_cmd::kStartAddrOut, addr);
}

void dealloc_memic(CmdCtx &c)
{
	DeviceMemory *dm = c.fw.memic.get();
	if (!dm)
		return c.fail(status::BAD_OP, kNoMemic);
	uint64_t addr = bits::load_be64(c.in + memic_cmd::kStartAddrIn);
	if (c.fw.faults.forget_bogus_memic(addr))
		return;
	if (!dm->dealloc(addr, c.get(memic_cmd::dealloc_memic_size)))
		c.fail(status::BAD_PARAM, kNoAlloc);
}

constexpr CmdSpec kCommands[] = {
	{op::ALLOC_MEMIC, alloc_memic, memic_cmd::kAllocInSize, memic_cmd::kAllocOutSize, Need::Initialized},
	{op::DEALLOC_MEMIC, dealloc_memic, memic_cmd::kDeallocInSize, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> memic_commands() { return kCommands; }

} // namespace mlx5emu
