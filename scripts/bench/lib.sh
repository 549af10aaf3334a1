# SPDX-License-Identifier: GPL-2.0
# Shared by the guest sides of scripts/bench/run (perf.sh, eth.sh): a
# perftest server/client pair, its result columns, rdma_rxe over a veth
# pair (the software reference), one TCP transfer's rate. Expects $out.
port=19000

# span KIND STACK: how long one perftest run lasts. Bandwidth tests run
# for MLX5_BENCH_SECONDS (default 3) and report the middle seconds (-f 1:
# the first and the last are ramp-up and tail): a fixed count of 64 KiB
# messages lasts milliseconds on the mlx5 pairs and seconds on rdma_rxe,
# and milliseconds measure the host's scheduler. Latency tests run 10 x
# N iterations, pingpongs 5 x N; "bwn" (bandwidth with completion
# events, which perftest does not run by duration) 25 x N on the mlx5
# pairs (5000 messages of 64 KiB: about 0.1-0.2 s; 200 lasted a few ms
# and spread 854-2610 MiB/s) and N on rdma_rxe (200 already take 0.6 s).
span()
{
	case $1 in
	bw) echo "-D ${MLX5_BENCH_SECONDS:-3} -f 1" ;;
	lat) echo "-n $((N * 10))" ;;
	pp) echo "-n $((N * 5))" ;;
	bwn) if [ "${2:-}" = rxe ]; then echo "-n $N"; else echo "-n $((N * 25))"; fi ;;
	*) echo "-n $N" ;;
	esac
}

log() { echo "bench: $*" >&2; }

# wanted NAME: whether the figure NAME is to be measured (MLX5_BENCH_ONLY,
# an extended regular expression; unset: all).
wanted() { [ -z "${MLX5_BENCH_ONLY:-}" ] || echo "$1" | grep -Eq -- "$MLX5_BENCH_ONLY"; }

# stack_on STACK: whether STACK (intree, ours, rxe) is in MLX5_BENCH_STACKS.
stack_on() { case " ${MLX5_BENCH_STACKS:-intree ours rxe} " in *" $1 "*) return 0 ;; esac; return 1; }

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

# emu_counts: the emulator's counters over both HCAs (hca 0 and 1 stats,
# through the control channel) and the guest's CPU time, "KEY VALUE" lines.
# uar_send_writes: MMIO writes to the BlueFlame/doorbell half of UAR pages
# (a doorbell is one, a 64-byte BlueFlame copy of 8-byte stores eight);
# sq_doorbells and cq_arms: the doorbells those writes assembled;
# eq_arms: EQ re-arm doorbells; eqes, irqs (MSI-X messages), comp_events
# (completion EQEs), cqes, wqes (SQ WQEs executed), retransmits and
# timeouts (transport retries, packets and timer expiries); cpu_*: /proc/stat
# jiffies of every guest CPU (user+nice, system, irq+softirq).
emu_counts()
{
	{ emu_ctl hca 0 stats; emu_ctl hca 1 stats; } 2>/dev/null | awk '
	$1 == "bf_writes" { c["uar_send_writes"] += $2 }
	$1 == "eq_arm_doorbells" { c["eq_arms"] += $2 }
	$1 == "eqes" { c["eqes"] += $2 }
	$1 == "irqs" { c["irqs"] += $2 }
	$1 == "dp" && $2 == "sq_doorbells" { c["sq_doorbells"] += $3 }
	$1 == "dp" && $2 == "cq_doorbells" { c["cq_arms"] += $3 }
	$1 == "dp" && $2 == "comp_events" { c["comp_events"] += $3 }
	$1 == "dp" && $2 == "cqes" { c["cqes"] += $3 }
	$1 == "dp" && $2 == "qp_totals" {
		for (i = 3; i <= NF; i++)
			if (split($i, kv, "=") == 2 && (kv[1] == "wqes" || kv[1] == "retransmits" || kv[1] == "timeouts"))
				c[kv[1]] += kv[2]
	}
	END { for (k in c) print k, c[k] }'
	awk '$1 == "cpu" { print "cpu_user", $2 + $3; print "cpu_sys", $4; print "cpu_irq", $7 + $8 }' /proc/stat
}

