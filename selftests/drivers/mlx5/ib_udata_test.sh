#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Malformed driver data through raw uverbs write(), ioctl() and mmap() on our mlx5_ib
# (ib_udata_test.c): every invalid request is rejected with a clear errno by
# the driver itself (the firmware never sees it), valid ones still work,
# closing the file frees every object, and the kernel log stays clean.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/ktap.sh"
top=${MLX5_SRC:-$(cd "$dir/../../.." && pwd)}
core_ko=${MLX5_CORE_KO:-$top/core/mlx5_core.ko}
ib_ko=${MLX5_IB_KO:-$top/ib/mlx5_ib.ko}
out=${MLX5_OUT:-/tmp}
srcs="$dir/ib_udata_test.c $dir/ib_udata_lib.c $(ls "$dir"/ib_udata_cases_*.c)"
bin=$dir/ib_udata_test

t_build()
{
	fresh=1
	for f in $srcs "$dir/ib_udata.h"; do [ "$f" -nt "$bin" ] && fresh=0; done
	if [ -x "$bin" ] && [ "$fresh" = 1 ]; then
		echo "using $bin"
		return 0
	fi
	command -v cc >/dev/null || { echo "no compiler and no prebuilt $bin"; return $KSFT_SKIP; }
	bin=$out/ib_udata_test
	cc -O2 -Wall -Wextra -o "$bin" $srcs
}

t_load()
{
	[ -x "$bin" ] || return $KSFT_SKIP
	[ -f "$core_ko" ] && [ -f "$ib_ko" ] || { echo "modules not built"; return 1; }
	grep -q -E '^mlx5_(ib|core) ' /proc/modules && { echo "an mlx5 driver is already loaded"; return 1; }
	modprobe -q ib_uverbs || return 1
	insmod "$core_ko" && insmod "$ib_ko" || return 1
	wait_for 20 test -d /sys/class/infiniband/mlx5_0/device/infiniband_verbs
}

uverbs_of() { echo "/dev/infiniband/$(ls "/sys/class/infiniband/$1/device/infiniband_verbs")"; }

t_run()
{
	[ -x "$bin" ] || return $KSFT_SKIP
	if have_emu; then
		emu_ctl hca 0 trace-clear >/dev/null
		baseline=$(for p in $PAIRS; do
			echo "${p%%:*} $(ok_ops 0 "${p%%:*}") ${p#*:} $(ok_ops 0 "${p#*:}")"
		done)
	fi
	"$bin" "$(uverbs_of mlx5_0)" >"$out/ib_udata_test.txt" 2>&1
	rc=$?
	cat "$out/ib_udata_test.txt"
	[ "$rc" -eq 0 ]
}

# Object-creating commands and the commands that free what they create.
PAIRS="ALLOC_UAR:DEALLOC_UAR ALLOC_PD:DEALLOC_PD CREATE_MKEY:DESTROY_MKEY
CREATE_CQ:DESTROY_CQ CREATE_QP:DESTROY_QP CREATE_SRQ:DESTROY_SRQ"

ok_ops() # ok_ops HCA OPCODE-NAME: successful commands of that opcode
{
	emu_ctl hca "$1" stats | awk -v op="$2" '
		$2 == op { split($4, t, "="); split($5, f, "="); n = t[2] - f[2] }
		END { print n + 0 }'
}

# After the file is closed, every object the run created is gone: the
# run's creations equal its destructions. Counted from a baseline taken
# just before the run, since the emulator's counters span the whole boot
# (a device unloaded in its error state frees nothing in firmware).
t_no_leak()
{
	[ -x "$bin" ] && have_emu && [ -n "$baseline" ] || return $KSFT_SKIP
	rc=0
	for p in $PAIRS; do
		a=${p%%:*} f=${p#*:}
		a0=$(echo "$baseline" | awk -v op="$a" '$1 == op { print $2 }')
		f0=$(echo "$baseline" | awk -v op="$f" '$3 == op { print $4 }')
		c=$(($(ok_ops 0 "$a") - a0)) d=$(($(ok_ops 0 "$f") - f0))
		echo "$a $c $f $d"
		[ "$c" -eq "$d" ] || rc=1
	done
	return $rc
}

# The firmware only saw commands it could execute: every failure in the
# trace is an opcode the emulator does not implement yet (BAD_OP), never a
# request the driver should have refused.
t_fw_saw_no_garbage()
{
	[ -x "$bin" ] && have_emu || return $KSFT_SKIP
	emu_ctl hca 0 trace >"$out/ib_udata_trace.txt" || return 1
	# status 0x2: BAD_OP, the opcode is not implemented; CREATE_QP syndrome
	# 0x05000001: the emulator's "QP type not supported" (UC).
	bad=$(grep 'status=' "$out/ib_udata_trace.txt" | grep -v -E 'status=0x(0|2) ' |
		grep -v 'CREATE_QP(0x500) .*syndrome=0x5000001 ' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
	grep -c . "$out/ib_udata_trace.txt" | sed 's/^/commands traced: /'
}

t_unload()
{
	rmmod mlx5_ib && rmmod mlx5_core || return 1
	! grep -q -E '^mlx5_(ib|core) ' /proc/modules
}

ktap_begin 6
ktap_case "build ib_udata_test" t_build
ktap_case "insmod mlx5_core mlx5_ib" t_load
ktap_case "malformed requests rejected, valid ones accepted" t_run
ktap_case "closing the file frees every object" t_no_leak
ktap_case "the firmware never received an invalid request" t_fw_saw_no_garbage
ktap_case "rmmod mlx5_ib mlx5_core" t_unload
ktap_end
