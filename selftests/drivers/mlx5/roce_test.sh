#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# RoCE on the emulator's Ethernet ports (guest with --link eth): mlx5_core
# (its Ethernet driver) + mlx5_ib; each HCA's netdev in a network namespace
# of its own (mlx5ns0 / mlx5ns1, 10.77.0.1-2/24, fd00:77::1-2/64). The RDMA
# devices report link_layer Ethernet and ACTIVE ports, the same node GUIDs
# and description on both pairs; the GID table
# (sysfs gids, gid_attrs/types, and the emulator's own table filled by
# SET_ROCE_ADDRESS) holds the netdevs' addresses as RoCE v1 and v2 GIDs;
# ibv_rc_pingpong -g (RoCEv2 over IPv4, over IPv6, and between two QPs
# of one function: local loopback), ib_write_bw -x, ib_send_lat -R and
# rping -v (rdma_cm over the IP addresses: QP1 MADs as RoCEv2 UD for
# ib_cm), ibv_ud_pingpong (user address handles) and RC over a VLAN
# netdev's GID carry data; a link flap from the emulator shows on the
# carrier and the RoCE port, and both recover; then, with both netdevs back
# in the initial namespace (10.78.0.1-2/24), NVMe over RDMA over RoCE:
# nvmet-rdma on mlx5_1's address, nvme connect from mlx5_0's, 64 MiB
# written and read back with matching checksums, disconnect. The cases run
# for the in-tree pair, then ours.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
PERF_ITERS=${MLX5_PERF_ITERS:-200}
NVME_MIB=${MLX5_NVME_MIB:-64}

t_load()
{
	ip link set lo up 2>/dev/null
	for h in 0 1; do emu_ctl hca $h trace-clear >/dev/null; done
	mad0=$(emu_ok_op 0 MAD_IFC)
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	modprobe rdma_ucm || { echo "modprobe rdma_ucm failed"; return 1; }
	for i in 0 1; do
		wait_for 30 sh -c "[ -n \"\$(ls /sys/class/infiniband/mlx5_$i/device/net 2>/dev/null)\" ]" ||
			{ echo "mlx5_$i: no netdev"; return 1; }
	done
	eth0=$(roce_netdev mlx5_0) eth1=$(roce_netdev mlx5_1)
	echo "mlx5_0: $eth0, mlx5_1: $eth1"
}

t_up()
{
	netdev_pair_up "$eth0" "$eth1" v6 || return 1
	# Neighbours both ways (the RoCE address resolution finds them too).
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 && ipoib_in 0 ping -6 -c 2 -i 0.2 -W 10 fd00:77::2
}

port_active() { ibv_devinfo -d "$1" | grep -q 'state:.*PORT_ACTIVE'; }

# The node on Ethernet ports: node GUID and system image GUID (from the NIC
# vport context) and node description (the NODE_DESC register), the same
# on both pairs (ours is compared with the in-tree run of this boot). The
# MAD_IFC count since the load is printed: ours still sends one, ib_core's
# PMA ClassPortInfo probe at registration (the in-tree driver answers PMA
# on Ethernet ports from the vport counters instead).
t_node()
{
	f=$out/roce_node.$pair
	for d in mlx5_0 mlx5_1; do
		s=/sys/class/infiniband/$d
		echo "$d node_guid $(cat $s/node_guid) sys_image_guid $(cat $s/sys_image_guid) node_desc '$(cat $s/node_desc)'"
	done >"$f"
	cat "$f"
	grep -q 'node_guid 0000:0000:0000:0000' "$f" && { echo "a zero node GUID"; return 1; }
	if [ "$pair" != in-tree ] && [ -f "$out/roce_node.in-tree" ]; then
		diff "$out/roce_node.in-tree" "$f" || return 1
	fi
	echo "MAD_IFC commands to hca 0 since the load: $(($(emu_ok_op 0 MAD_IFC) - mad0))"
}

t_devinfo()
{
	for d in mlx5_0 mlx5_1; do
		ibv_devinfo -d $d | grep -E 'hca_id|state|link_layer|active_mtu'
		ibv_devinfo -d $d | grep -q 'link_layer:.*Ethernet' || { echo "$d: not Ethernet"; return 1; }
		wait_for 30 port_active $d || { echo "$d: port not ACTIVE"; return 1; }
	done
}


