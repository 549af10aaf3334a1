// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains.
 */
#include "mlx5_ib.h"

/**
 * mlx5c_ib_alloc_pd() - allocate a protection domain
 * @ibpd: PD allocated by ib_core
 * @udata: no request; struct mlx5_ib_alloc_pd_resp out (user PDs)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibpd->device);
	struct mlx5c_ib_pd *pd = to_mpd(ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	pd->uid = mlx5c_ib_udata_uid(udata);
	err = mlx5c_pd_alloc(dev->mdev, pd->uid, &pd->pdn);
	if (err)
		return err;
	if (udata) {
		struct mlx5c_ib_ucontext *ctx = rdma_udata_to_drv_context(
			udata, struct mlx5c_ib_ucontext, ibuc);

		resp.pdn = pd->pdn;
		err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
		if (!err) {
			mutex_lock(&ctx->lock);
			err = xa_insert(&ctx->pds, pd->pdn, pd, GFP_KERNEL);
			mutex_unlock(&ctx->lock);
		}
		if (err) {
			mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_PD, pd->pdn,
					     pd->uid, NULL);
			return err;
		}
	}
	return 0;
}

/**
 * mlx5c_ib_dealloc_pd() - free a protection domain
 * @ibpd: PD
 * @udata: the process's (user PDs)
 *
 * Return: 0, or -EBUSY while DEVX keys of the process name the PD (uverbs
 * destroys those first when the process goes); a PD the firmware refuses
 * to free is kept as an orphan, and so is one that a DEVX key the firmware
 * would not destroy still names (freeing it would leave the key naming a
 * PD that no longer exists): its DEALLOC_PD is sent at removal, after the
 * key's.
 */
int mlx5c_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibpd->device);
	struct mlx5c_ib_pd *pd = to_mpd(ibpd);
	bool keep = false;

	if (udata) {
		struct mlx5c_ib_ucontext *ctx = rdma_udata_to_drv_context(
			udata, struct mlx5c_ib_ucontext, ibuc);

		mutex_lock(&ctx->lock);
		if (pd->devx_users) {
			mutex_unlock(&ctx->lock);
			return -EBUSY;
		}
		keep = pd->devx_orphans;
		xa_erase(&ctx->pds, pd->pdn);
		mutex_unlock(&ctx->lock);
	}
	if (keep)
		mlx5c_ib_orphan(dev, MLX5C_IB_OBJ_PD, pd->pdn, pd->uid, NULL,
				-EBUSY);
	else
		mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_PD, pd->pdn, pd->uid,
				     NULL);
	return 0;
}
