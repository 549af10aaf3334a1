// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs (RC, UC, UD, and the special QPs 0 and 1 of ib_core's MAD
 * layer). A user QP's provider lays out the RQ and then the SQ in one
 * page-aligned buffer and keeps the two doorbell counters in a user
 * doorbell record; the kernel pins both. A kernel QP gets the same layout
 * in kernel pages (qp_kernel.c). Either way the kernel tells the firmware
 * where they are (CREATE_QP); qp_modify.c drives the state machine.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

#define MLX5C_IB_QP_FLAGS	(MLX5_QP_FLAG_SIGNATURE | \
				 MLX5_QP_FLAG_SCATTER_CQE | \
				 MLX5_QP_FLAG_ALLOW_SCATTER_CQE | \
				 MLX5_QP_FLAG_UAR_PAGE_INDEX)

/* The QP context's service type (st) of an ib_core QP type. */
int mlx5c_ib_qp_st(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return MLX5_QPC_ST_RC;
	case IB_QPT_UC:
		return MLX5_QPC_ST_UC;
	case IB_QPT_UD:
		return MLX5_QPC_ST_UD;
	case IB_QPT_SMI:
		return MLX5_QPC_ST_QP0;
	case IB_QPT_GSI:
		return MLX5_QPC_ST_QP1;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return MLX5_QPC_ST_XRC;
	case MLX5C_IB_QPT_REG_UMR:
		return MLX5_QPC_ST_REG_UMR;
	default:
		return -EOPNOTSUPP;
	}
}

/* The service type of @qp: its ib_core type's, or a DC initiator's. */
int mlx5c_ib_qp_hw_st(const struct mlx5c_ib_qp *qp)
{
	if (qp->dc == MLX5C_IB_DCI)
		return MLX5_QPC_ST_DCI;
	return mlx5c_ib_qp_st(qp->ibqp.qp_type);
}

/*
 * The user index CQEs of a user QP carry (CQE version 1), or the one that
 * says there is none.
 */
int mlx5c_ib_qp_user_index(struct mlx5c_ib_ucontext *ctx,
			   const struct mlx5_ib_create_qp *ucmd, u32 *uidx)
{
	if (!ctx->cqe_version) {
		*uidx = MLX5C_IB_DEFAULT_UIDX;
		return 0;
	}
	if (ucmd->uidx > MLX5C_IB_DEFAULT_UIDX)
		return -EINVAL;
	*uidx = ucmd->uidx;
	return 0;
}

/* The user QP no longer rings its bfreg or dynamic UAR. */
static void mlx5c_ib_qp_uar_put(struct mlx5c_ib_qp *qp)
{
	if (qp->bfreg >= 0)
		mlx5c_ib_bfreg_free(qp->ctx, qp->bfreg);
	else if (qp->dyn_uar >= 0)
		mlx5c_ib_uar_put(qp->ctx, qp->dyn_uar);
}

/*
 * The one creation flag the device executes: no copy of the QP's own
 * multicast sends (UD QPs, capability block_lb_mc).
 */
static int mlx5c_ib_qp_check_flags(struct mlx5c_ib_dev *dev,
				   struct ib_qp_init_attr *init)
{
	if (init->create_flags & ~IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)
		return -EOPNOTSUPP;
	if ((init->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK) &&
	    (!MLX5C_IB_CAP(dev, block_lb_mc) || init->qp_type != IB_QPT_UD))
		return -EOPNOTSUPP;
	return 0;
}

static int mlx5c_ib_qp_check_caps(struct mlx5c_ib_dev *dev,
				  struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 max_wr = 1U << MLX5C_IB_CAP(dev, log_max_qp_sz);
	/* Beyond max_sge: a QP may use the largest WQE the device runs. */
	u32 max_sq_sg = (dev->max_sq_wqe - MLX5C_IB_CTRL_SEG -
			 MLX5C_IB_RADDR_SEG) / MLX5C_IB_DATA_SEG;

	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr)
		return -EINVAL;
	if (cap->max_send_sge > max_sq_sg ||
	    cap->max_recv_sge > dev->max_rq_desc / MLX5C_IB_DATA_SEG)
		return -EINVAL;
	if (cap->max_inline_data > dev->max_sq_wqe)
		return -EINVAL;
	return 0;
}

/*
 * The provider's buffer geometry, checked against the device limits. The
 * buffer may start at any offset mlx5c_ib_qpages_init() can express: a
 * parent domain's allocator aligns it only to 1/64 of its size.
 */