t_gids()
{
	for i in 0 1; do
		d=mlx5_$i
		n=$((i + 1))
		# One read of each table (sysfs: 256 files; the emulator's).
		tbl=$(gid_table $d)
		for t in "RoCE v2" "IB/RoCE v1"; do
			for a in "$(v4_gid $n)" "$(v6_gid $n)"; do
				x=$(printf '%s\n' "$tbl" | gid_pick "$t" "$a") || {
					echo "$d: no $t GID $a"
					printf '%s\n' "$tbl"
					return 1
				}
				gid_ndev=$(cat /sys/class/infiniband/$d/ports/1/gid_attrs/ndevs/$x)
				echo "$d GID $x: $a $t on $gid_ndev"
				[ "$gid_ndev" = "$(eval echo \$eth$i)" ] || { echo "GID $x is on $gid_ndev"; return 1; }
			done
		done
		v4=$(printf '%s\n' "$tbl" | gid_pick "RoCE v2" "$(v4_gid $n)")
		v6=$(printf '%s\n' "$tbl" | gid_pick "RoCE v2" "$(v6_gid $n)")
		if [ $i = 0 ]; then v4_0=$v4 v6_0=$v6; else v4_1=$v4 v6_1=$v6; fi
		# The firmware's table (SET_ROCE_ADDRESS) holds the same.
		fw=$(emu_ctl hca $i nic | grep '^gid ')
		printf '%s\n' "$fw"
		printf '%s\n' "$fw" | grep -q "^gid .* 0000:0000:0000:0000:0000:ffff:0a4d:000$n v2-ipv4 " ||
			{ echo "hca $i: no RoCEv2 IPv4 entry in the emulator's GID table"; return 1; }
		printf '%s\n' "$fw" | grep -q "^gid .* fd00:0077:0000:0000:0000:0000:0000:000$n v2-ipv6 " ||
			{ echo "hca $i: no RoCEv2 IPv6 entry"; return 1; }
	done
	# The tools take one index for both sides.
	[ "$v4_0" = "$v4_1" ] && [ "$v6_0" = "$v6_1" ] ||
		{ echo "GID indexes differ: IPv4 $v4_0/$v4_1, IPv6 $v6_0/$v6_1"; return 1; }
}

roce_stats() { for h in 0 1; do emu_ctl hca $h nic | grep '^roce '; done; }

# The emulator's RoCE transmit counter of HCA $1.
roce_tx() { emu_ctl hca "$1" nic | awk '$1 == "roce" { for (i = 2; i < NF; i++) if ($i == "tx") print $(i + 1) }'; }

# pingpong NAME GID-INDEX [client device]: ibv_rc_pingpong between mlx5_0
# (server) and mlx5_1 (or the given device), 4 KiB messages, 100 rounds.
pingpong()
{
	tx0=$(roce_tx 0)
	RDMA_PAIR_CLIENT_DEV=${3:-mlx5_1} rdma_pair "$1" ibv_rc_pingpong -g "$2" -s 4096 -n 100 || return 1
	roce_stats
	grep -q '100 iters' "$out/$1.client" || return 1
	# The packets went as RoCE frames (not some other path).
	[ "$(roce_tx 0)" -gt "$((tx0 + 100))" ]
}

t_pingpong_v4() { pingpong rc_pingpong_v4 "$v4_0"; }
t_pingpong_v6() { pingpong rc_pingpong_v6 "$v6_0"; }

t_loopback()
{
	lb0=$(emu_ctl hca 0 nic | awk '$1 == "roce" { for (i = 2; i < NF; i++) if ($i == "loopback") print $(i + 1) }')
	pingpong rc_pingpong_lb "$v4_0" mlx5_0 || return 1
	lb1=$(emu_ctl hca 0 nic | awk '$1 == "roce" { for (i = 2; i < NF; i++) if ($i == "loopback") print $(i + 1) }')
	echo "hca 0 looped back $((lb1 - lb0)) frames"
	[ "$((lb1 - lb0))" -gt 200 ]
}

# UD over RoCE: the provider's address handles (their next-hop MAC comes
# from the kernel's create_ah response); 1000-byte messages fit the active
# MTU (1024 at netdev MTU 1500).
t_ud_pingpong()
{
	RDMA_PAIR_CLIENT_DEV=mlx5_1 rdma_pair ud_pingpong_v4 ibv_ud_pingpong -g "$v4_0" -s 1000 -n 100 || return 1
	grep -q '100 iters' "$out/ud_pingpong_v4.client"
}

t_write_bw()
{
	rdma_pair write_bw ib_write_bw -x "$v4_0" -n "$PERF_ITERS" -s 65536 || return 1
	perf_result "$out/write_bw.client"
}

t_send_lat()
{
	need_tool ib_send_lat || return 1
	cm_pair send_lat ib_send_lat -R -d mlx5_1 -F -n "$PERF_ITERS" -- \
		ib_send_lat -R -d mlx5_0 -F -n "$PERF_ITERS" 10.77.0.2 || return 1
	perf_result "$out/cm_send_lat.client"
}

