// SPDX-License-Identifier: GPL-2.0
/*
 * Random verbs: a seeded sequence of mostly valid operations on both
 * devices, each traced like the other cases ("# T random VERB opN RESULT
 * ..."), so that the same seed on the in-tree pair and on ours gives traces
 * to diff (verbs_random_test.sh). MLX5_DIFF_SEED picks the sequence
 * (printed), MLX5_DIFF_OPS its length (default 2000).
 *
 * The operations: PDs, MRs (random range, access, PD; rereg), CQs (random
 * size; resize, moderation), QPs (RC/UC/UD, random capacities, CQs, PD,
 * SRQ) moved through random transitions with mostly the right attribute
 * masks and random values, queried; SRQs (limit, query), AHs, memory
 * windows; raw CREATE_CQ and CREATE_QP commands with random driver data
 * (ib_uverbs_raw.c), destroyed at once when they succeed; and random WRs
 * (opcode, length, SGEs, inline, immediate, now and then a bad key or a
 * short receive) on a connected RC pair, each waited for, so that every
 * completion is traced in a fixed order: nothing in the trace depends on
 * timing. Choices depend on the seed and on earlier outcomes only, which
 * are traced: the first difference is where the drivers part.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "verbs_diff.h"
#include "ib_udata.h"

static uint64_t rnd_state = 1;

void rnd_seed(uint64_t s)
{
	rnd_state = s ? s : 0x9e3779b97f4a7c15ULL;
}

uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/* True with probability pct percent. */
static bool pct(unsigned int p)
{
	return rn(100) < p;
}

#define NPD 3
#define NMR 6
#define NCQ 4
#define NQP 6
#define NSRQ 3
#define NAH 3
#define NMW 3
#define MBUF (1024 * 1024)

struct rdev {
	struct dev *d;
	struct ibv_pd *pd[NPD];
	struct ibv_mr *mr[NMR];
	struct ibv_cq *cq[NCQ];
	struct ibv_qp *qp[NQP];
	enum ibv_qp_state qs[NQP];
	struct ibv_srq *srq[NSRQ];
	struct ibv_ah *ah[NAH];
	struct ibv_mw *mw[NMW];
	struct ibv_cq *fixed_cq;	/* for QPs whose CQ slot is empty */
	uint8_t *buf;
};

static struct two t;
static struct rdev rd[2];
static struct ep ta, tb;	/* the traffic pair: ta on mlx5_0, tb on mlx5_1 */
static bool traffic_up;
static char v[48];
static long op_no;

#define VAR() (snprintf(v, sizeof(v), "op%ld", op_no), v)

static struct ibv_pd *pick_pd(struct rdev *r)
{
	struct ibv_pd *pd = r->pd[rn(NPD)];

	return pd ? pd : r->d->pd;
}

static int pick_access(void)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_MW_BIND, IBV_ACCESS_RELAXED_ORDERING,
	};
	int a = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (pct(50))
			a |= bits[i];
	if (pct(70))
		a |= IBV_ACCESS_LOCAL_WRITE;
	if (pct(2))
		a |= 1 << (20 + rn(8));
	return a;
}

static void op_pd(struct rdev *r)
{
	unsigned int s = rn(NPD);

	if (!r->pd[s]) {
		errno = 0;
		r->pd[s] = ibv_alloc_pd(r->d->ctx);
		tr("ibv_alloc_pd", VAR(), ptr_err(r->pd[s]), "slot=%u", s);
		return;
	}
	{
		int err = ret_err(ibv_dealloc_pd(r->pd[s]));

		tr("ibv_dealloc_pd", VAR(), err, "slot=%u", s);
		if (!err)
			r->pd[s] = NULL;
	}
}

