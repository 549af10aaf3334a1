#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# verbs_random_test.sh with 100000 operations per driver and a seed from the
# clock (make check-long; printed: replay with MLX5_DIFF_SEED).
MLX5_DIFF_OPS=${MLX5_DIFF_OPS:-100000}
MLX5_DIFF_SEED=${MLX5_DIFF_SEED:-$(date +%s)}
export MLX5_DIFF_OPS MLX5_DIFF_SEED
exec sh "$(cd "$(dirname "$0")" && pwd)/verbs_random_test.sh"