t_rping()
{
	need_tool rping || return 1
	cm_pair rping rping -s -v -V -C 10 -a 10.77.0.2 -- rping -c -v -V -C 10 -a 10.77.0.2 || return 1
	n=$(grep -c 'ping data' "$out/cm_rping.client")
	echo "client printed $n ping lines"
	[ "$n" -ge 10 ]
}

# A VLAN (id 77, 10.78.0.1-2/24) on each netdev: ib_core adds its
# addresses to the same port's GID table with the VLAN netdev, the
# firmware's entry carries VLAN 77, and RC runs over it (tagged frames).
t_vlan()
{
	for i in 0 1; do
		n=$(eval echo \$eth$i)
		ipoib_in $i ip link add link "$n" name "$n.77" type vlan id 77 &&
			ipoib_in $i ip addr add 10.78.0.$((i + 1))/24 dev "$n.77" &&
			ipoib_in $i ip link set "$n.77" up || return 1
	done
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.78.0.2 || return 1
	g0=0000:0000:0000:0000:0000:ffff:0a4e:0001 g1=0000:0000:0000:0000:0000:ffff:0a4e:0002
	wait_for 30 gid_index mlx5_0 "RoCE v2" $g0 && wait_for 30 gid_index mlx5_1 "RoCE v2" $g1 ||
		{ echo "no RoCE v2 GIDs of the VLAN netdevs"; gid_table mlx5_0; return 1; }
	vl0=$(gid_index mlx5_0 "RoCE v2" $g0) vl1=$(gid_index mlx5_1 "RoCE v2" $g1)
	echo "VLAN GIDs: mlx5_0 $vl0, mlx5_1 $vl1 on $(cat /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/$vl0)"
	[ "$vl0" = "$vl1" ] || { echo "VLAN GID indexes differ"; return 1; }
	[ "$(cat /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/$vl0)" = "$eth0.77" ] || return 1
	emu_ctl hca 0 nic | grep "^gid $vl0 "
	emu_ctl hca 0 nic | grep -q "^gid $vl0 $g0 v2-ipv4 mac .* vlan 77\$" ||
		{ echo "hca 0: entry $vl0 is not the VLAN 77 one"; return 1; }
	pingpong rc_pingpong_vlan "$vl0" || return 1
	for i in 0 1; do ipoib_in $i ip link del "$(eval echo \$eth$i).77"; done
}

carrier0() { [ "$(ipoib_in 0 cat "/sys/class/net/$eth0/carrier" 2>/dev/null)" = 1 ]; }
no_carrier0() { ! carrier0; }
port_state0() { cat /sys/class/infiniband/mlx5_0/ports/1/state; }
port_down0() { ! grep -q ACTIVE /sys/class/infiniband/mlx5_0/ports/1/state; }

# A link flap from the emulator's control channel (HCA 0, mlx5_0's port,
# as a cable would): the carrier and the RoCE port state go down, the
# asynchronous events PORT_ERR and PORT_ACTIVE reach user space, and both
# recover: RC traffic runs again.
t_flap()
{
	stdbuf -oL ibv_asyncwatch -d mlx5_0 >"$out/asyncwatch" 2>&1 &
	apid=$!
	wait_for 30 grep -q 'async event FD' "$out/asyncwatch" || { kill $apid; cat "$out/asyncwatch"; return 1; }
	rc=0
	for st in down up; do
		emu_ctl hca 0 port $st >/dev/null || { echo "emu: hca 0 port $st refused"; rc=1; break; }
		if [ $st = down ]; then
			wait_for 30 no_carrier0 || { echo "$eth0: carrier still up"; rc=1; break; }
			wait_for 30 port_down0 || { echo "mlx5_0: port still $(port_state0)"; rc=1; break; }
		else
			wait_for 30 carrier0 || { echo "$eth0: no carrier after the flap"; rc=1; break; }
			wait_for 30 port_active mlx5_0 || { echo "mlx5_0: port $(port_state0) after the flap"; rc=1; break; }
		fi
		echo "port $st: $eth0 carrier $(ipoib_in 0 cat /sys/class/net/$eth0/carrier), mlx5_0 port $(port_state0)"
	done
	[ $rc = 0 ] && { wait_for 30 grep -q PORT_ACTIVE "$out/asyncwatch" || rc=1; }
	kill $apid
	wait $apid 2>/dev/null
	cat "$out/asyncwatch"
	[ $rc = 0 ] || return 1
	grep -q PORT_ERR "$out/asyncwatch" || { echo "no PORT_ERR event"; return 1; }
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 || return 1
	pingpong rc_pingpong_flap "$v4_0"
}

