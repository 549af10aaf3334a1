#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `scripts/bench/run perf` (a benchmark, not a test): the same
# perftest runs and control-path rates, in one boot, on
#   in-tree  the guest kernel's mlx5_core + mlx5_ib on two emulated HCAs,
#   ours     our mlx5_core + mlx5_ib on the same emulated HCAs,
#   rxe      rdma_rxe over a veth pair split across two network namespaces,
# interleaved: REPS rounds of in-tree, ours, rxe, so that a slow phase of
# the host spreads over all three instead of biasing one.
# Prints one line per measurement, "result REP STACK NAME VALUE UNIT", for
# the mlx5 pairs the emulator's counters per message ("counter ...": lib.sh
# per_message), and a table of medians (scripts/bench/report makes the JSON and the chart).
# Usage: perf.sh ITERATIONS REPS VERBS_RATE_BINARY (how ITERATIONS counts:
# span() in lib.sh; the control-path rates run ITERATIONS times)
set -u
N=${1:-300}
REPS=${2:-1}
rate_bin=${3:-}
top=${MLX5_SRC:-$(pwd)}
out=${MLX5_OUT:-/tmp}

. "$top/scripts/lib/emu-ctl.sh"
. "$top/scripts/bench/lib.sh"

TESTS="write_bw_64k bw ib_write_bw -s 65536
write_bw_8 bw ib_write_bw -s 8
read_bw_64k bw ib_read_bw -s 65536
send_bw_64k bw ib_send_bw -s 65536
atomic_bw bw ib_atomic_bw
write_lat_8 lat ib_write_lat -s 8
send_lat_8 lat ib_send_lat -s 8
read_lat_8 lat ib_read_lat -s 8
write_bw_1m bw ib_write_bw -s 1048576
write_bw_64k_bidir bw ib_write_bw -s 65536 -b
write_bw_64k_8qp bw ib_write_bw -s 65536 -q 8
write_bw_8_postlist8 bw ib_write_bw -s 8 -l 8
write_bw_8_cqmod16 bw ib_write_bw -s 8 -Q 16
atomic_lat lat ib_atomic_lat
send_lat_8_ud lat ib_send_lat -c UD -s 8
send_bw_64k_events bwn ib_send_bw -s 65536 -e
send_lat_8_events lat ib_send_lat -s 8 -e
rc_pingpong_4k pp ibv_rc_pingpong -s 4096"

# measure_all STACK REP: every test on STACK (intree, ours or rxe); prints
# "result REP STACK NAME VALUE UNIT" lines.
measure_all()
{
	stack=$1 rep=$2
	echo "$TESTS" | while read -r name kind tool args; do
		wanted "$name" || continue
		f=$out/bench.$name.$stack.$rep
		if [ "$stack" = rxe ]; then
			gid="-x $RXE_GID"
			[ "$tool" = ibv_rc_pingpong ] && gid="-g $RXE_GID"
			run "ip netns exec bench1" rxe1 rxe0 10.0.0.2 "$gid" $tool $args $(span "$kind" "$stack") >"$f" 2>&1
		else
			F=-F
			[ "$tool" = ibv_rc_pingpong ] && F=""
			emu_counts >"$f.before"
			run "" mlx5_0 mlx5_1 127.0.0.1 "$F" $tool $args $(span "$kind" "$stack") >"$f" 2>&1
			emu_counts >"$f.after"
			per_message "$rep" "$stack" "$name" "$f.before" "$f.after"
		fi
		case $kind in
		bw | bwn) v="$(col "$f" 4) MiB/s" ;;
		lat) v="$(col "$f" 5) us" ;;
		pp) v="$(awk '/usec\/iter/ { print $(NF - 1) }' "$f" | tail -n1) us/iter" ;;
		esac
		# A bandwidth of 0.00 over a non-zero number of iterations is
		# perftest's own clock, not the device: with -D, a sampling window
		# that never opened (its duration alarm late on a loaded TCG
		# guest; seen 2026-12-07, 110156 READs of 64 KiB, "0.00" on both
		# ends). Not a sample; logged.
		case $kind in bw | bwn)
			case $v in 0.00\ * | 0\ *)
				if [ "$(col "$f" 2)" -gt 0 ] 2>/dev/null; then
					log "$stack $name: 0.00 MiB/s over $(col "$f" 2) iterations (perftest's clock): not a sample (rep $rep)"
					continue
				fi ;;
			esac ;;
		esac
		case $v in [0-9]*) echo "result $rep $stack $name $v" ;; *) log "$stack $name failed (rep $rep)"; tail -n 3 "$f" >&2 ;; esac
		# A sample of zero (nothing completed in the measured time) is
		# kept, and what both ends printed goes to the log beside it.
		case $v in 0.00\ * | 0\ *)
			log "$stack $name read zero (rep $rep): client, then server"
			tail -n 12 "$f" >&2
			tail -n 12 "$out/bench.server" >&2 ;;
		esac
	done
	if [ "$stack" != rxe ] && [ -x "$rate_bin" ]; then
		"$rate_bin" mlx5_0 "$N" | awk -v r="$rep" -v s="$stack" '{ print "result", r, s, $1, $2, "/s" }' |
			while read -r line; do
				set -- $line
				! wanted "$4" || echo "$line"
			done
	fi
}

rounds measure_all "wait_dev mlx5_1" true
