// SPDX-License-Identifier: GPL-2.0
/*
 * Full receive queues: receives are posted one at a time until the
 * provider refuses one, then a chain of two on the full queue. What the
 * QP or SRQ was granted at creation, how many receives fit, the error and
 * bad_wr of the refused post are observed (they come from the provider's
 * view of the queue, which the kernel's create responses set up).
 */
#define _GNU_SOURCE
#include "verbs_compat.h"

#define ASKED 20	/* not a power of two: the queue is rounded up */
#define LIMIT 4096	/* no test queue holds more */

/* Posts single receives until one fails; returns how many fitted. */
static int fill_queue(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_sge *sg, int *err)
{
	struct ibv_recv_wr wr = { .sg_list = sg, .num_sge = 1 }, *bad;
	int n;

	for (n = 0; n < LIMIT; n++) {
		wr.wr_id = n;
		*err = srq ? ibv_post_srq_recv(srq, &wr, &bad) : ibv_post_recv(qp, &wr, &bad);
		if (*err)
			return n;
	}
	return n;
}

/*
 * A chain one longer than the granted depth on the empty queue: the error
 * and the index of the WR bad_wr names (the ones before it are posted).
 */
static void chain_over(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_sge *sg,
		       unsigned int granted)
{
	struct ibv_recv_wr w[LIMIT], *bad = NULL;
	unsigned int i, n = granted + 1 < LIMIT ? granted + 1 : LIMIT;
	int err;

	memset(w, 0, sizeof(w));
	for (i = 0; i < n; i++) {
		w[i].wr_id = i;
		w[i].sg_list = sg;
		w[i].num_sge = 1;
		w[i].next = i + 1 < n ? &w[i + 1] : NULL;
	}
	err = srq ? ibv_post_srq_recv(srq, w, &bad) : ibv_post_recv(qp, w, &bad);
	obs("chain of granted + 1 on the empty queue", "%s, bad_wr %ld", err_name(err),
	    bad ? (long)(bad - w) : -1L);
}

/* A chain of two on the full queue: the error and which WR bad_wr names. */
static void chain_on_full(struct ibv_qp *qp, struct ibv_srq *srq, struct ibv_sge *sg)
{
	struct ibv_recv_wr w[2] = {
		{ .wr_id = 1000, .sg_list = sg, .num_sge = 1, .next = &w[1] },
		{ .wr_id = 1001, .sg_list = sg, .num_sge = 1 },
	}, *bad = NULL;
	int err = srq ? ibv_post_srq_recv(srq, w, &bad) : ibv_post_recv(qp, w, &bad);

	obs("chain of 2 on the full queue", "%s, bad_wr %s", err_name(err),
	    bad == &w[0] ? "first" : bad == &w[1] ? "second" : bad ? "other" : "NULL");
}

int case_rq_full(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = ASKED, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = port_num };
	struct ibv_qp_init_attr ia0, qa;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_sge sg;
	struct mem m = {};
	struct two t = {};
	int rc = KSFT_PASS, n, err;

	CHECK(!two_open(&t), "open devices");
	CHECK(!mem_reg(&m, &t.d[0], 4096, IBV_ACCESS_LOCAL_WRITE), "register memory");
	sg = (struct ibv_sge){ .addr = (uintptr_t)m.buf, .length = 64, .lkey = m.mr->lkey };
	cq = cq_new(&t.d[0], 2 * LIMIT, NULL, NULL);
	CHECK(cq, "create CQ");
	ia.send_cq = ia.recv_cq = cq;
	ia0 = ia;
	qp = ibv_create_qp(t.d[0].pd, &ia);
	CHECK(qp, "ibv_create_qp: %s", strerror(errno));
	obs("granted", "max_recv_wr %u max_recv_sge %u", ia.cap.max_recv_wr, ia.cap.max_recv_sge);
	CHECK(ia.cap.max_recv_wr >= ASKED, "granted %u receives, asked %d", ia.cap.max_recv_wr,
	      ASKED);
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS), "modify to INIT: %s", strerror(errno));
	CHECK(!ibv_query_qp(qp, &a, IBV_QP_CAP, &qa), "ibv_query_qp: %s", strerror(errno));
	obs("queried", "max_recv_wr %u max_recv_sge %u max_send_wr %u max_send_sge %u max_inline_data %u",
	    a.cap.max_recv_wr, a.cap.max_recv_sge, a.cap.max_send_wr, a.cap.max_send_sge,
	    a.cap.max_inline_data);
	n = fill_queue(qp, NULL, &sg, &err);
	obs("receives posted until refused", "%d, then %s", n, err_name(err));
	CHECK(n < LIMIT, "%d receives fitted", n);
	CHECK(n >= (int)ia.cap.max_recv_wr, "only %d of %u granted receives fitted", n,
	      ia.cap.max_recv_wr);
	chain_on_full(qp, NULL, &sg);
	CHECK(!ibv_destroy_qp(qp), "ibv_destroy_qp: %s", strerror(errno));
	qp = ibv_create_qp(t.d[0].pd, &ia0);
	CHECK(qp, "ibv_create_qp: %s", strerror(errno));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = port_num;
	a.pkey_index = 0;
	a.qp_access_flags = 0;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS), "modify to INIT: %s", strerror(errno));
	chain_over(qp, NULL, &sg, ia0.cap.max_recv_wr);
out:
	if (qp)
		ibv_destroy_qp(qp);
	cq_free(&cq);
	mem_free(&m);
	two_close(&t);
	return rc;
}

int case_srq_full(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = ASKED, .max_sge = 1 } };
	struct ibv_srq *srq = NULL;
	struct ibv_srq_attr q;
	struct ibv_sge sg;
	struct mem m = {};
	struct two t = {};
	int rc = KSFT_PASS, n, err;

	CHECK(!two_open(&t), "open devices");
	CHECK(!mem_reg(&m, &t.d[0], 4096, IBV_ACCESS_LOCAL_WRITE), "register memory");
	sg = (struct ibv_sge){ .addr = (uintptr_t)m.buf, .length = 64, .lkey = m.mr->lkey };
	srq = ibv_create_srq(t.d[0].pd, &sa);
	CHECK(srq, "ibv_create_srq: %s", strerror(errno));
	obs("granted", "max_wr %u max_sge %u", sa.attr.max_wr, sa.attr.max_sge);
	CHECK(!ibv_query_srq(srq, &q), "ibv_query_srq: %s", strerror(errno));
	obs("queried", "max_wr %u max_sge %u", q.max_wr, q.max_sge);
	CHECK(sa.attr.max_wr >= ASKED, "granted %u receives, asked %d", sa.attr.max_wr, ASKED);
	n = fill_queue(NULL, srq, &sg, &err);
	obs("receives posted until refused", "%d, then %s", n, err_name(err));
	CHECK(n < LIMIT, "%d receives fitted", n);
	CHECK(n >= (int)sa.attr.max_wr, "only %d of %u granted receives fitted", n,
	      sa.attr.max_wr);
	chain_on_full(NULL, srq, &sg);
	CHECK(!ibv_destroy_srq(srq), "ibv_destroy_srq: %s", strerror(errno));
	sa.attr = (struct ibv_srq_attr){ .max_wr = ASKED, .max_sge = 1 };
	srq = ibv_create_srq(t.d[0].pd, &sa);
	CHECK(srq, "ibv_create_srq: %s", strerror(errno));
	chain_over(NULL, srq, &sg, sa.attr.max_wr);
out:
	if (srq)
		ibv_destroy_srq(srq);
	mem_free(&m);
	two_close(&t);
	return rc;
}
