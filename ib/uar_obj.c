// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic UARs: the UAR object (MLX5_IB_OBJECT_UAR) through which a
 * context allocates doorbell pages one at a time, the mmap entries that
 * map them (and device memory, dm.c), and the lookup by page number with
 * which CREATE_CQ and CREATE_QP name the page they ring.
 *
 * A provider that offers MLX5_LIB_CAP_DYN_UAR gets no static UARs
 * (tot_bfregs 0). It allocates a non-cached UAR for CQ arming and for its
 * QPs (write-combining ones for BlueFlame only where the driver maps
 * BlueFlame) and names its page in the create commands. A page is
 * accepted only if it is a UAR object of the same context, and an object
 * that CQs or QPs still name is not destroyed (-EBUSY; at close, uverbs
 * retries it after them). The page goes back to the device only when the
 * last mapping of it is gone (mmap_free): it never reaches another
 * process while this one can still write to it.
 */
#include <linux/slab.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

#define UVERBS_MODULE_NAME mlx5c_ib
#include <rdma/uverbs_named_ioctl.h>

/*
 * mmap offsets of entries, as the provider builds them: the command in
 * bits 8..15 of the page offset, a 16-bit index in bits 0..7 and 16..23.
 * ib_core keys the entry by command << 16 | index.
 */
static unsigned long mlx5c_mmap_key(u32 cmd, u32 idx)
{
	return (unsigned long)cmd << 16 | idx;
}

/**
 * mlx5c_ib_mmap_entry_insert() - give device pages an mmap offset
 * @ctx: the only context that can map them
 * @e: entry (kind, phys, wc set)
 * @size: bytes, a multiple of PAGE_SIZE
 * @cmd: mmap command of the kind (MLX5C_MMAP_DYN_UAR, MLX5_IB_MMAP_DEVICE_MEM)
 *
 * Return: 0 or a negative errno. From now on mlx5c_ib_mmap_free() owns @e.
 */
int mlx5c_ib_mmap_entry_insert(struct mlx5c_ib_ucontext *ctx,
			       struct mlx5c_ib_mmap_entry *e, size_t size,
			       u32 cmd)
{
	return rdma_user_mmap_entry_insert_range(&ctx->ibuc, &e->rdma, size,
						 mlx5c_mmap_key(cmd, 0),
						 mlx5c_mmap_key(cmd, 0xffff));
}

/* The entry's index among those of its command. */
u16 mlx5c_ib_mmap_entry_index(struct mlx5c_ib_mmap_entry *e)
{
	return e->rdma.start_pgoff & 0xffff;
}

/* The byte offset at which the provider maps the entry. */
u64 mlx5c_ib_mmap_entry_offset(struct mlx5c_ib_mmap_entry *e)
{
	u64 cmd = e->rdma.start_pgoff >> 16, idx = e->rdma.start_pgoff & 0xffff;

	return ((idx >> 8) << 16 | cmd << 8 | (idx & 0xff)) << PAGE_SHIFT;
}

/**
 * mlx5c_ib_mmap_entry() - map an entry of the calling context
 * @uctx: the context whose file is mapped
 * @vma: the whole entry, shared, not executable
 * @cmd: the offset's command
 *
 * Entries live in their context's table: another process's offsets are
 * not found here.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_mmap_entry(struct ib_ucontext *uctx, struct vm_area_struct *vma,
			u32 cmd)
{
	unsigned long pgoff = vma->vm_pgoff;
	u32 idx = (pgoff & 0xff) | ((pgoff >> 16) & 0xff) << 8;
	struct rdma_user_mmap_entry *rentry;
	struct mlx5c_ib_mmap_entry *e;
	pgprot_t prot;
	int err;

	if (pgoff >> 24)
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	rentry = rdma_user_mmap_entry_get_pgoff(uctx, mlx5c_mmap_key(cmd, idx));
	if (!rentry)
		return -EINVAL;
	e = to_mmap_entry(rentry);
	if (vma->vm_end - vma->vm_start != rentry->npages * PAGE_SIZE) {
		err = -EINVAL;
		goto out;
	}
	vm_flags_clear(vma, VM_MAYEXEC);
	prot = e->wc ? pgprot_writecombine(vma->vm_page_prot) :
		       pgprot_noncached(vma->vm_page_prot);
	err = rdma_user_mmap_io(uctx, vma, PHYS_PFN(e->phys),
				rentry->npages * PAGE_SIZE, prot, rentry);
out:
	rdma_user_mmap_entry_put(rentry);
	return err;
}

/* ib_device_ops.mmap_free: the entry is removed and no longer mapped. */
void mlx5c_ib_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct mlx5c_ib_mmap_entry *e = to_mmap_entry(rentry);
	struct mlx5c_ib_dev *dev = to_mdev(rentry->ucontext->device);

	switch (e->kind) {
	case MLX5C_IB_MMAP_UAR:
		/* Before the context's uid is returned: uverbs unmaps first. */
		mlx5c_uar_free(dev->mdev,
			       to_mucontext(rentry->ucontext)->devx_uid, e->uar);
		break;
	case MLX5C_IB_MMAP_DM:
		mlx5c_ib_dm_release(dev, e);
		break;
	}
	kfree(e);
}

