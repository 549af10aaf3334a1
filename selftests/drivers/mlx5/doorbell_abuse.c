// SPDX-License-Identifier: GPL-2.0
/*
 * doorbell_abuse: the unprivileged side of doorbell_test.sh and the
 * resource-bounds load of bounds_test.sh.
 *
 *   doorbell_abuse flood DEV SECONDS CQN_LO CQN_HI QPN_LO QPN_HI
 *	Opens DEV, creates a CQ and an RC QP of its own, finds its UAR page
 *	through mlx5dv_init_obj() (the QP's BlueFlame register, the CQ's
 *	doorbell page), then for SECONDS writes through that page: EQ
 *	doorbells (+0x48 CI, +0x40 arm, be32 eqn << 24 | ci) for eqn 0..7,
 *	CQ arm doorbells (+0x20) for every CQN in [CQN_LO, CQN_HI] and send
 *	doorbells for every QPN in [QPN_LO, QPN_HI], skipping its own CQ
 *	and QP; a read of the page after each round keeps QEMU from
 *	queueing the writes. On a polled page (mlx5-emu --doorbells poll:
 *	the page is shared memory, a register keeps only the last store
 *	until the emulator takes it and reads all-ones again) each write
 *	waits until the register no longer reads what was written, so that
 *	every doorbell reaches the device. SIGTERM ends the flood before
 *	SECONDS are over (the test's measurements are done). Prints the
 *	counts: "written eq N cq N sq N".
 *
 *   doorbell_abuse objects DEV COUNT
 *	COUNT rounds of PD, 1 MiB MR, CQ and QP create + destroy; prints
 *	"objects N".
 *
 *   doorbell_abuse aliased DEV SECONDS
 *	An RC QP aimed at a LID no port has (0x7777), no retransmission
 *	timer, and RDMA WRITEs whose every SGE (up to the device's max_sge)
 *	is the same 16 MiB region, posted again and again for SECONDS (the
 *	SQ fills: nothing completes). Prints "posted N sge S bytes B".
 *
 *   doorbell_abuse loopback DEV0 DEV1 COUNT
 *	Two RC QPs (on DEV0 and DEV1) connected to each other; COUNT SENDs
 *	whose SGEs all name one 16 MiB region land in a receive whose 4
 *	SGEs alias another. Prints "sent N bytes B".
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#define MR_LEN (16u << 20)
#define UNREACHABLE_LID 0x7777

static void die(const char *what)
{
	fprintf(stderr, "doorbell_abuse: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *c = NULL;

	for (int i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			c = ibv_open_device(l[i]);
	if (!c) {
		errno = ENODEV;
		die(name);
	}
	ibv_free_device_list(l);
	return c;
}

static struct ibv_qp *try_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq, int sge, int wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = 4, .max_send_sge = sge, .max_recv_sge = 4 },
	};

	return ibv_create_qp(pd, &a);
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq, int sge, int wr)
{
	struct ibv_qp *qp = try_rc_qp(pd, cq, sge, wr);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

/* RESET -> INIT -> RTR -> RTS towards (dlid, dqpn); timeout 0: no timer. */
static void connect_qp(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn, int timeout)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");
}

/*
 * Polled pages: wait (at most 2 s) until the device took the doorbell
 * just written to the register at r (it reads something else again).
 */
static void taken(volatile void *r, unsigned int size, uint64_t v)
{
	double limit = now() + 2;

	while ((size == 4 ? *(volatile uint32_t *)r : *(volatile uint64_t *)r) == v)
		if (now() > limit) {
			fprintf(stderr, "doorbell_abuse: the device never took a doorbell\n");
			exit(1);
		}
}

static volatile sig_atomic_t flood_stop;

static void flood_on_term(int sig)
{
	(void)sig;
	flood_stop = 1;
}

