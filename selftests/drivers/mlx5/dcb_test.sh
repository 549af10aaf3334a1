#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DCB on the emulator's Ethernet ports (guest with --link eth), for the
# in-tree pair (mlx5e's dcbnl) and then ours (core/en/dcb.c) in the same
# boot: iproute2's dcb sets PFC, ETS (with a 0 % TC), DSCP APP entries
# (trust DSCP), rate limits per TC and (ours: the in-tree mlx5e has no
# such operation) the trust order of dcb apptrust, and reads them back,
# with the buffers and the DCBX mode;
# ethtool -a/-A sets global pause. Each read-back is checked, and so is
# the emulator's own view of the port's registers (hca 0 qos); at the end
# ours must have read back what the in-tree pair did. ETS bandwidth that
# does not add up to 100 % is refused by both. No mlx5 command may fail.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
command -v dcb >/dev/null 2>&1 || ktap_skip_all "needs dcb (iproute2)"
out=/tmp/dcb_test
rm -rf $out && mkdir -p $out

netdev_of() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }

# qos_match ERE: the emulator shows a line matching ERE (whole line).
qos_match()
{
	emu_ctl hca 0 qos | grep -Eqx "$1" && return 0
	echo "emulator: no line matching \"$1\" in:"
	emu_ctl hca 0 qos
	return 1
}

# The emulator's QoS line of HCA 0 that starts with $1.
qos_line() { emu_ctl hca 0 qos | grep -m 1 "^$1"; }

# qos_has LINE: the emulator shows LINE, else says what it shows.
qos_has()
{
	emu_ctl hca 0 qos | grep -qx "$1" && return 0
	echo "emulator: no line \"$1\" in:"
	emu_ctl hca 0 qos
	return 1
}

# show NAME CMD...: run CMD, keep its output as $pair's NAME, print it.
show()
{
	_n=$1
	shift
	"$@" >"$out/$pair.$_n" 2>&1 || { cat "$out/$pair.$_n"; return 1; }
	cat "$out/$pair.$_n"
}

# has NAME TEXT: $pair's NAME holds TEXT.
has()
{
	grep -qF -- "$2" "$out/$pair.$1" && return 0
	echo "expected \"$2\" in $1"
	return 1
}

# ethtool -a without its first line (which names the netdev).
pause_of() { ethtool -a "$1" >"$out/pause.raw" && tail -n +2 "$out/pause.raw"; }

t_load()
{
	mlx5_load $pair eth || { dmesg | grep mlx5 | tail; return 1; }
	d=$(echo $devs | awk '{ print $1 }')
	wait_for 30 sh -c "ls /sys/bus/pci/devices/$d/net 2>/dev/null | grep -q ." ||
		{ echo "$d: no netdev"; return 1; }
	dev=$(netdev_of "$d")
	echo "$d: $dev"
	ip link set "$dev" up
}

# dcbnl is there: ETS as the driver sets it up (every TC the device's,
# priorities 0 and 1 swapped), DCBX run by the host.
t_initial()
{
	show ets0 dcb ets show dev "$dev" || return 1
	has ets0 "prio-tc 0:1 1:0 2:2 3:3 4:4 5:5 6:6 7:7" || return 1
	show dcbx dcb dcbx show dev "$dev" || return 1
	has dcbx host || return 1
	qos_has "prio_tc 1 0 2 3 4 5 6 7" && qos_has "dcbx host willing 0" && qos_has "trust pcp"
}

# PFC on priorities 3 and 5 takes global pause off; off again, ethtool -A
# turns pause back on.
t_pfc()
{
	dcb pfc set dev "$dev" prio-pfc all:off 3:on 5:on || return 1
	show pfc dcb pfc show dev "$dev" prio-pfc || return 1
	has pfc "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:on 6:off 7:off" || return 1
	qos_has "pfc tx 0x28 rx 0x28" && qos_has "pause tx off rx off" || return 1
	show pause_off pause_of "$dev" || return 1
	grep -Eq '^RX:[[:space:]]+off' "$out/$pair.pause_off" || return 1
	dcb pfc set dev "$dev" prio-pfc all:off || return 1
	ethtool -A "$dev" rx on tx on || return 1
	show pause_on pause_of "$dev" || return 1
	grep -Eq '^RX:[[:space:]]+on' "$out/$pair.pause_on" && grep -Eq '^TX:[[:space:]]+on' "$out/$pair.pause_on" || return 1
	qos_has "pfc tx 0x00 rx 0x00" && qos_has "pause tx on rx on"
}

# ETS: two ETS TCs at 30/70 % under strict ones, priorities mapped; then
# every TC ETS with two at 60/40 % and six asking 0 % (they split a group
# of their own evenly and read back as 0); a sum of 80 % is refused and
# changes nothing.
t_ets()
{
	dcb ets set dev "$dev" tc-tsa all:strict 0:ets 1:ets tc-bw all:0 0:30 1:70 \
		prio-tc all:0 3:1 5:2 || return 1
	show ets1 dcb ets show dev "$dev" || return 1
	has ets1 "tc-tsa 0:ets 1:ets 2:strict 3:strict 4:strict 5:strict 6:strict 7:strict" || return 1
	has ets1 "tc-bw 0:30 1:70 2:0 3:0 4:0 5:0 6:0 7:0" || return 1
	has ets1 "prio-tc 0:0 1:0 2:0 3:1 4:0 5:2 6:0 7:0" || return 1
	qos_has "tc 0 group 0 bw 30 limit none" && qos_has "tc 1 group 0 bw 70 limit none" || return 1
	qos_has "tc 2 group 1 bw 100 limit none" && qos_has "prio_tc 0 0 0 1 0 2 0 0" || return 1

	dcb ets set dev "$dev" tc-tsa all:ets tc-bw all:0 0:60 1:40 || return 1
	show ets2 dcb ets show dev "$dev" tc-tsa tc-bw || return 1
	has ets2 "tc-bw 0:60 1:40 2:0 3:0 4:0 5:0 6:0 7:0" || return 1
	qos_has "tc 0 group 1 bw 60 limit none" && qos_has "tc 2 group 0 bw 16 limit none" || return 1
	qos_has "tc 7 group 0 bw 20 limit none" || return 1

	if dcb ets set dev "$dev" tc-tsa all:ets tc-bw all:10 2>"$out/$pair.ets_bad"; then
		echo "an ETS sum of 80 % was taken"
		return 1
	fi
	cat "$out/$pair.ets_bad"
	show ets3 dcb ets show dev "$dev" tc-tsa tc-bw || return 1
	cmp -s "$out/$pair.ets2" "$out/$pair.ets3" || { echo "the refused ETS changed the port"; return 1; }
}

