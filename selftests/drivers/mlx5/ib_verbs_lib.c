// SPDX-License-Identifier: GPL-2.0
/* ib_verbs_test: devices, memory, QP pairs, posting and polling. */
#define _GNU_SOURCE
#include "ib_verbs.h"

int wait_ms = 20000;
int quiet_ms = 500;
int cq_ext_required;
const char *dev_name[2] = { "mlx5_0", "mlx5_1" };
int port_num = 1;
int gid_index;
void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}
long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}
const char *wc_status(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}
int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}
int dev_open(struct dev *d, const char *name)
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
void dev_close(struct dev *d)
{
	if (d->pd && ibv_dealloc_pd(d->pd))
		diag("ibv_dealloc_pd: %s", strerror(errno));
	if (d->ctx && ibv_close_device(d->ctx))
		diag("ibv_close_device: %s", strerror(errno));
	d->pd = NULL;
	d->ctx = NULL;
}
const char *elem_kind(enum ibv_event_type t)
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
int async_drain(struct dev *d, int ms)
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
bool event_seen(struct dev *d, enum ibv_event_type type, void *elem)
{
	for (int i = 0; i < d->nev; i++)
		if (d->ev[i].type == type && d->ev[i].elem == elem)
			return true;
	return false;
}
bool async_wait(struct dev *d, enum ibv_event_type type, void *elem, int ms)
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
int mem_reg(struct mem *m, struct dev *d, size_t len, int access)
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
void mem_free(struct mem *m)
{
	if (m->mr && ibv_dereg_mr(m->mr))
		diag("ibv_dereg_mr: %s", strerror(errno));
	free(m->buf);
	memset(m, 0, sizeof(*m));
}
void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}
long first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}
long first_not(const uint8_t *p, size_t n, uint8_t c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return (long)i;
	return -1;
}
struct ibv_cq *cq_new(struct dev *d, int cqe, struct ibv_comp_channel *ch, void *cq_ctx)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, cqe, cq_ctx, ch, 0);

	if (!cq)
		diag("ibv_create_cq(%d): %s", cqe, strerror(errno));
	return cq;
}
void cq_free(struct ibv_cq **cq)
{
	if (*cq && ibv_destroy_cq(*cq))
		diag("ibv_destroy_cq: %s", strerror(errno));
	*cq = NULL;
}
const struct conn_opts default_opts = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12, /* 0.64 ms */
	.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	.rd_atomic = 4,
};
int ep_create(struct ep *e, struct dev *d, struct ibv_cq *scq, struct ibv_cq *rcq,
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
void ep_destroy(struct ep *e)
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
enum ibv_mtu mtu_min(enum ibv_mtu a, enum ibv_mtu b)
{
	return a < b ? a : b;
}
int ep_connect(struct ep *e, struct ep *p, const struct conn_opts *o)
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
int pair_connect(struct ep *a, struct ep *b, const struct conn_opts *oa,
			const struct conn_opts *ob)
{
	return ep_connect(a, b, oa) || ep_connect(b, a, ob) ? -1 : 0;
}
enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) {
		diag("ibv_query_qp 0x%x: %s", qp->qp_num, strerror(errno));
		return (enum ibv_qp_state)-1;
	}
	return a.qp_state;
}
const char *qps_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned int)s < 7 ? n[s] : "?";
}
bool qp_wait_state(struct ibv_qp *qp, enum ibv_qp_state s, int ms)
{
	long long end = now_ms() + ms;

	while (qp_state(qp) != s) {
		if (now_ms() > end)
			return false;
		usleep(10000);
	}
	return true;
}
int post_recv_sge(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sg, int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = n }, *bad;
	int err = ibv_post_recv(qp, &wr, &bad);

	if (err)
		diag("ibv_post_recv 0x%x: %s", qp->qp_num, strerror(err));
	return err;
}
int post_recv(struct ep *e, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)e->m.buf + off, .length = len, .lkey = e->m.mr->lkey,
	};

	return post_recv_sge(e->qp, wr_id, &sg, 1);
}
int post_wr(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(qp, wr, &bad);

	if (err)
		diag("ibv_post_send 0x%x opcode %d: %s", qp->qp_num, wr->opcode, strerror(err));
	return err;
}
int post_send(struct ep *e, uint64_t wr_id, size_t off, uint32_t len, unsigned int flags)
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
int post_rdma(struct ep *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t loff,
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
int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
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
bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status st, struct ibv_wc *out)
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
bool cq_quiet(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;
	int r = wait_wc(cq, &wc, 1, ms);

	if (r)
		diag("unexpected completion wr_id 0x%llx status %s opcode %d",
		     (unsigned long long)wc.wr_id, wc_status(wc.status), wc.opcode);
	return r == 0;
}
bool fd_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}
struct ibv_cq *get_cq_event(struct ibv_comp_channel *ch, void **ctx, int ms)
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
int two_open(struct two *t)
{
	if (dev_open(&t->d[0], dev_name[0]) || dev_open(&t->d[1], dev_name[1]))
		return -1;
	return 0;
}
void two_close(struct two *t)
{
	dev_close(&t->d[1]);
	dev_close(&t->d[0]);
}
int std_pair(struct two *t, struct ep *a, struct ep *b, const struct conn_opts *oa,
		    const struct conn_opts *ob)
{
	if (ep_create(a, &t->d[0], NULL, NULL, MR_ALL, oa) ||
	    ep_create(b, &t->d[1], NULL, NULL, MR_ALL, ob))
		return -1;
	return pair_connect(a, b, oa, ob);
}
bool write_ok(struct ep *a, struct ep *b, uint64_t wr_id)
{
	fill(a->m.buf, 64, (uint32_t)wr_id);
	if (post_rdma(a, IBV_WR_RDMA_WRITE, wr_id, 0, a->m.mr->lkey, 64,
		      (uintptr_t)b->m.buf, b->m.mr->rkey))
		return false;
	if (!expect_wc(a->scq, wr_id, IBV_WC_SUCCESS, NULL))
		return false;
	return first_diff(a->m.buf, b->m.buf, 64) < 0;
}

