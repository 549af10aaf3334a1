#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Ethernet and RoCE under load on the emulator's Ethernet ports (guest with
# --link eth), for each pair of $PAIRS in turn (make check: ours, the
# pair the acceptance names; MLX5_STRESS_PAIRS="in-tree ours" runs the
# in-tree one first, side by side); the netdevs in namespaces mlx5ns0 /
# mlx5ns1 (netdev_pair_up).
# - Stress: $STREAMS parallel TCP streams (socat, mlx5ns0 -> mlx5ns1) of
#   /dev/urandom, each one's sha256 taken on both ends; the MTU goes 1500
#   -> 4000 (a 3000-byte ping, DF set) -> 1500 on both netdevs during the
#   traffic, and an RC stream between one QP on each port (ibv_rc_pingpong
#   -g over RoCEv2 with -c: the receiver checks every buffer) runs round
#   after round meanwhile. The sources stop after $SECS seconds once TCP
#   moved data and an RC round passed after the last MTU change. Passes
#   when every checksum matches, every socat exits 0 and every RC round
#   passed.
# - rmmod mlx5_ib mlx5_core while a TCP stream and an RC stream (ibv_rc_
#   pingpong -e) run: the RDMA processes get errors and exit on their own
#   (their contexts are disassociated); TCP keeps retrying (as it should:
#   the sockets outlive the netdev), so the socat processes are ended by the
#   test. No splat, no mlx5 error, every firmware page and object (RDMA and
#   Ethernet: RQs, SQs, TIRs, flow tables...) back; then the pair loads
#   again and TCP and RC traffic run.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
SECS=${MLX5_STRESS_SECS:-60}
STREAMS=${MLX5_STRESS_STREAMS:-4}
RC_ITERS=${MLX5_STRESS_RC_ITERS:-50}
PAIRS=${MLX5_STRESS_PAIRS:-ours}
PORT=5200
# Every object the Ethernet driver creates comes back too.
EMU_OBJ_PAIRS="$EMU_OBJ_PAIRS
CREATE_RQ:DESTROY_RQ CREATE_SQ:DESTROY_SQ CREATE_RQT:DESTROY_RQT CREATE_TIR:DESTROY_TIR
CREATE_TIS:DESTROY_TIS CREATE_FLOW_TABLE:DESTROY_FLOW_TABLE CREATE_FLOW_GROUP:DESTROY_FLOW_GROUP
ALLOC_TRANSPORT_DOMAIN:DEALLOC_TRANSPORT_DOMAIN"

t_load()
{
	ip link set lo up 2>/dev/null
	snap=$(emu_obj_snapshot 0 1)
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	for i in 0 1; do
		wait_for 30 sh -c "[ -n \"\$(ls /sys/class/infiniband/mlx5_$i/device/net 2>/dev/null)\" ]" ||
			{ echo "mlx5_$i: no netdev"; return 1; }
	done
	eth0=$(roce_netdev mlx5_0) eth1=$(roce_netdev mlx5_1)
	echo "mlx5_0: $eth0, mlx5_1: $eth1"
}

has_v4_gids() { gid_index mlx5_0 "RoCE v2" "$(v4_gid 1)" && gid_index mlx5_1 "RoCE v2" "$(v4_gid 2)"; }

# Netdevs up in mlx5ns0 / mlx5ns1, ping, the RoCEv2 GID of 10.77.0.1/2.
t_up()
{
	netdev_pair_up "$eth0" "$eth1" || return 1
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 || return 1
	wait_for 30 has_v4_gids || { gid_table mlx5_0; gid_table mlx5_1; return 1; }
	gid=$(gid_index mlx5_0 "RoCE v2" "$(v4_gid 1)")
	[ "$gid" = "$(gid_index mlx5_1 "RoCE v2" "$(v4_gid 2)")" ] || { echo "GID indexes differ"; return 1; }
	echo "RoCEv2 IPv4 GID index $gid"
}

