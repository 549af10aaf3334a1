#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Verbs behaviour the rdma-core tools do not show (ib_verbs_test.c, one
# libibverbs process driving mlx5_0 <-> mlx5_1): CQ overrun, RNR retry
# exhaustion, flush on error, MR access violations, several CQs on one
# completion channel, solicited-only notification, data integrity of
# WRITE/READ/SEND/inline/atomics, ibv_query_qp, SRQ events, UD datagrams,
# length errors and transport retry exhaustion, requests beyond the limits,
# the largest objects the limits allow (CQ of 2^21 - 1 entries, 1 GiB MR),
# CQ resize and completion event moderation (both drivers must implement
# them: -x).
# The same binary runs first on the IN-TREE mlx5_core/mlx5_ib (the
# oracle), then on ours; each of its cases is one line per driver. Once a driver is unloaded, every object created in the
# emulator while it was loaded (the test's and the driver's own, e.g. the
# in-tree driver's UMR QP) has been destroyed again.
#
# MLX5_VERBS_DRIVERS="in-tree ours" (default) picks the drivers,
# MLX5_VERBS_CASES="srq ud" some cases (default: all, ib_verbs_test -l).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/ib_verbs_test.c $dir/ib_verbs_lib.c $(ls "$dir"/ib_verbs_cases_*.c)"
bin=$bindir/ib_verbs_test
drivers=${MLX5_VERBS_DRIVERS:-in-tree ours}
# TCG is slow: a completion that must come may take seconds.
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (on other hardware run ib_verbs_test -d DEV0 -D DEV1)"

# A case that cannot run because an earlier one failed (no binary, the
# driver did not load or not unload) fails too: it was not run.

t_load() { verbs_load "$1"; }

# run DRIVER CASE: one case of the binary, in its own process.
run()
{
	[ -x "$bin" ] || { echo "not run: no ib_verbs_test binary"; return 1; }
	[ "$loaded" = "$1" ] || { echo "not run: $1 is not loaded (see its load case)"; return 1; }
	# Both drivers implement ibv_resize_cq and ibv_modify_cq.
	"$bin" -t "$WAIT_MS" -x "$2" >"$out/ib_verbs_$1_$2.txt" 2>&1
	r=$?
	cat "$out/ib_verbs_$1_$2.txt"
	return $r
}

# run_huge DRIVER: the data and srq cases with every CQ, QP and SRQ ring in
# 2 MiB hugetlb pages (the provider's MLX_{CQ,QP,SRQ}_ALLOC_TYPE=HUGE fails
# rather than fall back), so that the driver maps the rings with pages
# larger than 4 KiB and the device reads WQEs and writes CQEs through them.
run_huge()
{
	[ -x "$bin" ] || { echo "not run: no ib_verbs_test binary"; return 1; }
	[ "$loaded" = "$1" ] || { echo "not run: $1 is not loaded (see its load case)"; return 1; }
	[ -e /proc/sys/vm/nr_hugepages ] || { echo "SKIP: a kernel without hugetlb pages (no /proc/sys/vm/nr_hugepages)"; return "$KSFT_SKIP"; }
	old=$(cat /proc/sys/vm/nr_hugepages)
	echo 64 >/proc/sys/vm/nr_hugepages
	got=$(cat /proc/sys/vm/nr_hugepages)
	if [ "$got" -lt 64 ]; then
		echo "$old" >/proc/sys/vm/nr_hugepages
		echo "only $got of 64 huge pages reserved"
		return 1
	fi
	# The in-tree driver creates its UMR CQ and QP (kernel rings, 4 KiB
	# pages) at the first MR registration: one run of data before the
	# trace is cleared, so that the trace holds the test's rings only.
	"$bin" -t "$WAIT_MS" data >/dev/null 2>&1
	emu_ctl hca 0 trace-clear >/dev/null && emu_ctl hca 1 trace-clear >/dev/null || return 1
	MLX_CQ_ALLOC_TYPE=HUGE MLX_QP_ALLOC_TYPE=HUGE MLX_SRQ_ALLOC_TYPE=HUGE \
		"$bin" -t "$WAIT_MS" data srq >"$out/ib_verbs_$1_huge.txt" 2>&1
	r=$?
	echo "$old" >/proc/sys/vm/nr_hugepages
	cat "$out/ib_verbs_$1_huge.txt"
	# Each ring fits one 2 MiB page: one page list entry after the
	# 272-byte CREATE_CQ/QP/SRQ header.
	for h in 0 1; do
		emu_ctl hca $h trace | awk -v h=$h '
			/CREATE_(CQ|QP|SRQ)\(/ { n++
				for (i = 1; i <= NF; i++)
					if ($i ~ /^in=/ && substr($i, 4) + 0 > 280) {
						bad++; print "hca " h ": " $0
					} }
			END { print "hca " h ": " n + 0 " rings created, " bad + 0 " with more than one page"
			      exit (bad > 0 || n == 0) }' || r=1
	done
	return $r
}

# The binary the cases run (a stale prebuilt one rebuilt), before its
# case list (-l) plans them.
verbs_build_early "$dir/ib_verbs.h" -- -libverbs
cases=${MLX5_VERBS_CASES:-$("$bin" -l 2>/dev/null | cut -f1)}
[ -n "$cases" ] || cases="cq_overflow rnr_retry flush mr_access comp_channel solicited event_stress data query_qp srq ud mcast errors limits large cq_resize cq_moderation"
ncases=$(echo $cases | wc -w)
ndrv=$(echo $drivers | wc -w)

ktap_begin $((1 + ndrv * (ncases + 4)))
ktap_case "build ib_verbs_test" verbs_build_result
for drv in $drivers; do
	ktap_case "$drv: load mlx5_core mlx5_ib, both ports ACTIVE" t_load "$drv"
	for c in $cases; do
		ktap_case "$drv: $c" run "$drv" "$c"
	done
	ktap_case "$drv: data and srq with the CQ, QP and SRQ rings in 2 MiB pages" run_huge "$drv"
	ktap_case "$drv: unload mlx5_ib mlx5_core" verbs_unload "$drv"
	ktap_case "$drv: every PD, MKey, CQ, QP, SRQ created while loaded destroyed" verbs_no_leak
done
ktap_end
