// SPDX-License-Identifier: GPL-2.0
// RC responder: expected-PSN checking (sequence NAK once per gap,
// duplicates re-acknowledged / re-executed), SEND into receive WQEs with
// RNR NAK when none is posted, RDMA WRITE (+immediate), RDMA READ
// responses, atomics, and the responder-side errors.
#include <algorithm>
#include <cstring>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/prm.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace syn = prm::cqe_syndrome;
namespace qs = prm::qp_state;

namespace {

bool op_in(uint8_t op, std::initializer_list<uint8_t> l) { return std::find(l.begin(), l.end(), op) != l.end(); }

bool is_send(uint8_t op)
{
	return op <= ibop::RC_SEND_ONLY_IMM || op == ibop::RC_SEND_LAST_INV || op == ibop::RC_SEND_ONLY_INV;
}
bool is_write(uint8_t op) { return op >= ibop::RC_WRITE_FIRST && op <= ibop::RC_WRITE_ONLY_IMM; }

constexpr size_t kAtomicReplayDepth = 16;

} // namespace

// Whether the QP's receive side takes requests now (RTR and later); the
// first one in RTR raises the communication-established event.
bool RdmaResponder::responder_accepts(Qp &qp)
{
	if (qp.state != qs::RTR && qp.state != qs::RTS && qp.state != qs::SQD && qp.state != qs::SQER) {
		++dp_.c_.dropped_packets;
		return false;
	}
	if (!qp.resp.comm_est && qp.state == qs::RTR) {
		qp.resp.comm_est = true;
		dp_.post_qp_event(prm::async_event::COMM_EST, qp.qpn);
	}
	return true;
}

// No receive WQE for an incoming SEND or WRITE with immediate: RC answers
// with an RNR NAK (the requester retries the packet), UC drops the message.
void RdmaResponder::no_recv_wqe(Qp &qp, const Packet &p)
{
	++qp.ctr.out_of_buffer;
	if (qp.cfg.is_uc())
		return uc_drop_message(qp);
	rnr_nak(qp, p);
}

void RdmaResponder::rnr_nak(Qp &qp, const Packet &p)
{
	++qp.ctr.rnr_naks_sent;
	send_ack(qp, p, static_cast<uint8_t>(aeth::RNR_NAK | (qp.cfg.min_rnr_nak & aeth::kValueMask)), p.psn);
}

void RdmaResponder::rc_request(Qp &qp, const Packet &p)
{
	if (!responder_accepts(qp))
		return;
	Responder &r = qp.resp;
	int32_t d = psn_diff(p.psn, r.epsn);
	if (d > 0) {
		if (!r.nak_seq_sent) {
			r.nak_seq_sent = true;
			++qp.ctr.seq_naks;
			send_ack(qp, p, aeth::NAK | aeth::NAK_PSN_SEQ, r.epsn);
		}
		return;
	}
	if (d < 0) {
		rc_duplicate(qp, p);
		return;
	}
	r.nak_seq_sent = false;
	if (qp.cfg.is_xrc() && !xrc_target_srq(qp))
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
	if (is_send(p.opcode))
		rc_send_request(qp, p);
	else if (is_write(p.opcode))
		rc_write_request(qp, p);
	else if (p.opcode == ibop::RC_READ_REQUEST)
		rc_read_request(qp, p, false);
	else if (p.opcode == ibop::RC_CMP_SWAP || p.opcode == ibop::RC_FETCH_ADD)
		rc_atomic_request(qp, p, false);
	else
		responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
}

void RdmaResponder::rc_duplicate(Qp &qp, const Packet &p)
{
	++qp.ctr.duplicates;
	if (p.opcode == ibop::RC_READ_REQUEST)
		rc_read_request(qp, p, true);
	else if (p.opcode == ibop::RC_CMP_SWAP || p.opcode == ibop::RC_FETCH_ADD)
		rc_atomic_request(qp, p, true);
	else if (p.ack_req)
		send_ack(qp, p, aeth::ACK, psn_add(qp.resp.epsn, 0xffffff));
}

void RdmaResponder::send_ack(Qp &qp, const Packet &req, uint8_t syndrome, uint32_t psn)
{
	if (qp.cfg.is_uc())
		return; // nothing acknowledges on UC
	if (merge_into_held_ack(qp, req.slid, req.sqpn, syndrome, psn))
		return;
	Packet a = dp_.rc_packet(qp, ibop::RC_ACK, psn);
	a.dlid = req.slid;
	a.dqpn = req.sqpn;
	a.syndrome = syndrome;
	a.msn = qp.resp.msn & 0xffffff;
	respond(qp, std::move(a), false);
}

