// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_ioctl.c - the same driver data through RDMA_VERBS_IOCTL,
 * where it travels as the UHW_IN and UHW_OUT attributes (what libibverbs
 * uses for CQs on current kernels), DEVX (raw firmware commands) on a
 * context opened without it, and dynamic UARs: the UAR object, its mmap,
 * CQs that name its page, and that neither reaches another context.
 */
#include <endian.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* DEVX on a context opened without it: nothing reaches the firmware. */
static void test_ioctl_devx(int fd)
{
	uint32_t cmd_in[4] = { htobe32(0x100 << 16) };	/* QUERY_HCA_CAP */
	uint32_t cmd_out[16];
	struct uv_ioctl u;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_OTHER);
	uv_attr_in(&u, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, cmd_in, sizeof(cmd_in));
	uv_attr_out(&u, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, cmd_out, sizeof(cmd_out));
	expect_err("ioctl: DEVX command on a context without DEVX", uv_ioctl(fd, &u), EINVAL);
}

struct dyn_uar {
	uint32_t handle;
	uint32_t page;
	uint32_t len;
	uint64_t off;
};

static long uar_alloc(int fd, uint64_t type, struct dyn_uar *d)
{
	struct ib_uverbs_attr *handle;
	struct uv_ioctl u;
	long rc;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_ALLOC);
	handle = uv_attr_obj(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, 0);
	uv_attr_in(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, &type, sizeof(type));
	uv_attr_out(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, &d->off, sizeof(d->off));
	uv_attr_out(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, &d->len, sizeof(d->len));
	uv_attr_out(&u, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, &d->page, sizeof(d->page));
	rc = uv_ioctl(fd, &u);
	if (!rc)
		d->handle = (uint32_t)handle->data;
	return rc;
}

static long uar_destroy(int fd, uint32_t handle)
{
	struct uv_ioctl u;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_DESTROY);
	uv_attr_obj(&u, MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE, handle);
	return uv_ioctl(fd, &u);
}

/* mmap() of @len bytes at the byte offset @off (a dynamic UAR's). */
static long uar_map(int fd, uint64_t off, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/*
 * Dynamic UARs on a context that offers them (what rdma-core's provider
 * does) and, for ownership, on @fd, another context.
 */
static void test_ioctl_dyn_uar(int fd, const struct bufs *b)
{
	struct mlx5_ib_alloc_ucontext_resp r;
	struct mlx5_ib_create_cq_resp mresp;
	struct mlx5_ib_create_cq cr;
	struct ioctl_cq cq;
	struct dyn_uar d, bf;
	int dfd, w = PROT_WRITE;
	uint32_t *db;
	long rc;

	dfd = new_context(MLX5_LIB_CAP_4K_UAR | MLX5_LIB_CAP_DYN_UAR, &r);
	expect_ok("uar: context offering dynamic UARs", dfd < 0 ? dfd : 0);
	if (dfd < 0)
		return;
	ok(r.tot_bfregs == 0, "uar: it gets no static bfregs (tot_bfregs 0)");
	expect_err("uar: no static UAR page to map",
		   map_dev(dfd, 0, PAGE, w, MAP_SHARED), EINVAL);

	rc = uar_alloc(dfd, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC, &d);
	expect_ok("uar: allocate a non-cached UAR object", rc);
	if (rc)
		goto out;
	diag("dynamic UAR: page %u, %u bytes at offset 0x%llx", d.page, d.len,
	     (unsigned long long)d.off);
	ok(d.len == PAGE && d.off % PAGE == 0, "uar: one page at a page offset");
	db = mmap(NULL, PAGE, w, MAP_SHARED, dfd, (off_t)d.off);
	ok(db != MAP_FAILED, "uar: mmap of the UAR page");
	if (db != MAP_FAILED)
		munmap(db, PAGE);
	expect_err("uar: mmap of two pages", uar_map(dfd, d.off, 2 * PAGE, w, MAP_SHARED),
		   EINVAL);
	expect_err("uar: private mmap", uar_map(dfd, d.off, PAGE, w, MAP_PRIVATE), EINVAL);
	expect_err("uar: executable mmap",
		   uar_map(dfd, d.off, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED), EPERM);
	expect_err("uar: another context cannot mmap it",
		   uar_map(fd, d.off, PAGE, w, MAP_SHARED), EINVAL);
	/* No BlueFlame on this device: no write-combining pages either. */
	expect_err("uar: BlueFlame UAR object",
		   uar_alloc(dfd, MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF, &bf), EOPNOTSUPP);

	/* CQ rings at 48 KiB and 52 KiB of the CQ buffer, records 5 and 6. */
	cr = cq_req(b, 5);
	cr.buf_addr += 48 * 1024;
	expect_err("uar: CQ naming no UAR where there is no static one",
		   ioctl_try_cq(dfd, 0, &cr, sizeof(cr)), EINVAL);
	cr.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
	cr.uar_page_index = d.page;
	expect_err("uar: another context's CQ cannot name it",
		   ioctl_try_cq(fd, 0, &cr, sizeof(cr)), EINVAL);
	cr.uar_page_index = d.page + 1;
	expect_err("uar: CQ naming a page that is no UAR object",
		   ioctl_try_cq(dfd, 0, &cr, sizeof(cr)), EINVAL);
	cr.uar_page_index = d.page;
	rc = ioctl_create_cq(dfd, 63, 0, &cr, sizeof(cr), &mresp, sizeof(mresp), &cq);
	expect_ok("uar: CQ armed through the UAR object", rc);
	if (!rc) {
		expect_err("uar: object in use by a CQ not destroyed",
			   uar_destroy(dfd, d.handle), EBUSY);
		expect_ok("uar: destroy the CQ", ioctl_destroy_cq(dfd, cq.handle));
	}
	expect_ok("uar: destroy the UAR object", uar_destroy(dfd, d.handle));
	expect_err("uar: its offset no longer maps",
		   uar_map(dfd, d.off, PAGE, w, MAP_SHARED), EINVAL);
	cr = cq_req(b, 6);
	cr.buf_addr += 52 * 1024;
	cr.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
	cr.uar_page_index = d.page;
	expect_err("uar: nor can a CQ name its page",
		   ioctl_try_cq(dfd, 0, &cr, sizeof(cr)), EINVAL);

	/* Left for close(): the file's cleanup destroys it. */
	expect_ok("uar: another UAR object", uar_alloc(dfd, MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC, &d));
out:
	close(dfd);
}

void test_ioctl(int fd, int have_cq, const struct bufs *b)
{
	if (have_cq)
		test_ioctl_cq(fd, b);
	else
		skip("ioctl: CQ checks", "the device cannot create a CQ");
	test_ioctl_devx(fd);
	if (have_cq)
		test_ioctl_dyn_uar(fd, b);
	else
		skip("uar: dynamic UAR checks", "the device cannot create a CQ");
}
