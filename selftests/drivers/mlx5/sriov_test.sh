#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# SR-IOV on a PF in the guest (scripts/vm --hca 2 --vfs 2,0: hca0 a PF with
# two VFs at functions 1 and 2 of its slot, hca1 a PF alone). QEMU drops
# the PF's SR-IOV capability from the chain but passes its registers; the
# test-only sriov_shim module shows it to the PCI core
# (Documentation/emulator.md, "SR-IOV"). The first cases, the shim's smoke
# test: QEMU passes the capability's body; with the shim, lspci shows the
# capability (TotalVFs 2, offset 1, stride 1, the VF device ID), the PCI
# core's sriov_totalvfs is 2 and the VF functions are hidden;
# sriov_numvfs above it fails with ERANGE; with pci-pf-stub on the PF,
# `echo 2 > sriov_numvfs` brings two VFs whose BARs the kernel carved from
# the PF's VF BARs, and whose firmware, not enabled by a PF driver, stays
# dead; with the in-tree mlx5_core on the PF, `echo 2 > sriov_numvfs`
# enables them in the device (ENABLE_HCA, VF pages) and the in-tree
# mlx5_core binds them as VFs, ibv_devinfo lists them; `echo 0` removes
# them and every page comes back; unloading the shim gives the slot back
# as it was at boot. TotalVFs is the number of VF functions
# the slot has at boot: any N of scripts/vm --vfs N,0 (7 at most).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
shim_ko=${MLX5_SRIOV_SHIM_KO:-$dir/sriov_shim/sriov_shim.ko}

# The PF: function 0 of a slot whose function 1 is an mlx5 function too.
pf=""
for d in $devs; do
	case $d in *.0) [ -e "/sys/bus/pci/devices/${d%.0}.1" ] && { pf=$d; break; } ;; esac
done
[ -n "$pf" ] || ktap_skip_all "no PF with VF functions (boot with scripts/vm --vfs 2,0)"
slot=${pf%.0}
sys=/sys/bus/pci/devices/$pf
# TotalVFs: the VF functions the slot has at boot (scripts/vm --vfs N).
NVF=$(ls -d /sys/bus/pci/devices/"$slot".[1-7] | wc -l)
vfs=$(seq 1 "$NVF")

# vf_present N: the slot's function N exists in the PCI core.
vf_present() { [ -e "/sys/bus/pci/devices/$slot.$1" ]; }

# cfg REG.W: a PF config register through setpci (hex).
cfg() { setpci -s "$pf" "$1"; }

# expect WHAT GOT WANT
expect() { [ "$2" = "$3" ] || { echo "$1: $2, expected $3"; return 1; }; }

t_passthrough()
{
	need_tool setpci lspci || return 1
	vid=$(cat "/sys/bus/pci/devices/$slot.1/device")
	vid=${vid#0x}
	echo "PF $pf, VF functions $(ls -d /sys/bus/pci/devices/$slot.[1-7] | sed 's|.*/||' | tr '\n' ' ')"
	expect "header at 0x100 (QEMU drops SR-IOV from the chain)" "$(cfg 0x100.l)" 00000000 &&
	expect "TotalVFs" "$(cfg 0x10e.w)" "$(printf %04x "$NVF")" &&
	expect "First VF Offset" "$(cfg 0x114.w)" 0001 &&
	expect "VF Stride" "$(cfg 0x116.w)" 0001 &&
	expect "VF Device ID" "$(cfg 0x11a.w)" "$vid" &&
	expect "Supported Page Sizes" "$(cfg 0x11c.l)" 000007ff &&
	expect "VF BAR0 type (64-bit prefetchable)" "$(cfg 0x124.l)" 0000000c &&
	[ ! -e "$sys/sriov_totalvfs" ] || { echo "the PCI core sees SR-IOV without the shim"; return 1; }
}

# shim_refused ARG WORDS: insmod of the shim with ARG fails and its
# message has WORDS.
shim_refused()
{
	m=$(ktap_dmesg_mark)
	insmod "$shim_ko" $1 2>&1 && { echo "insmod $1: loaded"; rmmod sriov_shim; return 1; }
	dmesg | tail -n +$((m + 1)) | grep "sriov_shim: .*$2" || { echo "insmod $1: no message '$2'"; return 1; }
}

# Bad parameters: no PF, a VF slot, and a PF without the hidden capability
# (hca1's).
t_shim_refusals()
{
	[ -f "$shim_ko" ] || { echo "not built: $shim_ko (make selftests)"; return 1; }
	other=""
	for d in $devs; do case $d in "$slot".*) ;; *) other=$d; break ;; esac; done
	[ -n "$other" ] || { echo "no second PF (hca1) to try"; return 1; }
	shim_refused "" "pf=DDDD:BB:DD.0 needed" &&
	shim_refused pf=nonsense "pf=DDDD:BB:DD.0 needed" &&
	shim_refused "pf=$slot.1" "pf=DDDD:BB:DD.0 needed" &&
	shim_refused "pf=$other" "no hidden SR-IOV capability" || return 1
	vf_present 1 || { echo "a refused load changed the slot"; return 1; }
}

t_shim()
{
	[ -f "$shim_ko" ] || { echo "not built: $shim_ko (make selftests)"; return 1; }
	insmod "$shim_ko" pf="$pf" || { dmesg | tail -n 5; return 1; }
	lspci -vvv -s "$pf" | sed -n '/Single Root I\/O Virtualization/,/VF Migration/p' >"$out/sriov_lspci.txt"
	cat "$out/sriov_lspci.txt"
	grep -q 'Single Root I/O Virtualization' "$out/sriov_lspci.txt" || { echo "no SR-IOV capability"; return 1; }
	grep -q "Initial VFs: $NVF, Total VFs: $NVF, Number of VFs: 0" "$out/sriov_lspci.txt" &&
		grep -q "VF offset: 1, stride: 1, Device ID: $vid" "$out/sriov_lspci.txt" ||
		{ echo "not the emulator's values"; return 1; }
	expect sriov_totalvfs "$(cat "$sys/sriov_totalvfs")" $NVF || return 1
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" 0 || return 1
	for f in $vfs; do ! vf_present $f || { echo "$slot.$f still present with VF Enable clear"; return 1; }; done
}

# The shell's echo says "I/O error" whatever the errno: coreutils' says which.
t_erange()
{
	msg=$(/bin/echo $((NVF + 1)) 2>&1 >"$sys/sriov_numvfs") && { echo "accepted"; return 1; }
	echo "$msg"
	case $msg in *"out of range"*) ;; *) echo "not ERANGE"; return 1 ;; esac
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" 0
}

t_enable()
{
	modprobe pci-pf-stub || { echo "no pci-pf-stub in this kernel"; return 1; }
	echo pci-pf-stub >"$sys/driver_override" || return 1
	echo "$pf" >/sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "$sys/driver")")" = pci-pf-stub ] || { echo "pci-pf-stub did not bind $pf"; return 1; }
	m=$(ktap_dmesg_mark)
	echo $NVF >"$sys/sriov_numvfs" || { dmesg | tail -n 5; return 1; }
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" $NVF || return 1
	! ktap_dmesg_since "$m" 'not enough MMIO resources|IOV BARS not allocated' || { echo "no room for the VF BARs"; return 1; }
	lspci -nn -s "$slot"
	vfbase=$(cfg 0x124.l)
	for f in $vfs; do
		vf_present $f || { echo "no VF $slot.$f"; return 1; }
		[ -e "/sys/bus/pci/devices/$slot.$f/physfn" ] || { echo "$slot.$f is no virtual function"; return 1; }
		r=$(head -n 1 "/sys/bus/pci/devices/$slot.$f/resource")
		echo "$slot.$f BAR0: $r"
		set -- $r
		[ "$(($2 - $1 + 1))" -eq $((32 << 20)) ] || { echo "$slot.$f BAR0 is not 32 MiB"; return 1; }
		# The kernel never writes a VF's BARs: the shim did, from the
		# PF's VF BAR0, and turned on the VF's memory decode.
		expect "$slot.$f BAR0 register" "$(setpci -s "$slot.$f" 0x10.l)" \
			"$(printf %08x $((($1 & 0xfffffff0) | 0xc)))" || return 1
		[ $((0x$(setpci -s "$slot.$f" COMMAND) & 2)) -ne 0 ] || { echo "$slot.$f: memory decode off"; return 1; }
	done
	echo "VF BAR0 of the PF: $vfbase"
	# pci-pf-stub enables no VF in the device (no ENABLE_HCA): their
	# firmware waits, "initializing" (init segment 0x1fc bit 31), and
	# refuses every command. The PF is hca 0 (scripts/vm --vfs N,0).
	emu_ctl hca 0 vfs
	[ "$(emu_ctl hca 0 vfs | grep -c '^vf .* enabled no alive no ')" = "$NVF" ] ||
		{ echo "a VF lives that its PF did not enable"; return 1; }
	echo 0 >"$sys/sriov_numvfs" || return 1
	echo "$pf" >"$sys/driver/unbind"
	echo >"$sys/driver_override"
}

