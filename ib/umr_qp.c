// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's UMR QP: a kernel send queue of service type REG_UMR, the
 * only kind of QP the device lets change a memory key of any PD (a
 * consumer's QP changes keys of its own PD, a process's QP only indirect
 * keys). rereg_user_mr uses it to change the rights and PD of a user MR
 * in place, so that the key a peer already holds stays valid, as on the
 * in-tree driver. One WQE at a time, posted and waited for under a mutex.
 * Created once the device is registered (ib_core's QP security needs the
 * ports), before any process can ask for it, and destroyed with the
 * device; a device that cannot make it still works, making a new key per
 * rereg.
 */
#include <linux/slab.h>

#include "mlx5_ib.h"

/*
 * How long a change may take. A device that fails meanwhile flushes the
 * QP (fatal.c), so the wait ends long before this unless a completion is
 * lost; then the QP is given up (@broken) rather than reused blindly.
 */
#define MLX5C_IB_UMR_TIMEOUT	(30 * HZ)

/*
 * One change in flight: shared by the waiter and the completion handler,
 * which may run after a timed-out waiter left; the last one frees it.
 */
struct mlx5c_ib_umr_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	refcount_t ref;
};

static void mlx5c_ib_umr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mlx5c_ib_umr_wait *w =
		container_of(wc->wr_cqe, struct mlx5c_ib_umr_wait, cqe);

	w->status = wc->status;
	complete(&w->done);
	if (refcount_dec_and_test(&w->ref))
		kfree(w);
}

