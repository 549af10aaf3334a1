# SPDX-License-Identifier: GPL-2.0
# Shared by the mlx5 selftests: the preamble, loading and unloading a driver
# pair (ours or the in-tree one), a server/client pair of rdma-core or
# perftest tools, and the emulator's object counts. Brings ktap.sh along.
#
# Usage, at the top of a test:
#   dir=$(cd "$(dirname "$0")" && pwd)
#   . "$dir/lib.sh"
# Then: $top (the source tree), $core_ko and $ib_ko (our modules; override
# with MLX5_CORE_KO / MLX5_IB_KO), $out (artifacts: MLX5_OUT or /tmp),
# $bindir (the prebuilt C test programs: MLX5_BIN_DIR, default the tests'
# directory; make selftests-sid builds them against another userland),
# $devs / $ndev (the ConnectX PCI functions).

. "$dir/ktap.sh"

top=${MLX5_SRC:-$(cd "$dir/../../.." && pwd)}
core_ko=${MLX5_CORE_KO:-$top/core/mlx5_core.ko}
ib_ko=${MLX5_IB_KO:-$top/ib/mlx5_ib.ko}
out=${MLX5_OUT:-/tmp}
bindir=${MLX5_BIN_DIR:-$dir}
devs=$(mlx5_pci_devs)
ndev=$(echo $devs | wc -w)

# mlx5_loaded: a mlx5_core or mlx5_ib (ours or in-tree) is loaded.
mlx5_loaded() { [ -d /sys/module/mlx5_core ] || [ -d /sys/module/mlx5_ib ]; }

# globs_at_least N PATTERN: at least N paths match PATTERN (starts no
# program, for wait_for).
globs_at_least()
{
	_ga_n=$1
	set -- $2
	[ -e "$1" ] && [ $# -ge "$_ga_n" ]
}

# mlx5_bound_count: how many ConnectX functions mlx5_core drives.
mlx5_bound_count()
{
	_n=0
	for _d in $devs; do
		[ "$(basename "$(readlink "/sys/bus/pci/devices/$_d/driver")")" = mlx5_core ] && _n=$((_n + 1))
	done
	echo $_n
}

# mlx5_ibdev_count: how many mlx5_N RDMA devices are registered.
mlx5_ibdev_count() { ls /sys/class/infiniband 2>/dev/null | grep -c '^mlx5_'; }

# mlx5_load DRIVER [WHAT [CORE-PARAMETER...]]: load DRIVER ("ours": insmod
# of $core_ko/$ib_ko, "in-tree": modprobe of the guest kernel's modules).
# WHAT is "ib" (default: mlx5_core and mlx5_ib, then one RDMA device per
# function) or "core" (mlx5_core alone, bound to every function). Fails,
# saying why, when an mlx5 driver is loaded already, a module is missing or
# not the expected one, or the devices do not appear.
mlx5_load()
{
	_drv=$1 _what=${2:-ib}
	[ $# -ge 2 ] && shift 2 || shift $#
	if mlx5_loaded; then
		echo "an mlx5 driver is already loaded:"
		grep -E '^mlx5_(ib|core) ' /proc/modules
		return 1
	fi
	# modprobe costs 0.5 s under TCG even for a module already loaded.
	[ -d /sys/bus/auxiliary ] || modprobe -q auxiliary 2>/dev/null
	if [ "$_what" = ib ] && [ ! -d /sys/module/ib_uverbs ]; then
		modprobe -q ib_uverbs || { echo "modprobe ib_uverbs failed"; return 1; }
	fi
	case $_drv in
	ours)
		_mods=$core_ko
		[ "$_what" = ib ] && _mods="$core_ko $ib_ko"
		for _m in $_mods; do
			[ -f "$_m" ] || { echo "module not built: $_m"; return 1; }
		done
		insmod "$core_ko" "$@" || { echo "insmod $core_ko failed"; return 1; }
		if [ "$_what" = ib ]; then
			insmod "$ib_ko" || { echo "insmod $ib_ko failed"; return 1; }
		fi
		;;
	in-tree)
		_mods=mlx5_core
		[ "$_what" = ib ] && _mods="mlx5_core mlx5_ib"
		modprobe mlx5_core "$@" || { echo "modprobe mlx5_core failed"; return 1; }
		if [ "$_what" = ib ]; then
			modprobe mlx5_ib || { echo "modprobe mlx5_ib failed"; return 1; }
		fi
		for _m in $_mods; do
			_p=$(modinfo -n $_m)
			echo "$_m: $_p"
			case "$_p" in */kernel/drivers/*) ;; *) echo "not the in-tree $_m"; return 1 ;; esac
		done
		;;
	*) echo "mlx5_load: unknown driver $_drv"; return 1 ;;
	esac
	mlx5_modmap_note
	wait_for 30 globs_at_least "$ndev" "/sys/bus/pci/drivers/mlx5_core/0000:*" ||
		{ echo "mlx5_core bound $(mlx5_bound_count) of $ndev functions"; return 1; }
	[ "$_what" = ib ] || return 0
	wait_for 30 globs_at_least "$ndev" "/sys/class/infiniband/mlx5_*" ||
		{ echo "$(mlx5_ibdev_count) of $ndev RDMA devices registered"; ls /sys/class/infiniband; return 1; }
}

# Ours under other names (make modules-renamed, MLX5C_MODNAME=mlx5c):
# mlx5c_core and mlx5c_ib, which load beside the in-tree mlx5_core and
# mlx5_ib in one kernel. Override with MLX5_RN_CORE_KO / MLX5_RN_IB_KO.
rn_core=mlx5c_core rn_ib=mlx5c_ib
rn_core_ko=${MLX5_RN_CORE_KO:-$top/build/mlx5c-modules/core/$rn_core.ko}
rn_ib_ko=${MLX5_RN_IB_KO:-$top/build/mlx5c-modules/ib/$rn_ib.ko}

# pci_driver_of DEV: the driver bound to PCI function DEV (nothing if none).
pci_driver_of()
{
	_l=$(readlink "/sys/bus/pci/devices/$1/driver") || return 0
	echo "${_l##*/}"
}

