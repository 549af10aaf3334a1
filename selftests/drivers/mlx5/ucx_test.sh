#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UCX (Debian ucx-utils) on two emulated HCAs, first over the IN-TREE
# mlx5_core + mlx5_ib (UCX's mlx5 memory domain opens through DEVX: the
# emulator's QUERY_HCA_CAP, QUERY_LAG, CREATE_UMEM and the CQs and RC QPs
# whose buffers and doorbell records live in umems), then over ours:
# - `ucx_info -d` lists rc_mlx5, ud_mlx5, dc_mlx5, rc_verbs and ud_verbs
#   on mlx5_0:1 and mlx5_1:1 (dc_mlx5: the in-tree pair makes its DCTs and
#   DCIs through DEVX, ours through mlx5dv_create_qp, ib/dc.c);
# - `ucx_perftest -P 0` (server on mlx5_0, client on mlx5_1, 2000
#   iterations of 64 B) over rc_x, ud_x, rc_v and ud_v: tag_lat and
#   ucp_put_bw; over dc_x: tag_lat, tag_bw and ucp_put_bw; each checked by
#   its exit status and its "Final:" line.
# MLX5_UCX_QUICK=1 (make check's selftests guest, where UCX's start-up
# under TCG made the whole program cost some 16 minutes): tag_lat over
# rc_x, rc_v and dc_x only, 200 iterations. make check-long runs all of it.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
if [ "${MLX5_UCX_QUICK:-0}" = 1 ]; then
	UCX_ITERS=${MLX5_UCX_ITERS:-200} ucx_tls="rc_x rc_v dc_x" ucx_tests=tag_lat dc_tests=tag_lat
else
	UCX_ITERS=${MLX5_UCX_ITERS:-2000} ucx_tls="rc_x ud_x rc_v ud_v dc_x"
	ucx_tests="tag_lat ucp_put_bw" dc_tests="tag_lat tag_bw ucp_put_bw"
fi
# tls_tests TLS: the perftests a transport runs.
tls_tests() { if [ "$1" = dc_x ]; then echo $dc_tests; else echo $ucx_tests; fi; }
UCX_TIMEOUT=${MLX5_UCX_TIMEOUT:-240}
ucx_port=14000

# ucx_devices: what ucx_info -d lists, as "TRANSPORT DEVICE" lines.
ucx_devices()
{
	ucx_info -d 2>&1 | awk '
		/# +Transport:/ { t = $3 }
		/# +Device:/ { print t, $3 }'
}

# devlist DRIVER: ucx_info -d lists the IB transports on both ports.
devlist()
{
	need_tool ucx_info || return 1
	ucx_info -d >"$out/ucx_info_$1.txt" 2>&1 || { cat "$out/ucx_info_$1.txt"; return 1; }
	ucx_devices >"$out/ucx_tl_$1.txt"
	grep -E '^(rc|ud|dc)_' "$out/ucx_tl_$1.txt"
	rc=0
	# dc_mlx5: UCX offers it only where it could make a DCT and move
	# it to RTR (ours: mlx5dv_create_qp, its probe of DC).
	for tl in rc_mlx5 ud_mlx5 dc_mlx5 rc_verbs ud_verbs; do
		for d in mlx5_0:1 mlx5_1:1; do
			grep -qx "$tl $d" "$out/ucx_tl_$1.txt" || { echo "missing: $tl on $d"; rc=1; }
		done
	done
	return $rc
}

# perftest DRIVER TLS TEST: ucx_perftest over UCX_TLS=TLS, server on
# mlx5_0:1, client on mlx5_1:1; both exit 0 and the client prints its
# final line with every iteration.
perftest()
{
	_tls=$2 _test=$3 _n=ucx_$1_$2_$3
	need_tool ucx_perftest || return 1
	ucx_port=$((ucx_port + 1))
	UCX_TLS=$_tls UCX_NET_DEVICES=mlx5_0:1 timeout "$UCX_TIMEOUT" \
		ucx_perftest -p "$ucx_port" -P 0 >"$out/$_n.server" 2>&1 &
	_spid=$!
	if ! wait_listen "$ucx_port" "$_spid"; then
		kill "$_spid" 2>/dev/null
		wait "$_spid"
		cat "$out/$_n.server"
		echo "server never listened on $ucx_port"
		return 1
	fi
	UCX_TLS=$_tls UCX_NET_DEVICES=mlx5_1:1 timeout "$UCX_TIMEOUT" \
		ucx_perftest 127.0.0.1 -p "$ucx_port" -P 0 -t "$_test" -s 64 -n "$UCX_ITERS" \
		>"$out/$_n.client" 2>&1
	_crc=$?
	[ "$_crc" -eq 0 ] || kill "$_spid" 2>/dev/null
	wait "$_spid"
	_src=$?
	echo "--- server (exit $_src)"
	tail -n 20 "$out/$_n.server"
	echo "--- client (exit $_crc)"
	tail -n 20 "$out/$_n.client"
	[ "$_src" -eq 0 ] && [ "$_crc" -eq 0 ] || return 1
	# The final line: "Final:" then the iteration count.
	awk -v n="$UCX_ITERS" '$1 == "Final:" && $2 == n { f = 1 } END { exit !f }' "$out/$_n.client" ||
		{ echo "no final line with $UCX_ITERS iterations"; return 1; }
}

load()
{
	ip link set lo up 2>/dev/null
	mlx5_load "$1" || { dmesg | grep -E 'mlx5|infiniband' | tail; return 1; }
	wait_for 30 mlx5_ports_active || { grep . /sys/class/infiniband/mlx5_*/ports/1/state; return 1; }
}

unload()
{
	mlx5_unload "$1" || return 1
	for h in 0 1; do
		p=$(emu_pages_outstanding $h)
		echo "hca $h: $p pages outstanding"
		[ "$p" = 0 ] || return 1
	done
}

# MLX5_UCX_DRIVERS: the pairs to run (default both, in-tree first).
drivers=${MLX5_UCX_DRIVERS:-in-tree ours}
n=0
for drv in $drivers; do
	n=$((n + 3))
	for tls in $ucx_tls; do
		n=$((n + $(echo $(tls_tests $tls) | wc -w)))
	done
done
ktap_begin $n
for drv in $drivers; do
	ktap_case "$drv: load" load $drv
	ktap_case "$drv: ucx_info -d lists rc/ud/dc mlx5 and rc/ud verbs on both ports" devlist $drv
	for tls in $ucx_tls; do
		for t in $(tls_tests $tls); do
			ktap_case "$drv: ucx_perftest $tls $t" perftest $drv $tls $t
		done
	done
	ktap_case "$drv: unload, every firmware page back" unload $drv
done
ktap_end
