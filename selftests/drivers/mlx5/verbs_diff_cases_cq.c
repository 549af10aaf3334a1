// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues and channels: sizes within and beyond max_cqe, vectors,
 * extended CQ flags, resize, moderation, notification, busy destroys.
 */
#define _GNU_SOURCE
#include "verbs_diff.h"

static void tr_cq(const char *var, struct ibv_cq *cq)
{
	tr("ibv_create_cq", var, ptr_err(cq), "cqe=%d", cq ? cq->cqe : 0);
}

int case_cq(void)
{
	struct two t;
	struct ibv_context *c;
	struct ibv_cq *cq;
	int rc = KSFT_PASS, err, max;

	tr_case = "cq";
	CHECK(!two_open(&t), "open devices");
	c = t.d[0].ctx;
	max = t.d[0].attr.max_cqe;
	{
		static const int sz[] = { 1, 2, 63, 64, 65, 1000, 4096 };

		for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
			char var[16];

			snprintf(var, sizeof(var), "cqe%d", sz[i]);
			errno = 0;
			cq = ibv_create_cq(c, sz[i], NULL, NULL, 0);
			tr_cq(var, cq);
			if (cq)
				ibv_destroy_cq(cq);
		}
	}
	errno = 0;
	cq = ibv_create_cq(c, 0, NULL, NULL, 0);
	tr_cq("cqe0", cq);
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(c, -1, NULL, NULL, 0);
	tr_cq("cqe-1", cq);
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(c, max + 1, NULL, NULL, 0);
	tr_cq("max_cqe+1", cq);
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(c, 16, NULL, NULL, c->num_comp_vectors);
	tr_cq("vector_beyond", cq);
	if (cq)
		ibv_destroy_cq(cq);
	tr("num_comp_vectors", "mlx5_0", 0, "positive=%d", c->num_comp_vectors > 0);
	errno = 0;
	cq = ibv_create_cq(c, 16, NULL, NULL, c->num_comp_vectors - 1);
	tr_cq("vector_last", cq);
	if (cq)
		ibv_destroy_cq(cq);

	/* Extended CQs: each completion field flag, create flags. */
	{
		static const struct { const char *n; uint64_t f; uint32_t fl; } x[] = {
			{ "standard", IBV_WC_STANDARD_FLAGS, 0 },
			{ "byte_len", IBV_WC_EX_WITH_BYTE_LEN, 0 },
			{ "imm", IBV_WC_EX_WITH_IMM, 0 },
			{ "qp_num", IBV_WC_EX_WITH_QP_NUM, 0 },
			{ "src_qp", IBV_WC_EX_WITH_SRC_QP, 0 },
			{ "slid", IBV_WC_EX_WITH_SLID, 0 },
			{ "sl", IBV_WC_EX_WITH_SL, 0 },
			{ "dlid_path_bits", IBV_WC_EX_WITH_DLID_PATH_BITS, 0 },
			{ "ts", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, 0 },
			{ "cvlan", IBV_WC_EX_WITH_CVLAN, 0 },
			{ "flow_tag", IBV_WC_EX_WITH_FLOW_TAG, 0 },
			{ "tm_info", IBV_WC_EX_WITH_TM_INFO, 0 },
			{ "wallclock", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 0 },
			{ "unknown_wc_flag", 1ULL << 40, 0 },
			{ "single_threaded", IBV_WC_STANDARD_FLAGS, IBV_CREATE_CQ_ATTR_SINGLE_THREADED },
			{ "ignore_overrun", IBV_WC_STANDARD_FLAGS, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN },
			{ "unknown_create_flag", IBV_WC_STANDARD_FLAGS, 1U << 7 },
		};

		for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
			struct ibv_cq_init_attr_ex ca = {
				.cqe = 32, .wc_flags = x[i].f,
				.comp_mask = x[i].fl ? IBV_CQ_INIT_ATTR_MASK_FLAGS : 0,
				.flags = x[i].fl,
			};
			struct ibv_cq_ex *cx;

			errno = 0;
			cx = ibv_create_cq_ex(c, &ca);
			tr("ibv_create_cq_ex", x[i].n, ptr_err(cx), "cqe=%d",
			   cx ? ibv_cq_ex_to_cq(cx)->cqe : 0);
			if (cx)
				ibv_destroy_cq(ibv_cq_ex_to_cq(cx));
		}
	}
	{
		struct ibv_cq_init_attr_ex ca = { .cqe = 32, .comp_mask = 0x100 };
		struct ibv_cq_ex *cx;

		errno = 0;
		cx = ibv_create_cq_ex(c, &ca);
		tr("ibv_create_cq_ex", "unknown_comp_mask", ptr_err(cx), NULL);
		if (cx)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cx));
	}

	/* Resize. */
	errno = 0;
	cq = ibv_create_cq(c, 64, NULL, NULL, 0);
	CHECK(cq, "CQ for resize");
	{
		/* Not beyond max_cqe: the provider allocates the ring first (256 MiB). */
		static const int sz[] = { 128, 32, 1, 0, -5 };

		for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
			char var[24];
			int n = sz[i];

			snprintf(var, sizeof(var), "%d", sz[i]);
			errno = 0;
			err = ret_err(ibv_resize_cq(cq, n));
			tr("ibv_resize_cq", var, err, "cqe=%d", cq->cqe);
		}
	}
	/* Moderation. */
	{
		static const struct { const char *n; uint32_t mask; uint16_t cnt, per; } m[] = {
			{ "count_period", IBV_CQ_ATTR_MODERATE, 8, 100 },
			{ "zero", IBV_CQ_ATTR_MODERATE, 0, 0 },
			{ "max_count", IBV_CQ_ATTR_MODERATE, 0xffff, 1 },
			{ "max_period", IBV_CQ_ATTR_MODERATE, 1, 0xffff },
			{ "no_mask", 0, 1, 1 },
			{ "unknown_mask", 0x10, 1, 1 },
		};

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			struct ibv_modify_cq_attr ma = {
				.attr_mask = m[i].mask,
				.moderate = { .cq_count = m[i].cnt, .cq_period = m[i].per },
			};

			err = ret_err(ibv_modify_cq(cq, &ma));
			tr("ibv_modify_cq", m[i].n, err, NULL);
		}
	}
	tr("ibv_req_notify_cq", "all", ret_err(ibv_req_notify_cq(cq, 0)), NULL);
	tr("ibv_req_notify_cq", "solicited", ret_err(ibv_req_notify_cq(cq, 1)), NULL);
	{
		struct ep e;

		memset(&e, 0, sizeof(e));
		if (!ep_create(&e, &t.d[0], cq, cq, 0, &default_opts)) {
			errno = 0;
			tr("ibv_destroy_cq", "busy", ret_err(ibv_destroy_cq(cq)), NULL);
			e.own_cqs = false;
			ep_destroy(&e);
		} else {
			tr("ep_create", "on_cq", EIO, NULL);
		}
	}
	tr("ibv_destroy_cq", "idle", ret_err(ibv_destroy_cq(cq)), NULL);
