// SPDX-License-Identifier: GPL-2.0
// The Ethernet side of a data path: link state, SQ/RQ state changes and
// the control-channel view. The send path is nic_send.cc, the receive path
// nic_recv.cc.
#include <cstdio>

#include "exec/datapath.h"
#include "prm/eth.h"
#include "util/fmt.h"

namespace mlx5emu {

void EthPath::set_eth_link(bool up, uint16_t hw_mtu)
{
	eth_up_ = up;
	eth_hw_mtu_ = hw_mtu;
}

void EthPath::nic_sq_state(NicSq &sq, uint8_t next)
{
	namespace ws = prm::wq_state;
	if (next == ws::RST) {
		// Back to the state of CREATE_SQ: the driver restarts its
		// counters from 0.
		sq.pi = sq.ci = 0;
	}
	uint8_t from = sq.state;
	sq.state = next;
	if (next == ws::RDY && from == ws::RDY)
		return;
	if (next == ws::RDY && sq.pi != sq.ci) {
		uint32_t n = sq.sqn;
		dp_.post_task([this, n] {
			dp_.guarded(n, [&] {
				if (NicSq *s = dp_.res_.sq(n))
					nic_run_sq(*s);
			});
		});
	}
}

void EthPath::nic_rq_state(NicRq &rq, uint8_t next)
{
	if (next == prm::wq_state::RST)
		rq.ci = rq.next = 0;
	rq.state = next;
}

std::vector<std::string> EthPath::nic_lines()
{
	auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
	std::vector<std::string> v;
	const EthCounters &k = eth_;
	v.push_back(fmt("eth link %s hw_mtu %u tx ucast %llu mcast %llu bcast %llu rx ucast %llu mcast %llu bcast %llu "
			"rx_dropped %llu rx_no_wqe %llu rx_too_long %llu tx_link_down %llu lso_segments %llu tx_errors %llu "
			"tx_spoofed %llu tx_tagged %llu rx_vlan_dropped %llu rx_unicast_filtered %llu tx_acl_dropped %llu "
			"rx_acl_dropped %llu tx_rate_waits %llu",
			eth_up_ ? "up" : "down", eth_hw_mtu_, u(k.tx[0].packets), u(k.tx[1].packets),
			u(k.tx[2].packets), u(k.rx[0].packets), u(k.rx[1].packets), u(k.rx[2].packets),
			u(k.rx_dropped), u(k.rx_no_wqe), u(k.rx_too_long), u(k.tx_link_down), u(k.lso_segments),
			u(k.tx_errors), u(k.tx_spoofed), u(k.tx_tagged), u(k.rx_vlan_dropped),
			u(k.rx_unicast_filtered), u(k.tx_acl_dropped), u(k.rx_acl_dropped), u(k.tx_rate_waits)));
	const RoceCounters &r = roce_;
	v.push_back(fmt("roce %s%s tx %llu rx %llu tx_no_gid %llu loopback %llu lb_blocked %llu lb_full %llu rx_bad %llu "
			"rx_no_gid %llu",
			roce_en_ ? "on" : "off", uc_local_lb_disabled_ ? " uc_local_lb_disabled" : "", u(r.tx), u(r.rx),
			u(r.tx_no_gid), u(r.loopback), u(r.lb_blocked), u(r.lb_full), u(r.rx_bad), u(r.rx_no_gid)));
	for (unsigned i = 0; i < kRoceGids; ++i) {
		const RoceGid &g = gids_[i];
		if (!g.valid())
			continue;
		char a[40];
		for (unsigned k = 0; k < 8; ++k)
			std::snprintf(a + 5 * k, 6, "%02x%02x%s", g.gid[2 * k], g.gid[2 * k + 1], k < 7 ? ":" : "");
		v.push_back(fmt("gid %u %s %s mac %02x:%02x:%02x:%02x:%02x:%02x vlan %d", i, a,
				g.version == roce::VERSION_1 ? "v1" : g.ipv4() ? "v2-ipv4" : "v2-ipv6", g.mac[0], g.mac[1],
				g.mac[2], g.mac[3], g.mac[4], g.mac[5], g.vlan_valid ? g.vlan_id : -1));
	}
	for (const auto &[n, sq] : dp_.res_.sqs)
		v.push_back(fmt("sq 0x%x state %u cqn 0x%x pi %u ci %u packets %llu bytes %llu errors %llu", n,
				sq->state, sq->cqn, sq->pi, sq->ci, u(sq->ctr.packets), u(sq->ctr.bytes),
				u(sq->ctr.errors)));
	for (const auto &[n, rq] : dp_.res_.rqs)
		v.push_back(fmt("rq 0x%x state %u cqn 0x%x ci %u packets %llu bytes %llu out_of_buffer %llu", n,
				rq->state, rq->cqn, rq->ci, u(rq->ctr.packets), u(rq->ctr.bytes),
				u(rq->out_of_buffer)));
	for (const std::string &s : dp_.res_.steering.describe())
		v.push_back(s);
	return v;
}

} // namespace mlx5emu
