#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fault sweep of OUR driver pair (mlx5_core + mlx5_ib of this tree; the
# in-tree pair with MLX5_SWEEP_DRIVER=in-tree): every
# firmware opcode the pair issues, at every phase where it issues it, fails
# once under each fault the emulator's control channel can inject.
#
# Discovery: the emulator's command trace of HCA 0 over a clean load
# (phase "probe"), an ibv_rc_pingpong (phase "runtime") and an unload
# (phase "teardown") gives the opcodes of each phase.
# Faults: "status" (fail-cmd OPCODE 3 0x5eed: BAD_PARAM with a syndrome,
# once), "timeout" (delay-cmd OPCODE: every completion of OPCODE held
# twice the driver's command timeout, so the driver gives up on it),
# "lost-eqe" (drop-cmd-eqe OPCODE: the next OPCODE command completes but
# its command EQE is lost) and "late-eqe" (delay-cmd-eqe OPCODE: every
# OPCODE command completes at once, its EQE comes twice the command
# timeout later, when the driver has given up waiting for it and its slot
# may serve another command). The two EQE faults are planned only for
# the opcodes that owed an EQE in that phase (the trace's eqe=posted: not
# the commands before the command EQ exists).
# The operation of a phase: probe = insmod of both modules, runtime =
# ibv_rc_pingpong mlx5_0 <-> mlx5_1, teardown = rmmod of both modules.
#
# Each case (one opcode x phase x fault) checks:
#   - the fault hit: HCA 0 ran OPCODE during the phase;
#   - the failure was clean: the operation reported an error to its caller
#     ("failed") or, during the operation, the kernel log names the failed
#     command or the driver logged an error about it ("logged");
#     a fault that left no trace at all is "silent" and fails the case;
#   - no kernel splat (splat.re) in the case's log;
#   - after the unload, every firmware page is back on both HCAs and every
#     PD, MKey, CQ, QP and SRQ created was destroyed (emu_obj_leaks; a
#     refused DESTROY is retried at removal), except under a timeout the
#     pair of the delayed opcode: the firmware executed the command, the
#     driver gave up on it, and a CREATE it never learnt of leaves its
#     object to the firmware until the function is torn down; and with it
#     the parents that object names (its PD, its XRC domain), which the
#     firmware refuses to free while named (BAD_RES_STATE, as a ConnectX
#     does: fw_isolation_test), so the driver keeps them until then too;
#   - the device works again: a clean load and an ibv_rc_pingpong pass.
# The last case prints the table opcode x phase x fault -> outcome
# ($out/fault_sweep.table).
#
# Runs in `make check-long` (scripts/check-long): a few hundred cases of
# 20-40 s each under TCG. Narrow it with MLX5_SWEEP_PHASES ("probe runtime
# teardown"), MLX5_SWEEP_FAULTS ("status timeout") and MLX5_SWEEP_OPS
# (opcode names; default: every opcode discovered), or name the cases with
# MLX5_SWEEP_CASES ("PHASE:FAULT:OPCODE ..."). MLX5_SWEEP_RECHECK=probe
# checks the device after a case with a clean load alone (default
# "pingpong": a load and an ibv_rc_pingpong); fault_sweep_quick_test.sh,
# in `make check`, is such a subset.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

have_emu || ktap_skip_all "needs the mlx5-emu control channel (runs in the project's QEMU guest)"
[ "$ndev" -ge 2 ] || ktap_skip_all "needs two emulated HCAs"

# MLX5_SWEEP_DRIVER=in-tree sweeps the guest kernel's pair instead, with
# bad statuses only by default: its command timeout is fixed (60 s).
DRIVER=${MLX5_SWEEP_DRIVER:-ours}
case $DRIVER in
ours) FAULTS=${MLX5_SWEEP_FAULTS:-status timeout lost-eqe late-eqe} ;;
in-tree) FAULTS=${MLX5_SWEEP_FAULTS:-status} ;;
*) ktap_skip_all "MLX5_SWEEP_DRIVER must be ours or in-tree" ;;
esac
PHASES=${MLX5_SWEEP_PHASES:-probe runtime teardown}
# The driver's command timeout while sweeping, and how long a delayed
# completion is held: long enough that the driver always gives up first.
TMO_MS=${MLX5_SWEEP_CMD_TIMEOUT_MS:-2000}
HOLD_MS=$((TMO_MS * 2))
ITERS=5
RECHECK=${MLX5_SWEEP_RECHECK:-pingpong}
RDMA_PAIR_TIMEOUT=${MLX5_SWEEP_PAIR_TIMEOUT:-60}
SYND=0x5eed
h=0
table=$out/fault_sweep.table

