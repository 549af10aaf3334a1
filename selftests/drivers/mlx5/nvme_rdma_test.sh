#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA on the in-tree mlx5_core + mlx5_ib and on ours (the same
# cases, in-tree first): nvmet exports a
# memory-backed null_blk namespace through nvmet-rdma on mlx5_1's IPoIB address, the
# host side connects with `nvme connect -t rdma` from mlx5_0's address,
# writes 64 MiB with O_DIRECT, reads it back and compares checksums, then
# then removes the mlx5 modules with the NVMe connection and IPoIB still up
# (ib_core detaches nvme-rdma, nvmet-rdma and IPoIB first: the controller
# goes away, nothing splats, every firmware object and page comes back), and
# tears the rest down. opensm (started here) brings the
# ports up and answers the path queries. nvme-rdma registers its I/O
# buffers with fast registration (IB_WR_REG_MR through UMR WQEs).
#
# nvmet-rdma and nvme-rdma create their rdma_cm IDs in the initial network
# namespace, so both addresses live there. The host binds to mlx5_0's
# address (-w), and rdma_cm resolves the target's hardware address by ARP
# on mlx5_0's interface; an ARP whose sender address is local is dropped
# unless accept_local is set, so it is (rp_filter off): the queue pairs then
# connect mlx5_0 to mlx5_1 across the fabric.
# Needs the fabric guest: --hca 3 --emu-arg --sm --emu-arg external.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
NVME_MIB=${MLX5_NVME_MIB:-64}
NQN=nqn.2026-12.org.mlx5-clone:emu
CFG=/sys/kernel/config/nvmet

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

t_target()
{
	# A memory-backed null_blk keeps what is written (1 GiB at most).
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || { echo "modprobe null_blk failed"; return 1; }
	for m in nvmet nvmet-rdma nvme-rdma; do
		modprobe $m || { echo "modprobe $m failed"; return 1; }
	done
	wait_for 10 test -b /dev/nullb0 || { echo "no /dev/nullb0"; return 1; }
	[ -d "$CFG" ] || mount -t configfs none /sys/kernel/config 2>/dev/null
	[ -d "$CFG" ] || { echo "no $CFG"; return 1; }
	mkdir "$CFG/subsystems/$NQN" || return 1
	echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host"
	mkdir "$CFG/subsystems/$NQN/namespaces/1" || return 1
	echo /dev/nullb0 >"$CFG/subsystems/$NQN/namespaces/1/device_path"
	echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable" || return 1
	mkdir "$CFG/ports/1" || return 1
	echo rdma >"$CFG/ports/1/addr_trtype"
	echo ipv4 >"$CFG/ports/1/addr_adrfam"
	echo 10.78.0.2 >"$CFG/ports/1/addr_traddr"
	echo 4420 >"$CFG/ports/1/addr_trsvcid"
	ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN" || return 1
	dmesg | grep -E 'nvmet' | tail -n 3
}

# nvme_dev: the namespace's disk (nvmeXnY) of the controller of $NQN, never
# the per-controller path nvmeXcYnZ, which has no /dev node (dd would write
# a regular file there and compare it with itself).
nvme_dev()
{
	for _b in /sys/block/nvme*n*; do
		_n=${_b##*/}
		case $_n in nvme*c*n*) continue ;; esac
		[ "$(cat "$_b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] && [ -b "/dev/$_n" ] &&
			{ echo "$_n"; return 0; }
	done
	return 1
}

t_connect()
{
	need_tool nvme || return 1
	for k in all default "$n0" "$n1"; do
		sysctl -qw net.ipv4.conf."$k".accept_local=1 net.ipv4.conf."$k".rp_filter=0 || return 1
	done
	# A lost controller is given up after 2 s (one reconnect a second), so
	# that the removal case below does not wait for the 600 s default.
	nvme connect -t rdma -n "$NQN" -a 10.78.0.2 -s 4420 -w 10.78.0.1 \
		--ctrl-loss-tmo=2 --reconnect-delay=1 >"$out/nvme_connect.txt" 2>&1
	rc=$?
	cat "$out/nvme_connect.txt"
	ip neigh show 10.78.0.2
	[ "$rc" -eq 0 ] || { dmesg | grep -E 'nvme|infiniband|mlx5_core .*: no ' | tail -n 20; return 1; }
	wait_for 30 nvme_dev || { echo "no namespace block device"; nvme list; return 1; }
	dev=/dev/$(nvme_dev)
	echo "namespace: $dev"
	nvme list 2>&1 | head -n 5
}

t_io()
{
	[ -b "$dev" ] || { echo "$dev is not a block device"; return 1; }
	f=/tmp/nvme_rdma.data
	head -c $((NVME_MIB << 20)) /dev/urandom >"$f" || return 1
	dd if="$f" of="$dev" bs=1M count="$NVME_MIB" oflag=direct conv=fsync 2>"$out/nvme_dd.txt"
	_rc=$?
	tail -n 1 "$out/nvme_dd.txt"
	if [ "$_rc" -ne 0 ]; then
		cat "$out/nvme_dd.txt"
		dmesg | grep -E 'nvme|blk|I/O' | tail -n 20
		rm -f "$f"
		return 1
	fi
	a=$(sha256sum <"$f" | cut -d' ' -f1)
	b=$(dd if="$dev" bs=1M count="$NVME_MIB" iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	rm -f "$f"
	echo "written $a"
	echo "read    $b"
	[ "$b" = "$a" ]
}

# no_ctrl: no NVMe controller of $NQN is left.
no_ctrl()
{
	! grep -qx "$NQN" /sys/class/nvme/*/subsysnqn 2>/dev/null
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
	wait_for 30 no_ctrl || { echo "an NVMe controller outlived the device:"; nvme list-subsys 2>&1 | head; rc=1; }
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
	# The controller went with the device; a disconnect finds nothing.
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	rm -f "$CFG/ports/1/subsystems/$NQN"
	rmdir "$CFG/ports/1" "$CFG/subsystems/$NQN/namespaces/1" "$CFG/subsystems/$NQN" || rc=1
	for m in nvme-rdma nvmet-rdma nvmet null_blk ib_ipoib; do
		modprobe -r $m || { echo "modprobe -r $m failed"; rc=1; }
	done
	opensm_stop
	mlx5_loaded && { mlx5_unload "$pair" || rc=1; }
	return $rc
}

# The in-tree pair first, then ours, in the same boot: the same cases,
# each named with its driver.
pairs=${MLX5_NVME_PAIRS:-in-tree ours}
set -- $pairs
ktap_begin $((6 * $#))
for pair in $pairs; do
	ktap_case "mlx5, opensm, IPoIB addresses [$pair]" t_load
	ktap_case "nvmet-rdma exports a null_blk namespace on 10.78.0.2:4420 [$pair]" t_target
	ktap_case "nvme connect -t rdma [$pair]" t_connect
	ktap_case "${NVME_MIB} MiB O_DIRECT write, read back, checksums [$pair]" t_io
	ktap_case "rmmod mlx5_ib mlx5_core with NVMe connected and IPoIB up: clean, objects and pages back [$pair]" t_rmmod_loaded
	ktap_case "nvmet, nvme-rdma, IPoIB and opensm torn down [$pair]" t_down
done
ktap_end
