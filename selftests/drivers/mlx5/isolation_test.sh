#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What an unprivileged user (nobody) must not reach through the device, on
# the guest kernel's in-tree mlx5_core/mlx5_ib, then on ours, in one boot
# (isolation_test.c, one process per case, mlx5_0 <-> mlx5_1, ports ACTIVE
# with the emulator's LIDs: no subnet manager needed). The behaviour is
# the emulator's, so both pairs must show it:
#   - the reserved lkey (0x100) in a user QP's SGE, with a guest-physical
#     address (the process's own victim page, found through pagemap before
#     it drops to nobody): a local protection error on RC (SEND, RDMA
#     READ) and UD (SEND), the page and the peer untouched;
#   - a UD QP's SubnGet(NodeInfo) to QPN 0 of the other port: no answer
#     (QP0 takes VL15 only, which only QP0 sends on), while a real SMP
#     (smpquery, root, QP0 to QP0) is still answered;
#   - mlx5dv_create_mkey (DEVX) with more KLM entries than
#     1 << log_max_klm_list_size: refused;
#   - device memory freed by one process (root, then nobody) reads all
#     zero in the next one's allocation (nobody);
#   - a ds=1 WQE written by hand for each send opcode on RC, UD and XRC
#     initiator QPs: refused (error completion or QP in error), the
#     emulator still answers its control channel, and mlx5_1 still passes
#     traffic;
#   - the emulator's `hca N stats` counted the refusals (the counter
#     names below).
# The program runs as nobody with an unlimited RLIMIT_MEMLOCK (set here,
# as root, before it starts; it drops its uid itself).
#
# MLX5_ISOLATION_CASES="qp0 klm" runs some of the groups (default: all:
# rlkey qp0 klm dm wqe).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/isolation_test.c $dir/ib_verbs_lib.c"
bin=$bindir/isolation_test
drivers="in-tree ours"
WAIT_MS=${MLX5_ISOLATION_WAIT_MS:-10000}
NOBODY=65534
groups=${MLX5_ISOLATION_CASES:-rlkey qp0 klm dm wqe}

have_emu || ktap_skip_all "needs the mlx5-emu control channel (isolation_test CASE runs alone elsewhere)"

# The stats lines (`emu-ctl hca N stats`, with or without their "dp "
# prefix) that count each kind of refusal, summed over both HCAs.
ctr_rlkey="resd_lkey_refused"
ctr_qp0="qp0_dropped"
ctr_klm="refused_klm_list umr_xlt_refused"
ctr_wqe="malformed_wqes"

# stat_sum NAMES: the named counters summed over HCAs 0 and 1.
stat_sum()
{
	for _h in 0 1; do emu_ctl hca $_h stats; done | awk -v names="$1" '
		BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		$1 == "dp" { $1 = ""; $0 = $0 }
		$1 in want { s += $2 }
		END { print s + 0 }'
}

# as_nobody CASE...: isolation_test CASE... as nobody, memlock unlimited.
as_nobody()
{
	(ulimit -l unlimited && MLX5_ISOLATION_UID=$NOBODY exec "$bin" -t "$WAIT_MS" "$@")
}

t_load()
{
	ip link set lo up 2>/dev/null
	verbs_load "$1" || return 1
	# Unprivileged users reach the verbs devices (udev would do this).
	chmod 666 /dev/infiniband/uverbs* && ls -l /dev/infiniband/
	id nobody
}

# run DRIVER CASE [root]: one case in its own process, as nobody (as root
# with "root"); a signal is a failure.
run()
{
	[ -x "$bin" ] || { echo "not run: no isolation_test binary"; return 1; }
	[ "$loaded" = "$1" ] || { echo "not run: $1 is not loaded (see its load case)"; return 1; }
	_f=$out/iso_$1_$2.txt
	if [ "$3" = root ]; then
		(ulimit -l unlimited && exec "$bin" -t "$WAIT_MS" "$2") >"$_f" 2>&1
	else
		as_nobody "$2" >"$_f" 2>&1
	fi
	_r=$?
	cat "$_f"
	[ $_r -gt 128 ] && echo "killed by signal $((_r - 128))"
	[ $_r = 4 ] && sed -n 's/^# SKIP: //p' "$_f" | tail -n 1
	return $_r
}

# mark NAMES: the counters now (in $mark).
mark() { mark=$(stat_sum "$1"); }

# counted NAMES: the counters grew since mark.
counted()
{
	[ -n "$1" ] || { echo "no counter name"; return 1; }
	_now=$(stat_sum "$1")
	echo "$1: $mark -> $_now"
	[ "$_now" -gt "$mark" ] || { echo "the emulator did not count the refusal"; return 1; }
}

