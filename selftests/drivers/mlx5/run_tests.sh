#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every test program of TEST_PROGS in order, as kselftest's runner would,
# each printing its own KTAP document. Exit 1 when any failed.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/ktap.sh"
progs=$(sed -n 's/^TEST_PROGS *:= *//p' "$dir/Makefile")
[ $# -gt 0 ] && progs="$*"
rc=0
for p in $progs; do
	echo "# selftests: drivers/mlx5: $p"
	t0=$(ktap_now)
	timeout "$(sed -n 's/^timeout=//p' "$dir/settings")" sh "$dir/$p"
	r=$?
	ktap_time "$t0"
	case $r in
	0|4) ;;
	124) echo "not ok 1 $p # timed out"; rc=1 ;;
	*) rc=1 ;;
	esac
done
exit $rc
