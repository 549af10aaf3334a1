// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: pinned user memory behind an MTT memory key (DMA-BUF
 * pages: dmabuf_mr.c).
 */
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

/* IB_ACCESS_HUGETLB is a hint with no effect, as in the in-tree driver. */
#define MLX5C_IB_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND | IB_ZERO_BASED | \
				 IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)
/*
 * The whole MTT list goes into CREATE_MKEY, so the longest command bounds
 * the MR size: a region of MLX5C_IB_MR_MAX_SIZE bytes in 4 KiB pages, at
 * any offset, needs MLX5C_IB_MR_MAX_MTT entries (8 MiB of command).
 * Larger pages (ib_umem_find_best_pgsz()) make the list shorter.
 */
#define MLX5C_IB_MR_MAX_MTT	(MLX5C_IB_MR_MAX_SIZE / MLX5_ADAPTER_PAGE_SIZE + 1)
static_assert(MLX5_ST_SZ_BYTES(create_mkey_in) +
	      DIV_ROUND_UP(MLX5C_IB_MR_MAX_MTT, 2) * 16 <= MLX5C_CMD_MAX_MSG_LEN);

/**
 * mlx5c_ib_mkey_variant() - the low byte of the next memory key
 * @dev: device
 *
 * Return: 1..255, in turn, so that a reused index gives another key.
 */
u8 mlx5c_ib_mkey_variant(struct mlx5c_ib_dev *dev)
{
	/* Never 0: index 1 with variant 0 would be the reserved lkey 0x100. */
	return (u32)atomic_inc_return(&dev->mkey_variant) % 255 + 1;
}

static int mlx5c_ib_create_mkey(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mr *mr,
				struct mlx5c_ib_pd *pd, u64 iova, u64 length, int access,
				unsigned long pgsz)
{
	size_t nmtt = ib_umem_num_dma_blocks(mr->umem, pgsz);
	u32 octw = DIV_ROUND_UP(nmtt, 2);
	void *in, *mkc;
	int inlen, err;

	if (nmtt > MLX5C_IB_MR_MAX_MTT)
		return -EINVAL;
	inlen = MLX5_ST_SZ_BYTES(create_mkey_in) + octw * 16;
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	/* A key carries the uid of its PD, to its destroy. */
	mr->uid = pd->uid;
	MLX5_SET(create_mkey_in, in, uid, mr->uid);
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	mlx5c_mkc_fill(mkc, MLX5_MKC_ACCESS_MODE_MTT, mlx5c_ib_mkc_rights(access), pd->pdn,
		       mlx5c_ib_mkey_variant(dev), iova, length);
	MLX5_SET(mkc, mkc, translations_octword_size, octw);
	MLX5_SET(mkc, mkc, log_page_size, order_base_2(pgsz));
	/*
	 * Changed in place by the driver's UMR QP only (rereg, umr_qp.c):
	 * the device lets no QP of a process change a direct key.
	 */
	mr->umr_en = mlx5c_ib_umr_supported(dev);
	MLX5_SET(mkc, mkc, umr_en, mr->umr_en);
	MLX5_SET(create_mkey_in, in, translations_octword_actual_size, octw);
	mlx5c_ib_fill_pas(mr->umem, pgsz,
			  MLX5_ADDR_OF(create_mkey_in, in, klm_pas_mtt), 0);

	err = mlx5c_mkey_create(dev->mdev, in, inlen, &mr->mkey);
	mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_MKEY, err, mr->umem, NULL);
	kvfree(in);
	return err;
}

/**
 * mlx5c_ib_max_mr_size() - the max_mr_size the device advertises
 * @dev: IB device
 *
 * Return: the smaller of the device's MKey length limit and the length
 * whose MTT list fits one command.
 */
u64 mlx5c_ib_max_mr_size(struct mlx5c_ib_dev *dev)
{
	u8 log = min_t(u8, MLX5C_IB_CAP(dev, log_max_mrw_sz), 63);

	return min_t(u64, 1ULL << log, MLX5C_IB_MR_MAX_SIZE);
}

