// SPDX-License-Identifier: GPL-2.0
/*
 * Coming back from a fatal error, and PCI resets.
 *
 * When the health poller finds the firmware dead, the device is in the
 * internal-error state (commands fail, consumers got
 * MLX5C_EVENT_DEVICE_ERROR) and recovery, subscribed to the poller's fatal
 * findings (mlx5c_health_fatal_register()), is told. It reports the error
 * to devlink's "fw_fatal" health reporter (devlink.c), whose recovery, unless
 * the reporter's auto_recover or the module parameter "recovery" is off,
 * or run by hand (`devlink health recover`), unloads the function (the
 * auxiliary device goes away: mlx5_ib unregisters, which disassociates
 * user contexts), asks the firmware for a software reset through the
 * nic_interface field of the initialization segment and waits until the
 * firmware reports the interface disabled, and loads the function again
 * as probe does.
 *
 * A PCI function reset (sysfs "reset", or the error-recovery callbacks)
 * unloads before the reset and loads after it. Everything that loads or
 * unloads holds mdev->state_lock.
 */
#include <linux/delay.h>
#include <linux/module.h>

#include "mlx5_core.h"

static bool recovery = true;
module_param(recovery, bool, 0644);
MODULE_PARM_DESC(recovery,
		 "Reset and reload the function after a fatal firmware error (default on)");

static unsigned int sw_reset_timeout_ms = 5000;
module_param(sw_reset_timeout_ms, uint, 0644);
MODULE_PARM_DESC(sw_reset_timeout_ms,
		 "Time the firmware may take to complete a software reset (ms)");

#define MLX5C_RECOVER_MAX_FAILURES	3
#define MLX5C_SW_RESET_POLL_MS		10

static u8 nic_interface(struct mlx5c_dev *mdev)
{
	return (mlx5c_iseg_read(mdev, MLX5C_ISEG_CMDQ_ADDR_L_SZ) >> 8) & 7;
}

/*
 * Have the firmware reset itself: set nic_interface to SW_RESET and wait
 * until it reads DISABLED (the reset is over; the firmware waits for a
 * command queue again).
 */
static int mlx5c_fw_sw_reset(struct mlx5c_dev *mdev)
{
	struct device *dev = &mdev->pdev->dev;
	unsigned long end;
	u32 reg;

	reg = mlx5c_iseg_read(mdev, MLX5C_ISEG_INITIALIZING);
	if (reg == 0xffffffff)
		return -ENODEV;
	if (!(reg & MLX5C_ISEG_FW_RESET_BIT)) {
		dev_err(dev, "the firmware does not support software reset\n");
		return -EOPNOTSUPP;
	}
	if (nic_interface(mdev) != MLX5C_NIC_IFC_DISABLED) {
		reg = mlx5c_iseg_read(mdev, MLX5C_ISEG_CMDQ_ADDR_L_SZ);
		reg = (reg & ~GENMASK(10, 8)) | MLX5C_NIC_IFC_SW_RESET << 8;
		dev_info(dev, "requesting a firmware software reset\n");
		iowrite32be(reg, mdev->iseg + MLX5C_ISEG_CMDQ_ADDR_L_SZ);
	}
	end = jiffies + msecs_to_jiffies(sw_reset_timeout_ms);
	while (nic_interface(mdev) != MLX5C_NIC_IFC_DISABLED) {
		if (time_after(jiffies, end)) {
			dev_err(dev, "software reset: NIC interface still %u after %u ms\n",
				nic_interface(mdev), sw_reset_timeout_ms);
			return -ETIMEDOUT;
		}
		msleep(MLX5C_SW_RESET_POLL_MS);
	}
	return 0;
}

/**
 * mlx5c_recover() - bring a function in the internal-error state back
 * @mdev: core device; state_lock not held
 *
 * Unloads the function, has the firmware reset itself and loads the
 * function again. devlink's "fw_fatal" reporter runs it (mlx5c_recover_work()
 * through its report, or `devlink health recover`).
 *
 * Return: 0 when the function is back (or was not in error), -EBUSY while
 * the device goes away or a PCI reset runs, another negative errno when the
 * recovery failed: the device then stays down until it is reset or rebound.
 */
