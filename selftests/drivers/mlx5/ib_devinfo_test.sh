#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Our mlx5_ib registers one mlx5_N device per emulated HCA and the UNMODIFIED
# rdma-core (libibverbs + mlx5 provider) binds it: ibv_devices lists them,
# ibv_devinfo -v opens each one (alloc_ucontext + UAR mmaps) and reports
# sane, emulator-consistent values. Then the same ibv_devinfo -v of the
# in-tree mlx5_ib on the same emulator is compared field by field.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

# field DEVINFO-FILE NAME [N]: value of the Nth (default first) "NAME: value"
# line of an ibv_devinfo -v output.
field()
{
	awk -F':[ \t]+' -v k="$2" -v n="${3:-1}" '
		{ sub(/^[ \t]+/, "") }
		$1 == k { if (++c == n) { sub(/^[^:]*:[ \t]+/, ""); print; exit } }' "$1"
}

ibdevs() { ls /sys/class/infiniband 2>/dev/null | grep '^mlx5_'; }

t_load()
{
	mlx5_load ours || return 1
	ibdevs
}

t_names()
{
	i=0
	for d in $(ibdevs); do
		[ "$d" = "mlx5_$i" ] || { echo "unexpected name $d"; return 1; }
		i=$((i + 1))
	done
	[ "$i" -eq "$ndev" ]
}

t_ibv_devices()
{
	need_tool ibv_devices ibv_devinfo || return 1
	ibv_devices >"$out/ib_devices.txt" 2>&1 || { cat "$out/ib_devices.txt"; return 1; }
	cat "$out/ib_devices.txt"
	for d in $(ibdevs); do
		guid=$(tr -d ':' </sys/class/infiniband/$d/node_guid)
		grep -q -E "^[[:space:]]*$d[[:space:]]+$guid\$" "$out/ib_devices.txt" ||
			{ echo "$d $guid missing"; return 1; }
	done
	[ "$(sort -u "$out/ib_devices.txt" | grep -c mlx5_)" -eq "$ndev" ]
}

# The uverbs character devices libibverbs opens.
t_uverbs()
{
	for d in $(ibdevs); do
		u=$(ls /sys/class/infiniband/$d/device/infiniband_verbs 2>/dev/null)
		[ -n "$u" ] && [ -c "/dev/infiniband/$u" ] || { echo "$d: no uverbs node"; return 1; }
		abi=$(cat /sys/class/infiniband_verbs/$u/abi_version)
		echo "$d -> $u (abi $abi)"
		[ "$abi" = 1 ] || return 1
	done
}

t_devinfo()
{
	for d in $(ibdevs); do
		ibv_devinfo -v -d "$d" >"$out/ib_devinfo_$d.txt" 2>&1 ||
			{ cat "$out/ib_devinfo_$d.txt"; return 1; }
	done
	cat "$out/ib_devinfo_mlx5_0.txt"
}

# The mlx5 provider ibv_devinfo -v loaded (the dynamic loader's record of
# the dlopen), with the rdma-core version its file carries
# (libmlx5.so.1.N.VERSION). MLX5_RDMA_CORE=VERSION (the seeds' baseline
# lane: 65.0) requires that version.
t_provider()
{
	LD_DEBUG=files ibv_devinfo -v -d mlx5_0 >/dev/null 2>"$out/ib_devinfo_ld.txt" ||
		{ tail -n 5 "$out/ib_devinfo_ld.txt"; return 1; }
	p=$(sed -n 's/.*file=\([^ ]*libmlx5-rdmav[0-9]*\.so\) .*dynamically loaded.*/\1/p' \
		"$out/ib_devinfo_ld.txt" | head -n 1)
	[ -n "$p" ] || { echo "ibv_devinfo loaded no mlx5 provider"; return 1; }
	f=$(readlink -f "$p")
	v=$(basename "$f" | sed -n 's/^libmlx5\.so\.[0-9]*\.[0-9]*\.//p')
	echo "provider: $p -> $f: rdma-core ${v:-unknown}" \
		"(package ibverbs-providers $(dpkg-query -W -f '${Version}' ibverbs-providers 2>/dev/null))"
	[ -n "$v" ] || return 1
	[ -z "${MLX5_RDMA_CORE:-}" ] || [ "$v" = "$MLX5_RDMA_CORE" ] ||
		{ echo "expected rdma-core $MLX5_RDMA_CORE"; return 1; }
}

