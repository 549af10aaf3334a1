// SPDX-License-Identifier: GPL-2.0
// Port access registers. Ethernet: PAOS (admin/oper status), PTYS (one
// 100GBASE-CR4 link mode for ethtool), PMTU (port MTU), PPCNT (802.3,
// RFC 2863 and RFC 2819 counters from the data path; the other groups the
// driver reads are zeros), PFCC (global pause and PFC settings, stored;
// the QoS registers are port_qos.cc's).
// InfiniBand, read-only (the SM and the cable set them): PTYS (4x EDR),
// PMTU (the MTU the port carries), PVLC (its data VLs); what a driver with
// ib_virt reads instead of PortInfo.
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "fw/port_regs.h"
#include "prm/prm.h"
#include "prm/eth.h"
#include "prm/qos.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kLen = 0x20,
	kPort = 0x21,
	kValue = 0x22,
	kGroup = 0x23,
	kProto = 0x24,
	kPauseAndPfc = 0x25,
};

using Reg = PortReg;

void reg_paos(Reg r)
{
	if (!r.begin(paos::local_port))
		return;
	EthPort &e = r.c.fw.eth;
	if (r.write() && r.get(paos::ase)) {
		uint32_t st = r.get(paos::admin_status);
		if (st != paos::UP && st != paos::DOWN && st != paos::DOWN_ONCE)
			return r.c.fail(status::BAD_PARAM, kValue);
		bool was_up = e.oper_up();
		e.admin_up = st == paos::UP;
		r.c.fw.eth_port_changed(was_up);
	}
	r.put(paos::ase, 0);
	r.put(paos::admin_status, e.admin_up ? paos::UP : paos::DOWN);
	r.put(paos::oper_status, e.phys_up() ? paos::UP : paos::DOWN);
}

void reg_ptys(Reg r)
{
	if (!r.begin(ptys::local_port))
		return;
	if (r.get(ptys::proto_mask) != ptys::PROTO_EN)
		return r.c.fail(status::BAD_PARAM, kProto);
	if (r.write()) {
		uint32_t admin = r.get(ptys::eth_proto_admin);
		if (admin & ~ptys::kMode100GbaseCr4 || r.get(ptys::ext_eth_proto_admin))
			return r.c.fail(status::BAD_PARAM, kValue);
	}
	const EthPort &e = r.c.fw.eth;
	std::memset(r.out() + 4, 0, r.size - 4);
	r.put(ptys::eth_proto_capability, ptys::kMode100GbaseCr4);
	r.put(ptys::eth_proto_admin, ptys::kMode100GbaseCr4);
	r.put(ptys::eth_proto_oper, e.phys_up() ? ptys::kMode100GbaseCr4 : 0);
	r.put(ptys::eth_proto_lp_advertise, e.phys_up() ? ptys::kMode100GbaseCr4 : 0);
	r.put(ptys::an_disable_admin, 0);
	r.put(ptys::connector_type, 0x7); // direct-attach copper
}

void reg_pmtu(Reg r)
{
	if (!r.begin(pmtu::local_port))
		return;
	EthPort &e = r.c.fw.eth;
	if (r.write()) {
		uint32_t mtu = r.get(pmtu::admin_mtu);
		if (mtu < 64 || mtu > EthPort::kMaxMtu)
			return r.c.fail(status::BAD_PARAM, kValue);
		bool was_up = e.oper_up();
		e.admin_mtu = static_cast<uint16_t>(mtu);
		r.c.fw.eth_port_changed(was_up);
	}
	r.put(pmtu::max_mtu, EthPort::kMaxMtu);
	r.put(pmtu::admin_mtu, e.admin_mtu);
	r.put(pmtu::oper_mtu, e.admin_mtu);
}

