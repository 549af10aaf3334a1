// SPDX-License-Identifier: GPL-2.0
// The data path of one HCA function: its queue objects (queues/), the
// doorbells that reach them, WQE execution as an InfiniBand requester and
// responder over the fabric, CQE and event generation, errors and flushes.
//
// Threads: doorbells arrive on the BAR path and are queued to the fabric's
// engine; everything else runs on the engine thread with the engine's
// state lock held. Commands take that lock (lock()) to change objects.
// The work is split by role, each a class of its own that DataPath owns:
// RdmaRequester (requester.h: the send queues, RC/UC/UD/UMR), RdmaResponder
// (responder.h: receive WQEs, requests in, responses), EthPath
// (eth_path.h: NIC send and receive, RoCE frames) and Completer
// (completer.h: CQEs, completion events and moderation, errors and
// flushes). DataPath keeps the entry points (doorbells, packets and
// frames from the fabric, commands' hooks), the engine tasks and timers,
// the dispatch of packets to QPs, and what the roles share: WQE parsing
// and local data through keys (send_wqe.cc), packet headers and the
// port's transmit (datapath.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "exec/completer.h"
#include "exec/eth_path.h"
#include "exec/requester.h"
#include "exec/responder.h"
#include "exec/roce_wire.h"
#include "fabric/fabric.h"
#include "steer/headers.h"
#include "queues/doorbell_owners.h"
#include "queues/resources.h"