static int mlx5c_ib_qp_check_geometry(struct mlx5c_ib_dev *dev,
				      struct ib_qp_init_attr *init,
				      struct mlx5_ib_create_qp *ucmd)
{
	u32 max_wr = 1U << MLX5C_IB_CAP(dev, log_max_qp_sz);
	u32 rq_cnt = ucmd->rq_wqe_count, sq_cnt = ucmd->sq_wqe_count;

	if (init->srq) {
		if (rq_cnt)
			return -EINVAL;
	} else if (rq_cnt) {
		if (!is_power_of_2(rq_cnt) || rq_cnt > max_wr ||
		    rq_cnt < init->cap.max_recv_wr)
			return -EINVAL;
		if (ucmd->rq_wqe_shift < ilog2(MLX5C_IB_DATA_SEG) ||
		    ucmd->rq_wqe_shift > ilog2(dev->max_rq_desc) ||
		    (1U << ucmd->rq_wqe_shift) <
		    MLX5C_IB_DATA_SEG * init->cap.max_recv_sge)
			return -EINVAL;
	} else if (init->cap.max_recv_wr) {
		return -EINVAL;
	}
	if (sq_cnt) {
		if (!is_power_of_2(sq_cnt) || sq_cnt > max_wr ||
		    sq_cnt < init->cap.max_send_wr)
			return -EINVAL;
	} else if (init->cap.max_send_wr) {
		return -EINVAL;
	}
	if (!rq_cnt && !sq_cnt)
		return -EINVAL;
	return 0;
}

static int mlx5c_ib_qp_create_cmd(struct mlx5c_ib_dev *dev,
				  struct mlx5c_ib_qp *qp,
				  struct ib_qp_init_attr *init, bool sig,
				  u32 uar, dma_addr_t dbr)
{
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	struct mlx5c_ib_qpages pages;
	void *in, *qpc;
	int inlen, err;

	err = mlx5c_ib_qpages_init(&pages, qp->umem, &qp->kbuf);
	if (err)
		return err;
	inlen = MLX5_ST_SZ_BYTES(create_qp_in) + pages.npas * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	MLX5_SET(create_qp_in, in, uid, mlx5c_ib_ctx_uid(qp->ctx));
	qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	MLX5_SET(qpc, qpc, st, mlx5c_ib_qp_hw_st(qp));
	MLX5_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	MLX5_SET(qpc, qpc, pd, to_mpd(qp->ibqp.pd)->pdn);
	MLX5_SET(qpc, qpc, wq_signature, sig);
	MLX5_SET(qpc, qpc, block_lb_mc,
		 !!(init->create_flags & IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK));
	MLX5_SET(qpc, qpc, log_msg_max, MLX5C_IB_CAP(dev, log_max_msg));
	MLX5_SET(qpc, qpc, uar_page, uar);
	MLX5_SET(qpc, qpc, user_index, qp->uidx);
	MLX5_SET(qpc, qpc, log_page_size, mlx5c_ib_qpages_log(&pages));
	MLX5_SET(qpc, qpc, page_offset, pages.page_offset);
	/*
	 * Kernel QPs may name the reserved lkey, as with the in-tree driver,
	 * which sets rlky on every kernel QP and on no other queue; the
	 * reserved lkey ends a receive scatter list here (post_recv).
	 */
	if (!qp->ctx)
		MLX5_SET(qpc, qpc, rlky, 1);

	if (init->srq) {
		MLX5_SET(qpc, qpc, rq_type, MLX5C_QP_RQ_SRQ);
		MLX5_SET(qpc, qpc, srqn_rmpn_xrqn, to_msrq(init->srq)->srqn);
	} else if (qp->rq_wqe_cnt) {
		MLX5_SET(qpc, qpc, rq_type, MLX5C_QP_RQ_REGULAR);
		MLX5_SET(qpc, qpc, log_rq_size, ilog2(qp->rq_wqe_cnt));
		MLX5_SET(qpc, qpc, log_rq_stride,
			 qp->rq_wqe_shift - ilog2(MLX5C_IB_DATA_SEG));
	} else {
		MLX5_SET(qpc, qpc, rq_type, MLX5C_QP_RQ_ZERO_LEN);
	}
	if (qp->sq_wqe_cnt)
		MLX5_SET(qpc, qpc, log_sq_size, ilog2(qp->sq_wqe_cnt));
	else
		MLX5_SET(qpc, qpc, no_sq, 1);
	/* An XRC initiator receives nothing, but names a domain (xrc.c). */
	if (init->qp_type == IB_QPT_XRC_INI)
		MLX5_SET(qpc, qpc, xrcd, dev->xrcdn_ini);
	MLX5_SET(qpc, qpc, cqn_snd, to_mcq(init->send_cq)->mcq.cqn);
	if (init->recv_cq)
		MLX5_SET(qpc, qpc, cqn_rcv, to_mcq(init->recv_cq)->mcq.cqn);
	MLX5_SET64(qpc, qpc, dbr_addr, dbr);
	mlx5c_ib_qpages_fill(&pages, MLX5_ADDR_OF(create_qp_in, in, pas));

	err = mlx5c_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_QP, err, qp->umem, &qp->kbuf);
	if (!err) {
		qp->qpn = MLX5_GET(create_qp_out, out, qpn);
		/* ib_core knows the special QPs by their IBA numbers. */
		if (init->qp_type == IB_QPT_SMI)
			qp->ibqp.qp_num = 0;
		else if (init->qp_type == IB_QPT_GSI)
			qp->ibqp.qp_num = 1;
		else
			qp->ibqp.qp_num = qp->qpn;
	}
	kvfree(in);
	return err;
}

