// SPDX-License-Identifier: GPL-2.0
// RC (and UC, XRC initiator) requester, send side: taking WQEs, assigning PSNs, MTU segmentation
// into packets, the read/atomic limit and fences, in-order completion,
// the retransmission timer (retry_cnt) and the RNR wait (rnr_retry).
// UMR WQEs (memory registration, local invalidation, window binds) run
// strongly ordered: once every earlier WQE completed, and before any later
// one goes out.
#include <algorithm>

#include "exec/datapath.h"
#include "fabric/smp.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/qp.h"
#include "prm/wqe.h"

namespace mlx5emu {

namespace w = prm::wqe;
namespace syn = prm::cqe_syndrome;

namespace {

bool is_rd_atomic(uint8_t op) { return op == w::OP_RDMA_READ || op == w::OP_ATOMIC_CS || op == w::OP_ATOMIC_FA; }

uint8_t send_opcode(const SendWr &wr, bool first, bool last)
{
	bool imm = wr.opcode == w::OP_SEND_IMM, inv = wr.opcode == w::OP_SEND_INVAL;
	if (first && last)
		return imm ? ibop::RC_SEND_ONLY_IMM : inv ? ibop::RC_SEND_ONLY_INV : ibop::RC_SEND_ONLY;
	if (first)
		return ibop::RC_SEND_FIRST;
	if (last)
		return imm ? ibop::RC_SEND_LAST_IMM : inv ? ibop::RC_SEND_LAST_INV : ibop::RC_SEND_LAST;
	return ibop::RC_SEND_MIDDLE;
}

uint8_t write_opcode(const SendWr &wr, bool first, bool last)
{
	bool imm = wr.opcode == w::OP_RDMA_WRITE_IMM;
	if (first && last)
		return imm ? ibop::RC_WRITE_ONLY_IMM : ibop::RC_WRITE_ONLY;
	if (first)
		return ibop::RC_WRITE_FIRST;
	if (last)
		return imm ? ibop::RC_WRITE_LAST_IMM : ibop::RC_WRITE_LAST;
	return ibop::RC_WRITE_MIDDLE;
}

// The RC requester's window: PSNs sent and not yet acknowledged (SENDs and
// WRITEs; READs and atomics are bounded by the QP's sra instead). 128
// packets: 512 KiB at MTU 4096.
constexpr uint32_t kRcWindow = 128;
constexpr uint32_t kRcAckEvery = kRcWindow / 4;
// UC: packets a QP puts on the fabric per engine task.
constexpr uint32_t kUcBurst = 128;

uint32_t packets_for(uint64_t len, uint32_t mtu) { return len ? static_cast<uint32_t>((len + mtu - 1) / mtu) : 1; }

} // namespace

void RdmaRequester::rc_take_wqes(Qp &qp)
{
	DataPath::UdAddress av;
	uint8_t syndrome;
	// A WQE stays in the SQ until it completes: never take one beyond a
	// queue length past the oldest outstanding WQE, whatever producer
	// index the doorbells claim (at most SQ-size WRs are outstanding).
	auto room = [&qp] {
		const Requester &r = qp.req;
		return r.wrs.empty() || static_cast<uint16_t>(r.sq_ci - r.wrs.front().index) < qp.cfg.sq_wqebbs();
	};
	while (qp.req.sq_ci != qp.req.sq_pi && room()) {
		// Taken straight into the queue's next slot, whose lists keep
		// the allocations of the WQE that used it before.
		SendWr &wr = qp.req.wrs.next();
		if (!dp_.take_send_wqe(qp, &wr, &av, &syndrome))
			break;
		wr.error = syndrome;
		if (wr.opcode == w::OP_NOP) {
			wr.npsn = 0;
			wr.sent = wr.done = true;
		} else if (wr.opcode == w::OP_UMR) {
			wr.npsn = 0;
		}
		qp.req.wrs.push();
	}
	rc_transmit(qp);
	rc_complete(qp);
}

void RdmaRequester::rc_transmit(Qp &qp)
{
	Requester &r = qp.req;
	if (qp.state != prm::qp_state::RTS || r.rnr_wait)
		return;
	r.stalled = false;
	bool rd_pending = false;
	uint32_t m = dp_.mtu(qp);
	uint32_t budget = kUcBurst;
	bool all_done = true; // every WQE before this one completed
	for (SendWr &wr : r.wrs) {
		if (wr.error)
			break; // nothing after a failed WQE goes out
		if (wr.opcode == w::OP_UMR && !wr.sent) {
			if (!all_done) {
				r.stalled = true;
				break;
			}
			wr.sent = true;
			wr.error = execute_umr(qp, wr);
			if (wr.error)
				break;
			wr.done = true;
			continue;
		}
		bool earlier_done = all_done;
		all_done = all_done && wr.done;
		bool rd = is_rd_atomic(wr.opcode);
		if (!wr.sent) {
			if ((wr.fence && rd_pending) || (rd && r.rd_atomic_outstanding >= (1u << qp.cfg.log_sra_max)) ||
			    (qp.cfg.is_dci() && !dp_.dci_destination(qp, wr, earlier_done))) {
				r.stalled = true;
				break;
			}
			// The local keys as they are now (a UMR before may have
			// changed them).
			wr.error = dp_.check_local_sgl(qp, wr);
			if (wr.error)
				break;
			wr.first_psn = r.next_psn;
			wr.npsn = wr.opcode == w::OP_ATOMIC_CS || wr.opcode == w::OP_ATOMIC_FA ? 1 : packets_for(wr.length, m);
			r.next_psn = psn_add(r.next_psn, wr.npsn);
			if (rd)
				++r.rd_atomic_outstanding;
			wr.sent = true;
			wr.tx = 0;
		}
		// A READ or atomic is one request packet (bounded by the
		// read/atomic limit); SENDs and WRITEs go out as the window
		// (RC: unacknowledged PSNs) or the burst (UC) allows.
		uint32_t total = rd ? 1 : wr.npsn;
		uint32_t end = total;
		if (!rd && qp.cfg.is_uc()) {
			end = std::min(total, wr.tx + budget);
		} else if (!rd) {
			int32_t used = std::max(0, psn_diff(psn_add(wr.first_psn, wr.tx), r.una));
			uint32_t room = used >= static_cast<int32_t>(kRcWindow) ? 0 : kRcWindow - used;
			end = std::min(total, wr.tx + room);
		}
		if (end > wr.tx) {
			uint32_t from = wr.tx;
			wr.tx = end;
			rc_send_packets(qp, wr, psn_add(wr.first_psn, from), end, true);
			if (qp.cfg.is_uc())
				budget -= end - from;
		}
		if (wr.tx < total) {
			// RC: an ACK reopens the window; UC: the next burst
			// runs after the packets just queued.
			if (qp.cfg.is_uc())
				rc_kick(qp);
			break;
		}
		// UC: nothing acknowledges; the WQE is done once on the wire.
		if (qp.cfg.is_uc() && !wr.error)
			wr.done = true;
		if (rd && !wr.done)
			rd_pending = true;
	}
	rc_arm_timer(qp);
}

void RdmaRequester::rc_kick(Qp &qp)
{
	dp_.post_once(qp, [](Qp &q) -> bool & { return q.req.tx_kick; },
		  [this](Qp &q) {
			  rc_transmit(q);
			  rc_complete(q);
		  });
}

void RdmaRequester::rc_send_packets(Qp &qp, SendWr &wr, uint32_t from_psn, uint32_t end, bool by_ref)
{
	uint32_t m = dp_.mtu(qp);
	uint32_t k0 = static_cast<uint32_t>(psn_diff(from_psn, wr.first_psn));
	switch (wr.opcode) {
	case w::OP_RDMA_READ: {
		uint64_t off = std::min<uint64_t>(static_cast<uint64_t>(k0) * m, wr.length);
		Packet p = dp_.rc_request_packet(qp, wr, ibop::RC_READ_REQUEST, from_psn);
		p.va = wr.remote_va + off;
		p.rkey = wr.rkey;
		p.dma_len = static_cast<uint32_t>(wr.length - off);
		p.ack_req = true;
		dp_.transmit(qp, std::move(p));
		return;
	}
	case w::OP_ATOMIC_CS:
	case w::OP_ATOMIC_FA: {
		Packet p = dp_.rc_request_packet(qp, wr, wr.opcode == w::OP_ATOMIC_CS ? ibop::RC_CMP_SWAP : ibop::RC_FETCH_ADD,
					     wr.first_psn);
		p.va = wr.remote_va;
		p.rkey = wr.rkey;
		p.swap_add = wr.swap_add;
		p.compare = wr.compare;
		p.ack_req = true;
		dp_.transmit(qp, std::move(p));
		return;
	}
	default:
		break;
	}
	bool write = wr.opcode == w::OP_RDMA_WRITE || wr.opcode == w::OP_RDMA_WRITE_IMM;
	// The headers every packet of the message shares, built once.
	const Packet base = dp_.rc_request_packet(qp, wr, 0, 0);
	bool bursts = by_ref && burst_path(qp);
	for (uint32_t k = k0; k < std::min(end, wr.npsn); ++k) {
		if (bursts) {
			uint32_t b = rc_burst(qp, wr, base, k, std::min(end, wr.npsn));
			if (b) {
				k += b - 1;
				continue;
			}
		}
		bool first = k == 0, last = k + 1 == wr.npsn;
		uint64_t off = static_cast<uint64_t>(k) * m;
		size_t n = static_cast<size_t>(std::min<uint64_t>(m, wr.length - std::min(off, wr.length)));
		uint8_t op = write ? write_opcode(wr, first, last) : send_opcode(wr, first, last);
		Packet p = base;
		p.opcode = qp.cfg.is_uc() ? ibop::UC_BASE | op : op;
		p.psn = psn_add(wr.first_psn, k);
		p.dc_connect = wr.dc_connect && k == 0;
		if (n && !(by_ref && dp_.payload_ref(qp, wr, off, n, &p.ref))) {
			p.payload.resize(n);
			if (!dp_.gather(qp, wr, off, p.payload.data(), n)) {
				wr.error = syn::LOCAL_PROT;
				return;
			}
		}
		if (write && first) {
			p.va = wr.remote_va;
			p.rkey = wr.rkey;
			p.dma_len = static_cast<uint32_t>(wr.length);
		}
		// RC: the responder acknowledges every kRcAckEvery packets
		// too, so that a message longer than the window moves on.
		p.ack_req = !qp.cfg.is_uc() && (last || (k + 1) % kRcAckEvery == 0);
		if (last) {
			p.solicited = wr.solicited;
			if (wr.opcode == w::OP_SEND_INVAL)
				p.inv_rkey = bits::load_be32(reinterpret_cast<const uint8_t *>(&wr.imm));
			else
				p.imm = wr.imm;
		}
		dp_.transmit(qp, std::move(p));
	}
}

bool RdmaRequester::burst_path(const Qp &qp) const
{
	// Bursts cross IB links of this process only (RoCE frames go one
	// by one), to one unicast QP: RC SENDs and WRITEs of the first
	// transmission.
	const QpConfig &c = qp.cfg;
	return !dp_.cfg_.eth && c.is_rc() && !c.is_xrc() && c.remote_qpn != 0 &&
	       c.path.rlid != mad::kPermissiveLid && !is_multicast_lid(c.path.rlid);
}

uint32_t RdmaRequester::rc_burst(Qp &qp, SendWr &wr, const Packet &base, uint32_t k, uint32_t end)
{
	// Packets k .. j - 1 as one: never past a packet that asks for an
	// ACK (every kRcAckEvery-th and the last), the last one of a WRITE
	// with immediate or a SEND with immediate or invalidation alone (it
	// needs a receive WQE or names a key), at most PayloadRef::kExtents
	// pieces of memory.
	bool write = wr.opcode == w::OP_RDMA_WRITE || wr.opcode == w::OP_RDMA_WRITE_IMM;
	uint32_t j = std::min(end, (k / kRcAckEvery + 1) * kRcAckEvery);
	if (wr.opcode == w::OP_RDMA_WRITE_IMM || wr.opcode == w::OP_SEND_IMM || wr.opcode == w::OP_SEND_INVAL)
		j = std::min(j, wr.npsn - 1);
	if (j < k + 2)
		return 0;
	uint32_t m = dp_.mtu(qp);
	uint64_t off = static_cast<uint64_t>(k) * m;
	Packet p = base;
	for (;;) {
		uint64_t stop = std::min<uint64_t>(static_cast<uint64_t>(j) * m, wr.length);
		if (stop > off && dp_.payload_ref(qp, wr, off, static_cast<size_t>(stop - off), &p.ref))
			break;
		// Too many pieces (or a key that fails: the packets one by one
		// say where): a shorter burst, down to none.
		if (j - k <= PayloadRef::kExtents)
			return 0;
		j = k + PayloadRef::kExtents;
	}
	bool first = k == 0, last = j == wr.npsn;
	p.opcode = write ? write_opcode(wr, first, false) : send_opcode(wr, first, false);
	p.last_opcode = write ? write_opcode(wr, false, last) : send_opcode(wr, false, last);
	p.burst = static_cast<uint16_t>(j - k);
	p.burst_mtu = m;
	p.psn = psn_add(wr.first_psn, k);
	if (write && first) {
		p.va = wr.remote_va;
		p.rkey = wr.rkey;
		p.dma_len = static_cast<uint32_t>(wr.length);
	}
	p.ack_req = last || j % kRcAckEvery == 0;
	if (last) {
		p.solicited = wr.solicited;
		p.imm = wr.imm;
	}
	dp_.transmit(qp, std::move(p));
	return j - k;
}

void RdmaRequester::rc_retransmit(Qp &qp, uint32_t from_psn)
{
	uint32_t m = dp_.mtu(qp);
	for (SendWr &wr : qp.req.wrs) {
		if (!wr.sent)
			break;
		if (wr.done || !wr.npsn || wr.error)
			continue;
		uint32_t last = psn_add(wr.first_psn, wr.npsn - 1);
		if (psn_diff(last, from_psn) < 0)
			continue;
		uint32_t start = psn_diff(from_psn, wr.first_psn) > 0 ? from_psn : wr.first_psn;
		if (wr.opcode == w::OP_RDMA_READ) {
			uint32_t got = psn_add(wr.first_psn, static_cast<uint32_t>(wr.read_done / m));
			if (psn_diff(got, start) > 0)
				start = got;
		}
		++qp.ctr.retransmits;
		// Only what went out before: the window sends the rest. As
		// bytes read now: a source the responder could not read (the
		// packet was lost) fails here, on the requester, as LOCAL_PROT.
		rc_send_packets(qp, wr, start, wr.tx, false);
		if (wr.error) {
			// Its data could not be read this time: the error
			// completion, and the QP to ERR.
			rc_complete(qp);
			return;
		}
	}
	rc_timer_restart(qp);
	rc_arm_timer(qp);
}

void RdmaRequester::rc_complete(Qp &qp)
{
	Requester &r = qp.req;
	for (;;) {
		bool popped = false;
		while (!r.wrs.empty()) {
			SendWr &wr = r.wrs.front();
			if (wr.error) {
				++qp.ctr.errors;
				dp_.completer_.complete_send_error(qp, wr, static_cast<uint8_t>(wr.error));
				r.wrs.pop_front();
				dp_.completer_.enter_error(qp);
				return;
			}
			if (!wr.done)
				break;
			dp_.completer_.complete_send(qp, wr, static_cast<uint32_t>(wr.length));
			if (is_rd_atomic(wr.opcode))
				--r.rd_atomic_outstanding;
			r.wrs.pop_front();
			popped = true;
		}
		if (!popped || !r.stalled)
			break;
		// A fence, the read/atomic limit or a UMR waiting for the WQEs
		// before it may let more go now; a UMR that ran completes here.
		rc_transmit(qp);
		if (r.wrs.empty() || !(r.wrs.front().done || r.wrs.front().error))
			break;
	}
	rc_arm_timer(qp);
}

void RdmaRequester::rc_arm_timer(Qp &qp)
{
	Requester &r = qp.req;
	bool waiting = false;
	for (const SendWr &wr : r.wrs) {
		if (!wr.sent)
			break;
		if (!wr.done && wr.npsn && !wr.error) {
			waiting = true;
			break;
		}
	}
	if (r.rnr_wait || qp.state != prm::qp_state::RTS) {
		// No engine timer stays behind.
		rc_timer_stop(qp);
		return;
	}
	if (!waiting) {
		// Idle: the deadline goes, the engine timer stays (when it
		// fires it finds no deadline and ends), and the next request
		// of this period moves the deadline instead of starting one:
		// a stream that drains its queue now and then does not set
		// up (and allocate) a timer each time.
		r.timer_due = {};
		return;
	}
	uint64_t us = ack_timeout_usec(qp.cfg.path.ack_timeout);
	if (r.timer_due != Engine::Clock::time_point{} || !us)
		return;
	auto period = std::chrono::microseconds(std::max<uint64_t>(us, 1000));
	r.timer_due = Engine::Clock::now() + period;
	// The engine timer pending fires before the new deadline (it was set
	// for an earlier one) and looks again then; one that would fire after
	// it (the QP's timeout got shorter) is replaced.
	if (r.timer && r.timer_fires <= r.timer_due)
		return;
	dp_.stop_timer(&r.timer);
	r.timer_fires = r.timer_due;
	r.timer = dp_.start_timer(static_cast<uint64_t>(period.count()), qp.qpn, DataPath::TimerKind::RcTimeout);
}

void RdmaRequester::rc_timer_stop(Qp &qp)
{
	dp_.stop_timer(&qp.req.timer);
	qp.req.timer_due = {};
}

void RdmaRequester::rc_timeout(uint32_t qpn, uint64_t id)
{
	Qp *qp = dp_.res_.qp(qpn);
	if (!qp || qp->req.timer != id)
		return;
	Requester &r = qp->req;
	r.timer = 0;
	if (r.timer_due == Engine::Clock::time_point{})
		return; // stopped since
	auto now = Engine::Clock::now();
	if (now < r.timer_due) {
		// Progress moved the deadline: wait for the rest of it.
		auto left = std::chrono::duration_cast<std::chrono::microseconds>(r.timer_due - now).count() + 1;
		r.timer_fires = r.timer_due;
		r.timer = dp_.start_timer(static_cast<uint64_t>(left), qpn, DataPath::TimerKind::RcTimeout);
		return;
	}
	r.timer_due = {};
	if (qp->state != prm::qp_state::RTS || r.wrs.empty())
		return;
	SendWr &front = r.wrs.front();
	if (!front.sent || front.done)
		return;
	++qp->ctr.timeouts;
	if (!r.retry_left) {
		front.error = syn::TRANSPORT_RETRY_EXC;
		rc_complete(*qp);
		return;
	}
	--r.retry_left;
	rc_retransmit(*qp, front.first_psn);
}

void RdmaRequester::rc_rnr_resume(uint32_t qpn, uint64_t id)
{
	Qp *qp = dp_.res_.qp(qpn);
	if (!qp || qp->req.rnr_timer != id)
		return;
	qp->req.rnr_timer = 0;
	qp->req.rnr_wait = false;
	if (qp->state != prm::qp_state::RTS)
		return;
	rc_retransmit(*qp, qp->req.rnr_psn);
	rc_transmit(*qp);
	rc_complete(*qp);
}

} // namespace mlx5emu
