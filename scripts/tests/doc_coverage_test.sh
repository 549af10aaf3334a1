#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/tests/doc_coverage_test.sh [OUT] - the documents name every
# source file, script and control command, and the README points only into
# the repository (KTAP).
#
# - Documentation/architecture.md names every kernel source file (core/,
#   core/en/, ib/, include/mlx5c/: *.c, *.h);
# - Documentation/emulator.md names every emulator source file (emu/src/:
#   *.cc, *.h) and every control-channel command;
# - Documentation/testing.md names every file of scripts/ (but the probes
#   of scripts/kcompat/probes/, named by their macro);
# - every relative link and repository path in README.md exists, and none
#   leaves the repository (../).
# A file counts as named when the document holds its file name as a word,
# or, when two files of that side share the name, a path ending in it with
# at least its directory (core/en/main.c: en/main.c or core/en/main.c). A
# command counts when the document holds it in backquotes as the channel
# takes it: `list`, `hca N stats ...`, `link drop ...`. The files are git's
# (tracked or new, not ignored). A failure lists exactly what is missing,
# one "# missing from DOC: NAME" line each.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$here/.." && pwd)

# ctl_commands FILE: the control commands of FILE's command table, one a
# line, as the documents write them: "help", "hca N stats", "link drop".
# Read from the rows of kCommands in emu/src/ctl/ctl_commands.cc
# ({Scope::Top, "list", ...}, {Scope::Hca, "stats", ...},
# {Scope::Link, "drop", ...}); the table's own Markdown output is compared
# with emulator.md word for word by the emulator's ctest ctl_commands_doc.
ctl_commands() {
	sed -n 's/^[[:space:]]*{Scope::\(Top\|Hca\|Link\), "\([a-z][a-z-]*\)".*/\1 \2/p' "$1" |
		sed 's/^Top //; s/^Hca /hca N /; s/^Link /link /' | sort -u
}

# sources ROOT ERE [EXCLUDE]: the files of ROOT's git tree (tracked, or
# new and not ignored) whose path matches ERE and not EXCLUDE, one a line.
sources() {
	git -C "$1" ls-files --cached --others --exclude-standard |
		grep -E "$2" | grep -vE "${3:-^$}" | sort -u |
		while IFS= read -r f; do [ -f "$1/$f" ] && echo "$f"; done
}
kernel_ere='^(core|ib|include/mlx5c)/.*\.[ch]$'
emu_ere='^emu/src/.*\.(cc|h)$'
scripts_ere='^scripts/' scripts_skip='^scripts/kcompat/probes/'

