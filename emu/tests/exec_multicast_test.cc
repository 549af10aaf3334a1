// SPDX-License-Identifier: GPL-2.0
// GRH on the wire (UD address vectors, RC paths, the 40 bytes a UD receive
// writes and the CQE's GRH flag) and UD multicast: ATTACH_TO_MCG /
// DETACH_FROM_MCG with their limits, forwarding by multicast LID to every
// other port, a copy for every attached QP, and the loopback rules
// (block_lb_mc, disable_mc_local_lb).
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kRespSend = 2;
constexpr uint16_t kMlid = 0xc001;
constexpr uint32_t kQkey = 0x0b1b;
constexpr uint32_t kMcastQpn = 0xffffff;

Gid gid_of(uint64_t prefix, uint64_t iid)
{
	Gid g;
	bits::store_be64(g.data(), prefix);
	bits::store_be64(g.data() + 8, iid);
	return g;
}

const Gid kMgid = gid_of(0xff12401bffff0000ull, 0xffffffffull); // IPoIB broadcast-like
const Gid kMgid2 = gid_of(0xff12401bffff0000ull, 0x1ull);

// The port GID the emulator gives HCA `h` (QUERY_HCA_VPORT_GID, index 0).
Gid port_gid(DpHca &h)
{
	auto out = h.h.ok(Msg(0x764, 0, 16), 32);
	Gid g;
	std::copy(out.begin() + 16, out.begin() + 32, g.begin());
	return g;
}

Msg mcg_msg(uint16_t opcode, uint32_t qpn, const Gid &mgid)
{
	Msg m(opcode, 0, 0x20);
	m.set({2, 23, 0}, qpn);
	std::copy(mgid.begin(), mgid.end(), m.b.begin() + 0x10);
	return m;
}
void attach(DpHca &h, const DpHca::Qp &q, const Gid &g = kMgid) { h.h.ok(mcg_msg(0x806, q.qpn, g), 16); }
void detach(DpHca &h, const DpHca::Qp &q, const Gid &g = kMgid) { h.h.ok(mcg_msg(0x807, q.qpn, g), 16); }

// A UD QP in RTS with its own CQ, a receive buffer and `n` receives posted.
struct UdEnd {
	DpHca &h;
	DpHca::Cq cq;
	DpHca::Qp qp;
	DpHca::Mr buf;
	UdEnd(DpHca &hca, unsigned n = 4, bool block_lb_mc = false)
		: h(hca), cq(h.create_cq(5)), qp(h.create_qp(ST_UD, cq, cq, 4, 4, nullptr, 0xffffff, block_lb_mc)),
		  buf(h.reg_mr(64 * 1024))
	{
		h.to_rts_ud(qp, kQkey);
		for (unsigned i = 0; i < n; ++i)
			h.post_recv(qp, buf, 4096, 4096ull * i);
	}
	uint64_t slot(unsigned i) const { return buf.addr + 4096ull * i; }
	// A receive completion (the sender's own send completion skipped).
	bool recv(Cqe *e)
	{
		for (;;) {
			if (!h.poll(cq, e))
				return false;
			if (e->opcode != 0)
				return true;
		}
	}
	// No receive completion shows up.
	bool no_recv()
	{
		Cqe e;
		while (h.poll(cq, &e, 100ms))
			if (e.opcode != 0)
				return false;
		return true;
	}
};

DpHca::Wr mcast_wr(const DpHca::Mr &src, uint32_t len, const Gid &mgid = kMgid)
{
	DpHca::Wr w = DpHca::send_wr(src, len);
	w.dlid = kMlid;
	w.dqpn = kMcastQpn;
	w.qkey = kQkey;
	w.grh = true;
	w.dgid = mgid;
	w.hop_limit = 1;
	return w;
}

// ---------------------------------------------------------------------------
// GRH

