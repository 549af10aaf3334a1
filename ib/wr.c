// SPDX-License-Identifier: GPL-2.0
/*
 * Posting work requests on kernel QPs and SRQs.
 *
 * A send WQE is a control segment, then per transport a datagram segment
 * (UD address vector), a remote address segment and an atomic segment,
 * then data pointers or inline data, in 16-byte units, padded to 64-byte
 * basic blocks (REG_MR and LOCAL_INV: UMR segments, umr.c). It is built in the QP's staging buffer and copied block by
 * block into the ring, whose pages are not contiguous. After a batch, the
 * producer counter goes into the doorbell record and the first 8 bytes of
 * the last control segment to the send doorbell of mlx5_core's kernel UAR.
 *
 * Receive WQEs are scatter lists of a fixed stride; the device learns of
 * new ones from the doorbell record only.
 */
#include <linux/io.h>

#include "mlx5_ib.h"

/* The staging buffer at 16-byte unit @ds. */
static void *mlx5c_ib_seg(struct mlx5c_ib_qp *qp, u32 ds)
{
	return qp->staging + ds * MLX5C_SEND_WQE_DS;
}

static int mlx5c_ib_wr_opcode(const struct ib_send_wr *wr,
			      enum ib_qp_type type, u8 *wc_op)
{
	bool ud = type == IB_QPT_UD || type == IB_QPT_GSI ||
		  type == IB_QPT_SMI;

	/* The UMR QP posts key changes only, and only it posts them. */
	if ((type == MLX5C_IB_QPT_REG_UMR) !=
	    (wr->opcode == MLX5C_IB_WR_UMR_REREG))
		return -EINVAL;
	switch (wr->opcode) {
	case MLX5C_IB_WR_UMR_REREG:
		*wc_op = IB_WC_REG_MR;
		return MLX5_OPCODE_UMR;
	case IB_WR_SEND:
		*wc_op = IB_WC_SEND;
		return MLX5_OPCODE_SEND;
	case IB_WR_SEND_WITH_IMM:
		*wc_op = IB_WC_SEND;
		return MLX5_OPCODE_SEND_IMM;
	case IB_WR_RDMA_WRITE:
		*wc_op = IB_WC_RDMA_WRITE;
		return ud ? -EINVAL : MLX5_OPCODE_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*wc_op = IB_WC_RDMA_WRITE;
		return ud ? -EINVAL : MLX5_OPCODE_RDMA_WRITE_IMM;
	case IB_WR_RDMA_READ:
		*wc_op = IB_WC_RDMA_READ;
		return type == IB_QPT_RC ? MLX5_OPCODE_RDMA_READ : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*wc_op = IB_WC_COMP_SWAP;
		return type == IB_QPT_RC ? MLX5_OPCODE_ATOMIC_CS : -EINVAL;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*wc_op = IB_WC_FETCH_ADD;
		return type == IB_QPT_RC ? MLX5_OPCODE_ATOMIC_FA : -EINVAL;
	case IB_WR_SEND_WITH_INV:
		*wc_op = IB_WC_SEND;
		return type == IB_QPT_RC ? MLX5_OPCODE_SEND_INVAL : -EINVAL;
	case IB_WR_REG_MR:
		*wc_op = IB_WC_REG_MR;
		return ud ? -EINVAL : MLX5_OPCODE_UMR;
	case IB_WR_LOCAL_INV:
		*wc_op = IB_WC_LOCAL_INV;
		return ud ? -EINVAL : MLX5_OPCODE_UMR;
	default:
		return -EINVAL;
	}
}

