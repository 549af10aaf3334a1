#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Destroy paths of our mlx5_ib when things go wrong: the firmware refuses
# DESTROY_QP, DESTROY_SRQ, DESTROY_CQ, DESTROY_MKEY or DEALLOC_PD while a
# process with such objects exits (emulator fail-cmd, once on each HCA, and
# DESTROY_CQ for good),
# completion, CQ error and QP events that arrive after their CQ or QP is gone
# (emulator delay-eqe),
# port events while mlx5_ib comes and goes, and processes exiting on a
# device in the internal-error state.
#
# What must hold: the processes exit; the kernel logs the refusal but no
# WARN, KFENCE or SLUB report (ktap.sh watches dmesg; run the guest with
# slub_debug/KFENCE for use-after-free); the refused objects are destroyed
# when mlx5_ib is removed, so the emulator counts as many successful
# destroys as creates; unloading returns every firmware page.
#
# A separate program rather than core_test.sh cases: it needs mlx5_ib, two
# HCAs and the rdma-core tools, and leaves the driver reloaded several times.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
port=18715
snap=""
# BAD_RES_STATE, with a syndrome that is easy to find in a trace.
FAIL_STATUS=0x9
FAIL_SYND=0xde57
TMO=${MLX5_PINGPONG_TIMEOUT:-120}

mark=0
since_mark() { dmesg | tail -n +$((mark + 1)); }

t_load()
{
	have_emu || { echo "no emulator control channel"; return 1; }
	need_tool ibv_rc_pingpong ibv_srq_pingpong || return 1
	ip link set lo up 2>/dev/null
	# The emulator's object counts before this program's processes.
	snap=$(emu_obj_snapshot 0 1)
	mlx5_load ours
}

# reload_ib: mlx5_ib again, after a test removed it.
reload_ib()
{
	insmod "$ib_ko" || return 1
	wait_for 30 sh -c "[ \$(ls /sys/class/infiniband | grep -c '^mlx5_') -ge $ndev ]"
}

# gone PID: the process has exited (and was reaped).
gone() { ! kill -0 "$1" 2>/dev/null; }
not_listening() { ! listening "$1"; }

# pair_killed TOOL ARGS...: start a server on mlx5_0 and a client on mlx5_1
# (each with a PD, an MR, CQs, QPs and, for ibv_srq_pingpong, an SRQ), let
# them exchange traffic for a moment, then SIGKILL both: ib_core destroys
# their objects as the processes exit.
pair_killed()
{
	tool=$1
	shift
	port=$((port + 1))
	"$tool" -d mlx5_0 -i 1 -p "$port" -n 1000000 "$@" >"$out/ib_destroy.server" 2>&1 &
	spid=$!
	if ! wait_listen "$port" "$spid"; then
		kill -9 "$spid" 2>/dev/null
		cat "$out/ib_destroy.server"
		echo "server never listened on $port"
		return 1
	fi
	"$tool" -d mlx5_1 -i 1 -p "$port" -n 1000000 "$@" 127.0.0.1 >"$out/ib_destroy.client" 2>&1 &
	cpid=$!
	# Connected: the server accepted the client and closed its listening
	# socket (the tools' output is buffered until they exit).
	wait_for 30 not_listening "$port"
	connected=$?
	# Let them exchange traffic and completion events for a moment.
	sleep 2
	alive=$(kill -0 "$spid" "$cpid" 2>&1)
	kill -9 "$spid" "$cpid" 2>/dev/null
	wait_for "$TMO" gone "$spid" && wait_for "$TMO" gone "$cpid" || {
		echo "a process did not exit within $TMO s"; return 1; }
	wait "$spid" "$cpid" 2>/dev/null
	[ "$connected" -eq 0 ] || { echo "the client never connected"; return 1; }
	[ -z "$alive" ] || {
		cat "$out/ib_destroy.server" "$out/ib_destroy.client"
		echo "a process had ended before it was killed: $alive"; return 1; }
}

# refused OPCODE KIND: OPCODE fails once on each HCA while the processes
# exit. (ib_core would retry a destroy that returned an error; the driver
# does not return one, so the refusal is seen by the driver alone.)
refused()
{
	mark=$(ktap_dmesg_mark)
	for h in 0 1; do
		emu_ctl hca $h fail-cmd "$1" $FAIL_STATUS $FAIL_SYND 1 >/dev/null || return 1
	done
	pair_killed ibv_srq_pingpong -q 2 -e
	rc=$?
	left=$(emu_ctl hca 0 faults; emu_ctl hca 1 faults)
	for h in 0 1; do emu_ctl hca $h clear-faults >/dev/null; done
	[ "$rc" -eq 0 ] || return 1
	n=$(since_mark | grep -c "firmware did not destroy $2 ")
	since_mark | grep "firmware did not destroy" | head -n 4
	echo "refused $2 destroys logged: $n"
	if echo "$left" | grep -q -i "$1"; then
		echo "the injected failure was not used:"; echo "$left"; return 1
	fi
	[ "$n" -eq 2 ]
}

