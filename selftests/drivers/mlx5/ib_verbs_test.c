// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test - verbs behaviour that the rdma-core tools and perftest do
 * not exercise, checked through libibverbs on two RDMA devices of one host
 * (by default mlx5_0 and mlx5_1; the emulator links them through its
 * fabric). Both ends of every connection live in this process: LIDs, GIDs
 * and QP numbers are exchanged in memory.
 *
 * Cases (each prints one KTAP line; run one with its name as argument):
 *   cq_overflow     a CQ smaller than the completions it receives: CQ error
 *                   event on the async fd, the QP that overran it in error
 *   rnr_retry       SEND with no receive posted: RNR retry exhausted after
 *                   rnr_retry 0 and 3; rnr_retry 7 waits for the receive
 *   flush           QP moved to ERR: every outstanding receive and send, and
 *                   those posted afterwards, complete with WR_FLUSH_ERR
 *   mr_access       remote access errors (no REMOTE_WRITE / REMOTE_READ,
 *                   out of bounds, bad rkey) and local protection errors
 *                   (bad lkey, READ into a read-only MR)
 *   comp_channel    several CQs on one completion channel: each event names
 *                   its CQ, one event per arm, ibv_ack_cq_events counts
 *   solicited       ibv_req_notify_cq(solicited_only=1): an unsolicited SEND
 *                   does not wake the channel, a solicited one and an error
 *                   completion do
 *   data            RDMA WRITE (+IMM), READ, multi-SGE SEND, inline SEND and
 *                   WRITE, atomic CAS and FETCH_ADD, checked byte for byte
 *   query_qp        ibv_query_qp returns what INIT/RTR/RTS applied, and ERR
 *   srq             SRQ limit event (and disarm), last-WQE event of a QP in
 *                   error, SRQ WQEs outlive it and serve another QP
 *   ud              UD datagrams 1 byte to the MTU (GRH room, immediate,
 *                   source QP and LID), a wrong Q_Key dropped
 *   errors          a SEND longer than the receive buffer (LOC_LEN_ERR on the
 *                   responder, REM_INV_REQ_ERR on the requester), transport
 *                   retries exhausted (RETRY_EXC_ERR)
 *   limits          CQ/QP/SRQ/MR/rd_atomic requests beyond the device limits
 *                   refused (errno printed for comparing the drivers)
 *
 * Exit status: 0 all passed, 1 a case failed, 4 every case skipped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

#define BUF_SIZE (256 * 1024)
#define QP_DEPTH 64

static const char *dev_name[2] = { "mlx5_0", "mlx5_1" };
static int port_num = 1;
static int gid_index;
static int wait_ms = 20000;	/* a completion or event that must come */
static int quiet_ms = 500;	/* a notification that must not come */

static void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

/* CHECK(cond, fmt, ...): on failure print why, mark the case failed. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		diag("FAIL %s:%d: %s", __func__, __LINE__, #cond);	\
		diag(__VA_ARGS__);					\
		rc = KSFT_FAIL;						\
		goto out;						\
	}								\
} while (0)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *wc_status(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

/* --- devices ----------------------------------------------------------- */

#define MAX_EVENTS 64

struct seen_event {
	enum ibv_event_type type;
	void *elem;
};

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	bool grh;
	struct seen_event ev[MAX_EVENTS];
	int nev;
};

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int dev_open(struct dev *d, const char *name)
{
	struct ibv_device **list;
	long long end;
	int i, n;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list) {
		diag("ibv_get_device_list: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		diag("no RDMA device %s", name);
		ibv_free_device_list(list);
		return -1;
	}
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx) {
		diag("ibv_open_device %s: %s", name, strerror(errno));
		return -1;
	}
	if (set_nonblock(d->ctx->async_fd) || ibv_query_device(d->ctx, &d->attr)) {
		diag("%s: ibv_query_device: %s", name, strerror(errno));
		return -1;
	}
	end = now_ms() + wait_ms;
	for (;;) {
		if (ibv_query_port(d->ctx, port_num, &d->port)) {
			diag("%s: ibv_query_port: %s", name, strerror(errno));
			return -1;
		}
		if (d->port.state == IBV_PORT_ACTIVE)
			break;
		if (now_ms() > end) {
			diag("%s: port %d not ACTIVE (%d)", name, port_num, d->port.state);
			return -1;
		}
		usleep(100000);
	}
	d->grh = d->port.link_layer == IBV_LINK_LAYER_ETHERNET || !d->port.lid;
	if (d->grh && ibv_query_gid(d->ctx, port_num, gid_index, &d->gid)) {
		diag("%s: ibv_query_gid %d: %s", name, gid_index, strerror(errno));
		return -1;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		diag("%s: ibv_alloc_pd: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

static void dev_close(struct dev *d)
{
	if (d->pd && ibv_dealloc_pd(d->pd))
		diag("ibv_dealloc_pd: %s", strerror(errno));
	if (d->ctx && ibv_close_device(d->ctx))
		diag("ibv_close_device: %s", strerror(errno));
	d->pd = NULL;
	d->ctx = NULL;
}

static const char *elem_kind(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_CQ_ERR:
		return "cq";
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return "srq";
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return "port";
	case IBV_EVENT_DEVICE_FATAL:
		return "device";
	default:
		return "qp";
	}
}

/*
 * Reads every async event that is ready (waiting up to ms for the first),
 * records and acknowledges it. Returns the number read.
 */
static int async_drain(struct dev *d, int ms)
{
	struct pollfd p = { .fd = d->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event e;
	int n = 0;

	while (poll(&p, 1, n ? 0 : ms) > 0) {
		if (ibv_get_async_event(d->ctx, &e))
			break;
		if (d->nev < MAX_EVENTS) {
			d->ev[d->nev].type = e.event_type;
			d->ev[d->nev].elem = e.element.qp; /* union: the object */
			d->nev++;
		}
		diag("async event: %s (%s %p)", ibv_event_type_str(e.event_type),
		     elem_kind(e.event_type), e.element.qp);
		ibv_ack_async_event(&e);
		n++;
	}
	return n;
}

static bool event_seen(struct dev *d, enum ibv_event_type type, void *elem)
{
	for (int i = 0; i < d->nev; i++)
		if (d->ev[i].type == type && d->ev[i].elem == elem)
			return true;
	return false;
}

/* Waits up to ms for async event type on object elem. */
static bool async_wait(struct dev *d, enum ibv_event_type type, void *elem, int ms)
{
	long long end = now_ms() + ms;

	while (!event_seen(d, type, elem)) {
		long long left = end - now_ms();

		if (left <= 0)
			return false;
		async_drain(d, (int)left);
	}
	return true;
}

/* --- memory ------------------------------------------------------------ */

struct mem {
	uint8_t *buf;
	size_t len;
	struct ibv_mr *mr;
};

static int mem_reg(struct mem *m, struct dev *d, size_t len, int access)
{
	m->len = len;
	if (posix_memalign((void **)&m->buf, 4096, len)) {
		m->buf = NULL;
		return -1;
	}
	memset(m->buf, 0, len);
	m->mr = ibv_reg_mr(d->pd, m->buf, len, access);
	if (!m->mr) {
		diag("ibv_reg_mr(%zu, 0x%x): %s", len, access, strerror(errno));
		return -1;
	}
	return 0;
}

static void mem_free(struct mem *m)
{
	if (m->mr && ibv_dereg_mr(m->mr))
		diag("ibv_dereg_mr: %s", strerror(errno));
	free(m->buf);
	memset(m, 0, sizeof(*m));
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* First differing offset of a and b, or -1. */
static long first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

/* First offset in p[0..n) that is not byte c, or -1. */
static long first_not(const uint8_t *p, size_t n, uint8_t c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return (long)i;
	return -1;
}

/* --- CQs and QPs ------------------------------------------------------- */

static struct ibv_cq *cq_new(struct dev *d, int cqe, struct ibv_comp_channel *ch, void *cq_ctx)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, cqe, cq_ctx, ch, 0);

	if (!cq)
		diag("ibv_create_cq(%d): %s", cqe, strerror(errno));
	return cq;
}

static void cq_free(struct ibv_cq **cq)
{
	if (*cq && ibv_destroy_cq(*cq))
		diag("ibv_destroy_cq: %s", strerror(errno));
	*cq = NULL;
}

/* One end of an RC connection. */
struct ep {
	struct dev *d;
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	bool own_cqs;
	struct mem m;
	struct ibv_qp_cap cap;	/* what ibv_create_qp granted */
};

struct conn_opts {
	uint8_t timeout;	/* local ACK timeout (4.096 us << n) */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;	/* of the responder */
	uint32_t dest_qpn;	/* 0: the peer's QP */
	int access;		/* remote access of the QP */
	uint8_t rd_atomic;	/* max_rd_atomic and max_dest_rd_atomic */
	struct ibv_srq *srq;	/* receive from this SRQ */
};

static const struct conn_opts default_opts = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12, /* 0.64 ms */
	.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	.rd_atomic = 4,
};

/*
 * Creates e's QP (RC) and moves it to INIT. scq/rcq: CQs to use, or NULL
 * to create a pair of 2 * QP_DEPTH entries owned by the end point. mem_access:
 * rights of the end point's buffer (0: none registered).
 */
static int ep_create(struct ep *e, struct dev *d, struct ibv_cq *scq, struct ibv_cq *rcq,
		     int mem_access, const struct conn_opts *o)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = QP_DEPTH, .max_recv_wr = QP_DEPTH,
			.max_send_sge = 4, .max_recv_sge = 4,
			.max_inline_data = 64,
		},
		.srq = o->srq,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port_num,
		.qp_access_flags = o->access,
	};

	memset(e, 0, sizeof(*e));
	e->d = d;
	if (!scq) {
		e->own_cqs = true;
		scq = e->scq = cq_new(d, 2 * QP_DEPTH, NULL, NULL);
		rcq = e->rcq = cq_new(d, 2 * QP_DEPTH, NULL, NULL);
		if (!scq || !rcq)
			return -1;
	}
	e->scq = scq;
	e->rcq = rcq;
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	e->qp = ibv_create_qp(d->pd, &ia);
	if (!e->qp) {
		diag("ibv_create_qp: %s", strerror(errno));
		return -1;
	}
	e->cap = ia.cap;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS)) {
		diag("modify QP 0x%x to INIT: %s", e->qp->qp_num, strerror(errno));
		return -1;
	}
	if (mem_access && mem_reg(&e->m, d, BUF_SIZE, mem_access))
		return -1;
	return 0;
}

static void ep_destroy(struct ep *e)
{
	if (e->qp && ibv_destroy_qp(e->qp))
		diag("ibv_destroy_qp: %s", strerror(errno));
	e->qp = NULL;
	mem_free(&e->m);
	if (e->own_cqs) {
		cq_free(&e->scq);
		cq_free(&e->rcq);
	}
}

