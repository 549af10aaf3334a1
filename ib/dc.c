// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamically Connected transport (DC), as libmlx5's mlx5dv_create_qp()
 * asks for it: a QP of type IB_QPT_DRIVER whose create command carries
 * MLX5_QP_FLAG_TYPE_DCI or MLX5_QP_FLAG_TYPE_DCT.
 *
 * A DC initiator (DCI) is a user QP with a send queue and no receive queue
 * (qp.c creates it, service type DCI); each WQE names its destination (DCT
 * number, access key, address), so it goes INIT, RTR and RTS like an RC QP
 * but without a remote QP. Which attributes each transition takes is the
 * table below.
 *
 * A DC target (DCT) has no queue of its own: it receives into an SRQ and
 * completes into a CQ. The provider creates it, then moves it to INIT
 * (access rights, port, P_Key index) and to RTR (MTU, minimum RNR timer,
 * GRH fields); only then does the firmware get it (CREATE_DCT), and its
 * number goes back in the modify response, which is where libmlx5 reads
 * the QP number of a DCT. Destroying it drains it first (DRAIN_DCT, then
 * the DCT_DRAINED event), as the device requires. An access key violation
 * on an armed DCT reaches the QP's event handler as IB_EVENT_QP_ACCESS_ERR
 * (qp.c); as in the in-tree driver, nothing here arms one.
 */
#include <linux/slab.h>

#include "mlx5_ib.h"

/* How long a DCT may take to drain before it is destroyed all the same. */
#define MLX5C_IB_DCT_DRAIN_MS	10000

/* The attributes a DCT takes, exactly, on its way to RTR. */
#define MLX5C_IB_DCT_INIT	(IB_QP_STATE | IB_QP_ACCESS_FLAGS | \
				 IB_QP_PKEY_INDEX | IB_QP_PORT)
#define MLX5C_IB_DCT_RTR	(IB_QP_STATE | IB_QP_MIN_RNR_TIMER | \
				 IB_QP_AV | IB_QP_PATH_MTU)

/**
 * struct mlx5c_ib_dci_trans - the attributes of one DCI transition
 * @from: current state
 * @to: new state
 * @req: attributes the transition needs
 * @opt: attributes it may take besides
 */
struct mlx5c_ib_dci_trans {
	u8 from;
	u8 to;
	u32 req;
	u32 opt;
};

/*
 * A DCI has no remote QP and no responder (no QKEY, DEST_QPN, RQ_PSN or
 * responder depth); the address vector is a template, each WQE carries its
 * own destination. The moves to RESET and ERR take the state alone.
 */
static const struct mlx5c_ib_dci_trans mlx5c_ib_dci_transitions[] = {
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QP_PKEY_INDEX | IB_QP_PORT, 0 },
	{ IB_QPS_INIT, IB_QPS_INIT, 0, IB_QP_PKEY_INDEX | IB_QP_PORT },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QP_PATH_MTU,
	  IB_QP_PKEY_INDEX | IB_QP_AV },
	{ IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
	  IB_QP_MAX_QP_RD_ATOMIC | IB_QP_SQ_PSN,
	  IB_QP_MIN_RNR_TIMER },
	{ IB_QPS_RTS, IB_QPS_RTS, 0, IB_QP_MIN_RNR_TIMER },
};

/**
 * mlx5c_ib_dci_modify_ok() - whether a DCI may make a transition
 * @cur: current state
 * @new: new state
 * @mask: IB_QP_* attributes given (IB_QP_STATE among them)
 *
 * Return: true if the transition exists for a DCI and @mask holds every
 * attribute it needs and no other.
 */
bool mlx5c_ib_dci_modify_ok(enum ib_qp_state cur, enum ib_qp_state new,
			    int mask)
{
	const struct mlx5c_ib_dci_trans *t;

	if (!(mask & IB_QP_STATE))
		return false;
	mask &= ~IB_QP_STATE;
	if (new == IB_QPS_RESET || (new == IB_QPS_ERR && cur != IB_QPS_RESET))
		return !mask;
	for (t = mlx5c_ib_dci_transitions;
	     t < mlx5c_ib_dci_transitions + ARRAY_SIZE(mlx5c_ib_dci_transitions);
	     t++)
		if (t->from == cur && t->to == new)
			return (mask & t->req) == t->req &&
			       !(mask & ~(t->req | t->opt));
	return false;
}

