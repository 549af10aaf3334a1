// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_cq.c - CREATE_CQ with malformed mlx5 requests: short or
 * padded driver data, CQE sizes and features mlx5_ib does not take, rings
 * and doorbell records that are unaligned or unmapped, bad sizes.
 */
#include "ib_udata.h"

/* What libmlx5 sends: 64-byte CQEs, doorbell record in slot @slot. */
struct mlx5_ib_create_cq cq_req(const struct bufs *b, unsigned int slot)
{
	struct mlx5_ib_create_cq r = {
		.buf_addr = addr(b->cq_ring),
		.db_addr = addr(b->cq_db + 64 * slot),
		.cqe_size = 64,
	};

	return r;
}

static long create_cq(int fd, uint32_t cqe, uint32_t vector, const void *drv,
		      size_t drv_len, struct ib_uverbs_create_cq_resp *resp)
{
	struct ib_uverbs_create_cq c = {
		.cqe = cqe, .comp_vector = vector, .comp_channel = -1,
	};
	struct ib_uverbs_create_cq_resp r;
	struct mlx5_ib_create_cq_resp mresp;

	return uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_CREATE_CQ,
		.req = &c, .req_len = sizeof(c),
		.udata = drv, .udata_len = drv_len,
		.resp = resp ? resp : &r, .resp_len = sizeof(r),
		.uresp = &mresp, .uresp_len = sizeof(mresp),
	});
}

/* Creates a CQ of @cqe entries and destroys it again. */
long try_cq(int fd, uint32_t cqe, const void *udata, size_t len)
{
	struct ib_uverbs_create_cq_resp resp;
	long rc = create_cq(fd, cqe, 0, udata, len, &resp);

	if (!rc)
		destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_CQ, resp.cq_handle);
	return rc;
}

static void test_cq_requests(int fd, const struct bufs *b)
{
	struct mlx5_ib_create_cq r;
	uint8_t big[sizeof(r) + 8];

	r = cq_req(b, 0);
	expect_err("cq: 16-byte request", try_cq(fd, 255, &r, 16), EINVAL);
	r = cq_req(b, 0);
	r.cqe_size = 32;
	expect_err("cq: CQE size 32", try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r.cqe_size = 256;
	expect_err("cq: CQE size 256", try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r = cq_req(b, 0);
	r.cqe_comp_en = 1;
	expect_err("cq: CQE compression", try_cq(fd, 255, &r, sizeof(r)), EOPNOTSUPP);
	r = cq_req(b, 0);
	r.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
	expect_err("cq: UAR page 0, not a UAR object of the context",
		   try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r.flags = 1 << 9;
	expect_err("cq: unknown flag", try_cq(fd, 255, &r, sizeof(r)), EOPNOTSUPP);
	r = cq_req(b, 0);
	r.flags = MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD;
	expect_err("cq: 128-byte padding with 64-byte CQEs", try_cq(fd, 255, &r, sizeof(r)),
		   EINVAL);
	r = cq_req(b, 0);
	r.reserved1 = 7;
	expect_err("cq: reserved field", try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r = cq_req(b, 0);
	r.buf_addr += 64;
	expect_err("cq: unaligned ring", try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r = cq_req(b, 0);
	r.db_addr += 4;
	expect_err("cq: unaligned doorbell record", try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r.db_addr = 0;
	expect_err("cq: NULL doorbell record", try_cq(fd, 255, &r, sizeof(r)), EINVAL);
	r = cq_req(b, 0);
	r.buf_addr = UNMAPPED;
	expect_err("cq: unmapped ring", try_cq(fd, 255, &r, sizeof(r)), EFAULT);
	r = cq_req(b, 0);
	r.db_addr = UNMAPPED;
	expect_err("cq: unmapped doorbell record", try_cq(fd, 255, &r, sizeof(r)), EFAULT);
	r = cq_req(b, 0);
	expect_err("cq: zero entries", try_cq(fd, 0, &r, sizeof(r)), EINVAL);
	expect_err("cq: 2^30 entries", try_cq(fd, 1U << 30, &r, sizeof(r)), EINVAL);
	expect_err("cq: completion vector 1000",
		   create_cq(fd, 255, 1000, &r, sizeof(r), NULL), EINVAL);
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	big[sizeof(big) - 1] = 1;
	expect_err("cq: non-zero trailing bytes", try_cq(fd, 255, big, sizeof(big)),
		   EOPNOTSUPP);
}

int test_cq(int fd, const struct bufs *b, uint32_t cq[2])
{
	struct ib_uverbs_create_cq_resp resp;
	struct mlx5_ib_create_cq r;
	long rc;

	test_cq_requests(fd, b);

	/* Valid: 200 requested -> 256 entries, cqe reported as 255. */
	r = cq_req(b, 0);
	rc = create_cq(fd, 200, 0, &r, sizeof(r), &resp);
	if (rc) {
		diag("CREATE_CQ: %ld (emulator without CQs?)", rc);
		skip("cq: create 256 x 64 B", "the device cannot create a CQ");
		return 0;
	}
	ok(resp.cqe == 255, "cq: create, 200 entries rounded to 256 (cqe 255)");
	cq[0] = resp.cq_handle;
	/* A second CQ: ring after the first, doorbell record in the same page. */
	r = cq_req(b, 1);
	r.buf_addr += 256 * 64;
	r.cqe_size = 128;
	rc = create_cq(fd, 127, 0, &r, sizeof(r), &resp);
	expect_ok("cq: second CQ, 128-byte CQEs, shared doorbell page", rc);
	if (rc)
		return 0;
	cq[1] = resp.cq_handle;

	/* A third, destroyed twice: the second time its handle names nothing. */
	r = cq_req(b, 2);
	r.buf_addr += 256 * 64 + 128 * 128;
	rc = create_cq(fd, 63, 0, &r, sizeof(r), &resp);
	if (!rc)
		rc = destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_CQ, resp.cq_handle);
	expect_ok("cq: create and destroy a third CQ", rc);
	if (!rc)
		expect_err("cq: destroy a destroyed CQ",
			   destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_CQ, resp.cq_handle),
			   ENOENT);
	return 1;
}
