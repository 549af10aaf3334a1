/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QP state machine of modify_qp (qp_modify.c) as data: which firmware
 * command moves a QP from one state to another, which optional parameters
 * (opt_param_mask) each command takes for each kind of QP, and which
 * optional parameters each ib_qp_attr_mask attribute sets.
 *
 * Which transitions and attributes a consumer may ask for is ib_core's
 * rule (ib_modify_qp_is_ok()); this table says what the driver sends for
 * the ones it carries out. A legal transition that has no row here is
 * refused with -EINVAL.
 *
 * Pure data: the header uses nothing but u8, u16 and u32, the kernel's
 * IB_QPS_*, IB_QP_* (attribute mask) and MLX5_CMD_OP_*_QP constants and
 * <mlx5c/hw.h>'s MLX5C_QP_OPTPAR_*, so that the emulator's unit tests
 * include it too, with those few names defined
 * (emu/tests/qp_rules_compare_test.cc), and compare it with the
 * emulator's rules (queues/qp_context.cc).
 */
#ifndef MLX5C_IB_QP_RULES_H
#define MLX5C_IB_QP_RULES_H

/* The kinds of QP whose optional parameters differ. */
enum mlx5c_qp_class {
	MLX5C_QP_CLASS_RC,	/* RC and both XRC types */
	MLX5C_QP_CLASS_UC,
	MLX5C_QP_CLASS_UD,	/* UD and the special QPs 0 and 1 */
	MLX5C_QP_CLASSES,
};

/* A row's current state that matches any state. */
#define MLX5C_QPS_ANY		0xff

/**
 * struct mlx5c_qp_trans - one transition the driver carries out
 * @from: current state (IB_QPS_*), or MLX5C_QPS_ANY
 * @to: new state (IB_QPS_*)
 * @opcode: the firmware command (MLX5_CMD_OP_*), or 0 when the device has
 *	nothing to do (the QP is in that state already)
 * @optpar: per enum mlx5c_qp_class, the MLX5C_QP_OPTPAR_* bits the command
 *	takes from the QP context when the attribute that sets them is given
 */
struct mlx5c_qp_trans {
	u8 from;
	u8 to;
	u16 opcode;
	u32 optpar[MLX5C_QP_CLASSES];
};

#define MLX5C_QP_OPTPAR_ACCESS	(MLX5C_QP_OPTPAR_RRE | MLX5C_QP_OPTPAR_RAE | \
				 MLX5C_QP_OPTPAR_RWE)

/*
 * The first row that matches (current state, new state) applies. The SQD
 * transitions (drain and resume) are not carried out: ib_core allows them,
 * the driver refuses them with -EINVAL, as the in-tree driver does.
 */
