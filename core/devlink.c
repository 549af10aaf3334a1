// SPDX-License-Identifier: GPL-2.0
/*
 * devlink: the function's instance (pci/<BDF>), what `devlink dev info`
 * shows, `devlink dev reload` (driver_reinit), and the firmware health
 * reporters:
 *   fw        a health syndrome the poller found (health.c); dump and
 *             diagnose only;
 *   fw_fatal  the internal-error state (recovery.c); its recover is
 *             mlx5c_recover(), run by the report when auto_recover and the
 *             module parameter "recovery" allow, or by hand.
 * The instance and its reporters are allocated and registered before the
 * first load and withdrawn after the last unload, so that every report
 * (health poller, recovery work) finds them registered; a reload during
 * probe waits for probe's state_lock, one after removal started
 * (health.no_recovery) does nothing. Lock order: the devlink instance
 * lock, then mdev->state_lock.
 */
#include <linux/pci.h>
#include <net/devlink.h>

#include "mlx5_core.h"
#include "mlx5c/kcompat.h"

static struct mlx5c_dev *devlink_mdev(struct devlink *devlink)
{
	return *(struct mlx5c_dev **)devlink_priv(devlink);
}

/* ---- info --------------------------------------------------------------- */

static int mlx5c_devlink_info_get(struct devlink *devlink, struct devlink_info_req *req,
				  struct netlink_ext_ack *extack)
{
	struct mlx5c_dev *mdev = devlink_mdev(devlink);
	char ver[32];
	int err;

#ifdef HAVE_DEVLINK_INFO_DRIVER_NAME_PUT
	err = devlink_info_driver_name_put(req, MLX5C_CORE_DRV_NAME);
	if (err)
		return err;
#endif
	if (mdev->board_id[0]) {
		err = devlink_info_version_fixed_put(req, DEVLINK_INFO_VERSION_GENERIC_FW_PSID,
						     mdev->board_id);
		if (err)
			return err;
	}
	/*
	 * From the initialization segment, under the generic name and the
	 * name mlx5 tools read. Stored is what runs: reading the flash's
	 * image (MCQS/MCQI) is not done yet, so after a flash the stored
	 * version shows only once the new firmware runs.
	 */
	snprintf(ver, sizeof(ver), "%u.%u.%04u", mdev->fw_major, mdev->fw_minor, mdev->fw_sub);
	err = devlink_info_version_running_put(req, "fw.version", ver);
	if (!err)
		err = devlink_info_version_running_put(req, DEVLINK_INFO_VERSION_GENERIC_FW, ver);
	if (!err)
		err = devlink_info_version_stored_put(req, "fw.version", ver);
	if (!err)
		err = devlink_info_version_stored_put(req, DEVLINK_INFO_VERSION_GENERIC_FW, ver);
	return err;
}

/* ---- reload ------------------------------------------------------------- */

static int mlx5c_devlink_reload_down(struct devlink *devlink, bool netns_change,
				     enum devlink_reload_action action,
				     enum devlink_reload_limit limit,
				     struct netlink_ext_ack *extack)
{
	struct mlx5c_dev *mdev = devlink_mdev(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack, "moving the function to another namespace is not supported");
		return -EOPNOTSUPP;
	}
	if (action != DEVLINK_RELOAD_ACTION_DRIVER_REINIT)
		return -EOPNOTSUPP;
	if (pci_num_vf(mdev->pdev)) {
		NL_SET_ERR_MSG_MOD(extack, "reload with VFs enabled: set sriov_numvfs to 0 first");
		return -EBUSY;
	}
	mutex_lock(&mdev->state_lock);
	if (mdev->pci_reset || READ_ONCE(mdev->health.no_recovery)) {
		mutex_unlock(&mdev->state_lock);
		NL_SET_ERR_MSG_MOD(extack, "the function is being reset or removed");
		return -EBUSY;
	}
	if (mdev->loaded)
		mlx5c_unload_one(mdev);
	mutex_unlock(&mdev->state_lock);
	return 0;
}

static int mlx5c_devlink_reload_up(struct devlink *devlink, enum devlink_reload_action action,
				   enum devlink_reload_limit limit, u32 *actions_performed,
				   struct netlink_ext_ack *extack)
{
	struct mlx5c_dev *mdev = devlink_mdev(devlink);
	int err = 0;

	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	mutex_lock(&mdev->state_lock);
	/* Removal started after reload_down: it stays unloaded. */
	if (READ_ONCE(mdev->health.no_recovery)) {
		err = -ENODEV;
	} else if (!mdev->loaded) {
		mdev->health.failed_recoveries = 0;
		err = mlx5c_load_one(mdev);
		if (err)
			NL_SET_ERR_MSG_MOD(extack, "loading the function failed: see the kernel log");
	}
	mutex_unlock(&mdev->state_lock);
	return err;
}

