// SPDX-License-Identifier: GPL-2.0
/*
 * The queues of kernel QPs: sizing from the requested capabilities, the
 * ring (RQ first, then SQ, as the QP context describes it) with its
 * doorbell record, and the per-entry bookkeeping that turns CQEs back into
 * work request ids (poll.c).
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

#define MLX5C_IB_AV_SEG		sizeof(struct mlx5c_av)
#define MLX5C_IB_ATOMIC_SEG	sizeof(struct mlx5c_wqe_atomic_seg)
#define MLX5C_IB_INLINE_HDR	sizeof(struct mlx5c_wqe_inline_seg)

/* Bytes between the control segment and the data of a send WQE. */
static u32 mlx5c_ib_sq_overhead(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return MLX5C_IB_RADDR_SEG + MLX5C_IB_ATOMIC_SEG;
	case IB_QPT_UC:
		return MLX5C_IB_RADDR_SEG;
	case MLX5C_IB_QPT_REG_UMR:
		return 0;
	default:
		return MLX5C_IB_AV_SEG;
	}
}

static int mlx5c_ib_kqp_size_sq(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
				struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 hdr = MLX5C_IB_CTRL_SEG + mlx5c_ib_sq_overhead(init->qp_type);
	u32 data = max_t(u32, cap->max_send_sge * MLX5C_IB_DATA_SEG,
			 ALIGN(MLX5C_IB_INLINE_HDR + cap->max_inline_data,
			       MLX5C_IB_DATA_SEG));
	u32 max_wr = 1U << MLX5C_IB_CAP(dev, log_max_qp_sz);
	u32 wqe = ALIGN(max(hdr + max_t(u32, data, MLX5C_IB_DATA_SEG),
			    mlx5c_ib_umr_wqe_size(dev, init->qp_type)),
			MLX5C_IB_WQE_BB);
	u32 bbs = wqe / MLX5C_IB_WQE_BB;

	if (!cap->max_send_wr) {
		qp->sq.wqe_cnt = 0;
		return 0;
	}
	if (wqe > dev->max_sq_wqe || (u64)cap->max_send_wr * bbs > max_wr)
		return -EINVAL;
	qp->sq.wqe_cnt = roundup_pow_of_two(cap->max_send_wr * bbs);
	qp->sq.max_gs = (wqe - hdr) / MLX5C_IB_DATA_SEG;
	qp->sq_wqe_max = wqe;
	qp->max_inline = wqe - hdr - MLX5C_IB_INLINE_HDR;
	cap->max_send_wr = qp->sq.wqe_cnt / bbs;
	cap->max_send_sge = qp->sq.max_gs;
	cap->max_inline_data = qp->max_inline;
	return 0;
}

static int mlx5c_ib_kqp_size_rq(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
				struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 max_wr = 1U << MLX5C_IB_CAP(dev, log_max_qp_sz);
	u32 stride;

	if (init->srq || !cap->max_recv_wr) {
		qp->rq.wqe_cnt = 0;
		cap->max_recv_wr = 0;
		cap->max_recv_sge = init->srq ? cap->max_recv_sge : 0;
		return 0;
	}
	stride = roundup_pow_of_two(max_t(u32, cap->max_recv_sge, 1) *
				    MLX5C_IB_DATA_SEG);
	if (stride > dev->max_rq_desc || cap->max_recv_wr > max_wr)
		return -EINVAL;
	qp->rq.wqe_cnt = roundup_pow_of_two(cap->max_recv_wr);
	qp->rq.shift = ilog2(stride);
	qp->rq.max_gs = stride / MLX5C_IB_DATA_SEG;
	cap->max_recv_wr = qp->rq.wqe_cnt;
	cap->max_recv_sge = qp->rq.max_gs;
	return 0;
}

