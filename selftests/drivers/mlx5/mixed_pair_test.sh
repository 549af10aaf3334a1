#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Ours and the in-tree pair in one kernel (guest with emulator --link eth):
# the renamed test build of ours (make modules-renamed: mlx5c_core.ko,
# mlx5c_ib.ko) loads beside the in-tree mlx5_core/mlx5_ib, the first
# function bound to the in-tree mlx5_core and the second to our
# mlx5c_core (driver_override). Its names: modinfo, the auxiliary devices
# and drivers of each pair (neither binds the other's), no clash of
# exported symbols or driver names (insmod and the driver registrations
# would fail). Then, between the in-tree function and ours: netdevs with
# carrier, ping and ping -6, ibv_devinfo on both (a RoCE port is ACTIVE
# once its netdev is up), TCP transfers whose sha256 must match, ib_write_bw -x over RoCEv2 with the in-tree device as the
# server and then ours. Ours unloads while the in-tree pair runs on; then
# the in-tree pair; every firmware page comes back and neither logged a
# failed command.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -eq 2 ] || ktap_skip_all "needs two ConnectX functions, has $ndev"
MB=${MLX5_ETH_MB:-16}
PERF_ITERS=${MLX5_PERF_ITERS:-200}
dev_it=$(echo $devs | cut -d' ' -f1) dev_our=$(echo $devs | cut -d' ' -f2)
ib_it="" ib_our="" eth_it="" eth_our=""

# The renamed modules' metadata: their names, the ib module's dependency
# on the renamed core and its alias for the renamed core's auxiliary
# devices (what modprobe would match).
t_modinfo()
{
	for m in "$rn_core_ko" "$rn_ib_ko"; do
		[ -f "$m" ] || { echo "module not built: $m (make modules-renamed)"; return 1; }
	done
	n=$(modinfo -F name "$rn_core_ko") ni=$(modinfo -F name "$rn_ib_ko")
	dep=$(modinfo -F depends "$rn_ib_ko")
	alias=$(modinfo -F alias "$rn_ib_ko")
	pci=$(modinfo -F alias "$rn_core_ko" | grep -c '^pci:v000015B3')
	echo "core: $n ($pci PCI aliases); ib: $ni, depends $dep, alias $alias"
	[ "$n" = $rn_core ] || { echo "core module named $n"; return 1; }
	[ "$ni" = $rn_ib ] || { echo "ib module named $ni"; return 1; }
	echo ",$dep," | grep -q ",$rn_core," || { echo "$rn_ib does not depend on $rn_core"; return 1; }
	echo ",$dep," | grep -q ',mlx5_core,' && { echo "$rn_ib depends on mlx5_core"; return 1; }
	[ "$alias" = "auxiliary:$rn_core.rdma" ] || { echo "$rn_ib's alias is not auxiliary:$rn_core.rdma"; return 1; }
	[ "$pci" -gt 0 ]
}

