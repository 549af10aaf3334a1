#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Recovery of our driver pair, with applications running on the device:
# - a fatal health syndrome (emulator health-syndrome ... fatal: the
#   firmware crashes): mlx5_core reports it (dmesg, sysfs health/),
#   mlx5_ib unregisters and disassociates the user contexts (ibv_asyncwatch
#   gets IBV_EVENT_DEVICE_FATAL, the running ibv_rc_pingpong fails to get
#   its next completion event and exits), the
#   firmware is reset through the initialization segment (nic_interface
#   SW_RESET) and the function is loaded again by itself;
# - a PCI function reset through sysfs (pci_error_handlers reset_prepare
#   and reset_done): the same for the applications, and the function is
#   loaded again once the reset is over.
# After each: mlx5_0 is registered again, a fresh ibv_rc_pingpong works,
# and the firmware holds as many pages as before.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
port=18915
TMO=${MLX5_PINGPONG_TIMEOUT:-120}
pci=$(echo "$devs" | head -n 1)
health=/sys/bus/pci/devices/$pci/health
base_pages=0
mark=0
since_mark() { dmesg | tail -n +$((mark + 1)); }
gone() { ! kill -0 "$1" 2>/dev/null; }
not_listening() { ! listening "$1"; }

t_load()
{
	have_emu || { echo "no emulator control channel"; return 1; }
	need_tool ibv_rc_pingpong ibv_asyncwatch || return 1
	ip link set lo up 2>/dev/null
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	base_pages=$(emu_pages_outstanding 0)
	echo "hca 0: $base_pages firmware pages; health: $(cat "$health/state")"
	[ "$base_pages" -gt 0 ] && [ "$(cat "$health/state")" = ok ]
}

# under_traffic NAME CMD...: ibv_asyncwatch on mlx5_0 and an
# ibv_rc_pingpong pair (server on mlx5_0, client on mlx5_1) exchanging
# completion events; once traffic flows, CMD breaks mlx5_0. The server must
# exit by itself, the watcher must receive the fatal event (it then waits
# for more, on a device that is gone: it is ended).
under_traffic()
{
	_name=$1
	shift
	port=$((port + 1))
	ibv_asyncwatch -d mlx5_0 >"$out/$_name.async" 2>&1 &
	_apid=$!
	ibv_rc_pingpong -d mlx5_0 -i 1 -p "$port" -n 100000000 -e >"$out/$_name.server" 2>&1 &
	_spid=$!
	wait_listen "$port" "$_spid" || { kill -9 "$_spid" "$_apid"; cat "$out/$_name.server"; return 1; }
	ibv_rc_pingpong -d mlx5_1 -i 1 -p "$port" -n 100000000 -e 127.0.0.1 >"$out/$_name.client" 2>&1 &
	_cpid=$!
	wait_for 30 not_listening "$port" || { echo "the client never connected"; }
	# Traffic: a few round trips (the tools print nothing until they end).
	sleep 2
	kill -0 "$_spid" "$_cpid" || { echo "a pingpong ended before the failure"; }
	mark=$(ktap_dmesg_mark)
	"$@" || { echo "could not break the device: $*"; kill -9 "$_spid" "$_cpid" "$_apid"; return 1; }
	_rc=0
	wait_for "$TMO" gone "$_spid" || { echo "the server on mlx5_0 did not exit"; _rc=1; }
	wait_for "$TMO" grep -q DEVICE_FATAL "$out/$_name.async" ||
		{ echo "no fatal event reached the application"; _rc=1; }
	# The client's peer is gone: it may wait for its retries; end it.
	kill -9 "$_spid" "$_apid" "$_cpid" 2>/dev/null
	wait "$_spid"
	echo "server exit $?"
	wait "$_cpid" 2>/dev/null
	wait "$_apid" 2>/dev/null
	echo "--- server"; cat "$out/$_name.server"
	echo "--- asyncwatch"; cat "$out/$_name.async"
	return $_rc
}

# back NAME: mlx5_0 and mlx5_1 registered, ports active, the firmware
# holds the pages it held after the first load, a fresh pingpong works.
back()
{
	wait_for 60 sh -c "[ \$(ls /sys/class/infiniband | grep -c '^mlx5_') -ge $ndev ]" ||
		{ echo "RDMA devices: $(ls /sys/class/infiniband)"; return 1; }
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	echo "health: state $(cat "$health/state"), errors $(cat "$health/errors")," \
		"recoveries $(cat "$health/recoveries"), last error: $(cat "$health/last_error")"
	[ "$(cat "$health/state")" = ok ] || return 1
	rdma_pair "$1" ibv_rc_pingpong -i 1 -n 50 -e || return 1
	_p=$(emu_pages_outstanding 0)
	echo "hca 0: $_p firmware pages (baseline $base_pages)"
	[ "$_p" -eq "$base_pages" ]
}

fatal() { emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null; }

t_fatal()
{
	_r0=$(cat "$health/recoveries")
	under_traffic recovery_fatal fatal || return 1
	wait_for 60 sh -c "[ \$(cat $health/recoveries) -gt $_r0 ]" ||
		{ echo "no recovery"; since_mark | grep mlx5; return 1; }
	since_mark | grep -E 'mlx5_core.*(syndrome|internal-error|reset|recover)'
	since_mark | grep -q 'requesting a firmware software reset' &&
		since_mark | grep -q 'recovered from the internal-error state'
}

t_fatal_back() { back recovery_after_fatal; }

pci_reset() { echo 1 >"/sys/bus/pci/devices/$pci/reset"; }

t_pci_reset()
{
	[ -e "/sys/bus/pci/devices/$pci/reset" ] || { echo "no reset method for $pci"; return 1; }
	cat "/sys/bus/pci/devices/$pci/reset_method" 2>/dev/null
	under_traffic recovery_reset pci_reset || return 1
	since_mark | grep -E 'mlx5_core.*(function reset|reload)'
	since_mark | grep -q 'function reset: reloaded'
}

t_pci_reset_back() { back recovery_after_reset; }

# Twice more, back to back, without applications.
t_repeat()
{
	_r0=$(cat "$health/recoveries")
	for _i in 1 2; do
		fatal || return 1
		wait_for 60 sh -c "[ \$(cat $health/recoveries) -ge $((_r0 + _i)) ] &&
			[ \$(cat $health/state) = ok ]" || { echo "recovery $_i did not happen"; return 1; }
		pci_reset || return 1
	done
	back recovery_repeat
}

t_unload()
{
	mlx5_unload ours || return 1
	_p=$(emu_pages_outstanding 0)
	echo "hca 0: firmware pages outstanding $_p"
	[ "$_p" = 0 ]
}

[ -n "$devs" ] || ktap_skip_all "no ConnectX functions"
ktap_begin 7
ktap_case "load our driver pair" t_load
ktap_case "fatal syndrome under ibv_rc_pingpong: applications get the fatal event, the device recovers" t_fatal
ktap_case "after the recovery: mlx5_0 back, traffic, firmware pages at baseline" t_fatal_back
ktap_case "sysfs PCI function reset under ibv_rc_pingpong" t_pci_reset
ktap_case "after the reset: mlx5_0 back, traffic, firmware pages at baseline" t_pci_reset_back
ktap_case "two more recoveries and resets back to back" t_repeat
ktap_case "unload: every firmware page returned" t_unload
ktap_end
