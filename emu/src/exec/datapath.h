// SPDX-License-Identifier: GPL-2.0
// The data path of one HCA function: its queue objects (queues/), the
// doorbells that reach them, WQE execution as an InfiniBand requester and
// responder over the fabric, CQE and event generation, errors and flushes.
//
// Threads: doorbells arrive on the BAR path and are queued to the fabric's
// engine; everything else runs on the engine thread with the engine's
// state lock held. Commands take that lock (lock()) to change objects.
// The implementation is split by mechanism: datapath.cc (doorbells,
// dispatch, lifetime), cqe.cc, recv_wqe.cc, send_wqe.cc, requester.cc,
// requester_ack.cc, responder.cc, uc.cc, xrc.cc, ud.cc, local_qp.cc, umr.cc,
// flush.cc.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "exec/roce_wire.h"
#include "fabric/fabric.h"
#include "steer/headers.h"
#include "queues/doorbell_owners.h"
#include "queues/resources.h"

namespace mlx5emu {

class GuestMemory;

// Where the data path's events go (the firmware's EQs).
class EventSink {
public:
	virtual ~EventSink() = default;
	// A completion event (EQE type 0) for `cqn` on EQ `eqn`.
	virtual void completion_event(uint32_t eqn, uint32_t cqn) = 0;
	// An asynchronous event (CQ error, QP/SRQ events): a full EQE body.
	virtual void async_event(const uint8_t *eqe64) = 0;
	// Whether an EQ takes events of `type` (page faults are raised only
	// when software listens for them).
	virtual bool listens(uint8_t type) const { (void)type; return false; }
	// Data-path work of no known queue failed (an exception, a bug):
	// the function's internal error (the health syndrome). Engine
	// thread, state lock held: must not take Firmware::mu.
	virtual void internal_error() {}
};

// What a CQE says (exec/cqe.cc builds the 64 bytes).
struct CqeInfo {
	uint8_t opcode = 0;     // prm::cqe_opcode
	uint8_t wqe_opcode = 0; // requester: the WQE opcode (sop_drop_qpn[31:24])
	uint32_t qpn = 0;
	uint16_t wqe_counter = 0;
	uint32_t byte_cnt = 0;
	uint32_t imm = 0;       // raw big-endian bytes (immediate / rkey / pkey)
	bool has_imm = false;
	uint32_t srqn_uidx = 0;
	uint32_t flags_rqpn = 0;
	uint16_t slid = 0;
	uint8_t ml_path = 0;
	uint8_t syndrome = 0;   // error CQEs
	uint8_t vendor_syndrome = 0;
	uint8_t l4_l3_hdr_type = 0; // Ethernet: [0] a VLAN tag was stripped
	uint16_t vlan_info = 0;
};

// RoCE traffic of an Ethernet port (roce.cc).
struct RoceCounters {
	uint64_t tx = 0, rx = 0;
	uint64_t tx_no_gid = 0;     // the source GID entry is empty, RoCE off or the link down
	uint64_t loopback = 0;      // frames that went back to this function
	uint64_t lb_blocked = 0;    // kept back by disable_uc/mc_local_lb
	uint64_t lb_full = 0;       // dropped: kLoopbackCap frames already waiting
	uint64_t rx_bad = 0;        // malformed, bad ICRC
	uint64_t rx_no_gid = 0;     // to our MAC, but no GID entry of that address and version
};

// Ethernet vport traffic counters (QUERY_VPORT_COUNTER, PPCNT).
struct EthCounters {
	enum Cast { Ucast, Mcast, Bcast };
	struct Pair {
		uint64_t packets = 0, bytes = 0;
	};
	Pair tx[3], rx[3];
	uint64_t rx_dropped = 0;     // no rule, a DROP rule, the port down
	uint64_t rx_no_wqe = 0;      // the RQ had no WQE (out of buffer)
	uint64_t rx_too_long = 0;    // longer than the port MTU or the WQE
	uint64_t rx_errors = 0, tx_errors = 0;
	uint64_t tx_link_down = 0;   // sent while the port was down: dropped
	uint64_t lso_segments = 0;
};

class DataPath : public FabricPort {
public:
	struct Config {
		unsigned hca_index = 0;
		uint16_t lid = 0;  // the port's LID at start (0: none until an SM sets one)
		bool active = true; // the port starts ACTIVE (else INIT, waiting for an SM)
		uint8_t port_mtu = 5;
		uint8_t log_max_msg = 30;
		// GID[0] (the only GID): subnet prefix + port GUID, the SGID of
		// the GRHs this port sends.
		uint64_t gid_prefix = 0xfe80000000000000ull;
		uint64_t port_guid = 0;
		bool eth = false; // an Ethernet port: on the L2 switch, not a LID
	};
	DataPath(const Config &cfg, GuestMemory &mem, Fabric &fabric, EventSink &events);
	~DataPath() override;
	DataPath(const DataPath &) = delete;
	DataPath &operator=(const DataPath &) = delete;