static enum ibv_mtu mtu_min(enum ibv_mtu a, enum ibv_mtu b)
{
	return a < b ? a : b;
}

/* Moves e to RTR and RTS, talking to peer p. */
static int ep_connect(struct ep *e, struct ep *p, const struct conn_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_min(e->d->port.active_mtu, p->d->port.active_mtu),
		.dest_qp_num = o->dest_qpn ? o->dest_qpn : p->qp->qp_num,
		.rq_psn = 0x1000 + (p->qp->qp_num & 0xff),
		.max_dest_rd_atomic = o->rd_atomic,
		.min_rnr_timer = o->min_rnr_timer,
		.ah_attr = {
			.dlid = p->d->port.lid,
			.sl = 0,
			.port_num = port_num,
		},
	};

	if (e->d->attr.max_qp_rd_atom < a.max_dest_rd_atomic)
		a.max_dest_rd_atomic = e->d->attr.max_qp_rd_atom;
	if (e->d->grh) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = p->d->gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 1;
	}
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER)) {
		diag("modify QP 0x%x to RTR: %s", e->qp->qp_num, strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.sq_psn = 0x1000 + (e->qp->qp_num & 0xff);
	a.max_rd_atomic = o->rd_atomic;
	if (e->d->attr.max_qp_init_rd_atom < a.max_rd_atomic)
		a.max_rd_atomic = e->d->attr.max_qp_init_rd_atom;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		diag("modify QP 0x%x to RTS: %s", e->qp->qp_num, strerror(errno));
		return -1;
	}
	return 0;
}

/* A connected pair a <-> b; opts_a for a's requester, opts_b for b's. */
static int pair_connect(struct ep *a, struct ep *b, const struct conn_opts *oa,
			const struct conn_opts *ob)
{
	return ep_connect(a, b, oa) || ep_connect(b, a, ob) ? -1 : 0;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) {
		diag("ibv_query_qp 0x%x: %s", qp->qp_num, strerror(errno));
		return (enum ibv_qp_state)-1;
	}
	return a.qp_state;
}

static const char *qps_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned int)s < 7 ? n[s] : "?";
}

/* Waits up to ms until qp reports state s. */
static bool qp_wait_state(struct ibv_qp *qp, enum ibv_qp_state s, int ms)
{
	long long end = now_ms() + ms;

	while (qp_state(qp) != s) {
		if (now_ms() > end)
			return false;
		usleep(10000);
	}
	return true;
}

/* --- posting and polling ----------------------------------------------- */

static int post_recv_sge(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sg, int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = n }, *bad;
	int err = ibv_post_recv(qp, &wr, &bad);

	if (err)
		diag("ibv_post_recv 0x%x: %s", qp->qp_num, strerror(err));
	return err;
}

static int post_recv(struct ep *e, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)e->m.buf + off, .length = len, .lkey = e->m.mr->lkey,
	};

	return post_recv_sge(e->qp, wr_id, &sg, 1);
}

/* Posts one send WR; sg may be NULL for zero-length or atomics-free ops. */
static int post_wr(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(qp, wr, &bad);

	if (err)
		diag("ibv_post_send 0x%x opcode %d: %s", qp->qp_num, wr->opcode, strerror(err));
	return err;
}

static int post_send(struct ep *e, uint64_t wr_id, size_t off, uint32_t len, unsigned int flags)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)e->m.buf + off, .length = len, .lkey = e->m.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sg, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = flags,
	};

	return post_wr(e->qp, &wr);
}

/* RDMA WRITE/READ of len bytes between e's buffer at loff and raddr/rkey. */
static int post_rdma(struct ep *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t loff,
		     uint32_t lkey, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)e->m.buf + loff, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sg, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	};

	return post_wr(e->qp, &wr);
}

/*
 * Polls cq until n completions are in wc[] or ms pass. Returns how many
 * arrived (-1 on a poll error).
 */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	long long end = now_ms() + ms;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0) {
			diag("ibv_poll_cq: %d", r);
			return -1;
		}
		got += r;
		if (got < n) {
			if (now_ms() > end)
				break;
			if (!r)
				usleep(200);
		}
	}
	return got;
}

/* Exactly one completion of wr_id with status st. */
static bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status st, struct ibv_wc *out)
{
	struct ibv_wc wc;

	if (wait_wc(cq, &wc, 1, wait_ms) != 1) {
		diag("no completion for wr_id 0x%llx within %d ms", (unsigned long long)wr_id, wait_ms);
		return false;
	}
	if (out)
		*out = wc;
	if (wc.wr_id != wr_id || wc.status != st) {
		diag("completion wr_id 0x%llx status %s (vendor 0x%x), expected wr_id 0x%llx %s",
		     (unsigned long long)wc.wr_id, wc_status(wc.status), wc.vendor_err,
		     (unsigned long long)wr_id, wc_status(st));
		return false;
	}
	return true;
}

/* No completion arrives on cq within ms. */
static bool cq_quiet(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;
	int r = wait_wc(cq, &wc, 1, ms);

	if (r)
		diag("unexpected completion wr_id 0x%llx status %s opcode %d",
		     (unsigned long long)wc.wr_id, wc_status(wc.status), wc.opcode);
	return r == 0;
}

/* The channel fd becomes readable within ms. */
static bool fd_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}

/* Reads one completion event; returns the CQ (NULL after ms). */
static struct ibv_cq *get_cq_event(struct ibv_comp_channel *ch, void **ctx, int ms)
{
	struct ibv_cq *cq;

	if (!fd_ready(ch->fd, ms))
		return NULL;
	if (ibv_get_cq_event(ch, &cq, ctx)) {
		diag("ibv_get_cq_event: %s", strerror(errno));
		return NULL;
	}
	return cq;
}

/* --- cases ------------------------------------------------------------- */

struct two {
	struct dev d[2];
};

static int two_open(struct two *t)
{
	if (dev_open(&t->d[0], dev_name[0]) || dev_open(&t->d[1], dev_name[1]))
		return -1;
	return 0;
}

static void two_close(struct two *t)
{
	dev_close(&t->d[1]);
	dev_close(&t->d[0]);
}

#define MR_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_ATOMIC)

/* A fresh connected pair a (on d0) <-> b (on d1) with full-rights buffers. */
static int std_pair(struct two *t, struct ep *a, struct ep *b, const struct conn_opts *oa,
		    const struct conn_opts *ob)
{
	if (ep_create(a, &t->d[0], NULL, NULL, MR_ALL, oa) ||
	    ep_create(b, &t->d[1], NULL, NULL, MR_ALL, ob))
		return -1;
	return pair_connect(a, b, oa, ob);
}

/* One RDMA WRITE of 64 bytes a -> b that must succeed. */
static bool write_ok(struct ep *a, struct ep *b, uint64_t wr_id)
{
	fill(a->m.buf, 64, (uint32_t)wr_id);
	if (post_rdma(a, IBV_WR_RDMA_WRITE, wr_id, 0, a->m.mr->lkey, 64,
		      (uintptr_t)b->m.buf, b->m.mr->rkey))
		return false;
	if (!expect_wc(a->scq, wr_id, IBV_WC_SUCCESS, NULL))
		return false;
	return first_diff(a->m.buf, b->m.buf, 64) < 0;
}

static int case_cq_overflow(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_cq *tiny = NULL, *rcq = NULL;
	int rc = KSFT_PASS, n, i;
	struct conn_opts o = default_opts;

	CHECK(!two_open(&t), "devices");
	tiny = cq_new(&t.d[0], 1, NULL, NULL);
	rcq = cq_new(&t.d[0], QP_DEPTH, NULL, NULL);
	CHECK(tiny && rcq, "CQs");
	/* More completions than the CQ has room for (cqe + 1 at most). */
	n = 2 * (tiny->cqe + 1) + 2;
	diag("CQ of %d entries (asked 1), %d signaled WRITEs", tiny->cqe, n);
	if (n > QP_DEPTH) {
		diag("SKIP: the smallest CQ holds %d entries", tiny->cqe);
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(!ep_create(&a, &t.d[0], tiny, rcq, MR_ALL, &o), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &o), "QP b");
	CHECK(!pair_connect(&a, &b, &o, &o), "connect");
	for (i = 0; i < n; i++)
		CHECK(!post_rdma(&a, IBV_WR_RDMA_WRITE, i, 0, a.m.mr->lkey, 8,
				 (uintptr_t)b.m.buf + 8 * i, b.m.mr->rkey), "post %d", i);

	CHECK(async_wait(&t.d[0], IBV_EVENT_CQ_ERR, tiny, wait_ms),
	      "no IBV_EVENT_CQ_ERR for the overrun CQ within %d ms", wait_ms);
	/*
	 * The QP whose completion found the CQ in error goes to the error
	 * state with a local work queue catastrophic error.
	 */
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms),
	      "QP 0x%x state %s after the CQ overrun, expected ERR", a.qp->qp_num,
	      qps_name(qp_state(a.qp)));
	CHECK(async_wait(&t.d[0], IBV_EVENT_QP_FATAL, a.qp, wait_ms),
	      "no IBV_EVENT_QP_FATAL for QP 0x%x", a.qp->qp_num);
	/* The peer is not affected. */
	CHECK(qp_state(b.qp) == IBV_QPS_RTS, "peer QP state %s", qps_name(qp_state(b.qp)));

	/* Everything goes away cleanly and the device keeps working. */
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&tiny);
	cq_free(&rcq);
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "new pair");
	CHECK(write_ok(&a, &b, 0x77), "WRITE on a new pair after the overrun");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&tiny);
	cq_free(&rcq);
	if (t.d[0].ctx)
		async_drain(&t.d[0], 0);
	two_close(&t);
	return rc;
}

