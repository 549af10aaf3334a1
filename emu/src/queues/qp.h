// SPDX-License-Identifier: GPL-2.0
// Queue pairs: the configuration taken from the QP context, the state,
// and the run-time state of the send queue (requester) and the receive
// side (responder) that exec/ drives.
#pragma once

#include <algorithm>
#include <cstddef>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "fabric/packet.h"
#include "queues/page_list.h"
#include "util/slot_ring.h"

namespace mlx5emu {

// One scatter/gather entry of a WQE.
struct Sge {
	uint64_t addr = 0;
	uint32_t len = 0;
	uint32_t lkey = 0;
};

// Calls fn(sge, offset inside the sge, offset in the request, n) for the
// part of the list covering [off, off+len); stops at the first false.
// True when fn accepted the whole range.
template <class Fn> bool walk_sgl(const std::vector<Sge> &sgl, uint64_t off, size_t len, Fn fn)
{
	size_t done = 0;
	for (const Sge &s : sgl) {
		if (done == len)
			break;
		if (off >= s.len) {
			off -= s.len;
			continue;
		}
		size_t n = static_cast<size_t>(std::min<uint64_t>(s.len - off, len - done));
		if (!fn(s, off, done, n))
			return false;
		done += n;
		off = 0;
	}
	return done == len;
}

struct PathConfig {
	uint16_t rlid = 0;
	uint8_t sl = 0;
	uint8_t src_path_bits = 0;
	bool grh = false; // the packets carry a GRH with these fields
	uint8_t hop_limit = 0;
	uint8_t tclass = 0;
	uint32_t flow_label = 0;
	uint8_t sgid_index = 0;
	Gid rgid{};
	uint8_t ack_timeout = 0; // 4.096 us << ack_timeout, 0 = infinite
	uint16_t pkey_index = 0;
	uint8_t port = 1;
	// Ethernet (RoCE): the next hop's MAC, the UDP source port, DSCP and
	// ECN of the IP header (0, 0: the traffic class says both).
	std::array<uint8_t, 6> rmac{};
	uint16_t udp_sport = 0;
	uint8_t dscp = 0, ecn = 0;
};

struct QpConfig {
	uint8_t st = 0; // prm::qp_st
	uint32_t pd = 0;
	uint8_t pm_state = 0;
	uint8_t mtu = 0; // IB MTU enum
	uint8_t log_msg_max = 0;
	uint8_t log_rq_size = 0;
	uint8_t log_rq_stride = 0; // stride = 16 << log_rq_stride
	bool no_sq = false;
	uint8_t log_sq_size = 0; // WQEBBs
	bool wq_signature = false;
	bool block_lb_mc = false; // no copy of its own multicast sends
	uint32_t uar_page = 0;
	uint32_t user_index = 0xffffff;
	uint32_t remote_qpn = 0;
	PathConfig path;
	uint8_t log_sra_max = 0;
	uint8_t retry_count = 0;
	uint8_t rnr_retry = 0;
	uint8_t log_rra_max = 0;
	uint8_t min_rnr_nak = 0;
	uint32_t next_send_psn = 0;
	uint32_t next_rcv_psn = 0;
	bool rre = false, rwe = false, rae = false;
	uint8_t atomic_mode = 0;
	uint32_t cqn_snd = 0, cqn_rcv = 0;
	uint64_t dbr_addr = 0;
	uint32_t qkey = 0;
	uint8_t rq_type = 0; // prm::rq_type
	uint32_t srqn = 0;
	uint32_t xrcd = 0;
	uint8_t counter_set_id = 0;
	PageList buf;

