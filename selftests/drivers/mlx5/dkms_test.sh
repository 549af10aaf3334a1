#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS round trip for the running kernel: install our modules into
# updates/dkms, check that modprobe picks them over the in-tree ones and that
# libibverbs sees their devices, then remove them and check that modprobe
# loads the in-tree modules again.
#
# Two ways in, both ending in `dkms install`:
#   MLX5_DKMS_TARBALL=FILE  a DKMS tarball with the modules built for this
#                           kernel (scripts/build-matrix makes one per kernel
#                           on the host, at native speed): dkms ldtarball,
#                           then dkms install finds them built
#   MLX5_DKMS_TEST=1        the sources of this tree: dkms add and build
#                           (make dkms-install; needs the kernel headers)
# Without either the test skips: it changes the system's modules.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
kver=$(uname -r)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
tarball=${MLX5_DKMS_TARBALL:-}

skip() { ktap_skip_all "$*"; }
command -v dkms >/dev/null || skip "needs dkms"
if [ -n "$tarball" ]; then
	[ -f "$tarball" ] || skip "no tarball $tarball (scripts/build-matrix makes them)"
	tar -tzf "$tarball" | grep -q "dkms_main_tree/$kver/" || skip "$tarball has no modules for $kver"
elif [ "${MLX5_DKMS_TEST:-}" = 1 ]; then
	[ -d "/lib/modules/$kver/build" ] || skip "needs the headers of $kver"
else
	skip "changes the system's modules: set MLX5_DKMS_TARBALL=FILE or MLX5_DKMS_TEST=1"
fi

all_bound()
{
	for d in $devs; do
		[ "$(basename "$(readlink /sys/bus/pci/devices/$d/driver)")" = mlx5_core ] || return 1
	done
}
ours_loaded() { grep -q O /sys/module/mlx5_core/taint && grep -q O /sys/module/mlx5_ib/taint; }
nibdev() { ls /sys/class/infiniband 2>/dev/null | grep -c '^mlx5_'; }

t_dkms_install()
{
	if [ -n "$tarball" ]; then
		dkms ldtarball "$tarball" || return 1
		# Each dkms call is seconds of CPU under TCG: no status here.
		# What the tarball held is built for this kernel, so install
		# compiles nothing (no make.log below).
		dkms install -m "$name" -v "$version" -k "$kver" >/tmp/dkms_install.txt 2>&1
		rc=$?
		cat /tmp/dkms_install.txt
		[ "$rc" -eq 0 ] || return 1
		[ ! -e "/var/lib/dkms/$name/$version/build/make.log" ] || { echo "dkms compiled in the guest"; return 1; }
	else
		make -s -C "$top" dkms-install >/tmp/dkms_install.txt 2>&1
		rc=$?
		cat /tmp/dkms_install.txt
		[ "$rc" -eq 0 ] || return 1
	fi
	# DKMS's own word: dkms install does not print the status line on
	# every dkms version (trixie's ends with "Running depmod... done.").
	st=$(dkms status "$name")
	echo "$st"
	echo "$st" | grep -q "$kver.*installed"
}

