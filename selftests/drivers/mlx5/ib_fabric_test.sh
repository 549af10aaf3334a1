#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Subnet management on the emulated fabric (emulator --sm external):
# mlx5_core + mlx5_ib (the in-tree pair, then ours) come up with every port
# in INIT without a LID; opensm, bound to mlx5_0's port GUID, sweeps the
# fabric through QP0 (directed route across the links and the switch, answered by the
# firmware's SMA behind MAD_IFC and by the switch's own SMA), assigns LIDs
# and brings every port to ACTIVE. Then infiniband-diags look at it:
# ibstat / ibv_devinfo show the SM's LIDs, ibnetdiscover the topology,
# saquery path records from opensm's SA (QP1), smpquery NodeInfo/PortInfo
# by LID and by directed route, perfquery PMA counters that count an
# ibv_rc_pingpong of this test. opensm's log is printed on failure.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two or more emulated HCAs (has $ndev)"
emu_ctl link stats | grep -q '^sm external' ||
	ktap_skip_all "needs the emulator's --sm external (the internal SM configures the ports itself)"

SM_TIMEOUT=${MLX5_SM_TIMEOUT:-300}
ibdevs=$(i=0; while [ $i -lt "$ndev" ]; do echo mlx5_$i; i=$((i + 1)); done)
sm_log=$out/opensm.log
sm_pid=

port_state() { cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null; }
port_lid() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/lid"))); }
all_active()
{
	[ -z "$sm_pid" ] || kill -0 "$sm_pid" 2>/dev/null || return 0 # opensm died: stop waiting
	for d in $ibdevs; do
		case "$(port_state $d)" in *ACTIVE*) ;; *) return 1 ;; esac
	done
}
show_sm_log()
{
	echo "--- opensm log ($sm_log)"
	tail -n 80 "$sm_log" 2>/dev/null
}

t_modprobe()
{
	ip link set lo up 2>/dev/null
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
}

# Before an SM, every port waits in INIT without a LID: on a fresh fabric,
# and after the previous pair's unload too (DISABLE_HCA resets the function,
# its port loses the link and what the SM set), so each pair's QP0 answers a
# full sweep.
t_init_state()
{
	rc=0
	for d in $ibdevs; do
		s=$(port_state $d)
		l=$(port_lid $d)
		echo "$d: $s, LID $l, $(cat /sys/class/infiniband/$d/ports/1/phys_state)"
		case "$s" in *INIT*) ;; *) rc=1 ;; esac
		[ "$l" = 0 ] || rc=1
	done
	return $rc
}

t_opensm()
{
	need_tool opensm ibstat || return 1
	modprobe ib_umad || { echo "modprobe ib_umad failed"; return 1; }
	guid=$(ibstat -p mlx5_0 | head -1)
	[ -n "$guid" ] || { ibstat mlx5_0; return 1; }
	mkdir -p "$out/opensm-cache"
	echo "opensm on port GUID $guid"
	OSM_CACHE_DIR=$out/opensm-cache opensm -g "$guid" -f "$sm_log" -s 0 ${MLX5_OPENSM_ARGS:-} >"$out/opensm.out" 2>&1 &
	sm_pid=$!
	if ! wait_for "$SM_TIMEOUT" all_active; then
		for d in $ibdevs; do echo "$d: $(port_state $d), LID $(port_lid $d)"; done
		cat "$out/opensm.out"
		show_sm_log
		return 1
	fi
	for d in $ibdevs; do echo "$d: $(port_state $d), LID $(port_lid $d)"; done
	kill -0 "$sm_pid" 2>/dev/null || { echo "opensm exited"; cat "$out/opensm.out"; show_sm_log; return 1; }
	all_active
}

t_ibstat()
{
	rc=0
	for d in $ibdevs; do
		ibstat "$d" 1 >"$out/ibstat_$d.txt" 2>&1 || { cat "$out/ibstat_$d.txt"; return 1; }
		cat "$out/ibstat_$d.txt"
		lid=$(awk '/Base lid:/ { print $3 }' "$out/ibstat_$d.txt")
		sm=$(awk '/SM lid:/ { print $3 }' "$out/ibstat_$d.txt")
		grep -q 'State: Active' "$out/ibstat_$d.txt" || rc=1
		[ "$lid" = "$(port_lid $d)" ] && [ "$lid" != 0 ] || { echo "$d: base lid '$lid'"; rc=1; }
		[ "$sm" = "$(port_lid mlx5_0)" ] || { echo "$d: SM lid '$sm', mlx5_0 has $(port_lid mlx5_0)"; rc=1; }
		ibv_devinfo -d "$d" >"$out/devinfo_$d.txt" 2>&1 || { cat "$out/devinfo_$d.txt"; return 1; }
		dl=$(awk '/port_lid:/ { print $2; exit }' "$out/devinfo_$d.txt")
		ds=$(awk '/state:/ { print $2; exit }' "$out/devinfo_$d.txt")
		echo "ibv_devinfo $d: $ds, port_lid $dl"
		[ "$dl" = "$lid" ] && [ "$ds" = PORT_ACTIVE ] || rc=1
	done
	return $rc
}

