// SPDX-License-Identifier: GPL-2.0
/*
 * mlx5_core of mlx5-clone: PCI driver for NVIDIA/Mellanox ConnectX adapters.
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "mlx5_core.h"

MODULE_DESCRIPTION("mlx5-clone core driver for ConnectX adapters");
MODULE_LICENSE("GPL");

/* Time allowed for the firmware to clear the "initializing" bit. */
#define MLX5C_FW_INIT_TIMEOUT_MS	120000
#define MLX5C_FW_INIT_POLL_MS		2

static const struct pci_device_id mlx5c_pci_table[] = {
	{ PCI_VDEVICE(MELLANOX, 0x1011) },	/* Connect-IB */
	{ PCI_VDEVICE(MELLANOX, 0x1013) },	/* ConnectX-4 */
	{ PCI_VDEVICE(MELLANOX, 0x1015) },	/* ConnectX-4 Lx */
	{ PCI_VDEVICE(MELLANOX, 0x1017) },	/* ConnectX-5 */
	{ PCI_VDEVICE(MELLANOX, 0x1019) },	/* ConnectX-5 Ex */
	{ PCI_VDEVICE(MELLANOX, 0x101b) },	/* ConnectX-6 */
	{ PCI_VDEVICE(MELLANOX, 0x101d) },	/* ConnectX-6 Dx */
	{ PCI_VDEVICE(MELLANOX, 0x101f) },	/* ConnectX-6 Lx */
	{ PCI_VDEVICE(MELLANOX, 0x1021) },	/* ConnectX-7 */
	{ PCI_VDEVICE(MELLANOX, 0x1023) },	/* ConnectX-8 */
	{ }
};
MODULE_DEVICE_TABLE(pci, mlx5c_pci_table);

static u32 iseg_read(struct mlx5c_dev *mdev, unsigned int off)
{
	return ioread32be(mdev->iseg + off);
}

static int mlx5c_wait_fw_ready(struct mlx5c_dev *mdev)
{
	unsigned long end = jiffies + msecs_to_jiffies(MLX5C_FW_INIT_TIMEOUT_MS);

	while (iseg_read(mdev, MLX5C_ISEG_INITIALIZING) & MLX5C_ISEG_INITIALIZING_BIT) {
		if (pci_channel_offline(mdev->pdev))
			return -EIO;
		if (time_after(jiffies, end)) {
			dev_err(&mdev->pdev->dev, "firmware stayed in initializing state for %d ms\n",
				MLX5C_FW_INIT_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		msleep(MLX5C_FW_INIT_POLL_MS);
	}
	return 0;
}

static int mlx5c_read_fw_rev(struct mlx5c_dev *mdev)
{
	u32 rev = iseg_read(mdev, MLX5C_ISEG_FW_REV);
	u32 cmdif = iseg_read(mdev, MLX5C_ISEG_CMDIF_REV_FW_SUB);

	if (rev == 0xffffffff) {
		dev_err(&mdev->pdev->dev, "device does not answer (BAR0 reads all-ones)\n");
		return -EIO;
	}
	mdev->fw_major = rev & 0xffff;
	mdev->fw_minor = rev >> 16;
	mdev->fw_sub = cmdif & 0xffff;
	dev_info(&mdev->pdev->dev, "firmware version %u.%u.%u, command interface revision %u\n",
		 mdev->fw_major, mdev->fw_minor, mdev->fw_sub, cmdif >> 16);
	if ((cmdif >> 16) != MLX5C_CMDIF_REV) {
		dev_err(&mdev->pdev->dev, "command interface revision %u unsupported (need %u)\n",
			cmdif >> 16, MLX5C_CMDIF_REV);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int mlx5c_pci_init(struct mlx5c_dev *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "BAR0 is not a memory BAR\n");
		return -ENODEV;
	}
	if (pci_resource_len(pdev, 0) < MLX5C_ISEG_SIZE) {
		dev_err(&pdev->dev, "BAR0 too small for the initialization segment\n");
		return -ENODEV;
	}
	err = pcim_request_region(pdev, 0, MLX5C_DRV_NAME);
	if (err)
		return err;
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (err) {
		dev_err(&pdev->dev, "no usable DMA mask\n");
		return err;
	}
	mdev->iseg = pcim_iomap(pdev, 0, MLX5C_ISEG_SIZE);
	if (!mdev->iseg)
		return -ENOMEM;
	return 0;
}

static int mlx5c_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct mlx5c_dev *mdev;
	int err;

	mdev = devm_kzalloc(&pdev->dev, sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->pdev = pdev;
	pci_set_drvdata(pdev, mdev);

	err = mlx5c_pci_init(mdev);
	if (err)
		return err;
	err = mlx5c_read_fw_rev(mdev);
	if (err)
		return err;
	err = mlx5c_wait_fw_ready(mdev);
	if (err)
		return err;

	mdev->num_vectors = pci_alloc_irq_vectors(pdev, 1, num_online_cpus() + 1, PCI_IRQ_MSIX);
	if (mdev->num_vectors < 0) {
		dev_err(&pdev->dev, "MSI-X allocation failed: %d\n", mdev->num_vectors);
		return mdev->num_vectors;
	}

	err = mlx5c_aux_add(mdev);
	if (err)
		goto err_irq;

	dev_info(&pdev->dev, "probed, %d MSI-X vectors\n", mdev->num_vectors);
	return 0;

err_irq:
	pci_free_irq_vectors(pdev);
	return err;
}

static void mlx5c_remove(struct pci_dev *pdev)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	mlx5c_aux_del(mdev);
	pci_free_irq_vectors(pdev);
	dev_info(&pdev->dev, "removed\n");
}

static struct pci_driver mlx5c_pci_driver = {
	.name = MLX5C_DRV_NAME,
	.id_table = mlx5c_pci_table,
	.probe = mlx5c_probe,
	.remove = mlx5c_remove,
};
module_pci_driver(mlx5c_pci_driver);
