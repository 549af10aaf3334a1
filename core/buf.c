// SPDX-License-Identifier: GPL-2.0
/*
 * Queue memory: the one allocator of the rings the device reads and
 * writes (the EQs of mlx5_core, the CQs, SQs and RQs of its netdev, the
 * kernel CQs, QPs and SRQs of mlx5_ib, the self-test CQs), the page list
 * (PAS) their CREATE commands carry, and their doorbell records.
 *
 * A ring is a list of PAGE_SIZE DMA-coherent pages. It never needs to be
 * physically contiguous, since the device reaches it through its page
 * list, and single pages are always to be had. No entry straddles a page:
 * CQEs, EQEs and send WQE basic blocks are 64 bytes, receive WQE strides
 * a power of two of at most a page.
 *
 * Doorbell records are 64-byte slots of per-device coherent pages (a small
 * slab): a queue needs 8 bytes, a page per queue would waste the rest.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "mlx5_core.h"

#define MLX5C_DBR_SIZE		64
#define MLX5C_DBR_PER_PAGE	(PAGE_SIZE / MLX5C_DBR_SIZE)

/**
 * struct mlx5c_db_page - one page of doorbell records
 * @node: in mdev->db_pages
 * @buf: CPU address
 * @dma: bus address
 * @used: slots handed out (allocated or quarantined)
 * @kept: slots quarantined: the device may still write them
 * @nused: bits set in @used
 * @nkept: bits set in @kept
 */
struct mlx5c_db_page {
	struct hlist_node node;
	void *buf;
	dma_addr_t dma;
	DECLARE_BITMAP(used, MLX5C_DBR_PER_PAGE);
	DECLARE_BITMAP(kept, MLX5C_DBR_PER_PAGE);
	unsigned int nused;
	unsigned int nkept;
};

/*
 * Serialises the doorbell-record slabs of every device: allocation is
 * rare (queue creation) and never in atomic context.
 */
static DEFINE_MUTEX(mlx5c_db_lock);

static int db_alloc(struct mlx5c_dev *mdev, struct mlx5c_buf *buf)
{
	struct mlx5c_db_page *pg;
	unsigned int i;

	mutex_lock(&mlx5c_db_lock);
	hlist_for_each_entry(pg, &mdev->db_pages, node)
		if (pg->nused < MLX5C_DBR_PER_PAGE)
			goto found;
	pg = kzalloc(sizeof(*pg), GFP_KERNEL);
	if (!pg)
		goto err;
	pg->buf = dma_alloc_coherent(&mdev->pdev->dev, PAGE_SIZE, &pg->dma,
				     GFP_KERNEL);
	if (!pg->buf) {
		kfree(pg);
		goto err;
	}
	hlist_add_head(&pg->node, &mdev->db_pages);
found:
	i = find_first_zero_bit(pg->used, MLX5C_DBR_PER_PAGE);
	__set_bit(i, pg->used);
	pg->nused++;
	mutex_unlock(&mlx5c_db_lock);
	buf->db = pg->buf + i * MLX5C_DBR_SIZE;
	buf->db_dma = pg->dma + i * MLX5C_DBR_SIZE;
	buf->db_page = pg;
	memset(buf->db, 0, MLX5C_DBR_SIZE);
	return 0;
err:
	mutex_unlock(&mlx5c_db_lock);
	return -ENOMEM;
}

/*
 * Give a slot back, or with @keep mark it as still the device's. A page
 * whose every slot is free is freed; one whose remaining slots are all
 * kept goes to the quarantine, which frees it once bus mastering is off.
 */
static void db_free(struct mlx5c_dev *mdev, struct mlx5c_buf *buf, bool keep)
{
	struct mlx5c_db_page *pg = buf->db_page;
	unsigned int i = (buf->db_dma - pg->dma) / MLX5C_DBR_SIZE;

	mutex_lock(&mlx5c_db_lock);
	if (keep) {
		__set_bit(i, pg->kept);
		pg->nkept++;
	} else {
		__clear_bit(i, pg->used);
		pg->nused--;
	}
	if (pg->nused == pg->nkept) {
		hlist_del(&pg->node);
		if (pg->nkept)
			mlx5c_quarantine_coherent(mdev, pg->buf, pg->dma, PAGE_SIZE);
		else
			dma_free_coherent(&mdev->pdev->dev, PAGE_SIZE, pg->buf,
					  pg->dma);
		kfree(pg);
	}
	mutex_unlock(&mlx5c_db_lock);
	buf->db = NULL;
	buf->db_page = NULL;
}