	// --- BAR path (any thread, never blocks on the state lock) -----------
	// 8 bytes written at a send doorbell / BlueFlame register offset 0:
	// dword0 = opmod/index/opcode, dword1 = qpn/ds (host-order values).
	// Dropped (sq_doorbells_dropped) unless UAR page `uar` is the one in
	// the QP's context.
	void sq_doorbell(uint32_t uar, uint32_t dw0, uint32_t dw1);
	// The CQ arm doorbell at UAR + 0x20; dropped (cq_doorbells_dropped)
	// unless `uar` is the CQ's UAR page.
	void cq_doorbell(uint32_t uar, uint32_t dw0, uint32_t dw1);
	// A doorbell was taken from polled UAR page `uar` (any thread): look
	// through the doorbell records of the page's send queues and CQs on
	// the engine for doorbells overwritten in the page before the poller
	// saw them (exec/doorbell_sweep.cc). Coalesced: at most one engine
	// task, at most one entry per page.
	void sweep_uar(uint32_t uar);
	// Who may ring what: commands add and remove CQs and QPs here.
	DoorbellOwners &owners() { return owners_; }

	// --- commands (take the state lock through lock()) -------------------
	std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(fabric_.engine().state_mutex()); }
	Resources &res() { return res_; }
	const Config &config() const { return cfg_; }
	// Atomic operands in little-endian (host order, atomic mode 1 on an
	// x86 host) rather than big-endian memory.
	void set_atomic_le(bool le) { atomic_le_ = le; }
	// A surprise removal (fw/host_link.h): packets and frames from the
	// fabric are dropped, as by a device that is gone.
	void set_unplugged(bool gone) { unplugged_.store(gone, std::memory_order_release); }
	// NIC vport context disable_mc_local_lb: multicast sends of this
	// function reach none of its own QPs.
	void set_mc_local_lb_disabled(bool off) { mc_local_lb_disabled_ = off; }
	bool mc_local_lb_disabled() const { return mc_local_lb_disabled_; }
	bool atomic_le() const { return atomic_le_; }
	// After a QP command changed `qp` from state `from`: start the queues
	// (RTS), flush (ERR) or forget the run-time state (RST).
	void qp_state_changed(Qp &qp, uint8_t from);
	// Before DESTROY_QP: drop timers, keep the counters in the totals.
	void qp_retired(Qp &qp);
	void qp_destroying(Qp &qp);
	// Drop every object (function reset).
	void clear();
	// Ethernet (nic.cc): the port's operational state and hardware MTU,
	// SQ/RQ state changes from MODIFY_SQ/RQ, counters.
	void set_eth_link(bool up, uint16_t hw_mtu);
	void nic_sq_state(NicSq &sq, uint8_t next);
	void nic_rq_state(NicRq &rq, uint8_t next);
	const EthCounters &eth_counters() const { return eth_; }
	// RoCE (roce.cc), state lock held: the GID table (SET_ROCE_ADDRESS),
	// RoCE on in the NIC vport context (roce_en), and unicast local
	// loopback off (disable_uc_local_lb).
	static constexpr unsigned kRoceGids = 128;
	static constexpr uint32_t kLoopbackCap = 1024; // looped-back frames waiting
	static constexpr uint16_t kUdpSportMin = 0xc000, kUdpSportMax = 0xffff;
	void set_roce_gid(unsigned index, const RoceGid &g) { gids_.at(index) = g; }
	const RoceGid &roce_gid(unsigned index) const { return gids_.at(index); }
	void set_roce(bool enabled, bool uc_local_lb_disabled)
	{
		roce_en_ = enabled;
		uc_local_lb_disabled_ = uc_local_lb_disabled;
	}
	const RoceCounters &roce_counters() const { return roce_; }
	std::vector<std::string> nic_lines();
	// State lock held: the port's LID range, state and GID prefix as the SM set them
	// (IBA PortState: data moves only on an ACTIVE port; SMPs on QP0
	// always, an ARMED port also receives).
	void set_port(uint16_t lid, uint8_t lmc, uint8_t state, uint64_t gid_prefix);
	uint16_t port_lid() const { return lid_; }
	// The port's traffic as the PMA counts it (state lock held): data in
	// octets of payload plus headers, packets, of every QP.
	struct PortTraffic {
		uint64_t xmit_bytes = 0, rcv_bytes = 0, xmit_pkts = 0, rcv_pkts = 0;
		uint64_t xmit_mcast = 0, rcv_mcast = 0, xmit_discards = 0, rcv_errors = 0;
	};
	const PortTraffic &port_traffic() const { return traffic_; }
	void clear_port_traffic() { traffic_ = PortTraffic{}; }
	// Per-QP lines for the control channel.
	std::vector<std::string> qp_lines();
	std::vector<std::string> stats_lines();