out:
	two_close(&t);
	return rc;
}

int case_channel(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq = NULL, *got;
	struct two t;
	struct ep a, b;
	void *ctx;
	int rc = KSFT_PASS, err;

	tr_case = "channel";
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	CHECK(!two_open(&t), "open devices");
	errno = 0;
	ch = ibv_create_comp_channel(t.d[1].ctx);
	tr("ibv_create_comp_channel", "plain", ptr_err(ch), NULL);
	CHECK(ch, "channel");
	CHECK(!set_nonblock(ch->fd), "nonblock");
	cq = ibv_create_cq(t.d[1].ctx, 64, (void *)0x77, ch, 0);
	tr("ibv_create_cq", "on_channel", ptr_err(cq), NULL);
	CHECK(cq, "CQ");
	errno = 0;
	tr("ibv_destroy_comp_channel", "busy", ret_err(ibv_destroy_comp_channel(ch)), NULL);
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "a");
	CHECK(!ep_create(&b, &t.d[1], cq, cq, MR_ALL, &default_opts), "b");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");
	tr("ibv_req_notify_cq", "arm", ret_err(ibv_req_notify_cq(cq, 0)), NULL);
	tr("fd_ready", "before_traffic", 0, "%d", fd_ready(ch->fd, 50));
	CHECK(!post_recv(&b, 0x100, 0, 64), "recv");
	CHECK(!post_send(&a, 0x200, 0, 64, IBV_SEND_SIGNALED), "send");
	got = get_cq_event(ch, &ctx, wait_ms);
	tr("ibv_get_cq_event", "after_send", got ? 0 : ETIMEDOUT, "right_cq=%d ctx=%p", got == cq,
	   ctx);
	tr_poll(a.scq, "send", 1, wait_ms, a.qp->qp_num, b.qp->qp_num);
	tr_poll(cq, "recv", 1, wait_ms, b.qp->qp_num, a.qp->qp_num);
	if (got)
		ibv_ack_cq_events(cq, 1);
	/* Not armed: a second completion makes no event. */
	CHECK(!post_recv(&b, 0x101, 0, 64), "recv");
	CHECK(!post_send(&a, 0x201, 0, 64, IBV_SEND_SIGNALED), "send");
	tr_poll(a.scq, "send2", 1, wait_ms, a.qp->qp_num, b.qp->qp_num);
	tr_poll(cq, "recv2", 1, wait_ms, b.qp->qp_num, a.qp->qp_num);
	tr("fd_ready", "unarmed", 0, "%d", fd_ready(ch->fd, 200));
	/* Solicited only: an unsolicited SEND makes no event, a solicited one does. */
	tr("ibv_req_notify_cq", "solicited", ret_err(ibv_req_notify_cq(cq, 1)), NULL);
	CHECK(!post_recv(&b, 0x102, 0, 64), "recv");
	CHECK(!post_send(&a, 0x202, 0, 64, IBV_SEND_SIGNALED), "send");
	tr_poll(a.scq, "send3", 1, wait_ms, a.qp->qp_num, b.qp->qp_num);
	tr_poll(cq, "recv3", 1, wait_ms, b.qp->qp_num, a.qp->qp_num);
	tr("fd_ready", "unsolicited", 0, "%d", fd_ready(ch->fd, 200));
	CHECK(!post_recv(&b, 0x103, 0, 64), "recv");
	CHECK(!post_send(&a, 0x203, 0, 64, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED), "send");
	tr_poll(a.scq, "send4", 1, wait_ms, a.qp->qp_num, b.qp->qp_num);
	got = get_cq_event(ch, &ctx, wait_ms);
	tr("ibv_get_cq_event", "solicited", got ? 0 : ETIMEDOUT, "right_cq=%d", got == cq);
	if (got)
		ibv_ack_cq_events(cq, 1);
	tr_poll(cq, "recv4", 1, wait_ms, b.qp->qp_num, a.qp->qp_num);
	ep_destroy(&b);
	err = ret_err(ibv_destroy_cq(cq));
	tr("ibv_destroy_cq", "on_channel", err, NULL);
	if (!err)
		cq = NULL;
	tr("ibv_destroy_comp_channel", "idle", ret_err(ibv_destroy_comp_channel(ch)), NULL);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	if (cq)
		ibv_destroy_cq(cq);
	two_close(&t);
	return rc;
}
