// SPDX-License-Identifier: GPL-2.0
// RdmaRequester, the requester role of a DataPath: the send queues. RC (and
// XRC initiator, UC) requests out, their ACKs, NAKs and READ / atomic
// responses in (requester.cc, requester_ack.cc), UD sends (ud.cc) and UD
// multicast sends (multicast.cc), the UMR QP (local_qp.cc) and UMR WQEs
// (umr.cc).
//
// Engine thread, the engine's state lock held (see datapath.h).
#pragma once

#include <cstdint>

#include "fabric/packet.h"
#include "queues/resources.h"

namespace mlx5emu {

class DataPath;

class RdmaRequester {
public:
	explicit RdmaRequester(DataPath &dp) : dp_(dp) {}
	RdmaRequester(const RdmaRequester &) = delete;
	RdmaRequester &operator=(const RdmaRequester &) = delete;

	// requester.cc: the RC send queue after a doorbell (takes the WQEs
	// posted, sends), and its timers.
	void rc_take_wqes(Qp &qp);
	void rc_timeout(uint32_t qpn, uint64_t id);
	void rc_rnr_resume(uint32_t qpn, uint64_t id);
	// Progress (or nothing left to wait for): the retransmission timer
	// stops; rc_arm_timer starts it again with a full timeout.
	void rc_timer_restart(Qp &qp) { qp.req.timer_due = {}; }
	// The QP leaves the states that send: its engine timer goes too.
	void rc_timer_stop(Qp &qp);

	// requester_ack.cc: a response (ACK, NAK, READ response, atomic ACK)
	// to this QP's requests.
	void rc_response(Qp &qp, const Packet &p);

	// ud.cc
	void ud_send(Qp &qp);

	// local_qp.cc
	void local_send(Qp &qp);

private:
	// requester.cc
	void rc_transmit(Qp &qp);
	// SEND/WRITE payloads by reference into this HCA's memory when
	// `by_ref` (first transmissions), else as bytes read now.
	void rc_send_packets(Qp &qp, SendWr &wr, uint32_t from_psn, uint32_t end, bool by_ref);
	// Whether `qp`'s WRITEs may go out as bursts (Packet::burst).
	bool burst_path(const Qp &qp) const;
	// Packets k, k + 1, .. (before `end`) of SEND or WRITE `wr` as one
	// burst by reference; how many it took (0: none, send packet k alone).
	uint32_t rc_burst(Qp &qp, SendWr &wr, const Packet &base, uint32_t k, uint32_t end);
	void rc_kick(Qp &qp);
	void rc_retransmit(Qp &qp, uint32_t from_psn);
	void rc_complete(Qp &qp);
	void rc_arm_timer(Qp &qp);

	// requester_ack.cc
	void rc_ack_upto(Qp &qp, uint32_t psn);
	void rc_nak(Qp &qp, const Packet &p);
	void rc_read_response(Qp &qp, const Packet &p);
	void rc_atomic_ack(Qp &qp, const Packet &p);
	void rc_fail_at(Qp &qp, uint32_t psn, uint8_t syndrome);

	// multicast.cc
	void multicast_send(Qp &qp, Packet p);

	// umr.cc: executes the UMR WQE `wr` of `qp`; 0 or a CQE syndrome.
	uint8_t execute_umr(Qp &qp, const SendWr &wr);
	uint8_t check_window(const Qp &qp, const Mkey &k) const;

	DataPath &dp_;
};

} // namespace mlx5emu
