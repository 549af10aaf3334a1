// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: type 1 (ibv_bind_mw) and type 2 (IBV_WR_BIND_MW),
 * remote access through them into an MR that grants no remote rights
 * itself, invalidation (zero-length bind, IBV_WR_LOCAL_INV, the peer's
 * SEND_WITH_INV) and access refused afterwards, a bound window freed,
 * and a bind granting more than the MR allows. The windows are bound on the responder's QP.
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

/*
 * What every window case starts from: the two devices, a connected pair
 * a -> b whose responder buffer may only be reached through windows, and
 * one window of the given type in b's PD. Room for a second pair and a
 * second MR on b's device, which mw_teardown() frees as well.
 */
struct mw_fixture {
	struct two t;
	struct ep a, b, a2, b2;
	struct mem extra;
	struct ibv_mw *mw;
};

static int mw_pair(struct two *t, struct ep *a, struct ep *b)
{
	if (ep_create(a, &t->d[0], NULL, NULL, MR_ALL, &default_opts) ||
	    ep_create(b, &t->d[1], NULL, NULL, MW_MR_ACCESS, &default_opts))
		return -1;
	return pair_connect(a, b, &default_opts, &default_opts);
}

static bool mw_setup(struct mw_fixture *f, enum ibv_mw_type type)
{
	if (two_open(&f->t)) {
		diag("cannot open the devices");
		return false;
	}
	if (mw_pair(&f->t, &f->a, &f->b)) {
		diag("pair setup failed");
		return false;
	}
	f->mw = ibv_alloc_mw(f->t.d[1].pd, type);
	if (!f->mw) {
		diag("ibv_alloc_mw(type %d): %s", type, strerror(errno));
		return false;
	}
	return true;
}

/* The second pair, b2's buffer again reachable only through windows. */
static bool mw_second_pair(struct mw_fixture *f)
{
	if (mw_pair(&f->t, &f->a2, &f->b2)) {
		diag("second pair setup failed");
		return false;
	}
	return true;
}