void mlx5c_ib_qp_init_common(struct mlx5c_ib_qp *qp,
			     struct ib_qp_init_attr *init)
{
	qp->max_inline = init->cap.max_inline_data;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->cap = init->cap;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->mutex);
	refcount_set(&qp->refcount, 1);
	init_completion(&qp->free);
}

/* A kernel QP: its rings in kernel memory, rung through the kernel UAR. */
static int mlx5c_ib_create_kernel_qp(struct mlx5c_ib_dev *dev,
				     struct mlx5c_ib_qp *qp,
				     struct ib_qp_init_attr *init)
{
	int err;

	err = mlx5c_ib_qp_check_flags(dev, init);
	if (err)
		return err;
	if ((init->qp_type == IB_QPT_SMI || init->qp_type == IB_QPT_GSI) &&
	    (init->port_num < 1 || init->port_num > dev->num_ports))
		return -EINVAL;
	err = mlx5c_ib_qp_check_caps(dev, init);
	if (err)
		return err;
	qp->uidx = MLX5C_IB_DEFAULT_UIDX;
	err = mlx5c_ib_kqp_alloc(dev, qp, init);
	if (err)
		return err;
	mlx5c_ib_qp_init_common(qp, init);
	if (init->qp_type == IB_QPT_SMI || init->qp_type == IB_QPT_GSI)
		qp->port = init->port_num;

	err = mlx5c_ib_qp_create_cmd(dev, qp, init, false, dev->uar_index,
				     qp->kbuf.db_dma);
	if (err)
		goto err_free;
	err = xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;
	spin_lock_irq(&dev->kqp_lock);
	list_add_tail(&qp->kqp_entry, &dev->kqps);
	spin_unlock_irq(&dev->kqp_lock);
	return 0;

err_destroy:
	mlx5c_ib_orphan_kbuf(dev, MLX5C_IB_OBJ_QP, qp->qpn, &qp->kbuf,
			     mlx5c_ib_destroy_cmd(dev, MLX5C_IB_OBJ_QP, qp->qpn, 0));
err_free:
	mutex_destroy(&qp->mutex);
	mlx5c_ib_kqp_free(dev, qp);
	return err;
}

