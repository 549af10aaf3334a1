// SPDX-License-Identifier: GPL-2.0
// RC execution between two HCAs on one fabric: SEND (+IMM), RDMA WRITE
// (+IMM into a zero-length receive), RDMA READ, atomics, inline data, SGE
// lists and MTU segmentation, selective signaling, solicited events, CQE
// timestamps.
#include "dp_harness.h"
#include "prm/device_clock.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespWrImm = 1, kRespSend = 2, kRespSendImm = 3;

TEST(ExecRc, SendReceive)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 100, 1);
	p.recv(dst, 4096);
	uint16_t idx;
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(DpHca::send_wr(src, 100), &e, &r, &idx));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_SEND);
	EXPECT_EQ(e.qpn, p.aqp.qpn);
	EXPECT_EQ(e.wqe_counter, idx);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.byte_cnt, 100u);
	EXPECT_EQ(r.qpn, p.bqp.qpn);
	EXPECT_EQ(r.wqe_counter, 0);
	EXPECT_EQ(r.slid, p.a.lid());
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 100), p.a.mem().bytes(src.addr, 100));
}

// Both CQEs carry the device clock (the internal timer's count) of the
// moment they were written.
// A WQE may carry inline data and pointer segments together (UCX's UD
// and RC put an 8-byte header inline and the payload behind a pointer):
// the message is the segments in order. Failed with a local protection
// error while inline data meant "the whole message is inline".
TEST(ExecRc, InlineThenPointerSegments)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 5);
	p.recv(dst, 4096);
	DpHca::Wr w;
	w.opcode = OP_SEND;
	w.inl = {1, 2, 3, 4, 5, 6, 7, 8};
	w.sgl = {{src.addr + 100, 40, src.key}, {src.addr + 2000, 3000 - 2000, src.key}};
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(e.opcode, kReq) << "no error CQE";
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.byte_cnt, 8u + 40 + 1000);
	std::vector<uint8_t> want = w.inl;
	auto a = p.a.mem().bytes(src.addr + 100, 40), b = p.a.mem().bytes(src.addr + 2000, 1000);
	want.insert(want.end(), a.begin(), a.end());
	want.insert(want.end(), b.begin(), b.end());
	EXPECT_EQ(p.b.mem().bytes(dst.addr, want.size()), want);
}

TEST(ExecRc, CqesCarryTheDeviceClock)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.recv(dst, 4096);
	Cqe e, r;
	uint64_t before = device_clock_ns();
	ASSERT_TRUE(p.send_and_poll(DpHca::send_wr(src, 100), &e, &r));
	uint64_t after = device_clock_ns();
	for (const Cqe *c : {&e, &r}) {
		EXPECT_GE(c->timestamp, before);
		EXPECT_LE(c->timestamp, after);
	}
}

TEST(ExecRc, SendImmInlineAndSgeList)
{
	RcPair p;
	auto src = p.a.reg_mr(8192), d1 = p.b.reg_mr(4096), d2 = p.b.reg_mr(4096);
	fill(p.a.mem(), src.addr, 8192, 3);
	// Two receive SGEs of 10 and 4096 bytes.
	p.b.post_recv(p.bqp, {{d1.addr, 10, d1.key}, {d2.addr, 4096, d2.key}});
	DpHca::Wr w;
	w.opcode = OP_SEND_IMM;
	w.imm = 0xdeadbeef;
	w.sgl = {{src.addr, 6, src.key}, {src.addr + 4096, 20, src.key}};
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespSendImm);
	EXPECT_EQ(e.byte_cnt, 26u);
	uint8_t be[4];
	bits::store_be32(be, 0xdeadbeef);
	EXPECT_EQ(std::memcmp(&e.imm, be, 4), 0) << "immediate in network order";
	auto got = p.b.mem().bytes(d1.addr, 10);
	auto tail = p.b.mem().bytes(d2.addr, 16);
	got.insert(got.end(), tail.begin(), tail.end());
	auto want = p.a.mem().bytes(src.addr, 6);
	auto w2 = p.a.mem().bytes(src.addr + 4096, 20);
	want.insert(want.end(), w2.begin(), w2.end());
	EXPECT_EQ(got, want);
	// Inline data.
	p.recv(d1, 64);
	DpHca::Wr in;
	in.inl = {'h', 'e', 'l', 'l', 'o'};
	p.send(in);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.byte_cnt, 5u);
	EXPECT_EQ(p.b.mem().bytes(d1.addr, 5), in.inl);
}

