// SPDX-License-Identifier: GPL-2.0
/*
 * UAR pages: doorbell pages in BAR0, allocated with ALLOC_UAR. mlx5_core
 * keeps one for its EQs and kernel CQs; user contexts get their own.
 */
#include <linux/io.h>

#include "mlx5_core.h"

/**
 * mlx5c_uar_alloc() - allocate a UAR page
 * @mdev: core device
 * @uid: user id (0 for kernel use)
 * @index: the UAR index (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_uar_alloc(struct mlx5c_dev *mdev, u16 uid, u32 *index)
{
	u32 out[MLX5_ST_SZ_DW(alloc_uar_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_uar_in)] = {};
	int err;

	MLX5_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	MLX5_SET(alloc_uar_in, in, uid, uid);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*index = MLX5_GET(alloc_uar_out, out, uar);
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_uar_alloc, MLX5C_NS);

/**
 * mlx5c_uar_free() - free a UAR page
 * @mdev: core device
 * @uid: user id it was allocated with
 * @index: UAR index
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_uar_free(struct mlx5c_dev *mdev, u16 uid, u32 index)
{
	u32 out[MLX5_ST_SZ_DW(dealloc_uar_out)] = {};
	u32 in[MLX5_ST_SZ_DW(dealloc_uar_in)] = {};

	MLX5_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	MLX5_SET(dealloc_uar_in, in, uid, uid);
	MLX5_SET(dealloc_uar_in, in, uar, index);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_uar_free, MLX5C_NS);

/**
 * mlx5c_uar_phys() - physical address of a UAR
 * @mdev: core device
 * @index: UAR index
 *
 * With 4 KiB UARs on a larger system page, the address is inside the
 * system page index >> (PAGE_SHIFT - 12); otherwise each UAR is one system
 * page of BAR0.
 *
 * Return: the address of the UAR's doorbell area.
 */
phys_addr_t mlx5c_uar_phys(struct mlx5c_dev *mdev, u32 index)
{
	if (MLX5C_CAP_GEN(mdev, uar_4k))
		return mdev->bar_addr + (phys_addr_t)index * MLX5_ADAPTER_PAGE_SIZE;
	return mdev->bar_addr + (phys_addr_t)index * PAGE_SIZE;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_uar_phys, MLX5C_NS);

/**
 * mlx5c_kernel_uar_index() - index of mlx5_core's own UAR
 * @mdev: core device
 *
 * Kernel CQs may use it as their uar_page.
 *
 * Return: the UAR index.
 */
u32 mlx5c_kernel_uar_index(struct mlx5c_dev *mdev)
{
	return mdev->uar_index;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_kernel_uar_index, MLX5C_NS);

/**
 * mlx5c_kernel_uar_map() - mapping of mlx5_core's own UAR
 * @mdev: core device
 *
 * Return: the mapped UAR (for mlx5c_cq_arm() of kernel CQs).
 */
void __iomem *mlx5c_kernel_uar_map(struct mlx5c_dev *mdev)
{
	return mdev->uar_map;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_kernel_uar_map, MLX5C_NS);

/**
 * mlx5c_kernel_uar_alloc() - allocate and map mlx5_core's own UAR
 * @mdev: core device after INIT_HCA
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_kernel_uar_alloc(struct mlx5c_dev *mdev)
{
	phys_addr_t phys;
	void __iomem *map;
	int err;

	err = mlx5c_uar_alloc(mdev, 0, &mdev->uar_index);
	if (err)
		return err;
	phys = mlx5c_uar_phys(mdev, mdev->uar_index);
	if (phys + MLX5_ADAPTER_PAGE_SIZE >
	    mdev->bar_addr + pci_resource_len(mdev->pdev, 0)) {
		dev_err(&mdev->pdev->dev, "UAR %u is outside BAR0\n", mdev->uar_index);
		err = -EINVAL;
		goto err_free;
	}
	map = ioremap(phys & PAGE_MASK, PAGE_SIZE);
	if (!map) {
		err = -ENOMEM;
		goto err_free;
	}
	mdev->uar_map = map + (phys & ~PAGE_MASK);
	return 0;

err_free:
	mlx5c_uar_free(mdev, 0, mdev->uar_index);
	return err;
}

/**
 * mlx5c_kernel_uar_free() - unmap and free mlx5_core's own UAR
 * @mdev: core device
 */
void mlx5c_kernel_uar_free(struct mlx5c_dev *mdev)
{
	iounmap((void __iomem *)((unsigned long)mdev->uar_map & PAGE_MASK));
	mdev->uar_map = NULL;
	mlx5c_uar_free(mdev, 0, mdev->uar_index);
}