/*
 * Free the pages of a ring, or with @keep hand them to the quarantine;
 * then its doorbell record likewise.
 */
static void buf_release(struct mlx5c_dev *mdev, struct mlx5c_buf *buf, bool keep)
{
	u32 i;

	if (buf->frags) {
		for (i = 0; i < buf->nfrags; i++) {
			if (!buf->frags[i].buf)
				continue;
			if (keep)
				mlx5c_quarantine_coherent(mdev, buf->frags[i].buf,
							  buf->frags[i].dma,
							  PAGE_SIZE);
			else
				dma_free_coherent(&mdev->pdev->dev, PAGE_SIZE,
						  buf->frags[i].buf,
						  buf->frags[i].dma);
		}
		kfree(buf->frags);
	}
	if (buf->db_page)
		db_free(mdev, buf, keep);
	memset(buf, 0, sizeof(*buf));
}

/**
 * mlx5c_buf_alloc() - allocate a zeroed queue ring
 * @mdev: core device
 * @size: ring bytes (rounded up to whole pages)
 * @flags: MLX5C_BUF_DBR for a doorbell record too (zeroed)
 * @buf: the ring (out)
 *
 * Return: 0, -EINVAL for an empty ring, or -ENOMEM (then @buf is zeroed).
 */
int mlx5c_buf_alloc(struct mlx5c_dev *mdev, size_t size, unsigned int flags,
		    struct mlx5c_buf *buf)
{
	u32 i;

	memset(buf, 0, sizeof(*buf));
	if (!size)
		return -EINVAL;
	buf->size = size;
	buf->nfrags = DIV_ROUND_UP(size, PAGE_SIZE);
	buf->frags = kcalloc(buf->nfrags, sizeof(*buf->frags), GFP_KERNEL);
	if (!buf->frags)
		goto err;
	for (i = 0; i < buf->nfrags; i++) {
		buf->frags[i].buf = dma_alloc_coherent(&mdev->pdev->dev,
						       PAGE_SIZE,
						       &buf->frags[i].dma,
						       GFP_KERNEL);
		if (!buf->frags[i].buf)
			goto err;
	}
	if ((flags & MLX5C_BUF_DBR) && db_alloc(mdev, buf))
		goto err;
	return 0;
err:
	buf_release(mdev, buf, false);
	return -ENOMEM;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_buf_alloc, MLX5C_NS);

/**
 * mlx5c_buf_free() - free a queue ring and its doorbell record
 * @mdev: core device
 * @buf: ring from mlx5c_buf_alloc(), or zeroed (then nothing happens);
 *	zeroed on return
 *
 * The device must no longer access the ring: its queue was destroyed, or
 * never created.
 */
void mlx5c_buf_free(struct mlx5c_dev *mdev, struct mlx5c_buf *buf)
{
	buf_release(mdev, buf, false);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_buf_free, MLX5C_NS);

/**
 * mlx5c_buf_quarantine() - give up a ring the device may still access
 * @mdev: core device
 * @buf: ring from mlx5c_buf_alloc(), or zeroed; zeroed on return
 *
 * For a queue whose CREATE may have run or whose DESTROY failed
 * (mlx5c_cmd_maybe_ran()): the pages and the doorbell record are freed
 * only once bus mastering is off.
 */
void mlx5c_buf_quarantine(struct mlx5c_dev *mdev, struct mlx5c_buf *buf)
{
	buf_release(mdev, buf, true);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_buf_quarantine, MLX5C_NS);

/**
 * mlx5c_buf_fill_pas() - write the page list of a ring
 * @buf: ring from mlx5c_buf_alloc()
 * @pas: @buf->nfrags big-endian bus addresses (out), the pas field of a
 *	CREATE_EQ, CREATE_CQ, CREATE_QP, CREATE_SRQ or a wq context; their
 *	log_page_size is MLX5C_BUF_LOG_PAGE_SIZE
 */
void mlx5c_buf_fill_pas(const struct mlx5c_buf *buf, __be64 *pas)
{
	u32 i;

	for (i = 0; i < buf->nfrags; i++)
		pas[i] = cpu_to_be64(buf->frags[i].dma);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_buf_fill_pas, MLX5C_NS);
