// SPDX-License-Identifier: GPL-2.0
// RoCE: the framing (RoCEv2 over IPv4 and IPv6, RoCEv1, VLAN, the ICRC),
// the GID table commands, and RC / UD traffic between two Ethernet HCAs on
// the L2 switch and between QPs of one HCA (local loopback and its switch
// in the NIC vport context).
#include <gtest/gtest.h>

#include "eth_harness.h"
#include "exec/roce_wire.h"
#include "prm/cq.h"
#include "steer/headers.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
using Mac = std::array<uint8_t, 6>;

Gid v4_gid(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	Gid g{};
	g[10] = g[11] = 0xff;
	g[12] = a, g[13] = b, g[14] = c, g[15] = d;
	return g;
}

Gid v6_gid(uint8_t last)
{
	Gid g{};
	g[0] = 0xfd;
	g[15] = last;
	return g;
}

RoceGid entry(const Gid &gid, const Mac &mac, uint8_t version, uint8_t l3)
{
	RoceGid e;
	e.gid = gid;
	e.mac = mac;
	e.version = version;
	e.l3_type = l3;
	return e;
}

const Mac kMacA = {0x00, 0x02, 0xc9, 0x0a, 0x0a, 0x0a}, kMacB = {0x00, 0x02, 0xc9, 0x0b, 0x0b, 0x0b};

Packet write_packet(const Gid &sgid, const Gid &dgid)
{
	Packet p;
	p.opcode = ibop::RC_WRITE_ONLY;
	p.dqpn = 0x123456;
	p.psn = 0xabcdef;
	p.ack_req = true;
	p.va = 0x1122334455667788ull;
	p.rkey = 0xdeadbeef;
	p.dma_len = 5;
	p.payload = {1, 2, 3, 4, 5};
	p.grh.present = true;
	p.grh.tclass = 0x62; // DSCP 24, ECN 2
	p.grh.hop_limit = 17;
	p.grh.flow_label = 0x12345;
	p.grh.sgid = sgid;
	p.grh.dgid = dgid;
	p.roce.udp_sport = 0xc123;
	return p;
}

TEST(RoceWire, V2Ipv4FrameCarriesIpUdpAndTransportHeaders)
{
	Packet p = write_packet(v4_gid(10, 0, 0, 1), v4_gid(10, 0, 0, 2));
	std::vector<uint8_t> f = roce_encode(p, entry(p.grh.sgid, kMacA, roce::VERSION_2, roce::L3_IPV4), kMacB);
	steer::Headers h = steer::parse_headers(f.data(), f.size());
	EXPECT_EQ(0, std::memcmp(h.dmac, kMacB.data(), 6));
	EXPECT_EQ(0, std::memcmp(h.smac, kMacA.data(), 6));
	ASSERT_EQ(4, h.ip_version);
	EXPECT_TRUE(steer::ipv4_csum_ok(f.data(), f.size(), h));
	EXPECT_EQ(24, h.dscp);
	EXPECT_EQ(2, h.ecn);
	EXPECT_EQ(17, h.ttl);
	ASSERT_TRUE(h.is_udp());
	EXPECT_EQ(roce::kUdpPort, h.dport);
	EXPECT_EQ(0xc123, h.sport);
	EXPECT_EQ(10, h.dst_ip[12]);
	EXPECT_EQ(2, h.dst_ip[15]);
	// Ethernet 14 + IP 20 + UDP 8 + BTH 12 + RETH 16 + 5 bytes + 3 pad + ICRC 4.
	EXPECT_EQ(14u + 20 + 8 + 12 + 16 + 8 + 4, f.size());
	const uint8_t *bth = f.data() + 42;
	EXPECT_EQ(ibop::RC_WRITE_ONLY, bth[0]);
	EXPECT_EQ(3, (bth[1] >> 4) & 3); // pad count

	Packet q;
	bool is_roce = false;
	ASSERT_TRUE(roce_decode(f.data(), f.size(), &q, &is_roce));
	EXPECT_TRUE(is_roce);
	EXPECT_EQ(p.opcode, q.opcode);
	EXPECT_EQ(p.dqpn, q.dqpn);
	EXPECT_EQ(p.psn, q.psn);
	EXPECT_TRUE(q.ack_req);
	EXPECT_EQ(p.va, q.va);
	EXPECT_EQ(p.rkey, q.rkey);
	EXPECT_EQ(p.dma_len, q.dma_len);
	EXPECT_EQ(p.payload, q.payload);
	EXPECT_EQ(p.grh.sgid, q.grh.sgid);
	EXPECT_EQ(p.grh.dgid, q.grh.dgid);
	EXPECT_EQ(0x62, q.grh.tclass);
	EXPECT_EQ(17, q.grh.hop_limit);
	EXPECT_EQ(roce::CQE_IPV4, q.roce.l3);
	EXPECT_EQ(0x45, q.roce.ipv4[0]);
}

