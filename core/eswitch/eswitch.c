// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy e-switch of a PF with VFs on an Ethernet port (an e-switch
 * and vport group manager). sriov.c enables it for N VFs before the VFs
 * are enabled in the device and disables it after they are gone:
 *  - the FDB: one table whose rules send each unicast address a VF
 *    publishes to that VF's vport;
 *  - the MPFS (mpfs.c): the same addresses, so that the uplink takes
 *    them in;
 *  - per VF vport: what the PF's administrator set with ip link set <pf>
 *    vf N (MAC and node GUID in the VF's NIC vport context, VLAN switch
 *    tagging in its e-switch vport context and ACLs, the spoof check in
 *    its ingress ACL, trust, the link state in its vport state), kept
 *    across a disable and a recovery and applied again at the enable;
 *  - NIC_VPORT_CHANGE: each VF vport is armed for changes of its unicast
 *    addresses and promiscuous modes; the event queues the vport's work,
 *    which arms it again, reads the addresses and updates the FDB and the
 *    MPFS.
 * The netdev's ndo_set_vf_* / ndo_get_vf_* (en/vf.c) come here.
 *
 * Locks: the caller of enable and disable holds mdev->state_lock; esw->lock
 * is taken inside it, and inside RTNL (the ndos); the MPFS lock inside
 * esw->lock.
 */
#include <linux/etherdevice.h>
#include <linux/if_link.h>
#include <linux/if_vlan.h>
#include <linux/slab.h>

#include "../mlx5_core.h"

#define FDB_LOG_SIZE	6

static const struct mlx5c_ft_ns fdb_ns = { .type = MLX5C_FT_TYPE_FDB };

/**
 * mlx5c_eswitch_supported() - whether the function runs a legacy e-switch
 * @mdev: loaded core device
 *
 * Return: true on a PF with an Ethernet port that the device makes
 * e-switch and vport group manager.
 */
bool mlx5c_eswitch_supported(struct mlx5c_dev *mdev)
{
	return mdev->esw && !mdev->is_vf && mlx5c_port_is_eth(mdev) &&
	       MLX5C_CAP_GEN(mdev, eswitch_manager) && MLX5C_CAP_GEN(mdev, vport_group_manager);
}

/* ---- FDB -------------------------------------------------------------- */

static int fdb_create(struct mlx5c_eswitch *esw)
{
	struct mlx5c_dev *mdev = esw->mdev;
	u32 max = MLX5_GET(flow_table_eswitch_cap, mdev->caps.cur[MLX5_CAP_ESWITCH_FLOW_TABLE],
			   flow_table_properties_nic_esw_fdb.log_max_ft_size);
	u8 log = min_t(u32, FDB_LOG_SIZE, max);
	void *crit;
	int err;

	if (!MLX5_GET(flow_table_eswitch_cap, mdev->caps.cur[MLX5_CAP_ESWITCH_FLOW_TABLE],
		      flow_table_properties_nic_esw_fdb.ft_support))
		return -EOPNOTSUPP;
	esw->fdb_size = 1U << log;
	esw->fdb_used = bitmap_zalloc(esw->fdb_size, GFP_KERNEL);
	crit = kzalloc(MLX5_ST_SZ_BYTES(fte_match_param), GFP_KERNEL);
	if (!esw->fdb_used || !crit) {
		err = -ENOMEM;
		goto err_free;
	}
	err = mlx5c_ft_create(mdev, &fdb_ns, 0, log, &esw->fdb);
	if (err)
		goto err_free;
	eth_broadcast_addr(MLX5_ADDR_OF(fte_match_param, crit, outer_headers.dmac_47_16));
	err = mlx5c_fg_create(mdev, &fdb_ns, esw->fdb, 0, esw->fdb_size - 1,
			      MLX5C_MATCH_OUTER, crit, &esw->fdb_fg);
	if (err)
		goto err_ft;
	err = mlx5c_ft_set_root(mdev, &fdb_ns, esw->fdb);
	if (err)
		goto err_fg;
	kfree(crit);
	return 0;

err_fg:
	mlx5c_fg_destroy(mdev, &fdb_ns, esw->fdb, esw->fdb_fg);
err_ft:
	mlx5c_ft_destroy(mdev, &fdb_ns, esw->fdb);
err_free:
	kfree(crit);
	bitmap_free(esw->fdb_used);
	esw->fdb_used = NULL;
	esw->fdb = 0;
	return err;
}