has_gid() { gid_index "$1" "RoCE v2" "$2" >/dev/null; }

t_nvme_target()
{
	netdev_pair_down "$eth0" "$eth1"
	ip addr add 10.78.0.1/24 dev "$eth0" && ip addr add 10.78.0.2/24 dev "$eth1" || return 1
	ip link set "$eth0" up && ip link set "$eth1" up || return 1
	for i in 0 1; do
		eval n=\$eth$i
		wait_for 30 sh -c "[ \"\$(cat /sys/class/net/$n/carrier)\" = 1 ]" || { echo "$n: no carrier"; return 1; }
		a=$(printf '0000:0000:0000:0000:0000:ffff:0a4e:%04x' $((i + 1)))
		wait_for 30 has_gid mlx5_$i "$a" || { echo "mlx5_$i: no GID $a"; gid_table mlx5_$i; return 1; }
	done
	nvme_target_up 10.78.0.2
}

t_nvme_connect() { nvme_host_connect 10.78.0.2 10.78.0.1 "$eth0" "$eth1"; }

t_nvme_io()
{
	tx0=$(roce_tx 0) tx1=$(roce_tx 1)
	nvme_io "$NVME_MIB" || return 1
	roce_stats
	# The data went as RoCE frames both ways (at most 4096 bytes each):
	# the write as nvmet's RDMA READ responses from mlx5_0 (HCA 0), the
	# read back as its RDMA WRITEs from mlx5_1 (HCA 1).
	d0=$(($(roce_tx 0) - tx0)) d1=$(($(roce_tx 1) - tx1))
	echo "RoCE frames sent: hca 0 $d0, hca 1 $d1"
	[ "$d0" -ge "$((NVME_MIB * 256))" ] && [ "$d1" -ge "$((NVME_MIB * 256))" ]
}

t_nvme_down()
{
	rc=0
	nvme_host_disconnect || rc=1
	nvme_target_down || rc=1
	return $rc
}

t_down()
{
	rc=0
	roce_stats
	netdev_pair_down "$eth0" "$eth1"
	modprobe -r rdma_ucm
	mlx5_unload "$pair" || rc=1
	emu_pages_back 0 1 || rc=1
	mlx5_log_clean "$dmesg_start" || rc=1
	return $rc
}

# Both pairs in one boot, the same cases, each named with its driver.
PAIRS=${MLX5_ROCE_PAIRS:-in-tree ours}
ktap_begin $((19 * $(echo $PAIRS | wc -w)))
for pair in $PAIRS; do
	ktap_case "modprobe mlx5_core, mlx5_ib, rdma_ucm: netdevs [$pair]" t_load
	ktap_case "netdevs up in two namespaces, ping and ping -6 [$pair]" t_up
	ktap_case "ibv_devinfo: link_layer Ethernet, ports ACTIVE [$pair]" t_devinfo
	ktap_case "node GUID, system image GUID, node description: the same on both pairs [$pair]" t_node
	ktap_case "GID table: the netdevs' IPv4 and IPv6 addresses as RoCE v1 and v2 (sysfs, firmware) [$pair]" t_gids
	ktap_case "ibv_rc_pingpong -g (RoCEv2, IPv4) [$pair]" t_pingpong_v4
	ktap_case "ibv_rc_pingpong -g (RoCEv2, IPv6) [$pair]" t_pingpong_v6
	ktap_case "ibv_rc_pingpong between QPs of one function (local loopback) [$pair]" t_loopback
	ktap_case "ibv_ud_pingpong -g (RoCEv2 UD, user address handles) [$pair]" t_ud_pingpong
	ktap_case "ib_write_bw -x (64 KiB) [$pair]" t_write_bw
	ktap_case "ib_send_lat -R (rdma_cm) [$pair]" t_send_lat
	ktap_case "rping -v -V over the IP addresses (rdma_cm, ib_cm on QP1) [$pair]" t_rping
	ktap_case "VLAN netdevs: their GIDs carry the VLAN, ibv_rc_pingpong over it [$pair]" t_vlan
	ktap_case "link flap from the emulator: carrier, RoCE port state and events go down and recover [$pair]" t_flap
	ktap_case "nvmet-rdma exports a null_blk namespace on 10.78.0.2:4420 (initial namespace) [$pair]" t_nvme_target
	ktap_case "nvme connect -t rdma over RoCE [$pair]" t_nvme_connect
	ktap_case "NVMe over RoCE: ${NVME_MIB} MiB O_DIRECT write, read back, checksums [$pair]" t_nvme_io
	ktap_case "nvme disconnect, target down [$pair]" t_nvme_down
	ktap_case "teardown: unload, pages returned, no driver error [$pair]" t_down
done
ktap_end