rx_packets() { ipoib_in 1 cat "/sys/class/net/$eth1/statistics/rx_packets"; }
roce_tx() { emu_ctl hca "$1" nic | awk '$1 == "roce" { for (i = 2; i < NF; i++) if ($i == "tx") print $(i + 1) }'; }

# stream I: TCP stream I, mlx5ns0 -> mlx5ns1 port PORT+I: /dev/urandom
# in 64 KiB pieces until the file $stop exists; sha256 and byte count of
# what was sent ($out/stress_I.ssum, .sbytes) and received (.rsum,
# .rbytes), socat's exit status on each end (.src, .rrc). Blocks until both
# ends finished.
stream()
{
	_i=$1 _p=$((PORT + $1)) _f=$out/stress_$1
	rm -f "$_f".* && mkfifo "$_f.sfifo" "$_f.rfifo" "$_f.sfifo2" "$_f.rfifo2" || return 1
	sha256sum <"$_f.rfifo" | cut -d' ' -f1 >"$_f.rsum" &
	wc -c <"$_f.rfifo2" >"$_f.rbytes" &
	{ ipoib_in 1 timeout 1200 socat -u TCP-LISTEN:$_p,reuseaddr STDOUT 2>"$_f.rerr"
	  echo $? >"$_f.rrc"; } | tee "$_f.rfifo" >"$_f.rfifo2" &
	wait_for 30 ns_listening mlx5ns1 $_p || { echo "stream $_i: no listener" >"$_f.rerr"; return 1; }
	sha256sum <"$_f.sfifo" | cut -d' ' -f1 >"$_f.ssum" &
	wc -c <"$_f.sfifo2" >"$_f.sbytes" &
	# A small send buffer: what is queued when the source stops drains
	# in seconds even at TCG's 0.2 MB/s.
	while [ ! -e "$stop" ]; do head -c 65536 /dev/urandom; done | tee "$_f.sfifo" | tee "$_f.sfifo2" |
		{ ipoib_in 0 timeout 1200 socat -u STDIN TCP:10.77.0.2:$_p,sndbuf=131072 2>"$_f.serr"
		  echo $? >"$_f.src"; }
	wait
}

# rc_rounds: ibv_rc_pingpong -c rounds between mlx5_0 and mlx5_1 over
# RoCEv2 (path MTU 1024: valid at either netdev MTU) until the file $stop
# exists; per round "rc round N ok UPTIME" (when it ended) or "... FAILED".
rc_rounds()
{
	_n=0
	while [ ! -e "$stop" ]; do
		_n=$((_n + 1))
		if rdma_pair stress_rc ibv_rc_pingpong -g "$gid" -m 1024 -s 4096 -n "$RC_ITERS" -c \
			>"$out/stress_rc.round" 2>&1; then
			echo "rc round $_n ok $(ktap_now)"
		else
			echo "rc round $_n FAILED $(ktap_now)"
			cat "$out/stress_rc.round"
		fi
	done
}

# rc_ok_after T: an RC round ended well after uptime T.
rc_ok_after() { awk -v t="$1" '$4 == "ok" && $5 > t { f = 1 } END { exit !f }' "$out/stress_rc.log"; }

set_mtu()
{
	ipoib_in 0 ip link set "$eth0" mtu "$1" && ipoib_in 1 ip link set "$eth1" mtu "$1" || return 1
	wait_for 60 ipoib_in 0 sh -c "[ \"\$(cat /sys/class/net/$eth0/carrier)\" = 1 ]" &&
		wait_for 60 ipoib_in 1 sh -c "[ \"\$(cat /sys/class/net/$eth1/carrier)\" = 1 ]" ||
		{ echo "no carrier after MTU $1"; return 1; }
	echo "$(ktap_now): MTU $1 on both netdevs"
}

