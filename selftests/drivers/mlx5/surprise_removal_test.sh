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
# Then, with MLX5_QMP_HOTUNPLUG=1 (QEMU 11.1.3 aborts finalizing the
# unplugged device: see qmp_hotunplug_works), QEMU hot-unplugs HCA 0 (QMP device_del of its vfio-user-pci device
# on its pcie-root-port) under ib_write_bw (server on mlx5_0, client
# writing from mlx5_1): the guest removes the function, our remove path runs
# under the processes: mlx5_0 goes, the application watching it gets
# IBV_EVENT_DEVICE_FATAL, both perftest sides end with an error (the client's
# writes to the vanished peer exceed their retries, the server loses its
# client); QEMU finishes the removal (the emulator's connection ends, the
# function is reset); device_add puts it back, our still-loaded driver
# probes it, traffic works, the modules unload, every page comes back.
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
	pages_zero
}

# QMP device_add/device_del of HCA 0 (scripts/vm: id hca0 on the root port
# rp0, its vfio-user socket in the run's socket directory).
hca0_add_args()
{
	printf '{"driver": "vfio-user-pci", "id": "hca0", "bus": "rp0", "socket": {"type": "unix", "path": "%s/hca0.sock"}}' \
		"$(cat "$out/sockdir")"
}
pci_gone() { [ ! -e "/sys/bus/pci/devices/$pci" ]; }
pci_back() { [ -e "/sys/bus/pci/devices/$pci" ]; }
# QEMU refuses the id while it still finishes the removal: retried.
hca0_added() { vm_qmp device_add "$(hca0_add_args)"; }
ibdevs_all() { [ "$(mlx5_ibdev_count)" -ge "$ndev" ]; }
pages_zero()
{
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: firmware pages outstanding $p"
		[ "$p" = 0 ] || return 1
	done
}

t_qmp()
{
	vm_qmp query-version >"$out/surprise.qmp" || { cat "$out/surprise.qmp"; echo "no QMP monitor (scripts/vm's mlx5vm.qmp port)"; return 1; }
	cat "$out/surprise.qmp"
	[ -s "$out/sockdir" ] || { echo "scripts/vm wrote no $out/sockdir"; return 1; }
}

