// SPDX-License-Identifier: GPL-2.0
/* ib_verbs_test cases: CQ overrun, RNR exhaustion, flush, MR access violations. */
#define _GNU_SOURCE
#include "ib_verbs.h"

int case_cq_overflow(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_cq *tiny = NULL, *rcq = NULL;
	int rc = KSFT_PASS, n, i;
	struct conn_opts o = default_opts;

	CHECK(!two_open(&t), "devices");
	tiny = cq_new(&t.d[0], 1, NULL, NULL);
	rcq = cq_new(&t.d[0], QP_DEPTH, NULL, NULL);
	CHECK(tiny && rcq, "CQs");
	/* More completions than the CQ has room for (cqe + 1 at most). */
	n = 2 * (tiny->cqe + 1) + 2;
	diag("CQ of %d entries (asked 1), %d signaled WRITEs", tiny->cqe, n);
	if (n > QP_DEPTH) {
		diag("SKIP: the smallest CQ holds %d entries", tiny->cqe);
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(!ep_create(&a, &t.d[0], tiny, rcq, MR_ALL, &o), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &o), "QP b");
	CHECK(!pair_connect(&a, &b, &o, &o), "connect");
	for (i = 0; i < n; i++)
		CHECK(!post_rdma(&a, IBV_WR_RDMA_WRITE, i, 0, a.m.mr->lkey, 8,
				 (uintptr_t)b.m.buf + 8 * i, b.m.mr->rkey), "post %d", i);

	CHECK(async_wait(&t.d[0], IBV_EVENT_CQ_ERR, tiny, wait_ms),
	      "no IBV_EVENT_CQ_ERR for the overrun CQ within %d ms", wait_ms);
	/*
	 * The QP whose completion found the CQ in error goes to the error
	 * state with a local work queue catastrophic error.
	 */
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms),
	      "QP 0x%x state %s after the CQ overrun, expected ERR", a.qp->qp_num,
	      qps_name(qp_state(a.qp)));
	CHECK(async_wait(&t.d[0], IBV_EVENT_QP_FATAL, a.qp, wait_ms),
	      "no IBV_EVENT_QP_FATAL for QP 0x%x", a.qp->qp_num);
	/* The peer is not affected. */
	CHECK(qp_state(b.qp) == IBV_QPS_RTS, "peer QP state %s", qps_name(qp_state(b.qp)));

	/* Everything goes away cleanly and the device keeps working. */
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&tiny);
	cq_free(&rcq);
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "new pair");
	CHECK(write_ok(&a, &b, 0x77), "WRITE on a new pair after the overrun");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&tiny);
	cq_free(&rcq);
	if (t.d[0].ctx)
		async_drain(&t.d[0], 0);
	two_close(&t);
	return rc;
}

int case_rnr_retry(void)
{
	static const uint8_t retries[] = { 0, 3 };
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	long long t0;

	CHECK(!two_open(&t), "devices");
	for (unsigned int k = 0; k < sizeof(retries); k++) {
		struct conn_opts oa = default_opts, ob = default_opts;

		oa.rnr_retry = retries[k];
		ob.min_rnr_timer = 1; /* 0.01 ms */
		CHECK(!std_pair(&t, &a, &b, &oa, &ob), "pair");
		t0 = now_ms();
		CHECK(!post_send(&a, 1, 0, 64, IBV_SEND_SIGNALED), "send");
		CHECK(!post_send(&a, 2, 64, 64, IBV_SEND_SIGNALED), "send");
		CHECK(expect_wc(a.scq, 1, IBV_WC_RNR_RETRY_EXC_ERR, &wc),
		      "rnr_retry %d: first SEND", retries[k]);
		CHECK(wc.qp_num == a.qp->qp_num, "qp_num 0x%x", wc.qp_num);
		diag("rnr_retry %d: RNR_RETRY_EXC after %lld ms", retries[k], now_ms() - t0);
		CHECK(expect_wc(a.scq, 2, IBV_WC_WR_FLUSH_ERR, NULL), "second SEND flushed");
		CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms), "requester state %s",
		      qps_name(qp_state(a.qp)));
		/* The responder had nothing to complete and stays connected. */
		CHECK(cq_quiet(b.rcq, 0), "responder receive CQ");
		CHECK(qp_state(b.qp) == IBV_QPS_RTS, "responder state %s",
		      qps_name(qp_state(b.qp)));
		ep_destroy(&a);
		ep_destroy(&b);
	}

	/* rnr_retry 7 retries for ever: the SEND lands once a receive is posted. */
	{
		struct conn_opts ob = default_opts;

		ob.min_rnr_timer = 18; /* 5.12 ms between retries */
		CHECK(!std_pair(&t, &a, &b, &default_opts, &ob), "pair");
	}
	fill(a.m.buf, 100, 7);
	CHECK(!post_send(&a, 3, 0, 100, IBV_SEND_SIGNALED), "send");
	CHECK(cq_quiet(a.scq, quiet_ms), "SEND completed with no receive posted");
	CHECK(!post_recv(&b, 4, 0, 4096), "recv");
	CHECK(expect_wc(a.scq, 3, IBV_WC_SUCCESS, NULL), "SEND after the receive was posted");
	CHECK(expect_wc(b.rcq, 4, IBV_WC_SUCCESS, &wc), "receive");
	CHECK(wc.byte_len == 100 && first_diff(a.m.buf, b.m.buf, 100) < 0,
	      "received %u bytes, data differ at %ld", wc.byte_len,
	      first_diff(a.m.buf, b.m.buf, 100));
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

