// SPDX-License-Identifier: GPL-2.0
/*
 * Health: the internal-error state, and its poller. Every couple of
 * seconds the poller reads the health buffer and the heartbeat counter of
 * the initialization segment, and moves the device to the internal-error
 * state when the firmware reports a fatal condition; the subscribers to
 * fatal conditions (recovery) are told then.
 */
#include <linux/module.h>
#include <linux/random.h>

#include "mlx5_core.h"

static unsigned int health_poll_ms = 2000;
module_param(health_poll_ms, uint, 0644);
MODULE_PARM_DESC(health_poll_ms, "Health poll period in ms (default 2000)");

#define MLX5C_HEALTH_MAX_MISSES		3
#define MLX5C_HB(off)			(MLX5C_ISEG_HEALTH + offsetof(struct health_buffer, off))
#define MLX5C_RFR_BIT			BIT(MLX5_RFR_BIT_OFFSET)

static const char *synd_str(u8 synd)
{
	switch (synd) {
	case 0x1: return "FW internal error";
	case 0x7: return "dead IRISC";
	case 0x8: return "HW fatal error";
	case 0x9: return "FW CRC error";
	case 0xa: return "ICM fetch PCI error";
	case 0xb: return "ICM page error";
	case 0xc: return "async EQ buffer overrun";
	case 0xd: return "EQ in error";
	case 0xe: return "invalid EQ referenced";
	case 0xf: return "FFSER error";
	case 0x10: return "high temperature";
	case 0x11: return "ICM PCI poisoned error";
	case 0x12: return "trust lockdown error";
	default: return "unrecognized error";
	}
}

/**
 * mlx5c_enter_error() - move the device to the internal-error state
 * @mdev: core device
 * @reason: what happened, for the log
 *
 * Commands in flight and later commands fail at once; consumers are told
 * through the event notifier (MLX5C_EVENT_DEVICE_ERROR). The device stays
 * in this state until it is loaded again: by recovery, a PCI function
 * reset, or a rebind.
 */
void mlx5c_enter_error(struct mlx5c_dev *mdev, const char *reason)
{
	if (xchg(&mdev->health.error, true))
		return;
	mdev->health.fatal_reason = reason;
	mdev->health.errors++;
	dev_err(&mdev->pdev->dev, "device in internal-error state: %s\n", reason);
	mlx5c_cmd_flush(mdev);
	mlx5c_event_notify(mdev, MLX5C_EVENT_DEVICE_ERROR);
}

/**
 * mlx5c_health_clear_error() - leave the internal-error state
 * @mdev: core device being loaded, with a fresh command queue
 */
void mlx5c_health_clear_error(struct mlx5c_dev *mdev)
{
	WRITE_ONCE(mdev->health.error, false);
}

/**
 * mlx5c_dev_is_error() - whether the device is in the internal-error state
 * @mdev: core device
 *
 * Return: true once the device failed; every command then returns -ENXIO.
 */
bool mlx5c_dev_is_error(struct mlx5c_dev *mdev)
{
	return READ_ONCE(mdev->health.error);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_dev_is_error, MLX5C_NS);

/**
 * mlx5c_health_fatal_register() - be told of the fatal conditions the poller
 *	finds
 * @mdev: core device
 * @nb: called in process context, after the device entered the
 *	internal-error state, with action 0 and data NULL
 *
 * Only the poller's findings (a dead or reset firmware, a fatal syndrome,
 * a lost device) are told: a command that timed out with the heartbeat
 * stopped, or a PCI error, enters the internal-error state without them.
 *
 * Return: 0.
 */
int mlx5c_health_fatal_register(struct mlx5c_dev *mdev, struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&mdev->health.fatal_nh, nb);
}

/**
 * mlx5c_health_fatal_unregister() - undo mlx5c_health_fatal_register()
 * @mdev: core device
 * @nb: the notifier
 */
void mlx5c_health_fatal_unregister(struct mlx5c_dev *mdev, struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&mdev->health.fatal_nh, nb);
}

/**
 * mlx5c_health_buffer_read() - copy the health buffer of the initialization
 *	segment
 * @mdev: core device
 * @hb: filled in, host byte order
 */