TEST(Grh, UdReceiveWritesTheGrhAndFlagsTheCqe)
{
	auto f = std::make_shared<Fabric>();
	DpHca a{f, 0}, b{f, 1};
	UdEnd s{a, 0}, r{b, 2};
	auto src = a.reg_mr(4096);
	fill(a.mem(), src.addr, 100, 9);
	// The receive buffer's GRH area starts as a pattern: no GRH leaves it.
	fill(b.mem(), r.slot(0), 40, 0x33);
	fill(b.mem(), r.slot(1), 40, 0x33);
	auto before = b.mem().bytes(r.slot(0), 40);

	DpHca::Wr w = DpHca::send_wr(src, 100);
	w.dlid = b.lid();
	w.dqpn = r.qp.qpn;
	w.qkey = kQkey;
	a.post_send(s.qp, w); // no GRH
	w.grh = true;
	w.tclass = 0xa5;
	w.flow_label = 0x12345;
	w.hop_limit = 7;
	w.dgid = port_gid(b);
	a.post_send(s.qp, w);

	Cqe e;
	ASSERT_TRUE(r.recv(&e));
	EXPECT_EQ(e.opcode, kRespSend);
	EXPECT_EQ((e.flags_rqpn >> 28) & 3, 0u) << "no GRH in the packet";
	EXPECT_EQ(e.byte_cnt, 140u);
	EXPECT_EQ(b.mem().bytes(r.slot(0), 40), before) << "the GRH area is left alone without a GRH";
	EXPECT_EQ(b.mem().bytes(r.slot(0) + 40, 100), a.mem().bytes(src.addr, 100));

	ASSERT_TRUE(r.recv(&e));
	EXPECT_EQ((e.flags_rqpn >> 28) & 3, 1u) << "GRH flag";
	EXPECT_EQ(e.flags_rqpn & 0xffffff, s.qp.qpn);
	EXPECT_EQ(e.byte_cnt, 140u);
	auto g = b.mem().bytes(r.slot(1), 40);
	EXPECT_EQ(bits::load_be32(&g[0]), 6u << 28 | 0xa5u << 20 | 0x12345u) << "IPVer 6, TClass, FlowLabel";
	EXPECT_EQ(bits::load_be16(&g[4]), 12 + 8 + 100 + 4) << "PayLen: BTH, DETH, payload, ICRC";
	EXPECT_EQ(g[6], 0x1b) << "NxtHdr: IBA transport";
	EXPECT_EQ(g[7], 7) << "HopLmt";
	Gid sgid = port_gid(a), dgid = port_gid(b);
	EXPECT_TRUE(std::equal(sgid.begin(), sgid.end(), g.begin() + 8)) << "SGID = the sender's GID[0]";
	EXPECT_TRUE(std::equal(dgid.begin(), dgid.end(), g.begin() + 24)) << "DGID from the address vector";
	EXPECT_EQ(b.mem().bytes(r.slot(1) + 40, 100), a.mem().bytes(src.addr, 100));
}

TEST(Grh, ReceiveShorterThanTheGrhIsALengthError)
{
	auto f = std::make_shared<Fabric>();
	DpHca a{f, 0}, b{f, 1};
	UdEnd s{a, 0}, r{b, 0};
	b.post_recv(r.qp, r.buf, 39);
	auto src = a.reg_mr(4096);
	DpHca::Wr w = DpHca::send_wr(src, 0);
	w.sgl.clear();
	w.dlid = b.lid();
	w.dqpn = r.qp.qpn;
	w.qkey = kQkey;
	w.grh = true;
	a.post_send(s.qp, w);
	Cqe e;
	ASSERT_TRUE(r.recv(&e));
	EXPECT_EQ(e.opcode, 14) << "responder error";
	EXPECT_EQ(e.syndrome, 0x01) << "local length";
}

// A port that keeps what reaches its LID.
struct Capture : FabricPort {
	std::vector<Packet> got;
	void receive(const Packet &p) override { got.push_back(p); }
};