static void usage(const char *p)
{
	fprintf(stderr,
		"usage: %s [-d DEV0] [-D DEV1] [-p PORT] [-g GID_INDEX] [-t WAIT_MS] [-q QUIET_MS] [-x] [-l] [CASE...]\n",
		p);
}

int verbs_main(int argc, char **argv, const struct verbs_case *cases, int ncases)
{
	int *sel, nsel = 0, pass = 0, fail = 0, skip = 0, c, i, j;

	while ((c = getopt(argc, argv, "d:D:p:g:t:q:xlh")) != -1) {
		switch (c) {
		case 'd':
			dev_name[0] = optarg;
			break;
		case 'D':
			dev_name[1] = optarg;
			break;
		case 'p':
			port_num = atoi(optarg);
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 't':
			wait_ms = atoi(optarg);
			break;
		case 'q':
			quiet_ms = atoi(optarg);
			break;
		case 'x':
			cq_ext_required = 1;
			break;
		case 'l':
			for (i = 0; i < ncases; i++)
				printf("%s\t%s\n", cases[i].name, cases[i].title);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	sel = calloc(ncases, sizeof(*sel));
	if (!sel)
		return KSFT_FAIL;
	for (; optind < argc; optind++) {
		for (j = 0; j < ncases; j++)
			if (!strcmp(argv[optind], cases[j].name))
				break;
		if (j == ncases) {
			fprintf(stderr, "unknown case %s\n", argv[optind]);
			usage(argv[0]);
			free(sel);
			return 2;
		}
		if (nsel < ncases)
			sel[nsel++] = j;
	}
	if (!nsel)
		for (nsel = 0; nsel < ncases; nsel++)
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
	free(sel);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return pass ? KSFT_PASS : KSFT_SKIP;
}