# ere_quote STRING: STRING as a literal in an extended regular expression.
ere_quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# missing_files DOC STRIP: of the paths on stdin (one side's files), those
# DOC does not name. STRIP is the prefix the documents leave off
# (emu/src/).
missing_files() {
	local doc=$1 strip=$2 files f name rel want q k
	files=$(cat)
	[ -n "$files" ] || return 0
	while IFS= read -r f; do
		name=${f##*/}
		rel=${f#"$strip"}
		if [ "$(printf '%s\n' "$files" | awk -F/ -v n="$name" '$NF == n' | wc -l)" -eq 1 ]; then
			want="(^|[^A-Za-z0-9_.-])$(ere_quote "$name")(\$|[^A-Za-z0-9_])"
		else
			# a path ending in the file with at least its directory
			want="" q=$rel
			while [[ $q == */* ]]; do
				want="${want:+$want|}$(ere_quote "$q")"
				q=${q#*/}
			done
			[ "$rel" = "$f" ] || want="$want|$(ere_quote "$f")"
			want="(^|[^A-Za-z0-9_.-])($want)(\$|[^A-Za-z0-9_])"
		fi
		grep -qE "$want" "$doc" || echo "$f"
	done <<<"$files"
}

# missing_commands DOC: of the commands on stdin, those DOC does not hold
# in backquotes (followed by a blank or the closing backquote).
missing_commands() {
	local doc=$1 c
	while IFS= read -r c; do
		[ -n "$c" ] || continue
		grep -qE "\`$(ere_quote "$c")[ \`]" "$doc" || echo "$c"
	done
}

# bad_readme_paths ROOT: the relative links and repository paths of
# ROOT/README.md that do not exist in ROOT (a build output that git
# ignores, core/mlx5_core.ko, counts as existing), and every path that
# leaves it.
bad_readme_paths() {
	local root=$1 p
	{
		# markdown links that are not URLs or anchors
		grep -oE '\]\([^)#]+' "$root/README.md" | sed 's/^](//' |
			grep -vE '^[a-z]+:' | sed 's/[[:space:]].*//'
		# paths into the repository's top directories, and any ../
		grep -oE '(^|[^A-Za-z0-9_.~/-])(\.\./|\.ci/|Documentation/|core/|ib/|include/|emu/|scripts/|selftests/)[A-Za-z0-9_./+-]*' \
			"$root/README.md" | sed -E 's/^[^.A-Za-z]//; s/\.+$//'
	} | sort -u | while IFS= read -r p; do
		[ -n "$p" ] || continue
		case $p in
		../* | */../* | *../) echo "$p (outside the repository)" ;;
		*) [ -e "$root/$p" ] || git -C "$root" check-ignore -q -- "$p" || echo "$p" ;;
		esac
	done
}

# report_missing NAME DOC LIST: the result NAME, passing when LIST (one
# name a line) is empty, else each name printed.
report_missing() {
	[ -z "$3" ] || printf '%s\n' "$3" | sed "s|^|# missing from $2: |"
	[ -z "$3" ]
	report $? "$1"
}

echo "TAP version 13"
echo "1..7"

arch=Documentation/architecture.md emu_doc=Documentation/emulator.md
test_doc=Documentation/testing.md
ctl=emu/src/ctl/ctl_commands.cc

# The check can fail: a tree with a kernel file, an emulator file and a
# control command that no document names, a README link that does not
# exist and one that leaves the tree. Exactly those must be reported.
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/core/en" "$t/ib" "$t/emu/src/fw" "$t/emu/src/ctl" "$t/Documentation" "$t/docs" \
	"$t/scripts/lib" "$t/scripts/tests" "$t/scripts/kcompat/probes"
git -C "$t" init -q
touch "$t/core/main.c" "$t/core/en/main.c" "$t/ib/main.c" "$t/core/planted.c" \
	"$t/emu/src/fw/eq.cc" "$t/emu/src/fw/planted.h" "$t/docs/real.md" \
	"$t/scripts/lib/lib.sh" "$t/scripts/tests/lib.sh" "$t/scripts/kcompat/probes/HAVE_X.c"
printf '`scripts/lib/lib.sh` and a lib.sh\n' >"$t/$test_doc"
printf 'core/main.c en/main.c ib/main.c\n' >"$t/$arch"
printf '`fw/eq.cc`, `ctl/ctl_commands.cc`\n`list`, `hca N stats`\n' >"$t/$emu_doc"
printf '\t{Scope::Top, "list", nullptr, 0, 0,\n\t{Scope::Hca, "stats", nullptr, 0, 0,\n\t{Scope::Hca, "planted", nullptr, 0, 0,\n' \
	>"$t/$ctl"
printf '[a](docs/real.md) [b](docs/gone.md) `../shared/x.md` `scripts/gone` [c](https://example.org/)\n' >"$t/README.md"
got=$(
	sources "$t" "$kernel_ere" | missing_files "$t/$arch" ""
	sources "$t" "$emu_ere" | missing_files "$t/$emu_doc" emu/src/
	sources "$t" "$scripts_ere" "$scripts_skip" | missing_files "$t/$test_doc" ""
	ctl_commands "$t/$ctl" | missing_commands "$t/$emu_doc"
	bad_readme_paths "$t"
)
want=$(printf '%s\n' core/planted.c emu/src/fw/planted.h scripts/tests/lib.sh "hca N planted" \
	"../shared/x.md (outside the repository)" docs/gone.md scripts/gone)
[ "$got" = "$want" ] || { echo "# got:"; printf '%s\n' "$got" | sed 's/^/#   /'; }
[ "$got" = "$want" ]
report $? "a planted undocumented file of each side, command and README path are each reported, nothing else"

cmds=$(ctl_commands "$top/$ctl")
kfiles=$(sources "$top" "$kernel_ere")
efiles=$(sources "$top" "$emu_ere")
sfiles=$(sources "$top" "$scripts_ere" "$scripts_skip")
[ "$(printf '%s\n' "$cmds" | grep -c .)" -ge 20 ] && [ "$(printf '%s\n' "$kfiles" | grep -c .)" -ge 20 ] &&
	[ "$(printf '%s\n' "$efiles" | grep -c .)" -ge 100 ] && [ "$(printf '%s\n' "$sfiles" | grep -c .)" -ge 20 ]
report $? "sources found: $(printf '%s\n' "$kfiles" | grep -c .) kernel, $(printf '%s\n' "$efiles" | grep -c .) emulator files, $(printf '%s\n' "$sfiles" | grep -c .) scripts, $(printf '%s\n' "$cmds" | grep -c .) control commands"

report_missing "$arch names every kernel source file" "$arch" \
	"$(printf '%s\n' "$kfiles" | missing_files "$top/$arch" "")"
report_missing "$emu_doc names every emulator source file" "$emu_doc" \
	"$(printf '%s\n' "$efiles" | missing_files "$top/$emu_doc" emu/src/)"
report_missing "$test_doc names every script" "$test_doc" \
	"$(printf '%s\n' "$sfiles" | missing_files "$top/$test_doc" "")"
report_missing "$emu_doc names every control command" "$emu_doc" \
	"$(printf '%s\n' "$cmds" | missing_commands "$top/$emu_doc")"
report_missing "README.md points only at files of the repository" README.md \
	"$(bad_readme_paths "$top")"

[ "$fails" -eq 0 ]
