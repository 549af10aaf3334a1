#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devlink (issue 33, its first part) with iproute2's devlink, the same
# commands on the in-tree mlx5_core + mlx5_ib (the oracle: what it does on
# the emulator a ConnectX would do) and then on ours, in one boot:
# - `devlink dev info`: the driver, the PSID and the running firmware
#   version; ours must print the in-tree's PSID and version;
# - the health reporters fw and fw_fatal: a fatal syndrome is counted
#   by fw_fatal and recovered through it (recover count, state healthy,
#   traffic after);
# - `devlink dev reload` (driver_reinit): the RDMA devices come back and
#   carry traffic, the firmware holds the pages it held before;
# ours only (the in-tree's shape differs where noted):
# - a non-fatal syndrome is counted by fw, its dump holds the syndrome;
# - fw_fatal with auto_recover off leaves the function in the
#   internal-error state until `devlink health recover`;
# - diagnose prints the state and counters.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

pci=$(echo "$devs" | head -n 1)
dl=pci/$pci
health=/sys/bus/pci/devices/$pci/health
intree_psid="" intree_fw=""

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
command -v devlink >/dev/null || ktap_skip_all "iproute2's devlink is not installed"

# info_val KEY: the value after KEY in `devlink dev info` of the first
# function (its first occurrence: fixed, then running).
info_val() { devlink dev info "$dl" | awk -v k="$1" '$1 == k { print $2; exit }'; }

# rep_val REPORTER FIELD: a field of `devlink health show` ("state",
# "error", "recover", "auto_recover"; its line is "state S error N ...":
# name and value pairs).
rep_val()
{
	devlink health show "$dl" reporter "$1" |
		awk -v f="$2" '$1 == "state" { for (i = 1; i < NF; i += 2) if ($i == f) { print $(i + 1); exit } }'
}

# rep_gt REPORTER FIELD N: the field is above N (for wait_for).
rep_gt() { _v=$(rep_val "$1" "$2"); [ -n "$_v" ] && [ "$_v" -gt "$3" ]; }

# back: both RDMA devices registered, ports active, a pingpong works.
back()
{
	wait_for 60 sh -c "[ \$(ls /sys/class/infiniband | grep -c '^mlx5_') -ge $ndev ]" ||
		{ echo "RDMA devices: $(ls /sys/class/infiniband)"; return 1; }
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	rdma_pair "devlink_$1" ibv_rc_pingpong -i 1 -n 20
}

load()
{
	ip link set lo up 2>/dev/null
	mlx5_load "$1" || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	devlink dev show
	devlink dev show | grep -qx "$dl"
}

# t_info DRIVER: the driver's name, a PSID, a running version; ours: the
# in-tree's PSID and version (the in-tree reads them through MCQS/MCQI,
# ours from the initialization segment), which is also the RDMA device's
# fw_ver.
t_info()
{
	devlink dev info "$dl" || return 1
	_drv=$(info_val driver) _psid=$(info_val fw.psid) _fw=$(info_val fw.version)
	_ibfw=$(cat /sys/class/infiniband/mlx5_0/fw_ver)
	echo "driver $_drv, psid $_psid, fw.version $_fw; mlx5_0 fw_ver $_ibfw"
	[ "$_drv" = mlx5_core ] && [ -n "$_psid" ] && [ -n "$_fw" ] || return 1
	if [ "$1" = in-tree ]; then
		intree_psid=$_psid intree_fw=$_fw
		return 0
	fi
	echo "in-tree: psid $intree_psid, fw.version $intree_fw"
	[ "$_psid" = "$intree_psid" ] && [ "$_fw" = "$intree_fw" ] && [ "$_fw" = "$_ibfw" ]
}

t_reporters()
{
	devlink health show "$dl" || return 1
	[ "$(rep_val fw state)" = healthy ] && [ "$(rep_val fw_fatal state)" = healthy ] &&
		[ "$(rep_val fw_fatal auto_recover)" = true ]
}

# t_fatal: a fatal syndrome; fw_fatal counts it and recovers the function.
t_fatal()
{
	_e0=$(rep_val fw_fatal error) _r0=$(rep_val fw_fatal recover)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 90 rep_gt fw_fatal recover "$_r0"
	_rc=$?
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	devlink health show "$dl" reporter fw_fatal
	[ $_rc -eq 0 ] || { echo "fw_fatal did not recover"; return 1; }
	[ "$(rep_val fw_fatal error)" -gt "$_e0" ] || { echo "fw_fatal counted no error"; return 1; }
	wait_for 30 sh -c "devlink health show $dl reporter fw_fatal | grep -q 'state healthy'" || return 1
	back "$1_fatal"
}

