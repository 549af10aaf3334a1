// SPDX-License-Identifier: GPL-2.0
/*
 * modify_qp: the QP state machine. ib_core checks that the transition and
 * the attribute mask are legal for the QP type (ib_modify_qp_is_ok());
 * here the attribute values are checked, written into a QP context and
 * sent with the firmware command of the transition, and what was applied
 * is remembered for query_qp (qp.c). The commands and their optional
 * parameters are tables (qp_rules.h).
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "mlx5_ib.h"
#include "qp_rules.h"

#define MLX5C_IB_QP_ATTRS	(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | \
				 IB_QP_PORT | IB_QP_QKEY | IB_QP_AV | \
				 IB_QP_PATH_MTU | IB_QP_TIMEOUT | \
				 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
				 IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | \
				 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | \
				 IB_QP_MAX_DEST_RD_ATOMIC | \
				 IB_QP_PATH_MIG_STATE | IB_QP_DEST_QPN)

/* The access rights a QP grants its peer (the rest are ignored). */
#define MLX5C_IB_QP_REMOTE	(IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

/* The column of mlx5c_qp_transitions[] a QP type reads. */
static enum mlx5c_qp_class mlx5c_ib_qp_class(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_UC:
		return MLX5C_QP_CLASS_UC;
	case IB_QPT_UD:
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		return MLX5C_QP_CLASS_UD;
	default:
		return MLX5C_QP_CLASS_RC;
	}
}

/* The row of mlx5c_qp_transitions[] that carries out a transition, or NULL. */
static const struct mlx5c_qp_trans *
mlx5c_ib_qp_trans_find(enum ib_qp_state cur, enum ib_qp_state new)
{
	const struct mlx5c_qp_trans *t;

	for (t = mlx5c_qp_transitions;
	     t < mlx5c_qp_transitions + ARRAY_SIZE(mlx5c_qp_transitions);
	     t++)
		if ((t->from == cur || t->from == MLX5C_QPS_ANY) && t->to == new)
			return t;
	return NULL;
}

/*
 * ib_core's table of transitions and their attributes, which has no column
 * for the UMR QP (umr_qp.c: it takes only the port on the way to RTS) nor
 * for a DCI (dc.c).
 */
static bool mlx5c_ib_qp_modify_ok(struct mlx5c_ib_qp *qp,
				  enum ib_qp_state cur, enum ib_qp_state new,
				  int mask)
{
	if (qp->ibqp.qp_type == MLX5C_IB_QPT_REG_UMR)
		return true;
	if (qp->dc == MLX5C_IB_DCI)
		return mlx5c_ib_dci_modify_ok(cur, new, mask);
	return ib_modify_qp_is_ok(cur, new, qp->ibqp.qp_type, mask);
}

/* The optional parameters the attributes of @mask set. */
static u32 mlx5c_ib_qp_attr_optpar(int mask)
{
	u32 opt = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mlx5c_qp_attr_optpars); i++)
		if (mask & mlx5c_qp_attr_optpars[i].attr)
			opt |= mlx5c_qp_attr_optpars[i].optpar;
	return opt;
}

/* Attribute values the core does not check. */
int mlx5c_ib_qp_check_attr(struct mlx5c_ib_dev *dev,
			   struct mlx5c_ib_qp *qp,
			   struct ib_qp_attr *attr, int mask)
{
	u32 port = mask & IB_QP_PORT ? attr->port_num : qp->port;
	const struct ib_global_route *grh;

