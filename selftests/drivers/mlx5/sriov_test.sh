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

ktap_begin 8
ktap_case "before the shim: QEMU hides the SR-IOV header at 0x100 and passes the body" t_passthrough
ktap_case "insmod sriov_shim refuses no pf=, a VF slot and a PF without the capability, saying why" t_shim_refusals
ktap_case "insmod sriov_shim: lspci shows SR-IOV (TotalVFs $NVF, offset 1, stride 1, VF device ID), VFs hidden" t_shim
ktap_case "echo $((NVF + 1)) > sriov_numvfs fails with ERANGE" t_erange
ktap_case "pci-pf-stub on the PF, echo $NVF > sriov_numvfs: $NVF VFs with BARs in the PF's VF BARs" t_enable
ktap_case "in-tree mlx5_core on the PF, echo $NVF > sriov_numvfs: the VFs enabled, the in-tree mlx5_core binds them, ibv_devinfo lists them" t_vf_driver
ktap_case "echo 0 > sriov_numvfs removes the VFs, firmware pages back" t_disable
ktap_case "rmmod sriov_shim: the slot as at boot, no SR-IOV capability" t_unload
ktap_end