/* Data of an inline send: copied from the kernel addresses of the SGEs. */
static int mlx5c_ib_set_inline(struct mlx5c_ib_qp *qp,
			       const struct ib_send_wr *wr, u32 *ds)
{
	struct mlx5c_wqe_inline_seg *seg = mlx5c_ib_seg(qp, *ds);
	void *data = seg + 1;
	size_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (len + wr->sg_list[i].length > qp->max_inline)
			return -EINVAL;
		memcpy(data + len, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	seg->byte_count = cpu_to_be32(len | MLX5_INLINE_SEG);
	*ds += DIV_ROUND_UP(sizeof(*seg) + len, MLX5C_SEND_WQE_DS);
	return 0;
}

static int mlx5c_ib_set_data(struct mlx5c_ib_qp *qp,
			     const struct ib_send_wr *wr, u32 *ds)
{
	struct mlx5c_wqe_data_seg *dseg;
	int i;

	if (wr->num_sge > qp->sq.max_gs)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE && wr->num_sge)
		return mlx5c_ib_set_inline(qp, wr, ds);
	for (i = 0; i < wr->num_sge; i++) {
		if (!wr->sg_list[i].length)
			continue;
		dseg = mlx5c_ib_seg(qp, *ds);
		dseg->byte_count = cpu_to_be32(wr->sg_list[i].length);
		dseg->lkey = cpu_to_be32(wr->sg_list[i].lkey);
		dseg->addr = cpu_to_be64(wr->sg_list[i].addr);
		(*ds)++;
	}
	return 0;
}

/* The segments between the control segment and the data. */
static void mlx5c_ib_set_transport(struct mlx5c_ib_qp *qp,
				   const struct ib_send_wr *wr, int op, u32 *ds)
{
	struct mlx5c_wqe_atomic_seg *aseg;
	struct mlx5c_wqe_raddr_seg *raddr;
	const struct ib_atomic_wr *awr;
	const struct ib_ud_wr *uwr;
	struct mlx5c_av *av;

	switch (op) {
	case MLX5_OPCODE_SEND_INVAL:
		return;
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
		if (qp->ibqp.qp_type != IB_QPT_UD &&
		    qp->ibqp.qp_type != IB_QPT_GSI &&
		    qp->ibqp.qp_type != IB_QPT_SMI)
			return;
		uwr = ud_wr(wr);
		av = mlx5c_ib_seg(qp, *ds);
		*av = to_mlx5c_ah(uwr->ah)->av;
		av->qkey = cpu_to_be32(uwr->remote_qkey);
		av->dqp_dct = cpu_to_be32(uwr->remote_qpn | MLX5_EXTENDED_UD_AV);
		*ds += sizeof(*av) / MLX5C_SEND_WQE_DS;
		return;
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
	case MLX5_OPCODE_RDMA_READ:
		raddr = mlx5c_ib_seg(qp, *ds);
		raddr->raddr = cpu_to_be64(rdma_wr(wr)->remote_addr);
		raddr->rkey = cpu_to_be32(rdma_wr(wr)->rkey);
		raddr->reserved = 0;
		(*ds)++;
		return;
	default:
		awr = atomic_wr(wr);
		raddr = mlx5c_ib_seg(qp, *ds);
		raddr->raddr = cpu_to_be64(awr->remote_addr);
		raddr->rkey = cpu_to_be32(awr->rkey);
		raddr->reserved = 0;
		(*ds)++;
		aseg = mlx5c_ib_seg(qp, *ds);
		if (op == MLX5_OPCODE_ATOMIC_CS) {
			aseg->swap_add = cpu_to_be64(awr->swap);
			aseg->compare = cpu_to_be64(awr->compare_add);
		} else {
			aseg->swap_add = cpu_to_be64(awr->compare_add);
			aseg->compare = 0;
		}
		(*ds)++;
	}
}

