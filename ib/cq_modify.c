// SPDX-License-Identifier: GPL-2.0
/*
 * What MODIFY_CQ changes on a live CQ: completion event moderation
 * (ibv_modify_cq: an event per cq_count CQEs or after cq_period
 * microseconds) and the ring itself (ibv_resize_cq).
 *
 * Resizing a user CQ: the provider allocates the new ring and passes it in
 * struct mlx5_ib_resize_cq. The device writes a RESIZE CQE into the old
 * ring after the CQEs software has not polled yet and the next CQE into the
 * new one; the provider moves those CQEs over when it finds the RESIZE CQE.
 * The kernel only pins the new ring, names it to the device and drops the
 * old one once the device has let go of it.
 */
#include <linux/log2.h>

#include "mlx5_ib.h"

/**
 * mlx5c_ib_modify_cq() - set a CQ's completion event moderation
 * @ibcq: CQ
 * @cq_count: CQEs per event (0 or 1: every CQE)
 * @cq_period: microseconds an event may be held back (0: no limit by time)
 *
 * Return: 0, -EOPNOTSUPP when the device does not moderate, -EINVAL for a
 * period beyond what the CQ context holds, or the MODIFY_CQ error.
 */
int mlx5c_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	return mlx5c_cq_moderate(to_mdev(ibcq->device)->mdev,
				 &to_mcq(ibcq)->mcq, cq_count, cq_period);
}

/* MODIFY_CQ with the resize op: the ring @umem of @entries @cqe_sz CQEs. */
static int mlx5c_ib_resize_cmd(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq,
			       struct ib_umem *umem, u32 entries, u8 cqe_sz)
{
	u32 out[MLX5_ST_SZ_DW(modify_cq_out)] = {};
	struct mlx5c_ib_qpages pages;
	void *in, *cqc;
	int inlen, err;

	err = mlx5c_ib_qpages_init(&pages, umem, NULL);
	if (err)
		return err;
	inlen = MLX5_ST_SZ_BYTES(modify_cq_in) + pages.npas * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	MLX5_SET(modify_cq_in, in, op_mod, MLX5C_MODIFY_CQ_OPMOD_RESIZE);
	MLX5_SET(modify_cq_in, in, uid, cq->mcq.uid);
	MLX5_SET(modify_cq_in, in, cqn, cq->mcq.cqn);
	MLX5_SET(modify_cq_in, in,
		 modify_field_select_resize_field_select.resize_field_select.resize_field_select,
		 MLX5C_MODIFY_CQ_LOG_SIZE | MLX5C_MODIFY_CQ_PAGE_OFFSET |
		 MLX5C_MODIFY_CQ_LOG_PAGE_SIZE);
	cqc = MLX5_ADDR_OF(modify_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, cqe_sz);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(entries));
	MLX5_SET(cqc, cqc, log_page_size, mlx5c_ib_qpages_log(&pages));
	MLX5_SET(cqc, cqc, page_offset, pages.page_offset);
	mlx5c_ib_qpages_fill(&pages, MLX5_ADDR_OF(modify_cq_in, in, pas));
	err = mlx5c_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	return err;
}

/* The CQE size of the new ring as the CQ context encodes it. */
static int mlx5c_ib_resize_cqe_sz(const struct mlx5_ib_resize_cq *ucmd,
				  u8 *cqe_sz)
{
	switch (ucmd->cqe_size) {
	case 64:
		*cqe_sz = 0;
		return 0;
	case 128:
		*cqe_sz = 1;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * mlx5c_ib_resize_cq() - give a user CQ a ring of another size
 * @ibcq: CQ
 * @cqe: CQEs the CQ must hold at least
 * @udata: struct mlx5_ib_resize_cq in (the new ring), nothing out
 *
 * The CQ keeps its number, doorbell record and consumer index. A ring too
 * small for the CQEs not polled yet is refused by the device, and the CQ
 * stays as it was. Kernel CQs are not resized.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		       struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5c_ib_cq *cq = to_mcq(ibcq);
	struct mlx5_ib_resize_cq ucmd;
	struct ib_umem *umem, *old;
	u32 entries, max_entries;
	u8 cqe_sz;
	int err;

	if (!cq->ctx || !udata)
		return -EOPNOTSUPP;
	if (!MLX5C_IB_CAP(dev, cq_resize))
		return -EOPNOTSUPP;
	max_entries = 1U << MLX5C_IB_CAP(dev, log_max_cq_sz);
	if (!cqe || cqe > max_entries - 1)
		return -EINVAL;
	err = mlx5c_ib_udata_in(udata, &ucmd, sizeof(ucmd), sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	err = mlx5c_ib_resize_cqe_sz(&ucmd, &cqe_sz);
	if (err)
		return err;
	if (!PAGE_ALIGNED(ucmd.buf_addr))
		return -EINVAL;
	entries = roundup_pow_of_two(cqe + 1);

	mutex_lock(&cq->resize_mutex);
	umem = mlx5c_umem_get(ibcq->device, ucmd.buf_addr,
			      (size_t)entries * ucmd.cqe_size,
			      IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto out;
	}
	err = mlx5c_ib_resize_cmd(dev, cq, umem, entries, cqe_sz);
	if (err) {
		mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_CQ, err, umem, NULL);
		ib_umem_release(umem);
		goto out;
	}
	/* The device writes into the new ring only from now on. */
	old = cq->umem;
	cq->umem = umem;
	cq->cqe_size = ucmd.cqe_size;
	ibcq->cqe = entries - 1;
	ib_umem_release(old);
out:
	mutex_unlock(&cq->resize_mutex);
	return err;
}

#ifndef HAVE_RESIZE_USER_CQ
/* Before resize_user_cq, resize_cq took a signed count, for kernel CQs too. */
int mlx5c_ib_resize_cq_op(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	if (cqe < 1)
		return -EINVAL;
	return mlx5c_ib_resize_cq(ibcq, cqe, udata);
}
#endif
