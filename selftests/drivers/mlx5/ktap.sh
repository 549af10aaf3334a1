# SPDX-License-Identifier: GPL-2.0
# KTAP output helpers for the mlx5 selftests, and a dmesg watch: a test case
# whose run adds a kernel splat (splat.re beside this file: WARN, BUG, Oops,
# KFENCE and SLUB reports, lockdep, UBSAN, call traces...) to the kernel log
# fails even when its own checks passed.
#
# Usage: . ktap.sh; ktap_begin N; ktap_case NAME CMD...; ...; ktap_end
# A program that cannot run at all: ktap_skip_all REASON (plan 1..0).
# ktap_end fails a program that ran fewer or more cases than it planned.
#
# Lanes: make check boots the other toolbox kernels (6.12, and the seeds'
# 7.2 baseline) for what can differ between kernels: probe, ibv_devinfo,
# traffic and the verbs tests. There it sets MLX5_LANE=1, and a program
# leaves out of its plan and its run the cases that would only repeat, on
# another kernel, a path its run in the main (7.3) guest covers: each such
# case is a ktap_main_case; ktap_lane_plan MAIN LANE is the plan.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
ktap_n=0 ktap_pass=0 ktap_fail=0 ktap_skip=0 ktap_plan=0

# ktap_splat_re FILE: the patterns of FILE (one per line, # comments) as one
# extended regular expression. scripts/vm reads the same file on the host.
ktap_splat_re()
{
	awk '!/^#/ && NF { r = r (r == "" ? "" : "|") $0 } END { print r }' "$1" 2>/dev/null
}
KTAP_SPLAT=$(ktap_splat_re "${dir:-$(dirname "$0")}/splat.re")