	if (mask & IB_QP_PORT && (port < 1 || port > dev->num_ports))
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX &&
	    attr->pkey_index >= dev->port[max(port, 1U) - 1].pkey_tbl_len)
		return -EINVAL;
	/*
	 * Access flags a QP has no use for (local write, MW bind, FLUSH, ...)
	 * are ignored, as by the in-tree driver: rdma-core users pass their
	 * MR flags here too.
	 */
	if (mask & IB_QP_ACCESS_FLAGS &&
	    attr->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC &&
	    !MLX5C_IB_CAP(dev, atomic))
		return -EOPNOTSUPP;
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > 1U << MLX5C_IB_CAP(dev, log_max_ra_req_qp))
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > 1U << MLX5C_IB_CAP(dev, log_max_ra_res_qp))
		return -EINVAL;
	if (mask & IB_QP_TIMEOUT && attr->timeout > 31)
		return -EINVAL;
	if (mask & IB_QP_RETRY_CNT && attr->retry_cnt > 7)
		return -EINVAL;
	if (mask & IB_QP_RNR_RETRY && attr->rnr_retry > 7)
		return -EINVAL;
	if (mask & IB_QP_MIN_RNR_TIMER && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & IB_QP_RQ_PSN && attr->rq_psn > 0xffffff)
		return -EINVAL;
	if (mask & IB_QP_SQ_PSN && attr->sq_psn > 0xffffff)
		return -EINVAL;
	if (mask & IB_QP_DEST_QPN && attr->dest_qp_num > 0xffffff)
		return -EINVAL;
	if (mask & IB_QP_PATH_MIG_STATE &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EOPNOTSUPP;
	if (mask & IB_QP_AV) {
		struct rdma_ah_attr *ah = &attr->ah_attr;
		u32 ah_port = rdma_ah_get_port_num(ah);

		if (dev->roce ? mlx5c_ib_roce_check_ah(ah) :
				ah->type != RDMA_AH_ATTR_TYPE_IB)
			return -EINVAL;
		if (ah_port < 1 || ah_port > dev->num_ports)
			return -EINVAL;
		if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
			grh = rdma_ah_read_grh(ah);
			if (grh->sgid_index >=
			    dev->port[ah_port - 1].gid_tbl_len)
				return -EINVAL;
		}
	}
	return 0;
}

/*
 * The primary address path; on RoCE with the Ethernet fields (roce.c),
 * whose UDP source port derives from both QP numbers.
 */
static void mlx5c_ib_set_path(struct mlx5c_ib_qp *qp, void *ads,
			      const struct rdma_ah_attr *ah, u32 rqpn)
{
	struct mlx5c_ib_dev *dev = to_mdev(qp->ibqp.device);
	const struct ib_global_route *grh;

	MLX5_SET(ads, ads, vhca_port_num, rdma_ah_get_port_num(ah));
	if (dev->roce) {
		mlx5c_ib_roce_set_path(dev, ads, ah, qp->qpn, rqpn);
	} else {
		MLX5_SET(ads, ads, rlid, rdma_ah_get_dlid(ah));
		MLX5_SET(ads, ads, mlid, rdma_ah_get_path_bits(ah) & 0x7f);
		MLX5_SET(ads, ads, sl, rdma_ah_get_sl(ah) & 0xf);
	}
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		grh = rdma_ah_read_grh(ah);
		MLX5_SET(ads, ads, grh, 1);
		MLX5_SET(ads, ads, src_addr_index, grh->sgid_index);
		MLX5_SET(ads, ads, hop_limit, grh->hop_limit);
		MLX5_SET(ads, ads, tclass, grh->traffic_class);
		MLX5_SET(ads, ads, flow_label, grh->flow_label);
		memcpy(MLX5_ADDR_OF(ads, ads, rgid_rip), grh->dgid.raw,
		       sizeof(grh->dgid.raw));
	}
}

/*
 * The remote access a QP grants: with no responder resources
 * (max_dest_rd_atomic 0) it can serve no READ or atomic, so only remote
 * writes are enabled; query_qp reports the same. Either attribute may come
 * from this modify or from an earlier one.
 */