# pci_driver_is DEV DRIVER: PCI function DEV is bound to DRIVER.
pci_driver_is() { [ "$(pci_driver_of "$1")" = "$2" ]; }

# pci_ibdev DEV: the RDMA device (mlx5_N) of PCI function DEV.
pci_ibdev() { ls "/sys/bus/pci/devices/$1/infiniband" 2>/dev/null | head -n 1; }

# mlx5_mixed_loaded: any of the two pairs (in-tree or renamed ours) is loaded.
mlx5_mixed_loaded() { mlx5_loaded || [ -d /sys/module/$rn_core ] || [ -d /sys/module/$rn_ib ]; }

# mlx5_load_mixed IN-TREE-DEV OURS-DEV: the in-tree pair on PCI function
# IN-TREE-DEV and ours, renamed, on OURS-DEV, in one kernel; each function
# is held to its driver by driver_override, so neither core driver takes
# the other's function. The in-tree pair loads first: its RDMA device is
# mlx5_0, ours mlx5_1. Fails, saying why, when a driver of either pair is
# loaded already, the renamed modules are not built, or a function is not
# bound, or has no RDMA device, within 30 s.
mlx5_load_mixed()
{
	_it=$1 _our=$2
	if mlx5_mixed_loaded; then
		echo "an mlx5 driver is already loaded:"
		grep -E "^(mlx5_ib|mlx5_core|$rn_core|$rn_ib) " /proc/modules
		return 1
	fi
	for _m in "$rn_core_ko" "$rn_ib_ko"; do
		[ -f "$_m" ] || { echo "module not built: $_m (make modules-renamed)"; return 1; }
	done
	[ -d /sys/bus/auxiliary ] || modprobe -q auxiliary 2>/dev/null
	[ -d /sys/module/ib_uverbs ] || modprobe -q ib_uverbs || { echo "modprobe ib_uverbs failed"; return 1; }
	echo mlx5_core >"/sys/bus/pci/devices/$_it/driver_override" || return 1
	echo $rn_core >"/sys/bus/pci/devices/$_our/driver_override" || return 1
	modprobe mlx5_core && modprobe mlx5_ib || { echo "modprobe of the in-tree pair failed"; return 1; }
	for _m in mlx5_core mlx5_ib; do
		_p=$(modinfo -n $_m)
		echo "$_m: $_p"
		case "$_p" in */kernel/drivers/*) ;; *) echo "not the in-tree $_m"; return 1 ;; esac
	done
	wait_for 30 pci_driver_is "$_it" mlx5_core || { echo "$_it: bound to '$(pci_driver_of "$_it")', not mlx5_core"; return 1; }
	wait_for 30 sh -c "ls /sys/bus/pci/devices/$_it/infiniband 2>/dev/null | grep -q ." ||
		{ echo "$_it: no RDMA device from the in-tree pair"; return 1; }
	insmod "$rn_core_ko" || { echo "insmod $rn_core_ko failed"; return 1; }
	insmod "$rn_ib_ko" || { echo "insmod $rn_ib_ko failed"; return 1; }
	echo "$rn_core: $rn_core_ko"
	echo "$rn_ib: $rn_ib_ko"
	mlx5_modmap_note
	wait_for 30 pci_driver_is "$_our" $rn_core || { echo "$_our: bound to '$(pci_driver_of "$_our")', not $rn_core"; return 1; }
	wait_for 30 sh -c "ls /sys/bus/pci/devices/$_our/infiniband 2>/dev/null | grep -q ." ||
		{ echo "$_our: no RDMA device from $rn_ib"; return 1; }
	echo "$_it: $(pci_driver_of "$_it"), $(pci_ibdev "$_it"); $_our: $(pci_driver_of "$_our"), $(pci_ibdev "$_our")"
}

# mlx5_unload_ours_renamed: mlx5c_ib (if loaded), then mlx5c_core; fails
# unless both are gone.
mlx5_unload_ours_renamed()
{
	if [ -d /sys/module/$rn_ib ]; then
		rmmod $rn_ib || { echo "rmmod $rn_ib failed"; return 1; }
	fi
	if [ -d /sys/module/$rn_core ]; then
		rmmod $rn_core || { echo "rmmod $rn_core failed"; return 1; }
	fi
	! [ -d /sys/module/$rn_core ] && ! [ -d /sys/module/$rn_ib ]
}

# mlx5_unload_mixed DEV...: both pairs unloaded (ours first), the
# driver_override of every DEV cleared; fails unless every module is gone.
mlx5_unload_mixed()
{
	_rc=0
	mlx5_unload_ours_renamed || _rc=1
	mlx5_unload in-tree || _rc=1
	for _d in "$@"; do
		echo >"/sys/bus/pci/devices/$_d/driver_override" || _rc=1
	done
	return $_rc
}

# mlx5_modmap_note: on a kernel with kmemleak, append the text range of each
# loaded mlx5 module ("MODULE FIRST-SYMBOL LAST-SYMBOL", addresses in hex) to
# $MLX5_MODMAP: once a module is unloaded, kmemleak prints its frames as bare
# addresses, which debug_kernel_test.sh attributes with these ranges.
MLX5_MODMAP=${MLX5_MODMAP:-/tmp/mlx5-modmap}
mlx5_modmap_note()
{
	[ -e /sys/kernel/debug/kmemleak ] || return 0
	awk '$4 ~ /^\[mlx5_[a-z_]+\]$/ && ($2 == "t" || $2 == "T") {
		m = substr($4, 2, length($4) - 2)
		if (!(m in lo) || $1 < lo[m]) lo[m] = $1
		if ($1 > hi[m]) hi[m] = $1
	} END { for (m in lo) print m, lo[m], hi[m] }' /proc/kallsyms >>"$MLX5_MODMAP"
}

# intree_fatal_recovered HCA: a fatal health syndrome on the emulated HCA
# (the firmware crashes), then wait until the in-tree mlx5_core logs that
# its health recovery succeeded; says why not. $fatal_mark: the kernel
# log's line count before the crash.
intree_fatal_recovered()
{
	fatal_mark=$(ktap_dmesg_mark)
	emu_ctl hca "$1" health-syndrome 1 0x42 fatal >/dev/null || return 1
	wait_for 120 sh -c "dmesg | tail -n +$((fatal_mark + 1)) | grep -q 'health recovery succeeded'" || {
		dmesg | tail -n +$((fatal_mark + 1)) | grep mlx5_core | tail -n 20
		echo "no recovery"; return 1; }
}

# emu_pages_back HCA...: every firmware page of each HCA came back from
# the driver; says which did not.
emu_pages_back()
{
	_rc=0
	for _h in "$@"; do
		_p=$(emu_pages_outstanding "$_h")
		[ "$_p" = 0 ] || { echo "hca $_h: $_p pages outstanding"; _rc=1; }
	done
	return $_rc
}

# mlx5_log_clean MARK: the kernel log after line MARK names no failed mlx5
# command or error; prints the first such lines.
mlx5_log_clean()
{
	_bad=$(dmesg | tail -n +$(($1 + 1)) | grep -E 'mlx5_(core|ib)[. ][0-9a-z:.]+: .*(failed|error|err\()' | head)
	[ -z "$_bad" ] || { echo "$_bad"; return 1; }
}

# mlx5_mixed_log_clean MARK: mlx5_log_clean for both pairs (the renamed
# ours logs as mlx5c_core / mlx5c_ib).
mlx5_mixed_log_clean()
{
	_bad=$(dmesg | tail -n +$(($1 + 1)) | grep -E 'mlx5c?_(core|ib)[. ][0-9a-z:.]+: .*(failed|error|err\()' | head)
	[ -z "$_bad" ] || { echo "$_bad"; return 1; }
}

# is_vf_id ID: the PCI device ID (hex, no 0x) of an mlx5 VF (ConnectX-4 ..
# BlueField).
is_vf_id() { case $1 in 1012 | 1014 | 1016 | 1018 | 101a | 101c | 101e | a2d3) return 0 ;; esac; return 1; }

# vf_functions_check: the guest's two mlx5 functions ($devs) are VFs as a
# VM sees them: a VF device ID, no SR-IOV capability, no sriov_totalvfs.
vf_functions_check()
{
	need_tool lspci || return 1
	[ "$ndev" -eq 2 ] || { echo "need two functions, have $ndev"; return 1; }
	for _d in $devs; do
		lspci -nn -s "$_d"
		_id=$(cat "/sys/bus/pci/devices/$_d/device")
		is_vf_id "${_id#0x}" || { echo "$_d: device $_id is not a VF ID"; return 1; }
		if lspci -vvv -s "$_d" | grep -q 'Single Root I/O Virtualization'; then
			echo "$_d: a VF with an SR-IOV capability"
			return 1
		fi
		[ ! -e "/sys/bus/pci/devices/$_d/sriov_totalvfs" ] || { echo "$_d: has sriov_totalvfs"; return 1; }
	done
}

# mlx5_unload DRIVER: unload the pair DRIVER loaded (mlx5_ib if loaded,
# then mlx5_core); fails unless both are gone.
mlx5_unload()
{
	case $1 in
	ours)
		if grep -q '^mlx5_ib ' /proc/modules; then
			rmmod mlx5_ib || { echo "rmmod mlx5_ib failed"; return 1; }
		fi
		rmmod mlx5_core || { echo "rmmod mlx5_core failed"; return 1; }
		;;
	in-tree)
		if grep -q '^mlx5_ib ' /proc/modules; then
			modprobe -r mlx5_ib || { echo "modprobe -r mlx5_ib failed"; return 1; }
		fi
		if grep -q '^mlx5_core ' /proc/modules; then
			modprobe -r mlx5_core || { echo "modprobe -r mlx5_core failed"; return 1; }
		fi
		;;
	*) echo "mlx5_unload: unknown driver $1"; return 1 ;;
	esac
	! mlx5_loaded || { echo "still loaded:"; grep -E '^mlx5_(ib|core) ' /proc/modules; return 1; }
}

# mlx5_ports_active: both ports (mlx5_0, mlx5_1) ACTIVE with a LID.
mlx5_ports_active()
{
	for _d in mlx5_0 mlx5_1; do
		grep -q ACTIVE "/sys/class/infiniband/$_d/ports/1/state" 2>/dev/null || return 1
		_lid=$(cat "/sys/class/infiniband/$_d/ports/1/lid")
		[ "$((_lid))" -ne 0 ] || return 1
	done
}

# need_tool TOOL...: every TOOL is installed (a missing one fails the case).
# need_harness DIR: mlx5_core's self-test files (test_cq, test_async,
# test_event) in its debugfs directory DIR. Only a module built with
# MLX5C_TEST=1 has them (core/test.c, the GEN_EQE harness: make check's
# build, never an installed one): without them a case fails, saying why.
need_harness()
{
	[ -w "$1/test_cq" ] && [ -w "$1/test_async" ] && [ -w "$1/test_event" ] && return 0
	echo "no self-test files in $1: mlx5_core was built without MLX5C_TEST=1" \
		"(the GEN_EQE harness, core/test.c); build it with make MLX5C_TEST=1"
	return 1
}

need_tool()
{
	for _t in "$@"; do
		command -v "$_t" >/dev/null || { echo "$_t is not installed"; return 1; }
	done
}

rdma_port=18515
RDMA_PAIR_TIMEOUT=${RDMA_PAIR_TIMEOUT:-180}

# rdma_pair NAME TOOL ARGS...: TOOL ARGS as the server on mlx5_0 (or
# $RDMA_PAIR_SERVER_DEV) in the background, on a fresh TCP port
# ($rdma_port), then, once the port listens, TOOL ARGS as the client on
# mlx5_1 (or $RDMA_PAIR_CLIENT_DEV) to 127.0.0.1 (the guest
# resolves no host names). Each side has $RDMA_PAIR_TIMEOUT seconds. Their
# output: $out/NAME.server and $out/NAME.client (also printed). Succeeds
# when both exit 0; a run perftest gave up at its clock calibration is run
# once more.
rdma_pair()
{
	rdma_pair_once "$@" && return 0
	# perftest stops before its traffic when its calibration of the CPU
	# clock fails ("Correlation coefficient r^2: X < 0.9": the vCPU was
	# descheduled while it sampled, as on a loaded TCG host) and says
	# "Can't produce a report": the device was never asked. Once more.
	grep -q 'Correlation coefficient r^2: .* < 0.9' "$out/$1.client" "$out/$1.server" 2>/dev/null &&
		grep -q "Can't produce a report" "$out/$1.client" "$out/$1.server" 2>/dev/null ||
		return 1
	echo "perftest's CPU clock calibration failed (r^2 < 0.9) before its traffic: run again"
	rdma_pair_once "$@"
}

# rdma_pair_once: one run of rdma_pair.
rdma_pair_once()
{
	_name=$1 _tool=$2
	shift 2
	rdma_port=$((rdma_port + 1))
	need_tool "$_tool" || return 1
	timeout "$RDMA_PAIR_TIMEOUT" "$_tool" -d "${RDMA_PAIR_SERVER_DEV:-mlx5_0}" -p "$rdma_port" "$@" >"$out/$_name.server" 2>&1 &
	_spid=$!
	if ! wait_listen "$rdma_port" "$_spid"; then
		kill "$_spid" 2>/dev/null
		wait "$_spid"
		cat "$out/$_name.server"
		echo "server never listened on $rdma_port"
		return 1
	fi
	timeout "$RDMA_PAIR_TIMEOUT" "$_tool" -d "${RDMA_PAIR_CLIENT_DEV:-mlx5_1}" -p "$rdma_port" "$@" 127.0.0.1 \
		>"$out/$_name.client" 2>&1
	_crc=$?
	[ "$_crc" -eq 0 ] || kill "$_spid" 2>/dev/null
	wait "$_spid"
	_src=$?
	echo "--- server (exit $_src)"
	cat "$out/$_name.server"
	echo "--- client (exit $_crc)"
	cat "$out/$_name.client"
	[ "$_src" -eq 0 ] && [ "$_crc" -eq 0 ]
}

# perf_result FILE: a perftest output holds its result row (#bytes,
# #iterations, then the figures), i.e. every iteration completed and
# perftest reported. A latency row of "inf" counts only where perftest says
# why: its calibration of the CPU clock failed ("Correlation coefficient
# r^2: X < 0.9", a vCPU descheduled while it sampled, as on a loaded TCG
# host); the iterations completed, the figures are not measured (speed is
# the benchmark's business, not this check's).
perf_result()
{
	if grep -q -E '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$1"; then
		return 0
	fi
	if grep -q -E '^ *[0-9]+ +[0-9]+ +inf +inf' "$1" &&
	   grep -q 'Correlation coefficient r^2: .* < 0.9' "$1"; then
		echo "perftest's CPU clock calibration failed (r^2 < 0.9): every iteration completed, figures inf"
		return 0
	fi
	echo "no numeric result row in $1"
	return 1
}

# Object-creating firmware commands and the commands that free what they
# create (emu_obj_*).
EMU_OBJ_PAIRS="ALLOC_PD:DEALLOC_PD CREATE_MKEY:DESTROY_MKEY CREATE_CQ:DESTROY_CQ
CREATE_QP:DESTROY_QP CREATE_SRQ:DESTROY_SRQ ALLOC_XRCD:DEALLOC_XRCD
CREATE_XRC_SRQ:DESTROY_XRC_SRQ CREATE_UCTX:DESTROY_UCTX"

# emu_ok_ops HCA: "OPCODE-NAME N" per opcode: the commands of that opcode
# HCA completed successfully since the emulator started.
emu_ok_ops()
{
	emu_ctl hca "$1" stats | awk '$1 == "op" {
		split($4, t, "="); split($5, f, "="); print $2, t[2] - f[2] }'
}

# emu_ok_op HCA OPCODE-NAME: the successful commands of one opcode.
emu_ok_op() { emu_ok_ops "$1" | awk -v op="$2" '$1 == op { n = $2 } END { print n + 0 }'; }

# emu_obj_snapshot HCA...: the counts emu_obj_leaks compares with.
emu_obj_snapshot()
{
	for _h in "$@"; do
		emu_ok_ops "$_h" | sed "s/^/$_h /"
	done
}

# emu_obj_leaks "SNAPSHOT" HCA...: every object of $EMU_OBJ_PAIRS created
# since SNAPSHOT (empty: since the emulator started) was destroyed again:
# as many successful creations as destructions. Prints the counts.
emu_obj_leaks()
{
	_snap=$1 _rc=0
	shift
	for _h in "$@"; do
		emu_ok_ops "$_h" | EMU_SNAP="$_snap" awk -v h="$_h" -v pairs="$EMU_OBJ_PAIRS" '
			BEGIN {
				n = split(ENVIRON["EMU_SNAP"], l, "\n")
				for (i = 1; i <= n; i++)
					if (split(l[i], f, " ") == 3 && f[1] == h) base[f[2]] = f[3]
			}
			{ now[$1] = $2 }
			END {
				n = split(pairs, p, " |\n")
				for (i = 1; i <= n; i++) {
					if (split(p[i], o, ":") != 2) continue
					c = now[o[1]] - base[o[1]]; d = now[o[2]] - base[o[2]]
					printf "hca %s: %s %d %s %d\n", h, o[1], c, o[2], d
					if (c != d) rc = 1
				}
				exit rc
			}' || _rc=1
	done
	return $_rc
}

# mlx5_all_ports_active: every mlx5_N port ACTIVE with a LID.
mlx5_all_ports_active()
{
	for _d in /sys/class/infiniband/mlx5_*; do
		[ -e "$_d" ] || return 1
		grep -q ACTIVE "$_d/ports/1/state" 2>/dev/null || return 1
		[ "$(($(cat "$_d/ports/1/lid")))" -ne 0 ] || return 1
	done
}

# opensm_start [TIMEOUT]: opensm bound to mlx5_0's port GUID in the
# background (output $out/opensm.out, log $out/opensm.log, cache and dump
# files under $out/opensm: the guest's root is read-only), with a default
# partition carrying the IPoIB broadcast group; then polls until every
# mlx5 port is ACTIVE with a LID (TIMEOUT seconds, default 120).
# opensm_stop ends it. Prints the log's tail when the ports stay down.
opensm_pid=
# opensm_up_or_gone: every port ACTIVE, or opensm exited (stop polling).
opensm_up_or_gone() { ! kill -0 "$opensm_pid" 2>/dev/null || mlx5_all_ports_active; }
opensm_start()
{
	need_tool opensm ibstat || return 1
	modprobe ib_umad || { echo "modprobe ib_umad failed"; return 1; }
	_guid=$(ibstat -p mlx5_0 2>/dev/null | head -n 1)
	[ -n "$_guid" ] || { echo "no port GUID for mlx5_0"; ibstat; return 1; }
	mkdir -p "$out/opensm" || return 1
	echo "Default=0x7fff, ipoib : ALL=full ;" >"$out/opensm/partitions.conf"
	OSM_CACHE_DIR="$out/opensm" OSM_TMP_DIR="$out/opensm" \
		opensm -g "$_guid" -f "$out/opensm.log" -P "$out/opensm/partitions.conf" \
		>"$out/opensm.out" 2>&1 &
	opensm_pid=$!
	echo "opensm (pid $opensm_pid) on port GUID $_guid"
	wait_for "${1:-120}" opensm_up_or_gone
	if ! mlx5_all_ports_active; then
		for _d in /sys/class/infiniband/mlx5_*; do
			echo "$(basename "$_d"): $(cat "$_d/ports/1/state") lid $(cat "$_d/ports/1/lid")"
		done
		kill -0 "$opensm_pid" 2>/dev/null || echo "opensm exited"
		tail -n 20 "$out/opensm.out" "$out/opensm.log"
		return 1
	fi
	ibstat 2>&1 | grep -E "^CA '|State:|Base lid:|SM lid:"
}

# exited PID: the process is gone or a zombie (its exit is done).
exited() { [ ! -e "/proc/$1" ] || grep -q '^[0-9]* (.*) Z ' "/proc/$1/stat" 2>/dev/null; }

# opensm whose port's device was removed under it (the rmmod cases) has
# once hung in its exit after logging "Exiting SM" (2026-12-05, a CI run
# under load: `wait` blocked for the rest of the test's 30 minutes). The
# daemon is not what these tests judge: after 20 s it is killed, and said.
opensm_stop()
{
	[ -n "$opensm_pid" ] || return 0
	kill "$opensm_pid" 2>/dev/null
	if ! wait_for 20 exited "$opensm_pid"; then
		echo "opensm (pid $opensm_pid) did not exit 20 s after SIGTERM: SIGKILL"
		kill -9 "$opensm_pid" 2>/dev/null
	fi
	wait "$opensm_pid" 2>/dev/null
	opensm_pid=
}

# ipoib_netdev IBDEV: the IPoIB interface on port 1 of IBDEV (classic
# IPoIB sets the HCA's PCI function as the interface's parent).
ipoib_netdev()
{
	for _n in /sys/class/infiniband/"$1"/device/net/*; do
		[ "$(cat "$_n/type" 2>/dev/null)" = 32 ] && { basename "$_n"; return 0; }
	done
	return 1
}

# ns_listening NETNS PORT: a TCP socket listens on PORT in NETNS.
ns_listening()
{
	hex=$(printf ':%04X ' "$2")
	ip netns exec "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" 'index($2 " ", p) && $4 == "0A" { f = 1 } END { exit !f }'
}

# RoCE (roce_test.sh, eth_stress_test.sh): the netdev of RDMA device $1
# (its PCI function's).
roce_netdev() { ls "/sys/class/infiniband/$1/device/net" 2>/dev/null | head -n 1; }

# gid_table DEV: "INDEX ADDRESS TYPE" per non-zero GID of port 1 (one
# read of sysfs: the table has 128 entries and the guest is slow).
gid_table()
{
	_p=/sys/class/infiniband/$1/ports/1
	grep -H . "$_p"/gids/* "$_p"/gid_attrs/types/* 2>/dev/null | awk -F: '
		{ n = split($1, f, "/"); i = f[n]; v = substr($0, length($1) + 2) }
		$1 ~ /\/gids\// { g[i] = v }
		$1 ~ /\/types\// { t[i] = v }
		END { for (i in g) if (g[i] != "0000:0000:0000:0000:0000:0000:0000:0000") print i, g[i], t[i] }'
}

# gid_index DEV TYPE ADDR: the GID index of ADDR (as sysfs prints it)
# with gid_attrs type TYPE ("RoCE v2" or "IB/RoCE v1") on port 1.
gid_index() { gid_table "$1" | gid_pick "$2" "$3"; }

# gid_pick TYPE ADDR: gid_index's lookup in a gid_table read on stdin
# (several lookups in one table: one read of sysfs).
gid_pick()
{
	awk -v a="$2" -v t="$1" '$2 == a && substr($0, index($0, $3)) == t { print $1; f = 1; exit }
		END { exit !f }'
}

# v4_gid N / v6_gid N: the GIDs of 10.77.0.N and fd00:77::N (netdev_pair_up).
v4_gid() { printf '0000:0000:0000:0000:0000:ffff:0a4d:%04x' "$1"; }
v6_gid() { printf 'fd00:0077:0000:0000:0000:0000:0000:%04x' "$1"; }

# netdev_pair_up DEV0 DEV1 [IPV6]: DEV0 and DEV1 moved to network
# namespaces mlx5ns0 / mlx5ns1 with 10.77.0.1/24 and 10.77.0.2/24 (and,
# with IPV6, fd00:77::1/64 and fd00:77::2/64), up, with carrier.
netdev_pair_up()
{
	_devs="$1 $2" _v6=$3 _i=0
	for _n in $_devs; do
		ip netns add mlx5ns$_i || return 1
		ip link set "$_n" netns mlx5ns$_i || return 1
		ip -n mlx5ns$_i link set lo up
		ip -n mlx5ns$_i addr add 10.77.0.$((_i + 1))/24 dev "$_n" || return 1
		if [ -n "$_v6" ]; then
			ip -n mlx5ns$_i addr add fd00:77::$((_i + 1))/64 dev "$_n" nodad || return 1
		fi
		ip -n mlx5ns$_i link set "$_n" up || return 1
		_i=$((_i + 1))
	done
	_i=0
	for _n in $_devs; do
		wait_for 60 ip netns exec mlx5ns$_i sh -c "[ \"\$(cat /sys/class/net/$_n/carrier)\" = 1 ]" ||
			{ echo "$_n: no carrier"; ip -n mlx5ns$_i -d link show "$_n"; return 1; }
		_i=$((_i + 1))
	done
}

# ns_tcp_transfer FROM-NS TO-NS ADDR MIB NAME: MIB MiB of random data over
# TCP (socat) from network namespace FROM-NS to a listener on ADDR in TO-NS;
# fails unless the sha256 received is the one sent. The data stays in the
# guest's memory (/tmp, not the 9p share $out); one source file per size
# serves every call (TCG is slow at making it). Server and client output in
# $out/NAME.server and .client.
ns_tcp_transfer()
{
	need_tool socat sha256sum || return 1
	_from=$1 _to=$2 _addr=$3 _mib=$4 _name=$5
	_src=/tmp/ns_tcp.$_mib.src _dst=/tmp/ns_tcp.dst _port=5001
	rm -f "$_dst"
	if [ ! -s "$_src.sha256" ]; then
		head -c $((_mib * 1024 * 1024)) /dev/urandom >"$_src" || return 1
		sha256sum <"$_src" | cut -d' ' -f1 >"$_src.sha256" || return 1
	fi
	ip netns exec "$_to" timeout 600 socat -u TCP-LISTEN:$_port,reuseaddr "OPEN:$_dst,creat,trunc" \
		>"$out/$_name.server" 2>&1 &
	_spid=$!
	if ! wait_for 30 ns_listening "$_to" $_port; then
		kill $_spid 2>/dev/null
		echo "socat server does not listen"
		cat "$out/$_name.server"
		return 1
	fi
	_t0=$(ktap_now)
	ip netns exec "$_from" timeout 600 socat -u "OPEN:$_src" TCP:"$_addr":$_port >"$out/$_name.client" 2>&1 ||
		{ echo "socat client failed"; cat "$out/$_name.client"; kill $_spid; return 1; }
	wait $_spid || { echo "socat server failed"; cat "$out/$_name.server"; return 1; }
	awk -v a="$_t0" -v b="$(ktap_now)" -v mb="$_mib" \
		'BEGIN { printf "%d MiB in %.1f s (%.1f MB/s)\n", mb, b - a, mb * 1.048576 / (b - a) }'
	_a=$(cat "$_src.sha256")
	_b=$(sha256sum <"$_dst" | cut -d' ' -f1)
	rm -f "$_dst"
	echo "sha256 sent $_a"
	echo "sha256 recv $_b"
	[ "$_a" = "$_b" ]
}

# netdev_pair_down DEV0 DEV1: back to the initial namespace, namespaces gone.
netdev_pair_down()
{
	_i=0
	for _n in "$@"; do
		[ -n "$_n" ] && ip -n mlx5ns$_i link set "$_n" netns 1 2>/dev/null
		ip netns del mlx5ns$_i 2>/dev/null
		_i=$((_i + 1))
	done
}

# ipoib_pair_up: ib_ipoib loaded; the IPoIB interfaces of mlx5_0 and
# mlx5_1 up in mlx5ns0 / mlx5ns1 (netdev_pair_up; carrier means the
# broadcast group joined through the SA). Sets ipoib0 / ipoib1 (the
# interface names). ipoib_pair_down undoes it.
ipoib_pair_up()
{
	modprobe ib_ipoib || { echo "modprobe ib_ipoib failed"; return 1; }
	wait_for 30 ipoib_netdev mlx5_0 && wait_for 30 ipoib_netdev mlx5_1 ||
		{ echo "no IPoIB interface"; ls /sys/class/net; return 1; }
	ipoib0=$(ipoib_netdev mlx5_0) ipoib1=$(ipoib_netdev mlx5_1)
	echo "mlx5_0: $ipoib0, mlx5_1: $ipoib1"
	netdev_pair_up "$ipoib0" "$ipoib1"
}

ipoib_pair_down()
{
	netdev_pair_down "$ipoib0" "$ipoib1"
	modprobe -r ib_ipoib || { echo "modprobe -r ib_ipoib failed"; return 1; }
}

# ipoib_in N CMD...: CMD in mlx5ns N.
ipoib_in() { _ns=$1; shift; ip netns exec mlx5ns$_ns "$@"; }

CM_TIMEOUT=${MLX5_CM_TIMEOUT:-240}

# cm_pair NAME SERVER-CMD -- CLIENT-CMD: the server in mlx5ns1 in the
# background, the client in mlx5ns0 once the server listens (rdma_cm
# listeners show in no socket table, but `rdma res show cm_id` has them,
# with the owner's command name: a listener of the same program left by
# a server killed in the case before is waited out first, else the
# client could connect to it and be rejected; after 30 s the client's own
# retries decide). Output in $out/cm_NAME.server and .client (their tails
# printed). Succeeds when both exit 0.
cm_pair()
{
	_name=$1
	shift
	_scmd=
	while [ "$1" != -- ]; do _scmd="$_scmd $1"; shift; done
	shift
	_prog=${_scmd# }
	_prog=${_prog%% *}
	wait_for 10 sh -c "! { rdma res show cm_id 2>/dev/null | grep LISTEN | grep -qw -- $_prog; }" ||
		echo "a listening cm_id of $_prog from before stayed 10 s"
	ipoib_in 1 timeout "$CM_TIMEOUT" $_scmd >"$out/cm_$_name.server" 2>&1 &
	_spid=$!
	wait_for 30 sh -c "rdma res show cm_id 2>/dev/null | grep LISTEN | grep -qw -- $_prog" ||
		echo "no listening cm_id of $_prog seen after 30 s"
	ipoib_in 0 timeout "$CM_TIMEOUT" "$@" >"$out/cm_$_name.client" 2>&1
	_crc=$?
	[ "$_crc" -eq 0 ] || kill $_spid 2>/dev/null
	wait $_spid
	_src=$?
	echo "--- server (exit $_src):$_scmd"
	tail -n 30 "$out/cm_$_name.server"
	echo "--- client (exit $_crc): $*"
	tail -n 30 "$out/cm_$_name.client"
	[ "$_src" -eq 0 ] && [ "$_crc" -eq 0 ]
}

# The verbs C tests (ib_verbs_test, upstream_verbs_test, verbs_compat_test):
# $srcs are the program's sources, $bin its prebuilt binary.
# verbs_build HEADER... -- CC-ARGS...: keep $bin unless a source or HEADER
# is newer; otherwise compile $srcs into $out (bin is set to it).
verbs_build()
{
	_fresh=1
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		[ "$1" -nt "$bin" ] && _fresh=0
		shift
	done
	[ $# -gt 0 ] && shift
	for _f in $srcs; do [ "$_f" -nt "$bin" ] && _fresh=0; done
	if [ -x "$bin" ] && [ "$_fresh" = 1 ]; then
		echo "using $bin"
		return 0
	fi
	command -v cc >/dev/null || { echo "no compiler and no prebuilt $bin"; return 1; }
	bin=$out/$(basename "$bin")
	cc -O2 -Wall -Wextra -o "$bin" $srcs "$@"
}

# verbs_build_early HEADER... -- CC-ARGS...: verbs_build before the plan, so
# that the case list (the binary's -l) comes from the binary the cases run:
# a stale prebuilt one is rebuilt first. The kernel log check starts before
# it; its output and status wait for the program's build case,
# verbs_build_result.
verbs_build_early()
{
	_vb_log=$out/$(basename "$bin").build.txt
	ktap_mark
	verbs_build "$@" >"$_vb_log" 2>&1
	_vb_rc=$?
}
verbs_build_result() { cat "$_vb_log"; return "$_vb_rc"; }

# verbs_load DRIVER: snapshot the firmware objects (baseline, snapped; an
# empty snapshot on a fresh emulator is still one), load DRIVER's pair and
# wait for both ports ACTIVE; loaded=DRIVER on success.
verbs_load()
{
	loaded= baseline= snapped=
	[ -x "$bin" ] || { echo "no $(basename "$bin") binary (see the build case)"; return 1; }
	baseline=$(emu_obj_snapshot 0 1) && snapped=1
	mlx5_load "$1" || return 1
	wait_for 30 mlx5_ports_active || { grep . /sys/class/infiniband/mlx5_*/ports/1/state; return 1; }
	loaded=$1
}

