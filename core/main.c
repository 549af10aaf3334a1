// SPDX-License-Identifier: GPL-2.0
/*
 * mlx5_core of mlx5-clone: PCI driver for NVIDIA/Mellanox ConnectX adapters.
 *
 * Probe brings the function up in the order the firmware expects: wait for
 * the firmware, command queue, ENABLE_HCA, ISSI, boot pages, capabilities,
 * init pages, INIT_HCA, then the UAR, MSI-X vectors and EQs; remove (and
 * every probe failure) undoes exactly what was done, in reverse. A PF with
 * the SR-IOV capability enables VFs through sriov_configure (sriov.c).
 */
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mlx5_core.h"

MODULE_DESCRIPTION("mlx5-clone core driver for ConnectX adapters");
MODULE_LICENSE("GPL");
MODULE_VERSION(MLX5C_DRV_VERSION);

static unsigned int fw_pre_init_timeout_ms = 120000;
module_param(fw_pre_init_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fw_pre_init_timeout_ms,
		 "Time the firmware may stay in the initializing state at probe (ms)");

#define MLX5C_FW_INIT_TIMEOUT_MS	2000
#define MLX5C_FW_INIT_POLL_MS		2
#define MLX5C_FW_INIT_WARN_MS		20000

static u32 mlx5c_sw_owner_id[4];

/* driver_data of a virtual function's device ID */
#define MLX5C_PCI_VF	1

static const struct pci_device_id mlx5c_pci_table[] = {
	{ PCI_VDEVICE(MELLANOX, 0x1011) },	/* Connect-IB */
	{ PCI_VDEVICE(MELLANOX, 0x1012), MLX5C_PCI_VF },	/* Connect-IB VF */
	{ PCI_VDEVICE(MELLANOX, 0x1013) },	/* ConnectX-4 */
	{ PCI_VDEVICE(MELLANOX, 0x1014), MLX5C_PCI_VF },	/* ConnectX-4 VF */
	{ PCI_VDEVICE(MELLANOX, 0x1015) },	/* ConnectX-4 Lx */
	{ PCI_VDEVICE(MELLANOX, 0x1016), MLX5C_PCI_VF },	/* ConnectX-4 Lx VF */
	{ PCI_VDEVICE(MELLANOX, 0x1017) },	/* ConnectX-5 */
	{ PCI_VDEVICE(MELLANOX, 0x1018), MLX5C_PCI_VF },	/* ConnectX-5 VF */
	{ PCI_VDEVICE(MELLANOX, 0x1019) },	/* ConnectX-5 Ex */
	{ PCI_VDEVICE(MELLANOX, 0x101a), MLX5C_PCI_VF },	/* ConnectX-5 Ex VF */
	{ PCI_VDEVICE(MELLANOX, 0x101b) },	/* ConnectX-6 */
	{ PCI_VDEVICE(MELLANOX, 0x101c), MLX5C_PCI_VF },	/* ConnectX-6 VF */
	{ PCI_VDEVICE(MELLANOX, 0x101d) },	/* ConnectX-6 Dx */
	{ PCI_VDEVICE(MELLANOX, 0x101e), MLX5C_PCI_VF },	/* ConnectX-6 Dx and later VF */
	{ PCI_VDEVICE(MELLANOX, 0x101f) },	/* ConnectX-6 Lx */
	{ PCI_VDEVICE(MELLANOX, 0x1021) },	/* ConnectX-7 */
	{ PCI_VDEVICE(MELLANOX, 0x1023) },	/* ConnectX-8 */
	{ PCI_VDEVICE(MELLANOX, 0xa2d3), MLX5C_PCI_VF },	/* BlueField VF */
	{ }
};
MODULE_DEVICE_TABLE(pci, mlx5c_pci_table);

/* ---- Waiting for the firmware ------------------------------------------ */