# until_uptime T: sleep until uptime T (a schedule, not a condition).
until_uptime()
{
	_s=$(awk -v t="$1" -v n="$(ktap_now)" 'BEGIN { d = t - n; print (d > 0) ? int(d + 0.999) : 0 }')
	[ "$_s" -eq 0 ] || sleep "$_s"
}

# The streams and the RC rounds run from the start; the MTU goes to 4000
# after a third of $SECS, back to 1500 after two thirds; the sources stop
# once $SECS passed, TCP moved data after the last MTU change and an RC
# round passed after it (whichever is last).
t_stress()
{
	need_tool socat sha256sum ibv_rc_pingpong || return 1
	stop=$out/stress.stop
	rm -f "$stop" "$out/stress_rc.log"
	t0=$(ktap_now)
	pids=
	i=1
	while [ $i -le "$STREAMS" ]; do
		stream $i >"$out/stress_$i.log" 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	rc_rounds >"$out/stress_rc.log" 2>&1 &
	rcpid=$!
	rc=0
	until_uptime "$(awk -v a="$t0" -v s="$SECS" 'BEGIN { print a + s / 3 }')"
	set_mtu 4000 || rc=1
	ipoib_in 0 ping -c 1 -W 10 -s 3000 -M do 10.77.0.2 >/dev/null || { echo "no 3000-byte ping at MTU 4000"; rc=1; }
	until_uptime "$(awk -v a="$t0" -v s="$SECS" 'BEGIN { print a + 2 * s / 3 }')"
	set_mtu 1500 || rc=1
	t_mtu=$(ktap_now) rx_mtu=$(rx_packets)
	until_uptime "$(awk -v a="$t0" -v s="$SECS" 'BEGIN { print a + s }')"
	wait_for 120 rx_above $((rx_mtu + 100)) || { echo "no TCP traffic after the MTU change"; rc=1; }
	wait_for 180 rc_ok_after "$t_mtu" || { echo "no RC round passed after the MTU change"; rc=1; }
	touch "$stop"
	echo "$(ktap_now): sources stopped, $(($(rx_packets) - rx_mtu)) packets received since the last MTU change"
	wait $pids
	wait $rcpid
	rm -f "$stop"
	# rc_rounds counted its ports in a subshell.
	rdma_port=$((rdma_port + 1000))
	total=0
	i=1
	while [ $i -le "$STREAMS" ]; do
		f=$out/stress_$i
		s=$(cat "$f.ssum" 2>/dev/null) r=$(cat "$f.rsum" 2>/dev/null)
		sb=$(cat "$f.sbytes" 2>/dev/null) rb=$(cat "$f.rbytes" 2>/dev/null)
		echo "stream $i: sent ${sb:-?} B sha256 ${s:-?}, received ${rb:-?} B sha256 ${r:-?}," \
			"socat exit $(cat "$f.src" 2>/dev/null)/$(cat "$f.rrc" 2>/dev/null)"
		if [ -z "$s" ] || [ "$s" != "$r" ] || [ "${sb:-0}" -eq 0 ] || [ "$(cat "$f.src")" != 0 ] ||
			[ "$(cat "$f.rrc")" != 0 ]; then
			rc=1
			cat "$f.log" "$f.serr" "$f.rerr" 2>/dev/null
		fi
		total=$((total + ${rb:-0}))
		rm -f "$f".*
		i=$((i + 1))
	done
	awk -v n="$STREAMS" -v b="$total" -v a="$t0" -v e="$(ktap_now)" \
		'BEGIN { printf "%d streams: %.1f MB in %.0f s (%.2f MB/s)\n", n, b / 1e6, e - a, b / 1e6 / (e - a) }'
	ok=$(awk '$1 == "rc" && $4 == "ok"' "$out/stress_rc.log" | wc -l)
	bad=$(awk '$1 == "rc" && $4 == "FAILED"' "$out/stress_rc.log" | wc -l)
	echo "RC stream: $ok rounds of $RC_ITERS x 4 KiB checked, $bad failed; ends of the rounds:" \
		"$(awk '$1 == "rc" { printf "%s ", $5 }' "$out/stress_rc.log")"
	[ "$bad" -eq 0 ] && [ "$ok" -ge 1 ] || { cat "$out/stress_rc.log"; rc=1; }
	return $rc
}