TEST(ExecRc, LargeMessagesAreSegmentedByTheMtu)
{
	DpHca::RcParams pa, pb;
	pa.mtu = pb.mtu = 1; // 256 bytes
	RcPair p(pa, pb);
	const uint32_t n = 10000;
	auto src = p.a.reg_mr(n), dst = p.b.reg_mr(n);
	fill(p.a.mem(), src.addr, n, 9);
	p.recv(dst, n);
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(src, n, &e, &r));
	EXPECT_EQ(r.byte_cnt, n);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, n), p.a.mem().bytes(src.addr, n));
	EXPECT_EQ(p.fabric->counters().packets, (n + 255) / 256 + 1)
		<< "40 data packets; an ACK requested by packet 32 (a quarter of the window) and one for the last, "
		   "answered in one delivery burst: one ACK (exec_burst_test.cc)";
	// The READ of the same length comes back in as many responses.
	auto back = p.a.reg_mr(n);
	p.send(DpHca::rdma_wr(OP_READ, back, n, dst.addr, dst.key));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_READ);
	EXPECT_EQ(e.byte_cnt, n);
	EXPECT_EQ(p.a.mem().bytes(back.addr, n), p.a.mem().bytes(src.addr, n));
}

TEST(ExecRc, WriteAndWriteWithImmediate)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(8192);
	fill(p.a.mem(), src.addr, 4096, 5);
	DpHca::Wr w = DpHca::rdma_wr(OP_WRITE, src, 3000, dst.addr + 100, dst.key);
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_WRITE);
	EXPECT_EQ(p.b.mem().bytes(dst.addr + 100, 3000), p.a.mem().bytes(src.addr, 3000));
	EXPECT_TRUE(p.b.empty(p.bcq)) << "a plain WRITE consumes no receive WQE";
	// WRITE with immediate consumes a (zero-length) receive WQE.
	p.b.post_recv(p.bqp, {});
	w.opcode = OP_WRITE_IMM;
	w.imm = 0x01020304;
	w.raddr = dst.addr + 5000;
	p.send(w);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespWrImm);
	EXPECT_EQ(e.byte_cnt, 3000u);
	EXPECT_EQ(p.b.mem().bytes(dst.addr + 5000, 3000), p.a.mem().bytes(src.addr, 3000));
}

TEST(ExecRc, AtomicsCompareAndSwapFetchAndAdd)
{
	RcPair p;
	auto res = p.a.reg_mr(64), target = p.b.reg_mr(64);
	uint64_t v = 100; // host (little-endian) order: atomic mode 1
	p.b.mem().write(target.addr + 8, &v, 8);
	DpHca::Wr w = DpHca::rdma_wr(OP_FAA, res, 8, target.addr + 8, target.key);
	w.swap_add = 5;
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_FAA);
	EXPECT_EQ(e.byte_cnt, 8u);
	uint64_t got;
	p.a.mem().read(res.addr, &got, 8);
	EXPECT_EQ(got, 100u) << "original value";
	p.b.mem().read(target.addr + 8, &got, 8);
	EXPECT_EQ(got, 105u);
	// CAS that misses, then one that hits.
	w.opcode = OP_CAS;
	w.compare = 7;
	w.swap_add = 999;
	p.send(w);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	p.b.mem().read(target.addr + 8, &got, 8);
	EXPECT_EQ(got, 105u);
	w.compare = 105;
	p.send(w);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	p.b.mem().read(target.addr + 8, &got, 8);
	EXPECT_EQ(got, 999u);
	p.a.mem().read(res.addr, &got, 8);
	EXPECT_EQ(got, 105u);
}

