// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: type 1 (ibv_bind_mw) and type 2 (IBV_WR_BIND_MW),
 * remote access through them into an MR that grants no remote rights
 * itself, invalidation (zero-length bind, IBV_WR_LOCAL_INV, the peer's
 * SEND_WITH_INV) and access refused afterwards, and a bind granting more
 * than the MR allows. The windows are bound on the responder's QP.
 */
#define _GNU_SOURCE
#include "upstream_verbs.h"

#define MW_MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)
#define WIN_OFF 4096
#define WIN_LEN 8192

/* a's write/read of len bytes at (raddr, rkey); completion status st. */
static bool rdma_to(struct ep *a, enum ibv_wr_opcode op, uint64_t wr_id, size_t loff, uint64_t raddr,
		    uint32_t rkey, uint32_t len, enum ibv_wc_status st)
{
	if (op == IBV_WR_RDMA_WRITE)
		fill(a->m.buf + loff, len, (uint32_t)wr_id);
	if (post_rdma(a, op, wr_id, loff, a->m.mr->lkey, len, raddr, rkey))
		return false;
	return expect_wc(a->scq, wr_id, st, NULL);
}

/* A connected pair; b's buffer may only be reached through windows. */
static int mw_pair(struct two *t, struct ep *a, struct ep *b)
{
	if (ep_create(a, &t->d[0], NULL, NULL, MR_ALL, &default_opts) ||
	    ep_create(b, &t->d[1], NULL, NULL, MW_MR_ACCESS, &default_opts))
		return -1;
	return pair_connect(a, b, &default_opts, &default_opts);
}

static struct ibv_mw_bind_info window(struct ep *b, int access)
{
	struct ibv_mw_bind_info bi = {
		.mr = b->m.mr, .addr = (uintptr_t)b->m.buf + WIN_OFF, .length = WIN_LEN,
		.mw_access_flags = access,
	};

	return bi;
}

/* Binds type 2 window mw on b's QP; *rkey gets the new key. */
static bool bind_type2(struct ep *b, struct ibv_mw *mw, uint64_t wr_id, uint32_t *rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = mw, .rkey = ibv_inc_rkey(mw->rkey),
			     .bind_info = window(b, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) },
	};
	struct ibv_wc wc;

	if (post_wr(b->qp, &wr) || !expect_wc(b->scq, wr_id, IBV_WC_SUCCESS, &wc))
		return false;
	if (wc.opcode != IBV_WC_BIND_MW) {
		diag("bind completion opcode %d, expected IBV_WC_BIND_MW", wc.opcode);
		return false;
	}
	*rkey = wr.bind_mw.rkey;
	return true;
}

