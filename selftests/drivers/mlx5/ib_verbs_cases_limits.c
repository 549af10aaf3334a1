// SPDX-License-Identifier: GPL-2.0
/* ib_verbs_test cases: error syndromes and device limits. */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "ib_verbs.h"

int case_errors(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct conn_opts oa = default_opts;
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	long long t0;

	CHECK(!two_open(&t), "devices");

	/* A SEND longer than the receive buffer: the responder completes the
	 * receive with a local length error and NAKs; the requester sees a
	 * remote invalid request; the next receive is flushed.
	 */
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "pair");
	CHECK(!post_recv(&b, 1, 0, 100) && !post_recv(&b, 2, 4096, 4096), "recv");
	CHECK(!post_send(&a, 3, 0, 200, IBV_SEND_SIGNALED), "send");
	CHECK(expect_wc(a.scq, 3, IBV_WC_REM_INV_REQ_ERR, NULL), "requester");
	CHECK(expect_wc(b.rcq, 1, IBV_WC_LOC_LEN_ERR, &wc), "responder");
	CHECK(wc.qp_num == b.qp->qp_num, "qp_num 0x%x", wc.qp_num);
	CHECK(expect_wc(b.rcq, 2, IBV_WC_WR_FLUSH_ERR, NULL), "second receive");
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms) && qp_wait_state(b.qp, IBV_QPS_ERR, wait_ms),
	      "states %s / %s", qps_name(qp_state(a.qp)), qps_name(qp_state(b.qp)));
	ep_destroy(&a);
	ep_destroy(&b);

	/* Nobody answers (the peer QP number does not exist): after the ACK
	 * timeout and retry_cnt retries, RETRY_EXC.
	 */
	oa.timeout = 8;		/* about 1 ms */
	oa.retry_cnt = 2;
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &oa), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "QP b");
	oa.dest_qpn = b.qp->qp_num ^ 0x800000;
	CHECK(!ep_connect(&a, &b, &oa), "connect a");
	t0 = now_ms();
	CHECK(!post_rdma(&a, IBV_WR_RDMA_WRITE, 4, 0, a.m.mr->lkey, 64, (uintptr_t)b.m.buf,
			 b.m.mr->rkey), "write");
	CHECK(!post_send(&a, 5, 0, 64, IBV_SEND_SIGNALED), "send");
	CHECK(expect_wc(a.scq, 4, IBV_WC_RETRY_EXC_ERR, NULL), "WRITE to nobody");
	diag("RETRY_EXC after %lld ms", now_ms() - t0);
	CHECK(expect_wc(a.scq, 5, IBV_WC_WR_FLUSH_ERR, NULL), "SEND behind it");
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms), "state %s", qps_name(qp_state(a.qp)));
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

/*
 * Creation must fail (must = true) or may fail: prints the outcome and
 * errno so the drivers can be compared; frees what was created anyway.
 */
static void limit_check(const char *what, void *obj, int err, bool must, int *bad,
			int (*destroy)(void *))
{
	if (!obj) {
		diag("%s: refused, errno %d (%s)", what, err, strerror(err));
		return;
	}
	diag("%s: accepted%s", what, must ? "" : " (allowed: the advertised limit is the smallest one)");
	if (must)
		(*bad)++;
	if (destroy(obj))
		diag("%s: destroy failed", what);
}

static int destroy_cq_v(void *p) { return ibv_destroy_cq(p); }
static int destroy_qp_v(void *p) { return ibv_destroy_qp(p); }
static int destroy_srq_v(void *p) { return ibv_destroy_srq(p); }
static int dereg_mr_v(void *p) { return ibv_dereg_mr(p); }

#define LIMIT(what, expr, must, destroy) do {				\
	void *o_;							\
	errno = 0;							\
	o_ = (void *)(expr);						\
	limit_check(what, o_, errno, must, &bad, destroy);		\
} while (0)
#define MUST_FAIL(what, expr, destroy) LIMIT(what, expr, true, destroy)

