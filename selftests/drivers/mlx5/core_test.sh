#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Our mlx5_core on the emulated HCAs: bring-up in event mode, the
# EQ -> CQN -> BH -> callback path, page requests, health, bind/unbind loops
# without leaks, every bring-up command failing, command timeouts, a hung
# device and a fatal health syndrome.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
ctl=$top/scripts/lib/emu-ctl
cycles=${MLX5_CORE_CYCLES:-30}

dev=$(echo "$devs" | head -n 1)
hca=0
drv=/sys/bus/pci/drivers/mlx5_core
dbg=/sys/kernel/debug/mlx5c/$dev
param=/sys/module/mlx5_core/parameters

bound() { [ "$(basename "$(readlink "/sys/bus/pci/devices/$dev/driver" 2>/dev/null)")" = mlx5_core ]; }
bind() { echo "$dev" >"$drv/bind" 2>/dev/null; bound; }
unbind() { ! bound || echo "$dev" >"$drv/unbind"; }
irqs() { # irqs NAME-PREFIX: total interrupts of our vectors with that name
	grep "$1.*@pci:$dev" /proc/interrupts |
		awk '{ for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }'
}
emu_pages() { "$ctl" hca $hca pages | sed -n 's/^outstanding //p'; }
emu_state() { "$ctl" hca $hca stats | sed -n 's/^state //p'; }
dbg_val() { sed -n "s/^$2: *//p" "$dbg/$1"; }
meminfo() { sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo; }
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1; }
# Free pages, including those parked on the per-CPU free lists.
free_pages()
{
	echo $(($(sed -n 's/^nr_free_pages //p' /proc/vmstat) +
		$(awk '/ count:/ { s += $2 } END { print s + 0 }' /proc/zoneinfo)))
}

t_insmod()
{
	[ -e "$ctl" ] && "$ctl" help >/dev/null || { echo "no emulator control channel"; return 1; }
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	mlx5_load ours core health_poll_ms=500 && bound
}

t_event_mode()
{
	cat "$dbg/eqs"
	[ "$(dbg_val cmd mode)" = events ] || return 1
	grep -q '^comp0 ' "$dbg/eqs" || return 1
	a0=$(irqs mlx5_async0)
	echo "async0 interrupts after probe: $a0"
	[ "$a0" -gt 0 ]
}

t_cq_dispatch()
{
	need_harness "$dbg" || return 1
	a0=$(irqs mlx5_async0) c0=$(irqs mlx5_comp)
	echo 20 >"$dbg/test_cq" || { cat "$dbg/test_cq"; return 1; }
	cat "$dbg/test_cq"
	a1=$(irqs mlx5_async0) c1=$(irqs mlx5_comp)
	echo "async0 interrupts $a0 -> $a1, completion interrupts $c0 -> $c1"
	grep -q '^ok' "$dbg/test_cq" && [ "$a1" -gt "$a0" ] && [ "$c1" -gt "$c0" ]
}

t_async_cmds()
{
	need_harness "$dbg" || return 1
	echo 300 >"$dbg/test_async" || { cat "$dbg/test_async"; return 1; }
	cat "$dbg/test_async"
	grep -q '^ok: async NOP commands 300 queued, 0 failed' "$dbg/test_async"
}

t_events()
{
	need_harness "$dbg" || return 1
	echo 5 >"$dbg/test_event" || { cat "$dbg/test_event"; return 1; }
	cat "$dbg/test_event"
	grep -q '^ok: port-change events 5 generated, 5 delivered, port 1' "$dbg/test_event"
}

t_lost_cmd_eqe()
{
	need_harness "$dbg" || return 1
	echo 1000 >"$param/cmd_timeout_ms"
	unbind && bind || return 1
	mark=$(dmesg | wc -l)
	"$ctl" hca $hca drop-eqe cmd 1 >/dev/null || return 1
	echo 1 >"$dbg/test_async" || { cat "$dbg/test_async"; return 1; }
	cat "$dbg/test_async"
	dmesg | tail -n +$((mark + 1)) | grep 'completed without a command EQE'
}

