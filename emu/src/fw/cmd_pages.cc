// SPDX-License-Identifier: GPL-2.0
// Firmware page commands: QUERY_PAGES, MANAGE_PAGES.
#include <vector>

#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

// The function whose pages a command is about: 0 (the function itself),
// or on a PF with VFs, VF n (function_id n), whose pages the PF gives and
// takes back. -1, with the command failed BAD_PARAM, otherwise.
int page_function(CmdCtx &c, bits::Field ec, bits::Field fid)
{
	uint32_t n = c.get(fid);
	if (!c.get(ec) && (n == 0 || (!c.fw.cfg.is_vf() && c.fw.cfg.adapter && c.fw.cfg.adapter->valid_vf(n))))
		return static_cast<int>(n);
	c.fail(status::BAD_PARAM, 1);
	return -1;
}

void query_pages(CmdCtx &c)
{
	int fn = page_function(c, query_pages_in::embedded_cpu_function, query_pages_in::function_id);
	if (fn < 0)
		return;
	if (c.op_mod < query_pages_opmod::BOOT || c.op_mod > query_pages_opmod::REGULAR)
		return c.fail(status::BAD_PARAM, 2);
	c.put(query_pages_out::function_id, static_cast<uint32_t>(fn));
	if (fn == 0) {
		c.put(query_pages_out::num_pages, static_cast<uint32_t>(c.fw.pages.query({}, c.op_mod)));
		return;
	}
	// A VF's: what the firmware still wants for it, or gives back.
	int64_t want = c.fw.cfg.adapter->vf_pages_wanted(static_cast<uint16_t>(fn)) -
		       static_cast<int64_t>(c.fw.pages.held({false, static_cast<uint16_t>(fn)}));
	c.put(query_pages_out::num_pages, static_cast<uint32_t>(static_cast<int32_t>(want)));
}

// GIVE for VF n: only while the PF has it enabled, and at most
// Adapter::kVfPageBudget pages held for it.
bool vf_give_ok(CmdCtx &c, uint16_t n, uint32_t count)
{
	Adapter &a = *c.fw.cfg.adapter;
	if (!a.vf_enabled(n)) {
		c.fail(status::BAD_PARAM, 4);
		return false;
	}
	if (c.fw.pages.held({false, n}) + count > Adapter::kVfPageBudget) {
		++c.fw.refusals.vf_page_budget;
		c.fail(status::NO_RESOURCES, 5);
		return false;
	}
	return true;
}

void manage_pages(CmdCtx &c)
{
	namespace mi = manage_pages_in;
	namespace mo = manage_pages_out;
	int fn = page_function(c, mi::embedded_cpu_function, mi::function_id);
	if (fn < 0)
		return;
	FnId id{false, static_cast<uint16_t>(fn)};
	uint32_t n = c.get(mi::input_num_entries);
	PageTracker &pages = c.fw.pages;

	switch (c.op_mod) {
	case manage_pages_opmod::CANT_GIVE:
		pages.cant_give(id, n);
		return;
	case manage_pages_opmod::GIVE: {
		if ((c.inlen - mi::kPas) / 8 < n)
			return c.fail(status::BAD_INPUT_LEN, 2);
		if (fn && !vf_give_ok(c, id.func_id, n))
			return;
		std::vector<uint64_t> pas(n);
		for (uint32_t i = 0; i < n; ++i)
			pas[i] = bits::load_be64(c.in + mi::kPas + 8u * i);
		uint32_t reason = 0;
		if (uint8_t st = pages.give(id, pas, &reason))
			return c.fail(st, 0x10 | reason);
		return;
	}
	case manage_pages_opmod::TAKE: {
		uint32_t room = (c.outlen - mo::kPas) / 8;
		std::vector<uint64_t> got = pages.take(id, n < room ? n : room);
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
