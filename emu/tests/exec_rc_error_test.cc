// SPDX-License-Identifier: GPL-2.0
// RC errors and recovery: RNR NAK with retries (success and
// RNR_RETRY_EXC), a dropped packet retransmitted after the ACK timeout,
// the timeout deferred by progress, transport retries exhausted, MKey violations (local protection, remote
// access; a zero-length WRITE/READ needs no key), receive buffers too small, and the flush of every outstanding
// WQE when a QP enters the error state.
#include "dp_harness.h"
#include "poll_for.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t kReq = 0, kRespSend = 2, kReqErr = 13, kRespErr = 14;
constexpr uint8_t kLocalLength = 0x01, kLocalProt = 0x04, kFlush = 0x05, kRemoteInvReq = 0x12,
		  kRemoteAccess = 0x13, kRetryExc = 0x15, kRnrRetryExc = 0x16;

uint8_t qp_state(DpHca &d, const DpHca::Qp &q)
{
	auto out = d.h.ok(Msg(0x50b, 0, 16).set({2, 23, 0}, q.qpn), 0x110);
	return static_cast<uint8_t>(field(out, {qpc_dw(0), 31, 28}));
}

QpCounters counters(DpHca &d, const DpHca::Qp &q)
{
	auto lk = d.dp().lock();
	return d.dp().res().qp(q.qpn)->ctr;
}

TEST(ExecRcError, RnrNakThenReceivePosted)
{
	RcPair p; // rnr_retry 7: retry forever, min_rnr_timer 1 (10 us)
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.send(DpHca::send_wr(src, 32));
	EXPECT_TRUE(poll_for([&] { return counters(p.b, p.bqp).rnr_naks_sent > 0; }))
		<< "no RNR NAK from the responder without a receive WQE";
	EXPECT_TRUE(p.a.empty(p.acq)) << "waiting: no receive WQE on the responder";
	p.recv(dst, 64);
	Cqe e, r;
	ASSERT_TRUE(poll_both(p.a, p.acq, &e, p.b, p.bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_GT(counters(p.a, p.aqp).rnr_naks_rcvd, 0u);
}

TEST(ExecRcError, RnrRetryExceeded)
{
	DpHca::RcParams pa;
	pa.rnr_retry = 2;
	RcPair p(pa);
	auto src = p.a.reg_mr(4096);
	uint16_t idx = p.send(DpHca::send_wr(src, 32));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRnrRetryExc);
	EXPECT_EQ(e.wqe_counter, idx);
	EXPECT_EQ(counters(p.a, p.aqp).rnr_naks_rcvd, 3u) << "first try + 2 retries";
	EXPECT_EQ(qp_state(p.a, p.aqp), 6) << "ERR";
}

TEST(ExecRcError, DroppedPacketIsRetransmitted)
{
	RcPair p; // ack_timeout 10: ~4 ms
	auto src = p.a.reg_mr(16384), dst = p.b.reg_mr(16384);
	fill(p.a.mem(), src.addr, 16384, 11);
	p.recv(dst, 16384);
	p.fabric->drop_next(1); // the first packet of the message
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(src, 16384, &e, &r));
	EXPECT_EQ(r.opcode, kRespSend);
	EXPECT_EQ(r.byte_cnt, 16384u);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 16384), p.a.mem().bytes(src.addr, 16384));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(p.fabric->counters().dropped, 1u);
	EXPECT_GE(counters(p.a, p.aqp).retransmits, 1u);
	EXPECT_GE(counters(p.b, p.bqp).seq_naks, 1u) << "the responder saw the gap";
}

TEST(ExecRcError, LostAckMakesADuplicateThatIsAcknowledgedAgain)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.recv(dst, 64);
	p.recv(dst, 64, 64);
	p.fabric->drop_next(1, 1); // the SEND passes, its ACK is lost
	p.send(DpHca::send_wr(src, 8));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(counters(p.a, p.aqp).timeouts, 1u);
	EXPECT_EQ(counters(p.b, p.bqp).duplicates, 1u);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_TRUE(p.b.empty(p.bcq)) << "the duplicate consumed no second receive";
}

