/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between mlx5_core and mlx5_ib of mlx5-clone.
 *
 * mlx5_core owns the PCI function and the firmware; it exports what the
 * RDMA driver needs in the MLX5_CLONE symbol namespace. Exported symbols
 * carry the mlx5c_ prefix so they never collide with the in-tree driver's.
 */
#ifndef MLX5C_CORE_H
#define MLX5C_CORE_H

#include <linux/auxiliary_bus.h>
#include <linux/pci.h>
#include <linux/types.h>

#define MLX5C_AUX_RDMA_NAME	"rdma"

struct mlx5c_dev;

/**
 * struct mlx5c_adev - auxiliary device published by mlx5_core
 * @adev: the auxiliary device ("mlx5_core.rdma.N")
 * @mdev: the core device it belongs to
 */
struct mlx5c_adev {
	struct auxiliary_device adev;
	struct mlx5c_dev *mdev;
};

static inline struct mlx5c_adev *to_mlx5c_adev(struct auxiliary_device *adev)
{
	return container_of(adev, struct mlx5c_adev, adev);
}

struct pci_dev *mlx5c_pdev(struct mlx5c_dev *mdev);
void mlx5c_fw_version(struct mlx5c_dev *mdev, u16 *major, u16 *minor, u16 *sub);

#endif /* MLX5C_CORE_H */
