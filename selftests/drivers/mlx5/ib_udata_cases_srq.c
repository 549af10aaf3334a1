// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_srq.c - CREATE_SRQ with malformed mlx5 requests and sizes
 * beyond the device's limits, then one valid SRQ.
 */
#include "ib_udata.h"

long create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge, uint32_t limit,
		const struct mlx5_ib_create_srq *r, size_t len, uint32_t *handle)
{
	struct ib_uverbs_create_srq c = {
		.pd_handle = pd, .max_wr = max_wr, .max_sge = max_sge, .srq_limit = limit,
	};
	struct ib_uverbs_create_srq_resp resp;
	struct mlx5_ib_create_srq_resp mresp;
	long rc;

	rc = uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_CREATE_SRQ,
		.req = &c, .req_len = sizeof(c),
		.udata = r, .udata_len = len,
		.resp = &resp, .resp_len = sizeof(resp),
		.uresp = &mresp, .uresp_len = sizeof(mresp),
	});
	if (!rc)
		*handle = resp.srq_handle;
	return rc;
}

/* Creates an SRQ and destroys it again. */
static long try_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		    uint32_t limit, const struct mlx5_ib_create_srq *r, size_t len)
{
	uint32_t srq;
	long rc = create_srq(fd, pd, max_wr, max_sge, limit, r, len, &srq);

	if (!rc)
		destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, srq);
	return rc;
}

void test_srq(int fd, uint32_t pd, const struct bufs *b)
{
	const struct mlx5_ib_create_srq r0 = {
		.buf_addr = addr(b->qp_buf),
		.db_addr = addr(b->qp_db + 64),
		.uidx = 2,
	};
	struct mlx5_ib_create_srq r = r0;
	long rc;

	expect_err("srq: 8-byte request", try_srq(fd, pd, 63, 1, 0, &r, 8), EINVAL);
	r.flags = MLX5_SRQ_FLAG_SIGNATURE << 1;
	expect_err("srq: unknown flag", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EOPNOTSUPP);
	r = r0;
	r.reserved1 = 1;
	expect_err("srq: reserved field", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EINVAL);
	r = r0;
	r.uidx = 1U << 24;
	expect_err("srq: user index of 25 bits", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)),
		   EINVAL);
	r = r0;
	r.buf_addr += 32;
	expect_err("srq: unaligned buffer", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EINVAL);
	r = r0;
	expect_err("srq: 2^20 WQEs", try_srq(fd, pd, 1U << 20, 1, 0, &r, sizeof(r)), EINVAL);
	expect_err("srq: 100 SGEs", try_srq(fd, pd, 63, 100, 0, &r, sizeof(r)), EINVAL);
	/* srq_limit means nothing at creation (ibv_create_srq(3)), as in-tree. */
	expect_ok("srq: limit above size ignored", try_srq(fd, pd, 63, 1, 64, &r, sizeof(r)));
	expect_bad_handle("srq: unknown PD handle",
			  try_srq(fd, pd + 1000, 63, 1, 0, &r, sizeof(r)));
	r.buf_addr = UNMAPPED;
	expect_err("srq: unmapped buffer", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EFAULT);
	r = r0;
	rc = try_srq(fd, pd, 63, 1, 0, &r, sizeof(r));
	if (rc) {
		diag("CREATE_SRQ: %ld (emulator without SRQs?)", rc);
		skip("srq: create and destroy", "the device cannot create an SRQ");
		return;
	}
	ok(1, "srq: create and destroy");
}