TEST(RoceWire, V2Ipv6UdWithImmediateAndVlan)
{
	Packet p = write_packet(v6_gid(1), v6_gid(2));
	p.opcode = ibop::UD_SEND_ONLY_IMM;
	p.qkey = 0x80010000u;
	p.sqpn = 1;
	p.imm = 0x04030201;
	p.payload.assign(256, 0x5a);
	RoceGid src = entry(p.grh.sgid, kMacA, roce::VERSION_2, roce::L3_IPV6);
	src.vlan_valid = true;
	src.vlan_id = 7;
	std::vector<uint8_t> f = roce_encode(p, src, kMacB);
	steer::Headers h = steer::parse_headers(f.data(), f.size());
	EXPECT_TRUE(h.cvlan);
	EXPECT_EQ(7, h.vlan_tci & 0xfff);
	EXPECT_EQ(6, h.ip_version);
	EXPECT_EQ(roce::kUdpPort, h.dport);
	Packet q;
	bool is_roce;
	ASSERT_TRUE(roce_decode(f.data(), f.size(), &q, &is_roce));
	EXPECT_EQ(ibop::UD_SEND_ONLY_IMM, q.opcode);
	EXPECT_EQ(0x80010000u, q.qkey);
	EXPECT_EQ(1u, q.sqpn);
	EXPECT_EQ(p.imm, q.imm);
	EXPECT_EQ(p.payload, q.payload);
	EXPECT_EQ(0x12345u, q.grh.flow_label);
	EXPECT_EQ(roce::CQE_IPV6, q.roce.l3);
	EXPECT_TRUE(q.roce.vlan);
	EXPECT_EQ(7, q.roce.vlan_tci & 0xfff);
}

TEST(RoceWire, V1FrameIsGrhAfterEthertype8915)
{
	Packet p = write_packet(v6_gid(1), v6_gid(2));
	p.opcode = ibop::RC_ACK;
	p.syndrome = aeth::ACK;
	p.msn = 77;
	// No buffer at all, as the responder's ACKs (clear() would keep one):
	// under UBSan, copying the empty payload from null failed.
	p.payload = std::vector<uint8_t>();
	std::vector<uint8_t> f = roce_encode(p, entry(p.grh.sgid, kMacA, roce::VERSION_1, 0), kMacB);
	EXPECT_EQ(0x89, f[12]);
	EXPECT_EQ(0x15, f[13]);
	EXPECT_EQ(Grh::kNextHeaderIba, f[14 + 6]);
	Packet q;
	bool is_roce;
	ASSERT_TRUE(roce_decode(f.data(), f.size(), &q, &is_roce));
	EXPECT_EQ(ibop::RC_ACK, q.opcode);
	EXPECT_EQ(77u, q.msn);
	EXPECT_EQ(roce::CQE_GRH, q.roce.l3);
}

TEST(RoceWire, BadIcrcAndForeignUdpAreRefused)
{
	Packet p = write_packet(v4_gid(10, 0, 0, 1), v4_gid(10, 0, 0, 2));
	std::vector<uint8_t> f = roce_encode(p, entry(p.grh.sgid, kMacA, roce::VERSION_2, roce::L3_IPV4), kMacB);
	Packet q;
	bool is_roce = false;
	std::vector<uint8_t> bad = f;
	bad[bad.size() - 6] ^= 1; // a payload byte
	EXPECT_FALSE(roce_decode(bad.data(), bad.size(), &q, &is_roce));
	EXPECT_TRUE(is_roce);
	// The variant fields (TTL, TOS and so the IP checksum) do not count.
	std::vector<uint8_t> hop = f;
	hop[14 + 8] = 3;
	hop[14 + 10] = hop[14 + 11] = 0;
	steer::Headers hh = steer::parse_headers(hop.data(), hop.size());
	uint16_t c = steer::csum_fold(steer::csum_add(0, hop.data() + hh.l3_off, 20));
	hop[14 + 10] = static_cast<uint8_t>(c >> 8);
	hop[14 + 11] = static_cast<uint8_t>(c);
	EXPECT_TRUE(roce_decode(hop.data(), hop.size(), &q, &is_roce));
	std::vector<uint8_t> other = f;
	other[14 + 20 + 3] = 0x35; // UDP port 4661 + ...: not RoCE
	EXPECT_FALSE(roce_decode(other.data(), other.size(), &q, &is_roce));
	EXPECT_FALSE(is_roce);
}

