#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/tests/header_shadow_test.sh [OUT] - no header of the project
# shares a name with a system header (KTAP).
#
# A project directory on the include path (-I emu/tests, -I include, ...)
# is searched before the system's for #include <...>: a project header
# named like a system one hides it. emu/tests/poll.h once hid <poll.h>
# from every test compiled with -I emu/tests; warm caches hid the broken
# build (scripts/lib/ccache-setup). Checked: every header's name, and its
# path below each directory that a build puts on the include path, against
# the host compilers' include directories, the toolbox's (its gcc's and the
# kernels' include/ and arch/x86/include/) when it exists.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$here/.." && pwd)

echo "TAP version 13"
echo "1..3"

# System include directories: the host's gcc and g++, the toolbox's.
sysdirs=()
for lang in c c++; do
	for cc in gcc g++ clang; do
		command -v "$cc" >/dev/null || continue
		while IFS= read -r d; do sysdirs+=("$d"); done < <(
			"$cc" -x"$lang" -E -v - </dev/null 2>&1 |
			sed -n '/^#include <\.\.\.> search starts here:/,/^End of search list/{s/^ //p}' |
			sed 's/ (framework directory)$//')
	done
done
root=$("$here/toolbox" --print-dir 2>/dev/null)
if [ -n "$root" ] && [ -d "$root/usr/include" ]; then
	for d in "$root"/usr/include "$root"/usr/include/x86_64-linux-gnu "$root"/usr/include/c++/* \
		"$root"/usr/lib/gcc/x86_64-linux-gnu/*/include \
		"$root"/usr/src/linux-headers-*/include "$root"/usr/src/linux-headers-*/arch/x86/include \
		"$root"/usr/src/linux-headers-*/include/uapi "$root"/usr/src/linux-headers-*/arch/x86/include/uapi; do
		[ -d "$d" ] && sysdirs+=("$d")
	done
fi

# shadows ROOT SUBDIR...: print each header below ROOT whose name (in any
# directory) or whose path below one of the SUBDIRs (the include roots)
# exists in a system include directory.
shadows() {
	local base=$1 f rel name d inc
	shift
	while IFS= read -r f; do
		name=${f##*/}
		for d in "${sysdirs[@]}"; do
			[ -e "$d/$name" ] && { echo "$f: <$name> is $d/$name"; continue 2; }
		done
		for inc in "$@"; do
			case $f in "$inc"/*) rel=${f#"$inc"/} ;; *) continue ;; esac
			for d in "${sysdirs[@]}"; do
				[ -e "$d/$rel" ] && { echo "$f: <$rel> is $d/$rel"; continue 3; }
			done
		done
	done < <(cd "$base" && find . \( -name .git -o -name build -o -name out \) -prune -o \
		\( -name '*.h' -o -name '*.hh' -o -name '*.hpp' \) -type f -print | sed 's|^\./||' | sort)
}

[ ${#sysdirs[@]} -gt 0 ]
report $? "system include directories found (${#sysdirs[@]})"

# The check can fail: a tree with a header named poll.h.
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/tests"
touch "$t/tests/poll.h" "$t/tests/poll_for.h"
found=$(shadows "$t" tests)
[ "$found" = "tests/poll.h: <poll.h> is $(for d in "${sysdirs[@]}"; do [ -e "$d/poll.h" ] && { echo "$d/poll.h"; break; }; done)" ]
report $? "a header named poll.h is found, poll_for.h is not"

# The include roots of the builds: emu's -I (src, tests), the modules' -I
# include; every other header is reached by quotes only, but its name is
# checked all the same.
found=$(shadows "$top" emu/src emu/tests include)
[ -z "$found" ] || { echo "$found" | sed 's/^/# /'; echo "# rename them: a project header must not hide a system one"; }
[ -z "$found" ]
report $? "no project header shares a name with a system header"

[ "$fails" -eq 0 ]