void RdmaResponder::responder_error(Qp &qp, const Packet &req, uint8_t nak_code, uint8_t cqe_syndrome, bool consume_recv)
{
	Responder &r = qp.resp;
	// UC: a remote error only costs the message; errors on the receive
	// WQE complete it in error as on RC.
	if (qp.cfg.is_uc() && !(consume_recv && r.recv.valid))
		return uc_drop_message(qp);
	send_ack(qp, req, aeth::NAK | nak_code, req.psn);
	++qp.ctr.errors;
	if (consume_recv && r.recv.valid) {
		CqeInfo ci = dp_.completer_.resp_cqe(qp, r.recv);
		ci.opcode = prm::cqe_opcode::RESP_ERR;
		ci.syndrome = cqe_syndrome;
		++qp.ctr.cqes;
		dp_.completer_.complete(recv_cqn(qp, r.recv), ci, true);
		r.recv.valid = false;
	}
	dp_.post_qp_event(nak_code == aeth::NAK_REMOTE_ACCESS ? prm::async_event::WQ_ACCESS_ERROR
							   : prm::async_event::WQ_INVAL_REQ_ERROR,
		      qp.qpn);
	dp_.completer_.enter_error(qp);
}

// A request of DMA length zero names no memory: the IBA leaves its R_Key
// and VA unchecked (only the QP's remote access enables apply), so a
// zero-length RDMA WRITE or READ with any key succeeds. UCX's rc_verbs
// flushes an endpoint with one. `*out` stays null then.
bool RdmaResponder::check_rkey(Qp &qp, uint32_t rkey, uint64_t va, uint64_t len, unsigned need, const Mkey **out)
{
	if (len == 0)
		return true;
	return dp_.res_.mkeys.check(rkey, resp_pd(qp), va, len, need, out, qp.qpn) == KeyStatus::Ok;
}

// The receive WQE in use completes: `ci` (from resp_cqe) has the opcode
// and immediate.
void RdmaResponder::complete_recv(Qp &qp, const Packet &p, CqeInfo &ci, uint64_t byte_cnt)
{
	Responder &r = qp.resp;
	ci.byte_cnt = static_cast<uint32_t>(byte_cnt);
	ci.flags_rqpn = p.sqpn & 0xffffff;
	ci.slid = p.slid;
	++qp.ctr.cqes;
	dp_.completer_.complete(recv_cqn(qp, r.recv), ci, p.solicited);
	r.recv.valid = false;
}

void RdmaResponder::rc_send_request(Qp &qp, const Packet &p)
{
	Responder &r = qp.resp;
	bool first = op_in(p.opcode, {ibop::RC_SEND_FIRST, ibop::RC_SEND_ONLY, ibop::RC_SEND_ONLY_IMM, ibop::RC_SEND_ONLY_INV});
	bool last = p.opcode != ibop::RC_SEND_FIRST && p.opcode != ibop::RC_SEND_MIDDLE;
	if (first) {
		if (r.in_progress)
			return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, syn::REMOTE_INVAL_REQ, true);
		// A UC message dropped midway leaves its WQE for the next one.
		if (!r.recv.valid && !take_recv_wqe(qp, &r.recv))
			return no_recv_wqe(qp, p);
		r.recv_off = 0;
		r.in_progress = 's';
	} else if (r.in_progress != 's') {
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
	}
	Scatter s = p.payload_len() ? scatter(qp, r.recv, r.recv_off, p) : Scatter::Ok;
	if (s == Scatter::Lost) {
		// The sender's memory could not be read: the packet never came.
		// The receive WQE stays taken for the retransmission.
		if (first)
			r.in_progress = 0;
		++dp_.c_.dropped_packets;
		return;
	}
	if (s == Scatter::Length)
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, syn::LOCAL_LENGTH, true);
	if (s == Scatter::Protection)
		return responder_error(qp, p, aeth::NAK_REMOTE_OP, syn::LOCAL_PROT, true);
	r.recv_off += p.payload_len();
	r.epsn = psn_add(r.epsn, 1);
	if (last) {
		CqeInfo ci = dp_.completer_.resp_cqe(qp, r.recv);
		ci.opcode = prm::cqe_opcode::RESP_SEND;
		if (p.opcode == ibop::RC_SEND_LAST_IMM || p.opcode == ibop::RC_SEND_ONLY_IMM) {
			ci.opcode = prm::cqe_opcode::RESP_SEND_IMM;
			ci.imm = p.imm;
			ci.has_imm = true;
		} else if (p.opcode == ibop::RC_SEND_LAST_INV || p.opcode == ibop::RC_SEND_ONLY_INV) {
			Mkey *mk = dp_.res_.mkeys.find_index(p.inv_rkey >> 8);
			// Keys that allow remote invalidation (fast-registered MRs,
			// type 2 windows: only through the QP they are bound to).
			if (!mk || mk->variant != (p.inv_rkey & 0xff) || !mk->en_rinval || mk->pd != resp_pd(qp) ||
			    !mk->serves(qp.qpn))
				return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, syn::REMOTE_INVAL_REQ, true);
			mk->free = true;
			ci.opcode = prm::cqe_opcode::RESP_SEND_INV;
			uint8_t be[4];
			bits::store_be32(be, p.inv_rkey);
			std::memcpy(&ci.imm, be, 4);
			ci.has_imm = true;
		}
		complete_recv(qp, p, ci, r.recv_off);
		r.in_progress = 0;
		r.msn = psn_add(r.msn, 1);
	}
	if (p.ack_req)
		send_ack(qp, p, aeth::ACK, p.psn);
}

