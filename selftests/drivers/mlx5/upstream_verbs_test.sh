#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Verbs the IN-TREE mlx5_ib implements with UMR WQEs and memory windows
# (upstream_verbs_test.c, one libibverbs process driving mlx5_0 <-> mlx5_1):
# ibv_rereg_mr changing access, PD and translation, type 1 and type 2
# memory windows bound, used for remote WRITE/READ and invalidated (zero-
# length bind, LOCAL_INV, the peer's SEND_WITH_INV), a bind granting more
# than its MR allows. Each case of the binary is one line. The emulator
# executed UMR WQEs for the MR cache, rereg and the binds (its umr_wqes
# counter grew on both HCAs), and every object created while the driver
# was loaded (the test's, the driver's UMR QP and MR cache) was destroyed
# again once it is unloaded.
#
# MLX5_UPSTREAM_VERBS_CASES="mw_type1 rereg_pd" runs some cases (default:
# all, upstream_verbs_test -l).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/upstream_verbs_test.c $dir/ib_verbs_lib.c $(ls "$dir"/upstream_verbs_cases_*.c)"
bin=$dir/upstream_verbs_test
# TCG is slow: a completion that must come may take seconds.
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (on other hardware run upstream_verbs_test -d DEV0 -D DEV1)"

t_build()
{
	fresh=1
	for f in $srcs "$dir/ib_verbs.h" "$dir/upstream_verbs.h"; do [ "$f" -nt "$bin" ] && fresh=0; done
	if [ -x "$bin" ] && [ "$fresh" = 1 ]; then
		echo "using $bin"
		return 0
	fi
	command -v cc >/dev/null || { echo "no compiler and no prebuilt $bin"; return 1; }
	bin=$out/upstream_verbs_test
	cc -O2 -Wall -Wextra -o "$bin" $srcs -libverbs
}

umr_wqes() { emu_ctl hca "$1" stats | awk '$1 == "dp" && $2 == "umr_wqes" { n = $3 } END { print n + 0 }'; }

t_load()
{
	loaded= snapped=
	[ -x "$bin" ] || { echo "no upstream_verbs_test binary (see the build case)"; return 1; }
	baseline=$(emu_obj_snapshot 0 1) && snapped=1
	umr0=$(umr_wqes 0) umr1=$(umr_wqes 1)
	mlx5_load in-tree || return 1
	wait_for 30 mlx5_ports_active || { grep . /sys/class/infiniband/mlx5_*/ports/1/state; return 1; }
	loaded=1
}

run()
{
	[ -x "$bin" ] || { echo "not run: no upstream_verbs_test binary"; return 1; }
	[ -n "$loaded" ] || { echo "not run: the in-tree driver is not loaded (see the load case)"; return 1; }
	"$bin" -t "$WAIT_MS" "$1" >"$out/upstream_verbs_$1.txt" 2>&1
	r=$?
	cat "$out/upstream_verbs_$1.txt"
	return $r
}

# The cases went through UMR WQEs the emulator executed, on both HCAs
# (MR registration from the cache, rereg and binds on mlx5_1).
t_umr_used()
{
	[ -n "$loaded" ] || { echo "not run: the in-tree driver is not loaded"; return 1; }
	n0=$(( $(umr_wqes 0) - umr0 )) n1=$(( $(umr_wqes 1) - umr1 ))
	echo "UMR WQEs executed: hca 0 $n0, hca 1 $n1"
	[ "$n0" -gt 0 ] && [ "$n1" -gt 0 ]
}

t_unload()
{
	loaded=
	mlx5_unload in-tree
}

no_leak()
{
	[ -n "$snapped" ] || { echo "not run: no snapshot before the load"; return 1; }
	! mlx5_loaded || { echo "not run: a driver is still loaded"; return 1; }
	emu_obj_leaks "$baseline" 0 1
}

cases=${MLX5_UPSTREAM_VERBS_CASES:-$("$bin" -l 2>/dev/null | cut -f1)}
[ -n "$cases" ] || cases="rereg_access rereg_pd rereg_translation mw_type1 mw_type2 mw_send_inv mw_rights"

ktap_begin $(( $(echo $cases | wc -w) + 5 ))
ktap_case "build upstream_verbs_test" t_build
ktap_case "load the in-tree mlx5_core mlx5_ib, both ports ACTIVE" t_load
for c in $cases; do
	ktap_case "in-tree: $c" run "$c"
done
ktap_case "the emulator executed UMR WQEs on both HCAs" t_umr_used
ktap_case "unload mlx5_ib mlx5_core" t_unload
ktap_case "every PD, MKey, CQ, QP, SRQ created while loaded destroyed" no_leak
ktap_end
