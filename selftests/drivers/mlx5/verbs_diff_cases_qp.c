// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation per type and capacity, every state transition of
 * RC, UC and UD (valid, wrong state, missing or bad attributes) each
 * followed by ibv_query_qp; address handles; multicast attach/detach.
 */
#define _GNU_SOURCE
#include "verbs_diff.h"

static struct ibv_qp *qp_new(struct dev *d, struct ibv_cq *cq, enum ibv_qp_type type,
			     struct ibv_qp_cap cap, const char *var)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq, .cap = cap,
	};
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(d->pd, &ia);
	tr("ibv_create_qp", var, ptr_err(qp),
	   "send_wr=%u recv_wr=%u send_sge=%u recv_sge=%u inline=%u", ia.cap.max_send_wr,
	   ia.cap.max_recv_wr, ia.cap.max_send_sge, ia.cap.max_recv_sge, ia.cap.max_inline_data);
	return qp;
}

int case_qp_create(void)
{
	struct two t;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp;
	struct ibv_device_attr *a;
	int rc = KSFT_PASS;
	static const struct { const char *n; enum ibv_qp_type t; } ty[] = {
		{ "rc", IBV_QPT_RC }, { "uc", IBV_QPT_UC }, { "ud", IBV_QPT_UD },
		{ "raw_packet", IBV_QPT_RAW_PACKET },
	};

	tr_case = "qp_create";
	CHECK(!two_open(&t), "open devices");
	a = &t.d[0].attr;
	cq = ibv_create_cq(t.d[0].ctx, 256, NULL, NULL, 0);
	CHECK(cq, "CQ");
	for (size_t i = 0; i < sizeof(ty) / sizeof(ty[0]); i++) {
		struct ibv_qp_cap cap = { 16, 16, 1, 1, 0 };

		qp = qp_new(&t.d[0], cq, ty[i].t, cap, ty[i].n);
		if (qp)
			ibv_destroy_qp(qp);
	}
	{
		static const struct { const char *n; struct ibv_qp_cap c; } cs[] = {
			{ "1x1", { 1, 1, 1, 1, 0 } },
			{ "0x0", { 0, 0, 0, 0, 0 } },
			{ "send_only", { 32, 0, 2, 0, 0 } },
			{ "100x100", { 100, 100, 3, 3, 0 } },
			{ "inline64", { 16, 16, 1, 1, 64 } },
			{ "inline256", { 16, 16, 1, 1, 256 } },
			{ "inline1000", { 16, 16, 1, 1, 1000 } },
			{ "inline_huge", { 16, 16, 1, 1, 65536 } },
			{ "sge16", { 16, 16, 16, 16, 0 } },
		};

		for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
			qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cs[i].c, cs[i].n);
			if (qp)
				ibv_destroy_qp(qp);
		}
	}
	{
		struct ibv_qp_cap cap = { (uint32_t)a->max_qp_wr, 1, 1, 1, 0 };

		qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "max_qp_wr");
		if (qp)
			ibv_destroy_qp(qp);
		cap.max_send_wr = (uint32_t)a->max_qp_wr + 1;
		qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "max_qp_wr+1");
		if (qp)
			ibv_destroy_qp(qp);
		cap.max_send_wr = 1;
		cap.max_recv_wr = (uint32_t)a->max_qp_wr + 1;
		qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "recv_max_qp_wr+1");
		if (qp)
			ibv_destroy_qp(qp);
		cap.max_recv_wr = 1;
		cap.max_send_sge = (uint32_t)a->max_sge;
		qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "max_sge");
		if (qp)
			ibv_destroy_qp(qp);
		cap.max_send_sge = (uint32_t)a->max_sge + 1;
		qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "max_sge+1");
		if (qp)
			ibv_destroy_qp(qp);
		cap.max_send_sge = 1;
		cap.max_recv_sge = (uint32_t)a->max_sge + 1;
		qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "recv_max_sge+1");
		if (qp)
			ibv_destroy_qp(qp);
	}
	{
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
			.cap = { 4, 4, 1, 1, 0 },
		};

		ia.sq_sig_all = 1;
		errno = 0;
		qp = ibv_create_qp(t.d[0].pd, &ia);
		tr("ibv_create_qp", "sq_sig_all", ptr_err(qp), NULL);
		if (qp) {
			tr_query_qp("sq_sig_all", qp, 0);
			ibv_destroy_qp(qp);
		}
	}
	{
		/* ibv_create_qp_ex: create flags, send_ops_flags, a CQ of another device. */
		static const struct { const char *n; uint32_t fl; uint64_t ops; } x[] = {
			{ "plain", 0, 0 },
			{ "block_self_mcast_lb", IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, 0 },
			{ "scatter_fcs", IBV_QP_CREATE_SCATTER_FCS, 0 },
			{ "cvlan_stripping", IBV_QP_CREATE_CVLAN_STRIPPING, 0 },
			{ "source_qpn", IBV_QP_CREATE_SOURCE_QPN, 0 },
			{ "pci_write_end_padding", IBV_QP_CREATE_PCI_WRITE_END_PADDING, 0 },
			{ "unknown_flag", 1U << 20, 0 },
			{ "send_ops_all_rc", 0, IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			  IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
			  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			  IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW |
			  IBV_QP_EX_WITH_SEND_WITH_INV },
			{ "send_ops_tso", 0, IBV_QP_EX_WITH_TSO },
			{ "send_ops_flush", 0, IBV_QP_EX_WITH_FLUSH },
			{ "send_ops_atomic_write", 0, IBV_QP_EX_WITH_ATOMIC_WRITE },
		};

		for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
			struct ibv_qp_init_attr_ex qa = {
				.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
				.cap = { 8, 8, 1, 1, 0 },
				.comp_mask = IBV_QP_INIT_ATTR_PD |
					     (x[i].fl ? IBV_QP_INIT_ATTR_CREATE_FLAGS : 0) |
					     (x[i].ops ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0),
				.pd = t.d[0].pd, .create_flags = x[i].fl, .send_ops_flags = x[i].ops,
			};

			errno = 0;
			qp = ibv_create_qp_ex(t.d[0].ctx, &qa);
			tr("ibv_create_qp_ex", x[i].n, ptr_err(qp), NULL);
			if (qp)
				ibv_destroy_qp(qp);
		}
	}
	{
		struct ibv_cq *other = ibv_create_cq(t.d[1].ctx, 16, NULL, NULL, 0);
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = other, .recv_cq = other,
			.cap = { 4, 4, 1, 1, 0 },
		};

		if (other) {
			errno = 0;
			qp = ibv_create_qp(t.d[0].pd, &ia);
			tr("ibv_create_qp", "cq_of_other_device", ptr_err(qp), NULL);
			if (qp)
				ibv_destroy_qp(qp);
			ibv_destroy_cq(other);
		}
	}