/* Build one WQE in the staging buffer; returns its size in 16-byte units. */
static int mlx5c_ib_build_send(struct mlx5c_ib_qp *qp,
			       const struct ib_send_wr *wr, u8 *wc_op)
{
	struct mlx5c_wqe_ctrl_seg *ctrl = qp->staging;
	u32 ds = sizeof(*ctrl) / MLX5C_SEND_WQE_DS;
	int op, err;
	u8 flags = 0;

	op = mlx5c_ib_wr_opcode(wr, qp->ibqp.qp_type, wc_op);
	if (op < 0)
		return op;
	memset(qp->staging, 0, qp->sq_wqe_max);
	if (op == MLX5_OPCODE_UMR) {
		if (qp->sq_wqe_max < MLX5C_IB_CTRL_SEG +
		    MLX5C_SEND_WQE_DS * DIV_ROUND_UP(sizeof(struct mlx5c_wqe_umr_ctrl_seg) +
					       MLX5_ST_SZ_BYTES(mkc) +
					       MLX5C_IB_DATA_SEG, MLX5C_SEND_WQE_DS))
			return -EINVAL;
		err = mlx5c_ib_build_umr(to_mdev(qp->ibqp.device), wr,
					 mlx5c_ib_seg(qp, ds), &ctrl->imm);
		if (err < 0)
			return err;
		ds += DIV_ROUND_UP(err, MLX5C_SEND_WQE_DS);
	} else {
		mlx5c_ib_set_transport(qp, wr, op, &ds);
		err = mlx5c_ib_set_data(qp, wr, &ds);
		if (err)
			return err;
	}
	if (ds * MLX5C_SEND_WQE_DS > qp->sq_wqe_max)
		return -EINVAL;

	if (wr->send_flags & IB_SEND_SIGNALED || qp->sq_sig_all)
		flags |= MLX5C_WQE_CTRL_CQ_UPDATE;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= MLX5C_WQE_CTRL_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= MLX5C_WQE_CTRL_FENCE;
	ctrl->opmod_idx_opcode = cpu_to_be32((qp->sq.head & 0xffff) << 8 | op);
	ctrl->qpn_ds = cpu_to_be32(qp->qpn << 8 | ds);
	ctrl->fm_ce_se = flags;
	if (op == MLX5_OPCODE_SEND_IMM || op == MLX5_OPCODE_RDMA_WRITE_IMM)
		ctrl->imm = wr->ex.imm_data;
	else if (op == MLX5_OPCODE_SEND_INVAL)
		ctrl->imm = cpu_to_be32(wr->ex.invalidate_rkey);
	return ds;
}

static void mlx5c_ib_ring_send(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
			       const __be32 *ctrl)
{
	/* The WQEs must be in memory before the device learns of them. */
	wmb();
	qp->kbuf.db[MLX5C_SND_DBR] = cpu_to_be32(qp->sq.head & 0xffff);
	/* And the doorbell record before the doorbell. */
	wmb();
#ifdef CONFIG_64BIT
	__raw_writeq(*(const u64 *)ctrl, dev->uar + MLX5C_UAR_BF);
#else
	__raw_writel((__force u32)ctrl[0], dev->uar + MLX5C_UAR_BF);
	__raw_writel((__force u32)ctrl[1], dev->uar + MLX5C_UAR_BF + 4);
#endif
}

static bool mlx5c_ib_can_post(struct mlx5c_ib_qp *qp)
{
	enum ib_qp_state s = READ_ONCE(qp->state);

	return s != IB_QPS_RESET && s != IB_QPS_INIT;
}

/**
 * mlx5c_ib_post_send() - post send work requests on a kernel QP
 * @ibqp: QP
 * @wr: the list of work requests
 * @bad_wr: the first one not posted (out, on error)
 *
 * Any context. Posting in the error state is allowed: the device flushes
 * what it finds (ib_drain_sq() relies on it).
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5c_ib_qp *qp = to_mqp(ibqp);
	__be32 last[2] = {};
	bool posted = false;
	unsigned long flags;
	u32 i, idx, nbb;
	int ds, err = 0;
	u8 wc_op = 0;

	if (!qp->kbuf.frags || !qp->sq.wqe_cnt || !mlx5c_ib_can_post(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* QP0 sends on VL15: not on a function without the SMI (a VF). */
	if (ibqp->qp_type == IB_QPT_SMI && !dev->has_smi) {
		*bad_wr = wr;
		return -EPERM;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		ds = mlx5c_ib_build_send(qp, wr, &wc_op);
		if (ds < 0) {
			err = ds;
			break;
		}
		nbb = DIV_ROUND_UP(ds * MLX5C_SEND_WQE_DS, MLX5C_SEND_WQE_BB);
		if (qp->sq.head + nbb - READ_ONCE(qp->sq.tail) > qp->sq.wqe_cnt) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < nbb; i++) {
			idx = (qp->sq.head + i) & (qp->sq.wqe_cnt - 1);
			memcpy(mlx5c_buf_at(&qp->kbuf, qp->sq.offset +
					    (size_t)idx * MLX5C_SEND_WQE_BB),
			       qp->staging + i * MLX5C_SEND_WQE_BB,
			       MLX5C_SEND_WQE_BB);
		}
		idx = qp->sq.head & (qp->sq.wqe_cnt - 1);
		qp->sq.wrid[idx] = wr->wr_id;
		qp->sq.wc_op[idx] = wc_op;
		qp->sq.next[idx] = qp->sq.head + nbb;
		memcpy(last, qp->staging, sizeof(last));
		qp->sq.head += nbb;
		posted = true;
	}
	if (posted)
		mlx5c_ib_ring_send(dev, qp, last);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (posted && mlx5c_ib_dead(dev))
		mlx5c_ib_dead_kick(dev);
	if (err)
		*bad_wr = wr;
	return err;
}

