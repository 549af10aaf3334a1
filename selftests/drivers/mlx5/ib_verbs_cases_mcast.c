// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_cases_mcast.c - UD multicast through ibv_attach_mcast: a send
 * to a multicast LID with the group's MGID reaches every attached QP on
 * both devices (the fabric forwards it, the sender's device loops it back)
 * with the 40-byte GRH in front of the data and IBV_WC_GRH set; a detached
 * QP gets nothing; a QP created with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB gets
 * no copy of its own sends while the other members still do.
 */
#include "ib_verbs.h"

#define MC_QKEY 0x22222222
#define MC_LID 0xc001
#define MC_QPN 0xffffff
#define MC_GRH 40
#define MC_LEN 200
#define MC_SLOT 4096

struct mc_qp {
	struct dev *d;
	struct ibv_cq *cq, *scq; /* receives, sends */
	struct ibv_qp *qp;
	struct mem m;
	bool attached;
};

static const uint8_t mgid_raw[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x6d, 0x63, 0x61, 0x73 };

static int mc_qp_new(struct mc_qp *q, struct dev *d, bool block_self)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = d->pd,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = port_num, .qkey = MC_QKEY,
	};

	q->d = d;
	q->cq = cq_new(d, 16, NULL, NULL);
	q->scq = cq_new(d, 16, NULL, NULL);
	if (!q->cq || !q->scq)
		return -1;
	ia.send_cq = q->scq;
	ia.recv_cq = q->cq;
	if (block_self) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		ia.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	}
	q->qp = ibv_create_qp_ex(d->ctx, &ia);
	if (!q->qp) {
		diag("ibv_create_qp_ex(UD%s): %s", block_self ? ", BLOCK_SELF_MCAST_LB" : "", strerror(errno));
		return -1;
	}
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		goto fail;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE))
		goto fail;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto fail;
	if (mem_reg(&q->m, d, 4 * MC_SLOT, IBV_ACCESS_LOCAL_WRITE))
		return -1;
	for (int i = 0; i < 4; i++) {
		struct ibv_sge s = { (uintptr_t)q->m.buf + i * MC_SLOT, MC_SLOT, q->m.mr->lkey };

		if (post_recv_sge(q->qp, 0x100 + i, &s, 1))
			return -1;
	}
	return 0;
fail:
	diag("UD QP 0x%x to state %d: %s", q->qp->qp_num, a.qp_state, strerror(errno));
	return -1;
}

static void mc_qp_free(struct mc_qp *q)
{
	union ibv_gid g;

	memcpy(g.raw, mgid_raw, 16);
	if (q->qp && q->attached && ibv_detach_mcast(q->qp, &g, MC_LID))
		diag("ibv_detach_mcast: %s", strerror(errno));
	if (q->qp)
		ibv_destroy_qp(q->qp);
	mem_free(&q->m);
	cq_free(&q->cq);
	cq_free(&q->scq);
}

static int mc_attach(struct mc_qp *q, bool on)
{
	union ibv_gid g;
	int r;

	memcpy(g.raw, mgid_raw, 16);
	r = on ? ibv_attach_mcast(q->qp, &g, MC_LID) : ibv_detach_mcast(q->qp, &g, MC_LID);
	if (r) {
		diag("ibv_%s_mcast QP 0x%x: %s", on ? "attach" : "detach", q->qp->qp_num, strerror(r));
		return -1;
	}
	q->attached = on;
	return 0;
}

/* One multicast SEND of MC_LEN bytes (pattern seed) from s. */
static bool mc_send(struct mc_qp *s, struct ibv_ah *ah, uint32_t seed)
{
	struct ibv_sge sg = { (uintptr_t)s->m.buf + 3 * MC_SLOT, MC_LEN, s->m.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seed, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = MC_QPN, .remote_qkey = MC_QKEY },
	};

	fill(s->m.buf + 3 * MC_SLOT, MC_LEN, seed);
	return !post_wr(s->qp, &wr) && expect_wc(s->scq, seed, IBV_WC_SUCCESS, NULL);
}

