// SPDX-License-Identifier: GPL-2.0
/*
 * upstream_verbs_test - ibv_rereg_mr and memory windows (verbs the in-tree
 * mlx5_ib builds on UMR WQEs; upstream_verbs_test.sh runs them on the
 * in-tree pair and on ours), checked through libibverbs on two RDMA devices
 * of one host (mlx5_0 and mlx5_1 by default) with traffic that proves them. Same
 * options and output as ib_verbs_test (ib_verbs_lib.c); add a case by
 * writing it in the upstream_verbs_cases_<topic>.c of its topic and naming
 * it in the table below.
 *
 * Cases:
 *   rereg_access       ibv_rereg_mr(CHANGE_ACCESS): remote write allowed,
 *                      then taken away again, proven by RDMA WRITEs
 *   rereg_pd           ibv_rereg_mr(CHANGE_PD): a QP of the old PD loses the
 *                      MR, a QP of the new PD writes through it
 *   rereg_translation  ibv_rereg_mr(CHANGE_TRANSLATION): the same key now
 *                      covers another buffer; writes land there, the old
 *                      range is refused
 *   mw_type1           ibv_alloc_mw(TYPE_1) + ibv_bind_mw: remote WRITE and
 *                      READ through the window into an MR without remote
 *                      rights, outside the window refused, a zero-length
 *                      bind invalidates it
 *   mw_type2           type 2 window bound by ibv_post_send(BIND_MW):
 *                      remote WRITE through it, refused to another QP,
 *                      IBV_WR_LOCAL_INV, then access fails
 *   mw_send_inv        a type 2 window invalidated by the peer's
 *                      SEND_WITH_INV (IBV_WC_WITH_INV, the rkey in the
 *                      completion), then access fails
 *   mw_rights          a window granting remote write over an MR without
 *                      local write is refused
 *   mw_dealloc         a bound type 2 window freed: its rkey is refused,
 *                      the buffer behind it untouched
 *
 * Exit status: 0 all passed, 1 a case failed, 4 every case skipped.
 */
#define _GNU_SOURCE
#include "upstream_verbs.h"

static const struct verbs_case cases[] = {
	{ "rereg_access", "ibv_rereg_mr access change: remote write granted, then revoked", case_rereg_access },
	{ "rereg_pd", "ibv_rereg_mr PD change: the old PD's QP refused, the new PD's QP writes",
	  case_rereg_pd },
	{ "rereg_translation", "ibv_rereg_mr translation change: writes land in the new buffer",
	  case_rereg_translation },
	{ "mw_type1", "type 1 window (ibv_bind_mw): remote WRITE/READ through it, bounds, zero-length bind",
	  case_mw_type1 },
	{ "mw_type2", "type 2 window (post_send BIND_MW): remote WRITE, other QP refused, LOCAL_INV",
	  case_mw_type2 },
	{ "mw_send_inv", "type 2 window invalidated by SEND_WITH_INV: IBV_WC_WITH_INV, access fails after",
	  case_mw_send_inv },
	{ "mw_rights", "a window granting remote write over an MR without local write is refused",
	  case_mw_rights },
	{ "mw_dealloc", "a bound window freed: access through its rkey refused", case_mw_dealloc },
};

int main(int argc, char **argv)
{
	return verbs_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
