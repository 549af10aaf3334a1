#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of scripts/vm (KTAP): a guest command's exit status is
# returned; when the emulator dies under a running guest the runner fails
# naming the emulator as the process that died first, with its signal
# (whatever QEMU did after: it may abort on the closed socket), and leaves
# no QEMU or emulator process behind; when QEMU dies first the runner names
# QEMU, and leaves nothing behind either.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
wait_file_grep() { # SECONDS FILE PATTERN PID: poll while PID lives
	local t=$(($1 * 10))
	while [ $t -gt 0 ] && kill -0 "$4" 2>/dev/null; do
		grep -q "$3" "$2" 2>/dev/null && return 0
		sleep 0.1; t=$((t - 1))
	done
	return 1
}

# A guest's boot takes ~30 s alone but over 4 minutes under make check's
# load (guests and the ASan build beside it on 2 cores: a CI run's kill-emu
# guest was not up after 240 s). Each run's deadline is the runner's own.
limit=900

echo "TAP version 13"
echo "1..5"

# 1. The guest command's exit status comes back.
"$here/vm" --hca 1 --quiet --timeout "$limit" --out "$out/status" -- 'exit 3' 2>"$out/status.err"
rc=$?
[ "$rc" -eq 3 ] || { echo "# expected exit status 3, got $rc"; sed 's/^/# /' "$out/status.err"; }
report $([ "$rc" -eq 3 ]; echo $?) "guest exit status is returned"

# no_leftovers DIR PID...: none of PIDs runs, no process names DIR.
no_leftovers() {
	local dir=$1 p left=0
	shift
	for p in "$@"; do kill -0 "$p" 2>/dev/null && { echo "# pid $p still running"; left=1; }; done
	# Also by command line: QEMU's names the run's directory.
	for p in $(pgrep -f -- "$dir"); do
		echo "# left behind: $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-200)"; left=1
	done
	return $left
}

# kill_one NAME WHICH PATTERN: boot a guest, kill -9 WHICH (emu or qemu)
# once it runs; the runner must fail with a message matching PATTERN.
kill_one() {
	local name=$1 which=$2 pattern=$3 vm_pid rc emu qemu who=QEMU
	[ "$which" = emu ] && who="the emulator"
	"$here/vm" --hca 1 --quiet --timeout "$limit" --out "$out/$name" -- \
		'echo guest-ready; lspci -d 15b3: ; while :; do cat /sys/bus/pci/devices/*/vendor >/dev/null; sleep 0.2; done' \
		2>"$out/$name.err" &
	vm_pid=$!
	if wait_file_grep "$limit" "$out/$name/console.log" guest-ready "$vm_pid"; then
		emu=$(cat "$out/$name/emu.pid"); qemu=$(cat "$out/$name/qemu.pid")
		if [ "$which" = emu ]; then kill -9 "$emu"; else kill -9 "$qemu"; fi
		wait "$vm_pid"; rc=$?
		sed 's/^/# /' "$out/$name.err"
		report $([ "$rc" -ne 0 ] && grep -q -E "$pattern" "$out/$name.err"; echo $?) \
			"runner fails naming $who as the process that died first"
		no_leftovers "$out/$name" "$emu" "$qemu"
		report $? "no QEMU or emulator process left behind ($who died)"
	else
		kill "$vm_pid" 2>/dev/null; wait "$vm_pid"
		echo "# guest never became ready; the runner said:"; sed 's/^/# /' "$out/$name.err"
		echo "# its console ended with:"; tail -n 5 "$out/$name/console.log" 2>/dev/null | sed 's/^/# /'
		report 1 "runner fails naming $who as the process that died first"
		report 1 "no QEMU or emulator process left behind ($who died)"
	fi
}

# 2./3. Kill the emulator while the guest runs.
kill_one kill-emu emu 'FAIL: the emulator \(pid [0-9]+\) died first: it was killed by signal KILL'
# 4./5. Kill QEMU while the guest runs: the emulator was fine.
kill_one kill-qemu qemu 'FAIL: QEMU \(pid [0-9]+\) died first: it was killed by signal KILL; the emulator was still running'
[ "$fails" -eq 0 ]