static int case_rnr_retry(void)
{
	static const uint8_t retries[] = { 0, 3 };
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	long long t0;

	CHECK(!two_open(&t), "devices");
	for (unsigned int k = 0; k < sizeof(retries); k++) {
		struct conn_opts oa = default_opts, ob = default_opts;

		oa.rnr_retry = retries[k];
		ob.min_rnr_timer = 1; /* 0.01 ms */
		CHECK(!std_pair(&t, &a, &b, &oa, &ob), "pair");
		t0 = now_ms();
		CHECK(!post_send(&a, 1, 0, 64, IBV_SEND_SIGNALED), "send");
		CHECK(!post_send(&a, 2, 64, 64, IBV_SEND_SIGNALED), "send");
		CHECK(expect_wc(a.scq, 1, IBV_WC_RNR_RETRY_EXC_ERR, &wc),
		      "rnr_retry %d: first SEND", retries[k]);
		CHECK(wc.qp_num == a.qp->qp_num, "qp_num 0x%x", wc.qp_num);
		diag("rnr_retry %d: RNR_RETRY_EXC after %lld ms", retries[k], now_ms() - t0);
		CHECK(expect_wc(a.scq, 2, IBV_WC_WR_FLUSH_ERR, NULL), "second SEND flushed");
		CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms), "requester state %s",
		      qps_name(qp_state(a.qp)));
		/* The responder had nothing to complete and stays connected. */
		CHECK(cq_quiet(b.rcq, 0), "responder receive CQ");
		CHECK(qp_state(b.qp) == IBV_QPS_RTS, "responder state %s",
		      qps_name(qp_state(b.qp)));
		ep_destroy(&a);
		ep_destroy(&b);
	}

	/* rnr_retry 7 retries for ever: the SEND lands once a receive is posted. */
	{
		struct conn_opts ob = default_opts;

		ob.min_rnr_timer = 18; /* 5.12 ms between retries */
		CHECK(!std_pair(&t, &a, &b, &default_opts, &ob), "pair");
	}
	fill(a.m.buf, 100, 7);
	CHECK(!post_send(&a, 3, 0, 100, IBV_SEND_SIGNALED), "send");
	CHECK(cq_quiet(a.scq, quiet_ms), "SEND completed with no receive posted");
	CHECK(!post_recv(&b, 4, 0, 4096), "recv");
	CHECK(expect_wc(a.scq, 3, IBV_WC_SUCCESS, NULL), "SEND after the receive was posted");
	CHECK(expect_wc(b.rcq, 4, IBV_WC_SUCCESS, &wc), "receive");
	CHECK(wc.byte_len == 100 && first_diff(a.m.buf, b.m.buf, 100) < 0,
	      "received %u bytes, data differ at %ld", wc.byte_len,
	      first_diff(a.m.buf, b.m.buf, 100));
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

/* Collects n flush completions from cq for wr_ids base..base+n-1. */
static bool expect_flushes(struct ibv_cq *cq, uint32_t qpn, uint64_t base, int n, const char *what)
{
	struct ibv_wc wc[QP_DEPTH];
	bool seen[QP_DEPTH] = {};
	int got = wait_wc(cq, wc, n, wait_ms);

	if (got != n) {
		diag("%s: %d of %d flush completions", what, got, n);
		return false;
	}
	for (int i = 0; i < n; i++) {
		uint64_t k = wc[i].wr_id - base;

		if (wc[i].status != IBV_WC_WR_FLUSH_ERR || k >= (uint64_t)n || seen[k] ||
		    wc[i].qp_num != qpn) {
			diag("%s: completion %d: wr_id 0x%llx status %s qp 0x%x", what, i,
			     (unsigned long long)wc[i].wr_id, wc_status(wc[i].status), wc[i].qp_num);
			return false;
		}
		seen[k] = true;
	}
	return cq_quiet(cq, 0);
}

static int case_flush(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct conn_opts oa = default_opts;
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	int rc = KSFT_PASS, i;
	const int nr = 8, ns = 8;

	CHECK(!two_open(&t), "devices");
	/*
	 * a talks to a QP number that does not exist on d1: its requests are
	 * dropped and its sends stay outstanding (the ACK timeout is about
	 * 4 s, seven retries).
	 */
	oa.timeout = 20;
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &oa), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "QP b");
	oa.dest_qpn = b.qp->qp_num ^ 0x800000;
	CHECK(!ep_connect(&a, &b, &oa), "connect a");
	for (i = 0; i < nr; i++)
		CHECK(!post_recv(&a, 0x100 + i, 4096 * i, 4096), "recv %d", i);
	for (i = 0; i < ns; i++)
		CHECK(!post_send(&a, 0x200 + i, 64 * i, 64, IBV_SEND_SIGNALED), "send %d", i);
	CHECK(cq_quiet(a.scq, 0) && cq_quiet(a.rcq, 0), "completions before the error");

	CHECK(!ibv_modify_qp(a.qp, &attr, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	CHECK(expect_flushes(a.rcq, a.qp->qp_num, 0x100, nr, "receives"), "receives");
	CHECK(expect_flushes(a.scq, a.qp->qp_num, 0x200, ns, "sends"), "sends");
	CHECK(qp_state(a.qp) == IBV_QPS_ERR, "state %s", qps_name(qp_state(a.qp)));

	/* Work requests posted in the error state are flushed too. */
	for (i = 0; i < 3; i++)
		CHECK(!post_recv(&a, 0x300 + i, 4096 * i, 4096), "recv in ERR");
	for (i = 0; i < 3; i++)
		CHECK(!post_send(&a, 0x400 + i, 64 * i, 64, IBV_SEND_SIGNALED), "send in ERR");
	CHECK(expect_flushes(a.rcq, a.qp->qp_num, 0x300, 3, "receives posted in ERR"), "late receives");
	CHECK(expect_flushes(a.scq, a.qp->qp_num, 0x400, 3, "sends posted in ERR"), "late sends");

	/* Back through RESET, the QP is usable again. */
	attr.qp_state = IBV_QPS_RESET;
	CHECK(!ibv_modify_qp(a.qp, &attr, IBV_QP_STATE), "modify to RESET: %s", strerror(errno));
	ep_destroy(&a);
	ep_destroy(&b);
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "new pair");
	CHECK(write_ok(&a, &b, 0x55), "WRITE after the flush");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

enum viol {
	V_WRITE_NO_RIGHT, V_READ_NO_RIGHT, V_WRITE_OUT_OF_BOUNDS, V_BAD_RKEY,
	V_BAD_LKEY, V_READ_INTO_RO,
};

static const char *const viol_name[] = {
	"WRITE to an MR without REMOTE_WRITE",
	"READ from an MR without REMOTE_READ",
	"WRITE past the end of the MR",
	"WRITE with an rkey that names no MR",
	"SEND with an lkey that names no MR",
	"READ into a local MR without LOCAL_WRITE",
};

static int one_violation(struct two *t, enum viol v)
{
	struct ep a = {}, b = {};
	struct mem ro = {}, lro = {};
	struct ibv_wc wc;
	enum ibv_wc_status want;
	bool remote = v <= V_BAD_RKEY;
	int rc = KSFT_PASS, err;
	uint64_t raddr;
	uint32_t rkey;

	/* Events of earlier violations name objects whose addresses the
	 * allocator may hand out again.
	 */
	t->d[0].nev = t->d[1].nev = 0;
	CHECK(!std_pair(t, &a, &b, &default_opts, &default_opts), "pair");
	/* The target on b: read-only for the remote side, pattern 0x5a. */
	CHECK(!mem_reg(&ro, &t->d[1], 8192, v == V_READ_NO_RIGHT ?
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ), "target MR");
	memset(ro.buf, 0x5a, ro.len);
	memset(b.m.buf, 0x5a, b.m.len);
	fill(a.m.buf, 8192, v);
	raddr = (uintptr_t)ro.buf;
	rkey = ro.mr->rkey;

	switch (v) {
	case V_WRITE_NO_RIGHT:
		err = post_rdma(&a, IBV_WR_RDMA_WRITE, 1, 0, a.m.mr->lkey, 256, raddr, rkey);
		break;
	case V_READ_NO_RIGHT:
		err = post_rdma(&a, IBV_WR_RDMA_READ, 1, 0, a.m.mr->lkey, 256, raddr, rkey);
		break;
	case V_WRITE_OUT_OF_BOUNDS:
		/* b's own buffer has REMOTE_WRITE; write 16 bytes over its end. */
		err = post_rdma(&a, IBV_WR_RDMA_WRITE, 1, 0, a.m.mr->lkey, 32,
				(uintptr_t)b.m.buf + b.m.len - 16, b.m.mr->rkey);
		break;
	case V_BAD_RKEY:
		err = post_rdma(&a, IBV_WR_RDMA_WRITE, 1, 0, a.m.mr->lkey, 32,
				(uintptr_t)b.m.buf, b.m.mr->rkey ^ 0x00abcd00);
		break;
	case V_BAD_LKEY:
		CHECK(!post_recv(&b, 9, 0, 4096), "recv");
		err = post_rdma(&a, IBV_WR_SEND, 1, 0, a.m.mr->lkey ^ 0x00abcd00, 64, 0, 0);
		break;
	default: /* V_READ_INTO_RO */
		/* Local read only: the READ response may not land in it. */
		CHECK(!mem_reg(&lro, &t->d[0], 4096, 0), "local MR");
		memset(lro.buf, 0x3c, lro.len);
		{
			struct ibv_sge sg = {
				.addr = (uintptr_t)lro.buf, .length = 64, .lkey = lro.mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = 1, .sg_list = &sg, .num_sge = 1,
				.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { .remote_addr = (uintptr_t)b.m.buf, .rkey = b.m.mr->rkey },
			};
			err = post_wr(a.qp, &wr);
		}
		break;
	}
	CHECK(!err, "post");
	want = remote ? IBV_WC_REM_ACCESS_ERR : IBV_WC_LOC_PROT_ERR;
	CHECK(expect_wc(a.scq, 1, want, &wc), "requester completion");
	CHECK(wc.qp_num == a.qp->qp_num, "qp_num 0x%x", wc.qp_num);
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms), "requester state %s",
	      qps_name(qp_state(a.qp)));
	/* Nothing was written on either side. */
	CHECK(first_not(ro.buf, ro.len, 0x5a) < 0, "target MR changed at %ld",
	      first_not(ro.buf, ro.len, 0x5a));
	CHECK(first_not(b.m.buf, b.m.len, 0x5a) < 0, "peer buffer changed at %ld",
	      first_not(b.m.buf, b.m.len, 0x5a));
	if (lro.buf)
		CHECK(first_not(lro.buf, lro.len, 0x3c) < 0, "read-only local MR changed at %ld",
		      first_not(lro.buf, lro.len, 0x3c));
	if (remote) {
		/* The responder reports the violation and goes to error too. */
		CHECK(async_wait(&t->d[1], IBV_EVENT_QP_ACCESS_ERR, b.qp, wait_ms),
		      "no IBV_EVENT_QP_ACCESS_ERR on the responder");
		CHECK(qp_wait_state(b.qp, IBV_QPS_ERR, wait_ms), "responder state %s",
		      qps_name(qp_state(b.qp)));
	} else if (v == V_BAD_LKEY) {
		/* The responder saw nothing: its receive is still posted. */
		CHECK(cq_quiet(b.rcq, 0), "responder completion");
		CHECK(qp_state(b.qp) == IBV_QPS_RTS, "responder state %s",
		      qps_name(qp_state(b.qp)));
	}