/**
 * mlx5c_ib_dc_role() - what a QP of type IB_QPT_DRIVER is to be
 * @dev: device
 * @init: creation attributes
 * @udata: the provider's struct mlx5_ib_create_qp
 * @dc: MLX5C_IB_DCI or MLX5C_IB_DCT (out)
 *
 * Return: 0; -EOPNOTSUPP for a kernel QP or a device without DC;
 * -EINVAL unless the create command asks for exactly one of DCI and DCT.
 */
int mlx5c_ib_dc_role(struct mlx5c_ib_dev *dev, struct ib_qp_init_attr *init,
		     struct ib_udata *udata, enum mlx5c_ib_dc *dc)
{
	struct mlx5_ib_create_qp ucmd;
	int err;

	if (!udata || !MLX5C_IB_CAP(dev, dct))
		return -EOPNOTSUPP;
	err = mlx5c_ib_udata_in(udata, &ucmd,
				offsetofend(typeof(ucmd), flags), sizeof(ucmd));
	if (err)
		return err;
	switch (ucmd.flags & (MLX5_QP_FLAG_TYPE_DCI | MLX5_QP_FLAG_TYPE_DCT)) {
	case MLX5_QP_FLAG_TYPE_DCI:
		*dc = MLX5C_IB_DCI;
		return 0;
	case MLX5_QP_FLAG_TYPE_DCT:
		*dc = MLX5C_IB_DCT;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * mlx5c_ib_dci_check() - the parts of a DCI's create command only a DCI has
 * @init: creation attributes
 * @ucmd: the provider's command, its common fields checked already (qp.c)
 *
 * Return: 0, or -EINVAL for a DCI with a receive queue or none to send on.
 */
int mlx5c_ib_dci_check(struct ib_qp_init_attr *init,
		       const struct mlx5_ib_create_qp *ucmd)
{
	if (ucmd->rq_wqe_count || init->cap.max_recv_wr ||
	    init->cap.max_recv_sge)
		return -EINVAL;
	if (!ucmd->sq_wqe_count)
		return -EINVAL;
	return 0;
}

/**
 * mlx5c_ib_create_dct() - a DC target, in software until RTR
 * @dev: device
 * @qp: the QP ib_core allocated (type IB_QPT_DRIVER)
 * @init: creation attributes: the SRQ and the CQ it receives with
 * @udata: struct mlx5_ib_create_qp in (flags, access_key, uidx), struct
 *	mlx5_ib_create_qp_resp out
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_dct(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
			struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct mlx5_ib_create_qp_resp resp = {};
	struct mlx5c_ib_ucontext *ctx;
	struct mlx5_ib_create_qp ucmd;
	int err;

	ctx = rdma_udata_to_drv_context(udata, struct mlx5c_ib_ucontext, ibuc);
	if (!ctx)
		return -EOPNOTSUPP;
	err = mlx5c_ib_udata_in(udata, &ucmd,
				offsetofend(typeof(ucmd), access_key),
				sizeof(ucmd));
	if (err)
		return err;
	/* No scatter to CQE, no ECE, no streams: the device offers none. */
	if (ucmd.flags != MLX5_QP_FLAG_TYPE_DCT || ucmd.ece_options)
		return -EOPNOTSUPP;
	if (ucmd.dci_streams.log_num_concurent ||
	    ucmd.dci_streams.log_num_errored || ucmd.reserved)
		return -EINVAL;
	/* Everything it receives lands in its SRQ and completes in its CQ. */
	if (!init->srq || init->srq->srq_type != IB_SRQT_BASIC ||
	    !init->recv_cq || init->create_flags)
		return -EINVAL;
	err = mlx5c_ib_qp_user_index(ctx, &ucmd, &qp->uidx);
	if (err)
		return err;

	qp->ctx = ctx;
	qp->dc_key = ucmd.access_key;
	mlx5c_ib_qp_init_common(qp, init);
	init_completion(&qp->dct_drained);
	/* Its number exists from RTR on (mlx5c_ib_modify_dct()). */
	qp->ibqp.qp_num = 0;
	err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		mutex_destroy(&qp->mutex);
	return err;
}

/* CREATE_DCT with the attributes of INIT (saved) and of RTR (@attr). */
static int mlx5c_ib_dct_create_cmd(struct mlx5c_ib_dev *dev,
				   struct mlx5c_ib_qp *qp,
				   struct ib_qp_attr *attr)
{
	u32 out[MLX5_ST_SZ_DW(create_dct_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_dct_in)] = {};
	int access = qp->attr.qp_access_flags;
	void *dctc;
	int err;