# trace_ops FILE: the opcodes of a trace dump, "NAME HEX", in order of
# first use.
trace_ops()
{
	sed -n 's/^[0-9]* slot=[0-9]* \([A-Z0-9_]*\)(0x\([0-9a-f]*\)).*/\1 \2/p' "$1" | awk '!seen[$0]++'
}

# trace_ops_eqe FILE: the same, only the opcodes of which a command owed
# (and got) its command EQE.
trace_ops_eqe()
{
	grep ' eqe=posted' "$1" >"$1.eqe"
	trace_ops "$1.eqe"
}

# load: insmod our pair with the sweep's command timeout (or modprobe the
# in-tree pair); succeeds once
# every function is bound, every RDMA device registered and every port
# ACTIVE. Bounded: a probe that fails must not cost mlx5_load's 30 s.
load()
{
	mlx5_loaded && { echo "an mlx5 driver is already loaded"; return 1; }
	modprobe -q ib_uverbs
	if [ "$DRIVER" = ours ]; then
		insmod "$core_ko" cmd_timeout_ms="$TMO_MS" || { echo "insmod mlx5_core failed"; return 1; }
	else
		modprobe mlx5_core || { echo "modprobe mlx5_core failed"; return 1; }
	fi
	# The PCI probes ran inside the module load: a function that is not
	# bound now never will be (waiting would only slow the probe cases).
	[ "$(mlx5_bound_count)" -ge "$ndev" ] ||
		{ echo "$(mlx5_bound_count) of $ndev functions bound"; return 1; }
	if [ "$DRIVER" = ours ]; then
		insmod "$ib_ko" || { echo "insmod mlx5_ib failed"; return 1; }
	else
		modprobe mlx5_ib || { echo "modprobe mlx5_ib failed"; return 1; }
	fi
	wait_for 3 sh -c "[ \$(ls /sys/class/infiniband 2>/dev/null | grep -c '^mlx5_') -ge $ndev ]" ||
		{ echo "$(mlx5_bound_count) of $ndev functions bound, $(mlx5_ibdev_count) RDMA devices"; return 1; }
	wait_for 60 mlx5_ports_active || { echo "ports not ACTIVE"; return 1; }
}

# unload: rmmod whatever of our pair is loaded (bounded).
unload()
{
	for _m in mlx5_ib mlx5_core; do
		grep -q "^$_m " /proc/modules || continue
		timeout 120 rmmod $_m || { echo "rmmod $_m failed"; return 1; }
	done
}

pingpong() { rdma_pair sweep_rc ibv_rc_pingpong -n "$ITERS" -c; }

# pending: commands HCA $h accepted since the case began whose completion
# it has not written yet (the trace records completions).
cmds() { emu_ctl hca $h stats | awk '$1 == "commands" { print $2 }'; }
pending() { echo $(( $(cmds) - cmds0 - $(emu_ctl hca $h trace | grep -c " slot=") )); }
no_pending() { [ "$(pending)" -le 0 ]; }

# pages_back: no firmware page outstanding on either HCA.
pages_back()
{
	for _h in 0 1; do
		[ "$(emu_pages_outstanding $_h)" = 0 ] || return 1
	done
}

# obj_leaks_but OPCODE: emu_obj_leaks since $snap, not counting the pair
# OPCODE belongs to, nor, for a CREATE whose object names a PD or an XRC
# domain, the pairs of those parents (held by the object the driver never
# learnt of).
obj_leaks_but()
{
	_all=$EMU_OBJ_PAIRS
	_skip=$1
	case $1 in
	CREATE_MKEY|CREATE_SRQ|CREATE_RMP) _skip="$1|ALLOC_PD" ;;
	CREATE_QP|CREATE_XRC_SRQ) _skip="$1|ALLOC_PD|ALLOC_XRCD" ;;
	esac
	EMU_OBJ_PAIRS=$(echo $_all | tr ' ' '\n' | grep -v -E "(^|:)($_skip)(:|$)")
	emu_obj_leaks "$snap" 0 1
	_rc=$?
	EMU_OBJ_PAIRS=$_all
	return $_rc
}

