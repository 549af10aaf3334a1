// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: the alloc_ucontext exchange with the mlx5 provider, the
 * static UAR pages it maps at open, and the bfregs QPs ring their
 * doorbells through. The doorbell-record pages of a context are in
 * doorbell.c, the udata and page-list helpers in mem.c.
 *
 * UAR schemes: a provider that offers dynamic UARs (MLX5_LIB_CAP_DYN_UAR,
 * as rdma-core's does) gets tot_bfregs 0 and allocates its UAR pages as
 * objects (uar_obj.c). Otherwise the "static" (legacy) scheme: the
 * response carries tot_bfregs != 0, so the provider maps tot_bfregs / 2
 * UAR pages with mmap command 0 (or 3) right after GET_CONTEXT. Two
 * bfregs live in each static UAR page; bfreg 0 is shared. Only contexts
 * without static bfregs can be imported by the provider (ibv_import_device).
 */
#include <linux/cache.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

bool mlx5c_ib_blueflame;
module_param_named(blueflame, mlx5c_ib_blueflame, bool, 0444);
MODULE_PARM_DESC(blueflame,
		 "Advertise BlueFlame registers, map UARs write-combining (default: off)");

/* mmap offset encoding shared with the provider. */
#define MLX5C_MMAP_CMD_SHIFT	8
#define MLX5C_MMAP_CMD_MASK	0xff
#define MLX5C_MMAP_IDX_MASK	0xff

/**
 * mlx5c_ib_bfreg_alloc() - choose the bfreg a new QP rings
 * @ctx: user context
 *
 * A dedicated low-latency bfreg while there are free ones, then the least
 * used of the regular ones, then the shared bfreg 0.
 *
 * Return: the kernel bfreg number.
 */
int mlx5c_ib_bfreg_alloc(struct mlx5c_ib_ucontext *ctx)
{
	u32 first_ll = ctx->tot_bfregs - ctx->num_low_lat;
	int best = 0;
	u32 i;

	mutex_lock(&ctx->lock);
	for (i = first_ll; i < ctx->tot_bfregs; i++) {
		if (!ctx->bfreg_count[i]) {
			best = i;
			goto out;
		}
	}
	for (i = 1; i < first_ll; i++)
		if (!best || ctx->bfreg_count[i] < ctx->bfreg_count[best])
			best = i;
out:
	ctx->bfreg_count[best]++;
	mutex_unlock(&ctx->lock);
	return best;
}

void mlx5c_ib_bfreg_free(struct mlx5c_ib_ucontext *ctx, int bfreg)
{
	mutex_lock(&ctx->lock);
	if (!WARN_ON(!ctx->bfreg_count[bfreg]))
		ctx->bfreg_count[bfreg]--;
	mutex_unlock(&ctx->lock);
}

/* The UAR page a bfreg belongs to. */
u32 mlx5c_ib_bfreg_uar(struct mlx5c_ib_ucontext *ctx, int bfreg)
{
	return ctx->uars[bfreg / MLX5C_IB_BFREGS_PER_UAR];
}

/* The provider numbers four bfregs per UAR, of which the first two exist. */
u32 mlx5c_ib_bfreg_prov_index(int bfreg)
{
	return bfreg / MLX5C_IB_BFREGS_PER_UAR * MLX5C_IB_PROV_BFREGS_PER_UAR +
	       bfreg % MLX5C_IB_BFREGS_PER_UAR;
}

static void mlx5c_ib_free_uars(struct mlx5c_ib_dev *dev,
			       struct mlx5c_ib_ucontext *ctx, u32 n)
{
	while (n--)
		mlx5c_uar_free(dev->mdev, ctx->devx_uid, ctx->uars[n]);
}

static int mlx5c_ib_alloc_uars(struct mlx5c_ib_dev *dev,
			       struct mlx5c_ib_ucontext *ctx)
{
	resource_size_t bar_end = pci_resource_start(dev->pdev, 0) +
				  pci_resource_len(dev->pdev, 0);
	phys_addr_t phys;
	u32 i;
	int err;

	for (i = 0; i < ctx->num_uars; i++) {
		err = mlx5c_uar_alloc(dev->mdev, ctx->devx_uid, &ctx->uars[i]);
		if (err)
			goto err_free;
		phys = mlx5c_uar_phys(dev->mdev, ctx->uars[i]);
		if (phys & ~PAGE_MASK || phys + PAGE_SIZE > bar_end) {
			dev_err(&dev->adev->dev,
				"UAR %u at %pa cannot be mapped as a page\n",
				ctx->uars[i], &phys);
			i++;
			err = -EINVAL;
			goto err_free;
		}
	}
	return 0;

err_free:
	mlx5c_ib_free_uars(dev, ctx, i);
	return err;
}

/**
 * mlx5c_ib_ucontext_resp() - what a context tells the provider
 * @ctx: user context
 * @resp: the response (out), but for response_length
 *
 * The same at allocation and when the context is queried for an import.
 */
void mlx5c_ib_ucontext_resp(struct mlx5c_ib_ucontext *ctx,
			    struct mlx5_ib_alloc_ucontext_resp *resp)
{
	struct mlx5c_ib_dev *dev = to_mdev(ctx->ibuc.device);

	resp->qp_tab_size = 1 << MLX5C_IB_CAP(dev, log_max_qp);
	resp->bf_reg_size = mlx5c_ib_blueflame ?
			    1 << MLX5C_IB_CAP(dev, log_bf_reg_size) : 0;
	resp->tot_bfregs = ctx->tot_bfregs;
	resp->cache_line_size = cache_line_size();
	resp->max_sq_desc_sz = dev->max_sq_wqe;
	resp->max_rq_desc_sz = dev->max_rq_desc;
	resp->max_send_wqebb = 1 << MLX5C_IB_CAP(dev, log_max_qp_sz);
	resp->max_recv_wr = 1 << MLX5C_IB_CAP(dev, log_max_qp_sz);
	resp->max_srq_recv_wr = 1 << MLX5C_IB_CAP(dev, log_max_srq_sz);
	resp->num_ports = dev->num_ports;
	resp->cqe_version = ctx->cqe_version;
	resp->log_uar_size = PAGE_SHIFT;
	resp->num_uars_per_page = 1;
	/*
	 * RoCE: the provider creates its address handles through the kernel,
	 * which resolves the next hop's MAC (ah.c), instead of resolving it
	 * itself in the process's network namespace.
	 */
	if (dev->roce)
		resp->cmds_supp_uhw |= MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	mlx5c_ib_clock_resp(dev, resp);
}

/**
 * mlx5c_ib_alloc_ucontext() - open the device for a process
 * @uctx: context allocated by ib_core
 * @udata: struct mlx5_ib_alloc_ucontext_req(_v2) in, _resp out
 *
 * Return: 0 or a negative errno. A DEVX request (MLX5_IB_ALLOC_UCTX_DEVX,
 * which libmlx5 always makes first) gets a firmware user context (devx.c).
 */
int mlx5c_ib_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct mlx5c_ib_ucontext *ctx = to_mucontext(uctx);
	struct mlx5c_ib_dev *dev = to_mdev(uctx->device);
	struct mlx5_ib_alloc_ucontext_req_v2 req;
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	int err;

	if (!udata)
		return -EINVAL;
	/* v0 requests are 8 bytes; v2 ones at least up to max_cqe_version. */
	if (udata->inlen != sizeof(struct mlx5_ib_alloc_ucontext_req) &&
	    udata->inlen < offsetof(typeof(req), max_cqe_version))
		return -EINVAL;
	err = mlx5c_ib_udata_in(udata, &req,
				sizeof(struct mlx5_ib_alloc_ucontext_req),
				sizeof(req));
	if (err)
		return err;
	if (req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX)
		return -EINVAL;
	if (req.comp_mask)
		return -EOPNOTSUPP;
	if (req.reserved0 || req.reserved1 || req.reserved2)
		return -EINVAL;
	if (!req.total_num_bfregs || req.total_num_bfregs > MLX5C_IB_MAX_BFREGS)
		return -EINVAL;
	if (req.num_low_latency_bfregs > req.total_num_bfregs - 1)
		return -EINVAL;

	ctx->tot_bfregs = req.lib_caps & MLX5_LIB_CAP_DYN_UAR ? 0 :
			  ALIGN(req.total_num_bfregs, MLX5C_IB_BFREGS_PER_UAR);
	ctx->num_low_lat = req.num_low_latency_bfregs;
	ctx->num_uars = ctx->tot_bfregs / MLX5C_IB_BFREGS_PER_UAR;
	ctx->cqe_version = min(req.max_cqe_version, dev->cqe_version);
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX) {
		err = mlx5c_ib_devx_uctx_create(dev, &ctx->devx_uid);
		if (err)
			return err;
	}
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->db_pages);
	INIT_LIST_HEAD(&ctx->dyn_uars);
	xa_init(&ctx->pds);

	ctx->uars = kcalloc(ctx->num_uars, sizeof(*ctx->uars), GFP_KERNEL);
	ctx->bfreg_count = kcalloc(ctx->tot_bfregs, sizeof(*ctx->bfreg_count),
				   GFP_KERNEL);
	if (!ctx->uars || !ctx->bfreg_count) {
		err = -ENOMEM;
		goto err_free;
	}
	err = mlx5c_ib_alloc_uars(dev, ctx);
	if (err)
		goto err_free;

	mlx5c_ib_ucontext_resp(ctx, &resp);
	resp.response_length = min(udata->outlen, sizeof(resp));

	err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_uars;
	return 0;

