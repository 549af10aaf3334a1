#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS round trip: build and install our modules for the running kernel into
# updates/dkms, check that modprobe picks them over the in-tree ones, then
# remove them and check that modprobe loads the in-tree modules again.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/ktap.sh"
top=${MLX5_SRC:-$(cd "$dir/../../.." && pwd)}
kver=$(uname -r)

if ! command -v dkms >/dev/null || [ ! -d "/lib/modules/$kver/build" ]; then
	ktap_begin 0
	echo "# SKIP: needs dkms and the headers of $kver"
	exit $KSFT_SKIP
fi
if [ -z "${MLX5_DKMS_TEST:-}" ] && [ -n "${MLX5_TEST_DEV:-}" ]; then
	ktap_begin 0
	echo "# SKIP: would change the host's modules; set MLX5_DKMS_TEST=1 to run"
	exit $KSFT_SKIP
fi
devs=$(mlx5_pci_devs)

all_bound()
{
	for d in $devs; do
		[ "$(basename "$(readlink /sys/bus/pci/devices/$d/driver)")" = mlx5_core ] || return 1
	done
}

t_dkms_install()
{
	make -s -C "$top" dkms-install || return 1
	dkms status mlx5-clone
	dkms status mlx5-clone | grep -q "$kver.*installed"
}

t_modinfo_updates()
{
	p=$(modinfo -n mlx5_core); q=$(modinfo -n mlx5_ib)
	echo "$p"; echo "$q"
	case "$p$q" in
	*/updates/dkms/mlx5_core.ko*/updates/dkms/mlx5_ib.ko*) return 0 ;;
	esac
	return 1
}

t_modprobe_ours()
{
	modprobe mlx5_core && modprobe mlx5_ib || return 1
	# Ours is out-of-tree: taint flag O.
	grep -q O /sys/module/mlx5_core/taint || { cat /sys/module/mlx5_core/taint; return 1; }
	wait_for 30 all_bound || return 1
	ls /sys/bus/auxiliary/drivers/
	[ -d /sys/bus/auxiliary/drivers/mlx5_ib.rdma ]
}

t_dkms_remove()
{
	modprobe -r mlx5_ib mlx5_core || return 1
	make -s -C "$top" dkms-remove || return 1
	p=$(modinfo -n mlx5_core)
	echo "$p"
	case "$p" in */kernel/drivers/net/ethernet/mellanox/*) ;; *) return 1 ;; esac
	modprobe mlx5_core || return 1
	grep -q O /sys/module/mlx5_core/taint && { echo "still ours"; return 1; }
	wait_for 30 all_bound || return 1
	modprobe -r mlx5_core
}

ktap_begin 4
ktap_case "dkms add/build/install" t_dkms_install
ktap_case "modinfo -n shows updates/dkms" t_modinfo_updates
ktap_case "modprobe loads ours and binds the functions" t_modprobe_ours
ktap_case "dkms remove restores the in-tree modules" t_dkms_remove
ktap_end