void RdmaResponder::rc_write_request(Qp &qp, const Packet &p)
{
	Responder &r = qp.resp;
	bool first = op_in(p.opcode, {ibop::RC_WRITE_FIRST, ibop::RC_WRITE_ONLY, ibop::RC_WRITE_ONLY_IMM});
	bool last = p.opcode != ibop::RC_WRITE_FIRST && p.opcode != ibop::RC_WRITE_MIDDLE;
	bool imm = p.opcode == ibop::RC_WRITE_LAST_IMM || p.opcode == ibop::RC_WRITE_ONLY_IMM;
	if (first && r.in_progress)
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, syn::REMOTE_INVAL_REQ, true);
	if (!first && r.in_progress != 'w')
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
	// The first packet's key, checked for the whole message: its own
	// payload (checked to fit below) needs no second look.
	const Mkey *mk = nullptr;
	if (first) {
		if (!qp.cfg.rwe || !check_rkey(qp, p.rkey, p.va, p.dma_len, ACC_REMOTE_WRITE, &mk))
			return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, 0, false);
	}
	// WRITE with immediate consumes a receive WQE: check before touching
	// memory so an RNR retry of this packet finds the same state.
	if (imm && !r.recv.valid && !take_recv_wqe(qp, &r.recv))
		return no_recv_wqe(qp, p);
	// ODP: the packet's pages must be present (else the retry of this
	// packet after the fault finds the same state).
	uint64_t at = first ? p.va : r.write_va + r.write_done;
	uint64_t rest = first ? p.dma_len : r.write_len - std::min(r.write_len, r.write_done);
	if (p.payload_len() && odp_hold(qp, p, first ? p.rkey : r.write_rkey, at, p.payload_len(), rest,
					ACC_REMOTE_WRITE, imm))
		return;
	if (first) {
		r.write_rkey = p.rkey;
		r.write_va = p.va;
		r.write_len = p.dma_len;
		r.write_done = 0;
		r.in_progress = 'w';
	}
	size_t n = p.payload_len();
	if (r.write_done + n > r.write_len)
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, syn::REMOTE_INVAL_REQ, imm);
	if (n) {
		uint64_t va = r.write_va + r.write_done;
		if (!mk && !check_rkey(qp, r.write_rkey, va, n, ACC_REMOTE_WRITE, &mk))
			return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, syn::REMOTE_ACCESS, imm);
		GuestMemory::Copy c = dp_.put_payload(*mk, va, p, 0, n);
		if (c == GuestMemory::Copy::BadSource) {
			// The sender's memory could not be read: the packet never
			// came (its retransmission starts the message again).
			if (first)
				r.in_progress = 0;
			++dp_.c_.dropped_packets;
			return;
		}
		if (c != GuestMemory::Copy::Ok)
			return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, syn::REMOTE_ACCESS, imm);
	}
	r.write_done += n;
	r.epsn = psn_add(r.epsn, 1);
	if (last) {
		if (r.write_done != r.write_len)
			return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, syn::REMOTE_INVAL_REQ, imm);
		if (imm) {
			CqeInfo ci = dp_.completer_.resp_cqe(qp, r.recv);
			ci.opcode = prm::cqe_opcode::RESP_WR_IMM;
			ci.imm = p.imm;
			ci.has_imm = true;
			complete_recv(qp, p, ci, r.write_len);
		}
		r.in_progress = 0;
		r.msn = psn_add(r.msn, 1);
		++qp.ctr.rx_write_requests;
	}
	if (p.ack_req)
		send_ack(qp, p, aeth::ACK, p.psn);
}