/**
 * mlx5c_ib_create_qp() - create an RC, UC or UD QP, or a special QP
 * @ibqp: QP allocated by ib_core (pd, type and CQs set)
 * @init: creation attributes; for kernel QPs the capabilities are updated
 * @udata: struct mlx5_ib_create_qp in, struct mlx5_ib_create_qp_resp out;
 *	NULL for a kernel QP (which may also be the SMI or GSI QP of a port)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5c_ib_qp *qp = to_mqp(ibqp);
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5_ib_create_qp ucmd;
	struct mlx5c_ib_ucontext *ctx;
	size_t size;
	int st, err;

	if (init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* A DC target has no queue of its own; an initiator is a user QP. */
	if (init->qp_type == IB_QPT_DRIVER) {
		err = mlx5c_ib_dc_role(dev, init, udata, &qp->dc);
		if (err)
			return err;
		if (qp->dc == MLX5C_IB_DCT)
			return mlx5c_ib_create_dct(dev, qp, init, udata);
	} else {
		st = mlx5c_ib_qp_st(init->qp_type);
		if (st < 0)
			return st;
	}
	switch (init->qp_type) {
	case IB_QPT_XRC_TGT:
		if (!MLX5C_IB_CAP(dev, xrc))
			return -EOPNOTSUPP;
		return mlx5c_ib_create_xrc_tgt_qp(dev, qp, init, udata);
	case IB_QPT_XRC_INI:
		/* User initiators only: the kernel has no XRC consumer. */
		if (!dev->has_xrcd_ini || !udata)
			return -EOPNOTSUPP;
		if (!init->send_cq || init->recv_cq || init->srq ||
		    init->cap.max_recv_wr)
			return -EINVAL;
		break;
	default:
		if (!init->send_cq || !init->recv_cq)
			return -EINVAL;
		break;
	}
	if (!udata)
		return mlx5c_ib_create_kernel_qp(dev, qp, init);
	/* The UMR QP changes keys of any PD: the driver's own (umr_qp.c). */
	if (init->qp_type == MLX5C_IB_QPT_REG_UMR)
		return -EOPNOTSUPP;
	ctx = rdma_udata_to_drv_context(udata, struct mlx5c_ib_ucontext, ibuc);
	if (!ctx || init->qp_type == IB_QPT_SMI ||
	    init->qp_type == IB_QPT_GSI)
		return -EOPNOTSUPP;
	err = mlx5c_ib_qp_check_flags(dev, init);
	if (err)
		return err;
	err = mlx5c_ib_qp_check_caps(dev, init);
	if (err)
		return err;

	err = mlx5c_ib_udata_in(udata, &ucmd,
				offsetofend(typeof(ucmd), bfreg_index),
				sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.flags & ~(MLX5C_IB_QP_FLAGS |
			   (qp->dc == MLX5C_IB_DCI ? MLX5_QP_FLAG_TYPE_DCI : 0)) ||
	    ucmd.ece_options)
		return -EOPNOTSUPP;
	/* Rung through a dynamic UAR it names, else a static bfreg. */
	if (!(ucmd.flags & MLX5_QP_FLAG_UAR_PAGE_INDEX) &&
	    (ucmd.bfreg_index || !ctx->tot_bfregs))
		return -EINVAL;
	if (ucmd.sq_buf_addr || ucmd.reserved ||
	    ucmd.dci_streams.log_num_concurent ||
	    ucmd.dci_streams.log_num_errored)
		return -EINVAL;
	err = mlx5c_ib_qp_user_index(ctx, &ucmd, &qp->uidx);
	if (err)
		return err;
	err = mlx5c_ib_qp_check_geometry(dev, init, &ucmd);
	if (err)
		return err;
	if (qp->dc == MLX5C_IB_DCI) {
		err = mlx5c_ib_dci_check(init, &ucmd);
		if (err)
			return err;
	}

	qp->ctx = ctx;
	qp->rq_wqe_cnt = ucmd.rq_wqe_count;
	qp->rq_wqe_shift = ucmd.rq_wqe_shift;
	qp->sq_wqe_cnt = ucmd.sq_wqe_count;
	mlx5c_ib_qp_init_common(qp, init);
	/*
	 * query_qp reports the receive queue the provider laid out: its
	 * depth and the SGEs a WQE holds (less the signature segment), which
	 * may exceed what was asked for.
	 */
	if (qp->rq_wqe_cnt) {
		qp->cap.max_recv_wr = qp->rq_wqe_cnt;
		qp->cap.max_recv_sge = (1U << qp->rq_wqe_shift) /
				       MLX5C_IB_DATA_SEG -
				       !!(ucmd.flags & MLX5_QP_FLAG_SIGNATURE);
	}

	size = ((size_t)qp->rq_wqe_cnt << qp->rq_wqe_shift) +
	       (size_t)qp->sq_wqe_cnt * MLX5C_IB_WQE_BB;
	qp->umem = mlx5c_umem_get(ibqp->device, ucmd.buf_addr, size, 0);
	if (IS_ERR(qp->umem)) {
		err = PTR_ERR(qp->umem);
		goto err_mutex;
	}
	err = mlx5c_ib_db_map(ctx, ucmd.db_addr, &qp->db);
	if (err)
		goto err_umem;
	qp->bfreg = -1;
	qp->dyn_uar = -1;
	if (ucmd.flags & MLX5_QP_FLAG_UAR_PAGE_INDEX) {
		err = mlx5c_ib_uar_get(ctx, ucmd.bfreg_index);
		if (err)
			goto err_db;
		qp->dyn_uar = ucmd.bfreg_index;
	} else {
		qp->bfreg = mlx5c_ib_bfreg_alloc(ctx);
	}

	err = mlx5c_ib_qp_create_cmd(dev, qp, init,
				     ucmd.flags & MLX5_QP_FLAG_SIGNATURE,
				     qp->dyn_uar >= 0 ? qp->dyn_uar :
				     mlx5c_ib_bfreg_uar(ctx, qp->bfreg),
				     qp->db.dma);
	if (err)
		goto err_bfreg;
	err = xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;

	if (qp->bfreg >= 0)
		resp.bfreg_index = mlx5c_ib_bfreg_prov_index(qp->bfreg);
	err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase_irq(&dev->qps, qp->qpn);