static void mw_teardown(struct mw_fixture *f)
{
	ep_destroy(&f->a);
	ep_destroy(&f->b);
	ep_destroy(&f->a2);
	ep_destroy(&f->b2);
	if (f->mw && ibv_dealloc_mw(f->mw))
		diag("ibv_dealloc_mw: %s", strerror(errno));
	mem_free(&f->extra);
	two_close(&f->t);
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
	struct mw_fixture f = {};
	struct ibv_mw_bind bind = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
	};
	uint64_t win;
	struct ibv_wc wc;
	int rc = KSFT_PASS, err;

	CHECK(mw_setup(&f, IBV_MW_TYPE_1), "setup failed");
	win = (uintptr_t)f.b.m.buf + WIN_OFF;
	bind.bind_info = window(&f.b, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	err = ibv_bind_mw(f.b.qp, f.mw, &bind);
	CHECK(!err, "ibv_bind_mw: %s", strerror(err));
	CHECK(expect_wc(f.b.scq, 1, IBV_WC_SUCCESS, &wc), "bind completion");
	CHECK(wc.opcode == IBV_WC_BIND_MW, "bind completion opcode %d", wc.opcode);
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 2, 0, win + 1024, f.mw->rkey, 4096, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(first_diff(f.a.m.buf, f.b.m.buf + WIN_OFF + 1024, 4096) < 0,
	      "the written data did not arrive");
	fill(f.b.m.buf + WIN_OFF + WIN_LEN - 64, 64, 77);
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_READ, 3, 8192, win + WIN_LEN - 64, f.mw->rkey, 64,
		      IBV_WC_SUCCESS), "read through the window");
	CHECK(first_diff(f.a.m.buf + 8192, f.b.m.buf + WIN_OFF + WIN_LEN - 64, 64) < 0,
	      "the read data differ");
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 4, 0, win - 64, f.mw->rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write before the window");
	/* A type 1 window serves every QP of its PD: unbind it on another. */
	CHECK(mw_second_pair(&f), "second pair setup failed");
	CHECK(rdma_to(&f.a2, IBV_WR_RDMA_WRITE, 5, 0, win, f.mw->rkey, 64, IBV_WC_SUCCESS),
	      "write through the window from another QP");
	memset(&bind.bind_info, 0, sizeof(bind.bind_info));
	bind.wr_id = 6;
	err = ibv_bind_mw(f.b2.qp, f.mw, &bind);
	CHECK(!err, "zero-length ibv_bind_mw: %s", strerror(err));
	CHECK(expect_wc(f.b2.scq, 6, IBV_WC_SUCCESS, NULL), "zero-length bind completion");
	CHECK(rdma_to(&f.a2, IBV_WR_RDMA_WRITE, 7, 0, win, f.mw->rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the unbound window");
out:
	mw_teardown(&f);
	return rc;
}

int case_mw_type2(void)
{
	struct mw_fixture f = {};
	struct ibv_send_wr inv = {
		.wr_id = 3, .opcode = IBV_WR_LOCAL_INV, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint32_t rkey = 0;
	uint64_t win;
	int rc = KSFT_PASS;

	CHECK(mw_setup(&f, IBV_MW_TYPE_2), "setup failed");
	win = (uintptr_t)f.b.m.buf + WIN_OFF;
	CHECK(bind_type2(&f.b, f.mw, 1, &rkey), "type 2 bind");
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 2, 0, win + WIN_LEN - 4096, rkey, 4096, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(first_diff(f.a.m.buf, f.b.m.buf + WIN_OFF + WIN_LEN - 4096, 4096) < 0,
	      "the written data did not arrive");
	/* A type 2 window serves the QP it is bound to only. */
	CHECK(mw_second_pair(&f), "second pair setup failed");
	CHECK(rdma_to(&f.a2, IBV_WR_RDMA_WRITE, 5, 0, win, rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the window to a QP it is not bound to");
	inv.invalidate_rkey = rkey;
	CHECK(!post_wr(f.b.qp, &inv), "posting LOCAL_INV");
	CHECK(expect_wc(f.b.scq, 3, IBV_WC_SUCCESS, &wc), "LOCAL_INV completion");
	CHECK(wc.opcode == IBV_WC_LOCAL_INV, "LOCAL_INV completion opcode %d", wc.opcode);
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 4, 0, win, rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the invalidated window");
out:
	mw_teardown(&f);
	return rc;
}

int case_mw_send_inv(void)
{
	struct mw_fixture f = {};
	struct ibv_sge sg;
	struct ibv_send_wr send = {
		.wr_id = 3, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint32_t rkey = 0;
	uint64_t win;
	int rc = KSFT_PASS;

	CHECK(mw_setup(&f, IBV_MW_TYPE_2), "setup failed");
	win = (uintptr_t)f.b.m.buf + WIN_OFF;
	CHECK(bind_type2(&f.b, f.mw, 1, &rkey), "type 2 bind");
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 2, 0, win, rkey, 64, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(!post_recv(&f.b, 10, 0, 64), "posting a receive");
	sg = (struct ibv_sge){ .addr = (uintptr_t)f.a.m.buf, .length = 32, .lkey = f.a.m.mr->lkey };
	send.invalidate_rkey = rkey;
	CHECK(!post_wr(f.a.qp, &send), "posting SEND_WITH_INV");
	CHECK(expect_wc(f.a.scq, 3, IBV_WC_SUCCESS, NULL), "SEND_WITH_INV completion");
	CHECK(expect_wc(f.b.rcq, 10, IBV_WC_SUCCESS, &wc), "receive completion");
	CHECK(wc.wc_flags & IBV_WC_WITH_INV, "receive completion without IBV_WC_WITH_INV (flags 0x%x)",
	      wc.wc_flags);
	CHECK(wc.invalidated_rkey == rkey, "invalidated rkey 0x%x, expected 0x%x", wc.invalidated_rkey,
	      rkey);
	CHECK(wc.byte_len == 32, "receive of %u bytes, expected 32", wc.byte_len);
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 4, 0, win, rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the invalidated window");
out:
	mw_teardown(&f);
	return rc;
}

int case_mw_rights(void)
{
	struct mw_fixture f = {};
	struct ibv_mw_bind bind = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;
	int rc = KSFT_PASS, err;

	CHECK(mw_setup(&f, IBV_MW_TYPE_1), "setup failed");
	/* An MR that may be bound but not written locally. */
	CHECK(!mem_reg(&f.extra, &f.t.d[1], 4 * 4096, IBV_ACCESS_MW_BIND), "MR registration failed");
	bind.bind_info = (struct ibv_mw_bind_info){
		.mr = f.extra.mr, .addr = (uintptr_t)f.extra.buf, .length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	err = ibv_bind_mw(f.b.qp, f.mw, &bind);
	if (err) {
		diag("ibv_bind_mw refused the bind: %s", strerror(err));
		goto out;
	}
	CHECK(wait_wc(f.b.scq, &wc, 1, wait_ms) == 1, "no completion for the bind");
	CHECK(wc.status == IBV_WC_MW_BIND_ERR, "bind completed with %s, expected MW_BIND_ERR",
	      wc_status(wc.status));
out:
	mw_teardown(&f);
	return rc;
}

int case_mw_dealloc(void)
{
	struct mw_fixture f = {};
	uint8_t first[64];
	uint32_t rkey = 0;
	uint64_t win;
	int rc = KSFT_PASS;

	CHECK(mw_setup(&f, IBV_MW_TYPE_2), "setup failed");
	win = (uintptr_t)f.b.m.buf + WIN_OFF;
	CHECK(bind_type2(&f.b, f.mw, 1, &rkey), "type 2 bind");
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 2, 0, win, rkey, 64, IBV_WC_SUCCESS),
	      "write through the window");
	CHECK(!ibv_dealloc_mw(f.mw), "ibv_dealloc_mw of a bound window: %s", strerror(errno));
	f.mw = NULL;
	CHECK(rdma_to(&f.a, IBV_WR_RDMA_WRITE, 3, 0, win, rkey, 64, IBV_WC_REM_ACCESS_ERR),
	      "write through the freed window");
	fill(first, sizeof(first), 2);
	CHECK(first_diff(first, f.b.m.buf + WIN_OFF, sizeof(first)) < 0,
	      "the freed window was written");
out:
	mw_teardown(&f);
	return rc;
}
