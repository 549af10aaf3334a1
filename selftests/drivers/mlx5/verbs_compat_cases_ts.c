// SPDX-License-Identifier: GPL-2.0
/*
 * Completion timestamps: the device's free-running clock read by
 * ibv_query_rt_values_ex, CQEs stamped by the device (extended CQs with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP), and the provider's conversion to
 * wall clock time through the clock-info page the driver maps
 * (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK).
 */
#define _GNU_SOURCE
#include "verbs_compat.h"

/*
 * The wall clock timestamps may differ from the system's by this much: the
 * in-tree driver corrects its clock-info page rarely, and on the emulator
 * under TCG it drifted from CLOCK_REALTIME by 0.25 s a minute after the
 * load (ours refreshes the page every second). A timestamp that is not
 * the device clock's is hours off.
 */
#define WALL_SLACK_NS 1000000000LL

static int raw_clock(struct ibv_context *ctx, uint64_t *cycles)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int err = ibv_query_rt_values_ex(ctx, &v);

	if (err)
		return err;
	if (!(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return EOPNOTSUPP;
	*cycles = (uint64_t)v.raw_clock.tv_sec * 1000000000ULL + v.raw_clock.tv_nsec;
	return 0;
}

static long long real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Polls cq for one completion of wr_id; its timestamp in *ts. */
static int poll_ts(struct ibv_cq_ex *cq, uint64_t wr_id, bool wall, uint64_t *ts)
{
	struct ibv_poll_cq_attr pa = {};
	long long end = now_ms() + wait_ms;
	int err;

	while ((err = ibv_start_poll(cq, &pa)) == ENOENT) {
		if (now_ms() > end) {
			diag("no completion of wr_id 0x%llx within %d ms",
			     (unsigned long long)wr_id, wait_ms);
			return -1;
		}
		usleep(1000);
	}
	if (err) {
		diag("ibv_start_poll: %s", strerror(err));
		return -1;
	}
	err = cq->status != IBV_WC_SUCCESS || cq->wr_id != wr_id;
	if (err)
		diag("completion wr_id 0x%llx status %s, expected 0x%llx success",
		     (unsigned long long)cq->wr_id, wc_status(cq->status),
		     (unsigned long long)wr_id);
	*ts = wall ? ibv_wc_read_completion_wallclock_ns(cq) : ibv_wc_read_completion_ts(cq);
	ibv_end_poll(cq);
	return err ? -1 : 0;
}

struct ts_end {
	struct ibv_cq_ex *cq;
	struct ep e;
};

static int ts_end_create(struct ts_end *te, struct dev *d, uint64_t flag, int *err)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 2 * QP_DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS | flag,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
	};

	memset(te, 0, sizeof(*te));
	te->cq = ibv_create_cq_ex(d->ctx, &ca);
	if (!te->cq) {
		*err = errno;
		return -1;
	}
	*err = 0;
	return ep_create(&te->e, d, ibv_cq_ex_to_cq(te->cq), ibv_cq_ex_to_cq(te->cq), MR_ALL,
			 &default_opts);
}

static void ts_end_destroy(struct ts_end *te)
{
	ep_destroy(&te->e);
	if (te->cq && ibv_destroy_cq(ibv_cq_ex_to_cq(te->cq)))
		diag("ibv_destroy_cq: %s", strerror(errno));
	te->cq = NULL;
}

static int ts_case(bool wall)
{
	uint64_t flag = wall ? IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK :
			       IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	struct ibv_device_attr_ex ax;
	struct ts_end te[2] = {};
	uint64_t lo[2], hi[2], ts[2];
	struct two t = {};
	int rc = KSFT_PASS, err, i;

	CHECK(!two_open(&t), "open devices");
	CHECK(!ibv_query_device_ex(t.d[0].ctx, NULL, &ax), "ibv_query_device_ex: %s",
	      strerror(errno));
	obs("device", "completion_timestamp_mask %s, hca_core_clock %s",
	    ax.completion_timestamp_mask ? "set" : "0", ax.hca_core_clock ? "set" : "0");
	if (!wall) {
		err = raw_clock(t.d[0].ctx, &lo[0]);
		obs("ibv_query_rt_values_ex raw clock", "%s", err_name(err));
	}
	for (i = 0; i < 2; i++) {
		if (!ts_end_create(&te[i], &t.d[i], flag, &err))
			continue;
		CHECK(err, "end %d", i);
		obs("ibv_create_cq_ex with the timestamp flag", "%s", err_name(err));
		CHECK(err == EOPNOTSUPP, "ibv_create_cq_ex: %s", strerror(err));
		diag("SKIP: CQs with %s timestamps are not served", wall ? "wall clock" : "raw");
		rc = KSFT_SKIP;
		goto out;
	}
	obs("ibv_create_cq_ex with the timestamp flag", "0");
	CHECK(ax.completion_timestamp_mask && ax.hca_core_clock,
	      "timestamp CQs served without a clock (mask 0x%llx, %llu kHz)",
	      (unsigned long long)ax.completion_timestamp_mask,
	      (unsigned long long)ax.hca_core_clock);
	CHECK(!pair_connect(&te[0].e, &te[1].e, &default_opts, &default_opts), "connect");
	CHECK(!post_recv(&te[1].e, 0xb0, 0, 4096), "post receive");
	for (i = 0; i < 2; i++) {
		if (wall)
			lo[i] = real_ns();
		else
			CHECK(!(err = raw_clock(t.d[i].ctx, &lo[i])), "raw clock: %s", strerror(err));
	}
	CHECK(!post_send(&te[0].e, 0xa0, 0, 64, IBV_SEND_SIGNALED), "post SEND");
	CHECK(!poll_ts(te[0].cq, 0xa0, wall, &ts[0]), "SEND completion");
	CHECK(!poll_ts(te[1].cq, 0xb0, wall, &ts[1]), "RECV completion");
	for (i = 0; i < 2; i++) {
		if (wall)
			hi[i] = real_ns();
		else
			CHECK(!(err = raw_clock(t.d[i].ctx, &hi[i])), "raw clock: %s", strerror(err));
	}
	for (i = 0; i < 2; i++) {
		diag("%s completion: %s %llu, clock before %llu, after %llu", i ? "RECV" : "SEND",
		     wall ? "wall clock ns" : "cycles", (unsigned long long)ts[i],
		     (unsigned long long)lo[i], (unsigned long long)hi[i]);
		if (wall)
			CHECK(ts[i] + WALL_SLACK_NS >= lo[i] && ts[i] <= hi[i] + WALL_SLACK_NS,
			      "wall clock timestamp %lld ns off [before, after]",
			      ts[i] < lo[i] ? (long long)(ts[i] - lo[i]) : (long long)(ts[i] - hi[i]));
		else
			CHECK(ts[i] >= lo[i] && ts[i] <= hi[i],
			      "timestamp outside the clock reads around it");
	}
	obs("timestamps between the clock reads", "yes");
out:
	for (i = 0; i < 2; i++)
		ts_end_destroy(&te[i]);
	two_close(&t);
	return rc;
}

int case_ts_raw(void)
{
	return ts_case(false);
}

int case_ts_wallclock(void)
{
	return ts_case(true);
}
