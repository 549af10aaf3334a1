// SPDX-License-Identifier: GPL-2.0
// Firmware page commands: QUERY_PAGES, MANAGE_PAGES.
#include <vector>

#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

void query_pages(CmdCtx &c)
{
	if (c.get(query_pages_in::embedded_cpu_function) || c.get(query_pages_in::function_id))
		return c.fail(status::BAD_PARAM, 1);
	if (c.op_mod < query_pages_opmod::BOOT || c.op_mod > query_pages_opmod::REGULAR)
		return c.fail(status::BAD_PARAM, 2);
	c.put(query_pages_out::function_id, 0);
	c.put(query_pages_out::num_pages, static_cast<uint32_t>(c.fw.pages.query({}, c.op_mod)));
}

void manage_pages(CmdCtx &c)
{
	namespace mi = manage_pages_in;
	namespace mo = manage_pages_out;
	if (c.get(mi::embedded_cpu_function) || c.get(mi::function_id))
		return c.fail(status::BAD_PARAM, 1);
	uint32_t n = c.get(mi::input_num_entries);
	PageTracker &pages = c.fw.pages;

	switch (c.op_mod) {
	case manage_pages_opmod::CANT_GIVE:
		pages.cant_give({}, n);
		return;
	case manage_pages_opmod::GIVE: {
		if ((c.inlen - mi::kPas) / 8 < n)
			return c.fail(status::BAD_INPUT_LEN, 2);
		std::vector<uint64_t> pas(n);
		for (uint32_t i = 0; i < n; ++i)
			pas[i] = bits::load_be64(c.in + mi::kPas + 8u * i);
		uint32_t reason = 0;
		if (uint8_t st = pages.give({}, pas, &reason))
			return c.fail(st, 0x10 | reason);
		return;
	}
	case manage_pages_opmod::TAKE: {
		uint32_t room = (c.outlen - mo::kPas) / 8;
		std::vector<uint64_t> got = pages.take({}, n < room ? n : room);
		for (size_t i = 0; i < got.size(); ++i)
			bits::store_be64(c.out + mo::kPas + 8 * i, got[i]);
		c.put(mo::output_num_entries, static_cast<uint32_t>(got.size()));
		return;
	}
	default:
		return c.fail(status::BAD_PARAM, 3);
	}
}

constexpr CmdSpec kCommands[] = {
	{op::QUERY_PAGES, query_pages, 16, 16, Need::Enabled},
	{op::MANAGE_PAGES, manage_pages, 16, 16, Need::Enabled},
};

} // namespace

std::span<const CmdSpec> pages_commands() { return kCommands; }

} // namespace mlx5emu
