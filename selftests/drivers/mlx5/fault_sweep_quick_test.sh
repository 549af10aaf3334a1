#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast subset of fault_sweep_test.sh that `make check` runs (the whole
# sweep is in `make check-long`): at probe, three opcodes that hand the
# device memory it writes (MANAGE_PAGES: firmware pages; CREATE_EQ: an EQ
# ring of mlx5_core; CREATE_QP: mlx5_ib's GSI QP, a kernel ring), each
# failed once with a bad status and once with a timeout, each followed by
# a clean load. A timed-out create must leave no splat (the guest boots
# with page poisoning, KFENCE and SLUB debugging): the memory it named is
# kept until bus mastering is off. The table is printed at the end.
# The MLX5_SWEEP_* variables of fault_sweep_test.sh still apply.
dir=$(cd "$(dirname "$0")" && pwd)
MLX5_SWEEP_PHASES=${MLX5_SWEEP_PHASES:-probe} \
MLX5_SWEEP_OPS=${MLX5_SWEEP_OPS:-MANAGE_PAGES CREATE_EQ CREATE_QP} \
MLX5_SWEEP_RECHECK=${MLX5_SWEEP_RECHECK:-probe} \
	exec sh "$dir/fault_sweep_test.sh"
