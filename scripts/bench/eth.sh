#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `scripts/bench/run eth` (a benchmark, not a test), in the
# guest whose emulated HCAs have Ethernet ports (emulator --link eth): one
# TCP transfer (socat, MB/s) and RoCEv2 perftest (ib_write_bw -x, also
# with 8 QPs, ib_send_lat -x) and ibv_rc_pingpong -g on
#   in-tree  the guest kernel's mlx5_core (mlx5e) + mlx5_ib,
#   ours     our mlx5_core (en/) + mlx5_ib,
#   rxe      rdma_rxe over a veth pair (TCP: the same veth pair),
# the two mlx5 netdevs in namespaces bn0 / bn1 (10.79.0.1-2/24), REPS
# rounds interleaved in-tree, ours, rxe. Prints "result REP STACK NAME
# VALUE UNIT" lines like perf.sh (scripts/bench/report reads both).
# Usage: eth.sh MIB ITERATIONS REPS
set -u
MIB=${1:-16}
N=${2:-200}
REPS=${3:-1}
top=${MLX5_SRC:-$(pwd)}
out=${MLX5_OUT:-/tmp}

. "$top/scripts/lib/emu-ctl.sh"
. "$top/scripts/bench/lib.sh"

# gid_of IBDEV ADDR-GID: the index of the RoCE v2 GID ADDR-GID on port 1.
gid_of()
{
	for _g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		_i=${_g##*/}
		[ "$(cat "$_g" 2>/dev/null)" = "$2" ] &&
			[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$_i" 2>/dev/null)" = "RoCE v2" ] &&
			{ echo "$_i"; return 0; }
	done
	return 1
}

# mlx5_up: both netdevs in their namespaces, addressed, with carrier and
# the GIDs of their addresses; sets GID (one index for both ports).
mlx5_up()
{
	wait_dev mlx5_1 || return 1
	for i in 0 1; do
		for _ in $(seq 300); do
			n=$(ls /sys/class/infiniband/mlx5_$i/device/net 2>/dev/null | head -n 1)
			[ -n "$n" ] && break
			sleep 0.1
		done
		[ -n "$n" ] || return 1
		ip netns add bn$i && ip link set "$n" netns bn$i || return 1
		ip -n bn$i link set lo up
		ip -n bn$i addr add 10.79.0.$((i + 1))/24 dev "$n" && ip -n bn$i link set "$n" up || return 1
	done
	for _ in $(seq 600); do
		GID=$(gid_of mlx5_0 0000:0000:0000:0000:0000:ffff:0a4f:0001) &&
			[ "$GID" = "$(gid_of mlx5_1 0000:0000:0000:0000:0000:ffff:0a4f:0002)" ] &&
			ip netns exec bn0 ping -c 1 -W 2 10.79.0.2 >/dev/null && return 0
		sleep 0.1
	done
	log "mlx5 netdevs: no matching RoCEv2 GIDs or no ping"
	return 1
}

mlx5_down() { ip netns del bn0; ip netns del bn1; }

# one STACK REP NAME WHAT UNIT GIDFLAG KIND TOOL ARGS: one perftest or
# pingpong run (perftest's own exchange over TCP: 127.0.0.1 beside mlx5's
# namespaces, the veth pair for rxe, whose rxe1 lives in bench1); WHAT is
# the result column, or "pp" for ibv_rc_pingpong's usec/iter; KIND: how
# long it runs (span in lib.sh).
one()
{
	_s=$1 _r=$2 _n=$3 _w=$4 _u=$5 _g=$6 _k=$7
	shift 7
	wanted "$_n" || return 0
	_f=$out/bench.eth.$_s.$_r.$_n
	if [ "$_s" = rxe ]; then
		run "ip netns exec bench1" rxe1 rxe0 10.0.0.2 "$_g $RXE_GID" "$@" $(span "$_k" "$_s") >"$_f" 2>&1
	else
		emu_counts >"$_f.before"
		run "" mlx5_0 mlx5_1 127.0.0.1 "$_g $GID" "$@" $(span "$_k" "$_s") >"$_f" 2>&1
		emu_counts >"$_f.after"
		per_message "$_r" "$_s" "$_n" "$_f.before" "$_f.after"
	fi
	if [ "$_w" = pp ]; then
		_v=$(awk '/usec\/iter/ { print $(NF - 1) }' "$_f" | tail -n 1)
	else
		_v=$(col "$_f" "$_w")
	fi
	case $_v in
	[0-9]*) echo "result $_r $_s $_n $_v $_u" ;;
	*) log "$_s $_n failed (rep $_r)"; tail -n 3 "$_f" >&2 ;;
	esac
}

# measure STACK REP: every figure of one stack.
measure()
{
	if wanted tcp_socat; then
		if [ "$1" = rxe ]; then
			v=$(tcp_rate "ip netns exec bench1" "" 10.0.0.2 "$MIB")
		else
			v=$(tcp_rate "ip netns exec bn1" "ip netns exec bn0" 10.79.0.2 "$MIB")
		fi
		case $v in [0-9]*) echo "result $2 $1 tcp_socat $v MB/s" ;; *) log "$1 TCP transfer failed (rep $2)" ;; esac
	fi
	one "$1" "$2" roce_write_bw_64k 4 MiB/s "-F -x" bw ib_write_bw -s 65536
	one "$1" "$2" roce_write_bw_64k_8qp 4 MiB/s "-F -x" bw ib_write_bw -s 65536 -q 8
	one "$1" "$2" roce_send_lat_8 5 us "-F -x" lat ib_send_lat -s 8
	one "$1" "$2" roce_rc_pingpong_4k pp us/iter -g pp ibv_rc_pingpong -s 4096
}

rounds measure "mlx5_up" mlx5_down