t_page_request()
{
	p0=$(dbg_val pages fw_pages)
	"$ctl" hca $hca page-request 64 || return 1
	wait_for 10 sh -c "[ \$(sed -n 's/^fw_pages: *//p' $dbg/pages) -eq $((p0 + 64)) ]" || {
		cat "$dbg/pages"; return 1; }
	"$ctl" hca $hca page-request -64 || return 1
	wait_for 10 sh -c "[ \$(sed -n 's/^fw_pages: *//p' $dbg/pages) -eq $p0 ]" || {
		cat "$dbg/pages"; return 1; }
	cat "$dbg/pages"
	[ "$(emu_pages)" -eq "$p0" ]
}

# Page requests beyond max_fw_pages_pct of RAM are refused whole, with a
# message and MANAGE_PAGES CANT_GIVE, instead of running the guest out of
# memory: first an absurd request (10^9 pages, 4 TB), then, with the limit
# lowered to 1 %, one page too many; a request that fits is still given.
t_page_request_limit()
{
	emu_cant() { "$ctl" hca $hca pages | sed -n 's/^cant_give //p'; }
	p0=$(dbg_val pages fw_pages) r0=$(dbg_val pages refused) c0=$(emu_cant)
	mark=$(dmesg | wc -l)
	"$ctl" hca $hca page-request 1000000000 || return 1
	wait_for 10 sh -c "[ \$(sed -n 's/^refused: *//p' $dbg/pages) -eq $((r0 + 1)) ]" || {
		cat "$dbg/pages"; return 1; }
	wait_for 10 sh -c "[ \$($ctl hca $hca pages | sed -n 's/^cant_give //p') -gt $c0 ]" || {
		echo "the firmware was not told (cant_give $c0)"; return 1; }
	limit=$(( $(meminfo MemTotal) / 4 / 100 ))
	echo 1 >"$param/max_fw_pages_pct"
	over=$((limit - p0 + 16))
	"$ctl" hca $hca page-request $over || return 1
	wait_for 10 sh -c "[ \$(sed -n 's/^refused: *//p' $dbg/pages) -eq $((r0 + 2)) ]"
	refused=$?
	"$ctl" hca $hca page-request 64 || return 1
	wait_for 10 sh -c "[ \$(sed -n 's/^fw_pages: *//p' $dbg/pages) -eq $((p0 + 64)) ]"
	given=$?
	echo 25 >"$param/max_fw_pages_pct"
	"$ctl" hca $hca page-request -64 || return 1
	wait_for 10 sh -c "[ \$(sed -n 's/^fw_pages: *//p' $dbg/pages) -eq $p0 ]" || return 1
	cat "$dbg/pages"
	dmesg | tail -n +$((mark + 1)) | grep 'refused'
	[ "$refused" -eq 0 ] || { echo "$over pages above the 1 % limit were given"; return 1; }
	[ "$given" -eq 0 ] || { echo "64 pages within the limit were not given"; return 1; }
	[ "$(dbg_val pages fw_pages)" -eq "$p0" ] && [ "$(emu_pages)" -eq "$p0" ]
}

t_health_poll()
{
	wait_for 10 sh -c "[ \$(sed -n 's/^polls: *//p' $dbg/health) -gt 0 ]"
	cat "$dbg/health"
	[ "$(dbg_val health polls)" -gt 0 ] && [ "$(dbg_val health state)" = ok ]
}

t_remove_clean()
{
	unbind || return 1
	echo "emulator: state $(emu_state), pages outstanding $(emu_pages)"
	[ "$(emu_pages)" -eq 0 ] && [ "$(emu_state)" = disabled ] &&
		! grep -q "@pci:$dev" /proc/interrupts && [ ! -e "$dbg" ]
}

t_bind_cycles()
{
	for i in 1 2 3 4 5; do
		bind && unbind || return 1
	done
	settle
	mem0=$(free_pages) slab0=$(meminfo Slab)
	i=0
	while [ $i -lt "$cycles" ]; do
		bind || { echo "bind $i failed"; return 1; }
		unbind || { echo "unbind $i failed"; return 1; }
		i=$((i + 1))
	done
	settle
	mem1=$(free_pages) slab1=$(meminfo Slab)
	echo "$cycles cycles: free pages $mem0 -> $mem1, Slab $slab0 -> $slab1 kB"
	echo "emulator pages outstanding $(emu_pages), refcnt $(cat /sys/module/mlx5_core/refcnt)"
	[ "$(emu_pages)" -eq 0 ] || return 1
	[ "$(cat /sys/module/mlx5_core/refcnt)" -eq 0 ] || return 1
	# Three pages leaked per cycle would show (measured drift: < 50 pages
	# per 100 cycles); slab and vmap caches drift by a few hundred KiB.
	[ $((mem0 - mem1)) -lt $((cycles * 3)) ] && [ $((slab1 - slab0)) -lt 1024 ]
}

