// SPDX-License-Identifier: GPL-2.0
// UMR WQEs (opcode OP_UMR): changing a memory key from a send queue. The
// in-tree mlx5_ib posts them on its UMR QP (MR cache registration, rereg,
// revoke) and on kernel QPs (IB_WR_REG_MR, IB_WR_LOCAL_INV); the mlx5
// provider posts them on user QPs to bind and invalidate memory windows.
//
// A UMR WQE is: control segment (immediate = the key), UMR control segment
// (flags, translation size and offset, the mask of mkey fields to write),
// mkey segment (the new field values), then the translation entries inline
// or a data segment naming a list in guest memory (read through a local
// key, at most 64 Ki 16-byte units = 1 MiB per WQE).
//
// Rules enforced: the key must exist and be UMR-enabled; a QP of a user
// context (non-zero uid) may change only KLM keys (of the kernel or its
// own context); a user/kernel QP may change only keys of its PD and
// cannot move them to another PD;
// the free checks and the QP check of the flags; translations stay inside
// the room the key was created with; a window or other KLM key in use must
// point into live direct keys of its PD (for the in-tree driver's KLM MRs:
// the PD's DMA key) and grant remote write/atomic only over keys with
// local write (IBA's rule for binding); a type 2 window names the QP that
// binds it.
#include <algorithm>
#include <cstring>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/mkey.h"
#include "prm/qp.h"
#include "prm/wqe.h"