	bool has_rq() const;
	uint32_t rq_wqes() const { return 1u << log_rq_size; }
	uint32_t rq_stride() const { return 16u << log_rq_stride; }
	uint64_t rq_bytes() const { return has_rq() ? static_cast<uint64_t>(rq_wqes()) * rq_stride() : 0; }
	uint32_t sq_wqebbs() const { return no_sq ? 0 : 1u << log_sq_size; }
	bool is_ud() const; // UD, QP0, QP1
	bool is_rc() const;
	bool is_uc() const;
	bool is_xrc() const;       // XRC initiator (has an SQ) or target (no SQ)
	bool is_xrc_tgt() const;
	bool is_dci() const;       // DC initiator: RC reliability, one destination per WQE (exec/dc.cc)
	bool is_connected() const; // RC, UC or XRC: PSNs, a remote QP, the requester/responder
};

// A send WQE taken from the SQ and not yet completed (RC requester).
struct SendWr {
	uint16_t index = 0; // WQEBB index of the control segment
	uint8_t nbb = 1;    // WQEBBs the WQE occupies
	uint8_t opcode = 0; // prm::wqe::OP_*
	bool signaled = false, solicited = false, fence = false;
	uint32_t imm = 0; // raw big-endian bytes as in the WQE
	uint64_t remote_va = 0;
	uint32_t rkey = 0;
	uint64_t swap_add = 0, compare = 0;
	uint32_t xrc_srqn = 0; // XRC initiator: the remote XRC SRQ (XRC segment)
	// DCI: the destination its address vector names (exec/dc.cc), and
	// whether its first packet opens the DCI's connection to that DCT.
	uint32_t dct = 0;
	uint64_t dc_key = 0;
	uint16_t dlid = 0;
	uint8_t sl = 0;
	Grh grh;
	uint32_t dc_gen = 0;
	bool dc_connect = false;
	std::vector<Sge> sgl;
	std::vector<uint8_t> inline_data;
	bool is_inline = false;
	size_t inline_at = 0; // pointer segments before the inline data (a WQE may mix both)
	uint64_t length = 0;
	std::vector<uint8_t> umr; // OP_UMR: the segments after the control segment
	// Transport progress.
	uint32_t first_psn = 0;
	uint32_t npsn = 1;        // PSNs the request uses
	bool sent = false;        // PSNs assigned, transmission started
	uint32_t tx = 0;          // packets transmitted so far (READ/atomic: 1)
	uint64_t read_done = 0;   // READ: response bytes placed
	bool done = false;        // response or acknowledgement complete
	int error = 0;            // CQE syndrome if it failed

	// Back to a default SendWr, keeping the lists' allocations (a slot
	// of Requester::wrs reused).
	void reset()
	{
		std::vector<Sge> s = std::move(sgl);
		std::vector<uint8_t> d = std::move(inline_data), u = std::move(umr);
		*this = SendWr{};
		s.clear();
		d.clear();
		u.clear();
		sgl = std::move(s);
		inline_data = std::move(d);
		umr = std::move(u);
	}
};

struct Requester {
	uint16_t sq_pi = 0; // producer (WQEBBs) from doorbells
	uint16_t sq_ci = 0; // next WQEBB to take
	SlotRing<SendWr> wrs; // taken, not completed, in order
	uint32_t next_psn = 0;
	uint32_t una = 0;       // oldest PSN not yet acknowledged
	bool tx_kick = false;   // UC: a task to send the next burst is queued
	unsigned rd_atomic_outstanding = 0;
	uint8_t retry_left = 0, rnr_left = 0;
	// Retransmission timer: `timer_due` is when it expires (zero: not
	// running); `timer` the engine timer that looks at it (id, 0 = none),
	// due at `timer_fires`. Progress moves the deadline, not the engine
	// timer: one engine timer per timeout period, not one set and
	// cancelled per acknowledgment (exec/requester.cc, rc_arm_timer).
	std::chrono::steady_clock::time_point timer_due{}, timer_fires{};
	uint64_t timer = 0;
	uint64_t rnr_timer = 0; // RNR wait timer
	bool rnr_wait = false;
	bool stalled = false;   // waiting on a fence or the read/atomic limit
	uint32_t rnr_psn = 0;   // where to resume after an RNR wait
};

// A receive WQE the responder took (RQ or SRQ).
struct RecvWqe {
	bool valid = false;
	uint16_t counter = 0; // RQ counter or SRQ WQE index (CQE wqe_counter)
	bool from_srq = false;
	uint32_t srqn = 0;    // the SRQ it came from
	std::vector<Sge> sgl;
	uint64_t capacity = 0;
};

// An RDMA READ being answered: its response packets go out a burst per
// engine task, in order with the responder's other responses.
struct ReadJob {
	uint32_t first_psn = 0; // the request's PSN
	uint32_t k = 0, npkt = 1; // next response packet, packets in all
	uint64_t va = 0;
	uint32_t rkey = 0, len = 0, msn = 0;
	uint16_t dlid = 0;
	uint32_t dqpn = 0;
	// Responses carry bytes read now rather than a reference into this
	// HCA's memory (a READ asked again): a region that cannot be read
	// fails here, as a remote access NAK, not as a lost packet.
	bool bytes = false;
};

// What the responder sends, in PSN order: a READ being answered, or a
// packet (ACK, NAK, atomic ACK) waiting behind one.
struct Response {
	bool is_read = false;
	bool rd_slot = false; // a READ or atomic: counts against the QP's rra
	ReadJob read;
	Packet pkt;
};

struct Responder {
	uint32_t epsn = 0;
	uint32_t msn = 0;
	bool nak_seq_sent = false;
	uint16_t rq_ci = 0; // RQ consumer counter
	// A multi-packet message in progress.
	// 0, 's' (SEND), 'w' (WRITE) or, on UC, 'd' (dropping the rest of a
	// message until the next first packet).
	uint8_t in_progress = 0;
	RecvWqe recv;
	uint64_t recv_off = 0;
	uint32_t write_rkey = 0;
	uint64_t write_va = 0;
	uint64_t write_len = 0, write_done = 0;
	// Results of executed atomics by PSN, replayed for duplicates.
	std::map<uint32_t, uint64_t> atomic_replay;
	bool comm_est = false;
	// XRC target: the XRC SRQ the request being handled names (XRCETH).
	uint32_t xrc_srqn = 0;
	// Responses not sent yet (only while a READ is being answered):
	// at most 2^log_rra_max READs/atomics, ACKs merged.
	SlotRing<Response> responses;
	unsigned rd_queued = 0;
	bool resp_kick = false; // a task to send the next burst is queued
	// A plain ACK held until the fabric's delivery burst ends
	// (DataPath::burst_end): the later ACKs of the burst replace it
	// (ACKs are cumulative), anything else this QP answers goes after it.
	Packet held_ack;
	bool ack_held = false;
	// ODP (exec/odp.cc): the one page fault this responder raised and
	// software has not resumed yet; its requests get RNR NAKs meanwhile.
	// `fault_failed`: resumed with an error, the retried request gets a
	// remote access error.
	bool fault_pending = false;
	bool fault_failed = false;
	uint8_t fault_type = 0;
};

struct QpCounters {
	uint64_t sq_wqes = 0, tx_packets = 0, tx_bytes = 0;
	uint64_t rx_packets = 0, rx_bytes = 0, recv_wqes = 0;
	uint64_t retransmits = 0, timeouts = 0, rnr_naks_sent = 0, rnr_naks_rcvd = 0;
	uint64_t seq_naks = 0, duplicates = 0, errors = 0, flushed = 0;
	uint64_t qkey_violations = 0, cqes = 0, doorbells = 0, bad_wqes = 0;
	uint64_t rx_write_requests = 0, rx_read_requests = 0, rx_atomic_requests = 0, out_of_buffer = 0;
	uint64_t uc_dropped_msgs = 0; // UC messages the responder dropped (PSN gap, no WQE, errors)
	uint64_t xrc_bad_srq = 0;     // XRC requests naming no XRC SRQ of the target's domain

