// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: limits, modify, query, posts beyond the depth;
 * XRC domains, XRC SRQs and XRC initiator/target QPs.
 */
#define _GNU_SOURCE
#include "verbs_diff.h"

static void tr_srq_query(const char *var, struct ibv_srq *srq)
{
	struct ibv_srq_attr a = {};
	int err = ret_err(ibv_query_srq(srq, &a));

	tr("ibv_query_srq", var, err, "max_wr=%u max_sge=%u limit=%u", a.max_wr, a.max_sge,
	   a.srq_limit);
}

int case_srq(void)
{
	static const struct { const char *n; uint32_t wr, sge, lim; } v[] = {
		{ "16x1", 16, 1, 0 }, { "100x4", 100, 4, 0 }, { "1x1", 1, 1, 0 },
		{ "limit_set", 64, 1, 10 }, { "zero_wr", 0, 1, 0 }, { "zero_sge", 16, 0, 0 },
		{ "max_wr+1", 0, 1, 0 }, { "max_sge+1", 16, 0, 0 }, { "max", 0, 0, 0 },
	};
	struct ibv_srq *srq;
	struct two t;
	int rc = KSFT_PASS, err;
	struct mem m = {};

	tr_case = "srq";
	CHECK(!two_open(&t), "open devices");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct ibv_srq_init_attr ia = {
			.attr = { .max_wr = v[i].wr, .max_sge = v[i].sge, .srq_limit = v[i].lim },
		};

		if (!strcmp(v[i].n, "max_wr+1"))
			ia.attr.max_wr = t.d[0].attr.max_srq_wr + 1;
		if (!strcmp(v[i].n, "max_sge+1"))
			ia.attr.max_sge = t.d[0].attr.max_srq_sge + 1;
		if (!strcmp(v[i].n, "max")) {
			ia.attr.max_wr = t.d[0].attr.max_srq_wr;
			ia.attr.max_sge = t.d[0].attr.max_srq_sge;
		}
		errno = 0;
		srq = ibv_create_srq(t.d[0].pd, &ia);
		tr("ibv_create_srq", v[i].n, ptr_err(srq), "max_wr=%u max_sge=%u", ia.attr.max_wr,
		   ia.attr.max_sge);
		if (srq) {
			tr_srq_query(v[i].n, srq);
			ibv_destroy_srq(srq);
		}
	}
	{
		struct ibv_srq_init_attr ia = { .attr = { .max_wr = 32, .max_sge = 2 } };
		struct ibv_srq_attr ma = {};
		struct ibv_recv_wr wr, *bad;
		struct ibv_sge sg[3];
		int n = 0;

		CHECK(!mem_reg(&m, &t.d[0], 65536, IBV_ACCESS_LOCAL_WRITE), "MR");
		srq = ibv_create_srq(t.d[0].pd, &ia);
		CHECK(srq, "SRQ: %s", strerror(errno));
		ma.srq_limit = 5;
		tr("ibv_modify_srq", "limit5", ret_err(ibv_modify_srq(srq, &ma, IBV_SRQ_LIMIT)), NULL);
		tr_srq_query("after_limit5", srq);
		ma.srq_limit = ia.attr.max_wr + 100;
		tr("ibv_modify_srq", "limit_beyond", ret_err(ibv_modify_srq(srq, &ma, IBV_SRQ_LIMIT)), NULL);
		ma.max_wr = 64;
		tr("ibv_modify_srq", "resize", ret_err(ibv_modify_srq(srq, &ma, IBV_SRQ_MAX_WR)), NULL);
		tr("ibv_modify_srq", "unknown_mask", ret_err(ibv_modify_srq(srq, &ma, 0x10)), NULL);
		tr_srq_query("after_modify", srq);
		for (int i = 0; i < 3; i++) {
			sg[i].addr = (uintptr_t)m.buf + 64 * i;
			sg[i].length = 64;
			sg[i].lkey = m.mr->lkey;
		}
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = sg;
		wr.num_sge = 3;
		err = ret_err(ibv_post_srq_recv(srq, &wr, &bad));
		tr("ibv_post_srq_recv", "sge_beyond", err, "bad_is_wr=%d", err ? bad == &wr : -1);
		wr.num_sge = 1;
		do {
			wr.wr_id = (uint64_t)n;
			err = ret_err(ibv_post_srq_recv(srq, &wr, &bad));
		} while (!err && ++n < 100000);
		tr("ibv_post_srq_recv", "until_full", err, "posted=%d bad_is_wr=%d", n, bad == &wr);
		tr("ibv_destroy_srq", "full", ret_err(ibv_destroy_srq(srq)), NULL);
	}
out:
	mem_free(&m);
	two_close(&t);
	return rc;
}