# per_message REP STACK NAME BEFORE AFTER: "counter REP STACK NAME KEY
# VALUE" lines, each counter's growth between two emu_counts snapshots per
# SQ WQE the emulator executed (both HCAs: a pingpong's two sides count),
# the CPU times in microseconds per WQE (USER_HZ 100). Nothing without
# WQEs or without the control channel.
per_message()
{
	awk -v r="$1" -v s="$2" -v n="$3" '
	FNR == NR { a[$1] = $2; next }
	{ b[$1] = $2 }
	END {
		w = b["wqes"] - a["wqes"]
		if (w <= 0)
			exit
		for (k in b) {
			if (k == "wqes" || !(k in a))
				continue
			d = b[k] - a[k]
			if (k ~ /^cpu_/)
				printf "counter %s %s %s %s_us %.3f\n", r, s, n, k, d * 10000 / w
			else
				printf "counter %s %s %s %s %.3f\n", r, s, n, k, d / w
		}
	}' "$4" "$5"
}

# col FILE N: column N of perftest's first result line.
col() { awk -v c="$2" '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { print $c; exit }' "$1"; }

# wait_dev IBDEV: until the RDMA device exists (30 s at most).
wait_dev() { for _ in $(seq 300); do [ -e "/sys/class/infiniband/$1" ] && return 0; sleep 0.1; done; return 1; }

# setup_rxe: rxe0 on bveth0 (10.0.0.1, initial namespace) and rxe1 on
# bveth1 (10.0.0.2, namespace bench1); RXE_GID: their RoCEv2 IPv4 GID.
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


# tcp_rate SERVER-PREFIX CLIENT-PREFIX ADDR MIB: MIB MiB of zeros over one
# TCP connection (socat) from the client's namespace to ADDR in the
# server's; prints MB/s (from the client's start to the server's end).
tcp_rate()
{
	port=$((port + 1))
	$1 timeout 600 socat -u TCP-LISTEN:$port,reuseaddr OPEN:/dev/null >"$out/bench.server" 2>&1 &
	spid=$!
	t=0
	while ! $1 sh -c "ss -ltn | grep -q ':$port '"; do
		kill -0 $spid 2>/dev/null || { log "socat server exited"; return 1; }
		sleep 0.1
		t=$((t + 1))
		[ "$t" -lt 300 ] || { log "socat server did not listen"; kill $spid; return 1; }
	done
	read -r t0 _ </proc/uptime
	head -c $(($4 << 20)) /dev/zero | $2 timeout 600 socat -u STDIN TCP:$3:$port || { kill $spid; return 1; }
	wait $spid || return 1
	read -r t1 _ </proc/uptime
	awk -v m="$4" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", m * 1.048576 / (b - a) }'
}

# one_stack STACK: one round's figures of STACK (intree, ours or rxe):
# loads the pair, MEASURE STACK REP, unloads it.
one_stack()
{
	case $1 in
	intree)
		log "round $rep of $REPS: in-tree mlx5_core + mlx5_ib"
		modprobe mlx5_ib && $up || { log "in-tree driver did not come up"; exit 1; }
		$measure intree "$rep" | tee -a "$res"
		$down
		modprobe -r mlx5_ib mlx5_core ;;
	ours)
		log "round $rep of $REPS: our mlx5_core + mlx5_ib"
		insmod "$top/core/mlx5_core.ko" && insmod "$top/ib/mlx5_ib.ko" && $up ||
			{ log "our driver did not come up"; exit 1; }
		$measure ours "$rep" | tee -a "$res"
		$down
		rmmod mlx5_ib mlx5_core ;;
	rxe)
		[ "$have_rxe" = 1 ] || return 0
		log "round $rep of $REPS: rdma_rxe"
		$measure rxe "$rep" | tee -a "$res" ;;
	esac
}

# rounds MEASURE UP DOWN: REPS rounds of the three stacks (those of
# MLX5_BENCH_STACKS), in-tree, ours, rdma_rxe in odd rounds and the
# reverse in even ones (A B C C B A ...: a drift of the host's speed
# over the run hits all three alike); MEASURE STACK REP prints result
# lines (kept in $out/bench.results), UP brings a loaded mlx5 pair's
# devices up, DOWN takes them down before the unload. Ends with the
# report's tables (figures, then the emulator's counters per message).
rounds()
{
	measure=$1 up=$2 down=$3
	modprobe ib_uverbs
	have_rxe=0
	if setup_rxe; then have_rxe=1; else log "rdma_rxe setup failed: no rxe figures"; fi
	res=$out/bench.results
	: >"$res"
	rep=1
	while [ "$rep" -le "$REPS" ]; do
		order="intree ours rxe"
		[ $((rep % 2)) = 1 ] || order="rxe ours intree"
		for st in $order; do
			stack_on "$st" && one_stack "$st"
		done
		rep=$((rep + 1))
	done
	sh "$top/scripts/bench/report" table "$res"
	sh "$top/scripts/bench/report" counters "$res"
}
