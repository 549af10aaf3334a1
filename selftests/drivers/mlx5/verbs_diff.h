/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs_diff.h - the cases of verbs_diff_test: every libibverbs/mlx5dv verb
 * the emulator serves, with valid and invalid arguments, each call traced
 * as one normalized line ("# T CASE VERB VARIANT RESULT [FIELD=VALUE...]").
 * verbs_diff_test.sh runs the program on the in-tree pair and on ours and
 * diffs the traces. RESULT is "0" or the errno's name; fields hold what the
 * drivers must agree on (queried attributes, granted capacities, completion
 * opcode/status/byte_len/flags/imm), never what legitimately differs
 * (handles, QPNs, keys, addresses, timestamps: those are printed as how
 * they relate, e.g. "peer" for the peer's QPN). Helpers: ib_verbs_lib.c.
 */
#ifndef VERBS_DIFF_H
#define VERBS_DIFF_H
#include "ib_verbs.h"
#include <infiniband/mlx5dv.h>

/* The case being traced (set by the runner). */
extern const char *tr_case;

/* Trace line: verb, variant, result (0 or an errno value), then fields. */
void tr(const char *verb, const char *variant, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The errno of a verb's int return: 0, a positive errno, or -1 and errno. */
int ret_err(int ret);

/* The errno of a verb that returns an object (NULL and errno on failure). */
static inline int ptr_err(const void *p)
{
	return p ? 0 : (errno ? errno : -1);
}

/* Errno's symbolic name, "0" for success. */
const char *ename(int err);

/* One completion's comparable fields, "self"/"peer" for QPNs. */
void tr_wc(const char *verb, const char *variant, int n, const struct ibv_wc *wc,
	   uint32_t self_qpn, uint32_t peer_qpn);

/* Query the QP and trace the attributes that do not depend on QPNs. */
void tr_query_qp(const char *variant, struct ibv_qp *qp, uint32_t peer_qpn);

/* Polls cq for up to n completions within ms (wait_wc) and traces each. */
int tr_poll(struct ibv_cq *cq, const char *variant, int n, int ms, uint32_t self_qpn,
	    uint32_t peer_qpn);

/* Random numbers of the random case (xorshift64*), seeded. */
uint64_t rnd(void);
void rnd_seed(uint64_t s);

int case_device(void);
int case_pd_mr(void);
int case_mw(void);
int case_dm(void);
int case_import(void);
int case_td_parent(void);
int case_cq(void);
int case_channel(void);
int case_srq(void);
int case_xrc(void);
int case_qp_create(void);
int case_qp_states(void);
int case_ah(void);
int case_mcast(void);
int case_post_rc(void);
int case_post_ud(void);
int case_post_errors(void);
int case_qp_ex(void);
int case_events(void);
int case_dv(void);
int case_misc(void);
int case_random(void);

#endif /* VERBS_DIFF_H */