	// Runs data-path work `fn` on the engine (state lock held) for the
	// QP or NIC SQ numbered `qpn` (0: none known). Nothing it throws
	// leaves: the queue is failed (QP: WQ_CATAS_ERROR event, error
	// state, flush; SQ: error state), or with no such queue the
	// function's internal error is raised; counted (task_exceptions)
	// and logged. Every engine task of this class runs through it.
	template <class Fn> void guarded(uint32_t qpn, Fn &&fn) noexcept
	{
		try {
			fn();
		} catch (...) {
			task_failed(qpn, std::current_exception());
		}
	}

	// PAGE_FAULT_RESUME (exec/odp.cc, state lock held): the fault of
	// token `token` (an RDMA fault: the responder QP's number, also in
	// `wq`) is resolved, or failed (`error`); false if no such fault.
	bool page_fault_resume(uint32_t token, uint32_t wq, uint8_t type, bool error);

	// --- engine thread, state lock held ---------------------------------
	void receive(const Packet &p) override;
	GuestMemory *burst_memory() override { return mem_.source(); }
	void receive_frame(const std::vector<uint8_t> &frame) override;

	struct Counters {
		std::atomic<uint64_t> sq_doorbells{0}, cq_doorbells{0};
		// Dropped: not through the object's UAR page, or no such object.
		std::atomic<uint64_t> sq_doorbells_dropped{0}, cq_doorbells_dropped{0};
		// Folded into a doorbell of the same object still queued.
		std::atomic<uint64_t> doorbells_merged{0};
		// Polled pages: doorbells found only in the doorbell records
		// (their register was overwritten before the poller looked).
		uint64_t doorbells_recovered = 0;
		uint64_t bad_doorbells = 0, no_qp_packets = 0, dropped_packets = 0;
		uint64_t rd_limit_naks = 0, acks_merged = 0;
		uint64_t cqes = 0, cqe_drops = 0, comp_events = 0, async_events = 0, cq_overruns = 0;
		uint64_t moderation_timeouts = 0; // CQ moderation periods that ended in their timer
		// Multicast: packets received (from the fabric or looped back),
		// copies delivered to attached QPs, packets without a GRH or
		// without a group here, copies the loopback rules kept back.
		uint64_t mcast_packets = 0, mcast_copies = 0, mcast_no_grh = 0, mcast_no_group = 0;
		uint64_t mcast_lb_blocked = 0;
		uint64_t umr_wqes = 0; // executed without error
		// Refusals (each also an error CQE): send WQEs too short for
		// their segments or with an opcode their QP type lacks; SGEs
		// naming the reserved lkey on a queue without rlky; UMR
		// translations beyond log_max_klm_list_size or the key
		// budget. task_exceptions: data-path work that threw (its QP
		// was failed, or the function's health syndrome set).
		uint64_t malformed_wqes = 0, resd_lkey_refused = 0, umr_xlt_refused = 0, task_exceptions = 0;
		// ODP (exec/odp.cc): PAGE_FAULT EQEs raised, packets answered
		// with an RNR NAK while their QP's fault was pending, resumes.
		uint64_t page_faults = 0, fault_naks = 0, fault_resumes = 0, fault_errors = 0;
	};
	const Counters &counters() const { return c_; }