int mlx5c_recover(struct mlx5c_dev *mdev)
{
	struct mlx5c_health *h = &mdev->health;
	struct device *dev = &mdev->pdev->dev;
	int err = 0;

	mutex_lock(&mdev->state_lock);
	/* A PCI reset in progress loads the function when it is over. */
	if (READ_ONCE(h->no_recovery) || mdev->pci_reset) {
		err = -EBUSY;
		goto out;
	}
	if (!READ_ONCE(mdev->health.error) && mdev->loaded)
		goto out;
	if (h->failed_recoveries >= MLX5C_RECOVER_MAX_FAILURES) {
		dev_err(dev, "recovery failed %u times: the device stays down\n",
			h->failed_recoveries);
		err = -EIO;
		goto out;
	}
	dev_warn(dev, "recovering from the internal-error state (%s)\n",
		 h->fatal_reason ?: "unknown");
	if (mdev->loaded)
		mlx5c_unload_one(mdev);
	err = mlx5c_fw_sw_reset(mdev);
	if (!err)
		err = mlx5c_load_one(mdev);
	if (err) {
		h->failed_recoveries++;
		dev_err(dev, "recovery failed: %d; the device stays down until it is reset or rebound\n",
			err);
		goto out;
	}
	h->failed_recoveries = 0;
	h->recoveries++;
	dev_info(dev, "recovered from the internal-error state (recovery %u)\n",
		 h->recoveries);
out:
	mutex_unlock(&mdev->state_lock);
	return err;
}

/**
 * mlx5c_recover_auto() - whether a fatal error is recovered without being
 *	asked (the module parameter "recovery")
 *
 * Return: true when it is.
 */
bool mlx5c_recover_auto(void)
{
	return READ_ONCE(recovery);
}

/*
 * A fatal error: report it to devlink's fw_fatal reporter, which dumps the
 * health buffer and, when its auto_recover and the module parameter allow,
 * recovers (mlx5c_recover()). Without a reporter, recover directly.
 */
static void mlx5c_recover_work(struct work_struct *work)
{
	struct mlx5c_dev *mdev = container_of(work, struct mlx5c_dev,
					      health.recover_work);

	if (READ_ONCE(mdev->health.no_recovery) || !READ_ONCE(mdev->health.error))
		return;
	if (mdev->health.fatal_reporter)
		mlx5c_devlink_report_fatal(mdev);
	else if (mlx5c_recover_auto())
		mlx5c_recover(mdev);
}

/*
 * A fatal condition found by the health poller (the device is in the
 * internal-error state): report it and maybe recover (mlx5c_recover_work()),
 * unless the device is being removed.
 */
static int mlx5c_recover_fatal(struct notifier_block *nb, unsigned long action,
			       void *data)
{
	struct mlx5c_dev *mdev = container_of(nb, struct mlx5c_dev, health.recover_nb);

	if (READ_ONCE(mdev->health.no_recovery))
		return NOTIFY_DONE;
	queue_work(mdev->health.recover_wq, &mdev->health.recover_work);
	return NOTIFY_OK;
}

/**
 * mlx5c_recover_init() - prepare recovery and subscribe to fatal errors
 * @mdev: core device whose health is initialised, the poller not started
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_recover_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_health *h = &mdev->health;

	INIT_WORK(&h->recover_work, mlx5c_recover_work);
	h->recover_wq = alloc_ordered_workqueue("mlx5c_recover_%s", 0,
						pci_name(mdev->pdev));
	if (!h->recover_wq)
		return -ENOMEM;
	h->recover_nb.notifier_call = mlx5c_recover_fatal;
	mlx5c_health_fatal_register(mdev, &h->recover_nb);
	return 0;
}

/**
 * mlx5c_recover_disable() - no more recovery; wait for a running one
 * @mdev: core device about to be removed; state_lock not held
 */
void mlx5c_recover_disable(struct mlx5c_dev *mdev)
{
	WRITE_ONCE(mdev->health.no_recovery, true);
	cancel_work_sync(&mdev->health.recover_work);
}

/**
 * mlx5c_recover_cleanup() - free what mlx5c_recover_init() allocated
 * @mdev: core device whose recovery is disabled
 */
void mlx5c_recover_cleanup(struct mlx5c_dev *mdev)
{
	mlx5c_health_fatal_unregister(mdev, &mdev->health.recover_nb);
	destroy_workqueue(mdev->health.recover_wq);
	mdev->health.recover_wq = NULL;
}

/* ---- PCI resets and error recovery ------------------------------------- */

static void mlx5c_unload_for_reset(struct mlx5c_dev *mdev, const char *why)
{
	mutex_lock(&mdev->state_lock);
	dev_info(&mdev->pdev->dev, "%s: unloading\n", why);
	mdev->pci_reset = true;
	if (mdev->loaded)
		mlx5c_unload_one(mdev);
	mutex_unlock(&mdev->state_lock);
}

