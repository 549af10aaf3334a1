// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory (MEMIC): ibv_alloc_dm takes whole pages of the device's
 * MEMIC window (a range of BAR0) and ALLOC_MEMIC carves the allocation
 * from them; the provider maps those pages through an mmap entry of its
 * context and copies into them with the CPU (ibv_memcpy_to_dm);
 * ibv_reg_dm_mr makes a zero-based MEMIC memory key over part of the
 * allocation for RDMA. Pages are never shared between allocations, so a
 * mapping shows its own allocation only, and they go back to the device
 * (DEALLOC_MEMIC) only once the DM object is freed and its last mapping is
 * gone (mlx5c_ib_mmap_free()).
 */
#include <linux/slab.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

#define UVERBS_MODULE_NAME mlx5c_ib
#include <rdma/uverbs_named_ioctl.h>

/* Allocations are multiples of 64 bytes, aligned to 64 << log_alignment. */
#define MLX5C_MEMIC_BASE_ALIGN	6
#define MLX5C_MEMIC_BASE_SIZE	BIT(MLX5C_MEMIC_BASE_ALIGN)

#define MLX5C_IB_DM_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ZERO_BASED)

/**
 * mlx5c_ib_dm_init() - learn the MEMIC window of the device
 * @dev: IB device
 *
 * Without the device_memory and memic capabilities (or with a window
 * that is not whole pages) the device has no ibv_alloc_dm.
 */
void mlx5c_ib_dm_init(struct mlx5c_ib_dev *dev)
{
	const void *cap = mlx5c_hca_cap(dev->mdev, MLX5_CAP_DEV_MEM, false);
	u64 start, size;

	spin_lock_init(&dev->memic_lock);
	if (!MLX5C_IB_CAP(dev, device_memory) || !cap ||
	    !MLX5_GET(device_mem_cap, cap, memic))
		return;
	start = MLX5_GET64(device_mem_cap, cap, memic_bar_start_addr);
	size = MLX5_GET(device_mem_cap, cap, memic_bar_size);
	if (start & ~PAGE_MASK || size & ~PAGE_MASK ||
	    start + size > pci_resource_len(dev->pdev, 0)) {
		dev_warn(&dev->adev->dev, "MEMIC window %#llx+%#llx unusable\n",
			 start, size);
		return;
	}
	dev->memic_start = start;
	dev->memic_npages = min_t(u64, size >> PAGE_SHIFT, MLX5C_IB_MEMIC_PAGES);
	dev->memic_max = min_t(u64, MLX5_GET(device_mem_cap, cap, max_memic_size),
			       (u64)dev->memic_npages << PAGE_SHIFT);
}

/* The largest ibv_alloc_dm the device takes (0: none). */
u64 mlx5c_ib_dm_max_size(struct mlx5c_ib_dev *dev)
{
	return dev->memic_npages ? dev->memic_max : 0;
}

static int mlx5c_ib_memic_cmd_alloc(struct mlx5c_ib_dev *dev, u64 range,
				    u32 npages, u32 size, u32 align, u64 *addr)
{
	u32 out[MLX5_ST_SZ_DW(alloc_memic_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_memic_in)] = {};
	int err;

	MLX5_SET(alloc_memic_in, in, opcode, MLX5_CMD_OP_ALLOC_MEMIC);
	MLX5_SET(alloc_memic_in, in, log_memic_addr_alignment, align);
	MLX5_SET64(alloc_memic_in, in, range_start_addr, range);
	MLX5_SET(alloc_memic_in, in, range_size, npages << PAGE_SHIFT);
	MLX5_SET(alloc_memic_in, in, memic_size, size);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*addr = MLX5_GET64(alloc_memic_out, out, memic_start_addr);
	return err;
}

static void mlx5c_ib_memic_pages_put(struct mlx5c_ib_dev *dev, u32 first,
				     u32 npages)
{
	spin_lock(&dev->memic_lock);
	bitmap_clear(dev->memic_pages, first, npages);
	spin_unlock(&dev->memic_lock);
}

static int mlx5c_ib_memic_cmd_dealloc(struct mlx5c_ib_dev *dev, u64 addr,
				      u32 size)
{
	u32 out[MLX5_ST_SZ_DW(dealloc_memic_out)] = {};
	u32 in[MLX5_ST_SZ_DW(dealloc_memic_in)] = {};
	int err;

	MLX5_SET(dealloc_memic_in, in, opcode, MLX5_CMD_OP_DEALLOC_MEMIC);
	MLX5_SET64(dealloc_memic_in, in, memic_start_addr, addr);
	MLX5_SET(dealloc_memic_in, in, memic_size, size);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (err && !mlx5c_ib_gone(dev, err)) {
		dev_err_ratelimited(&dev->adev->dev,
				    "DEALLOC_MEMIC %#llx failed: %d\n", addr, err);
		return err;
	}
	return 0;
}

