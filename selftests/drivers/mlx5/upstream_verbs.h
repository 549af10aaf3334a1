/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upstream_verbs.h - the cases of upstream_verbs_test (rereg and memory
 * windows, run on the in-tree mlx5_ib and on ours), one file per topic:
 * upstream_verbs_cases_mr.c (ibv_rereg_mr), upstream_verbs_cases_mw.c
 * (memory windows). The helpers are ib_verbs_lib.c's (ib_verbs.h).
 */
#ifndef UPSTREAM_VERBS_H
#define UPSTREAM_VERBS_H
#include "ib_verbs.h"

int case_rereg_access(void);
int case_rereg_pd(void);
int case_rereg_translation(void);
int case_mw_type1(void);
int case_mw_type2(void);
int case_mw_send_inv(void);
int case_mw_rights(void);
int case_mw_dealloc(void);

#endif /* UPSTREAM_VERBS_H */