// The retransmission timer restarts at every acknowledgment that moves
// the window, and no engine timer is set and cancelled per ACK: the one
// set at the first send fires at its old deadline, finds the new one
// later and waits for it. With the link delayed 96 ms each way and a
// ~268 ms timeout: A goes at 0 (timer due 268) and lands at 96, B goes
// once A has landed (polled for, no sleep), at 96 + d; A's ACK at 192
// restarts the timer (due ~460), B's ACK comes at 288 + d: no timeout. A
// timer that kept its first deadline would time B out at 268. This thread
// late by d, or the engine running B's packets late, by up to ~170 ms in
// all, changes nothing (the deadline moves with the engine's own lateness
// at A's ACK). At a quarter of these times (67 ms, 24 ms, B after a 32 ms
// sleep) ~35 ms sufficed: part one timed out in 4 runs of 100 at nice 10
// beside three CPU hogs on two cores.
TEST(ExecRcError, AckProgressDefersTheTimeout)
{
	DpHca::RcParams pa;
	pa.ack_timeout = 16; // 4.096 us << 16: ~268 ms
	RcPair p(pa);
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.recv(dst, 64);
	p.recv(dst, 64, 64);
	p.fabric->set_delay_ms(96);
	p.send(DpHca::send_wr(src, 32));
	Cqe r;
	ASSERT_TRUE(p.b.poll(p.bcq, &r)) << "A landed";
	EXPECT_EQ(r.opcode, kRespSend);
	p.send(DpHca::send_wr(src, 32));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(counters(p.a, p.aqp).timeouts, 0u);
	EXPECT_EQ(counters(p.a, p.aqp).retransmits, 0u);
	EXPECT_EQ(counters(p.b, p.bqp).duplicates, 0u);

	// A loss after it still times out, once.
	p.fabric->set_delay_ms(0);
	p.recv(dst, 64);
	p.fabric->drop_next(1);
	p.send(DpHca::send_wr(src, 32));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(counters(p.a, p.aqp).timeouts, 1u);
	EXPECT_EQ(counters(p.a, p.aqp).retransmits, 1u);
}

TEST(ExecRcError, TransportRetriesExhausted)
{
	DpHca::RcParams pa;
	pa.retry = 2;
	pa.ack_timeout = 8; // ~1 ms
	RcPair p(pa);
	auto src = p.a.reg_mr(4096);
	p.fabric->drop_next(1000);
	DpHca::Wr w = DpHca::send_wr(src, 32);
	p.send(w);
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRetryExc);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.syndrome, kFlush) << "the rest is flushed";
	EXPECT_EQ(counters(p.a, p.aqp).timeouts, 3u);
	EXPECT_EQ(qp_state(p.a, p.aqp), 6);
}

TEST(ExecRcError, LocalProtectionError)
{
	RcPair p;
	auto src = p.a.reg_mr(4096, A_LR | A_LW), other_pd = p.a.reg_mr(4096, A_ALL, p.a.alloc_pd());
	auto dst = p.b.reg_mr(4096);
	DpHca::Wr w;
	w.sgl = {{src.addr, 8, src.key ^ 0x1}}; // wrong variant
	p.send(w);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalProt);
	EXPECT_EQ(e.wqe_opcode, OP_SEND);
	// In another PD / out of bounds: same error (on a fresh pair).
	RcPair q;
	auto mr = q.a.reg_mr(4096, A_ALL, q.a.alloc_pd());
	q.send(DpHca::send_wr(mr, 8));
	ASSERT_TRUE(q.a.poll(q.acq, &e));
	EXPECT_EQ(e.syndrome, kLocalProt) << "MR of another PD";
	(void)other_pd;
	(void)dst;
}

TEST(ExecRcError, RemoteAccessErrors)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), ro = p.b.reg_mr(4096, A_LR | A_LW | A_RR);
	p.send(DpHca::rdma_wr(OP_WRITE, src, 16, ro.addr, ro.key)); // no remote write right
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteAccess);
	EXPECT_EQ(qp_state(p.a, p.aqp), 6);
	EXPECT_EQ(qp_state(p.b, p.bqp), 6) << "the responder QP fails too";
	// Bounds and atomics without the right, on fresh pairs.
	for (int k = 0; k < 2; ++k) {
		RcPair q;
		auto s = q.a.reg_mr(4096), t = q.b.reg_mr(4096, A_LR | A_LW | A_RR | A_RW);
		q.send(DpHca::rdma_wr(k ? OP_CAS : OP_READ, s, k ? 8u : 200u, k ? t.addr : t.addr + 4000, t.key));
		ASSERT_TRUE(q.a.poll(q.acq, &e));
		EXPECT_EQ(e.syndrome, kRemoteAccess) << (k ? "atomic right" : "READ beyond the MR");
	}
}

