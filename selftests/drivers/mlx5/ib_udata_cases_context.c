// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_context.c - GET_CONTEXT with malformed mlx5 requests, and
 * mmap() of the context's UAR pages with bad offsets, sizes and modes.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "ib_udata.h"

struct mlx5_ib_alloc_ucontext_resp uresp;

/* GET_CONTEXT with driver data @drv; the mlx5 response into @mresp. */
static long get_context(int fd, const void *drv, size_t drv_len,
			struct mlx5_ib_alloc_ucontext_resp *mresp)
{
	struct ib_uverbs_get_context c = { 0 };
	struct ib_uverbs_get_context_resp resp;
	struct mlx5_ib_alloc_ucontext_resp m;

	return uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_GET_CONTEXT,
		.req = &c, .req_len = sizeof(c),
		.udata = drv, .udata_len = drv_len,
		.resp = &resp, .resp_len = sizeof(resp),
		.uresp = mresp ? mresp : &m, .uresp_len = sizeof(m),
	});
}

/* What libmlx5 sends: 16 bfregs, 4 of them low-latency, 4 KiB UARs. */
static struct mlx5_ib_alloc_ucontext_req_v2 uctx_req(void)
{
	struct mlx5_ib_alloc_ucontext_req_v2 r = {
		.total_num_bfregs = 16,
		.num_low_latency_bfregs = 4,
		.max_cqe_version = 1,
		.lib_caps = MLX5_LIB_CAP_4K_UAR,
	};

	return r;
}

/* A context of @lib_caps and @flags on a file of its own: the file, or -errno. */
static int new_context_flags(uint64_t lib_caps, uint32_t flags,
			     struct mlx5_ib_alloc_ucontext_resp *resp)
{
	struct mlx5_ib_alloc_ucontext_req_v2 r = uctx_req();
	long rc;
	int fd;

	r.lib_caps = lib_caps;
	r.flags = flags;
	fd = open_dev();
	if (fd < 0)
		return fd;
	rc = get_context(fd, &r, sizeof(r), resp);
	if (rc) {
		close(fd);
		return (int)rc;
	}
	return fd;
}

/*
 * A context on a file of its own, of the request libmlx5 sends with
 * @lib_caps (MLX5_LIB_CAP_*): its file, or a negative errno.
 */
int new_context(uint64_t lib_caps, struct mlx5_ib_alloc_ucontext_resp *resp)
{
	return new_context_flags(lib_caps, 0, resp);
}

/* A DEVX context (ib_udata_cases_devx.c). */
int new_devx_context(struct mlx5_ib_alloc_ucontext_resp *resp)
{
	return new_context_flags(MLX5_LIB_CAP_4K_UAR, MLX5_IB_ALLOC_UCTX_DEVX, resp);
}

/* A v0 request on a file of its own: 3 bfregs round up to 2 UAR pages. */
static void test_context_v0(void)
{
	struct mlx5_ib_alloc_ucontext_req v0 = {
		.total_num_bfregs = 3,
		.num_low_latency_bfregs = 1,
	};
	struct mlx5_ib_alloc_ucontext_resp r0;
	long rc;
	int fd;

	fd = open_dev();
	if (fd < 0) {
		expect_ok("ucontext: v0 request", fd);
		return;
	}
	rc = get_context(fd, &v0, sizeof(v0), &r0);
	expect_ok("ucontext: v0 request", rc);
	ok(!rc && r0.tot_bfregs == 4, "ucontext: v0 bfregs rounded up to 4");
	ok(!map_dev(fd, 1, PAGE, PROT_WRITE, MAP_SHARED), "mmap: UAR 1 of a 2-UAR context");
	expect_err("mmap: UAR 2 of a 2-UAR context",
		   map_dev(fd, 2, PAGE, PROT_WRITE, MAP_SHARED), EINVAL);
	close(fd);
}

