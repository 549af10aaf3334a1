// SPDX-License-Identifier: GPL-2.0
/*
 * SR-IOV on a PF: `echo N > /sys/bus/pci/devices/<pf>/sriov_numvfs`.
 *
 * The PCI core checks N against TotalVFs (ERANGE) before it calls
 * mlx5c_sriov_configure(). Enabling follows the order the firmware
 * expects: each VF is enabled in the device first (ENABLE_HCA function_id
 * vf + 1; the firmware then asks the PF for pages on the VF's behalf,
 * pagealloc.c), and only then does pci_enable_sriov() set VF Enable, so
 * that the VF functions the PCI core creates find their firmware ready.
 * Disabling is the reverse: pci_disable_sriov() first (the VFs' drivers are
 * unbound and the VF functions go), then DISABLE_HCA from the last VF
 * down, then the wait until the firmware has given back every page it held
 * for them.
 *
 * The PCI VFs outlive a recovery or a PCI reset of the PF: the unload
 * disables them in the device (mlx5c_sriov_detach()), the load enables
 * them again (mlx5c_sriov_attach()). Removing the PF disables SR-IOV first.
 *
 * The device part runs under mdev->state_lock, which serialises it with
 * loading, unloading and recovery; pci_enable_sriov() and
 * pci_disable_sriov() run without it, since they probe and remove the VFs'
 * drivers, which take their own function's state_lock (the same lock
 * class).
 *
 * On InfiniBand the PF's administrator sets a VF's GUIDs and link policy
 * in its HCA vport (mlx5_ib's VF ops, `ip link set ib0 vf N node_guid|
 * port_guid|state`, through mlx5c_sriov_set_vf_hca()). They are kept here
 * and written again each time the VF is enabled in the device, before its
 * function comes up: after `echo 0` and `echo N`, and after a recovery.
 *
 * On an Ethernet PF the legacy e-switch (eswitch/) comes up before the
 * first VF is enabled in the device and goes after the last is disabled,
 * so that a VF never runs without its vport set up.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "mlx5_core.h"

static unsigned int vf_pages_timeout_ms = 10000;
module_param(vf_pages_timeout_ms, uint, 0644);
MODULE_PARM_DESC(vf_pages_timeout_ms,
		 "Time the firmware may take to return the pages of disabled VFs (ms)");

static int vf_hca(struct mlx5c_dev *mdev, u16 vf, bool enable)
{
	u32 out[MLX5_ST_SZ_DW(enable_hca_out)] = {};
	u32 in[MLX5_ST_SZ_DW(enable_hca_in)] = {};

	/* enable_hca_in and disable_hca_in share their layout. */
	MLX5_SET(enable_hca_in, in, opcode,
		 enable ? MLX5_CMD_OP_ENABLE_HCA : MLX5_CMD_OP_DISABLE_HCA);
	MLX5_SET(enable_hca_in, in, function_id, vf + 1);
	MLX5_SET(enable_hca_in, in, embedded_cpu_function, mdev->ecpu);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

#define VF_HCA_FIELDS	(MLX5_HCA_VPORT_SEL_PORT_GUID | MLX5_HCA_VPORT_SEL_NODE_GUID | \
			 MLX5_HCA_VPORT_SEL_STATE_POLICY)

/* The fields @h selects, to VF @vf's HCA vport (MODIFY_HCA_VPORT_CONTEXT). */
static int vf_hca_write(struct mlx5c_dev *mdev, int vf, u8 port,
			const struct mlx5c_vf_hca *h)
{
	int inlen = MLX5_ST_SZ_BYTES(modify_hca_vport_context_in);
	void *in = kzalloc(inlen, GFP_KERNEL);
	void *ctx;
	int err;

	if (!in)
		return -ENOMEM;
	ctx = MLX5_ADDR_OF(modify_hca_vport_context_in, in, hca_vport_context);
	MLX5_SET(hca_vport_context, ctx, field_select, h->field_select);
	if (h->field_select & MLX5_HCA_VPORT_SEL_PORT_GUID)
		MLX5_SET64(hca_vport_context, ctx, port_guid, h->port_guid);
	if (h->field_select & MLX5_HCA_VPORT_SEL_NODE_GUID)
		MLX5_SET64(hca_vport_context, ctx, node_guid, h->node_guid);
	if (h->field_select & MLX5_HCA_VPORT_SEL_STATE_POLICY)
		MLX5_SET(hca_vport_context, ctx, vport_state_policy, h->policy);
	err = mlx5c_vport_modify_hca(mdev, port, vf + 1, true, in, inlen);
	kfree(in);
	return err;
}

