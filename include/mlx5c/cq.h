/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Consuming a completion queue, the same for every owner of a CQ ring
 * (the netdev of mlx5_core, the kernel CQs of mlx5_ib, the self-test).
 *
 * The device writes a 64-byte CQE, its op_own byte last, into the slot at
 * its producer index and flips the owner bit on every pass over the ring:
 * the CQE at consumer index @ci belongs to software when its owner bit
 * equals the pass parity of @ci (the bit of @ci just above the index
 * bits). EQEs follow the same rule with their own owner byte, and so use
 * mlx5c_owner_is_sw() too; their consumer index goes to a UAR doorbell
 * rather than to a doorbell record (core/eq.c).
 *
 * Ordering, said once here:
 * - after the owner test, dma_rmb(): the rest of the CQE must not be read
 *   before the owner byte that says it is complete;
 * - before the consumer-index update, dma_mb(): the new index tells the
 *   device that the slots below it may be overwritten, so every read of
 *   those CQEs must be complete before the store is visible. A read must
 *   be ordered before a later write, which neither dma_rmb() (reads
 *   against reads) nor dma_wmb() (writes against writes) promises;
 *   without it a weakly ordered CPU may publish the index while a load
 *   from the slot is still outstanding, and see the device's next CQE
 *   mixed into the one it is handling. (x86 never reorders a store before
 *   an earlier load, so there it costs one fence per poll batch.)
 * - arming (mlx5c_cq_arm()) writes the arm word of the doorbell record
 *   and then rings the UAR doorbell, with wmb() between: the device reads
 *   the record when the doorbell arrives.
 */
#ifndef MLX5C_CQ_H
#define MLX5C_CQ_H

#include <linux/mlx5/device.h>
#include <mlx5c/core.h>

/**
 * mlx5c_owner_is_sw() - does an entry belong to software
 * @owner: the entry's owner byte (bit 0 is the owner bit)
 * @ci: consumer index of the entry
 * @nent: entries of the ring (a power of two)
 *
 * Return: true when the owner bit equals the pass parity of @ci.
 */
static inline bool mlx5c_owner_is_sw(u8 owner, u32 ci, u32 nent)
{
	return (owner & MLX5C_CQE_OWNER_MASK) == !!(ci & nent);
}

/**
 * mlx5c_cqe_init() - make a CQE slot hardware-owned and invalid
 * @cqe: the slot, before the CQ is created
 *
 * Owner bit 1 is "hardware" on the first pass; the invalid opcode keeps a
 * slot the device never wrote from passing for a completion.
 */
static inline void mlx5c_cqe_init(struct mlx5_cqe64 *cqe)
{
	cqe->op_own = MLX5C_CQE_INVALID << 4 | MLX5C_CQE_OWNER_MASK;
}

/**
 * mlx5c_cqe_sw() - the CQE if software owns it
 * @cqe: the slot at consumer index @ci
 * @ci: consumer index
 * @nent: CQEs of the ring (a power of two)
 *
 * Return: @cqe, its body safe to read, or NULL when the device has not
 * written it yet.
 */
static inline struct mlx5_cqe64 *mlx5c_cqe_sw(struct mlx5_cqe64 *cqe, u32 ci,
					      u32 nent)
{
	u8 op_own = READ_ONCE(cqe->op_own);

	if ((op_own >> 4) == MLX5C_CQE_INVALID ||
	    !mlx5c_owner_is_sw(op_own, ci, nent))
		return NULL;
	/* The body only after the owner byte (see the top of this file). */
	dma_rmb();
	return cqe;
}

/**
 * mlx5c_cq_set_ci() - hand consumed CQEs back to the device
 * @dbrec: the CQ's doorbell record
 * @ci: consumer index (the next CQE to consume)
 */
static inline void mlx5c_cq_set_ci(__be32 *dbrec, u32 ci)
{
	/* Reads of the consumed CQEs before the store (see the top). */
	dma_mb();
	dbrec[0] = cpu_to_be32(ci & 0xffffff);
}

#endif /* MLX5C_CQ_H */