/**
 * mlx5c_ib_check_user_mr() - the checks every user MR registration makes
 * @dev: device
 * @start: first byte (user address or offset in a DMA-BUF)
 * @length: bytes
 * @iova: address the device accesses the region at
 * @access: IB_ACCESS_* flags
 *
 * Return: 0, -EOPNOTSUPP for unknown or unsupported access flags, -EINVAL
 * for a length the device cannot map or an address range that wraps.
 */
int mlx5c_ib_check_user_mr(struct mlx5c_ib_dev *dev, u64 start, u64 length,
			   u64 iova, int access)
{
	if (access & ~MLX5C_IB_MR_ACCESS)
		return -EOPNOTSUPP;
	if ((access & IB_ACCESS_REMOTE_ATOMIC) && !MLX5C_IB_CAP(dev, atomic))
		return -EOPNOTSUPP;
	if (!length || length > mlx5c_ib_max_mr_size(dev) ||
	    start + length < start || iova + length < iova)
		return -EINVAL;
	return 0;
}

/**
 * mlx5c_ib_user_mr() - a user MR over mapped memory
 * @pd: protection domain
 * @umem: the memory, pinned (or a DMA-BUF's, mapped); owned by the MR on
 *	success
 * @iova: address the device accesses the region at
 * @length: bytes
 * @access: IB_ACCESS_* flags
 *
 * Return: the MR, its MTT memory key created, or an ERR_PTR().
 */
struct mlx5c_ib_mr *mlx5c_ib_user_mr(struct ib_pd *pd, struct ib_umem *umem,
				     u64 iova, u64 length, int access)
{
	struct mlx5c_ib_dev *dev = to_mdev(pd->device);
	struct mlx5c_ib_mr *mr;
	unsigned long pgsz;
	int err;

	pgsz = ib_umem_find_best_pgsz(umem, MLX5C_IB_PGSZ_BITMAP, iova);
	if (!pgsz)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = umem;
	err = mlx5c_ib_create_mkey(dev, mr, to_mpd(pd), iova, length,
				   access, pgsz);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->access = access;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = pgsz;
	return mr;
}

/**
 * mlx5c_ib_reg_user_mr() - register user memory
 * @pd: protection domain
 * @start: user virtual address
 * @length: bytes
 * @iova: address the region is accessed at by the device
 * @access: IB_ACCESS_* flags
 * @udata: no driver data is defined
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *mlx5c_ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				   u64 iova, int access, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(pd->device);
	struct mlx5c_ib_mr *mr;
	struct ib_umem *umem;
	int err;

	err = mlx5c_ib_check_user_mr(dev, start, length, iova, access);
	if (err)
		return ERR_PTR(err);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);

	umem = mlx5c_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = mlx5c_ib_user_mr(pd, umem, iova, length, access);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	return &mr->ibmr;
}

/**
 * mlx5c_ib_rereg_user_mr() - change a user MR's translation, PD or access
 * @ibmr: MR from mlx5c_ib_reg_user_mr()
 * @flags: IB_MR_REREG_TRANS, IB_MR_REREG_PD, IB_MR_REREG_ACCESS
 * @start: new user virtual address (IB_MR_REREG_TRANS)
 * @length: new length (IB_MR_REREG_TRANS)
 * @iova: new device address (IB_MR_REREG_TRANS)
 * @access: new IB_ACCESS_* flags (IB_MR_REREG_ACCESS)
 * @pd: the PD the MR ends up in (ib_core passes the current one without
 *	IB_MR_REREG_PD)
 * @udata: no driver data is defined
 *
 * A change of rights or PD alone keeps the key: the driver's UMR QP
 * rewrites them in place (umr_qp.c), so that an rkey a peer already holds
 * works with the new rights, as on the in-tree driver. Any other change
 * (a new translation, or pages that must be pinned again writable) makes
 * a new memory key, which ib_core puts in the place of @ibmr (new lkey and
 * rkey in the response) before it deregisters @ibmr; without
 * IB_MR_REREG_TRANS the new key takes over the pinned pages. On failure
 * @ibmr is unchanged.
 *
 * Return: NULL when the key was changed in place, the new MR, or an
 * ERR_PTR().
 */