void mlx5c_health_buffer_read(struct mlx5c_dev *mdev, struct mlx5c_health_buf *hb)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(hb->assert_var); i++)
		hb->assert_var[i] = ioread32be(mdev->iseg + MLX5C_HB(assert_var) + 4 * i);
	hb->assert_exit_ptr = ioread32be(mdev->iseg + MLX5C_HB(assert_exit_ptr));
	hb->assert_callra = ioread32be(mdev->iseg + MLX5C_HB(assert_callra));
	hb->time = ioread32be(mdev->iseg + MLX5C_HB(time));
	hb->fw_ver = ioread32be(mdev->iseg + MLX5C_HB(fw_ver));
	hb->hw_id = ioread32be(mdev->iseg + MLX5C_HB(hw_id));
	hb->rfr_severity = ioread8(mdev->iseg + MLX5C_HB(rfr_severity));
	hb->irisc_index = ioread8(mdev->iseg + MLX5C_HB(irisc_index));
	hb->synd = ioread8(mdev->iseg + MLX5C_HB(synd));
	hb->ext_synd = ioread16be(mdev->iseg + MLX5C_HB(ext_synd));
}

/**
 * mlx5c_health_synd_str() - the name of a health syndrome
 * @synd: the health buffer's syndrome
 *
 * Return: a constant string.
 */
const char *mlx5c_health_synd_str(u8 synd)
{
	return synd_str(synd);
}

/**
 * mlx5c_health_print() - log the health buffer
 * @mdev: core device
 */
void mlx5c_health_print(struct mlx5c_dev *mdev)
{
	struct device *dev = &mdev->pdev->dev;
	struct mlx5c_health_buf hb;
	int i;

	mlx5c_health_buffer_read(mdev, &hb);
	if (!hb.synd)
		return;
	for (i = 0; i < ARRAY_SIZE(hb.assert_var); i++)
		dev_err(dev, "assert_var[%d] 0x%08x\n", i, hb.assert_var[i]);
	dev_err(dev, "assert_exit_ptr 0x%08x, assert_callra 0x%08x\n",
		hb.assert_exit_ptr, hb.assert_callra);
	dev_err(dev, "fw_ver 0x%08x, hw_id 0x%08x, rfr_severity 0x%02x, irisc_index %u\n",
		hb.fw_ver, hb.hw_id, hb.rfr_severity, hb.irisc_index);
	dev_err(dev, "health syndrome 0x%x (%s), ext_synd 0x%04x\n", hb.synd,
		synd_str(hb.synd), hb.ext_synd);
}

/* A fatal condition of the device, or NULL. */
static const char *health_fatal(struct mlx5c_dev *mdev, u8 synd)
{
	u32 nic_ifc;

	if (ioread32be(mdev->iseg + MLX5C_HB(fw_ver)) == 0xffffffff)
		return "device does not answer (health buffer reads all-ones)";
	if (pci_channel_offline(mdev->pdev))
		return "PCI channel offline";
	nic_ifc = (mlx5c_iseg_read(mdev, MLX5C_ISEG_CMDQ_ADDR_L_SZ) >> 8) & 7;
	if (nic_ifc == MLX5C_NIC_IFC_DISABLED)
		return "NIC interface disabled by the firmware";
	if (nic_ifc == MLX5C_NIC_IFC_SW_RESET)
		return "firmware in software reset";
	if (synd && (ioread8(mdev->iseg + MLX5C_HB(rfr_severity)) & MLX5C_RFR_BIT))
		return "fatal firmware syndrome with reset-for-recovery";
	return NULL;
}

static void health_schedule(struct mlx5c_dev *mdev)
{
	unsigned long delay = msecs_to_jiffies(max(health_poll_ms, 100U));

	if (!READ_ONCE(mdev->health.stopped))
		queue_delayed_work(mdev->health.wq, &mdev->health.work,
				   delay + get_random_u32_below(delay / 2 + 1));
}

/* Note when the heartbeat counter moved (the poller and timed-out commands). */
static void heartbeat_seen(struct mlx5c_health *h, u32 counter)
{
	if (counter != READ_ONCE(h->hb_counter)) {
		WRITE_ONCE(h->hb_counter, counter);
		WRITE_ONCE(h->hb_seen, jiffies ?: 1);
	}
}

/**
 * mlx5c_health_heartbeat_stopped() - has the firmware heartbeat stood still
 * @mdev: core device
 * @ms: for at least this long
 *
 * Reads the heartbeat counter of the initialization segment. A command that
 * timed out on firmware whose heartbeat also stopped means the firmware is
 * gone: the caller can stop waiting for every later command.
 *
 * Return: true when the counter has not moved for @ms or longer; false when
 * it moved, or when the health poller has not started (nothing to compare).
 */
