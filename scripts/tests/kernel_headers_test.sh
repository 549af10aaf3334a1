#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/tests/kernel_headers_test.sh [OUT] - no object of the kernel
# modules was compiled with a kernel mlx5 header other than the hardware
# layouts (KTAP).
#
# Clean room: of the kernel's include/linux/mlx5/, the modules may read
# device.h and mlx5_ifc.h (which includes mlx5_ifc_fpga.h) only. The
# others are upstream mlx5_core's own (port.h, vport.h, fs.h, eswitch.h,
# ...) or include its internal API, driver.h (qp.h and cq.h do). A
# header reaches an object through other headers too, so the sources'
# #include lines are not what is checked: Kbuild's dependency file of
# every object (DIR/.NAME.o.cmd, its deps_ list names every header the
# compiler read) is. Run after a build of the modules in the tree (make
# check runs it after its builds, which leave the MLX5C_TEST=1 objects,
# core/test.o included); the test modules of selftests/ are checked too
# when they were built.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$here/.." && pwd)

echo "TAP version 13"
echo "1..4"

# The kernel mlx5 headers the modules may use.
allowed='device.h|mlx5_ifc.h|mlx5_ifc_fpga.h'

# banned CMDFILE...: each kernel mlx5 header outside $allowed that a
# dependency file names, as "CMDFILE: HEADER", one a line.
banned() {
	grep -Ho '[^[:space:]]*/include/linux/mlx5/[^[:space:]/]*\.h' "$@" |
		grep -Ev "/include/linux/mlx5/($allowed)\$" | sort -u
}

# The check can fail: a dependency file that names driver.h through qp.h
# (as core/en/en.h's #include <linux/mlx5/qp.h> once did) is reported
# with both headers; one that names only device.h is not.
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
kh=/usr/src/linux-headers-0.0/include/linux/mlx5
printf 'deps_x.o := \\\n  x.c \\\n  %s/device.h \\\n  %s/qp.h \\\n  %s/driver.h \\\n\n' \
	"$kh" "$kh" "$kh" >"$t/.bad.o.cmd"
printf 'deps_y.o := \\\n  y.c \\\n  %s/device.h \\\n  %s/mlx5_ifc.h \\\n\n' "$kh" "$kh" >"$t/.good.o.cmd"
found=$(banned "$t/.bad.o.cmd" "$t/.good.o.cmd")
[ "$found" = "$(printf '%s\n' "$t/.bad.o.cmd:$kh/driver.h" "$t/.bad.o.cmd:$kh/qp.h")" ]
report $? "a planted dependency file naming qp.h and driver.h is reported, one naming device.h is not"

# Every source file of the modules has its dependency file: nothing is
# passed over for want of a build (core/test.c only in MLX5C_TEST=1
# builds).
missing=""
while IFS= read -r c; do
	[ "$c" = core/test.c ] && continue
	d=$(dirname "$c") b=$(basename "$c" .c)
	[ -f "$top/$d/.$b.o.cmd" ] || missing="$missing $d/.$b.o.cmd"
done < <(cd "$top" && ls core/*.c core/en/*.c ib/*.c 2>/dev/null | grep -v '\.mod\.c$')
[ -z "$missing" ] || echo "# missing (build the modules first: make):$missing"
[ -z "$missing" ]
report $? "every object of core/, core/en/ and ib/ has its dependency file"

mapfile -t cmds < <(cd "$top" && ls core/.*.o.cmd core/en/.*.o.cmd ib/.*.o.cmd \
	selftests/drivers/mlx5/kverbs/.*.o.cmd selftests/drivers/mlx5/dmabuf_exporter/.*.o.cmd 2>/dev/null |
	sed "s|^|$top/|")
# Only objects of a source file still in the tree: a dependency file left
# by a build of a file since removed (a tree that is not a clean clone)
# says nothing of the modules.
live=()
for f in "${cmds[@]}"; do
	b=$(basename "$f" .o.cmd)
	[ -f "$(dirname "$f")/${b#.}.c" ] && live+=("$f")
done
cmds=("${live[@]}")

# The dependency files are read as expected: the layouts' header is listed.
[ ${#cmds[@]} -gt 0 ] && grep -q '/include/linux/mlx5/device\.h' "${cmds[@]}"
report $? "the dependency files list the kernel's mlx5 headers (device.h; ${#cmds[@]} files)"

found=""
[ ${#cmds[@]} -gt 0 ] && found=$(banned "${cmds[@]}" | sed "s|^$top/||")
[ -z "$found" ] || { echo "$found" | sed 's/^/# /'
	echo "# allowed of include/linux/mlx5/: ${allowed//|/, } (<mlx5c/hw.h>, <mlx5c/wqe.h> hold the rest)"; }
[ -z "$found" ]
report $? "no object reads a kernel mlx5 header but device.h and mlx5_ifc.h (driver.h, qp.h, cq.h...)"

[ "$fails" -eq 0 ]
