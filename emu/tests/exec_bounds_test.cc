// SPDX-License-Identifier: GPL-2.0
// Resource bounds of the data path: nothing the guest posts grows a queue
// of the emulator without limit. The RC requester keeps at most a window
// of unacknowledged packets on the fabric, at most a queue length of WRs
// outstanding; READ responses go out in bursts; each fabric port queues
// at most Fabric::kLinkQueueCap packets; packets to no port are dropped
// when sent. A WQE reaching past the producer the doorbell gave fails
// instead of being stepped over (the queue would run round forever).
#include "dp_harness.h"
#include "prm/cq.h"
#include "prm/qp.h"

namespace mlx5emu::test {
namespace {

constexpr uint32_t kWindow = 128; // requester.cc kRcWindow
constexpr uint8_t kReq = 0;       // requester CQE opcode

// An RC QP on `a` aimed at LID 77 (no such port) with no retransmission
// timer (ack_timeout 0): nothing ever answers it.
struct Unreachable {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0};
	DpHca::Cq cq = a.create_cq(6);
	DpHca::Qp qp;
	DpHca::Mr mr;

	explicit Unreachable(unsigned log_sq, uint64_t mr_len = 1 << 20) : mr(a.reg_mr(mr_len))
	{
		qp = a.create_qp(ST_RC, cq, cq, 4, log_sq);
		DpHca::RcParams p;
		p.dlid = 77;
		p.dqpn = 0x123;
		p.ack_timeout = 0;
		a.to_rts_rc(qp, p);
	}
	size_t outstanding()
	{
		auto lk = a.dp().lock();
		return a.dp().res().qp(qp.qpn)->req.wrs.size();
	}
};

// The same 1 MiB region in each of `n` SGEs.
DpHca::Wr aliased(uint8_t opcode, const DpHca::Mr &m, unsigned n)
{
	DpHca::Wr w;
	w.opcode = opcode;
	for (unsigned i = 0; i < n; ++i)
		w.sgl.push_back({m.addr, static_cast<uint32_t>(m.len), m.key});
	w.raddr = 0x100000;
	w.rkey = 0x1234;
	return w;
}

TEST(ExecBounds, AliasedSgesToAnUnreachableLidSendOneWindow)
{
	Unreachable u(6); // 64 WQEBBs: 8 WQEs of 8 WQEBBs (30 SGEs)
	for (int i = 0; i < 8; ++i)
		u.a.post_send(u.qp, aliased(OP_WRITE, u.mr, 30)); // 30 MiB each
	ASSERT_TRUE(u.a.settle());
	Fabric::Counters c = u.fabric->counters();
	EXPECT_EQ(c.packets, kWindow) << "the first 128 of 8 x 7680 packets";
	EXPECT_EQ(c.no_route, kWindow);
	EXPECT_EQ(c.queued, 0u) << "dropped when sent, never queued";
	EXPECT_EQ(u.outstanding(), 8u);
	EXPECT_TRUE(u.a.empty(u.cq)) << "no timer: the WRs wait";
}

TEST(ExecBounds, OutstandingWrsNeverExceedTheSqSize)
{
	Unreachable u(4); // 16 WQEBBs
	for (int i = 0; i < 16; ++i)
		u.a.post_send(u.qp, DpHca::send_wr(u.mr, 4096));
	ASSERT_TRUE(u.a.settle());
	EXPECT_EQ(u.outstanding(), 16u);
	// A guest that keeps writing WQEs and ringing past what completed.
	for (int i = 0; i < 200; ++i) {
		u.a.post_send(u.qp, DpHca::send_wr(u.mr, 4096));
		if (i % 7 == 0) {
			ASSERT_TRUE(u.a.settle());
		}
		ASSERT_LE(u.outstanding(), 16u);
	}
	ASSERT_TRUE(u.a.settle());
	EXPECT_EQ(u.outstanding(), 16u);
	EXPECT_EQ(u.fabric->counters().packets, 16u);
}

TEST(ExecBounds, LargeAliasedSendMovesThroughTheWindow)
{
	RcPair p;
	auto src = p.a.reg_mr(256 << 10), dst = p.b.reg_mr(1 << 20);
	fill(p.a.mem(), src.addr, src.len, 3);
	DpHca::Wr w;
	for (int i = 0; i < 16; ++i)
		w.sgl.push_back({src.addr, static_cast<uint32_t>(src.len), src.key});
	p.b.post_recv(p.bqp, std::vector<Sg>(4, Sg{dst.addr, static_cast<uint32_t>(dst.len), dst.key}));
	Cqe req, resp;
	ASSERT_TRUE(p.send_and_poll(w, &req, &resp));
	EXPECT_EQ(req.opcode, kReq);
	EXPECT_EQ(resp.byte_cnt, 4u << 20);
	// The last 256 KiB of the message landed in the last quarter of
	// each receive SGE, i.e. the whole region holds the source 4 times.
	for (int i = 0; i < 4; ++i)
		EXPECT_EQ(p.b.mem().bytes(dst.addr + (i << 18), 256 << 10), p.a.mem().bytes(src.addr, 256 << 10));
	Fabric::Counters c = p.fabric->counters();
	EXPECT_LE(c.queued_max, kWindow) << "1024 packets, never more than a window waiting";
	EXPECT_EQ(c.dropped_full, 0u);
}

TEST(ExecBounds, ReadResponsesGoOutInBursts)
{
	RcPair p;
	auto src = p.b.reg_mr(4 << 20), back = p.a.reg_mr(4 << 20);
	fill(p.b.mem(), src.addr, src.len, 5);
	p.send(DpHca::rdma_wr(OP_READ, back, 4 << 20, src.addr, src.key));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.byte_cnt, 4u << 20);
	EXPECT_EQ(p.a.mem().bytes(back.addr, 4 << 20), p.b.mem().bytes(src.addr, 4 << 20));
	EXPECT_LE(p.fabric->counters().queued_max, 64u) << "1024 responses, a burst of 32 at a time";
}

