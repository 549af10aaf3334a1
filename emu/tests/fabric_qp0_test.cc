// SPDX-License-Identifier: GPL-2.0
// QP0 traffic is VL15 traffic: only a QP0 sends on VL15 and a port's QP0
// (or the switch's SMA) takes only VL15. A UD QP that aims an SMP at QPN 0
// completes its send, and the packet is dropped at the receiver and
// counted (qp0_dropped), by LID and by the permissive LID, on an HCA and
// on the switch; QP0 to QP0 still works. QP1 takes the GSI's Q_Key only.
// A VF (no SMI) may have a QP0, but it neither sends nor receives on VL15.
#include "dp_harness.h"
#include "fabric/ib_switch.h"
#include "fabric/smp.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespSend = 2;
constexpr uint32_t kUdQkey = 0x1111;

// A LID-routed SubnGet(NodeInfo) as an SM (or an attacker) writes it.
void subn_get_node_info(FakeGuestMemory &m, uint64_t at)
{
	std::vector<uint8_t> mad(mad::kSize, 0);
	mad[0] = 1;
	mad[1] = mad::CLASS_SUBN_LID_ROUTED;
	mad[2] = 1;
	mad[3] = mad::METHOD_GET;
	bits::store_be16(&mad[mad::kAttrId], mad::ATTR_NODE_INFO);
	m.cpu_write(at, mad.data(), mad.size());
}

uint64_t qp0_dropped(DpHca &h)
{
	auto lk = h.dp().lock();
	return h.dp().qp0_dropped();
}

bool stats_say(DpHca &h, const std::string &line)
{
	auto lk = h.dp().lock();
	for (const std::string &s : h.dp().stats_lines())
		if (s == line)
			return true;
	return false;
}

// HCA a with a UD QP and a QP0, HCA b with a QP0 waiting for an SMP, back
// to back, LIDs from the internal SM.
struct Qp0Pair {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(5), bcq = b.create_cq(5);
	DpHca::Qp ud = a.create_qp(ST_UD, acq, acq), aqp0 = a.create_qp(ST_QP0, acq, acq);
	DpHca::Qp bqp0 = b.create_qp(ST_QP0, bcq, bcq);
	DpHca::Mr src = a.reg_mr(4096), dst = b.reg_mr(4096);
	Qp0Pair()
	{
		a.to_rts_ud(ud, kUdQkey);
		a.to_rts_ud(aqp0, 0);
		b.to_rts_ud(bqp0, 0);
		subn_get_node_info(a.mem(), src.addr);
		b.post_recv(bqp0, dst, 40 + mad::kSize);
	}
	DpHca::Wr smp(uint16_t dlid) const
	{
		DpHca::Wr w = DpHca::send_wr(src, mad::kSize);
		w.dlid = dlid;
		w.dqpn = 0;
		return w;
	}
};

TEST(FabricQp0, UdQpToQpnZeroCompletesAndIsDroppedAtTheReceiver)
{
	Qp0Pair p;
	p.a.post_send(p.ud, p.smp(p.b.lid()));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq) << "UD: the sender completes; the packet left on a data VL";
	EXPECT_EQ(e.qpn, p.ud.qpn);
	ASSERT_TRUE(p.b.settle());
	EXPECT_TRUE(p.b.empty(p.bcq)) << "QP0 takes VL15 only";
	EXPECT_EQ(qp0_dropped(p.b), 1u);
	EXPECT_TRUE(stats_say(p.b, "qp0_dropped 1"));
	EXPECT_EQ(qp0_dropped(p.a), 0u);
	EXPECT_EQ(p.fabric->counters().qp0_dropped, 1u);
	{
		auto lk = p.b.dp().lock();
		EXPECT_EQ(p.b.dp().res().qp(p.bqp0.qpn)->ctr.rx_packets, 0u) << "never reached the QP";
	}
	// The permissive LID (a directed-route start) from a UD QP: the same.
	p.a.post_send(p.ud, p.smp(mad::kPermissiveLid));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.b.settle());
	EXPECT_TRUE(p.b.empty(p.bcq));
	EXPECT_EQ(qp0_dropped(p.b), 2u);
	// To its own HCA's LID (loopback inside the HCA): the same.
	DpHca::Mr own = p.a.reg_mr(4096);
	p.a.post_recv(p.aqp0, own, 40 + mad::kSize);
	p.a.post_send(p.ud, p.smp(p.a.lid()));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.qpn, p.ud.qpn);
	ASSERT_TRUE(p.a.settle());
	EXPECT_TRUE(p.a.empty(p.acq)) << "its own QP0 got nothing";
	EXPECT_EQ(qp0_dropped(p.a), 1u);
}