# The in-tree mlx5_core on the PF (issue 32 step 10): echo N > sriov_numvfs
# enables each VF in the device (ENABLE_HCA function_id n, VF pages from
# the PF) before pci_enable_sriov(); the VFs then probe with the in-tree
# mlx5_core as VFs.
t_vf_driver()
{
	modprobe mlx5_core && modprobe mlx5_ib || return 1
	wait_for 60 test -e "$sys/infiniband" || { echo "$pf: no RDMA device"; return 1; }
	m=$(ktap_dmesg_mark)
	echo $NVF >"$sys/sriov_numvfs" || { dmesg | tail -n 20; return 1; }
	dmesg | tail -n +$((m + 1)) | grep -i -E 'sriov|vf|e-switch' | head -n 20
	emu_ctl hca 0 vfs
	[ "$(emu_ctl hca 0 vfs | grep -c '^vf .* enabled yes alive yes ')" = "$NVF" ] ||
		{ echo "not every VF enabled by the PF"; return 1; }
	for f in $vfs; do
		wait_for 60 test -e "/sys/bus/pci/devices/$slot.$f/infiniband" ||
			{ echo "$slot.$f: no RDMA device"; return 1; }
		d=$(basename "$(readlink "/sys/bus/pci/devices/$slot.$f/driver")")
		ib=$(ls "/sys/bus/pci/devices/$slot.$f/infiniband")
		echo "$slot.$f: driver $d, $ib"
		expect "$slot.$f driver" "$d" mlx5_core || return 1
		ibv_devinfo -d "$ib" | grep -E 'hca_id|vendor_part_id|state'
		ibv_devinfo -d "$ib" | grep -q "vendor_part_id:.*$((0x$vid))" || { echo "$ib: not the VF ID"; return 1; }
	done
}

t_disable()
{
	echo 0 >"$sys/sriov_numvfs" || return 1
	for f in $vfs; do ! vf_present $f || { echo "$slot.$f still present"; return 1; }; done
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" 0 || return 1
	modprobe -r mlx5_ib && modprobe -r mlx5_core || return 1
	# The functions at boot: the PFs are HCAs 0.., the VFs after them
	# (mlx5-emu --vfs).
	emu_pages_back $(seq 0 $((ndev - 1)))
}

t_unload()
{
	rmmod sriov_shim || return 1
	wait_for 30 vf_present "$NVF" || { echo "the VF functions did not come back"; return 1; }
	! lspci -vvv -s "$pf" | grep -q 'Single Root I/O Virtualization' || { echo "still an SR-IOV capability"; return 1; }
	[ ! -e "$sys/sriov_totalvfs" ] || { echo "$pf still has sriov_totalvfs"; return 1; }
	lspci -nn -s "$slot"
}

# ---- Our mlx5_core on the PF (issue 32 steps 17 and 21: core/sriov.c) ----
# Ours (insmod $core_ko $ib_ko) after the in-tree pair went (t_disable):
# sriov_configure enables each VF in the device (ENABLE_HCA, the VF pages
# the firmware asks the PF for), then the PCI VFs, which ours binds as
# VFs; its debugfs vfs file and the emulator's `hca 0 vfs` agree on what
# each VF holds; echo 0 brings every VF page back; a fatal error of the
# PF is recovered with the VFs enabled again in the device; rmmod with
# VFs enabled and bound disables them first. The old driver, without
# sriov_configure, fails the enable ("does not support SR-IOV
# configuration via sysfs", ENOENT) and has no vfs file.
pf_dbg=/sys/kernel/debug/mlx5c/$pf

# vf_bound_ours N: VF function N is bound to mlx5_core and has its RDMA
# device.
vf_bound_ours() { pci_driver_is "$slot.$1" mlx5_core && [ -n "$(pci_ibdev "$slot.$1")" ]; }

# vf_active N: VF function N's RDMA device has port 1 ACTIVE.
vf_active() { grep -q ACTIVE "/sys/bus/pci/devices/$slot.$1/infiniband/$(pci_ibdev "$slot.$1")/ports/1/state"; }

# vf_up_active N: VF function N's netdev, if it has one, up (on Ethernet
# the RoCE port follows it), then its RDMA port ACTIVE.
vf_up_active()
{
	nd=$(ls "/sys/bus/pci/devices/$slot.$1/net" 2>/dev/null | head -n 1)
	[ -z "$nd" ] || ip link set "$nd" up || return 1
	wait_for 60 vf_active $1 || { echo "$slot.$1: port not ACTIVE"; return 1; }
}

# dbg_vf VF FIELD: column FIELD (enabled, pages) of VF (0-based) in the
# debugfs vfs file.
dbg_vf()
{
	awk -v v="$1" -v f="$2" 'NR > 4 && $1 == v { print (f == "enabled" ? $3 : $4) }' "$pf_dbg/vfs"
}

# emu_vf VF FIELD: FIELD (enabled, alive, pages_held) of VF (0-based) in
# the emulator's `hca 0 vfs`.
emu_vf()
{
	emu_ctl hca 0 vfs | awk -v v="$1" -v f="$2" '$1 == "vf" && $2 == v {
		for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }'
}

# vfs_agree STATE: every VF is STATE (yes: enabled, no: disabled) in both
# the driver's debugfs and the emulator, and the pages each holds are the
# same on both sides (some when enabled, none when disabled).
vfs_agree()
{
	for f in $vfs; do
		v=$((f - 1))
		de=$(dbg_vf $v enabled) dp=$(dbg_vf $v pages)
		ee=$(emu_vf $v enabled) ea=$(emu_vf $v alive) ep=$(emu_vf $v pages_held)
		echo "vf $v: driver enabled $de pages $dp; emulator enabled $ee alive $ea pages_held $ep"
		[ "$de" = "$1" ] && [ "$ee" = "$1" ] && [ "$ea" = "$1" ] && [ "$dp" = "$ep" ] || return 1
		if [ "$1" = yes ]; then [ "$dp" -gt 0 ] || return 1; else [ "$dp" = 0 ] || return 1; fi
	done
}

t_ours_pf_load()
{
	! mlx5_loaded || { echo "an mlx5 driver is still loaded"; return 1; }
	esw_mark=$(ktap_dmesg_mark)
	[ -f "$core_ko" ] && [ -f "$ib_ko" ] || { echo "not built: $core_ko $ib_ko"; return 1; }
	modprobe -q ib_uverbs
	insmod "$core_ko" && insmod "$ib_ko" || return 1
	wait_for 60 test -e "$sys/infiniband" || { echo "$pf: no RDMA device"; return 1; }
	expect "$pf driver" "$(pci_driver_of "$pf")" mlx5_core || return 1
	[ -e /sys/module/mlx5_core/parameters/vf_pages_timeout_ms ] || { echo "not our mlx5_core with SR-IOV"; return 1; }
	cat "$pf_dbg/vfs" || { echo "no debugfs vfs file"; return 1; }
	expect "debugfs total_vfs" "$(awk '$1 == "total_vfs:" { print $2 }' "$pf_dbg/vfs")" "$NVF" &&
	expect "debugfs num_vfs" "$(awk '$1 == "num_vfs:" { print $2 }' "$pf_dbg/vfs")" 0
}

