#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Emulator resource bounds under guest load that once grew its memory
# without limit:
#  - an RC QP aimed at a LID no port has, with no retransmission timer,
#    and RDMA WRITEs whose every SGE (up to the device's max_sge) is the
#    same 16 MiB region, posted again and again (about 1 GiB per WR);
#  - SENDs of 4 aliased 16 MiB SGEs between two connected QPs (64 MiB
#    messages that do arrive).
# The emulator's anonymous RSS (`hca 0 stats` process_anon_kib: its
# resident set without the shared guest RAM) stays within RSS_BOUND_KIB
# (32 MiB) of what it was before, sampled every half second; the fabric
# never queues more than its per-port cap.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
abuse=$bindir/doorbell_abuse
RSS_BOUND_KIB=$((32 * 1024))
LOAD_S=${MLX5_BOUNDS_LOAD_S:-20}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"

anon_kib() { emu_ctl hca 0 stats | awk '$1 == "process_anon_kib" { print $2 }'; }
link_stat() { emu_ctl link stats | awk -v k="$1" '$1 == k { print $2 }'; }

# watch PID: sample the emulator's anonymous RSS every half second until
# PID exits (or is a zombie: this shell reaps it later); the largest
# sample in $max.
watch_rss()
{
	max=0
	while [ -d /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; do
		a=$(anon_kib)
		[ "${a:-0}" -gt "$max" ] && max=$a
		sleep 0.5
	done
	a=$(anon_kib)
	[ "${a:-0}" -gt "$max" ] && max=$a
}

# within NAME MAX: MAX is within the bound of the baseline.
within()
{
	echo "$1: emulator anonymous RSS peaked at $2 KiB (baseline $base KiB, bound +$RSS_BOUND_KIB KiB)"
	[ "$2" -le $((base + RSS_BOUND_KIB)) ]
}

t_load()
{
	[ -x "$abuse" ] || { echo "$abuse not built (make selftests)"; return 1; }
	mlx5_load ours || return 1
	wait_for 30 mlx5_ports_active || { echo "ports not ACTIVE"; return 1; }
	base=$(anon_kib)
	echo "emulator anonymous RSS before: $base KiB"
	[ -n "$base" ] && [ "$base" -gt 0 ]
}

t_unreachable()
{
	nr0=$(link_stat no_route)
	"$abuse" aliased mlx5_0 "$LOAD_S" >"$out/bounds_aliased.txt" 2>&1 &
	pid=$!
	watch_rss $pid
	wait $pid || { cat "$out/bounds_aliased.txt"; return 1; }
	cat "$out/bounds_aliased.txt"
	nr=$(( $(link_stat no_route) - nr0 ))
	echo "packets dropped for no route: $nr; link queue peak $(link_stat queued_max) (cap $(link_stat link_queue_cap))"
	grep -q '^posted [1-9]' "$out/bounds_aliased.txt" && [ "$nr" -gt 0 ] || return 1
	within "unreachable LID" "$max"
}

t_loopback()
{
	"$abuse" loopback mlx5_0 mlx5_1 4 >"$out/bounds_loopback.txt" 2>&1 &
	pid=$!
	watch_rss $pid
	wait $pid || { cat "$out/bounds_loopback.txt"; return 1; }
	cat "$out/bounds_loopback.txt"
	echo "link queue peak $(link_stat queued_max), dropped_full $(link_stat dropped_full)"
	grep -q '^sent 4 bytes 268435456$' "$out/bounds_loopback.txt" || return 1
	within "aliased loopback" "$max"
}

t_unload()
{
	mlx5_unload ours || return 1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || return 1
	done
	a=$(anon_kib)
	echo "emulator anonymous RSS after: $a KiB"
	[ "$a" -le $((base + RSS_BOUND_KIB)) ]
}

ktap_begin 4
ktap_case "load our mlx5_core + mlx5_ib; emulator RSS baseline" t_load
ktap_case "aliased 16 MiB SGEs at an unreachable LID, no retry timer: RSS bounded" t_unreachable
ktap_case "64 MiB aliased-SGE SENDs between two QPs arrive, RSS bounded" t_loopback
ktap_case "unload, every firmware page returned, RSS bounded" t_unload
ktap_end
