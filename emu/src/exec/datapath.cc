// SPDX-License-Identifier: GPL-2.0
// DataPath: lifetime, doorbells, packet dispatch, timers, QP state hooks
// and the control-channel view.
#include "exec/datapath.h"

#include <condition_variable>
#include <cstdio>

#include "dma/guest_memory.h"
#include "fabric/smp.h"
#include "prm/bits.h"
#include "prm/prm.h"
#include "prm/cq.h"
#include "prm/eth.h"
#include "prm/qp.h"
#include "util/fmt.h"

namespace mlx5emu {

uint64_t rnr_timer_usec(uint8_t code)
{
	// IBA 9.7.5.2.8, in units of 10 us.
	static const uint32_t t[32] = {65536, 1,   2,   3,   4,    6,    8,    12,   16,   24,   32,
				       48,    64,  96,  128, 192,  256,  384,  512,  768,  1024, 1536,
				       2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
	return static_cast<uint64_t>(t[code & 31]) * 10;
}

uint64_t ack_timeout_usec(uint8_t code)
{
	if (!code)
		return 0;
	return (4096ull << std::min<uint8_t>(code, 31)) / 1000;
}

DataPath::DataPath(const Config &cfg, GuestMemory &mem, Fabric &fabric, EventSink &events)
	: cfg_(cfg), lid_(cfg.lid), port_state_(cfg.active ? mad::PORT_ACTIVE : mad::PORT_INIT), mem_(mem), fabric_(fabric),
	  events_(events)
{
	// The QPs that hold an ACK over one delivery burst: room for a busy
	// burst up front, so the list rarely grows while packets move.
	held_acks_.reserve(kHeldAckRoom);
	if (cfg_.eth) {
		eth_path_.eth_port_ = fabric_.attach_eth(this);
	} else {
		fabric_.attach(cfg_.hca_index, this);
		auto lk = lock();
		fabric_.set_lid(this, lid_, 0);
	}
}

DataPath::~DataPath()
{
	if (eth_path_.eth_port_)
		fabric_.detach_eth(eth_path_.eth_port_);
	else
		fabric_.detach(this);
	{
		auto lk = lock();
		closing_ = true;
	}
	fabric_.engine().cancel_owned(this);
	// Let every task already queued (they may name this object) run.
	std::mutex m;
	std::condition_variable cv;
	bool done = false;
	fabric_.engine().post([&] {
		std::lock_guard<std::mutex> g(m);
		done = true;
		cv.notify_all();
	});
	std::unique_lock<std::mutex> g(m);
	cv.wait(g, [&] { return done; });
}

// ---------------------------------------------------------------------------
// Doorbells (BAR path)

// Counts a doorbell of object `num` written at UAR page `uar` and queues
// `Run(num, dw0, dw1)` on the engine with the latest doorbell of that
// object: at most one task per object, later doorbells fold into it.
// Counted in `dropped` for no such object or not its UAR page. The task
// holds three words (within std::function's own storage: queueing it
// allocates nothing).
template <void (DataPath::*Run)(uint32_t, uint32_t, uint32_t)>
void DataPath::ring_doorbell(DoorbellOwners::Kind k, uint32_t num, uint32_t uar, uint32_t dw0, uint32_t dw1,
			     std::atomic<uint64_t> &rung, std::atomic<uint64_t> &dropped)
{
	DoorbellOwners::Ring r = owners_.ring(k, num, uar, dw0, dw1);
	if (r == DoorbellOwners::Ring::Dropped) {
		++dropped;
		return;
	}
	++rung;
	if (r == DoorbellOwners::Ring::Merged) {
		++c_.doorbells_merged;
		return;
	}
	fabric_.engine().post([this, k, num] {
		guarded(k == DoorbellOwners::Kind::Sq ? num : 0, [&] {
			uint32_t d0, d1;
			if (owners_.take(k, num, &d0, &d1))
				(this->*Run)(num, d0, d1);
		});
	});
}

void DataPath::sq_doorbell(uint32_t uar, uint32_t dw0, uint32_t dw1)
{
	ring_doorbell<&DataPath::sq_doorbell_task>(DoorbellOwners::Kind::Sq, dw1 >> 8, uar, dw0, dw1,
						   c_.sq_doorbells, c_.sq_doorbells_dropped);
}

void DataPath::sq_doorbell_task(uint32_t qpn, uint32_t d0, uint32_t d1)
{
	Qp *qp = res_.qp(qpn);
	if (!qp) {
		if (NicSq *sq = res_.sq(qpn)) {
			eth_path_.nic_sq_doorbell(*sq, d0, d1);
			return;
		}
	}
	if (!qp || qp->cfg.no_sq) {
		++c_.bad_doorbells;
		return;
	}
	++qp->ctr.doorbells;
	advance_sq(*qp, static_cast<uint16_t>(((d0 >> 8) & 0xffff) + ((d1 & 0x3f) + 3) / 4));
	run_sq(*qp);
}

void DataPath::cq_doorbell(uint32_t uar, uint32_t dw0, uint32_t dw1)
{
	ring_doorbell<&DataPath::cq_doorbell_task>(DoorbellOwners::Kind::Cq, dw1 & 0xffffff, uar, dw0, dw1,
						   c_.cq_doorbells, c_.cq_doorbells_dropped);
}

void DataPath::cq_doorbell_task(uint32_t cqn, uint32_t d0, uint32_t)
{
	Cq *cq = res_.cq(cqn);
	if (!cq) {
		++c_.bad_doorbells;
		return;
	}
	arm_cq(*cq, d0);
}

bool DataPath::advance_sq(Qp &qp, uint16_t end)
{
	// Only move the producer forward, within one queue length.
	uint16_t ahead = static_cast<uint16_t>(end - qp.req.sq_ci);
	uint16_t cur = static_cast<uint16_t>(qp.req.sq_pi - qp.req.sq_ci);
	if (ahead > qp.cfg.sq_wqebbs() || ahead <= cur)
		return false;
	qp.req.sq_pi = end;
	return true;
}

void DataPath::arm_cq(Cq &cq, uint32_t dw0)
{
	cq.last_arm_word() = dw0;
	// An arm starts moderation over: the CQEs not polled yet are the
	// ones held (Cq::arm).
	stop_timer(&cq.moderation_timer());
	if (cq.arm(dw0))
		completer_.comp_event(cq);
	else if (cq.held())
		completer_.moderation_start(cq);
}

void DataPath::run_sq(Qp &qp)
{
	switch (qp.state) {
	case prm::qp_state::RTS:
		if (qp.cfg.is_ud())
			requester_.ud_send(qp);
		else if (qp.cfg.is_connected() || qp.cfg.is_dci())
			requester_.rc_take_wqes(qp);
		else
			requester_.local_send(qp);
		break;
	case prm::qp_state::SQER:
	case prm::qp_state::ERR:
		completer_.flush_sq(qp);
		break;
	default:
		break; // RST .. RTR, SQD: WQEs wait
	}
}

// ---------------------------------------------------------------------------
// Packets

void DataPath::set_port(uint16_t lid, uint8_t lmc, uint8_t state, uint64_t gid_prefix)
{
	cfg_.gid_prefix = gid_prefix; // the SGID of the GRHs this port sends
	lid_ = lid;
	lmc_ = lmc;
	port_state_ = state;
	fabric_.set_lid(this, lid, lmc);
}

namespace {
// Octets of a packet beyond its payload, as PortXmitData/PortRcvData count
// them: LRH 8, BTH 12, ICRC 4, VCRC 2 (extended headers not counted).
constexpr uint64_t kHeaderBytes = 26;
} // namespace

void DataPath::receive(const Packet &p)
{
	guarded(0, [&] { receive_packet(p); });
}

void DataPath::burst_begin() { acks_held_ = true; }

void DataPath::burst_end()
{
	acks_held_ = false;
	for (uint32_t qpn : held_acks_)
		if (Qp *qp = res_.qp(qpn))
			guarded(qpn, [&] { responder_.send_held_ack(*qp); });
	held_acks_.clear();
}

void DataPath::receive_packet(const Packet &p)
{
	if (unplugged_.load(std::memory_order_acquire)) {
		++c_.dropped_packets;
		return;
	}
	// The LRH DLID: the permissive LID reaches QP0 only, a unicast one
	// must be this port's; data needs an ARMED or ACTIVE port.
	bool smp = p.dqpn == 0;
	bool to_us = p.dlid == mad::kPermissiveLid ? smp
		     : is_multicast_lid(p.dlid) ? true
						       : lid_ && (p.dlid >> lmc_) == (lid_ >> lmc_);
	if (!to_us || (!smp && port_state_ != mad::PORT_ACTIVE && port_state_ != mad::PORT_ARMED)) {
		traffic_.rcv_errors += p.burst;
		c_.dropped_packets += p.burst;
		return;
	}
	uint64_t octets = p.payload_len() + p.burst * kHeaderBytes;
	traffic_.rcv_pkts += p.burst;
	traffic_.rcv_bytes += octets;
	if (is_multicast_lid(p.dlid)) {
		traffic_.rcv_mcast += p.burst;
		traffic_.rcv_mcast_bytes += octets;
		for (unsigned i = 0; i < p.burst; ++i)
			responder_.multicast_receive(p.burst > 1 ? p.part(i) : p, nullptr);
		return;
	}
	deliver(p);
}

void DataPath::deliver(const Packet &p)
{
	// SMPs reach QP0 of the function with the SMI only (a VF's QP0
	// exists, but VL15 is not its).
	if (p.dqpn == 0 && !cfg_.smi) {
		c_.smi_refused += p.burst;
		return;
	}
	Qp *qp = res_.qp_for_packet(p.dqpn);
	// A DCT's connections have numbers of their own, but packets reach
	// them only through their DCT (dc.cc).
	if (!qp || qp->dc.conn_of) {
		c_.no_qp_packets += p.burst;
		return;
	}
	if (qp->dc.target) {
		guarded(qp->qpn, [&] {
			for (unsigned i = 0; i < p.burst; ++i)
				dc_receive(*qp, p.burst > 1 ? p.part(i) : p);
		});
		return;
	}
	guarded(qp->qpn, [&] { deliver_to(*qp, p); });
}

void DataPath::deliver_to(Qp &qp, const Packet &p)
{
	qp.ctr.rx_packets += p.burst;
	qp.ctr.rx_bytes += p.payload_len();
	if (p.burst > 1) {
		// A burst: whole when the responder can take all of it at once,
		// else its packets one by one, as they would have come.
		if (qp.cfg.is_rc() && !is_rc_response(p.opcode) && responder_.rc_burst(qp, p))
			return;
		for (unsigned i = 0; i < p.burst; ++i)
			dispatch(qp, p.part(i));
		return;
	}
	dispatch(qp, p);
}

void DataPath::dispatch(Qp &qp, const Packet &p)
{
	if (p.opcode == ibop::UD_SEND_ONLY || p.opcode == ibop::UD_SEND_ONLY_IMM) {
		if (qp.cfg.is_ud())
			responder_.ud_receive(qp, p);
		else
			++c_.dropped_packets;
		return;
	}
	if (qp.cfg.is_uc() && is_uc_request(p.opcode)) {
		responder_.uc_request(qp, p);
		return;
	}
	if (qp.cfg.is_xrc()) {
		responder_.xrc_receive(qp, p);
		return;
	}
	if (qp.cfg.is_dci()) {
		// A DCI takes responses only.
		if (is_rc_response(p.opcode))
			requester_.rc_response(qp, p);
		else
			++c_.dropped_packets;
		return;
	}
	if (!qp.cfg.is_rc()) {
		++c_.dropped_packets;
		return;
	}
	if (is_rc_response(p.opcode))
		requester_.rc_response(qp, p);
	else
		responder_.rc_request(qp, p);
}

void DataPath::transmit(Qp &qp, Packet &&p)
{
	if (!cfg_.eth && port_state_ != mad::PORT_ACTIVE && qp.cfg.st != prm::qp_st::QP0) {
		++traffic_.xmit_discards; // only SMPs leave a port that is not ACTIVE
		return;
	}
	qp.ctr.tx_packets += p.burst;
	qp.ctr.tx_bytes += p.payload_len();
	uint64_t octets = p.payload_len() + p.burst * kHeaderBytes;
	traffic_.xmit_pkts += p.burst;
	traffic_.xmit_bytes += octets;
	if (is_multicast_lid(p.dlid)) {
		traffic_.xmit_mcast += p.burst;
		traffic_.xmit_mcast_bytes += octets;
	}
	// The requester and responder speak RC opcodes; XRC QPs put the
	// XRC transport bits on everything they send.
	if (qp.cfg.is_xrc()) {
		p.opcode = static_cast<uint8_t>(ibop::XRC_BASE | p.opcode);
		p.last_opcode = static_cast<uint8_t>(ibop::XRC_BASE | p.last_opcode);
	}
	if (cfg_.eth) {
		// RoCE frames one packet each.
		if (p.burst == 1)
			return eth_path_.roce_transmit(std::move(p));
		for (unsigned i = 0; i < p.burst; ++i)
			eth_path_.roce_transmit(p.part(i));
	} else {
		fabric_.transmit(this, std::move(p));
	}
}

Gid DataPath::port_gid() const
{
	Gid g;
	bits::store_be64(g.data(), cfg_.gid_prefix);
	bits::store_be64(g.data() + 8, cfg_.port_guid);
	return g;
}

Grh DataPath::path_grh(const Qp &qp) const
{
	Grh g;
	const PathConfig &pc = qp.cfg.path;
	if (!pc.grh && !cfg_.eth) // RoCE: always (IP or the RoCEv1 GRH)
		return g;
	g.present = true;
	g.tclass = pc.tclass;
	g.flow_label = pc.flow_label;
	g.hop_limit = pc.hop_limit;
	g.sgid = eth_path_.source_gid(pc.sgid_index);
	g.dgid = pc.rgid;
	if (cfg_.eth && (pc.dscp || pc.ecn))
		g.tclass = static_cast<uint8_t>(pc.dscp << 2 | pc.ecn);
	return g;
}

Packet DataPath::rc_packet(const Qp &qp, uint8_t opcode, uint32_t psn) const
{
	Packet p;
	p.grh = path_grh(qp);
	p.slid = lid_;
	p.dlid = qp.cfg.path.rlid;
	p.sl = qp.cfg.path.sl;
	p.opcode = opcode;
	p.dqpn = qp.cfg.remote_qpn;
	p.sqpn = qp.qpn;
	p.psn = psn & 0xffffff;
	if (cfg_.eth) {
		p.roce.dmac = qp.cfg.path.rmac;
		p.roce.sgid_index = qp.cfg.path.sgid_index;
		p.roce.udp_sport = qp.cfg.path.udp_sport;
	}
	return p;
}

Packet DataPath::rc_request_packet(const Qp &qp, const SendWr &wr, uint8_t opcode, uint32_t psn) const
{
	Packet p = rc_packet(qp, opcode, psn);
	p.xrc_srqn = wr.xrc_srqn;
	if (qp.cfg.is_dci()) {
		// The destination of the WQE (dc.cc); the first packet of the
		// WQE that opened the connection asks the DCT to open it.
		p.dqpn = wr.dct;
		p.dlid = wr.dlid;
		p.sl = wr.sl;
		p.grh = wr.grh;
		if (p.grh.present)
			p.grh.sgid = port_gid();
		p.dc_key = wr.dc_key;
		p.dc_gen = wr.dc_gen;
		p.dc_connect = wr.dc_connect && psn == wr.first_psn;
	}
	return p;
}

uint32_t DataPath::mtu(const Qp &qp) const
{
	uint32_t m = prm::mtu_bytes(std::min(qp.cfg.mtu ? qp.cfg.mtu : cfg_.port_mtu, cfg_.port_mtu));
	return m ? m : 4096;
}

// ---------------------------------------------------------------------------
// Timers and events

uint64_t DataPath::start_timer(uint64_t usec, uint32_t num, TimerKind kind)
{
	if (closing_)
		return 0;
	return fabric_.engine().post_at(Engine::Clock::now() + std::chrono::microseconds(usec),
					[this, num, kind](uint64_t id) { timer_fired(kind, num, id); }, this);
}

void DataPath::timer_fired(TimerKind kind, uint32_t num, uint64_t id)
{
	guarded(kind == TimerKind::CqModeration ? 0 : num, [&] {
		switch (kind) {
		case TimerKind::RcTimeout:
			requester_.rc_timeout(num, id);
			break;
		case TimerKind::RcRnrResume:
			requester_.rc_rnr_resume(num, id);
			break;
		case TimerKind::FlushPoll:
			completer_.flush_poll(num, id);
			break;
		case TimerKind::CqModeration:
			completer_.moderation_timeout(num, id);
			break;
		case TimerKind::SqPace:
			eth_path_.nic_sq_paced(num, id);
			break;
		}
	});
}

void DataPath::task_failed(uint32_t qpn, std::exception_ptr e) noexcept
{
	const char *what = "unknown exception";
	try {
		std::rethrow_exception(e);
	} catch (const std::exception &x) {
		what = x.what();
	} catch (...) {
	}
	++c_.task_exceptions;
	Qp *qp = qpn ? res_.qp(qpn) : nullptr;
	NicSq *sq = qpn && !qp ? res_.sq(qpn) : nullptr;
	std::fprintf(stderr, "mlx5-emu: hca %u: data-path work threw (%s); %s 0x%x %s\n", cfg_.hca_index, what,
		     qp ? "QP" : sq ? "SQ" : "no queue", qpn, qp || sq ? "to the error state" : "known: internal error");
	try {
		if (qp) {
			++qp->ctr.errors;
			post_qp_event(prm::async_event::WQ_CATAS_ERROR, qpn);
			if (qp->state != prm::qp_state::ERR)
				completer_.enter_error(*qp);
		} else if (sq) {
			++sq->ctr.errors;
			eth_path_.nic_sq_state(*sq, prm::wq_state::ERR);
		} else {
			events_.internal_error();
		}
	} catch (...) {
		// Failing the queue threw too (its flush met the same fault):
		// it stays in the error state with nothing more taken from it.
		++c_.task_exceptions;
		if (qp) {
			qp->state = prm::qp_state::ERR;
			qp->req.sq_ci = qp->req.sq_pi;
		} else if (sq) {
			sq->state = prm::wq_state::ERR;
			sq->ci = sq->pi;
		}
	}
}

void DataPath::post_task(Engine::Task fn)
{
	if (!closing_)
		fabric_.engine().post(std::move(fn));
}

void DataPath::stop_timer(uint64_t *id)
{
	if (!*id)
		return;
	fabric_.engine().cancel(*id);
	*id = 0;
}

void DataPath::post_qp_event(uint8_t type, uint32_t number)
{
	// A DCT's connection is no QP software knows (dc.cc).
	if (const Qp *q = res_.qp(number); q && q->dc.conn_of)
		return;
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = type;
	eqe[prm::async_event::kQpSrqType] = 0; // QP (SRQ events use the number alone)
	bits::store_be32(eqe + prm::async_event::kQpSrqNumber, number & 0xffffff);
	++c_.async_events;
	events_.async_event(eqe);
}

// ---------------------------------------------------------------------------
// QP state hooks (command thread, state lock held)

void DataPath::qp_state_changed(Qp &qp, uint8_t from)
{
	namespace qs = prm::qp_state;
	if (qp.state == qs::RST) {
		qp_destroying(qp);
		qp.reset_runtime();
		return;
	}
	if (qp.state == qs::ERR) {
		if (from != qs::ERR)
			completer_.enter_error(qp);
		return;
	}
	if (from == qs::INIT && qp.state == qs::RTR) {
		qp.resp.epsn = qp.cfg.next_rcv_psn;
		qp.resp.nak_seq_sent = false;
	}
	if (qp.state == qs::RTS && from != qs::RTS) {
		if (from == qs::RTR)
			qp.req.una = qp.req.next_psn = qp.cfg.next_send_psn;
		qp.req.retry_left = qp.cfg.retry_count;
		qp.req.rnr_left = qp.cfg.rnr_retry;
		// WQEs posted before RTS (or in SQER) run now, on the engine.
		uint32_t qpn = qp.qpn;
		post_task([this, qpn] {
			guarded(qpn, [&] {
				if (Qp *q = res_.qp(qpn))
					run_sq(*q);
			});
		});
	}
}

void DataPath::qp_retired(Qp &qp)
{
	qp_destroying(qp);
	res_.mcgs.forget_qp(qp.qpn);
	retired_ += qp.ctr;
}

void DataPath::qp_destroying(Qp &qp)
{
	requester_.rc_timer_stop(qp);
	stop_timer(&qp.req.rnr_timer);
	stop_timer(&qp.flush_timer);
}

void DataPath::clear()
{
	for (auto &[n, qp] : res_.qps)
		qp_destroying(*qp);
	res_.clear();
	owners_.clear();
	mc_local_lb_disabled_ = false;
	eth_path_.gids_ = {};
	eth_path_.roce_en_ = eth_path_.uc_local_lb_disabled_ = false;
}

// ---------------------------------------------------------------------------
// Control channel

std::vector<std::string> DataPath::qp_lines()
{
	auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
	std::vector<std::string> v;
	for (const auto &[n, qp] : res_.qps) {
		const QpCounters &k = qp->ctr;
		v.push_back(fmt("qp 0x%x %s %s rlid=%u rqpn=0x%x sq_pi=%u sq_ci=%u rq_ci=%u sq_psn=0x%x rq_psn=0x%x "
				"outstanding=%zu doorbells=%llu wqes=%llu tx=%llu/%lluB rx=%llu/%lluB recvs=%llu "
				"retransmits=%llu timeouts=%llu rnr_sent=%llu rnr_rcvd=%llu seq_naks=%llu dups=%llu "
				"errors=%llu flushed=%llu cqes=%llu qkey_viol=%llu uc_dropped=%llu xrc_bad_srq=%llu",
				n, qp->dc.target ? "DCT" : qp->dc.conn_of ? "DCT-conn" : qp_type_name(qp->cfg.st),
				qp_state_name(qp->state), qp->cfg.path.rlid,
				qp->cfg.remote_qpn, qp->req.sq_pi, qp->req.sq_ci, qp->resp.rq_ci, qp->req.next_psn,
				qp->resp.epsn, qp->req.wrs.size(), u(k.doorbells), u(k.sq_wqes), u(k.tx_packets),
				u(k.tx_bytes), u(k.rx_packets), u(k.rx_bytes), u(k.recv_wqes), u(k.retransmits),
				u(k.timeouts), u(k.rnr_naks_sent), u(k.rnr_naks_rcvd), u(k.seq_naks), u(k.duplicates),
				u(k.errors), u(k.flushed), u(k.cqes), u(k.qkey_violations), u(k.uc_dropped_msgs),
				u(k.xrc_bad_srq)));
	}
	return v;
}

std::vector<std::string> DataPath::stats_lines()
{
	auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
	std::vector<std::string> v;
	v.push_back(fmt("sq_doorbells %llu", u(c_.sq_doorbells.load())));
	v.push_back(fmt("cq_doorbells %llu", u(c_.cq_doorbells.load())));
	v.push_back(fmt("sq_doorbells_dropped %llu", u(c_.sq_doorbells_dropped.load())));
	v.push_back(fmt("cq_doorbells_dropped %llu", u(c_.cq_doorbells_dropped.load())));
	v.push_back(fmt("doorbells_merged %llu", u(c_.doorbells_merged.load())));
	v.push_back(fmt("doorbells_recovered %llu", u(c_.doorbells_recovered)));
	v.push_back(fmt("bad_doorbells %llu", u(c_.bad_doorbells)));
	v.push_back(fmt("cqes %llu", u(c_.cqes)));
	v.push_back(fmt("cqe_drops %llu", u(c_.cqe_drops)));
	v.push_back(fmt("cq_overruns %llu", u(c_.cq_overruns)));
	v.push_back(fmt("umr_wqes %llu", u(c_.umr_wqes)));
	v.push_back(fmt("malformed_wqes %llu", u(c_.malformed_wqes)));
	v.push_back(fmt("resd_lkey_refused %llu", u(c_.resd_lkey_refused)));
	v.push_back(fmt("umr_xlt_refused %llu", u(c_.umr_xlt_refused)));
	v.push_back(fmt("task_exceptions %llu", u(c_.task_exceptions)));
	// Tasks of no function's guard that threw (the fabric's engine).
	v.push_back(fmt("engine_task_exceptions %llu", u(fabric_.engine().counters().task_exceptions)));
	v.push_back(fmt("page_faults %llu", u(c_.page_faults)));
	v.push_back(fmt("page_fault_naks %llu", u(c_.fault_naks)));
	v.push_back(fmt("page_fault_resumes %llu", u(c_.fault_resumes)));
	v.push_back(fmt("page_fault_errors %llu", u(c_.fault_errors)));
	v.push_back(fmt("dc_key_violations %llu dc_not_active %llu dc_no_conn %llu dc_conns_opened %llu",
			u(c_.dc_key_violations), u(c_.dc_not_active), u(c_.dc_no_conn), u(c_.dc_conns_opened)));
	v.push_back(fmt("comp_events %llu", u(c_.comp_events)));
	v.push_back(fmt("moderation_timeouts %llu", u(c_.moderation_timeouts)));
	v.push_back(fmt("async_events %llu", u(c_.async_events)));
	v.push_back(fmt("packets_no_qp %llu", u(c_.no_qp_packets)));
	v.push_back(fmt("smi_refused %llu", u(c_.smi_refused)));
	v.push_back(fmt("packets_dropped %llu", u(c_.dropped_packets)));
	v.push_back(fmt("qp0_dropped %llu", u(qp0_dropped()))); // the fabric's: not on VL15 (fabric/packet.h)
	v.push_back(fmt("mcast_groups %zu", res_.mcgs.groups()));
	v.push_back(fmt("mcast_packets %llu copies %llu no_grh %llu no_group %llu lb_blocked %llu%s",
			u(c_.mcast_packets), u(c_.mcast_copies), u(c_.mcast_no_grh), u(c_.mcast_no_group),
			u(c_.mcast_lb_blocked), mc_local_lb_disabled_ ? " local_lb_disabled" : ""));
	QpCounters t = retired_;
	for (const auto &[n, qp] : res_.qps)
		t += qp->ctr;
	v.push_back(fmt("qp_totals wqes=%llu tx=%llu rx=%llu retransmits=%llu timeouts=%llu rnr_sent=%llu rnr_rcvd=%llu "
			"seq_naks=%llu dups=%llu errors=%llu flushed=%llu cqes=%llu",
			u(t.sq_wqes), u(t.tx_packets), u(t.rx_packets), u(t.retransmits), u(t.timeouts),
			u(t.rnr_naks_sent), u(t.rnr_naks_rcvd), u(t.seq_naks), u(t.duplicates), u(t.errors),
			u(t.flushed), u(t.cqes)));
	v.push_back(fmt("pds %zu xrcds %zu mkeys %zu cqs %zu qps %zu srqs %zu", res_.pds.size(), res_.xrcds.size(),
			res_.mkeys.size(), res_.cqs.size(), res_.qps.size(), res_.srqs.size()));
	for (const auto &[n, cq] : res_.cqs)
		v.push_back(fmt("cq 0x%x log_size=%u cqe=%u eqn=%u producer=%u consumer=%u arm=%d%s cqes=%llu events=%llu",
				n, cq->config().log_size, cq->config().stride(), cq->config().c_eqn, cq->producer(),
				cq->consumer(), static_cast<int>(cq->arm_state()), cq->overrun() ? " OVERRUN" : "",
				u(cq->counters().cqes), u(cq->counters().events)));
	for (const auto &[n, s] : res_.srqs)
		v.push_back(fmt("srq 0x%x %s log_size=%u stride=%u head=%u consumed=%u taken=%llu", n,
				srq_kind_name(s->cfg.kind), s->cfg.log_size, s->cfg.stride(), s->head, s->consumed,
				u(s->taken)));
	return v;
}

} // namespace mlx5emu
