// SPDX-License-Identifier: GPL-2.0
/*
 * The vport ACLs of the legacy e-switch, one small table each, rebuilt
 * whenever a setting they follow changes:
 *  - ingress (frames from the VF): with the spoof check, only the VF's
 *    MAC as source passes; with VLAN switch tagging (VST), only untagged
 *    frames pass (the e-switch tags them, esw vport context); the rest is
 *    dropped;
 *  - egress (frames to the VF): with VST, only frames of the VF's VLAN
 *    pass (the e-switch strips the tag); the rest is dropped.
 * A vport without the spoof check and VST has no ACL at all: everything
 * passes.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>

#include "../mlx5_core.h"

#define ACL_LOG_SIZE	1	/* the allow rule at 0, the drop-all at 1 */
#define ACL_IX_ALLOW	0
#define ACL_IX_DROP	1

static struct mlx5c_ft_ns acl_ns(const struct mlx5c_esw_vport *vp, u8 type)
{
	return (struct mlx5c_ft_ns){ .type = type, .vport = vp->num, .other = true };
}

/**
 * mlx5c_esw_acl_destroy() - take a vport's ACL down
 * @vp: the vport, e-switch lock held
 * @acl: its ingress or egress ACL
 * @type: MLX5C_FT_TYPE_ESW_INGRESS_ACL or _EGRESS_ACL
 */
void mlx5c_esw_acl_destroy(struct mlx5c_esw_vport *vp, struct mlx5c_esw_acl *acl, u8 type)
{
	struct mlx5c_dev *mdev = vp->esw->mdev;
	struct mlx5c_ft_ns ns = acl_ns(vp, type);

	if (!acl->ft)
		return;
	mlx5c_ft_set_root(mdev, &ns, 0);
	mlx5c_fte_del(mdev, &ns, acl->ft, ACL_IX_ALLOW);
	mlx5c_fte_del(mdev, &ns, acl->ft, ACL_IX_DROP);
	mlx5c_fg_destroy(mdev, &ns, acl->ft, acl->fg_allow);
	mlx5c_fg_destroy(mdev, &ns, acl->ft, acl->fg_drop);
	mlx5c_ft_destroy(mdev, &ns, acl->ft);
	memset(acl, 0, sizeof(*acl));
}

/*
 * An ACL of an allow rule (@crit and @val over the outer headers) and a
 * drop-all rule behind it, as the root of the vport's namespace.
 */
static int acl_build(struct mlx5c_esw_vport *vp, struct mlx5c_esw_acl *acl, u8 type,
		     const void *crit, const void *val)
{
	struct mlx5c_dev *mdev = vp->esw->mdev;
	struct mlx5c_ft_ns ns = acl_ns(vp, type);
	struct mlx5c_fte fte = {};
	int err;

	err = mlx5c_ft_create(mdev, &ns, 0, ACL_LOG_SIZE, &acl->ft);
	if (err)
		return err;
	err = mlx5c_fg_create(mdev, &ns, acl->ft, ACL_IX_ALLOW, ACL_IX_ALLOW,
			      MLX5C_MATCH_OUTER, crit, &acl->fg_allow);
	if (err)
		goto err_ft;
	err = mlx5c_fg_create(mdev, &ns, acl->ft, ACL_IX_DROP, ACL_IX_DROP, 0, NULL,
			      &acl->fg_drop);
	if (err)
		goto err_fg_allow;
	fte.index = ACL_IX_ALLOW;
	fte.group = acl->fg_allow;
	fte.action = MLX5_FLOW_CONTEXT_ACTION_ALLOW;
	fte.match = val;
	err = mlx5c_fte_set(mdev, &ns, acl->ft, &fte);
	if (err)
		goto err_fg_drop;
	fte.index = ACL_IX_DROP;
	fte.group = acl->fg_drop;
	fte.action = MLX5_FLOW_CONTEXT_ACTION_DROP;
	fte.match = NULL;
	err = mlx5c_fte_set(mdev, &ns, acl->ft, &fte);
	if (err)
		goto err_allow;
	err = mlx5c_ft_set_root(mdev, &ns, acl->ft);
	if (err)
		goto err_drop;
	return 0;

err_drop:
	mlx5c_fte_del(mdev, &ns, acl->ft, ACL_IX_DROP);
err_allow:
	mlx5c_fte_del(mdev, &ns, acl->ft, ACL_IX_ALLOW);
err_fg_drop:
	mlx5c_fg_destroy(mdev, &ns, acl->ft, acl->fg_drop);
err_fg_allow:
	mlx5c_fg_destroy(mdev, &ns, acl->ft, acl->fg_allow);
err_ft:
	mlx5c_ft_destroy(mdev, &ns, acl->ft);
	memset(acl, 0, sizeof(*acl));
	return err;
}