static int flood(char **v)
{
	struct ibv_context *c = open_dev(v[0]);
	double end = now() + atof(v[1]);
	unsigned int cq_lo = strtoul(v[2], NULL, 0), cq_hi = strtoul(v[3], NULL, 0);
	unsigned int qp_lo = strtoul(v[4], NULL, 0), qp_hi = strtoul(v[5], NULL, 0);
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_cq *cq = pd ? ibv_create_cq(c, 16, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp = cq ? rc_qp(pd, cq, 1, 16) : NULL;
	struct mlx5dv_qp dqp = {};
	struct mlx5dv_cq dcq = {};
	struct mlx5dv_obj o = { .qp = { .in = qp, .out = &dqp }, .cq = { .in = cq, .out = &dcq } };
	unsigned long eq = 0, cqs = 0, sqs = 0;

	if (!qp)
		die("own objects");
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ))
		die("mlx5dv_init_obj");
	volatile uint8_t *page = (volatile uint8_t *)((uintptr_t)dqp.bf.reg & ~(uintptr_t)0xfff);
	volatile uint8_t *cq_page = (volatile uint8_t *)((uintptr_t)dcq.cq_uar & ~(uintptr_t)0xfff);
	volatile uint64_t *bf = dqp.bf.reg;

	printf("own qpn 0x%x cqn 0x%x bf %p cq_uar %p\n", qp->qp_num, dcq.cqn, (void *)bf, dcq.cq_uar);
	fflush(stdout); /* doorbell_test.sh waits for this line */
	int polled = -1; /* known after the first CQ doorbell, written first */

	signal(SIGTERM, flood_on_term);
	for (unsigned int ci = 0; now() < end && !flood_stop; ci++) {
		for (uint32_t n = cq_lo; n <= cq_hi; n++) {
			if (n == dcq.cqn)
				continue;
			uint32_t d[2] = { htobe32(ci & 0xffffff), htobe32(n) };
			uint64_t w;

			memcpy(&w, d, 8);
			*(volatile uint64_t *)(cq_page + 0x20) = w;
			cqs++;
			/* A trapped page reads 0, a polled one the doorbell or all-ones. */
			if (polled < 0)
				polled = *(volatile uint64_t *)(cq_page + 0x20) != 0;
			if (polled)
				taken(cq_page + 0x20, 8, w);
		}
		for (uint32_t eqn = 0; eqn < 8; eqn++, eq++) {
			volatile uint32_t *r = (volatile uint32_t *)(page + (ci & 1 ? 0x40 : 0x48));

			*r = htobe32(eqn << 24 | (ci & 0xffffff));
			if (polled == 1)
				taken(r, 4, htobe32(eqn << 24 | (ci & 0xffffff)));
		}
		for (uint32_t n = qp_lo; n <= qp_hi; n++) {
			if (n == qp->qp_num)
				continue;
			/* A SEND at a made-up WQE index, one data segment. */
			uint32_t d[2] = { htobe32((ci & 0xffff) << 8 | 0x0a), htobe32(n << 8 | 2) };
			uint64_t w;

			memcpy(&w, d, 8);
			*bf = w;
			sqs++;
			if (polled == 1)
				taken(bf, 8, w);
		}
		/*
		 * A read after each round: QEMU's vfio-user client queues
		 * posted writes without limit, and a read waits for them all.
		 * What is measured is the device, not QEMU's queue.
		 */
		(void)*(volatile uint32_t *)(page + 0x40);
	}
	printf("written eq %lu cq %lu sq %lu\n", eq, cqs, sqs);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(c);
	return 0;
}

static int objects(char **v)
{
	struct ibv_context *c = open_dev(v[0]);
	int n = atoi(v[1]);
	void *buf = calloc(1, 1 << 20);

	for (int i = 0; i < n; i++) {
		struct ibv_pd *pd = ibv_alloc_pd(c);
		struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, 1 << 20, IBV_ACCESS_LOCAL_WRITE) : NULL;
		struct ibv_cq *cq = mr ? ibv_create_cq(c, 64, NULL, NULL, 0) : NULL;
		struct ibv_qp *qp = cq ? rc_qp(pd, cq, 1, 16) : NULL;

		if (!qp)
			die("create");
		if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd))
			die("destroy");
	}
	printf("objects %d\n", n);
	ibv_close_device(c);
	return 0;
}

/* One WRITE or SEND whose every SGE is the whole of `mr`. */
static int post_aliased(struct ibv_qp *qp, struct ibv_mr *mr, int nsge, enum ibv_wr_opcode op)
{
	struct ibv_sge sg[64];
	struct ibv_send_wr wr = { .sg_list = sg, .num_sge = nsge, .opcode = op, .send_flags = IBV_SEND_SIGNALED },
			   *bad;

	for (int i = 0; i < nsge; i++)
		sg[i] = (struct ibv_sge){ (uintptr_t)mr->addr, mr->length, mr->lkey };
	wr.wr.rdma.remote_addr = 0x100000;
	wr.wr.rdma.rkey = 0x1234;
	return ibv_post_send(qp, &wr, &bad);
}

static int max_sge(struct ibv_context *c)
{
	struct ibv_device_attr a;

	if (ibv_query_device(c, &a))
		die("ibv_query_device");
	/* The message stays within 1 GiB (log_max_msg 30). */
	return a.max_sge < 63 ? a.max_sge : 63;
}