/* What the administrator set in the HCA vports of VFs 0..@num_vfs-1, again. */
static void sriov_restore_vf_hca(struct mlx5c_dev *mdev, int num_vfs)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	int vf, err;

	mutex_lock(&sriov->hca_lock);
	for (vf = 0; vf < num_vfs; vf++) {
		if (!sriov->vfs[vf].hca.field_select)
			continue;
		err = vf_hca_write(mdev, vf, 1, &sriov->vfs[vf].hca);
		if (err)
			dev_warn(&mdev->pdev->dev,
				 "VF %d: its GUIDs and link policy were not set again: %d\n",
				 vf, err);
	}
	mutex_unlock(&sriov->hca_lock);
}

/*
 * Disable every VF the PF enabled in the device, from the last down, and
 * wait for their pages. In the internal-error state the commands fail at
 * once and the firmware returns nothing: the pages are freed when the
 * function unloads.
 */
static void sriov_disable_device(struct mlx5c_dev *mdev)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	bool any = false;
	int vf, err;

	lockdep_assert_held(&mdev->state_lock);
	for (vf = sriov->max_vfs - 1; vf >= 0; vf--) {
		if (!sriov->vfs[vf].enabled)
			continue;
		any = true;
		err = vf_hca(mdev, vf, false);
		if (err && !READ_ONCE(mdev->cmd.error))
			dev_warn(&mdev->pdev->dev, "DISABLE_HCA of VF %d failed: %d\n",
				 vf, err);
		WRITE_ONCE(sriov->vfs[vf].enabled, false);
	}
	mlx5c_eswitch_disable(mdev);
	if (any)
		mlx5c_pages_wait_vfs(mdev, vf_pages_timeout_ms);
}

/* Enable VFs 0..@num_vfs-1 in the device; on failure undo it all. */
static int sriov_enable_device(struct mlx5c_dev *mdev, int num_vfs)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	int vf, err;

	lockdep_assert_held(&mdev->state_lock);
	err = mlx5c_eswitch_enable(mdev, num_vfs);
	if (err)
		return err;
	for (vf = 0; vf < num_vfs; vf++) {
		err = vf_hca(mdev, vf, true);
		if (err) {
			dev_err(&mdev->pdev->dev,
				"ENABLE_HCA of VF %d failed: %d; disabling the %d VFs enabled before it\n",
				vf, err, vf);
			sriov_disable_device(mdev);
			return err;
		}
		WRITE_ONCE(sriov->vfs[vf].enabled, true);
	}
	sriov_restore_vf_hca(mdev, num_vfs);
	return 0;
}

/* Why SR-IOV cannot be enabled on the function now, or NULL. */
static const char *sriov_refusal(struct mlx5c_dev *mdev)
{
	if (READ_ONCE(mdev->health.error))
		return "the function is in the internal-error state";
	if (mdev->pci_reset)
		return "a PCI reset of the function is in progress";
	if (!mdev->loaded)
		return "the function is not loaded (recovery failed or in progress)";
	return NULL;
}

static int sriov_enable(struct mlx5c_dev *mdev, int num_vfs)
{
	struct pci_dev *pdev = mdev->pdev;
	const char *why;
	int err;

	mutex_lock(&mdev->state_lock);
	why = sriov_refusal(mdev);
	if (why) {
		dev_err(&pdev->dev, "SR-IOV: not enabling %d VFs: %s\n", num_vfs, why);
		err = -EBUSY;
		goto out;
	}
	err = sriov_enable_device(mdev, num_vfs);
	if (err)
		goto out;
	mdev->sriov.num_vfs = num_vfs;
	mutex_unlock(&mdev->state_lock);

	err = pci_enable_sriov(pdev, num_vfs);
	if (!err) {
		dev_info(&pdev->dev, "SR-IOV: %d VFs enabled\n", num_vfs);
		return num_vfs;
	}
	dev_err(&pdev->dev, "pci_enable_sriov(%d) failed: %d\n", num_vfs, err);
	mutex_lock(&mdev->state_lock);
	mdev->sriov.num_vfs = 0;
	sriov_disable_device(mdev);
out:
	mutex_unlock(&mdev->state_lock);
	return err;
}