/* Two fte_match_params: the criteria and the value. */
static void *match_pair(void **val)
{
	int sz = MLX5_ST_SZ_BYTES(fte_match_param);
	void *m = kzalloc(2 * sz, GFP_KERNEL);

	*val = m ? m + sz : NULL;
	return m;
}

/**
 * mlx5c_esw_acl_ingress() - (re)build a VF's ingress ACL from its settings
 * @vp: the vport, enabled, e-switch lock held
 *
 * Return: 0, -EPERM for the spoof check without a MAC to allow, or another
 * negative errno (the vport is then left without an ingress ACL).
 */
int mlx5c_esw_acl_ingress(struct mlx5c_esw_vport *vp)
{
	void *crit, *val;
	int err;

	mlx5c_esw_acl_destroy(vp, &vp->ingress, MLX5C_FT_TYPE_ESW_INGRESS_ACL);
	if (!vp->spoofchk && !vp->vlan)
		return 0;
	if (vp->spoofchk && !is_valid_ether_addr(vp->mac)) {
		dev_warn(&vp->esw->mdev->pdev->dev,
			 "e-switch: vport %u: spoof check without a MAC to allow (set one first)\n",
			 vp->num);
		return -EPERM;
	}
	crit = match_pair(&val);
	if (!crit)
		return -ENOMEM;
	if (vp->spoofchk) {
		eth_broadcast_addr(MLX5_ADDR_OF(fte_match_param, crit, outer_headers.smac_47_16));
		ether_addr_copy(MLX5_ADDR_OF(fte_match_param, val, outer_headers.smac_47_16),
				vp->mac);
	}
	if (vp->vlan)
		MLX5_SET(fte_match_param, crit, outer_headers.cvlan_tag, 1);
	err = acl_build(vp, &vp->ingress, MLX5C_FT_TYPE_ESW_INGRESS_ACL, crit, val);
	kfree(crit);
	return err;
}

/**
 * mlx5c_esw_acl_egress() - (re)build a VF's egress ACL from its settings
 * @vp: the vport, enabled, e-switch lock held
 *
 * Return: 0 or a negative errno (the vport is then left without an egress
 * ACL).
 */
int mlx5c_esw_acl_egress(struct mlx5c_esw_vport *vp)
{
	void *crit, *val;
	int err;

	mlx5c_esw_acl_destroy(vp, &vp->egress, MLX5C_FT_TYPE_ESW_EGRESS_ACL);
	if (!vp->vlan)
		return 0;
	crit = match_pair(&val);
	if (!crit)
		return -ENOMEM;
	MLX5_SET(fte_match_param, crit, outer_headers.cvlan_tag, 1);
	MLX5_SET(fte_match_param, crit, outer_headers.first_vid, 0xfff);
	MLX5_SET(fte_match_param, val, outer_headers.cvlan_tag, 1);
	MLX5_SET(fte_match_param, val, outer_headers.first_vid, vp->vlan);
	err = acl_build(vp, &vp->egress, MLX5C_FT_TYPE_ESW_EGRESS_ACL, crit, val);
	kfree(crit);
	return err;
}