# aux_bound PREFIX DRIVER: every auxiliary device PREFIX.* (at least one)
# is bound to DRIVER.
aux_bound()
{
	_n=0
	for a in /sys/bus/auxiliary/devices/"$1".*; do
		[ -e "$a" ] || continue
		d=$(readlink "$a/driver") && d=${d##*/}
		echo "${a##*/}: ${d:-unbound}"
		[ "$d" = "$2" ] || return 1
		_n=$((_n + 1))
	done
	[ $_n -gt 0 ]
}

t_load()
{
	ip link set lo up 2>/dev/null
	mlx5_load_mixed "$dev_it" "$dev_our" || { dmesg | grep -E 'mlx5|infiniband|auxiliary' | tail -n 20; return 1; }
	grep -E "^(mlx5_ib|mlx5_core|$rn_core|$rn_ib) " /proc/modules | cut -d' ' -f1-4
	ib_it=$(pci_ibdev "$dev_it") ib_our=$(pci_ibdev "$dev_our")
	[ "$ib_it" = mlx5_0 ] && [ "$ib_our" = mlx5_1 ] ||
		{ echo "RDMA devices: in-tree $ib_it, ours $ib_our (expected mlx5_0, mlx5_1)"; return 1; }
	rc=0
	aux_bound mlx5_core.rdma mlx5_ib.rdma || { echo "an in-tree rdma device is not the in-tree mlx5_ib's"; rc=1; }
	aux_bound mlx5_core.eth mlx5_core.eth || { echo "an in-tree eth device is not the in-tree mlx5e's"; rc=1; }
	aux_bound $rn_core.rdma $rn_ib.rdma || { echo "our rdma device is not $rn_ib's"; rc=1; }
	aux_bound $rn_core.eth $rn_core.eth || { echo "our eth device is not our netdev's"; rc=1; }
	for d in mlx5_core.eth mlx5_ib.rdma $rn_core.eth $rn_ib.rdma; do
		[ -d /sys/bus/auxiliary/drivers/$d ] || { echo "no auxiliary driver $d"; rc=1; }
	done
	[ -d "/sys/bus/pci/drivers/$rn_core/$dev_our" ] || { echo "no /sys/bus/pci/drivers/$rn_core/$dev_our"; rc=1; }
	[ ! -e "/sys/bus/pci/drivers/mlx5_core/$dev_our" ] || { echo "the in-tree mlx5_core took $dev_our"; rc=1; }
	for i in it our; do
		eval "d=\$dev_$i"
		wait_for 30 sh -c "ls /sys/bus/pci/devices/$d/net 2>/dev/null | grep -q ." || { echo "$d: no netdev"; return 1; }
		eval "eth_$i=\$(ls /sys/bus/pci/devices/$d/net | head -n 1)"
	done
	echo "in-tree: $dev_it $ib_it $eth_it ($(ethtool -i "$eth_it" | sed -n 's/^driver: //p'));" \
		"ours: $dev_our $ib_our $eth_our ($(ethtool -i "$eth_our" | sed -n 's/^driver: //p'))"
	return $rc
}

port_active() { ibv_devinfo -d "$1" | grep -q 'state:.*PORT_ACTIVE'; }

# loaded: t_load found both functions' RDMA devices and netdevs (the
# cases after it fail, not pass vacuously, when it did not).
loaded()
{
	[ -n "$ib_it" ] && [ -n "$ib_our" ] && [ -n "$eth_it" ] && [ -n "$eth_our" ] ||
		{ echo "the two pairs did not load (see the load case)"; return 1; }
}

t_devinfo()
{
	loaded || return 1
	for d in $ib_it $ib_our; do
		ibv_devinfo -d $d | grep -E 'hca_id|fw_ver|vendor_part_id|phys_port_cnt|state|link_layer'
		ibv_devinfo -d $d | grep -q 'link_layer:.*Ethernet' || { echo "$d: not Ethernet"; return 1; }
		wait_for 30 port_active $d || { echo "$d: port not ACTIVE"; return 1; }
	done
}

t_up()
{
	loaded || return 1
	netdev_pair_up "$eth_it" "$eth_our" v6 || return 1
	ipoib_in 0 ping -c 3 -i 0.2 -W 10 10.77.0.2 && ipoib_in 1 ping -6 -c 3 -i 0.2 -W 10 fd00:77::1
}

t_tcp()
{
	loaded || return 1
	ns_tcp_transfer mlx5ns0 mlx5ns1 10.77.0.2 "$MB" mixed_tcp_to_ours &&
		ns_tcp_transfer mlx5ns1 mlx5ns0 10.77.0.1 "$MB" mixed_tcp_to_in_tree
}

# write_bw SERVER CLIENT NAME: ib_write_bw -x over RoCEv2 (the GIDs of
# 10.77.0.1 and .2, one index on both devices) from CLIENT to SERVER.
write_bw()
{
	loaded || return 1
	x0=$(gid_index mlx5_0 "RoCE v2" "$(v4_gid 1)") x1=$(gid_index mlx5_1 "RoCE v2" "$(v4_gid 2)")
	echo "RoCE v2 GID of 10.77.0.1 on mlx5_0: index $x0, of 10.77.0.2 on mlx5_1: index $x1"
	[ -n "$x0" ] && [ "$x0" = "$x1" ] || { gid_table mlx5_0; gid_table mlx5_1; return 1; }
	RDMA_PAIR_SERVER_DEV=$1 RDMA_PAIR_CLIENT_DEV=$2 \
		rdma_pair "$3" ib_write_bw -x "$x0" -n "$PERF_ITERS" -s 65536 || return 1
	perf_result "$out/$3.client"
}

gids_up() { gid_index mlx5_0 "RoCE v2" "$(v4_gid 1)" && gid_index mlx5_1 "RoCE v2" "$(v4_gid 2)"; }

t_write_bw_it()
{
	wait_for 30 gids_up || { echo "no RoCE v2 GIDs of the namespaces' IPv4 addresses"; return 1; }
	write_bw "$ib_it" "$ib_our" mixed_write_bw_ours_to_in_tree
}

t_write_bw_our() { write_bw "$ib_our" "$ib_it" mixed_write_bw_in_tree_to_ours; }

# Ours goes while the in-tree pair runs on: its RDMA device answers, its
# netdev stays (up, in its namespace).
t_unload_ours()
{
	loaded || return 1
	mlx5_unload_ours_renamed || return 1
	[ -z "$(pci_driver_of "$dev_our")" ] || { echo "$dev_our still bound to $(pci_driver_of "$dev_our")"; return 1; }
	ls /sys/bus/auxiliary/devices/ | grep "^$rn_core\." && { echo "auxiliary devices of $rn_core left"; return 1; }
	pci_driver_is "$dev_it" mlx5_core || { echo "$dev_it lost its driver"; return 1; }
	[ "$(pci_ibdev "$dev_it")" = "$ib_it" ] || { echo "$ib_it is gone"; return 1; }
	ipoib_in 0 ip link show "$eth_it" | grep -q 'state UP' ||
		{ echo "$eth_it is gone or down"; ipoib_in 0 ip link show; return 1; }
	ibv_devinfo -d "$ib_it" | grep -E 'hca_id|state' || { echo "$ib_it does not answer"; return 1; }
	echo "$ib_it and $eth_it on the in-tree pair after $rn_core's removal"
}

t_down()
{
	rc=0
	netdev_pair_down "$eth_it" "$eth_our"
	mlx5_unload_mixed "$dev_it" "$dev_our" || rc=1
	for d in $devs; do
		[ -z "$(cat "/sys/bus/pci/devices/$d/driver_override")" ] ||
			[ "$(cat "/sys/bus/pci/devices/$d/driver_override")" = "(null)" ] ||
			{ echo "$d: driver_override left"; rc=1; }
	done
	emu_pages_back 0 1 || rc=1
	mlx5_mixed_log_clean "$dmesg_start" || rc=1
	return $rc
}

ktap_begin 9
ktap_case "the renamed build: $rn_core and $rn_ib, the ib module depends on and matches $rn_core" t_modinfo
ktap_case "load: the in-tree pair on $dev_it, ours ($rn_core, $rn_ib) on $dev_our, each on its own auxiliary devices" t_load
ktap_case "netdevs in two namespaces: carrier, ping and ping -6 between the in-tree netdev and ours" t_up
ktap_case "ibv_devinfo on both: link_layer Ethernet, ports ACTIVE" t_devinfo
ktap_case "TCP transfers of ${MB} MiB both ways, sha256 matches" t_tcp
ktap_case "ib_write_bw -x over RoCEv2: ours writes to the in-tree device" t_write_bw_it
ktap_case "ib_write_bw -x over RoCEv2: the in-tree device writes to ours" t_write_bw_our
ktap_case "unload ours: the in-tree pair's RDMA device and netdev stay" t_unload_ours
ktap_case "unload the in-tree pair: every firmware page returned, no failed command logged" t_down
rm -f /tmp/ns_tcp.*
ktap_end