TEST(Grh, RcPathWithGrhCarriesItAndStillConnects)
{
	// The packets of an RC QP whose path has a GRH carry the path's fields.
	{
		auto f = std::make_shared<Fabric>();
		DpHca a{f, 0};
		Capture cap; // HCA 1's port, LID 50
		f->attach(1, &cap);
		{
			auto lk = a.dp().lock();
			f->set_lid(&cap, 50, 0);
		}
		auto cq = a.create_cq(5);
		auto qp = a.create_qp(ST_RC, cq, cq);
		DpHca::RcParams p;
		p.dlid = 50;
		p.dqpn = 0x123;
		a.h.ok(a.modify_msg(0x502, qp).set({qpc_dw(0xf), 23, 16}, 1), 16);
		Msg m = a.modify_msg(0x503, qp);
		m.set({qpc_dw(2), 31, 29}, 5).set({qpc_dw(5), 23, 0}, p.dqpn).set({qpc_dw(7), 15, 0}, p.dlid);
		m.set({qpc_dw(7), 23, 23}, 1).set({qpc_dw(8), 7, 0}, 3).set({qpc_dw(9), 27, 20}, 0x40);
		m.set({qpc_dw(9), 19, 0}, 0xabcde);
		Gid rgid = gid_of(0xfe80000000000000ull, 0x1122334455667788ull);
		std::copy(rgid.begin(), rgid.end(), m.b.begin() + 0x18 + 0x18 + 0x10);
		a.h.ok(m, 16);
		a.h.ok(a.modify_msg(0x504, qp).set({qpc_dw(8), 31, 27}, 20).set({qpc_dw(0x1c), 18, 16}, 7), 16);
		auto src = a.reg_mr(4096);
		a.post_send(qp, DpHca::send_wr(src, 64));
		ASSERT_TRUE(a.settle());
		{
			auto lk = a.dp().lock();
			ASSERT_FALSE(cap.got.empty());
			const Grh &g = cap.got[0].grh;
			EXPECT_TRUE(g.present);
			EXPECT_EQ(g.tclass, 0x40);
			EXPECT_EQ(g.flow_label, 0xabcdeu);
			EXPECT_EQ(g.hop_limit, 3);
			EXPECT_EQ(g.dgid, rgid);
			EXPECT_EQ(g.sgid, port_gid(a));
		}
		// QUERY_QP reports the path as set.
		auto out = a.h.ok(a.modify_msg(0x50b, qp), 0x110);
		EXPECT_EQ(field(out, {qpc_dw(7), 23, 23}), 1u);
		EXPECT_EQ(field(out, {qpc_dw(9), 19, 0}), 0xabcdeu);
		EXPECT_TRUE(std::equal(rgid.begin(), rgid.end(), out.begin() + 0x18 + 0x18 + 0x10));
		a.h.ok(a.modify_msg(0x507, qp), 16); // to ERR: stop retransmitting
		ASSERT_TRUE(a.settle());
		f->detach(&cap);
	}
	// Two RC QPs with GRH paths exchange a SEND.
	auto f = std::make_shared<Fabric>();
	DpHca a{f, 0}, b{f, 1};
	auto acq = a.create_cq(5), bcq = b.create_cq(5);
	auto aqp = a.create_qp(ST_RC, acq, acq), bqp = b.create_qp(ST_RC, bcq, bcq);
	auto rts = [](DpHca &h, const DpHca::Qp &q, const DpHca &peer, const DpHca::Qp &pq, Gid dgid) {
		h.h.ok(h.modify_msg(0x502, q).set({qpc_dw(0xf), 23, 16}, 1), 16);
		Msg m = h.modify_msg(0x503, q);
		m.set({qpc_dw(2), 31, 29}, 5).set({qpc_dw(5), 23, 0}, pq.qpn).set({qpc_dw(7), 15, 0}, peer.lid());
		m.set({qpc_dw(7), 23, 23}, 1).set({qpc_dw(8), 7, 0}, 1);
		std::copy(dgid.begin(), dgid.end(), m.b.begin() + 0x18 + 0x18 + 0x10);
		h.h.ok(m, 16);
		h.h.ok(h.modify_msg(0x504, q).set({qpc_dw(8), 31, 27}, 14).set({qpc_dw(0x1c), 18, 16}, 7), 16);
	};
	rts(a, aqp, b, bqp, port_gid(b));
	rts(b, bqp, a, aqp, port_gid(a));
	auto src = a.reg_mr(4096), dst = b.reg_mr(4096);
	fill(a.mem(), src.addr, 512, 3);
	b.post_recv(bqp, dst, 4096);
	a.post_send(aqp, DpHca::send_wr(src, 512));
	Cqe e, r;
	ASSERT_TRUE(poll_both(a, acq, &e, b, bcq, &r));
	EXPECT_EQ(e.opcode, 0);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.byte_cnt, 512u) << "RC receives carry no GRH in the buffer";
	EXPECT_EQ(b.mem().bytes(dst.addr, 512), a.mem().bytes(src.addr, 512));
}

// ---------------------------------------------------------------------------
// ATTACH_TO_MCG / DETACH_FROM_MCG

TEST(Mcg, CapsAdvertiseTheLimitsAndNoEnhancedIpoib)
{
	auto f = std::make_shared<Fabric>();
	DpHca a{f, 0};
	auto out = a.h.ok(Msg(0x100, 0, 16), 4112); // general caps, maximum
	auto cap = [&](bits::Field fl) { return field(out, fl.at(0x10)); };
	EXPECT_EQ(cap({0x18, 7, 0}), McgTable::kLogMaxGroups) << "log_max_mcg";
	EXPECT_EQ(cap({0x17, 24, 0}), McgTable::kMaxQpsPerGroup) << "max_qp_mcg";
	EXPECT_EQ(cap({0x11, 23, 23}), 1u) << "block_lb_mc";
	EXPECT_EQ(cap({0x1f, 29, 29}), 1u) << "disable_local_lb_mc";
	EXPECT_EQ(cap({0x10, 28, 28}), 0u) << "ipoib_enhanced_offloads";
	EXPECT_EQ(cap({0x10, 27, 27}), 0u) << "ipoib_basic_offloads";
}

