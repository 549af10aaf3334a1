// SPDX-License-Identifier: GPL-2.0
#include "queues/mkey.h"

#include <algorithm>

#include "dma/guest_memory.h"
#include "prm/mkey.h"
#include "queues/device_memory.h"

namespace mlx5emu {

namespace {

Mkey make_reserved()
{
	Mkey m;
	m.index = MkeyTable::kReservedLkey >> 8;
	m.mode = prm::mkc::MODE_PA;
	m.access = ACC_LOCAL_READ | ACC_LOCAL_WRITE;
	m.length64 = true;
	return m;
}

} // namespace

bool Mkey::serves(uint32_t q) const { return mode != prm::mkc::MODE_KLM || qpn == kNoQp || qpn == q; }

uint64_t Mkey::xlt_capacity() const
{
	uint64_t octwords = (static_cast<uint64_t>(translations_octwords) + 3) & ~3ull;
	return mode == prm::mkc::MODE_MTT ? octwords * 2 : mode == prm::mkc::MODE_KLM ? octwords : 0;
}

namespace {

// PA and MTT keys: fn(guest_addr, offset_in_request, n) for every
// physically contiguous piece of [va, va+len).
template <class Fn> bool direct_pieces(const Mkey &m, uint64_t va, size_t len, Fn fn)
{
	if (m.mode == prm::mkc::MODE_PA)
		return len == 0 || fn(va, 0, len);
	if (m.mode != prm::mkc::MODE_MTT)
		return false;
	uint64_t page = 1ull << m.log_page;
	uint64_t first_page = m.start >> m.log_page;
	size_t done = 0;
	while (done < len) {
		uint64_t a = va + done;
		uint64_t idx = (a >> m.log_page) - first_page;
		if (idx >= m.mtt.size() || m.mtt[idx] == Mkey::kNotPresent)
			return false;
		uint64_t in_page = a & (page - 1);
		uint64_t ga = m.mtt[idx] + in_page;
		size_t n = static_cast<size_t>(std::min<uint64_t>(len - done, page - in_page));
		// Pages that follow in guest memory too make one piece: one
		// copy (and one lookup of the DMA window) instead of one per
		// page. A page that does not follow ends the piece; one not
		// present fails on the next turn, as before.
		while (done + n < len && idx + 1 < m.mtt.size() && m.mtt[idx + 1] != Mkey::kNotPresent &&
		       m.mtt[idx + 1] == m.mtt[idx] + page) {
			++idx;
			n += static_cast<size_t>(std::min<uint64_t>(len - done - n, page));
		}
		if (!fn(ga, done, n))
			return false;
		done += n;
	}
	return true;
}

} // namespace

template <class Fn> bool MkeyTable::pieces(const Mkey &m, uint64_t va, size_t len, Fn fn) const
{
	if (m.mode != prm::mkc::MODE_KLM)
		return direct_pieces(m, va, len, fn);
	// Entry by entry from the key's start; every entry names a direct
	// key (no other indirect key, not the reserved lkey) of the same PD
	// and lies inside it.
	uint64_t off = va - m.start;
	size_t done = 0;
	for (const Klm &e : m.klm) {
		if (done == len)
			break;
		if (off >= e.bcount) {
			off -= e.bcount;
			continue;
		}
		size_t n = static_cast<size_t>(std::min<uint64_t>(e.bcount - off, len - done));
		const Mkey *t = find_index(e.key >> 8);
		if (!t || t->mode == prm::mkc::MODE_KLM || check(e.key, m.pd, e.va + off, n, 0, &t) != KeyStatus::Ok)
			return false;
		size_t base = done;
		if (!direct_pieces(*t, e.va + off, n, [&](uint64_t ga, size_t at, size_t k) { return fn(ga, base + at, k); }))
			return false;
		done += n;
		off = 0;
	}
	return done == len;
}

MkeyTable::MkeyTable(uint32_t limit) : limit_(limit), reserved_(make_reserved()) {}

bool MkeyTable::create(Mkey m, uint32_t *index)
{
	uint32_t n = kFirstIndex;
	for (const auto &[i, k] : keys_) {
		if (i > n)
			break;
		n = i + 1;
	}
	if (n >= limit_ || n > 0xffffff || !xlt_resized(0, m.xlt_entries()))
		return false;
	m.index = n;
	keys_.emplace(n, std::move(m));
	*index = n;
	return true;
}

bool MkeyTable::destroy(uint32_t index)
{
	auto it = keys_.find(index);
	if (it == keys_.end())
		return false;
	xlt_resized(it->second.xlt_entries(), 0);
	keys_.erase(it);
	return true;
}

bool MkeyTable::xlt_resized(size_t before, size_t after)
{
	if (after > before && xlt_entries_ + (after - before) > kMaxXltEntries)
		return false;
	xlt_entries_ = xlt_entries_ + after - before;
	return true;
}

unsigned MkeyTable::pd_users(uint32_t pd) const
{
	unsigned n = 0;
	for (const auto &[i, k] : keys_)
		n += k.pd == pd;
	return n;
}

const Mkey *MkeyTable::find_index(uint32_t index) const
{
	auto it = keys_.find(index);
	return it == keys_.end() ? nullptr : &it->second;
}

Mkey *MkeyTable::find_index(uint32_t index)
{
	auto it = keys_.find(index);
	return it == keys_.end() ? nullptr : &it->second;
}

KeyStatus MkeyTable::check(uint32_t key, uint32_t pd, uint64_t va, uint64_t len, unsigned need,
			   const Mkey **out, uint32_t qpn, bool rlky) const
{
	const Mkey *m = nullptr;
	if (key == kReservedLkey) {
		if (!rlky || (need & (ACC_REMOTE_READ | ACC_REMOTE_WRITE | ACC_ATOMIC)))
			return KeyStatus::NoKey;
		*out = &reserved_;
		return KeyStatus::Ok;
	}
	m = find_index(key >> 8);
	if (!m || m->variant != (key & 0xff) || m->free)
		return KeyStatus::NoKey;
	if (m->pd != pd)
		return KeyStatus::BadPd;
	if ((m->access & need) != need)
		return KeyStatus::NoAccess;
	// A type 2 window bound to a QP serves that QP only.
	if ((need & (ACC_REMOTE_READ | ACC_REMOTE_WRITE | ACC_ATOMIC)) && !m->serves(qpn))
		return KeyStatus::NoAccess;
	if (m->mode == prm::mkc::MODE_MEMIC) {
		// Zero-based: va is the offset into the key's device memory.
		if (len > m->len || va > m->len - len)
			return KeyStatus::Bounds;
		if (len && (!dm_ || !dm_->allocated(m->start + va, len)))
			return KeyStatus::Translation;
	} else if (!m->length64) {
		if (va < m->start || len > m->len || va - m->start > m->len - len)
			return KeyStatus::Bounds;
	} else if (va + len < va) {
		return KeyStatus::Bounds;
	}
	if (m->mode == prm::mkc::MODE_MTT && len) {
		uint64_t first = m->start >> m->log_page;
		uint64_t last = (va + len - 1) >> m->log_page;
		if ((va >> m->log_page) < first || last - first >= m->mtt.size())
			return KeyStatus::Translation;
	}
	if (m->mode == prm::mkc::MODE_KLM && len &&
	    !pieces(*m, va, static_cast<size_t>(len), [](uint64_t, size_t, size_t) { return true; }))
		return KeyStatus::Translation;
	*out = m;
	return KeyStatus::Ok;
}

bool MkeyTable::read(GuestMemory &mem, const Mkey &m, uint64_t va, void *dst, size_t len) const
{
	auto *d = static_cast<uint8_t *>(dst);
	if (m.mode == prm::mkc::MODE_MEMIC)
		return dm_ && dm_->read(m.start + va, dst, len);
	return pieces(m, va, len, [&](uint64_t ga, size_t at, size_t n) { return mem.read(ga, d + at, n); });
}

bool MkeyTable::write(GuestMemory &mem, const Mkey &m, uint64_t va, const void *src, size_t len) const
{
	auto *s = static_cast<const uint8_t *>(src);
	if (m.mode == prm::mkc::MODE_MEMIC)
		return dm_ && dm_->write(m.start + va, src, len);
	return pieces(m, va, len, [&](uint64_t ga, size_t at, size_t n) { return mem.write(ga, s + at, n); });
}

bool MkeyTable::present(const Mkey &m, uint64_t va, size_t len) const
{
	if (m.mode == prm::mkc::MODE_MEMIC)
		return true;
	return pieces(m, va, len, [](uint64_t, size_t, size_t) { return true; });
}

bool MkeyTable::extents(const Mkey &m, uint64_t va, size_t len, ExtentFn fn, void *ctx) const
{
	if (m.mode == prm::mkc::MODE_MEMIC)
		return false;
	return pieces(m, va, len, [&](uint64_t ga, size_t, size_t n) { return fn(ctx, ga, n); });
}

} // namespace mlx5emu
