// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_test - malformed driver data through the raw uverbs write()
 * interface and mmap() of an mlx5_ib device: every bad request must be
 * rejected with a clear errno, valid ones must still work.
 *
 * Usage: ib_udata_test /dev/infiniband/uverbsN
 *
 * Prints KTAP; exit status 1 when a case failed. Cases whose objects the
 * device cannot create (an emulator without that command yet) are skipped.
 *
 * Freestanding (x86_64 Linux system calls, no libc): the guest has a
 * compiler but no C library headers. The ABI structures below are the
 * uverbs and mlx5 uapi layouts, written out so that no header is needed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* ---- minimal runtime -------------------------------------------------- */

#define SYS_write	1
#define SYS_open	2
#define SYS_close	3
#define SYS_mmap	9
#define SYS_munmap	11
#define SYS_exit_group	231

#define O_RDWR		2
#define O_CLOEXEC	02000000
#define PROT_READ	1
#define PROT_WRITE	2
#define PROT_EXEC	4
#define MAP_SHARED	1
#define MAP_PRIVATE	2
#define MAP_ANONYMOUS	0x20

#define EPERM		1
#define EIO		5
#define ENXIO		6
#define ENOMEM		12
#define EFAULT		14
#define EINVAL		22
#define ENOSPC		28
#define EOPNOTSUPP	95

#define PAGE		4096UL

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile ("syscall"
			  : "=a"(ret)
			  : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			  : "rcx", "r11", "memory");
	return ret;
}

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

static long sys_write(int fd, const void *b, size_t n)
{
	return sys6(SYS_write, fd, (long)b, (long)n, 0, 0, 0);
}

static long sys_open(const char *path, int flags)
{
	return sys6(SYS_open, (long)path, flags, 0, 0, 0, 0);
}

static void sys_close(long fd)
{
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
}

static long sys_mmap(void *addr, size_t len, int prot, int flags, int fd,
		     unsigned long off)
{
	return sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, (long)off);
}

static void sys_munmap(long addr, size_t len)
{
	sys6(SYS_munmap, addr, (long)len, 0, 0, 0, 0);
}

static char obuf[4096];
static size_t olen;

static void oflush(void)
{
	if (olen)
		sys_write(1, obuf, olen);
	olen = 0;
}

static void oputc(char c)
{
	if (olen == sizeof(obuf))
		oflush();
	obuf[olen++] = c;
}

static void oputs(const char *s)
{
	while (*s)
		oputc(*s++);
}

static void oputn(unsigned long v, unsigned int base, int neg)
{
	char t[24];
	int i = 0;

	if (neg)
		oputc('-');
	do {
		t[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i--)
		oputc(t[i]);
}

/* printf subset: %s %d %ld %u %lu %x %lx %%. */
static void out(const char *fmt, ...)
{
	va_list ap;
	int l;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			oputc(*fmt);
			continue;
		}
		l = 0;
		if (*++fmt == 'l') {
			l = 1;
			fmt++;
		}
		switch (*fmt) {
		case 's':
			oputs(va_arg(ap, const char *));
			break;
		case 'd': {
			long v = l ? va_arg(ap, long) : va_arg(ap, int);

			oputn(v < 0 ? -(unsigned long)v : (unsigned long)v, 10, v < 0);
			break;
		}
		case 'u':
			oputn(l ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 10, 0);
			break;
		case 'x':
			oputn(l ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int), 16, 0);
			break;
		default:
			oputc(*fmt);
		}
	}
	va_end(ap);
}

int main(int argc, char **argv);

void start_c(long *sp);
void start_c(long *sp)
{
	int rc = main((int)sp[0], (char **)(sp + 1));

	oflush();
	sys6(SYS_exit_group, rc, 0, 0, 0, 0, 0);
}

__asm__(".text\n.global _start\n_start:\n"
	"\txor %rbp, %rbp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n"
	"\tcall start_c\n\thlt\n");

/* ---- uverbs and mlx5 ABI (uapi layouts) ------------------------------- */

#define CMD_GET_CONTEXT		0
#define CMD_ALLOC_PD		3
#define CMD_DEALLOC_PD		4
#define CMD_REG_MR		9
#define CMD_DEREG_MR		13
#define CMD_CREATE_CQ		18
#define CMD_DESTROY_CQ		20
#define CMD_CREATE_QP		24
#define CMD_QUERY_QP		25
#define CMD_MODIFY_QP		26
#define CMD_DESTROY_QP		27
#define CMD_CREATE_SRQ		32
#define CMD_DESTROY_SRQ		35

#define QPT_RC			2
#define QPT_UC			3
#define QPT_UD			4
#define QPT_RAW_PACKET		8

#define QP_STATE		(1 << 0)
#define QP_ACCESS_FLAGS		(1 << 3)
#define QP_PKEY_INDEX		(1 << 4)
#define QP_PORT			(1 << 5)
#define QP_AV			(1 << 7)
#define QP_PATH_MTU		(1 << 8)
#define QP_TIMEOUT		(1 << 9)
#define QP_RETRY_CNT		(1 << 10)
#define QP_RNR_RETRY		(1 << 11)
#define QP_RQ_PSN		(1 << 12)
#define QP_MAX_QP_RD_ATOMIC	(1 << 13)
#define QP_MIN_RNR_TIMER	(1 << 15)
#define QP_SQ_PSN		(1 << 16)
#define QP_MAX_DEST_RD_ATOMIC	(1 << 17)
#define QP_DEST_QPN		(1 << 20)