TEST(Mcg, AttachChecksTheQpAndTheGid)
{
	auto f = std::make_shared<Fabric>();
	DpHca a{f, 0};
	UdEnd u{a, 0};
	auto cq = a.create_cq(4);
	auto rc = a.create_qp(ST_RC, cq, cq);
	auto bad = [&](uint16_t op, uint32_t qpn, const Gid &g, uint8_t status, uint16_t reason) {
		auto r = a.h.exec(mcg_msg(op, qpn, g), 16);
		EXPECT_EQ(r.status, status) << std::hex << op << " qpn " << qpn;
		EXPECT_EQ(r.syndrome, static_cast<uint32_t>(op) << 16 | reason);
	};
	bad(0x806, 0x7777, kMgid, 0x03, 1);                       // no such QP
	bad(0x806, rc.qpn, kMgid, 0x03, 2);                       // not UD
	bad(0x806, u.qp.qpn, gid_of(0xfe80000000000000ull, 1), 0x03, 3); // not a multicast GID
	bad(0x807, u.qp.qpn, kMgid, 0x03, 6);                     // not attached
	attach(a, u.qp);
	attach(a, u.qp); // again: still one entry
	{
		auto lk = a.dp().lock();
		ASSERT_NE(a.dp().res().mcgs.members(kMgid), nullptr);
		EXPECT_EQ(a.dp().res().mcgs.members(kMgid)->size(), 1u);
	}
	detach(a, u.qp);
	bad(0x807, u.qp.qpn, kMgid, 0x03, 6);
	auto lk = a.dp().lock();
	EXPECT_EQ(a.dp().res().mcgs.groups(), 0u);
}

TEST(Mcg, TableAndGroupLimitsFailWithAStatus)
{
	auto f = std::make_shared<Fabric>();
	DpHca a{f, 0};
	auto cq = a.create_cq(4);
	std::vector<DpHca::Qp> qps;
	for (unsigned i = 0; i <= McgTable::kMaxQpsPerGroup; ++i)
		qps.push_back(a.create_qp(ST_UD, cq, cq, 0, 0));
	for (unsigned i = 0; i < McgTable::kMaxQpsPerGroup; ++i)
		attach(a, qps[i]);
	auto r = a.h.exec(mcg_msg(0x806, qps.back().qpn, kMgid), 16);
	EXPECT_EQ(r.status, 0x08) << "a group holds max_qp_mcg QPs";
	for (uint32_t g = 1; g < McgTable::kMaxGroups; ++g)
		attach(a, qps[0], gid_of(0xff12000000000000ull, g));
	r = a.h.exec(mcg_msg(0x806, qps[0].qpn, gid_of(0xff12000000000000ull, 1u << 20)), 16);
	EXPECT_EQ(r.status, 0x0f) << "the table holds 2^log_max_mcg groups";
	// Leaving makes room again; a destroyed QP leaves every group.
	detach(a, qps[1]);
	attach(a, qps.back());
	a.h.ok(Msg(0x501, 0, 16).set({2, 23, 0}, qps[0].qpn), 16);
	auto lk = a.dp().lock();
	EXPECT_EQ(a.dp().res().mcgs.groups(), 1u);
	EXPECT_EQ(a.dp().res().mcgs.members(kMgid)->size(), McgTable::kMaxQpsPerGroup - 1);
}

// ---------------------------------------------------------------------------
// Forwarding and delivery

struct Three {
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a{f, 0}, b{f, 1}, c{f, 2};
};

