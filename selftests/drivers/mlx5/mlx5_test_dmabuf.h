/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlx5_test_dmabuf.h - the ioctls of the test-only DMA-BUF exporter
 * (dmabuf_exporter/mlx5_test_dmabuf.ko, /dev/mlx5_test_dmabuf): a dynamic
 * exporter of its own pages that moves a buffer to new pages on request,
 * telling its importers first (dma_buf_invalidate_mappings()). Shared by
 * the module and the test programs.
 */
#ifndef MLX5_TEST_DMABUF_H
#define MLX5_TEST_DMABUF_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* CREATE: a buffer of size bytes (whole pages, at most 64 MiB); fd out. */
struct mlx5_test_dmabuf_create {
	__u64 size;
	__s32 fd;
	__u32 reserved;
};

/* READ / WRITE: len bytes at offset of the buffer fd, to / from ptr. */
struct mlx5_test_dmabuf_rw {
	__s32 fd;
	__u32 reserved;
	__u64 offset;
	__u64 len;	/* at most 1 MiB a call */
	__u64 ptr;
};

/* STATE: the buffer's importers as the exporter sees them. */
struct mlx5_test_dmabuf_state {
	__s32 fd;
	__u32 attachments;	/* attached devices */
	__u32 pins;		/* dma_buf_pin() not yet undone */
	__u32 mappings;		/* scatter lists mapped and not unmapped */
	__u32 moves;		/* moves done */
	__u32 reserved;
};

#define MLX5_TEST_DMABUF_CREATE	_IOWR('x', 1, struct mlx5_test_dmabuf_create)
/* MOVE: new pages, the content copied; EBUSY while an importer pins it. */
#define MLX5_TEST_DMABUF_MOVE	_IOW('x', 2, __s32)
#define MLX5_TEST_DMABUF_READ	_IOW('x', 3, struct mlx5_test_dmabuf_rw)
#define MLX5_TEST_DMABUF_WRITE	_IOW('x', 4, struct mlx5_test_dmabuf_rw)
#define MLX5_TEST_DMABUF_STATE	_IOWR('x', 5, struct mlx5_test_dmabuf_state)

#endif /* MLX5_TEST_DMABUF_H */