static void op_mr(struct rdev *r)
{
	unsigned int s = rn(NMR);
	size_t off, len;
	int acc;

	if (r->mr[s] && pct(40)) {
		int err = ret_err(ibv_dereg_mr(r->mr[s]));

		tr("ibv_dereg_mr", VAR(), err, "slot=%u", s);
		if (!err)
			r->mr[s] = NULL;
		return;
	}
	/*
	 * Page-aligned starts: unaligned ones of random length made the
	 * in-tree mlx5_ib WARN in alloc_cacheable_mr (mr.c:456, no page size
	 * found; seed 12345 before the per-operation streams).
	 */
	off = 4096 * rn(128);
	len = pct(5) ? 0 : 1 + rn(MBUF / 2);
	acc = pick_access();
	if (r->mr[s]) {
		int fl = (int)rn(8);

		if (pct(3))
			fl |= 0x10;
		tr("ibv_rereg_mr", VAR(), ret_err(ibv_rereg_mr(r->mr[s], fl, pick_pd(r),
							    r->buf + off, len, acc)),
		   "slot=%u flags=0x%x off=%zu len=%zu access=0x%x", s, fl, off, len, acc);
		return;
	}
	errno = 0;
	r->mr[s] = ibv_reg_mr(pick_pd(r), r->buf + off, len, acc);
	tr("ibv_reg_mr", VAR(), ptr_err(r->mr[s]), "slot=%u off=%zu len=%zu access=0x%x", s, off,
	   len, acc);
}

static void op_cq(struct rdev *r)
{
	unsigned int s = rn(NCQ);
	int cqe, err;

	if (!r->cq[s]) {
		cqe = pct(5) ? r->d->attr.max_cqe + 1 : pct(5) ? 0 : 1 + (int)rn(4096);
		errno = 0;
		r->cq[s] = ibv_create_cq(r->d->ctx, cqe, NULL, NULL, (int)rn(r->d->ctx->num_comp_vectors + (pct(5) ? 2 : 0)));
		tr("ibv_create_cq", VAR(), ptr_err(r->cq[s]), "slot=%u cqe=%d got=%d", s, cqe,
		   r->cq[s] ? r->cq[s]->cqe : 0);
		return;
	}
	switch (rn(4)) {
	case 0:
		err = ret_err(ibv_destroy_cq(r->cq[s]));
		tr("ibv_destroy_cq", VAR(), err, "slot=%u", s);
		if (!err)
			r->cq[s] = NULL;
		return;
	case 1:
		cqe = pct(5) ? r->d->attr.max_cqe + 1 : 1 + (int)rn(8192);
		errno = 0;
		err = ret_err(ibv_resize_cq(r->cq[s], cqe));
		tr("ibv_resize_cq", VAR(), err, "slot=%u cqe=%d got=%d", s, cqe, r->cq[s]->cqe);
		return;
	case 2: {
		struct ibv_modify_cq_attr ma = {
			.attr_mask = pct(95) ? IBV_CQ_ATTR_MODERATE : (uint32_t)rnd(),
			.moderate = { .cq_count = (uint16_t)rnd(), .cq_period = (uint16_t)rn(5000) },
		};

		err = ret_err(ibv_modify_cq(r->cq[s], &ma));
		tr("ibv_modify_cq", VAR(), err, "slot=%u mask=0x%x count=%u period=%u", s,
		   ma.attr_mask, ma.moderate.cq_count, ma.moderate.cq_period);
		return;
	}
	default:
		err = ret_err(ibv_req_notify_cq(r->cq[s], (int)rn(2)));
		tr("ibv_req_notify_cq", VAR(), err, "slot=%u", s);
		return;
	}
}