static int mlx5c_load_after_reset(struct mlx5c_dev *mdev, const char *why)
{
	int err = 0;

	mutex_lock(&mdev->state_lock);
	mdev->pci_reset = false;
	if (!mdev->loaded && !READ_ONCE(mdev->health.no_recovery)) {
		err = mlx5c_load_one(mdev);
		if (err)
			dev_err(&mdev->pdev->dev, "%s: reload failed: %d\n", why, err);
		else
			dev_info(&mdev->pdev->dev, "%s: reloaded\n", why);
	}
	mutex_unlock(&mdev->state_lock);
	return err;
}

static void mlx5c_reset_prepare(struct pci_dev *pdev)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	if (mdev)
		mlx5c_unload_for_reset(mdev, "function reset");
}

static void mlx5c_reset_done(struct pci_dev *pdev)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	if (mdev)
		mlx5c_load_after_reset(mdev, "function reset");
}

static pci_ers_result_t mlx5c_error_detected(struct pci_dev *pdev,
					     pci_channel_state_t state)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	dev_err(&pdev->dev, "PCI channel error detected (state %d)\n", state);
	if (!mdev)
		return PCI_ERS_RESULT_DISCONNECT;
	mlx5c_enter_error(mdev, "PCI channel error");
	mlx5c_unload_for_reset(mdev, "PCI error");
	/* Permanent failure: the function stays unloaded (resume never runs). */
	return state == pci_channel_io_perm_failure ? PCI_ERS_RESULT_DISCONNECT :
						      PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t mlx5c_slot_reset(struct pci_dev *pdev)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);
	unsigned long end = jiffies + msecs_to_jiffies(sw_reset_timeout_ms);

	if (!mdev)
		return PCI_ERS_RESULT_DISCONNECT;
	pci_restore_state(pdev);
	pci_save_state(pdev);
	/* The initialization segment answers again. */
	while (mlx5c_iseg_read(mdev, MLX5C_ISEG_FW_REV) == 0xffffffff) {
		if (time_after(jiffies, end)) {
			dev_err(&pdev->dev, "slot reset: the device does not answer\n");
			return PCI_ERS_RESULT_DISCONNECT;
		}
		msleep(MLX5C_SW_RESET_POLL_MS);
	}
	return PCI_ERS_RESULT_RECOVERED;
}

static void mlx5c_resume(struct pci_dev *pdev)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	if (mdev)
		mlx5c_load_after_reset(mdev, "PCI error recovery");
}

const struct pci_error_handlers mlx5c_err_handler = {
	.error_detected = mlx5c_error_detected,
	.slot_reset = mlx5c_slot_reset,
	.resume = mlx5c_resume,
	.reset_prepare = mlx5c_reset_prepare,
	.reset_done = mlx5c_reset_done,
};

/* ---- sysfs: <pci device>/health/ --------------------------------------- */

static struct mlx5c_dev *attr_mdev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct mlx5c_dev *mdev = attr_mdev(dev);

	if (!mdev)
		return -ENODEV;
	if (READ_ONCE(mdev->health.error))
		return sysfs_emit(buf, "internal-error\n");
	return sysfs_emit(buf, "%s\n", READ_ONCE(mdev->loaded) ? "ok" : "down");
}
static DEVICE_ATTR_RO(state);

static ssize_t errors_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct mlx5c_dev *mdev = attr_mdev(dev);

	return mdev ? sysfs_emit(buf, "%u\n", READ_ONCE(mdev->health.errors)) : -ENODEV;
}
static DEVICE_ATTR_RO(errors);

static ssize_t recoveries_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct mlx5c_dev *mdev = attr_mdev(dev);

	return mdev ? sysfs_emit(buf, "%u\n", READ_ONCE(mdev->health.recoveries)) : -ENODEV;
}
static DEVICE_ATTR_RO(recoveries);

static ssize_t last_error_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct mlx5c_dev *mdev = attr_mdev(dev);
	const char *reason;

	if (!mdev)
		return -ENODEV;
	reason = READ_ONCE(mdev->health.fatal_reason);
	return sysfs_emit(buf, "%s\n", reason ?: "-");
}
static DEVICE_ATTR_RO(last_error);

static struct attribute *mlx5c_health_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_errors.attr,
	&dev_attr_recoveries.attr,
	&dev_attr_last_error.attr,
	NULL
};

static const struct attribute_group mlx5c_health_group = {
	.name = "health",
	.attrs = mlx5c_health_attrs,
};

const struct attribute_group *mlx5c_dev_groups[] = {
	&mlx5c_health_group,
	NULL
};
