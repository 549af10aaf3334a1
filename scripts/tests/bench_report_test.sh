#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of the benchmark's bookkeeping (KTAP): scripts/bench/report
# on a fixture of "result" lines (medians, ranges, the ratio, the rounds
# where ours was ahead, in the right direction for latencies, rounds that
# lack a sample left out of the pairing, valid JSON with every sample's
# round), scripts/bench/readme writing README's table between its markers
# and nothing else, the rounds' order (lib.sh: odd rounds in-tree, ours,
# rxe, even rounds reversed; MLX5_BENCH_STACKS and MLX5_BENCH_ONLY) and
# each kind's span.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# expect NAME WANT GOT
expect() {
	[ "$2" = "$3" ] || echo "# $1: expected '$2', got '$3'"
	report "$([ "$2" = "$3" ]; echo $?)" "$1"
}

echo "TAP version 13"
echo "1..14"

res=$out/results.log
cat >"$res" <<'EOF2'
bench: round 1 of 3: in-tree mlx5_core + mlx5_ib
result 1 intree bw 100 MiB/s
result 1 ours bw 90 MiB/s
result 1 rxe bw 10 MiB/s
result 1 intree lat 20 us
result 1 ours lat 10 us
result 2 rxe bw 11 MiB/s
result 2 ours bw 130 MiB/s
result 2 intree bw 120 MiB/s
result 2 ours lat 30 us
result 2 intree lat 25 us
result 3 intree bw 110 MiB/s
result 3 ours bw 120 MiB/s
result 3 intree lat 22 us
EOF2

tbl=$(sh "$here/bench/report" table "$res")
row() { echo "$tbl" | awk -v t="$1" '$1 == t' | tr -s ' '; }
expect "bandwidth row: medians, ranges, ratio, ours ahead 2 of 3" \
	"bw 110 [100-120] 120 [90-130] 10.5 [10-11] 1.09 2/3 MiB/s" "$(row bw)"
expect "latency row: lower is ahead; round 3 has no sample of ours and is not paired" \
	"lat 22 [20-25] 20 [10-30] - 0.91 1/2 us" "$(row lat)"

json=$out/results.json
sh "$here/bench/report" json "$res" >"$json"
got=$(python3 - "$json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["tests"]}
print(d["rounds"], t["bw"]["ours"]["samples"], t["bw"]["ours"]["rounds"], t["bw"]["paired"],
      t["lat"]["lower_is_better"], "paired" in t["lat"], t["lat"]["ours"]["rounds"])
EOF2
)
expect "JSON: every sample with its round, the pairing" \
	"3 [90, 130, 120] [1, 2, 3] {'rounds': 3, 'ours_ahead': 2} True True [1, 2]" "$got"

readme=$out/README.md
printf 'before\n<!-- bench:begin -->\nold table\n<!-- bench:end -->\nafter\n' >"$readme"
echo "2026-12-05, 2 cores (test)" >"$out/machine.txt"
python3 "$here/bench/readme" "$json" "$readme" >/dev/null
expect "README: the table replaces the old one, text around it kept" \
	"before|<!-- bench:begin -->|after" \
	"$(grep -E '^(before|after|<!-- bench:begin -->)$' "$readme" | paste -sd'|')"
expect "README: bandwidth row with its ours-ahead column" \
	"| bw | MiB/s | 3 | 110 [100-120] | 120 [90-130] | 10.5 [10-11] | 1.09 | 2/3 |" "$(grep '^| bw ' "$readme")"
expect "README: the machine line from machine.txt" "1" "$(grep -c '2026-12-05, 2 cores (test)' "$readme")"
grep -q 'old table' "$readme"
report "$((1 - $?))" "README: the old table is gone"

# The rounds' order, with lib.sh's loading and measuring stubbed out.
order()
{
	(
		out=$out top=$here/.. REPS=$1
		. "$here/bench/lib.sh"
		modprobe() { :; }
		setup_rxe() { return 0; }
		one_stack() { printf '%s%s ' "$1" "$rep" >>"$out/order"; }
		: >"$out/order"
		rounds true true true >/dev/null 2>&1
		cat "$out/order"
	)
}
expect "rounds: odd rounds in-tree, ours, rxe; even rounds reversed" \
	"intree1 ours1 rxe1 rxe2 ours2 intree2 intree3 ours3 rxe3 " "$(order 3)"
expect "MLX5_BENCH_STACKS leaves rxe out" \
	"intree1 ours1 ours2 intree2 " "$(MLX5_BENCH_STACKS="intree ours" order 2)"
got=$(
	. "$here/bench/lib.sh"
	for t in write_bw_64k write_bw_64k_8qp atomic_bw; do wanted "$t" && printf '%s ' "$t"; done
	MLX5_BENCH_ONLY='8qp|^atomic'
	for t in write_bw_64k write_bw_64k_8qp atomic_bw; do wanted "$t" && printf '%s ' "$t"; done
)
expect "MLX5_BENCH_ONLY: every figure when unset, the matching ones when set" \
	"write_bw_64k write_bw_64k_8qp atomic_bw write_bw_64k_8qp atomic_bw " "$got"

got=$(
	. "$here/bench/lib.sh"
	N=200
	unset MLX5_BENCH_SECONDS
	echo "$(span bw ours)|$(span lat ours)|$(span pp rxe)|$(span bwn ours)|$(span bwn rxe)"
)
expect "span: bandwidth by duration, latency 10 x N, pingpong 5 x N, events 25 x N (N on rxe)" \
	"-D 3 -f 1|-n 2000|-n 1000|-n 5000|-n 200" "$got"

# The emulator's counters per message: two snapshots (emu_counts' form)
# and their growth per SQ WQE, CPU jiffies as microseconds.
printf 'wqes 100\nsq_doorbells 50\neqes 7\ncpu_sys 10\n' >"$out/c.before"
printf 'wqes 300\nsq_doorbells 250\neqes 7\ncpu_sys 30\nirqs 4\n' >"$out/c.after"
got=$(
	. "$here/bench/lib.sh"
	per_message 2 ours lat "$out/c.before" "$out/c.after" | sort | paste -sd'|'
)
expect "per_message: growth per WQE, CPU in us, a key missing before left out" \
	"counter 2 ours lat cpu_sys_us 1000.000|counter 2 ours lat eqes 0.000|counter 2 ours lat sq_doorbells 1.000" "$got"
got=$(
	. "$here/bench/lib.sh"
	printf 'wqes 5\n' >"$out/c.after"
	per_message 2 ours lat "$out/c.after" "$out/c.after" | wc -l
)
expect "per_message: nothing when no WQE ran" "0" "$got"

cat >>"$res" <<'EOF2'
counter 1 intree lat sq_doorbells 1.000
counter 2 intree lat sq_doorbells 3.000
counter 1 ours lat sq_doorbells 2.000
counter 1 ours lat cpu_sys_us 12.5
EOF2
sh "$here/bench/report" json "$res" >"$json"
got=$(python3 - "$json" <<'EOF2'
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tests"]}
print(t["lat"]["intree"]["per_message"], t["lat"]["ours"]["per_message"], "per_message" in t["bw"]["ours"])
EOF2
)
expect "JSON: the counters' medians per stack beside the figures, none where none ran" \
	"{'sq_doorbells': 2} {'sq_doorbells': 2, 'cpu_sys_us': 12.5} False" "$got"

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