TEST(ExecRc, AtomicsInBigEndianMode)
{
	// Endianness mode 0: operands and results are big-endian (IB order).
	auto f = std::make_shared<Fabric>();
	DpHca a(f, 0, true), b(f, 1, true);
	auto acq = a.create_cq(4), bcq = b.create_cq(4);
	auto aqp = a.create_qp(ST_RC, acq, acq), bqp = b.create_qp(ST_RC, bcq, bcq);
	connect_rc(a, aqp, b, bqp);
	auto res = a.reg_mr(64), target = b.reg_mr(64);
	uint8_t be[8];
	bits::store_be64(be, 0x100);
	b.mem().write(target.addr, be, 8);
	DpHca::Wr w = DpHca::rdma_wr(OP_FAA, res, 8, target.addr, target.key);
	w.swap_add = 0x1;
	a.post_send(aqp, w);
	Cqe e;
	ASSERT_TRUE(a.poll(acq, &e));
	EXPECT_EQ(bits::load_be64(b.mem().bytes(target.addr, 8).data()), 0x101u);
	EXPECT_EQ(bits::load_be64(a.mem().bytes(res.addr, 8).data()), 0x100u);
}

TEST(ExecRc, SelectiveSignalingAndInOrderCompletion)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	DpHca::Wr w = DpHca::rdma_wr(OP_WRITE, src, 64, dst.addr, dst.key);
	w.flags = 0;
	p.send(w);
	p.send(w);
	w.flags = F_SIGNALED;
	uint16_t last = p.send(w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.wqe_counter, last) << "only the signaled WQE completes";
	EXPECT_TRUE(p.a.empty(p.acq));
	// A READ followed by a signaled WRITE: the WRITE completes after it.
	uint16_t ri = p.send(DpHca::rdma_wr(OP_READ, src, 64, dst.addr, dst.key, 1024));
	uint16_t wi = p.send(w);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.wqe_counter, ri);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.wqe_counter, wi);
}

TEST(ExecRc, CompletionEventForArmedCqAndSolicitedOnly)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	size_t irqs = p.b.h.irq.count(1);
	p.b.arm(p.bcq, true); // solicited only
	ASSERT_TRUE(p.b.settle());
	p.recv(dst, 64);
	p.recv(dst, 64);
	DpHca::Wr w = DpHca::send_wr(src, 8);
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	ASSERT_TRUE(p.b.settle());
	EXPECT_EQ(p.b.h.irq.count(1), irqs) << "unsolicited: no event";
	w.flags = F_SIGNALED | F_SOLICITED;
	p.send(w);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	ASSERT_TRUE(p.b.h.irq.wait_for_vector(1, irqs + 1)) << "MSI-X of the CQ's EQ";
	ASSERT_TRUE(p.b.h.wait_eqe(p.b.eq, 0));
	auto eqe = p.b.h.eqe(p.b.eq, 0);
	EXPECT_EQ(eqe[1], 0) << "completion EQE";
	EXPECT_EQ(bits::load_be32(&eqe[0x38]) & 0xffffff, p.bcq.cqn);
	// One event per arm: a further solicited CQE posts nothing.
	p.recv(dst, 64);
	p.send(w);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	ASSERT_TRUE(p.b.settle());
	EXPECT_FALSE(p.b.h.eqe_ready(p.b.eq, 1));
	// Arming with CQEs already beyond ci fires at once.
	DpHca::Cq behind = p.bcq;
	--behind.ci;
	p.b.arm(behind, false);
	ASSERT_TRUE(p.b.h.wait_eqe(p.b.eq, 1));
}

} // namespace
} // namespace mlx5emu::test