static int mlx5c_wait_fw(struct mlx5c_dev *mdev, unsigned int timeout_ms,
			 const char *what)
{
	unsigned long start = jiffies;
	unsigned long end = start + msecs_to_jiffies(timeout_ms);
	unsigned long warn = start + msecs_to_jiffies(MLX5C_FW_INIT_WARN_MS);
	u32 reg;

	for (;;) {
		reg = mlx5c_iseg_read(mdev, MLX5C_ISEG_INITIALIZING);
		if (reg == 0xffffffff || pci_channel_offline(mdev->pdev)) {
			dev_err(&mdev->pdev->dev, "device lost while waiting for the firmware\n");
			return -ENODEV;
		}
		if (!(reg & MLX5C_ISEG_INITIALIZING_BIT))
			return 0;
		if (time_after(jiffies, end)) {
			dev_err(&mdev->pdev->dev,
				"firmware stayed in initializing state for %u ms (%s)\n",
				timeout_ms, what);
			return -ETIMEDOUT;
		}
		if (time_after(jiffies, warn)) {
			dev_warn(&mdev->pdev->dev,
				 "still waiting for the firmware (%s), %u ms\n", what,
				 jiffies_to_msecs(jiffies - start));
			warn = jiffies + msecs_to_jiffies(MLX5C_FW_INIT_WARN_MS);
		}
		msleep(MLX5C_FW_INIT_POLL_MS);
	}
}

static int mlx5c_read_fw_rev(struct mlx5c_dev *mdev)
{
	u32 rev = mlx5c_iseg_read(mdev, MLX5C_ISEG_FW_REV);
	u32 cmdif = mlx5c_iseg_read(mdev, MLX5C_ISEG_CMDIF_REV_FW_SUB);

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

static unsigned int fw_init_timeout_ms(struct mlx5c_dev *mdev)
{
	u32 reg = mlx5c_iseg_read(mdev, MLX5C_ISEG_CMD_Q_INIT_TO);

	return reg ? mlx5c_iseg_timeout_ms(reg) : MLX5C_FW_INIT_TIMEOUT_MS;
}

/* ---- PCI --------------------------------------------------------------- */

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
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (err) {
		dev_err(&pdev->dev, "no usable DMA mask\n");
		return err;
	}
	dma_set_max_seg_size(&pdev->dev, SZ_2G);
	if (pci_enable_atomic_ops_to_root(pdev, PCI_EXP_DEVCAP2_ATOMIC_COMP32 |
					  PCI_EXP_DEVCAP2_ATOMIC_COMP64 |
					  PCI_EXP_DEVCAP2_ATOMIC_COMP128))
		dev_dbg(&pdev->dev, "PCIe AtomicOps to the root port not enabled\n");
	mdev->bar_addr = pci_resource_start(pdev, 0);
	mdev->iseg = pcim_iomap(pdev, 0, MLX5C_ISEG_SIZE);
	if (!mdev->iseg)
		return -ENOMEM;
	return 0;
}

/* ---- Firmware commands of the bring-up --------------------------------- */

static int mlx5c_enable_hca(struct mlx5c_dev *mdev)
{
	u32 out[MLX5_ST_SZ_DW(enable_hca_out)] = {};
	u32 in[MLX5_ST_SZ_DW(enable_hca_in)] = {};
	int err;

	MLX5_SET(enable_hca_in, in, opcode, MLX5_CMD_OP_ENABLE_HCA);
	MLX5_SET(enable_hca_in, in, embedded_cpu_function, mdev->ecpu);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		mdev->hca_enabled = true;
	return err;
}

static void mlx5c_disable_hca(struct mlx5c_dev *mdev)
{
	u32 out[MLX5_ST_SZ_DW(disable_hca_out)] = {};
	u32 in[MLX5_ST_SZ_DW(disable_hca_in)] = {};
	int err;

	MLX5_SET(disable_hca_in, in, opcode, MLX5_CMD_OP_DISABLE_HCA);
	MLX5_SET(disable_hca_in, in, embedded_cpu_function, mdev->ecpu);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (err && err != -ENXIO)
		dev_warn(&mdev->pdev->dev, "DISABLE_HCA failed: %d\n", err);
	mdev->hca_enabled = false;
}