/* Collects n flush completions from cq for wr_ids base..base+n-1. */
static bool expect_flushes(struct ibv_cq *cq, uint32_t qpn, uint64_t base, int n, const char *what)
{
	struct ibv_wc wc[QP_DEPTH];
	bool seen[QP_DEPTH] = {};
	int got = wait_wc(cq, wc, n, wait_ms);

	if (got != n) {
		diag("%s: %d of %d flush completions", what, got, n);
		return false;
	}
	for (int i = 0; i < n; i++) {
		uint64_t k = wc[i].wr_id - base;

		if (wc[i].status != IBV_WC_WR_FLUSH_ERR || k >= (uint64_t)n || seen[k] ||
		    wc[i].qp_num != qpn) {
			diag("%s: completion %d: wr_id 0x%llx status %s qp 0x%x", what, i,
			     (unsigned long long)wc[i].wr_id, wc_status(wc[i].status), wc[i].qp_num);
			return false;
		}
		seen[k] = true;
	}
	return cq_quiet(cq, 0);
}

int case_flush(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct conn_opts oa = default_opts;
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	int rc = KSFT_PASS, i;
	const int nr = 8, ns = 8;

	CHECK(!two_open(&t), "devices");
	/*
	 * a talks to a QP number that does not exist on d1: its requests are
	 * dropped and its sends stay outstanding (the ACK timeout is about
	 * 4 s, seven retries).
	 */
	oa.timeout = 20;
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &oa), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "QP b");
	oa.dest_qpn = b.qp->qp_num ^ 0x800000;
	CHECK(!ep_connect(&a, &b, &oa), "connect a");
	for (i = 0; i < nr; i++)
		CHECK(!post_recv(&a, 0x100 + i, 4096 * i, 4096), "recv %d", i);
	for (i = 0; i < ns; i++)
		CHECK(!post_send(&a, 0x200 + i, 64 * i, 64, IBV_SEND_SIGNALED), "send %d", i);
	CHECK(cq_quiet(a.scq, 0) && cq_quiet(a.rcq, 0), "completions before the error");

	CHECK(!ibv_modify_qp(a.qp, &attr, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	CHECK(expect_flushes(a.rcq, a.qp->qp_num, 0x100, nr, "receives"), "receives");
	CHECK(expect_flushes(a.scq, a.qp->qp_num, 0x200, ns, "sends"), "sends");
	CHECK(qp_state(a.qp) == IBV_QPS_ERR, "state %s", qps_name(qp_state(a.qp)));

	/* Work requests posted in the error state are flushed too. */
	for (i = 0; i < 3; i++)
		CHECK(!post_recv(&a, 0x300 + i, 4096 * i, 4096), "recv in ERR");
	for (i = 0; i < 3; i++)
		CHECK(!post_send(&a, 0x400 + i, 64 * i, 64, IBV_SEND_SIGNALED), "send in ERR");
	CHECK(expect_flushes(a.rcq, a.qp->qp_num, 0x300, 3, "receives posted in ERR"), "late receives");
	CHECK(expect_flushes(a.scq, a.qp->qp_num, 0x400, 3, "sends posted in ERR"), "late sends");

	/* Back through RESET, the QP is usable again. */
	attr.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(a.qp, &attr, IBV_QP_STATE), "modify to RESET: %s", strerror(errno));
	ep_destroy(&a);
	ep_destroy(&b);
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "new pair");
	CHECK(write_ok(&a, &b, 0x55), "WRITE after the flush");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

enum viol {
	V_WRITE_NO_RIGHT, V_READ_NO_RIGHT, V_WRITE_OUT_OF_BOUNDS, V_BAD_RKEY,
	V_BAD_LKEY, V_READ_INTO_RO,
};

static const char *const viol_name[] = {
	"WRITE to an MR without REMOTE_WRITE",
	"READ from an MR without REMOTE_READ",
	"WRITE past the end of the MR",
	"WRITE with an rkey that names no MR",
	"SEND with an lkey that names no MR",
	"READ into a local MR without LOCAL_WRITE",
};

