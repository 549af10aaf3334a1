// SPDX-License-Identifier: GPL-2.0
// UARs, NOP and QUERY_SPECIAL_CONTEXTS.
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

// The reserved lkey reported by QUERY_SPECIAL_CONTEXTS. The data path must
// treat it as "no translation" if software ever uses it.
constexpr uint32_t kReservedLkey = 0x100;

void alloc_uar(CmdCtx &c)
{
	Firmware &fw = c.fw;
	for (uint32_t i = fw.first_uar(); i < fw.uar_limit(); ++i) {
		if (!fw.uars.count(i)) {
			fw.uars.insert(i);
			if (fw.dbpages)
				fw.dbpages->open_page(i);
			c.put(uar_cmd::uar, i);
			return;
		}
	}
	c.fail(status::NO_RESOURCES, 1);
}

void dealloc_uar(CmdCtx &c)
{
	uint32_t i = c.get(uar_cmd::uar);
	if (!c.fw.uars.erase(i)) {
		c.fail(status::BAD_PARAM, 1);
		return;
	}
	if (c.fw.dbpages)
		c.fw.dbpages->close_page(i);
}

void nop(CmdCtx &) {}

void query_special_contexts(CmdCtx &c)
{
	c.put(query_special_contexts_out::resd_lkey, kReservedLkey);
}

constexpr CmdSpec kCommands[] = {
	{op::ALLOC_UAR, alloc_uar, 16, 16, Need::Initialized},
	{op::DEALLOC_UAR, dealloc_uar, 16, hdr_out::kMinLen, Need::Initialized},
	{op::NOP, nop, 16, hdr_out::kMinLen, Need::Any},
	{op::QUERY_SPECIAL_CONTEXTS, query_special_contexts, 16, query_special_contexts_out::kSize, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> misc_commands() { return kCommands; }

} // namespace mlx5emu
