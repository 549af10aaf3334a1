// SPDX-License-Identifier: GPL-2.0
// UC responder: the RC SEND / WRITE handlers behind a PSN check without
// NAKs or duplicates. A PSN gap drops the message in progress; the
// responder resynchronises on the next first (or only) packet. Nothing is
// acknowledged, and a message without a receive WQE is dropped, not
// retried. The requester side is the RC one (requester.cc), completing a
// WQE once its packets are on the wire.
#include "exec/datapath.h"

namespace mlx5emu {

namespace {

bool starts_message(uint8_t rc_op)
{
	switch (rc_op) {
	case ibop::RC_SEND_FIRST:
	case ibop::RC_SEND_ONLY:
	case ibop::RC_SEND_ONLY_IMM:
	case ibop::RC_WRITE_FIRST:
	case ibop::RC_WRITE_ONLY:
	case ibop::RC_WRITE_ONLY_IMM:
		return true;
	default:
		return false;
	}
}

bool is_send_op(uint8_t rc_op) { return rc_op <= ibop::RC_SEND_ONLY_IMM; }

} // namespace

void RdmaResponder::uc_drop_message(Qp &qp)
{
	if (qp.resp.in_progress != 'd')
		++qp.ctr.uc_dropped_msgs;
	qp.resp.in_progress = 'd';
}

void RdmaResponder::uc_request(Qp &qp, const Packet &in)
{
	if (!responder_accepts(qp))
		return;
	Responder &r = qp.resp;
	// The RC handlers below speak RC opcodes.
	Packet p = in;
	p.opcode = static_cast<uint8_t>(in.opcode & ~ibop::UC_BASE);
	bool first = starts_message(p.opcode);
	if (p.psn != r.epsn || r.in_progress == 'd') {
		if (r.in_progress && r.in_progress != 'd')
			uc_drop_message(qp); // a packet of it was lost
		if (!first) {
			uc_drop_message(qp);
			r.epsn = psn_add(p.psn, 1);
			return;
		}
		r.in_progress = 0;
	}
	if (first && r.in_progress)
		uc_drop_message(qp); // its last packet was lost
	if (first)
		r.in_progress = 0;
	r.epsn = p.psn;
	if (is_send_op(p.opcode))
		rc_send_request(qp, p);
	else
		rc_write_request(qp, p);
	// Delivered or dropped, the next packet is expected after this one.
	r.epsn = psn_add(p.psn, 1);
}

} // namespace mlx5emu