// An Ethernet HCA with RoCE on, its port up and GID entries 0 (RoCEv2
// IPv4 10.0.0.<n>) and 1 (RoCEv2 IPv6 fd00::<n>) on `mac`.
struct RoceDev {
	EthDev e;
	Mac mac;
	RoceDev(std::shared_ptr<Fabric> f, unsigned index, const Mac &m) : e(std::move(f), index), mac(m)
	{
		e.port_up();
		Msg v(op::MODIFY_NIC_VPORT_CONTEXT, 0, nic_vport::kModifyMinLen);
		v.set(nic_vport::modify_field_select, nic_vport::SEL_ROCE_EN).set(nic_vport::roce_en.at(nic_vport::kModifyAt), 1);
		e.h.ok(v, 16);
		set_gid(0, v4_gid(10, 0, 0, static_cast<uint8_t>(index + 1)), roce::VERSION_2, roce::L3_IPV4);
		set_gid(1, v6_gid(static_cast<uint8_t>(index + 1)), roce::VERSION_2, roce::L3_IPV6);
	}
	Msg set_msg(unsigned index, const Gid &g, uint8_t version, uint8_t l3)
	{
		namespace ra = roce_addr;
		Msg m(nic_op::SET_ROCE_ADDRESS, 0, ra::kSetAt + ra::kSize);
		m.set(ra::index, index).set(ra::vhca_port_num, 1);
		for (unsigned i = 0; i < 4; ++i)
			m.set(bits::Field{static_cast<uint16_t>(4 + i), 31, 0}, bits::load_be32(g.data() + 4 * i));
		m.set(ra::mac_47_32.at(ra::kSetAt), bits::load_be16(mac.data()));
		m.set(ra::mac_31_0.at(ra::kSetAt), bits::load_be32(mac.data() + 2));
		m.set(ra::version.at(ra::kSetAt), version).set(ra::l3_type.at(ra::kSetAt), l3);
		return m;
	}
	void set_gid(unsigned index, const Gid &g, uint8_t version, uint8_t l3) { e.h.ok(set_msg(index, g, version, l3), 16); }
	Gid gid(unsigned index)
	{
		auto lk = e.d.dp().lock();
		return e.d.dp().roce_gid(index).gid;
	}
	void disable_uc_lb(bool off)
	{
		Msg v(op::MODIFY_NIC_VPORT_CONTEXT, 0, nic_vport::kModifyMinLen);
		v.set(nic_vport::modify_field_select, nic_vport::SEL_DISABLE_UC_LOCAL_LB | nic_vport::SEL_ROCE_EN);
		v.set(nic_vport::disable_uc_local_lb.at(nic_vport::kModifyAt), off);
		v.set(nic_vport::roce_en.at(nic_vport::kModifyAt), 1);
		e.h.ok(v, 16);
	}
	RoceCounters counters()
	{
		auto lk = e.d.dp().lock();
		return e.d.dp().roce_counters();
	}
};