t_ibnetdiscover()
{
	ibnetdiscover -C mlx5_0 >"$out/ibnetdiscover.txt" 2>&1 || { cat "$out/ibnetdiscover.txt"; return 1; }
	cat "$out/ibnetdiscover.txt"
	cas=$(grep -c '^Ca' "$out/ibnetdiscover.txt")
	sws=$(grep -c '^Switch' "$out/ibnetdiscover.txt")
	want_sw=0
	[ "$ndev" -ge 3 ] && want_sw=1
	echo "$cas CAs, $sws switches (want $ndev, $want_sw)"
	[ "$cas" = "$ndev" ] && [ "$sws" = "$want_sw" ] || return 1
	# every CA's port is linked: a "[1]" line with a peer
	[ "$(grep -c '^\[1\].*"' "$out/ibnetdiscover.txt")" -ge "$ndev" ]
}

t_saquery()
{
	src=$(port_lid mlx5_0)
	dst=$(port_lid mlx5_1)
	saquery -C mlx5_1 PR "$src" "$dst" >"$out/saquery.txt" 2>&1
	rc=$?
	cat "$out/saquery.txt"
	[ $rc -eq 0 ] || return 1
	grep -q "slid.*$src" "$out/saquery.txt" && grep -q "dlid.*$dst" "$out/saquery.txt" ||
		{ echo "no path record $src -> $dst"; return 1; }
}

t_smpquery()
{
	lid=$(port_lid mlx5_1)
	smpquery -C mlx5_0 nodeinfo "$lid" >"$out/smp_ni.txt" 2>&1 || { cat "$out/smp_ni.txt"; return 1; }
	cat "$out/smp_ni.txt"
	guid=$(cat /sys/class/infiniband/mlx5_1/node_guid | tr -d :)
	grep -q "^Guid:.*0x$guid" "$out/smp_ni.txt" || { echo "mlx5_1 node GUID $guid not reported"; return 1; }
	smpquery -C mlx5_0 portinfo "$lid" 1 >"$out/smp_pi.txt" 2>&1 || { cat "$out/smp_pi.txt"; return 1; }
	cat "$out/smp_pi.txt"
	grep -q "^Lid:\.*$lid\$" "$out/smp_pi.txt" && grep -q 'LinkState:\.*Active' "$out/smp_pi.txt" || return 1
	# the same by directed route: out of mlx5_0's port 1 (and through
	# switch port 2 when there is a switch)
	path=0,1
	[ "$ndev" -ge 3 ] && path=0,1,2
	smpquery -C mlx5_0 -D nodeinfo "$path" >"$out/smp_dr.txt" 2>&1 || { cat "$out/smp_dr.txt"; return 1; }
	cat "$out/smp_dr.txt"
	grep -q "^Guid:.*0x$guid" "$out/smp_dr.txt"
}

# modify_device: the description written to mlx5_1's sysfs node_desc is
# what its firmware's agent answers NodeDescription SMPs with.
t_nodedesc()
{
	desc="mlx5-clone test $pair $$"
	# without a newline, as rdma-ndd writes it (sysfs keeps every byte)
	printf '%s' "$desc" >/sys/class/infiniband/mlx5_1/node_desc || return 1
	local=$(cat /sys/class/infiniband/mlx5_1/node_desc)
	smpquery -C mlx5_0 nodedesc "$(port_lid mlx5_1)" >"$out/smp_nd.txt" 2>&1 || { cat "$out/smp_nd.txt"; return 1; }
	cat "$out/smp_nd.txt"
	echo "sysfs: '$local'"
	[ "$local" = "$desc" ] && grep -q "\.$desc\$" "$out/smp_nd.txt"
}

# PortInfo CapabilityMask of mlx5_1 as mlx5_0 reads it by LID (decimal;
# empty when the query fails)
cap_mask()
{
	m=$(smpquery -C mlx5_0 portinfo "$(port_lid mlx5_1)" 1 | awk -F'[.:]+' '/^CapMask/ { print $NF; exit }')
	case "$m" in 0x[0-9a-fA-F]*) echo $((m)) ;; esac
}
cap_sm_is() # 1 or 0: IsSM (bit 1) set or clear
{
	m=$(cap_mask)
	[ -n "$m" ] && [ $(((m >> 1) & 1)) = "$1" ]
}