out:
	if (cq)
		ibv_destroy_cq(cq);
	two_close(&t);
	return rc;
}

static struct ibv_qp *peer_qp;

/* One modify, traced, then the QP queried. */
static int mod(const char *var, struct ibv_qp *qp, struct ibv_qp_attr a, int mask)
{
	int err;

	errno = 0;
	err = ret_err(ibv_modify_qp(qp, &a, mask));
	tr("ibv_modify_qp", var, err, "mask=0x%x", mask);
	tr_query_qp(var, qp, peer_qp ? peer_qp->qp_num : 0);
	return err;
}

#define INIT_MASK (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
		  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
		  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
#define UC_RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
		     IBV_QP_RQ_PSN)

/* A fresh QP moved to @to with @base's attributes, untraced. */
static struct ibv_qp *qp_scratch(struct dev *d, struct ibv_cq *cq, enum ibv_qp_type type,
				 const struct ibv_qp_attr *base, int init, int rtr, int rts,
				 enum ibv_qp_state to)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq, .cap = { 8, 8, 1, 1, 0 },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);
	struct ibv_qp_attr a;

	if (!qp)
		return NULL;
	a = *base;
	a.qp_state = IBV_QPS_INIT;
	if (to >= IBV_QPS_INIT && ibv_modify_qp(qp, &a, init))
		goto bad;
	a.qp_state = IBV_QPS_RTR;
	if (to >= IBV_QPS_RTR && ibv_modify_qp(qp, &a, rtr))
		goto bad;
	a.qp_state = IBV_QPS_RTS;
	if (to >= IBV_QPS_RTS && ibv_modify_qp(qp, &a, rts))
		goto bad;
	return qp;
