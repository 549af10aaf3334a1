#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Traffic between two emulated HCAs (mlx5_0 <-> mlx5_1) in one guest, driven
# by the unmodified rdma-core tools on our mlx5_ib: ibv_rc_pingpong (polling
# and completion events), ibv_uc_pingpong, ibv_ud_pingpong,
# ibv_srq_pingpong, ibv_xsrq_pingpong (XRC), and short perftest runs. Each
# runs a server on mlx5_0 in the background, waits for its TCP port, then a
# client on mlx5_1 to
# localhost (127.0.0.1: the guest resolves no host names).
#
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
# TCG is slow: few iterations, generous timeouts.
ITERS=${MLX5_PINGPONG_ITERS:-50}
RDMA_PAIR_TIMEOUT=${MLX5_PINGPONG_TIMEOUT:-120}

t_load()
{
	ip link set lo up 2>/dev/null
	mlx5_load ours
}

clear_traces()
{
	if have_emu; then
		emu_ctl hca 0 trace-clear >/dev/null
		emu_ctl hca 1 trace-clear >/dev/null
	fi
}

# pingpong NAME TOOL ARGS...: server on mlx5_0, client on mlx5_1; both
# print their "bytes in ... seconds" summary.
pingpong()
{
	name=$1
	shift
	clear_traces
	rdma_pair "ib_$name" "$@" -i 1 -n "$ITERS" || return 1
	grep -q "bytes in" "$out/ib_$name.client" && grep -q "bytes in" "$out/ib_$name.server"
}

# perf NAME TOOL ARGS...: a short perftest run, server on mlx5_0; the
# client prints its numeric result row, as in upstream_traffic_test.sh. -F:
# the emulated guest's clock fails perftest's CPU-frequency estimate.
perf()
{
	name=$1
	shift
	clear_traces
	rdma_pair "ib_$name" "$@" -i 1 -n "$ITERS" -F || return 1
	perf_result "$out/ib_$name.client"
}

t_rc() { pingpong rc ibv_rc_pingpong -c; }
t_rc_new_api() { pingpong rc_new_api ibv_rc_pingpong -c -N; }
t_rc_events() { pingpong rc_events ibv_rc_pingpong -c -e; }
t_rc_grh() { pingpong rc_grh ibv_rc_pingpong -g 0 -s 1024; }
t_rc_big() { pingpong rc_big ibv_rc_pingpong -s 65536 -m 4096; }
t_uc() { pingpong uc ibv_uc_pingpong -c; }
t_ud() { pingpong ud ibv_ud_pingpong -s 1024; }
t_ud_events() { pingpong ud_events ibv_ud_pingpong -s 1024 -e; }
t_srq() { pingpong srq ibv_srq_pingpong -c -q 4; }
t_srq_events() { pingpong srq_events ibv_srq_pingpong -q 4 -e; }
# XRC as upstream_traffic_test.sh runs it on the in-tree pair: a domain, an
# XRC SRQ and a target QP per side, initiators sending into the peer's SRQ.
# The tool prints no summary: its exit status is the result.
t_xsrq() { clear_traces; rdma_pair ib_xsrq ibv_xsrq_pingpong -n "$ITERS" -s 4096 -m 4096; }
t_xsrq_events() { clear_traces; rdma_pair ib_xsrq_events ibv_xsrq_pingpong -n "$ITERS" -e; }

t_write_bw() { perf write_bw ib_write_bw -s 65536; }
t_read_bw() { perf read_bw ib_read_bw -s 4096; }
t_read_bw_events() { perf read_bw_events ib_read_bw -s 4096 -e; }
t_send_bw() { perf send_bw ib_send_bw -s 4096; }
t_send_bw_events() { perf send_bw_events ib_send_bw -s 4096 -e; }
t_atomic_bw() { perf atomic_bw ib_atomic_bw; }
t_atomic_bw_events() { perf atomic_bw_events ib_atomic_bw -e; }
t_write_lat() { perf write_lat ib_write_lat -s 8; }
t_send_lat() { perf send_lat ib_send_lat -s 8; }
# With -e perftest's latency loop re-arms the send CQ between the event and
# the poll of its CQE, with one send WR of room: a device that fired that
# arm again for the notified CQE stopped it at "Couldn't post send".
t_send_lat_events() { perf send_lat_events ib_send_lat -s 8 -e; }
# Not run with -e: ib_write_bw and ib_write_lat (perftest refuses events on
# WRITE).