int test_context(void)
{
	struct mlx5_ib_alloc_ucontext_req_v2 r;
	uint8_t big[sizeof(r) + 8];
	long rc;
	int fd;

	_Static_assert(sizeof(r) == 32, "the padded request below ends at byte 40");
	fd = open_dev();
	if (fd < 0)
		return fd;

	expect_err("ucontext: no driver data", get_context(fd, NULL, 0, NULL), EINVAL);
	r = uctx_req();
	expect_err("ucontext: 12-byte request", get_context(fd, &r, 12, NULL), EINVAL);
	r = uctx_req();
	r.flags = 1 << 5;
	expect_err("ucontext: unknown flag", get_context(fd, &r, sizeof(r), NULL), EINVAL);
	r = uctx_req();
	r.comp_mask = 1;
	expect_err("ucontext: comp_mask", get_context(fd, &r, sizeof(r), NULL), EOPNOTSUPP);
	r = uctx_req();
	r.reserved2 = 1;
	expect_err("ucontext: reserved field", get_context(fd, &r, sizeof(r), NULL), EINVAL);
	r = uctx_req();
	r.total_num_bfregs = 0;
	expect_err("ucontext: zero bfregs", get_context(fd, &r, sizeof(r), NULL), EINVAL);
	r = uctx_req();
	r.total_num_bfregs = 1 << 20;
	expect_err("ucontext: absurd bfreg count", get_context(fd, &r, sizeof(r), NULL), EINVAL);
	r = uctx_req();
	r.num_low_latency_bfregs = 16;
	expect_err("ucontext: low-latency >= total", get_context(fd, &r, sizeof(r), NULL),
		   EINVAL);
	r = uctx_req();
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	big[sizeof(r) + 4] = 1;
	expect_err("ucontext: non-zero trailing bytes", get_context(fd, big, sizeof(big), NULL),
		   EOPNOTSUPP);

	test_context_v0();

	/* A longer zero-padded request works; it is the file's context. */
	big[sizeof(r) + 4] = 0;
	rc = get_context(fd, big, sizeof(big), &uresp);
	expect_ok("ucontext: valid v2 request (zero-padded)", rc);
	if (rc) {
		close(fd);
		return (int)rc;
	}
	diag("tot_bfregs %u bf_reg_size %u cache_line %u sq_desc %u rq_desc %u cqe_version %u ports %u",
	     uresp.tot_bfregs, uresp.bf_reg_size, uresp.cache_line_size, uresp.max_sq_desc_sz,
	     uresp.max_rq_desc_sz, uresp.cqe_version, uresp.num_ports);
	ok(uresp.tot_bfregs == 16 && uresp.cache_line_size &&
	   PAGE % uresp.cache_line_size == 0 && uresp.cqe_version == 1 &&
	   uresp.num_ports >= 1 && uresp.max_sq_desc_sz >= 256 &&
	   uresp.max_rq_desc_sz >= 32 && uresp.max_send_wqebb && uresp.max_recv_wr &&
	   uresp.max_srq_recv_wr && uresp.response_length == sizeof(uresp) &&
	   uresp.log_uar_size == 12 && uresp.num_uars_per_page == 1,
	   "ucontext: response fields");
	/* The internal timer at 0x1000: offset 0 of its page; clock info v1. */
	ok(uresp.comp_mask == MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET &&
	   uresp.hca_core_clock_offset == 0 &&
	   uresp.clock_info_versions == 1 << MLX5_IB_CLOCK_INFO_V1,
	   "ucontext: the clock's page offset and clock-info version");
	expect_err("ucontext: second context on one file", get_context(fd, &r, sizeof(r), NULL),
		   EINVAL);
	return fd;
}

/* mmap() of page @idx of mmap command @cmd. */
static long uar_map(int fd, unsigned long cmd, unsigned long idx, size_t len, int prot,
		    int flags)
{
	return map_dev(fd, cmd << MLX5_MMAP_CMD_SHIFT | idx, len, prot, flags);
}

void test_mmap(int fd)
{
	const int w = PROT_WRITE;
	unsigned long i;
	int good = 1;

	for (i = 0; i < uresp.tot_bfregs / 2; i++)
		good &= !uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, i, PAGE, w, MAP_SHARED);
	ok(good, "mmap: every static UAR page (cmd 0)");
	expect_ok("mmap: non-cached UAR page (cmd 3)",
		  uar_map(fd, MLX5_IB_MMAP_NC_PAGE, 0, PAGE, w, MAP_SHARED));
	expect_ok("mmap: write-combining UAR page (cmd 2)",
		  uar_map(fd, MLX5_IB_MMAP_WC_PAGE, 1, PAGE, w, MAP_SHARED));
	expect_err("mmap: UAR index past the context",
		   uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, i, PAGE, w, MAP_SHARED), EINVAL);
	expect_err("mmap: UAR index 255",
		   uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, 255, PAGE, w, MAP_SHARED), EINVAL);
	expect_err("mmap: two pages",
		   uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, 0, 2 * PAGE, w, MAP_SHARED), EINVAL);
	expect_err("mmap: private mapping",
		   uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, 0, PAGE, w, MAP_PRIVATE), EINVAL);
	expect_err("mmap: executable mapping",
		   uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, 0, PAGE, PROT_READ | PROT_EXEC,
			   MAP_SHARED), EPERM);
	expect_err("mmap: contiguous pages (cmd 1)",
		   uar_map(fd, MLX5_IB_MMAP_GET_CONTIGUOUS_PAGES, 0, PAGE, w, MAP_SHARED),
		   EOPNOTSUPP);
	expect_ok("mmap: core clock (cmd 5), read-only",
		  uar_map(fd, MLX5_IB_MMAP_CORE_CLOCK, 0, PAGE, PROT_READ, MAP_SHARED));
	expect_err("mmap: core clock writable",
		   uar_map(fd, MLX5_IB_MMAP_CORE_CLOCK, 0, PAGE, w, MAP_SHARED), EPERM);
	expect_err("mmap: core clock, index 1",
		   uar_map(fd, MLX5_IB_MMAP_CORE_CLOCK, 1, PAGE, PROT_READ, MAP_SHARED),
		   EINVAL);
	expect_err("mmap: dynamic bfreg (cmd 6)",
		   uar_map(fd, MLX5_IB_MMAP_ALLOC_WC, 0, PAGE, w, MAP_SHARED), EOPNOTSUPP);
	expect_ok("mmap: clock info (cmd 7) v1, read-only",
		  uar_map(fd, MLX5_IB_MMAP_CLOCK_INFO, 0, PAGE, PROT_READ, MAP_SHARED));
	expect_err("mmap: clock info writable",
		   uar_map(fd, MLX5_IB_MMAP_CLOCK_INFO, 0, PAGE, w, MAP_SHARED), EPERM);
	expect_err("mmap: clock info version 1",
		   uar_map(fd, MLX5_IB_MMAP_CLOCK_INFO, 1, PAGE, PROT_READ, MAP_SHARED),
		   EINVAL);
	expect_err("mmap: unknown command 200", uar_map(fd, 200, 0, PAGE, w, MAP_SHARED),
		   EINVAL);
	expect_err("mmap: extended index bits",
		   uar_map(fd, MLX5_IB_MMAP_REGULAR_PAGE, 1UL << 16, PAGE, w, MAP_SHARED),
		   EINVAL);
}