t_ours_erange()
{
	msg=$(/bin/echo $((NVF + 1)) 2>&1 >"$sys/sriov_numvfs") && { echo "accepted"; return 1; }
	echo "$msg"
	case $msg in *"out of range"*) ;; *) echo "not ERANGE"; return 1 ;; esac
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" 0
}

t_ours_enable()
{
	m=$(ktap_dmesg_mark)
	msg=$(/bin/echo $NVF 2>&1 >"$sys/sriov_numvfs") || { echo "$msg"; dmesg | tail -n 10; return 1; }
	dmesg | tail -n +$((m + 1)) | grep -i -E 'sr-iov|vf' | head -n 10
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" $NVF || return 1
	for f in $vfs; do
		wait_for 120 vf_bound_ours $f || { echo "$slot.$f: driver '$(pci_driver_of "$slot.$f")', no RDMA device"; return 1; }
		vf_up_active $f || return 1
		ib=$(pci_ibdev "$slot.$f")
		echo "$slot.$f: $(pci_driver_of "$slot.$f"), $ib"
		ibv_devinfo -d "$ib" | grep -E 'vendor_part_id|state'
		ibv_devinfo -d "$ib" | grep -q "vendor_part_id:.*$((0x$vid))" || { echo "$ib: not the VF ID"; return 1; }
		ibv_devinfo -d "$ib" | grep -q 'state:.*PORT_ACTIVE' || { echo "$ib: not PORT_ACTIVE"; return 1; }
	done
	dmesg | tail -n +$((m + 1)) | grep -q "probed (VF)" || { echo "our mlx5_core did not probe a VF"; return 1; }
	cat "$pf_dbg/vfs"
	expect "debugfs num_vfs" "$(awk '$1 == "num_vfs:" { print $2 }' "$pf_dbg/vfs")" $NVF || return 1
	vfs_agree yes
}

t_ours_disable()
{
	echo 0 >"$sys/sriov_numvfs" || return 1
	for f in $vfs; do ! vf_present $f || { echo "$slot.$f still present"; return 1; }; done
	cat "$pf_dbg/vfs"
	expect "debugfs vf_pages" "$(awk '$1 == "vf_pages:" { print $2 }' "$pf_dbg/vfs")" 0 || return 1
	vfs_agree no || return 1
	grep -E '^vf_(pages|requests)' "$pf_dbg/pages"
	esw_down
}

# esw_up / esw_down: on Ethernet, the emulator shows our PF's FDB as its
# root (the e-switch enabled), or no table of the e-switch a root (all of
# it taken down: FDB, the VFs' ACLs).
esw_up()
{
	$pf_eth || return 0
	emu_ctl hca 0 esw | grep -q '^  fdb of vport 0: root 0x[1-9a-f]' || { emu_ctl hca 0 esw; echo "no FDB root"; return 1; }
}
esw_down()
{
	$pf_eth || return 0
	! emu_ctl hca 0 esw | grep -q ': root 0x[1-9a-f]' || { emu_ctl hca 0 esw; echo "e-switch tables left"; return 1; }
}

# A fatal error of the PF (the emulator's health syndrome): the PF
# recovers (software reset, reload) and enables its VFs again in the
# device; the PCI VFs stayed. No driver is bound to the VFs here
# (sriov_drivers_autoprobe 0): the VFs' side of a PF's fatal error (their
# nic_interface DISABLED, their recovery) is t_ours_pf_fatal_intree_vfs's
# (our PF, the in-tree VFs bound) and t_intree_pf_fatal_vfs's.
t_ours_recovery()
{
	echo 0 >"$sys/sriov_drivers_autoprobe" || return 1
	echo $NVF >"$sys/sriov_numvfs" || return 1
	for f in $vfs; do
		vf_present $f || { echo "no VF $slot.$f"; return 1; }
		[ -z "$(pci_driver_of "$slot.$f")" ] || { echo "$slot.$f bound with autoprobe off"; return 1; }
	done
	vfs_agree yes || return 1
	r0=$(cat "$sys/health/recoveries")
	m=$(ktap_dmesg_mark)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 120 sh -c "[ \$(cat $sys/health/recoveries) -gt $r0 ]" ||
		{ echo "no recovery"; emu_ctl hca 0 health-syndrome 0 >/dev/null; dmesg | tail -n +$((m + 1)) | grep -i mlx5 | tail -n 20; return 1; }
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	dmesg | tail -n +$((m + 1)) | grep -E "$pf.*(recover|SR-IOV|VF)"
	dmesg | tail -n +$((m + 1)) | grep -q "$pf.*SR-IOV: $NVF VFs enabled again" || { echo "no re-enable said"; return 1; }
	expect "health" "$(cat "$sys/health/state")" ok || return 1
	for f in $vfs; do vf_present $f || { echo "$slot.$f went"; return 1; }; done
	wait_for 30 vfs_agree yes || { vfs_agree yes; return 1; }
	esw_up || return 1
	echo 0 >"$sys/sriov_numvfs" || return 1
	echo 1 >"$sys/sriov_drivers_autoprobe" || return 1
	vfs_agree no && esw_down
}

# With recovery off, a fatal PF error leaves the PF in the internal-error
# state: echo N > sriov_numvfs is refused (EBUSY), saying why, and enables
# nothing in the device; a rebind brings the PF back.
t_ours_refuse_error()
{
	param=/sys/module/mlx5_core/parameters
	echo N >"$param/recovery" || return 1
	m=$(ktap_dmesg_mark)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 30 sh -c "[ \"\$(cat $sys/health/state)\" = internal-error ]" ||
		{ echo "PF health: $(cat "$sys/health/state")"; emu_ctl hca 0 health-syndrome 0 >/dev/null; echo Y >"$param/recovery"; return 1; }
	msg=$(/bin/echo $NVF 2>&1 >"$sys/sriov_numvfs")
	rc=$?
	echo "$msg"
	dmesg | tail -n +$((m + 1)) | grep "SR-IOV: not enabling"
	ok=1
	[ $rc -ne 0 ] && case $msg in *"busy"*) ;; *) false ;; esac || { echo "not refused with EBUSY"; ok=0; }
	dmesg | tail -n +$((m + 1)) | grep -q "SR-IOV: not enabling $NVF VFs: the function is in the internal-error state" ||
		{ echo "no message saying why"; ok=0; }
	[ "$(cat "$sys/sriov_numvfs")" = 0 ] || { echo "sriov_numvfs $(cat "$sys/sriov_numvfs")"; ok=0; }
	[ "$(emu_ctl hca 0 vfs | grep -c '^vf .* enabled no ')" = "$NVF" ] || { echo "a VF enabled in the device"; ok=0; }
	echo "$pf" >/sys/bus/pci/drivers/mlx5_core/unbind
	emu_ctl hca 0 health-syndrome 0 >/dev/null
	echo Y >"$param/recovery"
	echo "$pf" >/sys/bus/pci/drivers/mlx5_core/bind || { echo "rebind failed"; return 1; }
	wait_for 60 test -e "$sys/infiniband" || { echo "$pf: no RDMA device after the rebind"; return 1; }
	expect "health after the rebind" "$(cat "$sys/health/state")" ok || return 1
	[ $ok = 1 ]
}

