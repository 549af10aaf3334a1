# SPDX-License-Identifier: GPL-2.0
# Shared by the host-side KTAP tests of scripts/tests (sourced after
# `set -uo pipefail`): here (scripts/), out (the first argument or a new
# temporary directory), and report STATUS NAME, which numbers the results
# and counts the failures in $fails.
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
n=0 fails=0
report() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi; }