int case_xrc(void)
{
	struct ibv_xrcd_init_attr xa = {};
	struct ibv_srq_init_attr_ex sa = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *ini = NULL, *tgt = NULL;
	struct ibv_cq *cq = NULL;
	struct two t;
	uint32_t num = 0;
	int rc = KSFT_PASS, err;

	tr_case = "xrc";
	CHECK(!two_open(&t), "open devices");
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = -1;
	xa.oflags = O_CREAT;
	errno = 0;
	xrcd = ibv_open_xrcd(t.d[0].ctx, &xa);
	tr("ibv_open_xrcd", "anonymous", ptr_err(xrcd), NULL);
	CHECK(xrcd, "XRCD");
	xa.comp_mask = 0x40;
	errno = 0;
	{
		struct ibv_xrcd *bad = ibv_open_xrcd(t.d[0].ctx, &xa);

		tr("ibv_open_xrcd", "bad_comp_mask", ptr_err(bad), NULL);
		if (bad)
			ibv_close_xrcd(bad);
	}
	cq = ibv_create_cq(t.d[0].ctx, 16, NULL, NULL, 0);
	CHECK(cq, "CQ");
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
		       IBV_SRQ_INIT_ATTR_PD;
	sa.srq_type = IBV_SRQT_XRC;
	sa.xrcd = xrcd;
	sa.cq = cq;
	sa.pd = t.d[0].pd;
	errno = 0;
	srq = ibv_create_srq_ex(t.d[0].ctx, &sa);
	tr("ibv_create_srq_ex", "xrc", ptr_err(srq), "max_wr=%u", sa.attr.max_wr);
	if (srq) {
		err = ret_err(ibv_get_srq_num(srq, &num));
		tr("ibv_get_srq_num", "xrc", err, "nonzero=%d", num != 0);
	}
	sa.comp_mask &= ~IBV_SRQ_INIT_ATTR_XRCD;
	errno = 0;
	{
		struct ibv_srq *bad = ibv_create_srq_ex(t.d[0].ctx, &sa);

		tr("ibv_create_srq_ex", "xrc_without_xrcd", ptr_err(bad), NULL);
		if (bad)
			ibv_destroy_srq(bad);
	}
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	sa.srq_type = IBV_SRQT_BASIC;
	errno = 0;
	{
		struct ibv_srq *basic = ibv_create_srq_ex(t.d[0].ctx, &sa);

		tr("ibv_create_srq_ex", "basic", ptr_err(basic), NULL);
		if (basic) {
			err = ret_err(ibv_get_srq_num(basic, &num));
			tr("ibv_get_srq_num", "basic", err, NULL);
			ibv_destroy_srq(basic);
		}
	}
	sa.srq_type = IBV_SRQT_TM;
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ |
		       IBV_SRQ_INIT_ATTR_TM;
	sa.tm_cap.max_num_tags = 16;
	sa.tm_cap.max_ops = 16;
	errno = 0;
	{
		struct ibv_srq *tm = ibv_create_srq_ex(t.d[0].ctx, &sa);

		tr("ibv_create_srq_ex", "tag_matching", ptr_err(tm), NULL);
		if (tm)
			ibv_destroy_srq(tm);
	}

	qa.qp_type = IBV_QPT_XRC_SEND;
	qa.send_cq = cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = t.d[0].pd;
	errno = 0;
	ini = ibv_create_qp_ex(t.d[0].ctx, &qa);
	tr("ibv_create_qp_ex", "xrc_send", ptr_err(ini), "send_wr=%u", qa.cap.max_send_wr);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qa.xrcd = xrcd;
	errno = 0;
	tgt = ibv_create_qp_ex(t.d[0].ctx, &qa);
	tr("ibv_create_qp_ex", "xrc_recv", ptr_err(tgt), NULL);
	if (tgt) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .port_num = 1,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};

		err = ret_err(ibv_modify_qp(tgt, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
		tr("ibv_modify_qp", "xrc_recv_init", err, NULL);
		tr_query_qp("xrc_recv_init", tgt, 0);
	}
	if (ini) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		err = ret_err(ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
		tr("ibv_modify_qp", "xrc_send_init", err, NULL);
		tr_query_qp("xrc_send_init", ini, 0);
	}
	errno = 0;
	err = ret_err(ibv_close_xrcd(xrcd));
	tr("ibv_close_xrcd", "busy", err, NULL);
	if (!err)
		xrcd = NULL;	/* closed under its objects: nothing more to close */
	if (tgt)
		tr("ibv_destroy_qp", "xrc_recv", ret_err(ibv_destroy_qp(tgt)), NULL);
	if (ini)
		tr("ibv_destroy_qp", "xrc_send", ret_err(ibv_destroy_qp(ini)), NULL);
	if (srq)
		tr("ibv_destroy_srq", "xrc", ret_err(ibv_destroy_srq(srq)), NULL);
	if (xrcd)
		tr("ibv_close_xrcd", "idle", ret_err(ibv_close_xrcd(xrcd)), NULL);
out:
	if (cq)
		ibv_destroy_cq(cq);
	two_close(&t);
	return rc;
}