static void op_srq(struct rdev *r)
{
	unsigned int s = rn(NSRQ);
	int err;

	if (!r->srq[s]) {
		struct ibv_srq_init_attr ia = {
			.attr = { .max_wr = pct(5) ? (uint32_t)r->d->attr.max_srq_wr + 1 : rn(600),
				  .max_sge = pct(5) ? (uint32_t)r->d->attr.max_srq_sge + 1 : rn(8) },
		};

		errno = 0;
		r->srq[s] = ibv_create_srq(pick_pd(r), &ia);
		tr("ibv_create_srq", VAR(), ptr_err(r->srq[s]), "slot=%u got_wr=%u got_sge=%u", s,
		   r->srq[s] ? ia.attr.max_wr : 0, r->srq[s] ? ia.attr.max_sge : 0);
		return;
	}
	switch (rn(3)) {
	case 0:
		err = ret_err(ibv_destroy_srq(r->srq[s]));
		tr("ibv_destroy_srq", VAR(), err, "slot=%u", s);
		if (!err)
			r->srq[s] = NULL;
		return;
	case 1: {
		struct ibv_srq_attr a = { .srq_limit = rn(700), .max_wr = rn(700) };
		int mask = pct(90) ? IBV_SRQ_LIMIT : (int)rn(8);

		err = ret_err(ibv_modify_srq(r->srq[s], &a, mask));
		tr("ibv_modify_srq", VAR(), err, "slot=%u mask=0x%x limit=%u", s, mask, a.srq_limit);
		return;
	}
	default: {
		struct ibv_srq_attr a = {};

		err = ret_err(ibv_query_srq(r->srq[s], &a));
		tr("ibv_query_srq", VAR(), err, "slot=%u max_wr=%u max_sge=%u limit=%u", s,
		   a.max_wr, a.max_sge, a.srq_limit);
		return;
	}
	}
}

static void op_qp_create(struct rdev *r, unsigned int s)
{
	static const enum ibv_qp_type ty[] = { IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	struct ibv_qp_init_attr ia = {
		.qp_type = ty[rn(4)],
		.cap = {
			.max_send_wr = pct(3) ? (uint32_t)r->d->attr.max_qp_wr + 1 : rn(300),
			.max_recv_wr = rn(300),
			.max_send_sge = pct(3) ? (uint32_t)r->d->attr.max_sge + 1 : rn(8),
			.max_recv_sge = rn(8),
			.max_inline_data = pct(50) ? 0 : rn(pct(10) ? 4096 : 512),
		},
		.sq_sig_all = (int)rn(2),
	};
	struct ibv_cq *scq = r->cq[rn(NCQ)], *rcq = r->cq[rn(NCQ)];
	unsigned int sr = rn(NSRQ);

	ia.send_cq = scq ? scq : r->fixed_cq;
	ia.recv_cq = rcq ? rcq : r->fixed_cq;
	if (ia.qp_type != IBV_QPT_UD && pct(25))
		ia.srq = r->srq[sr];
	errno = 0;
	r->qp[s] = ibv_create_qp(pick_pd(r), &ia);
	r->qs[s] = IBV_QPS_RESET;
	tr("ibv_create_qp", VAR(), ptr_err(r->qp[s]),
	   "slot=%u type=%d srq=%d got=%u/%u/%u/%u/%u", s, ia.qp_type, ia.srq != NULL,
	   r->qp[s] ? ia.cap.max_send_wr : 0, r->qp[s] ? ia.cap.max_recv_wr : 0,
	   r->qp[s] ? ia.cap.max_send_sge : 0, r->qp[s] ? ia.cap.max_recv_sge : 0,
	   r->qp[s] ? ia.cap.max_inline_data : 0);
}

/* The attribute mask a transition needs, for the QP's type. */
static int need_mask(enum ibv_qp_type type, enum ibv_qp_state from, enum ibv_qp_state to)
{
	bool ud = type == IBV_QPT_UD, rc = type == IBV_QPT_RC;

	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		return IBV_QP_STATE;
	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR)
		return ud ? IBV_QP_STATE :
		       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       (rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0);
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS)
		return IBV_QP_STATE | IBV_QP_SQ_PSN |
		       (rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC : 0);
	return IBV_QP_STATE;
}

