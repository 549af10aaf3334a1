// SPDX-License-Identifier: GPL-2.0
// RC requester, receive side: ACKs (cumulative), RNR NAKs, NAKs (PSN
// sequence error = go back N; invalid request / remote access / remote
// operational = error CQE), RDMA READ responses and atomic ACKs.
#include <cstring>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/qp.h"
#include "prm/wqe.h"

namespace mlx5emu {

namespace w = prm::wqe;
namespace syn = prm::cqe_syndrome;

namespace {

bool is_rd_atomic(uint8_t op) { return op == w::OP_RDMA_READ || op == w::OP_ATOMIC_CS || op == w::OP_ATOMIC_FA; }

bool covers(const SendWr &wr, uint32_t psn)
{
	return wr.npsn && psn_diff(psn, wr.first_psn) >= 0 && psn_diff(psn, psn_add(wr.first_psn, wr.npsn - 1)) <= 0;
}

// The WR that a READ response or atomic ACK with `psn` answers; the WRs
// before it (SENDs and WRITEs) are implicitly acknowledged on the way.
// Null for a stale response, or one beyond an earlier READ/atomic whose
// own response is missing.
SendWr *responded_wr(Requester &r, uint32_t psn)
{
	for (SendWr &wr : r.wrs) {
		if (!wr.sent)
			return nullptr;
		if (wr.done || wr.error || !wr.npsn)
			continue;
		if (covers(wr, psn))
			return &wr;
		if (psn_diff(psn, wr.first_psn) < 0 || is_rd_atomic(wr.opcode))
			return nullptr;
		wr.done = true;
	}
	return nullptr;
}

// PSNs up to `psn` are acknowledged (if that is news, and not beyond what
// was sent): true when the window moved.
bool advance_una(Requester &r, uint32_t psn)
{
	uint32_t next = psn_add(psn, 1);
	if (psn_diff(next, r.una) <= 0 || psn_diff(next, r.next_psn) > 0)
		return false;
	r.una = next;
	return true;
}

} // namespace

void RdmaRequester::rc_response(Qp &qp, const Packet &p)
{
	namespace qs = prm::qp_state;
	if (qp.state != qs::RTS && qp.state != qs::SQD)
		return;
	Requester &r = qp.req;
	switch (p.opcode) {
	case ibop::RC_ACK:
		switch (p.syndrome & aeth::kKindMask) {
		case aeth::ACK:
			rc_ack_upto(qp, p.psn);
			break;
		case aeth::RNR_NAK:
			if (r.rnr_wait)
				break;
			rc_ack_upto(qp, psn_add(p.psn, 0xffffff));
			++qp.ctr.rnr_naks_rcvd;
			if (qp.cfg.rnr_retry != 7) {
				if (!r.rnr_left) {
					rc_fail_at(qp, p.psn, syn::RNR_RETRY_EXC);
					break;
				}
				--r.rnr_left;
			}
			r.rnr_wait = true;
			r.rnr_psn = p.psn;
			rc_timer_restart(qp);
			r.rnr_timer = dp_.start_timer(rnr_timer_usec(p.syndrome & aeth::kValueMask), qp.qpn, DataPath::TimerKind::RcRnrResume);
			break;
		default:
			rc_nak(qp, p);
			break;
		}
		break;
	case ibop::RC_ATOMIC_ACK:
		rc_atomic_ack(qp, p);
		break;
	default:
		rc_read_response(qp, p);
		break;
	}
	rc_complete(qp);
	// Completions make room in the SQ: WQEs rung beyond it are taken now.
	if (qp.state == prm::qp_state::RTS && r.sq_ci != r.sq_pi) {
		rc_take_wqes(qp);
	} else {
		rc_transmit(qp);
		rc_complete(qp); // a UMR or a WQE that failed its local check
	}
}

// Every PSN up to `psn` acknowledged: moves the window, completes the WRs
// it covers.
void RdmaRequester::rc_ack_upto(Qp &qp, uint32_t psn)
{
	Requester &r = qp.req;
	bool progress = advance_una(r, psn);
	for (SendWr &wr : r.wrs) {
		if (!wr.sent)
			break;
		if (wr.done || !wr.npsn || wr.error)
			continue;
		if (psn_diff(psn_add(wr.first_psn, wr.npsn - 1), psn) > 0)
			break;
		if (is_rd_atomic(wr.opcode)) {
			// Acknowledged beyond a READ/atomic whose response was lost.
			rc_retransmit(qp, wr.first_psn);
			break;
		}
		wr.done = true;
		progress = true;
	}
	if (progress) {
		r.retry_left = qp.cfg.retry_count;
		r.rnr_left = qp.cfg.rnr_retry;
		rc_timer_restart(qp);
	}
}

void RdmaRequester::rc_nak(Qp &qp, const Packet &p)
{
	Requester &r = qp.req;
	rc_ack_upto(qp, psn_add(p.psn, 0xffffff));
	uint8_t code = p.syndrome & aeth::kValueMask;
	if (code == aeth::NAK_PSN_SEQ) {
		if (r.rnr_wait)
			return;
		++qp.ctr.seq_naks;
		if (!r.retry_left) {
			rc_fail_at(qp, p.psn, syn::TRANSPORT_RETRY_EXC);
			return;
		}
		--r.retry_left;
		rc_retransmit(qp, p.psn);
		return;
	}
	uint8_t s = code == aeth::NAK_INVALID_REQUEST ? syn::REMOTE_INVAL_REQ
		    : code == aeth::NAK_REMOTE_ACCESS ? syn::REMOTE_ACCESS
		    : code == aeth::NAK_REMOTE_OP     ? syn::REMOTE_OP
						      : syn::BAD_RESP;
	rc_fail_at(qp, p.psn, s);
}

void RdmaRequester::rc_fail_at(Qp &qp, uint32_t psn, uint8_t syndrome)
{
	for (SendWr &wr : qp.req.wrs) {
		if (wr.done || wr.error)
			continue;
		if (!wr.sent || covers(wr, psn) || psn_diff(wr.first_psn, psn) > 0) {
			wr.error = syndrome;
			return;
		}
	}
}

void RdmaRequester::rc_read_response(Qp &qp, const Packet &p)
{
	SendWr *found = responded_wr(qp.req, p.psn);
	if (!found)
		return;
	SendWr &wr = *found;
	if (wr.opcode != w::OP_RDMA_READ) {
		wr.error = syn::BAD_RESP;
		return;
	}
	uint32_t m = dp_.mtu(qp);
	uint32_t expected = psn_add(wr.first_psn, static_cast<uint32_t>(wr.read_done / m));
	if (p.psn != expected)
		return; // duplicate, or a gap the retransmission timer repairs
	bool last = p.opcode == ibop::RC_READ_RESPONSE_LAST || p.opcode == ibop::RC_READ_RESPONSE_ONLY;
	size_t n = p.payload_len();
	if (wr.read_done + n > wr.length || (!last && n != m)) {
		wr.error = syn::BAD_RESP;
		return;
	}
	if (n) {
		GuestMemory::Copy c = dp_.scatter_payload(qp.cfg.pd, qp.rlky, wr.sgl, wr.read_done, p, n);
		if (c == GuestMemory::Copy::BadSource) {
			++dp_.c_.dropped_packets; // the responder's memory could not be read: lost
			return;
		}
		if (c != GuestMemory::Copy::Ok) {
			wr.error = syn::LOCAL_PROT;
			return;
		}
	}
	wr.read_done += n;
	advance_una(qp.req, p.psn);
	qp.req.retry_left = qp.cfg.retry_count;
	rc_timer_restart(qp);
	if (last) {
		if (wr.read_done != wr.length)
			wr.error = syn::BAD_RESP;
		else
			wr.done = true;
	}
}

void RdmaRequester::rc_atomic_ack(Qp &qp, const Packet &p)
{
	SendWr *found = responded_wr(qp.req, p.psn);
	if (!found)
		return;
	SendWr &wr = *found;
	if (wr.opcode != w::OP_ATOMIC_CS && wr.opcode != w::OP_ATOMIC_FA) {
		wr.error = syn::BAD_RESP;
		return;
	}
	uint8_t v[8];
	for (int i = 0; i < 8; ++i) {
		int shift = dp_.atomic_le_ ? 8 * i : 56 - 8 * i;
		v[i] = static_cast<uint8_t>(p.orig >> shift);
	}
	if (!dp_.scatter_local(qp.cfg.pd, qp.rlky, wr.sgl, 0, v, sizeof v)) {
		wr.error = syn::LOCAL_PROT;
		return;
	}
	wr.done = true;
	advance_una(qp.req, p.psn);
	qp.req.retry_left = qp.cfg.retry_count;
	rc_timer_restart(qp);
}

} // namespace mlx5emu