# Ours on the PF and on its VFs, bound (issue 32 step 14): a fatal PF
# error; the PF recovers and enables the VFs again; ours on each VF finds
# its nic_interface DISABLED, recovers (its health/recoveries) and is
# ACTIVE again; echo 0 then returns every VF page.
t_ours_recovery_bound()
{
	echo $NVF >"$sys/sriov_numvfs" || return 1
	r0=$(cat "$sys/health/recoveries")
	pf_fatal_vf_prepare || return 1
	m=$(ktap_dmesg_mark)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 120 sh -c "[ \$(cat $sys/health/recoveries) -gt $r0 ]" ||
		{ echo "$pf: no recovery"; emu_ctl hca 0 health-syndrome 0 >/dev/null; return 1; }
	pf_fatal_vfs_recover ours "$m" || return 1
	vfs_agree yes || return 1
	echo 0 >"$sys/sriov_numvfs" || return 1
	vfs_agree no
}

# rmmod of ours with the VFs enabled and bound to ours: the VFs' drivers
# go, SR-IOV is disabled, then the PF; every page of every function back.
t_ours_rmmod()
{
	[ -d /sys/module/mlx5_core ] || { echo "ours not loaded (see the cases before)"; return 1; }
	echo $NVF >"$sys/sriov_numvfs" || return 1
	for f in $vfs; do wait_for 120 vf_bound_ours $f || { echo "$slot.$f: not bound to ours"; return 1; }; done
	m=$(ktap_dmesg_mark)
	rmmod mlx5_ib && rmmod mlx5_core || return 1
	dmesg | tail -n +$((m + 1)) | grep -E "SR-IOV|removed" | head
	for f in $vfs; do ! vf_present $f || { echo "$slot.$f still present"; return 1; }; done
	expect sriov_numvfs "$(cat "$sys/sriov_numvfs")" 0 || return 1
	emu_ctl hca 0 vfs
	[ "$(emu_ctl hca 0 vfs | grep -c '^vf .* enabled no alive no .* pages_held 0 ')" = "$NVF" ] ||
		{ echo "a VF still enabled or holding pages in the emulator"; return 1; }
	emu_pages_back $(seq 0 $((ndev - 1))) || return 1
	mlx5_log_clean "$m"
}

# Our PF, renamed (make modules-renamed: mlx5c_core, mlx5c_ib), with the
# in-tree mlx5_core on its VFs, in one kernel. The VFs are bound by
# driver_override after sriov_drivers_autoprobe 0 (both drivers match the
# VF ID). Skips, saying why, without the renamed build (make check's sriov
# guest does not build it yet).
t_ours_pf_intree_vfs()
{
	[ -f "$rn_core_ko" ] && [ -f "$rn_ib_ko" ] || { echo "SKIP: not built: $rn_core_ko (make modules-renamed)"; return 4; }
	ours_pf_intree_vfs_up || return 1
	for f in $vfs; do
		echo "$slot.$f: $(pci_driver_of "$slot.$f") ($(modinfo -n mlx5_core)), $(pci_ibdev "$slot.$f") ACTIVE"
	done
	vfs_agree yes || return 1
	ours_pf_intree_vfs_down
}

# ours_pf_intree_vfs_up: our PF renamed, the in-tree mlx5_core bound on
# its VFs (driver_override), ACTIVE.
ours_pf_intree_vfs_up()
{
	! mlx5_mixed_loaded || { echo "an mlx5 driver is still loaded"; return 1; }
	modprobe -q ib_uverbs
	echo $rn_core >"$sys/driver_override" || return 1
	insmod "$rn_core_ko" && insmod "$rn_ib_ko" || return 1
	wait_for 60 pci_driver_is "$pf" $rn_core || { echo "$pf: '$(pci_driver_of "$pf")', not $rn_core"; return 1; }
	modprobe mlx5_core && modprobe mlx5_ib || return 1
	echo 0 >"$sys/sriov_drivers_autoprobe" || return 1
	echo $NVF >"$sys/sriov_numvfs" || { dmesg | tail -n 10; return 1; }
	for f in $vfs; do
		echo mlx5_core >"/sys/bus/pci/devices/$slot.$f/driver_override" || return 1
		echo "$slot.$f" >/sys/bus/pci/drivers_probe
	done
	for f in $vfs; do
		wait_for 120 vf_bound_ours $f || { echo "$slot.$f: '$(pci_driver_of "$slot.$f")', no RDMA device"; return 1; }
		vf_up_active $f || return 1
		echo "$slot.$f: $(pci_driver_of "$slot.$f") ($(modinfo -n mlx5_core)), $(pci_ibdev "$slot.$f") ACTIVE"
	done
}

# ours_pf_intree_vfs_down: echo 0 returns every VF page, both pairs
# unloaded, every page back.
ours_pf_intree_vfs_down()
{
	echo 0 >"$sys/sriov_numvfs" || return 1
	vfs_agree no || return 1
	echo 1 >"$sys/sriov_drivers_autoprobe"
	mlx5_unload_ours_renamed && mlx5_unload in-tree || return 1
	echo >"$sys/driver_override"
	emu_pages_back $(seq 0 $((ndev - 1)))
}

# The same pair through a fatal error of our PF with the in-tree VFs bound
# (issue 32 step 14): our PF recovers and enables the VFs again in the
# device, each in-tree VF sees the error and recovers.
t_ours_pf_fatal_intree_vfs()
{
	[ -f "$rn_core_ko" ] && [ -f "$rn_ib_ko" ] || { echo "SKIP: not built: $rn_core_ko (make modules-renamed)"; return 4; }
	ours_pf_intree_vfs_up || return 1
	r0=$(cat "$sys/health/recoveries")
	m=$(ktap_dmesg_mark)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 120 sh -c "[ \$(cat $sys/health/recoveries) -gt $r0 ]" ||
		{ echo "$pf: no recovery"; emu_ctl hca 0 health-syndrome 0 >/dev/null; dmesg | tail -n +$((m + 1)) | grep -i mlx5 | tail -n 20; return 1; }
	dmesg | tail -n +$((m + 1)) | grep -E "$pf.*(recover|SR-IOV)"
	pf_fatal_vfs_recover mlx5_core "$m" || return 1
	vfs_agree yes || return 1
	ours_pf_intree_vfs_down
}

# --- The legacy e-switch of the in-tree PF (issue 32 steps 12-13; the
# Ethernet lane: scripts/vm --hca 2 --vfs 2,0 --emu-arg --link --emu-arg
# eth). The in-tree PF programs the emulator's e-switch (FDB, MPFS, the
# VFs' ACLs, the esw vport context); `ip link set <pf> vf 0 ...` reads back
# and takes effect. The HCAs: 0 the PF, 1 the PF alone, 2.. its VFs.
ESW_MAC=02:00:00:00:32:10
ESW_MB=${MLX5_ESW_MB:-8}