bad:
	tr("qp_scratch", qps_name(to), errno ? errno : EIO, NULL);
	ibv_destroy_qp(qp);
	return NULL;
}

static void states_connected(struct dev *d, struct dev *pd, struct ibv_cq *cq,
			     enum ibv_qp_type type, const char *tn)
{
	struct ibv_qp_cap cap = { 8, 8, 1, 1, 0 };
	struct ibv_qp *qp = qp_new(d, cq, type, cap, tn);
	struct ibv_qp_attr a, base;
	bool rc = type == IBV_QPT_RC;
	int rtr = rc ? RTR_MASK : UC_RTR_MASK;
	int rts = rc ? RTS_MASK : IBV_QP_STATE | IBV_QP_SQ_PSN;
	int init = rc ? INIT_MASK : IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	char v[64];

	if (!qp)
		return;
#define V(s) (snprintf(v, sizeof(v), "%s_%s", tn, s), v)
	tr_query_qp(V("reset"), qp, peer_qp->qp_num);
	memset(&base, 0, sizeof(base));
	base.pkey_index = 0;
	base.port_num = 1;
	base.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | (rc ? IBV_ACCESS_REMOTE_READ : 0);
	base.path_mtu = d->port.active_mtu;
	base.dest_qp_num = peer_qp->qp_num;
	base.rq_psn = 0x123;
	base.sq_psn = 0x456;
	base.max_dest_rd_atomic = rc ? 4 : 0;
	base.max_rd_atomic = rc ? 4 : 0;
	base.min_rnr_timer = 12;
	base.timeout = 14;
	base.retry_cnt = 7;
	base.rnr_retry = 7;
	base.ah_attr.dlid = pd->port.lid;
	base.ah_attr.port_num = 1;
	base.ah_attr.sl = 0;

