// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_random.c - random driver data for CQ and QP creation, with
 * real buffers often enough to get past the address checks: the driver must
 * answer every request with success or one of its rejections (EINVAL,
 * EOPNOTSUPP, EFAULT), never hang or pass garbage on to the firmware (whose
 * answer would be EIO or another errno); objects created by chance are
 * destroyed at once. The sequence is fixed, so a failure repeats.
 */
#define _GNU_SOURCE	/* strerrorname_np */
#include <stdio.h>

#include "ib_udata.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random words for struct mlx5_ib_create_cq, often with real addresses. */
static void random_cq_req(uint64_t w[8], const struct bufs *b)
{
	int j;

	for (j = 0; j < 8; j++)
		w[j] = rnd();
	if (rnd() & 1)
		w[0] = addr(b->cq_ring) + (rnd() & 1 ? 0 : (rnd() & 0xfff));
	if (rnd() & 1)
		w[1] = addr(b->cq_db) + 8 * (rnd() & 0x1ff);
	if (rnd() & 1)
		w[2] = (rnd() & 1 ? 64 : 128) | (rnd() & 1 ? 0 : rnd() << 32);
}

/* Random words for struct mlx5_ib_create_qp, often with a plausible geometry. */
static void random_qp_req(uint64_t w[8], const struct bufs *b)
{
	int j;

	for (j = 0; j < 8; j++)
		w[j] = rnd();
	if (rnd() & 1)
		w[0] = addr(b->qp_buf);
	if (rnd() & 1)
		w[1] = addr(b->qp_db) + 8 * (rnd() & 0x1ff);
	if (rnd() & 1) {	/* sq/rq counts; rq stride, random flags */
		w[2] = (uint64_t)(1U << (rnd() % 8)) << 32 | (1U << (rnd() % 8));
		w[3] = (rnd() & 0xff) << 32 | (4 + rnd() % 6);
	}
}

/* How often each errno came back. */
static unsigned int seen[256];

/* Counts @rc; true when it is a success or one of the driver's rejections. */
static int answered(long rc)
{
	seen[-rc < 0 || -rc > 255 ? 255 : -rc]++;
	return rc == 0 || rc == -EINVAL || rc == -EOPNOTSUPP || rc == -EFAULT;
}

static void print_seen(void)
{
	char line[512];
	size_t n = 0;
	int e;

	for (e = 1; e < 256; e++)
		if (seen[e] && n < sizeof(line) - 32)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s:%u",
					      e == 255 ? "other" : strerrorname_np(e), seen[e]);
	diag("random requests: errnos%s", n ? line : " none");
}

/* One CQ request of random entries and driver data of random length. */
static long random_cq(int fd, const struct bufs *b)
{
	uint64_t w[8];
	uint32_t cqe;
	size_t len;

	random_cq_req(w, b);
	cqe = (uint32_t)(rnd() & 0x3ff);
	len = 8 * (rnd() % 9) & ~3UL;
	return try_cq(fd, cqe, w, len);
}

/* One QP request: mostly RC, else any type number, random WR counts. */
static long random_qp(int fd, uint32_t pd, const uint32_t cq[2], const struct bufs *b)
{
	struct ib_uverbs_create_qp c;
	uint64_t w[8];
	uint8_t type;

	random_qp_req(w, b);
	type = (uint8_t)(rnd() % 2 ? IB_UVERBS_QPT_RC : rnd() % 12);
	qp_core(&c, pd, cq, type);
	c.max_send_wr = (uint32_t)(rnd() % 64);
	c.max_recv_wr = (uint32_t)(rnd() % 64);
	return try_qp(fd, &c, w, 8 * (rnd() % 8));
}

void test_random(int fd, uint32_t pd, int have_cq, const uint32_t cq[2],
		 const struct bufs *b)
{
	int i, n = 0, created = 0, good = 0;
	long rc;

	for (i = 0; i < 400; i++) {
		rc = random_cq(fd, b);
		n++;
		good += answered(rc);
		created += rc == 0;
		if (!have_cq)
			continue;
		rc = random_qp(fd, pd, cq, b);
		n++;
		good += answered(rc);
		created += rc == 0;
	}
	print_seen();
	diag("random requests: %d of %d answered, %d created and destroyed", good, n, created);
	ok(good == n, "random CQ/QP driver data: every request answered");
}
