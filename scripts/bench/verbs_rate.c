// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_rate - control-path rates through the whole stack (libibverbs,
 * uverbs, the driver, a firmware command): PD, CQ, RC QP and MR create +
 * destroy cycles per second on one device. A benchmark, not a test.
 *
 * Usage: verbs_rate DEVICE [ITERATIONS]
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static void report(const char *what, int n, double secs)
{
	printf("%-22s %10.0f /s  (%d in %.3f s)\n", what, n / secs, n, secs);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 200;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *buf;
	double t;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: %s DEVICE [ITERATIONS]\n", argv[0]);
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "verbs_rate: cannot open %s\n", argv[1]);
		return 1;
	}

	t = now();
	for (int i = 0; i < n; i++) {
		pd = ibv_alloc_pd(ctx);
		if (!pd || ibv_dealloc_pd(pd))
			goto fail;
	}
	report("pd_alloc_dealloc", n, now() - t);

	t = now();
	for (int i = 0; i < n; i++) {
		cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
		if (!cq || ibv_destroy_cq(cq))
			goto fail;
	}
	report("cq_create_destroy", n, now() - t);

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!pd || !cq)
		goto fail;
	t = now();
	for (int i = 0; i < n; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 64, .max_recv_wr = 64,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibv_qp *qp = ibv_create_qp(pd, &a);

		if (!qp || ibv_destroy_qp(qp))
			goto fail;
	}
	report("rc_qp_create_destroy", n, now() - t);

	buf = aligned_alloc(4096, 1 << 20);
	if (!buf)
		goto fail;
	memset(buf, 0, 1 << 20);
	t = now();
	for (int i = 0; i < n; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, 1 << 20, IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);

		if (!mr || ibv_dereg_mr(mr))
			goto fail;
	}
	report("mr_1mib_reg_dereg", n, now() - t);
	free(buf);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
fail:
	perror("verbs_rate");
	return 1;
}