err_destroy:
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_QP, qp->qpn,
			     mlx5c_ib_ctx_uid(qp->ctx), &qp->umem);
err_bfreg:
	mlx5c_ib_qp_uar_put(qp);
err_db:
	mlx5c_ib_db_unmap(ctx, &qp->db);
err_umem:
	ib_umem_release(qp->umem);
err_mutex:
	mutex_destroy(&qp->mutex);
	return err;
}

static enum ib_qp_state mlx5c_ib_qp_state_from_hw(u32 st, enum ib_qp_state dflt)
{
	switch (st) {
	case MLX5_QPC_STATE_RST:
		return IB_QPS_RESET;
	case MLX5_QPC_STATE_INIT:
		return IB_QPS_INIT;
	case MLX5_QPC_STATE_RTR:
		return IB_QPS_RTR;
	case MLX5_QPC_STATE_RTS:
		return IB_QPS_RTS;
	case MLX5_QPC_STATE_SQER:
		return IB_QPS_SQE;
	case MLX5_QPC_STATE_SQD:
		return IB_QPS_SQD;
	case MLX5_QPC_STATE_ERR:
		return IB_QPS_ERR;
	default:
		return dflt;
	}
}

static int mlx5c_ib_qp_hw_state(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
				enum ib_qp_state *state)
{
	int outlen = MLX5_ST_SZ_BYTES(query_qp_out);
	u32 in[MLX5_ST_SZ_DW(query_qp_in)] = {};
	void *out;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	MLX5_SET(query_qp_in, in, qpn, qp->qpn);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, outlen);
	if (!err)
		*state = mlx5c_ib_qp_state_from_hw(MLX5_GET(query_qp_out, out,
							    qpc.state),
						   qp->state);
	kfree(out);
	return err;
}

/**
 * mlx5c_ib_query_qp() - current attributes of a QP
 * @ibqp: QP
 * @attr: attributes (out)
 * @mask: requested attributes (all are returned)
 * @init: creation attributes (out)
 *
 * The state comes from the device (it moves a QP to an error state on its
 * own); the other attributes are the ones the driver applied.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5c_ib_qp *qp = to_mqp(ibqp);
	enum ib_qp_state state;
	int err;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	mutex_lock(&qp->mutex);
	state = qp->state;
	if (state != IB_QPS_RESET && qp->dc != MLX5C_IB_DCT) {
		err = mlx5c_ib_qp_hw_state(dev, qp, &state);
		if (err)
			goto out;
	}
	*attr = qp->attr;
	/*
	 * The firmware keeps the READ/atomic depths as log2 (log_sra_max,
	 * log_rra_max): 1 until set, else the power of two granted.
	 */
	attr->max_rd_atomic =
		1U << order_base_2(max_t(u8, qp->attr.max_rd_atomic, 1));
	attr->max_dest_rd_atomic =
		1U << order_base_2(max_t(u8, qp->attr.max_dest_rd_atomic, 1));
	attr->qp_access_flags = mlx5c_ib_qp_access(qp, &qp->attr, 0);
	attr->qp_state = state;
	attr->cur_qp_state = state;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->port_num = qp->port;
	attr->cap = qp->cap;
	attr->cap.max_inline_data = qp->max_inline;

	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	err = 0;
	/* A DC target's responder attributes are the firmware's (dc.c). */
	if (qp->dc == MLX5C_IB_DCT) {
		attr->qp_access_flags = qp->attr.qp_access_flags;
		if (state == IB_QPS_RTR)
			err = mlx5c_ib_query_dct(qp, attr);
		attr->cur_qp_state = attr->qp_state;
	}
out:
	mutex_unlock(&qp->mutex);
	return err;
}

