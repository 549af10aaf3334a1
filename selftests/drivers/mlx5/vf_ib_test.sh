#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# InfiniBand VFs in a VM (guest with emulator --function vf --link ib, the
# internal SM): two VFs of two adapters and no PF. For the in-tree pair and
# then ours in the same boot: an RDMA device per VF whose port is ACTIVE
# with the SM's LID, read through the HCA vport context (ib_virt); node
# GUID and GID[0] are the ones the host side gives the vport; no subnet
# management from a VF (an SMP is refused, IsSM through issm is refused)
# while performance management (QP1) answers; RC traffic with and without
# a GRH; the host's link policy takes the port down and back (the port
# state follows, RC again); the host sets new GUIDs and a reload shows
# them; unloading returns every firmware page and the driver logged no
# failed command.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
dmesg_start=$(ktap_dmesg_mark)

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
PERF_ITERS=${MLX5_PERF_ITERS:-200}
HOST_NODE_GUID=0002c90000abcd00
HOST_PORT_GUID=0002c90000abcd01


port_active() { ibv_devinfo -d "$1" | grep -q 'state:.*PORT_ACTIVE'; }

# devinfo_field DEV NAME: the value of NAME in ibv_devinfo -v.
devinfo_field() { ibv_devinfo -v -d "$1" | awk -v k="$2:" '$1 == k { print $2; exit }'; }

# vport_guid H node|port: the host side's GUID of HCA H, 16 hex digits.
vport_guid() { emu_ctl hca "$1" vport | awk -v k="$2_guid" '{ for (i = 1; i < NF; i++) if ($i == k) print substr($(i + 1), 3) }'; }