expect() # expect DEV NAME VALUE
{
	v=$(field "$out/ib_devinfo_$1.txt" "$2")
	[ "$v" = "$3" ] || { echo "$1: $2 is '$v', expected '$3'"; return 1; }
}

t_device_values()
{
	for d in $(ibdevs); do
		pci=/sys/class/infiniband/$d/device
		expect "$d" transport "InfiniBand (0)" || return 1
		expect "$d" vendor_id 0x02c9 || return 1
		expect "$d" vendor_part_id "$(printf %d "$(cat $pci/device)")" || return 1
		expect "$d" vendor_part_id 4119 || return 1
		expect "$d" hw_ver "$(printf '0x%X' "$(cat $pci/revision)")" || return 1
		expect "$d" fw_ver "$(cat /sys/class/infiniband/$d/fw_ver)" || return 1
		field "$out/ib_devinfo_$d.txt" fw_ver | grep -q -E '^[0-9]+\.[0-9]+\.[0-9]{4}$' ||
			{ echo "$d: fw_ver format"; return 1; }
		# The firmware version mlx5_core read from the init segment.
		fw=$(field "$out/ib_devinfo_$d.txt" fw_ver | awk -F. '{ printf "%d.%d.%d", $1, $2, $3 }')
		dmesg | grep -q "firmware version $fw" || { echo "$d: fw $fw not in dmesg"; return 1; }
		expect "$d" node_guid "$(cat /sys/class/infiniband/$d/node_guid)" || return 1
		expect "$d" board_id "$(cat /sys/class/infiniband/$d/board_id)" || return 1
		expect "$d" phys_port_cnt 1 || return 1
		for f in max_qp max_qp_wr max_cq max_cqe max_mr max_pd max_srq max_srq_wr max_pkeys; do
			v=$(field "$out/ib_devinfo_$d.txt" $f)
			[ -n "$v" ] && [ "$v" -gt 0 ] || { echo "$d: $f = '$v'"; return 1; }
		done
		[ "$(field "$out/ib_devinfo_$d.txt" num_comp_vectors)" -ge 1 ] || return 1
		[ "$(cat /sys/class/infiniband/$d/hca_type)" = MT4119 ] || return 1
		echo "$d: ok"
	done
}

t_port_values()
{
	for d in $(ibdevs); do
		f=$out/ib_devinfo_$d.txt
		expect "$d" state "PORT_ACTIVE (4)" || return 1
		expect "$d" link_layer InfiniBand || return 1
		expect "$d" phys_state "LINK_UP (5)" || return 1
		expect "$d" max_mtu "4096 (5)" || return 1
		expect "$d" active_mtu "4096 (5)" || return 1
		lid=$(field "$f" port_lid)
		[ "$lid" -gt 0 ] && [ "$lid" -lt 49152 ] || { echo "$d: lid $lid"; return 1; }
		[ "$lid" = "$(printf %d "$(cat /sys/class/infiniband/$d/ports/1/lid)")" ] || return 1
		[ "$(field "$f" sm_lid)" -gt 0 ] || return 1
		expect "$d" pkey_tbl_len 128 || return 1
		expect "$d" gid_tbl_len 8 || return 1
		gid=$(field "$f" "GID[  0]")
		[ "$gid" = "$(cat /sys/class/infiniband/$d/ports/1/gids/0)" ] || { echo "$d: GID $gid"; return 1; }
		case "$gid" in fe80:0000:0000:0000:*) ;; *) echo "$d: GID[0] $gid"; return 1 ;; esac
		[ "$(cat /sys/class/infiniband/$d/ports/1/pkeys/0)" = 0xffff ] || return 1
		echo "$d: lid $lid gid $gid"
	done
	# Every port has its own LID.
	[ "$(for d in $(ibdevs); do field "$out/ib_devinfo_$d.txt" port_lid; done | sort -u | wc -l)" -eq "$ndev" ]
}