int mlx5c_ib_qp_access(const struct mlx5c_ib_qp *qp,
		       const struct ib_qp_attr *attr, int mask)
{
	int access = (mask & IB_QP_ACCESS_FLAGS ? attr->qp_access_flags :
						  qp->attr.qp_access_flags) &
		     MLX5C_IB_QP_REMOTE;
	u8 dest = mask & IB_QP_MAX_DEST_RD_ATOMIC ? attr->max_dest_rd_atomic :
						    qp->attr.max_dest_rd_atomic;

	return dest ? access : access & IB_ACCESS_REMOTE_WRITE;
}

/*
 * The QP context fields of a modify command; the optional ones count only
 * with their bits in opt_param_mask (mlx5c_ib_qp_attr_optpar()).
 */
static void mlx5c_ib_qp_fill(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr,
			     int mask, void *qpc)
{
	struct mlx5c_ib_dev *dev = to_mdev(qp->ibqp.device);
	void *path = MLX5_ADDR_OF(qpc, qpc, primary_address_path);

	/* Fields every transition may take: keep them at their real values. */
	MLX5_SET(qpc, qpc, st, mlx5c_ib_qp_hw_st(qp));
	MLX5_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	MLX5_SET(qpc, qpc, log_msg_max, MLX5C_IB_CAP(dev, log_max_msg));

	if (mask & (IB_QP_ACCESS_FLAGS | IB_QP_MAX_DEST_RD_ATOMIC)) {
		int access = mlx5c_ib_qp_access(qp, attr, mask);

		MLX5_SET(qpc, qpc, rre, !!(access & IB_ACCESS_REMOTE_READ));
		MLX5_SET(qpc, qpc, rwe, !!(access & IB_ACCESS_REMOTE_WRITE));
		MLX5_SET(qpc, qpc, rae, !!(access & IB_ACCESS_REMOTE_ATOMIC));
	}
	if (mask & IB_QP_PKEY_INDEX)
		MLX5_SET(ads, path, pkey_index, attr->pkey_index);
	if (mask & IB_QP_AV)
		mlx5c_ib_set_path(qp, path, &attr->ah_attr,
				  mask & IB_QP_DEST_QPN ? attr->dest_qp_num :
							  qp->attr.dest_qp_num);
	/* After the AV: the port of the QP wins over the AV's. */
	if (mask & IB_QP_PORT)
		MLX5_SET(ads, path, vhca_port_num, attr->port_num);
	else if (qp->port)
		MLX5_SET(ads, path, vhca_port_num, qp->port);
	if (mask & IB_QP_QKEY)
		MLX5_SET(qpc, qpc, q_key, attr->qkey);
	if (mask & IB_QP_PATH_MTU)
		MLX5_SET(qpc, qpc, mtu, attr->path_mtu);
	if (mask & IB_QP_TIMEOUT)
		MLX5_SET(ads, path, ack_timeout, attr->timeout);
	if (mask & IB_QP_RETRY_CNT)
		MLX5_SET(qpc, qpc, retry_count, attr->retry_cnt);
	if (mask & IB_QP_RNR_RETRY)
		MLX5_SET(qpc, qpc, rnr_retry, attr->rnr_retry);
	if (mask & IB_QP_RQ_PSN)
		MLX5_SET(qpc, qpc, next_rcv_psn, attr->rq_psn);
	if (mask & IB_QP_SQ_PSN)
		MLX5_SET(qpc, qpc, next_send_psn, attr->sq_psn);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		MLX5_SET(qpc, qpc, log_sra_max,
			 order_base_2(max_t(u8, attr->max_rd_atomic, 1)));
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		MLX5_SET(qpc, qpc, log_rra_max,
			 order_base_2(max_t(u8, attr->max_dest_rd_atomic, 1)));
	if (mask & IB_QP_MIN_RNR_TIMER)
		MLX5_SET(qpc, qpc, min_rnr_nak, attr->min_rnr_timer);
	if (mask & IB_QP_DEST_QPN)
		MLX5_SET(qpc, qpc, remote_qpn, attr->dest_qp_num);
}