t_modinfo_updates()
{
	p=$(modinfo -n mlx5_core); q=$(modinfo -n mlx5_ib)
	echo "$p"; echo "$q"
	case "$p" in "/lib/modules/$kver/updates/dkms/mlx5_core.ko"*) ;; *) return 1 ;; esac
	case "$q" in "/lib/modules/$kver/updates/dkms/mlx5_ib.ko"*) ;; *) return 1 ;; esac
	# The very files DKMS built (or loaded from the tarball).
	for m in mlx5_core mlx5_ib; do
		b=$(ls /var/lib/dkms/$name/$version/$kver/*/module/$m.ko* 2>/dev/null | head -n 1)
		[ -n "$b" ] || { echo "$m: not in the DKMS tree"; return 1; }
		cmp "$(modinfo -n $m)" "$b" || return 1
	done
	modinfo -F version mlx5_core
	# The module says the version the DKMS package installed.
	[ "$(modinfo -F version mlx5_core)" = "$version" ]
}

t_modprobe_ours()
{
	modprobe mlx5_core && modprobe mlx5_ib || return 1
	# Ours are out of tree: taint flag O on both.
	ours_loaded || { cat /sys/module/mlx5_core/taint /sys/module/mlx5_ib/taint; return 1; }
	wait_for 30 all_bound || return 1
	ls /sys/bus/auxiliary/drivers/
	[ -d /sys/bus/auxiliary/drivers/mlx5_ib.rdma ] || return 1
	wait_for 30 sh -c "[ \$(ls /sys/class/infiniband | grep -c '^mlx5_') -eq $ndev ]" ||
		{ ls /sys/class/infiniband; return 1; }
}

t_ibv_devinfo()
{
	ours_loaded || { echo "our modules are not loaded"; return 1; }
	need_tool ibv_devinfo || return 1
	ibv_devinfo >/tmp/dkms_devinfo.txt 2>&1
	rc=$?
	cat /tmp/dkms_devinfo.txt
	[ "$rc" -eq 0 ] || return 1
	[ "$(grep -c 'hca_id:[[:space:]]*mlx5_' /tmp/dkms_devinfo.txt)" -eq "$ndev" ] || return 1
	[ "$(grep -c 'state:[[:space:]]*PORT_ACTIVE' /tmp/dkms_devinfo.txt)" -eq "$ndev" ] || return 1
	# iproute2's view (netlink) where it is installed.
	command -v rdma >/dev/null || return 0
	rdma dev >/tmp/dkms_rdma.txt 2>&1 || { cat /tmp/dkms_rdma.txt; return 1; }
	cat /tmp/dkms_rdma.txt
	[ "$(grep -c -E '^[0-9]+: mlx5_[0-9]+: node_type ca ' /tmp/dkms_rdma.txt)" -eq "$ndev" ]
}

t_dkms_remove()
{
	modprobe -r mlx5_ib mlx5_core || return 1
	if [ -n "$tarball" ]; then
		dkms remove -m "$name" -v "$version" --all || return 1
	else
		make -s -C "$top" dkms-remove || return 1
	fi
	# Nothing of it left in the DKMS tree (what dkms status lists).
	ls -d /var/lib/dkms/"$name"/* 2>/dev/null | grep . && return 1
	for m in mlx5_core mlx5_ib; do
		p=$(modinfo -n $m)
		echo "$p"
		case "$p" in "/lib/modules/$kver/kernel/drivers/"*) ;; *) return 1 ;; esac
	done
	[ ! -e "/lib/modules/$kver/updates/dkms/mlx5_core.ko" ] || return 1
}

t_modprobe_intree()
{
	modprobe mlx5_core || return 1
	grep -q O /sys/module/mlx5_core/taint && { echo "still ours"; return 1; }
	wait_for 30 all_bound || return 1
	grep -q '^mlx5_ib ' /proc/modules && { modprobe -r mlx5_ib || return 1; }
	modprobe -r mlx5_core
}

# In the project's QEMU guest the module tree is the toolbox's, read over
# 9p, and every depmod that dkms install and remove run decompresses all of
# its ~4000 modules: minutes under TCG. There the test runs on a copy of the
# tree reduced to the RDMA stack (the InfiniBand and Mellanox modules and
# everything they depend on, per modules.dep), bind-mounted over the real
# tree for the test's duration. Priorities, paths and modprobe behave as on
# the full tree.
reduce_module_tree()
{
	src=/lib/modules/$kver
	copy=$(mktemp -d /tmp/dkms_modules.XXXXXX) || return 1
	cp -a "$src"/modules.* "$copy"/ || return 1
	for l in build source; do [ -L "$src/$l" ] && cp -a "$src/$l" "$copy/"; done
	# One cp for all of them (a cp and a mkdir per module cost 13 s of
	# CPU under TCG).
	(cd "$src" && awk -F: '$1 ~ /\/(infiniband|mellanox)\// {
		print $1; n = split($2, d, " "); for (i = 1; i <= n; i++) print d[i] }' \
		modules.dep | sort -u | xargs cp --parents -t "$copy") || return 1
	mount --bind "$copy" "$src" || return 1
	trap 'umount "/lib/modules/$kver"' EXIT
	depmod -a "$kver" || return 1
	echo "# module tree reduced to $(find "$src" -name '*.ko*' | wc -l) modules for the test"
}

ktap_begin 6
if mlx5_loaded; then
	echo "Bail out! an mlx5 driver is loaded"
	exit $KSFT_FAIL
fi
if have_emu; then
	reduce_module_tree || { echo "Bail out! reducing the module tree failed"; exit $KSFT_FAIL; }
fi
if [ -n "$tarball" ]; then
	ktap_case "dkms ldtarball + install for $kver" t_dkms_install
else
	ktap_case "dkms add/build/install for $kver" t_dkms_install
fi
ktap_case "modinfo -n shows updates/dkms" t_modinfo_updates
ktap_case "modprobe loads ours and binds the functions" t_modprobe_ours
ktap_case "ibv_devinfo and rdma dev: every device, port active" t_ibv_devinfo
ktap_case "dkms remove: modinfo -n shows the in-tree modules" t_dkms_remove
ktap_case "modprobe loads the in-tree mlx5_core again" t_modprobe_intree
ktap_end