static const struct devlink_ops mlx5c_devlink_ops = {
	.info_get = mlx5c_devlink_info_get,
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = mlx5c_devlink_reload_down,
	.reload_up = mlx5c_devlink_reload_up,
};

/* ---- health reporters --------------------------------------------------- */

static void health_buf_fmsg(struct mlx5c_dev *mdev, struct devlink_fmsg *fmsg)
{
	struct mlx5c_health_buf hb;
	char name[16];
	int i;

	mlx5c_health_buffer_read(mdev, &hb);
	devlink_fmsg_pair_nest_start(fmsg, "health_buffer");
	devlink_fmsg_obj_nest_start(fmsg);
	for (i = 0; i < ARRAY_SIZE(hb.assert_var); i++) {
		snprintf(name, sizeof(name), "assert_var%d", i);
		devlink_fmsg_u32_pair_put(fmsg, name, hb.assert_var[i]);
	}
	devlink_fmsg_u32_pair_put(fmsg, "assert_exit_ptr", hb.assert_exit_ptr);
	devlink_fmsg_u32_pair_put(fmsg, "assert_callra", hb.assert_callra);
	devlink_fmsg_u32_pair_put(fmsg, "time", hb.time);
	devlink_fmsg_u32_pair_put(fmsg, "fw_ver", hb.fw_ver);
	devlink_fmsg_u32_pair_put(fmsg, "hw_id", hb.hw_id);
	devlink_fmsg_u8_pair_put(fmsg, "rfr_severity", hb.rfr_severity);
	devlink_fmsg_u8_pair_put(fmsg, "irisc_index", hb.irisc_index);
	devlink_fmsg_u8_pair_put(fmsg, "synd", hb.synd);
	devlink_fmsg_string_pair_put(fmsg, "synd_name",
				     hb.synd ? mlx5c_health_synd_str(hb.synd) : "none");
	devlink_fmsg_u32_pair_put(fmsg, "ext_synd", hb.ext_synd);
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

static int mlx5c_reporter_dump(struct devlink_health_reporter *reporter,
			       struct devlink_fmsg *fmsg, void *priv_ctx,
			       struct netlink_ext_ack *extack)
{
	health_buf_fmsg(devlink_health_reporter_priv(reporter), fmsg);
	return 0;
}

static int mlx5c_reporter_diagnose(struct devlink_health_reporter *reporter,
				   struct devlink_fmsg *fmsg,
				   struct netlink_ext_ack *extack)
{
	struct mlx5c_dev *mdev = devlink_health_reporter_priv(reporter);
	struct mlx5c_health *h = &mdev->health;
	bool error = READ_ONCE(h->error);

	devlink_fmsg_string_pair_put(fmsg, "state", error ? "internal-error" : "ok");
	devlink_fmsg_string_pair_put(fmsg, "reason",
				     error && h->fatal_reason ? h->fatal_reason : "none");
	devlink_fmsg_u32_pair_put(fmsg, "errors", h->errors);
	devlink_fmsg_u32_pair_put(fmsg, "recoveries", h->recoveries);
	devlink_fmsg_u32_pair_put(fmsg, "failed_recoveries", h->failed_recoveries);
	devlink_fmsg_u64_pair_put(fmsg, "polls", h->polls);
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat_misses", h->misses);
	devlink_fmsg_u32_pair_put(fmsg, "health_counter",
				  mlx5c_iseg_read(mdev, MLX5C_ISEG_HEALTH_COUNTER));
	health_buf_fmsg(mdev, fmsg);
	return 0;
}

/*
 * priv_ctx is the device when the recovery comes from the report
 * (mlx5c_devlink_report_fatal()), NULL when a user asked for it: the module
 * parameter "recovery" gates only the first.
 */
static int mlx5c_reporter_fatal_recover(struct devlink_health_reporter *reporter,
					void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct mlx5c_dev *mdev = devlink_health_reporter_priv(reporter);
	int err;

	if (priv_ctx && !mlx5c_recover_auto()) {
		NL_SET_ERR_MSG_MOD(extack, "automatic recovery is off (module parameter recovery)");
		return -EOPNOTSUPP;
	}
	if (!priv_ctx)
		mdev->health.failed_recoveries = 0;
	err = mlx5c_recover(mdev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "recovery failed: see the kernel log");
	return err;
}

static const struct devlink_health_reporter_ops mlx5c_fw_reporter_ops = {
	.name = "fw",
	.dump = mlx5c_reporter_dump,
	.diagnose = mlx5c_reporter_diagnose,
};

static const struct devlink_health_reporter_ops mlx5c_fatal_reporter_ops = {
	.name = "fw_fatal",
	.recover = mlx5c_reporter_fatal_recover,
	.dump = mlx5c_reporter_dump,
	.diagnose = mlx5c_reporter_diagnose,
};

/*
 * No grace period: every fatal error is recovered, as without devlink
 * (recovery.c bounds consecutive failures instead).
 */
static struct devlink_health_reporter *
reporter_create(struct mlx5c_dev *mdev, const struct devlink_health_reporter_ops *ops)
{
	struct devlink_health_reporter *r;

#ifdef HAVE_DEVLINK_HEALTH_DEFAULT_GRACEFUL_PERIOD
	r = devlink_health_reporter_create(mdev->devlink, ops, mdev);
#else
	r = devlink_health_reporter_create(mdev->devlink, ops, 0, mdev);
#endif
	if (IS_ERR(r)) {
		dev_warn(&mdev->pdev->dev, "devlink health reporter %s: %ld\n",
			 ops->name, PTR_ERR(r));
		return NULL;
	}
	return r;
}

/*
 * The "fw" report runs in a work of its own, not in the health poller:
 * devlink_health_report() may take the instance lock (for its dump), and a
 * reload holds that lock while its unload stops the poller.
 */
static void mlx5c_devlink_fw_report_work(struct work_struct *work)
{
	struct mlx5c_health *h = container_of(work, struct mlx5c_health, fw_report_work);

	devlink_health_report(h->fw_reporter, mlx5c_health_synd_str(READ_ONCE(h->report_synd)),
			      container_of(h, struct mlx5c_dev, health));
}

/**
 * mlx5c_devlink_report_fw() - tell the "fw" reporter of a health syndrome
 * @mdev: core device
 * @synd: the syndrome
 */
void mlx5c_devlink_report_fw(struct mlx5c_dev *mdev, u8 synd)
{
	struct mlx5c_health *h = &mdev->health;

	if (!h->fw_reporter)
		return;
	WRITE_ONCE(h->report_synd, synd);
	schedule_work(&h->fw_report_work);
}

/**
 * mlx5c_devlink_report_fatal() - report the internal-error state to
 *	"fw_fatal", which dumps the health buffer and may recover
 * @mdev: core device in the internal-error state; state_lock not held
 *
 * Return: devlink_health_report()'s result.
 */
int mlx5c_devlink_report_fatal(struct mlx5c_dev *mdev)
{
	return devlink_health_report(mdev->health.fatal_reporter,
				     mdev->health.fatal_reason ?: "internal error", mdev);
}

/* ---- lifetime ----------------------------------------------------------- */

/**
 * mlx5c_devlink_alloc() - the devlink instance and its health reporters
 * @mdev: core device, its health initialised, not loaded yet
 *
 * Return: 0 or -ENOMEM. A reporter that cannot be created is left out
 * (recovery then runs without it).
 */
int mlx5c_devlink_alloc(struct mlx5c_dev *mdev)
{
	struct devlink *devlink;

	devlink = devlink_alloc(&mlx5c_devlink_ops, sizeof(mdev), &mdev->pdev->dev);
	if (!devlink)
		return -ENOMEM;
	*(struct mlx5c_dev **)devlink_priv(devlink) = mdev;
	mdev->devlink = devlink;
	INIT_WORK(&mdev->health.fw_report_work, mlx5c_devlink_fw_report_work);
	mdev->health.fw_reporter = reporter_create(mdev, &mlx5c_fw_reporter_ops);
	mdev->health.fatal_reporter = reporter_create(mdev, &mlx5c_fatal_reporter_ops);
	return 0;
}

/**
 * mlx5c_devlink_register() - publish the instance
 * @mdev: core device from mlx5c_devlink_alloc(); state_lock not held
 */
void mlx5c_devlink_register(struct mlx5c_dev *mdev)
{
#ifdef HAVE_DEVLINK_SET_FEATURES
	devlink_set_features(mdev->devlink, DEVLINK_F_RELOAD);
#endif
	devlink_register(mdev->devlink);
}

/**
 * mlx5c_devlink_unregister() - withdraw the instance; waits for a reload
 *	in progress
 * @mdev: unloaded core device, its recovery disabled; state_lock not held
 */
void mlx5c_devlink_unregister(struct mlx5c_dev *mdev)
{
	/* The poller is stopped: no report is queued after this one. */
	cancel_work_sync(&mdev->health.fw_report_work);
	devlink_unregister(mdev->devlink);
}

/**
 * mlx5c_devlink_free() - free the reporters and the instance
 * @mdev: core device whose recovery is disabled and instance unregistered
 */
void mlx5c_devlink_free(struct mlx5c_dev *mdev)
{
	struct mlx5c_health *h = &mdev->health;

	if (!mdev->devlink)
		return;
	if (h->fatal_reporter)
		devlink_health_reporter_destroy(h->fatal_reporter);
	if (h->fw_reporter)
		devlink_health_reporter_destroy(h->fw_reporter);
	h->fatal_reporter = NULL;
	h->fw_reporter = NULL;
	devlink_free(mdev->devlink);
	mdev->devlink = NULL;
}