TEST(FabricQp0, Qp0ToQp0StillWorks)
{
	Qp0Pair p;
	p.a.post_send(p.aqp0, p.smp(p.b.lid()));
	Cqe e, r;
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.qpn, p.bqp0.qpn);
	EXPECT_EQ(r.flags_rqpn & 0xffffff, 0u) << "sent from QP0";
	EXPECT_EQ(r.byte_cnt, 40u + mad::kSize);
	EXPECT_EQ(p.b.mem().bytes(p.dst.addr + 40, mad::kSize), p.a.mem().bytes(p.src.addr, mad::kSize));
	// Directed route: DLID and SLID permissive, across the link.
	p.b.post_recv(p.bqp0, p.dst, 40 + mad::kSize);
	p.a.post_send(p.aqp0, p.smp(mad::kPermissiveLid));
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.slid, mad::kPermissiveLid);
	EXPECT_EQ(qp0_dropped(p.b), 0u);
}

uint64_t smi_refused(DpHca &h)
{
	auto lk = h.dp().lock();
	return h.dp().counters().smi_refused;
}

// HCA a is a VF: its QP0 send completes with a local QP operation error
// and leaves nothing on the wire; an SMP from the PF's QP0 to the VF's LID
// reaches no QP0 there. Both counted as smi_refused.
TEST(FabricQp0, AVfsQp0NeitherSendsNorReceives)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0, false, LinkType::Ib, false, pci::FunctionRole::Vf}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(5), bcq = b.create_cq(5);
	DpHca::Qp aqp0 = a.create_qp(ST_QP0, acq, acq), bqp0 = b.create_qp(ST_QP0, bcq, bcq);
	DpHca::Mr asrc = a.reg_mr(4096), adst = a.reg_mr(4096), bsrc = b.reg_mr(4096), bdst = b.reg_mr(4096);
	a.to_rts_ud(aqp0, 0);
	b.to_rts_ud(bqp0, 0);
	subn_get_node_info(a.mem(), asrc.addr);
	subn_get_node_info(b.mem(), bsrc.addr);
	a.post_recv(aqp0, adst, 40 + mad::kSize);
	b.post_recv(bqp0, bdst, 40 + mad::kSize);

	DpHca::Wr w = DpHca::send_wr(asrc, mad::kSize);
	w.dlid = b.lid();
	w.dqpn = 0;
	a.post_send(aqp0, w);
	Cqe e;
	ASSERT_TRUE(a.poll(acq, &e));
	EXPECT_EQ(e.syndrome, 0x02) << "local QP operation error";
	ASSERT_TRUE(b.settle());
	EXPECT_TRUE(b.empty(bcq)) << "nothing reached the PF's QP0";
	EXPECT_EQ(smi_refused(a), 1u);

	DpHca::Wr v = DpHca::send_wr(bsrc, mad::kSize);
	v.dlid = a.lid();
	v.dqpn = 0;
	b.post_send(bqp0, v);
	ASSERT_TRUE(b.poll(bcq, &e));
	EXPECT_EQ(e.opcode, kReq) << "the PF's QP0 sends";
	ASSERT_TRUE(a.settle());
	EXPECT_EQ(smi_refused(a), 2u) << "the VF's QP0 took nothing";
}