// A write changes global pause in a direction unless its negative mask
// (pptx_mask_n, pprx_mask_n) is set, and PFC only for the priorities of
// prio_mask_tx/rx: `ethtool -A` leaves PFC alone, `dcb pfc` writes both.
// Global pause and PFC exclude each other per direction (BAD_PARAM, the
// port unchanged).
void reg_pfcc(Reg r)
{
	if (!r.begin(pfcc::local_port))
		return;
	namespace pm = pfcc_mask;
	EthPort &e = r.c.fw.eth;
	if (r.write()) {
		bool ptx = r.get(pm::pptx_mask_n) ? e.pause_tx : r.get(pfcc::pptx) != 0;
		bool prx = r.get(pm::pprx_mask_n) ? e.pause_rx : r.get(pfcc::pprx) != 0;
		uint32_t mtx = r.get(pm::prio_mask_tx), mrx = r.get(pm::prio_mask_rx);
		auto ftx = static_cast<uint8_t>((e.pfc_tx & ~mtx) | (r.get(pfcc::pfctx) & mtx));
		auto frx = static_cast<uint8_t>((e.pfc_rx & ~mrx) | (r.get(pfcc::pfcrx) & mrx));
		if ((ptx && ftx) || (prx && frx))
			return r.c.fail(status::BAD_PARAM, kPauseAndPfc);
		e.pause_tx = ptx;
		e.pause_rx = prx;
		e.pfc_tx = ftx;
		e.pfc_rx = frx;
	}
	std::memset(r.out() + 4, 0, r.size - 4);
	r.put(pfcc::pptx, e.pause_tx);
	r.put(pfcc::pprx, e.pause_rx);
	r.put(pfcc::pfctx, e.pfc_tx);
	r.put(pfcc::pfcrx, e.pfc_rx);
}

void reg_ppcnt(Reg r)
{
	if (!r.begin(ppcnt::local_port))
		return;
	uint8_t grp = static_cast<uint8_t>(r.get(ppcnt::grp));
	uint8_t *cnt = r.out() + ppcnt::kCounters;
	std::memset(cnt, 0, r.size - ppcnt::kCounters);
	auto put = [&](unsigned i, uint64_t v) { bits::store_be64(cnt + 8 * i, v); };
	switch (grp) {
	case ppcnt::GRP_802_3:
	case ppcnt::GRP_RFC_2863:
	case ppcnt::GRP_RFC_2819:
		break;
	case ppcnt::GRP_RFC_3635:
	case ppcnt::GRP_ETH_EXTENDED:
	case ppcnt::GRP_ETH_DISCARD:
	case ppcnt::GRP_PER_PRIO:
	case ppcnt::GRP_PER_TC:
	case ppcnt::GRP_PHYSICAL_LAYER:
	case ppcnt::GRP_PHYSICAL_LAYER_STATISTICAL:
		return; // nothing of these happens on the emulated link
	default:
		return r.c.fail(status::BAD_PARAM, kGroup);
	}
	auto lk = r.c.fw.dp().lock();
	const EthCounters &k = r.c.fw.dp().eth_counters();
	using E = EthCounters;
	uint64_t tx_pk = k.tx[E::Ucast].packets + k.tx[E::Mcast].packets + k.tx[E::Bcast].packets;
	uint64_t rx_pk = k.rx[E::Ucast].packets + k.rx[E::Mcast].packets + k.rx[E::Bcast].packets;
	uint64_t tx_by = k.tx[E::Ucast].bytes + k.tx[E::Mcast].bytes + k.tx[E::Bcast].bytes;
	uint64_t rx_by = k.rx[E::Ucast].bytes + k.rx[E::Mcast].bytes + k.rx[E::Bcast].bytes;
	if (grp == ppcnt::GRP_802_3) {
		put(ppcnt::C8023_FRAMES_TX_OK, tx_pk);
		put(ppcnt::C8023_FRAMES_RX_OK, rx_pk);
		put(ppcnt::C8023_OCTETS_TX_OK, tx_by);
		put(ppcnt::C8023_OCTETS_RX_OK, rx_by);
		put(ppcnt::C8023_MCAST_TX, k.tx[E::Mcast].packets);
		put(ppcnt::C8023_BCAST_TX, k.tx[E::Bcast].packets);
		put(ppcnt::C8023_MCAST_RX, k.rx[E::Mcast].packets);
		put(ppcnt::C8023_BCAST_RX, k.rx[E::Bcast].packets);
	} else if (grp == ppcnt::GRP_RFC_2863) {
		put(ppcnt::C2863_IN_OCTETS, rx_by);
		put(ppcnt::C2863_IN_UCAST, k.rx[E::Ucast].packets);
		put(ppcnt::C2863_IN_DISCARDS, k.rx_dropped);
		put(ppcnt::C2863_OUT_OCTETS, tx_by);
		put(ppcnt::C2863_OUT_UCAST, k.tx[E::Ucast].packets);
		put(ppcnt::C2863_IN_MCAST, k.rx[E::Mcast].packets);
		put(ppcnt::C2863_IN_BCAST, k.rx[E::Bcast].packets);
		put(ppcnt::C2863_OUT_MCAST, k.tx[E::Mcast].packets);
		put(ppcnt::C2863_OUT_BCAST, k.tx[E::Bcast].packets);
	} else {
		// RFC 2819: drop events, octets, pkts, broadcast, multicast.
		put(0, k.rx_dropped);
		put(1, rx_by);
		put(2, rx_pk);
		put(3, k.rx[E::Bcast].packets);
		put(4, k.rx[E::Mcast].packets);
	}
}