# verbs_trace_run DRIVER TRACE ARGS...: $bin ARGS... on the DRIVER that
# verbs_load loaded; its whole output in TRACE, the lines that are not
# trace lines ("# T ") printed, then the trace's length.
verbs_trace_run()
{
	[ "$loaded" = "$1" ] || { echo "not run: $1 is not loaded (see its load case)"; return 1; }
	_trace=$2
	shift 2
	"$bin" "$@" >"$_trace" 2>&1
	_r=$?
	grep -v '^# T ' "$_trace"
	echo "$(grep -c '^# T ' "$_trace") trace lines"
	[ $_r -gt 128 ] && { echo "killed by signal $((_r - 128))"; return 1; }
	return $_r
}

# verbs_unload DRIVER: the pair verbs_load loaded goes.
verbs_unload()
{
	loaded=
	mlx5_unload "$1"
}

# verbs_no_leak: every firmware object created since verbs_load's snapshot
# was destroyed again (the drivers unloaded); the emulator's QP table of
# both HCAs printed on a leak.
verbs_no_leak()
{
	[ -n "$snapped" ] || { echo "not run: no snapshot before the load"; return 1; }
	! mlx5_loaded || { echo "not run: a driver is still loaded"; return 1; }
	_rc=0
	emu_obj_leaks "$baseline" 0 1 || {
		_rc=1
		emu_ctl hca 0 qps
		emu_ctl hca 1 qps
	}
	baseline= snapped=
	return $_rc
}