TEST(FabricQp0, Vl15ReachesNoQpButQpZero)
{
	Qp0Pair p;
	DpHca::Qp bud = p.b.create_qp(ST_UD, p.bcq, p.bcq);
	p.b.to_rts_ud(bud, kUdQkey);
	p.b.post_recv(bud, p.dst, 40 + mad::kSize);
	DpHca::Wr w = p.smp(p.b.lid());
	w.dqpn = bud.qpn;
	w.qkey = kUdQkey;
	p.a.post_send(p.aqp0, w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.b.settle());
	EXPECT_TRUE(p.b.empty(p.bcq));
	EXPECT_EQ(qp0_dropped(p.b), 1u);
	// The same UD QP from a UD QP: delivered (a control).
	p.a.post_send(p.ud, w);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.qpn, bud.qpn);
}

TEST(FabricQp0, GsiTakesItsWellKnownQkeyOnly)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0), b(f, 1);
	auto acq = a.create_cq(5), bcq = b.create_cq(5);
	auto aqp = a.create_qp(ST_UD, acq, acq), bqp1 = b.create_qp(ST_QP1, bcq, bcq);
	a.to_rts_ud(aqp, kUdQkey);
	b.to_rts_ud(bqp1, 0x2222); // a context that names another Q_Key
	auto src = a.reg_mr(4096), dst = b.reg_mr(4096);
	b.post_recv(bqp1, dst, 40 + 256);
	DpHca::Wr w = DpHca::send_wr(src, 256);
	w.dlid = b.lid();
	w.dqpn = 1;
	w.qkey = 0x2222;
	a.post_send(aqp, w);
	Cqe e;
	ASSERT_TRUE(a.poll(acq, &e));
	ASSERT_TRUE(b.settle());
	EXPECT_TRUE(b.empty(bcq)) << "QP1 takes 0x80010000 only, whatever its context says";
	{
		auto lk = b.dp().lock();
		EXPECT_EQ(b.dp().res().qp(bqp1.qpn)->ctr.qkey_violations, 1u);
	}
	// A UD QP whose own Q_Key is the GSI's reaches QP1 (the kernel
	// gives that Q_Key to privileged users only).
	a.h.ok(a.modify_msg(0x505, aqp, 1u << 5).set({qpc_dw(0x2a), 31, 0}, 0x80010000u), 16);
	w.qkey = 0x80000000u; // the QP's
	a.post_send(aqp, w);
	ASSERT_TRUE(a.poll(acq, &e));
	ASSERT_TRUE(b.poll(bcq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.flags_rqpn & 0xffffff, aqp.qpn);
}

// The switch's SMA: SMPs on VL15 are answered, the same MADs on a data
// VL (a UD QP's) are dropped and counted; data to other LIDs still goes.
Packet switch_smp(uint8_t cls, uint16_t dlid, uint8_t vl)
{
	Packet p;
	p.dlid = dlid;
	p.slid = cls == mad::CLASS_SUBN_DIRECTED_ROUTE ? mad::kPermissiveLid : 1;
	p.dqpn = 0;
	p.sqpn = vl == kVl15 ? 0 : 0x99;
	p.vl = vl;
	p.opcode = ibop::UD_SEND_ONLY;
	p.payload.assign(mad::kSize, 0);
	uint8_t *m = p.payload.data();
	m[0] = 1;
	m[1] = cls;
	m[2] = 1;
	m[3] = mad::METHOD_GET;
	bits::store_be16(m + mad::kAttrId, mad::ATTR_NODE_INFO);
	if (cls == mad::CLASS_SUBN_DIRECTED_ROUTE) {
		m[mad::kHopPtr] = 1;
		m[mad::kHopCnt] = 1;
		bits::store_be16(m + mad::kDrSlid, mad::kPermissiveLid);
		bits::store_be16(m + mad::kDrDlid, mad::kPermissiveLid);
		m[mad::kInitialPath + 1] = 1;
	}
	return p;
}

