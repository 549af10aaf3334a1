// SPDX-License-Identifier: GPL-2.0
// Bursts (fabric/packet.h, Packet::burst): an RC WRITE's packets between
// two IB ports of this process move as one packet per stretch up to the
// next ACK request, taken by the responder with one key check and one
// copy, and counted as the packets they stand for. Whatever needs the
// packets one by one (the switch, drop injection, a responder that would
// not simply accept them) gets them one by one, with the same outcome as
// before bursts. ACKs a responder QP answers in one delivery burst leave
// as one (they are cumulative).
#include <gtest/gtest.h>

#include "dp_harness.h"
#include "poll_for.h"
#include "exec/datapath.h"

namespace mlx5emu::test {
namespace {

std::vector<uint8_t> pattern(size_t n, uint8_t seed)
{
	std::vector<uint8_t> v(n);
	for (size_t i = 0; i < n; ++i)
		v[i] = static_cast<uint8_t>(seed + i * 29 + (i >> 9));
	return v;
}

QpCounters counters(DpHca &d, const DpHca::Qp &q)
{
	auto lk = d.dp().lock();
	return d.dp().res().qp(q.qpn)->ctr;
}

// a WRITEs `len` bytes of a pattern into b; the requester CQE's opcode.
uint8_t write_through(RcPair &p, uint32_t len, const DpHca::Mr &src, const DpHca::Mr &dst, uint8_t seed)
{
	auto data = pattern(len, seed);
	p.a.mem().write(src.addr, data.data(), data.size());
	p.send(DpHca::rdma_wr(OP_WRITE, src, len, dst.addr, dst.key));
	Cqe e;
	EXPECT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(p.b.mem().bytes(dst.addr, len), data);
	return e.opcode;
}

TEST(ExecBurst, WriteOf64KiBIsOneCopyCountedAsSixteenPackets)
{
	RcPair p;
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024);
	uint64_t copies = p.b.mem().copies_from();
	auto f0 = p.fabric->counters();
	ASSERT_EQ(write_through(p, 64 * 1024, src, dst, 5), 0);
	// One copy (before bursts: one per 4 KiB packet, 16).
	EXPECT_EQ(p.b.mem().copies_from() - copies, 1u);
	auto f = p.fabric->counters();
	EXPECT_EQ(f.packets - f0.packets, 17u) << "16 WRITE packets and one ACK";
	EXPECT_EQ(f.delivered - f0.delivered, 17u);
	EXPECT_EQ(f.bytes - f0.bytes, 64u * 1024);
	EXPECT_EQ(counters(p.a, p.aqp).tx_packets, 16u);
	EXPECT_EQ(counters(p.b, p.bqp).rx_packets, 16u);
	EXPECT_EQ(counters(p.b, p.bqp).tx_packets, 1u) << "one ACK";
	EXPECT_EQ(counters(p.b, p.bqp).rx_write_requests, 1u);
	// The responder's next PSN is past all 16.
	auto lk = p.b.dp().lock();
	EXPECT_EQ(p.b.dp().res().qp(p.bqp.qpn)->resp.epsn, (0x100u + 16) & 0xffffff);
}

TEST(ExecBurst, OneMiBWriteIsABurstPerAckRequest)
{
	RcPair p;
	auto src = p.a.reg_mr(1 << 20), dst = p.b.reg_mr(1 << 20);
	uint64_t copies = p.b.mem().copies_from();
	ASSERT_EQ(write_through(p, 1 << 20, src, dst, 7), 0);
	EXPECT_EQ(p.b.mem().copies_from() - copies, 8u) << "a burst per ACK request (every 32 packets)";
	EXPECT_EQ(counters(p.b, p.bqp).rx_packets, 256u);
	// The ACKs asked for in one delivery burst (the window: 128 packets)
	// go out as one.
	uint64_t acks = counters(p.b, p.bqp).tx_packets;
	EXPECT_GE(acks, 2u);
	EXPECT_LE(acks, 8u);
}

uint64_t acks_merged(DpHca &d)
{
	auto lk = d.dp().lock();
	return d.dp().counters().acks_merged;
}

// ACKs are cumulative: those a responder QP answers in one delivery burst
// leave as one, the last, sent when the burst ends.
TEST(ExecBurst, AcksOfOneDeliveryBurstGoAsOne)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	uint64_t merged = acks_merged(p.b);
	// Eight 8-byte WRITEs behind one doorbell: one engine task sends
	// them, one delivery burst takes them.
	for (int i = 0; i < 8; ++i)
		p.a.post_send(p.aqp, DpHca::rdma_wr(OP_WRITE, src, 8, dst.addr + 8 * i, dst.key, 8 * i), i == 7);
	Cqe e;
	for (int i = 0; i < 8; ++i) {
		ASSERT_TRUE(p.a.poll(p.acq, &e)) << i;
		EXPECT_EQ(e.opcode, 0);
	}
	EXPECT_EQ(counters(p.b, p.bqp).rx_write_requests, 8u);
	EXPECT_EQ(counters(p.b, p.bqp).tx_packets, 1u) << "one ACK for the eight";
	EXPECT_EQ(acks_merged(p.b) - merged, 7u);
	// Alone, a WRITE still gets its own ACK.
	p.send(DpHca::rdma_wr(OP_WRITE, src, 8, dst.addr, dst.key));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(counters(p.b, p.bqp).tx_packets, 2u);
}

