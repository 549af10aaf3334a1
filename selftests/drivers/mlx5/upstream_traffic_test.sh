#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The data-path oracle for the emulator: the IN-TREE mlx5_core + mlx5_ib of
# the guest kernel and the unmodified rdma-core / perftest tools move data
# between two emulated HCAs (mlx5_0 <-> mlx5_1, linked by the emulator's
# fabric): ports ACTIVE with LIDs, ibv_rc_pingpong (polling and events),
# ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong, ibv_xsrq_pingpong
# (XRC: initiator QPs sending into XRC SRQs behind target QPs), perftest write/read/send/atomic
# bandwidth, write latency, send bandwidth and latency with completion
# events (-e), and RC traffic that survives a packet the
# fabric drops. Servers run on mlx5_0 in the background; the client on
# mlx5_1 starts once `ss -ltn` shows the server's TCP port.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
# Kernel log lines before this point belong to earlier tests of the suite
# (their fault injection logs failed commands on purpose).
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
# TCG is slow: small iteration counts, generous timeouts.
ITERS=${MLX5_TRAFFIC_ITERS:-20}
PERF_ITERS=${MLX5_PERF_ITERS:-100}
RDMA_PAIR_TIMEOUT=${MLX5_TRAFFIC_TIMEOUT:-180}

# pair NAME TOOL ARGS...: TOOL as server on mlx5_0 and client on mlx5_1.
pair() { _n=$1; shift; rdma_pair "up_$_n" "$@"; }

t_modprobe()
{
	ip link set lo up 2>/dev/null
	for h in 0 1; do emu_ctl hca $h trace-clear >/dev/null; done
	mlx5_load in-tree || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
}

t_devinfo()
{
	rc=0
	for d in mlx5_0 mlx5_1; do
		ibv_devinfo -v -d $d >"$out/up_devinfo_$d.txt" 2>&1 || { cat "$out/up_devinfo_$d.txt"; return 1; }
		state=$(awk '/state:/ { print $2; exit }' "$out/up_devinfo_$d.txt")
		lid=$(awk '/port_lid:/ { print $2; exit }' "$out/up_devinfo_$d.txt")
		echo "$d: state $state lid $lid"
		[ "$state" = PORT_ACTIVE ] && [ -n "$lid" ] && [ "$lid" != 0 ] || rc=1
	done
	return $rc
}

t_rc() { pair rc ibv_rc_pingpong -n "$ITERS" -c; }
t_rc_events() { pair rc_events ibv_rc_pingpong -n "$ITERS" -c -e; }
t_uc() { pair uc ibv_uc_pingpong -n "$ITERS" -c; }
t_ud() { pair ud ibv_ud_pingpong -n "$ITERS" -s 1024; }
t_srq() { pair srq ibv_srq_pingpong -n "$ITERS" -q 4; }
t_xsrq() { pair xsrq ibv_xsrq_pingpong -n "$ITERS" -s 4096 -m 4096; }
t_xsrq_events() { pair xsrq_events ibv_xsrq_pingpong -n "$ITERS" -e; }

# perf NAME TOOL ARGS...: one perftest pair; prints its result line.
perf()
{
	name=$1
	shift
	pair "$name" "$@" -n "$PERF_ITERS" || return 1
	perf_result "$out/up_$name.client"
}

t_write_bw() { perf write_bw ib_write_bw; }
t_read_bw() { perf read_bw ib_read_bw; }
t_send_bw() { perf send_bw ib_send_bw; }
t_atomic_bw() { perf atomic_bw ib_atomic_bw; }
t_write_lat() { perf write_lat ib_write_lat; }
t_send_bw_events() { perf send_bw_events ib_send_bw -e; }
t_send_lat_events() { perf send_lat_events ib_send_lat -s 8 -e; }

dropped() { emu_ctl link stats | awk '$1 == "dropped" { print $2 }'; }

# One packet of the RC flow is dropped; retransmission repairs it and the
# payload check (-c) still passes.
t_drop()
{
	before=$(dropped)
	emu_ctl link drop 1 || return 1
	pair rc_drop ibv_rc_pingpong -n "$ITERS" -c -s 16384 || return 1
	after=$(dropped)
	echo "fabric drops: $before -> $after"
	emu_ctl hca 0 qps | grep -E ' RC ' | head -n 4
	emu_ctl hca 1 qps | grep -E ' RC ' | head -n 4
	[ "$after" -gt "$before" ]
}

# Completion events reached the CQ handlers: the completion EQs fired.
t_comp_irqs()
{
	n=$(irq_count 'mlx5_comp')
	echo "completion interrupts: $n"
	[ "$n" -gt 0 ]
}

t_unload()
{
	mlx5_unload in-tree || return 1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || return 1
	done
	bad=$(dmesg | tail -n +$((dmesg_start + 1)) | grep -E 'mlx5_core [0-9a-f:.]+: .*(failed|error|err\()|infiniband mlx5_[0-9]+: .*(failed|error)' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# In make check's 7.2 baseline lane (MLX5_LANE=1) the in-tree pair of that
# kernel runs every QP type, SRQ, XRC, completion events, WRITE, READ and
# atomics once; XRC with events, perftest's SEND and latency loops and the
# dropped packet (the emulator's retransmission, whatever the kernel) are
# the main guest's.
ktap_lane_plan 19 13
ktap_case "modprobe mlx5_ib (in-tree) on two emulated HCAs" t_modprobe
ktap_case "ibv_devinfo -v: both ports ACTIVE with LIDs" t_devinfo
ktap_case "ibv_rc_pingpong mlx5_0 <-> mlx5_1" t_rc
ktap_case "ibv_rc_pingpong -e (completion events)" t_rc_events
ktap_case "ibv_uc_pingpong" t_uc
ktap_case "ibv_ud_pingpong" t_ud
ktap_case "ibv_srq_pingpong" t_srq
ktap_case "ibv_xsrq_pingpong (XRC)" t_xsrq
ktap_main_case "ibv_xsrq_pingpong -e (XRC, completion events)" t_xsrq_events
ktap_case "ib_write_bw" t_write_bw
ktap_case "ib_read_bw" t_read_bw
ktap_main_case "ib_send_bw" t_send_bw
ktap_case "ib_atomic_bw" t_atomic_bw
ktap_main_case "ib_write_lat" t_write_lat
ktap_main_case "ib_send_bw -e (completion events)" t_send_bw_events
ktap_main_case "ib_send_lat -e (completion events)" t_send_lat_events
ktap_main_case "RC traffic survives a dropped packet" t_drop
ktap_case "completion interrupts delivered" t_comp_irqs
ktap_case "rmmod: no error, every firmware page returned" t_unload
ktap_end