static void op_qp_modify(struct rdev *r, unsigned int s)
{
	static const enum ibv_qp_state next[] = {
		[IBV_QPS_RESET] = IBV_QPS_INIT, [IBV_QPS_INIT] = IBV_QPS_RTR,
		[IBV_QPS_RTR] = IBV_QPS_RTS, [IBV_QPS_RTS] = IBV_QPS_RTS,
		[IBV_QPS_SQD] = IBV_QPS_RTS, [IBV_QPS_SQE] = IBV_QPS_RTS,
		[IBV_QPS_ERR] = IBV_QPS_RESET,
	};
	struct ibv_qp *qp = r->qp[s];
	struct rdev *pr = &rd[rn(2)];
	struct ibv_qp *peer = pr->qp[rn(NQP)];
	enum ibv_qp_state to;
	struct ibv_qp_attr a = {};
	int mask, err;

	to = pct(75) && r->qs[s] <= IBV_QPS_ERR ? next[r->qs[s]] : (enum ibv_qp_state)rn(7);
	mask = pct(90) ? need_mask(qp->qp_type, r->qs[s], to) : (int)(rnd() & 0x1fffff) | IBV_QP_STATE;
	if (pct(10))
		mask |= 1 << rn(21);
	a.qp_state = to;
	a.pkey_index = pct(95) ? 0 : (uint16_t)rn(256);
	a.port_num = pct(95) ? 1 : (uint8_t)rn(4);
	a.qkey = (uint32_t)rnd();
	a.qp_access_flags = pick_access() & ~IBV_ACCESS_MW_BIND;
	a.path_mtu = pct(95) ? (enum ibv_mtu)(1 + rn(5)) : (enum ibv_mtu)rn(8);
	a.dest_qp_num = peer ? peer->qp_num : 0xffffff & (uint32_t)rnd();
	a.rq_psn = 0xffffff & (uint32_t)rnd();
	a.sq_psn = 0xffffff & (uint32_t)rnd();
	a.max_dest_rd_atomic = pct(95) ? (uint8_t)rn(17) : (uint8_t)rnd();
	a.max_rd_atomic = pct(95) ? (uint8_t)rn(17) : (uint8_t)rnd();
	a.min_rnr_timer = pct(95) ? (uint8_t)rn(32) : (uint8_t)rnd();
	a.timeout = pct(95) ? (uint8_t)rn(32) : (uint8_t)rnd();
	a.retry_cnt = pct(95) ? (uint8_t)rn(8) : (uint8_t)rnd();
	a.rnr_retry = pct(95) ? (uint8_t)rn(8) : (uint8_t)rnd();
	a.ah_attr.dlid = pr->d->port.lid;
	a.ah_attr.sl = pct(95) ? (uint8_t)rn(16) : (uint8_t)rn(256);
	a.ah_attr.port_num = pct(95) ? 1 : (uint8_t)rn(4);
	a.ah_attr.static_rate = pct(90) ? 0 : (uint8_t)rn(20);
	a.cur_qp_state = (enum ibv_qp_state)rn(7);
	a.en_sqd_async_notify = (uint8_t)rn(2);
	a.path_mig_state = (enum ibv_mig_state)rn(3);
	errno = 0;
	err = ret_err(ibv_modify_qp(qp, &a, mask));
	tr("ibv_modify_qp", VAR(), err, "slot=%u type=%d from=%s to=%s mask=0x%x", s, qp->qp_type,
	   qps_name(r->qs[s]), qps_name(to), mask);
	if (!err)
		r->qs[s] = to;
	if (pct(30)) {
		tr_query_qp(VAR(), qp, 0);
		r->qs[s] = qp_state(qp);
	}
}

static void op_qp(struct rdev *r)
{
	unsigned int s = rn(NQP);
	int err;

	if (!r->qp[s]) {
		op_qp_create(r, s);
		return;
	}
	if (pct(15)) {
		err = ret_err(ibv_destroy_qp(r->qp[s]));
		tr("ibv_destroy_qp", VAR(), err, "slot=%u", s);
		if (!err)
			r->qp[s] = NULL;
		return;
	}
	op_qp_modify(r, s);
}