	// Completion helpers (cqe.cc).
	static void build_cqe(const CqeInfo &info, uint8_t *out64);
	// Writes a CQE to `cqn` and posts the completion / overrun events.
	bool complete(uint32_t cqn, const CqeInfo &info, bool solicited);
	// Writes a built 64-byte CQE to `cqn`: overrun and completion events;
	// `qpn` is the queue that gets the error when the CQ refuses it.
	bool push_cqe(uint32_t cqn, const uint8_t *cqe, bool solicited, uint32_t qpn);
	// cq_moderation.cc: the completion event of `cq` (EQE, counted, its
	// time kept), and the moderation period held back by Cq::push.
	void comp_event(Cq &cq);
	void moderation_start(Cq &cq);
	void moderation_timeout(uint32_t cqn, uint64_t id);
	uint64_t now_us() const;
	// QP `qpn` could not post a CQE to a CQ in error: WQ_CATAS_ERROR event
	// and the error state (on a later engine task).
	void cq_error_fatal(uint32_t qpn);
	// The srqn/user-index field of a CQE for `qp` (and the SRQ it used).
	uint32_t cqe_srqn_uidx(const Qp &qp, const Srq *srq) const;
	// The requester CQE of send WR `wr` taken from `qp`'s SQ: QP, WQE
	// counter and opcode, user index; the caller sets the rest.
	CqeInfo req_cqe(const Qp &qp, const SendWr &wr) const;
	// The responder CQE of receive WQE `rw` of `qp`: QP, WQE counter, SRQ
	// number or user index.
	CqeInfo resp_cqe(const Qp &qp, const RecvWqe &rw) const;
	// A REQ_ERR CQE for `wr` with `syndrome` on the send CQ (solicited).
	void complete_send_error(Qp &qp, const SendWr &wr, uint8_t syndrome);
	// A REQ CQE with `byte_cnt` on the send CQ, if `wr` is signaled.
	void complete_send(Qp &qp, const SendWr &wr, uint32_t byte_cnt);

private:
	// datapath.cc: what guarded() does with an exception.
	void task_failed(uint32_t qpn, std::exception_ptr e) noexcept;

	// doorbell_sweep.cc
	void run_sweeps();
	// The CQ arm doorbell's work (engine): arm, event or moderation.
	void arm_cq(Cq &cq, uint32_t dw0);
	// Moves qp's producer to `end` when that is forward and within one
	// queue length; true if it moved.
	static bool advance_sq(Qp &qp, uint16_t end);
	std::mutex sweep_mu_;
	std::vector<uint32_t> sweep_pages_;
	bool sweep_queued_ = false;

	// datapath.cc
	void run_sq(Qp &qp);
	// What a timer does when it fires: the handler, called with the QP or
	// CQ number and the timer's id.
	enum class TimerKind : uint8_t { RcTimeout, RcRnrResume, FlushPoll, CqModeration };
	// Runs kind's handler on the engine after usec. Returns 0 (no timer)
	// once the destructor started. Allocates nothing once the engine's
	// timer pool is warm (the task is two words).
	uint64_t start_timer(uint64_t usec, uint32_t num, TimerKind kind);
	void timer_fired(TimerKind kind, uint32_t num, uint64_t id);
	// Queues `fn` (which names this object) on the engine; dropped once
	// the destructor started. State lock held (engine task or command).
	void post_task(Engine::Task fn);
	void stop_timer(uint64_t *id);
	void post_qp_event(uint8_t type, uint32_t qpn);
	void transmit(Qp &qp, Packet &&p);
	// GID[0] of the port.
	Gid port_gid() const;
	// The GRH of the QP's primary path (present when the path asks).
	Grh path_grh(const Qp &qp) const;
	Packet rc_packet(const Qp &qp, uint8_t opcode, uint32_t psn) const;
	// A request packet of `wr` (carries the XRC SRQ of an XRC initiator).
	Packet rc_request_packet(const Qp &qp, const SendWr &wr, uint8_t opcode, uint32_t psn) const;