static const struct mlx5c_qp_trans mlx5c_qp_transitions[] = {
	/* Nothing to tell the device: the QP is in that state already. */
	{ IB_QPS_RESET, IB_QPS_RESET, 0, { 0, 0, 0 } },
	{ IB_QPS_ERR, IB_QPS_ERR, 0, { 0, 0, 0 } },
	{ MLX5C_QPS_ANY, IB_QPS_RESET, MLX5_CMD_OP_2RST_QP, { 0, 0, 0 } },
	{ MLX5C_QPS_ANY, IB_QPS_ERR, MLX5_CMD_OP_2ERR_QP, { 0, 0, 0 } },
	/* RST2INIT takes every field it knows, so no optional ones. */
	{ IB_QPS_RESET, IB_QPS_INIT, MLX5_CMD_OP_RST2INIT_QP, { 0, 0, 0 } },
	{ IB_QPS_INIT, IB_QPS_INIT, MLX5_CMD_OP_INIT2INIT_QP, {
		MLX5C_QP_OPTPAR_ACCESS | MLX5C_QP_OPTPAR_PKEY_INDEX |
		MLX5C_QP_OPTPAR_PRI_PORT,
		MLX5C_QP_OPTPAR_ACCESS | MLX5C_QP_OPTPAR_PKEY_INDEX |
		MLX5C_QP_OPTPAR_PRI_PORT,
		MLX5C_QP_OPTPAR_PKEY_INDEX | MLX5C_QP_OPTPAR_Q_KEY |
		MLX5C_QP_OPTPAR_PRI_PORT,
	} },
	{ IB_QPS_INIT, IB_QPS_RTR, MLX5_CMD_OP_INIT2RTR_QP, {
		MLX5C_QP_OPTPAR_ACCESS | MLX5C_QP_OPTPAR_PKEY_INDEX,
		MLX5C_QP_OPTPAR_RWE | MLX5C_QP_OPTPAR_PKEY_INDEX,
		MLX5C_QP_OPTPAR_PKEY_INDEX | MLX5C_QP_OPTPAR_Q_KEY,
	} },
	{ IB_QPS_RTR, IB_QPS_RTS, MLX5_CMD_OP_RTR2RTS_QP, {
		MLX5C_QP_OPTPAR_ACCESS | MLX5C_QP_OPTPAR_RNR_TIMEOUT |
		MLX5C_QP_OPTPAR_PM_STATE,
		MLX5C_QP_OPTPAR_RWE | MLX5C_QP_OPTPAR_PM_STATE,
		MLX5C_QP_OPTPAR_Q_KEY,
	} },
	{ IB_QPS_RTS, IB_QPS_RTS, MLX5_CMD_OP_RTS2RTS_QP, {
		MLX5C_QP_OPTPAR_ACCESS | MLX5C_QP_OPTPAR_RNR_TIMEOUT |
		MLX5C_QP_OPTPAR_PM_STATE,
		MLX5C_QP_OPTPAR_RWE | MLX5C_QP_OPTPAR_PM_STATE,
		MLX5C_QP_OPTPAR_Q_KEY,
	} },
	{ IB_QPS_SQE, IB_QPS_RTS, MLX5_CMD_OP_SQERR2RTS_QP, {
		MLX5C_QP_OPTPAR_RNR_TIMEOUT,
		MLX5C_QP_OPTPAR_RWE,
		MLX5C_QP_OPTPAR_Q_KEY,
	} },
};

/**
 * struct mlx5c_qp_attr_opt - the optional parameters an attribute sets
 * @attr: one IB_QP_* attribute
 * @optpar: MLX5C_QP_OPTPAR_* bits of the context fields it fills
 */
struct mlx5c_qp_attr_opt {
	u32 attr;
	u32 optpar;
};

/*
 * The responder depth decides whether READ and atomic may be enabled
 * (qp_modify.c, mlx5c_ib_qp_access()): either attribute rewrites all
 * three access bits. The port of the QP goes into the primary path too,
 * with the path's own bit for the transitions that take the path.
 */
static const struct mlx5c_qp_attr_opt mlx5c_qp_attr_optpars[] = {
	{ IB_QP_ACCESS_FLAGS, MLX5C_QP_OPTPAR_ACCESS },
	{ IB_QP_MAX_DEST_RD_ATOMIC,
	  MLX5C_QP_OPTPAR_ACCESS | MLX5C_QP_OPTPAR_RRA_MAX },
	{ IB_QP_PKEY_INDEX, MLX5C_QP_OPTPAR_PKEY_INDEX },
	{ IB_QP_AV, MLX5C_QP_OPTPAR_PRIMARY_ADDR_PATH },
	{ IB_QP_PORT, MLX5C_QP_OPTPAR_PRI_PORT },
	{ IB_QP_QKEY, MLX5C_QP_OPTPAR_Q_KEY },
	{ IB_QP_TIMEOUT, MLX5C_QP_OPTPAR_ACK_TIMEOUT },
	{ IB_QP_RETRY_CNT, MLX5C_QP_OPTPAR_RETRY_COUNT },
	{ IB_QP_RNR_RETRY, MLX5C_QP_OPTPAR_RNR_RETRY },
	{ IB_QP_MAX_QP_RD_ATOMIC, MLX5C_QP_OPTPAR_SRA_MAX },
	{ IB_QP_MIN_RNR_TIMER, MLX5C_QP_OPTPAR_RNR_TIMEOUT },
	/* Only the migrated state is accepted (no alternate path). */
	{ IB_QP_PATH_MIG_STATE, MLX5C_QP_OPTPAR_PM_STATE },
};

#endif