#define QPS_RESET	0
#define QPS_INIT	1
#define QPS_RTR		2
#define QPS_RTS		3
#define QPS_ERR		6

#define ACCESS_LOCAL_WRITE	1

typedef uint64_t u64a __attribute__((aligned(8)));

struct cmd_hdr {
	uint32_t command;
	uint16_t in_words;
	uint16_t out_words;
};

struct get_context_resp {
	uint32_t async_fd;
	uint32_t num_comp_vectors;
};

struct mlx5_uctx_req {			/* mlx5_ib_alloc_ucontext_req_v2 */
	uint32_t total_num_bfregs;
	uint32_t num_low_latency_bfregs;
	uint32_t flags;
	uint32_t comp_mask;
	uint8_t max_cqe_version;
	uint8_t reserved0;
	uint16_t reserved1;
	uint32_t reserved2;
	u64a lib_caps;
};

struct mlx5_uctx_resp {			/* mlx5_ib_alloc_ucontext_resp */
	uint32_t qp_tab_size;
	uint32_t bf_reg_size;
	uint32_t tot_bfregs;
	uint32_t cache_line_size;
	uint16_t max_sq_desc_sz;
	uint16_t max_rq_desc_sz;
	uint32_t max_send_wqebb;
	uint32_t max_recv_wr;
	uint32_t max_srq_recv_wr;
	uint16_t num_ports;
	uint16_t flow_action_flags;
	uint32_t comp_mask;
	uint32_t response_length;
	uint8_t cqe_version;
	uint8_t cmds_supp_uhw;
	uint8_t eth_min_inline;
	uint8_t clock_info_versions;
	u64a hca_core_clock_offset;
	uint32_t log_uar_size;
	uint32_t num_uars_per_page;
	uint32_t num_dyn_bfregs;
	uint32_t dump_fill_mkey;
};

struct reg_mr {
	u64a response;
	u64a start;
	u64a length;
	u64a hca_va;
	uint32_t pd_handle;
	uint32_t access_flags;
};

struct reg_mr_resp {
	uint32_t mr_handle;
	uint32_t lkey;
	uint32_t rkey;
};

struct create_cq {
	u64a response;
	u64a user_handle;
	uint32_t cqe;
	uint32_t comp_vector;
	int32_t comp_channel;
	uint32_t reserved;
};

struct create_cq_resp {
	uint32_t cq_handle;
	uint32_t cqe;
	uint32_t cqn;			/* mlx5_ib_create_cq_resp */
	uint32_t reserved;
};

struct mlx5_create_cq {
	u64a buf_addr;
	u64a db_addr;
	uint32_t cqe_size;
	uint8_t cqe_comp_en;
	uint8_t cqe_comp_res_format;
	uint16_t flags;
	uint16_t uar_page_index;
	uint16_t reserved0;
	uint32_t reserved1;
};

struct destroy_obj {			/* destroy_cq/qp/srq */
	u64a response;
	uint32_t handle;
	uint32_t reserved;
};

struct create_qp {
	u64a response;
	u64a user_handle;
	uint32_t pd_handle;
	uint32_t send_cq_handle;
	uint32_t recv_cq_handle;
	uint32_t srq_handle;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint8_t sq_sig_all;
	uint8_t qp_type;
	uint8_t is_srq;
	uint8_t reserved;
};

struct create_qp_resp {
	uint32_t qp_handle;
	uint32_t qpn;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint32_t reserved;
	uint32_t bfreg_index;		/* mlx5_ib_create_qp_resp */
	uint32_t ece_options;
	uint32_t comp_mask;
	uint32_t tirn;
	uint32_t tisn;
	uint32_t rqn;
	uint32_t sqn;
	uint32_t reserved1;
	u64a tir_icm_addr;
};

struct mlx5_create_qp {
	u64a buf_addr;
	u64a db_addr;
	uint32_t sq_wqe_count;
	uint32_t rq_wqe_count;
	uint32_t rq_wqe_shift;
	uint32_t flags;
	uint32_t uidx;
	uint32_t bfreg_index;
	u64a sq_buf_addr;
	uint32_t ece_options;
	uint8_t dci_log_num_concurent;
	uint8_t dci_log_num_errored;
	uint16_t reserved;
};

struct qp_dest {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint16_t dlid;
	uint16_t reserved;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};

struct modify_qp {
	struct qp_dest dest;
	struct qp_dest alt_dest;
	uint32_t qp_handle;
	uint32_t attr_mask;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t qp_state;
	uint8_t cur_qp_state;
	uint8_t path_mtu;
	uint8_t path_mig_state;
	uint8_t en_sqd_async_notify;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint8_t reserved[2];
};

struct query_qp_resp {
	struct qp_dest dest;
	struct qp_dest alt_dest;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t qp_state;
	uint8_t cur_qp_state;
	uint8_t path_mtu;
	uint8_t path_mig_state;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint8_t sq_sig_all;
	uint8_t reserved[5];
};

