#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Our mlx5_core binds the ConnectX functions, reads the firmware version from
# the initialization segment, publishes mlx5_core.rdma.N, which our mlx5_ib
# binds; both modules unload cleanly.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

t_lspci()
{
	lspci -nn -d 15b3: | grep -q '15b3:10' || { lspci -nn; return 1; }
	lspci -nn -d 15b3:
}

t_insmod() { mlx5_load ours; }

t_bound()
{
	for d in $devs; do
		drv=$(basename "$(readlink /sys/bus/pci/devices/$d/driver)")
		echo "$d -> $drv"
		[ "$drv" = mlx5_core ] || return 1
	done
}

t_fw_version()
{
	for d in $devs; do
		dmesg | grep -E "mlx5_core $d: firmware version [0-9]+\.[0-9]+\.[0-9]+, command interface revision 5" ||
			return 1
	done
}

t_aux_bound()
{
	n=0
	for a in /sys/bus/auxiliary/devices/mlx5_core.rdma.*; do
		[ -e "$a" ] || continue
		drv=$(basename "$(readlink "$a/driver")")
		echo "$(basename "$a") -> $drv"
		# auxiliary drivers are named <module>.<driver name>
		[ "$drv" = mlx5_ib.rdma ] || return 1
		n=$((n + 1))
	done
	[ "$n" -eq "$(echo $devs | wc -w)" ]
}

t_rmmod() { mlx5_unload ours; }

ktap_begin 6
ktap_case "lspci shows the ConnectX function" t_lspci
ktap_case "insmod mlx5_core mlx5_ib" t_insmod
ktap_case "mlx5_core bound to every ConnectX function" t_bound
ktap_case "firmware version read from the init segment" t_fw_version
ktap_case "mlx5_core.rdma.N bound by mlx5_ib" t_aux_bound
ktap_case "rmmod mlx5_ib mlx5_core" t_rmmod
ktap_end