err_uars:
	mlx5c_ib_free_uars(dev, ctx, ctx->num_uars);
err_free:
	kfree(ctx->bfreg_count);
	kfree(ctx->uars);
	mutex_destroy(&ctx->lock);
	if (ctx->devx_uid)
		mlx5c_ib_devx_uctx_destroy(dev, ctx->devx_uid);
	return err;
}

void mlx5c_ib_dealloc_ucontext(struct ib_ucontext *uctx)
{
	struct mlx5c_ib_ucontext *ctx = to_mucontext(uctx);
	struct mlx5c_ib_dev *dev = to_mdev(uctx->device);

	WARN_ON(!list_empty(&ctx->db_pages));
	WARN_ON(!list_empty(&ctx->dyn_uars));
	WARN_ON(!xa_empty(&ctx->pds));
	mlx5c_ib_free_uars(dev, ctx, ctx->num_uars);
	kfree(ctx->bfreg_count);
	kfree(ctx->uars);
	mutex_destroy(&ctx->lock);
	/* After every object of the process: the firmware checks. */
	if (ctx->devx_uid)
		mlx5c_ib_devx_uctx_destroy(dev, ctx->devx_uid);
}

/**
 * mlx5c_ib_mmap() - map one static UAR page into the process
 * @uctx: user context
 * @vma: exactly one page; pgoff = command << 8 | UAR index, or the offset
 *	of an mmap entry (dynamic UARs, uar_obj.c; device memory, dm.c)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct mlx5c_ib_ucontext *ctx = to_mucontext(uctx);
	struct mlx5c_ib_dev *dev = to_mdev(uctx->device);
	unsigned long cmd = (vma->vm_pgoff >> MLX5C_MMAP_CMD_SHIFT) &
			    MLX5C_MMAP_CMD_MASK;
	unsigned long idx = vma->vm_pgoff & MLX5C_MMAP_IDX_MASK;
	phys_addr_t phys;
	pgprot_t prot;

	if (cmd == MLX5C_MMAP_DYN_UAR || cmd == MLX5_IB_MMAP_DEVICE_MEM)
		return mlx5c_ib_mmap_entry(uctx, vma, cmd);
	/* Extended indexes belong to the mmap entries. */
	if (vma->vm_pgoff >> (MLX5C_MMAP_CMD_SHIFT * 2))
		return -EINVAL;

	switch (cmd) {
	case MLX5_IB_MMAP_REGULAR_PAGE:
	case MLX5_IB_MMAP_WC_PAGE:
	case MLX5_IB_MMAP_NC_PAGE:
		break;
	case MLX5_IB_MMAP_CORE_CLOCK:
		return idx ? -EINVAL : mlx5c_ib_mmap_clock(uctx, vma);
	case MLX5_IB_MMAP_CLOCK_INFO:
		return mlx5c_ib_mmap_clock_info(uctx, vma, idx);
	case MLX5_IB_MMAP_GET_CONTIGUOUS_PAGES:
	case MLX5_IB_MMAP_ALLOC_WC:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (idx >= ctx->num_uars)
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYEXEC);

	if (mlx5c_ib_blueflame && cmd != MLX5_IB_MMAP_NC_PAGE)
		prot = pgprot_writecombine(vma->vm_page_prot);
	else
		prot = pgprot_noncached(vma->vm_page_prot);
	phys = mlx5c_uar_phys(dev->mdev, ctx->uars[idx]);
	return rdma_user_mmap_io(uctx, vma, PHYS_PFN(phys), PAGE_SIZE, prot,
				 NULL);
}

/*
 * Hot unplug: ib_core zaps the UAR mappings made by rdma_user_mmap_io()
 * and destroys the objects; nothing else of ours stays reachable from user
 * space.
 */
void mlx5c_ib_disassociate_ucontext(struct ib_ucontext *uctx)
{
}