# QEMU 11.1.3 (the toolbox's) aborts when it finalizes an unplugged
# vfio-user-pci device, after the guest released the function, taking the
# guest with it: "memory_region_del_subregion: Assertion
# `subregion->container == mr' failed". Its vfio-user-pci finalizer
# (vfio_user_instance_finalize -> vfio_user_msix_teardown) removes the
# MSI-X PBA overlay it put on the BAR from the BAR's container region, but
# QOM has already finalized the device's child objects, that container
# among them, which detached the overlay. A QEMU bug that every vfio-user
# device with MSI-X hits, whatever the server answers: no vfio-user message
# is exchanged at that point. Upstream: "[PATCH] vfio-user: Do not delete
# the subregion" (qemu-devel, 2025-10-10). The two cases below run with
# MLX5_QMP_HOTUNPLUG=1, on a QEMU without that bug.
qmp_hotunplug_works()
{
	[ "${MLX5_QMP_HOTUNPLUG:-0}" = 1 ] && return 0
	echo "SKIP: QEMU ($(sed -n 's/.*"package": "\([^"]*\)".*/\1/p' "$out/surprise.qmp")) aborts finalizing an unplugged vfio-user-pci device: vfio_user_msix_teardown() deletes the MSI-X PBA overlay from a BAR container QOM already finalized (memory_region_del_subregion: Assertion subregion->container == mr failed; QEMU bug, upstream patch 'vfio-user: Do not delete the subregion'); MLX5_QMP_HOTUNPLUG=1 runs it"
	return 1
}

t_qmp_unplug()
{
	qmp_hotunplug_works || return 4
	need_tool ib_write_bw ibv_asyncwatch || return 1
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	port=$((port + 1))
	ibv_asyncwatch -d mlx5_0 >"$out/hotunplug.async" 2>&1 &
	apid=$!
	stdbuf -oL ib_write_bw -d mlx5_0 -i 1 -p "$port" -F -s 65536 -D 600 >"$out/hotunplug.server" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || { kill -9 "$spid" "$apid"; cat "$out/hotunplug.server"; return 1; }
	stdbuf -oL ib_write_bw -d mlx5_1 -i 1 -p "$port" -F -s 65536 -D 600 127.0.0.1 >"$out/hotunplug.client" 2>&1 &
	cpid=$!
	# The client prints its table header when the measurement starts
	# (stdbuf: line by line, not when it exits).
	wait_for 60 grep -q '#bytes' "$out/hotunplug.client" ||
		{ echo "the measurement never started"; cat "$out/hotunplug.server" "$out/hotunplug.client"; kill -9 "$spid" "$cpid" "$apid"; return 1; }
	sleep 2 # let writes flow
	kill -0 "$spid" "$cpid" || { echo "ib_write_bw ended before the removal"; kill -9 "$spid" "$cpid" "$apid"; return 1; }
	mark=$(ktap_dmesg_mark)
	vm_qmp device_del '{"id": "hca0"}' || { echo "device_del refused"; kill -9 "$spid" "$cpid" "$apid"; return 1; }
	rc=0
	wait_for 120 pci_gone || { echo "the guest did not remove $pci"; rc=1; }
	wait_for "$TMO" gone "$cpid" || { echo "the client on mlx5_1 hangs"; rc=1; }
	wait_for "$TMO" gone "$spid" || { echo "the server on the removed mlx5_0 hangs"; rc=1; }
	wait_for "$TMO" grep -q DEVICE_FATAL "$out/hotunplug.async" ||
		{ echo "no fatal event reached the application"; rc=1; }
	kill -9 "$spid" "$cpid" "$apid" 2>/dev/null
	wait "$spid"; src=$?
	wait "$cpid"; crc=$?
	wait "$apid" 2>/dev/null
	echo "server exit $src, client exit $crc (137: ended by the test)"
	[ "$src" -ne 0 ] && [ "$src" -ne 137 ] || { echo "the server did not end with an error of its own"; rc=1; }
	[ "$crc" -ne 0 ] && [ "$crc" -ne 137 ] || { echo "the client did not end with an error of its own"; rc=1; }
	echo "--- server"; tail -n 5 "$out/hotunplug.server"
	echo "--- client"; tail -n 5 "$out/hotunplug.client"
	echo "--- asyncwatch"; cat "$out/hotunplug.async"
	since_mark | grep -E 'pciehp|mlx5_core|mlx5_ib' | head -n 20
	[ "$(mlx5_ibdev_count)" -eq $((ndev - 1)) ] || { echo "RDMA devices: $(ls /sys/class/infiniband | tr '\n' ' ')"; rc=1; }
	return $rc
}

t_qmp_replug()
{
	qmp_hotunplug_works || return 4
	wait_for 60 hca0_added || { echo "device_add failed:"; hca0_added; return 1; }
	wait_for 120 pci_back || { echo "the guest did not find $pci again"; return 1; }
	wait_for 60 ibdevs_all || { echo "RDMA devices: $(ls /sys/class/infiniband | tr '\n' ' ')"; return 1; }
	wait_for 30 mlx5_ports_active || { echo "ports not active"; return 1; }
	rdma_pair hotplug_after ib_write_bw -i 1 -F -s 65536 -n 20 || return 1
	mlx5_unload ours || return 1
	pages_zero
}

[ -n "$devs" ] || ktap_skip_all "no ConnectX functions"
have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"
ktap_begin 8
ktap_case "load our driver pair" t_load
ktap_case "surprise removal of HCA 0 under ibv_rc_pingpong: detected, applications get errors" t_unplug
ktap_case "the removed device is down and unregistered" t_down
ktap_case "rmmod of both modules after the removal" t_rmmod
ktap_case "plugged back: load, traffic, every firmware page returned at unload" t_replug
ktap_case "QEMU's QMP monitor answers the guest (scripts/vm's mlx5vm.qmp port)" t_qmp
ktap_case "QEMU hot-unplug (device_del) of HCA 0 under ib_write_bw: removed, applications get errors" t_qmp_unplug
ktap_case "device_add: HCA 0 back, probed, traffic, every firmware page returned at unload" t_qmp_replug
ktap_end