static void sriov_disable(struct mlx5c_dev *mdev)
{
	struct pci_dev *pdev = mdev->pdev;
	int n = pci_num_vf(pdev);

	pci_disable_sriov(pdev);
	mutex_lock(&mdev->state_lock);
	mdev->sriov.num_vfs = 0;
	sriov_disable_device(mdev);
	mutex_unlock(&mdev->state_lock);
	if (n)
		dev_info(&pdev->dev, "SR-IOV: %d VFs disabled\n", n);
}

/**
 * mlx5c_sriov_configure() - the PCI driver's sriov_configure
 * @pdev: the PF
 * @num_vfs: VFs wanted, 0 to disable them (the PCI core has checked it
 *	against TotalVFs, and that it does not change a non-zero count)
 *
 * Return: @num_vfs when enabled, 0 when disabled, or a negative errno:
 * -EBUSY while the function is in error, recovery or a reset, -EPERM to
 * disable VFs assigned to a guest, or what a command or pci_enable_sriov()
 * returned.
 */
int mlx5c_sriov_configure(struct pci_dev *pdev, int num_vfs)
{
	struct mlx5c_dev *mdev = pci_get_drvdata(pdev);

	if (!mdev || !mdev->sriov.max_vfs)
		return -ENODEV;
	if (num_vfs > mdev->sriov.max_vfs)
		return -ERANGE;
	if (num_vfs)
		return sriov_enable(mdev, num_vfs);
	if (pci_vfs_assigned(pdev)) {
		dev_err(&pdev->dev, "SR-IOV: not disabling VFs assigned to a guest\n");
		return -EPERM;
	}
	sriov_disable(mdev);
	return 0;
}

/**
 * mlx5c_sriov_remove() - disable SR-IOV before the PF goes
 * @mdev: core device being removed, state_lock not held
 */
void mlx5c_sriov_remove(struct mlx5c_dev *mdev)
{
	if (mdev->sriov.max_vfs && pci_num_vf(mdev->pdev))
		sriov_disable(mdev);
}

/**
 * mlx5c_sriov_detach() - disable the VFs in the device, keep the PCI VFs
 * @mdev: loaded core device about to unload, state_lock held
 *
 * For a recovery or a PCI reset of the PF; mlx5c_sriov_attach() enables
 * them again.
 */
void mlx5c_sriov_detach(struct mlx5c_dev *mdev)
{
	if (mdev->sriov.max_vfs)
		sriov_disable_device(mdev);
}

/**
 * mlx5c_sriov_attach() - enable again the VFs the PCI core has
 * @mdev: core device just loaded, state_lock held
 *
 * A failure is said and leaves the VFs disabled in the device (their
 * drivers see dead firmware); the PF itself stays up.
 */
void mlx5c_sriov_attach(struct mlx5c_dev *mdev)
{
	int n = mdev->sriov.num_vfs;

	if (!n)
		return;
	if (sriov_enable_device(mdev, n))
		dev_err(&mdev->pdev->dev,
			"SR-IOV: the %d VFs stay disabled in the device after the reload\n", n);
	else
		dev_info(&mdev->pdev->dev, "SR-IOV: %d VFs enabled again after the reload\n", n);
}

/* VF @vf of a PF with VFs, as its HCA vport settings go; NULL, said, if none. */
static struct mlx5c_vf *vf_for_hca(struct mlx5c_dev *mdev, int vf)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	u16 n = READ_ONCE(sriov->num_vfs);

	if (vf >= 0 && vf < n)
		return &sriov->vfs[vf];
	dev_warn_ratelimited(&mdev->pdev->dev,
			     "SR-IOV: no VF %d: %u VFs are enabled (sriov_numvfs)\n", vf, n);
	return NULL;
}

/**
 * mlx5c_sriov_set_vf_hca() - set fields of a VF's HCA vport (InfiniBand)
 * @mdev: core device of the PF
 * @vf: VF index, 0-based (vport @vf + 1)
 * @port: port number
 * @set: the fields to set (@set->field_select) and their values
 *
 * The device takes them at once (MODIFY_HCA_VPORT_CONTEXT other_vport);
 * they are kept and set again whenever the VF is enabled in the device.
 * Called under RTNL (mlx5_ib's VF ops).
 *
 * Return: 0; -EOPNOTSUPP on a function that is no PF with SR-IOV;
 * -EINVAL for a VF beyond sriov_numvfs, no field, an unknown field or
 * policy; -EBUSY while the VF is disabled in the device (a recovery of the
 * PF); or the command's error.
 */