# colon_guid HEX16: the GUID as ibv_devinfo prints it (xxxx:xxxx:xxxx:xxxx).
colon_guid() { echo "$1" | sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/'; }

# gid0_guid DEV: the low half of GID[0] from sysfs, 16 hex digits.
gid0_guid() { sed 's/^.\{20\}//; s/://g' "/sys/class/infiniband/$1/ports/1/gids/0"; }

t_load()
{
	for h in 0 1; do emu_ctl hca $h trace-clear >/dev/null; done
	mlx5_load "$pair" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	modprobe ib_umad || { echo "modprobe ib_umad failed"; return 1; }
	for i in 0 1; do
		d=mlx5_$i
		wait_for 30 port_active $d || { echo "$d: port not ACTIVE"; ibv_devinfo -d $d; return 1; }
		ibv_devinfo -d $d | grep -E 'hca_id|vendor_part_id|node_guid|state|port_lid|link_layer'
		ibv_devinfo -d $d | grep -q 'link_layer:.*InfiniBand' || { echo "$d: not InfiniBand"; return 1; }
		lid=$(devinfo_field $d port_lid)
		[ "$lid" = $((i + 1)) ] || { echo "$d: LID $lid, the SM gave $((i + 1))"; return 1; }
	done
}

# The node GUID and GID[0] are the vport's (the host side's).
t_guids()
{
	for i in 0 1; do
		node=$(vport_guid $i node) port=$(vport_guid $i port)
		echo "hca $i vport: node $node port $port"
		[ -n "$node" ] && [ -n "$port" ] || { emu_ctl hca $i vport; return 1; }
		got=$(devinfo_field mlx5_$i node_guid)
		[ "$got" = "$(colon_guid "$node")" ] || { echo "mlx5_$i: node_guid $got"; return 1; }
		got=$(gid0_guid mlx5_$i)
		[ "$got" = "$port" ] || { echo "mlx5_$i: GID[0] ends in $got"; return 1; }
	done
}

# umad_of DEV: the umad port of DEV (umadN).
umad_of()
{
	for u in /sys/class/infiniband_mad/umad*; do
		[ "$(cat "$u/ibdev")" = "$1" ] && basename "$u" && return 0
	done
	return 1
}

# No subnet management from a VF: SubnGet(NodeInfo) to the peer's LID is
# not sent, claiming the SM through issm is refused, nothing reached the
# emulator's VL15 (smi_refused stays 0: the driver stopped both); a
# performance query (QP1, GSI) is answered, locally and by the peer.
t_no_smi()
{
	need_tool smpquery perfquery || return 1
	if timeout 30 smpquery -C mlx5_0 -P 1 nodeinfo 2; then
		echo "an SMP left the VF"
		return 1
	fi
	u=$(umad_of mlx5_0) || { echo "mlx5_0: no umad port"; return 1; }
	issm=/dev/infiniband/$(echo "$u" | sed 's/umad/issm/')
	if timeout 10 sh -c "exec 3<$issm"; then
		echo "$issm opened: the VF claimed IsSM"
		return 1
	fi
	flags=$(devinfo_field mlx5_0 port_cap_flags)
	echo "port_cap_flags $flags"
	[ $((flags & 2)) -eq 0 ] || { echo "IsSM set"; return 1; }
	refused=$(emu_ctl hca 0 datapath | awk '$1 == "smi_refused" { print $2 }')
	[ "$refused" = 0 ] || { echo "hca 0 smi_refused $refused: the driver sent on VL15"; return 1; }
	timeout 30 perfquery -C mlx5_0 -P 1 | grep -E 'Port counters|PortXmitPkts' || return 1
	timeout 30 perfquery -C mlx5_0 -P 1 2 1 | grep -E 'Port counters|PortXmitPkts'
}

t_rc_grh()
{
	rdma_pair vf_ib_rc ibv_rc_pingpong -g 0 -n 100 || return 1
	tail -n 2 "$out/vf_ib_rc.client"
}

t_write_bw()
{
	rdma_pair vf_ib_write_bw ib_write_bw -n "$PERF_ITERS" -s 65536 || return 1
	perf_result "$out/vf_ib_write_bw.client"
}

port_down() { ibv_devinfo -d "$1" | grep -q 'state:.*PORT_DOWN'; }

# The host disables VF 0's link (`ip link set <pf> vf 0 state disable`):
# its port goes DOWN while the physical port stays the SM's; auto gives it
# back, and RC flows again.
t_host_link()
{
	emu_ctl hca 0 vport link disable | grep -q '^ok' || { echo "emu: vport link disable refused"; return 1; }
	wait_for 30 port_down mlx5_0 || { echo "mlx5_0: port not DOWN"; ibv_devinfo -d mlx5_0; emu_ctl hca 0 vport link auto; return 1; }
	echo "mlx5_0: $(ibv_devinfo -d mlx5_0 | grep 'state:') after the host's link disable"
	emu_ctl hca 0 vport link auto | grep -q '^ok' || return 1
	wait_for 30 port_active mlx5_0 || { echo "mlx5_0: port not ACTIVE after link auto"; return 1; }
	echo "mlx5_0: ACTIVE after link auto"
	rdma_pair vf_ib_rc_link ibv_rc_pingpong -g 0 -n 20
}

# The host gives VF 0 new GUIDs; the driver reads them when it registers
# its device (a reload); then the emulator's own again.
t_host_guid()
{
	emu_ctl hca 0 vport guid node 0x$HOST_NODE_GUID | grep -q '^ok' || { echo "emu: vport guid refused"; return 1; }
	emu_ctl hca 0 vport guid port 0x$HOST_PORT_GUID | grep -q '^ok' || return 1
	host_guid_steps
	_rc=$?
	emu_ctl hca 0 vport guid node 0 >/dev/null
	emu_ctl hca 0 vport guid port 0 >/dev/null
	return $_rc
}

host_guid_steps()
{
	mlx5_unload "$pair" || return 1
	mlx5_load "$pair" || return 1
	wait_for 30 port_active mlx5_0 || { echo "mlx5_0: port not ACTIVE after the reload"; return 1; }
	node=$(devinfo_field mlx5_0 node_guid) port=$(gid0_guid mlx5_0)
	echo "after the reload: node_guid $node, GID[0] ...$port"
	[ "$node" = "$(colon_guid $HOST_NODE_GUID)" ] && [ "$port" = $HOST_PORT_GUID ] || return 1
	rdma_pair vf_ib_rc2 ibv_rc_pingpong -g 0 -n 20
}

t_down()
{
	rc=0
	mlx5_unload "$pair" || rc=1
	emu_pages_back 0 1 || rc=1
	mlx5_log_clean "$dmesg_start" || rc=1
	return $rc
}

PAIRS=${MLX5_VF_PAIRS:-in-tree ours}
ktap_begin $((1 + 8 * $(echo $PAIRS | wc -w)))
ktap_case "lspci: two VFs (VF device ID), no SR-IOV capability" vf_functions_check
for pair in $PAIRS; do
	ktap_case "load: an RDMA device per VF, InfiniBand, ACTIVE with the SM's LID [$pair]" t_load
	ktap_case "node GUID and GID[0] are the vport's [$pair]" t_guids
	ktap_case "no subnet management from a VF (SMP, IsSM refused); perfquery answers [$pair]" t_no_smi
	ktap_case "ibv_rc_pingpong with a GRH [$pair]" t_rc_grh
	ktap_case "ib_write_bw over InfiniBand [$pair]" t_write_bw
	ktap_case "the host disables the VF's link and gives it back: port state follows [$pair]" t_host_link
	ktap_case "the host sets the VF's GUIDs: seen after a reload [$pair]" t_host_guid
	ktap_case "unload: every firmware page returned, no failed command logged [$pair]" t_down
done
ktap_end
