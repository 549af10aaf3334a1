#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Classic IPoIB on the in-tree mlx5_core + mlx5_ib and on ours (the same
# cases, in-tree first): the emulator advertises
# no enhanced-IPoIB offloads, so ib_ipoib runs over kernel verbs (a UD QP
# and kernel CQs; RC QPs with an SRQ in connected mode). opensm (started
# here on mlx5_0's port GUID) brings the ports up and answers the
# broadcast-group join through its SA; the emulator forwards the multicast
# (ARP) by MLID and delivers it to the attached QPs. The IPoIB interfaces of
# mlx5_0 and mlx5_1 sit in two network namespaces: ping, then a 64 MiB TCP
# transfer (socat) checked by sha256, in datagram and in connected mode.
# Needs the fabric guest: --hca 3 --emu-arg --sm --emu-arg external.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
# MiB per transfer: MLX5_IPOIB_MIB for both modes, MLX5_IPOIB_CM_MIB for
# connected mode alone (its 64 KiB frames: 16 MiB are 256 of them, one
# turn of its receive queue; datagram mode's 2044-byte frames turn their
# ring of 256 every 0.5 MiB).
XFER_MIB=${MLX5_IPOIB_MIB:-64}
XFER_CM_MIB=${MLX5_IPOIB_CM_MIB:-$XFER_MIB}
XFER_TIMEOUT=${MLX5_IPOIB_TIMEOUT:-900}
xfer_port=5200

t_load()
{
	ip link set lo up 2>/dev/null
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	[ "$(mlx5_ibdev_count)" -ge 2 ] || { echo "fewer than 2 RDMA devices"; return 1; }
}

t_opensm() { opensm_start; }

# The interfaces are classic IPoIB (ib_ipoib's own netdev, not mlx5's
# enhanced one), their QP a kernel UD QP that joined the broadcast group.
t_up()
{
	ipoib_pair_up || return 1
	for i in 0 1; do
		eval n=\$ipoib$i
		drv=$(ipoib_in $i ethtool -i "$n" | awk '/^driver:/ { print $2 }')
		echo "$n: driver $drv, mode $(ipoib_in $i cat /sys/class/net/$n/mode)"
		[ "$drv" = ib_ipoib ] || { echo "not classic IPoIB"; return 1; }
		groups=$(emu_ctl hca $i datapath | awk '$1 == "mcast_groups" { print $2 }')
		echo "hca $i: $groups multicast group(s) attached"
		[ "${groups:-0}" -ge 1 ] || return 1
	done
	emu_ctl hca 0 qps | grep -E ' UD ' | head -n 3
}

t_ping()
{
	ipoib_in 0 ping -c 3 -W 10 10.77.0.2 || return 1
	ipoib_in 1 ping -c 3 -W 10 10.77.0.1 || return 1
	for i in 0 1; do
		emu_ctl hca $i datapath | grep -E '^mcast_'
	done
	copies=$(emu_ctl hca 1 datapath | awk '$1 == "mcast_packets" { print $4 }')
	[ "${copies:-0}" -ge 1 ] || { echo "no multicast copy delivered on hca 1 (ARP)"; return 1; }
}

# xfer NAME MIB: MIB MiB of random data from mlx5ns0 to mlx5ns1 over TCP;
# the sha256 of what arrived equals the sent one.
xfer()
{
	mib=$2
	need_tool socat sha256sum || return 1
	xfer_port=$((xfer_port + 1))
	src=/tmp/ipoib_$1.tx dst=/tmp/ipoib_$1.rx
	head -c $((mib << 20)) /dev/urandom >"$src" || return 1
	rm -f "$dst"
	ipoib_in 1 timeout "$XFER_TIMEOUT" socat -u TCP-LISTEN:$xfer_port,reuseaddr OPEN:"$dst",creat,trunc \
		>"$out/ipoib_$1.server" 2>&1 &
	spid=$!
	wait_for 30 ipoib_in 1 sh -c ". $dir/ktap.sh; listening $xfer_port" ||
		{ kill $spid; cat "$out/ipoib_$1.server"; echo "server never listened"; return 1; }
	t0=$(ktap_now)
	ipoib_in 0 timeout "$XFER_TIMEOUT" socat -u OPEN:"$src" TCP:10.77.0.2:$xfer_port >"$out/ipoib_$1.client" 2>&1
	crc=$?
	wait $spid
	src_rc=$?
	awk -v a="$t0" -v b="$(ktap_now)" -v m="$mib" 'BEGIN { printf "%d MiB in %.1f s\n", m, b - a }'
	cat "$out/ipoib_$1.server" "$out/ipoib_$1.client"
	a=$(sha256sum <"$src" | cut -d' ' -f1) b=$(sha256sum <"$dst" 2>/dev/null | cut -d' ' -f1)
	echo "sent $a"
	echo "got  $b ($(stat -c %s "$dst" 2>/dev/null) bytes)"
	rm -f "$src" "$dst"
	[ "$crc" -eq 0 ] && [ "$src_rc" -eq 0 ] && [ "$a" = "$b" ]
}

t_xfer_datagram() { xfer datagram "$XFER_MIB"; }

# Connected mode: ipoib_cm's RC QPs (and SRQ) connect through ib_cm.
t_connected()
{
	for i in 0 1; do
		eval n=\$ipoib$i
		ipoib_in $i sh -c "echo connected > /sys/class/net/$n/mode" || return 1
		ipoib_in $i ip link set "$n" mtu 65520 || return 1
		echo "$n: mode $(ipoib_in $i cat /sys/class/net/$n/mode), mtu $(ipoib_in $i cat /sys/class/net/$n/mtu)"
	done
	ipoib_in 0 ping -c 3 -W 10 -s 8000 10.77.0.2 || return 1
	rc=$(emu_ctl hca 0 qps | grep -c -E ' RC ')
	echo "hca 0: $rc RC QP(s)"
	[ "$rc" -ge 1 ]
}

t_xfer_connected() { xfer connected "$XFER_CM_MIB"; }

t_down()
{
	rc=0
	ipoib_pair_down || rc=1
	opensm_stop
	mlx5_unload "$pair" || rc=1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || rc=1
	done
	return $rc
}

# The in-tree pair first, then ours, in the same boot: the same cases,
# each named with its driver.
ktap_begin 16
for pair in in-tree ours; do
	ktap_case "modprobe mlx5_ib [$pair]" t_load
	ktap_case "opensm brings every port ACTIVE [$pair]" t_opensm
	ktap_case "classic IPoIB interfaces up in two namespaces, broadcast group joined [$pair]" t_up
	ktap_case "ping both ways (ARP through the broadcast group) [$pair]" t_ping
	ktap_case "datagram mode: ${XFER_MIB} MiB over TCP, sha256 matches [$pair]" t_xfer_datagram
	ktap_case "connected mode: RC QPs, ping with 8000 bytes [$pair]" t_connected
	ktap_case "connected mode: ${XFER_CM_MIB} MiB over TCP, sha256 matches [$pair]" t_xfer_connected
	ktap_case "teardown: ib_ipoib, opensm, mlx5 unloaded, pages returned [$pair]" t_down
done
ktap_end