# node GUID and LID are what the emulator assigned to that HCA.
t_emulator_identity()
{
	have_emu || return $KSFT_SKIP
	emu_ctl list >"$out/ib_emu_list.txt" || return 1
	for d in $(ibdevs); do
		guid=0x$(tr -d ':' </sys/class/infiniband/$d/node_guid)
		lid=$(field "$out/ib_devinfo_$d.txt" port_lid)
		grep -q "node_guid $guid lid $lid\$" "$out/ib_emu_list.txt" ||
			{ cat "$out/ib_emu_list.txt"; echo "$d: $guid lid $lid"; return 1; }
	done
}

uar_ops() # uar_ops HCA: "allocs deallocs": successful UAR commands
{
	emu_ok_ops "$1" | awk '
		$1 == "ALLOC_UAR" { al = $2 }
		$1 == "DEALLOC_UAR" { de = $2 }
		END { print al + 0, de + 0 }'
}

# Opening and closing a device allocates and frees the context's UARs:
# rdma-core's provider offers dynamic UARs, so each open allocates at least
# one UAR object (its non-cached page) and the close frees it. The count
# of live UARs is exact, so a few opens show a leak as well as many.
OPENS=5
t_open_close_no_leak()
{
	have_emu || return $KSFT_SKIP
	set -- $(uar_ops 0)
	a0=$1 live0=$(($1 - $2))
	i=0
	while [ $i -lt $OPENS ]; do
		ibv_devinfo -d mlx5_0 >/dev/null || return 1
		i=$((i + 1))
	done
	set -- $(uar_ops 0)
	echo "ALLOC_UAR $(($1 - a0)) in $OPENS opens, live after $(($1 - $2)) (before: $live0)"
	[ $(($1 - $2)) -eq "$live0" ] && [ $(($1 - a0)) -ge $OPENS ]
}

# A failing ALLOC_UAR under the provider's UAR object: a context of
# dynamic UARs holds no UAR of its own, so the device still opens (the
# provider goes on without its non-cached page); the failed object leaves
# no UAR behind, and the next open gets its page again.
t_open_fault()
{
	have_emu || return $KSFT_SKIP
	set -- $(uar_ops 0)
	live0=$(($1 - $2))
	emu_ctl hca 0 fail-cmd ALLOC_UAR 0x3 0 forever >/dev/null || return 1
	ibv_devinfo -d mlx5_0 >"$out/ib_open_fault.txt" 2>&1 ||
		{ cat "$out/ib_open_fault.txt"; emu_ctl hca 0 clear-faults >/dev/null; return 1; }
	emu_ctl hca 0 clear-faults >/dev/null
	set -- $(uar_ops 0)
	[ $(($1 - $2)) -eq "$live0" ] || { echo "UARs leaked: $1 allocated, $2 freed"; return 1; }
	a0=$1
	ibv_devinfo -d mlx5_0 >/dev/null || return 1
	set -- $(uar_ops 0)
	[ "$1" -gt "$a0" ] || { echo "no UAR allocated by the open after the fault"; return 1; }
	[ $(($1 - $2)) -eq "$live0" ] || { echo "UARs leaked: $1 allocated, $2 freed"; return 1; }
}

# A PORT_CHANGE EQE (generated with GEN_EQE by mlx5_core's self-test)
# reaches user space as IB_EVENT_PORT_ACTIVE through ib_dispatch_event.
t_async_event()
{
	bdf=$(basename "$(readlink /sys/class/infiniband/mlx5_0/device)")
	f=/sys/kernel/debug/mlx5c/$bdf/test_event
	need_harness "$(dirname "$f")" || return 1
	need_tool ibv_asyncwatch || return 1
	ibv_asyncwatch -d mlx5_0 >"$out/ib_asyncwatch.txt" 2>&1 &
	pid=$!
	# ibv_asyncwatch has opened the device once it holds a uverbs file.
	wait_for 20 sh -c "ls -l /proc/$pid/fd 2>/dev/null | grep -q infinibandevent" ||
		{ kill $pid; cat "$out/ib_asyncwatch.txt"; return 1; }
	echo 3 >"$f" || { kill $pid; return 1; }
	cat "$f"
	wait_for 20 sh -c "[ \$(grep -c -i 'port.active' $out/ib_asyncwatch.txt) -ge 3 ]"
	rc=$?
	kill $pid 2>/dev/null
	wait $pid
	cat "$out/ib_asyncwatch.txt"
	return $rc
}

