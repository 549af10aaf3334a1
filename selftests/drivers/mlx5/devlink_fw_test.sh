#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devlink firmware info and flash on the IN-TREE mlx5_core, against the
# emulator's firmware-update registers (MCAM, MCQS, MCQI, MCC, MCDA:
# emu/src/fw/fw_update.h): `devlink dev info` shows the running and stored
# versions the init segment has; `devlink dev flash` of an MFA2 package
# (scripts/mkmfa2) stores a new version, which runs after a firmware
# reset (the fw_fatal recovery's software reset: the emulator has no MFRL
# sync reset, so `reload action fw_activate` is not offered); corrupt
# images and a failed verify are refused with the old firmware running.
# Ours has no devlink flash yet: no cases for it.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
dev0=$(echo $devs | cut -d' ' -f1)
fwdir=$(mktemp -d /tmp/mlx5_fw.XXXXXX)
fwpath=/sys/module/firmware_class/parameters/path
old_fwpath=$(cat "$fwpath" 2>/dev/null)
orig=16.35.4030 new=16.36.1000 newer=16.37.2000

# info_version running|stored: the fw.version devlink reports for $dev0.
info_version()
{
	devlink dev info "pci/$dev0" | awk -v want="$1:" '
		$1 ~ /:$/ && NF == 1 { sect = $1 }
		sect == want && $1 == "fw.version" { print $2; exit }'
}

# emu_fw running|stored: the emulator's view of hca 0.
emu_fw() { emu_ctl hca 0 fw | awk -v k="$1" '$1 == k { print $2 }'; }

ib_fw_ver() { cat "/sys/class/infiniband/$(pci_ibdev "$dev0")/fw_ver" 2>/dev/null; }

# versions_are RUNNING STORED: devlink, the RDMA device's fw_ver (the init
# segment) and the emulator agree.
versions_are()
{
	_r=$(info_version running) _s=$(info_version stored) _i=$(ib_fw_ver)
	echo "devlink running $_r stored $_s; fw_ver $_i; emulator running $(emu_fw running) stored $(emu_fw stored)"
	[ "$_r" = "$1" ] && [ "$_s" = "$2" ] && [ "$_i" = "$1" ] &&
		[ "$(emu_fw running)" = "$1" ] && [ "$(emu_fw stored)" = "$2" ]
}

mkimage()
{
	_f=$1; shift
	python3 "$top/scripts/mkmfa2" "$@" "$fwdir/$_f" || { echo "mkmfa2 $* failed"; return 1; }
}

flash() { devlink dev flash "pci/$dev0" file "$1" 2>&1; }

t_load()
{
	need_tool devlink python3 || return 1
	[ -w "$fwpath" ] || { echo "no $fwpath"; return 1; }
	printf %s "$fwdir" >"$fwpath" || return 1
	emu_ctl hca 0 fw version $orig >/dev/null || return 1
	mlx5_load in-tree
}

t_info()
{
	devlink dev info "pci/$dev0"
	devlink dev info "pci/$dev0" | grep -q "fw.psid MT_0000000008" || { echo "no fw.psid"; return 1; }
	versions_are $orig $orig
}

t_flash_good()
{
	mkimage good.mfa2 --version $new || return 1
	_o=$(flash good.mfa2) || { echo "$_o"; return 1; }
	echo "$_o" | tail -n 3
	# Stored first; the running firmware is the old one until a reset.
	versions_are $orig $new
}

# The fw_fatal recovery resets the firmware (software reset): the stored
# image boots.
t_reset_runs_it()
{
	intree_fatal_recovered 0 || return 1
	wait_for 30 globs_at_least "$ndev" "/sys/class/infiniband/mlx5_*" || return 1
	versions_are $new $new
}

t_corrupt_refused()
{
	_rc=0
	for _c in crc size magic package; do
		mkimage bad-$_c.mfa2 --version $newer --corrupt $_c || return 1
		if _o=$(flash bad-$_c.mfa2); then
			echo "corrupt ($_c): flash succeeded"; _rc=1
		else
			echo "corrupt ($_c): $(echo "$_o" | grep -i error | head -n 1)"
		fi
	done
	# A package for another board is refused by mlxfw (no such PSID).
	mkimage other.mfa2 --version $newer --psid MT_0000000999 || return 1
	if flash other.mfa2 >/dev/null; then echo "other PSID: flash succeeded"; _rc=1; fi
	emu_ctl hca 0 fw
	[ "$(emu_fw update)" = idle ] || _rc=1
	versions_are $new $new && [ $_rc = 0 ]
}

t_verify_fault()
{
	emu_ctl hca 0 fw fail verify >/dev/null || return 1
	mkimage newer.mfa2 --version $newer || return 1
	if _o=$(flash newer.mfa2); then echo "flash with a failing verify succeeded"; return 1; fi
	echo "$_o" | grep -i error | head -n 1
	echo "$_o" | grep -q "hash mismatch" || return 1
	versions_are $new $new || return 1
	# The fault was one-shot: the same image goes through now.
	_o=$(flash newer.mfa2) || { echo "$_o"; return 1; }
	versions_are $new $newer
}

t_unload()
{
	modprobe -r mlx5_ib && modprobe -r mlx5_core || return 1
	printf %s "$old_fwpath" >"$fwpath"
	rm -rf "$fwdir"
	# The emulator as it booted, for the programs after this one.
	emu_ctl hca 0 fw version $orig >/dev/null && [ "$(emu_fw stored)" = $orig ]
}

ktap_begin 7
ktap_case "in-tree pair loaded, firmware search path set" t_load
ktap_case "devlink dev info: running = stored = the init segment's version" t_info
ktap_case "devlink dev flash of a good MFA2: stored version new, running old" t_flash_good
ktap_case "a firmware reset (fw_fatal recovery) runs the stored image" t_reset_runs_it
ktap_case "corrupt images (CRC, size, magic, package, PSID) refused, old firmware runs" t_corrupt_refused
ktap_case "a failed VERIFY refuses the flash; the next one stores" t_verify_fault
ktap_case "unload, emulator back to its version" t_unload
ktap_end