/**
 * mlx5c_ib_destroy_qp() - destroy a QP
 * @ibqp: QP
 * @udata: unused
 *
 * The QP leaves the event table first: events the device posts for its
 * QPN from then on are dropped, whatever DESTROY_QP answers.
 *
 * Return: 0; a QP the firmware refuses to destroy is kept, with its
 * buffer, as an orphan.
 */
int mlx5c_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5c_ib_qp *qp = to_mqp(ibqp);

	if (qp->dc == MLX5C_IB_DCT) {
		mlx5c_ib_destroy_dct(qp);
		return 0;
	}
	xa_erase_irq(&dev->qps, qp->qpn);
	if (!refcount_dec_and_test(&qp->refcount))
		wait_for_completion(&qp->free);
	if (qp->xrc_tgt) {
		mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_QP, qp->qpn, 0, NULL);
		mutex_destroy(&qp->mutex);
		return 0;
	}
	if (qp->kbuf.frags) {
		spin_lock_irq(&dev->kqp_lock);
		list_del(&qp->kqp_entry);
		spin_unlock_irq(&dev->kqp_lock);
		mlx5c_ib_orphan_kbuf(dev, MLX5C_IB_OBJ_QP, qp->qpn, &qp->kbuf,
				     mlx5c_ib_destroy_cmd(dev, MLX5C_IB_OBJ_QP,
							  qp->qpn, 0));
		/* No CQE of this QP arrives any more; drop those waiting. */
		mlx5c_ib_kqp_clean(qp);
		mlx5c_ib_kqp_free(dev, qp);
		mutex_destroy(&qp->mutex);
		return 0;
	}
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_QP, qp->qpn,
			     mlx5c_ib_ctx_uid(qp->ctx), &qp->umem);
	mlx5c_ib_qp_uar_put(qp);
	mlx5c_ib_db_unmap(qp->ctx, &qp->db);
	ib_umem_release(qp->umem);
	mutex_destroy(&qp->mutex);
	return 0;
}

static int mlx5c_ib_qp_event_type(int type)
{
	switch (type) {
	case MLX5_EVENT_TYPE_PATH_MIG:
		return IB_EVENT_PATH_MIG;
	case MLX5_EVENT_TYPE_COMM_EST:
		return IB_EVENT_COMM_EST;
	case MLX5_EVENT_TYPE_SQ_DRAINED:
		return IB_EVENT_SQ_DRAINED;
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
		return IB_EVENT_QP_LAST_WQE_REACHED;
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
		return IB_EVENT_QP_FATAL;
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
		return IB_EVENT_PATH_MIG_ERR;
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
		return IB_EVENT_QP_REQ_ERR;
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
	case MLX5_EVENT_TYPE_DCT_KEY_VIOLATION:
		return IB_EVENT_QP_ACCESS_ERR;
	case MLX5_EVENT_TYPE_DCT_DRAINED:
		return 0;	/* for the DCT's destroy, not its consumer */
	default:
		return -1;
	}
}

/**
 * mlx5c_ib_qp_event() - deliver an asynchronous QP event
 * @dev: device
 * @qpn: QP number from the EQE
 * @type: EQE type
 *
 * Atomic context.
 */
void mlx5c_ib_qp_event(struct mlx5c_ib_dev *dev, u32 qpn, int type)
{
	int ev_type = mlx5c_ib_qp_event_type(type);
	struct mlx5c_ib_qp *qp;
	struct ib_event ev;
	unsigned long flags;

	if (ev_type < 0)
		return;
	xa_lock_irqsave(&dev->qps, flags);
	qp = xa_load(&dev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refcount))
		qp = NULL;
	xa_unlock_irqrestore(&dev->qps, flags);
	if (!qp)
		return;

	/* A DCT's drain ends: its destroy goes on (dc.c). */
	if (type == MLX5_EVENT_TYPE_DCT_DRAINED) {
		if (qp->dc == MLX5C_IB_DCT)
			complete(&qp->dct_drained);
		goto put;
	}
	if (ev_type == IB_EVENT_QP_FATAL || ev_type == IB_EVENT_QP_REQ_ERR ||
	    ev_type == IB_EVENT_QP_ACCESS_ERR)
		dev_warn_ratelimited(&dev->adev->dev, "QP 0x%x: event 0x%x\n",
				     qpn, type);
	if (qp->ibqp.event_handler) {
		ev.device = &dev->ib;
		ev.event = ev_type;
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
put:
	if (refcount_dec_and_test(&qp->refcount))
		complete(&qp->free);
}
