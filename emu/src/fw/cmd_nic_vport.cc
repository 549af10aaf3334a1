// SPDX-License-Identifier: GPL-2.0
// The NIC vport: QUERY/MODIFY_NIC_VPORT_CONTEXT (permanent MAC, MTU,
// promiscuous modes, address lists, RoCE enable, local loopback),
// MODIFY_VPORT_STATE and QUERY_VPORT_COUNTER (Ethernet and InfiniBand
// traffic counters, a VF's through its manager). On an InfiniBand port the
// NIC vport context carries the GUIDs and the multicast loopback switch
// (disable_mc_local_lb, kept by the data path for UD multicast), the only
// field software may change there.
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/eth.h"

namespace mlx5emu {

namespace {

using namespace prm;
namespace nv = nic_vport;

enum Reason : uint32_t {
	kVport = 1,
	kListType = 2,
	kListSize = 3,
	kUnsupported = 4,
	kMtu = 5,
	kState = 6,
	kHostOwned = 7,
};

void put_mac(uint8_t *entry, const MacAddr &m)
{
	// mac_address_layout: 16 reserved bits, then the 48-bit address.
	std::memset(entry, 0, 2);
	std::memcpy(entry + 2, m.data(), 6);
}

MacAddr get_mac(const uint8_t *entry)
{
	MacAddr m;
	std::memcpy(m.data(), entry + 2, 6);
	return m;
}

// Up to the room in the output: the list entries of `l`.
template <typename T, typename Put> unsigned put_list(CmdCtx &c, uint8_t *ctx, const std::vector<T> &l, Put put)
{
	unsigned n = 0;
	for (; n < l.size() && nv::kQueryAt + nv::kAddressList + 8 * (n + 1) <= c.outlen; ++n)
		put(ctx + nv::kAddressList + 8 * n, l[n]);
	return n;
}

// The manager's view of VF n's NIC vport: what the VF last wrote (lists,
// promiscuous modes, MTU), what the manager set (its MAC) and armed.
void query_other_nic_vport(CmdCtx &c, uint16_t n)
{
	VportRecord r = c.fw.cfg.adapter->vport(n);
	uint8_t *ctx = c.out + nv::kQueryAt;
	bits::store_be64(ctx + nic_vport_context::kSystemImageGuid, c.fw.port().system_image_guid);
	bits::store_be64(ctx + nic_vport_context::kPortGuid, r.cur_port_guid);
	bits::store_be64(ctx + nic_vport_context::kNodeGuid, r.cur_node_guid);
	bits::set(ctx, nv::event_on_uc_address_change, !!(r.armed & vport_event::UC));
	bits::set(ctx, nv::event_on_mc_address_change, !!(r.armed & vport_event::MC));
	bits::set(ctx, nv::event_on_vlan_change, !!(r.armed & vport_event::VLAN));
	bits::set(ctx, nv::event_on_promisc_change, !!(r.armed & vport_event::PROMISC));
	bits::set(ctx, nv::event_on_mtu, !!(r.armed & vport_event::MTU));
	if (!c.fw.is_eth())
		return;
	bits::set(ctx, nv::roce_en, r.roce_en);
	bits::set(ctx, nv::mtu, r.mtu);
	bits::set(ctx, nv::promisc_uc, r.promisc_uc);
	bits::set(ctx, nv::promisc_mc, r.promisc_mc);
	bits::set(ctx, nv::promisc_all, r.promisc_all);
	uint8_t perm[8];
	put_mac(perm, r.mac);
	std::memcpy(ctx + 4 * nv::perm_mac_47_32.dw, perm, 8);
	uint32_t type = c.get(nv::query_allowed_list_type);
	bits::set(ctx, nv::allowed_list_type, type);
	unsigned cnt = 0;
	if (type == nv::LIST_UC || type == nv::LIST_MC)
		cnt = put_list(c, ctx, type == nv::LIST_UC ? r.uc_list : r.mc_list, put_mac);
	else if (type == nv::LIST_VLAN)
		cnt = put_list(c, ctx, r.vlan_list, [](uint8_t *e, uint16_t v) { bits::store_be32(e, v & 0xfff); });
	bits::set(ctx, nv::allowed_list_size, cnt);
}

void query_nic_vport_context(CmdCtx &c)
{
	int vport = target_vport(c, kVport);
	if (vport < 0)
		return;
	if (vport > 0)
		return query_other_nic_vport(c, static_cast<uint16_t>(vport));
	Firmware &fw = c.fw;
	const PortAttrs &p = fw.port();
	uint8_t *ctx = c.out + nv::kQueryAt;
	bits::store_be64(ctx + nic_vport_context::kSystemImageGuid, p.system_image_guid);
	bits::store_be64(ctx + nic_vport_context::kPortGuid, p.port_guid);
	bits::store_be64(ctx + nic_vport_context::kNodeGuid, p.node_guid);
	{
		auto lk = fw.dp().lock();
		bits::set(ctx, nv::disable_mc_local_lb, fw.dp().mc_local_lb_disabled());
	}
	if (!fw.is_eth())
		return;
	const EthPort &e = fw.eth;
	bits::set(ctx, nv::roce_en, e.roce_en);
	bits::set(ctx, nv::disable_uc_local_lb, e.disable_uc_local_lb);
	bits::set(ctx, nv::min_wqe_inline_mode, e.min_inline);
	bits::set(ctx, nv::mtu, e.vport_mtu);
	bits::set(ctx, nv::promisc_uc, e.promisc_uc);
	bits::set(ctx, nv::promisc_mc, e.promisc_mc);
	bits::set(ctx, nv::promisc_all, e.promisc_all);
	uint8_t perm[8];
	put_mac(perm, e.perm_mac);
	std::memcpy(ctx + 4 * nv::perm_mac_47_32.dw, perm, 8);

	// The address list the query asks for.
	uint32_t type = c.get(nv::query_allowed_list_type);
	bits::set(ctx, nv::allowed_list_type, type);
	unsigned n = 0;
	if (type == nv::LIST_UC || type == nv::LIST_MC) {
		const std::vector<MacAddr> &l = type == nv::LIST_UC ? e.uc_list : e.mc_list;
		for (; n < l.size() && nv::kQueryAt + nv::kAddressList + 8 * (n + 1) <= c.outlen; ++n)
			put_mac(ctx + nv::kAddressList + 8 * n, l[n]);
	} else if (type == nv::LIST_VLAN) {
		for (; n < e.vlan_list.size() && nv::kQueryAt + nv::kAddressList + 8 * (n + 1) <= c.outlen; ++n)
			bits::store_be32(ctx + nv::kAddressList + 8 * n, e.vlan_list[n] & 0xfff);
	}
	bits::set(ctx, nv::allowed_list_size, n);
}

// The address or VLAN list of a MODIFY input.
bool read_list(CmdCtx &c, const uint8_t *ctx, EthPort &e)
{
	uint32_t type = bits::get(ctx, nv::allowed_list_type);
	unsigned n = bits::get(ctx, nv::allowed_list_size);
	unsigned log_max = type == nv::LIST_UC ? c.fw.caps.gen(eth_gen_caps::log_max_current_uc_list)
			 : type == nv::LIST_MC ? c.fw.caps.gen(eth_gen_caps::log_max_current_mc_list)
					       : c.fw.caps.gen(eth_gen_caps::log_max_vlan_list);
	if (type > nv::LIST_VLAN) {
		c.fail(status::BAD_PARAM, kListType);
		return false;
	}
	if (n > (1u << log_max) || nv::kModifyAt + nv::kAddressList + 8ull * n > c.inlen) {
		c.fail(status::BAD_PARAM, kListSize);
		return false;
	}
	const uint8_t *l = ctx + nv::kAddressList;
	if (type == nv::LIST_VLAN) {
		e.vlan_list.clear();
		for (unsigned i = 0; i < n; ++i)
			e.vlan_list.push_back(static_cast<uint16_t>(bits::load_be32(l + 8 * i) & 0xfff));
		return true;
	}
	std::vector<MacAddr> &dst = type == nv::LIST_UC ? e.uc_list : e.mc_list;
	dst.clear();
	for (unsigned i = 0; i < n; ++i)
		dst.push_back(get_mac(l + 8 * i));
	return true;
}

// The manager's change of VF n's NIC vport: its permanent MAC, node and
// port GUIDs (the in-tree set_vf_mac sets the MAC and a node GUID made
// from it), and the events it arms. The VF learns them (an action on its
// engine); its lists and modes are its own.
void modify_other_nic_vport(CmdCtx &c, uint16_t n)
{
	uint32_t sel = c.get(nv::modify_field_select);
	constexpr uint32_t kManager =
		nv::SEL_PERMANENT_ADDRESS | nv::SEL_NODE_GUID | nv::SEL_PORT_GUID | nv::SEL_CHANGE_EVENT;
	if (sel & ~kManager || (!c.fw.is_eth() && sel & nv::SEL_PERMANENT_ADDRESS))
		return c.fail(status::BAD_PARAM, kUnsupported);
	const uint8_t *ctx = c.in + nv::kModifyAt;
	uint8_t raw[8];
	std::memcpy(raw, ctx + 4 * nv::perm_mac_47_32.dw, 8);
	MacAddr mac = get_mac(raw);
	uint64_t node = bits::load_be64(ctx + nic_vport_context::kNodeGuid);
	uint64_t port = bits::load_be64(ctx + nic_vport_context::kPortGuid);
	uint8_t armed = 0;
	if (bits::get(ctx, nv::arm_change_event)) {
		armed |= bits::get(ctx, nv::event_on_uc_address_change) ? vport_event::UC : 0;
		armed |= bits::get(ctx, nv::event_on_mc_address_change) ? vport_event::MC : 0;
		armed |= bits::get(ctx, nv::event_on_vlan_change) ? vport_event::VLAN : 0;
		armed |= bits::get(ctx, nv::event_on_promisc_change) ? vport_event::PROMISC : 0;
		armed |= bits::get(ctx, nv::event_on_mtu) ? vport_event::MTU : 0;
	}
	c.fw.cfg.adapter->set_vport(
		n,
		[&](VportRecord &r) {
			if (sel & nv::SEL_PERMANENT_ADDRESS)
				r.mac = mac;
			if (sel & nv::SEL_NODE_GUID)
				r.node_guid = node;
			if (sel & nv::SEL_PORT_GUID)
				r.port_guid = port;
			if (sel & nv::SEL_CHANGE_EVENT)
				r.armed = armed;
		},
		&c.fw);
}

void modify_nic_vport_context(CmdCtx &c)
{
	int vport = target_vport(c, kVport);
	if (vport < 0)
		return;
	if (vport > 0)
		return modify_other_nic_vport(c, static_cast<uint16_t>(vport));
	uint32_t sel = c.get(nv::modify_field_select);
	constexpr uint32_t kKnown = nv::SEL_ROCE_EN | nv::SEL_ADDRESSES_LIST | nv::SEL_PERMANENT_ADDRESS |
				    nv::SEL_PROMISC | nv::SEL_CHANGE_EVENT | nv::SEL_MTU | nv::SEL_MIN_INLINE |
				    nv::SEL_DISABLE_MC_LOCAL_LB | nv::SEL_DISABLE_UC_LOCAL_LB;
	if (sel & ~kKnown || (!c.fw.is_eth() && sel & ~nv::SEL_DISABLE_MC_LOCAL_LB))
		return c.fail(status::BAD_PARAM, kUnsupported); // GUIDs, affiliation; IB: all but mc loopback
	if (sel & nv::SEL_PERMANENT_ADDRESS && c.fw.cfg.is_vf()) {
		// A VF's MAC is its manager's to set (MODIFY_NIC_VPORT_CONTEXT
		// other_vport from the PF, or the host side): the VF reads it.
		++c.fw.refusals.vf_refused;
		return c.fail(status::BAD_PARAM, kHostOwned);
	}
	const uint8_t *ctx = c.in + nv::kModifyAt;
	if (sel & nv::SEL_DISABLE_MC_LOCAL_LB) {
		auto lk = c.fw.dp().lock();
		c.fw.dp().set_mc_local_lb_disabled(bits::get(ctx, nv::disable_mc_local_lb));
	}
	if (!c.fw.is_eth())
		return;
	EthPort e = c.fw.eth;
	if (sel & nv::SEL_ROCE_EN)
		e.roce_en = bits::get(ctx, nv::roce_en);
	if (sel & nv::SEL_PERMANENT_ADDRESS) {
		uint8_t raw[8];
		std::memcpy(raw, ctx + 4 * nv::perm_mac_47_32.dw, 8);
		e.perm_mac = get_mac(raw);
	}
	if (sel & nv::SEL_PROMISC) {
		e.promisc_uc = bits::get(ctx, nv::promisc_uc);
		e.promisc_mc = bits::get(ctx, nv::promisc_mc);
		e.promisc_all = bits::get(ctx, nv::promisc_all);
	}
	if (sel & nv::SEL_MTU) {
		uint32_t mtu = bits::get(ctx, nv::mtu);
		if (mtu > EthPort::kMaxMtu)
			return c.fail(status::BAD_PARAM, kMtu);
		e.vport_mtu = static_cast<uint16_t>(mtu);
	}
	if (sel & nv::SEL_MIN_INLINE)
		e.min_inline = static_cast<uint8_t>(bits::get(ctx, nv::min_wqe_inline_mode));
	if (sel & nv::SEL_DISABLE_UC_LOCAL_LB)
		e.disable_uc_local_lb = bits::get(ctx, nv::disable_uc_local_lb);
	if ((sel & nv::SEL_ADDRESSES_LIST) && !read_list(c, ctx, e))
		return;
	// SEL_CHANGE_EVENT: the vport never changes by itself (no eswitch
	// manager), so there is no event to arm.
	{
		auto lk = c.fw.dp().lock();
		c.fw.dp().set_roce(e.roce_en, e.disable_uc_local_lb);
	}
	c.fw.eth = std::move(e);
	// A VF's addresses and promiscuous modes are what its e-switch port
	// forwards to it.
	if (c.fw.eth.vport_on_eswitch && sel & (nv::SEL_ADDRESSES_LIST | nv::SEL_PROMISC))
		c.fw.vport_acl_changed();
	// Its manager reads them (and hears of a change it armed).
	c.fw.publish_vport();
}

void modify_vport_state(CmdCtx &c)
{
	int vport = target_vport(c, kVport);
	if (vport < 0)
		return;
	uint32_t admin = c.get(vport_state::modify_admin_state);
	if (admin > vport_state::FOLLOW)
		return c.fail(status::BAD_PARAM, kState);
	if (vport > 0) {
		// A VF's e-switch vport (op_mod ESW_VPORT, as the in-tree
		// set_vf_link_state sends it): the VF sees a port change.
		if (c.op_mod != vport_state::OPMOD_ESW_VPORT)
			return c.fail(status::BAD_PARAM, kState);
		c.fw.cfg.adapter->set_vport(
			static_cast<uint16_t>(vport), [admin](VportRecord &r) { r.admin = static_cast<VportAdmin>(admin); },
			&c.fw);
		return;
	}
	bool was_up = c.fw.eth.oper_up();
	c.fw.eth.vport_admin = static_cast<VportAdmin>(admin);
	c.fw.eth_port_changed(was_up);
}

void put_counter(CmdCtx &c, unsigned at, uint64_t packets, uint64_t octets)
{
	bits::store_be64(c.out + at, packets);
	bits::store_be64(c.out + at + 8, octets);
}

// An InfiniBand vport's counters: its function's port traffic (the PMA's
// count, headers included), unicast and multicast apart; zeros while no
// function is attached.
void query_ib_vport_counter(CmdCtx &c, int vport)
{
	namespace vc = vport_counter;
	DataPath::PortTraffic t{};
	auto take = [&t](const DataPath &dp) { t = dp.port_traffic(); };
	if (vport > 0) {
		c.fw.cfg.adapter->with_vport_dp(static_cast<uint16_t>(vport), take);
	} else {
		auto lk = c.fw.dp().lock();
		take(c.fw.dp());
	}
	put_counter(c, vc::kReceivedErrors, t.rcv_errors, 0);
	put_counter(c, vc::kTransmitErrors, t.xmit_discards, 0);
	put_counter(c, vc::kRxIbUnicast, t.rcv_pkts - t.rcv_mcast, t.rcv_bytes - t.rcv_mcast_bytes);
	put_counter(c, vc::kTxIbUnicast, t.xmit_pkts - t.xmit_mcast, t.xmit_bytes - t.xmit_mcast_bytes);
	put_counter(c, vc::kRxIbMulticast, t.rcv_mcast, t.rcv_mcast_bytes);
	put_counter(c, vc::kTxIbMulticast, t.xmit_mcast, t.xmit_mcast_bytes);
}

void query_vport_counter(CmdCtx &c)
{
	int vport = target_vport(c, kVport);
	if (vport < 0)
		return;
	if (!c.fw.is_eth())
		return query_ib_vport_counter(c, vport);
	namespace vc = vport_counter;
	EthCounters k{};
	if (vport > 0) {
		// A VF's (its function's data path; zeros while it has none).
		c.fw.cfg.adapter->vport_counters(static_cast<uint16_t>(vport), &k);
	} else {
		auto lk = c.fw.dp().lock();
		k = c.fw.dp().eth_counters();
	}
	put_counter(c, vc::kReceivedErrors, k.rx_errors, 0);
	put_counter(c, vc::kTransmitErrors, k.tx_errors, 0);
	put_counter(c, vc::kRxEthUnicast, k.rx[EthCounters::Ucast].packets, k.rx[EthCounters::Ucast].bytes);
	put_counter(c, vc::kRxEthMulticast, k.rx[EthCounters::Mcast].packets, k.rx[EthCounters::Mcast].bytes);
	put_counter(c, vc::kRxEthBroadcast, k.rx[EthCounters::Bcast].packets, k.rx[EthCounters::Bcast].bytes);
	put_counter(c, vc::kTxEthUnicast, k.tx[EthCounters::Ucast].packets, k.tx[EthCounters::Ucast].bytes);
	put_counter(c, vc::kTxEthMulticast, k.tx[EthCounters::Mcast].packets, k.tx[EthCounters::Mcast].bytes);
	put_counter(c, vc::kTxEthBroadcast, k.tx[EthCounters::Bcast].packets, k.tx[EthCounters::Bcast].bytes);
}

constexpr CmdSpec kCommands[] = {
	{op::QUERY_NIC_VPORT_CONTEXT, query_nic_vport_context, 16, nic_vport_context::kOutSize, Need::Initialized},
	{op::MODIFY_NIC_VPORT_CONTEXT, modify_nic_vport_context, nv::kModifyMinLen, hdr_out::kMinLen,
	 Need::Initialized},
	// The vport's admin state is its manager's to set (the e-switch, or
	// the host side of a VF), never a VF's own.
	{nic_op::MODIFY_VPORT_STATE, modify_vport_state, 16, hdr_out::kMinLen, Need::EthInitialized, Who::Manager},
	{nic_op::QUERY_VPORT_COUNTER, query_vport_counter, 32, vport_counter::kOutSize, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> nic_vport_commands() { return kCommands; }

} // namespace mlx5emu
