#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Differential verbs test: verbs_diff_test.c calls every libibverbs/mlx5dv
# verb the emulator serves, with valid and invalid arguments, and traces
# each call as one normalized line (verb, variant, result/errno, queried
# attributes, completion fields; never handles, QPNs, keys or addresses).
# The same binary runs on the IN-TREE mlx5_core/mlx5_ib, then on ours, in
# one boot on the same emulator; then, per case, the two traces are diffed
# (lib.sh's trace_diff): every difference must match a line of $explained
# below (an ERE on the trace line, and the reason). An entry that explains
# nothing any more fails the last case: take it off.
#
# MLX5_DIFF_CASES="cq srq" runs some cases (default: all but random, which
# verbs_random_test.sh runs).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/verbs_diff_test.c $dir/ib_verbs_lib.c $dir/ib_uverbs_raw.c $(ls "$dir"/verbs_diff_cases_*.c)"
bin=$bindir/verbs_diff_test
drivers="in-tree ours"
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (on other hardware run verbs_diff_test -d DEV0 -D DEV1)"

# Differences with their reason, one per line: "ERE :: reason". The ERE is
# matched against a trace line "CASE VERB VARIANT RESULT FIELDS...".
explained="^device ibv_query_device mlx5_0 0 .* max_mr_size=(0x100000000|0xffffffffffffffff) :: max_mr_size: ours puts the whole MTT list in one CREATE_MKEY (at most 4 GiB in 4 KiB pages); the in-tree driver reports ~0 (no bound)
^pd_mr ibv_reg_mr beyond_max_mr_size :: follows max_mr_size: beyond the in-tree's ~0 wraps to a 4095-byte MR; beyond ours' 4 GiB is EINVAL
^device ibv_query_gid(_ex)? port1_idx1 :: GID index 1 (unset): the in-tree driver reads GIDs through MAD_IFC (GUIDInfo; the emulator has no ib_virt) and gets the subnet prefix with a zero GUID, a valid entry to ib_core; ours reads QUERY_HCA_VPORT_GID, whose unset entries are all zero, which ib_core reports as empty (ENODATA)
^device ibv_query_gid_table 8 :: the same: the in-tree table holds 8 prefix-only entries, ours the one GID set
^[a-z_]+ ibv_query_qp [^ ]+ 0 port= :: query_qp's port numbers: the in-tree driver reads them back from the firmware's QPC (1 from creation on, in the AV too before one is given); ours reports what was applied (0 until INIT, the AV's port once IB_QP_AV is set)
^qp_states ibv_(modify|query)_qp (rc|uc)_rts_to_rts_(mig|alt_path) :: ours has no automatic path migration: IB_QP_ALT_PATH and IB_QP_PATH_MIG_STATE are EOPNOTSUPP
^qp_states ibv_(modify|query)_qp (rc|uc)_(init_to_rtr_rnr_timer40|rtr_to_rts_(retry8|rnr_retry8|timeout40)) :: values beyond their field (IB: 5-bit min_rnr_timer and ack timeout, 3-bit retry counts): ours refuses them (EINVAL), the in-tree driver writes them truncated
^qp_states ibv_query_qp (rc|uc)_init_to_rtr_sl16 0 av[.] :: SL 16 (a 4-bit field): both take it; ours reports it as applied, the in-tree driver reads back the truncated 0
^qp_create ibv_create_qp raw_packet :: raw packet QPs on an InfiniBand port: the in-tree driver's EINVAL; ours has no raw packet QPs (EOPNOTSUPP)
^qp_create ibv_create_qp 0x0 :: a QP with no send and no receive WR: the in-tree driver creates it (no SQ, zero RQ); ours needs at least one WR (EINVAL)
^qp_states ibv_modify_qp (rc|uc)_sqd_to_sqd_notify :: IB_QP_EN_SQD_ASYNC_NOTIFY on an RTS QP (the SQD before failed on both): ours refuses the attribute it never applies (EOPNOTSUPP) before the transition, the in-tree driver the transition (EINVAL)
^dv mlx5dv_query_device all_masks :: max_clock_info_update_nsec: ours refreshes the clock-info page every second (1000000000); the in-tree driver reports its own estimate from the clock's shift and mask
^misc ibv_create_counters plain :: ours has no flow counters (the counters object's methods are not registered: EPROTONOSUPPORT)
^misc ibv_create_flow rc_qp_no_specs :: ours has no flow steering (EOPNOTSUPP); the in-tree driver refuses a flow on an RC QP (EINVAL)
^device ibv_query_device_ex [^ ]+ 0 comp_mask=0x0 odp[.]general=0x[01] odp[.]rc=0x[0c] odp[.]uc=0x0 odp[.]ud=0x0 :: ODP caps: the in-tree driver reports the emulator's ODP (IBV_ODP_SUPPORT, RC RDMA WRITE and READ responder page faults: emu/src/exec/odp.cc); ours has no ODP (0)
^misc ibv_reg_mr odp :: ODP MRs: the in-tree driver registers them on the emulator's ODP; ours has no ODP (EOPNOTSUPP)
^misc ibv_advise_mr prefetch_non_odp :: with ODP the in-tree driver serves advise_mr and refuses to prefetch a non-ODP MR (ENOENT); ours has no advise_mr (EOPNOTSUPP)"

t_load() { verbs_load "$1"; }

# run DRIVER: every case in one process; its trace in $out/diff_DRIVER.txt.
run() { verbs_trace_run "$1" "$out/diff_$1.txt" -t "$WAIT_MS" $cases; }

# same CASE: the case's trace lines on both drivers, differences explained.
same()
{
	a=$out/diff_in-tree.txt b=$out/diff_ours.txt
	[ -f "$a" ] && [ -f "$b" ] || { echo "not run on both drivers"; return 1; }
	grep "^# T $1 " "$a" >"$out/diff_in-tree_$1.txt"
	grep "^# T $1 " "$b" >"$out/diff_ours_$1.txt"
	[ -s "$out/diff_in-tree_$1.txt" ] || { echo "nothing traced"; return 1; }
	echo "$(wc -l <"$out/diff_in-tree_$1.txt") lines in-tree, $(wc -l <"$out/diff_ours_$1.txt") ours"
	trace_diff "$out/diff_in-tree_$1.txt" "$out/diff_ours_$1.txt" "$explained"
}

# Every entry of $explained explained a difference in this run.
none_stale()
{
	rc=0
	printf '%s\n' "$explained" | while IFS= read -r l; do
		[ -n "$l" ] || continue
		re=${l%% :: *}
		grep -qxF -- "$re" "$out/trace_explained" 2>/dev/null ||
			{ echo "explains nothing now, take it off: $l"; echo stale >>"$out/trace_stale"; }
	done
	[ ! -s "$out/trace_stale" ]
}

verbs_build_early "$dir/ib_verbs.h" "$dir/verbs_diff.h" "$dir/ib_udata.h" -- -libverbs -lmlx5
cases=${MLX5_DIFF_CASES:-$("$bin" -l 2>/dev/null | cut -f1 | grep -v '^random$')}
[ -n "$cases" ] || cases="device"
ncases=$(echo $cases | wc -w)
rm -f "$out/trace_explained" "$out/trace_stale"

ktap_begin $((1 + 2 * 4 + ncases + 1))
ktap_case "build verbs_diff_test" verbs_build_result
for drv in $drivers; do
	ktap_case "$drv: load mlx5_core mlx5_ib, both ports ACTIVE" t_load "$drv"
	ktap_case "$drv: every verb traced ($ncases cases)" run "$drv"
	ktap_case "$drv: unload mlx5_ib mlx5_core" verbs_unload "$drv"
	ktap_case "$drv: every object created while loaded destroyed" verbs_no_leak
done
for c in $cases; do
	ktap_case "ours = in-tree: $c" same "$c"
done
ktap_case "every explained difference still differs" none_stale
ktap_end