# NVMe over RDMA (nvme_rdma_test.sh over IPoIB, roce_test.sh over RoCE).
# nvmet-rdma and nvme-rdma create their rdma_cm IDs in the initial network
# namespace, so both addresses live there.
NQN=nqn.2026-12.org.mlx5-clone:emu
NVMET_CFG=/sys/kernel/config/nvmet

# nvme_target_up ADDR: nvmet-rdma exports a memory-backed null_blk
# namespace (1 GiB at most, it keeps what is written) on ADDR:4420.
nvme_target_up()
{
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || { echo "modprobe null_blk failed"; return 1; }
	for _m in nvmet nvmet-rdma nvme-rdma; do
		modprobe $_m || { echo "modprobe $_m failed"; return 1; }
	done
	wait_for 10 test -b /dev/nullb0 || { echo "no /dev/nullb0"; return 1; }
	[ -d "$NVMET_CFG" ] || mount -t configfs none /sys/kernel/config 2>/dev/null
	[ -d "$NVMET_CFG" ] || { echo "no $NVMET_CFG"; return 1; }
	_s=$NVMET_CFG/subsystems/$NQN
	mkdir "$_s" || return 1
	echo 1 >"$_s/attr_allow_any_host"
	mkdir "$_s/namespaces/1" || return 1
	echo /dev/nullb0 >"$_s/namespaces/1/device_path"
	echo 1 >"$_s/namespaces/1/enable" || return 1
	mkdir "$NVMET_CFG/ports/1" || return 1
	echo rdma >"$NVMET_CFG/ports/1/addr_trtype"
	echo ipv4 >"$NVMET_CFG/ports/1/addr_adrfam"
	echo "$1" >"$NVMET_CFG/ports/1/addr_traddr"
	echo 4420 >"$NVMET_CFG/ports/1/addr_trsvcid"
	ln -s "$_s" "$NVMET_CFG/ports/1/subsystems/$NQN" || return 1
	dmesg | grep -E 'nvmet' | tail -n 3
}