out:
	ep_destroy(&a);
	ep_destroy(&b);
	mem_free(&ro);
	mem_free(&lro);
	async_drain(&t->d[0], 0);
	async_drain(&t->d[1], 0);
	return rc;
}

static int case_mr_access(void)
{
	struct two t = {};
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "devices");
	for (int v = V_WRITE_NO_RIGHT; v <= V_READ_INTO_RO; v++) {
		int r = one_violation(&t, (enum viol)v);

		diag("%s: %s", viol_name[v], r == KSFT_PASS ? "ok" : "FAILED");
		if (r != KSFT_PASS)
			rc = KSFT_FAIL;
	}
out:
	two_close(&t);
	return rc;
}

/* Expects exactly one completion event, on cq with context tag. */
static bool expect_event(struct ibv_comp_channel *ch, struct ibv_cq *cq, void *tag, const char *what)
{
	void *ctx = NULL;
	struct ibv_cq *got = get_cq_event(ch, &ctx, wait_ms);

	if (got != cq || ctx != tag) {
		diag("%s: event on CQ %p context %p, expected CQ %p context %p", what,
		     (void *)got, ctx, (void *)cq, tag);
		/* Acknowledged here: the caller counts only expected events. */
		if (got)
			ibv_ack_cq_events(got, 1);
		return false;
	}
	return true;
}

static bool channel_quiet(struct ibv_comp_channel *ch, int ms, const char *what)
{
	void *ctx;
	struct ibv_cq *cq = get_cq_event(ch, &ctx, ms);

	if (cq) {
		diag("%s: unexpected event on CQ %p context %p", what, (void *)cq, ctx);
		ibv_ack_cq_events(cq, 1);
		return false;
	}
	return true;
}

static int case_comp_channel(void)
{
	struct two t = {};
	struct ep a1 = {}, a2 = {}, b1 = {}, b2 = {};
	struct ibv_comp_channel *ch = NULL;
	struct ibv_cq *cq_s = NULL, *cq_r = NULL, *cq_x = NULL;
	static int tag_s, tag_r, tag_x;
	unsigned int ev_r = 0, ev_s = 0, ev_x = 0;	/* events received */
	unsigned int ack_r = 0, ack_s = 0, ack_x = 0;	/* and acknowledged */
	struct ibv_wc wc[2];
	int rc = KSFT_PASS;

	CHECK(!two_open(&t), "devices");
	ch = ibv_create_comp_channel(t.d[0].ctx);
	CHECK(ch, "ibv_create_comp_channel: %s", strerror(errno));
	CHECK(!set_nonblock(ch->fd), "O_NONBLOCK");
	cq_s = cq_new(&t.d[0], QP_DEPTH, ch, &tag_s);
	cq_r = cq_new(&t.d[0], QP_DEPTH, ch, &tag_r);
	cq_x = cq_new(&t.d[0], QP_DEPTH, ch, &tag_x);
	CHECK(cq_s && cq_r && cq_x, "CQs");
	/* a1 sends on cq_s and receives on cq_r; a2 does both on cq_x. */
	CHECK(!ep_create(&a1, &t.d[0], cq_s, cq_r, MR_ALL, &default_opts), "a1");
	CHECK(!ep_create(&a2, &t.d[0], cq_x, cq_x, MR_ALL, &default_opts), "a2");
	CHECK(!ep_create(&b1, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "b1");
	CHECK(!ep_create(&b2, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "b2");
	CHECK(!pair_connect(&a1, &b1, &default_opts, &default_opts), "a1-b1");
	CHECK(!pair_connect(&a2, &b2, &default_opts, &default_opts), "a2-b2");
	CHECK(!ibv_req_notify_cq(cq_s, 0) && !ibv_req_notify_cq(cq_r, 0) &&
	      !ibv_req_notify_cq(cq_x, 0), "arm");

	/* A receive on a1: the event names cq_r. */
	CHECK(!post_recv(&a1, 1, 0, 4096) && !post_send(&b1, 2, 0, 32, IBV_SEND_SIGNALED), "post");
	CHECK(expect_event(ch, cq_r, &tag_r, "receive on a1"), "cq_r event");
	ev_r++;
	CHECK(expect_wc(cq_r, 1, IBV_WC_SUCCESS, wc) && wc[0].opcode == IBV_WC_RECV, "a1 receive");
	CHECK(expect_wc(b1.scq, 2, IBV_WC_SUCCESS, NULL), "b1 send");
	ibv_ack_cq_events(cq_r, 1);
	ack_r = 1;

	/* A send on a2: cq_x. */
	CHECK(!post_recv(&b2, 3, 0, 4096) && !post_send(&a2, 4, 0, 32, IBV_SEND_SIGNALED), "post");
	CHECK(expect_event(ch, cq_x, &tag_x, "send on a2"), "cq_x event");
	ev_x++;
	CHECK(expect_wc(cq_x, 4, IBV_WC_SUCCESS, wc) && wc[0].opcode == IBV_WC_SEND, "a2 send");
	CHECK(expect_wc(b2.rcq, 3, IBV_WC_SUCCESS, NULL), "b2 receive");

	/* A send on a1: cq_s. */
	CHECK(!post_recv(&b1, 5, 0, 4096) && !post_send(&a1, 6, 0, 32, IBV_SEND_SIGNALED), "post");
	CHECK(expect_event(ch, cq_s, &tag_s, "send on a1"), "cq_s event");
	ev_s++;
	CHECK(expect_wc(cq_s, 6, IBV_WC_SUCCESS, NULL), "a1 send");
	CHECK(expect_wc(b1.rcq, 5, IBV_WC_SUCCESS, NULL), "b1 receive");

	/* One event per arm: two receives on cq_r (re-armed) give one event. */
	CHECK(!ibv_req_notify_cq(cq_r, 0), "arm cq_r");
	CHECK(!post_recv(&a1, 7, 0, 4096) && !post_recv(&a1, 8, 4096, 4096), "recv");
	CHECK(!post_send(&b1, 9, 0, 32, IBV_SEND_SIGNALED) &&
	      !post_send(&b1, 10, 0, 32, IBV_SEND_SIGNALED), "send");
	CHECK(expect_event(ch, cq_r, &tag_r, "two receives on a1"), "cq_r event");
	ev_r++;
	CHECK(wait_wc(cq_r, wc, 2, wait_ms) == 2 && wc[0].wr_id == 7 && wc[1].wr_id == 8,
	      "a1 receives");
	CHECK(wait_wc(b1.scq, wc, 2, wait_ms) == 2, "b1 sends");
	CHECK(channel_quiet(ch, quiet_ms, "second receive without a re-arm"), "one event per arm");
	/* Re-armed with nothing new: no event until the next completion. */
	CHECK(!ibv_req_notify_cq(cq_r, 0), "arm cq_r");
	CHECK(channel_quiet(ch, quiet_ms, "re-armed empty CQ"), "re-arm");
	CHECK(!post_recv(&a1, 11, 0, 4096) && !post_send(&b1, 12, 0, 32, IBV_SEND_SIGNALED), "post");
	CHECK(expect_event(ch, cq_r, &tag_r, "third receive"), "cq_r event");
	ev_r++;
	CHECK(expect_wc(cq_r, 11, IBV_WC_SUCCESS, NULL), "a1 receive");
	CHECK(expect_wc(b1.scq, 12, IBV_WC_SUCCESS, NULL), "b1 send");
	/* Unarmed cq_x and cq_s stay quiet. */
	CHECK(!post_recv(&b2, 13, 0, 4096) && !post_send(&a2, 14, 0, 32, IBV_SEND_SIGNALED), "post");
	CHECK(expect_wc(cq_x, 14, IBV_WC_SUCCESS, NULL), "a2 send");
	CHECK(channel_quiet(ch, quiet_ms, "unarmed cq_x"), "unarmed");

	/* Acknowledgements are counted per CQ, in batches. */
	ibv_ack_cq_events(cq_r, ev_r - ack_r);
	ibv_ack_cq_events(cq_s, ev_s);
	ibv_ack_cq_events(cq_x, ev_x);
	ack_r = ev_r;
	ack_s = ev_s;
	ack_x = ev_x;
	CHECK(cq_r->comp_events_completed == ev_r && cq_s->comp_events_completed == ev_s &&
	      cq_x->comp_events_completed == ev_x,
	      "acknowledged r %u/%u s %u/%u x %u/%u", cq_r->comp_events_completed, ev_r,
	      cq_s->comp_events_completed, ev_s, cq_x->comp_events_completed, ev_x);
out:
	/* Unacknowledged events would make ibv_destroy_cq wait for ever. */
	if (ev_r > ack_r)
		ibv_ack_cq_events(cq_r, ev_r - ack_r);
	if (ev_s > ack_s)
		ibv_ack_cq_events(cq_s, ev_s - ack_s);
	if (ev_x > ack_x)
		ibv_ack_cq_events(cq_x, ev_x - ack_x);
	ep_destroy(&a1);
	ep_destroy(&a2);
	ep_destroy(&b1);
	ep_destroy(&b2);
	cq_free(&cq_s);
	cq_free(&cq_r);
	cq_free(&cq_x);
	if (ch && ibv_destroy_comp_channel(ch))
		diag("ibv_destroy_comp_channel: %s", strerror(errno));
	two_close(&t);
	return rc;
}

static int case_solicited(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_comp_channel *ch = NULL;
	struct ibv_cq *scq = NULL, *rcq = NULL;
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	static int tag;
	unsigned int events = 0;
	struct ibv_wc wc;
	int rc = KSFT_PASS, i;

	CHECK(!two_open(&t), "devices");
	ch = ibv_create_comp_channel(t.d[0].ctx);
	CHECK(ch, "ibv_create_comp_channel: %s", strerror(errno));
	CHECK(!set_nonblock(ch->fd), "O_NONBLOCK");
	scq = cq_new(&t.d[0], QP_DEPTH, NULL, NULL);
	rcq = cq_new(&t.d[0], QP_DEPTH, ch, &tag);
	CHECK(scq && rcq, "CQs");
	CHECK(!ep_create(&a, &t.d[0], scq, rcq, MR_ALL, &default_opts), "a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "b");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");
	for (i = 0; i < 4; i++)
		CHECK(!post_recv(&a, 0x10 + i, 4096 * i, 4096), "recv");

	/* Armed for solicited completions only: an unsolicited SEND arrives
	 * (its CQE is there) and the channel stays quiet.
	 */
	CHECK(!ibv_req_notify_cq(rcq, 1), "arm solicited");
	CHECK(!post_send(&b, 1, 0, 16, IBV_SEND_SIGNALED), "unsolicited send");
	CHECK(expect_wc(rcq, 0x10, IBV_WC_SUCCESS, NULL), "unsolicited receive");
	CHECK(expect_wc(b.scq, 1, IBV_WC_SUCCESS, NULL), "b send");
	CHECK(channel_quiet(ch, quiet_ms, "unsolicited SEND, solicited-only arm"), "unsolicited");

	/* The solicited one wakes it. */
	CHECK(!post_send(&b, 2, 0, 16, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED), "solicited send");
	CHECK(expect_event(ch, rcq, &tag, "solicited SEND"), "solicited event");
	events++;
	CHECK(expect_wc(rcq, 0x11, IBV_WC_SUCCESS, NULL), "solicited receive");
	CHECK(expect_wc(b.scq, 2, IBV_WC_SUCCESS, NULL), "b send");

	/* Control: armed for any completion, an unsolicited SEND wakes it. */
	CHECK(!ibv_req_notify_cq(rcq, 0), "arm");
	CHECK(!post_send(&b, 3, 0, 16, IBV_SEND_SIGNALED), "unsolicited send");
	CHECK(expect_event(ch, rcq, &tag, "unsolicited SEND, normal arm"), "event");
	events++;
	CHECK(expect_wc(rcq, 0x12, IBV_WC_SUCCESS, NULL), "receive");
	CHECK(expect_wc(b.scq, 3, IBV_WC_SUCCESS, NULL), "b send");

	/* An error completion counts as solicited: the flush of the last
	 * receive wakes a solicited-only arm.
	 */
	CHECK(!ibv_req_notify_cq(rcq, 1), "arm solicited");
	CHECK(channel_quiet(ch, quiet_ms, "armed, nothing arrived"), "quiet");
	CHECK(!ibv_modify_qp(a.qp, &attr, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	CHECK(expect_event(ch, rcq, &tag, "flush completion, solicited-only arm"), "error event");
	events++;
	CHECK(expect_wc(rcq, 0x13, IBV_WC_WR_FLUSH_ERR, &wc), "flushed receive");
	ibv_ack_cq_events(rcq, events);
	events = 0;
out:
	if (events)
		ibv_ack_cq_events(rcq, events);
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&scq);
	cq_free(&rcq);
	if (ch && ibv_destroy_comp_channel(ch))
		diag("ibv_destroy_comp_channel: %s", strerror(errno));
	two_close(&t);
	return rc;
}

/* WRITE or READ of len bytes between a (offset lo) and b (offset ro). */
static bool rdma_check(struct ep *a, struct ep *b, enum ibv_wr_opcode op, size_t lo, size_t ro,
		       uint32_t len, uint64_t wr_id)
{
	struct ep *src = op == IBV_WR_RDMA_WRITE ? a : b, *dst = op == IBV_WR_RDMA_WRITE ? b : a;
	size_t so = op == IBV_WR_RDMA_WRITE ? lo : ro, doff = op == IBV_WR_RDMA_WRITE ? ro : lo;
	struct ibv_wc wc;
	long d;

	memset(dst->m.buf, 0xee, dst->m.len);
	fill(src->m.buf + so, len, (uint32_t)wr_id);
	if (post_rdma(a, op, wr_id, lo, a->m.mr->lkey, len, (uintptr_t)b->m.buf + ro, b->m.mr->rkey))
		return false;
	if (!expect_wc(a->scq, wr_id, IBV_WC_SUCCESS, &wc))
		return false;
	if (wc.opcode != (op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ)) {
		diag("completion opcode %d", wc.opcode);
		return false;
	}
	d = first_diff(src->m.buf + so, dst->m.buf + doff, len);
	if (d >= 0) {
		diag("%s %u bytes: byte %ld is 0x%02x, sent 0x%02x",
		     op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ", len, d,
		     dst->m.buf[doff + d], src->m.buf[so + d]);
		return false;
	}
	d = first_not(dst->m.buf, doff, 0xee);
	if (d < 0)
		d = first_not(dst->m.buf + doff + len, dst->m.len - doff - len, 0xee);
	if (d >= 0) {
		diag("%u bytes at %zu: a byte outside the target changed", len, doff);
		return false;
	}
	return true;
}

/* One atomic on b's 8 bytes at off; returns the fetched value in *old. */
static bool atomic_op(struct ep *a, struct ep *b, enum ibv_wr_opcode op, size_t off,
		      uint64_t cmp_add, uint64_t swap, uint64_t wr_id, uint64_t *old)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)a->m.buf + 0x1000, .length = 8, .lkey = a->m.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sg, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = {
			.remote_addr = (uintptr_t)b->m.buf + off, .rkey = b->m.mr->rkey,
			.compare_add = cmp_add, .swap = swap,
		},
	};
	struct ibv_wc wc;

	memset(a->m.buf + 0x1000, 0xee, 8);
	if (post_wr(a->qp, &wr) || !expect_wc(a->scq, wr_id, IBV_WC_SUCCESS, &wc))
		return false;
	if (wc.opcode != (op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD)) {
		diag("atomic completion opcode %d", wc.opcode);
		return false;
	}
	memcpy(old, a->m.buf + 0x1000, 8);
	return true;
}