t_reload()
{
	_p0=$(emu_pages_outstanding 0)
	devlink dev reload "$dl" || return 1
	back "$1_reload" || return 1
	_p=$(emu_pages_outstanding 0)
	echo "hca 0: $_p firmware pages (before the reload $_p0)"
	[ "$_p" -eq "$_p0" ]
}

# Ours: a non-fatal syndrome is counted by "fw"; its dump holds it.
t_fw_nonfatal()
{
	_e0=$(rep_val fw error)
	emu_ctl hca 0 health-syndrome 0x10 >/dev/null || return 1
	wait_for 20 rep_gt fw error "$_e0"
	_rc=$?
	devlink health dump show "$dl" reporter fw >"$out/devlink_fw_dump" 2>&1
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	devlink health show "$dl" reporter fw
	cat "$out/devlink_fw_dump"
	[ $_rc -eq 0 ] || { echo "fw counted no error"; return 1; }
	grep -q 'synd: 16 ' "$out/devlink_fw_dump" && grep -q 'synd_name: high temperature' "$out/devlink_fw_dump"
}

t_diagnose()
{
	devlink health diagnose "$dl" reporter fw_fatal >"$out/devlink_diag" || return 1
	cat "$out/devlink_diag"
	grep -q 'state: ok ' "$out/devlink_diag" && grep -q 'recoveries: [1-9]' "$out/devlink_diag"
}

# Ours: auto_recover off, a fatal syndrome; the function stays in the
# internal-error state until recovered by hand.
t_manual_recover()
{
	devlink health set "$dl" reporter fw_fatal auto_recover false || return 1
	_e0=$(rep_val fw_fatal error)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 30 sh -c "[ \"\$(cat $health/state)\" = internal-error ] &&
		devlink health show $dl reporter fw_fatal | grep -q 'state error'"
	_rc=$?
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	devlink health show "$dl" reporter fw_fatal
	if [ $_rc -ne 0 ]; then
		echo "not in the error state: $(cat "$health/state")"
		devlink health set "$dl" reporter fw_fatal auto_recover true
		return 1
	fi
	# The report is over (state error): nothing else recovers it.
	[ "$(cat "$health/state")" = internal-error ] || { echo "recovered without being asked"; _rc=1; }
	devlink health recover "$dl" reporter fw_fatal || _rc=1
	devlink health set "$dl" reporter fw_fatal auto_recover true || _rc=1
	[ "$(cat "$health/state")" = ok ] || { echo "health state $(cat "$health/state")"; _rc=1; }
	[ "$(rep_val fw_fatal error)" -gt "$_e0" ] || _rc=1
	[ $_rc -eq 0 ] && back ours_manual
}

unload()
{
	mark=$(ktap_dmesg_mark)
	mlx5_unload "$1" || return 1
	! devlink dev show 2>/dev/null | grep -q "^$dl\$" || { echo "$dl still registered"; return 1; }
	_p=$(emu_pages_outstanding 0)
	echo "hca 0: firmware pages outstanding $_p"
	[ "$_p" = 0 ]
}

[ -n "$pci" ] || ktap_skip_all "no ConnectX functions"
ktap_begin 15
ktap_case "in-tree: modprobe, devlink dev show lists the function" load in-tree
ktap_case "in-tree: devlink dev info (driver, psid, fw.version)" t_info in-tree
ktap_case "in-tree: devlink health show: fw and fw_fatal healthy" t_reporters
ktap_case "in-tree: a fatal syndrome counted and recovered by fw_fatal, traffic after" t_fatal intree
ktap_case "in-tree: devlink dev reload: devices back, traffic, pages as before" t_reload intree
ktap_case "in-tree: rmmod, no instance left" unload in-tree
ktap_case "ours: insmod, devlink dev show lists the function" load ours
ktap_case "ours: devlink dev info: the in-tree's psid and fw.version" t_info ours
ktap_case "ours: devlink health show: fw and fw_fatal healthy" t_reporters
ktap_case "ours: a non-fatal syndrome counted by fw, its dump holds it" t_fw_nonfatal
ktap_case "ours: a fatal syndrome counted and recovered by fw_fatal, traffic after" t_fatal ours
ktap_case "ours: devlink health diagnose fw_fatal: state and counters" t_diagnose
ktap_case "ours: auto_recover off: internal-error until devlink health recover" t_manual_recover
ktap_case "ours: devlink dev reload: devices back, traffic, pages as before" t_reload ours
ktap_case "ours: rmmod, no instance left, every page back" unload ours
