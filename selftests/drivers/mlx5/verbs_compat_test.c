// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_compat_test - verbs of the unmodified rdma-core userspace that an
 * mlx5_ib must serve the way the in-tree one does, on two RDMA devices of
 * one host (mlx5_0 and mlx5_1 by default). Same options and output as
 * ib_verbs_test (ib_verbs_lib.c), plus "# obs KEY: VALUE" lines: what the
 * case saw (return codes, errno, granted limits), which
 * verbs_compat_test.sh compares between the in-tree driver and ours.
 * A case skips only when the verb is not served (EOPNOTSUPP), with the
 * reason.
 *
 * Cases:
 *   qp_access       modify RC QP to INIT with each access flag of
 *                   libibverbs (FLUSH_GLOBAL, FLUSH_PERSISTENT, ...),
 *                   then query the QP's access flags
 *   mr_access       ibv_reg_mr with each access flag
 *   rq_full         post receives until the RQ is full: how many fit,
 *                   the error and bad_wr of the one beyond
 *   srq_full        the same for an SRQ
 *   dv_query_port   mlx5dv_query_port of port 1, of port 0 and of a port
 *                   beyond the device
 *   pd_no_alloc     parent domain without allocators: RC QP on it, traffic
 *   pd_alloc        parent domain with custom allocators: extended CQ, SRQ
 *                   and RC QP on it (rings and doorbell records from the
 *                   allocator), traffic, every buffer freed again
 *   pd_alloc_huge   the same with every buffer carved from one 2 MiB huge
 *                   page, one after the other (rings at offsets inside it)
 *   dv_mkey         mlx5dv_create_mkey (indirect mkey object)
 *   ts_raw          ibv_query_rt_values_ex raw clock, CQ with
 *                   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: the timestamps of
 *                   a SEND's completions lie between two clock reads
 *   ts_wallclock    CQ with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK:
 *                   the completions' wall clock time lies between two
 *                   clock_gettime(CLOCK_REALTIME) calls
 *   import          ibv_import_device on a dup of the command fd,
 *                   ibv_import_pd, ibv_import_mr: the imported MR's keys,
 *                   address and length, traffic through them
 *   dmabuf          ibv_reg_dmabuf_mr of a udmabuf (memfd pages): SEND,
 *                   RDMA WRITE into and READ from it, data checked through
 *                   the memfd; a WRITE past its end fails
 *   dmabuf_dereg    ibv_dereg_mr of a DMA-BUF MR while the peer's stream of
 *                   RDMA WRITEs and READs into it is outstanding: the
 *                   stream ends in one remote access error and flushes,
 *                   the DMA-BUF is released once closed, a new DMA-BUF MR
 *                   and QPs carry traffic again
 *   dmabuf_move     ibv_reg_dmabuf_mr of a buffer of the test exporter
 *                   (mlx5_test_dmabuf.ko), which moves it on request:
 *                   registered as the driver does by default, the move is
 *                   refused (pinned); registered movable (our
 *                   dmabuf_movable=1), a move invalidates the MR (remote
 *                   access error), a new registration maps the moved pages
 *                   with their data; nothing stays attached, pinned or
 *                   mapped
 *   dm              ibv_alloc_dm (MEMIC): max_dm_size, memcpy to and from
 *                   the DM, ibv_reg_dm_mr (zero-based), RDMA WRITE into and
 *                   READ from it, data checked; a WRITE past its end fails
 *
 * Exit status: 0 all passed, 1 a case failed, 4 every case skipped.
 */
#define _GNU_SOURCE
#include "verbs_compat.h"

void obs(const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# obs %s: ", key);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

const char *err_name(int err)
{
	static char other[16];

	switch (err) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case ENOSYS: return "ENOSYS";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ERANGE: return "ERANGE";
	case EIO: return "EIO";
	case ENOSPC: return "ENOSPC";
	case EBUSY: return "EBUSY";
	}
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

int compat_traffic(struct ep *a, struct ep *b, bool b_srq)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)b->m.buf + 4096, .length = 4096, .lkey = b->m.mr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = 0xb0, .sg_list = &sg, .num_sge = 1 }, *bad;
	struct ibv_wc wc;
	int rc = KSFT_PASS, err;

	fill(a->m.buf, 256, 0x5e);
	memset(b->m.buf + 4096, 0, 4096);
	err = b_srq ? ibv_post_srq_recv(b->qp->srq, &rwr, &bad) : ibv_post_recv(b->qp, &rwr, &bad);
	CHECK(!err, "post receive: %s", strerror(err));
	CHECK(!post_send(a, 0xa0, 0, 256, IBV_SEND_SIGNALED), "post SEND");
	CHECK(expect_wc(a->scq, 0xa0, IBV_WC_SUCCESS, NULL), "SEND completion");
	CHECK(expect_wc(b->rcq, 0xb0, IBV_WC_SUCCESS, &wc), "RECV completion");
	CHECK(wc.byte_len == 256, "RECV byte_len %u, expected 256", wc.byte_len);
	CHECK(first_diff(a->m.buf, b->m.buf + 4096, 256) < 0, "received data differs at %ld",
	      first_diff(a->m.buf, b->m.buf + 4096, 256));
	CHECK(write_ok(a, b, 0xa1), "RDMA WRITE a -> b");
out:
	return rc;
}

static const struct verbs_case cases[] = {
	{ "qp_access", "modify QP to INIT with each access flag, query the flags", case_qp_access },
	{ "mr_access", "ibv_reg_mr with each access flag", case_mr_access },
	{ "rq_full", "post receives until the RQ is full: count, error, bad_wr", case_rq_full },
	{ "srq_full", "post receives until the SRQ is full: count, error, bad_wr",
	  case_srq_full },
	{ "dv_query_port", "mlx5dv_query_port of ports 1, 0 and beyond", case_dv_query_port },
	{ "pd_no_alloc", "parent domain without allocators: RC traffic", case_pd_no_alloc },
	{ "pd_alloc", "parent domain with allocators: CQ_ex, SRQ, RC QP, traffic, all freed",
	  case_pd_alloc },
	{ "pd_alloc_huge", "parent domain allocating inside one 2 MiB huge page: traffic",
	  case_pd_alloc_huge },
	{ "dv_mkey", "mlx5dv_create_mkey", case_dv_mkey },
	{ "ts_raw", "completion timestamps between two raw clock reads", case_ts_raw },
	{ "ts_wallclock", "wall clock completion timestamps between two clock_gettime",
	  case_ts_wallclock },
	{ "import", "ibv_import_device, ibv_import_pd, ibv_import_mr, traffic through them",
	  case_import },
	{ "dmabuf", "ibv_reg_dmabuf_mr of a udmabuf: SEND, RDMA WRITE and READ, data checked",
	  case_dmabuf },
	{ "dmabuf_dereg", "ibv_dereg_mr of a DMA-BUF MR under a stream of WRITEs and READs",
	  case_dmabuf_dereg },
	{ "dmabuf_move", "DMA-BUF MR of a dynamic exporter: pinned refuses a move, movable is invalidated",
	  case_dmabuf_move },
	{ "dm", "ibv_alloc_dm, memcpy to/from it, ibv_reg_dm_mr, RDMA WRITE and READ",
	  case_dm },
};

int main(int argc, char **argv)
{
	return verbs_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
