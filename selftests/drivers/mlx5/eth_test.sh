#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Ethernet on the emulator (guest with --link eth), for the in-tree pair
# (mlx5_core with mlx5e) and then ours (mlx5_core with its en/ netdev) in
# the same boot: one netdev per emulated HCA; each goes into a network
# namespace of its own with IPv4 and IPv6 addresses, and the emulator's L2
# switch carries ping, ping -6 and a 64 MiB TCP transfer (socat) whose
# sha256 must match; the netdev, ethtool and vport counters must move;
# unloading returns every firmware page. Ours also: a link flap from the
# emulator's control channel shows on the carrier, an MTU change, ethtool
# -l/-L, -G (ring sizes), -C (coalescing), -x/-X (RSS), and rmmod in the middle of a
# TCP transfer is clean. The RDMA side
# of these ports (mlx5_ib with link_layer Ethernet, RoCE, on both pairs) is
# roce_test.sh's.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
MB=${MLX5_ETH_MB:-64}
PORT=5001
rm -f /tmp/ns_tcp.*

# The netdev of PCI function $1.
netdev_of() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }

# The first netdev in namespace $1 (that is not lo).
ns_dev() { ip -n "$1" -o link show | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2; exit }'; }

t_modprobe()
{
	ip link set lo up 2>/dev/null
	for h in 0 1; do emu_ctl hca $h trace-clear >/dev/null; done
	mlx5_load $pair eth || { dmesg | grep -E 'mlx5' | tail; return 1; }
	for d in $devs; do
		wait_for 30 sh -c "ls /sys/bus/pci/devices/$d/net 2>/dev/null | grep -q ." ||
			{ echo "$d: no netdev"; dmesg | grep mlx5 | tail; return 1; }
		echo "$d: $(netdev_of "$d")"
	done
}

carrier() { [ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]; }

t_link_up()
{
	n=0
	for d in $devs; do
		ns=ns$n
		dev=$(netdev_of "$d")
		[ -n "$dev" ] || { echo "$d: no netdev"; return 1; }
		ip netns add $ns || return 1
		ip link set "$dev" netns $ns || return 1
		ip -n $ns link set lo up
		ip -n $ns addr add 10.77.0.$((n + 1))/24 dev "$dev" || return 1
		ip -n $ns addr add fd00:77::$((n + 1))/64 dev "$dev" nodad || return 1
		ip -n $ns link set "$dev" up || return 1
		wait_for 30 carrier $ns "$dev" || { echo "$dev: no carrier"; ip -n $ns link show; return 1; }
		speed=$(ip netns exec $ns ethtool "$dev" | awk '/Speed:/ { print $2 }')
		echo "$ns $dev: carrier, speed $speed"
		case $speed in [0-9]*Mb/s) ;; *) echo "ethtool reports no speed"; return 1 ;; esac
		n=$((n + 1))
	done
	[ "$n" -eq 2 ] || { echo "need two netdevs, have $n"; return 1; }
	dev0=$(ns_dev ns0)
	dev1=$(ns_dev ns1)
}

t_ping() { ip netns exec ns0 ping -c 5 -i 0.2 -W 10 10.77.0.2; }
t_ping6() { ip netns exec ns0 ping -6 -c 5 -i 0.2 -W 10 fd00:77::2; }

# The rx or tx ($3) packet counter of netdev $2 in namespace $1 (what
# `ip -s link` shows).
link_packets() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3_packets"; }

ethtool_stat() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2; exit }'; }

t_tcp()
{
	rx0=$(link_packets ns1 "$dev1" rx)
	tx0=$(link_packets ns0 "$dev0" tx)
	ns_tcp_transfer ns0 ns1 10.77.0.2 "$MB" eth_tcp || return 1
	rx1=$(link_packets ns1 "$dev1" rx)
	tx1=$(link_packets ns0 "$dev0" tx)
	echo "$dev1 rx packets $rx0 -> $rx1, $dev0 tx packets $tx0 -> $tx1"
	ip -n ns1 -s link show "$dev1"
	# 64 MiB are at least 45000 frames of 1500 bytes (LSO cuts them on the wire).
	[ $((rx1 - rx0)) -gt $((MB * 700)) ]
}