static int mlx5c_set_issi(struct mlx5c_dev *mdev)
{
	u32 qout[MLX5_ST_SZ_DW(query_issi_out)] = {};
	u32 qin[MLX5_ST_SZ_DW(query_issi_in)] = {};
	u32 sout[MLX5_ST_SZ_DW(set_issi_out)] = {};
	u32 sin[MLX5_ST_SZ_DW(set_issi_in)] = {};
	u32 supported;
	int err;

	MLX5_SET(query_issi_in, qin, opcode, MLX5_CMD_OP_QUERY_ISSI);
	err = __mlx5c_cmd_exec(mdev, qin, sizeof(qin), qout, sizeof(qout), true);
	if (err) {
		u8 status = MLX5_GET(query_issi_out, qout, status);

		/* A firmware without QUERY_ISSI speaks ISSI 0. */
		if (status && status != MLX5C_DRIVER_STATUS_ABORTED) {
			dev_info(&mdev->pdev->dev,
				 "QUERY_ISSI failed (status 0x%x, syndrome 0x%x): using ISSI 0\n",
				 status, MLX5_GET(query_issi_out, qout, syndrome));
			mdev->issi = 0;
			return 0;
		}
		dev_err(&mdev->pdev->dev, "QUERY_ISSI failed: %d\n", err);
		return err;
	}
	supported = MLX5_GET(query_issi_out, qout, supported_issi_dw0);
	if (supported & BIT(1)) {
		MLX5_SET(set_issi_in, sin, opcode, MLX5_CMD_OP_SET_ISSI);
		MLX5_SET(set_issi_in, sin, current_issi, 1);
		err = mlx5c_cmd_exec(mdev, sin, sizeof(sin), sout, sizeof(sout));
		if (err)
			return err;
		mdev->issi = 1;
		return 0;
	}
	if (!supported || (supported & BIT(0))) {
		mdev->issi = 0;
		return 0;
	}
	dev_err(&mdev->pdev->dev, "no supported ISSI (mask 0x%x)\n", supported);
	return -EOPNOTSUPP;
}

static int mlx5c_init_hca(struct mlx5c_dev *mdev)
{
	u32 out[MLX5_ST_SZ_DW(init_hca_out)] = {};
	u32 in[MLX5_ST_SZ_DW(init_hca_in)] = {};
	int i, err;

	MLX5_SET(init_hca_in, in, opcode, MLX5_CMD_OP_INIT_HCA);
	if (MLX5C_CAP_GEN(mdev, sw_owner_id))
		for (i = 0; i < 4; i++)
			MLX5_ARRAY_SET(init_hca_in, in, sw_owner_id, i, mlx5c_sw_owner_id[i]);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		mdev->hca_inited = true;
	return err;
}

static void mlx5c_teardown_hca(struct mlx5c_dev *mdev)
{
	u32 out[MLX5_ST_SZ_DW(teardown_hca_out)] = {};
	u32 in[MLX5_ST_SZ_DW(teardown_hca_in)] = {};
	int err;

	MLX5_SET(teardown_hca_in, in, opcode, MLX5_CMD_OP_TEARDOWN_HCA);
	MLX5_SET(teardown_hca_in, in, profile, 0);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (err && err != -ENXIO)
		dev_warn(&mdev->pdev->dev, "TEARDOWN_HCA failed: %d\n", err);
	mdev->hca_inited = false;
}

static void mlx5c_set_driver_version(struct mlx5c_dev *mdev)
{
	u32 out[MLX5_ST_SZ_DW(set_driver_version_out)] = {};
	u32 in[MLX5_ST_SZ_DW(set_driver_version_in)] = {};
	char *str;

	if (!MLX5C_CAP_GEN(mdev, driver_version))
		return;
	str = MLX5_ADDR_OF(set_driver_version_in, in, driver_version);
	strscpy(str, "Linux,mlx5_core," MLX5C_DRV_VERSION,
		MLX5_FLD_SZ_BYTES(set_driver_version_in, driver_version));
	MLX5_SET(set_driver_version_in, in, opcode, MLX5_CMD_OP_SET_DRIVER_VERSION);
	/* Informational only: a failure is logged and ignored. */
	mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

static int mlx5c_query_adapter(struct mlx5c_dev *mdev)
{
	int outlen = MLX5_ST_SZ_BYTES(query_adapter_out);
	u32 in[MLX5_ST_SZ_DW(query_adapter_in)] = {};
	void *out, *psid;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_adapter_in, in, opcode, MLX5_CMD_OP_QUERY_ADAPTER);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, outlen);
	if (!err) {
		psid = MLX5_ADDR_OF(query_adapter_out, out,
				    query_adapter_struct.vsd_contd_psid);
		memcpy(mdev->board_id, psid, sizeof(mdev->board_id) - 1);
		mdev->board_id[sizeof(mdev->board_id) - 1] = '\0';
		strim(mdev->board_id);
	}
	kfree(out);
	return err;
}