struct create_srq {
	u64a response;
	u64a user_handle;
	uint32_t pd_handle;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

struct create_srq_resp {
	uint32_t srq_handle;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srqn;
	uint32_t mlx5_srqn;		/* mlx5_ib_create_srq_resp */
	uint32_t reserved;
};

struct mlx5_create_srq {
	u64a buf_addr;
	u64a db_addr;
	uint32_t flags;
	uint32_t reserved0;
	uint32_t uidx;
	uint32_t reserved1;
};

_Static_assert(sizeof(struct mlx5_uctx_req) == 32, "ucontext req");
_Static_assert(sizeof(struct mlx5_uctx_resp) == 72, "ucontext resp");
_Static_assert(sizeof(struct create_cq) == 32, "create_cq");
_Static_assert(sizeof(struct mlx5_create_cq) == 32, "mlx5 create_cq");
_Static_assert(sizeof(struct create_qp) == 56, "create_qp");
_Static_assert(sizeof(struct create_qp_resp) == 72, "create_qp resp");
_Static_assert(sizeof(struct mlx5_create_qp) == 56, "mlx5 create_qp");
_Static_assert(sizeof(struct modify_qp) == 112, "modify_qp");
_Static_assert(sizeof(struct query_qp_resp) == 128, "query_qp resp");
_Static_assert(sizeof(struct create_srq) == 32, "create_srq");
_Static_assert(sizeof(struct mlx5_create_srq) == 32, "mlx5 create_srq");
_Static_assert(sizeof(struct reg_mr) == 40, "reg_mr");

/* ---- test plumbing ---------------------------------------------------- */

static int n_case, n_fail;
static const char *dev_path;

static void ok(int pass, const char *name)
{
	out("%s %d %s\n", pass ? "ok" : "not ok", ++n_case, name);
	if (!pass)
		n_fail++;
}

static void skip(const char *name, const char *why)
{
	out("ok %d %s # SKIP %s\n", ++n_case, name, why);
}

/*
 * One write() command: header, core request, driver data. The core
 * request starts with the response address when @resp is given.
 * Return: 0 or -errno.
 */
static long uv_cmd(long fd, uint32_t cmd, void *core, size_t core_len,
		   const void *drv, size_t drv_len, void *resp, size_t resp_len)
{
	static uint8_t buf[1024] __attribute__((aligned(8)));
	struct cmd_hdr *h = (struct cmd_hdr *)buf;
	size_t total = sizeof(*h) + core_len + drv_len;
	long rc;

	if (resp)
		*(uint64_t *)core = (uint64_t)(uintptr_t)resp;
	memcpy(buf + sizeof(*h), core, core_len);
	memcpy(buf + sizeof(*h) + core_len, drv, drv_len);
	h->command = cmd;
	h->in_words = (uint16_t)(total / 4);
	h->out_words = (uint16_t)(resp_len / 4);
	rc = sys_write((int)fd, buf, total);
	return rc < 0 ? rc : 0;
}

/* Case expecting errno @err. */
static void expect_err(const char *name, long rc, int err)
{
	if (rc != -err)
		out("# %s: got %ld, expected %d\n", name, rc, -err);
	ok(rc == -err, name);
}

static void expect_ok(const char *name, long rc)
{
	if (rc)
		out("# %s: got %ld\n", name, rc);
	ok(rc == 0, name);
}

static long open_dev(void)
{
	long fd = sys_open(dev_path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		out("# open %s: %ld\n", dev_path, fd);
	return fd;
}

static long get_context(long fd, const void *drv, size_t drv_len,
			struct mlx5_uctx_resp *mresp)
{
	struct {
		struct get_context_resp core;
		struct mlx5_uctx_resp mlx5;
	} resp;
	u64a core[1];
	long rc;

	memset(&resp, 0, sizeof(resp));
	rc = uv_cmd(fd, CMD_GET_CONTEXT, core, sizeof(core), drv, drv_len,
		    &resp, sizeof(resp));
	if (!rc && mresp)
		*mresp = resp.mlx5;
	return rc;
}

static struct mlx5_uctx_req uctx_req(void)
{
	struct mlx5_uctx_req r;

	memset(&r, 0, sizeof(r));
	r.total_num_bfregs = 16;
	r.num_low_latency_bfregs = 4;
	r.max_cqe_version = 1;
	r.lib_caps = 1;		/* MLX5_LIB_CAP_4K_UAR */
	return r;
}

/* ---- user context ----------------------------------------------------- */

static struct mlx5_uctx_resp uresp;

static long test_context(void)
{
	struct mlx5_uctx_req r;
	uint8_t big[40];
	long fd, fd2, rc;

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
	r.flags = 1;
	expect_err("ucontext: DEVX refused", get_context(fd, &r, sizeof(r), NULL), EOPNOTSUPP);
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
	expect_err("ucontext: low-latency >= total", get_context(fd, &r, sizeof(r), NULL), EINVAL);
	r = uctx_req();
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	big[36] = 1;
	expect_err("ucontext: non-zero trailing bytes", get_context(fd, big, sizeof(big), NULL),
		   EOPNOTSUPP);

	/* A v0 request on another file: 4 bfregs = 2 UAR pages. */
	fd2 = open_dev();
	if (fd2 >= 0) {
		struct mlx5_uctx_resp r0;
		uint32_t v0[2] = { 3, 1 };

		rc = get_context(fd2, v0, sizeof(v0), &r0);
		expect_ok("ucontext: v0 request", rc);
		ok(!rc && r0.tot_bfregs == 4, "ucontext: v0 bfregs rounded up to 4");
		rc = sys_mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, (int)fd2, 1 * PAGE);
		ok(rc > 0, "mmap: UAR 1 of a 2-UAR context");
		if (rc > 0)
			sys_munmap(rc, PAGE);
		expect_err("mmap: UAR 2 of a 2-UAR context",
			   sys_mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, (int)fd2, 2 * PAGE), EINVAL);
		sys_close(fd2);
	}

