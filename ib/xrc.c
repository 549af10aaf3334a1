// SPDX-License-Identifier: GPL-2.0
/*
 * XRC (eXtended Reliable Connected transport): domains, and the two QP
 * halves. An initiator QP (IB_QPT_XRC_INI) is a user QP with a send queue
 * only; each of its WQEs names the remote XRC SRQ to receive into. A target
 * QP (IB_QPT_XRC_TGT) has no queue of its own: ib_core creates it on an
 * XRC domain, other processes open it by number, and the device receives
 * what it is sent into the XRC SRQ (srq.c) of that domain the request names,
 * completing on that SRQ's CQ with its PD's keys. So the kernel builds the
 * target with no send queue, no ring and no PD or CQ, and it outlives the
 * user context that asked for it.
 *
 * The device wants an initiator to name a domain as well, although it
 * receives nothing: the driver keeps one spare domain for all of them.
 */
#include "mlx5_ib.h"

static int mlx5c_ib_xrcd_cmd(struct mlx5c_ib_dev *dev, u16 uid, u32 *xrcdn)
{
	u32 out[MLX5_ST_SZ_DW(alloc_xrcd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_xrcd_in)] = {};
	int err;

	MLX5_SET(alloc_xrcd_in, in, opcode, MLX5_CMD_OP_ALLOC_XRCD);
	MLX5_SET(alloc_xrcd_in, in, uid, uid);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*xrcdn = MLX5_GET(alloc_xrcd_out, out, xrcd);
	return err;
}

/**
 * mlx5c_ib_alloc_xrcd() - allocate an XRC domain
 * @ibxrcd: XRCD allocated by ib_core
 * @udata: no driver data either way
 *
 * Return: 0, -EOPNOTSUPP without the xrc capability, or the command's error.
 */
int mlx5c_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibxrcd->device);

	if (!MLX5C_IB_CAP(dev, xrc))
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	to_mxrcd(ibxrcd)->uid = mlx5c_ib_udata_uid(udata);
	return mlx5c_ib_xrcd_cmd(dev, to_mxrcd(ibxrcd)->uid,
				 &to_mxrcd(ibxrcd)->xrcdn);
}

/**
 * mlx5c_ib_dealloc_xrcd() - free an XRC domain
 * @ibxrcd: XRCD; ib_core destroyed its target QPs before
 * @udata: unused
 *
 * Return: 0; a domain the firmware refuses to free is kept as an orphan.
 */
int mlx5c_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	mlx5c_ib_destroy_obj(to_mdev(ibxrcd->device), MLX5C_IB_OBJ_XRCD,
			     to_mxrcd(ibxrcd)->xrcdn, to_mxrcd(ibxrcd)->uid, NULL);
	return 0;
}

/**
 * mlx5c_ib_xrc_init() - allocate the domain initiator QPs name
 * @dev: device
 *
 * A device without XRC, or whose ALLOC_XRCD fails, has no initiators.
 */
void mlx5c_ib_xrc_init(struct mlx5c_ib_dev *dev)
{
	int err;

	if (!MLX5C_IB_CAP(dev, xrc))
		return;
	err = mlx5c_ib_xrcd_cmd(dev, 0, &dev->xrcdn_ini);
	if (err) {
		dev_warn(&dev->adev->dev,
			 "no XRC domain for initiator QPs: %d\n", err);
		return;
	}
	dev->has_xrcd_ini = true;
}

/**
 * mlx5c_ib_xrc_cleanup() - free the initiators' domain
 * @dev: device; no initiator QP is left
 */
void mlx5c_ib_xrc_cleanup(struct mlx5c_ib_dev *dev)
{
	if (!dev->has_xrcd_ini)
		return;
	dev->has_xrcd_ini = false;
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_XRCD, dev->xrcdn_ini, 0, NULL);
}

/**
 * mlx5c_ib_create_xrc_tgt_qp() - create an XRC target QP
 * @dev: device
 * @qp: QP allocated by ib_core; ibqp.xrcd is not set yet
 * @init: creation attributes (xrcd; no CQs, SRQ or capabilities)
 * @udata: struct mlx5_ib_create_qp in, whole or in part (only uidx
 *	counts: the target has no ring), struct mlx5_ib_create_qp_resp out;
 *	NULL from the kernel
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_xrc_tgt_qp(struct mlx5c_ib_dev *dev,
			       struct mlx5c_ib_qp *qp,
			       struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5c_ib_ucontext *ctx = NULL;
	struct mlx5_ib_create_qp ucmd;
	void *in, *qpc;
	int err;

	if (!init->xrcd || init->create_flags || init->srq)
		return -EINVAL;
	qp->uidx = MLX5C_IB_DEFAULT_UIDX;
	if (udata) {
		ctx = rdma_udata_to_drv_context(udata,
						struct mlx5c_ib_ucontext, ibuc);
		if (!ctx)
			return -EOPNOTSUPP;
		/* The provider may send the request of a QP with rings. */
		err = mlx5c_ib_udata_in(udata, &ucmd, 0, sizeof(ucmd));
		if (err)
			return err;
		if (ctx->cqe_version) {
			if (ucmd.uidx > MLX5C_IB_DEFAULT_UIDX)
				return -EINVAL;
			qp->uidx = ucmd.uidx;
		}
	}

	in = kvzalloc(MLX5_ST_SZ_BYTES(create_qp_in), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	MLX5_SET(qpc, qpc, st, MLX5_QPC_ST_XRC);
	MLX5_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	MLX5_SET(qpc, qpc, xrcd, to_mxrcd(init->xrcd)->xrcdn);
	MLX5_SET(qpc, qpc, log_msg_max, MLX5C_IB_CAP(dev, log_max_msg));
	MLX5_SET(qpc, qpc, user_index, qp->uidx);
	/* Received into the XRC SRQ each request names. */
	MLX5_SET(qpc, qpc, rq_type, MLX5C_QP_RQ_SRQ);
	MLX5_SET(qpc, qpc, no_sq, 1);
	err = mlx5c_cmd_exec(dev->mdev, in, MLX5_ST_SZ_BYTES(create_qp_in),
			     out, sizeof(out));
	kvfree(in);
	if (err)
		return err;
	qp->qpn = MLX5_GET(create_qp_out, out, qpn);
	qp->ibqp.qp_num = qp->qpn;
	qp->xrc_tgt = true;
	/* Not the context's: the target lives as long as its domain. */
	qp->ctx = NULL;
	mlx5c_ib_qp_init_common(qp, init);
	err = xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;
	if (udata) {
		err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase_irq(&dev->qps, qp->qpn);
err_destroy:
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_QP, qp->qpn, 0, NULL);
	mutex_destroy(&qp->mutex);
	return err;
}