int case_mw_type1(void)
{
	struct two t = {};
	struct ep a = {}, b = {}, a2 = {}, b2 = {};
	struct ibv_mw *mw = NULL;
	struct ibv_mw_bind bind = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
	};
	uint64_t win;
	struct ibv_wc wc;
	int rc = KSFT_PASS, err;

	CHECK(!two_open(&t), "cannot open the devices");
	CHECK(!mw_pair(&t, &a, &b), "pair setup failed");
	win = (uintptr_t)b.m.buf + WIN_OFF;
	mw = ibv_alloc_mw(t.d[1].pd, IBV_MW_TYPE_1);
	CHECK(mw, "ibv_alloc_mw(type 1): %s", strerror(errno));
	bind.bind_info = window(&b, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	err = ibv_bind_mw(b.qp, mw, &bind);
	CHECK(!err, "ibv_bind_mw: %s", strerror(err));
	CHECK(expect_wc(b.scq, 1, IBV_WC_SUCCESS, &wc), "bind completion");
	CHECK(wc.opcode == IBV_WC_BIND_MW, "bind completion opcode %d", wc.opcode);
	CHECK(rdma_to(&a, IBV_WR_RDMA_WRITE, 2, 0, win + 1024, mw->rkey, 4096, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(first_diff(a.m.buf, b.m.buf + WIN_OFF + 1024, 4096) < 0, "the written data did not arrive");
	fill(b.m.buf + WIN_OFF + WIN_LEN - 64, 64, 77);
	CHECK(rdma_to(&a, IBV_WR_RDMA_READ, 3, 8192, win + WIN_LEN - 64, mw->rkey, 64, IBV_WC_SUCCESS),
	      "read through the window");
	CHECK(first_diff(a.m.buf + 8192, b.m.buf + WIN_OFF + WIN_LEN - 64, 64) < 0, "the read data differ");
	CHECK(rdma_to(&a, IBV_WR_RDMA_WRITE, 4, 0, win - 64, mw->rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write before the window");
	/* A type 1 window serves every QP of its PD: unbind it on another. */
	CHECK(!mw_pair(&t, &a2, &b2), "second pair setup failed");
	CHECK(rdma_to(&a2, IBV_WR_RDMA_WRITE, 5, 0, win, mw->rkey, 64, IBV_WC_SUCCESS),
	      "write through the window from another QP");
	memset(&bind.bind_info, 0, sizeof(bind.bind_info));
	bind.wr_id = 6;
	err = ibv_bind_mw(b2.qp, mw, &bind);
	CHECK(!err, "zero-length ibv_bind_mw: %s", strerror(err));
	CHECK(expect_wc(b2.scq, 6, IBV_WC_SUCCESS, NULL), "zero-length bind completion");
	CHECK(rdma_to(&a2, IBV_WR_RDMA_WRITE, 7, 0, win, mw->rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the unbound window");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	ep_destroy(&a2);
	ep_destroy(&b2);
	if (mw && ibv_dealloc_mw(mw))
		diag("ibv_dealloc_mw: %s", strerror(errno));
	two_close(&t);
	return rc;
}

int case_mw_type2(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_mw *mw = NULL;
	struct ibv_send_wr inv = {
		.wr_id = 3, .opcode = IBV_WR_LOCAL_INV, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint32_t rkey = 0;
	uint64_t win;
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "cannot open the devices");
	CHECK(!mw_pair(&t, &a, &b), "pair setup failed");
	win = (uintptr_t)b.m.buf + WIN_OFF;
	mw = ibv_alloc_mw(t.d[1].pd, IBV_MW_TYPE_2);
	CHECK(mw, "ibv_alloc_mw(type 2): %s", strerror(errno));
	CHECK(bind_type2(&b, mw, 1, &rkey), "type 2 bind");
	CHECK(rdma_to(&a, IBV_WR_RDMA_WRITE, 2, 0, win + WIN_LEN - 4096, rkey, 4096, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(first_diff(a.m.buf, b.m.buf + WIN_OFF + WIN_LEN - 4096, 4096) < 0, "the written data did not arrive");
	inv.invalidate_rkey = rkey;
	CHECK(!post_wr(b.qp, &inv), "posting LOCAL_INV");
	CHECK(expect_wc(b.scq, 3, IBV_WC_SUCCESS, &wc), "LOCAL_INV completion");
	CHECK(wc.opcode == IBV_WC_LOCAL_INV, "LOCAL_INV completion opcode %d", wc.opcode);
	CHECK(rdma_to(&a, IBV_WR_RDMA_WRITE, 4, 0, win, rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the invalidated window");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	if (mw && ibv_dealloc_mw(mw))
		diag("ibv_dealloc_mw: %s", strerror(errno));
	two_close(&t);
	return rc;
}

int case_mw_send_inv(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_mw *mw = NULL;
	struct ibv_sge sg;
	struct ibv_send_wr send = {
		.wr_id = 3, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint32_t rkey = 0;
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "cannot open the devices");
	CHECK(!mw_pair(&t, &a, &b), "pair setup failed");
	mw = ibv_alloc_mw(t.d[1].pd, IBV_MW_TYPE_2);
	CHECK(mw, "ibv_alloc_mw(type 2): %s", strerror(errno));
	CHECK(bind_type2(&b, mw, 1, &rkey), "type 2 bind");
	CHECK(rdma_to(&a, IBV_WR_RDMA_WRITE, 2, 0, (uintptr_t)b.m.buf + WIN_OFF, rkey, 64, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(!post_recv(&b, 10, 0, 64), "posting a receive");
	sg = (struct ibv_sge){ .addr = (uintptr_t)a.m.buf, .length = 32, .lkey = a.m.mr->lkey };
	send.invalidate_rkey = rkey;
	CHECK(!post_wr(a.qp, &send), "posting SEND_WITH_INV");
	CHECK(expect_wc(a.scq, 3, IBV_WC_SUCCESS, NULL), "SEND_WITH_INV completion");
	CHECK(expect_wc(b.rcq, 10, IBV_WC_SUCCESS, &wc), "receive completion");
	CHECK(wc.wc_flags & IBV_WC_WITH_INV, "receive completion without IBV_WC_WITH_INV (flags 0x%x)", wc.wc_flags);
	CHECK(wc.invalidated_rkey == rkey, "invalidated rkey 0x%x, expected 0x%x", wc.invalidated_rkey, rkey);
	CHECK(wc.byte_len == 32, "receive of %u bytes, expected 32", wc.byte_len);
	CHECK(rdma_to(&a, IBV_WR_RDMA_WRITE, 4, 0, (uintptr_t)b.m.buf + WIN_OFF, rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the invalidated window");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	if (mw && ibv_dealloc_mw(mw))
		diag("ibv_dealloc_mw: %s", strerror(errno));
	two_close(&t);
	return rc;
}

int case_mw_rights(void)
{
	struct two t = {};
	struct mem ro = {};
	struct ep a = {}, b = {};
	struct ibv_mw *mw = NULL;
	struct ibv_mw_bind bind = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;
	int rc = KSFT_PASS, err;

	CHECK(!two_open(&t), "cannot open the devices");
	CHECK(!mw_pair(&t, &a, &b), "pair setup failed");
	CHECK(!mem_reg(&ro, &t.d[1], 4 * 4096, IBV_ACCESS_MW_BIND), "MR registration failed");
	mw = ibv_alloc_mw(t.d[1].pd, IBV_MW_TYPE_1);
	CHECK(mw, "ibv_alloc_mw(type 1): %s", strerror(errno));
	bind.bind_info = (struct ibv_mw_bind_info){
		.mr = ro.mr, .addr = (uintptr_t)ro.buf, .length = 4096, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	err = ibv_bind_mw(b.qp, mw, &bind);
	if (err) {
		diag("ibv_bind_mw refused the bind: %s", strerror(err));
		goto out;
	}
	CHECK(wait_wc(b.scq, &wc, 1, wait_ms) == 1, "no completion for the bind");
	CHECK(wc.status == IBV_WC_MW_BIND_ERR, "bind completed with %s, expected MW_BIND_ERR", wc_status(wc.status));
out:
	ep_destroy(&a);
	ep_destroy(&b);
	if (mw && ibv_dealloc_mw(mw))
		diag("ibv_dealloc_mw: %s", strerror(errno));
	mem_free(&ro);
	two_close(&t);
	return rc;
}