static int case_data(void)
{
	static const struct { uint32_t len; size_t lo, ro; } xfer[] = {
		{ 1, 0, 0 }, { 63, 3, 5 }, { 4096, 0, 4096 }, { 4113, 17, 1 },
		{ 65539, 4095, 8191 }, { 131072, 0, 65536 },
	};
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	uint64_t v, old;
	unsigned int i;

	CHECK(!two_open(&t), "devices");
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "pair");
	diag("path MTU %d, max_qp_rd_atom %d, atomic_cap %d", 128 << a.d->port.active_mtu,
	     a.d->attr.max_qp_rd_atom, a.d->attr.atomic_cap);

	for (i = 0; i < sizeof(xfer) / sizeof(xfer[0]); i++) {
		CHECK(rdma_check(&a, &b, IBV_WR_RDMA_WRITE, xfer[i].lo, xfer[i].ro, xfer[i].len,
				 0x100 + i), "RDMA WRITE of %u bytes", xfer[i].len);
		CHECK(rdma_check(&a, &b, IBV_WR_RDMA_READ, xfer[i].lo, xfer[i].ro, xfer[i].len,
				 0x200 + i), "RDMA READ of %u bytes", xfer[i].len);
	}

	/* WRITE with immediate: data in place, the immediate and the length
	 * in b's receive completion.
	 */
	{
		struct ibv_sge sg = {
			.addr = (uintptr_t)a.m.buf, .length = 5000, .lkey = a.m.mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 0x300, .sg_list = &sg, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(0x12345678),
			.wr.rdma = { .remote_addr = (uintptr_t)b.m.buf + 100, .rkey = b.m.mr->rkey },
		};

		memset(b.m.buf, 0xee, b.m.len);
		fill(a.m.buf, 5000, 0x300);
		CHECK(!post_recv(&b, 0x301, 200000, 16), "recv");
		CHECK(!post_wr(a.qp, &wr), "WRITE_WITH_IMM");
		CHECK(expect_wc(a.scq, 0x300, IBV_WC_SUCCESS, NULL), "WRITE_WITH_IMM");
		CHECK(expect_wc(b.rcq, 0x301, IBV_WC_SUCCESS, &wc), "receive of WRITE_WITH_IMM");
		CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		      ntohl(wc.imm_data) == 0x12345678 && wc.byte_len == 5000,
		      "opcode %d flags 0x%x imm 0x%x byte_len %u", wc.opcode, wc.wc_flags,
		      ntohl(wc.imm_data), wc.byte_len);
		CHECK(first_diff(a.m.buf, b.m.buf + 100, 5000) < 0 &&
		      first_not(b.m.buf, 100, 0xee) < 0 &&
		      first_not(b.m.buf + 5100, b.m.len - 5100, 0xee) < 0,
		      "WRITE_WITH_IMM data");
	}

	/* SEND gathered from 3 pieces, scattered into 2. */
	{
		struct ibv_sge gs[3] = {
			{ (uintptr_t)a.m.buf + 10, 1000, a.m.mr->lkey },
			{ (uintptr_t)a.m.buf + 20000, 3000, a.m.mr->lkey },
			{ (uintptr_t)a.m.buf + 40001, 777, a.m.mr->lkey },
		};
		struct ibv_sge ss[2] = {
			{ (uintptr_t)b.m.buf + 1, 2500, b.m.mr->lkey },
			{ (uintptr_t)b.m.buf + 100000, 8000, b.m.mr->lkey },
		};
		struct ibv_send_wr wr = {
			.wr_id = 0x400, .sg_list = gs, .num_sge = 3,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		uint8_t want[4777], got[4777];

		fill(a.m.buf, 65536, 0x400);
		memset(b.m.buf, 0xee, b.m.len);
		memcpy(want, a.m.buf + 10, 1000);
		memcpy(want + 1000, a.m.buf + 20000, 3000);
		memcpy(want + 4000, a.m.buf + 40001, 777);
		CHECK(!post_recv_sge(b.qp, 0x401, ss, 2), "recv");
		CHECK(!post_wr(a.qp, &wr), "SEND");
		CHECK(expect_wc(a.scq, 0x400, IBV_WC_SUCCESS, NULL), "SEND");
		CHECK(expect_wc(b.rcq, 0x401, IBV_WC_SUCCESS, &wc), "receive");
		CHECK(wc.opcode == IBV_WC_RECV && wc.byte_len == sizeof(want),
		      "opcode %d byte_len %u", wc.opcode, wc.byte_len);
		memcpy(got, b.m.buf + 1, 2500);
		memcpy(got + 2500, b.m.buf + 100000, sizeof(got) - 2500);
		CHECK(first_diff(want, got, sizeof(want)) < 0, "SEND data differ at %ld",
		      first_diff(want, got, sizeof(want)));
		CHECK(first_not(b.m.buf + 100000 + sizeof(got) - 2500, 100, 0xee) < 0 &&
		      first_not(b.m.buf + 2501, 100, 0xee) < 0, "SEND wrote past its length");
	}

	/* Inline SEND and WRITE: the data is copied at post time, so the
	 * buffer may change right after ibv_post_send returns.
	 */
	if (a.cap.max_inline_data) {
		uint32_t n = a.cap.max_inline_data;
		uint8_t want[1024];
		struct ibv_sge sg = { (uintptr_t)a.m.buf, n, 0 };
		struct ibv_send_wr wr = {
			.wr_id = 0x450, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		};

		CHECK(n <= sizeof(want), "max_inline_data %u", n);
		diag("inline: max_inline_data %u", n);
		fill(a.m.buf, n, 0x450);
		memcpy(want, a.m.buf, n);
		memset(b.m.buf, 0xee, b.m.len);
		CHECK(!post_recv(&b, 0x451, 0, 4096), "recv");
		CHECK(!post_wr(a.qp, &wr), "inline SEND");
		memset(a.m.buf, 0, n);
		CHECK(expect_wc(a.scq, 0x450, IBV_WC_SUCCESS, NULL), "inline SEND");
		CHECK(expect_wc(b.rcq, 0x451, IBV_WC_SUCCESS, &wc), "inline receive");
		CHECK(wc.byte_len == n && first_diff(want, b.m.buf, n) < 0 &&
		      first_not(b.m.buf + n, 64, 0xee) < 0,
		      "inline SEND: byte_len %u, data differ at %ld", wc.byte_len,
		      first_diff(want, b.m.buf, n));

		fill(a.m.buf, n, 0x452);
		memcpy(want, a.m.buf, n);
		wr.wr_id = 0x452;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)b.m.buf + 8192 + 3;
		wr.wr.rdma.rkey = b.m.mr->rkey;
		CHECK(!post_wr(a.qp, &wr), "inline WRITE");
		memset(a.m.buf, 0, n);
		CHECK(expect_wc(a.scq, 0x452, IBV_WC_SUCCESS, NULL), "inline WRITE");
		CHECK(first_diff(want, b.m.buf + 8192 + 3, n) < 0 &&
		      first_not(b.m.buf + 8192, 3, 0xee) < 0 &&
		      first_not(b.m.buf + 8192 + 3 + n, 64, 0xee) < 0,
		      "inline WRITE data differ at %ld", first_diff(want, b.m.buf + 8192 + 3, n));
	} else {
		diag("inline: max_inline_data 0, not checked");
	}

	if (a.d->attr.atomic_cap == IBV_ATOMIC_NONE) {
		diag("atomics not supported (atomic_cap NONE): not checked");
		goto out;
	}
	/* Atomics on b's 8 bytes at 0x2008, in host byte order. */
	v = 0x1122334455667788ULL;
	memset(b.m.buf + 0x2000, 0xee, 32);
	memcpy(b.m.buf + 0x2008, &v, 8);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_CMP_AND_SWP, 0x2008, v, 0xa5a5a5a55a5a5a5aULL, 0x500,
			&old), "CAS");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0x1122334455667788ULL && v == 0xa5a5a5a55a5a5a5aULL,
	      "CAS (equal): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_CMP_AND_SWP, 0x2008, 0x1122334455667788ULL, 1, 0x501,
			&old), "CAS");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0xa5a5a5a55a5a5a5aULL && v == 0xa5a5a5a55a5a5a5aULL,
	      "CAS (not equal): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	v = 0x00000000ffffffffULL;
	memcpy(b.m.buf + 0x2008, &v, 8);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_FETCH_AND_ADD, 0x2008, 0x100000001ULL, 0, 0x502, &old),
	      "FETCH_ADD");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0xffffffffULL && v == 0x200000000ULL,
	      "FETCH_ADD (carry): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_FETCH_AND_ADD, 0x2008, (uint64_t)-1, 0, 0x503, &old),
	      "FETCH_ADD");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0x200000000ULL && v == 0x1ffffffffULL,
	      "FETCH_ADD (-1): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	CHECK(first_not(b.m.buf + 0x2000, 8, 0xee) < 0 && first_not(b.m.buf + 0x2010, 16, 0xee) < 0,
	      "an atomic touched the neighbouring bytes");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