# esw_netdev BDF: the function's netdev.
esw_netdev() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }
# esw_counter HCA KEY: a counter of `emu_ctl hca HCA nic`'s eth line.
esw_counter() { emu_ctl hca "$1" nic | awk -v k="$2" '$1 == "eth" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# esw_cmd_errors MARK: the in-tree driver's failed-command lines since MARK.
esw_cmd_errors() { ktap_dmesg_since "$1" 'mlx5_core.*(failed, status|syndrome)'; }

# esw_eth: the PF's port is Ethernet (the cases are planned only when the
# emulator's port is) and has its netdev, $pfdev.
esw_eth()
{
	ib=$(ls "$sys/infiniband" 2>/dev/null | head -n 1)
	[ "$(cat "/sys/class/infiniband/$ib/ports/1/link_layer" 2>/dev/null)" = Ethernet ] ||
		{ echo "the emulator's port is Ethernet, the PF's RDMA port not"; return 1; }
	pfdev=$(esw_netdev "$pf")
	[ -n "$pfdev" ] || { echo "the PF has no netdev"; return 1; }
}

# The e-switch the PF's driver built at `echo N > sriov_numvfs`: no failed
# command in the kernel log since $esw_mark (the driver's load); the
# emulator shows its FDB. (With the in-tree VFs' netdevs still down the
# MPFS is empty here: the drivers add the unicast addresses of open
# netdevs only.)
esw_mark=$dmesg_start
t_esw_setup()
{
	esw_eth || return
	! esw_cmd_errors "$esw_mark" || { echo "failed commands in the kernel log"; return 1; }
	emu_ctl hca 0 esw
	emu_ctl hca 0 esw | grep -q '^  fdb of vport 0: root 0x[1-9a-f]' || { echo "no FDB root"; return 1; }
}

# mpfs_has MAC: the emulator's MPFS (hca 0 esw) holds MAC.
mpfs_has() { emu_ctl hca 0 esw | grep -q "^  mpfs [0-9]* $1\$"; }

# Ours: the VFs' netdevs are up (t_ours_enable), each published its MAC on
# its vport; the NIC_VPORT_CHANGE our PF armed brought it into the MPFS
# and the FDB; the PF's own open netdev's MAC is there too.
t_ours_esw_setup()
{
	t_esw_setup || return
	ip link set "$pfdev" up || return 1
	for f in $vfs; do
		nd=$(esw_netdev "$slot.$f")
		[ -n "$nd" ] || { echo "$slot.$f: no netdev"; return 1; }
		mac=$(cat "/sys/class/net/$nd/address")
		wait_for 30 mpfs_has "$mac" || { echo "$slot.$f ($nd, $mac) not in the MPFS"; return 1; }
	done
	mac=$(cat "/sys/class/net/$pfdev/address")
	wait_for 30 mpfs_has "$mac" || { echo "the PF's $mac not in the MPFS"; return 1; }
	emu_ctl hca 0 esw | grep -q '^  fdb of vport 0: .* [1-9][0-9]* entries' || { echo "no FDB rule"; return 1; }
}

# ip link set <pf> vf 0 mac/vlan/spoofchk/trust/state, read back in
# ip link show; a rebind of VF 0 brings its netdev up with that MAC.
t_esw_vf_config()
{
	esw_eth || return
	m=$(ktap_dmesg_mark)
	ip link set "$pfdev" vf 0 mac $ESW_MAC vlan 100 spoofchk on trust on state enable || return 1
	ip link show "$pfdev" | grep 'vf 0'
	line=$(ip link show "$pfdev" | grep 'vf 0')
	for w in "link/ether $ESW_MAC" "vlan 100" "spoof checking on" "link-state enable" "trust on"; do
		case $line in *"$w"*) ;; *) echo "vf 0: no '$w'"; return 1 ;; esac
	done
	emu_ctl hca 0 esw
	ip link set "$pfdev" vf 0 vlan 0 trust off state auto || return 1
	line=$(ip link show "$pfdev" | grep 'vf 0')
	for w in "trust off" "link-state auto"; do
		case $line in *"$w"*) ;; *) echo "vf 0: no '$w'"; return 1 ;; esac
	done
	case $line in *"vlan 100"*) echo "vf 0: vlan 100 stays"; return 1 ;; esac
	echo "$slot.1" >/sys/bus/pci/drivers/mlx5_core/unbind || return 1
	echo "$slot.1" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	wait_for 60 sh -c "[ -n \"\$(ls /sys/bus/pci/devices/$slot.1/net 2>/dev/null)\" ]" || { echo "VF 0: no netdev"; return 1; }
	vf0=$(esw_netdev "$slot.1")
	expect "VF 0 ($vf0) MAC" "$(cat "/sys/class/net/$vf0/address")" $ESW_MAC || return 1
	! esw_cmd_errors "$m" || { echo "failed commands in the kernel log"; return 1; }
}

# esw_traffic PEER-DEV NAME: VF 0 in mlx5ns0, PEER-DEV in mlx5ns1: ping and a
# TCP transfer with its sha256.
esw_traffic()
{
	netdev_pair_up "$vf0" "$1" || { netdev_pair_down "$vf0" "$1"; return 1; }
	ipoib_in 0 ping -c 3 -i 0.2 -W 10 10.77.0.2 && ns_tcp_transfer mlx5ns0 mlx5ns1 10.77.0.2 "$ESW_MB" "$2"
	_rc=$?
	netdev_pair_down "$vf0" "$1"
	return $_rc
}

# vf0_rx_packets: VF 0's received packets in ip -s link show <pf>
# (ndo_get_vf_stats: the VF vport's counters).
vf0_rx_packets()
{
	ip -s link show "$pfdev" | awk '$1 == "vf" && $2 == "0" { f = 1; next }
		f && $1 == "RX:" { getline; print $2; exit }'
}

# VF 0 and its PF through the e-switch; VF 0's stats on the PF move.
t_esw_vf_pf()
{
	esw_eth || return
	r0=$(vf0_rx_packets)
	esw_traffic "$pfdev" esw_vf_pf || return 1
	r1=$(vf0_rx_packets)
	echo "ip -s link show $pfdev: vf 0 RX packets ${r0:-none} -> ${r1:-none}"
	[ "${r1:-0}" -gt "${r0:-0}" ] || { ip -s link show "$pfdev"; return 1; }
}

# VF 0 and hca1 (the other adapter, out of the uplink).
t_esw_vf_uplink()
{
	esw_eth || return
	other=""
	for d in $devs; do case $d in "$slot".*) ;; *) other=$d; break ;; esac; done
	[ -n "$other" ] || { echo "no second adapter"; return 1; }
	wait_for 60 sh -c "[ -n \"\$(ls /sys/bus/pci/devices/$other/net 2>/dev/null)\" ]" || { echo "$other: no netdev"; return 1; }
	esw_traffic "$(esw_netdev "$other")" esw_vf_uplink
}

# Spoof check on (the in-tree PF's ingress ACL of VF 0): a frame from VF 0
# with another source MAC is dropped by the ACL (counted), its own passes.
t_esw_spoofchk()
{
	esw_eth || return
	netdev_pair_up "$vf0" "$pfdev" || { netdev_pair_down "$vf0" "$pfdev"; return 1; }
	esw_spoof_steps
	_rc=$?
	ipoib_in 0 ip link set "$vf0" address $ESW_MAC
	netdev_pair_down "$vf0" "$pfdev"
	ip link set "$pfdev" vf 0 spoofchk off || return 1
	return $_rc
}

esw_spoof_steps()
{
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 || { echo "no ping from VF 0's own MAC"; return 1; }
	s0=$(esw_counter 2 tx_acl_dropped)
	ipoib_in 0 ip link set "$vf0" address 02:de:ad:00:00:01 || return 1
	! ipoib_in 0 ping -c 2 -i 0.2 -W 2 10.77.0.2 >/dev/null 2>&1 || { echo "a spoofed source MAC got through"; return 1; }
	s1=$(esw_counter 2 tx_acl_dropped)
	echo "hca 2 (VF 0) tx_acl_dropped $s0 -> $s1"
	[ "${s1:-0}" -gt "${s0:-0}" ] || return 1
	ipoib_in 0 ip link set "$vf0" address $ESW_MAC
	ipoib_in 0 ping -c 2 -i 0.2 -W 10 10.77.0.2 || { echo "no ping after the MAC came back"; return 1; }
}

# --- InfiniBand VF administration through IPoIB (issue 32 step 20; the
# InfiniBand lane). The PF's driver sets VF 0's GUIDs and link policy in
# its HCA vport (MODIFY_HCA_VPORT_CONTEXT other_vport) and reads its vport
# counters: `ip link set <pf-ib> vf 0 node_guid|port_guid|state`, the VF
# lines of `ip [-s] link show <pf-ib>`. The same cases for the in-tree PF
# (the oracle) and ours, each with its own GUIDs (the emulator keeps a
# VF's vport record across the drivers). The HCAs: 0 the PF, 1 the PF
# alone, 2.. its VFs.