# ktap_skip_all REASON: the whole program skips (plan 1..0, exit 4).
ktap_skip_all()
{
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

ktap_diag() { echo "# $*"; }

ktap_dmesg_mark() { dmesg | wc -l; }
# ktap_dmesg_since MARK ERE: a kernel log line after line MARK matches ERE.
ktap_dmesg_since() { dmesg | awk -v m="$1" -v re="$2" 'NR > m && $0 ~ re { f = 1 } END { exit !f }'; }

# Under TCG every program started costs tens of milliseconds: the helpers
# below use shell builtins where they can, and a case starts two programs
# of its own (dmesg and awk).

# ktap_now: seconds since boot, with hundredths.
ktap_now() { read -r _ktap_up _ktap_idle </proc/uptime; echo "$_ktap_up"; }

# _ktap_cs SECONDS: SECONDS (with hundredths, as /proc/uptime says) in
# hundredths, in _ktap_cs.
_ktap_cs()
{
	_ktap_f=${1#*.}
	_ktap_cs=$(( ${1%.*} * 100 + ${_ktap_f#0} ))
}

# _ktap_elapsed T0: the time since ktap_now said T0, "# time: S.s s", in
# _ktap_time.
_ktap_elapsed()
{
	read -r _ktap_up _ktap_idle </proc/uptime
	_ktap_cs "$1"; _ktap_a=$_ktap_cs
	_ktap_cs "$_ktap_up"
	_ktap_d=$(( (_ktap_cs - _ktap_a + 5) / 10 ))
	_ktap_time="# time: $((_ktap_d / 10)).$((_ktap_d % 10)) s"
}

# ktap_time T0: a diagnostic line with the seconds since ktap_now said T0.
ktap_time() { _ktap_elapsed "$1"; echo "$_ktap_time"; }

# The kernel log line count the next case's splat check starts after: set
# by ktap_mark (or ktap_begin, or the first case), then by each case's own
# check, so that a splat logged between two cases fails the second one.
_ktap_mark=

# ktap_mark: the next case's kernel log check starts here (ktap_begin starts
# it unless ktap_mark did before).
ktap_mark() { _ktap_mark=$(ktap_dmesg_mark); }

ktap_begin()
{
	ktap_plan=$1
	echo "TAP version 13"
	echo "1..$1"
	[ -n "$_ktap_mark" ] || ktap_mark
}

# ktap_in_lane: MLX5_LANE=1, one of make check's other-kernel lanes.
ktap_in_lane() { [ "${MLX5_LANE:-0}" = 1 ]; }

# ktap_lane_plan MAIN LANE: the plan, MAIN cases (LANE in a lane).
ktap_lane_plan() { if ktap_in_lane; then ktap_begin "$2"; else ktap_begin "$1"; fi; }

# ktap_main_case NAME CMD...: ktap_case, left out in a lane.
ktap_main_case() { ktap_in_lane || ktap_case "$@"; }

# ktap_case NAME CMD...: run CMD; report ok / not ok / skip (CMD exits 4).
ktap_case()
{
	_ktap_name=$1; shift
	ktap_n=$((ktap_n + 1))
	[ -n "$_ktap_mark" ] || _ktap_mark=$(ktap_dmesg_mark)
	read -r _ktap_t0 _ktap_idle </proc/uptime
	# The case's output goes through a file so that the case runs in this
	# shell (its variables stay visible to later cases).
	"$@" >/tmp/ktap_case.$$ 2>&1
	_ktap_rc=$?
	_ktap_elapsed "$_ktap_t0"
	# One pass: the case's output, then the first three kernel log lines
	# after the mark that are splats (awk's exit status 1 when there is
	# one), and the kernel log's line count as the next mark. The patterns
	# go through the environment: awk -v would take backslashes as escapes.
	dmesg | KTAP_RE="$KTAP_SPLAT" awk -v m="$_ktap_mark" -v out=/tmp/ktap_case.$$ \
		-v markf=/tmp/ktap_mark.$$ '
		BEGIN { while ((getline l <out) > 0) print "# " l }
		NR > m && $0 ~ ENVIRON["KTAP_RE"] && n++ < 3 { print "# dmesg: " $0 }
		END { print NR >markf; exit (n > 0) }' || _ktap_rc=$KSFT_FAIL
	read -r _ktap_mark </tmp/ktap_mark.$$
	if [ -z "$KTAP_SPLAT" ]; then
		echo "# no splat.re beside ktap.sh: the kernel log cannot be checked"
		_ktap_rc=$KSFT_FAIL
	fi
	echo "$_ktap_time"
	case $_ktap_rc in
	0) echo "ok $ktap_n $_ktap_name"; ktap_pass=$((ktap_pass + 1)) ;;
	"$KSFT_SKIP")
		# The reason: the case's last line of output.
		echo "ok $ktap_n $_ktap_name # SKIP $(tail -n 1 /tmp/ktap_case.$$ | sed 's/^SKIP:* *//')"
		ktap_skip=$((ktap_skip + 1)) ;;
	*) echo "not ok $ktap_n $_ktap_name"; ktap_fail=$((ktap_fail + 1)) ;;
	esac
}

ktap_end()
{
	if [ "$ktap_n" -ne "$ktap_plan" ]; then
		echo "# planned $ktap_plan cases, ran $ktap_n"
		[ "$ktap_n" -gt "$ktap_plan" ] || ktap_fail=$((ktap_fail + ktap_plan - ktap_n))
		[ "$ktap_n" -lt "$ktap_plan" ] || ktap_fail=$((ktap_fail + 1))
	fi
	rm -f /tmp/ktap_case.$$ /tmp/ktap_mark.$$
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:0 xpass:0 skip:$ktap_skip error:0"
	[ "$ktap_fail" -eq 0 ] || exit $KSFT_FAIL
	[ "$ktap_pass" -gt 0 ] || exit $KSFT_SKIP
	exit $KSFT_PASS
}

# Helpers shared by the tests.

# The first PCI function with a ConnectX device ID (or $MLX5_TEST_DEV).
mlx5_pci_devs()
{
	if [ -n "${MLX5_TEST_DEV:-}" ]; then echo "$MLX5_TEST_DEV"; return; fi
	for d in /sys/bus/pci/devices/*; do
		read -r v <"$d/vendor" && [ "$v" = 0x15b3 ] && echo "${d##*/}"
	done
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for()
{
	t=$(( $1 * 10 )); shift
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Emulator control channel (only inside the project's QEMU guest): the
# function emu_ctl WORDS..., started as no program.
. "${MLX5_SRC:-${dir:-$(dirname "$0")}/../../..}/scripts/lib/emu-ctl.sh"

have_emu() { [ -z "${MLX5_TEST_DEV:-}" ] && emu_ctl list >/dev/null 2>&1; }

# QEMU's QMP monitor (only inside the project's QEMU guest: scripts/vm):
# vm_qmp COMMAND [ARGUMENTS-JSON].
vm_qmp()
{
	timeout 60 sh "${MLX5_SRC:-.}/scripts/lib/vm-qmp" "$@"
}

# emu_pages_outstanding N: firmware pages the driver still gives HCA N.
emu_pages_outstanding()
{
	emu_ctl hca "$1" pages | while read -r _k _v _r; do
		[ "$_k" != outstanding ] || echo "$_v"
	done
}

# irq_count NAME-PATTERN: sum of the counts of the IRQs whose name matches.
irq_count()
{
	grep -E "$1" /proc/interrupts |
		awk '{ s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; else break; t += s }
		     END { print t + 0 }'
}

# listening PORT: a TCP socket listens on PORT (IPv4 or IPv6).
listening() { listening_hex "$(printf ':%04X' "$1")"; }

# listening_hex :HEXPORT: the same with the port as /proc/net/tcp writes it
# (starts no program).
listening_hex()
{
	for _lf in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$_lf" ] || continue
		while read -r _l_sl _l_local _l_rem _l_st _l_rest; do
			case "$_l_local" in
			*"$1") [ "$_l_st" != 0A ] || return 0 ;;
			esac
		done <"$_lf"
	done
	return 1
}

# wait_listen PORT PID: until PORT listens (0), or PID exits or 30 s pass (1).
wait_listen()
{
	t=300 _wl_hex=$(printf ':%04X' "$1")
	while ! listening_hex "$_wl_hex"; do
		kill -0 "$2" 2>/dev/null || return 1
		t=$((t - 1))
		[ "$t" -gt 0 ] || return 1
		sleep 0.1
	done
}