struct ib_mr *mlx5c_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				     u64 length, u64 iova, int access,
				     struct ib_pd *pd, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibmr->device);
	struct mlx5c_ib_mr *old = to_mmr(ibmr), *mr;
	struct ib_umem *umem;
	bool repin;
	int err;

	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS))
		return ERR_PTR(-EOPNOTSUPP);
	/* Only user MRs, not DMA or fast-registration ones. */
	if (!old->umem)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;
	if (!(flags & IB_MR_REREG_PD))
		pd = ibmr->pd;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = old->umem->address;
		length = ibmr->length;
		iova = ibmr->iova;
	}
	err = mlx5c_ib_check_user_mr(dev, start, length, iova, access);
	if (err)
		return ERR_PTR(err);

	repin = (flags & IB_MR_REREG_TRANS) ||
		(ib_access_writable(access) && !old->umem->writable);
	/*
	 * A DMA-BUF's pages are pinned as its exporter mapped them; those of
	 * a movable one may be gone with its key at any time.
	 */
	if (old->movable ||
	    (repin && !(flags & IB_MR_REREG_TRANS) && old->umem->is_dmabuf))
		return ERR_PTR(-EOPNOTSUPP);
	if (!repin) {
		err = mlx5c_ib_umr_rereg(dev, old, pd, access);
		if (err != -EOPNOTSUPP)
			return err ? ERR_PTR(err) : NULL;
	}
	umem = old->umem;
	if (repin) {
		umem = mlx5c_umem_get(pd->device, start, length, access);
		if (IS_ERR(umem))
			return ERR_CAST(umem);
	}
	mr = mlx5c_ib_user_mr(pd, umem, iova, length, access);
	if (IS_ERR(mr)) {
		if (repin)
			ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	/* The pages are the new MR's now; deregistering @ibmr keeps them. */
	if (!repin)
		old->umem = NULL;
	return &mr->ibmr;
}

/**
 * mlx5c_ib_get_dma_mr() - a key for the kernel's DMA addresses
 * @pd: protection domain
 * @access: IB_ACCESS_* flags
 *
 * A physical-address MKey covering every address: kernel consumers use
 * bus addresses (ib_dma_map_*()) in their SGEs.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *mlx5c_ib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct mlx5c_ib_dev *dev = to_mdev(pd->device);
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	struct mlx5c_ib_mr *mr;
	void *mkc;
	int err;

	if (access & ~MLX5C_IB_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->uid = to_mpd(pd)->uid;
	MLX5_SET(create_mkey_in, in, uid, mr->uid);
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	mlx5c_mkc_fill(mkc, MLX5_MKC_ACCESS_MODE_PA, mlx5c_ib_mkc_rights(access),
		       to_mpd(pd)->pdn, mlx5c_ib_mkey_variant(dev), 0, MLX5C_MKC_LEN64);
	err = mlx5c_mkey_create(dev->mdev, in, sizeof(in), &mr->mkey);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;
}

static int mlx5c_ib_frwr_mkey(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mr *mr,
			      struct mlx5c_ib_pd *pd)
{
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	mr->uid = pd->uid;
	MLX5_SET(create_mkey_in, in, uid, mr->uid);

	/* Free until the first IB_WR_REG_MR gives it pages and rights. */
	mlx5c_mkc_fill(mkc, MLX5_MKC_ACCESS_MODE_MTT, 0, pd->pdn,
		       mlx5c_ib_mkey_variant(dev), 0, 0);
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, umr_en, 1);
	MLX5_SET(mkc, mkc, translations_octword_size, mr->max_descs / 2);
	MLX5_SET(mkc, mkc, log_page_size, PAGE_SHIFT);
	return mlx5c_mkey_create(dev->mdev, in, sizeof(in), &mr->mkey);
}