static int mlx5c_ib_qp_transition(struct mlx5c_ib_dev *dev,
				  struct mlx5c_ib_qp *qp,
				  const struct mlx5c_qp_trans *t,
				  struct ib_qp_attr *attr, int mask)
{
	u32 out[MLX5_ST_SZ_DW(rst2init_qp_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(rst2init_qp_in);
	void *in, *qpc;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	/* All transitions share the rst2init_qp_in layout up to the QPC. */
	MLX5_SET(rst2init_qp_in, in, opcode, t->opcode);
	MLX5_SET(rst2init_qp_in, in, uid, mlx5c_ib_ctx_uid(qp->ctx));
	MLX5_SET(rst2init_qp_in, in, qpn, qp->qpn);
	if (t->opcode == MLX5_CMD_OP_2RST_QP ||
	    t->opcode == MLX5_CMD_OP_2ERR_QP) {
		inlen = MLX5_ST_SZ_BYTES(qp_2rst_in);
	} else {
		qpc = MLX5_ADDR_OF(rst2init_qp_in, in, qpc);
		mlx5c_ib_qp_fill(qp, attr, mask, qpc);
		/* RST2INIT binds the QP to the counter set (counters.c). */
		if (t->opcode == MLX5_CMD_OP_RST2INIT_QP)
			MLX5_SET(qpc, qpc, counter_set_id, dev->q_counter);
		MLX5_SET(rst2init_qp_in, in, opt_param_mask,
			 mlx5c_ib_qp_attr_optpar(mask) &
			 t->optpar[mlx5c_ib_qp_class(qp->ibqp.qp_type)]);
	}
	err = mlx5c_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kfree(in);
	return err;
}

/* Remember what was applied, for query_qp. */
void mlx5c_ib_qp_save(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr,
		      int mask)
{
	struct ib_qp_attr *s = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		s->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		s->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		qp->port = attr->port_num;
	if (mask & IB_QP_QKEY)
		s->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		s->ah_attr = attr->ah_attr;
		/* The GID attribute reference stays with the caller. */
		s->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		s->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		s->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		s->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		s->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		s->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		s->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		s->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		s->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		s->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_DEST_QPN)
		s->dest_qp_num = attr->dest_qp_num;
}

/**
 * mlx5c_ib_modify_qp() - move a QP through its state machine
 * @ibqp: QP
 * @attr: attributes
 * @mask: IB_QP_* attributes to apply
 * @udata: optional struct mlx5_ib_modify_qp (ECE), which must be empty
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibqp->device);
	struct mlx5c_ib_qp *qp = to_mqp(ibqp);
	const struct mlx5c_qp_trans *t;
	enum ib_qp_state cur, new;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (mask & ~MLX5C_IB_QP_ATTRS)
		return -EOPNOTSUPP;
	if (qp->dc == MLX5C_IB_DCT)
		return mlx5c_ib_modify_dct(qp, attr, mask, udata);

	mutex_lock(&qp->mutex);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (cur > IB_QPS_ERR || new > IB_QPS_ERR ||
	    !mlx5c_ib_qp_modify_ok(qp, cur, new, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = mlx5c_ib_qp_check_attr(dev, qp, attr, mask);
	if (err)
		goto out;
	t = mlx5c_ib_qp_trans_find(cur, new);
	if (!t) {
		err = -EINVAL;
		goto out;
	}
	if (!t->opcode)
		goto done;
	err = mlx5c_ib_qp_transition(dev, qp, t, attr, mask);
	/* A dead device's QPs are in error already (fatal.c). */
	if (err && (new == IB_QPS_ERR || new == IB_QPS_RESET) &&
	    mlx5c_ib_gone(dev, err))
		err = 0;
	if (err)
		goto out;
	if (new == IB_QPS_RESET && qp->kbuf.frags)
		mlx5c_ib_kqp_reset(qp);
done:
	mlx5c_ib_qp_save(qp, attr, mask);
	WRITE_ONCE(qp->state, new);
out:
	mutex_unlock(&qp->mutex);
	return err;
}
