// SPDX-License-Identifier: GPL-2.0
/*
 * Access flags: which ones ibv_modify_qp (RC, RESET -> INIT) and
 * ibv_reg_mr accept, and what ibv_query_qp reports back.
 */
#define _GNU_SOURCE
#include "verbs_compat.h"

#define LW IBV_ACCESS_LOCAL_WRITE
#define RW IBV_ACCESS_REMOTE_WRITE
#define RR IBV_ACCESS_REMOTE_READ
#define RA IBV_ACCESS_REMOTE_ATOMIC

static const struct flag_set {
	const char *name;
	int flags;
} qp_sets[] = {
	{ "none", 0 },
	{ "REMOTE_WRITE|READ|ATOMIC", RW | RR | RA },
	{ "FLUSH_GLOBAL|FLUSH_PERSISTENT", IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT },
	{ "REMOTE_WRITE|READ|FLUSH_GLOBAL|FLUSH_PERSISTENT",
	  RW | RR | IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT },
	{ "LOCAL_WRITE|MW_BIND", LW | IBV_ACCESS_MW_BIND },
	{ "ZERO_BASED", IBV_ACCESS_ZERO_BASED },
	{ "ON_DEMAND", IBV_ACCESS_ON_DEMAND },
	{ "RELAXED_ORDERING", IBV_ACCESS_RELAXED_ORDERING },
}, mr_sets[] = {
	{ "none", 0 },
	{ "LOCAL_WRITE", LW },
	{ "LOCAL_WRITE|REMOTE_WRITE|READ|ATOMIC", LW | RW | RR | RA },
	{ "REMOTE_WRITE without LOCAL_WRITE", RW },
	{ "REMOTE_ATOMIC without LOCAL_WRITE", RA },
	{ "MW_BIND", LW | IBV_ACCESS_MW_BIND },
	{ "ZERO_BASED", LW | IBV_ACCESS_ZERO_BASED },
	{ "ON_DEMAND", LW | IBV_ACCESS_ON_DEMAND },
	{ "HUGETLB", LW | IBV_ACCESS_HUGETLB },
	{ "FLUSH_GLOBAL", LW | IBV_ACCESS_FLUSH_GLOBAL },
	{ "FLUSH_PERSISTENT", LW | IBV_ACCESS_FLUSH_PERSISTENT },
	{ "RELAXED_ORDERING", LW | IBV_ACCESS_RELAXED_ORDERING },
	{ "optional bit 29", LW | (1 << 29) },
	{ "unknown bit 12", LW | (1 << 12) },
};

#define NSETS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static struct ibv_qp *rc_qp_ex(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = d->pd,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(d->ctx, &ia);

	if (!qp)
		diag("ibv_create_qp_ex: %s", strerror(errno));
	return qp;
}

int case_qp_access(void)
{
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct two t = {};
	int rc = KSFT_PASS, i, err;

	CHECK(!two_open(&t), "open devices");
	cq = cq_new(&t.d[0], 16, NULL, NULL);
	CHECK(cq, "create CQ");
	for (i = 0; i < NSETS(qp_sets); i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .port_num = port_num,
			.qp_access_flags = qp_sets[i].flags,
		};
		struct ibv_qp_init_attr ia;

		qp = rc_qp_ex(&t.d[0], cq);
		CHECK(qp, "create RC QP");
		err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
		memset(&a, 0, sizeof(a));
		if (!err && ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, &ia))
			CHECK(0, "ibv_query_qp: %s", strerror(errno));
		if (err)
			obs(qp_sets[i].name, "modify to INIT %s", err_name(err));
		else
			obs(qp_sets[i].name, "modify to INIT 0, state %s, access 0x%x",
			    qps_name(a.qp_state), a.qp_access_flags);
		/* The plain remote rights must be taken on any driver. */
		if (i < 2)
			CHECK(!err, "modify to INIT with %s: %s", qp_sets[i].name, strerror(err));
		CHECK(!ibv_destroy_qp(qp), "ibv_destroy_qp: %s", strerror(errno));
		qp = NULL;
	}
out:
	if (qp)
		ibv_destroy_qp(qp);
	cq_free(&cq);
	two_close(&t);
	return rc;
}

int case_mr_access(void)
{
	struct ibv_mr *mr;
	struct two t = {};
	void *buf = NULL;
	int rc = KSFT_PASS, i;

	CHECK(!two_open(&t), "open devices");
	CHECK(!posix_memalign(&buf, 4096, 65536), "memory");
	for (i = 0; i < NSETS(mr_sets); i++) {
		mr = ibv_reg_mr(t.d[0].pd, buf, 65536, mr_sets[i].flags);
		obs(mr_sets[i].name, "ibv_reg_mr %s", err_name(mr ? 0 : errno));
		if (i < 3)
			CHECK(mr, "ibv_reg_mr with %s: %s", mr_sets[i].name, strerror(errno));
		if (i == 3 || i == 4)
			CHECK(!mr, "ibv_reg_mr with %s succeeded", mr_sets[i].name);
		if (mr)
			CHECK(!ibv_dereg_mr(mr), "ibv_dereg_mr: %s", strerror(errno));
	}
out:
	free(buf);
	two_close(&t);
	return rc;
}