# ibv_pf: ib_ipoib loaded, the PF's IPoIB interface in $pfib.
ibv_pf()
{
	modprobe ib_ipoib || { echo "modprobe ib_ipoib failed"; return 1; }
	pfibdev=$(pci_ibdev "$pf")
	wait_for 30 ipoib_netdev "$pfibdev" || { echo "$pf ($pfibdev): no IPoIB interface"; return 1; }
	pfib=$(ipoib_netdev "$pfibdev")
}

# ibv_line VF: VF's line of ip link show <pf-ib>.
ibv_line() { ip link show "$pfib" | grep -i -E "^ +vf $1 "; }

# ibv_has VF WORDS...: VF's line has each of WORDS (case ignored).
ibv_has()
{
	_l=$(ibv_line "$1")
	shift
	for _w in "$@"; do
		echo "$_l" | grep -q -i -F "$_w" || { echo "no '$_w' in: $_l"; return 1; }
	done
}

# ibv_vf_port VF: the state of VF's RDMA port 1 (sysfs, "4: ACTIVE").
ibv_vf_port() { cat "/sys/class/infiniband/$(pci_ibdev "$slot.$(($1 + 1))")/ports/1/state" 2>/dev/null; }
ibv_vf_port_is() { case $(ibv_vf_port "$1") in *"$2"*) return 0 ;; esac; return 1; }

# has_ibdev BDF: the function has its RDMA device.
has_ibdev() { [ -n "$(pci_ibdev "$1")" ]; }

# ibv_rebind VF: VF's driver (mlx5_core, ours or in-tree) unbound and
# bound again; its RDMA port back ACTIVE.
ibv_rebind()
{
	_f=$slot.$(($1 + 1))
	echo "$_f" >/sys/bus/pci/drivers/mlx5_core/unbind || return 1
	echo "$_f" >/sys/bus/pci/drivers/mlx5_core/bind || return 1
	wait_for 60 has_ibdev "$_f" || { echo "$_f: no RDMA device after the rebind"; return 1; }
	wait_for 60 ibv_vf_port_is "$1" ACTIVE || { echo "$_f: port $(ibv_vf_port "$1")"; return 1; }
}

# ibv_vf_guids VF: the node GUID and GID[0] (the port GUID in its low half)
# of VF's RDMA device.
ibv_vf_guids()
{
	_d=/sys/class/infiniband/$(pci_ibdev "$slot.$(($1 + 1))")
	echo "$(cat "$_d/node_guid") $(cat "$_d/ports/1/gids/0")"
}

# sysfs_guid 11:22:33:44:55:66:77:88 -> 1122:3344:5566:7788
sysfs_guid() { echo "$1" | sed 's/\(..\):\(..\)/\1\2/g'; }

# ibv_guid NODE PORT: VF 0's GUIDs set through the PF, read back on the
# PF; VF 1's untouched; VF 0 rebound has them (node GUID, GID[0]).
ibv_guid()
{
	ibv_pf || return 1
	# One GUID a command: rtnetlink applies only the first of the two.
	ip link set "$pfib" vf 0 node_guid "$1" || return 1
	ip link set "$pfib" vf 0 port_guid "$2" || return 1
	ip link show "$pfib" | grep -i -E '^ +vf '
	ibv_has 0 "NODE_GUID $1" "PORT_GUID $2" || return 1
	! ibv_line 1 | grep -q -i -F "$1" || { echo "VF 1 shows VF 0's GUID"; return 1; }
	emu_ctl hca 0 vport | grep -i guid
	ibv_rebind 0 || return 1
	got=$(ibv_vf_guids 0)
	echo "VF 0 (node_guid, gids/0): $got"
	case $got in "$(sysfs_guid "$1") "*":$(sysfs_guid "$2")") ;; *)
		echo "expected node_guid $(sysfs_guid "$1"), GID[0] ending $(sysfs_guid "$2")"; return 1 ;; esac
}

# ibv_link: vf 0 state disable takes VF 0's port DOWN (VF 1's stays
# ACTIVE), enable and auto bring it back ACTIVE; each read back.
ibv_link()
{
	ibv_pf || return 1
	ibv_vf_port_is 0 ACTIVE || { echo "VF 0 port: $(ibv_vf_port 0)"; return 1; }
	ip link set "$pfib" vf 0 state disable || return 1
	ibv_has 0 "link-state disable" || return 1
	wait_for 30 ibv_vf_port_is 0 DOWN || { echo "VF 0 port: $(ibv_vf_port 0), not DOWN"; return 1; }
	echo "disable: VF 0 port $(ibv_vf_port 0), VF 1 port $(ibv_vf_port 1)"
	ibv_vf_port_is 1 ACTIVE || { echo "VF 1 went down with VF 0"; return 1; }
	for st in enable auto; do
		ip link set "$pfib" vf 0 state $st || return 1
		ibv_has 0 "link-state $st" || return 1
		wait_for 30 ibv_vf_port_is 0 ACTIVE || { echo "$st: VF 0 port $(ibv_vf_port 0)"; return 1; }
		echo "$st: VF 0 port $(ibv_vf_port 0)"
	done
	! ip link set "$pfib" vf $NVF state disable 2>/dev/null || { echo "vf $NVF (none) accepted"; return 1; }
}

# ibv_stat VF rx|tx: "BYTES PACKETS" of VF's stats in ip -s link show.
ibv_stat()
{
	ip -s link show "$pfib" | awk -v v="vf$1" -v d="$2:" '
		$1 == "vf" { cur = "vf" $2 }
		cur == v && tolower($1) == d { getline; print $1, $2; exit }'
}

# ibv_tx_moved VF "BYTES PACKETS": VF's transmitted packets are more.
ibv_tx_moved()
{
	set -- "$1" $2 $(ibv_stat "$1" tx)
	[ -n "$4" ] && [ "$4" -gt "$3" ]
}

# ibv_stats: VF 0's stats readable; VF 0's IPoIB interface up (its
# multicast joins, MADs to the SA) moves its transmit counters. (IPoIB
# does not get its carrier on a VF yet: the emulator's VFs share their
# PF's LID without the GRH demux, issue 32 part 2.)
ibv_stats()
{
	ibv_pf || return 1
	ip -s link show "$pfib" | sed -n '/vf 0 /,/vf 1 /p'
	tx0=$(ibv_stat 0 tx) rx0=$(ibv_stat 0 rx)
	[ -n "$tx0" ] && [ -n "$rx0" ] || { echo "no VF 0 stats"; return 1; }
	vfib=$(ipoib_netdev "$(pci_ibdev "$slot.1")") || { echo "VF 0: no IPoIB interface"; return 1; }
	ip link set "$vfib" up || return 1
	wait_for 30 ibv_tx_moved 0 "$tx0"
	rc=$?
	echo "VF 0 tx (bytes packets): $tx0 -> $(ibv_stat 0 tx), rx: $rx0 -> $(ibv_stat 0 rx)"
	ip link set "$vfib" down
	[ $rc = 0 ] || { echo "VF 0 tx packets did not move"; return 1; }
}

# ibv_restore NODE: VF 0's node GUID set through the PF, then changed
# behind the PF's back (the control channel, as firmware that forgot it
# would have it); echo 0 and echo N: the PF sets it again while it enables
# the VFs, and VF 0 has it.
ibv_restore()
{
	ibv_pf || return 1
	ip link set "$pfib" vf 0 node_guid "$1" || return 1
	emu_ctl hca 2 vport guid node 0x0002c90300abcdef || return 1
	echo 0 >"$sys/sriov_numvfs" || return 1
	echo $NVF >"$sys/sriov_numvfs" || return 1
	ibv_has 0 "NODE_GUID $1" || return 1
	wait_for 120 has_ibdev "$slot.1" || { echo "VF 0: no RDMA device"; return 1; }
	wait_for 60 ibv_vf_port_is 0 ACTIVE || { echo "VF 0 port: $(ibv_vf_port 0)"; return 1; }
	got=$(ibv_vf_guids 0)
	echo "VF 0 (node_guid, gids/0): $got"
	case $got in "$(sysfs_guid "$1") "*) ;; *) echo "expected node_guid $(sysfs_guid "$1")"; return 1 ;; esac
}