TEST(FabricQp0, SwitchSmaTakesVl15Only)
{
	IbSwitch sw(3, 0x1234, true);
	for (unsigned n = 1; n <= 3; ++n)
		sw.set_link(n, true);
	sw.program_lid(1, 0, 1);
	sw.program_lid(2, 0, 2);
	IbSwitch::Out out;
	sw.receive(1, switch_smp(mad::CLASS_SUBN_DIRECTED_ROUTE, mad::kPermissiveLid, 0), &out);
	EXPECT_TRUE(out.empty()) << "a UD QP's directed-route SMP";
	EXPECT_EQ(sw.counters().qp0_dropped, 1u);
	EXPECT_EQ(sw.counters().sma_requests, 0u);
	sw.receive(1, switch_smp(mad::CLASS_SUBN_DIRECTED_ROUTE, mad::kPermissiveLid, kVl15), &out);
	ASSERT_EQ(out.size(), 1u) << "QP0's is answered";
	EXPECT_EQ(out[0].first, 1u);
	EXPECT_EQ(out[0].second.vl, kVl15);
	EXPECT_EQ(out[0].second.dqpn, 0u);
	EXPECT_EQ(out[0].second.payload[mad::kMethod], mad::METHOD_GET_RESP);
	EXPECT_EQ(sw.counters().qp0_dropped, 1u);
	// LID-routed, permissive DLID: the same rule.
	out.clear();
	sw.receive(1, switch_smp(mad::CLASS_SUBN_LID_ROUTED, mad::kPermissiveLid, 0), &out);
	EXPECT_TRUE(out.empty());
	EXPECT_EQ(sw.counters().qp0_dropped, 2u);
	sw.receive(1, switch_smp(mad::CLASS_SUBN_LID_ROUTED, mad::kPermissiveLid, kVl15), &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].second.dlid, 1u) << "back to the requester's LID";
	// A UD QP's packet to QPN 0 at an HCA's LID is data: forwarded on its
	// data VL (the HCA drops it).
	out.clear();
	sw.receive(1, switch_smp(mad::CLASS_SUBN_LID_ROUTED, 2, 0), &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].first, 2u);
	EXPECT_EQ(out[0].second.vl, 0u);
}

TEST(FabricQp0, ThroughTheSwitchAUdQpReachesNoQp0)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0), b(f, 1), c(f, 2);
	ASSERT_NE(f->ib_switch(), nullptr);
	auto acq = a.create_cq(5), ccq = c.create_cq(5);
	auto ud = a.create_qp(ST_UD, acq, acq), aqp0 = a.create_qp(ST_QP0, acq, acq);
	auto cqp0 = c.create_qp(ST_QP0, ccq, ccq);
	a.to_rts_ud(ud, kUdQkey);
	a.to_rts_ud(aqp0, 0);
	c.to_rts_ud(cqp0, 0);
	auto src = a.reg_mr(4096), dst = c.reg_mr(4096);
	subn_get_node_info(a.mem(), src.addr);
	c.post_recv(cqp0, dst, 40 + mad::kSize);
	DpHca::Wr w = DpHca::send_wr(src, mad::kSize);
	w.dlid = c.lid();
	w.dqpn = 0;
	a.post_send(ud, w);
	Cqe e;
	ASSERT_TRUE(a.poll(acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(c.settle());
	EXPECT_TRUE(c.empty(ccq));
	EXPECT_EQ(qp0_dropped(c), 1u);
	a.post_send(aqp0, w);
	ASSERT_TRUE(a.poll(acq, &e));
	ASSERT_TRUE(c.poll(ccq, &e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ(e.flags_rqpn & 0xffffff, 0u);
	EXPECT_EQ(qp0_dropped(c), 1u);
}

} // namespace
} // namespace mlx5emu::test
