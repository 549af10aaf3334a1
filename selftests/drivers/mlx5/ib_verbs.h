/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_verbs.h - what the parts of ib_verbs_test share: two devices, memory,
 * connected QP pairs, posting and polling helpers (ib_verbs_lib.c), and the
 * cases (ib_verbs_cases_*.c) that main() in ib_verbs_test.c runs.
 */
#ifndef IB_VERBS_H
#define IB_VERBS_H
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

extern const char *dev_name[2];
extern int port_num;
extern int gid_index;
extern int wait_ms;	/* a completion or event that must come */
extern int quiet_ms;	/* a notification that must not come */

void diag(const char *fmt, ...);

/* CHECK(cond, fmt, ...): on failure print why, mark the case failed. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		diag("FAIL %s:%d: %s", __func__, __LINE__, #cond);	\
		diag(__VA_ARGS__);					\
		rc = KSFT_FAIL;						\
		goto out;						\
	}								\
} while (0)

long long now_ms(void);

const char *wc_status(enum ibv_wc_status s);

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

int set_nonblock(int fd);

int dev_open(struct dev *d, const char *name);

void dev_close(struct dev *d);

const char *elem_kind(enum ibv_event_type t);

/*
 * Reads every async event that is ready (waiting up to ms for the first),
 * records and acknowledges it. Returns the number read.
 */
int async_drain(struct dev *d, int ms);

bool event_seen(struct dev *d, enum ibv_event_type type, void *elem);

/* Waits up to ms for async event type on object elem. */
bool async_wait(struct dev *d, enum ibv_event_type type, void *elem, int ms);

/* --- memory ------------------------------------------------------------ */

struct mem {
	uint8_t *buf;
	size_t len;
	struct ibv_mr *mr;
};

int mem_reg(struct mem *m, struct dev *d, size_t len, int access);

void mem_free(struct mem *m);

void fill(uint8_t *p, size_t n, uint32_t seed);

/* First differing offset of a and b, or -1. */
long first_diff(const uint8_t *a, const uint8_t *b, size_t n);

/* First offset in p[0..n) that is not byte c, or -1. */
long first_not(const uint8_t *p, size_t n, uint8_t c);

/* --- CQs and QPs ------------------------------------------------------- */

struct ibv_cq *cq_new(struct dev *d, int cqe, struct ibv_comp_channel *ch, void *cq_ctx);

void cq_free(struct ibv_cq **cq);

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

extern const struct conn_opts default_opts;

/*
 * Creates e's QP (RC) and moves it to INIT. scq/rcq: CQs to use, or NULL
 * to create a pair of 2 * QP_DEPTH entries owned by the end point. mem_access:
 * rights of the end point's buffer (0: none registered).
 */
int ep_create(struct ep *e, struct dev *d, struct ibv_cq *scq, struct ibv_cq *rcq,
		     int mem_access, const struct conn_opts *o);

void ep_destroy(struct ep *e);

enum ibv_mtu mtu_min(enum ibv_mtu a, enum ibv_mtu b);

/* Moves e to RTR and RTS, talking to peer p. */
int ep_connect(struct ep *e, struct ep *p, const struct conn_opts *o);

/* A connected pair a <-> b; opts_a for a's requester, opts_b for b's. */
int pair_connect(struct ep *a, struct ep *b, const struct conn_opts *oa,
			const struct conn_opts *ob);

enum ibv_qp_state qp_state(struct ibv_qp *qp);

const char *qps_name(enum ibv_qp_state s);

/* Waits up to ms until qp reports state s. */
bool qp_wait_state(struct ibv_qp *qp, enum ibv_qp_state s, int ms);

/* --- posting and polling ----------------------------------------------- */

int post_recv_sge(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sg, int n);

int post_recv(struct ep *e, uint64_t wr_id, size_t off, uint32_t len);

/* Posts one send WR; sg may be NULL for zero-length or atomics-free ops. */
int post_wr(struct ibv_qp *qp, struct ibv_send_wr *wr);

int post_send(struct ep *e, uint64_t wr_id, size_t off, uint32_t len, unsigned int flags);

/* RDMA WRITE/READ of len bytes between e's buffer at loff and raddr/rkey. */
int post_rdma(struct ep *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t loff,
		     uint32_t lkey, uint32_t len, uint64_t raddr, uint32_t rkey);

/*
 * Polls cq until n completions are in wc[] or ms pass. Returns how many
 * arrived (-1 on a poll error).
 */
int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);

/* Exactly one completion of wr_id with status st. */
bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_status st, struct ibv_wc *out);

/* No completion arrives on cq within ms. */
bool cq_quiet(struct ibv_cq *cq, int ms);

/* The channel fd becomes readable within ms. */
bool fd_ready(int fd, int ms);

/* Reads one completion event; returns the CQ (NULL after ms). */
struct ibv_cq *get_cq_event(struct ibv_comp_channel *ch, void **ctx, int ms);

/* --- cases ------------------------------------------------------------- */

/* One case of a test program: its name on the command line, its KTAP title. */
struct verbs_case {
	const char *name, *title;
	int (*fn)(void);
};

/*
 * The main() of a case program: options (-d DEV0 -D DEV1 -p PORT -g GID
 * -t WAIT_MS -q QUIET_MS, -l lists the cases), the selected cases (default
 * all) as KTAP lines. Exit status 0 all passed, 1 one failed, 4 all skipped.
 */
int verbs_main(int argc, char **argv, const struct verbs_case *cases, int ncases);

struct two {
	struct dev d[2];
};

int two_open(struct two *t);

void two_close(struct two *t);

#define MR_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_ATOMIC)

/* A fresh connected pair a (on d0) <-> b (on d1) with full-rights buffers. */
int std_pair(struct two *t, struct ep *a, struct ep *b, const struct conn_opts *oa,
		    const struct conn_opts *ob);

/* One RDMA WRITE of 64 bytes a -> b that must succeed. */
bool write_ok(struct ep *a, struct ep *b, uint64_t wr_id);

int case_cq_overflow(void);
int case_rnr_retry(void);
int case_flush(void);
int case_mr_access(void);
int case_errors(void);
int case_limits(void);
int case_large(void);
int case_comp_channel(void);
int case_solicited(void);
int case_event_stress(void);
int case_srq(void);
int case_data(void);
int case_query_qp(void);
int case_ud(void);
int case_mcast(void);
int case_cq_resize(void);
int case_cq_moderation(void);

/* -x: CQ resize and moderation must work (ib_verbs_cases_cq.c). */
extern int cq_ext_required;

#endif /* IB_VERBS_H */
