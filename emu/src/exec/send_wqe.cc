// SPDX-License-Identifier: GPL-2.0
// Send WQEs: reading one from the SQ (WQEBBs wrap around the queue),
// parsing its segments (control, datagram, XRC, remote address, atomic,
// data pointers, inline data; a UMR WQE's segments are kept for
// exec/umr.cc) and moving the local data it names.
#include <algorithm>
#include <cstring>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/mkey.h"
#include "prm/wqe.h"

namespace mlx5emu {

namespace w = prm::wqe;
namespace syn = prm::cqe_syndrome;
using bits::load_be32;
using bits::load_be64;

bool DataPath::take_send_wqe(Qp &qp, SendWr *wr, UdAddress *av, uint8_t *syndrome)
{
	*syndrome = 0;
	if (qp.req.sq_ci == qp.req.sq_pi)
		return false;
	uint32_t nbbs = qp.cfg.sq_wqebbs();
	uint64_t base = qp.cfg.rq_bytes();
	auto bb = [&](uint32_t i) { return base + static_cast<uint64_t>(i & (nbbs - 1)) * w::kBasicBlock; };
	uint8_t buf[w::kMaxWqebbs * w::kBasicBlock];

	wr->reset();
	wr->index = qp.req.sq_ci;
	++qp.ctr.sq_wqes;
	if (!qp.cfg.buf.read(mem_, bb(qp.req.sq_ci), buf, w::kBasicBlock)) {
		++qp.req.sq_ci;
		*syndrome = syn::LOCAL_QP_OP;
		return true;
	}
	uint32_t dw0 = load_be32(buf + w::kCtrlOpmodIdxOpcode);
	uint32_t dw1 = load_be32(buf + w::kCtrlQpnDs);
	unsigned ds = dw1 & 0x3f;
	unsigned nbb = (ds + 3) / 4;
	wr->opcode = static_cast<uint8_t>(dw0 & 0xff);
	// A WQE must end at or before the producer: one that reaches past it
	// (its size larger than the doorbell said) takes what was posted and
	// fails. Stepping over the producer instead would run the queue's
	// stale contents round and round, never meeting the producer again
	// (the engine thread looping forever on one guest's SQ).
	uint16_t posted = static_cast<uint16_t>(qp.req.sq_pi - qp.req.sq_ci);
	if (!ds || nbb > w::kMaxWqebbs || nbb > nbbs || nbb > posted) {
		qp.req.sq_ci = nbb > posted ? qp.req.sq_pi : static_cast<uint16_t>(qp.req.sq_ci + 1);
		*syndrome = syn::LOCAL_QP_OP;
		++qp.ctr.bad_wqes;
		++c_.malformed_wqes;
		return true;
	}
	wr->nbb = static_cast<uint8_t>(nbb);
	for (unsigned i = 1; i < nbb; ++i) {
		if (!qp.cfg.buf.read(mem_, bb(qp.req.sq_ci + i), buf + i * w::kBasicBlock, w::kBasicBlock)) {
			*syndrome = syn::LOCAL_QP_OP;
			break;
		}
	}
	qp.req.sq_ci = static_cast<uint16_t>(qp.req.sq_ci + nbb);
	if (*syndrome)
		return true;

	uint8_t fm_ce_se = buf[w::kCtrlFmCeSe];
	wr->signaled = (fm_ce_se & w::kCeMask) >= w::kCeCqUpdate;
	wr->solicited = fm_ce_se & w::kSolicited;
	wr->fence = (fm_ce_se & w::kFenceMask) != 0;
	std::memcpy(&wr->imm, buf + w::kCtrlImm, 4);

	// Every segment the opcode and the QP type call for must lie inside
	// the WQE's ds: a shorter WQE (or an opcode the QP type does not
	// have) is a local QP operation error, parsed no further.
	size_t pos = w::kCtrlSize, end = ds * w::kDsUnit;
	auto malformed = [&] {
		*syndrome = syn::LOCAL_QP_OP;
		++qp.ctr.bad_wqes;
		++c_.malformed_wqes;
		return true;
	};
	if (qp.cfg.is_ud()) {
		if (pos + w::kAvSize > end)
			return malformed();
		const uint8_t *a = buf + pos;
		av->qkey = load_be32(a + w::kAvQkey);
		av->dqpn = load_be32(a + w::kAvDqpDct) & 0xffffff;
		av->sl = a[w::kAvStatRateSl] & 0xf;
		av->dlid = bits::load_be16(a + w::kAvRlid);
		uint32_t gfl = load_be32(a + w::kAvGrhGidFl);
		av->grh = Grh{};
		// Every RoCE packet has a GRH: on an Ethernet port the bit is
		// reserved (the mlx5 provider leaves it clear) and the AV's
		// GRH fields are always taken.
		if ((gfl & w::kAvGrh) || cfg_.eth) {
			av->grh.present = true;
			av->grh.tclass = a[w::kAvTclass];
			av->grh.hop_limit = a[w::kAvHopLimit];
			av->grh.flow_label = gfl & w::kAvFlowLabelMask;
			std::memcpy(av->grh.dgid.data(), a + w::kAvRgid, 16);
		}
		// RoCE: the next hop's MAC, the source GID entry, the UDP
		// source port (where IB has the DLID), force loopback.
		av->roce = RoceAddr{};
		std::memcpy(av->roce.dmac.data(), a + w::kAvRmac, 6);
		av->roce.sgid_index = static_cast<uint8_t>(gfl >> w::kAvSgidIndexShift);
		av->roce.udp_sport = av->dlid;
		av->roce.force_lb = a[w::kAvFlMlid] & w::kAvForceLoopback;
		pos += w::kAvSize;
	}
	if (qp.cfg.is_dci()) {
		// The destination of this WQE (exec/dc.cc): DCT number, DC
		// access key, LID, SL and GRH as a UD address vector has them.
		if (pos + w::kAvSize > end)
			return malformed();
		const uint8_t *a = buf + pos;
		wr->dc_key = load_be64(a + w::kAvDcKey);
		wr->dct = load_be32(a + w::kAvDqpDct) & 0xffffff;
		wr->sl = a[w::kAvStatRateSl] & 0xf;
		wr->dlid = bits::load_be16(a + w::kAvRlid);
		uint32_t gfl = load_be32(a + w::kAvGrhGidFl);
		wr->grh = Grh{};
		if (gfl & w::kAvGrh) {
			wr->grh.present = true;
			wr->grh.tclass = a[w::kAvTclass];
			wr->grh.hop_limit = a[w::kAvHopLimit];
			wr->grh.flow_label = gfl & w::kAvFlowLabelMask;
			std::memcpy(wr->grh.dgid.data(), a + w::kAvRgid, 16);
		}
		pos += w::kAvSize;
	}
	if (qp.cfg.is_xrc()) {
		if (pos + w::kXrcSize > end)
			return malformed();
		wr->xrc_srqn = load_be32(buf + pos + w::kXrcSrqn) & 0xffffff;
		pos += w::kXrcSize;
	}
	switch (wr->opcode) {
	case w::OP_RDMA_WRITE:
	case w::OP_RDMA_WRITE_IMM:
	case w::OP_RDMA_READ:
		if (pos + w::kRaddrSize > end)
			return malformed();
		wr->remote_va = load_be64(buf + pos + w::kRaddrVa);
		wr->rkey = load_be32(buf + pos + w::kRaddrRkey);
		pos += w::kRaddrSize;
		break;
	case w::OP_ATOMIC_CS:
	case w::OP_ATOMIC_FA:
		if (pos + w::kRaddrSize + w::kAtomicSize > end)
			return malformed();
		wr->remote_va = load_be64(buf + pos + w::kRaddrVa);
		wr->rkey = load_be32(buf + pos + w::kRaddrRkey);
		pos += w::kRaddrSize;
		wr->swap_add = load_be64(buf + pos + w::kAtomicSwapAdd);
		wr->compare = load_be64(buf + pos + w::kAtomicCompare);
		pos += w::kAtomicSize;
		break;
	case w::OP_SEND:
	case w::OP_SEND_IMM:
	case w::OP_SEND_INVAL:
	case w::OP_NOP:
		break;
	case w::OP_UMR:
		// Executed in order by exec/umr.cc; never on UD. The UMR
		// control and mkey segments are always there.
		if (qp.cfg.is_ud() || pos + w::kUmrCtrlSize + w::kUmrMkeySegSize > end)
			return malformed();
		wr->umr.assign(buf + pos, buf + end);
		return true;
	default:
		return malformed();
	}
	bool rc_only = wr->opcode != w::OP_SEND && wr->opcode != w::OP_SEND_IMM && wr->opcode != w::OP_NOP;
	bool rd_atomic = wr->opcode == w::OP_RDMA_READ || wr->opcode == w::OP_ATOMIC_CS || wr->opcode == w::OP_ATOMIC_FA;
	if ((qp.cfg.is_ud() && rc_only) || (qp.cfg.is_uc() && (rd_atomic || wr->opcode == w::OP_SEND_INVAL)))
		return malformed();
	while (pos + 4 <= end) {
		uint32_t head = load_be32(buf + pos);
		if (head & w::kInlineFlag) {
			uint32_t len = head & w::kByteCountMask;
			if (pos + 4 + len > end)
				return malformed();
			if (!wr->is_inline)
				wr->inline_at = wr->sgl.size();
			wr->inline_data.insert(wr->inline_data.end(), buf + pos + 4, buf + pos + 4 + len);
			wr->is_inline = true;
			pos += (4 + len + w::kDsUnit - 1) / w::kDsUnit * w::kDsUnit;
			continue;
		}
		if (pos + w::kDataSize > end)
			break;
		uint32_t bc = head & w::kByteCountMask;
		if (bc)
			wr->sgl.push_back(Sge{load_be64(buf + pos + w::kDataAddr), bc, load_be32(buf + pos + w::kDataLkey)});
		pos += w::kDataSize;
	}
	wr->length = wr->inline_data.size();
	for (const Sge &s : wr->sgl)
		wr->length += s.len;
	if ((wr->opcode == w::OP_ATOMIC_CS || wr->opcode == w::OP_ATOMIC_FA) && (wr->length != 8 || wr->is_inline))
		*syndrome = syn::LOCAL_LENGTH;
	if (wr->opcode == w::OP_RDMA_READ && wr->is_inline)
		*syndrome = syn::LOCAL_QP_OP;
	return true;
}

uint8_t DataPath::check_local_sgl(const Qp &qp, const SendWr &wr)
{
	bool into = wr.opcode == w::OP_RDMA_READ || wr.opcode == w::OP_ATOMIC_CS || wr.opcode == w::OP_ATOMIC_FA;
	unsigned need = into ? ACC_LOCAL_WRITE : ACC_LOCAL_READ;
	for (const Sge &s : wr.sgl) {
		const Mkey *mk = nullptr;
		if (res_.mkeys.check(s.lkey, qp.cfg.pd, s.addr, s.len, need, &mk, Mkey::kNoQp, qp.rlky) != KeyStatus::Ok) {
			// The reserved lkey on a queue without rlky: no key,
			// nothing touched (a process's QP reaching guest RAM).
			if (s.lkey == MkeyTable::kReservedLkey)
				++c_.resd_lkey_refused;
			return syn::LOCAL_PROT;
		}
	}
	if (wr.length > (1ull << cfg_.log_max_msg))
		return syn::LOCAL_LENGTH;
	return 0;
}

bool DataPath::gather(const Qp &qp, const SendWr &wr, uint64_t off, uint8_t *dst, size_t len)
{
	auto from_sgl = [&](const std::vector<Sge> &sgl, uint64_t o, uint8_t *d, size_t n) {
		return walk_sgl(sgl, o, n, [&](const Sge &s, uint64_t in, size_t at, size_t k) {
			const Mkey *mk = nullptr;
			return res_.mkeys.check(s.lkey, qp.cfg.pd, s.addr + in, k, ACC_LOCAL_READ, &mk, Mkey::kNoQp,
						qp.rlky) == KeyStatus::Ok &&
			       res_.mkeys.read(mem_, *mk, s.addr + in, d + at, k);
		});
	};
	if (!wr.is_inline)
		return from_sgl(wr.sgl, off, dst, len);
	// The message is the WQE's data segments in order: the pointer
	// segments before the inline data, the inline bytes, the pointer
	// segments after them (UCX's UD puts its 8-byte header inline and
	// the payload behind a pointer).
	std::vector<Sge> before(wr.sgl.begin(), wr.sgl.begin() + static_cast<std::ptrdiff_t>(wr.inline_at));
	std::vector<Sge> after(wr.sgl.begin() + static_cast<std::ptrdiff_t>(wr.inline_at), wr.sgl.end());
	uint64_t nb = 0;
	for (const Sge &s : before)
		nb += s.len;
	uint64_t ni = wr.inline_data.size(), end = off + len;
	if (end < off || end > wr.length)
		return false;
	if (off < nb) {
		size_t n = static_cast<size_t>(std::min(end, nb) - off);
		if (!from_sgl(before, off, dst, n))
			return false;
	}
	if (end > nb && off < nb + ni) {
		uint64_t a = std::max(off, nb), b = std::min(end, nb + ni);
		std::memcpy(dst + (a - off), wr.inline_data.data() + (a - nb), static_cast<size_t>(b - a));
	}
	if (end > nb + ni) {
		uint64_t a = std::max(off, nb + ni);
		if (!from_sgl(after, a - nb - ni, dst + (a - off), static_cast<size_t>(end - a)))
			return false;
	}
	return true;
}

bool DataPath::scatter_local(uint32_t pd, bool rlky, const std::vector<Sge> &sgl, uint64_t off, const uint8_t *src,
			     size_t len)
{
	return walk_sgl(sgl, off, len, [&](const Sge &s, uint64_t in, size_t at, size_t n) {
		const Mkey *mk = nullptr;
		return res_.mkeys.check(s.lkey, pd, s.addr + in, n, ACC_LOCAL_WRITE, &mk, Mkey::kNoQp, rlky) == KeyStatus::Ok &&
		       res_.mkeys.write(mem_, *mk, s.addr + in, src + at, n);
	});
}

bool DataPath::key_ref(const Mkey &mk, uint64_t va, size_t len, PayloadRef *out) const
{
	return res_.mkeys.extents(
		mk, va, len, [](void *r, uint64_t ga, size_t n) { return static_cast<PayloadRef *>(r)->add(ga, n); }, out);
}

bool DataPath::payload_ref(const Qp &qp, const SendWr &wr, uint64_t off, size_t len, PayloadRef *out) const
{
	// Inline data lives in the WR, not in guest memory: a packet carries
	// those few bytes.
	if (wr.is_inline || !len)
		return false;
	*out = PayloadRef{};
	out->mem = &mem_;
	bool ok = walk_sgl(wr.sgl, off, len, [&](const Sge &s, uint64_t in, size_t, size_t n) {
		const Mkey *mk = nullptr;
		return res_.mkeys.check(s.lkey, qp.cfg.pd, s.addr + in, n, ACC_LOCAL_READ, &mk, Mkey::kNoQp, qp.rlky) ==
			       KeyStatus::Ok &&
		       key_ref(*mk, s.addr + in, n, out);
	});
	if (!ok)
		*out = PayloadRef{};
	return ok;
}

GuestMemory::Copy DataPath::put_payload(const Mkey &mk, uint64_t va, const Packet &p, uint64_t off, size_t n)
{
	using Copy = GuestMemory::Copy;
	if (!p.ref.mem)
		return res_.mkeys.write(mem_, mk, va, p.payload.data() + off, n) ? Copy::Ok : Copy::BadDest;
	if (mk.mode == prm::mkc::MODE_MEMIC) {
		// On-device memory has no guest address: through a buffer.
		std::vector<uint8_t> b(n);
		if (!p.read_payload(off, b.data(), n))
			return Copy::BadSource;
		return res_.mkeys.write(mem_, mk, va, b.data(), n) ? Copy::Ok : Copy::BadDest;
	}
	struct Ctx {
		DataPath *dp;
		const Packet *p;
		uint64_t off;
		Copy res;
	} c{this, &p, off, Copy::Ok};
	bool ok = res_.mkeys.extents(
		mk, va, n,
		[](void *v, uint64_t ga, size_t k) {
			auto *x = static_cast<Ctx *>(v);
			x->res = x->p->copy_payload(x->dp->mem_, ga, x->off, k);
			x->off += k;
			return x->res == Copy::Ok;
		},
		&c);
	return ok ? Copy::Ok : c.res == Copy::Ok ? Copy::BadDest : c.res;
}

GuestMemory::Copy DataPath::scatter_payload(uint32_t pd, bool rlky, const std::vector<Sge> &sgl, uint64_t off,
					     const Packet &p, size_t len)
{
	using Copy = GuestMemory::Copy;
	Copy res = Copy::Ok;
	bool ok = walk_sgl(sgl, off, len, [&](const Sge &s, uint64_t in, size_t at, size_t n) {
		const Mkey *mk = nullptr;
		if (res_.mkeys.check(s.lkey, pd, s.addr + in, n, ACC_LOCAL_WRITE, &mk, Mkey::kNoQp, rlky) != KeyStatus::Ok) {
			res = Copy::BadDest;
			return false;
		}
		res = put_payload(*mk, s.addr + in, p, at, n);
		return res == Copy::Ok;
	});
	return ok ? Copy::Ok : res == Copy::Ok ? Copy::BadDest : res;
}

} // namespace mlx5emu