static void fdb_destroy(struct mlx5c_eswitch *esw)
{
	struct mlx5c_dev *mdev = esw->mdev;

	if (!esw->fdb)
		return;
	mlx5c_ft_set_root(mdev, &fdb_ns, 0);
	mlx5c_fg_destroy(mdev, &fdb_ns, esw->fdb, esw->fdb_fg);
	mlx5c_ft_destroy(mdev, &fdb_ns, esw->fdb);
	bitmap_free(esw->fdb_used);
	esw->fdb_used = NULL;
	esw->fdb = 0;
}

/* A rule sending @mac to @vp's vport: its flow index, or a negative errno. */
static int fdb_add(struct mlx5c_esw_vport *vp, const u8 *mac)
{
	struct mlx5c_eswitch *esw = vp->esw;
	struct mlx5c_fte fte = {
		.group = esw->fdb_fg,
		.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
		.ndest = 1,
		.dest[0] = { MLX5_IFC_FLOW_DESTINATION_TYPE_VPORT, vp->num },
	};
	void *m;
	int ix, err;

	ix = find_first_zero_bit(esw->fdb_used, esw->fdb_size);
	if (ix >= esw->fdb_size)
		return -ENOSPC;
	m = kzalloc(MLX5_ST_SZ_BYTES(fte_match_param), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	ether_addr_copy(MLX5_ADDR_OF(fte_match_param, m, outer_headers.dmac_47_16), mac);
	fte.index = ix;
	fte.match = m;
	err = mlx5c_fte_set(esw->mdev, &fdb_ns, esw->fdb, &fte);
	kfree(m);
	if (err)
		return err;
	set_bit(ix, esw->fdb_used);
	return ix;
}

static void fdb_del(struct mlx5c_eswitch *esw, u32 ix)
{
	mlx5c_fte_del(esw->mdev, &fdb_ns, esw->fdb, ix);
	clear_bit(ix, esw->fdb_used);
}

/* ---- A VF's addresses (NIC_VPORT_CHANGE) ------------------------------- */

static bool uc_has(u8 (*uc)[ETH_ALEN], int n, const u8 *mac)
{
	int i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(uc[i], mac))
			return true;
	return false;
}

/* Forget address @i of @vp: out of the FDB and the MPFS. */
static void uc_drop(struct mlx5c_esw_vport *vp, int i)
{
	fdb_del(vp->esw, vp->uc_fte[i]);
	mlx5c_mpfs_del(vp->esw->mdev, vp->uc[i]);
	vp->n_uc--;
	ether_addr_copy(vp->uc[i], vp->uc[vp->n_uc]);
	vp->uc_fte[i] = vp->uc_fte[vp->n_uc];
}

/* Take the VF's list @uc of @n addresses: drop the gone, add the new. */
static void uc_sync(struct mlx5c_esw_vport *vp, u8 (*uc)[ETH_ALEN], int n)
{
	struct mlx5c_dev *mdev = vp->esw->mdev;
	int i, ix;

	for (i = vp->n_uc - 1; i >= 0; i--)
		if (!uc_has(uc, n, vp->uc[i]))
			uc_drop(vp, i);
	for (i = 0; i < n && vp->n_uc < MLX5C_ESW_MAX_UC; i++) {
		if (!is_valid_ether_addr(uc[i]) || uc_has(vp->uc, vp->n_uc, uc[i]))
			continue;
		ix = fdb_add(vp, uc[i]);
		if (ix < 0) {
			dev_warn_ratelimited(&mdev->pdev->dev,
					     "e-switch: vport %u: %pM not in the FDB: %d\n",
					     vp->num, uc[i], ix);
			continue;
		}
		if (mlx5c_mpfs_add(mdev, uc[i]))
			dev_warn_ratelimited(&mdev->pdev->dev,
					     "e-switch: vport %u: %pM not in the MPFS\n",
					     vp->num, uc[i]);
		ether_addr_copy(vp->uc[vp->n_uc], uc[i]);
		vp->uc_fte[vp->n_uc++] = ix;
	}
}