namespace mlx5emu {

class GuestMemory;
class Faults;

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
		// The function has the SMI (QP0 sends and receives on VL15):
		// a PF; a VF's QP0 neither sends nor receives.
		bool smi = true;
	};
	DataPath(const Config &cfg, GuestMemory &mem, Fabric &fabric, EventSink &events);
	~DataPath() override;
	DataPath(const DataPath &) = delete;
	DataPath &operator=(const DataPath &) = delete;

	// --- BAR path (any thread, never blocks on the state lock) -----------
	// datapath.cc: 8 bytes written at a send doorbell / BlueFlame register
	// offset 0: dword0 = opmod/index/opcode, dword1 = qpn/ds (host-order
	// values). Dropped (sq_doorbells_dropped) unless UAR page `uar` is the
	// one in the QP's context.
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
	uint8_t port_state() const { return port_state_; } // under the lock
	// Atomic operands in little-endian (host order, atomic mode 1 on an
	// x86 host) rather than big-endian memory.
	void set_atomic_le(bool le) { atomic_le_ = le; }
	// The function's fault injections: CQEs repeated or corrupted on
	// purpose (exec/cqe.cc); set once, before any CQ exists.
	void set_faults(Faults *f) { faults_ = f; }
	// A surprise removal (fw/host_link.h): packets and frames from the
	// fabric are dropped, as by a device that is gone.
	void set_unplugged(bool gone) { unplugged_.store(gone, std::memory_order_release); }
	// NIC vport context disable_mc_local_lb: multicast sends of this
	// function reach none of its own QPs.
	void set_mc_local_lb_disabled(bool off) { mc_local_lb_disabled_ = off; }
	bool mc_local_lb_disabled() const { return mc_local_lb_disabled_; }
	bool atomic_le() const { return atomic_le_; }
	// datapath.cc: after a QP command changed `qp` from state `from`:
	// start the queues (RTS), flush (ERR) or forget the run-time state
	// (RST).
	void qp_state_changed(Qp &qp, uint8_t from);
	// Before DESTROY_QP: drop timers, keep the counters in the totals.
	void qp_retired(Qp &qp);
	void qp_destroying(Qp &qp);
	// Drop every object (function reset).
	void clear();
	// DC targets (exec/dc.cc; commands, state lock held): DRAIN_DCT
	// (its connections go, the DCT_DRAINED event follows) and what
	// DESTROY_DCT does before the DCT goes.
	void dct_drain(Qp &dct);
	void dct_retire(Qp &dct);
	// Ethernet (eth_path.h, nic.cc): the port's operational state and
	// hardware MTU, SQ/RQ state changes from MODIFY_SQ/RQ, counters.
	void set_eth_link(bool up, uint16_t hw_mtu) { eth_path_.set_eth_link(up, hw_mtu); }
	void set_vport_acl(const steer::VportAcl &acl) { eth_path_.set_vport_acl(acl); }
	void set_eswitch(steer::Eswitch *esw, uint16_t vport) { eth_path_.set_eswitch(esw, vport); }
	void nic_sq_state(NicSq &sq, uint8_t next) { eth_path_.nic_sq_state(sq, next); }
	void nic_rq_state(NicRq &rq, uint8_t next) { eth_path_.nic_rq_state(rq, next); }
	const EthCounters &eth_counters() const { return eth_path_.eth_counters(); }
	// RoCE (eth_path.h, roce.cc), state lock held: the GID table
	// (SET_ROCE_ADDRESS), RoCE on in the NIC vport context (roce_en), and
	// unicast local loopback off (disable_uc_local_lb).
	static constexpr unsigned kRoceGids = EthPath::kRoceGids;
	static constexpr uint32_t kLoopbackCap = EthPath::kLoopbackCap;
	static constexpr uint16_t kUdpSportMin = EthPath::kUdpSportMin, kUdpSportMax = EthPath::kUdpSportMax;
	void set_roce_gid(unsigned index, const RoceGid &g) { eth_path_.set_roce_gid(index, g); }
	const RoceGid &roce_gid(unsigned index) const { return eth_path_.roce_gid(index); }
	void set_roce(bool enabled, bool uc_local_lb_disabled) { eth_path_.set_roce(enabled, uc_local_lb_disabled); }
	const RoceCounters &roce_counters() const { return eth_path_.roce_counters(); }
	// The control channel's Ethernet lines (nic.cc).
	std::vector<std::string> nic_lines() { return eth_path_.nic_lines(); }
	// datapath.cc, state lock held: the port's LID range, state and GID
	// prefix as the SM set them (IBA PortState: data moves only on an
	// ACTIVE port; SMPs on QP0 always, an ARMED port also receives).
	// GID[0]'s GUID (an IB VF's host sets it: fw/firmware.h).
	void set_port_guid(uint64_t guid) { cfg_.port_guid = guid; }
	void set_port(uint16_t lid, uint8_t lmc, uint8_t state, uint64_t gid_prefix);
	uint16_t port_lid() const { return lid_; }
	// The port's traffic as the PMA counts it (state lock held): data in
	// octets of payload plus headers, packets, of every QP; the multicast
	// part of each (QUERY_VPORT_COUNTER's IB unicast/multicast pairs).
	struct PortTraffic {
		uint64_t xmit_bytes = 0, rcv_bytes = 0, xmit_pkts = 0, rcv_pkts = 0;
		uint64_t xmit_mcast = 0, rcv_mcast = 0, xmit_discards = 0, rcv_errors = 0;
		uint64_t xmit_mcast_bytes = 0, rcv_mcast_bytes = 0;
	};
	const PortTraffic &port_traffic() const { return traffic_; }
	void clear_port_traffic() { traffic_ = PortTraffic{}; }
	// datapath.cc: per-QP lines for the control channel.
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
	bool page_fault_resume(uint32_t token, uint32_t wq, uint8_t type, bool error)
	{
		return responder_.page_fault_resume(token, wq, type, error);
	}

	// --- engine thread, state lock held ---------------------------------
	// datapath.cc: a packet from the fabric.
	void receive(const Packet &p) override;
	// Plain ACKs the responder answers during a fabric burst are held and
	// merged per QP (respond()), and sent when the burst ends.
	void burst_begin() override;
	void burst_end() override;
	GuestMemory *burst_memory() override { return mem_.source(); }
	// A frame from the L2 switch (nic_recv.cc).
	void receive_frame(const std::vector<uint8_t> &frame) override { eth_path_.receive_frame(frame); }

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
		// QP0 sends and SMPs refused on a function without the SMI.
		uint64_t smi_refused = 0;
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
		// DC (exec/dc.cc): requests to a DCT dropped for a wrong access
		// key, for a DCT not ACTIVE, for no connection (a packet that
		// opens none from an initiator the DCT does not know, or no room
		// for one); connections opened.
		uint64_t dc_key_violations = 0, dc_not_active = 0, dc_no_conn = 0, dc_conns_opened = 0;
	};
	const Counters &counters() const { return c_; }

