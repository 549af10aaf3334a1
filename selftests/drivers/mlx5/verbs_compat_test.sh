#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Verbs of the unmodified rdma-core userspace that our mlx5_ib must serve as
# the in-tree one does (verbs_compat_test.c, one libibverbs/mlx5dv process
# driving mlx5_0 <-> mlx5_1): QP and MR access flags, full RQ and SRQ,
# mlx5dv_query_port, parent domains with and without custom allocators (one
# variant allocating inside a huge page), mlx5dv mkeys, completion
# timestamps (raw and wall clock), object import, DMA-BUF MRs (udmabuf;
# deregistered under a stream of RDMA into them; a buffer of the test-only
# dynamic exporter dmabuf_exporter/mlx5_test_dmabuf.ko moved: refused while
# pinned, invalidating our movable registration, re-mapped by the in-tree
# driver through ODP page faults), device memory (ibv_alloc_dm, MEMIC).
# The same binary runs first on the IN-TREE mlx5_core/mlx5_ib, then on
# ours; each case is one line per driver, then one line "ours = in-tree"
# comparing what the case observed on both ("# obs" lines: return codes,
# errno, granted limits).
# A case that skips on both drivers (the verb is not served) is a skip of
# the comparison too, never a pass.
#
# A case in known_gaps fails on ours for the reason given there: its lines
# for ours are skips with that reason while it fails, and fail once it
# passes (then take it off the list).
#
# MLX5_COMPAT_CASES="pd_alloc import" runs some cases (default: all,
# verbs_compat_test -l).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/verbs_compat_test.c $dir/ib_verbs_lib.c $(ls "$dir"/verbs_compat_cases_*.c)"
bin=$bindir/verbs_compat_test
drivers="in-tree ours"
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (on other hardware run verbs_compat_test -d DEV0 -D DEV1)"

# One line per gap: "CASE:reason".
known_gaps=""

# Cases the IN-TREE driver refuses (skips, EOPNOTSUPP) on this kernel for
# the reason given (one the emulator does not model): its line is a skip
# with that reason, and
# the comparison too (nothing to compare); it fails once the in-tree
# driver passes (then take it off the list).
intree_gaps=""

# Single observations that differ between the drivers for a reason, one per
# line: "ERE :: reason" (the ERE matched against the "# obs" lines of
# every case); the rest of the case is compared.
obs_explained="^# obs ON_DEMAND: ibv_reg_mr :: ODP MRs: the in-tree mlx5_ib registers them since the emulator advertises ODP (HCA cap pg, RC RDMA WRITE/READ responder page faults: emu/src/exec/odp.cc); ours has no ODP (EOPNOTSUPP)"

# Cases whose observations differ between the drivers by design, "CASE:reason":
# the comparison is a skip with that reason while they differ (and passes
# if they agree).
differences="dmabuf_move:the in-tree mlx5_ib is always a movable importer, re-mapping a moved buffer through ODP page faults (the emulator's PAGE_FAULT events, exec/odp.cc); ours pins DMA-BUFs by default (the move is refused) and, with dmabuf_movable=1, invalidates the MR on a move"

# Cases that run on a slowed link, "CASE:MS" (emulator: every packet MS ms
# late): dmabuf_dereg's stream must still be on the wire when it
# deregisters the region.
slow_link="dmabuf_dereg:20"

# gap CASE [LIST]: the reason CASE is on LIST (default: known_gaps), or nothing.
gap()
{
	printf '%s\n' "${2-$known_gaps}" | awk -F: -v c="$1" '$1 == c { sub(/^[^:]*:/, ""); print }'
}

t_load() { verbs_load "$1"; }

# PAGE_FAULT events HCA 0 raised so far (emu/src/exec/odp.cc).
page_faults() { emu_ctl hca 0 stats | awk '$1 == "dp" && $2 == "page_faults" { print $3 }'; }

# run DRIVER CASE: one case in its own process; a signal is a failure.
run()
{
	[ -x "$bin" ] || { echo "not run: no verbs_compat_test binary"; return 1; }
	[ "$loaded" = "$1" ] || { echo "not run: $1 is not loaded (see its load case)"; return 1; }
	delay=$(gap "$2" "$slow_link")
	if [ -n "$delay" ]; then
		emu_ctl link delay "$delay" >/dev/null || { echo "emu_ctl link delay $delay failed"; return 1; }
	fi
	pf0=$(page_faults)
	"$bin" -t "$WAIT_MS" "$2" >"$out/compat_$1_$2.txt" 2>&1
	r=$?
	# The in-tree driver's moved MR is re-mapped through a page fault of
	# HCA 0 (the responder of the WRITE after the move).
	if [ "$1 $2" = "in-tree dmabuf_move" ] && [ $r = 0 ] && ! [ "$(page_faults)" -gt "$pf0" ]; then
		echo "no PAGE_FAULT event from HCA 0 (page_faults $pf0 -> $(page_faults))"
		r=1
	fi
	if [ -n "$delay" ]; then
		emu_ctl link delay 0 >/dev/null || { echo "emu_ctl link delay 0 failed"; r=1; }
	fi
	echo $r >"$out/compat_$1_$2.rc"
	cat "$out/compat_$1_$2.txt"
	[ $r -gt 128 ] && echo "killed by signal $((r - 128))"
	# The reason of a skip last: KTAP takes it from the last line.
	[ $r = 4 ] && sed -n 's/^# # SKIP: //p' "$out/compat_$1_$2.txt" | tail -n 1
	why=$(gap "$2")
	if [ "$1" = ours ] && [ -n "$why" ]; then
		[ $r = 0 ] && { echo "known gap closed: take $2 off known_gaps"; return 1; }
		[ $r = 1 ] && { echo "SKIP: known gap: $why"; return 4; }
	fi
	why=$(gap "$2" "$intree_gaps")
	if [ "$1" = in-tree ] && [ -n "$why" ]; then
		[ $r = 0 ] && { echo "in-tree gap closed: take $2 off intree_gaps"; return 1; }
		[ $r = 4 ] && { echo "SKIP: in-tree gap: $why"; return 4; }
	fi
	return $r
}