t_counters()
{
	for ns in ns0 ns1; do
		dev=$(ns_dev $ns)
		for k in rx_packets tx_packets rx_bytes tx_bytes rx_vport_unicast_packets tx_vport_unicast_packets \
			 rx_csum_complete; do
			v=$(ethtool_stat $ns "$dev" $k)
			echo "$ns $dev $k ${v:-missing}"
			[ "${v:-0}" -gt 0 ] || return 1
		done
	done
	for h in 0 1; do emu_ctl hca $h nic | sed -n 2p; done
}

t_unload()
{
	ip netns del ns0 2>/dev/null
	ip netns del ns1 2>/dev/null
	mlx5_unload $pair || return 1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || return 1
	done
	bad=$(dmesg | tail -n +$((dmesg_start + 1)) | grep -E 'mlx5_core [0-9a-f:.]+: .*(failed|error|err\()' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# The emulator takes HCA $1's port down (or up, $2), as a cable would.
t_flap()
{
	for st in down up; do
		emu_ctl hca 0 port $st >/dev/null || { echo "emu: hca 0 port $st refused"; return 1; }
		if [ $st = down ]; then
			wait_for 30 sh -c "! carrier ns0 $dev0" || { echo "$dev0: carrier still up"; return 1; }
		else
			wait_for 30 carrier ns0 "$dev0" || { echo "$dev0: no carrier after the flap"; return 1; }
		fi
		echo "$dev0: carrier $(ip netns exec ns0 cat /sys/class/net/$dev0/carrier) after port $st"
	done
	ip netns exec ns0 ping -c 2 -i 0.2 -W 10 10.77.0.2
}

# ethtool -i, -l, -L, -g, -k on our netdev; MTU 9000 on both ends, ping
# with 8000 bytes (a frame over three receive pages), back to 1500.
t_ctl()
{
	ip netns exec ns0 ethtool -i "$dev0" | grep -q '^driver: mlx5_core' || return 1
	ip netns exec ns0 ethtool -l "$dev0" || return 1
	n=$(ip netns exec ns0 ethtool -l "$dev0" | awk '/Combined:/ { v = $2 } END { print v }')
	ip netns exec ns0 ethtool -L "$dev0" combined "$n" || return 1
	ip netns exec ns0 ethtool -g "$dev0" | grep -q 'RX:' || return 1
	ip netns exec ns0 ethtool -k "$dev0" | grep -E '^(tcp-segmentation-offload|rx-checksumming|scatter-gather):' || return 1
	for ns in ns0 ns1; do
		ip -n $ns link set "$(ns_dev $ns)" mtu 9000 || return 1
	done
	wait_for 30 carrier ns0 "$dev0" || return 1
	wait_for 30 carrier ns1 "$dev1" || return 1
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 -s 8000 -M do 10.77.0.2 || return 1
	for ns in ns0 ns1; do
		ip -n $ns link set "$(ns_dev $ns)" mtu 1500 || return 1
	done
	wait_for 30 carrier ns0 "$dev0" || return 1
	wait_for 30 carrier ns1 "$dev1" || return 1
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 10.77.0.2
}

# ethtool -G and -C on our netdev: rings of another size (the queues made
# again: the emulator holds CQs sized for them), a size below the minimum
# refused, a change whose queues fail to open refused with the old rings
# back, coalescing set on the live CQs and read back, a period beyond the
# CQ context refused; traffic after each; the defaults back.
t_rings_coalesce()
{
	ip netns exec ns0 ethtool -G "$dev0" rx 2048 tx 256 || return 1
	g=$(ip netns exec ns0 ethtool -g "$dev0" | awk '/^Current/ { c = 1 } c && /^RX:/ { r = $2 } c && /^TX:/ { t = $2 } END { print r, t }')
	echo "current rings: $g"
	[ "$g" = "2048 256" ] || return 1
	# RX 2048 WQEs: a CQ of 4096 CQEs (log 12) on the emulator.
	{ emu_ctl hca 0 stats; emu_ctl hca 1 stats; } | grep -q "^dp cq .*log_size=12 " ||
		{ echo "no CQ of log_size 12"; return 1; }
	wait_for 30 carrier ns0 "$dev0" || return 1
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 10.77.0.2 || return 1
	if ip netns exec ns0 ethtool -G "$dev0" rx 32 2>/dev/null; then
		echo "rx 32 accepted"
		return 1
	fi
	# New rings whose queues do not open (the emulator fails the next
	# CREATE_SQ): refused, and the old rings run again.
	emu_ctl hca 0 fail-cmd CREATE_SQ 3 0x5eed >/dev/null || return 1
	if ip netns exec ns0 ethtool -G "$dev0" rx 1024 tx 1024; then
		emu_ctl hca 0 clear-faults >/dev/null
		echo "rx 1024 tx 1024 accepted although CREATE_SQ failed"
		return 1
	fi
	emu_ctl hca 0 clear-faults >/dev/null
	g=$(ip netns exec ns0 ethtool -g "$dev0" | awk '/^Current/ { c = 1 } c && /^RX:/ { r = $2 } c && /^TX:/ { t = $2 } END { print r, t }')
	echo "current rings after the refused change: $g"
	[ "$g" = "2048 256" ] || return 1
	wait_for 30 carrier ns0 "$dev0" || return 1
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 10.77.0.2 || return 1
	ip netns exec ns0 ethtool -C "$dev0" rx-usecs 16 rx-frames 32 tx-usecs 8 tx-frames 16 || return 1
	c=$(ip netns exec ns0 ethtool -c "$dev0" | awk '$1 ~ /^(rx-usecs|rx-frames|tx-usecs|tx-frames):$/ { printf "%s%s ", $1, $2 }')
	echo "coalescing: $c"
	[ "$c" = "rx-usecs:16 rx-frames:32 tx-usecs:8 tx-frames:16 " ] || return 1
	if ip netns exec ns0 ethtool -C "$dev0" rx-usecs 5000 2>/dev/null; then
		echo "rx-usecs 5000 accepted"
		return 1
	fi
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 10.77.0.2 || return 1
	t_tcp || return 1
	ip netns exec ns0 ethtool -C "$dev0" rx-usecs 0 rx-frames 0 tx-usecs 0 tx-frames 0 || return 1
	ip netns exec ns0 ethtool -G "$dev0" rx 512 tx 1024 || return 1
	wait_for 30 carrier ns0 "$dev0" || return 1
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 10.77.0.2
}

# ethtool_stat NS DEV NAME: one counter of ethtool -S.
ethtool_stat() { ip netns exec "$1" ethtool -S "$2" | awk -v n="$3:" '$1 == n { print $2 }'; }

# ethtool -x/-X on our netdev: the indirection table (128 entries) and the
# 40-byte Toeplitz key read back; a ring beyond the channels refused; all
# of the weight on the last ring takes every received packet of a TCP
# transfer there (its rxN_packets moves, ring 0's does not when there are
# two or more: a guest with one vCPU has one channel); the default back.
t_rss()
{
	nch=$(ip netns exec ns1 ethtool -l "$dev1" | awk '/^Current/ { c = 1 } c && /^Combined:/ { print $2 }')
	echo "$dev1: $nch channels"
	[ "${nch:-0}" -ge 1 ] || return 1
	last=$((nch - 1))
	n=$(ip netns exec ns1 ethtool -x "$dev1" | awk '/^ *[0-9]+:/ { n += NF - 1 } END { print n + 0 }')
	echo "indirection table: $n entries"
	[ "$n" = 128 ] || return 1
	if ip netns exec ns1 ethtool -X "$dev1" equal $((nch + 1)) 2>/dev/null; then
		echo "a table over $((nch + 1)) rings accepted"
		return 1
	fi
	key=$(seq 1 40 | awk '{ printf "%s%02x", (NR > 1 ? ":" : ""), $1 }')
	w=$(seq 0 $last | awk -v l=$last '{ printf "%s ", ($1 == l ? 1 : 0) }')
	ip netns exec ns1 ethtool -X "$dev1" weight $w hkey "$key" || return 1
	x=$(ip netns exec ns1 ethtool -x "$dev1")
	echo "$x" | grep -q "^$key\$" || { echo "key not read back:"; echo "$x"; return 1; }
	other=$(echo "$x" | awk -v l=$last '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != l) n++ } END { print n + 0 }')
	[ "$other" = 0 ] || { echo "$other entries not on ring $last"; return 1; }
	r0=$(ethtool_stat ns1 "$dev1" rx0_packets) rl=$(ethtool_stat ns1 "$dev1" rx${last}_packets)
	ns_tcp_transfer ns0 ns1 10.77.0.2 "$MB" eth_rss || return 1
	d0=$(($(ethtool_stat ns1 "$dev1" rx0_packets) - r0)) dl=$(($(ethtool_stat ns1 "$dev1" rx${last}_packets) - rl))
	echo "received on ring 0: $d0, ring $last: $dl"
	[ "$dl" -gt $((MB * 700)) ] || return 1
	[ "$last" = 0 ] || [ "$d0" -eq 0 ] || return 1
	ip netns exec ns1 ethtool -X "$dev1" default || return 1
	ip netns exec ns1 ethtool -x "$dev1" | awk '/^ *0:/ { print; exit }'
	ip netns exec ns1 ethtool -x "$dev1" | grep -q "^ *0: *0 *$((1 % nch)) " || return 1
	ip netns exec ns0 ping -c 3 -i 0.2 -W 10 10.77.0.2
}

# rmmod while a TCP transfer runs: no splat, every page back.
t_rmmod_busy()
{
	ip netns exec ns1 timeout 600 socat -u TCP-LISTEN:$PORT,reuseaddr OPEN:/dev/null >/dev/null 2>&1 &
	spid=$!
	wait_for 30 ns_listening ns1 $PORT || { kill $spid; return 1; }
	ip netns exec ns0 timeout 600 socat -u OPEN:/dev/zero TCP:10.77.0.2:$PORT >/dev/null 2>&1 &
	cpid=$!
	tx0=$(link_packets ns0 "$dev0" tx)
	wait_for 30 sh -c "[ \$(ip netns exec ns0 cat /sys/class/net/$dev0/statistics/tx_packets) -gt $((tx0 + 200)) ]" ||
		{ echo "no traffic"; kill $spid $cpid; return 1; }
	ip netns del ns0
	ip netns del ns1
	mlx5_unload $pair || { kill $spid $cpid; return 1; }
	kill $spid $cpid 2>/dev/null
	wait 2>/dev/null
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || return 1
	done
	# The one failed command t_rings_coalesce asked for (syndrome 0x5eed)
	# is not an error.
	bad=$(dmesg | tail -n +$((dmesg_start + 1)) | grep -E 'mlx5_core [0-9a-f:.]+: .*(failed|error|err\()|WARNING|BUG' |
		grep -v 'CREATE_SQ(0x904) .*syndrome 0x00005eed' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

ktap_begin 22
# The in-tree pair first, then ours, in the same boot.
for pair in in-tree ours; do
	ktap_case "modprobe mlx5_core: one Ethernet netdev per HCA [$pair]" t_modprobe
	ktap_case "netdevs in two namespaces: carrier up, ethtool speed [$pair]" t_link_up
	ktap_case "ping over IPv4 [$pair]" t_ping
	ktap_case "ping -6 over IPv6 [$pair]" t_ping6
	ktap_case "TCP transfer of ${MB} MiB, sha256 matches [$pair]" t_tcp
	ktap_case "ethtool -S and vport counters moved [$pair]" t_counters
	ktap_case "link flap from the emulator shows on the carrier [$pair]" t_flap
	ktap_case "unload: no error, every firmware page returned [$pair]" t_unload
done
pair=ours
ktap_case "modprobe mlx5_core again [$pair]" t_modprobe
ktap_case "netdevs up again [$pair]" t_link_up
ktap_case "ethtool -i/-l/-L/-g/-k, MTU 9000 and back [$pair]" t_ctl
ktap_case "ethtool -G rings and -C coalescing, bad values and failed queues refused, traffic [$pair]" t_rings_coalesce
ktap_case "ethtool -x/-X: indirection table and key, all of RX on the last ring [$pair]" t_rss
ktap_case "rmmod during a TCP transfer: clean, every page returned [$pair]" t_rmmod_busy
rm -f /tmp/ns_tcp.*
ktap_end
