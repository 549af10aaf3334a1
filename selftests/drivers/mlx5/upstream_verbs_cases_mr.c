// SPDX-License-Identifier: GPL-2.0
/*
 * ibv_rereg_mr: access, PD and translation changes of a registered MR
 * (the in-tree mlx5_ib changes the mkey in place with UMR WQEs), each
 * proven by RDMA WRITEs from the peer through the same rkey. A write that
 * must fail comes last on its connection (the QP is in error after it).
 */
#define _GNU_SOURCE
#include "upstream_verbs.h"

/* a writes len bytes of its buffer to (raddr, rkey); completion status st. */
static bool write_to(struct ep *a, uint64_t wr_id, uint64_t raddr, uint32_t rkey, uint32_t len,
		     enum ibv_wc_status st)
{
	fill(a->m.buf, len, (uint32_t)wr_id);
	if (post_rdma(a, IBV_WR_RDMA_WRITE, wr_id, 0, a->m.mr->lkey, len, raddr, rkey))
		return false;
	return expect_wc(a->scq, wr_id, st, NULL);
}

/* A connected pair whose responder b registers its buffer with b_access. */
static int pair_with(struct two *t, struct ep *a, struct ep *b, int b_access)
{
	if (ep_create(a, &t->d[0], NULL, NULL, MR_ALL, &default_opts) ||
	    ep_create(b, &t->d[1], NULL, NULL, b_access, &default_opts))
		return -1;
	return pair_connect(a, b, &default_opts, &default_opts);
}

static int rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t len, int access)
{
	int r = ibv_rereg_mr(mr, flags, pd, addr, len, access);

	if (r)
		diag("ibv_rereg_mr(flags 0x%x): %d (%s)", flags, r, strerror(errno));
	return r;
}

int case_rereg_access(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	uint64_t dst;
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "cannot open the devices");
	CHECK(!pair_with(&t, &a, &b, IBV_ACCESS_LOCAL_WRITE), "pair setup failed");
	dst = (uintptr_t)b.m.buf + 4096;
	CHECK(!rereg(b.m.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE), "granting remote write");
	CHECK(write_to(&a, 1, dst, b.m.mr->rkey, 4096, IBV_WC_SUCCESS), "write after granting remote write");
	CHECK(first_diff(a.m.buf, b.m.buf + 4096, 4096) < 0, "the written data did not arrive");
	CHECK(!rereg(b.m.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE),
	      "revoking remote write");
	CHECK(write_to(&a, 2, dst, b.m.mr->rkey, 64, IBV_WC_REM_ACCESS_ERR), "write after revoking remote write");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

int case_rereg_pd(void)
{
	struct two t = {};
	struct ep a = {}, b = {}, a2 = {}, b2 = {};
	struct ibv_pd *pd1 = NULL, *pd2 = NULL;
	struct mem x = {};
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "cannot open the devices");
	pd1 = t.d[1].pd;
	CHECK(!pair_with(&t, &a, &b, MR_ALL), "pair setup failed");
	CHECK(!mem_reg(&x, &t.d[1], 8192, MR_ALL), "MR registration failed");
	CHECK(write_to(&a, 1, (uintptr_t)x.buf, x.mr->rkey, 256, IBV_WC_SUCCESS), "write in the first PD");
	pd2 = ibv_alloc_pd(t.d[1].ctx);
	CHECK(pd2, "ibv_alloc_pd: %s", strerror(errno));
	CHECK(!rereg(x.mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), "moving the MR to another PD");
	/* A second connection whose responder lives in the new PD. */
	t.d[1].pd = pd2;
	rc = pair_with(&t, &a2, &b2, MR_ALL) ? KSFT_FAIL : KSFT_PASS;
	t.d[1].pd = pd1;
	CHECK(rc == KSFT_PASS, "pair setup in the new PD failed");
	CHECK(write_to(&a2, 2, (uintptr_t)x.buf + 4096, x.mr->rkey, 4096, IBV_WC_SUCCESS),
	      "write through a QP of the new PD");
	CHECK(first_diff(a2.m.buf, x.buf + 4096, 4096) < 0, "the written data did not arrive");
	CHECK(write_to(&a, 3, (uintptr_t)x.buf, x.mr->rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through a QP of the old PD");
out:
	t.d[1].pd = pd1;
	ep_destroy(&a);
	ep_destroy(&b);
	ep_destroy(&a2);
	ep_destroy(&b2);
	mem_free(&x);
	if (pd2 && ibv_dealloc_pd(pd2))
		diag("ibv_dealloc_pd: %s", strerror(errno));
	two_close(&t);
	return rc;
}

int case_rereg_translation(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct mem x = {};
	uint8_t *y = NULL, *old;
	const size_t ylen = 3 * 4096;
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "cannot open the devices");
	CHECK(!pair_with(&t, &a, &b, MR_ALL), "pair setup failed");
	CHECK(!mem_reg(&x, &t.d[1], 8192, MR_ALL), "MR registration failed");
	CHECK(!posix_memalign((void **)&y, 4096, ylen), "no memory");
	memset(y, 0, ylen);
	old = x.buf;
	CHECK(!rereg(x.mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, y, ylen, 0), "moving the MR to another buffer");
	CHECK(x.mr->addr == y && x.mr->length == ylen, "the MR reports %p + %zu, not the new buffer",
	      x.mr->addr, x.mr->length);
	/* 8 KiB across the three pages of the new buffer. */
	CHECK(write_to(&a, 1, (uintptr_t)y + 2048, x.mr->rkey, 8192, IBV_WC_SUCCESS), "write to the new buffer");
	CHECK(first_diff(a.m.buf, y + 2048, 8192) < 0, "the written data did not arrive in the new buffer");
	CHECK(first_not(old, 8192, 0) < 0, "the old buffer was written");
	CHECK(write_to(&a, 2, (uintptr_t)old, x.mr->rkey, 64, IBV_WC_REM_ACCESS_ERR), "write to the old buffer");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	mem_free(&x);
	free(y);
	two_close(&t);
	return rc;
}