ibv_done() { ip link set "$pfib" vf 0 state auto 2>/dev/null; modprobe -r ib_ipoib; }

t_ibv_intree_guid() { ibv_guid 11:22:33:44:55:66:77:88 11:22:33:44:55:66:77:89; }
t_ibv_intree_link() { ibv_link; }
t_ibv_intree_stats() { ibv_stats; }
t_ibv_intree_restore() { ibv_restore 11:22:33:44:55:66:77:80 && ibv_done; }
t_ibv_ours_guid() { ibv_guid 11:22:33:44:55:66:77:98 11:22:33:44:55:66:77:99; }
t_ibv_ours_link() { ibv_link; }
t_ibv_ours_stats() { ibv_stats; }
t_ibv_ours_restore() { ibv_restore 11:22:33:44:55:66:77:90 && ibv_done; }

# --- Issue 32 step 14: the adapter's events reaching bound VFs, and the
# e-switch's transmit rates. A PF's fatal error (or reset, or DISABLE_HCA
# of a live VF) resets its VFs: each VF's init segment reads nic_interface
# DISABLED and shows the adapter's health syndrome, so the VF driver's
# health poller finds it, recovers, and waits (initializing) until the PF,
# recovered, enables it again.

# pf_fatal_vf_prepare: every VF bound with its RDMA device, its netdev
# (Ethernet) up, port ACTIVE.
pf_fatal_vf_prepare()
{
	for f in $vfs; do
		wait_for 120 vf_bound_ours $f || { echo "$slot.$f: '$(pci_driver_of "$slot.$f")', no RDMA device"; return 1; }
		nd=$(esw_netdev "$slot.$f")
		[ -z "$nd" ] || ip link set "$nd" up || return 1
		wait_for 60 vf_active $f || { echo "$slot.$f: port not ACTIVE"; return 1; }
	done
}

# pf_fatal_vfs_recover DRIVER MARK: after a fatal PF error injected at MARK,
# every VF, bound to DRIVER, recovered (its driver's own words, DRIVER
# mlx5_core: the in-tree health recovery; ours: its recovery counter),
# is bound again with its RDMA device ACTIVE (ibv_devinfo), and no
# command of a VF waited out its timeout.
pf_fatal_vfs_recover()
{
	for f in $vfs; do
		if [ "$1" = ours ]; then
			wait_for 240 sh -c "[ \$(cat /sys/bus/pci/devices/$slot.$f/health/recoveries 2>/dev/null || echo 0) -gt 0 ]" ||
				{ echo "$slot.$f: no recovery"; dmesg | tail -n +$(($2 + 1)) | grep "$slot.$f" | tail -n 20; return 1; }
		else
			wait_for 240 sh -c "dmesg | tail -n +$(($2 + 1)) | grep -q '$slot.$f.*recovery succeeded'" ||
				{ echo "$slot.$f: no recovery"; dmesg | tail -n +$(($2 + 1)) | grep "$slot.$f" | tail -n 20; return 1; }
		fi
	done
	dmesg | tail -n +$(($2 + 1)) | grep -E "$slot\.[1-7].*([Ff]atal|DISABLED|disabled|recover)" | head -n 12
	pf_fatal_vf_prepare || return 1
	for f in $vfs; do
		ib=$(pci_ibdev "$slot.$f")
		ibv_devinfo -d "$ib" | grep -E 'hca_id|state'
		ibv_devinfo -d "$ib" | grep -q 'state:.*PORT_ACTIVE' || { echo "$ib: not PORT_ACTIVE"; return 1; }
	done
	! ktap_dmesg_since "$2" "$slot\.[1-7].*(timeout|timed out)" || { echo "a VF command waited out its timeout"; return 1; }
	[ "$(emu_ctl hca 0 vfs | grep -c '^vf .* enabled yes alive yes ')" = "$NVF" ] ||
		{ emu_ctl hca 0 vfs; echo "not every VF enabled again"; return 1; }
}

# The in-tree pair: a fatal error of the PF with its VFs bound to the
# in-tree mlx5_core. The PF recovers (software reset, reload, the VFs
# enabled again); each VF's health poller sees the error and recovers.
t_intree_pf_fatal_vfs()
{
	pci_driver_is "$pf" mlx5_core || { echo "the in-tree mlx5_core is not on the PF"; return 1; }
	pf_fatal_vf_prepare || return 1
	m=$(ktap_dmesg_mark)
	emu_ctl hca 0 health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 120 sh -c "dmesg | tail -n +$((m + 1)) | grep -q '$pf.*recovery succeeded'" ||
		{ echo "$pf: no recovery"; emu_ctl hca 0 health-syndrome 0 >/dev/null; dmesg | tail -n +$((m + 1)) | grep mlx5 | tail -n 20; return 1; }
	pf_fatal_vfs_recover mlx5_core "$m"
}

# bits_per_s MIB START END: the rate of MIB MiB in END - START seconds, Mb/s.
mbits_per_s() { awk -v m="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f\n", m * 8 * 1.048576 / (b - a) }'; }

# rate_transfer NAME: VF 0 (mlx5ns0) to the PF (mlx5ns1), ESW_RATE_MB MiB
# over TCP with its sha256; the rate in $mbps.
ESW_RATE_MB=${MLX5_ESW_RATE_MB:-4}
rate_transfer()
{
	_t0=$(ktap_now)
	ns_tcp_transfer mlx5ns0 mlx5ns1 10.77.0.2 "$ESW_RATE_MB" "$1" || return 1
	mbps=$(mbits_per_s "$ESW_RATE_MB" "$_t0" "$(ktap_now)")
}

# ip link set <pf> vf 0 max_tx_rate M min_tx_rate m (the in-tree PF's
# scheduling elements): read back, the emulator paces VF 0's vport at M
# Mb/s. M is an eighth of what VF 0 sends unlimited, measured first; a
# benchmark, so only a gross violation fails (above 3 M); the figures are
# printed. Then the rate is removed.
t_esw_vf_rate()
{
	esw_eth || return
	netdev_pair_up "$vf0" "$pfdev" || { netdev_pair_down "$vf0" "$pfdev"; return 1; }
	esw_rate_steps
	_rc=$?
	ip -n mlx5ns1 link set "$pfdev" vf 0 max_tx_rate 0 min_tx_rate 0
	netdev_pair_down "$vf0" "$pfdev"
	[ $_rc = 0 ] || return 1
	emu_ctl hca 0 esw | grep 'vport 1 tx_rate_mbps' && { echo "the rate stayed after max_tx_rate 0"; return 1; }
	return 0
}