/* ENABLE_HCA to QUERY_ADAPTER, with the command interface in polling mode. */
static int mlx5c_function_setup(struct mlx5c_dev *mdev)
{
	int err;

	err = mlx5c_enable_hca(mdev);
	if (err)
		return err;
	err = mlx5c_set_issi(mdev);
	if (err)
		goto err_disable;
	err = mlx5c_pages_startup(mdev, true);
	if (err)
		goto err_reclaim;
	err = mlx5c_caps_query(mdev, MLX5_CAP_GENERAL);
	if (err)
		goto err_reclaim;
	err = mlx5c_caps_set_general(mdev);
	if (err)
		goto err_reclaim;
	err = mlx5c_caps_set_atomic(mdev);
	if (err)
		goto err_reclaim;
	err = mlx5c_caps_set_roce(mdev);
	if (err)
		goto err_reclaim;
	err = mlx5c_pages_startup(mdev, false);
	if (err)
		goto err_reclaim;
	err = mlx5c_init_hca(mdev);
	if (err)
		goto err_reclaim;
	mlx5c_set_driver_version(mdev);
	err = mlx5c_caps_query_optional(mdev);
	if (err)
		goto err_teardown;
	err = mlx5c_query_adapter(mdev);
	if (err)
		goto err_teardown;
	return 0;

err_teardown:
	mlx5c_teardown_hca(mdev);
err_reclaim:
	mlx5c_pages_reclaim_all(mdev);
err_disable:
	mlx5c_disable_hca(mdev);
	return err;
}

static void mlx5c_function_teardown(struct mlx5c_dev *mdev)
{
	mlx5c_teardown_hca(mdev);
	mlx5c_pages_reclaim_all(mdev);
	mlx5c_disable_hca(mdev);
}

/* Kernel UAR, MSI-X vectors, EQs: the device becomes event driven. */
static int mlx5c_load(struct mlx5c_dev *mdev)
{
	int err;

	err = mlx5c_kernel_uar_alloc(mdev);
	if (err)
		return err;
	err = mlx5c_irqs_alloc(mdev, mlx5c_eqs_wanted_vectors(mdev));
	if (err)
		goto err_uar;
	err = mlx5c_eq_cmd_create(mdev);
	if (err)
		goto err_irqs;
	mlx5c_cmd_use_events(mdev);
	err = mlx5c_eqs_create(mdev);
	if (err)
		goto err_cmd_eq;
	return 0;

err_cmd_eq:
	mlx5c_pages_flush(mdev);
	mlx5c_cmd_use_polling(mdev);
	mlx5c_eq_cmd_destroy(mdev);
err_irqs:
	mlx5c_irqs_free(mdev);
err_uar:
	mlx5c_kernel_uar_free(mdev);
	return err;
}

static void mlx5c_unload(struct mlx5c_dev *mdev)
{
	mlx5c_eqs_destroy(mdev);
	/* Page requests run commands: they finish while commands use events. */
	mlx5c_pages_flush(mdev);
	mlx5c_cmd_use_polling(mdev);
	mlx5c_eq_cmd_destroy(mdev);
	mlx5c_irqs_free(mdev);
	mlx5c_kernel_uar_free(mdev);
}

/* Undo what probe did before the command interface existed. */
static void mlx5c_free_dev(struct mlx5c_dev *mdev)
{
	mlx5c_caps_free(mdev);
	xa_destroy(&mdev->cqs);
	mutex_destroy(&mdev->state_lock);
	kfree(mdev);
}

