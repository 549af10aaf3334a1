// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-BUF MRs of a dynamic exporter whose buffer moves: the test-only
 * exporter mlx5_test_dmabuf.ko (/dev/mlx5_test_dmabuf, loaded by
 * verbs_compat_test.sh) moves a buffer to new pages on request, telling
 * its importers first, and reports what they hold (attachments, pins,
 * mapped scatter lists). The buffer's content is read and written through
 * the exporter, the region is accessed by the peer's RDMA at IOVA.
 *
 * - As the driver registers by default: our mlx5_ib pins the buffer, so
 *   the exporter refuses to move it (EBUSY); traffic; deregistration
 *   leaves no attachment, pin or mapping behind.
 * - Movable (our mlx5_ib with dmabuf_movable=1): registered without a pin;
 *   a move while idle invalidates the MR (the key is destroyed, the pages
 *   unmapped before the exporter copies them), so the next WRITE into it
 *   fails with a remote access error; deregistered, then registered again:
 *   the new key maps the moved pages (the data written before the move is
 *   read back) and carries traffic; a move under a live registration
 *   followed by its deregistration leaves nothing behind.
 * - The in-tree mlx5_ib (no dmabuf_movable parameter) is always a movable
 *   importer: the move unmaps the pages, the next RDMA WRITE page-faults
 *   (ODP) and lands in the moved pages, the data written before the move
 *   is read back; a second move and the deregistration leave nothing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>

#include "mlx5_test_dmabuf.h"
#include "verbs_compat.h"

#define EXP_DEV "/dev/mlx5_test_dmabuf"
#define MOVABLE_PARAM "/sys/module/mlx5_ib/parameters/dmabuf_movable"
#define MOVE_SIZE BUF_SIZE
#define MOVE_IOVA 0x200000000ULL
#define CHUNK (64 * 1024)

struct exp_buf {
	int dev, fd;
};

static int exp_rw(struct exp_buf *e, unsigned long cmd, size_t off, void *p, size_t len)
{
	struct mlx5_test_dmabuf_rw rw = {
		.fd = e->fd, .offset = off, .len = len, .ptr = (uintptr_t)p,
	};

	return ioctl(e->dev, cmd, &rw) ? errno : 0;
}

/* "attachments A, pins P, mappings M" of the buffer, or the errno. */
static const char *exp_state(struct exp_buf *e, struct mlx5_test_dmabuf_state *s)
{
	static char line[96];

	memset(s, 0, sizeof(*s));
	s->fd = e->fd;
	if (ioctl(e->dev, MLX5_TEST_DMABUF_STATE, s))
		snprintf(line, sizeof(line), "STATE: %s", err_name(errno));
	else
		snprintf(line, sizeof(line), "attachments %u, pins %u, mappings %u",
			 s->attachments, s->pins, s->mappings);
	return line;
}

static int exp_move(struct exp_buf *e)
{
	return ioctl(e->dev, MLX5_TEST_DMABUF_MOVE, &e->fd) ? errno : 0;
}

/* Write the dmabuf_movable parameter of our mlx5_ib; 0 or an errno. */
static int set_movable(bool on)
{
	int fd = open(MOVABLE_PARAM, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, on ? "Y" : "N", 1) != 1)
		err = errno;
	close(fd);
	return err;
}

/* @b RDMA @op of @len bytes at @off of the region (rkey @rkey); status. */
static enum ibv_wc_status rdma_status(struct ep *b, enum ibv_wr_opcode op, size_t off,
				      uint32_t len, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_wc wc;

	if (post_rdma(b, op, wr_id, off, b->m.mr->lkey, len, MOVE_IOVA + off, rkey))
		return IBV_WC_GENERAL_ERR;
	if (wait_wc(b->scq, &wc, 1, wait_ms) != 1 || wc.wr_id != wr_id) {
		diag("no completion of wr_id 0x%llx within %d ms", (unsigned long long)wr_id,
		     wait_ms);
		return IBV_WC_GENERAL_ERR;
	}
	return wc.status;
}

/* @b WRITEs a pattern into the region at @off; the exporter's pages hold it. */
static bool write_seen(struct ep *b, struct exp_buf *e, size_t off, uint32_t rkey,
		       uint32_t seed, uint8_t *tmp)
{
	int err;

	fill(b->m.buf + off, CHUNK, seed);
	if (rdma_status(b, IBV_WR_RDMA_WRITE, off, CHUNK, rkey, seed) != IBV_WC_SUCCESS)
		return false;
	err = exp_rw(e, MLX5_TEST_DMABUF_READ, off, tmp, CHUNK);
	if (err) {
		diag("READ from the exporter: %s", strerror(err));
		return false;
	}
	if (first_diff(b->m.buf + off, tmp, CHUNK) >= 0) {
		diag("the exporter's pages differ at byte %ld of the WRITE",
		     first_diff(b->m.buf + off, tmp, CHUNK));
		return false;
	}
	return true;
}

