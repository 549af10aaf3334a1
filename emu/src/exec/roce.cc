// SPDX-License-Identifier: GPL-2.0
// RoCE on an Ethernet port: the packets the requester, responder and UD
// send path build leave as RoCE frames (exec/roce_wire.h) from the GID
// table entry their QP path or address vector names, onto the L2 switch
// beside the NIC's frames; frames to this function's MACs and GIDs come
// back into the same QP dispatch as InfiniBand packets. Frames to the
// function's own MACs (or with the address vector's force-loopback bit)
// loop back inside the HCA unless the NIC vport context disables local
// loopback (disable_uc_local_lb / disable_mc_local_lb).
#include <memory>

#include "exec/datapath.h"
#include "prm/qp.h"

namespace mlx5emu {

Gid EthPath::source_gid(uint8_t sgid_index) const
{
	return dp_.cfg_.eth ? gids_[sgid_index % kRoceGids].gid : dp_.port_gid();
}

bool EthPath::roce_own_mac(const std::array<uint8_t, 6> &mac) const
{
	for (const RoceGid &g : gids_)
		if (g.valid() && g.mac == mac)
			return true;
	return false;
}

void EthPath::roce_transmit(Packet p)
{
	const RoceGid &src = gids_[p.roce.sgid_index % kRoceGids];
	if (!eth_up_ || !roce_en_ || !src.valid()) {
		++roce_.tx_no_gid;
		return;
	}
	if (!p.roce.udp_sport)
		p.roce.udp_sport = kUdpSportMin;
	if (!p.materialize()) // a frame carries its bytes
		return;
	std::vector<uint8_t> frame = roce_encode(p, src, p.roce.dmac);
	++roce_.tx;
	bool mcast = p.roce.dmac[0] & 1;
	if (!mcast && (p.roce.force_lb || roce_own_mac(p.roce.dmac))) {
		if (uc_local_lb_disabled_ && !p.roce.force_lb) {
			++roce_.lb_blocked;
			return;
		}
		roce_loopback(frame);
		return;
	}
	// Multicast: the sender's own attached QPs got their copies
	// (multicast_send); the frame goes out for the others.
	nic_transmit(frame);
}

void EthPath::roce_loopback(const std::vector<uint8_t> &frame)
{
	if (lb_queued_ >= kLoopbackCap) {
		++roce_.lb_full;
		return;
	}
	++lb_queued_;
	++roce_.loopback;
	// On a later engine task, as a frame from the wire would come: the
	// requester's state is consistent before its packet is answered.
	auto f = std::make_shared<std::vector<uint8_t>>(frame);
	dp_.post_task([this, f] {
		--lb_queued_;
		dp_.guarded(0, [&] {
			if (!roce_receive(*f))
				++roce_.rx_no_gid;
		});
	});
}

bool EthPath::roce_receive(const std::vector<uint8_t> &frame)
{
	if (!eth_up_ || !roce_en_)
		return false; // the NIC's: a frame like any other
	Packet p;
	bool is_roce = false;
	bool ok = roce_decode(frame.data(), frame.size(), &p, &is_roce);
	if (!is_roce)
		return false;
	bool mcast = p.roce.dmac[0] & 1;
	if (!mcast && !roce_own_mac(p.roce.dmac))
		return false; // another function's (flooded): NIC steering drops it
	if (!ok) {
		++roce_.rx_bad;
		return true;
	}
	if (!mcast) {
		// The DGID must be an entry of this function for the frame's
		// version and network header.
		bool found = false;
		for (const RoceGid &g : gids_) {
			if (!g.valid() || g.gid != p.grh.dgid)
				continue;
			bool v1 = p.roce.l3 == roce::CQE_GRH;
			if (v1 ? g.version == roce::VERSION_1
			       : g.version == roce::VERSION_2 &&
					 (g.l3_type == roce::L3_IPV4) == (p.roce.l3 == roce::CQE_IPV4)) {
				found = true;
				break;
			}
		}
		if (!found) {
			++roce_.rx_no_gid;
			return true;
		}
	}
	++roce_.rx;
	int cast = mcast ? EthCounters::Mcast : EthCounters::Ucast;
	++eth_.rx[cast].packets;
	eth_.rx[cast].bytes += frame.size();
	++dp_.traffic_.rcv_pkts;
	dp_.traffic_.rcv_bytes += p.payload.size();
	if (mcast) {
		dp_.responder_.multicast_receive(p, nullptr);
		return true;
	}
	// RC/UC: the wire carries no source QP; the connection names it.
	Qp *qp = dp_.res_.qp_for_packet(p.dqpn);
	if (qp && qp->cfg.is_connected())
		p.sqpn = qp->cfg.remote_qpn;
	dp_.deliver(p);
	return true;
}

} // namespace mlx5emu