/* mmap_free of a DM entry: its allocation back to the device. */
void mlx5c_ib_dm_release(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mmap_entry *e)
{
	/* Pages the device still holds are never handed out again. */
	if (!mlx5c_ib_memic_cmd_dealloc(dev, e->dm_addr, e->dm_size))
		mlx5c_ib_memic_pages_put(dev, e->dm_page, e->rdma.npages);
}

/*
 * ALLOC_MEMIC of @size bytes in free whole pages of the window; @e gets
 * the allocation.
 *
 * The address the device answers is mapped into the process: it must lie,
 * with the whole allocation, in the pages reserved for it (a page of the
 * window that another process maps, or of BAR0 outside the window, would
 * be exposed otherwise), aligned as asked. Else the allocation is returned
 * to the device and fails.
 */
static int mlx5c_ib_memic_alloc(struct mlx5c_ib_dev *dev, u32 size, u32 align,
				struct mlx5c_ib_mmap_entry *e)
{
	u32 npages = DIV_ROUND_UP(size, PAGE_SIZE);
	unsigned long first;
	u64 addr, range;
	int err;

	spin_lock(&dev->memic_lock);
	first = bitmap_find_next_zero_area(dev->memic_pages, dev->memic_npages,
					   0, npages, 0);
	if (first < dev->memic_npages)
		bitmap_set(dev->memic_pages, first, npages);
	spin_unlock(&dev->memic_lock);
	if (first >= dev->memic_npages)
		return -ENOMEM;

	range = dev->memic_start + ((u64)first << PAGE_SHIFT);
	err = mlx5c_ib_memic_cmd_alloc(dev, range, npages, size, align, &addr);
	if (err) {
		mlx5c_ib_memic_pages_put(dev, first, npages);
		return err;
	}
	if (addr < range || addr - range > ((u64)npages << PAGE_SHIFT) - size ||
	    addr & (BIT_ULL(MLX5C_MEMIC_BASE_ALIGN + align) - 1)) {
		dev_err_ratelimited(&dev->adev->dev,
				    "ALLOC_MEMIC answered %#llx for %u bytes in %#llx+%#x: refused\n",
				    addr, size, range, npages << PAGE_SHIFT);
		if (!mlx5c_ib_memic_cmd_dealloc(dev, addr, size))
			mlx5c_ib_memic_pages_put(dev, first, npages);
		return -EIO;
	}
	e->kind = MLX5C_IB_MMAP_DM;
	e->wc = true;
	e->dm_addr = addr;
	e->dm_size = size;
	e->dm_page = first;
	e->phys = pci_resource_start(dev->pdev, 0) + (addr & PAGE_MASK);
	return 0;
}

/**
 * mlx5c_ib_alloc_dm() - ibv_alloc_dm: device memory (MEMIC only)
 * @ibdev: IB device
 * @uctx: the caller's context, the only one that can map it
 * @attr: length and log2 of the alignment in bytes
 * @attrs: the provider's attributes; the page index and offset at which
 *	it maps the memory go back
 *
 * Return: the DM or an ERR_PTR().
 */
