// SPDX-License-Identifier: GPL-2.0
// UD multicast: a send to a multicast LID goes to the fabric (which
// forwards it to every other port) and, by the loopback rules, to the
// sender's own attached QPs; each HCA hands a copy to every UD QP
// attached to the packet's DGID (the MGID).
//
// Loopback (sender's own HCA): every attached QP gets a copy, except the
// sending QP when its context sets block_lb_mc, and none at all when the
// NIC vport context sets disable_mc_local_lb.
#include "exec/datapath.h"

namespace mlx5emu {

void RdmaRequester::multicast_send(Qp &qp, Packet p)
{
	dp_.responder_.multicast_receive(p, &qp);
	dp_.transmit(qp, std::move(p));
}

void RdmaResponder::multicast_receive(const Packet &p, const Qp *sender)
{
	++dp_.c_.mcast_packets;
	if (!p.grh.present) {
		++dp_.c_.mcast_no_grh; // no MGID to match
		return;
	}
	const std::vector<uint32_t> *m = dp_.res_.mcgs.members(p.grh.dgid);
	if (!m) {
		++dp_.c_.mcast_no_group;
		return;
	}
	if (sender && dp_.mc_local_lb_disabled_) {
		dp_.c_.mcast_lb_blocked += m->size();
		return;
	}
	// ud_receive never changes the membership: the list stays valid.
	for (uint32_t qpn : *m) {
		Qp *qp = dp_.res_.qp(qpn);
		if (!qp || !qp->cfg.is_ud())
			continue;
		if (qp == sender && qp->cfg.block_lb_mc) {
			++dp_.c_.mcast_lb_blocked;
			continue;
		}
		++dp_.c_.mcast_copies;
		++qp->ctr.rx_packets;
		qp->ctr.rx_bytes += p.payload_len();
		ud_receive(*qp, p);
	}
}

} // namespace mlx5emu