static int query_all(struct ibv_qp *qp, struct ibv_qp_attr *a, struct ibv_qp_init_attr *ia)
{
	int err;

	memset(a, 0xa5, sizeof(*a));
	memset(ia, 0xa5, sizeof(*ia));
	err = ibv_query_qp(qp, a, IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_CAP,
			   ia);
	if (err)
		diag("ibv_query_qp 0x%x: %s", qp->qp_num, strerror(err));
	return err;
}

/* EXPECT_EQ-like check of one queried attribute. */
#define ATTR(what, got, want) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (g_ != w_) {							\
		diag("%s: %s is %lld, expected %lld", stage, what, g_, w_);	\
		bad++;							\
	}								\
} while (0)

static int case_query_qp(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct conn_opts o = default_opts;
	struct ibv_qp_attr q;
	struct ibv_qp_init_attr qi;
	const char *stage;
	int rc = KSFT_PASS, bad = 0;
	enum ibv_mtu mtu;

	CHECK(!two_open(&t), "devices");
	/* Values different from the defaults, within every device limit. */
	o.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	o.timeout = 17;
	o.retry_cnt = 5;
	o.rnr_retry = 3;
	o.min_rnr_timer = 9;
	o.rd_atomic = 2;
	CHECK(t.d[0].attr.max_qp_rd_atom >= 2 && t.d[0].attr.max_qp_init_rd_atom >= 2,
	      "rd_atom limits %d/%d", t.d[0].attr.max_qp_rd_atom, t.d[0].attr.max_qp_init_rd_atom);
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &o), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "QP b");

	stage = "INIT";
	CHECK(!query_all(a.qp, &q, &qi), "query");
	ATTR("qp_state", q.qp_state, IBV_QPS_INIT);
	/* No responder resources yet (max_dest_rd_atomic 0): the QP serves
	 * remote writes only, as the in-tree driver reports it.
	 */
	ATTR("qp_access_flags", q.qp_access_flags, o.access & IBV_ACCESS_REMOTE_WRITE);
	ATTR("pkey_index", q.pkey_index, 0);
	ATTR("port_num", q.port_num, port_num);

	CHECK(!ep_connect(&a, &b, &o) && !ep_connect(&b, &a, &default_opts), "connect");
	mtu = mtu_min(t.d[0].port.active_mtu, t.d[1].port.active_mtu);
	stage = "RTS";
	CHECK(!query_all(a.qp, &q, &qi), "query");
	ATTR("qp_state", q.qp_state, IBV_QPS_RTS);
	ATTR("cur_qp_state", q.cur_qp_state, IBV_QPS_RTS);
	ATTR("qp_access_flags", q.qp_access_flags, o.access);
	ATTR("pkey_index", q.pkey_index, 0);
	ATTR("port_num", q.port_num, port_num);
	ATTR("path_mtu", q.path_mtu, mtu);
	ATTR("dest_qp_num", q.dest_qp_num, b.qp->qp_num);
	ATTR("rq_psn", q.rq_psn, 0x1000 + (b.qp->qp_num & 0xff));
	ATTR("sq_psn", q.sq_psn, 0x1000 + (a.qp->qp_num & 0xff));
	ATTR("max_dest_rd_atomic", q.max_dest_rd_atomic, 2);
	ATTR("max_rd_atomic", q.max_rd_atomic, 2);
	ATTR("min_rnr_timer", q.min_rnr_timer, 9);
	ATTR("timeout", q.timeout, 17);
	ATTR("retry_cnt", q.retry_cnt, 5);
	ATTR("rnr_retry", q.rnr_retry, 3);
	ATTR("ah_attr.dlid", q.ah_attr.dlid, t.d[1].port.lid);
	ATTR("ah_attr.sl", q.ah_attr.sl, 0);
	ATTR("ah_attr.port_num", q.ah_attr.port_num, port_num);
	ATTR("ah_attr.is_global", q.ah_attr.is_global, t.d[0].grh);
	ATTR("ah_attr.src_path_bits", q.ah_attr.src_path_bits, 0);
	ATTR("ah_attr.static_rate", q.ah_attr.static_rate, 0);
	ATTR("sq_draining", q.sq_draining, 0);
	ATTR("init qp_type", qi.qp_type, IBV_QPT_RC);
	ATTR("init sq_sig_all", qi.sq_sig_all, 0);
	ATTR("cap.max_send_wr", q.cap.max_send_wr, a.cap.max_send_wr);
	ATTR("cap.max_recv_wr", q.cap.max_recv_wr, a.cap.max_recv_wr);
	ATTR("cap.max_send_sge", q.cap.max_send_sge, a.cap.max_send_sge);
	ATTR("cap.max_recv_sge", q.cap.max_recv_sge, a.cap.max_recv_sge);
	ATTR("cap.max_inline_data", q.cap.max_inline_data, a.cap.max_inline_data);
	ATTR("init cap.max_send_wr", qi.cap.max_send_wr, a.cap.max_send_wr);
	ATTR("init cap.max_recv_wr", qi.cap.max_recv_wr, a.cap.max_recv_wr);
	diag("granted: send_wr %u recv_wr %u send_sge %u recv_sge %u inline %u",
	     a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	     a.cap.max_inline_data);
	CHECK(a.cap.max_send_wr >= QP_DEPTH && a.cap.max_recv_wr >= QP_DEPTH &&
	      a.cap.max_send_sge >= 4 && a.cap.max_recv_sge >= 4 && a.cap.max_inline_data >= 64,
	      "granted less than asked");

	/* The connection works with these attributes. */
	CHECK(write_ok(&a, &b, 0x66), "WRITE");

	{
		struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };

		CHECK(!ibv_modify_qp(a.qp, &e, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	}
	stage = "ERR";
	CHECK(!query_all(a.qp, &q, &qi), "query");
	ATTR("qp_state", q.qp_state, IBV_QPS_ERR);
	ATTR("cur_qp_state", q.cur_qp_state, IBV_QPS_ERR);
	CHECK(!bad, "%d attributes differ", bad);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

static int case_srq(void)
{
	struct two t = {};
	struct ep a = {}, b = {}, a2 = {}, b2 = {};
	struct ibv_srq *srq = NULL;
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct conn_opts ob = default_opts;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[8];
	int rc = KSFT_PASS, i;
	const int posted = 8, sent = 5;

	CHECK(!two_open(&t), "devices");
	srq = ibv_create_srq(t.d[1].pd, &si);
	CHECK(srq, "ibv_create_srq: %s", strerror(errno));
	ob.srq = srq;
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &ob), "b on the SRQ");
	CHECK(!pair_connect(&a, &b, &default_opts, &ob), "connect");
	for (i = 0; i < posted; i++) {
		struct ibv_sge sg = {
			(uintptr_t)b.m.buf + 4096 * i, 4096, b.m.mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = 0x100 + i, .sg_list = &sg, .num_sge = 1 }, *bad;

		CHECK(!ibv_post_srq_recv(srq, &wr, &bad), "ibv_post_srq_recv %d", i);
	}
	/* Limit 4: the event comes when fewer than 4 WQEs are left. */
	sa.srq_limit = 4;
	CHECK(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "ibv_modify_srq: %s", strerror(errno));
	CHECK(!ibv_query_srq(srq, &sa), "ibv_query_srq: %s", strerror(errno));
	CHECK(sa.srq_limit == 4, "srq_limit %u after arming", sa.srq_limit);
	CHECK(sa.max_wr >= 16 && sa.max_sge >= 1, "max_wr %u max_sge %u", sa.max_wr, sa.max_sge);

	for (i = 0; i < sent; i++) {
		fill(a.m.buf + 1000 * i, 1000, 0x200 + i);
		CHECK(!post_send(&a, 0x200 + i, 1000 * i, 1000, IBV_SEND_SIGNALED), "send %d", i);
	}
	CHECK(wait_wc(a.scq, wc, sent, wait_ms) == sent, "sends");
	for (i = 0; i < sent; i++)
		CHECK(wc[i].status == IBV_WC_SUCCESS, "send %d: %s", i, wc_status(wc[i].status));
	CHECK(wait_wc(b.rcq, wc, sent, wait_ms) == sent, "SRQ receives");
	for (i = 0; i < sent; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == 0x100u + i &&
		      wc[i].byte_len == 1000 && wc[i].qp_num == b.qp->qp_num,
		      "receive %d: wr_id 0x%llx %s len %u qp 0x%x", i,
		      (unsigned long long)wc[i].wr_id, wc_status(wc[i].status), wc[i].byte_len,
		      wc[i].qp_num);
		CHECK(first_diff(a.m.buf + 1000 * i, b.m.buf + 4096 * i, 1000) < 0, "data %d", i);
	}
	CHECK(async_wait(&t.d[1], IBV_EVENT_SRQ_LIMIT_REACHED, srq, wait_ms),
	      "no IBV_EVENT_SRQ_LIMIT_REACHED");
	/* The limit fired once and is disarmed. */
	CHECK(!ibv_query_srq(srq, &sa), "ibv_query_srq: %s", strerror(errno));
	CHECK(sa.srq_limit == 0, "srq_limit %u after the event", sa.srq_limit);

	/* b to ERR: the last-WQE event; the SRQ keeps its 3 WQEs. */
	CHECK(!ibv_modify_qp(b.qp, &err, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	CHECK(async_wait(&t.d[1], IBV_EVENT_QP_LAST_WQE_REACHED, b.qp, wait_ms),
	      "no IBV_EVENT_QP_LAST_WQE_REACHED");
	CHECK(cq_quiet(b.rcq, quiet_ms), "SRQ WQEs flushed by a QP in error");

	/* Another QP on the same SRQ consumes the remaining WQEs. */
	ob.srq = srq;
	CHECK(!ep_create(&a2, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "a2");
	CHECK(!ep_create(&b2, &t.d[1], NULL, NULL, MR_ALL, &ob), "b2 on the SRQ");
	CHECK(!pair_connect(&a2, &b2, &default_opts, &ob), "connect");
	fill(a2.m.buf, 777, 0x300);
	CHECK(!post_send(&a2, 0x300, 0, 777, IBV_SEND_SIGNALED), "send");
	CHECK(expect_wc(a2.scq, 0x300, IBV_WC_SUCCESS, NULL), "send on b2");
	CHECK(expect_wc(b2.rcq, 0x100 + sent, IBV_WC_SUCCESS, wc), "next SRQ WQE");
	CHECK(wc[0].byte_len == 777 && first_diff(a2.m.buf, b.m.buf + 4096 * sent, 777) < 0,
	      "data on b2: len %u", wc[0].byte_len);
out:
	ep_destroy(&a2);
	ep_destroy(&b2);
	ep_destroy(&a);
	ep_destroy(&b);
	if (t.d[1].ctx)
		async_drain(&t.d[1], 0);
	if (srq && ibv_destroy_srq(srq))
		diag("ibv_destroy_srq: %s", strerror(errno));
	two_close(&t);
	return rc;
}

#define UD_QKEY 0x11111111
#define GRH_LEN 40

static struct ibv_qp *ud_qp(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = port_num, .qkey = UD_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	if (!qp) {
		diag("ibv_create_qp(UD): %s", strerror(errno));
		return NULL;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		goto fail;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto fail;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x123;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto fail;
	return qp;
fail:
	diag("UD QP 0x%x to state %d: %s", qp->qp_num, a.qp_state, strerror(errno));
	ibv_destroy_qp(qp);
	return NULL;
}

static int case_ud(void)
{
	struct two t = {};
	struct ibv_cq *ca = NULL, *cb = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_ah *ah = NULL;
	struct mem ma = {}, mb = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	uint32_t mtu, lens[4];

	CHECK(!two_open(&t), "devices");
	ca = cq_new(&t.d[0], 32, NULL, NULL);
	cb = cq_new(&t.d[1], 32, NULL, NULL);
	CHECK(ca && cb, "CQs");
	qa = ud_qp(&t.d[0], ca);
	qb = ud_qp(&t.d[1], cb);
	CHECK(qa && qb, "UD QPs");
	CHECK(!mem_reg(&ma, &t.d[0], 65536, IBV_ACCESS_LOCAL_WRITE) &&
	      !mem_reg(&mb, &t.d[1], 65536, IBV_ACCESS_LOCAL_WRITE), "MRs");
	{
		struct ibv_ah_attr aa = {
			.dlid = t.d[1].port.lid, .sl = 0, .port_num = port_num,
		};

		if (t.d[0].grh) {
			aa.is_global = 1;
			aa.grh.dgid = t.d[1].gid;
			aa.grh.sgid_index = gid_index;
			aa.grh.hop_limit = 1;
		}
		ah = ibv_create_ah(t.d[0].pd, &aa);
		CHECK(ah, "ibv_create_ah: %s", strerror(errno));
	}
	mtu = 128u << mtu_min(t.d[0].port.active_mtu, t.d[1].port.active_mtu);
	lens[0] = 1;
	lens[1] = 100;
	lens[2] = mtu - 1;
	lens[3] = mtu;
	for (unsigned int i = 0; i < 4; i++) {
		uint32_t n = lens[i];
		struct ibv_sge sg = { (uintptr_t)ma.buf, n, ma.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x10 + i, .sg_list = &sg, .num_sge = 1,
			.opcode = i == 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0xabc000 + i),
			.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num, .remote_qkey = UD_QKEY },
		};
		struct ibv_sge rs = { (uintptr_t)mb.buf, n + GRH_LEN, mb.mr->lkey };

		memset(mb.buf, 0xee, mb.len);
		fill(ma.buf, n, 0x10 + i);
		CHECK(!post_recv_sge(qb, 0x20 + i, &rs, 1), "recv");
		CHECK(!post_wr(qa, &wr), "UD send of %u bytes", n);
		CHECK(expect_wc(ca, 0x10 + i, IBV_WC_SUCCESS, NULL), "UD send of %u bytes", n);
		CHECK(expect_wc(cb, 0x20 + i, IBV_WC_SUCCESS, &wc), "UD receive of %u bytes", n);
		CHECK(wc.byte_len == n + GRH_LEN && wc.src_qp == qa->qp_num &&
		      wc.qp_num == qb->qp_num && (t.d[0].grh || wc.slid == t.d[0].port.lid) &&
		      wc.opcode == IBV_WC_RECV,
		      "%u bytes: byte_len %u src_qp 0x%x qp 0x%x slid %u opcode %d",
		      n, wc.byte_len, wc.src_qp, wc.qp_num, wc.slid, wc.opcode);
		CHECK(!!(wc.wc_flags & IBV_WC_WITH_IMM) == (i == 1) &&
		      (i != 1 || ntohl(wc.imm_data) == 0xabc000 + i),
		      "immediate: flags 0x%x imm 0x%x", wc.wc_flags, ntohl(wc.imm_data));
		CHECK(!!(wc.wc_flags & IBV_WC_GRH) == t.d[0].grh, "GRH flag 0x%x", wc.wc_flags);
		CHECK(first_diff(ma.buf, mb.buf + GRH_LEN, n) < 0 &&
		      first_not(mb.buf + GRH_LEN + n, 64, 0xee) < 0,
		      "%u bytes: data differ at %ld", n, first_diff(ma.buf, mb.buf + GRH_LEN, n));
	}

	/* A wrong Q_Key: the send completes, the datagram is dropped. */
	{
		struct ibv_sge sg = { (uintptr_t)ma.buf, 16, ma.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x30, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num, .remote_qkey = UD_QKEY + 1 },
		};
		struct ibv_sge rs = { (uintptr_t)mb.buf, 4096, mb.mr->lkey };

		CHECK(!post_recv_sge(qb, 0x31, &rs, 1), "recv");
		CHECK(!post_wr(qa, &wr), "send");
		CHECK(expect_wc(ca, 0x30, IBV_WC_SUCCESS, NULL), "send with a wrong Q_Key");
		CHECK(cq_quiet(cb, quiet_ms), "a datagram with a wrong Q_Key was received");
	}
out:
	if (ah && ibv_destroy_ah(ah))
		diag("ibv_destroy_ah: %s", strerror(errno));
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	mem_free(&ma);
	mem_free(&mb);
	cq_free(&ca);
	cq_free(&cb);
	two_close(&t);
	return rc;
}

