// SPDX-License-Identifier: GPL-2.0
/*
 * Queue memory of kernel CQs, QPs and SRQs. A ring is a list of
 * DMA-coherent pages (it never needs to be contiguous: the device reads
 * it through the page list of its CREATE command), followed by its
 * doorbell record in the same allocation, so that a queue the firmware
 * refuses to destroy keeps both with one reference (orphan.c).
 *
 * User queues come as pinned umems; mlx5c_ib_qpages describes either kind
 * to the CREATE commands.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

/* The doorbell record: two big-endian counters, 64-byte aligned. */
#define MLX5C_IB_DBREC_SIZE	64

/**
 * mlx5c_ib_kbuf_alloc() - allocate a kernel ring and its doorbell record
 * @dev: device
 * @size: ring bytes
 * @kbuf: the buffer (out); zeroed
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_kbuf_alloc(struct mlx5c_ib_dev *dev, size_t size,
			struct mlx5c_ib_kbuf *kbuf)
{
	size_t db_off = ALIGN(size, MLX5C_IB_DBREC_SIZE);
	u32 i;

	kbuf->size = size;
	kbuf->nfrags = DIV_ROUND_UP(db_off + MLX5C_IB_DBREC_SIZE, PAGE_SIZE);
	kbuf->frags = kcalloc(kbuf->nfrags, sizeof(*kbuf->frags), GFP_KERNEL);
	if (!kbuf->frags)
		return -ENOMEM;
	for (i = 0; i < kbuf->nfrags; i++) {
		kbuf->frags[i].buf = dma_alloc_coherent(&dev->pdev->dev,
							PAGE_SIZE,
							&kbuf->frags[i].dma,
							GFP_KERNEL);
		if (!kbuf->frags[i].buf)
			goto err_free;
	}
	kbuf->db = mlx5c_ib_kbuf_at(kbuf, db_off);
	kbuf->db_dma = kbuf->frags[db_off >> PAGE_SHIFT].dma +
		       (db_off & ~PAGE_MASK);
	return 0;

err_free:
	kbuf->nfrags = i;
	mlx5c_ib_kbuf_free(dev, kbuf);
	return -ENOMEM;
}

/**
 * mlx5c_ib_kbuf_free() - free a kernel ring
 * @dev: device
 * @kbuf: buffer from mlx5c_ib_kbuf_alloc(), or zeroed
 */
void mlx5c_ib_kbuf_free(struct mlx5c_ib_dev *dev, struct mlx5c_ib_kbuf *kbuf)
{
	u32 i;

	if (!kbuf->frags)
		return;
	for (i = 0; i < kbuf->nfrags; i++)
		dma_free_coherent(&dev->pdev->dev, PAGE_SIZE,
				  kbuf->frags[i].buf, kbuf->frags[i].dma);
	kfree(kbuf->frags);
	kbuf->frags = NULL;
	kbuf->nfrags = 0;
	kbuf->db = NULL;
}

/**
 * mlx5c_ib_qpages_init() - describe the pages of a ring for CREATE_*
 * @p: the description (out)
 * @umem: pinned user ring, or NULL
 * @kbuf: kernel ring (when @umem is NULL)
 *
 * Return: 0, or -EINVAL for a user ring whose start cannot be expressed.
 */
int mlx5c_ib_qpages_init(struct mlx5c_ib_qpages *p, struct ib_umem *umem,
			 const struct mlx5c_ib_kbuf *kbuf)
{
	p->umem = umem;
	p->kbuf = kbuf;
	if (umem) {
		p->pgsz = mlx5c_ib_queue_pgsz(umem, &p->page_offset);
		if (!p->pgsz)
			return -EINVAL;
		p->npas = ib_umem_num_dma_blocks(umem, p->pgsz);
		return 0;
	}
	p->pgsz = PAGE_SIZE;
	p->page_offset = 0;
	p->npas = DIV_ROUND_UP(kbuf->size, PAGE_SIZE);
	return 0;
}

/**
 * mlx5c_ib_qpages_log() - log_page_size field of a queue context
 * @p: the description
 *
 * Return: log2 of the page size in 4 KiB units.
 */
u32 mlx5c_ib_qpages_log(const struct mlx5c_ib_qpages *p)
{
	return order_base_2(p->pgsz) - MLX5_ADAPTER_PAGE_SHIFT;
}

/**
 * mlx5c_ib_qpages_fill() - write the page list of a ring
 * @p: the description
 * @pas: @p->npas big-endian entries (out)
 */
void mlx5c_ib_qpages_fill(const struct mlx5c_ib_qpages *p, __be64 *pas)
{
	size_t i;

	if (p->umem) {
		mlx5c_ib_fill_pas(p->umem, p->pgsz, pas, 0);
		return;
	}
	for (i = 0; i < p->npas; i++)
		pas[i] = cpu_to_be64(p->kbuf->frags[i].dma);
}