t_unload() { mlx5_unload ours; }

# Fields that must agree with the in-tree driver: identity, port state and
# the limits both derive from the same capabilities.
SAME_FIELDS="transport fw_ver node_guid sys_image_guid vendor_id vendor_part_id hw_ver
board_id phys_port_cnt page_size_cap max_qp max_qp_wr max_sge max_sge_rd max_cq
max_cqe max_mr max_mw max_pd max_qp_rd_atom max_res_rd_atom max_qp_init_rd_atom atomic_cap max_srq
max_srq_wr max_srq_sge max_pkeys local_ca_ack_delay num_comp_vectors state max_mtu active_mtu
sm_lid port_lid port_lmc link_layer max_msg_sz port_cap_flags port_cap_flags2 max_vl_num
bad_pkey_cntr qkey_viol_cntr sm_sl pkey_tbl_len gid_tbl_len subnet_timeout init_type_reply
active_width active_speed phys_state"

# Why the others may differ.
explain()
{
	case "$1" in
	device_cap_flags*|device_cap_flags_ex)
		echo "kernel-verb features (memory management extensions, XRC, MW, UD checksums...) the in-tree driver implements and we do not" ;;
	max_sge|max_sge_rd) echo "the in-tree driver limits SGEs by its own WQE overheads" ;;
	max_mr_size) echo "ours puts the whole MTT list in one CREATE_MKEY (at most 4 GiB in 4 KiB pages, the longest command); the in-tree driver reports no bound" ;;
	max_qp_rd_atom|max_qp_init_rd_atom|max_res_rd_atom) echo "RDMA-read depth policy" ;;
	atomic_cap|masked_atomic*) echo "atomics need the atomic capability profile" ;;
	max_mcast*|max_total_mcast*) echo "multicast limits" ;;
	max_ah|max_fast_reg*) echo "kernel-verb limits" ;;
	num_comp_vectors) echo "completion EQs: each mlx5_core chooses its own count" ;;
	port_cap_flags*) echo "capability bits set by in-tree MAD agents (CM, SM client) that our kernel-verb-less device has not" ;;
	*odp*) echo "ODP: the in-tree mlx5_ib reports the emulator's page-fault capabilities (HCA cap pg, RC RDMA WRITE/READ responder faults: emu/src/exec/odp.cc), which it needs for DMA-BUF MRs; ours has no ODP and pins DMA-BUFs" ;;
	*timestamp*|*clock*|tso*|max_tso|rss*|max_rwq*|rx_hash*|max_wq_type_rq|packet_pacing*|qp_rate_limit*|tag*|cq_mod*|max_cq_moderation*|max_dm*|*completion*)
		echo "offload not implemented (clock, TSO, RSS, pacing, tag matching, CQ moderation, device memory)" ;;
	*) echo "unexplained"; return 1 ;;
	esac
}

# devinfo_diff OURS IN-TREE: the fields (field's "NAME: value" lines, the
# first of each NAME; NAME is any "word:" a line starts with) that differ
# between two ibv_devinfo -v outputs, one line each, tab-separated: "same"
# (a field of $SAME_FIELDS) or "other", the name, our value, the in-tree
# value; $SAME_FIELDS in their order, then the others by name.
devinfo_diff()
{
	awk -v same="$(echo $SAME_FIELDS)" '
		{ f = FILENAME == ARGV[1] ? 1 : 2 }
		{ sub(/^[ \t]+/, "") }
		match($0, /^[a-zA-Z_]+:/) { names[substr($0, 1, RLENGTH - 1)] = 1 }
		match($0, /:[ \t]+/) {
			k = substr($0, 1, RSTART - 1)
			if (!((f, k) in v)) v[f, k] = substr($0, RSTART + RLENGTH)
		}
		END {
			n = split(same, s, " ")
			for (i = 1; i <= n; i++) {
				k = s[i]; is_same[k] = 1
				if (v[1, k] != v[2, k]) printf "same\t%s\t%s\t%s\n", k, v[1, k], v[2, k]
			}
			for (k in names)
				if (!(k in is_same) && v[1, k] != v[2, k])
					printf "other\t%s\t%s\t%s\n", k, v[1, k], v[2, k] | "sort"
		}' "$1" "$2"
}

