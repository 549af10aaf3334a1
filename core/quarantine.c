// SPDX-License-Identifier: GPL-2.0
/*
 * Memory the device may still write after a command whose outcome is
 * unknown.
 *
 * A CREATE command that timed out (or was flushed when the device entered
 * the internal-error state) may have run in the firmware all the same: the
 * object then exists, and the device writes its buffer (EQEs into an EQ,
 * CQEs into a CQ, received data into a QP's pages) until the function is
 * torn down. The driver does not know the object's number, so it cannot
 * destroy it; a DESTROY that failed leaves the object in the same state.
 * Such memory must not go back to the page allocator while the device may
 * master the bus. It is put here instead, on the core device's list, and
 * freed by mlx5c_quarantine_release() once bus mastering is off (unload,
 * a failed load, recovery and PCI resets all clear it before the release).
 *
 * Two kinds of memory: DMA-coherent buffers of the PCI function (EQ rings
 * of mlx5_core, kernel rings of mlx5_ib), freed with dma_free_coherent(),
 * and pages the device reaches through a user's pinned memory, held by a
 * page reference (the owner releases its pin as usual; the pages stay
 * allocated until the release).
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "mlx5_core.h"

/**
 * struct mlx5c_quarantined - one buffer held until the device is quiesced
 * @list: in mdev->quarantine.list
 * @cpu: coherent buffer: its CPU address (NULL for pages)
 * @dma: coherent buffer: its bus address
 * @size: coherent buffer: its size in bytes
 * @npages: pages: how many
 * @pages: pages: each holds one reference taken here
 */
struct mlx5c_quarantined {
	struct list_head list;
	void *cpu;
	dma_addr_t dma;
	size_t size;
	unsigned long npages;
	struct page **pages;
};

static void quarantine_add(struct mlx5c_dev *mdev, struct mlx5c_quarantined *q,
			   size_t bytes)
{
	struct mlx5c_quarantine *qt = &mdev->quarantine;

	spin_lock(&qt->lock);
	list_add_tail(&q->list, &qt->list);
	qt->held++;
	qt->bytes += bytes;
	qt->total++;
	spin_unlock(&qt->lock);
}

/**
 * mlx5c_quarantine_coherent() - keep a coherent buffer until the device
 *	no longer masters the bus
 * @mdev: core device whose PCI function the buffer was allocated for
 * @cpu: the buffer, from dma_alloc_coherent() on mlx5c_pdev(@mdev)
 * @dma: its bus address
 * @size: its size
 *
 * The caller must not touch or free the buffer any more: mlx5_core frees
 * it with dma_free_coherent() after the function is quiesced. Without
 * memory for the bookkeeping the buffer is leaked, never freed early.
 */
void mlx5c_quarantine_coherent(struct mlx5c_dev *mdev, void *cpu,
			       dma_addr_t dma, size_t size)
{
	struct mlx5c_quarantined *q;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		/* The allocator's warning does not say what its failure costs. */
		dev_err(&mdev->pdev->dev,
			"no memory to track %zu bytes of DMA memory the device may write: leaked\n",
			size);
		return;
	}
	q->cpu = cpu;
	q->dma = dma;
	q->size = size;
	quarantine_add(mdev, q, size);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_quarantine_coherent, MLX5C_NS);

/**
 * mlx5c_quarantine_sgt() - keep the pages of a mapped scatter list
 *	allocated until the device no longer masters the bus
 * @mdev: core device
 * @sgt: pages the device may write (a user's pinned memory)
 *
 * Takes a reference on every page; the caller then releases the memory as
 * usual (unpin, unmap). Without memory for the bookkeeping the references
 * are kept for good: the pages are leaked, never freed early.
 */
void mlx5c_quarantine_sgt(struct mlx5c_dev *mdev, struct sg_table *sgt)
{
	struct mlx5c_quarantined *q;
	struct sg_page_iter it;
	unsigned long n = 0;

	for_each_sgtable_page(sgt, &it, 0)
		n++;
	if (!n)
		return;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (q)
		q->pages = kvcalloc(n, sizeof(*q->pages), GFP_KERNEL);
	if (!q || !q->pages) {
		dev_err(&mdev->pdev->dev,
			"no memory to track %lu pages the device may write: leaked\n", n);
		for_each_sgtable_page(sgt, &it, 0)
			get_page(sg_page_iter_page(&it));
		kfree(q);
		return;
	}
	for_each_sgtable_page(sgt, &it, 0) {
		if (q->npages == n)
			break;
		q->pages[q->npages] = sg_page_iter_page(&it);
		get_page(q->pages[q->npages++]);
	}
	quarantine_add(mdev, q, n * PAGE_SIZE);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_quarantine_sgt, MLX5C_NS);

/**
 * mlx5c_quarantine_release() - free what was kept
 * @mdev: core device whose function no longer masters the bus
 */
void mlx5c_quarantine_release(struct mlx5c_dev *mdev)
{
	struct mlx5c_quarantine *qt = &mdev->quarantine;
	struct mlx5c_quarantined *q, *tmp;
	unsigned long i;
	LIST_HEAD(list);
	unsigned int n;
	u64 bytes;

	spin_lock(&qt->lock);
	list_splice_init(&qt->list, &list);
	n = qt->held;
	bytes = qt->bytes;
	qt->held = 0;
	qt->bytes = 0;
	spin_unlock(&qt->lock);
	if (!n)
		return;
	list_for_each_entry_safe(q, tmp, &list, list) {
		if (q->cpu)
			dma_free_coherent(&mdev->pdev->dev, q->size, q->cpu, q->dma);
		for (i = 0; i < q->npages; i++)
			put_page(q->pages[i]);
		kvfree(q->pages);
		kfree(q);
	}
	dev_info(&mdev->pdev->dev,
		 "freed %u buffers (%llu KiB) kept since a command whose outcome was unknown: bus mastering is off\n",
		 n, bytes >> 10);
}

/**
 * mlx5c_quarantine_init() - an empty list
 * @mdev: core device
 */
void mlx5c_quarantine_init(struct mlx5c_dev *mdev)
{
	spin_lock_init(&mdev->quarantine.lock);
	INIT_LIST_HEAD(&mdev->quarantine.list);
}