TEST(RoceGidTable, SetQueryAndRefusals)
{
	auto fabric = std::make_shared<Fabric>();
	RoceDev d(fabric, 0, kMacA);
	namespace ra = roce_addr;
	Msg q(nic_op::QUERY_ROCE_ADDRESS, 0, 16);
	q.set(ra::index, 0);
	auto out = d.e.h.ok(q, ra::kQueryAt + ra::kSize);
	const uint8_t *l = out.data() + ra::kQueryAt;
	Gid g;
	std::memcpy(g.data(), l, 16);
	EXPECT_EQ(v4_gid(10, 0, 0, 1), g);
	EXPECT_EQ(roce::VERSION_2, bits::get(l, ra::version));
	EXPECT_EQ(roce::L3_IPV4, bits::get(l, ra::l3_type));
	EXPECT_EQ(bits::load_be16(kMacA.data()), bits::get(l, ra::mac_47_32));
	EXPECT_EQ(bits::load_be32(kMacA.data() + 2), bits::get(l, ra::mac_31_0));

	// Beyond the table, an unmapped address as IPv4, a bad version.
	EXPECT_EQ(status::BAD_PARAM, d.e.h.exec(d.set_msg(DataPath::kRoceGids, v6_gid(9), 2, 1), 16).status);
	EXPECT_EQ(status::BAD_PARAM, d.e.h.exec(d.set_msg(2, v6_gid(9), 2, 0), 16).status);
	EXPECT_EQ(status::BAD_PARAM, d.e.h.exec(d.set_msg(2, v6_gid(9), 1, 1), 16).status);
	// An all-zero address empties the entry.
	d.set_gid(1, Gid{}, 0, 0);
	EXPECT_EQ(Gid{}, d.gid(1));

	// The ROCE capabilities the in-tree mlx5_ib reads.
	const Caps::Block *rc = d.e.h.fw().caps.max(cap_type_eth::ROCE);
	ASSERT_NE(nullptr, rc);
	EXPECT_EQ(DataPath::kRoceGids, bits::get(rc->data(), roce_caps::roce_address_table_size));
	EXPECT_EQ(roce::kUdpPort, bits::get(rc->data(), roce_caps::r_roce_dest_udp_port));

	// InfiniBand ports have no GID table commands.
	DpHca ib(fabric, 1);
	EXPECT_EQ(status::BAD_OP, ib.h.exec(d.set_msg(0, v6_gid(1), 2, 1), 16).status);
}

// RC QP `q` of `d` to RTS towards (`dqpn`, `dgid`) at `rmac` from GID entry `sgid`.
void roce_rts(RoceDev &d, const DpHca::Qp &q, uint32_t dqpn, const Mac &rmac, const Gid &dgid, unsigned sgid)
{
	DpHca &h = d.e.d;
	Msg a = h.modify_msg(0x502, q);
	a.set({qpc_dw(0xf), 23, 16}, 1).set({qpc_dw(0x24), 15, 15}, 1).set({qpc_dw(0x24), 14, 14}, 1);
	h.h.ok(a, 16);
	Msg b = h.modify_msg(0x503, q);
	b.set({qpc_dw(2), 31, 29}, 3).set({qpc_dw(5), 23, 0}, dqpn).set({qpc_dw(0x25), 23, 0}, 0x200);
	b.set({qpc_dw(7), 23, 23}, 1).set({qpc_dw(8), 23, 16}, sgid).set({qpc_dw(8), 7, 0}, 64);
	for (unsigned i = 0; i < 4; ++i)
		b.set({static_cast<uint16_t>(qpc_dw(0xa) + i), 31, 0}, bits::load_be32(dgid.data() + 4 * i));
	b.set({qpc_dw(0xe), 21, 16}, 26).set({qpc_dw(0xe), 15, 0}, 0xc0de);
	b.set({qpc_dw(0xf), 15, 0}, bits::load_be16(rmac.data()));
	b.set({qpc_dw(0x10), 31, 0}, bits::load_be32(rmac.data() + 2));
	h.h.ok(b, 16);
	Msg c = h.modify_msg(0x504, q);
	c.set({qpc_dw(0x1e), 23, 0}, 0x200).set({qpc_dw(8), 31, 27}, 14);
	c.set({qpc_dw(0x1c), 18, 16}, 7).set({qpc_dw(0x1c), 15, 13}, 7);
	h.h.ok(c, 16);
}

TEST(RoceRc, SendAndWriteBetweenTwoFunctionsOverTheSwitch)
{
	for (unsigned sgid : {0u, 1u}) {
		SCOPED_TRACE(sgid ? "IPv6" : "IPv4");
		auto fabric = std::make_shared<Fabric>();
		RoceDev a(fabric, 0, kMacA), b(fabric, 1, kMacB);
		auto acq = a.e.d.create_cq(5), bcq = b.e.d.create_cq(5);
		auto aqp = a.e.d.create_qp(ST_RC, acq, acq, 4, 5), bqp = b.e.d.create_qp(ST_RC, bcq, bcq, 4, 5);
		roce_rts(a, aqp, bqp.qpn, kMacB, b.gid(sgid), sgid);
		roce_rts(b, bqp, aqp.qpn, kMacA, a.gid(sgid), sgid);
		auto src = a.e.d.reg_mr(8192), dst = b.e.d.reg_mr(8192, A_ALL);
		fill(a.e.h.mem, src.addr, 8192, 3);
		b.e.d.post_recv(bqp, dst, 4096);
		a.e.d.post_send(aqp, DpHca::send_wr(src, 3000));
		Cqe req, resp;
		ASSERT_TRUE(poll_both(a.e.d, acq, &req, b.e.d, bcq, &resp));
		EXPECT_EQ(cqe_opcode::REQ, req.opcode);
		EXPECT_EQ(cqe_opcode::RESP_SEND, resp.opcode);
		EXPECT_EQ(3000u, resp.byte_cnt);
		EXPECT_EQ(a.e.h.mem.bytes(src.addr, 3000), b.e.h.mem.bytes(dst.addr, 3000));
		a.e.d.post_send(aqp, DpHca::rdma_wr(OP_WRITE, src, 8192, dst.addr, dst.key));
		ASSERT_TRUE(a.e.d.poll(acq, &req));
		EXPECT_EQ(cqe_opcode::REQ, req.opcode);
		EXPECT_EQ(a.e.h.mem.bytes(src.addr, 8192), b.e.h.mem.bytes(dst.addr, 8192));
		EXPECT_GT(a.counters().tx, 3u); // 1024-byte MTU: packets per message
		EXPECT_EQ(0u, a.counters().loopback);
		EXPECT_EQ(0u, b.counters().rx_bad);
	}
}

