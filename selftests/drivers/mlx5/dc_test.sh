#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DC (Dynamically Connected transport, issue 35) between two emulated HCAs
# (mlx5_0 <-> mlx5_1): perftest's -c DC (DCIs and DCTs through
# mlx5dv_create_qp, the DCT on an SRQ with an access key) for WRITE, SEND
# and READ bandwidth and READ latency, first on the in-tree mlx5_core +
# mlx5_ib, then on ours (ib/dc.c). Each result is the client's numeric row
# (every iteration completed), and no mlx5 command failed in the kernel
# log. A wrong DC key is the emulator's unit tests' (exec_dc_test): no tool
# here makes one; malformed DC requests are ib_udata_test's.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
PERF_ITERS=${MLX5_PERF_ITERS:-100}
RDMA_PAIR_TIMEOUT=${MLX5_TRAFFIC_TIMEOUT:-180}

# perf PAIR NAME TOOL ARGS...: one perftest pair over DC; its result row.
perf()
{
	_p=$1 _n=$2
	shift 2
	rdma_pair "dc_${_p}_$_n" "$@" -c DC -n "$PERF_ITERS" -F || return 1
	perf_result "$out/dc_${_p}_$_n.client"
}

load()
{
	ip link set lo up 2>/dev/null
	dmesg_start=$(ktap_dmesg_mark)
	mlx5_load "$1" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
}

# No failed mlx5 command, no mlx5_ib error since the pair was loaded.
unload()
{
	bad=$(dmesg | tail -n +$((dmesg_start + 1)) |
		grep -E 'mlx5_core [0-9a-f:.]+: .*(failed|error|err\()|infiniband mlx5_[0-9]+: .*(failed|error)' | head)
	mlx5_unload "$1" || return 1
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

ktap_begin 12
ktap_case "modprobe mlx5_ib (in-tree)" load in-tree
ktap_case "ib_write_bw -c DC (in-tree)" perf up write_bw ib_write_bw
ktap_case "ib_send_bw -c DC (in-tree)" perf up send_bw ib_send_bw
ktap_case "ib_read_bw -c DC (in-tree)" perf up read_bw ib_read_bw
ktap_case "ib_read_lat -c DC (in-tree)" perf up read_lat ib_read_lat
ktap_case "rmmod (in-tree): no mlx5 command failed" unload in-tree
ktap_case "modprobe mlx5_ib (ours)" load ours
ktap_case "ib_write_bw -c DC (ours)" perf ours write_bw ib_write_bw
ktap_case "ib_send_bw -c DC (ours)" perf ours send_bw ib_send_bw
ktap_case "ib_read_bw -c DC (ours)" perf ours read_bw ib_read_bw
ktap_case "ib_read_lat -c DC (ours)" perf ours read_lat ib_read_lat
ktap_case "rmmod (ours): no mlx5 command failed" unload ours
ktap_end