bool mlx5c_health_heartbeat_stopped(struct mlx5c_dev *mdev, unsigned int ms)
{
	struct mlx5c_health *h = &mdev->health;
	unsigned long seen = READ_ONCE(h->hb_seen);

	if (!seen)
		return false;
	heartbeat_seen(h, mlx5c_iseg_read(mdev, MLX5C_ISEG_HEALTH_COUNTER));
	seen = READ_ONCE(h->hb_seen);
	return time_after_eq(jiffies, seen + msecs_to_jiffies(ms));
}

static void health_poll(struct work_struct *work)
{
	struct mlx5c_dev *mdev = container_of(to_delayed_work(work), struct mlx5c_dev,
					      health.work);
	struct mlx5c_health *h = &mdev->health;
	const char *reason;
	u32 counter;
	u8 synd;

	h->polls++;
	synd = ioread8(mdev->iseg + MLX5C_HB(synd));
	/* A device that is gone reads all ones: no syndrome to report. */
	if (synd != h->last_synd &&
	    ioread32be(mdev->iseg + MLX5C_HB(fw_ver)) != 0xffffffff) {
		if (synd) {
			dev_err(&mdev->pdev->dev, "firmware health syndrome 0x%x (%s)\n",
				synd, synd_str(synd));
			mlx5c_health_print(mdev);
			mlx5c_devlink_report_fw(mdev, synd);
		}
		h->last_synd = synd;
	}
	reason = health_fatal(mdev, synd);
	if (reason) {
		mlx5c_enter_error(mdev, reason);
		blocking_notifier_call_chain(&h->fatal_nh, 0, NULL);
		return;
	}

	counter = mlx5c_iseg_read(mdev, MLX5C_ISEG_HEALTH_COUNTER);
	heartbeat_seen(h, counter);
	if (counter == h->last_counter) {
		if (++h->misses == MLX5C_HEALTH_MAX_MISSES)
			dev_err(&mdev->pdev->dev,
				"firmware heartbeat missed: health counter stuck at %u for %u polls\n",
				counter, h->misses);
	} else {
		if (h->misses >= MLX5C_HEALTH_MAX_MISSES)
			dev_info(&mdev->pdev->dev, "firmware heartbeat resumed\n");
		h->misses = 0;
	}
	h->last_counter = counter;

	mlx5c_cmd_reap(mdev);
	health_schedule(mdev);
}

/**
 * mlx5c_health_init() - prepare the health poller
 * @mdev: core device
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_health_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_health *h = &mdev->health;

	memset(h, 0, sizeof(*h));
	BLOCKING_INIT_NOTIFIER_HEAD(&h->fatal_nh);
	INIT_DELAYED_WORK(&h->work, health_poll);
	h->stopped = true;
	h->wq = alloc_ordered_workqueue("mlx5c_health_%s", 0, pci_name(mdev->pdev));
	return h->wq ? 0 : -ENOMEM;
}

/**
 * mlx5c_health_cleanup() - free the health poller
 * @mdev: core device whose poller is stopped
 */
void mlx5c_health_cleanup(struct mlx5c_dev *mdev)
{
	destroy_workqueue(mdev->health.wq);
	mdev->health.wq = NULL;
}

/**
 * mlx5c_health_start() - start polling
 * @mdev: core device with a mapped initialization segment
 */
void mlx5c_health_start(struct mlx5c_dev *mdev)
{
	struct mlx5c_health *h = &mdev->health;

	h->last_counter = mlx5c_iseg_read(mdev, MLX5C_ISEG_HEALTH_COUNTER);
	WRITE_ONCE(h->hb_counter, h->last_counter);
	WRITE_ONCE(h->hb_seen, jiffies ?: 1);
	h->last_synd = 0;
	h->misses = 0;
	WRITE_ONCE(h->stopped, false);
	health_schedule(mdev);
}

/**
 * mlx5c_health_stop() - stop polling and wait for a running poll
 * @mdev: core device
 */
void mlx5c_health_stop(struct mlx5c_dev *mdev)
{
	WRITE_ONCE(mdev->health.stopped, true);
	cancel_delayed_work_sync(&mdev->health.work);
}