/* Ask for one NIC_VPORT_CHANGE at the next change of the VF's addresses or modes. */
static int vport_arm(struct mlx5c_esw_vport *vp)
{
	u32 in[MLX5_ST_SZ_DW(modify_nic_vport_context_in)] = {};
	void *ctx = MLX5_ADDR_OF(modify_nic_vport_context_in, in, nic_vport_context);

	MLX5_SET(modify_nic_vport_context_in, in, field_select.change_event, 1);
	MLX5_SET(nic_vport_context, ctx, arm_change_event, 1);
	MLX5_SET(nic_vport_context, ctx, event_on_uc_address_change, 1);
	MLX5_SET(nic_vport_context, ctx, event_on_promisc_change, 1);
	return mlx5c_vport_modify_nic(vp->esw->mdev, vp->num, true, in, sizeof(in));
}

/* Arm the vport again, then read and apply what it lists now. */
static void vport_change_locked(struct mlx5c_esw_vport *vp)
{
	struct mlx5c_dev *mdev = vp->esw->mdev;
	u8 (*uc)[ETH_ALEN];
	bool promisc = false;
	int n, err;

	err = vport_arm(vp);
	if (err && !mlx5c_dev_is_error(mdev))
		dev_warn(&mdev->pdev->dev, "e-switch: vport %u: arming its change event failed: %d\n",
			 vp->num, err);
	uc = kcalloc(MLX5C_ESW_MAX_UC, ETH_ALEN, GFP_KERNEL);
	if (!uc)
		return;
	n = mlx5c_vport_query_nic_uc(mdev, vp->num, true, &uc[0][0], MLX5C_ESW_MAX_UC, &promisc);
	if (n >= 0) {
		uc_sync(vp, uc, n);
		vp->promisc = promisc;
	} else if (!mlx5c_dev_is_error(mdev)) {
		dev_warn(&mdev->pdev->dev, "e-switch: vport %u: reading its addresses failed: %d\n",
			 vp->num, n);
	}
	kfree(uc);
}

static void vport_change_work(struct work_struct *work)
{
	struct mlx5c_esw_vport *vp = container_of(work, struct mlx5c_esw_vport, change_work);

	mutex_lock(&vp->esw->lock);
	if (vp->enabled)
		vport_change_locked(vp);
	mutex_unlock(&vp->esw->lock);
}

static int esw_event(struct notifier_block *nb, unsigned long type, void *data)
{
	struct mlx5c_eswitch *esw = container_of(nb, struct mlx5c_eswitch, nb.nb);
	const struct mlx5_eqe *eqe = data;
	u16 n = be16_to_cpu(eqe->data.vport_change.vport_num);

	if (!n || n >= esw->nvports || !READ_ONCE(esw->vports[n].enabled)) {
		dev_dbg(&esw->mdev->pdev->dev, "e-switch: change event of vport %u ignored\n", n);
		return NOTIFY_DONE;
	}
	queue_work(esw->wq, &esw->vports[n].change_work);
	return NOTIFY_OK;
}

/* ---- A VF's settings --------------------------------------------------- */