// A READ and the SEND behind it: the SEND's ACK must not overtake the
// READ's responses (the requester would take it as a lost response).
TEST(ExecBounds, AcksWaitBehindReadResponses)
{
	RcPair p;
	auto src = p.b.reg_mr(1 << 20), back = p.a.reg_mr(1 << 20), r = p.b.reg_mr(4096);
	p.recv(r, 64);
	p.send(DpHca::rdma_wr(OP_READ, back, 1 << 20, src.addr, src.key));
	p.send(DpHca::send_wr(back, 64));
	Cqe e1, e2, resp;
	ASSERT_TRUE(p.a.poll(p.acq, &e1));
	ASSERT_TRUE(p.a.poll(p.acq, &e2));
	ASSERT_TRUE(p.b.poll(p.bcq, &resp));
	EXPECT_EQ(e1.wqe_opcode, OP_READ);
	EXPECT_EQ(e2.wqe_opcode, OP_SEND);
	auto lk = p.a.dp().lock();
	EXPECT_EQ(p.a.dp().res().qp(p.aqp.qpn)->ctr.retransmits, 0u);
}

// A requester allowed 16 READs at a time against a responder that answers
// one (rra 2^0): the second READ, arriving while the first is still being
// answered, is refused (NAK invalid request) and the responder's QP enters
// the error state: both WRs complete in error, nothing stays queued.
TEST(ExecBounds, ResponderAnswersAtMostRraReads)
{
	DpHca::RcParams pa, pb;
	pb.log_rra = 0;
	RcPair p(pa, pb);
	auto src = p.b.reg_mr(1 << 20), back = p.a.reg_mr(2 << 20);
	{
		auto lk = p.a.dp().lock(); // both requests leave in one task
		p.send(DpHca::rdma_wr(OP_READ, back, 1 << 20, src.addr, src.key));
		p.send(DpHca::rdma_wr(OP_READ, back, 1 << 20, src.addr, src.key, 1 << 20));
	}
	Cqe e1, e2;
	ASSERT_TRUE(p.a.poll(p.acq, &e1));
	ASSERT_TRUE(p.a.poll(p.acq, &e2));
	EXPECT_EQ(e1.opcode, 0xd) << "requester error CQE";
	EXPECT_EQ(e2.opcode, 0xd);
	ASSERT_TRUE(p.b.settle());
	auto lk = p.b.dp().lock();
	EXPECT_EQ(p.b.dp().counters().rd_limit_naks, 1u);
	const Qp *bq = p.b.dp().res().qp(p.bqp.qpn);
	EXPECT_EQ(bq->state, prm::qp_state::ERR);
	EXPECT_TRUE(bq->resp.responses.empty());
	EXPECT_EQ(bq->resp.rd_queued, 0u);
}

struct Sink : FabricPort {
	size_t n = 0;
	void receive(const Packet &) override { ++n; }
};

