// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_mr.c - ALLOC_PD and REG_MR with driver data mlx5 does not
 * take, lengths beyond the device, unmapped memory, unknown access flags
 * and handles that name no object.
 */
#include "ib_udata.h"

static long alloc_pd_drv(int fd, const void *drv, size_t drv_len, uint32_t *handle,
			 uint32_t *pdn)
{
	struct ib_uverbs_alloc_pd c = { 0 };
	struct ib_uverbs_alloc_pd_resp resp;
	struct mlx5_ib_alloc_pd_resp mresp;
	long rc;

	rc = uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_ALLOC_PD,
		.req = &c, .req_len = sizeof(c),
		.udata = drv, .udata_len = drv_len,
		.resp = &resp, .resp_len = sizeof(resp),
		.uresp = &mresp, .uresp_len = sizeof(mresp),
	});
	if (!rc) {
		*handle = resp.pd_handle;
		if (pdn)
			*pdn = mresp.pdn;
	}
	return rc;
}

static long alloc_pd(int fd, const void *drv, size_t drv_len, uint32_t *handle)
{
	return alloc_pd_drv(fd, drv, drv_len, handle, NULL);
}

long alloc_pd_num(int fd, uint32_t *handle, uint32_t *pdn)
{
	return alloc_pd_drv(fd, NULL, 0, handle, pdn);
}

/* Registers and deregisters at once; the reserved lkey 0x100 is an error. */
static long reg_mr(int fd, uint32_t pd, uint64_t start, uint64_t len, uint64_t va,
		   uint32_t access, const void *drv, size_t drv_len)
{
	struct ib_uverbs_reg_mr c = {
		.start = start, .length = len, .hca_va = va,
		.pd_handle = pd, .access_flags = access,
	};
	struct ib_uverbs_reg_mr_resp resp;
	long rc;

	rc = uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_REG_MR,
		.req = &c, .req_len = sizeof(c),
		.udata = drv, .udata_len = drv_len,
		.resp = &resp, .resp_len = sizeof(resp),
	});
	if (!rc) {
		if (resp.lkey == 0x100) {
			diag("lkey 0x100 is reserved");
			rc = -EIO;
		}
		destroy_handle(fd, IB_USER_VERBS_CMD_DEREG_MR, resp.mr_handle);
	}
	return rc;
}

int test_pd_mr(int fd, uint32_t *pd)
{
	const uint32_t lw = IB_UVERBS_ACCESS_LOCAL_WRITE;
	uint64_t junk[2] = { 1, 0 };
	char *p = anon(16 * PAGE);
	uint64_t buf = addr(p);
	uint32_t pd2;
	long rc;

	expect_err("pd: non-zero driver data", alloc_pd(fd, junk, sizeof(junk), pd), EOPNOTSUPP);
	rc = alloc_pd(fd, NULL, 0, pd);
	if (rc) {
		diag("ALLOC_PD: %ld (emulator without protection domains?)", rc);
		skip("pd: allocate", "the device cannot allocate a PD");
		return 0;
	}
	ok(1, "pd: allocate");
	rc = alloc_pd(fd, NULL, 0, &pd2);
	expect_ok("pd: allocate and free a second PD", rc ? rc :
		  destroy_handle(fd, IB_USER_VERBS_CMD_DEALLOC_PD, pd2));
	if (!rc)
		expect_err("pd: free a freed PD",
			   destroy_handle(fd, IB_USER_VERBS_CMD_DEALLOC_PD, pd2), ENOENT);

	if (!p) {
		ok(0, "mr: 64 KiB of anonymous memory");
		return 1;
	}
	rc = reg_mr(fd, *pd, buf, 16 * PAGE, buf, lw, NULL, 0);
	if (rc) {
		diag("REG_MR: %ld", rc);
		skip("mr: register 64 KiB", "the device cannot create an MKey");
	} else {
		ok(1, "mr: register 64 KiB");
	}
	expect_err("mr: length beyond the device limit",
		   reg_mr(fd, *pd, buf, 1UL << 50, buf, lw, NULL, 0), EINVAL);
	expect_err("mr: unmapped memory",
		   reg_mr(fd, *pd, UNMAPPED, 16 * PAGE, UNMAPPED, lw, NULL, 0), EFAULT);
	expect_err("mr: non-zero driver data",
		   reg_mr(fd, *pd, buf, PAGE, buf, lw, junk, sizeof(junk)), EOPNOTSUPP);
	expect_err("mr: unknown access flag (on-demand paging)",
		   reg_mr(fd, *pd, buf, PAGE, buf, lw | IB_UVERBS_ACCESS_ON_DEMAND, NULL, 0),
		   EOPNOTSUPP);
	expect_bad_handle("mr: unknown PD handle",
			  reg_mr(fd, *pd + 1000, buf, PAGE, buf, lw, NULL, 0));
	return 1;
}
