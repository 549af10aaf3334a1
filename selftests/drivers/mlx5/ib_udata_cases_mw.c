// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_mw.c - ALLOC_MW with and without struct mlx5_ib_alloc_mw
 * (the mlx5 provider sends none), with fields mlx5 does not define, and a
 * window type ib_core does not know; REREG_MR with driver data and with
 * translations the device cannot take.
 */
#include "ib_udata.h"

/* Allocates and frees a window at once. */
static long alloc_mw(int fd, uint32_t pd, uint8_t type, const void *drv, size_t drv_len)
{
	struct ib_uverbs_alloc_mw c = { .pd_handle = pd, .mw_type = type };
	struct ib_uverbs_alloc_mw_resp resp;
	long rc;

	rc = uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_ALLOC_MW,
		.req = &c, .req_len = sizeof(c),
		.udata = drv, .udata_len = drv_len,
		.resp = &resp, .resp_len = sizeof(resp),
	});
	if (!rc)
		destroy_handle(fd, IB_USER_VERBS_CMD_DEALLOC_MW, resp.mw_handle);
	return rc;
}

static void test_mw(int fd, uint32_t pd)
{
	struct mlx5_ib_alloc_mw req = { .num_klms = 8 };
	struct {
		struct mlx5_ib_alloc_mw req;
		uint64_t more;
	} longer = { .req = req, .more = 0 };

	expect_ok("mw: type 1 without driver data", alloc_mw(fd, pd, IBV_MW_TYPE_1, NULL, 0));
	expect_ok("mw: type 2 without driver data", alloc_mw(fd, pd, IBV_MW_TYPE_2, NULL, 0));
	expect_ok("mw: struct mlx5_ib_alloc_mw, 8 KLMs",
		  alloc_mw(fd, pd, IBV_MW_TYPE_2, &req, sizeof(req)));
	expect_ok("mw: a longer request with zero trailing bytes",
		  alloc_mw(fd, pd, IBV_MW_TYPE_1, &longer, sizeof(longer)));
	longer.more = 1;
	expect_err("mw: non-zero trailing bytes",
		   alloc_mw(fd, pd, IBV_MW_TYPE_1, &longer, sizeof(longer)), EOPNOTSUPP);
	req.comp_mask = 1;
	expect_err("mw: non-zero comp_mask", alloc_mw(fd, pd, IBV_MW_TYPE_1, &req, sizeof(req)),
		   EOPNOTSUPP);
	req.comp_mask = 0;
	req.reserved2 = 1;
	expect_err("mw: non-zero reserved field", alloc_mw(fd, pd, IBV_MW_TYPE_2, &req, sizeof(req)),
		   EOPNOTSUPP);
	expect_err("mw: unknown window type", alloc_mw(fd, pd, 3, NULL, 0), EINVAL);
	expect_bad_handle("mw: unknown PD handle", alloc_mw(fd, pd + 1000, IBV_MW_TYPE_1, NULL, 0));
}

static long reg_mr(int fd, uint32_t pd, uint64_t buf, uint64_t len, uint32_t *handle)
{
	struct ib_uverbs_reg_mr c = {
		.start = buf, .length = len, .hca_va = buf, .pd_handle = pd,
		.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
	};
	struct ib_uverbs_reg_mr_resp resp;
	long rc;

	rc = uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_REG_MR,
		.req = &c, .req_len = sizeof(c),
		.resp = &resp, .resp_len = sizeof(resp),
	});
	if (!rc)
		*handle = resp.mr_handle;
	return rc;
}

static long rereg(int fd, const struct ib_uverbs_rereg_mr *c, const void *drv, size_t drv_len)
{
	struct ib_uverbs_rereg_mr_resp resp;

	return uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_REREG_MR,
		.req = c, .req_len = sizeof(*c),
		.udata = drv, .udata_len = drv_len,
		.resp = &resp, .resp_len = sizeof(resp),
	});
}

static void test_rereg(int fd, uint32_t pd, uint64_t buf)
{
	const uint32_t lw = IB_UVERBS_ACCESS_LOCAL_WRITE;
	uint64_t junk[2] = { 1, 0 };
	struct ib_uverbs_rereg_mr c = { .pd_handle = pd };
	uint32_t mr;
	long rc;

	rc = reg_mr(fd, pd, buf, 4 * PAGE, &mr);
	if (rc) {
		diag("REG_MR: %ld", rc);
		skip("rereg: checks", "no MR to change");
		return;
	}
	c.mr_handle = mr;
	c.flags = IBV_REREG_MR_CHANGE_ACCESS;
	c.access_flags = lw | IB_UVERBS_ACCESS_REMOTE_READ;
	expect_ok("rereg: access change", rereg(fd, &c, NULL, 0));
	expect_err("rereg: non-zero driver data", rereg(fd, &c, junk, sizeof(junk)), EOPNOTSUPP);
	c.flags = IBV_REREG_MR_CHANGE_TRANSLATION;
	c.start = c.hca_va = UNMAPPED;
	c.length = 4 * PAGE;
	expect_err("rereg: translation to unmapped memory", rereg(fd, &c, NULL, 0), EFAULT);
	c.start = c.hca_va = buf;
	c.length = 1UL << 50;
	expect_err("rereg: translation beyond the device limit", rereg(fd, &c, NULL, 0), EINVAL);
	c.length = 2 * PAGE;
	expect_ok("rereg: translation to half the buffer", rereg(fd, &c, NULL, 0));
	expect_ok("rereg: the MR is still there to deregister",
		  destroy_handle(fd, IB_USER_VERBS_CMD_DEREG_MR, mr));
}

void test_mw_rereg(int fd, uint32_t pd)
{
	char *p = anon(4 * PAGE);

	test_mw(fd, pd);
	if (!p) {
		ok(0, "rereg: 16 KiB of anonymous memory");
		return;
	}
	test_rereg(fd, pd, addr(p));
}
