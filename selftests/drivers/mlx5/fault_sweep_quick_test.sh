#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fast subset of fault_sweep_test.sh that `make check` runs (the whole
# sweep is in `make check-long`): five probe-phase cases, three on the commands
# that hand the device memory it writes, each followed by a clean load:
# timeouts of CREATE_EQ (an EQ ring of mlx5_core), MANAGE_PAGES (firmware
# pages) and CREATE_QP (mlx5_ib's GSI QP, a kernel ring); then a lost
# command EQE of CREATE_CQ and late ones of CREATE_QP (the command
# completes, its EQE is lost or comes after the driver stopped waiting for
# it: the driver finds the completion at its timeout and logs it, and an
# EQE that arrives for a slot serving another command completes nothing
# early). A bad status of
# each bring-up command, CREATE_EQ's included, is core_test.sh's "each
# bring-up command failing" (clean failure, pages back, the command named
# in the log, a retry that probes). A timed-out create must leave no splat
# (the guest boots with page poisoning, KFENCE and SLUB debugging): the
# memory it named is kept until bus mastering is off (core/quarantine.c).
# The table is printed at the end. The MLX5_SWEEP_* variables of
# fault_sweep_test.sh still apply.
dir=$(cd "$(dirname "$0")" && pwd)
MLX5_SWEEP_PHASES=${MLX5_SWEEP_PHASES:-probe} \
MLX5_SWEEP_CASES=${MLX5_SWEEP_CASES:-probe:timeout:CREATE_EQ probe:timeout:MANAGE_PAGES probe:timeout:CREATE_QP probe:lost-eqe:CREATE_CQ probe:late-eqe:CREATE_QP} \
MLX5_SWEEP_RECHECK=${MLX5_SWEEP_RECHECK:-probe} \
	exec sh "$dir/fault_sweep_test.sh"