t_qp() { refused DESTROY_QP QP; }
t_srq() { refused DESTROY_SRQ SRQ; }
t_cq() { refused DESTROY_CQ CQ; }
t_mkey() { refused DESTROY_MKEY MKey; }
t_pd() { refused DEALLOC_PD PD; }

# Completion EQEs written 10 s late reach the driver after their CQs were
# destroyed: they must find nothing (and say so), not a freed CQ. (10 s:
# the killed processes' exit and teardown must come first, and take
# seconds in a guest slowed by make check's load.)
t_late_eqes()
{
	mark=$(ktap_dmesg_mark)
	for h in 0 1; do emu_ctl hca $h delay-eqe comp 10000 >/dev/null || return 1; done
	pair_killed ibv_rc_pingpong -e
	rc=$?
	wait_for 40 sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'completion event for unknown CQ'"
	late=$?
	for h in 0 1; do emu_ctl hca $h delay-eqe comp 0 >/dev/null; done
	since_mark | grep 'unknown CQ' | head -n 2
	[ "$rc" -eq 0 ] || return 1
	[ "$late" -eq 0 ] || { echo "no completion EQE arrived after its CQ was destroyed"; return 1; }
}

# async_eqes: EQEs our driver consumed on HCA 0's async EQ.
async_eqes()
{
	awk '$1 == "async" { for (i = 1; i < NF; i++) if ($i == "eqes") print $(i + 1) }' \
		"/sys/kernel/debug/mlx5c/$(echo "$devs" | head -n 1)/eqs"
}

# Asynchronous events written 15 s late (the process's teardown comes
# first even in a guest slowed by load): ib_verbs_test's CQ overrun case
# (a CQ error event for its CQ, a fatal event for its QP) gives up waiting
# for them after 0.5 s and exits; the events reach the driver after the CQ
# and the QP were destroyed and must find nothing.
t_late_async()
{
	bin=$bindir/ib_verbs_test
	[ -x "$bin" ] || { echo "ib_verbs_test is not built"; return 1; }
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	mark=$(ktap_dmesg_mark)
	for t in 0x04 0x05; do
		emu_ctl hca 0 delay-eqe $t 15000 >/dev/null || return 1
	done
	e0=$(async_eqes)
	"$bin" -t 500 cq_overflow >"$out/ib_destroy_async.txt" 2>&1
	e1=$(async_eqes)
	wait_for 60 sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'CQ error on CQ'"
	late=$?
	e2=$(async_eqes)
	for t in 0x04 0x05; do emu_ctl hca 0 delay-eqe $t 0 >/dev/null; done
	since_mark | grep 'CQ error' | head -n 2
	echo "async EQEs: $e0 before, $e1 when the process had exited, $e2 after"
	[ "$e1" -eq "$e0" ] || { cat "$out/ib_destroy_async.txt"; echo "an event arrived before the exit"; return 1; }
	[ "$late" -eq 0 ] && [ "$e2" -gt "$e1" ] || {
		cat "$out/ib_destroy_async.txt"; echo "no event arrived after the exit"; return 1; }
}

# The device still works after all that.
t_traffic()
{
	rdma_pair ib_destroy_traffic ibv_rc_pingpong -i 1 -n 20 -e
}

# Removing mlx5_ib retries every refused destroy: afterwards the firmware
# has destroyed as many objects as it created.
t_orphans_released()
{
	mark=$(ktap_dmesg_mark)
	rmmod mlx5_ib || return 1
	n=$(since_mark | grep -c 'destroyed at removal')
	since_mark | grep -E 'at removal|still refuses' | head -n 12
	echo "objects destroyed at removal: $n"
	rc=0
	emu_obj_leaks "$snap" 0 1 || rc=1
	# Five refusals on each of two HCAs, and what the firmware refused
	# because a refused object still used it (an SRQ under a QP).
	[ "$n" -ge 10 ] || rc=1
	! since_mark | grep -q 'still refuses' || rc=1
	reload_ib || rc=1
	return $rc
}

# A firmware that keeps refusing: DESTROY_CQ fails for good on both HCAs.
# The exiting processes' CQs become orphans; removing mlx5_ib retries them,
# logs the refusal and releases their memory anyway (mlx5_core's teardown
# of the function then destroys them in the firmware).
t_refused_forever()
{
	mark=$(ktap_dmesg_mark)
	for h in 0 1; do
		emu_ctl hca $h fail-cmd DESTROY_CQ $FAIL_STATUS $FAIL_SYND forever >/dev/null || return 1
	done
	pair_killed ibv_rc_pingpong -e
	rc=$?
	n=$(since_mark | grep -c 'firmware did not destroy CQ ')
	echo "refused CQ destroys logged: $n"
	rmmod mlx5_ib || rc=1
	m=$(since_mark | grep -c 'firmware still refuses to destroy CQ ')
	echo "CQs still refused at removal: $m"
	for h in 0 1; do emu_ctl hca $h clear-faults >/dev/null; done
	reload_ib || rc=1
	# The processes' CQs, and at removal on each device the CQ ib_core's
	# MAD layer keeps and the CQ of the driver's UMR QP (ib/umr_qp.c).
	[ "$rc" -eq 0 ] && [ "$n" -eq 2 ] && [ "$m" -eq 6 ]
}

