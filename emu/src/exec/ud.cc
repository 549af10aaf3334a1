// SPDX-License-Identifier: GPL-2.0
// Unreliable datagram (UD, QP0, QP1): sending with the WQE's address
// vector (one packet, at most the path MTU, a GRH when the vector asks
// for one), and receiving into a receive WQE: the GRH (when the packet has
// one) in the first 40 bytes, the payload after them, with the Q_Key check.
#include <cstring>

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
constexpr uint32_t kGrhBytes = Grh::kBytes;
constexpr uint32_t kGrhCqeFlag = 1u << 28; // CQE flags_rqpn[29:28]: a GRH is in the buffer
constexpr uint32_t kQkeyUseQp = 0x80000000u; // high bit: use the QP's Q_Key
constexpr uint32_t kGsiQkey = 0x80010000u;   // QP1's: the GSI's well-known Q_Key

uint32_t source_qpn(const Qp &qp)
{
	if (qp.cfg.st == prm::qp_st::QP1)
		return 1;
	if (qp.cfg.st == prm::qp_st::QP0)
		return 0;
	return qp.qpn;
}

// GRH PayLen of a UD packet: BTH, DETH, ImmDt, payload and pad, ICRC.
uint16_t ud_paylen(const Packet &p)
{
	size_t n = 12 + 8 + (p.opcode == ibop::UD_SEND_ONLY_IMM ? 4 : 0) + ((p.payload.size() + 3) & ~size_t{3}) + 4;
	return static_cast<uint16_t>(n);
}
} // namespace

void RdmaRequester::ud_send(Qp &qp)
{
	SendWr wr;
	DataPath::UdAddress av;
	uint8_t s;
	while (qp.state == prm::qp_state::RTS && dp_.take_send_wqe(qp, &wr, &av, &s)) {
		if (!s)
			s = dp_.check_local_sgl(qp, wr);
		// A function without the SMI (a VF) may have a QP0, but nothing
		// it posts there reaches VL15: a local QP operation error.
		if (!s && qp.cfg.st == prm::qp_st::QP0 && !dp_.cfg_.smi) {
			++dp_.c_.smi_refused;
			s = syn::LOCAL_QP_OP;
		}
		if (!s && wr.length > prm::mtu_bytes(dp_.cfg_.port_mtu))
			s = syn::LOCAL_LENGTH;
		Packet p;
		if (!s && wr.opcode != w::OP_NOP) {
			p.dlid = av.dlid;
			// Directed-route SMPs carry the permissive LID both ways
			// (IBA 14.2.2): the answer comes back across the same link.
			p.slid = p.dlid == mad::kPermissiveLid && qp.cfg.st == prm::qp_st::QP0 ? mad::kPermissiveLid : dp_.lid_;
			p.sl = av.sl;
			// QP0 sends on VL15; any other QP on a data VL, even to
			// QPN 0: the packet leaves and completes, and the
			// receiver's SMI drops it (fabric/packet.h).
			p.vl = qp.cfg.st == prm::qp_st::QP0 ? kVl15 : 0;
			p.opcode = wr.opcode == w::OP_SEND_IMM ? ibop::UD_SEND_ONLY_IMM : ibop::UD_SEND_ONLY;
			p.dqpn = av.dqpn;
			p.sqpn = source_qpn(qp);
			p.qkey = (av.qkey & kQkeyUseQp) ? qp.cfg.qkey : av.qkey;
			p.solicited = wr.solicited;
			p.imm = wr.imm;
			p.grh = av.grh;
			if (p.grh.present)
				p.grh.sgid = dp_.eth_path_.source_gid(av.roce.sgid_index);
			if (dp_.cfg_.eth) {
				p.roce = av.roce;
				p.dlid = 0;
			}
			p.payload.resize(static_cast<size_t>(wr.length));
			if (wr.length && !dp_.gather(qp, wr, 0, p.payload.data(), p.payload.size()))
				s = syn::LOCAL_PROT;
		}
		if (s) {
			++qp.ctr.errors;
			dp_.completer_.complete_send_error(qp, wr, s);
			dp_.completer_.enter_sq_error(qp);
			return;
		}
		bool mcast = dp_.cfg_.eth ? p.grh.present && p.grh.dgid[0] == 0xff : is_multicast_lid(p.dlid);
		if (wr.opcode != w::OP_NOP && mcast)
			multicast_send(qp, std::move(p));
		else if (wr.opcode != w::OP_NOP)
			dp_.transmit(qp, std::move(p));
		dp_.completer_.complete_send(qp, wr, static_cast<uint32_t>(wr.length));
	}
}