static int case_errors(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct conn_opts oa = default_opts;
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	long long t0;

	CHECK(!two_open(&t), "devices");

	/* A SEND longer than the receive buffer: the responder completes the
	 * receive with a local length error and NAKs; the requester sees a
	 * remote invalid request; the next receive is flushed.
	 */
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "pair");
	CHECK(!post_recv(&b, 1, 0, 100) && !post_recv(&b, 2, 4096, 4096), "recv");
	CHECK(!post_send(&a, 3, 0, 200, IBV_SEND_SIGNALED), "send");
	CHECK(expect_wc(a.scq, 3, IBV_WC_REM_INV_REQ_ERR, NULL), "requester");
	CHECK(expect_wc(b.rcq, 1, IBV_WC_LOC_LEN_ERR, &wc), "responder");
	CHECK(wc.qp_num == b.qp->qp_num, "qp_num 0x%x", wc.qp_num);
	CHECK(expect_wc(b.rcq, 2, IBV_WC_WR_FLUSH_ERR, NULL), "second receive");
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms) && qp_wait_state(b.qp, IBV_QPS_ERR, wait_ms),
	      "states %s / %s", qps_name(qp_state(a.qp)), qps_name(qp_state(b.qp)));
	ep_destroy(&a);
	ep_destroy(&b);

	/* Nobody answers (the peer QP number does not exist): after the ACK
	 * timeout and retry_cnt retries, RETRY_EXC.
	 */
	oa.timeout = 8;		/* about 1 ms */
	oa.retry_cnt = 2;
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &oa), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "QP b");
	oa.dest_qpn = b.qp->qp_num ^ 0x800000;
	CHECK(!ep_connect(&a, &b, &oa), "connect a");
	t0 = now_ms();
	CHECK(!post_rdma(&a, IBV_WR_RDMA_WRITE, 4, 0, a.m.mr->lkey, 64, (uintptr_t)b.m.buf,
			 b.m.mr->rkey), "write");
	CHECK(!post_send(&a, 5, 0, 64, IBV_SEND_SIGNALED), "send");
	CHECK(expect_wc(a.scq, 4, IBV_WC_RETRY_EXC_ERR, NULL), "WRITE to nobody");
	diag("RETRY_EXC after %lld ms", now_ms() - t0);
	CHECK(expect_wc(a.scq, 5, IBV_WC_WR_FLUSH_ERR, NULL), "SEND behind it");
	CHECK(qp_wait_state(a.qp, IBV_QPS_ERR, wait_ms), "state %s", qps_name(qp_state(a.qp)));
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