static int aliased(char **v)
{
	struct ibv_context *c = open_dev(v[0]);
	double end = now() + atof(v[1]);
	int nsge = max_sge(c);
	struct ibv_pd *pd = ibv_alloc_pd(c);
	void *buf = calloc(1, MR_LEN);
	struct ibv_mr *mr = pd && buf ? ibv_reg_mr(pd, buf, MR_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_cq *cq = mr ? ibv_create_cq(c, 256, NULL, NULL, 0) : NULL;
	struct ibv_qp *qp;
	unsigned long posted = 0;

	if (!cq)
		die("objects");
	/*
	 * max_sge is what a receive or a SEND takes; an RDMA WRITE WQE also
	 * carries the remote address: the largest count the QP accepts.
	 */
	while (!(qp = try_rc_qp(pd, cq, nsge, 64)) && nsge > 1)
		nsge--;
	if (!qp)
		die("ibv_create_qp");
	connect_qp(qp, UNREACHABLE_LID, 0x4242, 0);
	while (now() < end) {
		if (post_aliased(qp, mr, nsge, IBV_WR_RDMA_WRITE) == 0)
			posted++;
		else
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL); /* SQ full */
	}
	printf("posted %lu sge %d bytes %llu\n", posted, nsge, (unsigned long long)nsge * MR_LEN);
	return 0;
}

static int loopback(char **v)
{
	struct ibv_context *c0 = open_dev(v[0]), *c1 = open_dev(v[1]);
	int n = atoi(v[2]), nsge = max_sge(c0);
	struct ibv_pd *p0 = ibv_alloc_pd(c0), *p1 = ibv_alloc_pd(c1);
	void *b0 = calloc(1, MR_LEN), *b1 = calloc(1, MR_LEN);
	struct ibv_mr *m0 = ibv_reg_mr(p0, b0, MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *m1 = ibv_reg_mr(p1, b1, MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_cq *q0 = ibv_create_cq(c0, 64, NULL, NULL, 0), *q1 = ibv_create_cq(c1, 64, NULL, NULL, 0);
	struct ibv_port_attr pa0, pa1;
	unsigned long long bytes = 0;

	if (!m0 || !m1 || !q0 || !q1 || ibv_query_port(c0, 1, &pa0) || ibv_query_port(c1, 1, &pa1))
		die("objects");
	/* The receive takes 4 SGEs of 16 MiB: the message is at most 64 MiB. */
	if (nsge > 4)
		nsge = 4;
	struct ibv_qp *a = rc_qp(p0, q0, nsge, 16), *b = rc_qp(p1, q1, 4, 16);

	connect_qp(a, pa1.lid, b->qp_num, 14);
	connect_qp(b, pa0.lid, a->qp_num, 14);
	for (int i = 0; i < n; i++) {
		struct ibv_sge rs[4];
		struct ibv_recv_wr rw = { .sg_list = rs, .num_sge = 4 }, *rbad;
		struct ibv_wc wc;
		double t0 = now();
		int got = 0;

		for (int k = 0; k < 4; k++)
			rs[k] = (struct ibv_sge){ (uintptr_t)b1, MR_LEN, m1->lkey };
		if (ibv_post_recv(b, &rw, &rbad) || post_aliased(a, m0, nsge, IBV_WR_SEND))
			die("post");
		while (got < 2) {
			int r = ibv_poll_cq(got ? q1 : q0, 1, &wc);

			if (r < 0 || (r && wc.status != IBV_WC_SUCCESS)) {
				fprintf(stderr, "completion %d: status %s\n", got, r < 0 ? "poll failed" :
					ibv_wc_status_str(wc.status));
				return 1;
			}
			got += r;
			if (now() - t0 > 300) {
				fprintf(stderr, "message %d: no completion in 300 s\n", i);
				return 1;
			}
		}
		bytes += wc.byte_len;
	}
	printf("sent %d bytes %llu\n", n, bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[1], "flood"))
		return flood(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "objects"))
		return objects(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "aliased"))
		return aliased(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "loopback"))
		return loopback(argv + 2);
	fprintf(stderr, "usage: doorbell_abuse flood DEV SECONDS CQN_LO CQN_HI QPN_LO QPN_HI\n"
		"       doorbell_abuse objects DEV COUNT\n"
		"       doorbell_abuse aliased DEV SECONDS\n"
		"       doorbell_abuse loopback DEV0 DEV1 COUNT\n");
	return 2;
}
