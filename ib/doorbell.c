// SPDX-License-Identifier: GPL-2.0
/*
 * Doorbell records of user queues: the provider puts them in its own
 * memory and names them by address at CREATE_CQ/QP/SRQ; the page is
 * pinned for the device, once for all the records it holds. (Kernel
 * queues take theirs from mlx5_core's slab, mlx5c_buf_alloc().)
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

/**
 * mlx5c_ib_db_map() - pin the user page of a doorbell record
 * @ctx: user context
 * @virt: user address of the record (8-byte aligned)
 * @db: the mapping (out)
 *
 * Records of one page share one pin.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_db_map(struct mlx5c_ib_ucontext *ctx, u64 virt,
		    struct mlx5c_ib_db *db)
{
	unsigned long page_va = virt & PAGE_MASK;
	struct mlx5c_ib_db_page *page;
	int err = 0;

	if (!virt || virt & 7)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	list_for_each_entry(page, &ctx->db_pages, list)
		if (page->user_page == page_va)
			goto found;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page) {
		err = -ENOMEM;
		goto out;
	}
	page->user_page = page_va;
	page->umem = mlx5c_umem_get(ctx->ibuc.device, page_va, PAGE_SIZE, 0);
	if (IS_ERR(page->umem)) {
		err = PTR_ERR(page->umem);
		kfree(page);
		goto out;
	}
	list_add(&page->list, &ctx->db_pages);
found:
	page->refcnt++;
	db->page = page;
	db->dma = sg_dma_address(page->umem->sgt_append.sgt.sgl) +
		  (virt & ~PAGE_MASK);
out:
	mutex_unlock(&ctx->lock);
	return err;
}

void mlx5c_ib_db_unmap(struct mlx5c_ib_ucontext *ctx, struct mlx5c_ib_db *db)
{
	struct mlx5c_ib_db_page *page = db->page;

	if (!page)
		return;
	mutex_lock(&ctx->lock);
	if (!--page->refcnt) {
		list_del(&page->list);
		ib_umem_release(page->umem);
		kfree(page);
	}
	mutex_unlock(&ctx->lock);
	db->page = NULL;
}