int case_limits(void)
{
	struct two t = {};
	struct ibv_cq *cq = NULL;
	struct ibv_device_attr *da;
	int rc = KSFT_PASS, bad = 0;

	CHECK(!two_open(&t), "devices");
	da = &t.d[0].attr;
	diag("max_qp_wr %d max_sge %d max_cqe %d max_srq_wr %d max_srq_sge %d rd_atom %d/%d",
	     da->max_qp_wr, da->max_sge, da->max_cqe, da->max_srq_wr, da->max_srq_sge,
	     da->max_qp_rd_atom, da->max_qp_init_rd_atom);
	cq = cq_new(&t.d[0], 16, NULL, NULL);
	CHECK(cq, "CQ");
	MUST_FAIL("CQ of max_cqe + 1", ibv_create_cq(t.d[0].ctx, da->max_cqe + 1, NULL, NULL, 0),
		  destroy_cq_v);
	{
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = da->max_qp_wr + 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		MUST_FAIL("QP with max_send_wr = max_qp_wr + 1", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		/* max_qp_wr and max_sge are the smaller of the send and the
		 * receive limits: one past them may still fit the receive
		 * queue, or a send WQE without remote address (the in-tree
		 * driver accepts these three).
		 */
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = da->max_qp_wr + 1;
		LIMIT("QP with max_recv_wr = max_qp_wr + 1", ibv_create_qp(t.d[0].pd, &ia), false,
		      destroy_qp_v);
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = da->max_sge + 1;
		LIMIT("QP with max_send_sge = max_sge + 1", ibv_create_qp(t.d[0].pd, &ia), false,
		      destroy_qp_v);
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = da->max_sge + 1;
		LIMIT("QP with max_recv_sge = max_sge + 1", ibv_create_qp(t.d[0].pd, &ia), false,
		      destroy_qp_v);
		ia.cap.max_recv_sge = 1;
		ia.cap.max_send_wr = 4 * da->max_qp_wr;
		MUST_FAIL("QP with max_send_wr = 4 * max_qp_wr", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 64 * da->max_qp_wr;
		MUST_FAIL("QP with max_recv_wr = 64 * max_qp_wr", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 2 * da->max_sge;
		MUST_FAIL("QP with max_send_sge = 2 * max_sge", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 2 * da->max_sge;
		MUST_FAIL("QP with max_recv_sge = 2 * max_sge", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = 1 << 20;
		MUST_FAIL("QP with 1 MiB of inline data", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
	}
	{
		struct ibv_srq_init_attr si = {
			.attr = { .max_wr = da->max_srq_wr + 1, .max_sge = 1 },
		};

		MUST_FAIL("SRQ with max_wr = max_srq_wr + 1", ibv_create_srq(t.d[0].pd, &si),
			  destroy_srq_v);
		si.attr.max_wr = 16;
		si.attr.max_sge = da->max_srq_sge + 1;
		MUST_FAIL("SRQ with max_sge = max_srq_sge + 1", ibv_create_srq(t.d[0].pd, &si),
			  destroy_srq_v);
	}
	{
		static uint8_t page[4096] __attribute__((aligned(4096)));

		MUST_FAIL("MR with REMOTE_WRITE but not LOCAL_WRITE",
			  ibv_reg_mr(t.d[0].pd, page, sizeof(page), IBV_ACCESS_REMOTE_WRITE),
			  dereg_mr_v);
	}
	/* Responder/initiator depth beyond the device's. */
	{
		struct ep a = {}, b = {};
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTR };
		struct conn_opts o = default_opts;
		int err;

		if (ep_create(&a, &t.d[0], NULL, NULL, 0, &o) ||
		    ep_create(&b, &t.d[1], NULL, NULL, 0, &o)) {
			ep_destroy(&a);
			ep_destroy(&b);
			CHECK(0, "QPs");
		}
		qa.path_mtu = IBV_MTU_1024;
		qa.dest_qp_num = b.qp->qp_num;
		qa.max_dest_rd_atomic = da->max_qp_rd_atom + 1;
		qa.min_rnr_timer = 12;
		qa.ah_attr.dlid = t.d[1].port.lid;
		qa.ah_attr.port_num = port_num;
		err = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
		diag("RTR with max_dest_rd_atomic = max_qp_rd_atom + 1: %s", err ? strerror(err) : "accepted");
		if (!err)
			bad++;
		qa.max_dest_rd_atomic = da->max_qp_rd_atom;
		err = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
		if (err) {
			diag("RTR with max_dest_rd_atomic = max_qp_rd_atom: %s", strerror(err));
			bad++;
		}
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTS;
		qa.timeout = 14;
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = da->max_qp_init_rd_atom + 1;
		err = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
		diag("RTS with max_rd_atomic = max_qp_init_rd_atom + 1: %s", err ? strerror(err) : "accepted");
		if (!err)
			bad++;
		ep_destroy(&a);
		ep_destroy(&b);
	}
	CHECK(!bad, "%d requests beyond the device limits accepted", bad);
out:
	cq_free(&cq);
	two_close(&t);
	return rc;
}

/* A creation that must succeed: prints its time, destroys the object. */
static void large_ok(const char *what, void *obj, long long t0, int *bad,
		     int (*destroy)(void *))
{
	if (!obj) {
		diag("%s: refused, errno %d (%s)", what, errno, strerror(errno));
		(*bad)++;
		return;
	}
	diag("%s: created in %lld ms", what, now_ms() - t0);
	if (destroy(obj)) {
		diag("%s: destroy failed", what);
		(*bad)++;
	}
}

/* A creation one beyond a limit: must fail with EINVAL. */
static void beyond(const char *what, void *obj, int *bad, int (*destroy)(void *))
{
	int err = errno;

	if (obj) {
		diag("%s: accepted", what);
		(*bad)++;
		if (destroy(obj))
			diag("%s: destroy failed", what);
		return;
	}
	diag("%s: refused, errno %d (%s)", what, err, strerror(err));
	if (err != EINVAL)
		(*bad)++;
}

#define LARGE(what, expr, destroy) do {					\
	long long t0_ = now_ms();					\
	errno = 0;							\
	large_ok(what, (void *)(expr), t0_, &bad, destroy);		\
} while (0)
#define BEYOND(what, expr, destroy) do {				\
	void *o_;							\
	errno = 0;							\
	o_ = (void *)(expr);						\
	beyond(what, o_, &bad, destroy);				\
} while (0)

/* Anonymous memory of this process in transparent huge pages, in KiB. */
static long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * An MR of @len bytes on HCA 1 (@huge: backed by transparent huge pages
 * where the kernel has them), written by an RDMA WRITE of HCA 0 near its
 * start, in the middle and at its very end, so that every part of the
 * translation is used. Returns false on a failure (printed).
 */
static bool large_mr(struct two *t, struct ep *a, size_t len, bool huge)
{
	const size_t align = 2UL << 20;
	const size_t offs[] = { 4096 + 123, len / 2 + 777, len - 4096 };
	char what[64];
	struct ibv_mr *mr = NULL;
	uint8_t *map, *buf;
	bool ok = false;
	long long t0;
	size_t i;

	snprintf(what, sizeof(what), "%zu MiB MR, %s", len >> 20,
		 huge ? "huge pages advised" : "4 KiB pages");
	map = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		diag("%s: mmap: %s", what, strerror(errno));
		return false;
	}
	buf = (uint8_t *)(((uintptr_t)map + align - 1) & ~(align - 1));
	if (madvise(buf, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		diag("%s: madvise: %s (continuing)", what, strerror(errno));
	t0 = now_ms();
	mr = ibv_reg_mr(t->d[1].pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		diag("%s: refused, errno %d (%s)", what, errno, strerror(errno));
		goto out;
	}
	diag("%s: registered in %lld ms (%ld MiB of the process in huge pages)", what,
	     now_ms() - t0, anon_huge_kb() / 1024);
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		fill(a->m.buf, 4096, (uint32_t)(i + 1) * 7919);
		if (post_rdma(a, IBV_WR_RDMA_WRITE, 100 + i, 0, a->m.mr->lkey, 4096,
			      (uintptr_t)buf + offs[i], mr->rkey) ||
		    !expect_wc(a->scq, 100 + i, IBV_WC_SUCCESS, NULL)) {
			diag("%s: WRITE at offset 0x%zx failed", what, offs[i]);
			goto out;
		}
		if (first_diff(a->m.buf, buf + offs[i], 4096) >= 0) {
			diag("%s: WRITE at offset 0x%zx: data differs at +%ld", what, offs[i],
			     first_diff(a->m.buf, buf + offs[i], 4096));
			goto out;
		}
	}
	ok = true;
out:
	if (mr && ibv_dereg_mr(mr)) {
		diag("%s: dereg failed", what);
		ok = false;
	}
	munmap(map, len + align);
	return ok;
}

int case_large(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_cq *cq = NULL;
	struct ibv_device_attr *da;
	int rc = KSFT_PASS, bad = 0;

	CHECK(!two_open(&t), "devices");
	da = &t.d[0].attr;
	diag("max_cqe %d max_mr_size 0x%llx max_qp_wr %d max_srq_wr %d max_sge %d",
	     da->max_cqe, (unsigned long long)da->max_mr_size, da->max_qp_wr, da->max_srq_wr,
	     da->max_sge);

	LARGE("CQ of 2^21 - 1 entries", ibv_create_cq(t.d[0].ctx, (1 << 21) - 1, NULL, NULL, 0),
	      destroy_cq_v);
	if (da->max_cqe != (1 << 21) - 1)
		LARGE("CQ of max_cqe entries",
		      ibv_create_cq(t.d[0].ctx, da->max_cqe, NULL, NULL, 0), destroy_cq_v);
	BEYOND("CQ of max_cqe + 1 entries",
	       ibv_create_cq(t.d[0].ctx, da->max_cqe + 1, NULL, NULL, 0), destroy_cq_v);

	cq = cq_new(&t.d[0], 16, NULL, NULL);
	CHECK(cq, "CQ");
	{
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = da->max_qp_wr, .max_recv_wr = da->max_qp_wr,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibv_srq_init_attr si = {
			.attr = { .max_wr = da->max_srq_wr, .max_sge = 1 },
		};

		LARGE("QP of max_qp_wr send and receive WRs", ibv_create_qp(t.d[0].pd, &ia),
		      destroy_qp_v);
		ia.cap.max_send_wr = ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = da->max_sge;
		ia.cap.max_recv_sge = da->max_sge;
		LARGE("QP of max_sge send and receive SGEs", ibv_create_qp(t.d[0].pd, &ia),
		      destroy_qp_v);
		LARGE("SRQ of max_srq_wr WRs", ibv_create_srq(t.d[0].pd, &si), destroy_srq_v);
		si.attr.max_wr = da->max_srq_wr + 1;
		BEYOND("SRQ of max_srq_wr + 1 WRs", ibv_create_srq(t.d[0].pd, &si),
		       destroy_srq_v);
	}

	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "pair");
	if (!large_mr(&t, &a, 1UL << 30, false))
		bad++;
	if (!large_mr(&t, &a, 1UL << 30, true))
		bad++;
	{
		/* The longest MR whose MTT list one command carries in 4 KiB
		 * pages (ours: max_mr_size), where the guest has the memory.
		 */
		size_t len = da->max_mr_size < (4ULL << 30) ? da->max_mr_size : 4ULL << 30;
		size_t avail = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);

		if (avail > len + (512UL << 20)) {
			if (!large_mr(&t, &a, len, false))
				bad++;
		} else {
			diag("%zu MiB MR: not tried, %zu MiB free (scripts/vm --mem)", len >> 20,
			     avail >> 20);
		}
	}
	if (da->max_mr_size < (1ULL << 62)) {
		static uint8_t page[4096] __attribute__((aligned(4096)));

		/* Refused on the length alone, before any page is pinned. */
		BEYOND("MR of max_mr_size + 4 KiB",
		       ibv_reg_mr(t.d[0].pd, page, da->max_mr_size + 4096, IBV_ACCESS_LOCAL_WRITE),
		       dereg_mr_v);
	} else {
		diag("MR of max_mr_size + 4 KiB: not tried (max_mr_size 0x%llx is not a real bound)",
		     (unsigned long long)da->max_mr_size);
	}
	CHECK(!bad, "%d of the largest objects failed or beyond-limit requests not refused with EINVAL",
	      bad);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&cq);
	two_close(&t);
	return rc;
}