	// send_wqe.cc: take the WQE at sq_ci. False: no more WQEs; *bad set
	// when the WQE could not be parsed.
	struct UdAddress {
		uint16_t dlid = 0;
		uint8_t sl = 0;
		uint32_t dqpn = 0;
		uint32_t qkey = 0;
		Grh grh; // sgid is the port's, filled when sending
		RoceAddr roce; // Ethernet ports
	};
	bool take_send_wqe(Qp &qp, SendWr *wr, UdAddress *av, uint8_t *syndrome);
	// The local keys of `wr` (counts the reserved lkey refused).
	uint8_t check_local_sgl(const Qp &qp, const SendWr &wr);
	bool gather(const Qp &qp, const SendWr &wr, uint64_t off, uint8_t *dst, size_t len);
	// Writes into a scatter list (READ/atomic results, receive WQEs)
	// through the local keys (the reserved lkey with `rlky`: the
	// queue's context); false on a protection error.
	bool scatter_local(uint32_t pd, bool rlky, const std::vector<Sge> &sgl, uint64_t off, const uint8_t *src,
			   size_t len);
	// Payloads by reference (fabric/packet.h, PayloadRef): the guest
	// addresses of [off, off + len) of `wr`'s local data (false: inline,
	// MEMIC, or more pieces than a reference holds; the caller gathers
	// bytes), or of a checked key's range (appended to *out).
	bool payload_ref(const Qp &qp, const SendWr &wr, uint64_t off, size_t len, PayloadRef *out) const;
	bool key_ref(const Mkey &mk, uint64_t va, size_t len, PayloadRef *out) const;
	// Payload bytes [off, off + n) of `p` into a checked key's range, or
	// through a scatter list's local keys (BadDest also for a key
	// refused). BadSource: the sender's memory could not be read, the
	// packet is lost.
	GuestMemory::Copy put_payload(const Mkey &mk, uint64_t va, const Packet &p, uint64_t off, size_t n);
	GuestMemory::Copy scatter_payload(uint32_t pd, bool rlky, const std::vector<Sge> &sgl, uint64_t off,
					  const Packet &p, size_t len);

	// recv_wqe.cc
	bool take_recv_wqe(Qp &qp, RecvWqe *out);
	// Lost: the sender's memory could not be read (the packet is dropped).
	enum class Scatter { Ok, Length, Protection, Lost };
	Scatter scatter(const Qp &qp, const RecvWqe &r, uint64_t off, const uint8_t *src, size_t len);
	Scatter scatter(const Qp &qp, const RecvWqe &r, uint64_t off, const Packet &p);
	uint16_t rq_producer(const Qp &qp);
	void flush_rq(Qp &qp);

	// datapath.cc: the shared part of sq_doorbell and cq_doorbell, and
	// what their engine tasks run (object number, doorbell words).
	template <void (DataPath::*Run)(uint32_t, uint32_t, uint32_t)>
	void ring_doorbell(DoorbellOwners::Kind k, uint32_t num, uint32_t uar, uint32_t dw0, uint32_t dw1,
			   std::atomic<uint64_t> &rung, std::atomic<uint64_t> &dropped);
	void sq_doorbell_task(uint32_t qpn, uint32_t dw0, uint32_t dw1);
	void cq_doorbell_task(uint32_t cqn, uint32_t dw0, uint32_t dw1);

	// Queue run(qp) as one engine task: flag(qp) says one is queued, so
	// repeated kicks fold into it; the task finds the QP again by number
	// and does nothing when it is gone or the flag was cleared.
	template <typename Flag, typename Run>
	void post_once(Qp &qp, Flag flag, Run run)
	{
		if (flag(qp))
			return;
		flag(qp) = true;
		uint32_t qpn = qp.qpn;
		fabric_.engine().post([this, qpn, flag, run] {
			guarded(qpn, [&] {
				Qp *q = res_.qp(qpn);
				if (!q || !flag(*q))
					return;
				flag(*q) = false;
				run(*q);
			});
		});
	}