private:
	// The roles reach the shared state and services below.
	friend class RdmaRequester;
	friend class RdmaResponder;
	friend class EthPath;
	friend class Completer;

	// datapath.cc: what guarded() does with an exception.
	void task_failed(uint32_t qpn, std::exception_ptr e) noexcept;

	// datapath.cc: the shared part of sq_doorbell and cq_doorbell, and
	// what their engine tasks run (object number, doorbell words).
	template <void (DataPath::*Run)(uint32_t, uint32_t, uint32_t)>
	void ring_doorbell(DoorbellOwners::Kind k, uint32_t num, uint32_t uar, uint32_t dw0, uint32_t dw1,
			   std::atomic<uint64_t> &rung, std::atomic<uint64_t> &dropped);
	void sq_doorbell_task(uint32_t qpn, uint32_t dw0, uint32_t dw1);
	void cq_doorbell_task(uint32_t cqn, uint32_t dw0, uint32_t dw1);
	// Moves qp's producer to `end` when that is forward and within one
	// queue length; true if it moved.
	static bool advance_sq(Qp &qp, uint16_t end);
	// The CQ arm doorbell's work (engine): arm, event or moderation.
	void arm_cq(Cq &cq, uint32_t dw0);
	// A send queue's doorbell: to the role of its QP type.
	void run_sq(Qp &qp);

	// datapath.cc: receive() without its guard; a packet accepted by
	// the port, to its QP.
	void receive_packet(const Packet &p);
	void deliver(const Packet &p);
	void deliver_to(Qp &qp, const Packet &p);
	// One packet (no burst) to `qp`, by QP type and opcode.
	void dispatch(Qp &qp, const Packet &p);
	// dc.cc: a request to a DCT: the key and state checks, then to the
	// connection of its initiator (opened by the packet that asks).
	void dc_receive(Qp &dct, const Packet &p);
	Qp *dc_open(Qp &dct, const Packet &p, Qp *conn);
	void dc_close(Qp &dct, uint32_t conn_qpn);
	// dc.cc: a DCI's next WQE goes to the destination its address vector
	// names: the current one, or a new one once every earlier WQE
	// completed (false: wait). Sets wr.dc_connect when it opens one.
	bool dci_destination(Qp &qp, SendWr &wr, bool earlier_done);

	// datapath.cc: engine tasks and timers.
	// What a timer does when it fires: the handler, called with the QP or
	// CQ number and the timer's id.
	enum class TimerKind : uint8_t { RcTimeout, RcRnrResume, FlushPoll, CqModeration, SqPace };
	// Runs kind's handler on the engine after usec. Returns 0 (no timer)
	// once the destructor started. Allocates nothing once the engine's
	// timer pool is warm (the task is two words).
	uint64_t start_timer(uint64_t usec, uint32_t num, TimerKind kind);
	void timer_fired(TimerKind kind, uint32_t num, uint64_t id);
	void stop_timer(uint64_t *id);
	// Queues `fn` (which names this object) on the engine; dropped once
	// the destructor started. State lock held (engine task or command).
	void post_task(Engine::Task fn);
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
	void post_qp_event(uint8_t type, uint32_t qpn);

	// datapath.cc: packets out. The port's transmit (the fabric, or RoCE
	// frames on an Ethernet port).
	void transmit(Qp &qp, Packet &&p);
	// GID[0] of the port.
	Gid port_gid() const;
	// The GRH of the QP's primary path (present when the path asks).
	Grh path_grh(const Qp &qp) const;
	Packet rc_packet(const Qp &qp, uint8_t opcode, uint32_t psn) const;
	// A request packet of `wr` (carries the XRC SRQ of an XRC initiator).
	Packet rc_request_packet(const Qp &qp, const SendWr &wr, uint8_t opcode, uint32_t psn) const;
	uint32_t mtu(const Qp &qp) const;

	// doorbell_sweep.cc
	void run_sweeps();
	std::mutex sweep_mu_;
	std::vector<uint32_t> sweep_pages_;
	bool sweep_queued_ = false;
	// run_sweeps()' batch (engine), swapped with sweep_pages_: both keep
	// their capacity, so a sweep allocates nothing once warm.
	std::vector<uint32_t> sweep_batch_;

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
	Faults *faults_ = nullptr;
	std::atomic<bool> unplugged_{false};
	bool mc_local_lb_disabled_ = false;
	uint32_t dc_gen_ = 0; // the last DCI connection generation (dc.cc)
	// Set by the destructor under the state lock: no timer or task naming
	// this object is queued after it, so the destructor's cancel and wait
	// cover every one (a task the engine already took runs before its
	// wait ends, and can queue nothing more).
	bool closing_ = false;
	Counters c_;
	QpCounters retired_; // counters of destroyed QPs
	// Inside a fabric delivery burst: the QPs holding an ACK for its end.
	bool acks_held_ = false;
	static constexpr size_t kHeldAckRoom = 256;
	std::vector<uint32_t> held_acks_;

	// The roles (each holds a reference back to this object).
	Completer completer_{*this};
	RdmaRequester requester_{*this};
	RdmaResponder responder_{*this};
	EthPath eth_path_{*this};
};

// datapath.cc
// IB RNR NAK timer (IBA table 45): microseconds for a 5-bit code.
uint64_t rnr_timer_usec(uint8_t code);
// Local ACK timeout: 4.096 us << code (0 = infinite).
uint64_t ack_timeout_usec(uint8_t code);

} // namespace mlx5emu
