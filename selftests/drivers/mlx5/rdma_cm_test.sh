#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rdma_cm on the in-tree mlx5_core + mlx5_ib and on ours (the same
# cases, in-tree first) over classic IPoIB addresses:
# opensm (started here) brings the ports up and answers the path queries,
# the IPoIB interfaces of mlx5_0 / mlx5_1 sit in two network namespaces
# (10.77.0.1, 10.77.0.2), and each tool runs its server in mlx5ns1 and its
# client in mlx5ns0: rping -v -V (data verified), ucmatose (RC), udaddy
# (UD), ib_write_bw -R and ib_send_lat -R (perftest connecting through
# rdma_cm; -F: its cycle-counter calibration fails on a loaded TCG guest,
# "Correlation coefficient r^2 < 0.9", and it would stop there). Needs the fabric guest: --hca 3 --emu-arg --sm --emu-arg external.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
PERF_ITERS=${MLX5_PERF_ITERS:-100}

t_load()
{
	ip link set lo up 2>/dev/null
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	modprobe rdma_ucm || { echo "modprobe rdma_ucm failed"; return 1; }
}

t_up() { opensm_start && ipoib_pair_up; }

t_rping()
{
	need_tool rping || return 1
	cm_pair rping rping -s -v -V -C 10 -a 10.77.0.2 -- rping -c -v -V -C 10 -a 10.77.0.2 || return 1
	n=$(grep -c 'ping data' "$out/cm_rping.client")
	echo "client printed $n ping lines"
	[ "$n" -ge 10 ]
}

t_ucmatose()
{
	need_tool ucmatose || return 1
	cm_pair ucmatose ucmatose -b 10.77.0.2 -C 10 -- ucmatose -s 10.77.0.2 -C 10 || return 1
	grep -q 'data transfers complete' "$out/cm_ucmatose.client"
}

t_udaddy()
{
	need_tool udaddy || return 1
	cm_pair udaddy udaddy -b 10.77.0.2 -C 10 -- udaddy -s 10.77.0.2 -C 10 || return 1
	grep -q 'data transfers complete' "$out/cm_udaddy.client"
}

t_write_bw()
{
	need_tool ib_write_bw || return 1
	cm_pair write_bw ib_write_bw -R -d mlx5_1 -F -n "$PERF_ITERS" -- \
		ib_write_bw -R -d mlx5_0 -F -n "$PERF_ITERS" 10.77.0.2 || return 1
	perf_result "$out/cm_write_bw.client"
}

t_send_lat()
{
	need_tool ib_send_lat || return 1
	cm_pair send_lat ib_send_lat -R -d mlx5_1 -F -n "$PERF_ITERS" -- \
		ib_send_lat -R -d mlx5_0 -F -n "$PERF_ITERS" 10.77.0.2 || return 1
	perf_result "$out/cm_send_lat.client"
}

t_down()
{
	rc=0
	ipoib_pair_down || rc=1
	opensm_stop
	modprobe -r rdma_ucm
	mlx5_unload "$pair" || rc=1
	return $rc
}

# The in-tree pair first, then ours, in the same boot: the same cases,
# each named with its driver.
ktap_begin 16
for pair in in-tree ours; do
	ktap_case "modprobe mlx5_ib, rdma_ucm [$pair]" t_load
	ktap_case "opensm: ports ACTIVE; IPoIB interfaces up in two namespaces [$pair]" t_up
	ktap_case "rping -v -V: 10 pings, data verified [$pair]" t_rping
	ktap_case "ucmatose (RC through rdma_cm) [$pair]" t_ucmatose
	ktap_case "udaddy (UD through rdma_cm) [$pair]" t_udaddy
	ktap_case "ib_write_bw -R [$pair]" t_write_bw
	ktap_case "ib_send_lat -R [$pair]" t_send_lat
	ktap_case "teardown [$pair]" t_down
done
ktap_end
