#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A ConnectX VF in a VM (guest with emulator --function vf --link eth): the
# guest sees two VFs of two adapters, and no PF, as a cloud VM does. For
# the in-tree pair and then ours in the same boot: the VF device ID and no
# SR-IOV capability; one netdev and one RDMA device per VF; ping, ping -6
# and a TCP transfer whose sha256 must match; ibv_devinfo, ib_write_bw -x
# over RoCEv2 and rping over rdma_cm. The host side of the vport (the
# emulator's control channel, as `ip link set <pf> vf N ...` on a host):
# `link disable` drops the carrier and `auto` brings it back; VLAN switch
# tagging lets two VFs on one VLAN talk and stops another VLAN; the spoof
# check drops a changed source MAC; an untrusted VF in promiscuous mode
# gets no frame for another MAC, a trusted one does; a new MAC is what the
# VF's netdev has after a driver rebind. Unloading returns every
# firmware page and the driver logged no failed command.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
MB=${MLX5_ETH_MB:-64}
PERF_ITERS=${MLX5_PERF_ITERS:-200}
HOST_MAC=02:00:00:00:32:01


t_load()
{
	ip link set lo up 2>/dev/null
	for h in 0 1; do emu_ctl hca $h trace-clear >/dev/null; done
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	modprobe rdma_ucm || { echo "modprobe rdma_ucm failed"; return 1; }
	for i in 0 1; do
		wait_for 30 sh -c "[ -n \"\$(ls /sys/class/infiniband/mlx5_$i/device/net 2>/dev/null)\" ]" ||
			{ echo "mlx5_$i: no netdev"; return 1; }
	done
	eth0=$(roce_netdev mlx5_0) eth1=$(roce_netdev mlx5_1)
	echo "mlx5_0: $eth0, mlx5_1: $eth1"
	for i in 0 1; do
		mac=$(cat "/sys/class/net/$(eval echo \$eth$i)/address")
		host=$(emu_ctl hca $i vport | awk '$1 == "mac" { print $2 }')
		echo "mlx5_$i: MAC $mac, the host side's $host"
		[ "$mac" = "$host" ] || { echo "the netdev's MAC is not the vport's"; return 1; }
	done
}

t_up()
{
	netdev_pair_up "$eth0" "$eth1" v6 || return 1
	ipoib_in 0 ping -c 3 -i 0.2 -W 10 10.77.0.2 && ipoib_in 0 ping -6 -c 3 -i 0.2 -W 10 fd00:77::2
}

t_tcp() { ns_tcp_transfer mlx5ns0 mlx5ns1 10.77.0.2 "$MB" vf_tcp; }

port_active() { ibv_devinfo -d "$1" | grep -q 'state:.*PORT_ACTIVE'; }

t_devinfo()
{
	for d in mlx5_0 mlx5_1; do
		ibv_devinfo -d $d | grep -E 'hca_id|vendor_part_id|phys_port_cnt|state|link_layer'
		ibv_devinfo -d $d | grep -q 'link_layer:.*Ethernet' || { echo "$d: not Ethernet"; return 1; }
		wait_for 30 port_active $d || { echo "$d: port not ACTIVE"; return 1; }
	done
}

t_write_bw()
{
	g=$(v4_gid 1)
	wait_for 30 gid_index mlx5_0 "RoCE v2" "$g" || { echo "mlx5_0: no RoCE v2 GID $g"; return 1; }
	x=$(gid_index mlx5_0 "RoCE v2" "$g")
	rdma_pair vf_write_bw ib_write_bw -x "$x" -n "$PERF_ITERS" -s 65536 || return 1
	perf_result "$out/vf_write_bw.client"
}

t_rping()
{
	need_tool rping || return 1
	cm_pair vf_rping rping -s -v -V -C 10 -a 10.77.0.2 -- rping -c -v -V -C 10 -a 10.77.0.2 || return 1
	n=$(grep -c 'ping data' "$out/cm_vf_rping.client")
	echo "client printed $n ping lines"
	[ "$n" -ge 10 ]
}

carrier_of() { [ "$(ipoib_in "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = "$3" ]; }