# Completion events went through our CQ callback: the completion EQs fired.
t_comp_irqs()
{
	n=$(irq_count 'mlx5_comp')
	echo "completion interrupts: $n"
	[ "$n" -gt 0 ]
}

# Hot unplug: mlx5_ib goes away while a process holds a context with a PD,
# MR, CQs, a QP and UAR mappings (a pingpong server waiting for its peer)
# and another waits for async events: the objects are destroyed under the
# processes, which see IBV_EVENT_DEVICE_FATAL; then the driver comes back.
t_unplug()
{
	need_tool ibv_asyncwatch ibv_rc_pingpong || return 1
	rdma_port=$((rdma_port + 1))
	port=$rdma_port
	ibv_asyncwatch -d mlx5_0 >"$out/ib_unplug_events.txt" 2>&1 &
	apid=$!
	ibv_rc_pingpong -d mlx5_0 -p "$port" >"$out/ib_unplug_server.txt" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || { kill $apid $spid; cat "$out/ib_unplug_server.txt"; return 1; }
	grep -c uverbs /proc/$spid/maps | sed 's/^/UAR and verbs mappings of the server: /'
	timeout 120 rmmod mlx5_ib
	rc=$?
	echo "rmmod mlx5_ib: $rc"
	wait_for 20 grep -q DEVICE_FATAL "$out/ib_unplug_events.txt" || rc=1
	kill $apid $spid 2>/dev/null
	wait $apid $spid
	cat "$out/ib_unplug_events.txt"
	[ "$rc" -eq 0 ] || return 1
	insmod "$ib_ko" && wait_for 20 test -e /sys/class/infiniband/mlx5_1
}

# Since the emulator started (with the earlier programs' drivers too), and
# after the unload: while mlx5_ib is registered, ib_core's MAD layer keeps a
# PD, an MKey, a CQ and QP0/QP1 on each device.
t_no_leak()
{
	have_emu || return $KSFT_SKIP
	emu_obj_leaks "" 0 1
}

t_unload() { mlx5_unload ours; }

# In make check's other-kernel lanes (MLX5_LANE=1) every QP type, SRQ, XRC,
# GRH, completion events, RDMA WRITE, READ and atomics, the interrupts, the
# disassociating rmmod and the leak count run once; left out are the
# variants that differ from those only in user space (the new post-send
# API, message sizes, perftest's SEND and latency loops) or that repeat
# the completion-event path on another QP type or tool.
ktap_lane_plan 27 15
ktap_case "insmod mlx5_core mlx5_ib" t_load
ktap_case "ibv_rc_pingpong (polling)" t_rc
ktap_main_case "ibv_rc_pingpong -N (new post-send API)" t_rc_new_api
ktap_case "ibv_rc_pingpong -e (completion events)" t_rc_events
ktap_case "ibv_rc_pingpong -g 0 (GRH)" t_rc_grh
ktap_main_case "ibv_rc_pingpong 64 KiB messages" t_rc_big
ktap_case "ibv_uc_pingpong" t_uc
ktap_case "ibv_ud_pingpong" t_ud
ktap_main_case "ibv_ud_pingpong -e" t_ud_events
ktap_case "ibv_srq_pingpong (4 QPs, one SRQ)" t_srq
ktap_main_case "ibv_srq_pingpong -e" t_srq_events
ktap_case "ibv_xsrq_pingpong (XRC)" t_xsrq
ktap_main_case "ibv_xsrq_pingpong -e (XRC, completion events)" t_xsrq_events
ktap_case "perftest ib_write_bw 64 KiB" t_write_bw
ktap_case "perftest ib_read_bw 4 KiB" t_read_bw
ktap_main_case "perftest ib_read_bw -e" t_read_bw_events
ktap_main_case "perftest ib_send_bw 4 KiB" t_send_bw
ktap_main_case "perftest ib_send_bw -e" t_send_bw_events
ktap_case "perftest ib_atomic_bw" t_atomic_bw
ktap_main_case "perftest ib_atomic_bw -e" t_atomic_bw_events
ktap_main_case "perftest ib_write_lat 8 B" t_write_lat
ktap_main_case "perftest ib_send_lat 8 B (inline)" t_send_lat
ktap_main_case "perftest ib_send_lat -e" t_send_lat_events
ktap_case "completion interrupts delivered" t_comp_irqs
ktap_case "rmmod mlx5_ib under live contexts (disassociate)" t_unplug
ktap_case "rmmod mlx5_ib mlx5_core" t_unload
ktap_case "every PD, MKey, CQ, QP, SRQ, XRCD, XRC SRQ destroyed" t_no_leak
ktap_end