/* A fresh connected pair: a on device 0 (no buffer), b on device 1. */
static int move_pair(struct two *t, struct ep *a, struct ep *b)
{
	ep_destroy(a);
	ep_destroy(b);
	if (ep_create(a, &t->d[0], NULL, NULL, 0, &default_opts) ||
	    ep_create(b, &t->d[1], NULL, NULL, MR_ALL, &default_opts))
		return -1;
	return pair_connect(a, b, &default_opts, &default_opts);
}

static struct ibv_mr *reg(struct two *t, struct exp_buf *e)
{
	return ibv_reg_dmabuf_mr(t->d[0].pd, 0, MOVE_SIZE, MOVE_IOVA, e->fd, MR_ALL);
}

/*
 * The in-tree mlx5_ib (no dmabuf_movable parameter): always a movable
 * importer; a move zaps the MR's translation, and the next access to it
 * page-faults (ODP) and is served from the moved pages, re-mapped.
 */
static int move_remapped(struct two *t, struct exp_buf *e, struct ibv_mr **mrp, struct ep *a,
			 struct ep *b, uint8_t *tmp)
{
	struct mlx5_test_dmabuf_state s;
	const char *st;
	int rc = KSFT_PASS, err;

	st = exp_state(e, &s);
	obs("registered", "%s", st);
	CHECK(s.attachments == 1 && !s.pins && s.mappings == 1, "registered movable: %s", st);
	CHECK(!move_pair(t, a, b), "connect");
	CHECK(write_seen(b, e, 0, (*mrp)->rkey, 0x71, tmp), "RDMA WRITE into the registration");
	err = exp_move(e);
	obs("move of the registered buffer", "%s", err_name(err));
	CHECK(!err, "move of a movable registration: %s", strerror(err));
	st = exp_state(e, &s);
	obs("after the move", "%s", st);
	CHECK(s.attachments == 1 && !s.mappings && s.moves == 1,
	      "after the move: %s, moves %u (expected the pages unmapped)", st, s.moves);
	/* The next WRITE faults, the driver maps the new pages, resumes. */
	CHECK(write_seen(b, e, CHUNK, (*mrp)->rkey, 0x72, tmp),
	      "RDMA WRITE after the move (re-mapped by a page fault)");
	obs("RDMA WRITE after the move", "into the moved pages");
	st = exp_state(e, &s);
	CHECK(s.attachments == 1 && s.mappings == 1, "after the page fault: %s (expected mapped again)", st);
	memset(b->m.buf, 0, CHUNK);
	CHECK(rdma_status(b, IBV_WR_RDMA_READ, 0, CHUNK, (*mrp)->rkey, 0x74) == IBV_WC_SUCCESS,
	      "RDMA READ after the move");
	fill(tmp, CHUNK, 0x71);
	CHECK(first_diff(b->m.buf, tmp, CHUNK) < 0,
	      "RDMA READ after the move: not the data written before it (byte %ld)",
	      first_diff(b->m.buf, tmp, CHUNK));
	obs("RDMA READ after the move", "data written before the move read back");
	CHECK(!exp_move(e), "second move: %s", strerror(errno));
	CHECK(!ibv_dereg_mr(*mrp), "ibv_dereg_mr after the second move: %s", strerror(errno));
	*mrp = NULL;
	st = exp_state(e, &s);
	obs("moved and deregistered", "%s", st);
	CHECK(!s.attachments && !s.pins && !s.mappings && s.moves == 2,
	      "moved and deregistered: %s, moves %u", st, s.moves);
out:
	return rc;
}

