#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The oracle for the emulator: the IN-TREE mlx5_core of the guest kernel
# (written against real ConnectX hardware) probes the emulated functions,
# creates its EQs, completes commands through command EQEs + MSI-X, handles
# page requests, recovers from a fatal firmware error through the software
# reset the emulator models, unloads returning every firmware page, and
# fails its probe cleanly when a bring-up command fails.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
dev0=$(echo $devs | cut -d' ' -f1)

t_modprobe()
{
	emu_ctl hca 0 trace-clear >/dev/null
	probe_mark=$(ktap_dmesg_mark)
	mlx5_load in-tree core || return 1
	# What a fresh load gives the firmware (boot and init pages).
	probe_pages=$(emu_pages_outstanding 0)
}

t_probe_clean()
{
	# The in-tree driver logs errors as "mlx5_core BDF: func:line:(pid): msg".
	bad=$(dmesg | tail -n +$((probe_mark + 1)) |
		grep -E 'mlx5_core [0-9a-f:.]+: .*([Ff]ail|[Ee]rror|[Ii]nvalid|timeout|abort|err\(|syndrome)' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
	emu_ctl hca 0 trace >"$out/upstream_probe_trace.txt" || return 1
	echo "command trace saved: $(wc -l <"$out/upstream_probe_trace.txt") lines"
	grep -q INIT_HCA "$out/upstream_probe_trace.txt"
}

t_eqs_created()
{
	emu_ctl hca 0 eqs
	grep -E "mlx5_(async|comp|pages|cmd)[0-9]*@pci:$dev0" /proc/interrupts ||
		{ grep mlx5 /proc/interrupts; return 1; }
}

async_irqs_at_least()
{
	[ "$(irq_count "mlx5_async[0-9]*@pci:$dev0")" -ge "$1" ]
}

t_cmd_eqe_irqs()
{
	# Command completions arrive by EQE + MSI-X: the async IRQ already
	# counted during probe, and a page request makes it count again.
	before=$(irq_count "mlx5_async[0-9]*@pci:$dev0")
	echo "async IRQs after probe: $before"
	[ "$before" -gt 0 ] || return 1
	emu_ctl hca 0 page-request 8 || return 1
	wait_for 20 async_irqs_at_least $((before + 2)) || {
		echo "async IRQs stayed at $(irq_count "mlx5_async[0-9]*@pci:$dev0")"; return 1; }
	echo "async IRQs after a page request: $(irq_count "mlx5_async[0-9]*@pci:$dev0")"
}

# A fatal syndrome crashes the emulated firmware: the in-tree driver's
# fw_fatal recovery issues the software reset (nic_interface SW_RESET,
# which the emulator advertises in initializing bit 30) and loads the
# function again, with the pages of a fresh load (the page request of
# t_cmd_eqe_irqs is not repeated).
t_fatal_recover()
{
	intree_fatal_recovered 0 || return 1
	_m=$fatal_mark
	dmesg | tail -n +$((_m + 1)) | grep -E 'Issuing FW Reset|recovery' | sed 's/^\[[^]]*\] //'
	devlink health show "pci/$dev0" 2>/dev/null
	_p=$(emu_pages_outstanding 0)
	echo "hca 0: $_p firmware pages (after the first load: $probe_pages)"
	dmesg | tail -n +$((_m + 1)) | grep -q 'Issuing FW Reset' && [ "$_p" -eq "$probe_pages" ] &&
		[ "$(mlx5_bound_count)" -eq "$ndev" ]
}

t_rmmod_pages()
{
	modprobe -r mlx5_ib 2>/dev/null
	rmmod mlx5_core || return 1
	i=0
	for d in $devs; do
		p=$(emu_pages_outstanding $i)
		echo "hca $i: $p pages outstanding"
		[ "$p" = 0 ] || return 1
		i=$((i + 1))
	done
}

t_fault_init_hca()
{
	emu_ctl hca 0 fail-cmd INIT_HCA 0x3 || return 1
	modprobe mlx5_core
	b=$(basename "$(readlink /sys/bus/pci/devices/$dev0/driver)")
	echo "$dev0 driver after injected INIT_HCA failure: ${b:-none}"
	[ -z "$b" ] || return 1
	dmesg | grep -E "mlx5_core $dev0: .*INIT_HCA|mlx5_core $dev0: .*probe.*fail|mlx5_core $dev0: .*init_one.*fail" |
		tail -n 3
	p=$(emu_pages_outstanding 0)
	echo "hca 0: $p pages outstanding after the failed probe"
	[ "$p" = 0 ] || return 1
	# The injection was one-shot: a new probe succeeds.
	echo "$dev0" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	[ "$(mlx5_bound_count)" -eq "$ndev" ] || return 1
	rmmod mlx5_core && [ "$(emu_pages_outstanding 0)" = 0 ]
}

ktap_begin 7
ktap_case "in-tree mlx5_core binds every emulated function" t_modprobe
ktap_case "probe logs no error" t_probe_clean
ktap_case "EQs created with MSI-X vectors" t_eqs_created
ktap_case "command completions by EQE + MSI-X" t_cmd_eqe_irqs
ktap_case "fatal syndrome: in-tree recovery through the software reset" t_fatal_recover
ktap_case "rmmod returns every firmware page" t_rmmod_pages
ktap_case "INIT_HCA failure: probe fails cleanly, retry succeeds" t_fault_init_hca
ktap_end
