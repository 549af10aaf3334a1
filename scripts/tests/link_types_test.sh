#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of scripts/link-types and the install guard (KTAP): on fake
# sysfs trees, a ConnectX function whose port is Ethernet (by RDMA link_layer,
# netdev type or PCI class) makes `make dkms-install` refuse, naming it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fails=0
report() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi; }

# fn SYS BDF VENDOR CLASS: a PCI function in the fake sysfs SYS.
fn() {
	local d=$1/bus/pci/devices/$2
	mkdir -p "$d"
	echo "$3" >"$d/vendor"; echo 0x1017 >"$d/device"; echo "$4" >"$d/class"
}
# netdev SYS BDF NAME TYPE
netdev() { mkdir -p "$1/bus/pci/devices/$2/net/$3"; echo "$4" >"$1/bus/pci/devices/$2/net/$3/type"; }
# rdma SYS BDF NAME LINK-LAYER...
rdma() {
	local s=$1 f=$2 d=$1/class/infiniband/$3 i=1; shift 3
	mkdir -p "$d"; ln -s "$s/bus/pci/devices/$f" "$d/device"
	for l in "$@"; do mkdir -p "$d/ports/$i"; echo "$l" >"$d/ports/$i/link_layer"; i=$((i + 1)); done
}
# expect NAME STATUS PATTERN SYS: link-types exits STATUS, prints PATTERN.
expect() {
	local out rc
	out=$(MLX5_SYSFS=$4 sh "$top/scripts/link-types" 2>&1); rc=$?
	echo "$out" | sed 's/^/# /'
	report $([ "$rc" -eq "$2" ] && echo "$out" | grep -q -E -- "$3"; echo $?) "$1"
}

echo "TAP version 13"
echo "1..8"

s=$tmp/none; fn "$s" 0000:00:01.0 0x8086 0x020000
expect "no ConnectX: nothing to refuse" 0 '^$' "$s"

s=$tmp/ib; fn "$s" 0000:01:00.0 0x15b3 0x020700
expect "InfiniBand by PCI class (no driver)" 0 '0000:01:00.0 .*: InfiniBand$' "$s"

s=$tmp/eth; fn "$s" 0000:01:00.0 0x15b3 0x020700; fn "$s" 0000:02:00.0 0x15b3 0x020000
expect "Ethernet by PCI class is refused" 1 '0000:02:00.0 .*: Ethernet$' "$s"

s=$tmp/net; fn "$s" 0000:01:00.0 0x15b3 0x020700; netdev "$s" 0000:01:00.0 enp1s0 1
expect "Ethernet by netdev type wins over the class" 1 '0000:01:00.0 .*: Ethernet$' "$s"

s=$tmp/ipoib; fn "$s" 0000:01:00.0 0x15b3 0x020700; netdev "$s" 0000:01:00.0 ib0 32
expect "IPoIB netdev is InfiniBand" 0 ': InfiniBand$' "$s"

s=$tmp/rdma; fn "$s" 0000:01:00.0 0x15b3 0x020700; rdma "$s" 0000:01:00.0 mlx5_0 InfiniBand Ethernet
expect "RDMA link_layer names a mixed function" 1 '0000:01:00.0 .*: Ethernet InfiniBand$' "$s"

out=$(MLX5_SYSFS=$tmp/eth make -s -C "$top" dkms-install DESTDIR="$tmp/dest" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
report $([ "$rc" -ne 0 ] && echo "$out" | grep -q '0000:02:00.0' &&
	echo "$out" | grep -q 'refusing to install' && [ ! -e "$tmp/dest" ]; echo $?) \
	"make dkms-install refuses and names the Ethernet function"

out=$(MLX5_SYSFS=$tmp/eth make -s -C "$top" link-check FORCE=1 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
report "$rc" "FORCE=1 lets the install go on"

[ "$fails" -eq 0 ]