struct ib_dm *mlx5c_ib_alloc_dm(struct ib_device *ibdev,
				struct ib_ucontext *uctx,
				struct ib_dm_alloc_attr *attr,
				struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	enum mlx5_ib_uapi_dm_type type;
	struct mlx5c_ib_mmap_entry *e;
	struct mlx5c_ib_dm *dm;
	u32 size, align;
	u64 offset;
	u16 page;
	int err;

	err = uverbs_get_const_default(&type, attrs,
				       MLX5_IB_ATTR_ALLOC_DM_REQ_TYPE,
				       MLX5_IB_UAPI_DM_TYPE_MEMIC);
	if (err)
		return ERR_PTR(err);
	/* No software-owned ICM: no steering or header rewrite here. */
	if (type != MLX5_IB_UAPI_DM_TYPE_MEMIC || !mlx5c_ib_dm_max_size(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if (!attr->length || attr->length > dev->memic_max)
		return ERR_PTR(-EINVAL);
	size = round_up(attr->length, MLX5C_MEMIC_BASE_SIZE);
	align = attr->alignment < MLX5C_MEMIC_BASE_ALIGN ? 0 :
		attr->alignment - MLX5C_MEMIC_BASE_ALIGN;
	/* Allocations start on a page: no alignment beyond one. */
	if (attr->alignment > PAGE_SHIFT)
		return ERR_PTR(-EINVAL);

	dm = kzalloc(sizeof(*dm), GFP_KERNEL);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!dm || !e) {
		err = -ENOMEM;
		goto err_free;
	}
	err = mlx5c_ib_memic_alloc(dev, size, align, e);
	if (err)
		goto err_free;
	err = mlx5c_ib_mmap_entry_insert(to_mucontext(uctx), e,
					 round_up(size, PAGE_SIZE),
					 MLX5_IB_MMAP_DEVICE_MEM);
	if (err) {
		e->rdma.npages = DIV_ROUND_UP(size, PAGE_SIZE);
		mlx5c_ib_dm_release(dev, e);
		goto err_free;
	}
	/* From here on mmap_free returns the allocation. */
	dm->entry = e;
	dm->dev_addr = e->dm_addr;
	dm->size = attr->length;

	page = mlx5c_ib_mmap_entry_index(e);
	offset = e->dm_addr & ~PAGE_MASK;
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_ALLOC_DM_RESP_PAGE_INDEX,
			     &page, sizeof(page));
	if (!err)
		err = uverbs_copy_to(attrs,
				     MLX5_IB_ATTR_ALLOC_DM_RESP_START_OFFSET,
				     &offset, sizeof(offset));
	if (err) {
		rdma_user_mmap_entry_remove(&e->rdma);
		kfree(dm);
		return ERR_PTR(err);
	}
	return &dm->ibdm;

err_free:
	kfree(e);
	kfree(dm);
	return ERR_PTR(err);
}

/**
 * mlx5c_ib_dealloc_dm() - ibv_free_dm
 * @ibdm: DM without MRs (ib_core checks)
 * @attrs: unused
 *
 * The allocation lives on while the process maps it.
 *
 * Return: 0.
 */
int mlx5c_ib_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_dm *dm = to_mdm(ibdm);

	rdma_user_mmap_entry_remove(&dm->entry->rdma);
	kfree(dm);
	return 0;
}

/**
 * mlx5c_ib_reg_dm_mr() - ibv_reg_dm_mr: a MEMIC key over part of a DM
 * @pd: protection domain
 * @ibdm: the device memory
 * @attr: offset and length in it, access (zero-based: the key's
 *	addresses are offsets from @attr->offset)
 * @attrs: unused
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *mlx5c_ib_reg_dm_mr(struct ib_pd *pd, struct ib_dm *ibdm,
				 struct ib_dm_mr_attr *attr,
				 struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_dev *dev = to_mdev(pd->device);
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	struct mlx5c_ib_dm *dm = to_mdm(ibdm);
	int access = attr->access_flags;
	struct mlx5c_ib_mr *mr;
	void *mkc;
	int err;

	if (access & ~MLX5C_IB_DM_MR_ACCESS || !(access & IB_ZERO_BASED))
		return ERR_PTR(-EINVAL);
	if ((access & IB_ACCESS_REMOTE_ATOMIC) && !MLX5C_IB_CAP(dev, atomic))
		return ERR_PTR(-EOPNOTSUPP);
	/* An empty range (even at the very end) is a key, as in-tree. */
	if (attr->offset > dm->size || attr->length > dm->size - attr->offset)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->uid = to_mpd(pd)->uid;
	MLX5_SET(create_mkey_in, in, uid, mr->uid);
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	mlx5c_mkc_fill(mkc, MLX5_MKC_ACCESS_MODE_MEMIC, mlx5c_ib_mkc_rights(access),
		       to_mpd(pd)->pdn, mlx5c_ib_mkey_variant(dev),
		       dm->dev_addr + attr->offset, attr->length);
	err = mlx5c_mkey_create(dev->mdev, in, sizeof(in), &mr->mkey);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->access = access;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	mr->ibmr.length = attr->length;
	return &mr->ibmr;
}

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	mlx5c_ib_dm_alloc_attrs, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC,
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_ALLOC_DM_RESP_START_OFFSET,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_ALLOC_DM_RESP_PAGE_INDEX,
			    UVERBS_ATTR_TYPE(u16), UA_OPTIONAL),
	UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_ALLOC_DM_REQ_TYPE,
			     enum mlx5_ib_uapi_dm_type, UA_OPTIONAL));

const struct uapi_definition mlx5c_ib_dm_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &mlx5c_ib_dm_alloc_attrs),
	{}
};