	// requester.cc
	void rc_take_wqes(Qp &qp);
	void rc_transmit(Qp &qp);
	// SEND/WRITE payloads by reference into this HCA's memory when
	// `by_ref` (first transmissions), else as bytes read now.
	void rc_send_packets(Qp &qp, SendWr &wr, uint32_t from_psn, uint32_t end, bool by_ref);
	void rc_kick(Qp &qp);
	void rc_retransmit(Qp &qp, uint32_t from_psn);
	void rc_complete(Qp &qp);
	void rc_arm_timer(Qp &qp);
	// Progress (or nothing left to wait for): the retransmission timer
	// stops; rc_arm_timer starts it again with a full timeout.
	void rc_timer_restart(Qp &qp) { qp.req.timer_due = {}; }
	// The QP leaves the states that send: its engine timer goes too.
	void rc_timer_stop(Qp &qp)
	{
		stop_timer(&qp.req.timer);
		qp.req.timer_due = {};
	}
	void rc_timeout(uint32_t qpn, uint64_t id);
	void rc_rnr_resume(uint32_t qpn, uint64_t id);
	uint32_t mtu(const Qp &qp) const;

	// requester_ack.cc
	void rc_response(Qp &qp, const Packet &p);
	void rc_ack_upto(Qp &qp, uint32_t psn);
	void rc_nak(Qp &qp, const Packet &p);
	void rc_read_response(Qp &qp, const Packet &p);
	void rc_atomic_ack(Qp &qp, const Packet &p);
	void rc_fail_at(Qp &qp, uint32_t psn, uint8_t syndrome);

	// responder.cc
	bool responder_accepts(Qp &qp);
	void no_recv_wqe(Qp &qp, const Packet &p);
	// RNR NAK for `p`: the requester sends it again after the timer.
	void rnr_nak(Qp &qp, const Packet &p);
	// odp.cc: true when request `p` must wait for a page fault (raised
	// now or still pending: RNR NAK sent) or failed on one (remote access
	// error sent), given the `len` bytes at `va` of `rkey` it touches
	// next (`op_len`: the rest of the message, `need`: the access).
	bool odp_hold(Qp &qp, const Packet &p, uint32_t rkey, uint64_t va, uint64_t len, uint64_t op_len,
		      unsigned need, bool consume_recv);
	void complete_recv(Qp &qp, const Packet &p, CqeInfo &ci, uint64_t byte_cnt);
	void rc_request(Qp &qp, const Packet &p);
	// uc.cc
	void uc_request(Qp &qp, const Packet &p);
	void uc_drop_message(Qp &qp);
	// xrc.cc: XRC packets reach the RC requester (initiator) and
	// responder (target); receives go to the XRC SRQ the request names.
	void xrc_receive(Qp &qp, const Packet &p);
	bool xrc_target_srq(Qp &qp);
	uint32_t recv_srqn(const Qp &qp) const;
	uint32_t resp_pd(const Qp &qp) const;
	uint32_t recv_cqn(const Qp &qp, const RecvWqe &rw) const;
	void rc_duplicate(Qp &qp, const Packet &p);
	void rc_send_request(Qp &qp, const Packet &p);
	void rc_write_request(Qp &qp, const Packet &p);
	void rc_read_request(Qp &qp, const Packet &p, bool duplicate);
	void rc_atomic_request(Qp &qp, const Packet &p, bool duplicate);
	void send_ack(Qp &qp, const Packet &req, uint8_t syndrome, uint32_t psn);
	// responses.cc: responses in PSN order, READs a burst per task.
	void respond(Qp &qp, Packet p, bool rd_slot);
	bool respond_read(Qp &qp, const ReadJob &job);
	void responses_pump(Qp &qp);
	void responses_kick(Qp &qp);
	unsigned max_rd_queued(const Qp &qp) const;
	void responder_error(Qp &qp, const Packet &req, uint8_t nak_code, uint8_t cqe_syndrome, bool consume_recv);
	bool check_rkey(Qp &qp, uint32_t rkey, uint64_t va, uint64_t len, unsigned need, const Mkey **out);

