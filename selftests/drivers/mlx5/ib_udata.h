/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_udata.h - what the parts of ib_udata_test share: KTAP reporting, the
 * raw uverbs plumbing (write() commands, RDMA_VERBS_IOCTL, mmap) in
 * ib_udata_lib.c, and the cases (ib_udata_cases_*.c) that main() in
 * ib_udata_test.c runs in order on one device file.
 *
 * Every structure and number of the ABI comes from the uapi headers; the
 * QP state and attribute-mask values, which the kernel keeps out of its
 * uapi, come from libibverbs' header (no libibverbs call is made: the point
 * is to send what libibverbs never would).
 */
#ifndef IB_UDATA_H
#define IB_UDATA_H
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>

#define PAGE		4096UL

/* An address range nothing is mapped at. */
#define UNMAPPED	0x100000000000UL

/*
 * mlx5 mmap offsets: the page offset is the command (enum mlx5_ib_mmap_cmd)
 * shifted by 8, or'ed with an index below 256; bits 16 and up extend the
 * index of some commands. The uapi headers do not name the shift.
 */
#define MLX5_MMAP_CMD_SHIFT	8

/* --- KTAP (ib_udata_lib.c) --------------------------------------------- */

void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One case: "ok N name" or "not ok N name". */
void ok(int pass, const char *name);

/* One case that could not run: "ok N name # SKIP why". */
void skip(const char *name, const char *why);

/* A case that expects rc == -err (rc is 0 or -errno). */
void expect_err(const char *name, long rc, int err);

/* A case that accepts either errno: where kernel versions differ. */
void expect_err2(const char *name, long rc, int err, int err2);

/*
 * A handle that names no object in a create command: the uverbs core
 * refuses it before the driver sees the request. Current kernels answer
 * ENOENT (the failed lookup); older ones answered EINVAL.
 */
#define expect_bad_handle(name, rc) expect_err2(name, rc, ENOENT, EINVAL)

/* A case that expects rc == 0. */
void expect_ok(const char *name, long rc);

/* Prints the trailing plan and totals; returns the exit status. */
int ktap_finish(void);

/* --- uverbs plumbing (ib_uverbs_raw.c) --------------------------------- */

extern const char *dev_path;

/* The device file, opened O_RDWR | O_CLOEXEC; -errno on failure. */
int open_dev(void);

/*
 * One write() command: the core request @req, followed by the driver data
 * @udata. When the command has a response (@resp or @uresp given), the
 * address of a response buffer is put into the request's first 8 bytes
 * (the "response" field of every such core request), and on success the
 * kernel's answer is split into the core response @resp and the driver
 * response @uresp that follows it.
 */
struct uv_cmd {
	uint32_t cmd;			/* IB_USER_VERBS_CMD_* */
	const void *req;
	size_t req_len;
	const void *udata;
	size_t udata_len;
	void *resp;
	size_t resp_len;
	void *uresp;
	size_t uresp_len;
};

/* Return: 0, or -errno (-EIO when the kernel took fewer bytes). */
long uv_write(int fd, const struct uv_cmd *c);

/*
 * The same as an extended command (IB_USER_VERBS_CMD_FLAG_EXTENDED, @cmd an
 * IB_USER_VERBS_EX_CMD_*): every length a multiple of 8, the response
 * address in the extended header, not in the request.
 */
long uv_write_ex(int fd, const struct uv_cmd *c);

/* Destroys or frees object @handle with write command @cmd. */
long destroy_handle(int fd, uint32_t cmd, uint32_t handle);

/*
 * One RDMA_VERBS_IOCTL call, built attribute by attribute: uv_ioctl_init(),
 * then uv_attr_*() in any order, then uv_ioctl().
 */
#define UV_MAX_ATTRS	12

struct uv_ioctl {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[UV_MAX_ATTRS];
};

void uv_ioctl_init(struct uv_ioctl *u, uint16_t object, uint16_t method);

/* An input: inline when it fits in 8 bytes, else by address. */
struct ib_uverbs_attr *uv_attr_in(struct uv_ioctl *u, uint16_t id, const void *p,
				  size_t len);

/* An output buffer the kernel writes. */
struct ib_uverbs_attr *uv_attr_out(struct uv_ioctl *u, uint16_t id, void *p, size_t len);

/*
 * An object handle; for a new object the kernel returns its handle in the
 * attribute's data after the call.
 */
struct ib_uverbs_attr *uv_attr_obj(struct uv_ioctl *u, uint16_t id, uint32_t handle);

/* Return: 0 or -errno. */
long uv_ioctl(int fd, struct uv_ioctl *u);

/* mmap() of the device file at page offset @pgoff, unmapped at once. */
long map_dev(int fd, unsigned long pgoff, size_t len, int prot, int flags);

/* Private anonymous memory; NULL on failure. */
void *anon(size_t len);

/* --- what the cases share ---------------------------------------------- */

/* The user context of the file the cases run on. */
extern struct mlx5_ib_alloc_ucontext_resp uresp;

/* Buffers the CQ, QP and SRQ requests point at. */
struct bufs {
	char *cq_ring;	/* 64 KiB */
	char *cq_db;	/* one page of CQ doorbell records */
	char *qp_buf;	/* 64 KiB */
	char *qp_db;	/* one page of QP and SRQ doorbell records */
};

static inline uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ib_udata_cases_context.c: returns the file with its context, or -errno. */
int test_context(void);
int new_context(uint64_t lib_caps, struct mlx5_ib_alloc_ucontext_resp *resp);
int new_devx_context(struct mlx5_ib_alloc_ucontext_resp *resp);
void test_mmap(int fd);

/* ib_udata_cases_mr.c: returns 1 with *pd allocated. */
int test_pd_mr(int fd, uint32_t *pd);
/* A PD with no driver data: its handle and number; 0 or -errno. */
long alloc_pd_num(int fd, uint32_t *handle, uint32_t *pdn);

/* ib_udata_cases_devx.c: on files of its own. */
void test_devx(void);

/* ib_udata_cases_mw.c: memory windows and REREG_MR in PD @pd. */
void test_mw_rereg(int fd, uint32_t pd);

/* ib_udata_cases_cq.c: returns 1 with cq[0], cq[1] created. */
struct mlx5_ib_create_cq cq_req(const struct bufs *b, unsigned int slot);
long try_cq(int fd, uint32_t cqe, const void *udata, size_t len);
int test_cq(int fd, const struct bufs *b, uint32_t cq[2]);

/* ib_udata_cases_qp.c */
void qp_core(struct ib_uverbs_create_qp *c, uint32_t pd, const uint32_t cq[2], uint8_t type);
long try_qp(int fd, const struct ib_uverbs_create_qp *c, const void *udata, size_t len);
void test_qp(int fd, uint32_t pd, const uint32_t cq[2], const struct bufs *b);

/* ib_udata_cases_srq.c */
/* CREATE_SRQ; its handle in *handle. */
long create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge, uint32_t limit,
		const struct mlx5_ib_create_srq *r, size_t len, uint32_t *handle);
void test_srq(int fd, uint32_t pd, const struct bufs *b);

/* ib_udata_cases_ioctl.c */
void test_ioctl(int fd, int have_cq, const struct bufs *b);

/* ib_udata_cases_random.c */
void test_random(int fd, uint32_t pd, int have_cq, const uint32_t cq[2],
		 const struct bufs *b);

#endif
