#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probe/remove cycles of our driver pair with a user process on the device
# (make check-long; MLX5_CYCLES, default 1000). Each cycle loads both
# modules, starts an ibv_rc_pingpong server on mlx5_0 (it holds a context,
# a PD, an MR, a CQ and a QP while it waits for a client), removes
# mlx5_ib under it (the context is disassociated; the server is ended
# afterwards), then mlx5_core. In every cycle each HCA holds, while the
# server waits, as many firmware pages as in the first cycle, and none after
# the unload; after the last, every PD, MKey, CQ, QP and SRQ the firmware
# created was destroyed, the kernel's slab and the emulator's memory grew,
# and MemAvailable shrank, less than a bound (MLX5_CYCLES_SLAB_KIB, default
# 4096 KiB, MLX5_CYCLES_RSS_KIB, default 65536 KiB, MLX5_CYCLES_MEM_KIB,
# default 16384 KiB, over the run, measured from the end of the first
# cycle); every MLX5_CYCLES_EVERY (100) cycles the figures are printed. The
# emulator's memory is its anonymous RSS (process_anon_kib): its RSS
# (process_rss_kib, printed too) also counts the guest RAM it has touched
# (a shared mapping), which grows with every new page the guest hands it,
# up to the guest's RAM, whatever the emulator holds. The result is one
# line "cycles: ..." that scripts/check-long keeps.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

CYCLES=${MLX5_CYCLES:-1000}
# The pair cycled: ours, or in-tree to tell a kernel's own growth from ours.
DRIVER=${MLX5_CYCLES_DRIVER:-ours}
SLAB_BOUND=${MLX5_CYCLES_SLAB_KIB:-4096}
RSS_BOUND=${MLX5_CYCLES_RSS_KIB:-65536}
MEM_BOUND=${MLX5_CYCLES_MEM_KIB:-16384}
EVERY=${MLX5_CYCLES_EVERY:-100}
port=20015

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"

slab_kib() { awk '$1 == "Slab:" { print $2 }' /proc/meminfo; }
sunreclaim_kib() { awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo; }
# slab_snapshot FILE: /proc/slabinfo once the reclaimable caches (dentries,
# inodes) are dropped: what is left is held.
slab_snapshot() { sync; echo 3 >/proc/sys/vm/drop_caches; cat /proc/slabinfo >"$1"; }
# task_names: one line per task (kernel threads too): its state and name.
task_names() { for _t in /proc/[0-9]*/task/[0-9]*; do awk '{ print $3, $2 }' "$_t/stat" 2>/dev/null; done | sort; }
# task_growth A B: the names whose count of tasks grew from list A to B.
task_growth()
{
	awk 'FNR == 1 { f++ } { if (f == 1) a[$0]++; else b[$0]++ }
	     END { for (n in b) if (b[n] > a[n]) printf "%s x%d, ", n, b[n] - a[n] }' "$1" "$2" | sed 's/, $//'
}
# slab_growth A B: the caches that grew most from snapshot A to B (KiB of
# their active objects).
slab_growth()
{
	awk 'FNR == 1 { f++ } $1 ~ /^#|^slabinfo/ { next }
	     { kib = $2 * $4 / 1024; if (f == 1) a[$1] = kib; else d[$1] = kib - a[$1] }
	     END { for (n in d) if (d[n] >= 1) printf "%s %.0f\n", n, d[n] }' "$1" "$2" |
		sort -k2 -n -r | head -n 8 | awk '{ printf "%s%s +%s KiB", s, $1, $2; s = ", " } END { print "" }'
}
memavail_kib() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }
# "ANON RSS": the emulator's anonymous and whole RSS, KiB.
emu_mem_kib()
{
	emu_ctl hca 0 stats | awk '$1 == "process_anon_kib" { a = $2 } $1 == "process_rss_kib" { r = $2 }
		END { print a, r }'
}

# Where a cycle's time goes: phase NAME adds the time since the previous
# phase ended to ph_NAME (hundredths of a second, summed over the cycles
# after the first). Builtins only: under TCG every program started costs
# 0.1-0.5 s, so a cycle starts as few as it can (insmod and rmmod of each
# module, the server, timeout).
PHASES="load server pages rmmod_ib kill rmmod_core pages_after"
for _p in $PHASES; do eval "ph_$_p=0"; done
phase()
{
	read -r _up _idle </proc/uptime
	_ktap_cs "$_up"
	eval "ph_$1=\$((ph_$1 + _ktap_cs - ph_at))"
	ph_at=$_ktap_cs
}
phase_start() { read -r _up _idle </proc/uptime; _ktap_cs "$_up"; ph_at=$_ktap_cs; }

# phases_line CYCLES: the mean time of each phase per cycle.
phases_line()
{
	_l="" _sum=0
	for _p in $PHASES; do
		eval "_v=\$ph_$_p"
		_sum=$((_sum + _v))
		_m=$((_v * 10 / $1))
		_l="$_l $_p $((_m / 1000)).$((_m / 100 % 10))$((_m / 10 % 10))$((_m % 10)) s,"
	done
	_m=$((_sum * 10 / $1))
	echo "phases per cycle:${_l%,}; sum $((_m / 1000)).$((_m / 100 % 10))$((_m / 10 % 10))$((_m % 10)) s"
}

# The scratch files of a cycle stay in the guest's tmpfs (printed on failure).
scratch=$(mktemp -d)

