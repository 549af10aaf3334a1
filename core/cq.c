// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues as mlx5_core sees them: CREATE_CQ/DESTROY_CQ for the
 * consumer, the CQN tables the EQ handlers dispatch through, and the arm
 * doorbell.
 */
#include <linux/io.h>

#include "mlx5_core.h"

/**
 * mlx5c_comp_eq_by_eqn() - the completion EQ with a given number
 * @mdev: core device
 * @eqn: EQ number
 *
 * Return: the EQ, or NULL if @eqn is not a completion EQ.
 */
struct mlx5c_eq *mlx5c_comp_eq_by_eqn(struct mlx5c_dev *mdev, u32 eqn)
{
	int i;

	for (i = 0; i < mdev->num_comp_eqs; i++)
		if (mdev->comp_eqs[i]->eqn == eqn)
			return mdev->comp_eqs[i];
	return NULL;
}

static int destroy_cq_cmd(struct mlx5c_dev *mdev, struct mlx5c_cq *cq)
{
	u32 out[MLX5_ST_SZ_DW(destroy_cq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_cq_in)] = {};

	MLX5_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
	MLX5_SET(destroy_cq_in, in, uid, cq->uid);
	MLX5_SET(destroy_cq_in, in, cqn, cq->cqn);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_cq_attach() - start dispatching the events of a CQ
 * @mdev: core device
 * @cq: CQ whose @cqn is set
 * @eq: completion EQ the CQ reports to
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_cq_attach(struct mlx5c_dev *mdev, struct mlx5c_cq *cq, struct mlx5c_eq *eq)
{
	int err;

	cq->eqn = eq->eqn;
	cq->arm_sn = 0;
	cq->comp_events = 0;
	cq->eq = eq;
	refcount_set(&cq->refcount, 1);
	init_completion(&cq->free);
	INIT_LIST_HEAD(&cq->bh_entry);

	err = xa_insert_irq(&mdev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		return err;
	err = xa_insert(&eq->cq_table, cq->cqn, cq, GFP_KERNEL);
	if (err)
		xa_erase_irq(&mdev->cqs, cq->cqn);
	return err;
}

/**
 * mlx5c_cq_detach() - stop dispatching the events of a CQ
 * @mdev: core device
 * @cq: CQ attached with mlx5c_cq_attach()
 *
 * Waits until no handler, callback or debugfs reader uses @cq any more, so
 * that the caller may free it, whatever the device still does with its CQN.
 *
 * The two tables have different readers. @mdev->cqs is looked up under its
 * lock (CQ errors, which the device may post on any EQ, and debugfs), with
 * a reference taken inside the lock. The completion EQ's table is read
 * without a lock, under RCU, only by that EQ's interrupt handler: once the
 * entry is erased, synchronize_irq() waits for a handler that may have
 * loaded it to finish taking its reference.
 */
void mlx5c_cq_detach(struct mlx5c_dev *mdev, struct mlx5c_cq *cq)
{
	xa_erase_irq(&mdev->cqs, cq->cqn);
	xa_erase(&cq->eq->cq_table, cq->cqn);
	synchronize_irq(cq->eq->irq->irqn);
	if (refcount_dec_and_test(&cq->refcount))
		complete(&cq->free);
	wait_for_completion(&cq->free);
}

/**
 * mlx5c_cq_create() - create a CQ and start dispatching its events
 * @mdev: core device
 * @cq: CQ; @cq->comp must be set, @cq->event and @cq->priv may be
 * @in: CREATE_CQ input built by the caller; its c_eqn_or_apu_element must
 *	name a completion EQ (mlx5c_comp_eqn())
 * @inlen: input length
 * @out: CREATE_CQ output buffer
 * @outlen: output length (at least MLX5_ST_SZ_BYTES(create_cq_out))
 *
 * Return: 0 (then @cq->cqn and @cq->eqn are set) or a negative errno.
 */
int mlx5c_cq_create(struct mlx5c_dev *mdev, struct mlx5c_cq *cq,
		    const void *in, int inlen, void *out, int outlen)
{
	u32 eqn = MLX5_GET(create_cq_in, in, cq_context.c_eqn_or_apu_element);
	struct mlx5c_eq *eq = mlx5c_comp_eq_by_eqn(mdev, eqn);
	int err;

	if (!eq || !cq->comp)
		return -EINVAL;
	err = mlx5c_cmd_exec(mdev, in, inlen, out, outlen);
	if (err)
		return err;
	cq->cqn = MLX5_GET(create_cq_out, out, cqn);
	cq->uid = MLX5_GET(create_cq_in, in, uid);
	err = mlx5c_cq_attach(mdev, cq, eq);
	if (err) {
		dev_err(&mdev->pdev->dev, "cannot track CQ 0x%x: %d\n", cq->cqn, err);
		destroy_cq_cmd(mdev, cq);
	}
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cq_create, MLX5C_NS);

/**
 * mlx5c_cq_destroy() - destroy a CQ created by mlx5c_cq_create()
 * @mdev: core device
 * @cq: CQ
 *
 * The CQ leaves the dispatch tables first: when this returns, no handler or
 * callback uses @cq any more, whatever DESTROY_CQ answered, and events the
 * device still posts for its CQN are dropped. In the device's
 * internal-error state the CQ is gone with the device and 0 is returned.
 *
 * Return: 0, or the DESTROY_CQ error: the firmware then may still own the
 * CQ and write to its buffer, which the caller must keep until the CQ is
 * destroyed or the function torn down. @cq itself is free either way.
 */
int mlx5c_cq_destroy(struct mlx5c_dev *mdev, struct mlx5c_cq *cq)
{
	int err;

	mlx5c_cq_detach(mdev, cq);
	err = destroy_cq_cmd(mdev, cq);
	if (err && READ_ONCE(mdev->cmd.error))
		return 0;
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cq_destroy, MLX5C_NS);

/**
 * mlx5c_cq_moderate() - set a live CQ's completion event moderation
 * @mdev: core device
 * @cq: CQ created by mlx5c_cq_create()
 * @count: CQEs per event (0 or 1: every CQE)
 * @period: microseconds an event may be held back (0: no limit by time)
 *
 * For ibv_modify_cq and ethtool -C alike: MODIFY_CQ of the period and the
 * count, with the CQ's uid.
 *
 * Return: 0, -EOPNOTSUPP when the device does not moderate, -EINVAL for a
 * period beyond what the CQ context holds, or the MODIFY_CQ error.
 */
int mlx5c_cq_moderate(struct mlx5c_dev *mdev, struct mlx5c_cq *cq, u16 count,
		      u16 period)
{
	u32 out[MLX5_ST_SZ_DW(modify_cq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(modify_cq_in)] = {};
	void *cqc;

	if (!MLX5_GET(cmd_hca_cap, mlx5c_cap_general(mdev), cq_moderation))
		return -EOPNOTSUPP;
	if (period > MLX5C_MAX_CQ_PERIOD)
		return -EINVAL;
	MLX5_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	MLX5_SET(modify_cq_in, in, uid, cq->uid);
	MLX5_SET(modify_cq_in, in, cqn, cq->cqn);
	MLX5_SET(modify_cq_in, in,
		 modify_field_select_resize_field_select.modify_field_select.modify_field_select,
		 MLX5C_MODIFY_CQ_PERIOD | MLX5C_MODIFY_CQ_COUNT);
	cqc = MLX5_ADDR_OF(modify_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cq_period, period);
	MLX5_SET(cqc, cqc, cq_max_count, count);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cq_moderate, MLX5C_NS);

/**
 * mlx5c_cq_arm() - request an event for the next completion of a CQ
 * @cq: CQ
 * @cmd: MLX5C_CQ_DB_REQ_NOT or MLX5C_CQ_DB_REQ_NOT_SOL
 * @uar_page: mapped UAR page the CQ was created with
 * @dbrec: the CQ's doorbell record (two big-endian words)
 * @cons_index: the consumer index
 *
 * Writes the arm word of the doorbell record, then the 64-bit CQ doorbell
 * at UAR offset 0x20.
 */
void mlx5c_cq_arm(struct mlx5c_cq *cq, u32 cmd, void __iomem *uar_page,
		  __be32 *dbrec, u32 cons_index)
{
	u32 sn = cq->arm_sn & 3;
	u32 word = sn << 28 | cmd | (cons_index & 0xffffff);

	dbrec[1] = cpu_to_be32(word);
	/* The doorbell record must be in memory before the doorbell rings. */
	wmb();
#ifdef CONFIG_64BIT
	__raw_writeq((__force u64)cpu_to_be64((u64)word << 32 | cq->cqn),
		     uar_page + MLX5C_UAR_CQ_DB);
#else
	__raw_writel((__force u32)cpu_to_be32(word), uar_page + MLX5C_UAR_CQ_DB);
	__raw_writel((__force u32)cpu_to_be32(cq->cqn), uar_page + MLX5C_UAR_CQ_DB + 4);
#endif
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cq_arm, MLX5C_NS);
