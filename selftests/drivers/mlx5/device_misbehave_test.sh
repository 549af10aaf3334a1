#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Our driver pair trusts no device reply: the emulator misbehaves on
# purpose from its control channel, and the drivers must drop what the
# device got wrong, say so in the kernel log (ratelimited), and go on,
# without a splat (every case's kernel log is checked: splat.re).
# - Kernel CQ polling (ib/poll.c): the MAD layer's QP1 receives on mlx5_1
#   during ibping, with the CQE's QPN naming no QP of the CQ, with its WQE
#   counter out of the ring, and the CQE written twice: each bad CQE is
#   dropped and logged, and QP1 answers ibping again afterwards.
# - Device memory (ib/dm.c): ALLOC_MEMIC answering an address past the
#   MEMIC window, then one off the 64-byte granule: ibv_alloc_dm fails
#   cleanly (the allocation returned to the device), then works again.
# The Ethernet RX side of the same checks is eth_misbehave_test.sh's.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"
srcs=$dir/dm_alloc.c
bin=$bindir/dm_alloc

# The next case's log starts here: what it expects to see must be after it.
log_mark() { mark=$(ktap_dmesg_mark); }

t_build() { verbs_build -- -libverbs; }

t_load()
{
	baseline=$(emu_obj_snapshot 0 1)
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { grep . /sys/class/infiniband/mlx5_*/ports/1/state; return 1; }
	need_tool ibping || return 1
	# ibping's way to QP1: the umad devices.
	modprobe ib_umad || { echo "modprobe ib_umad failed"; return 1; }
	lid=$(cat /sys/class/infiniband/mlx5_1/ports/1/lid)
	ibping -C mlx5_1 -P 1 -S >"$out/misbehave_ibping.server" 2>&1 &
	spid=$!
	wait_for 10 sh -c "ls -l /proc/$spid/fd | grep -q umad" || { echo "no ibping server"; return 1; }
	ping_once || { echo "ibping fails before any fault"; cat "$out/misbehave_ibping"; return 1; }
}

# One ibping to mlx5_1's QP1 that is answered.
ping_once()
{
	timeout 30 ibping -C mlx5_0 -P 1 -c 1 -L "$((lid))" >"$out/misbehave_ibping" 2>&1 &&
		grep -q ' 0% packet loss' "$out/misbehave_ibping"
}

# fault_case FAULT PATTERN: arm FAULT on hca 1, ibping (lost or not), the
# fault spent, PATTERN logged since, and QP1 answers again.
fault_case()
{
	[ -n "$lid" ] || { echo "not run: see the load case"; return 1; }
	emu_ctl hca 1 clear-faults >/dev/null
	log_mark
	emu_ctl hca 1 $1 || return 1
	timeout 30 ibping -C mlx5_0 -P 1 -c 1 -L "$((lid))" >"$out/misbehave_ibping" 2>&1
	tail -n 2 "$out/misbehave_ibping"
	emu_ctl hca 1 faults
	emu_ctl hca 1 faults | grep -q '^cqe-' && { echo "no receive CQE took the fault"; return 1; }
	wait_for 10 ktap_dmesg_since "$mark" "$2" || { echo "not logged: $2"; dmesg | tail -n 5; return 1; }
	dmesg | awk -v m="$mark" 'NR > m && /mlx5/' | tail -n 3
	wait_for 60 ping_once || { echo "QP1 does not answer any more"; cat "$out/misbehave_ibping"; return 1; }
	echo "QP1 answers again"
}

t_qpn() { fault_case "cqe-corrupt qpn 0xabcde 1 recv" "CQE for QP 0xabcde, which does not complete on it: dropped"; }
t_counter() { fault_case "cqe-corrupt wqe_counter 0x7777 1 recv" "for WQE 30583 of QP 0x[0-9a-f]+, not outstanding there: dropped"; }
t_repeat() { fault_case "cqe-repeat 1 recv" "CQE opcode [0-9]+ for WQE [0-9]+ of QP 0x[0-9a-f]+, not outstanding there: dropped"; }

# dm_case HOW: ALLOC_MEMIC answers a bad address (HOW), ibv_alloc_dm fails
# and says why in the log; then a true answer works.
dm_case()
{
	[ -x "$bin" ] || { echo "no $(basename "$bin") (see the build case)"; return 1; }
	log_mark
	emu_ctl hca 0 memic-addr-bogus "$1" || return 1
	"$bin" mlx5_0 64
	rc=$?
	[ "$rc" -eq 1 ] || { echo "ibv_alloc_dm did not fail (exit $rc)"; return 1; }
	emu_ctl hca 0 faults | grep -q memic-addr-bogus && { echo "no ALLOC_MEMIC took the fault"; return 1; }
	ktap_dmesg_since "$mark" "ALLOC_MEMIC answered .*: refused" || { echo "not logged"; return 1; }
	ktap_dmesg_since "$mark" "DEALLOC_MEMIC" && { echo "the bad allocation was not returned"; return 1; }
	"$bin" mlx5_0 64 || { echo "ibv_alloc_dm fails after the fault"; return 1; }
}

t_dm_outside() { dm_case outside; }
t_dm_unaligned() { dm_case unaligned; }

t_unload()
{
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	emu_ctl hca 0 clear-faults >/dev/null
	emu_ctl hca 1 clear-faults >/dev/null
	mlx5_unload ours || return 1
	modprobe -r ib_umad
	emu_obj_leaks "$baseline" 0 1
}

ktap_begin 8
ktap_case "build dm_alloc" t_build
ktap_case "load our pair, ibping mlx5_0 -> mlx5_1" t_load
ktap_case "kernel CQ: a QP1 receive CQE naming another QPN is dropped, logged" t_qpn
ktap_case "kernel CQ: a QP1 receive CQE with a WQE counter out of the ring is dropped" t_counter
ktap_case "kernel CQ: a QP1 receive CQE written twice: the copy is dropped" t_repeat
ktap_case "DM: ALLOC_MEMIC past the window: ibv_alloc_dm fails cleanly" t_dm_outside
ktap_case "DM: ALLOC_MEMIC off the granule: ibv_alloc_dm fails cleanly" t_dm_unaligned
ktap_case "unload, no firmware object left" t_unload
ktap_end
