// SPDX-License-Identifier: GPL-2.0
/* ib_verbs_test cases: completion channel shared by several CQs, solicited-only notification. */
#define _GNU_SOURCE
#include "ib_verbs.h"

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

int case_comp_channel(void)
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

int case_solicited(void)
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
