#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side tests of make check's accounting (KTAP): fake run_tests.sh logs
# go through `scripts/check --count`, which must end with the right
# "N passed, N failed, N skipped": planned cases that never came fail, a
# program that reports nothing or never runs fails, a skip the table of
# scripts/check does not list fails, one it lists counts as skipped, nested
# (indented or "# "-prefixed) results do not count; a CTest log (`--count-ctest`)
# counts each test, and fails as a whole without its summary line.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# judge NAME EXPECTED-SUMMARY STAGE PROGRAMS: the log on stdin, judged as
# STAGE with PROGRAMS expected, must end with EXPECTED-SUMMARY.
judge() {
	local name=$1 want=$2 stage=$3 progs=$4 f got
	f=$out/$(echo "$name" | tr -c 'a-zA-Z0-9\n' _).log
	cat >"$f"
	"$here/check" --count "$stage" "$f" "$progs" >"$f.out" 2>&1
	got=$(tail -n 1 "$f.out")
	[ "$got" = "$want" ] || { echo "# $name: expected '$want', got '$got'"; sed 's/^/#   /' "$f.out"; }
	report "$([ "$got" = "$want" ]; echo $?)" "$name"
}

echo "TAP version 13"
echo "1..15"

judge "a program that plans 5 and reports 2: 3 failures" "2 passed, 3 failed, 0 skipped" \
	"guest selftests" "a.sh" <<'EOF'
# selftests: drivers/mlx5: a.sh
TAP version 13
1..5
ok 1 one
ok 2 two
# exit status: 1
EOF

judge "a guest that dies after 3 of 31 cases: 28 failures" "3 passed, 28 failed, 0 skipped" \
	"guest selftests" "b.sh" <<'EOF'
# selftests: drivers/mlx5: b.sh
TAP version 13
1..31
ok 1 one
ok 2 two
ok 3 three
EOF

judge "a skip the table does not list fails" "1 passed, 1 failed, 0 skipped" \
	"guest selftests" "c.sh" <<'EOF'
# selftests: drivers/mlx5: c.sh
TAP version 13
1..2
ok 1 one
ok 2 two # SKIP no tool
# exit status: 0
EOF

judge "a skip the table lists counts as skipped, not passed" "1 passed, 0 failed, 1 skipped" \
	"accounting self-test" "expected_skip_demo.sh" <<'EOF'
# selftests: drivers/mlx5: expected_skip_demo.sh
TAP version 13
1..2
ok 1 one
ok 2 listed case # SKIP listed in the table
# exit status: 0
EOF

judge "a program that skips as a whole (1..0) fails unless listed" "0 passed, 1 failed, 0 skipped" \
	"guest selftests" "d.sh" <<'EOF'
# selftests: drivers/mlx5: d.sh
TAP version 13
1..0
# SKIP: needs something
# exit status: 4
EOF

judge "a program that reports nothing, one that never ran: 2 failures" "1 passed, 2 failed, 0 skipped" \
	"guest selftests" "e.sh f.sh g.sh" <<'EOF'
# selftests: drivers/mlx5: e.sh
sh: e.sh: not found
# exit status: 127
# selftests: drivers/mlx5: f.sh
TAP version 13
1..1
ok 1 one
# exit status: 0
EOF

judge "a program that fails after passing every case fails once" "2 passed, 1 failed, 0 skipped" \
	"guest selftests" "h.sh" <<'EOF'
# selftests: drivers/mlx5: h.sh
TAP version 13
1..2
ok 1 one
ok 2 two
# exit status: 2
EOF

judge "nested results do not count" "1 passed, 0 failed, 0 skipped" \
	"guest selftests" "i.sh" <<'EOF'
# selftests: drivers/mlx5: i.sh
TAP version 13
1..1
# ok 1 nested one
# not ok 2 nested two
    ok 3 indented
ok 1 outer
# exit status: 0
EOF

judge "a case reported twice or beyond the plan fails" "1 passed, 2 failed, 0 skipped" \
	"guest selftests" "j.sh" <<'EOF'
# selftests: drivers/mlx5: j.sh
TAP version 13
1..1
ok 1 one
ok 1 one again
ok 2 two
# exit status: 0
EOF

judge "a single document without a program header (build matrix)" "2 passed, 1 failed, 0 skipped" \
	"build matrix" "" <<'EOF'
TAP version 13
1..3
ok 1 7.3
# 7.3 built
not ok 2 6.12
ok 3 dkms
EOF

judge "an empty log fails" "0 passed, 1 failed, 0 skipped" "VM runner" "" </dev/null

# judge_ctest NAME EXPECTED-SUMMARY RC: a CTest log on stdin, with ctest's
# exit status RC, through `scripts/check --count-ctest`.
judge_ctest() {
	local name=$1 want=$2 rc=$3 f got
	f=$out/$(echo "$name" | tr -c 'a-zA-Z0-9\n' _).log
	cat >"$f"
	"$here/check" --count-ctest "emulator unit tests" "$f" "$rc" >"$f.out" 2>&1
	got=$(tail -n 1 "$f.out")
	[ "$got" = "$want" ] || { echo "# $name: expected '$want', got '$got'"; sed 's/^/#   /' "$f.out"; }
	report "$([ "$got" = "$want" ]; echo $?)" "$name"
}

judge_ctest "ctest: every test one result" "3 passed, 0 failed, 0 skipped" 0 <<'EOF'
100% tests passed, 0 tests failed out of 3
EOF

judge_ctest "ctest: a test stopped by a sanitizer fails" "2 passed, 1 failed, 0 skipped" 8 <<'EOF'
67% tests passed, 1 tests failed out of 3
The following tests FAILED:
	  2 - FwCmdq.Mailbox (Subprocess aborted)
EOF

judge_ctest "ctest: no summary (the build failed) fails" "0 passed, 1 failed, 0 skipped" 2 <<'EOF'
make: *** [Makefile:88: emu-asan] Error 1
EOF

judge_ctest "ctest: a failing exit status with every test passed fails" "3 passed, 1 failed, 0 skipped" 8 <<'EOF'
100% tests passed, 0 tests failed out of 3
EOF

[ "$fails" -eq 0 ]