esw_rate_steps()
{
	rate_transfer esw_rate_base || return 1
	base=$mbps
	limit=$(awk -v b="$base" 'BEGIN { l = int(b / 8); print l < 1 ? 1 : l }')
	min=$((limit / 2))
	m=$(ktap_dmesg_mark)
	ip -n mlx5ns1 link set "$pfdev" vf 0 max_tx_rate $limit min_tx_rate $min || return 1
	line=$(ip -n mlx5ns1 link show "$pfdev" | grep 'vf 0')
	echo "$line"
	case $line in *"max_tx_rate ${limit}Mbps"*) ;; *) echo "vf 0: no max_tx_rate ${limit}Mbps"; return 1 ;; esac
	emu_ctl hca 0 esw | grep -E 'sched|tx_rate'
	emu_ctl hca 0 esw | grep -q "vport 1 tx_rate_mbps $limit\$" || { echo "the emulator does not pace vport 1 at $limit"; return 1; }
	w0=$(esw_counter 2 tx_rate_waits)
	rate_transfer esw_rate_limited || return 1
	w1=$(esw_counter 2 tx_rate_waits)
	echo "VF 0 -> PF: ${base} Mb/s unlimited; max_tx_rate $limit: ${mbps} Mb/s (hca 2 tx_rate_waits $w0 -> $w1)"
	awk -v r="$mbps" -v l="$limit" 'BEGIN { exit !(r <= 3 * l) }' || { echo "more than 3x the limit"; return 1; }
	[ "${w1:-0}" -gt "${w0:-0}" ] || { echo "VF 0's send queues never waited"; return 1; }
	! esw_cmd_errors "$m" || { echo "failed commands in the kernel log"; return 1; }
}

# The e-switch cases are the Ethernet lane's (--link eth); an InfiniBand
# PF has no legacy e-switch to program, so they are not planned there.
# The emulator says which: `hca 0 qos` answers on an Ethernet port only
# (an error otherwise); the PF's PCI class is InfiniBand's on both, as on
# a VPI ConnectX.
pf_eth=false
emu_ctl hca 0 qos >/dev/null 2>&1 && pf_eth=true
# Our PF's cases run on both lanes; on Ethernet with its legacy e-switch
# (issue 32 steps 18-19: core/eswitch/, en/vf.c) and the same e-switch
# cases as the in-tree PF's, plus the VFs' MACs in the MPFS; on
# InfiniBand with the VF GUID, link-state and stats cases (ib/sriov.c).
# Ours through a PF fatal error with its VFs bound: InfiniBand only yet.
if $pf_eth; then ktap_begin 28; else ktap_begin 27; fi
ktap_case "before the shim: QEMU hides the SR-IOV header at 0x100 and passes the body" t_passthrough
ktap_case "insmod sriov_shim refuses no pf=, a VF slot and a PF without the capability, saying why" t_shim_refusals
ktap_case "insmod sriov_shim: lspci shows SR-IOV (TotalVFs $NVF, offset 1, stride 1, VF device ID), VFs hidden" t_shim
ktap_case "echo $((NVF + 1)) > sriov_numvfs fails with ERANGE" t_erange
ktap_case "pci-pf-stub on the PF, echo $NVF > sriov_numvfs: $NVF VFs with BARs in the PF's VF BARs" t_enable
ktap_case "in-tree mlx5_core on the PF, echo $NVF > sriov_numvfs: the VFs enabled, the in-tree mlx5_core binds them, ibv_devinfo lists them" t_vf_driver
$pf_eth || ktap_case "in-tree PF: ip link set <pf-ib> vf 0 node_guid/port_guid read back; VF 0 rebound has them" t_ibv_intree_guid
$pf_eth || ktap_case "in-tree PF: vf 0 state disable takes VF 0's port DOWN (VF 1 stays ACTIVE), enable/auto ACTIVE" t_ibv_intree_link
$pf_eth || ktap_case "in-tree PF: VF 0's stats in ip -s link show move with its traffic" t_ibv_intree_stats
$pf_eth || ktap_case "in-tree PF: VF 0's node GUID set again at echo 0/echo $NVF" t_ibv_intree_restore
! $pf_eth || ktap_case "the in-tree PF's legacy e-switch: FDB programmed, no failed command" t_esw_setup
! $pf_eth || ktap_case "ip link set <pf> vf 0 mac/vlan/spoofchk/trust/state read back; VF 0 rebound has the MAC" t_esw_vf_config
! $pf_eth || ktap_case "VF 0 <-> PF: ping, TCP ${ESW_MB} MiB sha256, VF 0 RX packets up in ip -s link show <pf>" t_esw_vf_pf
! $pf_eth || ktap_case "VF 0 <-> hca1 out of the uplink: ping, TCP ${ESW_MB} MiB sha256" t_esw_vf_uplink
! $pf_eth || ktap_case "spoofchk on: a spoofed source MAC from VF 0 is dropped by its ingress ACL" t_esw_spoofchk
! $pf_eth || ktap_case "ip link set <pf> vf 0 max_tx_rate: read back, VF 0's TCP to the PF paced (at most 3x the limit)" t_esw_vf_rate
ktap_case "in-tree pair: a fatal PF error with $NVF VFs bound: the PF and each VF recover, PORT_ACTIVE, no command waited out" t_intree_pf_fatal_vfs
ktap_case "echo 0 > sriov_numvfs removes the VFs, firmware pages back" t_disable
ktap_case "our mlx5_core on the PF: debugfs vfs with total_vfs $NVF, none enabled" t_ours_pf_load
ktap_case "ours on the PF: echo $((NVF + 1)) > sriov_numvfs fails with ERANGE" t_ours_erange
ktap_case "ours on the PF, echo $NVF > sriov_numvfs: VFs enabled with pages (debugfs vfs = hca 0 vfs), ours binds them, PORT_ACTIVE" t_ours_enable
$pf_eth || ktap_case "ours on the PF: ip link set <pf-ib> vf 0 node_guid/port_guid read back; VF 0 rebound has them" t_ibv_ours_guid
$pf_eth || ktap_case "ours on the PF: vf 0 state disable takes VF 0's port DOWN (VF 1 stays ACTIVE), enable/auto ACTIVE" t_ibv_ours_link
$pf_eth || ktap_case "ours on the PF: VF 0's stats in ip -s link show move with its traffic" t_ibv_ours_stats
$pf_eth || ktap_case "ours on the PF: VF 0's node GUID set again at echo 0/echo $NVF" t_ibv_ours_restore
! $pf_eth || ktap_case "our PF's legacy e-switch: FDB programmed, no failed command, the VFs' and the PF's MACs in the MPFS" t_ours_esw_setup
! $pf_eth || ktap_case "ours: ip link set <pf> vf 0 mac/vlan/spoofchk/trust/state read back; VF 0 rebound has the MAC" t_esw_vf_config
! $pf_eth || ktap_case "ours: VF 0 <-> PF: ping, TCP ${ESW_MB} MiB sha256, VF 0 RX packets up in ip -s link show <pf>" t_esw_vf_pf
! $pf_eth || ktap_case "ours: VF 0 <-> hca1 out of the uplink: ping, TCP ${ESW_MB} MiB sha256" t_esw_vf_uplink
! $pf_eth || ktap_case "ours: spoofchk on: a spoofed source MAC from VF 0 is dropped by its ingress ACL" t_esw_spoofchk
ktap_case "ours on the PF, echo 0 > sriov_numvfs: the VFs go, every VF page back, the e-switch down (Ethernet)" t_ours_disable
ktap_case "ours on the PF with $NVF VFs (unbound): a fatal PF error is recovered, the VFs (and the e-switch) enabled again in the device" t_ours_recovery
ktap_case "ours on the PF in the internal-error state (recovery off): echo $NVF > sriov_numvfs refused with EBUSY, saying why" t_ours_refuse_error
$pf_eth || ktap_case "ours on the PF and on its $NVF VFs, bound: a fatal PF error, the PF and each VF recover, PORT_ACTIVE" t_ours_recovery_bound
ktap_case "rmmod of ours with $NVF VFs enabled and bound: VFs disabled first, every page back, no splat" t_ours_rmmod
ktap_case "our PF renamed (mlx5c_core), the in-tree mlx5_core on its $NVF VFs: ACTIVE, pages agree, echo 0 returns them" t_ours_pf_intree_vfs
$pf_eth || ktap_case "our PF renamed, the in-tree mlx5_core bound on its $NVF VFs: a fatal PF error, the PF and each VF recover" t_ours_pf_fatal_intree_vfs
ktap_case "rmmod sriov_shim: the slot as at boot, no SR-IOV capability" t_unload
ktap_end