static void op_ah(struct rdev *r)
{
	unsigned int s = rn(NAH);
	int err;

	if (r->ah[s]) {
		err = ret_err(ibv_destroy_ah(r->ah[s]));
		tr("ibv_destroy_ah", VAR(), err, "slot=%u", s);
		if (!err)
			r->ah[s] = NULL;
		return;
	}
	{
		struct ibv_ah_attr a = {
			.dlid = pct(90) ? rd[rn(2)].d->port.lid : (uint16_t)rnd(),
			.sl = (uint8_t)rn(pct(95) ? 16 : 256),
			.src_path_bits = (uint8_t)rn(pct(95) ? 1 : 128),
			.static_rate = (uint8_t)rn(pct(95) ? 1 : 20),
			.port_num = pct(95) ? 1 : (uint8_t)rn(4),
			.is_global = (uint8_t)pct(30),
		};

		if (a.is_global) {
			a.grh.dgid = rd[rn(2)].d->gid;
			if (ibv_query_gid(r->d->ctx, 1, 0, &a.grh.dgid))
				memset(&a.grh.dgid, 0, sizeof(a.grh.dgid));
			a.grh.sgid_index = (uint8_t)(pct(90) ? 0 : rn(256));
			a.grh.hop_limit = (uint8_t)rnd();
			a.grh.traffic_class = (uint8_t)rnd();
			a.grh.flow_label = 0xfffff & (uint32_t)rnd();
		}
		errno = 0;
		r->ah[s] = ibv_create_ah(pick_pd(r), &a);
		tr("ibv_create_ah", VAR(), ptr_err(r->ah[s]), "slot=%u dlid=%u sl=%u port=%u global=%u", s,
		   a.dlid, a.sl, a.port_num, a.is_global);
	}
}

static void op_mw(struct rdev *r)
{
	unsigned int s = rn(NMW);
	int err;

	if (r->mw[s]) {
		err = ret_err(ibv_dealloc_mw(r->mw[s]));
		tr("ibv_dealloc_mw", VAR(), err, "slot=%u", s);
		if (!err)
			r->mw[s] = NULL;
		return;
	}
	{
		enum ibv_mw_type ty = pct(95) ? (enum ibv_mw_type)(1 + rn(2)) : (enum ibv_mw_type)rn(5);

		errno = 0;
		r->mw[s] = ibv_alloc_mw(pick_pd(r), ty);
		tr("ibv_alloc_mw", VAR(), ptr_err(r->mw[s]), "slot=%u type=%d", s, ty);
	}
}

static void op_query(struct rdev *r)
{
	switch (rn(4)) {
	case 0: {
		struct ibv_port_attr pa;
		int p = pct(90) ? 1 : (int)rn(4);
		int err = ret_err(ibv_query_port(r->d->ctx, (uint8_t)p, &pa));

		tr("ibv_query_port", VAR(), err, "port=%d state=%d lid=%u", p, err ? 0 : pa.state,
		   err ? 0 : pa.lid);
		return;
	}
	case 1: {
		union ibv_gid g;
		int i = pct(80) ? 0 : (int)rn(300);
		int err = ret_err(ibv_query_gid(r->d->ctx, 1, i, &g));

		tr("ibv_query_gid", VAR(), err, "index=%d", i);
		return;
	}
	case 2: {
		uint16_t pk;
		int i = pct(80) ? 0 : (int)rn(300);
		int err = ret_err(ibv_query_pkey(r->d->ctx, 1, i, &pk));

		tr("ibv_query_pkey", VAR(), err, "index=%d pkey=0x%x", i, err ? 0 : ntohs(pk));
		return;
	}
	default: {
		struct ibv_device_attr a;
		int err = ret_err(ibv_query_device(r->d->ctx, &a));

		tr("ibv_query_device", VAR(), err, "max_qp_wr=%d", err ? 0 : a.max_qp_wr);
		return;
	}
	}
}