TEST(RoceRc, LoopbackBetweenQpsOfOneFunctionAndItsSwitch)
{
	auto fabric = std::make_shared<Fabric>();
	RoceDev a(fabric, 0, kMacA);
	auto cq = a.e.d.create_cq(5);
	auto q1 = a.e.d.create_qp(ST_RC, cq, cq, 4, 5), q2 = a.e.d.create_qp(ST_RC, cq, cq, 4, 5);
	roce_rts(a, q1, q2.qpn, kMacA, a.gid(0), 0);
	roce_rts(a, q2, q1.qpn, kMacA, a.gid(0), 0);
	auto src = a.e.d.reg_mr(4096), dst = a.e.d.reg_mr(4096, A_ALL);
	fill(a.e.h.mem, src.addr, 4096, 9);
	a.e.d.post_recv(q2, dst, 4096);
	a.e.d.post_send(q1, DpHca::send_wr(src, 2000));
	Cqe c1, c2;
	ASSERT_TRUE(a.e.d.poll(cq, &c1));
	ASSERT_TRUE(a.e.d.poll(cq, &c2));
	EXPECT_EQ(a.e.h.mem.bytes(src.addr, 2000), a.e.h.mem.bytes(dst.addr, 2000));
	EXPECT_GT(a.counters().loopback, 1u);

	// disable_uc_local_lb: nothing comes back; the requester retries
	// and gives up (retry exceeded).
	a.disable_uc_lb(true);
	uint64_t blocked = a.counters().lb_blocked;
	a.e.d.post_recv(q2, dst, 4096);
	a.e.d.post_send(q1, DpHca::send_wr(src, 100));
	Cqe e;
	ASSERT_TRUE(a.e.d.poll(cq, &e, std::chrono::milliseconds(10000)));
	EXPECT_EQ(cqe_opcode::REQ_ERR, e.opcode);
	EXPECT_EQ(0x15, e.syndrome);
	EXPECT_GT(a.counters().lb_blocked, blocked);
}