/* The scatter list of a receive WQE, terminated when shorter than @max. */
static void mlx5c_ib_set_scatter(struct mlx5c_wqe_data_seg *dseg,
				 const struct ib_recv_wr *wr, u32 max)
{
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		dseg[i].byte_count = cpu_to_be32(wr->sg_list[i].length);
		dseg[i].lkey = cpu_to_be32(wr->sg_list[i].lkey);
		dseg[i].addr = cpu_to_be64(wr->sg_list[i].addr);
	}
	if (i < max) {
		dseg[i].byte_count = 0;
		dseg[i].lkey = cpu_to_be32(MLX5C_INVALID_LKEY);
		dseg[i].addr = 0;
	}
}

/**
 * mlx5c_ib_post_recv() - post receive work requests on a kernel QP
 * @ibqp: QP (not attached to an SRQ)
 * @wr: the list of work requests
 * @bad_wr: the first one not posted (out, on error)
 *
 * Any context.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct mlx5c_ib_qp *qp = to_mqp(ibqp);
	struct mlx5c_wqe_data_seg *dseg;
	unsigned long flags;
	bool posted = false;
	int err = 0;
	u32 idx;

	if (!qp->kbuf.frags || !qp->rq.wqe_cnt || ibqp->srq ||
	    READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge > qp->rq.max_gs) {
			err = -EINVAL;
			break;
		}
		if (qp->rq.head - READ_ONCE(qp->rq.tail) >= qp->rq.wqe_cnt) {
			err = -ENOMEM;
			break;
		}
		idx = qp->rq.head & (qp->rq.wqe_cnt - 1);
		dseg = mlx5c_buf_at(&qp->kbuf, qp->rq.offset +
				    ((size_t)idx << qp->rq.shift));
		mlx5c_ib_set_scatter(dseg, wr, qp->rq.max_gs);
		qp->rq.wrid[idx] = wr->wr_id;
		qp->rq.head++;
		posted = true;
	}
	if (posted) {
		/* The WQEs before the counter that publishes them. */
		wmb();
		qp->kbuf.db[MLX5C_RCV_DBR] = cpu_to_be32(qp->rq.head & 0xffff);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (posted && mlx5c_ib_dead(to_mdev(ibqp->device)))
		mlx5c_ib_dead_kick(to_mdev(ibqp->device));
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * mlx5c_ib_post_srq_recv() - post receive work requests on a kernel SRQ
 * @ibsrq: SRQ
 * @wr: the list of work requests
 * @bad_wr: the first one not posted (out, on error)
 *
 * Any context. WQEs come from the SRQ's free list (srq.c).
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct mlx5c_ib_srq *srq = to_msrq(ibsrq);
	struct mlx5_wqe_srq_next_seg *next;
	unsigned long flags;
	bool posted = false;
	int err = 0;

	if (!srq->kbuf.frags) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge > srq->max_gs) {
			err = -EINVAL;
			break;
		}
		if (srq->head == srq->tail) {
			err = -ENOMEM;
			break;
		}
		next = mlx5c_buf_at(&srq->kbuf,
				    (size_t)srq->head << srq->shift);
		mlx5c_ib_set_scatter((struct mlx5c_wqe_data_seg *)(next + 1), wr,
				     srq->max_gs);
		srq->wrid[srq->head] = wr->wr_id;
		srq->head = be16_to_cpu(next->next_wqe_index);
		srq->counter++;
		posted = true;
	}
	if (posted) {
		/* The WQEs before the doorbell record the device reads. */
		wmb();
		srq->kbuf.db[0] = cpu_to_be32(srq->counter);
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