TEST(Mcast, EveryAttachedQpOnEveryPortGetsACopy)
{
	Three t;
	UdEnd s{t.a, 2}, b1{t.b}, b2{t.b}, b_out{t.b}, c1{t.c};
	attach(t.b, b1.qp);
	attach(t.b, b2.qp);
	attach(t.c, c1.qp);
	attach(t.b, b_out.qp, kMgid2); // another group
	auto src = t.a.reg_mr(4096);
	fill(t.a.mem(), src.addr, 200, 5);
	t.a.post_send(s.qp, mcast_wr(src, 200));
	Cqe e;
	ASSERT_TRUE(t.a.poll(s.cq, &e));
	EXPECT_EQ(e.opcode, 0) << "the send completes";
	for (UdEnd *r : {&b1, &b2, &c1}) {
		ASSERT_TRUE(r->recv(&e)) << "QP 0x" << std::hex << r->qp.qpn;
		EXPECT_EQ(e.byte_cnt, 240u);
		EXPECT_EQ(e.flags_rqpn & 0xffffff, s.qp.qpn);
		EXPECT_EQ((e.flags_rqpn >> 28) & 3, 1u);
		EXPECT_EQ(e.slid, t.a.lid());
		EXPECT_EQ(r->h.mem().bytes(r->slot(0) + 40, 200), t.a.mem().bytes(src.addr, 200));
		auto g = r->h.mem().bytes(r->slot(0) + 24, 16);
		EXPECT_TRUE(std::equal(kMgid.begin(), kMgid.end(), g.begin())) << "DGID = MGID";
	}
	EXPECT_TRUE(b_out.no_recv()) << "a QP of another group";
	EXPECT_TRUE(s.no_recv()) << "the sender is not attached";
	EXPECT_EQ(t.f->counters().multicast, 1u);

	// Detached: no more copies there; the others still get theirs.
	detach(t.b, b2.qp);
	t.a.post_send(s.qp, mcast_wr(src, 10));
	ASSERT_TRUE(b1.recv(&e));
	ASSERT_TRUE(c1.recv(&e));
	EXPECT_TRUE(b2.no_recv());
}

TEST(Mcast, WithoutAGrhNoQpGetsIt)
{
	Three t;
	UdEnd s{t.a, 0}, b1{t.b};
	attach(t.b, b1.qp);
	auto src = t.a.reg_mr(4096);
	DpHca::Wr w = mcast_wr(src, 8);
	w.grh = false;
	t.a.post_send(s.qp, w);
	EXPECT_TRUE(b1.no_recv());
	auto lk = t.b.dp().lock();
	EXPECT_EQ(t.b.dp().counters().mcast_no_grh, 1u);
}

TEST(Mcast, LoopbackReachesTheSendersOwnQpsUnlessBlocked)
{
	Three t;
	UdEnd s{t.a}, a2{t.a}, b1{t.b};
	UdEnd sb{t.a, 4, /*block_lb_mc=*/true};
	for (UdEnd *u : {&s, &a2, &sb})
		attach(t.a, u->qp);
	attach(t.b, b1.qp);
	auto src = t.a.reg_mr(4096);
	Cqe e;

	// A sender without block_lb_mc gets its own copy, as does the other
	// attached QP of its HCA.
	t.a.post_send(s.qp, mcast_wr(src, 16));
	ASSERT_TRUE(s.recv(&e)) << "own copy";
	EXPECT_EQ(e.flags_rqpn & 0xffffff, s.qp.qpn);
	ASSERT_TRUE(a2.recv(&e));
	ASSERT_TRUE(sb.recv(&e));
	ASSERT_TRUE(b1.recv(&e));

	// block_lb_mc: no copy for the sending QP, the others still get one.
	t.a.post_send(sb.qp, mcast_wr(src, 16));
	ASSERT_TRUE(s.recv(&e));
	ASSERT_TRUE(a2.recv(&e));
	ASSERT_TRUE(b1.recv(&e));
	EXPECT_TRUE(sb.no_recv()) << "block_lb_mc";

	// disable_mc_local_lb: none of the sender's HCA's QPs, the fabric still.
	Msg m(0x755, 0, 0x200);
	m.set({3, 31, 0}, 1u << 10).set({0x40, 2, 2}, 1);
	t.a.h.ok(m, 16);
	auto q = t.a.h.ok(Msg(0x754, 0, 16), 0x110);
	EXPECT_EQ(field(q, {0x4, 2, 2}), 1u) << "QUERY_NIC_VPORT_CONTEXT shows it";
	EXPECT_EQ(t.a.h.exec(Msg(0x755, 0, 0x200).set({3, 31, 0}, 1u << 6), 16).status, 0x03) << "mtu: not ours";
	t.a.post_send(s.qp, mcast_wr(src, 16));
	ASSERT_TRUE(b1.recv(&e));
	EXPECT_TRUE(s.no_recv());
	EXPECT_TRUE(a2.no_recv());
	EXPECT_TRUE(sb.no_recv());
}

} // namespace
} // namespace mlx5emu::test
