#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `scripts/bench/run probe`: probe time of the in-tree
# mlx5_core and of ours on the same emulated functions, N rounds each,
# measured from module load to every function bound (the load is
# synchronous: probe runs inside insmod/modprobe). Prints medians and the ratio.
top=${MLX5_SRC:-$(pwd)}
rounds=${1:-5}
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

measure() { # measure LOAD-CMD UNLOAD-CMD
	for _ in $(seq "$rounds"); do
		t0=$(now_ms)
		sh -c "$1" || { echo "load failed: $1" >&2; return 1; }
		t1=$(now_ms)
		echo $((t1 - t0))
		sh -c "$2"
	done | median
}

modprobe ib_uverbs 2>/dev/null
intree=$(measure "modprobe mlx5_core" "rmmod mlx5_core")
ours=$(measure "insmod $top/core/mlx5_core.ko" "rmmod mlx5_core")
echo "probe time (2 functions, median of $rounds): in-tree ${intree} ms, ours ${ours} ms"
awk -v a="$ours" -v b="$intree" 'BEGIN { if (b > 0) printf "ratio ours/in-tree: %.2f\n", a / b }'