# fail_one OPCODE EXPECT: the next OPCODE fails with status 3; EXPECT is
# "fail" (probe must fail cleanly) or "ok" (the driver tolerates it).
fail_one()
{
	op=$1 expect=$2
	unbind
	"$ctl" hca $hca fail-cmd "$op" 3 0x1234 >/dev/null || return 1
	mark=$(dmesg | wc -l)
	if bind; then got=ok; else got=fail; fi
	"$ctl" hca $hca clear-faults >/dev/null
	log=$(dmesg | tail -n +$((mark + 1)))
	if [ "$got" != "$expect" ]; then
		echo "$op: probe ${got}ed, expected $expect"
		printf '%s\n' "$log" | tail -n 5
		return 1
	fi
	printf '%s\n' "$log" | grep -q "command $op(0x[0-9a-f]*).*syndrome 0x00001234\|$op failed (status 0x3" || {
		echo "$op: no log line naming the failed command"; printf '%s\n' "$log" | tail -n 5; return 1; }
	if [ "$got" = fail ]; then
		[ "$(emu_pages)" -eq 0 ] && [ "$(emu_state)" = disabled ] || {
			echo "$op: after the failed probe the emulator is $(emu_state) with $(emu_pages) pages"
			return 1; }
	fi
	bind || { echo "$op: retry failed"; return 1; }
	echo "$op: probe $got as expected, retry ok"
}

t_fail_bringup()
{
	rc=0
	for op in ENABLE_HCA SET_ISSI QUERY_PAGES MANAGE_PAGES QUERY_HCA_CAP SET_HCA_CAP \
		  INIT_HCA QUERY_ADAPTER ALLOC_UAR CREATE_EQ; do
		fail_one $op fail || rc=1
	done
	for op in QUERY_ISSI SET_DRIVER_VERSION; do
		fail_one $op ok || rc=1
	done
	return $rc
}

t_cmd_timeout_recovers()
{
	need_harness "$dbg" || return 1
	bound || bind || return 1
	unbind
	echo 1000 >"$param/cmd_timeout_ms"
	bind || return 1
	# The GEN_EQE completes 3 s late: the caller times out after 1 s,
	# the slot comes back when the late completion arrives.
	"$ctl" hca $hca delay-cmd GEN_EQE 3000 >/dev/null
	mark=$(dmesg | wc -l)
	echo 1 >"$dbg/test_cq" 2>/dev/null && { echo "test_cq succeeded despite the delay"; return 1; }
	"$ctl" hca $hca delay-cmd GEN_EQE 0 >/dev/null
	wait_for 10 sh -c "grep -q '^abandoned: 0' $dbg/cmd" || { cat "$dbg/cmd" | head -8; return 1; }
	dmesg | tail -n +$((mark + 1)) | grep -E 'timed out|late completion'
	dmesg | tail -n +$((mark + 1)) | grep -q 'GEN_EQE(0x304).*timed out after 1000 ms' &&
		dmesg | tail -n +$((mark + 1)) | grep -q 'late completion.*GEN_EQE' || return 1
	echo 2 >"$dbg/test_cq" && cat "$dbg/test_cq"
}

t_hang_probe()
{
	unbind
	"$ctl" hca $hca hang >/dev/null || return 1
	mark=$(dmesg | wc -l)
	start=$(date +%s)
	bind && { echo "probe succeeded on a hung device"; "$ctl" hca $hca unhang; return 1; }
	end=$(date +%s)
	dmesg | tail -n +$((mark + 1)) | grep -E 'timed out|probe failed'
	# The command the device never answered must not complete into freed
	# memory: reset the function before it answers again.
	echo 1 >"/sys/bus/pci/devices/$dev/reset" 2>/dev/null || echo "# no function reset available"
	"$ctl" hca $hca unhang >/dev/null
	echo "probe failed after $((end - start)) s"
	dmesg | tail -n +$((mark + 1)) | grep -q 'ENABLE_HCA(0x104).*timed out' || return 1
	[ $((end - start)) -lt 30 ] || return 1
	bind || { echo "bind after unhang failed"; return 1; }
}