	// nic_send.cc: the Ethernet send path of an SQ.
	void receive_frame_now(const std::vector<uint8_t> &frame);
	void nic_sq_doorbell(NicSq &sq, uint32_t dw0, uint32_t dw1);
	void nic_run_sq(NicSq &sq);
	bool nic_send_wqe(NicSq &sq, uint16_t *nbb);
	void nic_transmit(const std::vector<uint8_t> &frame);
	void nic_complete_sq(NicSq &sq, uint16_t wqe_counter, uint8_t opcode, uint8_t syndrome);
	// nic_recv.cc: a frame through flow steering into an RQ.
	void nic_deliver(uint32_t tirn, const std::vector<uint8_t> &frame, const struct steer::Headers &h,
			 uint32_t flow_tag);
	bool nic_fill_rq(NicRq &rq, const std::vector<uint8_t> &frame, const struct steer::Headers &h,
			 uint32_t rss_hash, uint8_t hash_type, uint32_t flow_tag);

	// roce.cc: packets of an Ethernet port as RoCE frames.
	void roce_transmit(Packet p);
	bool roce_receive(const std::vector<uint8_t> &frame);
	void roce_loopback(const std::vector<uint8_t> &frame);
	bool roce_own_mac(const std::array<uint8_t, 6> &mac) const;
	// The source GID of packets from `sgid_index` (IB: GID[0]).
	Gid source_gid(uint8_t sgid_index) const;

	// datapath.cc: receive() without its guard; a packet accepted by
	// the port, to its QP.
	void receive_packet(const Packet &p);
	void deliver(const Packet &p);
	void deliver_to(Qp &qp, const Packet &p);

	// ud.cc
	void ud_send(Qp &qp);
	void ud_receive(Qp &qp, const Packet &p);

	// multicast.cc
	void multicast_send(Qp &qp, Packet p);
	void multicast_receive(const Packet &p, const Qp *sender);

	// local_qp.cc
	void local_send(Qp &qp);

	// umr.cc: executes the UMR WQE `wr` of `qp`; 0 or a CQE syndrome.
	uint8_t execute_umr(Qp &qp, const SendWr &wr);
	uint8_t check_window(const Qp &qp, const Mkey &k) const;

	// flush.cc
	void enter_error(Qp &qp);
	void enter_sq_error(Qp &qp);
	void flush_sq(Qp &qp);
	void flush_wr(Qp &qp, const SendWr &wr, uint8_t syndrome);
	void flush_poll(uint32_t qpn, uint64_t id);

	Config cfg_;
	uint16_t lid_ = 0;
	uint8_t lmc_ = 0;
	uint8_t port_state_ = 4; // IB PortState: 2 INIT, 3 ARMED, 4 ACTIVE
	PortTraffic traffic_;
	GuestMemory &mem_;
	Fabric &fabric_;
	EventSink &events_;
	Resources res_;
	DoorbellOwners owners_;
	bool atomic_le_ = true;
	std::atomic<bool> unplugged_{false};
	bool mc_local_lb_disabled_ = false;
	// Set by the destructor under the state lock: no timer or task naming
	// this object is queued after it, so the destructor's cancel and wait
	// cover every one (a task the engine already took runs before its
	// wait ends, and can queue nothing more).
	bool closing_ = false;
	Counters c_;
	QpCounters retired_; // counters of destroyed QPs
	// Ethernet
	uint32_t eth_port_ = 0; // switch port number (0: not on the switch)
	bool eth_up_ = false;
	uint16_t eth_hw_mtu_ = 1500 + 26;
	EthCounters eth_;
	// RoCE
	std::array<RoceGid, kRoceGids> gids_{};
	bool roce_en_ = false;
	bool uc_local_lb_disabled_ = false;
	uint32_t lb_queued_ = 0;
	RoceCounters roce_;
};

// IB RNR NAK timer (IBA table 45): microseconds for a 5-bit code.
uint64_t rnr_timer_usec(uint8_t code);
// Local ACK timeout: 4.096 us << code (0 = infinite).
uint64_t ack_timeout_usec(uint8_t code);

} // namespace mlx5emu
