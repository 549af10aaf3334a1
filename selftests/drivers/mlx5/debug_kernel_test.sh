#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's checkers after the other programs (make check-debug
# runs it last, on the kernel of scripts/debug-kernel). Each checker turns
# itself off for good after its first report or when its own memory runs
# out, which would leave the rest of a run unchecked and green: lockdep
# (debug_locks), the DMA-API checker (its error count too: it warns only
# about the first error), DEBUG_OBJECTS and kmemleak must still be on.
# Then kmemleak: a scan, and every unreferenced
# object whose allocation backtrace runs through an mlx5 module - ours or
# the in-tree one, mlx5_core, mlx5_ib or the kverbs self-test - fails. An
# unloaded module's frames print as bare addresses: lib.sh's mlx5_load
# notes the text range of each mlx5 module it loads (mlx5_modmap_note), and
# a bare address inside one of them counts as that module. Other leaks are
# listed, not failed (the rest of the kernel is not ours to judge here).
# Skips on a kernel without kmemleak (not a debug kernel).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

km=/sys/kernel/debug/kmemleak
out=${MLX5_OUT:-/tmp}
[ -e "$km" ] || ktap_skip_all "no $km: a kernel without CONFIG_DEBUG_KMEMLEAK"

t_lockdep()
{
	grep -E 'debug_locks|lock-classes|direct dependencies|dependency chains' /proc/lockdep_stats ||
		{ echo "no /proc/lockdep_stats: a kernel without PROVE_LOCKING"; return 1; }
	awk -F: '/lock-classes|direct dependencies|dependency chains/ {
		gsub(/ +/, " "); split($2, v, " "); printf "%s%s%s", (n++ ? ", " : "lockdep: "), v[1], $1 }
		END { print "" }' /proc/lockdep_stats
	grep -qE '^ *debug_locks: +1$' /proc/lockdep_stats
}

t_dma_api()
{
	d=/sys/kernel/debug/dma-api
	[ -d "$d" ] || { echo "no $d: a kernel without DMA_API_DEBUG"; return 1; }
	echo "dma-api: $(cat "$d/error_count") errors, $(cat "$d/nr_total_entries") entries," \
	     "$(cat "$d/min_free_entries") free at least, disabled $(cat "$d/disabled")"
	[ "$(cat "$d/disabled")" = N ] && [ "$(cat "$d/error_count")" -eq 0 ]
}

t_debug_objects()
{
	[ -e /sys/kernel/debug/debug_objects/stats ] ||
		{ echo "no debug_objects: a kernel without DEBUG_OBJECTS"; return 1; }
	st=/sys/kernel/debug/debug_objects/stats
	head -n 8 "$st"
	! dmesg | grep 'ODEBUG disabled' || return 1
	# Only the first five problems print a warning; all are counted.
	[ "$(sed -n 's/^warnings *: *//p' "$st")" = 0 ]
}

t_kmemleak_active()
{
	# A kmemleak that ran out of its metadata pool or met an error turns
	# itself off: reading then fails with EBUSY.
	cat "$km" >/dev/null || { dmesg | grep -i kmemleak | tail -n 5; return 1; }
	dmesg | grep -i 'kmemleak.*disabled' && return 1
	return 0
}

# The report classified: one line per leak, "mlx5 MODULE", "other" or
# "unattributed" (a bare module address outside every noted range), then the
# mlx5 reports in full in $out/kmemleak-mlx5.txt.
classify()
{
	awk -v map="$MLX5_MODMAP" -v full="$out/kmemleak-mlx5.txt" '
	function hex(s,  i, n) {
		s = tolower(s); sub(/^0x/, "", s); s = substr(s, length(s) - 7)
		n = 0
		for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	BEGIN {
		while ((getline l <map) > 0) {
			split(l, f, " ")
			nm++; mod[nm] = f[1]; lo[nm] = hex(f[2]); hi[nm] = hex(f[3]) + 65536
		}
	}
	function flush(  i) {
		if (rec == "") return
		print cls
		if (cls ~ /^mlx5/) printf "%s", rec >full
		rec = ""
	}
	/^unreferenced object/ { flush(); rec = $0 "\n"; cls = "other"; next }
	rec == "" { next }
	{ rec = rec $0 "\n" }
	/\[mlx5_[a-z_]+\]/ && cls !~ /^mlx5/ {
		match($0, /\[mlx5_[a-z_]+\]/); cls = "mlx5 " substr($0, RSTART + 1, RLENGTH - 2); next
	}
	/^    0xffffffff[0-9a-f]+$/ && cls !~ /^mlx5/ {
		a = hex($1)
		for (i = 1; i <= nm; i++) if (a >= lo[i] && a <= hi[i]) { cls = "mlx5 " mod[i] " (unloaded)"; break }
		if (i > nm && cls == "other") cls = "unattributed"
	}
	END { flush() }' "$out/kmemleak.txt"
}

t_scan()
{
	# Objects younger than 5 s are not reported yet: the programs before
	# this one ended longer ago than that. Two scans: an object that the
	# first one saw referenced by a stale pointer on a stack is judged
	# again by the second.
	echo scan >"$km" || return 1
	echo scan >"$km" || return 1
	cat "$km" >"$out/kmemleak.txt" || return 1
	: >"$out/kmemleak-mlx5.txt"
	classify >"$out/kmemleak-class.txt"
	n=$(wc -l <"$out/kmemleak-class.txt")
	echo "kmemleak: $n unreferenced object(s): $(grep -c '^mlx5' "$out/kmemleak-class.txt") from mlx5," \
	     "$(grep -c '^unattributed' "$out/kmemleak-class.txt") unattributed," \
	     "$(grep -c '^other' "$out/kmemleak-class.txt") from the rest of the kernel (report: $out/kmemleak.txt)"
	sort "$out/kmemleak-class.txt" | uniq -c
	if grep -q '^mlx5' "$out/kmemleak-class.txt"; then
		echo "leaks from mlx5 modules:"
		head -n 60 "$out/kmemleak-mlx5.txt"
		return 1
	fi
	return 0
}

ktap_begin 5
ktap_case "lockdep still on (debug_locks 1)" t_lockdep
ktap_case "DMA-API checking still on, no error counted" t_dma_api
ktap_case "DEBUG_OBJECTS still on, no warning counted" t_debug_objects
ktap_case "kmemleak still on" t_kmemleak_active
ktap_case "no unreferenced object allocated by an mlx5 module" t_scan
ktap_end
