// SPDX-License-Identifier: GPL-2.0
// RdmaResponder, the responder role of a DataPath: the receive side. Receive
// WQEs (recv_wqe.cc), RC requests and their ACKs / NAKs (responder.cc), READ
// responses in PSN order (responses.cc), ODP page faults (odp.cc), UC
// (uc.cc), XRC targets (xrc.cc), UD receives (ud.cc) and multicast copies
// (multicast.cc).
//
// Engine thread, the engine's state lock held (see datapath.h).
#pragma once

#include <cstdint>

#include "fabric/packet.h"
#include "queues/resources.h"

namespace mlx5emu {

class DataPath;
struct CqeInfo;

class RdmaResponder {
public:
	explicit RdmaResponder(DataPath &dp) : dp_(dp) {}
	RdmaResponder(const RdmaResponder &) = delete;
	RdmaResponder &operator=(const RdmaResponder &) = delete;

	// responder.cc: an RC (or XRC) request to `qp`.
	void rc_request(Qp &qp, const Packet &p);
	// responder.cc: a burst of RC WRITE packets taken whole (one key
	// check, one copy, one ACK); false, with nothing changed, when any of
	// its packets would not simply be accepted: the caller then delivers
	// them one by one.
	bool rc_burst(Qp &qp, const Packet &p);
	// uc.cc
	void uc_request(Qp &qp, const Packet &p);
	// xrc.cc: XRC packets reach the RC requester (initiator) and
	// responder (target); receives go to the XRC SRQ the request names.
	void xrc_receive(Qp &qp, const Packet &p);
	// ud.cc
	void ud_receive(Qp &qp, const Packet &p);
	// multicast.cc: a copy for every QP attached to the packet's group
	// (not `sender`, a QP of this function that sent it).
	void multicast_receive(const Packet &p, const Qp *sender);
	// recv_wqe.cc: flush the receive WQEs of a QP in error.
	void flush_rq(Qp &qp);
	// odp.cc: PAGE_FAULT_RESUME (see DataPath::page_fault_resume).
	bool page_fault_resume(uint32_t token, uint32_t wq, uint8_t type, bool error);

private:
	// recv_wqe.cc
	bool take_recv_wqe(Qp &qp, RecvWqe *out);
	// Lost: the sender's memory could not be read (the packet is dropped).
	enum class Scatter { Ok, Length, Protection, Lost };
	Scatter scatter(const Qp &qp, const RecvWqe &r, uint64_t off, const uint8_t *src, size_t len);
	Scatter scatter(const Qp &qp, const RecvWqe &r, uint64_t off, const Packet &p);
	uint16_t rq_producer(const Qp &qp);

	// responder.cc
	bool responder_accepts(Qp &qp);
	void no_recv_wqe(Qp &qp, const Packet &p);
	// RNR NAK for `p`: the requester sends it again after the timer.
	void rnr_nak(Qp &qp, const Packet &p);
	void complete_recv(Qp &qp, const Packet &p, CqeInfo &ci, uint64_t byte_cnt);
	void rc_duplicate(Qp &qp, const Packet &p);
	void rc_send_request(Qp &qp, const Packet &p);
	void rc_write_request(Qp &qp, const Packet &p);
	bool rc_send_burst(Qp &qp, const Packet &p); // rc_burst's SEND half
	void rc_read_request(Qp &qp, const Packet &p, bool duplicate);
	void rc_atomic_request(Qp &qp, const Packet &p, bool duplicate);
	void send_ack(Qp &qp, const Packet &req, uint8_t syndrome, uint32_t psn);
	void responder_error(Qp &qp, const Packet &req, uint8_t nak_code, uint8_t cqe_syndrome, bool consume_recv);
	bool check_rkey(Qp &qp, uint32_t rkey, uint64_t va, uint64_t len, unsigned need, const Mkey **out);

	// responses.cc: responses in PSN order, READs a burst per task.
	void respond(Qp &qp, Packet p, bool rd_slot);
	// A plain ACK (`syndrome` an ACK) to `dlid`/`dqpn` that respond()
	// would merge into the one `qp` holds for the delivery burst: the
	// held one takes its PSN, MSN and syndrome in place (no Packet built).
	bool merge_into_held_ack(Qp &qp, uint16_t dlid, uint32_t dqpn, uint8_t syndrome, uint32_t psn);
	bool respond_read(Qp &qp, const ReadJob &job);
	void responses_pump(Qp &qp);
	void responses_kick(Qp &qp);
public:
	// The ACK `qp` holds for the delivery burst goes out now.
	void send_held_ack(Qp &qp);
private:
	unsigned max_rd_queued(const Qp &qp) const;

	// odp.cc: true when request `p` must wait for a page fault (raised
	// now or still pending: RNR NAK sent) or failed on one (remote access
	// error sent), given the `len` bytes at `va` of `rkey` it touches
	// next (`op_len`: the rest of the message, `need`: the access).
	bool odp_hold(Qp &qp, const Packet &p, uint32_t rkey, uint64_t va, uint64_t len, uint64_t op_len,
		      unsigned need, bool consume_recv);

	// uc.cc
	void uc_drop_message(Qp &qp);

	// xrc.cc
	bool xrc_target_srq(Qp &qp);
	uint32_t recv_srqn(const Qp &qp) const;
	uint32_t resp_pd(const Qp &qp) const;
	uint32_t recv_cqn(const Qp &qp, const RecvWqe &rw) const;

	DataPath &dp_;
};

} // namespace mlx5emu