TEST(RoceUd, Qp1ReceivesTheIpv4HeaderInTheGrhArea)
{
	auto fabric = std::make_shared<Fabric>();
	RoceDev a(fabric, 0, kMacA), b(fabric, 1, kMacB);
	auto acq = a.e.d.create_cq(5), bcq = b.e.d.create_cq(5);
	auto aqp = a.e.d.create_qp(ST_QP1, acq, acq, 4, 5), bqp = b.e.d.create_qp(ST_QP1, bcq, bcq, 4, 5);
	a.e.d.to_rts_ud(aqp, 0x80010000u);
	b.e.d.to_rts_ud(bqp, 0x80010000u);
	auto src = a.e.d.reg_mr(4096), dst = b.e.d.reg_mr(4096, A_ALL);
	fill(a.e.h.mem, src.addr, 256, 1);
	b.e.d.post_recv(bqp, dst, 40 + 256);
	DpHca::Wr w = DpHca::send_wr(src, 256);
	w.dqpn = 1;
	w.qkey = 0x80010000u; // high bit: the QP's Q_Key
	w.grh = true;
	w.hop_limit = 64;
	w.tclass = 2; // ECT(0)
	w.dgid = b.gid(0);
	w.dlid = 0xc000; // the UDP source port where IB has the DLID
	DpHca::Wr wm = w;
	(void)wm;
	// The AV's rmac (bytes 0x14..0x19) comes from the test: post by hand.
	a.e.d.post_send(aqp, w, false);
	uint64_t sq = aqp.buf + aqp.rq_bytes();
	a.e.h.mem.write(sq + 16 + 0x14, kMacB.data(), 6);
	uint8_t ctrl[8];
	std::memcpy(ctrl, a.e.h.mem.bytes(sq, 8).data(), 8);
	a.e.d.ring_sq(aqp, ctrl);
	Cqe req, resp;
	ASSERT_TRUE(poll_both(a.e.d, acq, &req, b.e.d, bcq, &resp));
	EXPECT_EQ(cqe_opcode::RESP_SEND, resp.opcode);
	EXPECT_EQ(256u + 40, resp.byte_cnt);
	EXPECT_EQ(1u, resp.flags_rqpn & 0xffffff);           // from QP1
	EXPECT_EQ(1u, (resp.flags_rqpn >> 28) & 3);          // a network header
	EXPECT_EQ(roce::CQE_IPV4, (resp.flags_rqpn >> 24) & 3); // IPv4
	auto grh = b.e.h.mem.bytes(dst.addr, 40);
	for (unsigned i = 0; i < 20; ++i)
		EXPECT_EQ(0, grh[i]) << i;
	EXPECT_EQ(0x45, grh[20]);
	EXPECT_EQ(2, grh[21]);  // TOS: the traffic class
	EXPECT_EQ(64, grh[28]); // TTL: the hop limit
	EXPECT_EQ(17, grh[29]); // UDP
	EXPECT_EQ(1, grh[20 + 15]);
	EXPECT_EQ(2, grh[20 + 19]);
	EXPECT_EQ(a.e.h.mem.bytes(src.addr, 256), b.e.h.mem.bytes(dst.addr + 40, 256));
}

// The mlx5 provider's address vectors on RoCE leave the GRH bit of
// grh_gid_fl clear (reserved there): the GRH fields still address the
// packet.
TEST(RoceUd, AddressVectorWithoutTheGrhBitStillCarriesTheGrh)
{
	auto fabric = std::make_shared<Fabric>();
	RoceDev a(fabric, 0, kMacA), b(fabric, 1, kMacB);
	auto acq = a.e.d.create_cq(5), bcq = b.e.d.create_cq(5);
	auto aqp = a.e.d.create_qp(ST_UD, acq, acq, 4, 5), bqp = b.e.d.create_qp(ST_UD, bcq, bcq, 4, 5);
	a.e.d.to_rts_ud(aqp, 0x11111111u);
	b.e.d.to_rts_ud(bqp, 0x11111111u);
	auto src = a.e.d.reg_mr(4096), dst = b.e.d.reg_mr(4096, A_ALL);
	fill(a.e.h.mem, src.addr, 100, 3);
	b.e.d.post_recv(bqp, dst, 40 + 100);
	DpHca::Wr w = DpHca::send_wr(src, 100);
	w.dqpn = bqp.qpn;
	w.qkey = 0x11111111u;
	w.grh = true;
	w.hop_limit = 1;
	w.dgid = b.gid(0);
	w.dlid = 0xc123;
	a.e.d.post_send(aqp, w, false);
	uint64_t sq = aqp.buf + aqp.rq_bytes();
	a.e.h.mem.write(sq + 16 + 0x14, kMacB.data(), 6);
	uint8_t gfl[4];
	bits::store_be32(gfl, static_cast<uint32_t>(w.sgid_index) << 20); // no bit 30
	a.e.h.mem.write(sq + 16 + 0x1c, gfl, 4);
	uint8_t ctrl[8];
	std::memcpy(ctrl, a.e.h.mem.bytes(sq, 8).data(), 8);
	a.e.d.ring_sq(aqp, ctrl);
	Cqe req, resp;
	ASSERT_TRUE(poll_both(a.e.d, acq, &req, b.e.d, bcq, &resp));
	EXPECT_EQ(cqe_opcode::REQ, req.opcode);
	EXPECT_EQ(cqe_opcode::RESP_SEND, resp.opcode);
	EXPECT_EQ(100u + 40, resp.byte_cnt);
	EXPECT_EQ(aqp.qpn, resp.flags_rqpn & 0xffffff);
	EXPECT_EQ(a.e.h.mem.bytes(src.addr, 100), b.e.h.mem.bytes(dst.addr + 40, 100));
	EXPECT_EQ(0u, b.counters().rx_no_gid);
}

} // namespace
} // namespace mlx5emu::test
