/* SPDX-License-Identifier: GPL-2.0 */
/* mlx5_core internal definitions. */
#ifndef MLX5C_CORE_INTERNAL_H
#define MLX5C_CORE_INTERNAL_H

#include <linux/pci.h>
#include <mlx5c/core.h>

#define MLX5C_DRV_NAME "mlx5_core"

/* Initialization segment offsets (BAR0, big-endian registers). */
#define MLX5C_ISEG_FW_REV		0x000
#define MLX5C_ISEG_CMDIF_REV_FW_SUB	0x004
#define MLX5C_ISEG_CMDQ_ADDR_H		0x010
#define MLX5C_ISEG_CMDQ_ADDR_L_SZ	0x014
#define MLX5C_ISEG_CMD_DBELL		0x018
#define MLX5C_ISEG_INITIALIZING		0x1fc
#define MLX5C_ISEG_HEALTH		0x200
#define MLX5C_ISEG_HEALTH_COUNTER	0x1010
#define MLX5C_ISEG_SIZE			0x2010

#define MLX5C_CMDIF_REV			5
#define MLX5C_ISEG_INITIALIZING_BIT	BIT(31)

/**
 * struct mlx5c_dev - one ConnectX PCI function driven by mlx5_core
 */
struct mlx5c_dev {
	struct pci_dev *pdev;
	void __iomem *iseg;
	u16 fw_major, fw_minor, fw_sub;
	int num_vectors;
	struct mlx5c_adev *rdma_adev;
};

int mlx5c_aux_add(struct mlx5c_dev *mdev);
void mlx5c_aux_del(struct mlx5c_dev *mdev);

#endif /* MLX5C_CORE_INTERNAL_H */