// A NAK after a held ACK: the ACK goes first (the requester completes
// the WRITEs before the one refused).
TEST(ExecBurst, HeldAckGoesBeforeANak)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	for (int i = 0; i < 3; ++i)
		p.a.post_send(p.aqp, DpHca::rdma_wr(OP_WRITE, src, 8, dst.addr, dst.key), false);
	p.a.post_send(p.aqp, DpHca::rdma_wr(OP_WRITE, src, 8, dst.addr, dst.key ^ 1), true); // wrong variant: no such key
	Cqe e;
	for (int i = 0; i < 3; ++i) {
		ASSERT_TRUE(p.a.poll(p.acq, &e)) << i;
		EXPECT_EQ(e.opcode, 0) << i;
	}
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, 0xd);
	EXPECT_EQ(e.syndrome, 0x13) << "remote access error";
	EXPECT_EQ(counters(p.b, p.bqp).tx_packets, 2u) << "the ACK of the three, then the NAK";
}

TEST(ExecBurst, PsnsWrapInsideABurst)
{
	DpHca::RcParams pa;
	pa.sq_psn = 0xfffffa;
	RcPair p(pa);
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024);
	for (uint8_t i = 0; i < 3; ++i)
		ASSERT_EQ(write_through(p, 64 * 1024, src, dst, i), 0);
	auto lk = p.b.dp().lock();
	EXPECT_EQ(p.b.dp().res().qp(p.bqp.qpn)->resp.epsn, (0xfffffau + 48) & 0xffffff);
}

TEST(ExecBurst, DropInsideABurstLosesOnePacketAndGoesBackN)
{
	RcPair p; // ack_timeout 10: ~4 ms
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024);
	p.fabric->drop_next(1, 5); // the sixth packet of the message
	ASSERT_EQ(write_through(p, 64 * 1024, src, dst, 9), 0);
	EXPECT_EQ(p.fabric->counters().dropped, 1u);
	EXPECT_GE(counters(p.a, p.aqp).retransmits, 1u);
	EXPECT_GE(counters(p.b, p.bqp).seq_naks, 1u) << "the responder saw the gap after packet 5";
}

