#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulator process dies under our driver pair during traffic: the
# guest asks it to die (control command "die": it answers, then SIGKILLs
# itself; scripts/vm lets the guest go on), with ib_send_bw -e running from
# mlx5_1 to mlx5_0 and ibv_asyncwatch on both devices. Both HCAs vanish at
# once: QEMU keeps their PCI functions, BAR and config reads answer all ones,
# no DMA or interrupt ever comes again. Expected:
# - the health poller finds each device gone and moves it to the
#   internal-error state; recovery gives up on a device that does not answer;
# - both RDMA devices are unregistered under the processes: each watcher
#   gets IBV_EVENT_DEVICE_FATAL, both perftest sides (waiting for completion
#   events) end with an error instead of hanging;
# - rmmod of both modules finishes, with no splat.
# Runs only with MLX5_EMU_DEATH=1: QEMU 11.1.3 dies with its vfio-user
# server (below). Nothing can use the HCAs afterwards: this program runs
# last in its guest
# (the last of TEST_PROGS and of TEST_PROGS_CHECK2). perftest runs a count
# of iterations (1000000, far more than the test waits for): its duration
# mode refuses completion events.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
port=19515
TMO=${MLX5_PINGPONG_TIMEOUT:-120}
gone() { ! kill -0 "$1" 2>/dev/null; }
mark=0
since_mark() { dmesg | tail -n +$((mark + 1)); }
# both_noticed: the health poller reported each function gone.
both_noticed() { [ "$(since_mark | grep -c 'device does not answer')" -ge 2 ]; }
both_given_up() { [ "$(since_mark | grep -c 'recovery failed')" -ge 2 ]; }
no_ibdev() { [ "$(mlx5_ibdev_count)" -eq 0 ]; }

t_load()
{
	need_tool ib_send_bw ibv_asyncwatch || return 1
	ip link set lo up 2>/dev/null
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
}

t_die()
{
	ibv_asyncwatch -d mlx5_0 >"$out/death.async0" 2>&1 &
	a0=$!
	ibv_asyncwatch -d mlx5_1 >"$out/death.async1" 2>&1 &
	a1=$!
	stdbuf -oL ib_send_bw -d mlx5_0 -i 1 -p "$port" -F -e -s 4096 -n 1000000 >"$out/death.server" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || { kill -9 "$spid" "$a0" "$a1"; cat "$out/death.server"; return 1; }
	stdbuf -oL ib_send_bw -d mlx5_1 -i 1 -p "$port" -F -e -s 4096 -n 1000000 127.0.0.1 >"$out/death.client" 2>&1 &
	cpid=$!
	wait_for 60 grep -q '#bytes' "$out/death.client" ||
		{ echo "the measurement never started"; cat "$out/death.server" "$out/death.client"; kill -9 "$spid" "$cpid" "$a0" "$a1"; return 1; }
	sleep 2 # let sends flow
	kill -0 "$spid" "$cpid" || { echo "ib_send_bw ended before the emulator died"; kill -9 "$spid" "$cpid" "$a0" "$a1"; return 1; }
	mark=$(ktap_dmesg_mark)
	emu_ctl die || { echo "the emulator refused to die"; kill -9 "$spid" "$cpid" "$a0" "$a1"; return 1; }
	rc=0
	wait_for 120 both_noticed || { echo "the health poller did not notice both devices gone"; rc=1; }
	wait_for "$TMO" gone "$spid" || { echo "the server on mlx5_0 hangs"; rc=1; }
	wait_for "$TMO" gone "$cpid" || { echo "the client on mlx5_1 hangs"; rc=1; }
	for f in "$out/death.async0" "$out/death.async1"; do
		wait_for "$TMO" grep -q DEVICE_FATAL "$f" || { echo "no fatal event in $f"; rc=1; }
	done
	kill -9 "$spid" "$cpid" "$a0" "$a1" 2>/dev/null
	wait "$spid"; src=$?
	wait "$cpid"; crc=$?
	wait "$a0" "$a1" 2>/dev/null
	echo "server exit $src, client exit $crc (137: ended by the test)"
	[ "$src" -ne 0 ] && [ "$src" -ne 137 ] || { echo "the server did not end with an error of its own"; rc=1; }
	[ "$crc" -ne 0 ] && [ "$crc" -ne 137 ] || { echo "the client did not end with an error of its own"; rc=1; }
	echo "--- server"; tail -n 5 "$out/death.server"
	echo "--- client"; tail -n 5 "$out/death.client"
	echo "--- asyncwatch mlx5_0"; cat "$out/death.async0"
	echo "--- asyncwatch mlx5_1"; cat "$out/death.async1"
	since_mark | grep -E 'mlx5_core.*(does not answer|internal-error|recover)'
	return $rc
}

t_down()
{
	wait_for 120 both_given_up || { echo "recovery did not give up on both"; since_mark | grep mlx5; return 1; }
	wait_for 30 no_ibdev || { echo "RDMA devices still registered: $(ls /sys/class/infiniband | tr '\n' ' ')"; return 1; }
	# (virtio-serial: the port reads end of file once its host side is gone)
	! timeout 30 sh "$top/scripts/lib/emu-ctl" list >/dev/null 2>&1 || { echo "the emulator still answers"; return 1; }
}

t_rmmod()
{
	for m in mlx5_ib mlx5_core; do
		timeout 120 rmmod $m || { echo "rmmod $m failed or hung"; return 1; }
	done
	! mlx5_loaded
}

[ -n "$devs" ] || ktap_skip_all "no ConnectX functions"
have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"
# QEMU 11.1.3 (the toolbox's) aborts as soon as its vfio-user server goes
# away ("util/error.c:62: error_setv: Assertion *errp == NULL failed" in its
# vfio-user receive path; also when the server left a request unread, a
# reset connection instead of an end of file), and the guest with it.
# Nothing the emulator does can avoid it: a dead server's sockets are closed
# by the kernel and the vfio-user protocol has no goodbye message
# (Documentation/testing.md, emu_death_test.sh).
[ "${MLX5_EMU_DEATH:-0}" = 1 ] ||
	ktap_skip_all "QEMU 11.1.3 aborts when its vfio-user server dies (error_setv assertion); MLX5_EMU_DEATH=1 runs it on a QEMU that survives"
ktap_begin 4
ktap_case "load our driver pair" t_load
ktap_case "the emulator dies under ib_send_bw -e: both devices detected gone, applications get errors" t_die
ktap_case "both devices down and unregistered, the emulator gone" t_down
ktap_case "rmmod of both modules after the emulator's death" t_rmmod
ktap_end
