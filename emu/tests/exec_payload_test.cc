// SPDX-License-Identifier: GPL-2.0
// Payloads by reference (fabric/packet.h, PayloadRef): RC SEND and WRITE
// packets and READ responses carry the guest addresses of their data, and
// the receiving HCA copies straight from the sender's memory into its own
// (one copy, GuestMemory::copy_from); a sender's memory that cannot be
// read when the packet arrives loses the packet, and the retransmission
// (as bytes) reports the fault on the requester, as before. The fabric
// delivers packets through a per-port ring, in order.
#include <gtest/gtest.h>

#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

using namespace std::chrono_literals;

std::vector<uint8_t> pattern(size_t n, uint8_t seed)
{
	std::vector<uint8_t> v(n);
	for (size_t i = 0; i < n; ++i)
		v[i] = static_cast<uint8_t>(seed + i * 13 + (i >> 8));
	return v;
}

TEST(PayloadRef, WriteMovesOnceFromTheSendersMemory)
{
	RcPair p;
	auto src = p.a.reg_mr(64 * 1024), dst = p.b.reg_mr(64 * 1024);
	auto data = pattern(64 * 1024, 3);
	p.a.mem().write(src.addr, data.data(), data.size());
	uint64_t before = p.b.mem().copies_from();
	Cqe e;
	p.send(DpHca::rdma_wr(OP_WRITE, src, 64 * 1024, dst.addr, dst.key));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, 0) << "syndrome 0x" << std::hex << unsigned(e.syndrome);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, data.size()), data);
	// Read by b straight out of a's memory (16 packets of 4 KiB, one
	// burst: exec_burst_test.cc).
	EXPECT_GE(p.b.mem().copies_from() - before, 1u);
}

TEST(PayloadRef, SendAcrossSgesAndReadResponses)
{
	RcPair p;
	auto src = p.a.reg_mr(3 * 8192), dst = p.b.reg_mr(3 * 8192);
	auto data = pattern(3 * 8192, 9);
	p.a.mem().write(src.addr, data.data(), data.size());
	// SEND of three SGEs (5000 B at 0, 7000 B at 8192, 3 B at 20000) into
	// one receive buffer: packets straddle SGEs.
	p.recv(dst, 3 * 8192);
	DpHca::Wr w;
	w.sgl = {{src.addr, 5000, src.key}, {src.addr + 8192, 7000, src.key}, {src.addr + 20000, 3, src.key}};
	Cqe req, resp;
	ASSERT_TRUE(p.send_and_poll(w, &req, &resp));
	ASSERT_EQ(req.opcode, 0);
	ASSERT_EQ(resp.opcode, 2); // RESP_SEND
	EXPECT_EQ(resp.byte_cnt, 12003u);
	std::vector<uint8_t> want(data.begin(), data.begin() + 5000);
	want.insert(want.end(), data.begin() + 8192, data.begin() + 8192 + 7000);
	want.insert(want.end(), data.begin() + 20000, data.begin() + 20003);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, want.size()), want);

	// READ: b's memory into a's, responses by reference.
	auto back = p.a.reg_mr(3 * 8192);
	uint64_t before = p.a.mem().copies_from();
	p.send(DpHca::rdma_wr(OP_READ, back, 12003, dst.addr, dst.key));
	ASSERT_TRUE(p.a.poll(p.acq, &req));
	ASSERT_EQ(req.opcode, 0) << "syndrome 0x" << std::hex << unsigned(req.syndrome);
	EXPECT_EQ(p.a.mem().bytes(back.addr, want.size()), want);
	EXPECT_GE(p.a.mem().copies_from() - before, 3u);
}

