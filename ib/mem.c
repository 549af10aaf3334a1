// SPDX-License-Identifier: GPL-2.0
/*
 * Memory described to the device and to user space: the driver-data
 * (udata) exchange of the verbs, the page lists (PAS) of pinned user
 * memory, and the page description of a queue ring, user (a umem) or
 * kernel (a ring of mlx5c_buf_alloc()), for CREATE_CQ/QP/SRQ.
 */
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "mlx5_ib.h"

/**
 * mlx5c_ib_udata_in() - copy a driver request from user space
 * @udata: driver data
 * @req: request structure (out)
 * @min: smallest request length accepted (older providers send less)
 * @size: size of @req
 *
 * Shorter requests are zero-filled; bytes beyond @size must be zero.
 *
 * Return: 0, -EINVAL for a short request, -EOPNOTSUPP for unknown
 * non-zero trailing bytes, -EFAULT.
 */
int mlx5c_ib_udata_in(struct ib_udata *udata, void *req, size_t min,
		      size_t size)
{
	size_t len;

	memset(req, 0, size);
	if (!udata || udata->inlen < min)
		return -EINVAL;
	len = min(udata->inlen, size);
	if (ib_copy_from_udata(req, udata, len))
		return -EFAULT;
	if (udata->inlen > size &&
	    !ib_is_udata_cleared(udata, size, udata->inlen - size))
		return -EOPNOTSUPP;
	return 0;
}

/**
 * mlx5c_ib_udata_out() - copy a driver response to user space
 * @udata: driver data
 * @resp: response
 * @size: size of @resp
 *
 * The response is truncated to what the caller's buffer holds.
 *
 * Return: 0 or -EFAULT.
 */
int mlx5c_ib_udata_out(struct ib_udata *udata, const void *resp, size_t size)
{
	size_t len = min(udata->outlen, size);

	if (!len)
		return 0;
	return ib_copy_to_udata(udata, (void *)resp, len) ? -EFAULT : 0;
}

/**
 * mlx5c_ib_fill_pas() - write the bus addresses of a umem's blocks
 * @umem: pinned memory
 * @pgsz: block size (PAGE_SIZE or from ib_umem_find_best_pgsz())
 * @pas: ib_umem_num_dma_blocks(@umem, @pgsz) big-endian entries (out)
 * @flags: low bits or'ed into each entry (MTT access bits)
 */
void mlx5c_ib_fill_pas(struct ib_umem *umem, unsigned long pgsz, __be64 *pas,
		       u64 flags)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz)
		pas[i++] = cpu_to_be64(rdma_block_iter_dma_address(&biter) | flags);
}

/**
 * mlx5c_ib_queue_pgsz() - page size of a CQ, QP or SRQ buffer
 * @umem: the pinned ring; its first byte is the ring's first byte
 * @page_offset: (out) where the ring starts in its first page, in 64ths of
 *	the page (the page_offset field of the CQ, QP and SRQ contexts)
 *
 * The largest page size of MLX5C_IB_PGSZ_BITMAP that maps the ring with
 * one page list entry per page and lets the ring start at a multiple of
 * 1/64 page: the fewer entries, the shorter CREATE_CQ/QP/SRQ.
 *
 * Return: the page size, or 0 if the ring starts at an offset that cannot
 * be expressed (not a multiple of 64 bytes into a 4 KiB page).
 */
unsigned long mlx5c_ib_queue_pgsz(struct ib_umem *umem, u32 *page_offset)
{
	u64 va = umem->address;
	unsigned long pgsz;

	pgsz = ib_umem_find_best_pgsz(umem, MLX5C_IB_PGSZ_BITMAP, va);
	for (; pgsz >= MLX5_ADAPTER_PAGE_SIZE; pgsz >>= 1) {
		u64 off = va & (pgsz - 1);

		if (!(off & (pgsz / 64 - 1))) {
			*page_offset = off / (pgsz / 64);
			return pgsz;
		}
	}
	return 0;
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
			 const struct mlx5c_buf *kbuf)
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
	p->pgsz = PAGE_SIZE;	/* mlx5c_buf_alloc() */
	p->page_offset = 0;
	p->npas = kbuf->nfrags;
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
	if (p->umem)
		mlx5c_ib_fill_pas(p->umem, p->pgsz, pas, 0);
	else
		mlx5c_buf_fill_pas(p->kbuf, pas);
}