	QpCounters &operator+=(const QpCounters &o);
};

// DC (exec/dc.cc). A DCT is a Qp numbered from the QPN space (packets
// reach it by number) with `target`; each initiator (SLID, DCI) it hears
// from gets a connection: a hidden RC responder Qp with `conn_of` = the
// DCT. A DCI keeps the destination its outstanding WQEs go to.
struct DcState {
	bool target = false;
	uint8_t dct_state = 0; // prm::dct_state
	uint64_t key = 0;      // DCT: the access key
	bool armed = false;    // DCT: the next key violation raises its event
	uint32_t key_violations = 0;
	std::map<std::pair<uint16_t, uint32_t>, uint32_t> conns; // DCT: (SLID, DCI QPN) -> connection
	uint32_t conn_of = 0;     // connection: its DCT
	// DCI: the generation of its current connection (a new one per
	// destination, never reused by the function); connection: the one
	// it serves.
	uint32_t gen = 0;
	bool dest_set = false;    // DCI: a destination is current
	uint32_t dest_dct = 0;
	uint16_t dest_dlid = 0;
	uint64_t dest_key = 0;
};

struct Qp {
	uint32_t qpn = 0;
	uint16_t uid = 0; // the user context that created it (0: the kernel, privileged)
	bool rlky = false; // qpc.rlky: its SGEs may name the reserved lkey (MkeyTable::kReservedLkey)
	uint8_t state = 0; // prm::qp_state
	QpConfig cfg;
	Requester req;
	Responder resp;
	QpCounters ctr;
	uint64_t flush_timer = 0;
	bool catas_pending = false; // a CQ in error refused a CQE (exec/cqe.cc)
	DcState dc;

	// Back to the state right after CREATE_QP (2RST).
	void reset_runtime();
};

const char *qp_state_name(uint8_t state);
const char *qp_type_name(uint8_t st);

} // namespace mlx5emu