static int one_violation(struct two *t, enum viol v)
{
	struct ep a = {}, b = {};
	struct mem ro = {}, lro = {};
	struct ibv_wc wc;
	enum ibv_wc_status want;
	bool remote = v <= V_BAD_RKEY;
	int rc = KSFT_PASS, err;
	uint64_t raddr;
	uint32_t rkey;

	/* Events of earlier violations name objects whose addresses the
	 * allocator may hand out again.
	 */
	t->d[0].nev = t->d[1].nev = 0;
	CHECK(!std_pair(t, &a, &b, &default_opts, &default_opts), "pair");
	/* The target on b: read-only for the remote side, pattern 0x5a. */
	CHECK(!mem_reg(&ro, &t->d[1], 8192, v == V_READ_NO_RIGHT ?
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ), "target MR");
	memset(ro.buf, 0x5a, ro.len);
	memset(b.m.buf, 0x5a, b.m.len);
	fill(a.m.buf, 8192, v);
	raddr = (uintptr_t)ro.buf;
	rkey = ro.mr->rkey;

	switch (v) {
	case V_WRITE_NO_RIGHT:
		err = post_rdma(&a, IBV_WR_RDMA_WRITE, 1, 0, a.m.mr->lkey, 256, raddr, rkey);
		break;
	case V_READ_NO_RIGHT:
		err = post_rdma(&a, IBV_WR_RDMA_READ, 1, 0, a.m.mr->lkey, 256, raddr, rkey);
		break;
	case V_WRITE_OUT_OF_BOUNDS:
		/* b's own buffer has REMOTE_WRITE; write 16 bytes over its end. */
		err = post_rdma(&a, IBV_WR_RDMA_WRITE, 1, 0, a.m.mr->lkey, 32,
				(uintptr_t)b.m.buf + b.m.len - 16, b.m.mr->rkey);
		break;
	case V_BAD_RKEY:
		err = post_rdma(&a, IBV_WR_RDMA_WRITE, 1, 0, a.m.mr->lkey, 32,
				(uintptr_t)b.m.buf, b.m.mr->rkey ^ 0x00abcd00);
		break;
	case V_BAD_LKEY:
		CHECK(!post_recv(&b, 9, 0, 4096), "recv");
		err = post_rdma(&a, IBV_WR_SEND, 1, 0, a.m.mr->lkey ^ 0x00abcd00, 64, 0, 0);
		break;
	default: /* V_READ_INTO_RO */
		/* Local read only: the READ response may not land in it. */
		CHECK(!mem_reg(&lro, &t->d[0], 4096, 0), "local MR");
		memset(lro.buf, 0x3c, lro.len);
		{
			struct ibv_sge sg = {
				.addr = (uintptr_t)lro.buf, .length = 64, .lkey = lro.mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = 1, .sg_list = &sg, .num_sge = 1,
				.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { .remote_addr = (uintptr_t)b.m.buf, .rkey = b.m.mr->rkey },
			};
			err = post_wr(a.qp, &wr);
		}
		break;
	}
	CHECK(!err, "post");
	want = remote ? IBV_WC_REM_ACCESS_ERR : IBV_WC_LOC_PROT_ERR;
	CHECK(expect_wc(a.scq, 1, want, &wc), "requester completion");
	CHECK(wc.qp_num == a.qp->qp_num, "qp_num 0x%x", wc.qp_num);
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms), "requester state %s",
	      qps_name(qp_state(a.qp)));
	/* Nothing was written on either side. */
	CHECK(first_not(ro.buf, ro.len, 0x5a) < 0, "target MR changed at %ld",
	      first_not(ro.buf, ro.len, 0x5a));
	CHECK(first_not(b.m.buf, b.m.len, 0x5a) < 0, "peer buffer changed at %ld",
	      first_not(b.m.buf, b.m.len, 0x5a));
	if (lro.buf)
		CHECK(first_not(lro.buf, lro.len, 0x3c) < 0, "read-only local MR changed at %ld",
		      first_not(lro.buf, lro.len, 0x3c));
	if (remote) {
		/* The responder reports the violation and goes to error too. */
		CHECK(async_wait(&t->d[1], IBV_EVENT_QP_ACCESS_ERR, b.qp, wait_ms),
		      "no IBV_EVENT_QP_ACCESS_ERR on the responder");
		CHECK(qp_wait_state(b.qp, IBV_QPS_ERR, wait_ms), "responder state %s",
		      qps_name(qp_state(b.qp)));
	} else if (v == V_BAD_LKEY) {
		/* The responder saw nothing: its receive is still posted. */
		CHECK(cq_quiet(b.rcq, 0), "responder completion");
		CHECK(qp_state(b.qp) == IBV_QPS_RTS, "responder state %s",
		      qps_name(qp_state(b.qp)));
	}
out:
	ep_destroy(&a);
	ep_destroy(&b);
	mem_free(&ro);
	mem_free(&lro);
	async_drain(&t->d[0], 0);
	async_drain(&t->d[1], 0);
	return rc;
}

int case_mr_access(void)
{
	struct two t = {};
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "devices");
	for (int v = V_WRITE_NO_RIGHT; v <= V_READ_INTO_RO; v++) {
		int r = one_violation(&t, (enum viol)v);

		diag("%s: %s", viol_name[v], r == KSFT_PASS ? "ok" : "FAILED");
		if (r != KSFT_PASS)
			rc = KSFT_FAIL;
	}
out:
	two_close(&t);
	return rc;
}