/*
 * Creation must fail (must = true) or may fail: prints the outcome and
 * errno so the drivers can be compared; frees what was created anyway.
 */
static void limit_check(const char *what, void *obj, int err, bool must, int *bad,
			int (*destroy)(void *))
{
	if (!obj) {
		diag("%s: refused, errno %d (%s)", what, err, strerror(err));
		return;
	}
	diag("%s: accepted%s", what, must ? "" : " (allowed: the advertised limit is the smallest one)");
	if (must)
		(*bad)++;
	if (destroy(obj))
		diag("%s: destroy failed", what);
}

static int destroy_cq_v(void *p) { return ibv_destroy_cq(p); }
static int destroy_qp_v(void *p) { return ibv_destroy_qp(p); }
static int destroy_srq_v(void *p) { return ibv_destroy_srq(p); }
static int dereg_mr_v(void *p) { return ibv_dereg_mr(p); }

#define LIMIT(what, expr, must, destroy) do {				\
	void *o_;							\
	errno = 0;							\
	o_ = (void *)(expr);						\
	limit_check(what, o_, errno, must, &bad, destroy);		\
} while (0)
#define MUST_FAIL(what, expr, destroy) LIMIT(what, expr, true, destroy)

static int case_limits(void)
{
	struct two t = {};
	struct ibv_cq *cq = NULL;
	struct ibv_device_attr *da;
	int rc = KSFT_PASS, bad = 0;

	CHECK(!two_open(&t), "devices");
	da = &t.d[0].attr;
	diag("max_qp_wr %d max_sge %d max_cqe %d max_srq_wr %d max_srq_sge %d rd_atom %d/%d",
	     da->max_qp_wr, da->max_sge, da->max_cqe, da->max_srq_wr, da->max_srq_sge,
	     da->max_qp_rd_atom, da->max_qp_init_rd_atom);
	cq = cq_new(&t.d[0], 16, NULL, NULL);
	CHECK(cq, "CQ");
	MUST_FAIL("CQ of max_cqe + 1", ibv_create_cq(t.d[0].ctx, da->max_cqe + 1, NULL, NULL, 0),
		  destroy_cq_v);
	{
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = da->max_qp_wr + 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		MUST_FAIL("QP with max_send_wr = max_qp_wr + 1", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		/* max_qp_wr and max_sge are the smaller of the send and the
		 * receive limits: one past them may still fit the receive
		 * queue, or a send WQE without remote address (the in-tree
		 * driver accepts these three).
		 */
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = da->max_qp_wr + 1;
		LIMIT("QP with max_recv_wr = max_qp_wr + 1", ibv_create_qp(t.d[0].pd, &ia), false,
		      destroy_qp_v);
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = da->max_sge + 1;
		LIMIT("QP with max_send_sge = max_sge + 1", ibv_create_qp(t.d[0].pd, &ia), false,
		      destroy_qp_v);
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = da->max_sge + 1;
		LIMIT("QP with max_recv_sge = max_sge + 1", ibv_create_qp(t.d[0].pd, &ia), false,
		      destroy_qp_v);
		ia.cap.max_recv_sge = 1;
		ia.cap.max_send_wr = 4 * da->max_qp_wr;
		MUST_FAIL("QP with max_send_wr = 4 * max_qp_wr", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 64 * da->max_qp_wr;
		MUST_FAIL("QP with max_recv_wr = 64 * max_qp_wr", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 2 * da->max_sge;
		MUST_FAIL("QP with max_send_sge = 2 * max_sge", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 2 * da->max_sge;
		MUST_FAIL("QP with max_recv_sge = 2 * max_sge", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = 1 << 20;
		MUST_FAIL("QP with 1 MiB of inline data", ibv_create_qp(t.d[0].pd, &ia),
			  destroy_qp_v);
	}
	{
		struct ibv_srq_init_attr si = {
			.attr = { .max_wr = da->max_srq_wr + 1, .max_sge = 1 },
		};

		MUST_FAIL("SRQ with max_wr = max_srq_wr + 1", ibv_create_srq(t.d[0].pd, &si),
			  destroy_srq_v);
		si.attr.max_wr = 16;
		si.attr.max_sge = da->max_srq_sge + 1;
		MUST_FAIL("SRQ with max_sge = max_srq_sge + 1", ibv_create_srq(t.d[0].pd, &si),
			  destroy_srq_v);
	}
	{
		static uint8_t page[4096] __attribute__((aligned(4096)));

		MUST_FAIL("MR with REMOTE_WRITE but not LOCAL_WRITE",
			  ibv_reg_mr(t.d[0].pd, page, sizeof(page), IBV_ACCESS_REMOTE_WRITE),
			  dereg_mr_v);
	}
	/* Responder/initiator depth beyond the device's. */
	{
		struct ep a = {}, b = {};
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTR };
		struct conn_opts o = default_opts;
		int err;

		if (ep_create(&a, &t.d[0], NULL, NULL, 0, &o) ||
		    ep_create(&b, &t.d[1], NULL, NULL, 0, &o)) {
			ep_destroy(&a);
			ep_destroy(&b);
			CHECK(0, "QPs");
		}
		qa.path_mtu = IBV_MTU_1024;
		qa.dest_qp_num = b.qp->qp_num;
		qa.max_dest_rd_atomic = da->max_qp_rd_atom + 1;
		qa.min_rnr_timer = 12;
		qa.ah_attr.dlid = t.d[1].port.lid;
		qa.ah_attr.port_num = port_num;
		err = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
		diag("RTR with max_dest_rd_atomic = max_qp_rd_atom + 1: %s", err ? strerror(err) : "accepted");
		if (!err)
			bad++;
		qa.max_dest_rd_atomic = da->max_qp_rd_atom;
		err = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
		if (err) {
			diag("RTR with max_dest_rd_atomic = max_qp_rd_atom: %s", strerror(err));
			bad++;
		}
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTS;
		qa.timeout = 14;
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = da->max_qp_init_rd_atom + 1;
		err = ibv_modify_qp(a.qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
		diag("RTS with max_rd_atomic = max_qp_init_rd_atom + 1: %s", err ? strerror(err) : "accepted");
		if (!err)
			bad++;
		ep_destroy(&a);
		ep_destroy(&b);
	}
	CHECK(!bad, "%d requests beyond the device limits accepted", bad);
out:
	cq_free(&cq);
	two_close(&t);
	return rc;
}

static const struct {
	const char *name, *title;
	int (*fn)(void);
} cases[] = {
	{ "cq_overflow", "CQ overrun: CQ error event, the QP in error", case_cq_overflow },
	{ "rnr_retry", "RNR retry exhausted (rnr_retry 0, 3); rnr_retry 7 waits", case_rnr_retry },
	{ "flush", "QP to error: every outstanding WR flushed", case_flush },
	{ "mr_access", "MR access violations: remote access and local protection errors",
	  case_mr_access },
	{ "comp_channel", "one completion channel, three CQs: events, arms, acks", case_comp_channel },
	{ "solicited", "solicited-only notification", case_solicited },
	{ "data", "data integrity: WRITE(+IMM), READ, SEND, inline, CAS, FETCH_ADD", case_data },
	{ "query_qp", "ibv_query_qp returns the attributes applied in INIT, RTS and ERR",
	  case_query_qp },
	{ "srq", "SRQ: limit event, last-WQE event, WQEs outlive a QP in error", case_srq },
	{ "ud", "UD: datagrams up to the MTU (GRH room, immediate, source), Q_Key mismatch",
	  case_ud },
	{ "errors", "receive too small (LOC_LEN / REM_INV_REQ), transport retries exhausted",
	  case_errors },
	{ "limits", "requests beyond the device limits refused", case_limits },
};

#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

static void usage(const char *p)
{
	fprintf(stderr,
		"usage: %s [-d DEV0] [-D DEV1] [-p PORT] [-g GID_INDEX] [-t WAIT_MS] [-q QUIET_MS] [-l] [CASE...]\n",
		p);
}

int main(int argc, char **argv)
{
	int sel[NCASES], nsel = 0, pass = 0, fail = 0, skip = 0, c, i, j;

	while ((c = getopt(argc, argv, "d:D:p:g:t:q:lh")) != -1) {
		switch (c) {
		case 'd': dev_name[0] = optarg; break;
		case 'D': dev_name[1] = optarg; break;
		case 'p': port_num = atoi(optarg); break;
		case 'g': gid_index = atoi(optarg); break;
		case 't': wait_ms = atoi(optarg); break;
		case 'q': quiet_ms = atoi(optarg); break;
		case 'l':
			for (i = 0; i < NCASES; i++)
				printf("%s\t%s\n", cases[i].name, cases[i].title);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	for (; optind < argc; optind++) {
		for (j = 0; j < NCASES; j++)
			if (!strcmp(argv[optind], cases[j].name))
				break;
		if (j == NCASES) {
			fprintf(stderr, "unknown case %s\n", argv[optind]);
			usage(argv[0]);
			return 2;
		}
		if (nsel < NCASES)
			sel[nsel++] = j;
	}
	if (!nsel)
		for (nsel = 0; nsel < NCASES; nsel++)
			sel[nsel] = nsel;
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("TAP version 13\n1..%d\n", nsel);
	for (i = 0; i < nsel; i++) {
		long long t0 = now_ms();
		int r = cases[sel[i]].fn();

		diag("%s: %lld ms", cases[sel[i]].name, now_ms() - t0);
		if (r == KSFT_PASS) {
			printf("ok %d %s\n", i + 1, cases[sel[i]].title);
			pass++;
		} else if (r == KSFT_SKIP) {
			printf("ok %d %s # SKIP\n", i + 1, cases[sel[i]].title);
			skip++;
		} else {
			printf("not ok %d %s\n", i + 1, cases[sel[i]].title);
			fail++;
		}
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return pass ? KSFT_PASS : KSFT_SKIP;
}
