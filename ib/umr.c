// SPDX-License-Identifier: GPL-2.0
/*
 * Fast registration on kernel QPs: IB_WR_REG_MR and IB_WR_LOCAL_INV become
 * UMR WQEs that change a memory key from the send queue. After the control
 * segment (immediate = the key) come the UMR control segment (translation
 * size, the mask of mkey fields to write), an mkey segment in the layout of
 * the mkey context, and for REG_MR a data segment naming the MR's page
 * list (mlx5c_ib_map_mr_sg()). LOCAL_INV only marks the key free.
 */
#include "mlx5_ib.h"

#define MLX5C_IB_UMR_CTRL	sizeof(struct mlx5c_wqe_umr_ctrl_seg)
#define MLX5C_IB_MKEY_SEG	MLX5_ST_SZ_BYTES(mkc)

/* The largest fast-registration WQE: control, UMR control, mkey, data. */
#define MLX5C_IB_UMR_WQE	(MLX5C_IB_CTRL_SEG + MLX5C_IB_UMR_CTRL + \
				 MLX5C_IB_MKEY_SEG + MLX5C_IB_DATA_SEG)

static_assert(MLX5_ST_SZ_BYTES(mkc) == 64);

/**
 * mlx5c_ib_umr_supported() - the device changes memory keys by UMR
 * @dev: device
 *
 * Return: true when fast registration can be offered.
 */
bool mlx5c_ib_umr_supported(struct mlx5c_ib_dev *dev)
{
	return !MLX5C_IB_CAP(dev, umr_modify_entity_size_disabled);
}

/**
 * mlx5c_ib_umr_wqe_size() - bytes a QP's send WQEs need for fast registration
 * @dev: device
 * @type: QP type
 *
 * Return: the size of the largest UMR WQE, or 0 when the QP posts none.
 */
u32 mlx5c_ib_umr_wqe_size(struct mlx5c_ib_dev *dev, enum ib_qp_type type)
{
	if (!mlx5c_ib_umr_supported(dev) ||
	    (type != IB_QPT_RC && type != IB_QPT_UC &&
	     type != MLX5C_IB_QPT_REG_UMR))
		return 0;
	return MLX5C_IB_UMR_WQE;
}

static u64 mlx5c_ib_reg_mask(struct mlx5c_ib_dev *dev)
{
	u64 mask = MLX5_MKEY_MASK_LEN | MLX5_MKEY_MASK_PAGE_SIZE |
		   MLX5_MKEY_MASK_START_ADDR | MLX5_MKEY_MASK_EN_RINVAL |
		   MLX5_MKEY_MASK_KEY | MLX5_MKEY_MASK_LR |
		   MLX5_MKEY_MASK_LW | MLX5_MKEY_MASK_RR |
		   MLX5_MKEY_MASK_RW | MLX5_MKEY_MASK_FREE;

	if (!MLX5C_IB_CAP(dev, umr_modify_atomic_disabled))
		mask |= MLX5_MKEY_MASK_A;
	return mask;
}