int case_dmabuf_move(void)
{
	struct mlx5_test_dmabuf_create c = { .size = MOVE_SIZE };
	struct mlx5_test_dmabuf_state s;
	struct exp_buf e = { .dev = -1, .fd = -1 };
	struct ibv_mr *mr = NULL;
	struct ep a = {}, b = {};
	bool movable = false;
	struct two t = {};
	uint8_t *tmp = NULL;
	int rc = KSFT_PASS, err;
	const char *st;

	CHECK(!two_open(&t), "open devices");
	tmp = malloc(CHUNK);
	CHECK(tmp, "malloc");
	e.dev = open(EXP_DEV, O_RDWR);
	if (e.dev < 0) {
		diag("SKIP: no test exporter: %s: %s (mlx5_test_dmabuf.ko not loaded)", EXP_DEV,
		     strerror(errno));
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(!ioctl(e.dev, MLX5_TEST_DMABUF_CREATE, &c), "CREATE: %s", strerror(errno));
	e.fd = c.fd;

	/* As registered by default. */
	mr = reg(&t, &e);
	err = mr ? 0 : errno;
	OBS_OR_SKIP("ibv_reg_dmabuf_mr of a dynamic exporter's buffer", mr, err);
	CHECK(mr, "ibv_reg_dmabuf_mr: %s", strerror(err));
	if (access(MOVABLE_PARAM, F_OK)) {
		rc = move_remapped(&t, &e, &mr, &a, &b, tmp);
		goto out;
	}
	st = exp_state(&e, &s);
	obs("registered", "%s", st);
	CHECK(s.attachments == 1 && s.mappings == 1, "registered: %s", st);
	err = exp_move(&e);
	obs("move of the registered buffer", "%s", err_name(err));
	CHECK(err == EBUSY, "move with a pinned importer: %s, expected EBUSY", err_name(err));
	CHECK(!move_pair(&t, &a, &b), "connect");
	CHECK(write_seen(&b, &e, 0, mr->rkey, 0x71, tmp), "RDMA WRITE into the registration");
	CHECK(!ibv_dereg_mr(mr), "ibv_dereg_mr: %s", strerror(errno));
	mr = NULL;
	st = exp_state(&e, &s);
	obs("deregistered", "%s", st);
	CHECK(!s.attachments && !s.pins && !s.mappings, "deregistered: %s", st);

	/* Movable. */
	err = set_movable(true);
	CHECK(!err, "%s: %s", MOVABLE_PARAM, strerror(err));
	movable = true;
	mr = reg(&t, &e);
	CHECK(mr, "movable ibv_reg_dmabuf_mr: %s", strerror(errno));
	st = exp_state(&e, &s);
	obs("registered movable", "%s", st);
	CHECK(s.attachments == 1 && !s.pins && s.mappings == 1, "registered movable: %s", st);
	CHECK(write_seen(&b, &e, CHUNK, mr->rkey, 0x72, tmp), "RDMA WRITE into the movable MR");
	err = exp_move(&e);
	obs("move while idle", "%s", err_name(err));
	CHECK(!err, "move of a movable registration: %s", strerror(err));
	st = exp_state(&e, &s);
	obs("after the move", "%s", st);
	CHECK(s.attachments == 1 && !s.mappings && s.moves == 1,
	      "after the move: %s, moves %u (expected the pages unmapped)", st, s.moves);
	/* The moved data is the exporter's now, at the new pages. */
	err = exp_rw(&e, MLX5_TEST_DMABUF_READ, CHUNK, tmp, CHUNK);
	CHECK(!err && first_diff(b.m.buf + CHUNK, tmp, CHUNK) < 0,
	      "the exporter lost the data in the move (%s)", strerror(err));
	/* Invalidated: the next access fails cleanly. */
	err = rdma_status(&b, IBV_WR_RDMA_WRITE, 2 * CHUNK, CHUNK, mr->rkey, 0x73);
	obs("RDMA WRITE after the move", "%s", wc_status(err));
	CHECK(err == IBV_WC_REM_ACCESS_ERR, "RDMA WRITE into the moved MR: %s, expected %s",
	      wc_status(err), wc_status(IBV_WC_REM_ACCESS_ERR));
	CHECK(!ibv_dereg_mr(mr), "ibv_dereg_mr of the invalidated MR: %s", strerror(errno));
	mr = NULL;
	st = exp_state(&e, &s);
	CHECK(!s.attachments && !s.mappings, "invalidated MR deregistered: %s", st);

	/* Registered again: the moved pages, with their data. */
	mr = reg(&t, &e);
	CHECK(mr, "ibv_reg_dmabuf_mr after the move: %s", strerror(errno));
	CHECK(!move_pair(&t, &a, &b), "connect a new pair");
	memset(b.m.buf + CHUNK, 0, CHUNK);
	CHECK(rdma_status(&b, IBV_WR_RDMA_READ, CHUNK, CHUNK, mr->rkey, 0x74) == IBV_WC_SUCCESS,
	      "RDMA READ from the new registration");
	err = exp_rw(&e, MLX5_TEST_DMABUF_READ, CHUNK, tmp, CHUNK);
	CHECK(!err && first_diff(b.m.buf + CHUNK, tmp, CHUNK) < 0,
	      "RDMA READ of the moved buffer differs from its content at byte %ld",
	      first_diff(b.m.buf + CHUNK, tmp, CHUNK));
	fill(tmp, CHUNK, 0x72);
	CHECK(first_diff(b.m.buf + CHUNK, tmp, CHUNK) < 0,
	      "RDMA READ after the move: not the data written before it (byte %ld)",
	      first_diff(b.m.buf + CHUNK, tmp, CHUNK));
	obs("registered again after the move", "data written before the move read back");
	CHECK(write_seen(&b, &e, 3 * CHUNK, mr->rkey, 0x75, tmp),
	      "RDMA WRITE into the new registration");
	/* A move under a live registration, then its deregistration. */
	CHECK(!exp_move(&e), "second move: %s", strerror(errno));
	CHECK(!ibv_dereg_mr(mr), "ibv_dereg_mr after the second move: %s", strerror(errno));
	mr = NULL;
	st = exp_state(&e, &s);
	obs("moved and deregistered", "%s", st);
	CHECK(!s.attachments && !s.pins && !s.mappings && s.moves == 2,
	      "moved and deregistered: %s, moves %u", st, s.moves);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	if (mr)
		ibv_dereg_mr(mr);
	if (movable && set_movable(false))
		diag("restoring %s: %s", MOVABLE_PARAM, strerror(errno));
	if (e.fd >= 0)
		close(e.fd);
	if (e.dev >= 0)
		close(e.dev);
	free(tmp);
	two_close(&t);
	return rc;
}