# hold_teardown MS: on both HCAs, completion EQEs are written MS ms late,
# DESTROY_TIR answers MS ms and DESTROY_RQ 3 x MS ms late (0: on time).
hold_teardown()
{
	for _h in 0 1; do
		emu_ctl hca $_h delay-eqe comp "$1" >/dev/null &&
			emu_ctl hca $_h delay-cmd DESTROY_TIR "$1" >/dev/null &&
			emu_ctl hca $_h delay-cmd DESTROY_RQ "$(($1 * 3))" >/dev/null || return 1
	done
}

# MTU changes while a ping flood sends, with the queue teardown slowed
# down so that the stack calls xmit all along it and send completions
# arrive after the TX queues stopped: completion EQEs late (the frames
# sent just before the stop complete after it), DESTROY_TIR held (between
# stopping the queues and closing the channels), DESTROY_RQ held (between
# destroying the SQ and freeing the channel). A completion polled then
# must not wake a queue whose SQ is going away: it did, and xmit wrote
# through the destroyed SQ's ring state (an oops once in a while under
# TCP in t_stress).
t_mtu_flood()
{
	rc=0
	rm -f "$out/flood.pid"
	ipoib_in 0 sh -c "echo \$\$ >$out/flood.pid; exec ping -f -q -s 1000 10.77.0.2" >"$out/flood.log" 2>&1 &
	fpid=$!
	wait_for 10 test -s "$out/flood.pid" || { kill $fpid; return 1; }
	hold_teardown 200 || rc=1
	for m in 4000 1500 4000 1500; do
		set_mtu $m || rc=1
	done
	hold_teardown 0 || rc=1
	kill -INT "$(cat "$out/flood.pid")"
	wait $fpid
	tail -n 2 "$out/flood.log"
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 >/dev/null || { echo "no ping after the MTU changes"; rc=1; }
	return $rc
}

rx_above() { [ "$(rx_packets)" -gt "$1" ]; }
roce_tx_above() { [ "$(roce_tx 0)" -gt "$1" ]; }

# The unload of the pair while TCP and RC traffic run.
t_rmmod_busy()
{
	need_tool socat ibv_rc_pingpong || return 1
	ipoib_in 1 timeout 900 socat -u TCP-LISTEN:$PORT,reuseaddr OPEN:/dev/null >/dev/null 2>&1 &
	spid=$!
	wait_for 30 ns_listening mlx5ns1 $PORT || { kill $spid; return 1; }
	ipoib_in 0 timeout 900 socat -u OPEN:/dev/zero TCP:10.77.0.2:$PORT >/dev/null 2>&1 &
	cpid=$!
	rdma_port=$((rdma_port + 1))
	timeout 900 ibv_rc_pingpong -d mlx5_0 -p $rdma_port -g "$gid" -e -s 4096 -n 100000000 \
		>"$out/rmmod_rc.server" 2>&1 &
	rspid=$!
	wait_listen $rdma_port $rspid || { kill $spid $cpid $rspid; cat "$out/rmmod_rc.server"; return 1; }
	timeout 900 ibv_rc_pingpong -d mlx5_1 -p $rdma_port -g "$gid" -e -s 4096 -n 100000000 127.0.0.1 \
		>"$out/rmmod_rc.client" 2>&1 &
	rcpid=$!
	rx0=$(rx_packets) tx0=$(roce_tx 0)
	wait_for 60 rx_above $((rx0 + 200)) && wait_for 60 roce_tx_above $((tx0 + 200)) ||
		{ echo "no TCP or RoCE traffic"; kill $spid $cpid $rspid $rcpid; return 1; }
	echo "TCP: $(($(rx_packets) - rx0)) packets received, RoCE: $(($(roce_tx 0) - tx0)) frames sent by hca 0 so far"
	rc=0
	t0=$(ktap_now)
	mlx5_unload "$pair" || rc=1
	echo "unload took $(awk -v a="$t0" -v b="$(ktap_now)" 'BEGIN { printf "%.1f", b - a }') s"
	# The RDMA processes end by themselves.
	for p in $rspid $rcpid; do
		wait_for 60 sh -c "! kill -0 $p" || { echo "ibv_rc_pingpong (pid $p) still runs"; rc=1; }
	done
	wait $rspid
	echo "server exit $?: $(grep -v 'address' "$out/rmmod_rc.server" | tr '\n' ' ')"
	wait $rcpid
	echo "client exit $?: $(grep -v 'address' "$out/rmmod_rc.client" | tr '\n' ' ')"
	kill -0 $cpid 2>/dev/null && echo "socat client still retrying: ended by the test"
	kill $spid $cpid 2>/dev/null
	wait $spid $cpid 2>/dev/null
	netdev_pair_down "" ""
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || rc=1
	done
	emu_obj_leaks "$snap" 0 1 || rc=1
	mlx5_log_clean "$dmesg_start" || rc=1
	return $rc
}

