#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of scripts/vm (KTAP): the runner fails with a clear message
# when the emulator dies under a running guest, and leaves no QEMU or
# emulator process behind; a guest command's exit status is returned.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
n=0 fails=0
report() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi; }
wait_file_grep() { # SECONDS FILE PATTERN PID: poll while PID lives
	local t=$(($1 * 10))
	while [ $t -gt 0 ] && kill -0 "$4" 2>/dev/null; do
		grep -q "$3" "$2" 2>/dev/null && return 0
		sleep 0.1; t=$((t - 1))
	done
	return 1
}

echo "TAP version 13"
echo "1..3"

# 1. The guest command's exit status comes back.
"$here/vm" --hca 1 --quiet --timeout 300 --out "$out/status" -- 'exit 3' 2>"$out/status.err"
rc=$?
[ "$rc" -eq 3 ] || { echo "# expected exit status 3, got $rc"; sed 's/^/# /' "$out/status.err"; }
report $([ "$rc" -eq 3 ]; echo $?) "guest exit status is returned"

# 2./3. Kill the emulator while the guest runs.
"$here/vm" --hca 1 --quiet --timeout 300 --out "$out/kill" -- \
	'echo guest-ready; lspci -d 15b3: ; while :; do cat /sys/bus/pci/devices/*/vendor >/dev/null; sleep 0.2; done' \
	2>"$out/kill.err" &
vm_pid=$!
if wait_file_grep 240 "$out/kill/console.log" guest-ready "$vm_pid"; then
	emu=$(cat "$out/kill/emu.pid"); qemu=$(cat "$out/kill/qemu.pid")
	kill -9 "$emu"
	wait "$vm_pid"; rc=$?
	sed 's/^/# /' "$out/kill.err"
	report $([ "$rc" -ne 0 ] && grep -q 'emulator (pid [0-9]*) died' "$out/kill.err"; echo $?) \
		"runner fails with a clear message when the emulator dies"
	left=0
	for p in "$emu" "$qemu"; do kill -0 "$p" 2>/dev/null && { echo "# pid $p still running"; left=1; }; done
	# Also by command line: QEMU's names the run's directory.
	for p in $(pgrep -f -- "$out/kill"); do
		echo "# left behind: $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-200)"; left=1
	done
	report $left "no QEMU or emulator process left behind"
else
	kill "$vm_pid" 2>/dev/null; wait "$vm_pid"
	echo "# guest never became ready"; sed 's/^/# /' "$out/kill.err"
	report 1 "runner fails with a clear message when the emulator dies"
	report 1 "no QEMU or emulator process left behind"
fi
[ "$fails" -eq 0 ]
