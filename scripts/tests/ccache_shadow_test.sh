#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/tests/ccache_shadow_test.sh [OUT] - the project's ccache setting
# (scripts/lib/ccache-setup: no direct mode) does not serve an object whose
# includes changed when a new header shadows a system one (KTAP).
#
# The case of emu/tests/poll.h: a file including <poll.h> with -I DIR is
# compiled through ccache; then DIR/poll.h appears. The direct mode serves
# the old object (the control case: it shows the test can tell), the
# project's cache compiles again and fails as a cold machine would.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
echo "1..3"
if ! command -v ccache >/dev/null; then
	report 1 "ccache installed (.ci/run installs it)"
	report 1 "direct mode serves the stale object (control)"
	report 1 "the project's cache compiles the shadowed include"
	exit 1
fi
report 0 "ccache installed ($(ccache --version | head -n1))"

t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/inc" "$t/src"
printf '#include <poll.h>\nint f(void) { return POLLIN; }\n' >"$t/src/a.c"

# compile_twice CACHE: compile a.c (cold), add inc/poll.h that breaks the
# build, compile again; exit status of the second compile.
compile_twice() {
	local cache=$1
	rm -f "$t/inc/poll.h"
	(cd "$t/src" && CCACHE_DIR=$cache CCACHE_BASEDIR=$t ccache gcc -I../inc -c a.c -o a.o) || return 2
	echo '#error "shadowing poll.h"' >"$t/inc/poll.h"
	(cd "$t/src" && CCACHE_DIR=$cache CCACHE_BASEDIR=$t ccache gcc -I../inc -c a.c -o a.o) 2>"$t/err"
}

mkdir -p "$t/direct"
printf 'direct_mode = true\n' >"$t/direct/ccache.conf"
compile_twice "$t/direct"
rc=$?
[ "$rc" -eq 0 ]
report $? "direct mode serves the stale object (control; second compile exit $rc)"

"$here/lib/ccache-setup" "$t/project"
compile_twice "$t/project"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'shadowing poll.h' "$t/err"
report $? "the project's cache compiles the shadowed include (exit $rc: $(head -c 200 "$t/err" | tr '\n' ' '))"

[ "$fails" -eq 0 ]