	/* Longer zero-padded request works; then the real one. */
	r = uctx_req();
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	rc = get_context(fd, big, sizeof(big), &uresp);
	expect_ok("ucontext: valid v2 request (zero-padded)", rc);
	if (rc) {
		sys_close(fd);
		return rc;
	}
	out("# tot_bfregs %u bf_reg_size %u cache_line %u sq_desc %u rq_desc %u cqe_version %u ports %u\n",
	    uresp.tot_bfregs, uresp.bf_reg_size, uresp.cache_line_size, uresp.max_sq_desc_sz,
	    uresp.max_rq_desc_sz, uresp.cqe_version, uresp.num_ports);
	ok(uresp.tot_bfregs == 16 && uresp.cache_line_size &&
	   PAGE % uresp.cache_line_size == 0 && uresp.cqe_version == 1 &&
	   uresp.num_ports >= 1 && uresp.max_sq_desc_sz >= 256 &&
	   uresp.max_rq_desc_sz >= 32 && uresp.max_send_wqebb && uresp.max_recv_wr &&
	   uresp.max_srq_recv_wr && uresp.response_length == sizeof(uresp) &&
	   uresp.comp_mask == 0 && uresp.log_uar_size == 12 &&
	   uresp.num_uars_per_page == 1, "ucontext: response fields");
	expect_err("ucontext: second context on one file", get_context(fd, &r, sizeof(r), NULL),
		   EINVAL);
	return fd;
}

/* ---- mmap ------------------------------------------------------------- */

static long map(long fd, unsigned long cmd, unsigned long idx, size_t len, int prot, int flags)
{
	long rc = sys_mmap(NULL, len, prot, flags, (int)fd, (cmd << 8 | idx) * PAGE);

	if (rc > 0) {
		sys_munmap(rc, len);
		return 0;
	}
	return rc;
}

static void test_mmap(long fd)
{
	unsigned long i;
	int good = 1;

	for (i = 0; i < uresp.tot_bfregs / 2; i++)
		good &= !map(fd, 0, i, PAGE, PROT_WRITE, MAP_SHARED);
	ok(good, "mmap: every static UAR page (cmd 0)");
	expect_ok("mmap: non-cached UAR page (cmd 3)", map(fd, 3, 0, PAGE, PROT_WRITE, MAP_SHARED));
	expect_ok("mmap: write-combining UAR page (cmd 2)",
		  map(fd, 2, 1, PAGE, PROT_WRITE, MAP_SHARED));
	expect_err("mmap: UAR index past the context", map(fd, 0, i, PAGE, PROT_WRITE, MAP_SHARED),
		   EINVAL);
	expect_err("mmap: UAR index 255", map(fd, 0, 255, PAGE, PROT_WRITE, MAP_SHARED), EINVAL);
	expect_err("mmap: two pages", map(fd, 0, 0, 2 * PAGE, PROT_WRITE, MAP_SHARED), EINVAL);
	expect_err("mmap: private mapping", map(fd, 0, 0, PAGE, PROT_WRITE, MAP_PRIVATE), EINVAL);
	expect_err("mmap: executable mapping",
		   map(fd, 0, 0, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED), EPERM);
	expect_err("mmap: contiguous pages (cmd 1)", map(fd, 1, 0, PAGE, PROT_WRITE, MAP_SHARED),
		   EOPNOTSUPP);
	expect_err("mmap: core clock (cmd 5)", map(fd, 5, 0, PAGE, PROT_READ, MAP_SHARED),
		   EOPNOTSUPP);
	expect_err("mmap: dynamic bfreg (cmd 6)", map(fd, 6, 0, PAGE, PROT_WRITE, MAP_SHARED),
		   EOPNOTSUPP);
	expect_err("mmap: clock info (cmd 7)", map(fd, 7, 0, PAGE, PROT_READ, MAP_SHARED),
		   EOPNOTSUPP);
	expect_err("mmap: unknown command 200", map(fd, 200, 0, PAGE, PROT_WRITE, MAP_SHARED),
		   EINVAL);
	expect_err("mmap: extended index bits", map(fd, 0, 1UL << 16, PAGE, PROT_WRITE, MAP_SHARED),
		   EINVAL);
}

/* ---- PD, MR ----------------------------------------------------------- */

static long alloc_pd(long fd, const void *drv, size_t drv_len, uint32_t *handle)
{
	uint32_t resp[2] = { 0, 0 };
	u64a core[1];
	long rc;

	rc = uv_cmd(fd, CMD_ALLOC_PD, core, sizeof(core), drv, drv_len, resp, sizeof(resp));
	if (!rc)
		*handle = resp[0];
	return rc;
}

static long destroy_handle(long fd, uint32_t cmd, uint32_t handle)
{
	uint32_t resp[2];

	if (cmd == CMD_DEALLOC_PD || cmd == CMD_DEREG_MR)
		return uv_cmd(fd, cmd, &handle, sizeof(handle), NULL, 0, NULL, 0);
	{
		struct destroy_obj d = { .handle = handle };

		return uv_cmd(fd, cmd, &d, sizeof(d), NULL, 0, resp, sizeof(resp));
	}
}

static long reg_mr(long fd, uint32_t pd, uint64_t start, uint64_t len, uint64_t va,
		   uint32_t access, const void *drv, size_t drv_len)
{
	struct reg_mr c = { .start = start, .length = len, .hca_va = va,
			    .pd_handle = pd, .access_flags = access };
	struct reg_mr_resp resp;
	long rc;

	rc = uv_cmd(fd, CMD_REG_MR, &c, sizeof(c), drv, drv_len, &resp, sizeof(resp));
	if (!rc) {
		if (resp.lkey == 0x100) {
			out("# lkey 0x100 is reserved\n");
			rc = -EIO;
		}
		destroy_handle(fd, CMD_DEREG_MR, resp.mr_handle);
	}
	return rc;
}

