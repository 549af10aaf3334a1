#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Verbs behaviour the rdma-core tools do not show (ib_verbs_test.c, one
# libibverbs process driving mlx5_0 <-> mlx5_1): CQ overrun, RNR retry
# exhaustion, flush on error, MR access violations, several CQs on one
# completion channel, solicited-only notification, data integrity of
# WRITE/READ/SEND/inline/atomics, ibv_query_qp, SRQ events, UD datagrams,
# length errors and transport retry exhaustion, requests beyond the limits.
# The same binary runs first on the IN-TREE mlx5_core/mlx5_ib (the
# oracle), then on ours; each of its cases is one line per driver. Once a driver is unloaded, every object created in the
# emulator while it was loaded (the test's and the driver's own, e.g. the
# in-tree driver's UMR QP) has been destroyed again.
#
# MLX5_VERBS_DRIVERS="in-tree ours" (default) picks the drivers,
# MLX5_VERBS_CASES="srq ud" some cases (default: all, ib_verbs_test -l).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/ktap.sh"
top=${MLX5_SRC:-$(cd "$dir/../../.." && pwd)}
core_ko=${MLX5_CORE_KO:-$top/core/mlx5_core.ko}
ib_ko=${MLX5_IB_KO:-$top/ib/mlx5_ib.ko}
out=${MLX5_OUT:-/tmp}
srcs="$dir/ib_verbs_test.c $dir/ib_verbs_lib.c $(ls "$dir"/ib_verbs_cases_*.c)"
bin=$dir/ib_verbs_test
drivers=${MLX5_VERBS_DRIVERS:-in-tree ours}
# TCG is slow: a completion that must come may take seconds.
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}

if ! have_emu; then
	ktap_begin 0
	echo "# SKIP: needs the mlx5-emu control channel (on other hardware run ib_verbs_test -d DEV0 -D DEV1)"
	exit $KSFT_SKIP
fi

t_build()
{
	fresh=1
	for f in $srcs "$dir/ib_verbs.h"; do [ "$f" -nt "$bin" ] && fresh=0; done
	if [ -x "$bin" ] && [ "$fresh" = 1 ]; then
		echo "using $bin"
		return 0
	fi
	command -v cc >/dev/null || { echo "no compiler and no prebuilt $bin"; return $KSFT_SKIP; }
	bin=$out/ib_verbs_test
	cc -O2 -Wall -Wextra -o "$bin" $srcs -libverbs
}

mlx5_loaded() { grep -q -E '^mlx5_(ib|core) ' /proc/modules; }

# Both ports ACTIVE with a LID.
ports_active()
{
	for d in mlx5_0 mlx5_1; do
		grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" || return 1
		lid=$(cat "/sys/class/infiniband/$d/ports/1/lid")
		[ "$((lid))" -ne 0 ] || return 1
	done
}

load()
{
	[ -x "$bin" ] || return $KSFT_SKIP
	mlx5_loaded && { echo "an mlx5 driver is already loaded"; return 1; }
	modprobe -q ib_uverbs || return 1
	take_baseline
	case $1 in
	in-tree)
		modprobe mlx5_ib || return 1
		for m in mlx5_core mlx5_ib; do
			path=$(modinfo -n $m)
			echo "$m: $path"
			case "$path" in */kernel/drivers/*) ;; *) echo "not the in-tree $m"; return 1 ;; esac
		done
		;;
	ours)
		[ -f "$core_ko" ] && [ -f "$ib_ko" ] || { echo "modules not built"; return 1; }
		insmod "$core_ko" && insmod "$ib_ko" || return 1
		;;
	esac
	wait_for 30 test -e /sys/class/infiniband/mlx5_1/ports/1/state || return 1
	wait_for 30 ports_active || { grep . /sys/class/infiniband/mlx5_*/ports/1/state; return 1; }
}

unload()
{
	case $1 in
	in-tree) modprobe -r mlx5_ib && modprobe -r mlx5_core ;;
	ours) rmmod mlx5_ib && rmmod mlx5_core ;;
	esac || return 1
	! mlx5_loaded
}

# run DRIVER CASE: one case of the binary, in its own process.
run()
{
	[ -x "$bin" ] && [ "$loaded" = "$1" ] || return $KSFT_SKIP
	"$bin" -t "$WAIT_MS" "$2" >"$out/ib_verbs_$1_$2.txt" 2>&1
	r=$?
	cat "$out/ib_verbs_$1_$2.txt"
	return $r
}

# Object-creating commands and the commands that free what they create.
PAIRS="ALLOC_PD:DEALLOC_PD CREATE_MKEY:DESTROY_MKEY CREATE_CQ:DESTROY_CQ
CREATE_QP:DESTROY_QP CREATE_SRQ:DESTROY_SRQ"

ok_ops() # ok_ops HCA OPCODE-NAME: successful commands of that opcode
{
	emu_ctl hca "$1" stats | awk -v op="$2" '
		$2 == op { split($4, t, "="); split($5, f, "="); n = t[2] - f[2] }
		END { print n + 0 }'
}

counts() # counts HCA: "OPCODE N" for every opcode of PAIRS
{
	for p in $PAIRS; do
		for op in "${p%%:*}" "${p#*:}"; do
			echo "$op $(ok_ops "$1" "$op")"
		done
	done
}

# Taken before the driver loads.
take_baseline()
{
	base0=$(counts 0)
	base1=$(counts 1)
}

# Everything created since the baseline was destroyed again.
no_leak()
{
	[ -n "$base0" ] && ! mlx5_loaded || return $KSFT_SKIP
	rc=0
	for h in 0 1; do
		eval "base=\$base$h"
		now=$(counts $h)
		for p in $PAIRS; do
			a=${p%%:*} f=${p#*:}
			c=$(( $(echo "$now" | awk -v o="$a" '$1 == o { print $2 }') -
			      $(echo "$base" | awk -v o="$a" '$1 == o { print $2 }') ))
			d=$(( $(echo "$now" | awk -v o="$f" '$1 == o { print $2 }') -
			      $(echo "$base" | awk -v o="$f" '$1 == o { print $2 }') ))
			echo "hca $h: $a $c $f $d"
			[ "$c" -eq "$d" ] || rc=1
		done
		[ "$rc" -eq 0 ] || emu_ctl hca $h qps
	done
	base0= base1=
	return $rc
}

t_load()
{
	loaded=
	load "$1" || return $?
	loaded=$1
}

t_unload()
{
	[ -n "$loaded" ] || mlx5_loaded || return $KSFT_SKIP
	loaded=
	unload "$1"
}

# The case list comes from the binary (prebuilt or built by the first case).
cases=${MLX5_VERBS_CASES:-$("$bin" -l 2>/dev/null | cut -f1)}
[ -n "$cases" ] || cases="cq_overflow rnr_retry flush mr_access comp_channel solicited data query_qp srq ud errors limits"
ncases=$(echo $cases | wc -w)
ndrv=$(echo $drivers | wc -w)

ktap_begin $((1 + ndrv * (ncases + 3)))
ktap_case "build ib_verbs_test" t_build
for drv in $drivers; do
	ktap_case "$drv: load mlx5_core mlx5_ib, both ports ACTIVE" t_load "$drv"
	for c in $cases; do
		ktap_case "$drv: $c" run "$drv" "$c"
	done
	ktap_case "$drv: unload mlx5_ib mlx5_core" t_unload "$drv"
	ktap_case "$drv: every PD, MKey, CQ, QP, SRQ created while loaded destroyed" no_leak "$drv"
done
ktap_end
