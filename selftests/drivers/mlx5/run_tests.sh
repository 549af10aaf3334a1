#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every test program of TEST_PROGS in order, as kselftest's runner would,
# each printing its own KTAP document after a "# selftests: drivers/mlx5:
# PROGRAM" line and followed by "# exit status: N" (what scripts/check's
# accounting reads). Exit 1 when any failed.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/ktap.sh"
progs=$(sed -n 's/^TEST_PROGS *:= *//p' "$dir/Makefile")
[ $# -gt 0 ] && progs="$*"
limit=${MLX5_TEST_TIMEOUT:-$(sed -n "s/^timeout=//p" "$dir/settings")}
rc=0
for p in $progs; do
	echo "# selftests: drivers/mlx5: $p"
	read -r t0 idle0 </proc/uptime
	timeout "$limit" sh "$dir/$p"
	r=$?
	ktap_time "$t0"
	# The guest's idle time meanwhile (vCPUs halted: waiting for timers or
	# the emulator), what scheduling guests side by side can overlap.
	read -r t1 idle1 </proc/uptime
	awk -v a="$idle0" -v b="$idle1" 'BEGIN { printf "# idle: %.1f s\n", b - a }'
	[ "$r" -ne 124 ] || echo "# $p timed out after $limit s"
	echo "# exit status: $r"
	case $r in
	0|4) ;;
	*) rc=1 ;;
	esac
done
exit $rc
