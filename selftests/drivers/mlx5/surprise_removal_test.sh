#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Surprise removal of a device under our driver pair, with applications
# running on it: the emulator cuts HCA 0 off the host (`hca 0 unplug`:
# BAR0 reads all ones, writes, DMA and interrupts are lost, packets from
# the fabric dropped) while an ibv_rc_pingpong pair (server on mlx5_0,
# client on mlx5_1) exchanges completion events and ibv_asyncwatch waits
# on mlx5_0. Expected:
# - the health poller finds the device gone (health buffer all ones) and
#   moves it to the internal-error state; recovery cannot reset a device
#   that does not answer, and leaves it down;
# - mlx5_0 is unregistered: the server gets IBV_EVENT_DEVICE_FATAL (seen by
#   ibv_asyncwatch) and exits by itself, with an error, instead of hanging;
#   a new context on mlx5_0 cannot be opened (the client on mlx5_1 only
#   loses its peer: waiting for a receive that never comes, it waits, as
#   on a real fabric, and is ended);
# - rmmod of both modules finishes, with no splat;
# - plugged back (`hca 0 replug`: a device fresh from reset), the pair
#   loads, traffic works and every firmware page comes back at unload.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
port=19415
TMO=${MLX5_PINGPONG_TIMEOUT:-120}
pci=$(echo "$devs" | head -n 1)
health=/sys/bus/pci/devices/$pci/health
gone() { ! kill -0 "$1" 2>/dev/null; }
not_listening() { ! listening "$1"; }
mark=0
since_mark() { dmesg | tail -n +$((mark + 1)); }

t_load()
{
	have_emu || { echo "no emulator control channel"; return 1; }
	need_tool ibv_rc_pingpong ibv_asyncwatch || return 1
	ip link set lo up 2>/dev/null
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
}

t_unplug()
{
	port=$((port + 1))
	ibv_asyncwatch -d mlx5_0 >"$out/surprise.async" 2>&1 &
	apid=$!
	ibv_rc_pingpong -d mlx5_0 -i 1 -p "$port" -n 100000000 -e >"$out/surprise.server" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || { kill -9 "$spid" "$apid"; cat "$out/surprise.server"; return 1; }
	ibv_rc_pingpong -d mlx5_1 -i 1 -p "$port" -n 100000000 -e 127.0.0.1 >"$out/surprise.client" 2>&1 &
	cpid=$!
	wait_for 30 not_listening "$port" || echo "the client never connected"
	# Let traffic flow (the tools print nothing until they end).
	sleep 2
	kill -0 "$spid" "$cpid" || { echo "a pingpong ended before the removal"; kill -9 "$spid" "$cpid" "$apid"; return 1; }
	mark=$(ktap_dmesg_mark)
	emu_ctl hca 0 unplug >/dev/null || { echo "unplug refused"; kill -9 "$spid" "$cpid" "$apid"; return 1; }
	rc=0
	wait_for 60 sh -c "since() { dmesg | tail -n +$((mark + 1)); }; since | grep -q 'device does not answer'" ||
		{ echo "the health poller did not notice the removal"; rc=1; }
	wait_for "$TMO" gone "$spid" || { echo "the server on mlx5_0 hangs"; rc=1; }
	wait_for "$TMO" grep -q DEVICE_FATAL "$out/surprise.async" ||
		{ echo "no fatal event reached the application"; rc=1; }
	kill -9 "$spid" "$cpid" "$apid" 2>/dev/null
	wait "$spid"; src=$?
	wait "$cpid"; crc=$?
	wait "$apid" 2>/dev/null
	echo "server exit $src, client exit $crc (137: ended by the test)"
	# An application that lost its device ends with an error, not 0.
	[ "$src" -ne 0 ] || { echo "the server on the removed device exited 0"; rc=1; }
	echo "--- server"; cat "$out/surprise.server"
	echo "--- client"; tail -n 5 "$out/surprise.client"
	echo "--- asyncwatch"; cat "$out/surprise.async"
	since_mark | grep -E 'mlx5_core.*(does not answer|internal-error|recover)'
	return $rc
}

t_down()
{
	# Recovery gave up on a device that does not answer: it stays down.
	wait_for 60 sh -c "since() { dmesg | tail -n +$((mark + 1)); }; since | grep -q 'recovery failed'" ||
		{ echo "recovery did not give up"; since_mark | grep mlx5; return 1; }
	echo "health: state $(cat "$health/state"), errors $(cat "$health/errors")," \
		"last error: $(cat "$health/last_error")"
	echo "RDMA devices: $(ls /sys/class/infiniband | tr '\n' ' ')"
	[ "$(mlx5_ibdev_count)" -eq $((ndev - 1)) ] || { echo "the removed device is still registered"; return 1; }
	if ibv_devinfo -d mlx5_0 >"$out/surprise.devinfo" 2>&1; then
		echo "a context on the removed device opened:"; cat "$out/surprise.devinfo"; return 1
	fi
	emu_ctl hca 0 stats | grep -E '^unplugged'
}

t_rmmod()
{
	for m in mlx5_ib mlx5_core; do
		timeout 120 rmmod $m || { echo "rmmod $m failed or hung"; return 1; }
	done
	! mlx5_loaded
}

t_replug()
{
	emu_ctl hca 0 replug >/dev/null || { echo "replug refused"; return 1; }
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	rdma_pair surprise_after ibv_rc_pingpong -i 1 -n 50 -e || return 1
	mlx5_unload ours || return 1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: firmware pages outstanding $p"
		[ "$p" = 0 ] || return 1
	done
}

[ -n "$devs" ] || ktap_skip_all "no ConnectX functions"
have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"
ktap_begin 5
ktap_case "load our driver pair" t_load
ktap_case "surprise removal of HCA 0 under ibv_rc_pingpong: detected, applications get errors" t_unplug
ktap_case "the removed device is down and unregistered" t_down
ktap_case "rmmod of both modules after the removal" t_rmmod
ktap_case "plugged back: load, traffic, every firmware page returned at unload" t_replug
ktap_end
