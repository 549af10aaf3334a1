#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Differential random verbs: verbs_diff_test's random case (a seeded
# sequence of mostly valid verbs: create/modify/destroy with random
# attributes, random WRs on an RC pair, random driver data on raw
# CREATE_CQ/CREATE_QP) with the same seed on the IN-TREE mlx5_ib and on
# ours in one boot; both traces diffed like verbs_diff_test.sh (lib.sh's
# trace_diff). A crash (signal), a kernel splat (every case's log check), a
# leaked firmware object or an unexplained difference fails.
#
# MLX5_DIFF_SEED: the seed (default 1, printed; check-long's
# verbs_random_long_test.sh takes one from the clock), MLX5_DIFF_OPS:
# operations per driver (default 3000; the long test 100000).
#
# A difference changes what follows on the same objects, so the comparison
# lists every difference and fails when the FIRST one is not explained.
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
srcs="$dir/verbs_diff_test.c $dir/ib_verbs_lib.c $dir/ib_uverbs_raw.c $(ls "$dir"/verbs_diff_cases_*.c)"
bin=$bindir/verbs_diff_test
drivers="in-tree ours"
WAIT_MS=${MLX5_VERBS_WAIT_MS:-20000}
MLX5_DIFF_SEED=${MLX5_DIFF_SEED:-1}
MLX5_DIFF_OPS=${MLX5_DIFF_OPS:-3000}
export MLX5_DIFF_SEED MLX5_DIFF_OPS

have_emu || ktap_skip_all "needs the mlx5-emu control channel"

# Differences with their reason, one per line: "ERE :: reason" (see
# verbs_diff_test.sh). Seeds differ from run to run: an entry that explains
# nothing in one run is not stale.
explained="ibv_query_qp op[0-9]+ 0 port= :: query_qp's port numbers: the in-tree driver reads them back from the firmware's QPC, ours reports what was applied (verbs_diff_test.sh)
ibv_modify_qp op[0-9]+ EOPNOTSUPP :: a random attribute mask naming attributes ours never applies (alternate path, migration state, SQD notification): ours refuses them (EOPNOTSUPP) before the transition check; the in-tree driver answers EINVAL or takes them
raw_create_(cq|qp) op[0-9]+ (EINVAL|EOPNOTSUPP) :: random driver data: ours answers EOPNOTSUPP for flag bits it does not know, the in-tree driver EINVAL
ibv_create_qp op[0-9]+ [^ ]+ slot=[0-9]+ type=[23] srq=[01] got=[0-9]+/[0-9]+/0/ :: a QP of max_send_sge 0 and send WRs: the in-tree driver creates it (granting max_inline_data 4294967292); ours refuses it (EINVAL)
ibv_create_qp op[0-9]+ EINVAL slot=[0-9]+ type=[23] srq=[01] got=0/0/0/0/0 :: the same from ours' side (its refusal)"

t_load() { verbs_load "$1"; }

run() { verbs_trace_run "$1" "$out/random_$1.txt" -t "$WAIT_MS" random; }

same()
{
	a=$out/random_in-tree.txt b=$out/random_ours.txt
	[ -f "$a" ] && [ -f "$b" ] || { echo "not run on both drivers"; return 1; }
	grep -q '^# T ' "$a" || { echo "nothing traced"; return 1; }
	echo "seed $MLX5_DIFF_SEED, $MLX5_DIFF_OPS operations: replay with MLX5_DIFF_SEED=$MLX5_DIFF_SEED MLX5_DIFF_OPS=$MLX5_DIFF_OPS"
	# The first differences tell; after them the sequences part.
	trace_diff "$a" "$b" "$explained" >"$out/random_diff.txt"
	n=$(grep -c '^in-tree: \|^ours   : ' "$out/random_diff.txt")
	echo "$n difference lines ($(grep -c UNEXPLAINED "$out/random_diff.txt") not in the table), the first 40:"
	head -n 80 "$out/random_diff.txt"
	echo "differences by verb and result (- in-tree, + ours):"
	diff -U0 "$a.t" "$b.t" | grep -E '^[-+][^-+]' | awk '{ print substr($0, 1, 1), $2, $4 }' |
		sort | uniq -c | sort -rn
	# The first difference decides: what follows may be its consequence.
	sed -n 2p "$out/random_diff.txt" | grep -q UNEXPLAINED && { echo "the first difference is not explained"; return 1; }
	return 0
}

verbs_build_early "$dir/ib_verbs.h" "$dir/verbs_diff.h" "$dir/ib_udata.h" -- -libverbs -lmlx5
rm -f "$out/trace_explained"

echo "# random verbs: seed $MLX5_DIFF_SEED, $MLX5_DIFF_OPS operations per driver"
ktap_begin $((1 + 2 * 4 + 1))
ktap_case "build verbs_diff_test" verbs_build_result
for drv in $drivers; do
	ktap_case "$drv: load mlx5_core mlx5_ib, both ports ACTIVE" t_load "$drv"
	ktap_case "$drv: $MLX5_DIFF_OPS random verbs (seed $MLX5_DIFF_SEED)" run "$drv"
	ktap_case "$drv: unload mlx5_ib mlx5_core" verbs_unload "$drv"
	ktap_case "$drv: every object created while loaded destroyed" verbs_no_leak
done
ktap_case "ours = in-tree: random verbs (seed $MLX5_DIFF_SEED)" same
ktap_end