# nvme_dev: the namespace's disk (nvmeXnY) of the controller of $NQN, never
# the per-controller path nvmeXcYnZ, which has no /dev node (dd would write
# a regular file there and compare it with itself).
nvme_dev()
{
	for _b in /sys/block/nvme*n*; do
		_n=${_b##*/}
		case $_n in nvme*c*n*) continue ;; esac
		[ "$(cat "$_b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] && [ -b "/dev/$_n" ] &&
			{ echo "$_n"; return 0; }
	done
	return 1
}

# nvme_no_ctrl: no NVMe controller of $NQN is left.
nvme_no_ctrl()
{
	! grep -qx "$NQN" /sys/class/nvme/*/subsysnqn 2>/dev/null
}

# nvme_host_connect ADDR SRC NETDEV...: `nvme connect -t rdma` to ADDR
# from SRC. Both addresses are local, so the host's address resolution
# (ARP on SRC's interface) needs accept_local (and rp_filter off) on the
# NETDEVs: the queue pairs then connect one HCA to the other across the
# fabric. A lost controller is given up after 2 s (one reconnect a
# second), not the 600 s default. Sets nvme_blk (the namespace's block
# device).
nvme_host_connect()
{
	need_tool nvme || return 1
	_a=$1 _w=$2
	shift 2
	for _k in all default "$@"; do
		sysctl -qw net.ipv4.conf."$_k".accept_local=1 net.ipv4.conf."$_k".rp_filter=0 || return 1
	done
	nvme connect -t rdma -n "$NQN" -a "$_a" -s 4420 -w "$_w" \
		--ctrl-loss-tmo=2 --reconnect-delay=1 >"$out/nvme_connect.txt" 2>&1
	_rc=$?
	cat "$out/nvme_connect.txt"
	ip neigh show "$_a"
	[ "$_rc" -eq 0 ] || { dmesg | grep -E 'nvme|infiniband|mlx5_core .*: no ' | tail -n 20; return 1; }
	wait_for 30 nvme_dev || { echo "no namespace block device"; nvme list; return 1; }
	nvme_blk=/dev/$(nvme_dev)
	echo "namespace: $nvme_blk"
	nvme list 2>&1 | head -n 5
}

# nvme_io MIB: MIB MiB of random data written to $nvme_blk with O_DIRECT
# (and fsync), read back with O_DIRECT; the sha256 sums must match.
nvme_io()
{
	# dd would create a regular file for a missing device node.
	[ -b "$nvme_blk" ] || { echo "$nvme_blk is not a block device"; return 1; }
	_f=/tmp/nvme_rdma.data
	head -c $(($1 << 20)) /dev/urandom >"$_f" || return 1
	dd if="$_f" of="$nvme_blk" bs=1M count="$1" oflag=direct conv=fsync 2>"$out/nvme_dd.txt"
	_rc=$?
	tail -n 1 "$out/nvme_dd.txt"
	if [ "$_rc" -ne 0 ]; then
		cat "$out/nvme_dd.txt"
		dmesg | grep -E 'nvme|blk|I/O' | tail -n 20
		rm -f "$_f"
		return 1
	fi
	_a=$(sha256sum <"$_f" | cut -d' ' -f1)
	_b=$(dd if="$nvme_blk" bs=1M count="$1" iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	rm -f "$_f"
	echo "written $_a"
	echo "read    $_b"
	[ "$_b" = "$_a" ]
}

# nvme_host_disconnect: `nvme disconnect` of $NQN; its controller gone.
nvme_host_disconnect()
{
	nvme disconnect -n "$NQN" || return 1
	wait_for 30 nvme_no_ctrl || { echo "a controller of $NQN is left"; nvme list-subsys 2>&1 | head; return 1; }
}

# nvme_target_down: the target's configuration and the NVMe modules gone
# (a controller still connected is disconnected first, quietly: after a
# device removal there is none).
nvme_target_down()
{
	_rc=0
	nvme_no_ctrl || nvme disconnect -n "$NQN" >/dev/null 2>&1
	rm -f "$NVMET_CFG/ports/1/subsystems/$NQN"
	rmdir "$NVMET_CFG/ports/1" "$NVMET_CFG/subsystems/$NQN/namespaces/1" "$NVMET_CFG/subsystems/$NQN" || _rc=1
	for _m in nvme-rdma nvmet-rdma nvmet null_blk; do
		modprobe -r $_m || { echo "modprobe -r $_m failed"; _rc=1; }
	done
	return $_rc
}

# trace_diff A B EXPLAINED: the "# T " lines of A (in-tree) and B (ours)
# compared (diff). Each differing line ("-" in-tree, "+" ours) must match
# the ERE of an EXPLAINED line ("ERE :: reason", matched against the trace
# line after "# T "). Prints every difference with its reason or
# "UNEXPLAINED"; the EREs that explained a line go to $out/trace_explained
# (appended). Fails on an unexplained difference.
trace_diff()
{
	sed -n 's/^# T //p' "$1" >"$1.t"
	sed -n 's/^# T //p' "$2" >"$2.t"
	diff -U0 "$1.t" "$2.t" | grep -E '^[-+][^-+]' |
		EXPLAINED="$3" awk -v used="$out/trace_explained" '
		BEGIN {
			n = split(ENVIRON["EXPLAINED"], l, "\n")
			for (i = 1; i <= n; i++) {
				if (l[i] == "") continue
				k = index(l[i], " :: ")
				re[++m] = substr(l[i], 1, k - 1); why[m] = substr(l[i], k + 4)
			}
		}
		{
			side = substr($0, 1, 1) == "-" ? "in-tree" : "ours   "
			line = substr($0, 2)
			for (i = 1; i <= m; i++)
				if (line ~ re[i]) break
			if (i <= m) {
				print side ": " line "\n    explained: " why[i]
				print re[i] >> used
			} else {
				print side ": " line "\n    UNEXPLAINED"
				bad++
			}
		}
		END { exit bad > 0 }'
}
