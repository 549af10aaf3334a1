#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel verbs of our mlx5_ib, as the in-kernel consumers see them.
#
# - The self-test module (kverbs/mlx5_kverbs_test.ko, built by `make
#   selftests`) runs its cases on mlx5_0 when loaded and prints KTAP to the
#   kernel log; each of its cases is one case here.
# - The MAD layer: ib_core opened QP0 and QP1 on every port when mlx5_ib
#   registered; ib_umad gives ibstat, smpquery and ibping a way in. A
#   directed-route SMP to the local port is answered through process_mad
#   (MAD_IFC); a LID-routed SMP to the other HCA crosses both QP0s, ibping
#   both QP1s.
# - IPoIB attaches to our devices (an ib interface per port).
# - ib_drain_qp() on QPs of a device that enters the internal-error state
#   (fatal health syndrome from the emulator) returns with the receives
#   flushed; the function is rebound with IPoIB up.
# - Removing mlx5_ib while ib_ipoib and ib_umad use it: ib_core detaches
#   the clients first, and nothing splats.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
kverbs_ko=${MLX5_KVERBS_KO:-$dir/kverbs/mlx5_kverbs_test.ko}
kt_log=$out/kverbs_test.ktap
# The module's cases, in its order.
kt_cases="setup kernel_cq_empty rc_connect rc_send rc_send_imm rc_send_inline
rc_write rc_write_imm rc_read rc_atomics hw_counters rc_unsignaled rc_remote_access_error
cq_empty_after_destroy srq_recycle ud_send_recv ud_multicast frwr_local_inv frwr_send_with_inv
cq_report_missed_events
softirq_post_poll_chain drain_qp"

t_load()
{
	mlx5_load ours || return 1
	wait_for 60 mlx5_ports_active || { echo "ports not ACTIVE with a LID"; return 1; }
}

t_module()
{
	[ -f "$kverbs_ko" ] || { echo "not built: $kverbs_ko (make selftests)"; return 1; }
	_m=$(ktap_dmesg_mark)
	insmod "$kverbs_ko" devname=mlx5_0
	_rc=$?
	dmesg | tail -n +$((_m + 1)) | sed -n 's/^.*mlx5_kverbs_test: //p' >"$kt_log"
	cat "$kt_log"
	[ "$_rc" -eq 0 ] || { echo "insmod failed ($_rc)"; return 1; }
	rmmod mlx5_kverbs_test || return 1
	grep -q '^# totals:' "$kt_log" || { echo "the module did not finish"; return 1; }
}

# t_kcase NAME: the module reported NAME as passed.
t_kcase()
{
	grep -q "^ok [0-9]* $1\$" "$kt_log" && return 0
	grep -E "^(not )?ok [0-9]* $1( |\$)" "$kt_log" || echo "$1 was not run"
	return 1
}

# The Q counter set behind `rdma statistic` and ports/1/hw_counters (the
# module checked that it counts).
t_hw_counters()
{
	need_tool rdma || return 1
	rdma statistic show link mlx5_0/1 >"$out/kverbs_stat" 2>&1
	_rc=$?
	cat "$out/kverbs_stat"
	[ "$_rc" -eq 0 ] && grep -q 'rx_write_requests [0-9]' "$out/kverbs_stat" || return 1
	_v=$(cat /sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_read_requests) || return 1
	echo "hw_counters/rx_read_requests: $_v"
	[ "$_v" -ge 0 ] 2>/dev/null
}

t_ibstat()
{
	need_tool ibstat || return 1
	modprobe ib_umad || { echo "modprobe ib_umad failed"; return 1; }
	wait_for 10 test -e /dev/infiniband/umad0 || { echo "no umad device"; return 1; }
	ibstat mlx5_0 >"$out/kverbs_ibstat" 2>&1
	_rc=$?
	cat "$out/kverbs_ibstat"
	[ "$_rc" -eq 0 ] && grep -q 'State: Active' "$out/kverbs_ibstat"
}

t_smp_local()
{
	need_tool smpquery || return 1
	# Directed route with an empty path: the local port's agent, through
	# the MAD layer's local SMP handling and our process_mad.
	timeout 60 smpquery -C mlx5_0 -P 1 -D nodeinfo 0 >"$out/kverbs_smp" 2>&1
	_rc=$?
	cat "$out/kverbs_smp"
	[ "$_rc" -eq 0 ] || return 1
	_guid=$(sed 's/^0x//' /sys/class/infiniband/mlx5_0/node_guid | tr -d ':')
	grep -q "^Guid:\.*0x$_guid\$" "$out/kverbs_smp" ||
		{ echo "Guid is not mlx5_0's node GUID ($_guid)"; return 1; }
}

