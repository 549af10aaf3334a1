// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory (ibv_alloc_dm, MEMIC): the device's memory as ibv_query_device_ex
 * reports it, an allocation on device 0 written and read back by the CPU
 * (ibv_memcpy_to_dm / ibv_memcpy_from_dm), a zero-based MR over it
 * (ibv_reg_dm_mr), the peer on device 1 RDMA WRITEs into it and READs it
 * back, data checked on both sides; a WRITE past the MR's end fails.
 */
#define _GNU_SOURCE
#include "verbs_compat.h"

#define DM_SIZE 4096

int case_dm(void)
{
	struct ibv_alloc_dm_attr da = { .length = DM_SIZE };
	struct ibv_device_attr_ex dx = {};
	uint8_t want[DM_SIZE], got[DM_SIZE];
	struct ep a = {}, b = {};
	struct ibv_mr *mr = NULL;
	struct ibv_dm *dm = NULL;
	struct two t = {};
	int rc = KSFT_PASS, err;
	const uint32_t n = 1024;

	CHECK(!two_open(&t), "open devices");
	err = ibv_query_device_ex(t.d[0].ctx, NULL, &dx);
	CHECK(!err, "ibv_query_device_ex: %s", strerror(err));
	obs("max_dm_size", "%llu", (unsigned long long)dx.max_dm_size);
	dm = ibv_alloc_dm(t.d[0].ctx, &da);
	err = dm ? 0 : errno;
	obs("ibv_alloc_dm", "%s", err_name(err));
	if (!dm && (err == EOPNOTSUPP || !dx.max_dm_size)) {
		diag("SKIP: ibv_alloc_dm: %s (max_dm_size %llu)", strerror(err),
		     (unsigned long long)dx.max_dm_size);
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(dm, "ibv_alloc_dm of %d bytes: %s", DM_SIZE, strerror(err));

	/* The CPU's round trip through the mapping of the device memory. */
	fill(want, DM_SIZE, 0x3c);
	err = ibv_memcpy_to_dm(dm, 0, want, DM_SIZE);
	CHECK(!err, "ibv_memcpy_to_dm: %s", strerror(err));
	memset(got, 0, sizeof(got));
	err = ibv_memcpy_from_dm(got, dm, 0, DM_SIZE);
	CHECK(!err, "ibv_memcpy_from_dm: %s", strerror(err));
	CHECK(first_diff(want, got, DM_SIZE) < 0, "read back differs at byte %ld",
	      first_diff(want, got, DM_SIZE));
	obs("memcpy to and from the DM", "data as written");

	mr = ibv_reg_dm_mr(t.d[0].pd, dm, 0, DM_SIZE,
			   IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	err = mr ? 0 : errno;
	obs("ibv_reg_dm_mr", "%s", err_name(err));
	CHECK(mr, "ibv_reg_dm_mr: %s", strerror(err));
	CHECK(!ibv_reg_dm_mr(t.d[0].pd, dm, 0, DM_SIZE, IBV_ACCESS_LOCAL_WRITE),
	      "ibv_reg_dm_mr without IBV_ACCESS_ZERO_BASED succeeded");
	obs("ibv_reg_dm_mr without ZERO_BASED", "%s", err_name(errno));

	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "QP on device 0");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "peer QP");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");

	/* RDMA WRITE into the DM at offset 1024 (zero-based addresses). */
	fill(b.m.buf, n, 0x71);
	CHECK(!post_rdma(&b, IBV_WR_RDMA_WRITE, 0xd0, 0, b.m.mr->lkey, n, 1024, mr->rkey),
	      "post RDMA WRITE into the DM MR");
	CHECK(expect_wc(b.scq, 0xd0, IBV_WC_SUCCESS, NULL), "RDMA WRITE completion");
	err = ibv_memcpy_from_dm(got, dm, 0, DM_SIZE);
	CHECK(!err, "ibv_memcpy_from_dm: %s", strerror(err));
	CHECK(first_diff(b.m.buf, got + 1024, n) < 0, "the DM holds other data at byte %ld",
	      first_diff(b.m.buf, got + 1024, n));
	CHECK(first_diff(want, got, 1024) < 0 && first_diff(want + 2048, got + 2048, 2048) < 0,
	      "the WRITE changed the DM outside its range");
	obs("RDMA WRITE into the DM MR", "data as written");

	/* RDMA READ of the whole DM back. */
	memset(b.m.buf, 0, DM_SIZE);
	CHECK(!post_rdma(&b, IBV_WR_RDMA_READ, 0xd1, 0, b.m.mr->lkey, DM_SIZE, 0, mr->rkey),
	      "post RDMA READ from the DM MR");
	CHECK(expect_wc(b.scq, 0xd1, IBV_WC_SUCCESS, NULL), "RDMA READ completion");
	CHECK(first_diff(got, b.m.buf, DM_SIZE) < 0, "READ returned other data at byte %ld",
	      first_diff(got, b.m.buf, DM_SIZE));
	obs("RDMA READ from the DM MR", "data as in the DM");

	/* Past the end of the MR. */
	CHECK(!post_rdma(&b, IBV_WR_RDMA_WRITE, 0xd2, 0, b.m.mr->lkey, 64, DM_SIZE - 32, mr->rkey),
	      "post RDMA WRITE past the end");
	CHECK(expect_wc(b.scq, 0xd2, IBV_WC_REM_ACCESS_ERR, NULL),
	      "RDMA WRITE past the end of the DM MR: remote access error");
	obs("RDMA WRITE past the end", "remote access error");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	if (mr)
		ibv_dereg_mr(mr);
	if (dm) {
		err = ibv_free_dm(dm);
		if (err && rc == KSFT_PASS) {
			diag("ibv_free_dm: %s", strerror(err));
			rc = KSFT_FAIL;
		}
	}
	two_close(&t);
	return rc;
}