# Port-change events (GEN_EQE through mlx5_core's debugfs test_event, on
# HCA 0) keep arriving while mlx5_ib is removed and loaded again: mlx5_ib
# passes events to ib_core only while its ib_device is registered.
# $RELOADS cycles (MLX5_EVENT_RELOADS, default 4: each one takes the
# unregister and register paths under about 1500 events; ten cost the
# guest 95 s of TCG next to the other guests of make check).
RELOADS=${MLX5_EVENT_RELOADS:-4}
t_events_reload()
{
	dbg=/sys/kernel/debug/mlx5c/$(echo "$devs" | head -n 1)
	need_harness "$dbg" || return 1
	stop=$out/ib_destroy_events.stop
	rm -f "$stop"
	(n=0; while [ ! -e "$stop" ]; do
		echo 20 >"$dbg/test_event" 2>/dev/null && n=$((n + 20))
	done; echo "$n" >"$stop") &
	gpid=$!
	rc=0
	i=1
	while [ "$i" -le "$RELOADS" ]; do
		rmmod mlx5_ib || { echo "rmmod mlx5_ib failed in cycle $i"; rc=1; break; }
		reload_ib || { echo "mlx5_ib did not come back in cycle $i"; rc=1; break; }
		i=$((i + 1))
	done
	touch "$stop"
	wait "$gpid"
	echo "port-change events generated meanwhile: $(cat "$stop")"
	cat "$dbg/test_event"
	[ "$rc" -eq 0 ] && [ "$(cat "$stop")" -gt 0 ]
}

# A device in the internal-error state: the destroys of exiting processes
# fail with -ENXIO and count as done (no orphan), and unloading is clean.
# Recovery is off, so that the device stays dead while the process exits
# (recovery_test.sh covers recovery).
t_dead_device()
{
	echo N >/sys/module/mlx5_core/parameters/recovery || return 1
	dead_device
	_rc=$?
	echo Y >/sys/module/mlx5_core/parameters/recovery
	return $_rc
}

dead_device()
{
	mark=$(ktap_dmesg_mark)
	port=$((port + 1))
	ibv_rc_pingpong -d mlx5_0 -i 1 -p "$port" >"$out/ib_destroy.server" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || { kill "$spid"; cat "$out/ib_destroy.server"; return 1; }
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 20 sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'internal-error state'"
	err=$?
	kill -9 "$spid" 2>/dev/null
	wait_for "$TMO" gone "$spid" || { echo "the process did not exit"; return 1; }
	wait "$spid" 2>/dev/null
	since_mark | grep -E 'internal-error|did not destroy' | head -n 5
	# Back to a working device: the function is reset when it is bound again.
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	pci=$(echo "$devs" | head -n 1)
	echo "$pci" >/sys/bus/pci/drivers/mlx5_core/unbind || return 1
	echo "$pci" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	wait_for 30 sh -c "[ \$(ls /sys/class/infiniband | grep -c '^mlx5_') -ge $ndev ]" || return 1
	[ "$err" -eq 0 ] || { echo "the device never entered the error state"; return 1; }
	! since_mark | grep -q 'did not destroy'
}

t_unload()
{
	mlx5_unload ours || return 1
	rc=0
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: firmware pages outstanding $p"
		[ "$p" = 0 ] || rc=1
	done
	return $rc
}

ktap_begin 14
ktap_case "insmod mlx5_core mlx5_ib" t_load
ktap_case "DESTROY_QP refused while processes exit" t_qp
ktap_case "DESTROY_SRQ refused while processes exit" t_srq
ktap_case "DESTROY_CQ refused while processes exit" t_cq
ktap_case "DESTROY_MKEY refused while processes exit" t_mkey
ktap_case "DEALLOC_PD refused while processes exit" t_pd
ktap_case "completion EQEs arriving after their CQs were destroyed" t_late_eqes
ktap_case "CQ error and QP fatal events arriving after their objects were destroyed" t_late_async
ktap_case "traffic after the refused destroys" t_traffic
ktap_case "rmmod mlx5_ib destroys every refused object" t_orphans_released
ktap_case "DESTROY_CQ refused for good: orphans released at removal" t_refused_forever
ktap_case "port-change events while mlx5_ib is removed and loaded $RELOADS times" t_events_reload
ktap_case "internal-error state: destroys of exiting processes count as done" t_dead_device
ktap_case "rmmod mlx5_ib mlx5_core returns every firmware page" t_unload
ktap_end
