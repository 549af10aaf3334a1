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

/*
 * No completion event is lost: ES_CQS CQs spread over ES_CHANNELS
 * completion channels, one RC QP each sending RDMA WRITEs in random bursts
 * to random QPs, and the CQs served only when an event names them, with
 * arm and poll in random order and at random times:
 *  - arm, then poll until empty (CQEs the event announced are polled after
 *    the arm, as perftest's latency tests do);
 *  - poll until empty, then arm (a CQE that lands between the last poll and
 *    the arm must fire the arm: its ci is behind it);
 *  - neither for a while: the CQ stays disarmed while its QP keeps sending,
 *    and is armed and polled later.
 * Each of these is lossless on a device that posts an event for every arm
 * with a CQE beyond the arm's consumer index that no event announced yet:
 * a lost event leaves CQEs that nobody polls, and the case fails naming
 * the CQ. Also checked: every completion once, in order, successful; an
 * event only for an armed CQ, on its channel, with its context; at most one
 * event per CQE; acknowledgements counted per CQ.
 */
#define ES_CQS 16
#define ES_CHANNELS 4
#define ES_WRS 1600		/* WRITEs in all */
#define ES_INFLIGHT 24		/* per QP, below the CQ's and the SQ's depth */

struct es_cq {
	struct ibv_cq *cq;
	struct ep a, b;
	unsigned int posted, polled, events, acked;
	bool armed, parked;
};

static unsigned int es_rand(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static void es_pause(unsigned int *seed)
{
	if (es_rand(seed, 2))
		usleep(es_rand(seed, 300));
}

/* Polls c until empty; false on a wrong completion. */
static bool es_drain(struct es_cq *c, int k)
{
	struct ibv_wc wc[8];
	int n, i;

	while ((n = ibv_poll_cq(c->cq, 8, wc)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t want = (uint64_t)k << 32 | c->polled;

			if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RDMA_WRITE ||
			    wc[i].wr_id != want) {
				diag("CQ %d: completion %s opcode %d wr_id %#llx, expected %#llx",
				     k, wc_status(wc[i].status), wc[i].opcode,
				     (unsigned long long)wc[i].wr_id, (unsigned long long)want);
				return false;
			}
			c->polled++;
		}
	}
	if (n < 0)
		diag("CQ %d: ibv_poll_cq: %d", k, n);
	return n == 0;
}

static bool es_arm(struct es_cq *c, int k)
{
	if (ibv_req_notify_cq(c->cq, 0)) {
		diag("CQ %d: ibv_req_notify_cq: %s", k, strerror(errno));
		return false;
	}
	c->armed = true;
	c->parked = false;
	return true;
}

/* Arms a CQ and polls it, in either order, with random pauses. */
static bool es_serve(struct es_cq *c, int k, unsigned int *seed)
{
	if (es_rand(seed, 2)) {
		if (!es_arm(c, k))
			return false;
		es_pause(seed);
		return es_drain(c, k);
	}
	if (!es_drain(c, k))
		return false;
	es_pause(seed);
	return es_arm(c, k);
}

/* One event from channel ch (readable): checked, counted, maybe acked. */
static bool es_event(struct ibv_comp_channel *ch, int chn, struct es_cq *cqs,
		     unsigned int *seed, bool *served)
{
	struct ibv_cq *cq;
	void *ctx;
	int k;

	if (ibv_get_cq_event(ch, &cq, &ctx)) {
		diag("channel %d: ibv_get_cq_event: %s", chn, strerror(errno));
		return false;
	}
	k = (int)((struct es_cq *)ctx - cqs);
	if (k < 0 || k >= ES_CQS || cqs[k].cq != cq || k % ES_CHANNELS != chn) {
		diag("channel %d: event on CQ %p context %p, not one of its CQs", chn,
		     (void *)cq, ctx);
		ibv_ack_cq_events(cq, 1);
		return false;
	}
	cqs[k].events++;
	if (!cqs[k].armed) {
		diag("CQ %d: an event while not armed (event %u)", k, cqs[k].events);
		return false;
	}
	cqs[k].armed = false;
	if (es_rand(seed, 3) == 0) {
		ibv_ack_cq_events(cq, cqs[k].events - cqs[k].acked);
		cqs[k].acked = cqs[k].events;
	}
	*served = true;
	/* One event in four leaves the CQ disarmed and unpolled a while. */
	if (es_rand(seed, 4) == 0) {
		cqs[k].parked = true;
		return true;
	}
	return es_serve(&cqs[k], k, seed);
}

