#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `scripts/bench/run perf` (a benchmark, not a test): the same
# perftest runs and control-path rates, in one boot, on
#   in-tree  the guest kernel's mlx5_core + mlx5_ib on two emulated HCAs,
#   ours     our mlx5_core + mlx5_ib on the same emulated HCAs,
#   rxe      rdma_rxe over a veth pair split across two network namespaces,
# printed side by side with the ratio ours / in-tree.
# Usage: perf.sh ITERATIONS VERBS_RATE_BINARY
set -u
N=${1:-300}
rate_bin=${2:-}
top=${MLX5_SRC:-$(pwd)}
out=${MLX5_OUT:-/tmp}
port=19000

log() { echo "bench: $*" >&2; }

# run NETNS-PREFIX SERVER-DEV CLIENT-DEV ADDR EXTRA -- TOOL ARGS: the
# client's output on stdout.
run()
{
	nsx=$1 sdev=$2 cdev=$3 addr=$4 extra=$5
	shift 5
	port=$((port + 1))
	$nsx timeout 300 "$@" -d "$sdev" -p "$port" $extra >"$out/bench.server" 2>&1 &
	spid=$!
	t=0
	while ! $nsx sh -c "ss -ltn | grep -q ':$port '"; do
		kill -0 $spid 2>/dev/null || { log "server $* exited"; return 1; }
		sleep 0.1
		t=$((t + 1))
		[ "$t" -lt 300 ] || { log "server $* did not listen"; kill $spid; return 1; }
	done
	timeout 300 "$@" -d "$cdev" -p "$port" $extra "$addr" 2>&1
	wait $spid
}

# col FILE N: column N of perftest's first result line.
col() { awk -v c="$2" '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { print $c; exit }' "$1"; }

TESTS="write_bw_64k bw ib_write_bw -s 65536
write_bw_8 bw ib_write_bw -s 8
read_bw_64k bw ib_read_bw -s 65536
send_bw_64k bw ib_send_bw -s 65536
atomic_bw bw ib_atomic_bw
write_lat_8 lat ib_write_lat -s 8
send_lat_8 lat ib_send_lat -s 8
read_lat_8 lat ib_read_lat -s 8
rc_pingpong_4k pp ibv_rc_pingpong -s 4096"

# measure_all STACK: every test on STACK (intree, ours or rxe); results in
# $out/bench.res.STACK as "name value unit" lines.
measure_all()
{
	stack=$1
	: >"$out/bench.res.$stack"
	echo "$TESTS" | while read -r name kind tool args; do
		f=$out/bench.$name.$stack
		if [ "$stack" = rxe ]; then
			gid="-x $RXE_GID"
			[ "$tool" = ibv_rc_pingpong ] && gid="-g $RXE_GID"
			run "ip netns exec bench1" rxe1 rxe0 10.0.0.2 "$gid" $tool $args -n "$N" >"$f" 2>&1
		else
			F=-F
			[ "$tool" = ibv_rc_pingpong ] && F=""
			run "" mlx5_0 mlx5_1 127.0.0.1 "$F" $tool $args -n "$N" >"$f" 2>&1
		fi
		case $kind in
		bw) v="$(col "$f" 4) MiB/s" ;;
		lat) v="$(col "$f" 5) us" ;;
		pp) v="$(awk '/usec\/iter/ { print $(NF - 1) }' "$f" | tail -n1) us/iter" ;;
		esac
		case $v in [0-9]*) ;; *) v="- failed" ;; esac
		echo "$name $v" >>"$out/bench.res.$stack"
	done
	if [ "$stack" != rxe ] && [ -x "$rate_bin" ]; then
		"$rate_bin" mlx5_0 "$N" | awk '{ print $1, $2, "/s" }' >>"$out/bench.res.$stack"
	fi
}

wait_dev() { for _ in $(seq 300); do [ -e "/sys/class/infiniband/$1" ] && return 0; sleep 0.1; done; return 1; }

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
	# The IPv4-mapped RoCEv2 GID: index 1 once the address is up.
	RXE_GID=${RXE_GID:-1}
	for _ in $(seq 100); do
		[ -n "$(cat /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$')" ] && return 0
		sleep 0.1
	done
	return 1
}

modprobe ib_uverbs
log "in-tree mlx5_core + mlx5_ib"
modprobe mlx5_ib && wait_dev mlx5_1 || { log "in-tree driver did not load"; exit 1; }
measure_all intree
modprobe -r mlx5_ib mlx5_core
log "our mlx5_core + mlx5_ib"
insmod "$top/core/mlx5_core.ko" && insmod "$top/ib/mlx5_ib.ko" && wait_dev mlx5_1 ||
	{ log "our driver did not load"; exit 1; }
measure_all ours
rmmod mlx5_ib mlx5_core
log "rdma_rxe"
if setup_rxe; then measure_all rxe; else log "rdma_rxe setup failed"; : >"$out/bench.res.rxe"; fi

printf '%-22s %-16s %-16s %-16s %s\n' "$N iterations" in-tree ours rdma_rxe "ours/in-tree"
awk '
	FNR == 1 { stack++ }
	{ key[$1] = 1; if (!($1 in order)) order[$1] = ++n; val[stack, $1] = $2; unit[$1] = $3 }
	END {
		for (k in order) name[order[k]] = k
		for (i = 1; i <= n; i++) {
			k = name[i]
			a = val[1, k]; b = val[2, k]; c = val[3, k]
			r = (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", b / a) : "-"
			printf "%-22s %-16s %-16s %-16s %s\n", k, (a == "" ? "-" : a " " unit[k]),
				(b == "" ? "-" : b " " unit[k]), (c == "" ? "-" : c " " unit[k]), r
		}
	}' "$out/bench.res.intree" "$out/bench.res.ours" "$out/bench.res.rxe"