TEST(ExecBounds, EachPortQueuesAtMostTheCap)
{
	Fabric f;
	Sink s, t;
	f.attach(0, &s);
	f.attach(1, &t);
	f.engine().post([&] {
		f.set_lid(&s, 1, 0);
		f.set_lid(&t, 2, 0);
		for (uint32_t i = 0; i < 3000; ++i) {
			Packet p;
			p.dlid = 1;
			p.dqpn = 0x42; // QPN 0 takes VL15 only
			p.payload.assign(4096, 0);
			f.transmit(&t, std::move(p));
		}
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	Fabric::Counters c = f.counters();
	EXPECT_EQ(s.n, Fabric::kLinkQueueCap);
	EXPECT_EQ(c.dropped_full, 3000 - Fabric::kLinkQueueCap);
	EXPECT_EQ(c.queued_max, Fabric::kLinkQueueCap);
	EXPECT_EQ(c.queued, 0u);
}

// Rings the SQ of `q` as if its WQE 0 were one WQEBB long: the doorbell
// record says 1 and the doorbell carries WQE 0's control segment with ds 3,
// while the WQE in the queue is longer (what a guest writing one size and
// ringing another does).
void ring_one_wqebb(DpHca &a, const DpHca::Qp &q)
{
	std::vector<uint8_t> ctrl = a.mem().bytes(q.buf + q.rq_bytes(), 8);
	ctrl[7] = static_cast<uint8_t>((ctrl[7] & ~0x3f) | 3);
	uint8_t db[4];
	bits::store_be32(db, 1);
	a.mem().write(q.dbr + 4, db, 4);
	a.ring_sq(q, ctrl.data());
}

struct SqState {
	uint8_t state;
	uint16_t pi, ci;
};
SqState sq_state(DpHca &a, const DpHca::Qp &q)
{
	auto lk = a.dp().lock();
	const Qp *p = a.dp().res().qp(q.qpn);
	return {p->state, p->req.sq_pi, p->req.sq_ci};
}

// The wqe_fuzz hang (emu/fuzz/corpus/wqe_fuzz/
// regress_rc_flush_past_producer): an RC SQ full of 2-WQEBB WQEs of an
// unknown opcode, rung for 1 WQEBB. The requester failed WQE 0, which had
// stepped over the producer, and the flush of the SQ then took WQEs until
// it met the producer again: every WQE stepped over it, forever.
TEST(ExecBounds, RcWqePastTheProducerFailsAndTheFlushEnds)
{
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0};
	DpHca::Cq cq = a.create_cq(6);
	DpHca::Qp q = a.create_qp(ST_RC, cq, cq, 4, 6); // 64 WQEBBs
	DpHca::RcParams p;
	p.dlid = a.lid();
	p.dqpn = q.qpn;
	p.rq_psn = p.sq_psn;
	a.to_rts_rc(q, p);
	for (int i = 0; i < 32; ++i)
		a.post_wqe(q, 0x1e, 0x08, 0, std::vector<uint8_t>(80, 0), false); // signaled, ds 5
	ring_one_wqebb(a, q);
	ASSERT_TRUE(a.settle()) << "the data path never went idle";
	Cqe e;
	ASSERT_TRUE(a.poll(cq, &e));
	EXPECT_EQ(e.opcode, prm::cqe_opcode::REQ_ERR);
	EXPECT_EQ(e.syndrome, prm::cqe_syndrome::LOCAL_QP_OP);
	EXPECT_EQ(e.wqe_counter, 0u);
	EXPECT_TRUE(a.empty(cq)) << "nothing beyond the producer is flushed";
	SqState s = sq_state(a, q);
	EXPECT_EQ(s.state, prm::qp_state::ERR);
	EXPECT_EQ(s.pi, 1u);
	EXPECT_EQ(s.ci, 1u);
}

// The doorbell_fuzz hang (emu/fuzz/corpus/doorbell_fuzz/
// regress_ud_send_past_producer): a UD SQ full of valid 2-WQEBB SENDs to
// itself, rung for 1 WQEBB. WQE 0 stepped over the producer, and the
// SENDs behind it went out (or, once one failed, were flushed) round the
// queue forever. Now WQE 0 fails and nothing is sent.
TEST(ExecBounds, UdWqePastTheProducerFailsAndNothingIsSent)
{
	constexpr uint32_t kQkey = 0x11111111;
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0};
	DpHca::Mr mr = a.reg_mr(64 * 1024);
	DpHca::Cq cq = a.create_cq(6);
	DpHca::Qp q = a.create_qp(ST_UD, cq, cq, 5, 6);
	a.to_rts_ud(q, kQkey);
	for (unsigned i = 0; i < 32; ++i)
		a.post_recv(q, mr, 1024, 1024ull * i);
	DpHca::Wr w = DpHca::send_wr(mr, 64);
	w.dlid = a.lid();
	w.dqpn = q.qpn;
	w.qkey = kQkey;
	for (int i = 0; i < 32; ++i)
		a.post_send(q, w, false); // 80 bytes (ds 5): 2 WQEBBs each
	ring_one_wqebb(a, q);
	ASSERT_TRUE(a.settle()) << "the data path never went idle";
	Cqe e;
	ASSERT_TRUE(a.poll(cq, &e));
	EXPECT_EQ(e.opcode, prm::cqe_opcode::REQ_ERR);
	EXPECT_EQ(e.syndrome, prm::cqe_syndrome::LOCAL_QP_OP);
	EXPECT_EQ(e.wqe_counter, 0u);
	EXPECT_TRUE(a.empty(cq)) << "no send and no receive completed";
	EXPECT_EQ(fabric->counters().packets, 0u);
	SqState s = sq_state(a, q);
	EXPECT_EQ(s.state, prm::qp_state::SQER);
	EXPECT_EQ(s.pi, 1u);
	EXPECT_EQ(s.ci, 1u);
}

} // namespace
} // namespace mlx5emu::test
