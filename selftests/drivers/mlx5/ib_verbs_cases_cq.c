// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_cases_cq.c - CQ resize (ibv_resize_cq) and completion event
 * moderation (ibv_modify_cq): a (mlx5_0) receives on a CQ of its own the
 * SENDs b (mlx5_1) posts; a SEND completes on b only after a's receive
 * completion was written, so b's send completions say how many CQEs a's CQ
 * holds without polling it.
 *
 * A driver without these verbs must refuse them cleanly (EOPNOTSUPP, the
 * CQ unchanged and working); with -x (cq_ext_required) it must implement
 * them, as the in-tree mlx5_ib does on a device advertising cq_resize and
 * cq_moderation.
 */
#include "ib_verbs.h"

/* b sends n 32-byte messages to a (receives posted from wr_id base). */
static bool sends(struct ep *a, struct ep *b, int n, uint64_t base)
{
	struct ibv_wc wc[64];
	int i;

	for (i = 0; i < n; i++)
		if (post_recv(a, base + i, 64 * (i % 64), 64))
			return false;
	for (i = 0; i < n; i++)
		if (post_send(b, base + i, 0, 32, IBV_SEND_SIGNALED))
			return false;
	for (i = 0; i < n;) {
		int got = wait_wc(b->scq, wc, n - i > 64 ? 64 : n - i, wait_ms);

		if (got <= 0) {
			diag("b: %d of %d send completions", i, n);
			return false;
		}
		for (int k = 0; k < got; k++)
			if (wc[k].status != IBV_WC_SUCCESS) {
				diag("b send %llu: %s", (unsigned long long)wc[k].wr_id, wc_status(wc[k].status));
				return false;
			}
		i += got;
	}
	return true;
}

/* Exactly n receive completions base, base + 1, ... in order on cq. */
static bool recvs_in_order(struct ibv_cq *cq, int n, uint64_t base)
{
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		if (wait_wc(cq, &wc, 1, wait_ms) != 1) {
			diag("receive %d of %d missing", i, n);
			return false;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV || wc.wr_id != base + i) {
			diag("receive %d: wr_id %llu %s, expected %llu", i, (unsigned long long)wc.wr_id,
			     wc_status(wc.status), (unsigned long long)(base + i));
			return false;
		}
	}
	return cq_quiet(cq, quiet_ms);
}

/* The driver refused a CQ verb: fine unless -x, if it refused cleanly. */
static int refused(const char *verb, int err, struct ep *a, struct ep *b, struct ibv_cq *cq, bool required)
{
	if (err != EOPNOTSUPP && err != ENOSYS) {
		diag("%s: %s (not EOPNOTSUPP)", verb, strerror(err));
		return KSFT_FAIL;
	}
	if (required) {
		diag("%s: %s, but this driver must implement it (-x)", verb, strerror(err));
		return KSFT_FAIL;
	}
	diag("%s: %s: the driver does not implement it; checking the CQ still works", verb, strerror(err));
	if (!sends(a, b, 4, 900) || !recvs_in_order(cq, 4, 900))
		return KSFT_FAIL;
	return KSFT_PASS;
}

int case_cq_resize(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_cq *cq = NULL, *scq = NULL;
	int rc = KSFT_PASS, err;

	CHECK(!two_open(&t), "devices");
	cq = cq_new(&t.d[0], 16, NULL, NULL);
	scq = cq_new(&t.d[0], 16, NULL, NULL);
	CHECK(cq && scq, "a's CQs");
	CHECK(!ep_create(&a, &t.d[0], scq, cq, MR_ALL, &default_opts), "a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "b");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");
	diag("a's receive CQ: %d entries", cq->cqe);

	/* Six completions present: four entries are too few. */
	CHECK(sends(&a, &b, 6, 100), "6 SENDs");
	err = ibv_resize_cq(cq, 3);
	if (err == EOPNOTSUPP || err == ENOSYS) {
		CHECK(recvs_in_order(cq, 6, 100), "the CQEs present");
		rc = refused("ibv_resize_cq", err, &a, &b, cq, cq_ext_required);
		goto out;
	}
	CHECK(err, "ibv_resize_cq(3) with 6 CQEs present succeeded (cqe %d)", cq->cqe);
	diag("ibv_resize_cq(3) with 6 CQEs present: %s", strerror(err));
	CHECK(cq->cqe >= 6, "cqe %d after a failed resize", cq->cqe);
	CHECK(recvs_in_order(cq, 6, 100), "the CQEs present after a failed resize");

	/* Grow with CQEs present; then more completions than the old size. */
	CHECK(sends(&a, &b, 6, 200), "6 SENDs");
	err = ibv_resize_cq(cq, 100);
	CHECK(!err, "ibv_resize_cq(100): %s", strerror(err));
	CHECK(cq->cqe >= 100, "cqe %d after growing to 100", cq->cqe);
	diag("grown to %d entries", cq->cqe);
	CHECK(recvs_in_order(cq, 6, 200), "the CQEs present before growing");
	CHECK(sends(&a, &b, 50, 300), "50 SENDs");
	CHECK(recvs_in_order(cq, 50, 300), "50 completions in the grown CQ");

	/* Shrink with CQEs present that fit; then wrap the small CQ. */
	CHECK(sends(&a, &b, 3, 400), "3 SENDs");
	err = ibv_resize_cq(cq, 7);
	CHECK(!err, "ibv_resize_cq(7) with 3 CQEs present: %s", strerror(err));
	CHECK(cq->cqe >= 7 && cq->cqe < 100, "cqe %d after shrinking to 7", cq->cqe);
	diag("shrunk to %d entries", cq->cqe);
	CHECK(recvs_in_order(cq, 3, 400), "the CQEs present before shrinking");
	for (int i = 0; i < 5; i++) {
		CHECK(sends(&a, &b, 6, 500 + 10 * i), "6 SENDs");
		CHECK(recvs_in_order(cq, 6, 500 + 10 * i), "round %d in the shrunk CQ", i);
	}

	/* Completions in flight while the CQ is resized. */
	CHECK(!ibv_resize_cq(cq, 64), "ibv_resize_cq(64)");
	for (int i = 0; i < 40; i++)
		CHECK(!post_recv(&a, 600 + i, 64 * i, 64), "recv");
	for (int i = 0; i < 40; i++)
		CHECK(!post_send(&b, 600 + i, 0, 32, IBV_SEND_SIGNALED), "send");
	err = ibv_resize_cq(cq, 128);
	CHECK(!err, "ibv_resize_cq(128) with completions in flight: %s", strerror(err));
	CHECK(recvs_in_order(cq, 40, 600), "40 completions through a resize");
	{
		struct ibv_wc wc[40];

		CHECK(wait_wc(b.scq, wc, 40, wait_ms) == 40, "b's 40 send completions");
	}
out:
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&cq);
	cq_free(&scq);
	two_close(&t);
	return rc;
}