# cycle: one load, user process, removal; 0 when clean.
cycle()
{
	phase_start
	mlx5_load "$DRIVER" || return 1
	phase load
	port=$((port + 1))
	ibv_rc_pingpong -d mlx5_0 -p "$port" >"$scratch/server" 2>&1 &
	_spid=$!
	# Listening: the server created its objects (it does before listening).
	wait_listen "$port" "$_spid" || { cat "$scratch/server"; kill -9 "$_spid"; return 1; }
	phase server
	# Firmware pages of HCA 0 and 1 while loaded, the same in every cycle.
	loaded_pages="$(emu_pages_outstanding 0)/$(emu_pages_outstanding 1)"
	if [ -n "$pages_first" ] && [ "$loaded_pages" != "$pages_first" ]; then
		echo "firmware pages while loaded: $loaded_pages (first cycle: $pages_first)"
		kill -9 "$_spid"; return 1
	fi
	phase pages
	timeout 120 rmmod mlx5_ib || { echo "rmmod mlx5_ib with a user context failed"; kill -9 "$_spid"; return 1; }
	phase rmmod_ib
	kill -9 "$_spid" 2>/dev/null
	wait "$_spid" 2>/dev/null
	phase kill
	timeout 120 rmmod mlx5_core || { echo "rmmod mlx5_core failed"; return 1; }
	phase rmmod_core
	for _h in 0 1; do
		_p=$(emu_pages_outstanding $_h)
		[ "$_p" = 0 ] || { echo "hca $_h holds $_p firmware pages after the unload"; return 1; }
	done
	phase pages_after
}

t_cycles()
{
	need_tool ibv_rc_pingpong || return 1
	ip link set lo up 2>/dev/null
	mlx5_loaded && { echo "an mlx5 driver is already loaded"; return 1; }
	snap=$(emu_obj_snapshot 0 1)
	pages_first=""
	cycle || { echo "cycle 1 failed"; return 1; }
	pages_first=$loaded_pages
	for _p in $PHASES; do eval "ph_$_p=0"; done
	slab_snapshot "$out/cycles.slab0"
	task_names >"$out/cycles.tasks0"
	slab0=$(slab_kib) unrec0=$(sunreclaim_kib) mem0=$(memavail_kib) t0=$(ktap_now)
	set -- $(emu_mem_kib)
	anon0=$1 rss0=$2
	echo "cycle 1: slab $slab0 KiB, MemAvailable $mem0 KiB, firmware pages while loaded $pages_first (hca 0/1)," \
	     "emulator anonymous $anon0 KiB, RSS $rss0 KiB"
	i=1
	while [ "$i" -lt "$CYCLES" ]; do
		i=$((i + 1))
		cycle >"$scratch/cycle" 2>&1 || { cat "$scratch/cycle"; echo "cycle $i failed"; return 1; }
		[ $((i % EVERY)) -ne 0 ] ||
			echo "cycle $i: slab $(slab_kib) KiB, MemAvailable $(memavail_kib) KiB, firmware pages while" \
			     "loaded $loaded_pages, emulator anonymous/RSS $(emu_mem_kib | sed 's# #/#') KiB"
	done
	slab_snapshot "$out/cycles.slab1"
	slab1=$(slab_kib) unrec1=$(sunreclaim_kib) mem1=$(memavail_kib)
	echo "slab caches that grew most: $(slab_growth "$out/cycles.slab0" "$out/cycles.slab1")"
	task_names >"$out/cycles.tasks1"
	echo "tasks $(wc -l <"$out/cycles.tasks0") -> $(wc -l <"$out/cycles.tasks1"); new: $(task_growth "$out/cycles.tasks0" "$out/cycles.tasks1")"
	set -- $(emu_mem_kib)
	anon1=$1 rss1=$2
	secs=$(echo "$(ktap_now) $t0" | awk '{ printf "%d", $1 - $2 }')
	emu_obj_leaks "$snap" 0 1 >"$out/cycles.leaks"
	leaks=$?
	cat "$out/cycles.leaks"
	echo "cycles: $CYCLES probe/remove cycles with a user CQ and QP, $secs s after the first;" \
	     "slab $slab0 -> $slab1 KiB (unreclaimable $unrec0 -> $unrec1 KiB, reclaimable caches dropped), MemAvailable $mem0 -> $mem1 KiB, emulator anonymous $anon0 -> $anon1 KiB (RSS $rss0 -> $rss1 KiB)," \
	     "firmware pages $pages_first (hca 0/1) while loaded and 0 after each"
	[ "$CYCLES" -lt 2 ] || phases_line $((CYCLES - 1))
	[ "$leaks" -eq 0 ] || { echo "firmware objects left"; return 1; }
	[ $((slab1 - slab0)) -le "$SLAB_BOUND" ] ||
		{ echo "slab grew $((slab1 - slab0)) KiB (bound $SLAB_BOUND)"; return 1; }
	[ $((mem0 - mem1)) -le "$MEM_BOUND" ] ||
		{ echo "MemAvailable shrank $((mem0 - mem1)) KiB (bound $MEM_BOUND)"; return 1; }
	[ $((anon1 - anon0)) -le "$RSS_BOUND" ] ||
		{ echo "the emulator's anonymous memory grew $((anon1 - anon0)) KiB (bound $RSS_BOUND)"; return 1; }
}

ktap_begin 1
ktap_case "$CYCLES probe/remove cycles ($DRIVER), a user process holding a CQ and a QP in each" t_cycles
ktap_end
