// SPDX-License-Identifier: GPL-2.0
/*
 * mlx5_ib of mlx5-clone: RDMA driver bound to mlx5_core's "rdma"
 * auxiliary devices.
 */
#include <linux/auxiliary_bus.h>
#include <linux/module.h>

#include <mlx5c/core.h>

MODULE_DESCRIPTION("mlx5-clone InfiniBand driver for ConnectX adapters");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("MLX5_CLONE");

static int mlx5c_ib_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct mlx5c_dev *mdev = to_mlx5c_adev(adev)->mdev;
	u16 major, minor, sub;

	mlx5c_fw_version(mdev, &major, &minor, &sub);
	dev_info(&adev->dev, "bound to %s, firmware %u.%u.%u\n",
		 pci_name(mlx5c_pdev(mdev)), major, minor, sub);
	return 0;
}

static void mlx5c_ib_remove(struct auxiliary_device *adev)
{
	dev_info(&adev->dev, "unbound\n");
}

static const struct auxiliary_device_id mlx5c_ib_id_table[] = {
	{ .name = "mlx5_core." MLX5C_AUX_RDMA_NAME },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, mlx5c_ib_id_table);

static struct auxiliary_driver mlx5c_ib_driver = {
	.name = "rdma",
	.probe = mlx5c_ib_probe,
	.remove = mlx5c_ib_remove,
	.id_table = mlx5c_ib_id_table,
};
module_auxiliary_driver(mlx5c_ib_driver);