/* Random driver data on raw CREATE_CQ / CREATE_QP through the context's file. */
static void op_raw(struct rdev *r)
{
	uint64_t w[8];
	size_t len = 8 * rn(9);
	int fd = r->d->ctx->cmd_fd;
	long rc;

	for (int i = 0; i < 8; i++)
		w[i] = rnd();
	if (pct(60)) {
		struct ib_uverbs_create_cq c = {
			.cqe = rn(1024), .comp_vector = 0, .comp_channel = -1,
		};
		struct ib_uverbs_create_cq_resp resp;
		struct mlx5_ib_create_cq_resp mresp;

		if (pct(50))
			w[0] = (uintptr_t)r->buf + 4096 * rn(64);
		if (pct(50))
			w[1] = (uintptr_t)r->buf + MBUF - 4096 + 8 * rn(64);
		if (pct(50))
			w[2] = (pct(50) ? 64 : 128) | (pct(50) ? 0 : rnd() << 32);
		rc = uv_write(fd, &(struct uv_cmd){
			.cmd = IB_USER_VERBS_CMD_CREATE_CQ, .req = &c, .req_len = sizeof(c),
			.udata = w, .udata_len = len, .resp = &resp, .resp_len = sizeof(resp),
			.uresp = &mresp, .uresp_len = sizeof(mresp),
		});
		tr("raw_create_cq", VAR(), (int)-rc, "cqe=%u udata_len=%zu", c.cqe, len);
		if (!rc)
			tr("raw_destroy_cq", VAR(),
			   (int)-destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_CQ, resp.cq_handle), NULL);
		return;
	}
	{
		struct ib_uverbs_create_qp c = {
			.pd_handle = r->d->pd->handle,
			.send_cq_handle = r->fixed_cq->handle, .recv_cq_handle = r->fixed_cq->handle,
			.max_send_wr = rn(64), .max_recv_wr = rn(64), .max_send_sge = 1,
			.max_recv_sge = 1, .qp_type = pct(50) ? IB_UVERBS_QPT_RC : (uint8_t)rn(12),
		};
		struct ib_uverbs_create_qp_resp resp;
		struct mlx5_ib_create_qp_resp mresp;

		if (pct(50))
			w[0] = (uintptr_t)r->buf + 4096 * rn(64);
		if (pct(50))
			w[1] = (uintptr_t)r->buf + MBUF - 4096 + 8 * rn(64);
		if (pct(50)) {
			w[2] = (uint64_t)(1U << rn(8)) << 32 | (1U << rn(8));
			w[3] = (rnd() & 0xff) << 32 | (4 + rn(6));
		}
		rc = uv_write(fd, &(struct uv_cmd){
			.cmd = IB_USER_VERBS_CMD_CREATE_QP, .req = &c, .req_len = sizeof(c),
			.udata = w, .udata_len = len, .resp = &resp, .resp_len = sizeof(resp),
			.uresp = &mresp, .uresp_len = sizeof(mresp),
		});
		tr("raw_create_qp", VAR(), (int)-rc, "type=%u udata_len=%zu", c.qp_type, len);
		if (!rc)
			tr("raw_destroy_qp", VAR(),
			   (int)-destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_QP, resp.qp_handle), NULL);
	}
}

static int traffic_connect(void)
{
	if (ep_create(&ta, &t.d[0], NULL, NULL, MR_ALL, &default_opts) ||
	    ep_create(&tb, &t.d[1], NULL, NULL, MR_ALL, &default_opts) ||
	    pair_connect(&ta, &tb, &default_opts, &default_opts)) {
		tr("traffic_pair", VAR(), EIO, "connect failed");
		return -1;
	}
	traffic_up = true;
	return 0;
}

static void traffic_down(void)
{
	ep_destroy(&ta);
	ep_destroy(&tb);
	traffic_up = false;
}

