/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat.h - isolate the kernel API differences mlx5_ib builds against.
 *
 * The HAVE_* macros come from the compile-time probes of
 * scripts/kcompat/probes/ (see include/mlx5c/kcompat.h); the RDMA object
 * code uses only the wrappers below. Supported: Debian trixie 6.12 up to
 * the toolbox kernel.
 */
#ifndef MLX5C_IB_KCOMPAT_H
#define MLX5C_IB_KCOMPAT_H

#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <mlx5c/kcompat.h>

/* Pin user memory by virtual address. */
static inline struct ib_umem *mlx5c_umem_get(struct ib_device *ibdev, u64 addr,
					     size_t size, int access)
{
#ifdef HAVE_IB_UMEM_GET_VA
	return ib_umem_get_va(ibdev, addr, size, access);
#else
	return ib_umem_get(ibdev, addr, size, access);
#endif
}

/*
 * Pin a CQ ring: newer kernels let user space pass the ring as an ioctl
 * buffer attribute instead of the address in the driver data.
 */
static inline struct ib_umem *mlx5c_umem_get_cq(struct ib_device *ibdev,
						struct uverbs_attr_bundle *attrs,
						u64 addr, size_t size)
{
#ifdef HAVE_IB_UMEM_GET_CQ_BUF
	return ib_umem_get_cq_buf_or_va(ibdev, attrs, addr, size,
					IB_ACCESS_LOCAL_WRITE);
#else
	return mlx5c_umem_get(ibdev, addr, size, IB_ACCESS_LOCAL_WRITE);
#endif
}

/* reg_user_mr gained a DMA-handle argument. */
#ifdef HAVE_REG_USER_MR_DMAH
#define MLX5C_REG_MR_DMAH_ARG	struct ib_dmah *dmah,
#else
#define MLX5C_REG_MR_DMAH_ARG
#endif

/* reg_user_mr_dmabuf took the call's udata, then the whole call. */
#if defined(HAVE_REG_USER_MR_DMAH) || defined(HAVE_REG_DMABUF_MR_ATTR_BUNDLE)
#define MLX5C_DMABUF_MR_CALL		struct uverbs_attr_bundle *attrs
#define MLX5C_DMABUF_MR_UDATA		(attrs ? &attrs->driver_udata : NULL)
#else
#define MLX5C_DMABUF_MR_CALL		struct ib_udata *udata
#define MLX5C_DMABUF_MR_UDATA		udata
#endif

/* The importer's callback for a moving DMA-BUF was renamed. */
#ifdef HAVE_DMA_BUF_INVALIDATE_MAPPINGS
#define MLX5C_DMABUF_MOVE_OP		invalidate_mappings
#else
#define MLX5C_DMABUF_MOVE_OP		move_notify
#endif

#endif /* MLX5C_IB_KCOMPAT_H */
