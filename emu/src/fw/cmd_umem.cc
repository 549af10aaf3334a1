// SPDX-License-Identifier: GPL-2.0
// DEVX user memory: CREATE_UMEM registers a process's pinned pages (its
// MTT list, the page size and the offset of the umem in the first page)
// under the uid of the command; DESTROY_UMEM takes it back once no queue
// uses it. Also QUERY_LAG, which DEVX users (UCX) ask before anything
// else: one port, no LAG.
#include "fw/cmd_umem.h"

#include "exec/datapath.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

using namespace prm;

namespace {

enum Reason : uint32_t {
	kKernel = 1,     // uid 0: no umem_uid_0
	kLogPage = 2,    // page size over 4 KiB << 20
	kPageOffset = 3, // offset not inside the first page
	kNoMtt = 4,
	kTooMany = 5, // num_of_mtt over UmemTable::kMaxMtts
	kInputLen = 6,
	kBadMtt = 7, // zero or not aligned to the page
	kFull = 8,   // every id in use or the MTT budget spent
	kNoUmem = 9,
	kForeign = 10,
	kBusy = 11,
};

void create_umem(CmdCtx &c)
{
	// Only a user context registers user memory: the kernel has its
	// page lists (umem_uid_0 is not advertised).
	if (uid_privileged(c.uid))
		return c.fail(status::BAD_PARAM, kKernel);
	uint32_t log_page_12 = c.get(umem_cmd::log_page_size);
	if (log_page_12 > 20)
		return c.fail(status::BAD_PARAM, kLogPage);
	Umem u;
	u.uid = c.uid;
	u.log_page = 12 + log_page_12;
	u.page_offset = c.get(umem_cmd::page_offset);
	if (u.page_offset >= (1ull << u.log_page))
		return c.fail(status::BAD_PARAM, kPageOffset);
	uint64_t n = bits::load_be64(c.in + umem_cmd::kNumOfMtt);
	if (!n)
		return c.fail(status::BAD_PARAM, kNoMtt);
	if (n > UmemTable::kMaxMtts) {
		++c.fw.refusals.umem_budget;
		return c.fail(status::EXCEED_LIM, kTooMany);
	}
	if (umem_cmd::kMtt + 8 * n > c.inlen)
		return c.fail(status::BAD_INPUT_LEN, kInputLen);
	u.pas.reserve(n);
	uint64_t mask = (1ull << u.log_page) - 1;
	for (uint64_t i = 0; i < n; ++i) {
		// The low bits are the access (rd_en, wr_en): the address is
		// the page's.
		uint64_t a = bits::load_be64(c.in + umem_cmd::kMtt + 8 * i) & ~3ull;
		if (!a || (a & mask))
			return c.fail(status::BAD_PARAM, kBadMtt);
		u.pas.push_back(a);
	}
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t id;
	if (!r.umems.add(std::move(u), &id)) {
		++c.fw.refusals.umem_budget;
		return c.fail(status::NO_RESOURCES, kFull);
	}
	uid_record(c, Obj::Umem, id);
	c.put(umem_cmd::create_out_umem_id, id);
}

void destroy_umem(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t id = c.get(umem_cmd::destroy_in_umem_id);
	Umem *u = r.umems.get(id);
	if (!u)
		return c.fail(status::BAD_PARAM, kNoUmem);
	if (!uid_may_touch(c, Obj::Umem, id, kForeign))
		return;
	if (u->users) {
		++c.fw.refusals.umem_busy;
		return c.fail(status::BAD_RES_STATE, kBusy);
	}
	r.umems.remove(id);
	uid_forget(c, Obj::Umem, id);
}

// lag_state 0: LAG is not active (the emulated adapter has one port
// and no LAG capability). The context stays all zero.
void query_lag(CmdCtx &) {}

// The umem `id` as the command's uid may use it: its own only.
Umem *own_umem(CmdCtx &c, uint32_t id, uint32_t reason)
{
	Umem *u = c.fw.dp().res().umems.get(id);
	if (!u) {
		c.fail(status::BAD_PARAM, reason);
		return nullptr;
	}
	if (u->uid != c.uid) {
		++c.fw.refusals.foreign_name;
		c.fail(status::BAD_RESOURCE, reason + 1);
		return nullptr;
	}
	return u;
}

constexpr CmdSpec kCommands[] = {
	{op::CREATE_UMEM, create_umem, umem_cmd::kCreateInSize, umem_cmd::kOutSize, Need::Initialized},
	{op::DESTROY_UMEM, destroy_umem, 16, hdr_out::kMinLen, Need::Initialized},
	{op::QUERY_LAG, query_lag, query_lag::kInSize, query_lag::kOutSize, Need::Initialized},
};

} // namespace

bool umem_buffer(CmdCtx &c, uint32_t id, uint64_t offset, uint64_t bytes, PageList *pl, uint32_t reason)
{
	Umem *u = own_umem(c, id, reason);
	if (!u)
		return false;
	uint64_t size = u->size();
	if (!bytes || offset > size || bytes > size - offset) {
		c.fail(status::BAD_PARAM, reason + 2);
		return false;
	}
	uint64_t start = u->page_offset + offset;
	size_t first = static_cast<size_t>(start >> u->log_page);
	pl->log_page = u->log_page;
	pl->offset = start & ((1ull << u->log_page) - 1);
	size_t n = PageList::pages_for(bytes, pl->offset, pl->log_page);
	pl->pas.assign(u->pas.begin() + first, u->pas.begin() + first + n);
	return true;
}

bool umem_address(CmdCtx &c, uint32_t id, uint64_t offset, uint32_t len, uint64_t *addr, uint32_t reason)
{
	Umem *u = own_umem(c, id, reason);
	if (!u)
		return false;
	uint64_t start = u->page_offset + offset, mask = (1ull << u->log_page) - 1;
	// Inside the umem, aligned to its length, never across a page.
	if (offset % len || offset > u->size() || len > u->size() - offset || (start & mask) + len > mask + 1) {
		c.fail(status::BAD_PARAM, reason + 2);
		return false;
	}
	*addr = u->pas[start >> u->log_page] + (start & mask);
	return true;
}

void umem_bind(CmdCtx &c, Obj kind, uint32_t id, uint32_t umem_id)
{
	c.fw.dp().res().umems.bind({static_cast<uint8_t>(kind), id}, umem_id);
}

void umem_unbind(CmdCtx &c, Obj kind, uint32_t id)
{
	c.fw.dp().res().umems.unbind({static_cast<uint8_t>(kind), id});
}

std::span<const CmdSpec> umem_commands() { return kCommands; }

} // namespace mlx5emu