namespace mlx5emu {

namespace w = prm::wqe;
namespace mm = prm::wqe::mkey_mask;
namespace mkc = prm::mkc;
namespace syn = prm::cqe_syndrome;
using bits::get;
using bits::load_be16;
using bits::load_be32;
using bits::load_be64;

namespace {

// The mkey segment's fields that the mask selects, written into `k`.
void apply_mask(Mkey &k, uint64_t mask, const uint8_t *seg)
{
	if (mask & mm::LEN) {
		k.len = load_be64(seg + mkc::kLen);
		k.length64 = get(seg, mkc::length64);
	}
	if (mask & mm::PAGE_SIZE)
		k.log_page = get(seg, mkc::log_page_size);
	if (mask & mm::START_ADDR)
		k.start = load_be64(seg + mkc::kStartAddr);
	if (mask & mm::PD)
		k.pd = get(seg, mkc::pd);
	if (mask & mm::EN_RINVAL)
		k.en_rinval = get(seg, mkc::en_rinval);
	if (mask & mm::KEY)
		k.variant = static_cast<uint8_t>(get(seg, mkc::mkey_7_0));
	if (mask & mm::QPN)
		k.qpn = get(seg, mkc::qpn);
	auto right = [&](uint64_t bit, bits::Field f, unsigned acc) {
		if (mask & bit)
			k.access = get(seg, f) ? (k.access | acc) : (k.access & ~acc);
	};
	right(mm::LR, mkc::lr, ACC_LOCAL_READ);
	right(mm::LW, mkc::lw, ACC_LOCAL_WRITE);
	right(mm::RR, mkc::rr, ACC_REMOTE_READ);
	right(mm::RW, mkc::rw, ACC_REMOTE_WRITE);
	right(mm::A, mkc::a, ACC_ATOMIC);
	if (mask & mm::FREE)
		k.free = get(seg, mkc::free);
}

} // namespace

// A window (KLM key) about to be put in use: every byte of its range must
// land in a live direct key of its PD that allows what the window grants.
uint8_t RdmaRequester::check_window(const Qp &qp, const Mkey &k) const
{
	if (k.length64)
		return syn::MW_BIND;
	// A type 2 window is bound to the QP that binds it.
	if (qp.cfg.st != prm::qp_st::REG_UMR && !k.serves(qp.qpn))
		return syn::MW_BIND;
	bool needs_lw = k.access & (ACC_REMOTE_WRITE | ACC_ATOMIC);
	uint64_t left = k.len;
	for (const Klm &e : k.klm) {
		if (!left)
			break;
		uint64_t n = std::min<uint64_t>(e.bcount, left);
		if (!n)
			continue;
		const Mkey *t = dp_.res_.mkeys.find_index(e.key >> 8);
		if (!t || t->mode == mkc::MODE_KLM ||
		    dp_.res_.mkeys.check(e.key, k.pd, e.va, n, needs_lw ? unsigned(ACC_LOCAL_WRITE) : 0u, &t) != KeyStatus::Ok)
			return syn::MW_BIND;
		left -= n;
	}
	return left ? syn::MW_BIND : 0;
}

uint8_t RdmaRequester::execute_umr(Qp &qp, const SendWr &wr)
{
	const std::vector<uint8_t> &b = wr.umr;
	constexpr size_t kHead = w::kUmrCtrlSize + w::kUmrMkeySegSize;
	if (b.size() < kHead)
		return syn::LOCAL_QP_OP;
	bool umr_qp = qp.cfg.st == prm::qp_st::REG_UMR;
	uint8_t flags = b[w::kUmrFlags];
	uint64_t mask = load_be64(b.data() + w::kUmrMkeyMask);
	uint64_t octo = load_be16(b.data() + w::kUmrXltOctowords);
	uint64_t xoff = 0;
	if (flags & w::UMR_XLT_OFFSET_EN)
		xoff = load_be16(b.data() + w::kUmrXltOffset) | static_cast<uint64_t>(load_be32(b.data() + w::kUmrXltOffset47_16)) << 16;
	const uint8_t *seg = b.data() + w::kUmrCtrlSize;

	Mkey *mk = dp_.res_.mkeys.find_index(load_be32(reinterpret_cast<const uint8_t *>(&wr.imm)) >> 8);
	if (!mk || !mk->umr_en)
		return syn::LOCAL_PROT;
	bool window = mk->mode == mkc::MODE_KLM;
	uint8_t refuse = window ? syn::MW_BIND : syn::LOCAL_PROT;
	// A process's QP (created with its uid) changes only indirect keys:
	// windows and KLM keys, whose entries are keys checked against its
	// PD (the in-tree driver creates a process's windows with uid 0,
	// DEVX KLM keys with the process's uid; another context's are not
	// its own). Direct keys hold bus addresses: remapping one, such as
	// the in-tree driver's cached MRs (umr_en, in the process's PD once
	// it registered them), is for the kernel's QPs only.
	if (qp.uid && (!window || (mk->uid && mk->uid != qp.uid)))
		return refuse;
	if (!umr_qp && mk->pd != qp.cfg.pd)
		return refuse;
	if (((flags & w::UMR_FAIL_IF_FREE) && mk->free) || ((flags & w::UMR_FAIL_IF_NOT_FREE) && !mk->free) ||
	    ((flags & w::UMR_CHECK_QPN) && mk->qpn != qp.qpn))
		return refuse;
	if ((mask & mm::BSF_EN) && get(seg, mkc::bsf_en))
		return syn::LOCAL_QP_OP; // no signature / crypto offload
	if (mask & mm::PD) {
		uint32_t pd = get(seg, mkc::pd);
		if (!dp_.res_.pds.contains(pd) || (!umr_qp && pd != qp.cfg.pd))
			return refuse;
	}
	if ((mask & mm::QPN) && !umr_qp) {
		uint32_t q = get(seg, mkc::qpn);
		if (q != Mkey::kNoQp && q != qp.qpn)
			return refuse;
	}
	if ((mask & mm::PAGE_SIZE) && mk->mode == mkc::MODE_MTT) {
		uint32_t lp = get(seg, mkc::log_page_size);
		if (lp < 12 || lp > 40)
			return syn::LOCAL_QP_OP;
	}

	// The translation entries: inline after the mkey segment, or a list
	// in guest memory behind a data segment.
	std::vector<uint8_t> xlt;
	if (octo) {
		if (mk->mode != mkc::MODE_MTT && mk->mode != mkc::MODE_KLM)
			return syn::LOCAL_QP_OP;
		size_t bytes = static_cast<size_t>(octo) * w::kDsUnit;
		if (flags & w::UMR_INLINE) {
			if (b.size() < kHead + bytes)
				return syn::LOCAL_QP_OP;
			xlt.assign(b.begin() + kHead, b.begin() + kHead + bytes);
		} else {
			if (b.size() < kHead + w::kDataSize)
				return syn::LOCAL_QP_OP;
			const uint8_t *d = b.data() + kHead;
			uint32_t bc = load_be32(d + w::kDataByteCount) & w::kByteCountMask;
			uint32_t lkey = load_be32(d + w::kDataLkey);
			uint64_t addr = load_be64(d + w::kDataAddr);
			if (bc < bytes)
				return syn::LOCAL_LENGTH;
			xlt.resize(bytes);
			// The UMR QP (the driver's own, privileged) reads through a
			// key of any PD, e.g. its PD's DMA key; others through keys
			// of their PD.
			uint32_t pd = qp.cfg.pd;
			if (const Mkey *own = dp_.res_.mkeys.find_index(lkey >> 8); umr_qp && own)
				pd = own->pd;
			const Mkey *lk = nullptr;
			if (dp_.res_.mkeys.check(lkey, pd, addr, bytes, ACC_LOCAL_READ, &lk, Mkey::kNoQp, qp.rlky) !=
				    KeyStatus::Ok ||
			    !dp_.res_.mkeys.read(dp_.mem_, *lk, addr, xlt.data(), bytes)) {
				if (lkey == MkeyTable::kReservedLkey && !qp.rlky)
					++dp_.c_.resd_lkey_refused;
				return syn::LOCAL_PROT;
			}
		}
	}
	bool klm = mk->mode == mkc::MODE_KLM;
	uint64_t count = klm ? octo : octo * 2;
	uint64_t first = klm ? xoff : xoff * 2;
	if (count && (first > mk->xlt_capacity() || count > mk->xlt_capacity() - first)) {
		++dp_.c_.umr_xlt_refused;
		return syn::LOCAL_LENGTH;
	}
	// The advertised list length (log_max_klm_list_size) bounds a KLM
	// key's whole list (what a window check and every access walk) and
	// a fast registration's page list (IB_WR_REG_MR on a QP other than
	// the UMR QP); the UMR QP's MTT updates (the MR cache: 1 MiB chunks
	// at an offset) only the key's room and the function's budget.
	// Checked before anything is allocated.
	if (count && (klm || !umr_qp) && !Mkey::xlt_list_fits(first, count, Mkey::kLogMaxFastRegList)) {
		++dp_.c_.umr_xlt_refused;
		return syn::LOCAL_LENGTH;
	}
	size_t before = mk->xlt_entries();
	size_t after = std::max<uint64_t>(klm ? mk->klm.size() : mk->mtt.size(), count ? first + count : 0);
	if (!count)
		after = before;
	if (!dp_.res_.mkeys.xlt_resized(before, after)) {
		++dp_.c_.umr_xlt_refused;
		return syn::LOCAL_LENGTH;
	}

	auto write_xlt = [&](Mkey &k) {
		if (!count)
			return;
		if (klm) {
			k.klm.resize(after);
			for (uint64_t i = 0; i < count; ++i) {
				const uint8_t *e = xlt.data() + i * w::kKlmSize;
				k.klm[first + i] = Klm{load_be32(e + w::kKlmByteCount), load_be32(e + w::kKlmKey), load_be64(e + w::kKlmAddr)};
			}
			return;
		}
		k.mtt.resize(after, Mkey::kNotPresent);
		for (uint64_t i = 0; i < count; ++i) {
			uint64_t v = load_be64(xlt.data() + i * w::kMttSize);
			k.mtt[first + i] = (v & w::kMttPresent) ? (v & prm::mkey_cmd::kMttAddrMask) : Mkey::kNotPresent;
		}
	};
	if (window) {
		// Checked as a whole before anything changes.
		Mkey n = *mk;
		apply_mask(n, mask, seg);
		write_xlt(n);
		uint8_t s = n.free ? 0 : check_window(qp, n);
		if (s) {
			dp_.res_.mkeys.xlt_resized(after, before);
			return s;
		}
		*mk = std::move(n);
	} else {
		apply_mask(*mk, mask, seg);
		write_xlt(*mk);
	}
	++dp_.c_.umr_wqes;
	return 0;
}

} // namespace mlx5emu
