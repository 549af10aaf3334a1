// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_ioctl.c - the same driver data through RDMA_VERBS_IOCTL,
 * where it travels as the UHW_IN and UHW_OUT attributes (what libibverbs
 * uses for CQs on current kernels), and the mlx5 objects our driver does
 * not expose: DEVX (raw firmware commands) and dynamic UARs.
 */
#include <endian.h>

#include "ib_udata.h"

struct ioctl_cq {
	uint32_t handle;
	uint32_t cqe;		/* UVERBS_ATTR_CREATE_CQ_RESP_CQE */
};

/*
 * UVERBS_METHOD_CQ_CREATE of @cqe entries with driver data @drv; the mlx5
 * response goes to @out, of which the kernel is told @out_len bytes.
 */
static long ioctl_create_cq(int fd, uint32_t cqe, uint32_t flags, const void *drv,
			    size_t drv_len, void *out, size_t out_len, struct ioctl_cq *cq)
{
	struct ib_uverbs_attr *handle;
	uint64_t user_handle = 0x1234;
	uint32_t vector = 0;
	struct uv_ioctl u;
	long rc;

	uv_ioctl_init(&u, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	handle = uv_attr_obj(&u, UVERBS_ATTR_CREATE_CQ_HANDLE, 0);
	uv_attr_in(&u, UVERBS_ATTR_CREATE_CQ_CQE, &cqe, sizeof(cqe));
	uv_attr_in(&u, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, &user_handle, sizeof(user_handle));
	uv_attr_in(&u, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, &vector, sizeof(vector));
	if (flags)
		uv_attr_in(&u, UVERBS_ATTR_CREATE_CQ_FLAGS, &flags, sizeof(flags));
	uv_attr_out(&u, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &cq->cqe, sizeof(cq->cqe));
	uv_attr_in(&u, UVERBS_ATTR_UHW_IN, drv, drv_len);
	uv_attr_out(&u, UVERBS_ATTR_UHW_OUT, out, out_len);
	rc = uv_ioctl(fd, &u);
	if (!rc)
		cq->handle = (uint32_t)handle->data;
	return rc;
}

static long ioctl_destroy_cq(int fd, uint32_t handle)
{
	struct ib_uverbs_destroy_cq_resp resp;
	struct uv_ioctl u;

	uv_ioctl_init(&u, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
	uv_attr_obj(&u, UVERBS_ATTR_DESTROY_CQ_HANDLE, handle);
	uv_attr_out(&u, UVERBS_ATTR_DESTROY_CQ_RESP, &resp, sizeof(resp));
	return uv_ioctl(fd, &u);
}

/* Creates a CQ through the ioctl and destroys it again (with the write). */
static long ioctl_try_cq(int fd, uint32_t flags, const struct mlx5_ib_create_cq *r,
			 size_t len)
{
	struct mlx5_ib_create_cq_resp mresp;
	struct ioctl_cq cq;
	long rc;

	rc = ioctl_create_cq(fd, 63, flags, r, len, &mresp, sizeof(mresp), &cq);
	if (!rc)
		destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_CQ, cq.handle);
	return rc;
}

static void test_ioctl_cq(int fd, const struct bufs *b)
{
	struct mlx5_ib_create_cq r;
	struct ioctl_cq cq;
	union {
		struct mlx5_ib_create_cq_resp m;
		uint8_t b[sizeof(struct mlx5_ib_create_cq_resp)];
	} out;
	long rc;

	/* Ring at 40 KiB of the CQ buffer, after the write cases' CQs. */
	r = cq_req(b, 3);
	r.buf_addr += 40 * 1024;
	expect_err("ioctl: CQ with a 16-byte driver request", ioctl_try_cq(fd, 0, &r, 16),
		   EINVAL);
	r.cqe_comp_en = 1;
	expect_err("ioctl: CQ with CQE compression", ioctl_try_cq(fd, 0, &r, sizeof(r)),
		   EOPNOTSUPP);
	r.cqe_comp_en = 0;
	r.db_addr = UNMAPPED;
	expect_err("ioctl: CQ with an unmapped doorbell record",
		   ioctl_try_cq(fd, 0, &r, sizeof(r)), EFAULT);
	r = cq_req(b, 3);
	r.buf_addr += 40 * 1024;
	/* The emulated device stamps its CQEs (device_frequency_khz). */
	expect_ok("ioctl: CQ with completion timestamps",
		  ioctl_try_cq(fd, IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION, &r, sizeof(r)));

	memset(&out, 0xff, sizeof(out));
	rc = ioctl_create_cq(fd, 63, 0, &r, sizeof(r), &out, sizeof(out), &cq);
	expect_ok("ioctl: CQ create", rc);
	if (rc)
		return;
	diag("ioctl CQ: handle %u cqe %u cqn 0x%x", cq.handle, cq.cqe, out.m.cqn);
	ok(cq.cqe == 63 && out.m.cqn < (1U << 24),
	   "ioctl: CQ create answers cqe and CQN (UHW_OUT)");
	expect_ok("ioctl: CQ destroy", ioctl_destroy_cq(fd, cq.handle));
	expect_err("ioctl: CQ destroy of a destroyed handle", ioctl_destroy_cq(fd, cq.handle),
		   ENOENT);

	/* A 4-byte UHW_OUT: the driver writes the CQN and nothing after it. */
	memset(&out, 0xff, sizeof(out));
	rc = ioctl_create_cq(fd, 63, 0, &r, sizeof(r), &out, 4, &cq);
	if (!rc)
		ioctl_destroy_cq(fd, cq.handle);
	if (rc)
		diag("ioctl CQ with 4-byte response: %ld", rc);
	ok(!rc && out.m.cqn != 0xffffffff && out.m.reserved == 0xffffffff,
	   "ioctl: CQ with a 4-byte response, nothing written past it");
}

/* The mlx5 driver objects: our driver defines none, so the core refuses them. */
static void test_ioctl_mlx5_objects(int fd)
{
	uint32_t cmd_in[4] = { htobe32(0x100 << 16) };	/* QUERY_HCA_CAP */
	uint32_t cmd_out[16], page_id, mmap_len;
	uint64_t mmap_off;
	uint8_t type = MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC;
	struct uv_ioctl u;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_OTHER);
	uv_attr_in(&u, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, cmd_in, sizeof(cmd_in));
	uv_attr_out(&u, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, cmd_out, sizeof(cmd_out));
	expect_err("ioctl: DEVX firmware command not exposed", uv_ioctl(fd, &u),
		   EPROTONOSUPPORT);

	uv_ioctl_init(&u, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_ALLOC);
	uv_attr_obj(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, 0);
	uv_attr_in(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, &type, sizeof(type));
	uv_attr_out(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, &mmap_off, sizeof(mmap_off));
	uv_attr_out(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, &mmap_len, sizeof(mmap_len));
	uv_attr_out(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, &page_id, sizeof(page_id));
	expect_err("ioctl: dynamic UAR object not exposed", uv_ioctl(fd, &u), EPROTONOSUPPORT);
}

void test_ioctl(int fd, int have_cq, const struct bufs *b)
{
	if (have_cq)
		test_ioctl_cq(fd, b);
	else
		skip("ioctl: CQ checks", "the device cannot create a CQ");
	test_ioctl_mlx5_objects(fd);
}