# Discovery, before the plan: the number of cases depends on it.
discover()
{
	ip link set lo up 2>/dev/null
	emu_ctl hca $h trace-clear >/dev/null
	load || return 1
	emu_ctl hca $h trace >"$out/sweep_trace.probe"
	emu_ctl hca $h trace-clear >/dev/null
	if echo " $PHASES " | grep -q " runtime "; then
		pingpong >"$out/sweep_discover_pingpong.log" 2>&1 ||
			{ cat "$out/sweep_discover_pingpong.log"; return 1; }
	fi
	emu_ctl hca $h trace >"$out/sweep_trace.runtime"
	emu_ctl hca $h trace-clear >/dev/null
	unload || return 1
	emu_ctl hca $h trace >"$out/sweep_trace.teardown"
	pages_back || { echo "pages outstanding after a clean unload"; return 1; }
	for _p in probe runtime teardown; do
		trace_ops "$out/sweep_trace.$_p" >"$out/sweep_ops.$_p"
		trace_ops_eqe "$out/sweep_trace.$_p" >"$out/sweep_ops_eqe.$_p"
		echo "$_p: $(awk '{ print $1 }' "$out/sweep_ops.$_p" | tr '\n' ' ')"
		echo "$_p, with a command EQE: $(awk '{ print $1 }' "$out/sweep_ops_eqe.$_p" | tr '\n' ' ')"
	done
}

discover >"$out/sweep_discover.log" 2>&1
discover_rc=$?
cases=
if [ $discover_rc -eq 0 ]; then
	for p in $PHASES; do
		for f in $FAULTS; do
			ops=$out/sweep_ops.$p
			case $f in *-eqe) ops=$out/sweep_ops_eqe.$p ;; esac
			while read -r op ophex; do
				if [ -n "${MLX5_SWEEP_OPS:-}" ]; then
					echo " $MLX5_SWEEP_OPS " | grep -q " $op " || continue
				fi
				if [ -n "${MLX5_SWEEP_CASES:-}" ]; then
					echo " $MLX5_SWEEP_CASES " | grep -q " $p:$f:$op " || continue
				fi
				cases="$cases $p:$f:$op:$ophex"
			done <"$ops"
		done
	done
fi
ncases=$(echo $cases | wc -w)

# phase_op PHASE: the operation of PHASE; 0 when it succeeded.
phase_op()
{
	case $1 in
	probe) load ;;
	runtime) pingpong ;;
	teardown) unload ;;
	esac
}

# step WHAT: a time-stamped progress line (where a slow case spends it).
step() { echo "$(ktap_now) $*"; }

