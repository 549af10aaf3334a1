// SPDX-License-Identifier: GPL-2.0
// XRC (IBA 14.2): an initiator QP sends with the RC requester, each
// request carrying the XRC SRQ number its WQE's XRC segment names
// (XRCETH); a target QP (no send queue, created in an XRC domain) answers
// with the RC responder. A message is received into the XRC SRQ of the
// packet, which must belong to the target's domain; its completion goes
// to that SRQ's CQ, and memory is checked against the SRQ's PD. On the
// wire every packet of an XRC QP carries the XRC opcode (0xa0 | the RC
// opcode): transmit() adds the bits, xrc_receive() takes them off.
#include "exec/datapath.h"

namespace mlx5emu {

namespace {

// No PD is this number (24-bit PD numbers): an XRC request naming no
// XRC SRQ matches no memory key.
constexpr uint32_t kNoPd = 0xffffffffu;

} // namespace

void RdmaResponder::xrc_receive(Qp &qp, const Packet &in)
{
	if (!is_xrc_op(in.opcode)) {
		++dp_.c_.dropped_packets;
		return;
	}
	Packet p = in;
	p.opcode = static_cast<uint8_t>(in.opcode & ~ibop::XRC_BASE);
	// Responses reach initiators only, requests targets only.
	if (is_rc_response(p.opcode) == qp.cfg.is_xrc_tgt()) {
		++dp_.c_.dropped_packets;
		return;
	}
	if (!qp.cfg.is_xrc_tgt())
		return dp_.requester_.rc_response(qp, p);
	qp.resp.xrc_srqn = p.xrc_srqn;
	rc_request(qp, p);
}

// The request in sequence names an XRC SRQ of the target's XRC domain.
bool RdmaResponder::xrc_target_srq(Qp &qp)
{
	const Srq *s = dp_.res_.srq(qp.resp.xrc_srqn);
	if (s && s->cfg.kind == SrqConfig::Kind::XrcSrq && s->cfg.xrcd == qp.cfg.xrcd)
		return true;
	++qp.ctr.xrc_bad_srq;
	return false;
}

uint32_t RdmaResponder::recv_srqn(const Qp &qp) const { return qp.cfg.is_xrc_tgt() ? qp.resp.xrc_srqn : qp.cfg.srqn; }

uint32_t RdmaResponder::resp_pd(const Qp &qp) const
{
	if (!qp.cfg.is_xrc_tgt())
		return qp.cfg.pd;
	const Srq *s = dp_.res_.srq(qp.resp.xrc_srqn);
	return s && s->cfg.kind == SrqConfig::Kind::XrcSrq ? s->cfg.pd : kNoPd;
}

uint32_t RdmaResponder::recv_cqn(const Qp &qp, const RecvWqe &rw) const
{
	if (rw.from_srq)
		if (const Srq *s = dp_.res_.srq(rw.srqn); s && s->cfg.kind == SrqConfig::Kind::XrcSrq)
			return s->cfg.cqn;
	return qp.cfg.cqn_rcv;
}

} // namespace mlx5emu
