/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs_compat.h - the cases of verbs_compat_test: verbs of the unmodified
 * rdma-core userspace (libibverbs and the mlx5 provider) that run the same
 * on the in-tree mlx5_ib and on ours. Each case checks what must hold on
 * any driver and prints what it observed as "# obs KEY: VALUE" lines;
 * verbs_compat_test.sh runs it on both drivers and compares those lines.
 * One file per topic: verbs_compat_cases_<topic>.c. The helpers are
 * ib_verbs_lib.c's (ib_verbs.h).
 */
#ifndef VERBS_COMPAT_H
#define VERBS_COMPAT_H
#include "ib_verbs.h"

/* One observation the drivers must agree on. */
void obs(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "0" for success, else the errno's symbolic name ("EINVAL"). */
const char *err_name(int err);

/*
 * OBS_OR_SKIP(what, ok, err): observe what WHAT gave (0 or ERR's name),
 * then, if it failed with EOPNOTSUPP, end the case as a skip (a driver
 * without the verb); another failure is left to the CHECK that follows.
 */
#define OBS_OR_SKIP(what, ok, err) do {					\
	obs(what, "%s", err_name(err));					\
	if (!(ok) && (err) == EOPNOTSUPP) {				\
		diag("SKIP: %s: %s", what, strerror(err));		\
		rc = KSFT_SKIP;						\
		goto out;						\
	}								\
} while (0)

/*
 * One RC end point whose QP, CQs and SRQ the case made (e.g. on a parent
 * domain); a buffer registered on the device's own PD.
 */
struct cep {
	struct ep e;
	struct ibv_srq *srq;
};

/* SEND a -> b (into b's RQ or SRQ) and RDMA WRITE a -> b, data checked. */
int compat_traffic(struct ep *a, struct ep *b, bool b_srq);

int case_qp_access(void);
int case_mr_access(void);
int case_rq_full(void);
int case_srq_full(void);
int case_dv_query_port(void);
int case_pd_no_alloc(void);
int case_pd_alloc(void);
int case_pd_alloc_huge(void);
int case_dv_mkey(void);
int case_ts_raw(void);
int case_ts_wallclock(void);
int case_import(void);
int case_dmabuf(void);
int case_dmabuf_dereg(void);
int case_dmabuf_move(void);
int case_dm(void);

#endif /* VERBS_COMPAT_H */