# A LID-routed SMP to the other HCA: QP0 of mlx5_0 sends it, QP0 of
# mlx5_1 receives it, its process_mad asks the firmware, and the reply
# travels back the same way.
t_smp_remote()
{
	need_tool smpquery || return 1
	_lid=$(cat /sys/class/infiniband/mlx5_1/ports/1/lid)
	timeout 60 smpquery -C mlx5_0 -P 1 nodeinfo "$((_lid))" >"$out/kverbs_smp_remote" 2>&1
	_rc=$?
	cat "$out/kverbs_smp_remote"
	[ "$_rc" -eq 0 ] || return 1
	_guid=$(sed 's/^0x//' /sys/class/infiniband/mlx5_1/node_guid | tr -d ':')
	grep -q "^Guid:\.*0x$_guid\$" "$out/kverbs_smp_remote" ||
		{ echo "Guid is not mlx5_1's node GUID ($_guid)"; return 1; }
}

# Vendor MADs between user agents on QP1 of each HCA (ibping server on
# mlx5_1, client on mlx5_0).
t_gsi_ping()
{
	need_tool ibping || return 1
	_lid=$(cat /sys/class/infiniband/mlx5_1/ports/1/lid)
	ibping -C mlx5_1 -P 1 -S >"$out/kverbs_ibping.server" 2>&1 &
	_spid=$!
	# The server has its umad device open (its agent registers then).
	wait_for 10 sh -c "ls -l /proc/$_spid/fd | grep -q umad"
	timeout 60 ibping -C mlx5_0 -P 1 -c 3 -L "$((_lid))" >"$out/kverbs_ibping" 2>&1
	_rc=$?
	kill "$_spid" 2>/dev/null
	wait "$_spid" 2>/dev/null
	cat "$out/kverbs_ibping"
	[ "$_rc" -eq 0 ] && grep -q ' 0% packet loss' "$out/kverbs_ibping"
}

t_ipoib()
{
	modprobe ib_ipoib || { echo "modprobe ib_ipoib failed"; return 1; }
	wait_for 30 sh -c "ls /sys/class/net | grep -q '^ib'" ||
		{ echo "no IPoIB interface"; ls /sys/class/net; return 1; }
	ls /sys/class/net
}

# The self-test module drains QPs of mlx5_0 after the emulator declared the
# device dead (a fatal health syndrome) under it; then the function is
# rebound. Recovery is off: the device stays dead while the module drains.
t_dead_drain()
{
	echo N >/sys/module/mlx5_core/parameters/recovery || return 1
	dead_drain
	_rc=$?
	echo Y >/sys/module/mlx5_core/parameters/recovery
	return $_rc
}

dead_drain()
{
	have_emu || { echo "no emulator control channel"; return 1; }
	_m=$(ktap_dmesg_mark)
	insmod "$kverbs_ko" devname=mlx5_0 dead_device=1 &
	_ipid=$!
	wait_for 60 sh -c "dmesg | tail -n +$((_m + 1)) | grep -q 'waiting for the device error'" ||
		{ echo "the module never got ready"; kill "$_ipid" 2>/dev/null; return 1; }
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait "$_ipid"
	_rc=$?
	dmesg | tail -n +$((_m + 1)) | sed -n 's/^.*mlx5_kverbs_test: //p' | tee "$out/kverbs_dead.ktap"
	[ "$_rc" -eq 0 ] && rmmod mlx5_kverbs_test || _rc=1
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	_pci=$(echo "$devs" | head -n 1)
	echo "$_pci" >/sys/bus/pci/drivers/mlx5_core/unbind || return 1
	echo "$_pci" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	wait_for 30 sh -c "[ \$(ls /sys/class/infiniband | grep -c '^mlx5_') -ge $ndev ]" || return 1
	[ "$_rc" -eq 0 ] && grep -q '^ok [0-9]* drain_on_dead_device$' "$out/kverbs_dead.ktap"
}

t_unload_with_ulps()
{
	rmmod mlx5_ib || { echo "rmmod mlx5_ib failed"; return 1; }
	! ls /sys/class/net | grep -q '^ib' || { echo "IPoIB interfaces left"; return 1; }
	rmmod mlx5_core || return 1
	modprobe -r ib_ipoib ib_umad
}

[ -n "$devs" ] || ktap_skip_all "no ConnectX functions"
set -- $kt_cases
ktap_begin $(($# + 10))
ktap_case "load our driver pair" t_load
ktap_case "self-test module on mlx5_0" t_module
for c in $kt_cases; do
	ktap_case "kverbs $c" t_kcase "$c"
done
ktap_case "rdma statistic and hw_counters" t_hw_counters
ktap_case "ib_umad + ibstat (QP0/QP1 agents)" t_ibstat
ktap_case "smpquery -D nodeinfo 0 (process_mad)" t_smp_local
ktap_case "smpquery nodeinfo to mlx5_1's LID (QP0 both ways)" t_smp_remote
ktap_case "ibping mlx5_0 -> mlx5_1 (QP1 both ways)" t_gsi_ping
ktap_case "ib_ipoib attaches" t_ipoib
ktap_case "ib_drain_qp on a device that died (IPoIB up)" t_dead_drain
ktap_case "rmmod mlx5_ib under ib_ipoib/ib_umad" t_unload_with_ulps
ktap_end