	a = base; a.qp_state = IBV_QPS_RTS; mod(V("reset_to_rts"), qp, a, rts);
	a = base; a.qp_state = IBV_QPS_RTR; mod(V("reset_to_rtr"), qp, a, rtr);
	a = base; a.qp_state = IBV_QPS_INIT; mod(V("reset_to_init_no_port"), qp, a, init & ~IBV_QP_PORT);
	a = base; a.qp_state = IBV_QPS_INIT; a.cur_qp_state = IBV_QPS_RTS;
	mod(V("reset_to_init_wrong_cur"), qp, a, init | IBV_QP_CUR_STATE);
	a = base; a.qp_state = IBV_QPS_INIT; mod(V("reset_to_init_extra_mask"), qp, a, init | IBV_QP_SQ_PSN);
	a = base; a.qp_state = IBV_QPS_INIT; mod(V("reset_to_init"), qp, a, init);
	a = base; a.qp_state = IBV_QPS_INIT; a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	mod(V("init_to_init"), qp, a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS);
	a = base; a.qp_state = IBV_QPS_RTS; mod(V("init_to_rts"), qp, a, rts);
	a = base; a.qp_state = IBV_QPS_RTR; mod(V("init_to_rtr_no_dest"), qp, a, rtr & ~IBV_QP_DEST_QPN);
	a = base; a.qp_state = IBV_QPS_RTR; mod(V("init_to_rtr"), qp, a, rtr);
	a = base; a.qp_state = IBV_QPS_RTR; mod(V("rtr_to_rtr"), qp, a, IBV_QP_STATE);
	if (rc) {
		a = base; a.qp_state = IBV_QPS_RTS; mod(V("rtr_to_rts_no_timeout"), qp, a, rts & ~IBV_QP_TIMEOUT);
	}
	a = base; a.qp_state = IBV_QPS_RTS; mod(V("rtr_to_rts"), qp, a, rts);
	a = base; a.qp_state = IBV_QPS_RTS; a.min_rnr_timer = 5;
	mod(V("rts_to_rts_rnr_timer"), qp, a, IBV_QP_STATE | (rc ? IBV_QP_MIN_RNR_TIMER : 0));
	a = base; a.qp_state = IBV_QPS_RTS; a.sq_psn = 5; mod(V("rts_to_rts_sq_psn"), qp, a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	a = base; a.qp_state = IBV_QPS_SQD; mod(V("rts_to_sqd"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_SQD; a.en_sqd_async_notify = 1;
	mod(V("sqd_to_sqd_notify"), qp, a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
	a = base; a.qp_state = IBV_QPS_RTS; mod(V("sqd_to_rts"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_SQE; mod(V("rts_to_sqe"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_ERR; mod(V("rts_to_err"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RTS; mod(V("err_to_rts"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_INIT; mod(V("err_to_init"), qp, a, init);
	a = base; a.qp_state = IBV_QPS_RESET; mod(V("err_to_reset"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_ERR; mod(V("reset_to_err"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RESET; mod(V("err_to_reset2"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_INIT; mod(V("reset_to_init_again"), qp, a, init);
	a = base; a.qp_state = IBV_QPS_RESET; mod(V("init_to_reset"), qp, a, IBV_QP_STATE);
	a = base; a.qp_state = (enum ibv_qp_state)9; mod(V("to_state9"), qp, a, IBV_QP_STATE);
	tr("ibv_destroy_qp", tn, ret_err(ibv_destroy_qp(qp)), NULL);

	/*
	 * Values out of range, each on a fresh QP brought to the state before
	 * (untraced): a driver that takes one moves on, and what follows must
	 * not depend on it.
	 */
#define PROBE(from, to, m, name, set) do {					\
		struct ibv_qp *pq = qp_scratch(d, cq, type, &base, init, rtr, rts, from); \
		if (pq) {						\
			a = base; a.qp_state = to; set;			\
			mod(V(name), pq, a, m);				\
			ibv_destroy_qp(pq);				\
		}							\
	} while (0)
	PROBE(IBV_QPS_RESET, IBV_QPS_INIT, init, "reset_to_init_port3", a.port_num = 3);
	PROBE(IBV_QPS_RESET, IBV_QPS_INIT, init, "reset_to_init_pkey200", a.pkey_index = 200);
	PROBE(IBV_QPS_RESET, IBV_QPS_INIT, init, "reset_to_init_bad_access",
	      a.qp_access_flags = 1 << 20);
	PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_mtu7", a.path_mtu = 7);
	PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_av_port3", a.ah_attr.port_num = 3);
	PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_sgid200",
	      (a.ah_attr.is_global = 1, a.ah_attr.grh.sgid_index = 200));
	PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_sl16", a.ah_attr.sl = 16);
	if (rc) {
		PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_dest_rd_atomic3",
		      a.max_dest_rd_atomic = 3);
		PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_dest_rd_atomic255",
		      a.max_dest_rd_atomic = 255);
		PROBE(IBV_QPS_INIT, IBV_QPS_RTR, rtr, "init_to_rtr_rnr_timer40",
		      a.min_rnr_timer = 40);
		PROBE(IBV_QPS_RTR, IBV_QPS_RTS, rts, "rtr_to_rts_retry8", a.retry_cnt = 8);
		PROBE(IBV_QPS_RTR, IBV_QPS_RTS, rts, "rtr_to_rts_rnr_retry8", a.rnr_retry = 8);
		PROBE(IBV_QPS_RTR, IBV_QPS_RTS, rts, "rtr_to_rts_rd_atomic255", a.max_rd_atomic = 255);
		PROBE(IBV_QPS_RTR, IBV_QPS_RTS, rts, "rtr_to_rts_timeout40", a.timeout = 40);
	}
	PROBE(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, "rts_to_rts_mig",
	      a.path_mig_state = IBV_MIG_REARM);
	PROBE(IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_ALT_PATH, "rts_to_rts_alt_path",
	      (a.alt_ah_attr = base.ah_attr, a.alt_port_num = 1, a.alt_timeout = 14));
#undef PROBE
#undef V
}

static void states_ud(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_cap cap = { 8, 8, 1, 1, 0 };
	struct ibv_qp *qp = qp_new(d, cq, IBV_QPT_UD, cap, "ud");
	struct ibv_qp_attr a, base;
	int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;

	if (!qp)
		return;
	memset(&base, 0, sizeof(base));
	base.port_num = 1;
	base.qkey = 0x11111111;
	base.sq_psn = 0x77;
	a = base; a.qp_state = IBV_QPS_INIT; mod("ud_reset_to_init_no_qkey", qp, a, init & ~IBV_QP_QKEY);
	a = base; a.qp_state = IBV_QPS_INIT;
	mod("ud_reset_to_init_access", qp, a, init | IBV_QP_ACCESS_FLAGS);
	a = base; a.qp_state = IBV_QPS_INIT; mod("ud_reset_to_init", qp, a, init);
	a = base; a.qp_state = IBV_QPS_RTR; mod("ud_init_to_rtr_with_av", qp, a, IBV_QP_STATE | IBV_QP_AV);
	a = base; a.qp_state = IBV_QPS_RTR; mod("ud_init_to_rtr", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RTS; mod("ud_rtr_to_rts_no_psn", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RTS; mod("ud_rtr_to_rts", qp, a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	a = base; a.qp_state = IBV_QPS_RTS; a.qkey = 0x22222222;
	mod("ud_rts_to_rts_qkey", qp, a, IBV_QP_STATE | IBV_QP_QKEY);
	a = base; a.qp_state = IBV_QPS_SQD; mod("ud_rts_to_sqd", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RTS; mod("ud_sqd_to_rts", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_SQE; mod("ud_rts_to_sqe", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RTS; mod("ud_sqe_to_rts", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_ERR; mod("ud_to_err", qp, a, IBV_QP_STATE);
	a = base; a.qp_state = IBV_QPS_RESET; mod("ud_err_to_reset", qp, a, IBV_QP_STATE);
	tr("ibv_destroy_qp", "ud", ret_err(ibv_destroy_qp(qp)), NULL);
}

int case_qp_states(void)
{
	struct two t;
	struct ibv_cq *cq = NULL, *pcq = NULL;
	struct ibv_qp_cap cap = { 8, 8, 1, 1, 0 };
	int rc = KSFT_PASS;

	tr_case = "qp_states";
	peer_qp = NULL;
	CHECK(!two_open(&t), "open devices");
	cq = ibv_create_cq(t.d[0].ctx, 64, NULL, NULL, 0);
	pcq = ibv_create_cq(t.d[1].ctx, 64, NULL, NULL, 0);
	CHECK(cq && pcq, "CQs");
	peer_qp = qp_new(&t.d[1], pcq, IBV_QPT_RC, cap, "peer");
	CHECK(peer_qp, "peer QP");
	states_connected(&t.d[0], &t.d[1], cq, IBV_QPT_RC, "rc");
	states_connected(&t.d[0], &t.d[1], cq, IBV_QPT_UC, "uc");
	states_ud(&t.d[0], cq);
out:
	if (peer_qp)
		ibv_destroy_qp(peer_qp);
	peer_qp = NULL;
	if (cq)
		ibv_destroy_cq(cq);
	if (pcq)
		ibv_destroy_cq(pcq);
	two_close(&t);
	return rc;
}

int case_ah(void)
{
	struct two t;
	struct ibv_ah *ah;
	int rc = KSFT_PASS;

	/* No port 0 or 3: the provider indexes its port cache with it (SIGSEGV). */
	tr_case = "ah";
	CHECK(!two_open(&t), "open devices");
	{
		struct { const char *n; struct ibv_ah_attr a; } v[] = {
			{ "lid", { .dlid = t.d[1].port.lid, .port_num = 1 } },
			{ "lid_sl5_rate3", { .dlid = t.d[1].port.lid, .sl = 5, .static_rate = 3, .port_num = 1 } },
			{ "path_bits", { .dlid = t.d[1].port.lid, .src_path_bits = 1, .port_num = 1 } },
			{ "grh", { .dlid = t.d[1].port.lid, .is_global = 1, .port_num = 1,
				   .grh = { .sgid_index = 0, .hop_limit = 64, .traffic_class = 0x20,
					    .flow_label = 0x12345 } } },
			{ "grh_sgid200", { .dlid = t.d[1].port.lid, .is_global = 1, .port_num = 1,
					   .grh = { .sgid_index = 200 } } },
			{ "dlid0", { .dlid = 0, .port_num = 1 } },
			{ "sl16", { .dlid = t.d[1].port.lid, .sl = 16, .port_num = 1 } },
		};

		if (!ibv_query_gid(t.d[0].ctx, 1, 0, &v[3].a.grh.dgid))
			v[4].a.grh.dgid = v[3].a.grh.dgid;
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			errno = 0;
			ah = ibv_create_ah(t.d[0].pd, &v[i].a);
			tr("ibv_create_ah", v[i].n, ptr_err(ah), NULL);
			if (ah)
				tr("ibv_destroy_ah", v[i].n, ret_err(ibv_destroy_ah(ah)), NULL);
		}
	}
	{
		/* ibv_init_ah_from_wc of a received UD datagram's completion. */
		struct ibv_wc wc = {
			.status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV, .slid = t.d[1].port.lid,
			.sl = 0, .src_qp = 0x99, .wc_flags = 0,
		};
		struct ibv_ah_attr aa;
		struct ibv_grh grh;

		memset(&aa, 0, sizeof(aa));
		memset(&grh, 0, sizeof(grh));
		tr("ibv_init_ah_from_wc", "no_grh", ret_err(ibv_init_ah_from_wc(t.d[0].ctx, 1, &wc, &grh, &aa)),
		   "dlid_is_slid=%d sl=%u is_global=%u port=%u", aa.dlid == wc.slid, aa.sl,
		   aa.is_global, aa.port_num);
		errno = 0;
		ah = ibv_create_ah_from_wc(t.d[0].pd, &wc, &grh, 1);
		tr("ibv_create_ah_from_wc", "no_grh", ptr_err(ah), NULL);
		if (ah)
			ibv_destroy_ah(ah);
	}
out:
	two_close(&t);
	return rc;
}

int case_mcast(void)
{
	struct two t;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *ud = NULL, *rc_qp = NULL;
	struct ibv_qp_cap cap = { 8, 8, 1, 1, 0 };
	union ibv_gid mgid, mgid2, bad;
	int rc = KSFT_PASS;

	tr_case = "mcast";
	CHECK(!two_open(&t), "open devices");
	cq = ibv_create_cq(t.d[0].ctx, 64, NULL, NULL, 0);
	CHECK(cq, "CQ");
	ud = qp_new(&t.d[0], cq, IBV_QPT_UD, cap, "ud");
	rc_qp = qp_new(&t.d[0], cq, IBV_QPT_RC, cap, "rc");
	CHECK(ud && rc_qp, "QPs");
	memset(&mgid, 0, sizeof(mgid));
	mgid.raw[0] = 0xff;
	mgid.raw[1] = 0x12;
	mgid.raw[15] = 0x42;
	mgid2 = mgid;
	mgid2.raw[15] = 0x43;
	memset(&bad, 0, sizeof(bad));
	bad.raw[0] = 0xfe;
	bad.raw[1] = 0x80;
	tr("ibv_attach_mcast", "ud", ret_err(ibv_attach_mcast(ud, &mgid, 0xc001)), NULL);
	tr("ibv_attach_mcast", "ud_again", ret_err(ibv_attach_mcast(ud, &mgid, 0xc001)), NULL);
	tr("ibv_attach_mcast", "ud_second_group", ret_err(ibv_attach_mcast(ud, &mgid2, 0xc002)), NULL);
	tr("ibv_attach_mcast", "ud_not_mcast_gid", ret_err(ibv_attach_mcast(ud, &bad, 0xc003)), NULL);
	tr("ibv_attach_mcast", "ud_unicast_lid", ret_err(ibv_attach_mcast(ud, &mgid, 0x5)), NULL);
	tr("ibv_attach_mcast", "rc", ret_err(ibv_attach_mcast(rc_qp, &mgid, 0xc001)), NULL);
	tr("ibv_detach_mcast", "ud", ret_err(ibv_detach_mcast(ud, &mgid, 0xc001)), NULL);
	tr("ibv_detach_mcast", "ud_again", ret_err(ibv_detach_mcast(ud, &mgid, 0xc001)), NULL);
	tr("ibv_detach_mcast", "ud_second_group", ret_err(ibv_detach_mcast(ud, &mgid2, 0xc002)), NULL);
	tr("ibv_detach_mcast", "ud_never_attached", ret_err(ibv_detach_mcast(ud, &bad, 0xc003)), NULL);
	tr("ibv_detach_mcast", "rc", ret_err(ibv_detach_mcast(rc_qp, &mgid, 0xc001)), NULL);
out:
	if (ud)
		ibv_destroy_qp(ud);
	if (rc_qp)
		ibv_destroy_qp(rc_qp);
	if (cq)
		ibv_destroy_cq(cq);
	two_close(&t);
	return rc;
}