int mlx5c_sriov_set_vf_hca(struct mlx5c_dev *mdev, int vf, u8 port,
			   const struct mlx5c_vf_hca *set)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	u32 sel = set->field_select;
	struct mlx5c_vf *v;
	int err;

	if (mdev->is_vf || !sriov->max_vfs)
		return -EOPNOTSUPP;
	if (!sel || sel & ~VF_HCA_FIELDS ||
	    (sel & MLX5_HCA_VPORT_SEL_STATE_POLICY && set->policy > MLX5_VPORT_ADMIN_STATE_AUTO))
		return -EINVAL;
	v = vf_for_hca(mdev, vf);
	if (!v)
		return -EINVAL;
	mutex_lock(&sriov->hca_lock);
	if (!READ_ONCE(v->enabled)) {
		dev_warn_ratelimited(&mdev->pdev->dev,
				     "SR-IOV: VF %d is disabled in the device (recovery of the PF)\n",
				     vf);
		err = -EBUSY;
		goto out;
	}
	err = vf_hca_write(mdev, vf, port, set);
	if (err)
		goto out;
	if (sel & MLX5_HCA_VPORT_SEL_PORT_GUID)
		v->hca.port_guid = set->port_guid;
	if (sel & MLX5_HCA_VPORT_SEL_NODE_GUID)
		v->hca.node_guid = set->node_guid;
	if (sel & MLX5_HCA_VPORT_SEL_STATE_POLICY)
		v->hca.policy = set->policy;
	v->hca.field_select |= sel;
out:
	mutex_unlock(&sriov->hca_lock);
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_sriov_set_vf_hca, MLX5C_NS);

/**
 * mlx5c_sriov_get_vf_hca() - what was set in a VF's HCA vport
 * @mdev: core device of the PF
 * @vf: VF index, 0-based
 * @got: the fields set through mlx5c_sriov_set_vf_hca() since the PF was
 *	probed (@got->field_select) and their values (out)
 *
 * Return: 0, -EOPNOTSUPP on a function that is no PF with SR-IOV, or
 * -EINVAL for a VF beyond sriov_numvfs.
 */
int mlx5c_sriov_get_vf_hca(struct mlx5c_dev *mdev, int vf, struct mlx5c_vf_hca *got)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	struct mlx5c_vf *v;

	if (mdev->is_vf || !sriov->max_vfs)
		return -EOPNOTSUPP;
	v = vf_for_hca(mdev, vf);
	if (!v)
		return -EINVAL;
	mutex_lock(&sriov->hca_lock);
	*got = v->hca;
	mutex_unlock(&sriov->hca_lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_sriov_get_vf_hca, MLX5C_NS);

/**
 * mlx5c_sriov_init() - SR-IOV state of a PF with the capability, and its
 *	e-switch's
 * @mdev: core device at probe, before its first load
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_sriov_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;
	int total = mdev->is_vf ? 0 : pci_sriov_get_totalvfs(mdev->pdev);
	int err;

	mutex_init(&sriov->hca_lock);
	if (total > 0) {
		sriov->vfs = kcalloc(total, sizeof(*sriov->vfs), GFP_KERNEL);
		if (!sriov->vfs)
			return -ENOMEM;
		sriov->max_vfs = total;
	}
	err = mlx5c_eswitch_init(mdev);
	if (err) {
		kfree(sriov->vfs);
		sriov->vfs = NULL;
		sriov->max_vfs = 0;
	}
	return err;
}

/**
 * mlx5c_sriov_cleanup() - free what mlx5c_sriov_init() allocated
 * @mdev: core device, unloaded
 */
void mlx5c_sriov_cleanup(struct mlx5c_dev *mdev)
{
	mlx5c_eswitch_cleanup(mdev);
	kfree(mdev->sriov.vfs);
	mdev->sriov.vfs = NULL;
	mdev->sriov.max_vfs = 0;
	mutex_destroy(&mdev->sriov.hca_lock);
}