# sweep_case PHASE FAULT OPCODE HEX
sweep_case()
{
	phase=$1 fault=$2 op=$3 ophex=$4 flags=
	mark=$(dmesg | wc -l)
	snap=$(emu_obj_snapshot 0 1)
	if [ "$phase" != probe ]; then
		load || { echo "clean load before the case failed"; echo "$phase $fault $op noload" >>"$table"; return 1; }
	fi
	emu_ctl hca $h trace-clear >/dev/null
	cmds0=$(cmds)
	case $fault in
	status) emu_ctl hca $h fail-cmd "$op" 3 $SYND >/dev/null ;;
	timeout) emu_ctl hca $h delay-cmd "$op" $HOLD_MS >/dev/null ;;
	lost-eqe) emu_ctl hca $h drop-cmd-eqe "$op" 1 >/dev/null ;;
	late-eqe) emu_ctl hca $h delay-cmd-eqe "$op" $HOLD_MS >/dev/null ;;
	*) false ;;
	esac || { echo "injection refused"; return 1; }
	step "$phase with $fault on $op"
	if phase_op "$phase"; then res=ok; else res=failed; fi
	step "$phase done: $res"
	oplog=$(dmesg | tail -n +$((mark + 1)))
	emu_ctl hca $h clear-faults >/dev/null
	# Held completions still arrive: the driver must be past them before
	# it unloads and the next case loads.
	if [ "$fault" = timeout ]; then
		wait_for $((HOLD_MS / 1000 + 10)) no_pending ||
			{ echo "$(pending) completions still held"; flags="$flags,held"; }
	fi
	step "no completion held"
	emu_ctl hca $h trace >"$out/sweep_case.trace"
	# An EQE fault hit when a command of OPCODE lost or delayed its EQE.
	case $fault in
	*-eqe) hit=$(grep "($(printf '0x%s' "$ophex"))" "$out/sweep_case.trace" | grep -c -E ' eqe=(dropped|delayed)') ;;
	*) hit=$(grep -c "($(printf '0x%s' "$ophex"))" "$out/sweep_case.trace") ;;
	esac
	[ "$hit" -gt 0 ] || flags="$flags,miss"
	unload >/dev/null 2>&1 || flags="$flags,rmmod"
	step unloaded
	log=$(dmesg | tail -n +$((mark + 1)))
	# Succeeded despite the fault: the kernel log of the operation must
	# name the failed command, or the driver's own error about it.
	if [ "$res" = ok ]; then
		if printf '%s\n' "$oplog" | grep -q -E "\(0x$ophex\).*(failed|timed out|without a command EQE)"; then
			res=logged
		elif printf '%s\n' "$oplog" | grep -E 'mlx5|infiniband' |
		     grep -q -i -E "fail|did not|error|couldn.t|timed out|refused"; then
			res=logged
		else
			res=silent
		fi
	fi
	printf '%s\n' "$log" | grep -q -E "$KTAP_SPLAT" && flags="$flags,splat"
	pages_back || flags="$flags,pages"
	if [ "$fault" = timeout ]; then
		obj_leaks_but "$op" >"$out/sweep_case.leaks"
	else
		emu_obj_leaks "$snap" 0 1 >"$out/sweep_case.leaks"
	fi || flags="$flags,leak"
	step "checked"
	# The device works again.
	if load >"$out/sweep_case.reload" 2>&1 &&
	   { [ "$RECHECK" = probe ] || pingpong >>"$out/sweep_case.reload" 2>&1; }; then
		unload >/dev/null 2>&1 || flags="$flags,rmmod"
	else
		flags="$flags,norecover"
		unload >/dev/null 2>&1
	fi
	step "reloaded ($RECHECK), unloaded"
	pages_back || case $flags in *pages*) ;; *) flags="$flags,pages" ;; esac
	echo "$phase $fault $op $res$flags" >>"$table"
	echo "$op at $phase, $fault: $res$flags (hit $hit times)"
	printf '%s\n' "$log" | grep -E "\(0x$ophex\)|mlx5" | tail -n 4
	case $flags in *leak*) cat "$out/sweep_case.leaks" ;; esac
	case $flags in *norecover*) tail -n 8 "$out/sweep_case.reload" ;; esac
	[ "$res" != silent ] && [ -z "$flags" ]
}

# Every case MLX5_SWEEP_CASES names must be planned: one whose opcode the
# phase did not run (or ran without a command EQE) is a failure, not a
# case left out.
t_discover()
{
	cat "$out/sweep_discover.log"
	echo "$ncases cases"
	[ "$discover_rc" -eq 0 ] && [ "$ncases" -gt 0 ] || return 1
	_missing=
	for _c in ${MLX5_SWEEP_CASES:-}; do
		echo " $cases" | grep -q " $_c:" || _missing="$_missing $_c"
	done
	[ -z "$_missing" ] || { echo "named but not planned:$_missing"; return 1; }
}

# The table: one row per case, and the totals per outcome.
t_table()
{
	[ -s "$table" ] || { echo "no case ran"; return 1; }
	printf '%-9s %-8s %-28s %s\n' phase fault opcode outcome
	awk '{ printf "%-9s %-8s %-28s %s\n", $1, $2, $3, $4 }' "$table"
	echo "totals:"
	awk '{ split($4, a, ","); n[a[1] (a[2] == "" ? "" : ",problem")]++ } END { for (k in n) print "  " k, n[k] }' "$table" | sort
	! grep -q -E ' (silent|noload|[a-z]+,)' "$table"
}

rm -f "$table"
ktap_begin $((ncases + 2))
ktap_case "[$DRIVER] discover the opcodes of load, ibv_rc_pingpong and unload" t_discover
for c in $cases; do
	IFS=: read -r p f op ophex <<EOF
$c
EOF
	ktap_case "[$DRIVER] $op at $p, $f" sweep_case "$p" "$f" "$op" "$ophex"
done
ktap_case "table: opcode x phase x fault -> outcome" t_table
ktap_end