int case_event_stress(void)
{
	struct two t = {};
	struct ibv_comp_channel *ch[ES_CHANNELS] = {};
	static struct es_cq cqs[ES_CQS];
	unsigned int seed = (unsigned int)now_ms(), posted = 0, polled = 0, events = 0;
	struct pollfd pfd[ES_CHANNELS];
	int rc = KSFT_PASS, i, k;

	memset(cqs, 0, sizeof(cqs));
	diag("seed %u: %d CQs on %d channels, %d RDMA WRITEs", seed, ES_CQS, ES_CHANNELS, ES_WRS);
	CHECK(!two_open(&t), "devices");
	for (i = 0; i < ES_CHANNELS; i++) {
		ch[i] = ibv_create_comp_channel(t.d[0].ctx);
		CHECK(ch[i], "ibv_create_comp_channel: %s", strerror(errno));
		CHECK(!set_nonblock(ch[i]->fd), "O_NONBLOCK");
		pfd[i].fd = ch[i]->fd;
		pfd[i].events = POLLIN;
	}
	for (k = 0; k < ES_CQS; k++) {
		struct es_cq *c = &cqs[k];

		c->cq = cq_new(&t.d[0], 2 * QP_DEPTH, ch[k % ES_CHANNELS], c);
		CHECK(c->cq, "CQ %d", k);
		CHECK(!ep_create(&c->a, &t.d[0], c->cq, c->cq, MR_ALL, &default_opts), "a %d", k);
		CHECK(!ep_create(&c->b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "b %d", k);
		CHECK(!pair_connect(&c->a, &c->b, &default_opts, &default_opts), "pair %d", k);
		CHECK(es_arm(c, k), "arm %d", k);
	}

	while (polled < ES_WRS) {
		bool progress = false, served = false;
		int ready, burst;

		/* A burst of WRITEs on a random QP with room. */
		k = (int)es_rand(&seed, ES_CQS);
		burst = 1 + (int)es_rand(&seed, 4);
		if (posted + burst > ES_WRS)
			burst = ES_WRS - posted;
		if (burst && cqs[k].posted - cqs[k].polled + burst <= ES_INFLIGHT) {
			struct es_cq *c = &cqs[k];

			for (i = 0; i < burst; i++, c->posted++, posted++)
				CHECK(!post_rdma(&c->a, IBV_WR_RDMA_WRITE, (uint64_t)k << 32 | c->posted,
						 0, c->a.m.mr->lkey, 64, (uintptr_t)c->b.m.buf,
						 c->b.m.mr->rkey), "post on QP %d", k);
			progress = true;
		}
		/* Sometimes a parked CQ is taken up again. */
		k = (int)es_rand(&seed, ES_CQS);
		if (cqs[k].parked && es_rand(&seed, 3) == 0) {
			CHECK(es_serve(&cqs[k], k, &seed), "serve parked CQ %d", k);
			progress = true;
		}
		/* Nothing else to do: every parked CQ is armed, then wait. */
		if (!progress) {
			for (k = 0; k < ES_CQS; k++)
				if (cqs[k].parked)
					CHECK(es_serve(&cqs[k], k, &seed), "serve parked CQ %d", k);
		}
		ready = poll(pfd, ES_CHANNELS, progress ? 0 : wait_ms);
		CHECK(ready >= 0, "poll: %s", strerror(errno));
		for (i = 0; i < ES_CHANNELS; i++)
			if (pfd[i].revents & POLLIN)
				CHECK(es_event(ch[i], i, cqs, &seed, &served), "event on channel %d", i);
		polled = 0;
		for (k = 0; k < ES_CQS; k++)
			polled += cqs[k].polled;
		if (!progress && !served) {
			for (k = 0; k < ES_CQS; k++)
				if (cqs[k].posted != cqs[k].polled)
					diag("CQ %d: %u posted, %u polled, %u events, %s", k,
					     cqs[k].posted, cqs[k].polled, cqs[k].events,
					     cqs[k].armed ? "armed" : "not armed");
			CHECK(false, "no event for %d ms with %u of %u completions polled: an event was lost",
			      wait_ms, polled, posted);
		}
	}

	/* The last arms may have fired for CQEs polled already: read them. */
	for (i = 0; i < ES_CHANNELS; i++) {
		bool served = false;

		while (fd_ready(ch[i]->fd, 0))
			CHECK(es_event(ch[i], i, cqs, &seed, &served), "late event on channel %d", i);
	}
	for (k = 0; k < ES_CQS; k++) {
		struct es_cq *c = &cqs[k];

		events += c->events;
		CHECK(c->polled == c->posted, "CQ %d: %u polled of %u", k, c->polled, c->posted);
		CHECK(!c->posted || c->events, "CQ %d: %u completions without an event", k, c->posted);
		CHECK(c->events <= c->posted, "CQ %d: %u events for %u completions", k, c->events,
		      c->posted);
		ibv_ack_cq_events(c->cq, c->events - c->acked);
		c->acked = c->events;
		CHECK(c->cq->comp_events_completed == c->events, "CQ %d: %u of %u events acknowledged",
		      k, c->cq->comp_events_completed, c->events);
	}
	diag("%u completions, %u events on %d CQs", posted, events, ES_CQS);
out:
	for (k = 0; k < ES_CQS; k++) {
		struct es_cq *c = &cqs[k];

		if (c->cq && c->events > c->acked)
			ibv_ack_cq_events(c->cq, c->events - c->acked);
		ep_destroy(&c->a);
		ep_destroy(&c->b);
		cq_free(&c->cq);
	}
	for (i = 0; i < ES_CHANNELS; i++)
		if (ch[i] && ibv_destroy_comp_channel(ch[i]))
			diag("ibv_destroy_comp_channel: %s", strerror(errno));
	two_close(&t);
	return rc;
}
