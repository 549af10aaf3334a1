// SPDX-License-Identifier: GPL-2.0
// Receive WQEs: taking one from a QP's RQ (cyclic, counter in the doorbell
// record) or from an SRQ/RMP (linked list of WQEs with "next" segments),
// scattering payload into its list, and flushing the RQ.
#include <algorithm>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/qp.h"
#include "prm/wqe.h"

namespace mlx5emu {

namespace w = prm::wqe;

namespace {

// The largest receive WQE: CREATE_QP / CREATE_SRQ refuse a stride above
// HCA cap max_wqe_sz_rq (512, fw/caps.cc). Read onto the stack.
constexpr size_t kMaxRecvWqe = 512;

// Data segments of a receive WQE: stops at the terminating lkey, skips
// zero-length entries.
void parse_sgl(const uint8_t *p, size_t len, RecvWqe *r)
{
	r->sgl.clear();
	r->capacity = 0;
	for (size_t off = 0; off + w::kDataSize <= len; off += w::kDataSize) {
		uint32_t bc = bits::load_be32(p + off + w::kDataByteCount) & w::kByteCountMask;
		uint32_t lkey = bits::load_be32(p + off + w::kDataLkey);
		if (lkey == w::kTerminateLkey)
			break;
		if (!bc)
			continue;
		r->sgl.push_back(Sge{bits::load_be64(p + off + w::kDataAddr), bc, lkey});
		r->capacity += bc;
	}
}

uint16_t read_counter(GuestMemory &mem, uint64_t addr)
{
	uint8_t b[4] = {};
	mem.read(addr, b, sizeof b);
	return static_cast<uint16_t>(bits::load_be32(b) & 0xffff);
}

} // namespace

uint16_t RdmaResponder::rq_producer(const Qp &qp) { return read_counter(dp_.mem_, qp.cfg.dbr_addr); }

bool RdmaResponder::take_recv_wqe(Qp &qp, RecvWqe *out)
{
	out->valid = false;
	if (qp.cfg.rq_type == prm::rq_type::SRQ) {
		Srq *srq = dp_.res_.srq(recv_srqn(qp));
		if (!srq || srq->error)
			return false;
		const SrqConfig &s = srq->cfg;
		uint16_t posted = read_counter(dp_.mem_, s.dbr_addr);
		uint16_t avail = static_cast<uint16_t>(posted - srq->consumed);
		if (!avail || avail > s.nwqes())
			return false;
		uint8_t wqe[kMaxRecvWqe];
		uint16_t index = static_cast<uint16_t>(srq->head & (s.nwqes() - 1));
		if (s.stride() > sizeof(wqe) ||
		    !s.buf.read(dp_.mem_, static_cast<uint64_t>(index) * s.stride(), wqe, s.stride()))
			return false;
		size_t first = w::kSrqNextSize + (s.wq_signature ? w::kDataSize : 0);
		parse_sgl(wqe + first, s.stride() - first, out);
		out->counter = index;
		out->from_srq = true;
		out->srqn = srq->number;
		out->valid = true;
		srq->head = bits::load_be16(wqe + w::kSrqNextIndex);
		++srq->consumed;
		++srq->taken;
		if (srq->limit_armed && static_cast<uint16_t>(avail - 1) < s.lwm) {
			// One event per arm; the limit reads back as 0 (QUERY_SRQ /
			// QUERY_RMP) until software arms it again.
			srq->limit_armed = false;
			srq->cfg.lwm = 0;
			++srq->limit_events;
			dp_.post_qp_event(prm::async_event::SRQ_RQ_LIMIT, srq->number);
		}
		++qp.ctr.recv_wqes;
		return true;
	}
	if (!qp.cfg.has_rq())
		return false;
	uint16_t avail = static_cast<uint16_t>(rq_producer(qp) - qp.resp.rq_ci);
	if (!avail || avail > qp.cfg.rq_wqes())
		return false;
	uint8_t wqe[kMaxRecvWqe];
	uint32_t index = qp.resp.rq_ci & (qp.cfg.rq_wqes() - 1);
	if (qp.cfg.rq_stride() > sizeof(wqe) ||
	    !qp.cfg.buf.read(dp_.mem_, static_cast<uint64_t>(index) * qp.cfg.rq_stride(), wqe, qp.cfg.rq_stride()))
		return false;
	size_t first = qp.cfg.wq_signature ? w::kDataSize : 0;
	parse_sgl(wqe + first, qp.cfg.rq_stride() - first, out);
	out->counter = qp.resp.rq_ci;
	out->from_srq = false;
	out->valid = true;
	++qp.resp.rq_ci;
	++qp.ctr.recv_wqes;
	return true;
}

RdmaResponder::Scatter RdmaResponder::scatter(const Qp &qp, const RecvWqe &r, uint64_t off, const uint8_t *src, size_t len)
{
	if (off + len > r.capacity)
		return Scatter::Length;
	return dp_.scatter_local(resp_pd(qp), false, r.sgl, off, src, len) ? Scatter::Ok : Scatter::Protection;
}

RdmaResponder::Scatter RdmaResponder::scatter(const Qp &qp, const RecvWqe &r, uint64_t off, const Packet &p)
{
	size_t len = p.payload_len();
	if (off + len > r.capacity)
		return Scatter::Length;
	switch (dp_.scatter_payload(resp_pd(qp), false, r.sgl, off, p, len)) {
	case GuestMemory::Copy::Ok:
		return Scatter::Ok;
	case GuestMemory::Copy::BadSource:
		return Scatter::Lost;
	default:
		return Scatter::Protection;
	}
}

void RdmaResponder::flush_rq(Qp &qp)
{
	auto flush = [&](const RecvWqe &rw) {
		CqeInfo ci = dp_.completer_.resp_cqe(qp, rw);
		ci.opcode = prm::cqe_opcode::RESP_ERR;
		ci.syndrome = prm::cqe_syndrome::WR_FLUSH;
		dp_.completer_.complete(recv_cqn(qp, rw), ci, true);
		++qp.ctr.flushed;
	};
	// A receive WQE taken by a message that will never finish.
	if (qp.resp.recv.valid)
		flush(qp.resp.recv);
	qp.resp.recv.valid = false;
	qp.resp.in_progress = 0;
	if (!qp.cfg.has_rq())
		return;
	uint16_t pi = rq_producer(qp);
	uint16_t avail = static_cast<uint16_t>(pi - qp.resp.rq_ci);
	if (avail > qp.cfg.rq_wqes())
		return;
	RecvWqe rw; // an RQ WQE not taken yet: only its counter matters
	while (qp.resp.rq_ci != pi) {
		rw.counter = qp.resp.rq_ci++;
		flush(rw);
	}
}

} // namespace mlx5emu