/* q received the copy of s's SEND (pattern seed) in receive slot `slot`. */
static bool mc_got(struct mc_qp *q, struct mc_qp *s, int slot, uint32_t seed)
{
	struct ibv_wc wc;
	uint8_t want[MC_LEN];
	const uint8_t *b = q->m.buf + slot * MC_SLOT;

	if (wait_wc(q->cq, &wc, 1, wait_ms) != 1) {
		diag("QP 0x%x: no multicast copy", q->qp->qp_num);
		return false;
	}
	fill(want, MC_LEN, seed);
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV || wc.wr_id != 0x100u + slot ||
	    wc.byte_len != MC_GRH + MC_LEN || wc.src_qp != s->qp->qp_num || !(wc.wc_flags & IBV_WC_GRH)) {
		diag("QP 0x%x: status %s opcode %d wr_id 0x%llx byte_len %u src_qp 0x%x flags 0x%x",
		     q->qp->qp_num, wc_status(wc.status), wc.opcode, (unsigned long long)wc.wr_id,
		     wc.byte_len, wc.src_qp, wc.wc_flags);
		return false;
	}
	if (b[0] >> 4 != 6 || b[6] != 0x1b || memcmp(b + 24, mgid_raw, 16) || memcmp(b + 8, s->d->gid.raw, 16)) {
		diag("QP 0x%x: GRH version %u next header 0x%x, DGID %s the MGID, SGID %s the sender's GID",
		     q->qp->qp_num, b[0] >> 4, b[6], memcmp(b + 24, mgid_raw, 16) ? "is not" : "is",
		     memcmp(b + 8, s->d->gid.raw, 16) ? "is not" : "is");
		return false;
	}
	if (first_diff(want, b + MC_GRH, MC_LEN) >= 0) {
		diag("QP 0x%x: data differ at %ld", q->qp->qp_num, first_diff(want, b + MC_GRH, MC_LEN));
		return false;
	}
	return true;
}

int case_mcast(void)
{
	struct two t = {};
	struct mc_qp s = {}, lb = {}, r1 = {}, r2 = {}, sb = {};
	struct ibv_ah *ah = NULL;
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "devices");
	for (int i = 0; i < 2; i++)
		CHECK(!ibv_query_gid(t.d[i].ctx, port_num, gid_index, &t.d[i].gid), "ibv_query_gid: %s",
		      strerror(errno));
	CHECK(t.d[0].attr.max_mcast_grp > 0 && t.d[0].attr.max_mcast_qp_attach >= 4,
	      "max_mcast_grp %d max_mcast_qp_attach %d", t.d[0].attr.max_mcast_grp,
	      t.d[0].attr.max_mcast_qp_attach);
	CHECK(!mc_qp_new(&s, &t.d[0], false) && !mc_qp_new(&lb, &t.d[0], false) &&
	      !mc_qp_new(&r1, &t.d[1], false) && !mc_qp_new(&r2, &t.d[1], false), "UD QPs");
	CHECK(!mc_attach(&s, true) && !mc_attach(&lb, true) && !mc_attach(&r1, true) && !mc_attach(&r2, true),
	      "attach");
	{
		struct ibv_ah_attr aa = {
			.dlid = MC_LID, .port_num = port_num, .is_global = 1,
			.grh = { .sgid_index = gid_index, .hop_limit = 1 },
		};

		memcpy(aa.grh.dgid.raw, mgid_raw, 16);
		ah = ibv_create_ah(t.d[0].pd, &aa);
		CHECK(ah, "ibv_create_ah(MLID 0x%x): %s", MC_LID, strerror(errno));
	}

	/*
	 * Every member gets a copy: the other device's two, the sender's own
	 * device's other QP and the sender itself (no loopback block).
	 */
	CHECK(mc_send(&s, ah, 1), "multicast send");
	CHECK(mc_got(&r1, &s, 0, 1) && mc_got(&r2, &s, 0, 1), "remote members");
	CHECK(mc_got(&lb, &s, 0, 1), "the sender's device's other member (loopback)");
	CHECK(mc_got(&s, &s, 0, 1), "the sender's own copy");

	/* Detached: no copy there, the others still get theirs. */
	CHECK(!mc_attach(&r2, false), "detach");
	CHECK(mc_send(&s, ah, 2), "multicast send after a detach");
	CHECK(mc_got(&r1, &s, 1, 2) && mc_got(&lb, &s, 1, 2) && mc_got(&s, &s, 1, 2), "members");
	CHECK(cq_quiet(r2.cq, quiet_ms), "a detached QP received a copy");

	/* BLOCK_SELF_MCAST_LB: the sending QP gets no copy of its own. */
	CHECK(!mc_qp_new(&sb, &t.d[0], true) && !mc_attach(&sb, true), "QP with BLOCK_SELF_MCAST_LB");
	CHECK(mc_send(&sb, ah, 3), "multicast send from the blocking QP");
	CHECK(mc_got(&r1, &sb, 2, 3) && mc_got(&lb, &sb, 2, 3) && mc_got(&s, &sb, 2, 3), "members");
	CHECK(cq_quiet(sb.cq, quiet_ms), "the blocking QP received its own send");
out:
	if (ah && ibv_destroy_ah(ah))
		diag("ibv_destroy_ah: %s", strerror(errno));
	mc_qp_free(&sb);
	mc_qp_free(&r2);
	mc_qp_free(&r1);
	mc_qp_free(&lb);
	mc_qp_free(&s);
	two_close(&t);
	return rc;
}