TEST(ExecRcError, ZeroLengthRdmaNeedsNoKey)
{
	// DMA length 0: no R_Key or VA check, the request succeeds whatever the
	// key (UCX's rc_verbs flush is a zero-length WRITE with rkey 0).
	RcPair p;
	Cqe e;
	for (uint8_t op : {OP_WRITE, OP_READ}) {
		DpHca::Wr w;
		w.opcode = op;
		w.raddr = 0;
		w.rkey = 0;
		p.send(w);
		ASSERT_TRUE(p.a.poll(p.acq, &e));
		EXPECT_EQ(e.opcode, kReq) << (op == OP_WRITE ? "WRITE" : "READ");
		EXPECT_EQ(qp_state(p.b, p.bqp), 3) << "the responder stays in RTS";
	}
	// The QP's remote write enable still applies: a QP without it refuses.
	auto s = p.a.reg_mr(4096), ro = p.b.reg_mr(4096, A_LR | A_LW | A_RR);
	p.send(DpHca::rdma_wr(OP_WRITE, s, 16, ro.addr, ro.key));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.syndrome, kRemoteAccess) << "a non-empty WRITE is still checked";
}

TEST(ExecRcError, ReceiveBufferTooSmall)
{
	RcPair p;
	auto src = p.a.reg_mr(4096), dst = p.b.reg_mr(4096);
	p.recv(dst, 16);
	p.recv(dst, 64);
	p.send(DpHca::send_wr(src, 17));
	Cqe e;
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.opcode, kRespErr);
	EXPECT_EQ(e.syndrome, kLocalLength);
	EXPECT_EQ(e.wqe_counter, 0);
	ASSERT_TRUE(p.b.poll(p.bcq, &e));
	EXPECT_EQ(e.syndrome, kFlush) << "the other receive is flushed";
	EXPECT_EQ(e.wqe_counter, 1);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteInvReq);
}

TEST(ExecRcError, ErrorStateFlushesEverythingAndLaterPosts)
{
	DpHca::RcParams pa;
	RcPair p(pa);
	auto src = p.a.reg_mr(4096), dst = p.a.reg_mr(4096);
	p.a.post_recv(p.aqp, dst, 64);
	p.a.post_recv(p.aqp, dst, 64);
	// Sends posted but held: the QP goes to ERR before they run.
	EXPECT_EQ(p.a.modify_status(0x507, p.aqp), 0);
	DpHca::Wr w = DpHca::send_wr(src, 8);
	w.flags = 0; // unsignaled WQEs are flushed with a CQE as well
	uint16_t s0 = p.send(w);
	int sends = 0, recvs = 0;
	Cqe e;
	for (int i = 0; i < 3; ++i) {
		ASSERT_TRUE(p.a.poll(p.acq, &e)) << i;
		EXPECT_EQ(e.syndrome, kFlush);
		if (e.opcode == kReqErr) {
			EXPECT_EQ(e.wqe_counter, s0);
			++sends;
		} else {
			EXPECT_EQ(e.opcode, kRespErr);
			++recvs;
		}
	}
	EXPECT_EQ(sends, 1);
	EXPECT_EQ(recvs, 2);
	// A receive posted in ERR is flushed too (no doorbell: found by polling).
	p.a.post_recv(p.aqp, dst, 64);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kRespErr);
	EXPECT_EQ(e.syndrome, kFlush);
	EXPECT_EQ(e.wqe_counter, 2);
	// 2RST forgets the queues: counters start over.
	EXPECT_EQ(p.a.modify_status(0x50a, p.aqp), 0);
	EXPECT_TRUE(p.a.empty(p.acq));
}

TEST(ExecRcError, WqesPostedBeforeRtsRunAtRts)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0), b(f, 1);
	auto acq = a.create_cq(5), bcq = b.create_cq(5);
	auto aqp = a.create_qp(ST_RC, acq, acq), bqp = b.create_qp(ST_RC, bcq, bcq);
	auto src = a.reg_mr(4096), dst = b.reg_mr(4096);
	DpHca::RcParams pa, pb;
	aim_rc(a, aqp, b, bqp, &pa, &pb);
	b.to_rts_rc(bqp, pb);
	b.post_recv(bqp, dst, 64);
	a.h.ok(a.modify_msg(0x502, aqp).set({qpc_dw(0xf), 23, 16}, 1), 16);
	a.post_send(aqp, DpHca::send_wr(src, 8)); // in INIT: accepted, not executed
	Cqe e;
	EXPECT_TRUE(a.empty(acq));
	a.h.ok(a.modify_msg(0x503, aqp)
		       .set({qpc_dw(2), 31, 29}, 5)
		       .set({qpc_dw(5), 23, 0}, pa.dqpn)
		       .set({qpc_dw(7), 15, 0}, pa.dlid)
		       .set({qpc_dw(0x25), 23, 0}, pa.rq_psn),
	       16);
	a.h.ok(a.modify_msg(0x504, aqp).set({qpc_dw(0x1e), 23, 0}, pa.sq_psn).set({qpc_dw(8), 31, 27}, 10), 16);
	Cqe r;
	ASSERT_TRUE(poll_both(a, acq, &e, b, bcq, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSend);
}

} // namespace
} // namespace mlx5emu::test