/* RESET -> INIT -> RTR -> RTS; from any state when @reset. */
static int mlx5c_ib_umr_qp_up(struct ib_qp *qp, bool reset)
{
	struct ib_qp_attr attr = {};
	int err;

	if (reset) {
		attr.qp_state = IB_QPS_RESET;
		err = ib_modify_qp(qp, &attr, IB_QP_STATE);
		if (err)
			return err;
	}
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PORT |
			   IB_QP_PKEY_INDEX | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* Under umr.lock: the QP, unless made already or given up. */
static int mlx5c_ib_umr_create(struct mlx5c_ib_dev *dev)
{
	struct mlx5c_ib_umr_res *u = &dev->umr;
	struct ib_qp_init_attr init = {
		.qp_type = MLX5C_IB_QPT_REG_UMR,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap.max_send_wr = 4,
		.cap.max_send_sge = 1,
	};
	int err;

	if (u->qp)
		return 0;
	if (u->broken)
		return -EOPNOTSUPP;
	u->pd = ib_alloc_pd(&dev->ib, 0);
	if (IS_ERR(u->pd)) {
		err = PTR_ERR(u->pd);
		goto err;
	}
	u->cq = ib_alloc_cq(&dev->ib, NULL, 8, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(u->cq)) {
		err = PTR_ERR(u->cq);
		goto err_pd;
	}
	init.send_cq = u->cq;
	init.recv_cq = u->cq;
	u->qp = ib_create_qp(u->pd, &init);
	if (IS_ERR(u->qp)) {
		err = PTR_ERR(u->qp);
		goto err_cq;
	}
	err = mlx5c_ib_umr_qp_up(u->qp, false);
	if (err)
		goto err_qp;
	return 0;

err_qp:
	ib_destroy_qp(u->qp);
err_cq:
	ib_free_cq(u->cq);
err_pd:
	ib_dealloc_pd(u->pd);
err:
	u->qp = NULL;
	/* Not tried again: every rereg would pay for the failed commands. */
	u->broken = true;
	dev_warn(&dev->adev->dev, "no UMR QP (%d): rereg makes new keys\n", err);
	return err;
}

/* Under umr.lock: post one WQE and wait for its completion. */
static int mlx5c_ib_umr_post_wait(struct mlx5c_ib_dev *dev,
				  struct ib_send_wr *wr)
{
	struct mlx5c_ib_umr_res *u = &dev->umr;
	const struct ib_send_wr *bad;
	struct mlx5c_ib_umr_wait *w;
	int err;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->cqe.done = mlx5c_ib_umr_done;
	init_completion(&w->done);
	refcount_set(&w->ref, 2);
	wr->wr_cqe = &w->cqe;
	wr->send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(u->qp, wr, &bad);
	if (err) {
		kfree(w);
		return err;
	}
	if (!wait_for_completion_timeout(&w->done, MLX5C_IB_UMR_TIMEOUT)) {
		/* The handler frees @w if the completion ever comes. */
		u->broken = true;
		dev_err(&dev->adev->dev,
			"UMR QP 0x%x: no completion in %u s: given up\n",
			u->qp->qp_num, MLX5C_IB_UMR_TIMEOUT / HZ);
		if (refcount_dec_and_test(&w->ref))
			kfree(w);
		return -ETIMEDOUT;
	}
	err = 0;
	if (w->status != IB_WC_SUCCESS) {
		err = mlx5c_ib_dead(dev) ? -EIO : -EINVAL;
		/* An error completion left the QP in error: bring it back. */
		if (!mlx5c_ib_dead(dev) && mlx5c_ib_umr_qp_up(u->qp, true)) {
			u->broken = true;
			dev_err(&dev->adev->dev,
				"UMR QP 0x%x did not recover: given up\n",
				u->qp->qp_num);
		}
	}
	if (refcount_dec_and_test(&w->ref))
		kfree(w);
	return err;
}

/**
 * mlx5c_ib_umr_rereg() - change the rights and PD of a user MR's key in place
 * @dev: device
 * @mr: a user MR whose key was created UMR-enabled
 * @pd: its new PD (the current one if unchanged)
 * @access: its new IB_ACCESS_* rights
 *
 * The key and its translation stay; a peer's rkey keeps working with the
 * new rights. On success @mr->access is updated; ib_core moves the MR to
 * @pd.
 *
 * Return: 0; -EOPNOTSUPP when the device cannot change the key in place
 * (no UMR, rights it cannot change by UMR, no UMR QP): the caller makes a
 * new key instead; another negative errno when the change failed (the
 * key's rights are then unknown only after -ETIMEDOUT).
 */
int mlx5c_ib_umr_rereg(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mr *mr,
		       struct ib_pd *pd, int access)
{
	struct mlx5c_ib_umr_rereg_wr wr = {
		.wr.opcode = MLX5C_IB_WR_UMR_REREG,
		.mkey = mr->mkey,
		.pdn = to_mpd(pd)->pdn,
		.access = access,
	};
	struct mlx5c_ib_umr_res *u = &dev->umr;
	int err;

	if (!mr->umr_en || !mlx5c_ib_umr_supported(dev))
		return -EOPNOTSUPP;
	if ((access ^ mr->access) & IB_ACCESS_REMOTE_ATOMIC &&
	    MLX5C_IB_CAP(dev, umr_modify_atomic_disabled))
		return -EOPNOTSUPP;
	if (mlx5c_ib_dead(dev))
		return -EIO;
	mutex_lock(&u->lock);
	if (u->broken || !u->qp) {
		err = -EOPNOTSUPP;
		goto out;
	}
	err = mlx5c_ib_umr_post_wait(dev, &wr.wr);
	if (!err)
		mr->access = access;
out:
	mutex_unlock(&u->lock);
	return err;
}

/**
 * mlx5c_ib_umr_init() - the UMR QP's lock, before the device is registered
 * @dev: device
 */
void mlx5c_ib_umr_init(struct mlx5c_ib_dev *dev)
{
	mutex_init(&dev->umr.lock);
}

/**
 * mlx5c_ib_umr_start() - make the UMR QP, once the device is registered
 * @dev: device
 *
 * A failure is logged and leaves rereg to make new keys.
 */
void mlx5c_ib_umr_start(struct mlx5c_ib_dev *dev)
{
	if (!mlx5c_ib_umr_supported(dev))
		return;
	mutex_lock(&dev->umr.lock);
	mlx5c_ib_umr_create(dev);
	mutex_unlock(&dev->umr.lock);
}

/**
 * mlx5c_ib_umr_cleanup() - destroy the UMR QP, if it was made
 * @dev: device, unregistered (no rereg can run any more)
 */
void mlx5c_ib_umr_cleanup(struct mlx5c_ib_dev *dev)
{
	struct mlx5c_ib_umr_res *u = &dev->umr;

	if (!u->qp)
		return;
	ib_destroy_qp(u->qp);
	ib_free_cq(u->cq);
	ib_dealloc_pd(u->pd);
	u->qp = NULL;
}
