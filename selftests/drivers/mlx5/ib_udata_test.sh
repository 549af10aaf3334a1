#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Malformed driver data through raw uverbs write(), ioctl() and mmap() on our mlx5_ib
# (ib_udata_test.c): every invalid request is rejected with a clear errno by
# the driver itself (the firmware never sees it), valid ones still work,
# closing the file frees every object, and the kernel log stays clean.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/ib_udata_test.c $dir/ib_udata_lib.c $dir/ib_uverbs_raw.c $(ls "$dir"/ib_udata_cases_*.c)"
bin=$bindir/ib_udata_test

t_build()
{
	fresh=1
	for f in $srcs "$dir/ib_udata.h"; do [ "$f" -nt "$bin" ] && fresh=0; done
	if [ -x "$bin" ] && [ "$fresh" = 1 ]; then
		echo "using $bin"
		return 0
	fi
	command -v cc >/dev/null || { echo "no compiler and no prebuilt $bin"; return 1; }
	bin=$out/ib_udata_test
	cc -O2 -Wall -Wextra -o "$bin" $srcs
}

# A case that cannot run because an earlier one failed fails too.
have_bin() { [ -x "$bin" ] || { echo "not run: no ib_udata_test binary (see the build case)"; return 1; }; }

t_load()
{
	mlx5_load ours || return 1
	wait_for 20 test -d /sys/class/infiniband/mlx5_0/device/infiniband_verbs
}

uverbs_of() { echo "/dev/infiniband/$(ls "/sys/class/infiniband/$1/device/infiniband_verbs")"; }

# Its own sub-cases (KTAP, nested in this case's output) must all pass: a
# sub-case that skips means a part of the device the test needs is missing.
t_run()
{
	have_bin || return 1
	if have_emu; then
		emu_ctl hca 0 trace-clear >/dev/null
		# Empty on a fresh emulator: still a snapshot.
		baseline=$(emu_obj_snapshot 0) && snapped=1
	fi
	"$bin" "$(uverbs_of mlx5_0)" >"$out/ib_udata_test.txt" 2>&1
	rc=$?
	cat "$out/ib_udata_test.txt"
	[ "$rc" -eq 0 ] || return 1
	! grep -E '^ok [0-9]+ .*# SKIP' "$out/ib_udata_test.txt" | sed 's/^/skipped sub-case: /' | grep .
}

# The UAR commands too: closing the file frees the context's UARs.
EMU_OBJ_PAIRS="ALLOC_UAR:DEALLOC_UAR $EMU_OBJ_PAIRS"

# After the file is closed, every object the run created is gone: the
# run's creations equal its destructions. Counted from a baseline taken
# just before the run, since the emulator's counters span the whole boot
# (a device unloaded in its error state frees nothing in firmware).
t_no_leak()
{
	have_emu || return $KSFT_SKIP
	have_bin && [ -n "${snapped:-}" ] || { echo "not run: the run case did not run"; return 1; }
	emu_obj_leaks "$baseline" 0
}

# The firmware only saw commands it could execute: every failure in the
# trace is an opcode the emulator does not implement yet (BAD_OP), never a
# request the driver should have refused.
t_fw_saw_no_garbage()
{
	have_emu || return $KSFT_SKIP
	have_bin || return 1
	emu_ctl hca 0 trace >"$out/ib_udata_trace.txt" || return 1
	# status 0x2: BAD_OP, the opcode is not implemented; CREATE_QP syndrome
	# 0x05000001: the emulator's "QP type not supported" (UC).
	bad=$(grep 'status=' "$out/ib_udata_trace.txt" | grep -v -E 'status=0x(0|2) ' |
		grep -v 'CREATE_QP(0x500) .*syndrome=0x5000001 ' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
	grep -c . "$out/ib_udata_trace.txt" | sed 's/^/commands traced: /'
}

t_unload() { mlx5_unload ours; }

ktap_begin 6
ktap_case "build ib_udata_test" t_build
ktap_case "insmod mlx5_core mlx5_ib" t_load
ktap_case "malformed requests rejected, valid ones accepted" t_run
ktap_case "closing the file frees every object" t_no_leak
ktap_case "the firmware never received an invalid request" t_fw_saw_no_garbage
ktap_case "rmmod mlx5_ib mlx5_core" t_unload
ktap_end