TEST(PayloadRef, LoopbackOnOneHcaCopiesInsideItsMemory)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca h(fabric, 0);
	auto cq = h.create_cq(6);
	auto q1 = h.create_qp(ST_RC, cq, cq, 4, 6), q2 = h.create_qp(ST_RC, cq, cq, 4, 6);
	connect_rc(h, q1, h, q2);
	auto src = h.reg_mr(16384), dst = h.reg_mr(16384);
	auto data = pattern(16384, 1);
	h.mem().write(src.addr, data.data(), data.size());
	Cqe e;
	h.post_send(q1, DpHca::rdma_wr(OP_WRITE, src, 16384, dst.addr, dst.key));
	ASSERT_TRUE(h.poll(cq, &e));
	EXPECT_EQ(e.opcode, 0);
	EXPECT_EQ(h.mem().bytes(dst.addr, data.size()), data);
}

// A packet whose reference b cannot read is lost: no state changes, no
// ACK, counted; the same packet with its bytes is then taken.
TEST(PayloadRef, UnreadableSourceLosesThePacket)
{
	RcPair p;
	auto dst = p.b.reg_mr(4096);
	auto pkt = [&](bool by_ref) {
		Packet k;
		k.slid = p.a.lid();
		k.dlid = p.b.lid();
		k.opcode = ibop::RC_WRITE_ONLY;
		k.dqpn = p.bqp.qpn;
		k.sqpn = p.aqp.qpn;
		k.psn = 0x100; // b's expected PSN (connect_rc's defaults)
		k.va = dst.addr;
		k.rkey = dst.key;
		k.dma_len = 100;
		if (by_ref) {
			k.ref.mem = &p.a.mem();
			k.ref.add(p.a.mem().base() + p.a.mem().size() + 4096, 100); // outside a's memory
		} else {
			k.payload.assign(100, 0x5a);
		}
		return k;
	};
	uint64_t dropped = p.b.dp().counters().dropped_packets;
	{
		auto lk = p.b.dp().lock();
		p.b.dp().receive(pkt(true));
	}
	EXPECT_EQ(p.b.dp().counters().dropped_packets, dropped + 1);
	{
		auto lk = p.b.dp().lock();
		p.b.dp().receive(pkt(false));
	}
	ASSERT_TRUE(p.b.settle());
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 100), std::vector<uint8_t>(100, 0x5a)) << "the PSN was still expected";
	EXPECT_EQ(p.b.dp().counters().dropped_packets, dropped + 1);
}

// A requester whose data cannot be read (the reserved lkey naming an
// address outside guest memory): the first packet is lost at the
// responder, the retransmission reads bytes and fails: LOCAL_PROT.
TEST(PayloadRef, UnreadableLocalDataStillFailsOnTheRequester)
{
	DpHca::RcParams pa;
	pa.ack_timeout = 1; // the 1 ms minimum
	RcPair p(pa);
	{
		auto lk = p.a.dp().lock(); // a kernel QP (rlky): the reserved lkey serves it
		p.a.dp().res().qp(p.aqp.qpn)->rlky = true;
	}
	auto dst = p.b.reg_mr(4096);
	uint64_t nowhere = p.a.mem().base() + p.a.mem().size() + 65536;
	DpHca::Wr w;
	w.opcode = OP_WRITE;
	w.sgl = {{nowhere, 256, MkeyTable::kReservedLkey}};
	w.raddr = dst.addr;
	w.rkey = dst.key;
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, 0xd); // REQ_ERR
	EXPECT_EQ(e.syndrome, 0x04); // LOCAL_PROT
	auto lk = p.b.dp().lock(); // the engine's counters
	EXPECT_GE(p.b.dp().counters().dropped_packets, 1u);
}