void RdmaResponder::ud_receive(Qp &qp, const Packet &p)
{
	namespace qs = prm::qp_state;
	if (qp.state != qs::RTR && qp.state != qs::RTS && qp.state != qs::SQD && qp.state != qs::SQER) {
		++dp_.c_.dropped_packets;
		return;
	}
	// QP0 checks no Q_Key; QP1 takes the GSI's well-known one only,
	// whatever its context says; UD QPs their own.
	uint32_t qkey = qp.cfg.st == prm::qp_st::QP1 ? kGsiQkey : qp.cfg.qkey;
	if (qp.cfg.st != prm::qp_st::QP0 && p.qkey != qkey) {
		++qp.ctr.qkey_violations;
		return;
	}
	RecvWqe rw;
	if (!take_recv_wqe(qp, &rw)) {
		++qp.ctr.out_of_buffer;
		return;
	}
	CqeInfo ci = dp_.completer_.resp_cqe(qp, rw);
	Scatter s = rw.capacity < kGrhBytes ? Scatter::Length : Scatter::Ok;
	if (s == Scatter::Ok && p.grh.present) {
		uint8_t grh[kGrhBytes] = {};
		if (dp_.cfg_.eth && p.roce.l3 == roce::CQE_IPV4) {
			// RoCEv2 over IPv4: the IPv4 header in the last 20 bytes.
			std::memcpy(grh + kGrhBytes - p.roce.ipv4.size(), p.roce.ipv4.data(), p.roce.ipv4.size());
		} else {
			bool v2 = dp_.cfg_.eth && p.roce.l3 == roce::CQE_IPV6;
			p.grh.encode(static_cast<uint16_t>(ud_paylen(p) + (v2 ? 8 : 0)), grh);
			if (v2)
				grh[6] = 17; // UDP
		}
		s = scatter(qp, rw, 0, grh, kGrhBytes);
	}
	if (s == Scatter::Ok && !p.payload.empty())
		s = scatter(qp, rw, kGrhBytes, p.payload.data(), p.payload.size());
	if (s != Scatter::Ok) {
		ci.opcode = prm::cqe_opcode::RESP_ERR;
		ci.syndrome = s == Scatter::Length ? syn::LOCAL_LENGTH : syn::LOCAL_PROT;
		++qp.ctr.errors;
		++qp.ctr.cqes;
		dp_.completer_.complete(qp.cfg.cqn_rcv, ci, true);
		return;
	}
	ci.opcode = p.opcode == ibop::UD_SEND_ONLY_IMM ? prm::cqe_opcode::RESP_SEND_IMM : prm::cqe_opcode::RESP_SEND;
	if (p.opcode == ibop::UD_SEND_ONLY_IMM) {
		ci.imm = p.imm;
		ci.has_imm = true;
	} else if (qp.cfg.st == prm::qp_st::QP1) {
		uint8_t be[4];
		bits::store_be32(be, p.pkey);
		std::memcpy(&ci.imm, be, 4);
		ci.has_imm = true;
	}
	ci.byte_cnt = static_cast<uint32_t>(p.payload.size() + kGrhBytes);
	ci.flags_rqpn = (p.grh.present ? kGrhCqeFlag : 0) | (p.sqpn & 0xffffff);
	if (dp_.cfg_.eth) {
		// The network header type where IB has the SL; the VLAN.
		ci.flags_rqpn |= static_cast<uint32_t>(p.roce.l3 & 3) << 24;
		ci.l4_l3_hdr_type = p.roce.vlan ? 1 : 0;
		ci.vlan_info = p.roce.vlan ? p.roce.vlan_tci : 0;
	} else {
		ci.flags_rqpn |= static_cast<uint32_t>(p.sl & 0xf) << 24;
		ci.slid = p.slid;
	}
	++qp.ctr.cqes;
	dp_.completer_.complete(qp.cfg.cqn_rcv, ci, p.solicited);
}

} // namespace mlx5emu
