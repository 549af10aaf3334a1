#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Our netdev trusts no receive CQE (core/en/txrx.c), on the emulator with
# Ethernet ports (--link eth): the emulator writes receive CQEs of hca 1
# twice, with a WQE counter out of the ring and with a byte count the
# buffer cannot hold, during ping and a TCP transfer between the two
# netdevs. Each bad CQE is dropped, counted (ethtool -S rx_bad_cqe) and
# logged (ratelimited); no splat (splat.re, every case); the ring goes on:
# ping answers again, the TCP data arrive intact. The IB side (kernel CQs,
# device memory) is device_misbehave_test.sh's.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"
PORT=5003
KB=${MLX5_MISBEHAVE_KB:-2048}

netdev_of() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }
bad_cqe() { ip netns exec mlx5ns1 ethtool -S "$dev1" | awk '$1 == "rx_bad_cqe:" { print $2; exit }'; }
ping_ok() { ip netns exec mlx5ns0 ping -c 3 -i 0.2 -W 5 10.77.0.2 >"$out/misbehave_ping" 2>&1; }

t_load()
{
	mlx5_load ours eth || { dmesg | grep mlx5 | tail; return 1; }
	d0=$(echo $devs | cut -d' ' -f1) d1=$(echo $devs | cut -d' ' -f2)
	wait_for 30 sh -c "ls /sys/bus/pci/devices/$d0/net /sys/bus/pci/devices/$d1/net 2>/dev/null | grep -qv :" ||
		{ echo "no netdevs"; return 1; }
	dev0=$(netdev_of "$d0") dev1=$(netdev_of "$d1")
	[ -n "$dev0" ] && [ -n "$dev1" ] || { echo "no netdevs ($dev0, $dev1): not Ethernet ports?"; return 4; }
	echo "hca 0: $dev0, hca 1: $dev1"
	netdev_pair_up "$dev0" "$dev1" || return 1
	ping_ok || { cat "$out/misbehave_ping"; return 1; }
	[ -n "$(bad_cqe)" ] || { echo "ethtool -S has no rx_bad_cqe"; return 1; }
}

# rx_case FAULT PATTERN: arm FAULT on hca 1 (its receive CQEs), ping
# through it; the fault spent, rx_bad_cqe grown, PATTERN logged, ping
# answers again.
rx_case()
{
	mark=$(ktap_dmesg_mark)
	b0=$(bad_cqe)
	emu_ctl hca 1 $1 || return 1
	ip netns exec mlx5ns0 ping -c 10 -i 0.2 -W 2 10.77.0.2 | tail -n 2
	emu_ctl hca 1 faults | grep -q '^cqe-' && { echo "the fault was not spent"; emu_ctl hca 1 faults; return 1; }
	b1=$(bad_cqe)
	echo "rx_bad_cqe $b0 -> $b1"
	[ "$b1" -gt "$b0" ] || return 1
	wait_for 10 ktap_dmesg_since "$mark" "$2" || { echo "not logged: $2"; return 1; }
	dmesg | awk -v m="$mark" 'NR > m && /RQ 0x/' | tail -n 2
	wait_for 30 ping_ok || { echo "no answer after the fault"; cat "$out/misbehave_ping"; return 1; }
	echo "ping answers again"
}

t_repeat() { rx_case "cqe-repeat 5 recv" "RQ 0x[0-9a-f]+: CQE for WQE [0-9]+, outstanding"; }
t_counter() { rx_case "cqe-corrupt wqe_counter 0x7fff 3 recv" "RQ 0x[0-9a-f]+: CQE for WQE 32767, outstanding"; }
t_byte_cnt() { rx_case "cqe-corrupt byte_cnt 1000000 3 recv" "RQ 0x[0-9a-f]+: CQE of 1000000 bytes"; }

# A TCP transfer while every receive CQE of hca 1 for a while is written
# twice: the copies are dropped, the data arrive intact.
t_tcp()
{
	need_tool socat sha256sum || return 1
	src=/tmp/misbehave.src dst=/tmp/misbehave.dst
	head -c $((KB * 1024)) /dev/urandom >"$src" || return 1
	rm -f "$dst"
	b0=$(bad_cqe)
	ip netns exec mlx5ns1 timeout 300 socat -u TCP-LISTEN:$PORT,reuseaddr "OPEN:$dst,creat,trunc" \
		>"$out/misbehave_tcp.server" 2>&1 &
	spid=$!
	wait_for 30 ns_listening mlx5ns1 $PORT || { echo "socat server does not listen"; return 1; }
	emu_ctl hca 1 cqe-repeat 400 recv || return 1
	ip netns exec mlx5ns0 timeout 300 socat -u "OPEN:$src" TCP:10.77.0.2:$PORT >"$out/misbehave_tcp.client" 2>&1 ||
		{ echo "socat client failed"; cat "$out/misbehave_tcp.client"; kill $spid; return 1; }
	wait $spid || { echo "socat server failed"; cat "$out/misbehave_tcp.server"; return 1; }
	emu_ctl hca 1 faults
	emu_ctl hca 1 clear-faults >/dev/null
	a=$(sha256sum <"$src" | cut -d' ' -f1) b=$(sha256sum <"$dst" | cut -d' ' -f1)
	echo "sha256 sent $a"
	echo "sha256 recv $b"
	echo "rx_bad_cqe $b0 -> $(bad_cqe)"
	rm -f "$src" "$dst"
	[ "$a" = "$b" ] && [ "$(bad_cqe)" -gt "$b0" ]
}

t_unload()
{
	emu_ctl hca 1 clear-faults >/dev/null
	netdev_pair_down "$dev0" "$dev1"
	mlx5_unload ours
}

ktap_begin 6
ktap_case "load our pair with Ethernet ports, ping" t_load
ktap_case "RX: receive CQEs written twice: copies dropped, counted" t_repeat
ktap_case "RX: receive CQEs with a WQE counter out of the ring: dropped" t_counter
ktap_case "RX: receive CQEs with a byte count past the buffer: dropped" t_byte_cnt
ktap_case "RX: TCP intact while receive CQEs are written twice" t_tcp
ktap_case "unload" t_unload
ktap_end