static long anon(size_t len)
{
	return sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* An address range nothing is mapped at. */
#define UNMAPPED	0x100000000000UL

static int test_pd_mr(long fd, uint32_t *pd)
{
	uint64_t junk[2] = { 1, 0 };
	long buf = anon(16 * PAGE);
	long rc;

	expect_err("pd: non-zero driver data", alloc_pd(fd, junk, sizeof(junk), pd), EOPNOTSUPP);
	rc = alloc_pd(fd, NULL, 0, pd);
	if (rc) {
		out("# ALLOC_PD: %ld (emulator without protection domains?)\n", rc);
		skip("pd: allocate", "the device cannot allocate a PD");
		return 0;
	}
	ok(1, "pd: allocate");

	rc = reg_mr(fd, *pd, buf, 16 * PAGE, buf, ACCESS_LOCAL_WRITE, NULL, 0);
	if (rc) {
		out("# REG_MR: %ld\n", rc);
		skip("mr: register 64 KiB", "the device cannot create an MKey");
	} else {
		ok(1, "mr: register 64 KiB");
	}
	expect_err("mr: length beyond the device limit",
		   reg_mr(fd, *pd, buf, 1UL << 50, buf, ACCESS_LOCAL_WRITE, NULL, 0), EINVAL);
	expect_err("mr: unmapped memory",
		   reg_mr(fd, *pd, UNMAPPED, 16 * PAGE, UNMAPPED, ACCESS_LOCAL_WRITE, NULL, 0),
		   EFAULT);
	expect_err("mr: non-zero driver data",
		   reg_mr(fd, *pd, buf, PAGE, buf, ACCESS_LOCAL_WRITE, junk, sizeof(junk)),
		   EOPNOTSUPP);
	expect_err("mr: unknown access flag (on-demand paging)",
		   reg_mr(fd, *pd, buf, PAGE, buf, ACCESS_LOCAL_WRITE | 1 << 6, NULL, 0),
		   EOPNOTSUPP);
	return 1;
}

/* ---- CQ --------------------------------------------------------------- */

struct cq_bufs {
	long ring;	/* 64 KiB */
	long db;	/* one page of doorbell records */
};

static struct mlx5_create_cq cq_req(struct cq_bufs *b, unsigned int slot)
{
	struct mlx5_create_cq r;

	memset(&r, 0, sizeof(r));
	r.buf_addr = (uint64_t)b->ring;
	r.db_addr = (uint64_t)b->db + 64 * slot;
	r.cqe_size = 64;
	return r;
}

static long create_cq(long fd, uint32_t cqe, uint32_t vector, const void *drv, size_t drv_len,
		      struct create_cq_resp *resp)
{
	struct create_cq c = { .cqe = cqe, .comp_vector = vector, .comp_channel = -1 };
	struct create_cq_resp r;

	return uv_cmd(fd, CMD_CREATE_CQ, &c, sizeof(c), drv, drv_len, resp ? resp : &r,
		      sizeof(r));
}

static long try_cq(long fd, uint32_t cqe, const struct mlx5_create_cq *r, size_t len)
{
	struct create_cq_resp resp;
	long rc = create_cq(fd, cqe, 0, r, len, &resp);

	if (!rc)
		destroy_handle(fd, CMD_DESTROY_CQ, resp.cq_handle);
	return rc;
}

static int test_cq(long fd, struct cq_bufs *b, uint32_t cq[2])
{
	struct mlx5_create_cq r;
	struct create_cq_resp resp;
	uint8_t big[40];
	long rc;

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
	r.flags = 1 << 1;
	expect_err("cq: UAR page index flag (dynamic UARs)", try_cq(fd, 255, &r, sizeof(r)),
		   EOPNOTSUPP);
	r.flags = 1 << 9;
	expect_err("cq: unknown flag", try_cq(fd, 255, &r, sizeof(r)), EOPNOTSUPP);
	r = cq_req(b, 0);
	r.flags = 1;
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
	big[39] = 1;
	expect_err("cq: non-zero trailing bytes", try_cq(fd, 255, (void *)big, sizeof(big)),
		   EOPNOTSUPP);

	/* Valid: 255 requested -> 256 entries, cqe reported as 255. */
	r = cq_req(b, 0);
	rc = create_cq(fd, 200, 0, &r, sizeof(r), &resp);
	if (rc) {
		out("# CREATE_CQ: %ld (emulator without CQs?)\n", rc);
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
	return 1;
}

/* ---- QP --------------------------------------------------------------- */

struct qp_bufs {
	long buf;	/* 64 KiB */
	long db;
};

static struct create_qp qp_core(uint32_t pd, const uint32_t cq[2], uint8_t type)
{
	struct create_qp c;

	memset(&c, 0, sizeof(c));
	c.pd_handle = pd;
	c.send_cq_handle = cq[0];
	c.recv_cq_handle = cq[1];
	c.max_send_wr = 16;
	c.max_recv_wr = 16;
	c.max_send_sge = 1;
	c.max_recv_sge = 1;
	c.qp_type = type;
	return c;
}

/* What libmlx5 sends for the core request above (RC, 16 + 16 WRs, 1 SGE). */
static struct mlx5_create_qp qp_req(struct qp_bufs *b)
{
	struct mlx5_create_qp r;

	memset(&r, 0, sizeof(r));
	r.buf_addr = (uint64_t)b->buf;
	r.db_addr = (uint64_t)b->db;
	r.rq_wqe_count = 16;
	r.rq_wqe_shift = 4;
	r.sq_wqe_count = 64;
	r.flags = 1 << 1;	/* SCATTER_CQE, always sent */
	r.uidx = 1;
	return r;
}

static long create_qp(long fd, struct create_qp *c, const void *drv, size_t len,
		      struct create_qp_resp *resp)
{
	struct create_qp_resp r;

	return uv_cmd(fd, CMD_CREATE_QP, c, sizeof(*c), drv, len, resp ? resp : &r, sizeof(r));
}

static long try_qp(long fd, struct create_qp c, const struct mlx5_create_qp *r, size_t len)
{
	struct create_qp_resp resp;
	long rc = create_qp(fd, &c, r, len, &resp);

	if (!rc)
		destroy_handle(fd, CMD_DESTROY_QP, resp.qp_handle);
	return rc;
}

static long modify(long fd, struct modify_qp *m)
{
	return uv_cmd(fd, CMD_MODIFY_QP, m, sizeof(*m), NULL, 0, NULL, 0);
}

static long query_qp(long fd, uint32_t qp, struct query_qp_resp *resp)
{
	struct {
		u64a response;
		uint32_t qp_handle;
		uint32_t attr_mask;
	} c = { .qp_handle = qp, .attr_mask = 0x1fffff };

	memset(resp, 0, sizeof(*resp));
	return uv_cmd(fd, CMD_QUERY_QP, &c, sizeof(c), NULL, 0, resp, sizeof(*resp));
}

static struct modify_qp mod(uint32_t qp, uint8_t state, uint32_t mask)
{
	struct modify_qp m;

	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = state;
	m.attr_mask = QP_STATE | mask;
	return m;
}

static void test_modify(long fd, uint32_t qp, uint32_t qpn)
{
	struct modify_qp m;
	long rc;

	m = mod(qp, QPS_RTR, 0);
	expect_err("modify: RESET -> RTR", modify(fd, &m), EINVAL);
	m = mod(qp, QPS_INIT, QP_PKEY_INDEX | QP_PORT);
	m.port_num = 1;
	expect_err("modify: RESET -> INIT without access flags", modify(fd, &m), EINVAL);
	m = mod(qp, QPS_INIT, QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS);
	m.port_num = 1;
	m.pkey_index = 1000;
	expect_err("modify: P_Key index past the table", modify(fd, &m), EINVAL);
	m.pkey_index = 0;
	m.port_num = 1;
	rc = modify(fd, &m);
	if (rc) {
		out("# RST2INIT: %ld\n", rc);
		skip("modify: RESET -> INIT", "the device cannot move a QP to INIT");
		return;
	}
	ok(1, "modify: RESET -> INIT");

	m = mod(qp, QPS_RTR, QP_AV | QP_PATH_MTU | QP_DEST_QPN | QP_RQ_PSN |
		QP_MAX_DEST_RD_ATOMIC | QP_MIN_RNR_TIMER);
	m.dest.dlid = 1;
	m.dest.port_num = 1;
	m.dest_qp_num = qpn;
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 12;
	m.path_mtu = 7;
	expect_err("modify: path MTU 7", modify(fd, &m), EINVAL);
	m.path_mtu = 5;
	m.max_dest_rd_atomic = 200;
	expect_err("modify: 200 responder resources", modify(fd, &m), EINVAL);
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 40;
	expect_err("modify: RNR timer 40", modify(fd, &m), EINVAL);
	m.min_rnr_timer = 12;
	m.dest.is_global = 1;
	m.dest.sgid_index = 200;
	expect_err("modify: GID index past the table", modify(fd, &m), EINVAL);
	m.dest.is_global = 0;
	m.dest.sgid_index = 0;
	rc = modify(fd, &m);
	if (rc) {
		out("# INIT2RTR: %ld\n", rc);
		skip("modify: INIT -> RTR", "the device cannot move a QP to RTR");
		return;
	}
	ok(1, "modify: INIT -> RTR");
	m = mod(qp, QPS_RTS, QP_TIMEOUT | QP_RETRY_CNT | QP_RNR_RETRY | QP_SQ_PSN |
		QP_MAX_QP_RD_ATOMIC);
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	m.timeout = 40;
	expect_err("modify: ACK timeout 40", modify(fd, &m), EINVAL);
	m.timeout = 14;
	expect_ok("modify: RTR -> RTS", modify(fd, &m));
	{
		struct query_qp_resp q;

		rc = query_qp(fd, qp, &q);
		if (rc)
			out("# QUERY_QP: %ld\n", rc);
		else
			out("# query: state %u mtu %u dest_qp 0x%x timeout %u retry %u rnr %u dlid %u port %u\n",
			    q.qp_state, q.path_mtu, q.dest_qp_num, q.timeout, q.retry_cnt,
			    q.rnr_retry, q.dest.dlid, q.port_num);
		ok(!rc && q.qp_state == QPS_RTS && q.path_mtu == 5 && q.dest_qp_num == qpn &&
		   q.timeout == 14 && q.retry_cnt == 7 && q.rnr_retry == 7 &&
		   q.min_rnr_timer == 12 && q.dest.dlid == 1 && q.port_num == 1 &&
		   q.max_send_wr >= 16 && q.max_recv_wr >= 16, "query: RTS with the applied attributes");
	}
	m = mod(qp, QPS_ERR, 0);
	expect_ok("modify: RTS -> ERR", modify(fd, &m));
	m = mod(qp, QPS_RESET, 0);
	expect_ok("modify: ERR -> RESET", modify(fd, &m));
}

static void test_qp(long fd, uint32_t pd, const uint32_t cq[2], struct qp_bufs *b)
{
	struct create_qp c = qp_core(pd, cq, QPT_RC);
	struct mlx5_create_qp r;
	struct create_qp_resp resp;
	uint8_t big[64];
	long rc;

	r = qp_req(b);
	expect_err("qp: 32-byte request", try_qp(fd, c, &r, 32), EINVAL);
	r = qp_req(b);
	r.flags |= 1 << 3;
	expect_err("qp: bfreg index flag (dynamic UARs)", try_qp(fd, c, &r, sizeof(r)),
		   EOPNOTSUPP);
	r = qp_req(b);
	r.flags |= 1 << 10;
	expect_err("qp: UAR page index flag (dynamic UARs)", try_qp(fd, c, &r, sizeof(r)),
		   EOPNOTSUPP);
	r = qp_req(b);
	r.flags |= 1 << 4;
	expect_err("qp: DCT flag", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	r = qp_req(b);
	r.flags |= 1 << 20;
	expect_err("qp: unknown flag", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	r = qp_req(b);
	r.ece_options = 0x10000000;
	expect_err("qp: ECE options", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	r = qp_req(b);
	r.bfreg_index = 3;
	expect_err("qp: bfreg index without its flag", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.sq_buf_addr = (uint64_t)b->buf;
	expect_err("qp: separate SQ buffer", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.uidx = 1U << 24;
	expect_err("qp: user index of 25 bits", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.rq_wqe_count = 24;
	expect_err("qp: RQ size not a power of 2", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r.rq_wqe_count = 1U << 20;
	expect_err("qp: RQ of 2^20 WQEs", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.rq_wqe_count = 8;
	expect_err("qp: RQ smaller than max_recv_wr", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.rq_wqe_shift = 3;
	expect_err("qp: RQ stride 8", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r.rq_wqe_shift = 31;
	expect_err("qp: RQ stride 2^31", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.sq_wqe_count = 48;
	expect_err("qp: SQ size not a power of 2", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r.sq_wqe_count = 1U << 30;
	expect_err("qp: SQ of 2^30 basic blocks", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.sq_wqe_count = 0;
	expect_err("qp: no SQ but max_send_wr 16", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.buf_addr += 64;
	expect_err("qp: unaligned buffer", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.buf_addr = UNMAPPED;
	expect_err("qp: unmapped buffer", try_qp(fd, c, &r, sizeof(r)), EFAULT);
	r = qp_req(b);
	r.db_addr += 2;
	expect_err("qp: unaligned doorbell record", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	c.max_send_sge = 1000;
	expect_err("qp: 1000 send SGEs", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	c = qp_core(pd, cq, QPT_RC);
	c.max_inline_data = 1U << 20;
	expect_err("qp: 1 MiB inline data", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	c = qp_core(pd, cq, QPT_RAW_PACKET);
	expect_err("qp: raw packet type", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	c = qp_core(pd, cq, QPT_RC);
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	big[60] = 0xff;
	expect_err("qp: non-zero trailing bytes", try_qp(fd, c, (void *)big, sizeof(big)),
		   EOPNOTSUPP);

	rc = create_qp(fd, &c, &r, sizeof(r), &resp);
	if (rc) {
		out("# CREATE_QP: %ld (emulator without QPs?)\n", rc);
		skip("qp: create RC", "the device cannot create a QP");
		return;
	}
	out("# qpn 0x%x bfreg_index %u\n", resp.qpn, resp.bfreg_index);
	ok(resp.qpn < (1U << 24) && resp.bfreg_index % 4 < 2 &&
	   resp.bfreg_index / 4 < uresp.tot_bfregs / 2, "qp: create RC (QPN, bfreg index)");
	test_modify(fd, resp.qp_handle, resp.qpn);
	expect_ok("qp: destroy", destroy_handle(fd, CMD_DESTROY_QP, resp.qp_handle));

	c = qp_core(pd, cq, QPT_UD);
	r = qp_req(b);
	expect_ok("qp: create and destroy UD", try_qp(fd, c, &r, sizeof(r)));
	c = qp_core(pd, cq, QPT_UC);
	rc = try_qp(fd, c, &r, sizeof(r));
	if (rc == -EINVAL) {
		/* Everything was checked by then: the device refused the type. */
		out("# UC: %ld\n", rc);
		skip("qp: create and destroy UC", "the device refused UC QPs");
	} else {
		expect_ok("qp: create and destroy UC", rc);
	}
}

/* ---- SRQ -------------------------------------------------------------- */

static long try_srq(long fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		    uint32_t limit, const struct mlx5_create_srq *r, size_t len)
{
	struct create_srq c = { .pd_handle = pd, .max_wr = max_wr, .max_sge = max_sge,
				.srq_limit = limit };
	struct create_srq_resp resp;
	long rc;

	rc = uv_cmd(fd, CMD_CREATE_SRQ, &c, sizeof(c), r, len, &resp, sizeof(resp));
	if (!rc)
		destroy_handle(fd, CMD_DESTROY_SRQ, resp.srq_handle);
	return rc;
}

static void test_srq(long fd, uint32_t pd, struct qp_bufs *b)
{
	struct mlx5_create_srq r, r0;
	long rc;

	memset(&r0, 0, sizeof(r0));
	r0.buf_addr = (uint64_t)b->buf;
	r0.db_addr = (uint64_t)b->db + 64;
	r0.uidx = 2;
	r = r0;
	expect_err("srq: 8-byte request", try_srq(fd, pd, 63, 1, 0, &r, 8), EINVAL);
	r.flags = 2;
	expect_err("srq: unknown flag", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EOPNOTSUPP);
	r = r0;
	r.reserved1 = 1;
	expect_err("srq: reserved field", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EINVAL);
	r = r0;
	r.uidx = 1U << 24;
	expect_err("srq: user index of 25 bits", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EINVAL);
	r = r0;
	r.buf_addr += 32;
	expect_err("srq: unaligned buffer", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EINVAL);
	r = r0;
	expect_err("srq: 2^20 WQEs", try_srq(fd, pd, 1U << 20, 1, 0, &r, sizeof(r)), EINVAL);
	expect_err("srq: 100 SGEs", try_srq(fd, pd, 63, 100, 0, &r, sizeof(r)), EINVAL);
	expect_err("srq: limit above size", try_srq(fd, pd, 63, 1, 64, &r, sizeof(r)), EINVAL);
	r.buf_addr = UNMAPPED;
	expect_err("srq: unmapped buffer", try_srq(fd, pd, 63, 1, 0, &r, sizeof(r)), EFAULT);
	r = r0;
	rc = try_srq(fd, pd, 63, 1, 0, &r, sizeof(r));
	if (rc) {
		out("# CREATE_SRQ: %ld (emulator without SRQs?)\n", rc);
		skip("srq: create and destroy", "the device cannot create an SRQ");
		return;
	}
	ok(1, "srq: create and destroy");
}

/* ---- random requests -------------------------------------------------- */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Random driver data for CQ and QP creation, with real buffers often
 * enough to get past the address checks: the kernel must answer every
 * request (success or errno), objects created by chance are destroyed.
 */
static void test_random(long fd, uint32_t pd, int have_cq, const uint32_t cq[2],
			struct cq_bufs *cb, struct qp_bufs *qb)
{
	uint64_t w[8];
	int i, j, created = 0, answered = 0;

	for (i = 0; i < 400; i++) {
		for (j = 0; j < 8; j++)
			w[j] = rnd();
		if (rnd() & 1)
			w[0] = (uint64_t)cb->ring + (rnd() & 1 ? 0 : (rnd() & 0xfff));
		if (rnd() & 1)
			w[1] = (uint64_t)cb->db + 8 * (rnd() & 0x1ff);
		if (rnd() & 1)
			w[2] = (rnd() & 1 ? 64 : 128) | (rnd() & 1 ? 0 : rnd() << 32);
		{
			long rc = try_cq(fd, (uint32_t)(rnd() & 0x3ff),
					 (void *)w, 8 * (rnd() % 9) & ~3UL);

			answered += rc <= 0;
			created += rc == 0;
		}
		if (!have_cq)
			continue;
		for (j = 0; j < 8; j++)
			w[j] = rnd();
		if (rnd() & 1)
			w[0] = (uint64_t)qb->buf;
		if (rnd() & 1)
			w[1] = (uint64_t)qb->db + 8 * (rnd() & 0x1ff);
		if (rnd() & 1) {	/* plausible geometry, random flags/uidx */
			w[2] = (uint64_t)(1U << (rnd() % 8)) << 32 | (1U << (rnd() % 8));
			w[3] = (rnd() & 0xff) << 32 | (4 + rnd() % 6);
		}
		{
			struct create_qp c = qp_core(pd, cq, (uint8_t)(rnd() % 2 ? QPT_RC :
								  rnd() % 12));

			c.max_send_wr = (uint32_t)(rnd() % 64);
			c.max_recv_wr = (uint32_t)(rnd() % 64);
			long rc = try_qp(fd, c, (void *)w, 8 * (rnd() % 8));

			answered += rc <= 0;
			created += rc == 0;
		}
	}
	out("# random requests: %d answered, %d created and destroyed\n", answered, created);
	ok(1, "random CQ/QP driver data: every request answered");
}

int main(int argc, char **argv)
{
	struct cq_bufs cb;
	struct qp_bufs qb;
	uint32_t pd = 0, cq[2] = { 0, 0 };
	int have_pd, have_cq;
	long fd;

	if (argc < 2) {
		out("usage: ib_udata_test /dev/infiniband/uverbsN\n");
		return 2;
	}
	dev_path = argv[1];
	out("TAP version 13\n");

	fd = test_context();
	if (fd < 0) {
		out("Bail out! no user context on %s\n", dev_path);
		return 1;
	}
	test_mmap(fd);

	cb.ring = anon(16 * PAGE);
	cb.db = anon(PAGE);
	qb.buf = anon(16 * PAGE);
	qb.db = anon(PAGE);
	if (cb.ring < 0 || cb.db < 0 || qb.buf < 0 || qb.db < 0) {
		out("Bail out! out of memory\n");
		return 1;
	}
	have_pd = test_pd_mr(fd, &pd);
	have_cq = test_cq(fd, &cb, cq);
	if (have_pd && have_cq) {
		test_qp(fd, pd, cq, &qb);
		test_srq(fd, pd, &qb);
	} else {
		skip("qp: creation checks", "needs a PD and CQs");
		skip("srq: creation checks", "needs a PD");
	}
	test_random(fd, pd, have_pd && have_cq, cq, &cb, &qb);

	/* Closing the file destroys whatever is left (CQs, PD, context). */
	sys_close(fd);
	out("1..%d\n", n_case);
	out("# Totals: pass:%d fail:%d\n", n_case - n_fail, n_fail);
	return n_fail ? 1 : 0;
}