/**
 * mlx5c_ib_kqp_alloc() - size and allocate the queues of a kernel QP
 * @dev: device
 * @qp: QP; on success its rings, staging buffer and bookkeeping are set,
 *	and the queue geometry CREATE_QP reads (rq_wqe_cnt, rq_wqe_shift,
 *	sq_wqe_cnt)
 * @init: creation attributes; the capabilities are updated to what the
 *	QP really has
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_kqp_alloc(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
		       struct ib_qp_init_attr *init)
{
	size_t rq_bytes, sq_bytes;
	int err;

	err = mlx5c_ib_kqp_size_sq(dev, qp, init);
	if (err)
		return err;
	err = mlx5c_ib_kqp_size_rq(dev, qp, init);
	if (err)
		return err;
	if (!qp->sq.wqe_cnt && !qp->rq.wqe_cnt && !init->srq)
		return -EINVAL;
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->rq_wqe_cnt = qp->rq.wqe_cnt;
	qp->rq_wqe_shift = qp->rq.shift;
	qp->sq_wqe_cnt = qp->sq.wqe_cnt;
	rq_bytes = (size_t)qp->rq.wqe_cnt << qp->rq.shift;
	sq_bytes = (size_t)qp->sq.wqe_cnt * MLX5C_IB_WQE_BB;
	qp->rq.offset = 0;
	qp->sq.offset = rq_bytes;

	err = -ENOMEM;
	if (qp->sq.wqe_cnt) {
		qp->sq.wrid = kvcalloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wrid),
				       GFP_KERNEL);
		qp->sq.next = kvcalloc(qp->sq.wqe_cnt, sizeof(*qp->sq.next),
				       GFP_KERNEL);
		qp->sq.wc_op = kvcalloc(qp->sq.wqe_cnt, sizeof(*qp->sq.wc_op),
					GFP_KERNEL);
		qp->staging = kzalloc(qp->sq_wqe_max, GFP_KERNEL);
		if (!qp->sq.wrid || !qp->sq.next || !qp->sq.wc_op ||
		    !qp->staging)
			goto err_free;
	}
	if (qp->rq.wqe_cnt) {
		qp->rq.wrid = kvcalloc(qp->rq.wqe_cnt, sizeof(*qp->rq.wrid),
				       GFP_KERNEL);
		if (!qp->rq.wrid)
			goto err_free;
	}
	/* A QP with an SRQ and no send queue still needs a doorbell record. */
	err = mlx5c_buf_alloc(dev->mdev, max_t(size_t, rq_bytes + sq_bytes,
						MLX5C_IB_WQE_BB),
			      MLX5C_BUF_DBR, &qp->kbuf);
	if (err)
		goto err_free;
	return 0;

err_free:
	mlx5c_ib_kqp_free(dev, qp);
	return err;
}

/**
 * mlx5c_ib_kqp_free() - free what mlx5c_ib_kqp_alloc() allocated
 * @dev: device
 * @qp: kernel QP; its ring may have been taken over as an orphan
 */
void mlx5c_ib_kqp_free(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp)
{
	mlx5c_buf_free(dev->mdev, &qp->kbuf);
	kvfree(qp->sq.wrid);
	kvfree(qp->sq.next);
	kvfree(qp->sq.wc_op);
	kvfree(qp->rq.wrid);
	kfree(qp->staging);
	qp->sq.wrid = NULL;
	qp->sq.next = NULL;
	qp->sq.wc_op = NULL;
	qp->rq.wrid = NULL;
	qp->staging = NULL;
}

/**
 * mlx5c_ib_kqp_clean() - drop a kernel QP's CQEs from its CQs
 * @qp: kernel QP the device no longer completes for
 */
void mlx5c_ib_kqp_clean(struct mlx5c_ib_qp *qp)
{
	mlx5c_ib_cq_clean(to_mcq(qp->ibqp.send_cq), qp->qpn);
	if (qp->ibqp.recv_cq != qp->ibqp.send_cq)
		mlx5c_ib_cq_clean(to_mcq(qp->ibqp.recv_cq), qp->qpn);
}

/**
 * mlx5c_ib_kqp_reset() - empty the queues of a kernel QP moved to RESET
 * @qp: kernel QP; its modify mutex held
 *
 * The device restarts both queues at index 0.
 */
void mlx5c_ib_kqp_reset(struct mlx5c_ib_qp *qp)
{
	unsigned long flags;

	mlx5c_ib_kqp_clean(qp);
	spin_lock_irqsave(&qp->sq.lock, flags);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->kbuf.db[MLX5C_SND_DBR] = 0;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	spin_lock_irqsave(&qp->rq.lock, flags);
	qp->rq.head = 0;
	qp->rq.tail = 0;
	qp->kbuf.db[MLX5C_RCV_DBR] = 0;
	spin_unlock_irqrestore(&qp->rq.lock, flags);
}