# QP0 to QP0: root's smpquery NodeInfo of mlx5_1's LID from mlx5_0 is
# answered, and the emulator dropped none of it.
t_smp()
{
	need_tool smpquery || return 1
	modprobe ib_umad || { echo "modprobe ib_umad failed"; return 1; }
	_lid=$(cat /sys/class/infiniband/mlx5_1/ports/1/lid)
	_d0=$(stat_sum "$ctr_qp0")
	smpquery -C mlx5_0 nodeinfo "$((_lid))" >"$out/iso_smp.txt" 2>&1
	_r=$?
	cat "$out/iso_smp.txt"
	modprobe -r ib_umad
	[ $_r = 0 ] || return 1
	_guid=$(tr -d : </sys/class/infiniband/mlx5_1/node_guid)
	grep -q "^Guid:.*0x$_guid" "$out/iso_smp.txt" || { echo "mlx5_1 node GUID $_guid not reported"; return 1; }
	_d1=$(stat_sum "$ctr_qp0")
	echo "$ctr_qp0: $_d0 -> $_d1"
	[ "$_d1" = "$_d0" ]
}

# t_dm DRIVER [root]: dm_fill (as root with "root"), then dm_check as nobody.
t_dm()
{
	run "$1" dm_fill $2 && run "$1" dm_check
}

# The emulator still answers its control channel.
t_alive()
{
	emu_ctl list
}

verbs_build_early "$dir/ib_verbs.h" -- -libverbs -lmlx5

# Cases per driver: load, unload, leaks + the groups'.
per=3
for g in $groups; do
	case $g in
	rlkey) per=$((per + 3)) ;;
	qp0) per=$((per + 3)) ;;
	klm) per=$((per + 2)) ;;
	dm) per=$((per + 2)) ;;
	wqe) per=$((per + 5)) ;;
	*) echo "unknown group $g (rlkey qp0 klm dm wqe)" >&2; exit 1 ;;
	esac
done

ktap_begin $((1 + 2 * per))
ktap_case "build isolation_test" verbs_build_result
for drv in $drivers; do
	ktap_case "$drv: load mlx5_core mlx5_ib, both ports ACTIVE, uverbs open to nobody" t_load "$drv"
	for g in $groups; do
		case $g in
		rlkey)
			mark "$ctr_rlkey"
			ktap_case "$drv: nobody's RC SEND / RDMA READ through the reserved lkey: local error, memory untouched" run "$drv" rlkey_rc
			ktap_case "$drv: nobody's UD SEND through the reserved lkey: local error, nothing received" run "$drv" rlkey_ud
			ktap_case "$drv: the emulator counted the reserved lkey refusals ($ctr_rlkey)" counted "$ctr_rlkey"
			;;
		qp0)
			ktap_case "$drv: root's smpquery NodeInfo (QP0 to QP0) answered, nothing dropped" t_smp
			mark "$ctr_qp0"
			ktap_case "$drv: nobody's UD SubnGet(NodeInfo) to QPN 0: no answer in 2 s" run "$drv" qp0
			ktap_case "$drv: the emulator counted the dropped QP0 packet ($ctr_qp0)" counted "$ctr_qp0"
			;;
		klm)
			mark "$ctr_klm"
			ktap_case "$drv: nobody's mkey beyond log_max_klm_list_size refused; mlx5_1 passes traffic" run "$drv" klm
			ktap_case "$drv: the emulator counted the KLM refusal ($ctr_klm)" counted "$ctr_klm"
			;;
		dm)
			ktap_case "$drv: device memory root filled and freed reads all zero to nobody" t_dm "$drv" root
			ktap_case "$drv: device memory nobody filled and freed reads all zero to the next nobody" t_dm "$drv"
			;;
		wqe)
			mark "$ctr_wqe"
			ktap_case "$drv: nobody's ds=1 WQEs on RC refused; mlx5_1 passes traffic" run "$drv" wqe_rc
			ktap_case "$drv: nobody's ds=1 WQEs on UD refused; mlx5_1 passes traffic" run "$drv" wqe_ud
			ktap_case "$drv: nobody's ds=1 WQEs on XRC initiators refused; mlx5_1 passes traffic" run "$drv" wqe_xrc
			ktap_case "$drv: the emulator answers its control channel" t_alive
			ktap_case "$drv: the emulator counted the malformed WQEs ($ctr_wqe)" counted "$ctr_wqe"
			;;
		esac
	done
	ktap_case "$drv: unload mlx5_ib mlx5_core" verbs_unload "$drv"
	ktap_case "$drv: every PD, MKey, CQ, QP, SRQ created while loaded destroyed" verbs_no_leak
done
ktap_end
