#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-upstream-vs-rxe (a benchmark, not a test):
# the same perftest runs on the in-tree mlx5_ib over two emulated HCAs and
# on rdma_rxe over a veth pair split across two network namespaces, printed
# side by side. Usage: upstream_vs_rxe.sh [ITERATIONS]
set -u
N=${1:-500}
out=${MLX5_OUT:-/tmp}
port=19000

log() { echo "bench: $*" >&2; }

listening() { ss -ltn | awk -v p=":$1" '$4 ~ p"$" { f = 1 } END { exit !f }'; }

# run NS-PREFIX SERVER-DEV CLIENT-DEV ADDR EXTRA -- TOOL ARGS: prints the
# client's output.
run()
{
	nsx=$1 sdev=$2 cdev=$3 addr=$4 extra=$5
	shift 5
	port=$((port + 1))
	$nsx timeout 300 "$@" -d "$sdev" -p "$port" $extra >"$out/bench.server" 2>&1 &
	spid=$!
	t=0
	while ! $nsx sh -c "ss -ltn | grep -q ':$port '"; do
		sleep 0.1
		t=$((t + 1))
		[ "$t" -lt 300 ] || { log "server $* did not listen"; kill $spid; return 1; }
	done
	timeout 300 "$@" -d "$cdev" -p "$port" $extra "$addr" 2>&1
	wait $spid
}

# col OUTPUT-FILE N: column N of the first result line of a perftest.
col() { awk -v c="$2" '/^ *[0-9]+ +[0-9]+ +[0-9a-z.]+/ { print $c; exit }' "$1"; }

# measure NAME KIND TOOL ARGS: KIND bw (MiB/s and Mpps) or lat (typical us)
# or pp (ibv_rc_pingpong usec/iter); fills $NAME_mlx5 / $NAME_rxe.
measure()
{
	name=$1 kind=$2
	shift 2
	for dev in mlx5 rxe; do
		if [ $dev = mlx5 ]; then
			run "" mlx5_0 mlx5_1 127.0.0.1 "" "$@" >"$out/bench.$name.$dev" 2>&1
		else
			gid=""
			[ "$1" = ibv_rc_pingpong ] && gid="-g $RXE_GID" || gid="-x $RXE_GID"
			run "ip netns exec bench1" rxe1 rxe0 10.0.0.2 "$gid" "$@" >"$out/bench.$name.$dev" 2>&1
		fi
		case $kind in
		bw) v="$(col "$out/bench.$name.$dev" 4) MiB/s $(col "$out/bench.$name.$dev" 5) Mpps" ;;
		lat) v="$(col "$out/bench.$name.$dev" 5) us" ;;
		pp) v="$(awk '/usec\/iter/ { print $(NF - 1) }' "$out/bench.$name.$dev" | tail -n1) us/iter" ;;
		esac
		eval "${name}_$dev=\"\$v\""
	done
	eval "printf '%-26s %-34s %-34s\n' \"$name\" \"\$${name}_mlx5\" \"\$${name}_rxe\""
}

setup_rxe()
{
	modprobe rdma_rxe || return 1
	ip link set lo up
	ip netns add bench1 || return 1
	ip netns exec bench1 ip link set lo up
	ip link add bveth0 type veth peer name bveth1 || return 1
	ip link set bveth1 netns bench1
	ip addr add 10.0.0.1/24 dev bveth0
	ip link set bveth0 up
	ip netns exec bench1 ip addr add 10.0.0.2/24 dev bveth1
	ip netns exec bench1 ip link set bveth1 up
	rdma link add rxe0 type rxe netdev bveth0 || return 1
	ip netns exec bench1 rdma link add rxe1 type rxe netdev bveth1 || return 1
	# The IPv4 RoCEv2 GID (index 1 on 7.3).
	RXE_GID=${RXE_GID:-1}
	sleep 1
}

modprobe mlx5_ib || exit 1
for _ in $(seq 300); do [ -e /sys/class/infiniband/mlx5_1 ] && break; sleep 0.1; done
setup_rxe || { log "rdma_rxe setup failed"; exit 1; }
ibv_devices

printf '%-26s %-34s %-34s\n' "perftest, $N iterations" "in-tree mlx5_ib on mlx5-emu" "rdma_rxe (veth, 2 netns)"
measure write_bw_64k bw ib_write_bw -s 65536 -n "$N"
measure write_bw_8 bw ib_write_bw -s 8 -n "$N"
measure read_bw_64k bw ib_read_bw -s 65536 -n "$N"
measure send_bw_64k bw ib_send_bw -s 65536 -n "$N"
measure write_lat_8 lat ib_write_lat -s 8 -n "$N"
measure send_lat_8 lat ib_send_lat -s 8 -n "$N"
measure rc_pingpong_4k pp ibv_rc_pingpong -s 4096 -n "$N"
E=${MLX5_SRC:-.}/scripts/lib/emu-ctl
sh "$E" hca 1 datapath | sed -n 's/^/emu hca1: /p' | head -n 3