	MLX5_SET(create_dct_in, in, opcode, MLX5_CMD_OP_CREATE_DCT);
	MLX5_SET(create_dct_in, in, uid, mlx5c_ib_ctx_uid(qp->ctx));
	dctc = MLX5_ADDR_OF(create_dct_in, in, dct_context_entry);
	MLX5_SET(dctc, dctc, pd, to_mpd(qp->ibqp.pd)->pdn);
	MLX5_SET(dctc, dctc, srqn_xrqn, to_msrq(qp->ibqp.srq)->srqn);
	MLX5_SET(dctc, dctc, cqn, to_mcq(qp->ibqp.recv_cq)->mcq.cqn);
	MLX5_SET(dctc, dctc, user_index, qp->uidx);
	MLX5_SET64(dctc, dctc, dc_access_key, qp->dc_key);
	MLX5_SET(dctc, dctc, counter_set_id, dev->q_counter);
	MLX5_SET(dctc, dctc, rre, !!(access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(dctc, dctc, rwe, !!(access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(dctc, dctc, rae, !!(access & IB_ACCESS_REMOTE_ATOMIC));
	MLX5_SET(dctc, dctc, pkey_index, qp->attr.pkey_index);
	MLX5_SET(dctc, dctc, port, qp->port);
	MLX5_SET(dctc, dctc, min_rnr_nak, attr->min_rnr_timer);
	MLX5_SET(dctc, dctc, mtu, attr->path_mtu);
	if (rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH) {
		const struct ib_global_route *grh =
			rdma_ah_read_grh(&attr->ah_attr);

		MLX5_SET(dctc, dctc, my_addr_index, grh->sgid_index);
		MLX5_SET(dctc, dctc, hop_limit, grh->hop_limit);
		MLX5_SET(dctc, dctc, tclass, grh->traffic_class);
		MLX5_SET(dctc, dctc, flow_label, grh->flow_label);
	}
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_DCT, err, NULL, NULL);
	if (!err)
		qp->qpn = MLX5_GET(create_dct_out, out, dctn);
	return err;
}

/* INIT to RTR: the firmware gets the DCT, the provider its number. */
static int mlx5c_ib_dct_rtr(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
			    struct ib_qp_attr *attr, struct ib_udata *udata)
{
	struct mlx5_ib_modify_qp_resp resp = {};
	int err;

	if (!udata || udata->outlen < offsetofend(typeof(resp), dctn))
		return -EINVAL;
	err = mlx5c_ib_dct_create_cmd(dev, qp, attr);
	if (err)
		return err;
	err = xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;
	resp.dctn = qp->qpn;
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));
	err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	qp->ibqp.qp_num = qp->qpn;
	return 0;

err_xa:
	xa_erase_irq(&dev->qps, qp->qpn);
err_destroy:
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_DCT, qp->qpn,
			     mlx5c_ib_ctx_uid(qp->ctx), NULL);
	return err;
}

/**
 * mlx5c_ib_modify_dct() - move a DC target to INIT, then to RTR
 * @qp: the DCT
 * @attr: attributes
 * @mask: exactly those of the transition (MLX5C_IB_DCT_INIT, _RTR)
 * @udata: out: struct mlx5_ib_modify_qp_resp (RTR: the DCT's number)
 *
 * A DCT has no other transition: once in RTR it stays there until it is
 * destroyed.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_modify_dct(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr,
			int mask, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(qp->ibqp.device);
	int err;

	if (!(mask & IB_QP_STATE))
		return -EINVAL;
	mutex_lock(&qp->mutex);
	if (qp->state == IB_QPS_RESET && attr->qp_state == IB_QPS_INIT) {
		err = mask == MLX5C_IB_DCT_INIT ? 0 : -EINVAL;
	} else if (qp->state == IB_QPS_INIT && attr->qp_state == IB_QPS_RTR) {
		err = mask == MLX5C_IB_DCT_RTR ? 0 : -EINVAL;
		/* Only a DCT's own address: it answers whoever asks. */
		if (!err && dev->roce &&
		    !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
			err = -EINVAL;
	} else {
		err = -EINVAL;
	}
	if (!err)
		err = mlx5c_ib_qp_check_attr(dev, qp, attr, mask);
	if (err)
		goto out;
	if (attr->qp_state == IB_QPS_RTR) {
		err = mlx5c_ib_dct_rtr(dev, qp, attr, udata);
		if (err)
			goto out;
	}
	mlx5c_ib_qp_save(qp, attr, mask);
	WRITE_ONCE(qp->state, attr->qp_state);
out:
	mutex_unlock(&qp->mutex);
	return err;
}