static struct mlx5c_ib_mmap_entry *
mlx5c_ib_uar_find(struct mlx5c_ib_ucontext *ctx, u32 page)
{
	struct mlx5c_ib_mmap_entry *e;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(e, &ctx->dyn_uars, list)
		if (e->uar == page)
			return e;
	return NULL;
}

/**
 * mlx5c_ib_uar_get() - a CQ or QP names a dynamic UAR page
 * @ctx: the creator's context
 * @page: UAR page number (the page_id of MLX5_IB_METHOD_UAR_OBJ_ALLOC)
 *
 * Return: 0, or -EINVAL if @page is not a UAR object of @ctx.
 */
int mlx5c_ib_uar_get(struct mlx5c_ib_ucontext *ctx, u32 page)
{
	struct mlx5c_ib_mmap_entry *e;

	mutex_lock(&ctx->lock);
	e = mlx5c_ib_uar_find(ctx, page);
	if (e)
		e->users++;
	mutex_unlock(&ctx->lock);
	return e ? 0 : -EINVAL;
}

/* The CQ or QP of mlx5c_ib_uar_get() is gone. */
void mlx5c_ib_uar_put(struct mlx5c_ib_ucontext *ctx, u32 page)
{
	struct mlx5c_ib_mmap_entry *e;

	mutex_lock(&ctx->lock);
	e = mlx5c_ib_uar_find(ctx, page);
	if (e && !WARN_ON(!e->users))
		e->users--;
	mutex_unlock(&ctx->lock);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_UAR_OBJ_ALLOC)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(
		attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	enum mlx5_ib_uapi_uar_alloc_type type;
	struct mlx5c_ib_mmap_entry *e;
	struct mlx5c_ib_ucontext *ctx;
	struct ib_ucontext *uctx;
	struct mlx5c_ib_dev *dev;
	u32 length = PAGE_SIZE;
	u64 offset;
	int err;

	uctx = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	ctx = to_mucontext(uctx);
	dev = to_mdev(uctx->device);
	err = uverbs_get_const(&type, attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE);
	if (err)
		return err;
	/* BlueFlame pages only where they are mapped write-combining. */
	if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC &&
	    (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF || !mlx5c_ib_blueflame))
		return -EOPNOTSUPP;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->kind = MLX5C_IB_MMAP_UAR;
	e->wc = type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF;
	err = mlx5c_uar_alloc(dev->mdev, ctx->devx_uid, &e->uar);
	if (err)
		goto err_free;
	e->phys = mlx5c_uar_phys(dev->mdev, e->uar);
	if (e->phys & ~PAGE_MASK) {
		err = -EOPNOTSUPP;
		goto err_uar;
	}
	err = mlx5c_ib_mmap_entry_insert(ctx, e, PAGE_SIZE, MLX5C_MMAP_DYN_UAR);
	if (err)
		goto err_uar;

	offset = mlx5c_ib_mmap_entry_offset(e);
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			     &offset, sizeof(offset));
	if (!err)
		err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
				     &e->uar, sizeof(e->uar));
	if (!err)
		err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
				     &length, sizeof(length));
	if (err) {
		rdma_user_mmap_entry_remove(&e->rdma);
		return err;
	}
	mutex_lock(&ctx->lock);
	list_add(&e->list, &ctx->dyn_uars);
	mutex_unlock(&ctx->lock);
	uobj->object = e;
	return 0;

err_uar:
	mlx5c_uar_free(dev->mdev, ctx->devx_uid, e->uar);
err_free:
	kfree(e);
	return err;
}

static int mlx5c_ib_uar_obj_destroy(struct ib_uobject *uobj,
				    enum rdma_remove_reason why,
				    struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_ucontext *ctx = to_mucontext(uobj->context);
	struct mlx5c_ib_mmap_entry *e = uobj->object;

	mutex_lock(&ctx->lock);
	if (e->users && why != RDMA_REMOVE_DRIVER_FAILURE) {
		mutex_unlock(&ctx->lock);
		return -EBUSY;
	}
	list_del(&e->list);
	mutex_unlock(&ctx->lock);
	rdma_user_mmap_entry_remove(&e->rdma);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_UAR_OBJ_ALLOC,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE, MLX5_IB_OBJECT_UAR,
			UVERBS_ACCESS_NEW, UA_MANDATORY),
	UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE,
			     enum mlx5_ib_uapi_uar_alloc_type, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
			    UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
			    UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	MLX5_IB_METHOD_UAR_OBJ_DESTROY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE, MLX5_IB_OBJECT_UAR,
			UVERBS_ACCESS_DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(mlx5c_ib_uar_obj_destroy),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_DESTROY));

const struct uapi_definition mlx5c_ib_uar_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_UAR),
	{}
};
