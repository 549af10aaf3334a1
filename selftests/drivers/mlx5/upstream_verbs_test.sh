#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ibv_rereg_mr and memory windows (upstream_verbs_test.c, one libibverbs
# process driving mlx5_0 <-> mlx5_1): rereg changing access, PD and
# translation, type 1 and type 2 memory windows bound, used for remote
# WRITE/READ and invalidated (zero-length bind, LOCAL_INV, the peer's
# SEND_WITH_INV), a bind granting more than its MR allows. The in-tree pair
# first, then ours, in the same boot: the same cases, each named with its
# driver, and a table of both results at the end.
#
# The emulator executed UMR WQEs: the in-tree driver's on both HCAs (its MR
# cache, rereg in place, the binds), ours on mlx5_1 (the provider's binds,
# our rereg of rights and PD in place through our UMR QP). Every object
# created while a driver was loaded (the test's, each driver's UMR QP, the
# in-tree driver's MR cache) was
# destroyed again once it is unloaded.
#
# MLX5_UPSTREAM_VERBS_CASES="mw_type1 rereg_pd" runs some cases (default:
# all, upstream_verbs_test -l).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/upstream_verbs_test.c $dir/ib_verbs_lib.c $(ls "$dir"/upstream_verbs_cases_*.c)"
bin=$bindir/upstream_verbs_test
# TCG is slow: a completion that must come may take seconds.
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (on other hardware run upstream_verbs_test -d DEV0 -D DEV1)"

umr_wqes() { emu_ctl hca "$1" stats | awk '$1 == "dp" && $2 == "umr_wqes" { n = $3 } END { print n + 0 }'; }

# The UMR WQE counters before the load: the in-tree driver's MR cache and
# our pair's window binds show up in them.
t_load()
{
	umr0=$(umr_wqes 0) umr1=$(umr_wqes 1)
	verbs_load "$pair"
}

# results: "case pair ok|FAIL" lines, for the table at the end.
results=

run()
{
	r=1
	if [ ! -x "$bin" ]; then
		echo "not run: no upstream_verbs_test binary"
	elif [ -z "$loaded" ]; then
		echo "not run: the $pair driver is not loaded (see the load case)"
	else
		"$bin" -t "$WAIT_MS" "$1" >"$out/upstream_verbs_${pair}_$1.txt" 2>&1
		r=$?
		cat "$out/upstream_verbs_${pair}_$1.txt"
	fi
	v=FAIL
	[ "$r" = 0 ] && v=ok
	results="$results$1 $pair $v
"
	return $r
}

# The cases went through UMR WQEs the emulator executed: the in-tree
# driver's on both HCAs (MR registration from its cache on both, rereg and
# binds on mlx5_1), ours on mlx5_1 (the binds the provider posts there,
# rereg in place).
t_umr_used()
{
	[ -n "$loaded" ] || { echo "not run: the $pair driver is not loaded"; return 1; }
	n0=$(( $(umr_wqes 0) - umr0 )) n1=$(( $(umr_wqes 1) - umr1 ))
	echo "UMR WQEs executed: hca 0 $n0, hca 1 $n1"
	[ "$n1" -gt 0 ] || return 1
	[ "$pair" = ours ] || [ "$n0" -gt 0 ]
}

# The table: one line per case, the in-tree result beside ours.
t_table()
{
	printf '%-20s %-8s %s\n' case in-tree ours
	rc=0
	for c in $cases; do
		it=$(printf '%s' "$results" | awk -v c="$c" '$1 == c && $2 == "in-tree" { print $3 }')
		us=$(printf '%s' "$results" | awk -v c="$c" '$1 == c && $2 == "ours" { print $3 }')
		printf '%-20s %-8s %s\n' "$c" "${it:-none}" "${us:-none}"
		[ "$it" = ok ] && [ "$us" = ok ] || rc=1
	done
	return $rc
}

# The binary the cases run (a stale prebuilt one rebuilt), before its
# case list (-l) plans them.
verbs_build_early "$dir/ib_verbs.h" "$dir/upstream_verbs.h" -- -libverbs
cases=${MLX5_UPSTREAM_VERBS_CASES:-$("$bin" -l 2>/dev/null | cut -f1)}
[ -n "$cases" ] || cases="rereg_access rereg_pd rereg_translation mw_type1 mw_type2 mw_send_inv mw_rights mw_dealloc"

ktap_begin $(( 2 * ($(echo $cases | wc -w) + 4) + 2 ))
ktap_case "build upstream_verbs_test" verbs_build_result
for pair in in-tree ours; do
	ktap_case "load mlx5_core mlx5_ib, both ports ACTIVE [$pair]" t_load
	for c in $cases; do
		ktap_case "$c [$pair]" run "$c"
	done
	ktap_case "the emulator executed UMR WQEs [$pair]" t_umr_used
	ktap_case "unload mlx5_ib mlx5_core [$pair]" verbs_unload "$pair"
	ktap_case "every PD, MKey, CQ, QP, SRQ created while loaded destroyed [$pair]" verbs_no_leak
done
ktap_case "every case passed on both pairs (table)" t_table
ktap_end