# After the busy unload: the pair loads again and carries TCP and RC.
t_again()
{
	t_load && t_up || return 1
	ipoib_in 1 timeout 120 socat -u TCP-LISTEN:$PORT,reuseaddr STDOUT 2>/dev/null | sha256sum >"$out/again.rsum" &
	spid=$!
	wait_for 30 ns_listening mlx5ns1 $PORT || { kill $spid; return 1; }
	head -c 1048576 /dev/urandom >"$out/again.src"
	ipoib_in 0 timeout 120 socat -u "OPEN:$out/again.src" TCP:10.77.0.2:$PORT || { kill $spid; return 1; }
	wait $spid
	a=$(sha256sum <"$out/again.src") b=$(cat "$out/again.rsum")
	rm -f "$out/again.src" "$out/again.rsum"
	echo "1 MiB over TCP: sha256 sent $a, received $b"
	[ "$a" = "$b" ] || return 1
	rdma_pair again_rc ibv_rc_pingpong -g "$gid" -s 4096 -n 100 -c >"$out/again_rc.log" 2>&1 ||
		{ cat "$out/again_rc.log"; return 1; }
	tail -n 2 "$out/again_rc.log"
}

t_down()
{
	rc=0
	netdev_pair_down "$eth0" "$eth1"
	mlx5_unload "$pair" || rc=1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		[ "$p" = 0 ] || { echo "hca $h: $p pages outstanding"; rc=1; }
	done
	emu_obj_leaks "$snap" 0 1 || rc=1
	return $rc
}

ktap_begin $((7 * $(echo $PAIRS | wc -w)))
for pair in $PAIRS; do
	ktap_case "modprobe mlx5_core, mlx5_ib: netdevs [$pair]" t_load
	ktap_case "netdevs up in two namespaces, ping, RoCEv2 GIDs [$pair]" t_up
	ktap_case "${SECS} s: $STREAMS TCP streams, MTU 1500 -> 4000 -> 1500, RC stream: checksums match [$pair]" t_stress
	ktap_case "MTU 1500 -> 4000 -> 1500 twice under a ping flood, queue teardown slowed: no splat, ping after [$pair]" t_mtu_flood
	ktap_case "rmmod mlx5_ib mlx5_core under TCP and RC traffic: RDMA processes exit, pages and objects back [$pair]" t_rmmod_busy
	ktap_case "load again: TCP (1 MiB, sha256) and RC traffic [$pair]" t_again
	ktap_case "unload: pages and objects back [$pair]" t_down
done
ktap_end