/* One random WR on the RC pair, its completions waited for and traced. */
static void op_traffic(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
	};
	enum ibv_wr_opcode op = ops[rn(7)];
	bool atomic = op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP;
	bool recv = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		    op == IBV_WR_RDMA_WRITE_WITH_IMM;
	uint32_t len = atomic ? 8 : pct(10) ? 0 : 1 + rn(8192);
	struct ibv_sge sg[3];
	struct ibv_send_wr wr = {}, *bad;
	int nsge = len ? 1 + (int)rn(3) : 0, err, fl = IBV_SEND_SIGNALED;
	uint32_t rlen = pct(5) ? rn(len + 1) : len + rn(100);
	uint32_t lkey, rkey;
	size_t loff = 8 * rn(1024), roff = 8 * rn(1024);

	if (!traffic_up && traffic_connect())
		return;
	lkey = pct(3) ? ta.m.mr->lkey ^ 0x100 : ta.m.mr->lkey;
	rkey = pct(3) ? tb.m.mr->rkey ^ 0x100 : tb.m.mr->rkey;
	if (atomic)
		nsge = 1;
	for (int i = 0; i < nsge; i++) {
		uint32_t part = i == nsge - 1 ? len - (len / nsge) * i : len / nsge;

		sg[i].addr = (uintptr_t)ta.m.buf + loff + 16384 * i;
		sg[i].length = part;
		sg[i].lkey = lkey;
	}
	if (!atomic && (op == IBV_WR_SEND || op == IBV_WR_RDMA_WRITE || op == IBV_WR_SEND_WITH_IMM) &&
	    len <= ta.cap.max_inline_data && pct(30))
		fl |= IBV_SEND_INLINE;
	if (pct(10))
		fl |= IBV_SEND_FENCE;
	if (pct(10))
		fl |= IBV_SEND_SOLICITED;
	fill(ta.m.buf + loff, 49152 < len ? len : 49152, (uint32_t)op_no);
	wr.wr_id = (uint64_t)op_no;
	wr.opcode = op;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.send_flags = (unsigned int)fl;
	wr.imm_data = htonl((uint32_t)rnd());
	if (atomic) {
		wr.wr.atomic.remote_addr = (uintptr_t)tb.m.buf + 131072 + roff;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = rnd() & 0xff;
		wr.wr.atomic.swap = rnd();
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)tb.m.buf + 131072 + roff;
		wr.wr.rdma.rkey = rkey;
	}
	if (recv) {
		struct ibv_sge rs = { (uintptr_t)tb.m.buf, rlen, tb.m.mr->lkey };

		err = ret_err(post_recv_sge(tb.qp, (uint64_t)op_no, &rs, 1));
		if (err)
			tr("ibv_post_recv", VAR(), err, "len=%u", rlen);
	}
	errno = 0;
	err = ret_err(ibv_post_send(ta.qp, &wr, &bad));
	tr("ibv_post_send", VAR(), err, "op=%d len=%u nsge=%d flags=0x%x", op, len, nsge, fl);
	if (err) {
		traffic_down();
		return;
	}
	{
		struct ibv_wc wc;
		int n = wait_wc(ta.scq, &wc, 1, wait_ms);
		bool fail = n != 1 || wc.status != IBV_WC_SUCCESS;

		if (n == 1)
			tr_wc("wc", VAR(), 0, &wc, ta.qp->qp_num, tb.qp->qp_num);
		else
			tr("wc", VAR(), ETIMEDOUT, "sender");
		if (recv && (!fail || wc.status == IBV_WC_REM_INV_REQ_ERR)) {
			n = wait_wc(tb.rcq, &wc, 1, wait_ms);
			if (n == 1)
				tr_wc("wc", VAR(), 1, &wc, tb.qp->qp_num, ta.qp->qp_num);
			else
				tr("wc", VAR(), ETIMEDOUT, "receiver");
			fail |= n != 1 || wc.status != IBV_WC_SUCCESS;
		}
		if (!fail && nsge && (op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM))
			tr("data", VAR(), 0, "same=%d", first_diff(ta.m.buf + loff, tb.m.buf, len / nsge) < 0);
		if (fail)
			traffic_down();
	}
}