bool RdmaResponder::rc_burst(Qp &qp, const Packet &p)
{
	namespace o = prm::odp;
	Responder &r = qp.resp;
	// What rc_request, rc_write_request and odp_hold would find for each
	// packet, asked without changing anything: a QP that takes requests
	// and had its first one, the expected PSN, a WRITE under way or
	// starting, no immediate, no page fault pending or due.
	if (qp.cfg.is_xrc() || p.burst < 2)
		return false;
	if (qp.state != qs::RTS && qp.state != qs::SQD && qp.state != qs::SQER && !(qp.state == qs::RTR && r.comm_est))
		return false;
	if (psn_diff(p.psn, r.epsn) != 0)
		return false;
	if (is_send(p.opcode))
		return rc_send_burst(qp, p);
	if (!is_write(p.opcode) || r.fault_pending || r.fault_failed)
		return false;
	bool first = p.opcode == ibop::RC_WRITE_FIRST;
	bool last = p.last_opcode == ibop::RC_WRITE_LAST;
	if (!first && p.opcode != ibop::RC_WRITE_MIDDLE)
		return false;
	if (!last && p.last_opcode != ibop::RC_WRITE_MIDDLE)
		return false;
	const Mkey *mk = nullptr;
	if (first) {
		if (r.in_progress || !qp.cfg.rwe || !check_rkey(qp, p.rkey, p.va, p.dma_len, ACC_REMOTE_WRITE, &mk))
			return false;
	} else if (r.in_progress != 'w') {
		return false;
	}
	uint32_t rkey = first ? p.rkey : r.write_rkey;
	uint64_t va = first ? p.va : r.write_va + r.write_done;
	uint64_t len = first ? p.dma_len : r.write_len;
	uint64_t done = first ? 0 : r.write_done;
	size_t n = p.payload_len();
	if (!n || done + n > len || (last && done + n != len))
		return false;
	// A first packet's key was checked for the whole message above.
	if (!mk && !check_rkey(qp, rkey, va, n, ACC_REMOTE_WRITE, &mk))
		return false;
	if (dp_.events_.listens(o::kEventPageFault) && !dp_.res_.mkeys.present(*mk, va, n))
		return false;
	// One copy for the whole burst. Should it fail, the packets one by
	// one write the same bytes again and meet the failure where it is.
	if (dp_.put_payload(*mk, va, p, 0, n) != GuestMemory::Copy::Ok)
		return false;
	r.nak_seq_sent = false;
	if (first) {
		r.write_rkey = p.rkey;
		r.write_va = p.va;
		r.write_len = p.dma_len;
		r.in_progress = 'w';
	}
	r.write_done = done + n;
	r.epsn = psn_add(r.epsn, p.burst);
	if (last) {
		r.in_progress = 0;
		r.msn = psn_add(r.msn, 1);
		++qp.ctr.rx_write_requests;
	}
	if (p.ack_req)
		send_ack(qp, p, aeth::ACK, psn_add(p.psn, p.burst - 1u));
	return true;
}

bool RdmaResponder::rc_send_burst(Qp &qp, const Packet &p)
{
	Responder &r = qp.resp;
	bool first = p.opcode == ibop::RC_SEND_FIRST;
	bool last = p.last_opcode == ibop::RC_SEND_LAST;
	if (!first && p.opcode != ibop::RC_SEND_MIDDLE)
		return false;
	if (!last && p.last_opcode != ibop::RC_SEND_MIDDLE)
		return false;
	if (first ? r.in_progress != 0 : r.in_progress != 's')
		return false;
	// The receive WQE the first packet takes (taken now, it is the one
	// the packets one by one would use too).
	if (first && !r.recv.valid && !take_recv_wqe(qp, &r.recv))
		return false;
	size_t n = p.payload_len();
	uint64_t off = first ? 0 : r.recv_off;
	if (!n || scatter(qp, r.recv, off, p) != Scatter::Ok)
		return false;
	r.nak_seq_sent = false;
	r.in_progress = 's';
	r.recv_off = off + n;
	r.epsn = psn_add(r.epsn, p.burst);
	if (last) {
		CqeInfo ci = dp_.completer_.resp_cqe(qp, r.recv);
		ci.opcode = prm::cqe_opcode::RESP_SEND;
		complete_recv(qp, p, ci, r.recv_off);
		r.in_progress = 0;
		r.msn = psn_add(r.msn, 1);
	}
	if (p.ack_req)
		send_ack(qp, p, aeth::ACK, psn_add(p.psn, p.burst - 1u));
	return true;
}