issm_of()
{
	for f in /sys/class/infiniband_mad/issm*; do
		[ "$(cat "$f/ibdev")" = "$1" ] && [ "$(cat "$f/port")" = 1 ] && basename "$f"
	done
}

# modify_port: opening mlx5_1's issm device sets IsSM (bit 1) in its
# port's capability mask, closing it clears the bit again.
t_port_cap()
{
	issm=$(issm_of mlx5_1)
	[ -n "$issm" ] || { ls /sys/class/infiniband_mad; return 1; }
	before=$(cap_mask)
	[ -n "$before" ] || { smpquery -C mlx5_0 portinfo "$(port_lid mlx5_1)" 1; return 1; }
	sleep 600 <"/dev/infiniband/$issm" &
	holder=$!
	wait_for 30 cap_sm_is 1
	held=$(cap_mask)
	kill "$holder"
	wait "$holder" 2>/dev/null
	wait_for 30 cap_sm_is 0
	after=$(cap_mask)
	printf 'mlx5_1 CapMask: 0x%x, with %s open 0x%x, closed 0x%x\n' "$before" "$issm" "${held:-0}" "${after:-0}"
	[ $(((before >> 1) & 1)) = 0 ] && [ -n "$held" ] && [ $(((held >> 1) & 1)) = 1 ] && [ "$after" = "$before" ]
}

# xmit/rcv data and packet counters of mlx5_1's port, by its LID
pma_counters()
{
	perfquery -C mlx5_0 "$(port_lid mlx5_1)" 1 | awk -F'[.:]+' '
		/^PortXmitData/ { xd = $NF } /^PortRcvData/ { rd = $NF }
		/^PortXmitPkts/ { xp = $NF } /^PortRcvPkts/ { rp = $NF }
		END { print xd + 0, rd + 0, xp + 0, rp + 0 }'
}

t_perfquery()
{
	perfquery -C mlx5_0 "$(port_lid mlx5_1)" 1 >"$out/perfquery0.txt" 2>&1 || { cat "$out/perfquery0.txt"; return 1; }
	cat "$out/perfquery0.txt"
	set -- $(pma_counters)
	xd0=$1 rd0=$2 xp0=$3 rp0=$4
	# 20 round trips of 4096 bytes each way: at least 80 KiB = 20480
	# four-octet units each way
	rdma_pair pma_rc ibv_rc_pingpong -n 20 -s 4096 -c >/dev/null || { cat "$out/pma_rc.client"; return 1; }
	set -- $(pma_counters)
	echo "mlx5_1 PortXmitData $xd0 -> $1, PortRcvData $rd0 -> $2, PortXmitPkts $xp0 -> $3, PortRcvPkts $rp0 -> $4"
	[ $(($1 - xd0)) -ge 20480 ] && [ $(($2 - rd0)) -ge 20480 ] && [ $(($3 - xp0)) -ge 20 ] && [ $(($4 - rp0)) -ge 20 ]
}

t_unload()
{
	if [ -n "$sm_pid" ]; then
		kill "$sm_pid" 2>/dev/null
		wait "$sm_pid"
	fi
	mlx5_unload "$pair" || return 1
	bad=$(dmesg | tail -n +$((dmesg_start + 1)) | grep -E "$KTAP_SPLAT" | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# The in-tree pair first, then ours, in the same boot: the same cases,
# each named with its driver.
ktap_begin 22
for pair in in-tree ours; do
	ktap_case "modprobe mlx5_ib on $ndev emulated HCAs [$pair]" t_modprobe
	ktap_case "before an SM: every port INIT without a LID [$pair]" t_init_state
	ktap_case "opensm on mlx5_0 brings every port to ACTIVE [$pair]" t_opensm
	ktap_case "ibstat / ibv_devinfo: the SM's LIDs and SM LID [$pair]" t_ibstat
	ktap_case "ibnetdiscover: the topology [$pair]" t_ibnetdiscover
	ktap_case "saquery: a path record from opensm's SA [$pair]" t_saquery
	ktap_case "smpquery: NodeInfo / PortInfo by LID and by directed route [$pair]" t_smpquery
	ktap_case "perfquery: PMA counters count an ibv_rc_pingpong [$pair]" t_perfquery
	ktap_case "modify_device: node_desc in sysfs is what smpquery nodedesc reads [$pair]" t_nodedesc
	ktap_case "modify_port: IsSM in PortInfo CapabilityMask while issm is open [$pair]" t_port_cap
	ktap_case "opensm stopped, rmmod, no kernel splat [$pair]" t_unload
done
ktap_end
