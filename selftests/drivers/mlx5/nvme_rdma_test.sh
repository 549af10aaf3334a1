#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA on the in-tree mlx5_core + mlx5_ib and on ours (the same
# cases, in-tree first): nvmet exports a memory-backed null_blk namespace
# through nvmet-rdma on mlx5_1's IPoIB address, the host side connects
# with `nvme connect -t rdma` from mlx5_0's address, writes 64 MiB with
# O_DIRECT, reads it back and compares checksums, disconnects and connects
# again, then removes the mlx5 modules with the NVMe connection and IPoIB
# still up (ib_core detaches nvme-rdma, nvmet-rdma and IPoIB first: the
# controller goes away, nothing splats, every firmware object and page
# comes back), and tears the rest down. opensm (started here) brings the
# ports up and answers the path queries. nvme-rdma registers its I/O
# buffers with fast registration (IB_WR_REG_MR through UMR WQEs).
#
# nvmet-rdma and nvme-rdma create their rdma_cm IDs in the initial network
# namespace, so both addresses live there. The host binds to mlx5_0's
# address (-w), and rdma_cm resolves the target's hardware address by ARP
# on mlx5_0's interface; an ARP whose sender address is local is dropped
# unless accept_local is set, so it is (rp_filter off): the queue pairs then
# connect mlx5_0 to mlx5_1 across the fabric.
# The NVMe steps are lib.sh's nvme_* (roce_test.sh runs them over RoCE).
# Needs the fabric guest: --hca 3 --emu-arg --sm --emu-arg external.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
NVME_MIB=${MLX5_NVME_MIB:-64}

t_load()
{
	ip link set lo up 2>/dev/null
	obj_snap=$(emu_obj_snapshot 0 1)
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	opensm_start || return 1
	modprobe ib_ipoib || { echo "modprobe ib_ipoib failed"; return 1; }
	wait_for 30 ipoib_netdev mlx5_0 && wait_for 30 ipoib_netdev mlx5_1 || { echo "no IPoIB interface"; return 1; }
	n0=$(ipoib_netdev mlx5_0) n1=$(ipoib_netdev mlx5_1)
	ip addr add 10.78.0.1/24 dev "$n0" && ip addr add 10.78.0.2/24 dev "$n1" || return 1
	ip link set "$n0" up && ip link set "$n1" up || return 1
	wait_for 60 sh -c "[ \"\$(cat /sys/class/net/$n1/carrier)\" = 1 ]" || { echo "$n1: no carrier"; return 1; }
}

t_target() { nvme_target_up 10.78.0.2; }

t_connect() { nvme_host_connect 10.78.0.2 10.78.0.1 "$n0" "$n1"; }

t_io() { nvme_io "$NVME_MIB"; }

# nvme disconnect takes the controller away; a new connect brings the
# namespace back (for the removal case below).
t_reconnect()
{
	nvme_host_disconnect || return 1
	echo "disconnected: no controller of $NQN"
	t_connect
}

# rmmod while the controller is connected and IPoIB is up: ib_core removes
# its clients from both devices (nvmet-rdma drops its queues, IPoIB its
# interfaces; nvme-rdma's controller goes into error recovery, fails to
# reconnect, and is deleted when its loss timeout expires) before the
# driver goes.
t_rmmod_loaded()
{
	rc=0
	t0=$(date +%s)
	mlx5_unload "$pair" || rc=1
	echo "rmmod took $(($(date +%s) - t0)) s"
	wait_for 30 nvme_no_ctrl || { echo "an NVMe controller outlived the device:"; nvme list-subsys 2>&1 | head; rc=1; }
	! ls /sys/class/net | grep -q '^ib' || { echo "IPoIB interfaces left"; ls /sys/class/net; rc=1; }
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || rc=1
	done
	emu_obj_leaks "$obj_snap" 0 1 || rc=1
	return $rc
}

t_down()
{
	rc=0
	# The controller went with the device: nvme_target_down finds none.
	nvme_target_down || rc=1
	modprobe -r ib_ipoib || { echo "modprobe -r ib_ipoib failed"; rc=1; }
	opensm_stop
	mlx5_loaded && { mlx5_unload "$pair" || rc=1; }
	return $rc
}

# The in-tree pair first, then ours, in the same boot: the same cases,
# each named with its driver.
pairs=${MLX5_NVME_PAIRS:-in-tree ours}
set -- $pairs
ktap_begin $((7 * $#))
for pair in $pairs; do
	ktap_case "mlx5, opensm, IPoIB addresses [$pair]" t_load
	ktap_case "nvmet-rdma exports a null_blk namespace on 10.78.0.2:4420 [$pair]" t_target
	ktap_case "nvme connect -t rdma [$pair]" t_connect
	ktap_case "${NVME_MIB} MiB O_DIRECT write, read back, checksums [$pair]" t_io
	ktap_case "nvme disconnect, connect again [$pair]" t_reconnect
	ktap_case "rmmod mlx5_ib mlx5_core with NVMe connected and IPoIB up: clean, objects and pages back [$pair]" t_rmmod_loaded
	ktap_case "nvmet, nvme-rdma, IPoIB and opensm torn down [$pair]" t_down
done
ktap_end
