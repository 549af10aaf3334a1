// SPDX-License-Identifier: GPL-2.0
/*
 * Queue buffers of the netdev: physically contiguous DMA-coherent memory,
 * described to the device as a list of 4 KiB pages.
 */
#include <linux/dma-mapping.h>

#include "en.h"

#define MLX5C_EN_PAS_PAGE	4096

/**
 * mlx5c_en_buf_alloc() - allocate a zeroed queue buffer
 * @priv: netdev private data
 * @buf: buffer to fill in
 * @size: bytes, rounded up to 4 KiB
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_en_buf_alloc(struct mlx5c_en_priv *priv, struct mlx5c_en_buf *buf, size_t size)
{
	buf->size = ALIGN(size, MLX5C_EN_PAS_PAGE);
	buf->va = dma_alloc_coherent(&priv->mdev->pdev->dev, buf->size, &buf->dma, GFP_KERNEL);
	return buf->va ? 0 : -ENOMEM;
}

/**
 * mlx5c_en_buf_free() - free a queue buffer (no-op for an empty one)
 * @priv: netdev private data
 * @buf: buffer
 */
void mlx5c_en_buf_free(struct mlx5c_en_priv *priv, struct mlx5c_en_buf *buf)
{
	if (buf->va)
		dma_free_coherent(&priv->mdev->pdev->dev, buf->size, buf->va, buf->dma);
	buf->va = NULL;
}

/**
 * mlx5c_en_buf_fill_pas() - write the page list of a buffer
 * @buf: buffer
 * @pas: one big-endian bus address per 4 KiB page
 */
void mlx5c_en_buf_fill_pas(const struct mlx5c_en_buf *buf, __be64 *pas)
{
	size_t i;

	for (i = 0; i < buf->size / MLX5C_EN_PAS_PAGE; i++)
		pas[i] = cpu_to_be64(buf->dma + i * MLX5C_EN_PAS_PAGE);
}