# The host disables VF 0's link, then gives it back (auto follows the
# cable): the guest's carrier follows, and traffic flows again.
t_host_link()
{
	emu_ctl hca 0 vport link disable | grep -q '^ok' || { echo "emu: vport link disable refused"; return 1; }
	wait_for 30 carrier_of 0 "$eth0" 0 || { echo "$eth0: carrier still up"; emu_ctl hca 0 vport; return 1; }
	echo "$eth0: no carrier after the host's link disable"
	emu_ctl hca 0 vport link auto | grep -q '^ok' || return 1
	wait_for 30 carrier_of 0 "$eth0" 1 || { echo "$eth0: no carrier after link auto"; return 1; }
	echo "$eth0: carrier back after link auto"
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2
}

# Counter NAME of the Ethernet port's line of `hca H nic`.
nic_counter() { emu_ctl hca "$1" nic | awk -v k="$2" '$1 == "eth" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

no_ping() { ! ipoib_in 0 ping -c 2 -i 0.2 -W 2 10.77.0.2 >/dev/null 2>&1; }

# The host puts both VFs on VLAN 100 (VST: the e-switch tags and strips,
# the guest sees untagged frames): ping works. VF 1 on VLAN 200: VF 0's
# frames no longer reach it (counted as dropped by VLAN). Then no VLAN.
t_host_vlan()
{
	host_vlan_steps
	_rc=$?
	for h in 0 1; do emu_ctl hca $h vport vlan 0 >/dev/null; done
	[ $_rc -eq 0 ] && ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2
}

host_vlan_steps()
{
	for h in 0 1; do emu_ctl hca $h vport vlan 100 | grep -q '^ok' || { echo "emu: vport vlan refused"; return 1; }; done
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 || { echo "no ping with both VFs on VLAN 100"; return 1; }
	d0=$(nic_counter 1 rx_vlan_dropped)
	emu_ctl hca 1 vport vlan 200 >/dev/null
	no_ping || { echo "ping crossed from VLAN 100 to VLAN 200"; return 1; }
	d1=$(nic_counter 1 rx_vlan_dropped)
	echo "hca 1 rx_vlan_dropped $d0 -> $d1"
	[ "$d1" -gt "$d0" ]
}

# The host turns the spoof check on for VF 0: its own MAC passes; after
# the guest changes the netdev's address, its frames are dropped (counted);
# the vport's MAC again, and they pass.
t_host_spoofchk()
{
	mac=$(ipoib_in 0 cat "/sys/class/net/$eth0/address")
	host_spoofchk_steps
	_rc=$?
	ipoib_in 0 ip link set "$eth0" address "$mac"
	emu_ctl hca 0 vport spoofchk off >/dev/null
	[ $_rc -eq 0 ] && ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2
}

host_spoofchk_steps()
{
	emu_ctl hca 0 vport spoofchk on | grep -q '^ok' || { echo "emu: vport spoofchk refused"; return 1; }
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 || { echo "no ping from the vport's own MAC"; return 1; }
	s0=$(nic_counter 0 tx_spoofed)
	ipoib_in 0 ip link set "$eth0" address 02:de:ad:00:00:01 || return 1
	no_ping || { echo "a spoofed source MAC got through"; return 1; }
	s1=$(nic_counter 0 tx_spoofed)
	echo "hca 0 tx_spoofed $s0 -> $s1"
	[ "$s1" -gt "$s0" ]
}

# VF 1 in promiscuous mode; VF 0 sends to a MAC no one has (a static
# neighbour 10.77.0.9). Untrusted, the e-switch forwards VF 1 none of it
# (rx_unicast_filtered grows); trusted, the frames reach it (its unicast
# receive counter grows, the filter's does not).
t_host_trust()
{
	ipoib_in 1 ip link set "$eth1" promisc on
	ipoib_in 0 ip neigh replace 10.77.0.9 lladdr 02:00:00:00:99:99 dev "$eth0"
	host_trust_steps
	_rc=$?
	ipoib_in 1 ip link set "$eth1" promisc off
	ipoib_in 0 ip neigh del 10.77.0.9 dev "$eth0"
	emu_ctl hca 1 vport trust off >/dev/null
	return $_rc
}

# nic_rx_ucast H: the unicast frames HCA H's Ethernet port received.
nic_rx_ucast() { emu_ctl hca "$1" nic | awk '$1 == "eth" { for (i = 1; i < NF; i++) if ($i == "rx" && $(i + 1) == "ucast") print $(i + 2) }'; }

host_trust_steps()
{
	f0=$(nic_counter 1 rx_unicast_filtered)
	ipoib_in 0 ping -c 3 -i 0.2 -W 1 10.77.0.9 >/dev/null 2>&1
	f1=$(nic_counter 1 rx_unicast_filtered)
	echo "untrusted: hca 1 rx_unicast_filtered $f0 -> $f1"
	[ "$f1" -ge $((f0 + 3)) ] || { echo "the e-switch forwarded another MAC's frames to an untrusted VF"; return 1; }
	emu_ctl hca 1 vport trust on | grep -q '^ok' || { echo "emu: vport trust refused"; return 1; }
	u0=$(nic_rx_ucast 1)
	ipoib_in 0 ping -c 3 -i 0.2 -W 1 10.77.0.9 >/dev/null 2>&1
	f2=$(nic_counter 1 rx_unicast_filtered) u1=$(nic_rx_ucast 1)
	echo "trusted: hca 1 rx_unicast_filtered $f1 -> $f2, rx ucast $u0 -> $u1"
	[ "$f2" = "$f1" ] && [ "$u1" -ge $((u0 + 3)) ]
}

# The host sets VF 0's MAC; a VF's driver reads it when it builds its
# netdev, so the function is rebound; then the host's first MAC again.
t_host_mac()
{
	netdev_pair_down "$eth0" "$eth1"
	d=$(basename "$(readlink /sys/class/infiniband/mlx5_0/device)")
	old=$(emu_ctl hca 0 vport | awk '$1 == "mac" { print $2 }')
	emu_ctl hca 0 vport mac $HOST_MAC | grep -q '^ok' || { echo "emu: vport mac refused"; return 1; }
	echo "$d" >/sys/bus/pci/drivers/mlx5_core/unbind || return 1
	echo "$d" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	wait_for 30 sh -c "ls /sys/bus/pci/devices/$d/net 2>/dev/null | grep -q ." || { echo "$d: no netdev"; return 1; }
	n=$(ls "/sys/bus/pci/devices/$d/net" | head -n 1)
	mac=$(cat "/sys/class/net/$n/address")
	echo "$d $n: MAC $mac after the rebind"
	emu_ctl hca 0 vport mac "$old" >/dev/null
	[ "$mac" = $HOST_MAC ]
}

t_down()
{
	rc=0
	modprobe -r rdma_ucm
	mlx5_unload "$pair" || rc=1
	emu_pages_back 0 1 || rc=1
	mlx5_log_clean "$dmesg_start" || rc=1
	return $rc
}

PAIRS=${MLX5_VF_PAIRS:-in-tree ours}
ktap_begin $((1 + 12 * $(echo $PAIRS | wc -w)))
ktap_case "lspci: two VFs (VF device ID), no SR-IOV capability" vf_functions_check
for pair in $PAIRS; do
	ktap_case "load: a netdev and an RDMA device per VF, MAC from the vport [$pair]" t_load
	ktap_case "netdevs in two namespaces: carrier, ping and ping -6 [$pair]" t_up
	ktap_case "TCP transfer of ${MB} MiB, sha256 matches [$pair]" t_tcp
	ktap_case "ibv_devinfo: link_layer Ethernet, ports ACTIVE [$pair]" t_devinfo
	ktap_case "ib_write_bw -x over RoCEv2 [$pair]" t_write_bw
	ktap_case "rping over rdma_cm [$pair]" t_rping
	ktap_case "the host disables the VF's link and gives it back: carrier follows [$pair]" t_host_link
	ktap_case "the host puts the VFs on a VLAN (VST): same VLAN pings, another drops [$pair]" t_host_vlan
	ktap_case "the host's spoof check drops a changed source MAC [$pair]" t_host_spoofchk
	ktap_case "the host's trust: an untrusted promiscuous VF gets no other MAC's frames, a trusted one does [$pair]" t_host_trust
	ktap_case "the host sets the VF's MAC: the netdev has it after a rebind [$pair]" t_host_mac
	ktap_case "unload: every firmware page returned, no failed command logged [$pair]" t_down
done
rm -f /tmp/ns_tcp.*
ktap_end
