// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows. A window is a KLM memory key created free and
 * UMR-enabled in the window's PD: it grants nothing until a bind, a UMR
 * WQE the mlx5 provider posts on a user QP (ibv_bind_mw for type 1,
 * IBV_WR_BIND_MW for type 2), points its KLM entries into a region of
 * the PD and sets its rights. The device checks the bind (the region's
 * key, PD and rights); a zero-length bind, IBV_WR_LOCAL_INV or the peer's
 * SEND_WITH_INV (type 2 only: en_rinval) make the key free again. The
 * driver only creates and destroys the key.
 */
#include "mlx5_ib.h"

/* A bind names one region; room for a few KLM entries, in 64-byte units. */
#define MLX5C_IB_MW_KLMS_DEFAULT	4
#define MLX5C_IB_MW_KLM_ALIGN		4

/**
 * mlx5c_ib_mw_supported() - the device binds memory windows
 * @dev: device
 *
 * Windows are KLM keys that user QPs change by UMR: the device must do
 * UMR and let KLM keys be bound from user QPs (imaicl).
 *
 * Return: true when alloc_mw is offered.
 */
bool mlx5c_ib_mw_supported(struct mlx5c_ib_dev *dev)
{
	return mlx5c_ib_umr_supported(dev) && MLX5C_IB_CAP(dev, imaicl);
}

/*
 * struct mlx5_ib_alloc_mw: num_klms sizes the key's translation room, no
 * more than the device's longest KLM list (log_max_klm_list_size).
 */
static int mlx5c_ib_mw_klms(struct mlx5c_ib_dev *dev, struct ib_udata *udata,
			    u32 *nklm)
{
	struct mlx5_ib_alloc_mw req;
	int err;

	*nklm = MLX5C_IB_MW_KLMS_DEFAULT;
	/* The mlx5 provider sends no driver data. */
	if (!udata || !udata->inlen)
		return 0;
	err = mlx5c_ib_udata_in(udata, &req, 0, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;
	if (!req.num_klms)
		return 0;
	if (ALIGN((u64)req.num_klms, MLX5C_IB_MW_KLM_ALIGN) >
	    BIT_ULL(MLX5C_IB_CAP(dev, log_max_klm_list_size)))
		return -EINVAL;
	*nklm = ALIGN(req.num_klms, MLX5C_IB_MW_KLM_ALIGN);
	return 0;
}

/**
 * mlx5c_ib_alloc_mw() - allocate a memory window
 * @ibmw: window; ib_core set its PD and type
 * @udata: optional struct mlx5_ib_alloc_mw
 *
 * Return: 0, -EOPNOTSUPP (no window support, unknown request fields),
 * -EINVAL, or the command's error.
 */
int mlx5c_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibmw->device);
	struct mlx5c_ib_mw *mw = to_mmw(ibmw);
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	u32 nklm;
	int err;

	if (!mlx5c_ib_mw_supported(dev))
		return -EOPNOTSUPP;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	err = mlx5c_ib_mw_klms(dev, udata, &nklm);
	if (err)
		return err;

	mw->uid = to_mpd(ibmw->pd)->uid;
	MLX5_SET(create_mkey_in, in, uid, mw->uid);
	mlx5c_mkc_fill(mkc, MLX5_MKC_ACCESS_MODE_KLMS, 0, to_mpd(ibmw->pd)->pdn,
		       mlx5c_ib_mkey_variant(dev), 0, 0);
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, umr_en, 1);
	/* Only a type 2 window may be invalidated by the peer. */
	MLX5_SET(mkc, mkc, en_rinval, ibmw->type == IB_MW_TYPE_2);
	/* A KLM entry is one 16-byte unit. */
	MLX5_SET(mkc, mkc, translations_octword_size, nklm);
	err = mlx5c_mkey_create(dev->mdev, in, sizeof(in), &mw->mkey);
	if (err)
		return err;
	ibmw->rkey = mw->mkey;
	return 0;
}

/**
 * mlx5c_ib_dealloc_mw() - free a memory window
 * @ibmw: window, bound or not
 *
 * Return: 0; a key the firmware refuses to destroy is kept as an orphan.
 */
int mlx5c_ib_dealloc_mw(struct ib_mw *ibmw)
{
	struct mlx5c_ib_mw *mw = to_mmw(ibmw);

	mlx5c_ib_destroy_obj(to_mdev(ibmw->device), MLX5C_IB_OBJ_MKEY, mw->mkey,
			     mw->uid, NULL);
	return 0;
}
