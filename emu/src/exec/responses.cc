// SPDX-License-Identifier: GPL-2.0
// RC responder output in PSN order: RDMA READ responses go out a burst of
// packets per engine task (a 1 GiB READ never sits on the fabric whole),
// and the ACKs, NAKs and atomic ACKs of later requests wait behind them.
// A QP answers at most 2^log_rra_max READs/atomics at a time (its
// responder resources); cumulative ACKs waiting in a row merge into one.
#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {

// Response packets one QP puts on the fabric per engine task.
constexpr uint32_t kReadBurst = 32;

bool accepting(uint8_t st)
{
	namespace qs = prm::qp_state;
	return st == qs::RTR || st == qs::RTS || st == qs::SQD || st == qs::SQER;
}

bool plain_ack(const Packet &p) { return p.opcode == ibop::RC_ACK && (p.syndrome & aeth::kKindMask) == aeth::ACK; }

} // namespace

unsigned RdmaResponder::max_rd_queued(const Qp &qp) const { return 1u << qp.cfg.log_rra_max; }

void RdmaResponder::respond(Qp &qp, Packet p, bool rd_slot)
{
	Responder &r = qp.resp;
	bool plain = !rd_slot && plain_ack(p);
	if (r.ack_held) {
		// A later ACK of the same burst covers the one held.
		if (plain && r.responses.empty()) {
			r.held_ack = std::move(p);
			++dp_.c_.acks_merged;
			return;
		}
		send_held_ack(qp);
	}
	if (r.responses.empty()) {
		if (plain && dp_.acks_held_) {
			r.held_ack = std::move(p);
			r.ack_held = true;
			dp_.held_acks_.push_back(qp.qpn);
			return;
		}
		dp_.transmit(qp, std::move(p));
		return;
	}
	if (!rd_slot && plain_ack(p)) {
		Response &t = r.responses.back();
		if (!t.is_read && !t.rd_slot && plain_ack(t.pkt)) {
			t.pkt = std::move(p);
			++dp_.c_.acks_merged;
			return;
		}
	}
	Response x;
	x.rd_slot = rd_slot;
	x.pkt = std::move(p);
	r.rd_queued += rd_slot;
	r.responses.next() = std::move(x);
	r.responses.push();
}

bool RdmaResponder::respond_read(Qp &qp, const ReadJob &job)
{
	Responder &r = qp.resp;
	if (r.rd_queued >= max_rd_queued(qp))
		return false;
	Response x;
	x.is_read = x.rd_slot = true;
	x.read = job;
	++r.rd_queued;
	r.responses.next() = std::move(x);
	r.responses.push();
	if (!r.resp_kick)
		responses_pump(qp);
	return true;
}

bool RdmaResponder::merge_into_held_ack(Qp &qp, uint16_t dlid, uint32_t dqpn, uint8_t syndrome, uint32_t psn)
{
	Responder &r = qp.resp;
	// respond()'s first case, for an ACK not built yet: the held one was
	// built by rc_packet() for this QP and differs only in these fields.
	if (!r.ack_held || !r.responses.empty() || (syndrome & aeth::kKindMask) != aeth::ACK ||
	    r.held_ack.dlid != dlid || r.held_ack.dqpn != dqpn)
		return false;
	r.held_ack.psn = psn & 0xffffff;
	r.held_ack.syndrome = syndrome;
	r.held_ack.msn = r.msn & 0xffffff;
	++dp_.c_.acks_merged;
	return true;
}

void RdmaResponder::send_held_ack(Qp &qp)
{
	Responder &r = qp.resp;
	if (!r.ack_held)
		return;
	r.ack_held = false;
	dp_.transmit(qp, std::move(r.held_ack));
}

void RdmaResponder::responses_pump(Qp &qp)
{
	Responder &r = qp.resp;
	send_held_ack(qp);
	if (!accepting(qp.state)) {
		r.responses.clear();
		r.rd_queued = 0;
		return;
	}
	uint32_t budget = kReadBurst;
	uint32_t m = dp_.mtu(qp);
	while (!r.responses.empty() && budget) {
		Response &x = r.responses.front();
		if (!x.is_read) {
			Packet p = std::move(x.pkt);
			r.rd_queued -= x.rd_slot;
			r.responses.pop_front();
			dp_.transmit(qp, std::move(p));
			--budget;
			continue;
		}
		ReadJob &j = x.read;
		while (j.k < j.npkt && budget) {
			bool first = j.k == 0, last = j.k + 1 == j.npkt;
			uint8_t op = first && last ? ibop::RC_READ_RESPONSE_ONLY
				     : first       ? ibop::RC_READ_RESPONSE_FIRST
				     : last        ? ibop::RC_READ_RESPONSE_LAST
						   : ibop::RC_READ_RESPONSE_MIDDLE;
			uint32_t psn = psn_add(j.first_psn, j.k);
			Packet rsp = dp_.rc_packet(qp, op, psn);
			rsp.dlid = j.dlid;
			rsp.dqpn = j.dqpn;
			rsp.syndrome = aeth::ACK;
			rsp.msn = j.msn & 0xffffff;
			uint64_t off = static_cast<uint64_t>(j.k) * m;
			size_t len = static_cast<size_t>(std::min<uint64_t>(m, j.len - std::min<uint64_t>(off, j.len)));
			const Mkey *mk = nullptr;
			// The key is checked again for every packet: the region
			// may have gone since the request arrived. The payload
			// goes by reference into this HCA's memory (bytes for a
			// READ asked again, see ReadJob::bytes).
			bool ok = !len || check_rkey(qp, j.rkey, j.va + off, len, ACC_REMOTE_READ, &mk);
			if (ok && len) {
				rsp.ref.mem = &dp_.mem_;
				if (j.bytes || !dp_.key_ref(*mk, j.va + off, len, &rsp.ref)) {
					rsp.ref = PayloadRef{};
					rsp.payload.resize(len);
					ok = dp_.res_.mkeys.read(dp_.mem_, *mk, j.va + off, rsp.payload.data(), len);
				}
			}
			if (!ok) {
				Packet req;
				req.slid = j.dlid;
				req.sqpn = j.dqpn;
				req.psn = psn;
				r.responses.clear();
				r.rd_queued = 0;
				return responder_error(qp, req, aeth::NAK_REMOTE_ACCESS, 0, false);
			}
			++j.k;
			--budget;
			dp_.transmit(qp, std::move(rsp));
		}
		if (j.k == j.npkt) {
			r.responses.pop_front();
			--r.rd_queued;
		}
	}
	if (!r.responses.empty())
		responses_kick(qp);
}

void RdmaResponder::responses_kick(Qp &qp)
{
	dp_.post_once(qp, [](Qp &q) -> bool & { return q.resp.resp_kick; },
		  [this](Qp &q) { responses_pump(q); });
}

} // namespace mlx5emu
