// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-BUF memory regions: the pages of another device's buffer (or
 * udmabuf's) behind an MTT memory key.
 *
 * By default the buffer is pinned and mapped for as long as the MR lives
 * (ib_umem_dmabuf_get_pinned()): the exporter cannot move it, so the key's
 * MTT list never goes stale.
 *
 * With dmabuf_movable=1 the buffer is attached without pinning, as a
 * dynamic importer, so that its exporter may move it. This driver has no
 * on-demand paging to re-map the region on its next use (the in-tree
 * mlx5_ib re-maps through ODP page faults), so a move invalidates the MR:
 * the importer callback, called by the exporter under the buffer's
 * reservation lock before it moves the pages, destroys the memory key (the
 * device's accesses end with the command) and unmaps the pages. Every
 * later access through the key fails (remote access error at the peer,
 * local protection error here); the MR still has to be deregistered, and
 * a new registration maps the buffer where it is then.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <rdma/ib_umem.h>

#include "mlx5_ib.h"

static bool mlx5c_ib_dmabuf_movable;
module_param_named(dmabuf_movable, mlx5c_ib_dmabuf_movable, bool, 0644);
MODULE_PARM_DESC(dmabuf_movable,
		 "attach DMA-BUFs without pinning them: a move of the buffer invalidates the MR (its key is destroyed) instead of being refused to the exporter");

/* The exporter moves the buffer: the key goes, then the mapping. */
static void mlx5c_ib_dmabuf_invalidate(struct dma_buf_attachment *attach)
{
	struct ib_umem_dmabuf *umem = attach->importer_priv;
	struct mlx5c_ib_mr *mr = umem->private;
	struct mlx5c_ib_dev *dev = to_mdev(umem->umem.ibdev);
	int err;

	dma_resv_assert_held(attach->dmabuf->resv);
	/* Not registered yet, deregistered, or moved before. */
	if (!mr || mr->invalidated)
		return;
	err = mlx5c_ib_destroy_cmd(dev, MLX5C_IB_OBJ_MKEY, mr->mkey, mr->uid);
	if (err && !mlx5c_ib_gone(dev, err)) {
		/* The device may still access the pages: keep them mapped. */
		dev_warn(&dev->adev->dev,
			 "memory key 0x%x of a moving DMA-BUF not destroyed (%d): its pages stay mapped until it is deregistered\n",
			 mr->mkey, err);
		return;
	}
	mr->invalidated = true;
	ib_umem_dmabuf_unmap_pages(umem);
}

static const struct dma_buf_attach_ops mlx5c_ib_dmabuf_attach_ops = {
	.allow_peer2peer = true,
	.MLX5C_DMABUF_MOVE_OP = mlx5c_ib_dmabuf_invalidate,
};

static struct mlx5c_ib_mr *mlx5c_ib_dmabuf_mr_movable(struct ib_pd *pd,
						      u64 offset, u64 length,
						      u64 iova, int fd,
						      int access)
{
	struct ib_umem_dmabuf *umem;
	struct mlx5c_ib_mr *mr;
	struct dma_resv *resv;
	int err;

	umem = ib_umem_dmabuf_get(pd->device, offset, length, fd, access,
				  &mlx5c_ib_dmabuf_attach_ops);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	resv = umem->attach->dmabuf->resv;
	/* No move between mapping the pages and owning the key. */
	dma_resv_lock(resv, NULL);
	err = ib_umem_dmabuf_map_pages(umem);
	if (err)
		goto err_unlock;
	mr = mlx5c_ib_user_mr(pd, &umem->umem, iova, length, access);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		goto err_unlock;
	}
	mr->movable = true;
	umem->private = mr;
	dma_resv_unlock(resv);
	return mr;

err_unlock:
	dma_resv_unlock(resv);
	ib_umem_release(&umem->umem);
	return ERR_PTR(err);
}

/**
 * mlx5c_ib_dmabuf_mr_stop() - destroy the key of a movable DMA-BUF MR
 * @dev: device
 * @mr: the MR, being deregistered
 *
 * Under the buffer's reservation lock, so that no move runs meanwhile:
 * the key is destroyed unless a move did it, the pages are unmapped, and
 * the callback forgets the MR. When the firmware refuses the destroy, the
 * pages stay mapped with the orphaned key (mlx5c_ib_destroy_obj() takes
 * @mr->umem over).
 */
void mlx5c_ib_dmabuf_mr_stop(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mr *mr)
{
	struct ib_umem_dmabuf *umem = to_ib_umem_dmabuf(mr->umem);
	struct dma_resv *resv = umem->attach->dmabuf->resv;

	dma_resv_lock(resv, NULL);
	if (!mr->invalidated)
		mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_MKEY, mr->mkey, mr->uid,
				     &mr->umem);
	if (mr->umem)
		ib_umem_dmabuf_unmap_pages(umem);
	umem->private = NULL;
	dma_resv_unlock(resv);
}

/**
 * mlx5c_ib_reg_user_mr_dmabuf() - register the pages of a DMA-BUF
 * @pd: protection domain
 * @offset: first byte in the buffer
 * @length: bytes
 * @iova: address the region is accessed at by the device
 * @fd: the DMA-BUF's file
 * @access: IB_ACCESS_* flags
 * @udata: no driver data is defined
 *
 * Pinned, or movable with dmabuf_movable=1 (see the top of this file).
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *mlx5c_ib_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset,
					  u64 length, u64 iova, int fd,
					  int access, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(pd->device);
	struct ib_umem_dmabuf *umem;
	struct mlx5c_ib_mr *mr;
	int err;

	err = mlx5c_ib_check_user_mr(dev, offset, length, iova, access);
	if (err)
		return ERR_PTR(err);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);

	if (READ_ONCE(mlx5c_ib_dmabuf_movable)) {
		mr = mlx5c_ib_dmabuf_mr_movable(pd, offset, length, iova, fd,
						access);
		return IS_ERR(mr) ? ERR_CAST(mr) : &mr->ibmr;
	}
	umem = ib_umem_dmabuf_get_pinned(pd->device, offset, length, fd,
					 access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = mlx5c_ib_user_mr(pd, &umem->umem, iova, length, access);
	if (IS_ERR(mr)) {
		ib_umem_release(&umem->umem);
		return ERR_CAST(mr);
	}
	return &mr->ibmr;
}