int case_random(void)
{
	const char *s = getenv("MLX5_DIFF_SEED");
	const char *o = getenv("MLX5_DIFF_OPS");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 1;
	long ops = o ? atol(o) : 2000;
	long long t0;
	int rc = KSFT_PASS;
	unsigned int count[16] = {};

	tr_case = "random";
	memset(rd, 0, sizeof(rd));
	traffic_up = false;
	rnd_seed(seed);
	printf("# random: seed %llu, %ld operations (replay: MLX5_DIFF_SEED=%llu MLX5_DIFF_OPS=%ld)\n",
	       (unsigned long long)seed, ops, (unsigned long long)seed, ops);
	CHECK(!two_open(&t), "open devices");
	for (int i = 0; i < 2; i++) {
		rd[i].d = &t.d[i];
		rd[i].buf = aligned_alloc(4096, MBUF);
		CHECK(rd[i].buf, "memory");
		memset(rd[i].buf, 0, MBUF);
		rd[i].fixed_cq = ibv_create_cq(t.d[i].ctx, 256, NULL, NULL, 0);
		CHECK(rd[i].fixed_cq, "CQ");
	}
	t0 = now_ms();
	for (op_no = 0; op_no < ops; op_no++) {
		struct rdev *r;
		unsigned int k;

		/*
		 * Each operation draws from a stream of its own: an outcome that
		 * differs changes what later operations on the same object do,
		 * not the choices of every operation after it.
		 */
		rnd_seed((seed + 1) * 0x9e3779b97f4a7c15ULL + (uint64_t)op_no * 0xbf58476d1ce4e5b9ULL);
		r = &rd[rn(2)];
		k = rn(100);

		if (k < 8)
			op_pd(r), count[0]++;
		else if (k < 20)
			op_mr(r), count[1]++;
		else if (k < 32)
			op_cq(r), count[2]++;
		else if (k < 55)
			op_qp(r), count[3]++;
		else if (k < 62)
			op_srq(r), count[4]++;
		else if (k < 67)
			op_ah(r), count[5]++;
		else if (k < 72)
			op_mw(r), count[6]++;
		else if (k < 77)
			op_query(r), count[7]++;
		else if (k < 85)
			op_raw(r), count[8]++;
		else
			op_traffic(), count[9]++;
	}
	{
		long long ms = now_ms() - t0;

		printf("# random: %ld operations in %lld ms (%.1f/s): pd %u mr %u cq %u qp %u srq %u ah %u mw %u query %u raw %u traffic %u\n",
		       ops, ms, ms ? 1000.0 * (double)ops / (double)ms : 0.0, count[0], count[1],
		       count[2], count[3], count[4], count[5], count[6], count[7], count[8],
		       count[9]);
	}
out:
	/* Teardown in dependency order; every destroy must succeed now. */
	traffic_down();
	for (int i = 0; i < 2; i++) {
		struct rdev *r = &rd[i];

		for (int j = 0; j < NQP; j++)
			if (r->qp[j] && ibv_destroy_qp(r->qp[j]))
				rc = KSFT_FAIL, diag("teardown: destroy QP: %s", strerror(errno));
		for (int j = 0; j < NAH; j++)
			if (r->ah[j] && ibv_destroy_ah(r->ah[j]))
				rc = KSFT_FAIL, diag("teardown: destroy AH");
		for (int j = 0; j < NMW; j++)
			if (r->mw[j] && ibv_dealloc_mw(r->mw[j]))
				rc = KSFT_FAIL, diag("teardown: dealloc MW");
		for (int j = 0; j < NSRQ; j++)
			if (r->srq[j] && ibv_destroy_srq(r->srq[j]))
				rc = KSFT_FAIL, diag("teardown: destroy SRQ");
		for (int j = 0; j < NMR; j++)
			if (r->mr[j] && ibv_dereg_mr(r->mr[j]))
				rc = KSFT_FAIL, diag("teardown: dereg MR");
		for (int j = 0; j < NCQ; j++)
			if (r->cq[j] && ibv_destroy_cq(r->cq[j]))
				rc = KSFT_FAIL, diag("teardown: destroy CQ");
		if (r->fixed_cq && ibv_destroy_cq(r->fixed_cq))
			rc = KSFT_FAIL, diag("teardown: destroy CQ");
		for (int j = 0; j < NPD; j++)
			if (r->pd[j] && ibv_dealloc_pd(r->pd[j]))
				rc = KSFT_FAIL, diag("teardown: dealloc PD");
		free(r->buf);
	}
	two_close(&t);
	return rc;
}
