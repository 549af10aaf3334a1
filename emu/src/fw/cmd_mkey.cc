// SPDX-License-Identifier: GPL-2.0
// Memory keys: CREATE_MKEY (PA mode, MTT page lists, free KLM keys that
// UMR fills: memory windows, MEMIC keys over allocated device memory),
// QUERY_MKEY, DESTROY_MKEY.
#include <algorithm>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/mkey.h"

namespace mlx5emu {

namespace {

using namespace prm;
using bits::get;

enum Reason : uint32_t {
	kUmem = 1,
	kMode = 2,
	kPd = 3,
	kPageSize = 4,
	kMttShort = 5,
	kMttAlign = 6,
	kFull = 7,
	kNoKey = 8,
	kBsf = 9,
	kLength = 10,
	kMemic = 11,
	kKlmList = 12,   // KLM room over log_max_klm_list_size
	kXltRoom = 13,   // MTT room over the function's translation budget
	kXltBudget = 14, // the MTT list would exceed what is left of it
	kForeignPd = 15,
	kForeign = 16,
};

void create_mkey(CmdCtx &c)
{
	const uint8_t *k = c.in + mkey_cmd::kMkc;
	if (c.get(mkey_cmd::mkey_umem_valid))
		return c.fail(status::BAD_PARAM, kUmem); // no DEVX umems
	Mkey m;
	m.mode = static_cast<uint8_t>(get(k, mkc::access_mode_4_2) << 2 | get(k, mkc::access_mode_1_0));
	// KLM keys start free and get their entries by UMR (ALLOC_MW, the
	// in-tree driver's KLM MRs); no KSM.
	bool klm_by_umr = m.mode == mkc::MODE_KLM && get(k, mkc::free) && get(k, mkc::umr_en);
	bool memic = m.mode == mkc::MODE_MEMIC && c.fw.memic;
	if (m.mode != mkc::MODE_PA && m.mode != mkc::MODE_MTT && !klm_by_umr && !memic)
		return c.fail(status::BAD_PARAM, kMode);
	if (get(k, mkc::bsf_en))
		return c.fail(status::BAD_PARAM, kBsf); // no signature offload
	m.variant = static_cast<uint8_t>(get(k, mkc::mkey_7_0));
	m.pd = get(k, mkc::pd);
	m.uid = c.uid;
	m.free = get(k, mkc::free);
	m.umr_en = get(k, mkc::umr_en);
	m.length64 = get(k, mkc::length64);
	m.en_rinval = get(k, mkc::en_rinval);
	m.qpn = get(k, mkc::qpn);
	m.start = bits::load_be64(k + mkc::kStartAddr);
	m.len = bits::load_be64(k + mkc::kLen);
	m.access = (get(k, mkc::lr) ? unsigned(ACC_LOCAL_READ) : 0u) | (get(k, mkc::lw) ? unsigned(ACC_LOCAL_WRITE) : 0u) |
		   (get(k, mkc::rr) ? unsigned(ACC_REMOTE_READ) : 0u) | (get(k, mkc::rw) ? unsigned(ACC_REMOTE_WRITE) : 0u) |
		   (get(k, mkc::a) ? unsigned(ACC_ATOMIC) : 0u);
	m.log_page = get(k, mkc::log_page_size);
	m.translations_octwords = get(k, mkc::translations_octword_size);
	if (!m.length64 && m.start + m.len < m.start)
		return c.fail(status::BAD_PARAM, kLength);
	// A MEMIC key covers part of one allocation (start: its BAR0 offset),
	// enabled, not to be changed by UMR.
	if (memic && (m.free || m.umr_en || m.length64 || !c.fw.memic->allocated(m.start, m.len)))
		return c.fail(status::BAD_PARAM, kMemic);
	// What one key may hold: a KLM list no longer than the advertised
	// log_max_klm_list_size, an MTT list within the function's whole
	// translation budget (MkeyTable::kMaxXltEntries).
	if (m.mode == mkc::MODE_KLM && m.xlt_capacity() > (1ull << c.fw.caps.gen(cmd_hca_cap::log_max_klm_list_size))) {
		++c.fw.refusals.klm_list;
		return c.fail(status::BAD_PARAM, kKlmList);
	}
	if (m.xlt_capacity() > MkeyTable::kMaxXltEntries) {
		++c.fw.refusals.mkey_budget;
		return c.fail(status::BAD_PARAM, kXltRoom);
	}

	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	if (!r.pds.contains(m.pd))
		return c.fail(status::BAD_PARAM, kPd);
	if (!uid_may_name(c, Obj::Pd, m.pd, kForeignPd))
		return;
	if (m.mode == mkc::MODE_MTT) {
		if (m.log_page < 12 || m.log_page > 40)
			return c.fail(status::BAD_PARAM, kPageSize);
		uint32_t octwords = c.get(mkey_cmd::translations_octword_actual_size);
		size_t provided = std::min<size_t>(2ull * octwords, (c.inlen - std::min<uint32_t>(c.inlen, mkey_cmd::kMtt)) / 8);
		size_t needed = 0;
		if (m.len && !m.length64)
			needed = static_cast<size_t>(((m.start + m.len - 1) >> m.log_page) - (m.start >> m.log_page) + 1);
		if (!m.free && provided < needed)
			return c.fail(status::BAD_INPUT_LEN, kMttShort);
		if (!r.mkeys.xlt_fits(std::min(provided, needed))) {
			++c.fw.refusals.mkey_budget;
			return c.fail(status::NO_RESOURCES, kXltBudget);
		}
		uint64_t mask = (1ull << m.log_page) - 1;
		for (size_t i = 0; i < std::min(provided, needed); ++i) {
			uint64_t pa = bits::load_be64(c.in + mkey_cmd::kMtt + 8 * i) & mkey_cmd::kMttAddrMask;
			if (pa & mask)
				return c.fail(status::BAD_PARAM, kMttAlign);
			m.mtt.push_back(pa);
		}
	}
	uint32_t index;
	if (!r.mkeys.create(std::move(m), &index)) {
		++c.fw.refusals.mkey_table;
		return c.fail(status::NO_RESOURCES, kFull);
	}
	uid_record(c, Obj::Mkey, index);
	c.put(mkey_cmd::mkey_index, index);
}

void query_mkey(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	const Mkey *m = c.fw.dp().res().mkeys.find_index(c.get(mkey_cmd::mkey_index));
	if (!m)
		return c.fail(status::BAD_PARAM, kNoKey);
	if (!uid_may_touch(c, Obj::Mkey, m->index, kForeign))
		return;
	uint8_t *k = c.out + mkey_cmd::kMkc;
	auto put = [k](bits::Field f, uint32_t v) { bits::set(k, f, v); };
	put(mkc::free, m->free);
	put(mkc::access_mode_1_0, m->mode & 3);
	put(mkc::access_mode_4_2, m->mode >> 2);
	put(mkc::umr_en, m->umr_en);
	put(mkc::a, !!(m->access & ACC_ATOMIC));
	put(mkc::rw, !!(m->access & ACC_REMOTE_WRITE));
	put(mkc::rr, !!(m->access & ACC_REMOTE_READ));
	put(mkc::lw, !!(m->access & ACC_LOCAL_WRITE));
	put(mkc::lr, !!(m->access & ACC_LOCAL_READ));
	put(mkc::qpn, m->qpn);
	put(mkc::mkey_7_0, m->variant);
	put(mkc::length64, m->length64);
	put(mkc::en_rinval, m->en_rinval);
	put(mkc::pd, m->pd);
	bits::store_be64(k + mkc::kStartAddr, m->start);
	bits::store_be64(k + mkc::kLen, m->len);
	put(mkc::translations_octword_size, m->translations_octwords);
	put(mkc::log_page_size, m->log_page);
	for (size_t i = 0; i < m->mtt.size() && mkey_cmd::kMtt + 8 * (i + 1) <= c.outlen; ++i)
		bits::store_be64(c.out + mkey_cmd::kMtt + 8 * i, m->mtt[i]);
}

void destroy_mkey(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	uint32_t index = c.get(mkey_cmd::mkey_index);
	if (!c.fw.dp().res().mkeys.find_index(index))
		return c.fail(status::BAD_PARAM, kNoKey);
	if (!uid_may_touch(c, Obj::Mkey, index, kForeign))
		return;
	c.fw.dp().res().mkeys.destroy(index);
	uid_forget(c, Obj::Mkey, index);
}

constexpr CmdSpec kCommands[] = {
	{res_op::CREATE_MKEY, create_mkey, mkey_cmd::kCreateSize, 16, Need::Initialized},
	{res_op::QUERY_MKEY, query_mkey, 16, mkey_cmd::kQueryOutSize, Need::Initialized},
	{res_op::DESTROY_MKEY, destroy_mkey, 16, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> mkey_commands() { return kCommands; }

} // namespace mlx5emu