# same CASE: the case observed the same on both drivers.
same()
{
	a=$out/compat_in-tree_$1.txt b=$out/compat_ours_$1.txt
	[ -f "$a" ] && [ -f "$b" ] || { echo "not run on both drivers"; return 1; }
	why=$(gap "$1" "$intree_gaps")
	if [ -n "$why" ] && [ "$(cat "${a%.txt}.rc")" = 4 ]; then
		echo "SKIP: in-tree gap, nothing to compare: $why"
		return 4
	fi
	grep '^# obs ' "$a" >"$a.obs"
	grep '^# obs ' "$b" >"$b.obs"
	# Observations that differ as explained: shown with the reason, then
	# left out of the comparison.
	printf '%s\n' "$obs_explained" | while IFS= read -r l; do
		[ -n "$l" ] || continue
		re=${l%% :: *}
		x=$(grep -E -- "$re" "$a.obs") y=$(grep -E -- "$re" "$b.obs")
		[ "$x" != "$y" ] && printf 'explained: in-tree "%s", ours "%s": %s\n' "$x" "$y" "${l#* :: }"
	done
	printf '%s\n' "$obs_explained" | sed -n 's/ :: .*//p' >"$out/compat_explained_re"
	if [ -s "$out/compat_explained_re" ]; then
		grep -Ev -f "$out/compat_explained_re" "$a.obs" >"$a.obs2"; mv "$a.obs2" "$a.obs"
		grep -Ev -f "$out/compat_explained_re" "$b.obs" >"$b.obs2"; mv "$b.obs2" "$b.obs"
	fi
	if ! diff -u "$a.obs" "$b.obs" >"$out/compat_diff_$1.txt"; then
		tail -n +3 "$out/compat_diff_$1.txt"
		echo "(- in-tree, + ours)"
		why=$(gap "$1")
		[ -n "$why" ] && { echo "SKIP: known gap: $why"; return 4; }
		why=$(gap "$1" "$differences")
		[ -n "$why" ] && { echo "SKIP: different by design: $why"; return 4; }
		return 1
	fi
	[ -n "$(gap "$1")" ] && { echo "known gap closed: take $1 off known_gaps"; return 1; }
	if [ "$(cat "${a%.txt}.rc")" = 4 ] && [ "$(cat "${b%.txt}.rc")" = 4 ]; then
		echo "SKIP: not served by either driver"
		return 4
	fi
	[ -s "$a.obs" ] || { echo "nothing observed"; return 1; }
	echo "same on both drivers"
}

# The binary the cases run (a stale prebuilt one rebuilt), before its
# case list (-l) plans them.
verbs_build_early "$dir/ib_verbs.h" "$dir/verbs_compat.h" -- -libverbs -lmlx5
cases=${MLX5_COMPAT_CASES:-$("$bin" -l 2>/dev/null | cut -f1)}
[ -n "$cases" ] || cases="qp_access mr_access rq_full srq_full dv_query_port pd_no_alloc pd_alloc pd_alloc_huge dv_mkey ts_raw ts_wallclock import dmabuf dmabuf_dereg dmabuf_move dm"
ncases=$(echo $cases | wc -w)

# dmabuf_dereg finds its DMA-BUF in debugfs (dma_buf/bufinfo).
mount -t debugfs none /sys/kernel/debug 2>/dev/null

# dmabuf_move's buffers come from the test-only dynamic exporter (make
# selftests builds it for the toolbox kernel; elsewhere the case skips,
# saying so).
exp_ko=${MLX5_TEST_DMABUF_KO:-$dir/dmabuf_exporter/mlx5_test_dmabuf.ko}
exp_loaded=
if ! grep -q '^mlx5_test_dmabuf ' /proc/modules; then
	insmod "$exp_ko" 2>"$out/mlx5_test_dmabuf.insmod.txt" && exp_loaded=1
fi

# pd_alloc_huge carves its rings from one 2 MiB huge page per device.
old_huge=$(cat /proc/sys/vm/nr_hugepages)
[ "$old_huge" -ge 4 ] || echo 4 >/proc/sys/vm/nr_hugepages

ktap_begin $((1 + 2 * (ncases + 3) + ncases))
ktap_case "build verbs_compat_test" verbs_build_result
for drv in $drivers; do
	ktap_case "$drv: load mlx5_core mlx5_ib, both ports ACTIVE" t_load "$drv"
	for c in $cases; do
		ktap_case "$drv: $c" run "$drv" "$c"
	done
	ktap_case "$drv: unload mlx5_ib mlx5_core" verbs_unload "$drv"
	ktap_case "$drv: every PD, MKey, CQ, QP, SRQ created while loaded destroyed" verbs_no_leak
done
for c in $cases; do
	ktap_case "ours = in-tree: $c" same "$c"
done
echo "$old_huge" >/proc/sys/vm/nr_hugepages
[ -z "$exp_loaded" ] || rmmod mlx5_test_dmabuf
ktap_end