TEST(ExecBurst, ThroughTheSwitchPacketByPacket)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1}, c{fabric, 2};
	auto acq = a.create_cq(6), bcq = b.create_cq(6);
	auto aqp = a.create_qp(ST_RC, acq, acq, 4, 6), bqp = b.create_qp(ST_RC, bcq, bcq, 4, 6);
	connect_rc(a, aqp, b, bqp);
	auto src = a.reg_mr(64 * 1024), dst = b.reg_mr(64 * 1024);
	auto data = pattern(64 * 1024, 11);
	a.mem().write(src.addr, data.data(), data.size());
	uint64_t copies = b.mem().copies_from();
	auto f0 = fabric->counters();
	a.post_send(aqp, DpHca::rdma_wr(OP_WRITE, src, 64 * 1024, dst.addr, dst.key));
	Cqe e;
	ASSERT_TRUE(a.poll(acq, &e));
	EXPECT_EQ(e.opcode, 0);
	EXPECT_EQ(b.mem().bytes(dst.addr, data.size()), data);
	EXPECT_EQ(b.mem().copies_from() - copies, 16u) << "the switch forwards packets one by one";
	EXPECT_EQ(fabric->counters().switched - f0.switched, 17u);
}

// WRITE with immediate: the last packet goes alone (it needs a receive
// WQE and may meet an RNR NAK); the ones before it as a burst.
TEST(ExecBurst, WriteWithImmediateSendsItsLastPacketAlone)
{
	RcPair p; // rnr_retry 7, min_rnr_timer 1
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024), rq = p.b.reg_mr(4096);
	auto data = pattern(64 * 1024, 13);
	p.a.mem().write(src.addr, data.data(), data.size());
	uint64_t copies = p.b.mem().copies_from();
	auto w = DpHca::rdma_wr(OP_WRITE_IMM, src, 64 * 1024, dst.addr, dst.key);
	w.imm = 0x1234;
	p.send(w);
	// No receive yet: the last packet is refused with an RNR NAK.
	EXPECT_TRUE(poll_for([&] { return counters(p.b, p.bqp).rnr_naks_sent > 0; }));
	p.recv(rq, 64);
	Cqe e, r;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, 0);
	ASSERT_TRUE(p.b.poll(p.bcq, &r));
	EXPECT_EQ(r.opcode, 1) << "RESP_WR_IMM";
	EXPECT_EQ(r.byte_cnt, 64u * 1024);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, data.size()), data);
	// Packets 0..14 as one copy; packet 15, refused, came again as
	// bytes (a retransmission reads its data when it goes out).
	EXPECT_EQ(p.b.mem().copies_from() - copies, 1u);
	EXPECT_EQ(counters(p.b, p.bqp).rx_write_requests, 1u);
}

TEST(ExecBurst, SendOf64KiBIsOneCopyIntoTheReceive)
{
	RcPair p;
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024);
	auto data = pattern(64 * 1024, 17);
	p.a.mem().write(src.addr, data.data(), data.size());
	p.recv(dst, 64 * 1024);
	uint64_t copies = p.b.mem().copies_from();
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(src, 64 * 1024, &e, &r));
	EXPECT_EQ(e.opcode, 0);
	EXPECT_EQ(r.opcode, 2) << "RESP_SEND";
	EXPECT_EQ(r.byte_cnt, 64u * 1024);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, data.size()), data);
	EXPECT_EQ(p.b.mem().copies_from() - copies, 1u);
	EXPECT_EQ(counters(p.b, p.bqp).rx_packets, 16u);
	// With immediate: the last packet alone.
	auto w = DpHca::send_wr(src, 64 * 1024);
	w.opcode = OP_SEND_IMM;
	w.imm = 0x4321;
	p.recv(dst, 64 * 1024);
	copies = p.b.mem().copies_from();
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(r.opcode, 3) << "RESP_SEND_IMM";
	EXPECT_EQ(r.byte_cnt, 64u * 1024);
	EXPECT_EQ(p.b.mem().copies_from() - copies, 2u);
}