void RdmaResponder::rc_read_request(Qp &qp, const Packet &p, bool duplicate)
{
	Responder &r = qp.resp;
	const Mkey *mk = nullptr;
	if (!qp.cfg.rre || !check_rkey(qp, p.rkey, p.va, p.dma_len, ACC_REMOTE_READ, &mk)) {
		if (duplicate)
			return;
		return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, 0, false);
	}
	if (!duplicate && odp_hold(qp, p, p.rkey, p.va, p.dma_len, p.dma_len, ACC_REMOTE_READ, false))
		return;
	uint32_t m = dp_.mtu(qp);
	uint32_t n = p.dma_len ? (p.dma_len + m - 1) / m : 1;
	if (duplicate) {
		// The requester goes back to this PSN: the READs still being
		// answered from here on start over with this request.
		r.responses.erase_if([&](const Response &x) {
			if (!x.is_read || psn_diff(psn_add(x.read.first_psn, x.read.npkt - 1), p.psn) < 0)
				return false;
			--r.rd_queued;
			return true;
		});
	}
	ReadJob j;
	j.first_psn = p.psn;
	j.npkt = n;
	j.va = p.va;
	j.rkey = p.rkey;
	j.len = p.dma_len;
	j.dlid = p.slid;
	j.dqpn = p.sqpn;
	j.bytes = duplicate;
	j.msn = duplicate ? r.msn : psn_add(r.msn, 1);
	if (!duplicate) {
		r.epsn = psn_add(r.epsn, n);
		r.msn = j.msn;
		++qp.ctr.rx_read_requests;
	}
	if (!respond_read(qp, j)) {
		if (duplicate)
			return; // asked again later
		// More READs/atomics than the responder resources (rra).
		++dp_.c_.rd_limit_naks;
		return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
	}
}

void RdmaResponder::rc_atomic_request(Qp &qp, const Packet &p, bool duplicate)
{
	Responder &r = qp.resp;
	uint64_t orig;
	if (duplicate) {
		auto it = r.atomic_replay.find(p.psn);
		if (it == r.atomic_replay.end())
			return;
		orig = it->second;
	} else {
		const Mkey *mk = nullptr;
		if (r.rd_queued >= max_rd_queued(qp)) {
			++dp_.c_.rd_limit_naks;
			return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
		}
		if (p.va & 7)
			return responder_error(qp, p, aeth::NAK_INVALID_REQUEST, 0, false);
		if (!qp.cfg.rae || !check_rkey(qp, p.rkey, p.va, 8, ACC_ATOMIC, &mk))
			return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, 0, false);
		uint8_t b[8];
		if (!dp_.res_.mkeys.read(dp_.mem_, *mk, p.va, b, 8))
			return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, 0, false);
		orig = 0;
		for (int i = 0; i < 8; ++i)
			orig |= static_cast<uint64_t>(b[i]) << (dp_.atomic_le_ ? 8 * i : 56 - 8 * i);
		uint64_t next = p.opcode == ibop::RC_CMP_SWAP ? (orig == p.compare ? p.swap_add : orig) : orig + p.swap_add;
		if (next != orig) {
			for (int i = 0; i < 8; ++i)
				b[i] = static_cast<uint8_t>(next >> (dp_.atomic_le_ ? 8 * i : 56 - 8 * i));
			if (!dp_.res_.mkeys.write(dp_.mem_, *mk, p.va, b, 8))
				return responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, 0, false);
		}
		r.atomic_replay[p.psn] = orig;
		while (r.atomic_replay.size() > kAtomicReplayDepth)
			r.atomic_replay.erase(r.atomic_replay.begin());
		r.epsn = psn_add(r.epsn, 1);
		r.msn = psn_add(r.msn, 1);
		++qp.ctr.rx_atomic_requests;
	}
	Packet a = dp_.rc_packet(qp, ibop::RC_ATOMIC_ACK, p.psn);
	a.dlid = p.slid;
	a.dqpn = p.sqpn;
	a.syndrome = aeth::ACK;
	a.msn = r.msn & 0xffffff;
	a.orig = orig;
	respond(qp, std::move(a), true);
}

} // namespace mlx5emu