t_hang_unload()
{
	bound || bind || return 1
	"$ctl" hca $hca hang >/dev/null || return 1
	mark=$(dmesg | wc -l)
	start=$(date +%s)
	unbind
	end=$(date +%s)
	echo 1 >"/sys/bus/pci/devices/$dev/reset" 2>/dev/null || echo "# no function reset available"
	"$ctl" hca $hca unhang >/dev/null
	echo "unbind of a hung device took $((end - start)) s"
	# The first teardown command times out; with the heartbeat stopped
	# too the device enters the error state and the others fail at once.
	dmesg | tail -n +$((mark + 1)) | grep -E 'timed out|internal-error'
	dmesg | tail -n +$((mark + 1)) |
		grep -q 'internal-error state: command timed out and the firmware heartbeat stopped' || return 1
	[ "$(dmesg | tail -n +$((mark + 1)) | grep -c 'timed out after')" -le 2 ] || return 1
	[ $((end - start)) -lt 20 ] && bind
}

t_health_nonfatal()
{
	bound || bind || return 1
	mark=$(dmesg | wc -l)
	"$ctl" hca $hca health-syndrome 0x10 >/dev/null || return 1
	wait_for 10 sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'health syndrome 0x10'"
	found=$?
	"$ctl" hca $hca health-syndrome 0 >/dev/null
	cat "$dbg/health"
	[ $found -eq 0 ] && [ "$(dbg_val health state)" = ok ]
}

# With recovery off (recovery_test.sh covers it) the device stays in the
# internal-error state until it is rebound.
t_health_fatal()
{
	need_harness "$dbg" || return 1
	echo N >"$param/recovery" || return 1
	health_fatal
	_rc=$?
	echo Y >"$param/recovery"
	return $_rc
}

health_fatal()
{
	bound || bind || return 1
	mark=$(dmesg | wc -l)
	"$ctl" hca $hca health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 10 sh -c "grep -q '^state: internal-error' $dbg/health" || {
		cat "$dbg/health"; "$ctl" hca $hca health-syndrome 0; return 1; }
	cat "$dbg/health"
	echo 1 >"$dbg/test_cq" 2>/dev/null && { echo "a command succeeded in the error state"; return 1; }
	start=$(date +%s)
	unbind
	end=$(date +%s)
	"$ctl" hca $hca health-syndrome 0 >/dev/null
	dmesg | tail -n +$((mark + 1)) | grep -E 'internal-error|syndrome'
	echo "unbind in the error state took $((end - start)) s"
	[ $((end - start)) -lt 10 ] || return 1
	bind || { echo "rebind after the error failed"; return 1; }
	[ "$(dbg_val health state)" = ok ]
}

t_rmmod()
{
	echo 0 >"$param/cmd_timeout_ms"
	mlx5_unload ours || return 1
	! grep -q '^mlx5_core ' /proc/modules && ! grep -q 'mlx5_' /proc/interrupts &&
		[ "$(emu_pages)" -eq 0 ]
}

ktap_begin 18
ktap_case "insmod mlx5_core" t_insmod
ktap_case "EQs created, commands in event mode" t_event_mode
ktap_case "completion EQE -> CQN -> BH -> callback (GEN_EQE)" t_cq_dispatch
ktap_case "300 asynchronous commands in parallel" t_async_cmds
ktap_case "async events reach a registered notifier (GEN_EQE PORT_CHANGE)" t_events
ktap_case "lost command EQE: completion recovered at the timeout" t_lost_cmd_eqe
ktap_case "page-request EQEs give and take pages" t_page_request
ktap_case "page requests beyond max_fw_pages_pct of RAM refused" t_page_request_limit
ktap_case "health poller runs" t_health_poll
ktap_case "unbind leaves no FW pages, IRQs or debugfs" t_remove_clean
ktap_case "$cycles bind/unbind cycles without leaks" t_bind_cycles
ktap_case "each bring-up command failing: clean probe failure, retry ok" t_fail_bringup
ktap_case "command timeout logged, slot recovered on late completion" t_cmd_timeout_recovers
ktap_case "hung device: probe times out cleanly" t_hang_probe
ktap_case "hung device: first timeout + stopped heartbeat -> error state, fast unbind" t_hang_unload
ktap_case "non-fatal health syndrome logged" t_health_nonfatal
ktap_case "fatal health syndrome: error state, fast unload" t_health_fatal
ktap_case "rmmod mlx5_core" t_rmmod
ktap_end