# DSCP APP entries: the first switches the port to DSCP trust, each maps
# its DSCP in the device; deleting them returns to PCP trust.
t_app()
{
	dcb app add dev "$dev" dscp-prio 24:5 46:6 || return 1
	show app dcb -N app show dev "$dev" dscp-prio || return 1
	has app "24:5" && has app "46:6" || return 1
	qos_has "trust dscp" || return 1
	set -- $(qos_line dscp_prio)
	shift
	eval "p24=\${25} p46=\${47}"
	echo "emulator: dscp 24 -> $p24, 46 -> $p46"
	[ "$p24" = 5 ] && [ "$p46" = 6 ] || return 1
	dcb app del dev "$dev" dscp-prio 24:5 46:6 || return 1
	show app_del dcb -N app show dev "$dev" dscp-prio || return 1
	grep -q ':' "$out/$pair.app_del" && { echo "entries left"; return 1; }
	qos_has "trust pcp"
}

# dcb apptrust (ours; the in-tree mlx5e has no apptrust operation):
# DSCP alone, PCP alone; an order of both is refused (QPTS has no
# "both" here).
t_apptrust()
{
	if ! dcb apptrust show dev "$dev" >"$out/$pair.apptrust" 2>&1; then
		cat "$out/$pair.apptrust"
		return 1
	fi
	cat "$out/$pair.apptrust"
	has apptrust "order: pcp" || return 1
	dcb apptrust set dev "$dev" order dscp || return 1
	show apptrust2 dcb apptrust show dev "$dev" || return 1
	has apptrust2 "order: dscp" && qos_has "trust dscp" || return 1
	if dcb apptrust set dev "$dev" order dscp pcp 2>/dev/null; then
		echo "an order of both was taken"
		return 1
	fi
	dcb apptrust set dev "$dev" order pcp || return 1
	qos_has "trust pcp"
}

# Rate limits per TC. dcb hands the kernel bytes per second where both
# drivers read kbit/s (dcb's 400Mbit is 50000000, 50 Gbit/s to the driver:
# Gbit/s units; 100Mbit is 12.5 Gbit/s: 100 Mbit/s units), and reads them
# back the same way; then none.
t_maxrate()
{
	dcb maxrate set dev "$dev" tc-maxrate all:0 1:400Mbit 2:100Mbit || return 1
	show maxrate dcb maxrate show dev "$dev" || return 1
	has maxrate "1:400Mbit" && has maxrate "2:100Mbit" || return 1
	qos_match "tc 1 .* limit 50gbit" && qos_match "tc 2 .* limit 125x100mbit" || return 1
	dcb maxrate set dev "$dev" tc-maxrate all:0 || return 1
	qos_match "tc 1 .* limit none"
}

# The receive buffers as the device has them (buffer 0, half the port).
t_buffer()
{
	show buffer dcb buffer show dev "$dev" || return 1
	has buffer "prio-buffer 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0"
}

t_unload()
{
	mlx5_unload $pair || return 1
	bad=$(dmesg | tail -n +$((dmesg_start + 1)) |
		grep -E 'mlx5_core [0-9a-f:.]+: .*(failed|error|err\(|syndrome)' | head)
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# What ours read back is what the in-tree pair read back.
t_same()
{
	rc=0
	for n in ets0 pfc pause_off pause_on ets1 ets2 app maxrate buffer; do
		if cmp -s "$out/in-tree.$n" "$out/ours.$n"; then
			echo "$n: same"
		else
			echo "$n: differs"
			diff "$out/in-tree.$n" "$out/ours.$n"
			rc=1
		fi
	done
	return $rc
}

ktap_begin 18
for pair in in-tree ours; do
	ktap_case "load, the netdev up [$pair]" t_load
	ktap_case "dcb ets/dcbx show: the initial layout, host DCBX [$pair]" t_initial
	ktap_case "dcb pfc prio-pfc 3,5 on (pause off), off; ethtool -A on [$pair]" t_pfc
	ktap_case "dcb ets: ETS/strict TCs, a 0 % TC, prio-tc; a bad sum refused [$pair]" t_ets
	ktap_case "dcb app dscp-prio: trust DSCP, the map in the device, back to PCP [$pair]" t_app
	# Ours only: the in-tree mlx5e has no apptrust operation to compare.
	[ $pair = in-tree ] || ktap_case "dcb apptrust: DSCP, PCP; both refused [$pair]" t_apptrust
	ktap_case "dcb maxrate: TC rate limits in both units, then none [$pair]" t_maxrate
	ktap_case "dcb buffer show [$pair]" t_buffer
	ktap_case "unload: no mlx5 command failed [$pair]" t_unload
done
ktap_case "ours read back what the in-tree pair read back" t_same
ktap_end