/**
 * mlx5c_load_one() - bring the function up and publish it
 * @mdev: core device with a mapped BAR, its state_lock held
 *
 * Waits for the firmware, gives it a command queue, runs the bring-up
 * commands, creates the EQs and adds the auxiliary device. Probe, recovery
 * and the end of a PCI reset use it; on failure everything it did is
 * undone.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_load_one(struct mlx5c_dev *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	int err;

	lockdep_assert_held(&mdev->state_lock);
	err = mlx5c_read_fw_rev(mdev);
	if (err)
		return err;
	err = mlx5c_wait_fw(mdev, fw_pre_init_timeout_ms, "pre-init");
	if (err)
		return err;
	pci_set_master(pdev);
	err = mlx5c_pages_init(mdev);
	if (err)
		goto err_master;
	err = mlx5c_cmd_init(mdev);
	if (err)
		goto err_pages;
	mlx5c_health_clear_error(mdev);
	err = mlx5c_wait_fw(mdev, fw_init_timeout_ms(mdev), "init");
	if (err)
		goto err_cmd;
	mdev->ecpu = !!(mlx5c_iseg_read(mdev, MLX5C_ISEG_INITIALIZING) & MLX5C_ISEG_ECPU_BIT);
	mlx5c_health_start(mdev);

	err = mlx5c_function_setup(mdev);
	if (err)
		goto err_health;
	err = mlx5c_load(mdev);
	if (err)
		goto err_function;

	err = mlx5c_mpfs_load(mdev);
	if (err)
		goto err_load;
	mlx5c_debugfs_init(mdev);
	mlx5c_test_debugfs_init(mdev);
	err = mlx5c_aux_add(mdev);
	if (err)
		goto err_debugfs;
	/* A recovery or a PCI reset of a PF with VFs: enable them again. */
	mlx5c_sriov_attach(mdev);
	WRITE_ONCE(mdev->loaded, true);
	return 0;

err_debugfs:
	mlx5c_debugfs_cleanup(mdev);
	mlx5c_test_debugfs_cleanup(mdev);
	mlx5c_mpfs_unload(mdev);
err_load:
	mlx5c_unload(mdev);
err_function:
	mlx5c_function_teardown(mdev);
err_health:
	mlx5c_health_stop(mdev);
err_cmd:
	/* Whatever the device still owns must not be written after this. */
	pci_clear_master(pdev);
	mlx5c_quarantine_release(mdev);
	mlx5c_cmd_cleanup(mdev);
err_pages:
	mlx5c_pages_cleanup(mdev);
err_master:
	pci_clear_master(pdev);
	return err;
}

/**
 * mlx5c_unload_one() - withdraw the function and take it down
 * @mdev: loaded core device, its state_lock held
 *
 * The reverse of mlx5c_load_one(). In the internal-error state the
 * commands fail at once and what the firmware held is freed locally.
 */
void mlx5c_unload_one(struct mlx5c_dev *mdev)
{
	lockdep_assert_held(&mdev->state_lock);
	WRITE_ONCE(mdev->loaded, false);
	/* The PCI VFs stay; in the device they go while commands still work. */
	mlx5c_sriov_detach(mdev);
	mlx5c_aux_del(mdev);
	mlx5c_debugfs_cleanup(mdev);
	mlx5c_test_debugfs_cleanup(mdev);
	mlx5c_mpfs_unload(mdev);
	mlx5c_unload(mdev);
	mlx5c_function_teardown(mdev);
	mlx5c_health_stop(mdev);
	pci_clear_master(mdev->pdev);
	mlx5c_quarantine_release(mdev);
	mlx5c_cmd_cleanup(mdev);
	mlx5c_pages_cleanup(mdev);
}