/**
 * mlx5c_ib_alloc_mr() - a memory region for fast registration
 * @pd: protection domain
 * @type: IB_MR_TYPE_MEM_REG
 * @max_num_sg: longest page list it will be registered with
 *
 * A free UMR-enabled MTT key with room for @max_num_sg pages, and the page
 * list map_mr_sg fills and IB_WR_REG_MR hands to the device (umr.c).
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *mlx5c_ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				u32 max_num_sg)
{
	struct mlx5c_ib_dev *dev = to_mdev(pd->device);
	struct device *ddev = &dev->pdev->dev;
	struct mlx5c_ib_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG || !mlx5c_ib_umr_supported(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > MLX5C_IB_FRWR_MAX_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_descs = ALIGN(max_num_sg, 2);
	mr->descs = kcalloc(mr->max_descs, sizeof(*mr->descs), GFP_KERNEL);
	if (!mr->descs) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->descs_dma = dma_map_single(ddev, mr->descs,
				       mr->max_descs * sizeof(*mr->descs),
				       DMA_TO_DEVICE);
	if (dma_mapping_error(ddev, mr->descs_dma)) {
		err = -ENOMEM;
		goto err_descs;
	}
	err = mlx5c_ib_frwr_mkey(dev, mr, to_mpd(pd));
	if (err)
		goto err_unmap;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;

err_unmap:
	dma_unmap_single(ddev, mr->descs_dma, mr->max_descs * sizeof(*mr->descs),
			 DMA_TO_DEVICE);
err_descs:
	kfree(mr->descs);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int mlx5c_ib_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mlx5c_ib_mr *mr = to_mmr(ibmr);

	if (mr->ndescs == mr->max_descs)
		return -ENOMEM;
	mr->descs[mr->ndescs++] = cpu_to_be64(addr | MLX5_EN_RD | MLX5_EN_WR);
	return 0;
}

/**
 * mlx5c_ib_map_mr_sg() - fill a fast-registration MR's page list
 * @ibmr: MR from mlx5c_ib_alloc_mr()
 * @sg: DMA-mapped scatterlist
 * @sg_nents: its entries
 * @sg_offset: offset into the first entry (in/out)
 *
 * Return: the number of entries mapped.
 */
int mlx5c_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		       int sg_nents, unsigned int *sg_offset)
{
	struct mlx5c_ib_mr *mr = to_mmr(ibmr);
	struct device *ddev = &to_mdev(ibmr->device)->pdev->dev;
	size_t size = mr->max_descs * sizeof(*mr->descs);
	int n;

	if (!mr->descs)
		return -EINVAL;
	mr->ndescs = 0;
	dma_sync_single_for_cpu(ddev, mr->descs_dma, size, DMA_TO_DEVICE);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mlx5c_ib_set_page);
	dma_sync_single_for_device(ddev, mr->descs_dma, size, DMA_TO_DEVICE);
	return n;
}

/**
 * mlx5c_ib_dereg_mr() - deregister a memory region
 * @ibmr: MR
 * @udata: unused
 *
 * Return: 0; an MKey the firmware refuses to destroy is kept, with its
 * pinned pages, as an orphan.
 */
int mlx5c_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibmr->device);
	struct mlx5c_ib_mr *mr = to_mmr(ibmr);

	if (mr->movable)
		mlx5c_ib_dmabuf_mr_stop(dev, mr);
	else
		mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_MKEY, mr->mkey, mr->uid,
				     &mr->umem);
	ib_umem_release(mr->umem);
	if (mr->descs) {
		dma_unmap_single(&dev->pdev->dev, mr->descs_dma,
				 mr->max_descs * sizeof(*mr->descs),
				 DMA_TO_DEVICE);
		kfree(mr->descs);
	}
	kfree(mr);
	return 0;
}
