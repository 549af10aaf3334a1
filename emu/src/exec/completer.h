// SPDX-License-Identifier: GPL-2.0
// Completer, the completion role of a DataPath: CQE contents and their write
// into a CQ (cqe.cc), completion events and their moderation
// (cq_moderation.cc), the error state and the flush of outstanding WQEs
// (flush.cc). The requester, responder and Ethernet path complete their work
// through it.
//
// Engine thread, the engine's state lock held (see datapath.h).
#pragma once

#include <cstdint>

#include "queues/resources.h"

namespace mlx5emu {

class DataPath;

// What a CQE says (cqe.cc builds the 64 bytes).
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

class Completer {
public:
	explicit Completer(DataPath &dp) : dp_(dp) {}
	Completer(const Completer &) = delete;
	Completer &operator=(const Completer &) = delete;

	// cqe.cc
	static void build_cqe(const CqeInfo &info, uint8_t *out64);
	// Writes a CQE to `cqn` and posts the completion / overrun events.
	bool complete(uint32_t cqn, const CqeInfo &info, bool solicited);
	// Writes a built 64-byte CQE to `cqn`: overrun and completion events;
	// `qpn` is the queue that gets the error when the CQ refuses it.
	bool push_cqe(uint32_t cqn, const uint8_t *cqe, bool solicited, uint32_t qpn);
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

	// cq_moderation.cc: the completion event of `cq` (EQE, counted, its
	// time kept), and the moderation period held back by Cq::push.
	void comp_event(Cq &cq);
	void moderation_start(Cq &cq);
	void moderation_timeout(uint32_t cqn, uint64_t id);

	// flush.cc: the error state of a QP (every outstanding WQE flushed,
	// the RQ polled for more), of a UD SQ, the flush of an SQ.
	void enter_error(Qp &qp);
	void enter_sq_error(Qp &qp);
	void flush_sq(Qp &qp);
	void flush_poll(uint32_t qpn, uint64_t id);

private:
	// cqe.cc
	// QP `qpn` could not post a CQE to a CQ in error: WQ_CATAS_ERROR event
	// and the error state (on a later engine task).
	void cq_error_fatal(uint32_t qpn);
	// The srqn/user-index field of a CQE for `qp` (and the SRQ it used).
	uint32_t cqe_srqn_uidx(const Qp &qp, const Srq *srq) const;

	// cq_moderation.cc
	uint64_t now_us() const;

	// flush.cc
	void flush_wr(Qp &qp, const SendWr &wr, uint8_t syndrome);

	DataPath &dp_;
};

} // namespace mlx5emu