// A receive too short for the message: the burst is not taken whole;
// packet by packet, the one that overflows fails the receive (local
// length on the responder, remote invalid request on the requester).
TEST(ExecBurst, SendLongerThanTheReceiveFailsAsPacketByPacket)
{
	RcPair p;
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024);
	auto data = pattern(64 * 1024, 19);
	p.a.mem().write(src.addr, data.data(), data.size());
	p.recv(dst, 20000);
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(src, 64 * 1024, &e, &r));
	EXPECT_EQ(e.opcode, 0xd);
	EXPECT_EQ(e.syndrome, 0x12) << "remote invalid request";
	EXPECT_EQ(r.opcode, 0xe) << "responder error CQE";
	EXPECT_EQ(r.syndrome, 0x01) << "local length";
	// Packets 0..3 (16 KiB) landed before packet 4 overflowed.
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 16384), p.a.mem().bytes(src.addr, 16384));
}

TEST(ExecBurst, PartsAreThePacketsAlone)
{
	Packet b;
	b.opcode = ibop::RC_WRITE_FIRST;
	b.last_opcode = ibop::RC_WRITE_LAST;
	b.burst = 3;
	b.burst_mtu = 4;
	b.psn = 0xffffff;
	b.va = 0x1000;
	b.rkey = 0x55;
	b.dma_len = 10;
	b.ack_req = b.solicited = true;
	b.imm = 0x77;
	b.payload = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	Packet p0 = b.part(0), p1 = b.part(1), p2 = b.part(2);
	EXPECT_EQ(p0.opcode, ibop::RC_WRITE_FIRST);
	EXPECT_EQ(p1.opcode, ibop::RC_WRITE_MIDDLE);
	EXPECT_EQ(p2.opcode, ibop::RC_WRITE_LAST);
	EXPECT_EQ(p0.psn, 0xffffffu);
	EXPECT_EQ(p1.psn, 0u);
	EXPECT_EQ(p2.psn, 1u);
	EXPECT_EQ(p0.va, 0x1000u);
	EXPECT_EQ(p0.rkey, 0x55u);
	EXPECT_EQ(p0.dma_len, 10u);
	EXPECT_EQ(p1.va, 0u);
	EXPECT_EQ(p1.dma_len, 0u);
	EXPECT_FALSE(p0.ack_req || p1.ack_req || p0.solicited || p1.solicited);
	EXPECT_TRUE(p2.ack_req && p2.solicited);
	EXPECT_EQ(p1.imm, 0u);
	EXPECT_EQ(p2.imm, 0x77u);
	EXPECT_EQ(p0.payload, (std::vector<uint8_t>{0, 1, 2, 3}));
	EXPECT_EQ(p1.payload, (std::vector<uint8_t>{4, 5, 6, 7}));
	EXPECT_EQ(p2.payload, (std::vector<uint8_t>{8, 9}));
	for (const Packet *q : {&p0, &p1, &p2})
		EXPECT_EQ(q->burst, 1u);

	// By reference: each part names its own piece of the extents.
	FakeGuestMemory m;
	Packet r = b;
	r.payload.clear();
	r.ref.mem = &m;
	r.ref.add(0x100000000ull, 6);
	r.ref.add(0x100002000ull, 4);
	r.opcode = ibop::UC_BASE | ibop::RC_SEND_FIRST;
	r.last_opcode = ibop::UC_BASE | ibop::RC_SEND_LAST_IMM;
	Packet q1 = r.part(1), q2 = r.part(2);
	EXPECT_EQ(q1.opcode, ibop::UC_BASE | ibop::RC_SEND_MIDDLE);
	EXPECT_EQ(q2.opcode, ibop::UC_BASE | ibop::RC_SEND_LAST_IMM);
	ASSERT_EQ(q1.ref.n, 2u);
	EXPECT_EQ(q1.ref.ext[0].iova, 0x100000004ull);
	EXPECT_EQ(q1.ref.ext[0].len, 2u);
	EXPECT_EQ(q1.ref.ext[1].iova, 0x100002000ull);
	EXPECT_EQ(q1.ref.ext[1].len, 2u);
	EXPECT_EQ(q1.payload_len(), 4u);
	ASSERT_EQ(q2.ref.n, 1u);
	EXPECT_EQ(q2.ref.ext[0].iova, 0x100002002ull);
	EXPECT_EQ(q2.payload_len(), 2u);
}

} // namespace
} // namespace mlx5emu::test
