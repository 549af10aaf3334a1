#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Destroy paths of our mlx5_ib when things go wrong: the firmware refuses
# DESTROY_QP, DESTROY_SRQ, DESTROY_CQ, DESTROY_MKEY or DEALLOC_PD while a
# process with such objects exits (emulator fail-cmd, once on each HCA, and
# DESTROY_CQ for good),
# completion EQEs that arrive after their CQ is gone (emulator delay-eqe),
# and processes exiting on a device in the internal-error state.
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
. "$dir/ktap.sh"
top=${MLX5_SRC:-$(cd "$dir/../../.." && pwd)}
core_ko=${MLX5_CORE_KO:-$top/core/mlx5_core.ko}
ib_ko=${MLX5_IB_KO:-$top/ib/mlx5_ib.ko}
out=${MLX5_OUT:-/tmp}
port=18715
# BAD_RES_STATE, with a syndrome that is easy to find in a trace.
FAIL_STATUS=0x9
FAIL_SYND=0xde57
TMO=${MLX5_PINGPONG_TIMEOUT:-120}

mark=0
since_mark() { dmesg | tail -n +$((mark + 1)); }

t_load()
{
	[ -f "$core_ko" ] && [ -f "$ib_ko" ] || { echo "modules not built"; return 1; }
	have_emu || { echo "no emulator control channel"; return 1; }
	grep -q -E '^mlx5_(ib|core) ' /proc/modules && { echo "an mlx5 driver is already loaded"; return 1; }
	command -v ibv_srq_pingpong >/dev/null || { echo "ibv_srq_pingpong not installed"; return 1; }
	ip link set lo up 2>/dev/null
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	modprobe -q ib_uverbs || return 1
	insmod "$core_ko" && insmod "$ib_ko" || return 1
	wait_for 20 test -e /sys/class/infiniband/mlx5_1
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

# Completion EQEs written 3 s late reach the driver after their CQs were
# destroyed: they must find nothing (and say so), not a freed CQ.
t_late_eqes()
{
	mark=$(ktap_dmesg_mark)
	for h in 0 1; do emu_ctl hca $h delay-eqe comp 3000 >/dev/null || return 1; done
	pair_killed ibv_rc_pingpong -e
	rc=$?
	wait_for 20 sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'completion event for unknown CQ'"
	late=$?
	for h in 0 1; do emu_ctl hca $h delay-eqe comp 0 >/dev/null; done
	since_mark | grep 'unknown CQ' | head -n 2
	[ "$rc" -eq 0 ] || return 1
	[ "$late" -eq 0 ] || { echo "no completion EQE arrived after its CQ was destroyed"; return 1; }
}

# The device still works after all that.
t_traffic()
{
	port=$((port + 1))
	timeout "$TMO" ibv_rc_pingpong -d mlx5_0 -i 1 -p "$port" -n 20 -e >"$out/ib_destroy.server" 2>&1 &
	spid=$!
	wait_listen "$port" "$spid" || { kill "$spid"; cat "$out/ib_destroy.server"; return 1; }
	timeout "$TMO" ibv_rc_pingpong -d mlx5_1 -i 1 -p "$port" -n 20 -e 127.0.0.1 \
		>"$out/ib_destroy.client" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	cat "$out/ib_destroy.server" "$out/ib_destroy.client"
	[ "$src" -eq 0 ] && [ "$crc" -eq 0 ]
}

# Object-creating commands and the commands that free what they create.
PAIRS="ALLOC_PD:DEALLOC_PD CREATE_MKEY:DESTROY_MKEY CREATE_CQ:DESTROY_CQ
CREATE_QP:DESTROY_QP CREATE_SRQ:DESTROY_SRQ"

ok_ops() # ok_ops HCA OPCODE-NAME: successful commands of that opcode
{
	emu_ctl hca "$1" stats | awk -v op="$2" '
		$2 == op { split($4, t, "="); split($5, f, "="); n = t[2] - f[2] }
		END { print n + 0 }'
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
	for h in 0 1; do
		for p in $PAIRS; do
			c=$(ok_ops $h "${p%%:*}") d=$(ok_ops $h "${p#*:}")
			echo "hca $h: ${p%%:*} $c ${p#*:} $d"
			[ "$c" -eq "$d" ] || rc=1
		done
	done
	# Five refusals on each of two HCAs, and what the firmware refused
	# because a refused object still used it (an SRQ under a QP).
	[ "$n" -ge 10 ] || rc=1
	! since_mark | grep -q 'still refuses' || rc=1
	insmod "$ib_ko" && wait_for 20 test -e /sys/class/infiniband/mlx5_1 || rc=1
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
	insmod "$ib_ko" && wait_for 20 test -e /sys/class/infiniband/mlx5_1 || rc=1
	[ "$rc" -eq 0 ] && [ "$n" -eq 2 ] && [ "$m" -eq 2 ]
}

# A device in the internal-error state: the destroys of exiting processes
# fail with -ENXIO and count as done (no orphan), and unloading is clean.
t_dead_device()
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
	pci=$(mlx5_pci_devs | head -n 1)
	echo "$pci" >/sys/bus/pci/drivers/mlx5_core/unbind || return 1
	echo "$pci" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	wait_for 20 test -e /sys/class/infiniband/mlx5_1 || return 1
	[ "$err" -eq 0 ] || { echo "the device never entered the error state"; return 1; }
	! since_mark | grep -q 'did not destroy'
}

t_unload()
{
	rmmod mlx5_ib && rmmod mlx5_core || return 1
	rc=0
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: firmware pages outstanding $p"
		[ "$p" = 0 ] || rc=1
	done
	! grep -q -E '^mlx5_(ib|core) ' /proc/modules && [ "$rc" -eq 0 ]
}

ktap_begin 12
ktap_case "insmod mlx5_core mlx5_ib" t_load
ktap_case "DESTROY_QP refused while processes exit" t_qp
ktap_case "DESTROY_SRQ refused while processes exit" t_srq
ktap_case "DESTROY_CQ refused while processes exit" t_cq
ktap_case "DESTROY_MKEY refused while processes exit" t_mkey
ktap_case "DEALLOC_PD refused while processes exit" t_pd
ktap_case "completion EQEs arriving after their CQs were destroyed" t_late_eqes
ktap_case "traffic after the refused destroys" t_traffic
ktap_case "rmmod mlx5_ib destroys every refused object" t_orphans_released
ktap_case "DESTROY_CQ refused for good: orphans released at removal" t_refused_forever
ktap_case "internal-error state: destroys of exiting processes count as done" t_dead_device
ktap_case "rmmod mlx5_ib mlx5_core returns every firmware page" t_unload
ktap_end