static int mlx5c_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct mlx5c_dev *mdev;
	int err;

	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->pdev = pdev;
	/*
	 * From the device ID, not pdev->is_virtfn: a VF passed to a VM is a
	 * plain PCI function there.
	 */
	mdev->is_vf = id->driver_data == MLX5C_PCI_VF;
	xa_init_flags(&mdev->cqs, XA_FLAGS_LOCK_IRQ);
	mlx5c_events_init(mdev);
	mutex_init(&mdev->state_lock);
	mlx5c_quarantine_init(mdev);
	pci_set_drvdata(pdev, mdev);

	err = mlx5c_health_init(mdev);
	if (err)
		goto err_free;
	err = mlx5c_recover_init(mdev);
	if (err)
		goto err_free_health;
	err = mlx5c_pci_init(mdev);
	if (err)
		goto err_free_recover;
	err = mlx5c_sriov_init(mdev);
	if (err)
		goto err_free_recover;
	err = mlx5c_devlink_alloc(mdev);
	if (err)
		goto err_free_sriov;
	/*
	 * Registered before the load, so that the health reporters can
	 * report from the first poll; a reload waits for the state_lock.
	 */
	mlx5c_devlink_register(mdev);
	mutex_lock(&mdev->state_lock);
	err = mlx5c_load_one(mdev);
	mutex_unlock(&mdev->state_lock);
	if (err)
		goto err_free_devlink;
	/* What a PCI reset restores. */
	pci_save_state(pdev);

	dev_info(&pdev->dev,
		 "probed%s: ISSI %u, board %s, %d MSI-X vectors, %d completion EQs, %d FW pages\n",
		 mdev->is_vf ? " (VF)" : "", mdev->issi,
		 mdev->board_id[0] ? mdev->board_id : "-", mdev->num_vectors,
		 mdev->num_comp_eqs, atomic_read(&mdev->pages.count));
	return 0;

err_free_devlink:
	mlx5c_recover_disable(mdev);
	mlx5c_devlink_unregister(mdev);
	mlx5c_devlink_free(mdev);
err_free_sriov:
	mlx5c_sriov_cleanup(mdev);
err_free_recover:
	mlx5c_recover_disable(mdev);
	mlx5c_recover_cleanup(mdev);
err_free_health:
	mlx5c_health_cleanup(mdev);
err_free:
	dev_err(&pdev->dev, "probe failed: %d\n", err);
	pci_set_drvdata(pdev, NULL);
	mlx5c_free_dev(mdev);
	return err;
}

static void mlx5c_remove(struct pci_dev *pdev)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	if (!mdev)	/* already shut down */
		return;
	mlx5c_recover_disable(mdev);
	/* VFs first: their drivers go, then the VFs in the device. */
	mlx5c_sriov_remove(mdev);
	mutex_lock(&mdev->state_lock);
	if (mdev->loaded)
		mlx5c_unload_one(mdev);
	mutex_unlock(&mdev->state_lock);
	/* After the unload: the poller no longer reports. */
	mlx5c_devlink_unregister(mdev);
	mlx5c_devlink_free(mdev);
	mlx5c_sriov_cleanup(mdev);
	mlx5c_recover_cleanup(mdev);
	mlx5c_health_cleanup(mdev);
	pci_set_drvdata(pdev, NULL);
	mlx5c_free_dev(mdev);
	dev_info(&pdev->dev, "removed\n");
}

/* Quiesce the device for reboot or kexec: the same as removal. */
static void mlx5c_shutdown(struct pci_dev *pdev)
{
	mlx5c_remove(pdev);
}

static struct pci_driver mlx5c_pci_driver = {
	.name = MLX5C_DRV_NAME,
	.id_table = mlx5c_pci_table,
	.probe = mlx5c_probe,
	.remove = mlx5c_remove,
	.shutdown = mlx5c_shutdown,
	.sriov_configure = mlx5c_sriov_configure,
	.err_handler = &mlx5c_err_handler,
	.dev_groups = mlx5c_dev_groups,
};

static int __init mlx5c_init(void)
{
	int err;

	/*
	 * auxiliary_device_add() names our devices after KBUILD_MODNAME; the
	 * ib module and the Ethernet driver match them by MLX5C_CORE_DRV_NAME.
	 */
	BUILD_BUG_ON(__builtin_strcmp(KBUILD_MODNAME, MLX5C_CORE_DRV_NAME));
	get_random_bytes(mlx5c_sw_owner_id, sizeof(mlx5c_sw_owner_id));
	mlx5c_debugfs_module_init();
	err = mlx5c_en_init();
	if (err)
		goto err_debugfs;
	err = pci_register_driver(&mlx5c_pci_driver);
	if (err)
		goto err_en;
	return 0;

err_en:
	mlx5c_en_exit();
err_debugfs:
	mlx5c_debugfs_module_exit();
	return err;
}

static void __exit mlx5c_exit(void)
{
	pci_unregister_driver(&mlx5c_pci_driver);
	mlx5c_en_exit();
	mlx5c_debugfs_module_exit();
}

module_init(mlx5c_init);
module_exit(mlx5c_exit);