// InfiniBand PTYS: link width and protocol bits, one bit each
// (width 1x/2x/4x/8x/12x from bit 0, protocol SDR..XDR from bit 0, which
// is also the ib_port_attr active_speed encoding).
constexpr uint32_t kIbWidth4x = 1u << 2;
constexpr uint32_t kIbProtoEdr = 1u << 5;

void reg_ib_ptys(Reg r)
{
	if (!r.begin(ptys::local_port))
		return;
	if (r.get(ptys::proto_mask) != ptys::PROTO_IB)
		return r.c.fail(status::BAD_PARAM, kProto);
	if (r.write())
		return r.c.fail(status::BAD_PARAM, kValue);
	bool up = r.c.fw.port().link_up;
	std::memset(r.out() + 4, 0, r.size - 4);
	r.put(ptys::ib_link_width_capability, kIbWidth4x);
	r.put(ptys::ib_proto_capability, kIbProtoEdr);
	r.put(ptys::ib_link_width_oper, up ? kIbWidth4x : 0);
	r.put(ptys::ib_proto_oper, up ? kIbProtoEdr : 0);
}

void reg_ib_pmtu(Reg r)
{
	if (!r.begin(pmtu::local_port))
		return;
	if (r.write())
		return r.c.fail(status::BAD_PARAM, kValue);
	const PortAttrs &p = r.c.fw.port();
	r.put(pmtu::max_mtu, mtu_bytes(p.mtu_cap));
	r.put(pmtu::admin_mtu, mtu_bytes(p.neighbor_mtu));
	r.put(pmtu::oper_mtu, mtu_bytes(p.neighbor_mtu));
}

void reg_ib_pvlc(Reg r)
{
	if (!r.begin(pvlc::local_port))
		return;
	if (r.write())
		return r.c.fail(status::BAD_PARAM, kValue);
	const PortAttrs &p = r.c.fw.port();
	r.put(pvlc::vl_hw_cap, p.vl_cap);
	r.put(pvlc::vl_admin, p.op_vls);
	r.put(pvlc::vl_operational, p.op_vls);
}

} // namespace

bool PortReg::begin(bits::Field local_port, bool port0)
{
	if (c.inlen < prm::access_register_in::kData + size || c.outlen < prm::access_register_in::kData + size) {
		c.fail(prm::status::BAD_INPUT_LEN, kLen);
		return false;
	}
	uint32_t port = get(local_port);
	if (port != 1 && !(port0 && port == 0)) {
		c.fail(prm::status::BAD_PARAM, kPort);
		return false;
	}
	std::memcpy(out(), in(), size);
	return true;
}

bool ib_port_register(CmdCtx &c, uint16_t id)
{
	switch (id) {
	case reg_eth::PTYS:
		reg_ib_ptys(Reg{c, ptys::kSize});
		return true;
	case reg_eth::PMTU:
		reg_ib_pmtu(Reg{c, pmtu::kSize});
		return true;
	case reg::PVLC:
		reg_ib_pvlc(Reg{c, pvlc::kSize});
		return true;
	default:
		return false;
	}
}

bool eth_port_register(CmdCtx &c, uint16_t id)
{
	switch (id) {
	case reg_eth::PAOS:
		reg_paos(Reg{c, paos::kSize});
		return true;
	case reg_eth::PTYS:
		reg_ptys(Reg{c, ptys::kSize});
		return true;
	case reg_eth::PMTU:
		reg_pmtu(Reg{c, pmtu::kSize});
		return true;
	case reg_eth::PFCC:
		reg_pfcc(Reg{c, pfcc::kSize});
		return true;
	case reg_eth::PPCNT:
		reg_ppcnt(Reg{c, ppcnt::kSize});
		return true;
	default:
		return eth_qos_register(c, id);
	}
}

} // namespace mlx5emu