static void mlx5c_ib_set_reg(struct mlx5c_ib_dev *dev,
			     const struct ib_reg_wr *wr, void *umr_seg,
			     void *mkey_seg, struct mlx5c_wqe_data_seg *dseg)
{
	struct mlx5c_ib_mr *mr = to_mmr(wr->mr);
	struct mlx5c_wqe_umr_ctrl_seg *umr = umr_seg;
	u32 octo = DIV_ROUND_UP(mr->ndescs, 2);

	umr->xlt_octowords = cpu_to_be16(octo);
	umr->mkey_mask = cpu_to_be64(mlx5c_ib_reg_mask(dev));

	MLX5_SET(mkc, mkey_seg, free, 0);
	MLX5_SET(mkc, mkey_seg, lr, 1);
	MLX5_SET(mkc, mkey_seg, lw, !!(wr->access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkey_seg, rr, !!(wr->access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkey_seg, rw, !!(wr->access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkey_seg, a, !!(wr->access & IB_ACCESS_REMOTE_ATOMIC));
	MLX5_SET(mkc, mkey_seg, en_rinval, 1);
	MLX5_SET(mkc, mkey_seg, mkey_7_0, wr->key & 0xff);
	MLX5_SET64(mkc, mkey_seg, start_addr, wr->mr->iova);
	MLX5_SET64(mkc, mkey_seg, len, wr->mr->length);
	MLX5_SET(mkc, mkey_seg, log_page_size, ilog2(wr->mr->page_size));

	dseg->byte_count = cpu_to_be32(octo * MLX5C_IB_DATA_SEG);
	dseg->lkey = cpu_to_be32(wr->mr->pd->local_dma_lkey);
	dseg->addr = cpu_to_be64(mr->descs_dma);
}

/*
 * MLX5C_IB_WR_UMR_REREG (the UMR QP's, umr_qp.c): new rights and PD for a
 * key, its translation and length kept.
 */
static int mlx5c_ib_set_rereg(struct mlx5c_ib_dev *dev,
			      const struct mlx5c_ib_umr_rereg_wr *wr,
			      struct mlx5c_wqe_umr_ctrl_seg *umr, void *mkey_seg)
{
	u64 mask = MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW | MLX5_MKEY_MASK_RR |
		   MLX5_MKEY_MASK_RW | MLX5_MKEY_MASK_PD;

	if (!MLX5C_IB_CAP(dev, umr_modify_atomic_disabled))
		mask |= MLX5_MKEY_MASK_A;
	else if (wr->access & IB_ACCESS_REMOTE_ATOMIC)
		return -EINVAL;
	umr->mkey_mask = cpu_to_be64(mask);
	mlx5c_mkc_fill(mkey_seg, MLX5_MKC_ACCESS_MODE_MTT,
		       mlx5c_ib_mkc_rights(wr->access), wr->pdn, 0, 0, 0);
	return MLX5C_IB_UMR_CTRL + MLX5C_IB_MKEY_SEG;
}

/**
 * mlx5c_ib_build_umr() - the segments of a REG_MR, LOCAL_INV or
 *	MLX5C_IB_WR_UMR_REREG WQE
 * @dev: device
 * @wr: the work request
 * @seg: where the UMR control segment goes (after the control segment)
 * @imm: the control segment's immediate (out): the key to change
 *
 * Return: the bytes written after the control segment, or a negative errno.
 */
int mlx5c_ib_build_umr(struct mlx5c_ib_dev *dev, const struct ib_send_wr *wr,
		       void *seg, __be32 *imm)
{
	struct mlx5c_wqe_umr_ctrl_seg *umr = seg;
	void *mkey_seg = seg + MLX5C_IB_UMR_CTRL;
	const struct ib_reg_wr *rwr;
	struct mlx5c_ib_mr *mr;

	if (!mlx5c_ib_umr_supported(dev))
		return -EINVAL;
	if (wr->opcode == MLX5C_IB_WR_UMR_REREG) {
		const struct mlx5c_ib_umr_rereg_wr *rr =
			container_of(wr, struct mlx5c_ib_umr_rereg_wr, wr);

		*imm = cpu_to_be32(rr->mkey);
		return mlx5c_ib_set_rereg(dev, rr, umr, mkey_seg);
	}
	if (wr->opcode == IB_WR_LOCAL_INV) {
		*imm = cpu_to_be32(wr->ex.invalidate_rkey);
		umr->mkey_mask = cpu_to_be64(MLX5_MKEY_MASK_FREE);
		MLX5_SET(mkc, mkey_seg, free, 1);
		return MLX5C_IB_UMR_CTRL + MLX5C_IB_MKEY_SEG;
	}
	rwr = reg_wr(wr);
	mr = to_mmr(rwr->mr);
	if (!mr->descs || !mr->ndescs)
		return -EINVAL;
	if (rwr->access & IB_ACCESS_REMOTE_ATOMIC &&
	    MLX5C_IB_CAP(dev, umr_modify_atomic_disabled))
		return -EINVAL;
	*imm = cpu_to_be32(rwr->key);
	mlx5c_ib_set_reg(dev, rwr, umr, mkey_seg,
			 mkey_seg + MLX5C_IB_MKEY_SEG);
	return MLX5C_IB_UMR_CTRL + MLX5C_IB_MKEY_SEG + MLX5C_IB_DATA_SEG;
}