/**
 * mlx5c_ib_query_dct() - a created DCT's state and responder attributes as
 *	the firmware holds them
 * @qp: the DCT, in RTR, its mutex held
 * @attr: filled by the caller with what was applied; updated here
 *
 * Return: 0 or the command's negative errno.
 */
int mlx5c_ib_query_dct(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr)
{
	struct mlx5c_ib_dev *dev = to_mdev(qp->ibqp.device);
	int outlen = MLX5_ST_SZ_BYTES(query_dct_out);
	u32 in[MLX5_ST_SZ_DW(query_dct_in)] = {};
	void *out, *dctc;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_dct_in, in, opcode, MLX5_CMD_OP_QUERY_DCT);
	MLX5_SET(query_dct_in, in, dctn, qp->qpn);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, outlen);
	if (err)
		goto out;
	dctc = MLX5_ADDR_OF(query_dct_out, out, dct_context_entry);
	/* Draining or drained: it serves nothing any more. */
	attr->qp_state = MLX5_GET(dctc, dctc, state) == MLX5_DCTC_STATE_ACTIVE ?
			 IB_QPS_RTR : IB_QPS_ERR;
	attr->qp_access_flags =
		(MLX5_GET(dctc, dctc, rre) ? IB_ACCESS_REMOTE_READ : 0) |
		(MLX5_GET(dctc, dctc, rwe) ? IB_ACCESS_REMOTE_WRITE : 0) |
		(MLX5_GET(dctc, dctc, rae) ? IB_ACCESS_REMOTE_ATOMIC : 0);
	attr->min_rnr_timer = MLX5_GET(dctc, dctc, min_rnr_nak);
	attr->path_mtu = MLX5_GET(dctc, dctc, mtu);
	attr->pkey_index = MLX5_GET(dctc, dctc, pkey_index);
out:
	kfree(out);
	return err;
}

/**
 * mlx5c_ib_destroy_dct() - drain and destroy a DC target
 * @qp: the DCT; its software state is the caller's to free
 *
 * The DCT leaves the event table only after its drain completed (the
 * DCT_DRAINED event finds it there). A DCT the firmware does not destroy
 * is kept as an orphan (orphan.c).
 */
void mlx5c_ib_destroy_dct(struct mlx5c_ib_qp *qp)
{
	struct mlx5c_ib_dev *dev = to_mdev(qp->ibqp.device);
	u32 out[MLX5_ST_SZ_DW(drain_dct_out)] = {};
	u32 in[MLX5_ST_SZ_DW(drain_dct_in)] = {};
	u16 uid = mlx5c_ib_ctx_uid(qp->ctx);
	int err;

	if (qp->state != IB_QPS_RTR)
		goto out;
	MLX5_SET(drain_dct_in, in, opcode, MLX5_CMD_OP_DRAIN_DCT);
	MLX5_SET(drain_dct_in, in, uid, uid);
	MLX5_SET(drain_dct_in, in, dctn, qp->qpn);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	/* Named by its ib_device: dc_test.sh finds a drain that failed. */
	if (!err && !wait_for_completion_timeout(&qp->dct_drained,
						 msecs_to_jiffies(MLX5C_IB_DCT_DRAIN_MS)))
		ibdev_warn_ratelimited(&dev->ib,
				       "DCT 0x%x: drain failed (no DCT_DRAINED event), destroyed all the same\n",
				       qp->qpn);
	xa_erase_irq(&dev->qps, qp->qpn);
	if (!refcount_dec_and_test(&qp->refcount))
		wait_for_completion(&qp->free);
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_DCT, qp->qpn, uid, NULL);
out:
	mutex_destroy(&qp->mutex);
}
