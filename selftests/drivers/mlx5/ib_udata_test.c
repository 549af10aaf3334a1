// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_test - malformed driver data through the raw uverbs write() and
 * ioctl() interfaces and mmap() of an mlx5_ib device: every bad request must
 * be rejected with a clear errno, valid ones must still work.
 *
 * Usage: ib_udata_test /dev/infiniband/uverbsN
 *
 * Prints KTAP; exit status 1 when a case failed. Cases whose objects the
 * device cannot create (an emulator without that command yet) are skipped.
 * The cases are in ib_udata_cases_*.c, the plumbing in ib_udata_lib.c.
 */
#include <stdio.h>
#include <unistd.h>

#include "ib_udata.h"

int main(int argc, char **argv)
{
	uint32_t pd = 0, cq[2] = { 0, 0 };
	int fd, have_pd, have_cq;
	struct bufs b;

	if (argc < 2) {
		fprintf(stderr, "usage: ib_udata_test /dev/infiniband/uverbsN\n");
		return 2;
	}
	/* Line by line: a crash still shows the cases before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev_path = argv[1];
	printf("TAP version 13\n");

	fd = test_context();
	if (fd < 0) {
		printf("Bail out! no user context on %s\n", dev_path);
		return 1;
	}
	test_mmap(fd);

	b.cq_ring = anon(16 * PAGE);
	b.cq_db = anon(PAGE);
	b.qp_buf = anon(16 * PAGE);
	b.qp_db = anon(PAGE);
	if (!b.cq_ring || !b.cq_db || !b.qp_buf || !b.qp_db) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	have_pd = test_pd_mr(fd, &pd);
	if (have_pd)
		test_mw_rereg(fd, pd);
	else
		skip("mw and rereg: checks", "needs a PD");
	have_cq = test_cq(fd, &b, cq);
	if (have_pd && have_cq) {
		test_qp(fd, pd, cq, &b);
		test_srq(fd, pd, &b);
	} else {
		skip("qp: creation checks", "needs a PD and CQs");
		skip("srq: creation checks", "needs a PD");
	}
	test_ioctl(fd, have_cq, &b);
	test_random(fd, pd, have_pd && have_cq, cq, &b);
	test_devx();

	/* Closing the file destroys whatever is left (CQs, PD, context). */
	close(fd);
	return ktap_finish();
}
