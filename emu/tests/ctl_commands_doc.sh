#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ctest ctl_commands_doc: Documentation/emulator.md's control-command table
# (between "<!-- ctl commands begin -->" and "<!-- ctl commands end -->")
# must be what the command table itself prints (kCommands in
# emu/src/ctl/ctl_commands.cc). Usage: ctl_commands_doc.sh MLX5_EMU DOC
set -eu
emu=$1 doc=$2
want=$(mktemp) got=$(mktemp)
trap 'rm -f "$want" "$got"' EXIT
"$emu" --ctl-commands-markdown >"$want"
sed -n '/^<!-- ctl commands begin -->$/,/^<!-- ctl commands end -->$/p' "$doc" |
	sed '1d;$d' >"$got"
if [ ! -s "$got" ]; then
	echo "ctl_commands_doc: no command table between the markers in $doc" >&2
	exit 1
fi
if ! diff -u "$got" "$want"; then
	echo "ctl_commands_doc: $doc differs from the command table; paste the output of" >&2
	echo "  $emu --ctl-commands-markdown" >&2
	echo "between its markers" >&2
	exit 1
fi
echo "ctl_commands_doc: $(grep -c '^| `' "$want") commands, the same in $doc"