t_oracle()
{
	have_emu || return $KSFT_SKIP
	mark=$(ktap_dmesg_mark)
	if ! mlx5_load in-tree; then
		dmesg | tail -n +$((mark + 1)) | grep -E 'mlx5_ib|probe' | head -n 5
		mlx5_unload in-tree
		return 1
	fi
	rc=0
	for d in $(ibdevs); do
		ibv_devinfo -v -d "$d" >"$out/ib_devinfo_upstream_$d.txt" 2>&1 || { rc=1; continue; }
		# One pass over both outputs (field's rules: a "NAME: value"
		# line, the first of each NAME): "same NAME OURS IN-TREE" for
		# each field of $SAME_FIELDS that differs, "other ..." for any
		# other field of either side that differs.
		devinfo_diff "$out/ib_devinfo_$d.txt" "$out/ib_devinfo_upstream_$d.txt" >"$out/devinfo_diff_$d.txt" ||
			{ echo "$d: the comparison failed"; rc=1; }
		while IFS='	' read -r kind k a b; do
			if [ "$kind" = same ]; then
				echo "$d: $k ours '$a' in-tree '$b'"; rc=1
				continue
			fi
			# Everything else: each difference with its explanation;
			# one that explain() does not know fails.
			why=$(explain "$k") || rc=1
			echo "$d: $k ours '$a' in-tree '$b': $why"
		done <"$out/devinfo_diff_$d.txt"
		# GIDs: every index the in-tree driver reports.
		grep 'GID\[' "$out/ib_devinfo_upstream_$d.txt" | sed 's/^[[:space:]]*//' >"$out/gids_up.txt"
		grep 'GID\[' "$out/ib_devinfo_$d.txt" | sed 's/^[[:space:]]*//' >"$out/gids_ours.txt"
		cmp -s "$out/gids_up.txt" "$out/gids_ours.txt" ||
			{ echo "$d: GID tables differ"; diff "$out/gids_up.txt" "$out/gids_ours.txt"; rc=1; }
	done
	mlx5_unload in-tree || rc=1
	return $rc
}

# In make check's other-kernel lanes (MLX5_LANE=1) the device and port
# values, the provider, the async event and the in-tree comparison run; the
# UAR leak count over several opens and the ALLOC_UAR fault repeat our UAR code's paths
# that the main guest runs.
ktap_lane_plan 14 12
ktap_case "insmod mlx5_core mlx5_ib: one RDMA device per HCA" t_load
ktap_case "devices are named mlx5_0..mlx5_N-1" t_names
ktap_case "ibv_devices lists every device with its node GUID" t_ibv_devices
ktap_case "uverbs character devices with ABI version 1" t_uverbs
ktap_case "ibv_devinfo -v opens every device" t_devinfo
ktap_case "ibv_devinfo -v loads rdma-core's mlx5 provider${MLX5_RDMA_CORE:+ $MLX5_RDMA_CORE}" t_provider
ktap_case "device attributes: vendor, part, firmware, board, limits" t_device_values
ktap_case "port attributes: ACTIVE, InfiniBand, LID, MTU 4096, GID[0], P_Key" t_port_values
ktap_case "node GUID and LID match the emulator's" t_emulator_identity
ktap_main_case "$OPENS opens: every context UAR freed" t_open_close_no_leak
ktap_main_case "ALLOC_UAR failure under the UAR object: open goes on, no leak" t_open_fault
ktap_case "port-change event delivered to user space (ibv_asyncwatch)" t_async_event
ktap_case "rmmod mlx5_ib mlx5_core" t_unload
ktap_case "in-tree mlx5_ib on the same emulator: same values" t_oracle
ktap_end