/* Waits up to ms for the channel's next event; it must be cq's. */
static bool event_on(struct ibv_comp_channel *ch, struct ibv_cq *cq, int ms)
{
	void *ctx;
	struct ibv_cq *got = get_cq_event(ch, &ctx, ms);

	if (got)
		ibv_ack_cq_events(got, 1);
	if (got != cq)
		diag("event on CQ %p, expected %p", (void *)got, (void *)cq);
	return got == cq;
}

/* No event within ms (one that comes is acknowledged, so the CQ can go). */
static bool no_event(struct ibv_comp_channel *ch, int ms)
{
	void *ctx;
	struct ibv_cq *got = get_cq_event(ch, &ctx, ms);

	if (got)
		ibv_ack_cq_events(got, 1);
	return !got;
}

static int moderate(struct ibv_cq *cq, uint16_t count, uint16_t period)
{
	struct ibv_modify_cq_attr attr = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = count, .cq_period = period },
	};

	return ibv_modify_cq(cq, &attr);
}

int case_cq_moderation(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_comp_channel *ch = NULL;
	struct ibv_cq *cq = NULL, *scq = NULL;
	int rc = KSFT_PASS, err;

	CHECK(!two_open(&t), "devices");
	ch = ibv_create_comp_channel(t.d[0].ctx);
	CHECK(ch, "ibv_create_comp_channel: %s", strerror(errno));
	CHECK(!set_nonblock(ch->fd), "O_NONBLOCK");
	cq = cq_new(&t.d[0], 2 * QP_DEPTH, ch, NULL);
	scq = cq_new(&t.d[0], 16, NULL, NULL);
	CHECK(cq && scq, "a's CQs");
	CHECK(!ep_create(&a, &t.d[0], scq, cq, MR_ALL, &default_opts), "a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "b");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");

	/* Four completions per event, no period. */
	err = moderate(cq, 4, 0);
	if (err) {
		rc = refused("ibv_modify_cq", err, &a, &b, cq, cq_ext_required);
		goto out;
	}
	for (int round = 0; round < 2; round++) {
		uint64_t base = 100 * (round + 1);

		CHECK(!ibv_req_notify_cq(cq, 0), "arm");
		CHECK(sends(&a, &b, 3, base), "3 SENDs");
		CHECK(no_event(ch, quiet_ms), "round %d: an event after 3 of 4 completions", round);
		CHECK(sends(&a, &b, 1, base + 3), "the 4th SEND");
		CHECK(event_on(ch, cq, wait_ms), "the event of 4 completions");
		CHECK(recvs_in_order(cq, 4, base), "4 completions");
	}

	/* One completion and a count of 100: the period fires the event. */
	CHECK(!moderate(cq, 100, 2000), "ibv_modify_cq(100, 2000 us)");
	for (int round = 0; round < 2; round++) {
		uint64_t base = 300 + 10 * round;
		long long t0;

		CHECK(!ibv_req_notify_cq(cq, 0), "arm");
		t0 = now_ms();
		CHECK(sends(&a, &b, 1, base), "1 SEND");
		CHECK(event_on(ch, cq, wait_ms), "the event of the period");
		diag("period event %lld ms after the SEND", now_ms() - t0);
		CHECK(recvs_in_order(cq, 1, base), "1 completion");
	}

	/* Out of range, and back to no moderation: every arm fires at once. */
	CHECK(moderate(cq, 1, 0xffff), "a period of 65535 us was accepted");
	CHECK(!moderate(cq, 0, 0), "ibv_modify_cq(0, 0)");
	CHECK(!ibv_req_notify_cq(cq, 0), "arm");
	CHECK(sends(&a, &b, 1, 400), "1 SEND");
	CHECK(event_on(ch, cq, wait_ms), "no moderation: the event");
	CHECK(recvs_in_order(cq, 1, 400), "1 completion");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	cq_free(&cq);
	cq_free(&scq);
	if (ch)
		ibv_destroy_comp_channel(ch);
	two_close(&t);
	return rc;
}