TEST(PayloadRef, GuestMemoryCopyFromReportsTheSideThatFailed)
{
	FakeGuestMemory a, b;
	uint64_t x = a.alloc(4096), y = b.alloc(4096);
	auto data = pattern(4096, 7);
	a.write(x, data.data(), data.size());
	EXPECT_EQ(b.copy_from(y, a, x, 4096), GuestMemory::Copy::Ok);
	EXPECT_EQ(b.bytes(y, 4096), data);
	EXPECT_EQ(b.copy_from(y, a, a.base() + a.size(), 16), GuestMemory::Copy::BadSource);
	EXPECT_EQ(b.copy_from(b.base() + b.size(), a, x, 16), GuestMemory::Copy::BadDest);
	// A cut host link reads nothing and writes nothing.
	RecordingInterruptSink irq;
	HostLink la(a, irq), lb(b, irq);
	EXPECT_EQ(lb.copy_from(y, la, x, 64), GuestMemory::Copy::Ok);
	la.cut(true);
	EXPECT_EQ(lb.copy_from(y, la, x, 64), GuestMemory::Copy::BadSource);
	la.cut(false);
	lb.cut(true);
	EXPECT_EQ(lb.copy_from(y, la, x, 64), GuestMemory::Copy::BadDest);
	// The default (a bounce buffer) for memories that have no host view.
	struct Plain : GuestMemory {
		FakeGuestMemory &m;
		explicit Plain(FakeGuestMemory &f) : m(f) {}
		bool read(uint64_t i, void *d, size_t n) override { return m.read(i, d, n); }
		bool write(uint64_t i, const void *s, size_t n) override { return m.write(i, s, n); }
	} pb(b);
	uint64_t z = b.alloc(8192);
	EXPECT_EQ(pb.copy_from(z, a, x, 4096), GuestMemory::Copy::Ok);
	EXPECT_EQ(b.bytes(z, 4096), data);
}

TEST(PayloadRef, ExtentsMergeAndOverflow)
{
	PayloadRef r;
	EXPECT_TRUE(r.add(0x1000, 100));
	EXPECT_TRUE(r.add(0x1064, 28)); // touches: merged
	EXPECT_EQ(r.n, 1u);
	EXPECT_EQ(r.len, 128u);
	for (unsigned i = 1; i < PayloadRef::kExtents; ++i)
		EXPECT_TRUE(r.add(0x10000 * (i + 1), 8));
	EXPECT_FALSE(r.add(0x900000, 8)) << "no room for a ninth extent";
	// A packet materialises its reference into bytes.
	FakeGuestMemory m;
	uint64_t x = m.alloc(256);
	auto data = pattern(256, 2);
	m.write(x, data.data(), data.size());
	Packet k;
	k.ref.mem = &m;
	k.ref.add(x + 128, 128);
	k.ref.add(x, 64);
	EXPECT_EQ(k.payload_len(), 192u);
	ASSERT_TRUE(k.materialize());
	EXPECT_EQ(k.ref.mem, nullptr);
	std::vector<uint8_t> want(data.begin() + 128, data.end());
	want.insert(want.end(), data.begin(), data.begin() + 64);
	EXPECT_EQ(k.payload, want);
}

struct Seq : FabricPort {
	std::vector<uint32_t> psns;
	void receive(const Packet &p) override { psns.push_back(p.psn); }
};

// The per-port ring: order kept across its growth, one drain task per
// burst.
TEST(FabricInbox, KeepsOrderAcrossGrowthInOneTask)
{
	Fabric f;
	Seq s, t;
	f.attach(0, &s);
	f.attach(1, &t);
	uint64_t tasks0 = f.engine().counters().tasks;
	f.engine().post([&] {
		f.set_lid(&s, 1, 0);
		f.set_lid(&t, 2, 0);
		for (uint32_t i = 0; i < 700; ++i) {
			Packet p;
			p.dlid = 1;
			p.dqpn = 0x42; // QPN 0 takes VL15 only
			p.psn = i;
			f.transmit(&t, std::move(p));
		}
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	ASSERT_EQ(s.psns.size(), 700u);
	for (uint32_t i = 0; i < 700; ++i)
		ASSERT_EQ(s.psns[i], i);
	EXPECT_EQ(f.engine().counters().tasks - tasks0, 2u) << "the sender's task and one drain";
	EXPECT_EQ(f.counters().queued, 0u);
}

} // namespace
} // namespace mlx5emu::test