static void node_guid_from_mac(const u8 *mac, u8 *guid)
{
	/* EUI-64 from the MAC: ff:fe between its two halves. */
	guid[0] = mac[0];
	guid[1] = mac[1];
	guid[2] = mac[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = mac[3];
	guid[6] = mac[4];
	guid[7] = mac[5];
}

static int vport_set_mac(struct mlx5c_esw_vport *vp)
{
	u32 in[MLX5_ST_SZ_DW(modify_nic_vport_context_in)] = {};
	void *ctx = MLX5_ADDR_OF(modify_nic_vport_context_in, in, nic_vport_context);
	u8 guid[8] = {};

	MLX5_SET(modify_nic_vport_context_in, in, field_select.permanent_address, 1);
	ether_addr_copy(MLX5_ADDR_OF(nic_vport_context, ctx, permanent_address.mac_addr_47_32),
			vp->mac);
	if (!is_zero_ether_addr(vp->mac)) {
		MLX5_SET(modify_nic_vport_context_in, in, field_select.node_guid, 1);
		node_guid_from_mac(vp->mac, guid);
		memcpy(MLX5_ADDR_OF(nic_vport_context, ctx, node_guid), guid, sizeof(guid));
	}
	return mlx5c_vport_modify_nic(vp->esw->mdev, vp->num, true, in, sizeof(in));
}

/* VST in the e-switch vport context: insert the tag on the way in, strip it out. */
static int vport_set_cvlan(struct mlx5c_esw_vport *vp)
{
	u32 out[MLX5_ST_SZ_DW(modify_esw_vport_context_out)] = {};
	u32 in[MLX5_ST_SZ_DW(modify_esw_vport_context_in)] = {};
	struct mlx5c_dev *mdev = vp->esw->mdev;
	const void *cap = mdev->caps.cur[MLX5_CAP_ESWITCH];
	bool on = vp->vlan || vp->qos;

	if (!MLX5_GET(e_switch_cap, cap, vport_cvlan_strip) ||
	    !MLX5_GET(e_switch_cap, cap, vport_cvlan_insert_if_not_exist))
		return on ? -EOPNOTSUPP : 0;
	MLX5_SET(modify_esw_vport_context_in, in, opcode, MLX5_CMD_OP_MODIFY_ESW_VPORT_CONTEXT);
	MLX5_SET(modify_esw_vport_context_in, in, other_vport, 1);
	MLX5_SET(modify_esw_vport_context_in, in, vport_number, vp->num);
	MLX5_SET(modify_esw_vport_context_in, in, field_select.vport_cvlan_strip, 1);
	MLX5_SET(modify_esw_vport_context_in, in, field_select.vport_cvlan_insert, 1);
	if (on) {
		MLX5_SET(modify_esw_vport_context_in, in, esw_vport_context.vport_cvlan_strip, 1);
		/* 1: insert when the frame has no C-VLAN tag. */
		MLX5_SET(modify_esw_vport_context_in, in, esw_vport_context.vport_cvlan_insert, 1);
		MLX5_SET(modify_esw_vport_context_in, in, esw_vport_context.cvlan_id, vp->vlan);
		MLX5_SET(modify_esw_vport_context_in, in, esw_vport_context.cvlan_pcp, vp->qos);
	}
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

static u8 admin_state(int link_state)
{
	switch (link_state) {
	case IFLA_VF_LINK_STATE_ENABLE:
		return MLX5_VPORT_ADMIN_STATE_UP;
	case IFLA_VF_LINK_STATE_DISABLE:
		return MLX5_VPORT_ADMIN_STATE_DOWN;
	default:
		return MLX5_VPORT_ADMIN_STATE_AUTO;
	}
}

static int vport_set_state(struct mlx5c_esw_vport *vp)
{
	return mlx5c_vport_modify_state(vp->esw->mdev, MLX5_VPORT_STATE_OP_MOD_ESW_VPORT,
					vp->num, true, admin_state(vp->link_state));
}

/* Apply every setting of an enabled vport, then read its addresses. */
static int vport_apply(struct mlx5c_esw_vport *vp)
{
	int err = 0;

	if (!is_zero_ether_addr(vp->mac))
		err = vport_set_mac(vp);
	if (!err)
		err = vport_set_cvlan(vp);
	if (!err)
		err = mlx5c_esw_acl_ingress(vp);
	if (!err)
		err = mlx5c_esw_acl_egress(vp);
	if (!err)
		err = vport_set_state(vp);
	if (!err)
		vport_change_locked(vp);
	return err;
}

static void vport_teardown(struct mlx5c_esw_vport *vp)
{
	while (vp->n_uc)
		uc_drop(vp, vp->n_uc - 1);
	vp->promisc = false;
	mlx5c_esw_acl_destroy(vp, &vp->egress, MLX5C_FT_TYPE_ESW_EGRESS_ACL);
	mlx5c_esw_acl_destroy(vp, &vp->ingress, MLX5C_FT_TYPE_ESW_INGRESS_ACL);
}

/* ---- Enable and disable (sriov.c) ------------------------------------- */

static void esw_disable_locked(struct mlx5c_eswitch *esw)
{
	int i;

	for (i = 1; i < esw->nvports; i++) {
		struct mlx5c_esw_vport *vp = &esw->vports[i];

		if (vp->enabled || vp->ingress.ft || vp->egress.ft || vp->n_uc) {
			WRITE_ONCE(vp->enabled, false);
			vport_teardown(vp);
		}
	}
	fdb_destroy(esw);
	esw->enabled_vfs = 0;
}

/**
 * mlx5c_eswitch_enable() - the legacy e-switch for @num_vfs VFs
 * @mdev: loaded PF, state_lock held
 * @num_vfs: VFs about to be enabled in the device
 *
 * Nothing on a function that runs no e-switch (InfiniBand, no manager
 * capabilities). Each VF's vport gets the settings its administrator made.
 *
 * Return: 0 or a negative errno, with nothing left enabled.
 */
int mlx5c_eswitch_enable(struct mlx5c_dev *mdev, int num_vfs)
{
	struct mlx5c_eswitch *esw = mdev->esw;
	int i, err;

	lockdep_assert_held(&mdev->state_lock);
	if (!mlx5c_eswitch_supported(mdev) || !num_vfs)
		return 0;
	if (num_vfs >= esw->nvports)
		return -EINVAL;
	mutex_lock(&esw->lock);
	err = fdb_create(esw);
	if (err) {
		dev_err(&mdev->pdev->dev, "e-switch: the FDB could not be created: %d\n", err);
		goto out;
	}
	mlx5c_eq_notifier_register(mdev, &esw->nb);
	for (i = 1; i <= num_vfs; i++) {
		struct mlx5c_esw_vport *vp = &esw->vports[i];

		WRITE_ONCE(vp->enabled, true);
		err = vport_apply(vp);
		if (err) {
			dev_err(&mdev->pdev->dev, "e-switch: vport %d could not be set up: %d\n",
				i, err);
			break;
		}
	}
	if (err) {
		mutex_unlock(&esw->lock);
		mlx5c_eq_notifier_unregister(mdev, &esw->nb);
		for (i = 1; i < esw->nvports; i++)
			cancel_work_sync(&esw->vports[i].change_work);
		mutex_lock(&esw->lock);
		esw_disable_locked(esw);
		goto out;
	}
	esw->enabled_vfs = num_vfs;
	dev_info(&mdev->pdev->dev, "e-switch: legacy mode, %d VFs\n", num_vfs);
out:
	mutex_unlock(&esw->lock);
	return err;
}

/**
 * mlx5c_eswitch_disable() - take the e-switch down
 * @mdev: PF, state_lock held, its VFs disabled in the device
 *
 * The settings of the vports stay for the next enable. In the
 * internal-error state the commands fail at once; the state goes anyway.
 */
void mlx5c_eswitch_disable(struct mlx5c_dev *mdev)
{
	struct mlx5c_eswitch *esw = mdev->esw;
	int i;

	lockdep_assert_held(&mdev->state_lock);
	if (!esw || !esw->fdb)
		return;
	mlx5c_eq_notifier_unregister(mdev, &esw->nb);
	mutex_lock(&esw->lock);
	for (i = 1; i < esw->nvports; i++)
		WRITE_ONCE(esw->vports[i].enabled, false);
	mutex_unlock(&esw->lock);
	for (i = 1; i < esw->nvports; i++)
		cancel_work_sync(&esw->vports[i].change_work);
	mutex_lock(&esw->lock);
	esw_disable_locked(esw);
	mutex_unlock(&esw->lock);
	dev_info(&mdev->pdev->dev, "e-switch: disabled\n");
}

/**
 * mlx5c_eswitch_init() - the e-switch state of a PF with the SR-IOV
 *	capability
 * @mdev: core device at probe, its SR-IOV state initialised
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_eswitch_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_eswitch *esw;
	int i;

	mlx5c_mpfs_init(mdev);
	if (!mdev->sriov.max_vfs)
		return 0;
	esw = kzalloc(sizeof(*esw), GFP_KERNEL);
	if (!esw)
		return -ENOMEM;
	esw->nvports = mdev->sriov.max_vfs + 1;
	esw->vports = kcalloc(esw->nvports, sizeof(*esw->vports), GFP_KERNEL);
	esw->wq = alloc_ordered_workqueue("mlx5c_esw_%s", 0, dev_name(&mdev->pdev->dev));
	if (!esw->vports || !esw->wq) {
		if (esw->wq)
			destroy_workqueue(esw->wq);
		kfree(esw->vports);
		kfree(esw);
		return -ENOMEM;
	}
	esw->mdev = mdev;
	mutex_init(&esw->lock);
	esw->nb.nb.notifier_call = esw_event;
	esw->nb.event_type = MLX5_EVENT_TYPE_NIC_VPORT_CHANGE;
	for (i = 0; i < esw->nvports; i++) {
		esw->vports[i].esw = esw;
		esw->vports[i].num = i;
		esw->vports[i].link_state = IFLA_VF_LINK_STATE_AUTO;
		INIT_WORK(&esw->vports[i].change_work, vport_change_work);
	}
	mdev->esw = esw;
	return 0;
}

/**
 * mlx5c_eswitch_cleanup() - free what mlx5c_eswitch_init() allocated
 * @mdev: core device, unloaded
 */
void mlx5c_eswitch_cleanup(struct mlx5c_dev *mdev)
{
	struct mlx5c_eswitch *esw = mdev->esw;

	if (!esw)
		return;
	mdev->esw = NULL;
	destroy_workqueue(esw->wq);
	mutex_destroy(&esw->lock);
	kfree(esw->vports);
	kfree(esw);
}

/* ---- The ndos' side (en/vf.c) ----------------------------------------- */

/* The enabled vport of VF @vf, with esw->lock taken, or an ERR_PTR. */
static struct mlx5c_esw_vport *vf_vport_lock(struct mlx5c_dev *mdev, int vf)
{
	struct mlx5c_eswitch *esw = mdev->esw;

	if (!esw || !mlx5c_eswitch_supported(mdev))
		return ERR_PTR(-EOPNOTSUPP);
	mutex_lock(&esw->lock);
	if (vf < 0 || vf >= esw->enabled_vfs) {
		mutex_unlock(&esw->lock);
		return ERR_PTR(-EINVAL);
	}
	return &esw->vports[vf + 1];
}

/**
 * mlx5c_eswitch_set_vf_mac() - a VF's MAC address (ndo_set_vf_mac)
 * @mdev: the PF
 * @vf: VF index
 * @mac: the address; zero clears it
 *
 * The VF reads it when its driver builds its netdev. With the spoof check
 * on, its ingress ACL follows.
 *
 * Return: 0, -EINVAL for a multicast address or a VF not enabled,
 * -EOPNOTSUPP without a legacy e-switch, or what a command returned.
 */
int mlx5c_eswitch_set_vf_mac(struct mlx5c_dev *mdev, int vf, const u8 *mac)
{
	struct mlx5c_esw_vport *vp;
	u8 old[ETH_ALEN];
	int err;

	if (is_multicast_ether_addr(mac))
		return -EINVAL;
	vp = vf_vport_lock(mdev, vf);
	if (IS_ERR(vp))
		return PTR_ERR(vp);
	ether_addr_copy(old, vp->mac);
	ether_addr_copy(vp->mac, mac);
	err = vport_set_mac(vp);
	if (!err && vp->spoofchk)
		err = mlx5c_esw_acl_ingress(vp);
	if (err) {
		ether_addr_copy(vp->mac, old);
		vport_set_mac(vp);
		mlx5c_esw_acl_ingress(vp);
	}
	mutex_unlock(&vp->esw->lock);
	return err;
}

/**
 * mlx5c_eswitch_set_vf_vlan() - VLAN switch tagging of a VF
 *	(ndo_set_vf_vlan)
 * @mdev: the PF
 * @vf: VF index
 * @vlan: VID, 0 with @qos 0 to stop tagging
 * @qos: priority
 *
 * Return: 0, -EINVAL out of range, -EOPNOTSUPP without the device's C-VLAN
 * insert and strip, or what a command returned (the old tagging is then
 * restored).
 */
int mlx5c_eswitch_set_vf_vlan(struct mlx5c_dev *mdev, int vf, u16 vlan, u8 qos)
{
	struct mlx5c_esw_vport *vp;
	u16 old_vlan;
	u8 old_qos;
	int err;

	if (vlan > VLAN_VID_MASK || qos > 7)
		return -EINVAL;
	vp = vf_vport_lock(mdev, vf);
	if (IS_ERR(vp))
		return PTR_ERR(vp);
	old_vlan = vp->vlan;
	old_qos = vp->qos;
	vp->vlan = vlan;
	vp->qos = qos;
	err = vport_set_cvlan(vp);
	if (!err)
		err = mlx5c_esw_acl_ingress(vp);
	if (!err)
		err = mlx5c_esw_acl_egress(vp);
	if (err) {
		vp->vlan = old_vlan;
		vp->qos = old_qos;
		vport_set_cvlan(vp);
		mlx5c_esw_acl_ingress(vp);
		mlx5c_esw_acl_egress(vp);
	}
	mutex_unlock(&vp->esw->lock);
	return err;
}

/**
 * mlx5c_eswitch_set_vf_spoofchk() - the spoof check of a VF
 *	(ndo_set_vf_spoofchk)
 * @mdev: the PF
 * @vf: VF index
 * @on: frames from the VF with another source MAC than its own are dropped
 *
 * Return: 0, -EPERM to turn it on for a VF without a MAC, or another
 * negative errno.
 */
int mlx5c_eswitch_set_vf_spoofchk(struct mlx5c_dev *mdev, int vf, bool on)
{
	struct mlx5c_esw_vport *vp;
	bool old;
	int err;

	vp = vf_vport_lock(mdev, vf);
	if (IS_ERR(vp))
		return PTR_ERR(vp);
	old = vp->spoofchk;
	vp->spoofchk = on;
	err = mlx5c_esw_acl_ingress(vp);
	if (err) {
		vp->spoofchk = old;
		mlx5c_esw_acl_ingress(vp);
	}
	mutex_unlock(&vp->esw->lock);
	return err;
}

/**
 * mlx5c_eswitch_set_vf_trust() - whether a VF is trusted
 *	(ndo_set_vf_trust)
 * @mdev: the PF
 * @vf: VF index
 * @on: the VF's promiscuous modes are honoured
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_eswitch_set_vf_trust(struct mlx5c_dev *mdev, int vf, bool on)
{
	struct mlx5c_esw_vport *vp = vf_vport_lock(mdev, vf);

	if (IS_ERR(vp))
		return PTR_ERR(vp);
	vp->trust = on;
	/* What the VF asked for is read again under the new trust. */
	vport_change_locked(vp);
	mutex_unlock(&vp->esw->lock);
	return 0;
}

/**
 * mlx5c_eswitch_set_vf_link_state() - a VF's link (ndo_set_vf_link_state)
 * @mdev: the PF
 * @vf: VF index
 * @state: IFLA_VF_LINK_STATE_AUTO (the uplink's), _ENABLE or _DISABLE
 *
 * Return: 0, -EINVAL for another state, or a negative errno.
 */
int mlx5c_eswitch_set_vf_link_state(struct mlx5c_dev *mdev, int vf, int state)
{
	struct mlx5c_esw_vport *vp;
	int old, err;

	if (state != IFLA_VF_LINK_STATE_AUTO && state != IFLA_VF_LINK_STATE_ENABLE &&
	    state != IFLA_VF_LINK_STATE_DISABLE)
		return -EINVAL;
	vp = vf_vport_lock(mdev, vf);
	if (IS_ERR(vp))
		return PTR_ERR(vp);
	old = vp->link_state;
	vp->link_state = state;
	err = vport_set_state(vp);
	if (err)
		vp->link_state = old;
	mutex_unlock(&vp->esw->lock);
	return err;
}

/**
 * mlx5c_eswitch_get_vf_config() - a VF's settings (ndo_get_vf_config)
 * @mdev: the PF
 * @vf: VF index
 * @ivi: filled in; the rates are 0 (no rate limits yet)
 *
 * The MAC is the VF's vport's (what its manager set, else zero).
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_eswitch_get_vf_config(struct mlx5c_dev *mdev, int vf, struct ifla_vf_info *ivi)
{
	struct mlx5c_esw_vport *vp = vf_vport_lock(mdev, vf);

	if (IS_ERR(vp))
		return PTR_ERR(vp);
	memset(ivi, 0, sizeof(*ivi));
	ivi->vf = vf;
	ether_addr_copy(ivi->mac, vp->mac);
	ivi->vlan = vp->vlan;
	ivi->qos = vp->qos;
	ivi->vlan_proto = htons(ETH_P_8021Q);
	ivi->spoofchk = vp->spoofchk;
	ivi->trusted = vp->trust;
	ivi->linkstate = vp->link_state;
	mutex_unlock(&vp->esw->lock);
	return 0;
}

/**
 * mlx5c_eswitch_get_vf_stats() - a VF's traffic (ndo_get_vf_stats)
 * @mdev: the PF
 * @vf: VF index
 * @st: filled in from the VF vport's counters (what the VF received and
 *	sent)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_eswitch_get_vf_stats(struct mlx5c_dev *mdev, int vf, struct ifla_vf_stats *st)
{
	struct mlx5c_esw_vport *vp = vf_vport_lock(mdev, vf);
	u16 num;
	void *o;

	if (IS_ERR(vp))
		return PTR_ERR(vp);
	num = vp->num;
	mutex_unlock(&vp->esw->lock);
	o = mlx5c_vport_query_counter(mdev, 0, num, true);
	if (IS_ERR(o))
		return PTR_ERR(o);
#define VC(fld, what) MLX5_GET64(traffic_counter, \
	MLX5_ADDR_OF(query_vport_counter_out, o, fld), what)
	memset(st, 0, sizeof(*st));
	st->rx_packets = VC(received_eth_unicast, packets) +
			 VC(received_eth_multicast, packets) +
			 VC(received_eth_broadcast, packets);
	st->rx_bytes = VC(received_eth_unicast, octets) +
		       VC(received_eth_multicast, octets) +
		       VC(received_eth_broadcast, octets);
	st->tx_packets = VC(transmitted_eth_unicast, packets) +
			 VC(transmitted_eth_multicast, packets) +
			 VC(transmitted_eth_broadcast, packets);
	st->tx_bytes = VC(transmitted_eth_unicast, octets) +
		       VC(transmitted_eth_multicast, octets) +
		       VC(transmitted_eth_broadcast, octets);
	st->broadcast = VC(received_eth_broadcast, packets);
	st->multicast = VC(received_eth_multicast, packets);
#undef VC
	kfree(o);
	return 0;
}
