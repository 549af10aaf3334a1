// SPDX-License-Identifier: GPL-2.0
/*
 * Receive steering: the root NIC receive flow table, with one group whose
 * rules match a whole destination MAC (our address, broadcast, the
 * unicast and multicast lists), one matching the multicast bit
 * (all-multicast) and one matching everything (promiscuous). Every rule
 * forwards to the RSS TIR.
 */
#include <linux/slab.h>

#include "en.h"

#define FT_IX_MCAST	MLX5C_EN_FT_ADDRS
#define FT_IX_ANY	(MLX5C_EN_FT_ADDRS + 1)

static const struct mlx5c_ft_ns nic_rx = { .type = MLX5_FLOW_TABLE_TYPE_NIC_RX };

/* An fte_match_param with only the outer destination MAC set (or nothing). */
static void *dmac_match(const u8 *dmac)
{
	void *m = kzalloc(MLX5_ST_SZ_BYTES(fte_match_param), GFP_KERNEL);

	if (m && dmac)
		ether_addr_copy(MLX5_ADDR_OF(fte_match_param, m, outer_headers.dmac_47_16), dmac);
	return m;
}

static int create_group(struct mlx5c_en_priv *priv, u32 start, u32 end,
			const u8 *dmac_mask, u32 *id)
{
	void *crit = NULL;
	int err;

	if (dmac_mask) {
		crit = dmac_match(dmac_mask);
		if (!crit)
			return -ENOMEM;
	}
	err = mlx5c_fg_create(priv->mdev, &nic_rx, priv->fs.ft_id, start, end,
			      MLX5C_MATCH_OUTER, crit, id);
	kfree(crit);
	return err;
}

static void destroy_group(struct mlx5c_en_priv *priv, u32 id)
{
	mlx5c_fg_destroy(priv->mdev, &nic_rx, priv->fs.ft_id, id);
}

/* A rule at @index of group @group forwarding to the TIR; @dmac may be NULL. */
static int set_rule(struct mlx5c_en_priv *priv, u32 index, u32 group, const u8 *dmac)
{
	struct mlx5c_fte fte = {
		.index = index,
		.group = group,
		.action = MLX5_FLOW_CONTEXT_ACTION_FWD_DEST,
		.ndest = 1,
		.dest[0] = { MLX5_IFC_FLOW_DESTINATION_TYPE_TIR, priv->tirn },
	};
	void *m = dmac_match(dmac);
	int err;

	if (!m)
		return -ENOMEM;
	fte.match = m;
	err = mlx5c_fte_set(priv->mdev, &nic_rx, priv->fs.ft_id, &fte);
	kfree(m);
	return err;
}

static void del_rule(struct mlx5c_en_priv *priv, u32 index)
{
	mlx5c_fte_del(priv->mdev, &nic_rx, priv->fs.ft_id, index);
}

static int set_root(struct mlx5c_en_priv *priv, bool connect)
{
	return mlx5c_ft_set_root(priv->mdev, &nic_rx, connect ? priv->fs.ft_id : 0);
}

/* The destination MACs the netdev wants now; *allmulti when they overflow. */
static int wanted_addrs(struct net_device *netdev, u8 (*addrs)[ETH_ALEN], bool *allmulti)
{
	struct netdev_hw_addr *ha;
	int n = 0;

	ether_addr_copy(addrs[n++], netdev->dev_addr);
	eth_broadcast_addr(addrs[n++]);
	netif_addr_lock_bh(netdev);
	netdev_for_each_uc_addr(ha, netdev)
		if (n < MLX5C_EN_FT_ADDRS)
			ether_addr_copy(addrs[n++], ha->addr);
	netdev_for_each_mc_addr(ha, netdev) {
		if (n < MLX5C_EN_FT_ADDRS)
			ether_addr_copy(addrs[n++], ha->addr);
		else
			*allmulti = true;
	}
	netif_addr_unlock_bh(netdev);
	return n;
}

static bool addr_in(u8 (*addrs)[ETH_ALEN], int n, const u8 *a)
{
	int i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(addrs[i], a))
			return true;
	return false;
}

/* Bring the rules in line with the netdev's addresses and flags. */
static void fs_sync(struct mlx5c_en_priv *priv)
{
	struct mlx5c_en_fs *fs = &priv->fs;
	struct net_device *netdev = priv->netdev;
	bool allmulti = netdev->flags & IFF_ALLMULTI;
	bool promisc = netdev->flags & IFF_PROMISC;
	static const u8 mcast[ETH_ALEN] = { 0x01 };
	u8 (*addrs)[ETH_ALEN];
	int n, i, ix;

	addrs = kcalloc(MLX5C_EN_FT_ADDRS, ETH_ALEN, GFP_KERNEL);
	if (!addrs)
		return;
	n = wanted_addrs(netdev, addrs, &allmulti);
	for_each_set_bit(ix, fs->used, MLX5C_EN_FT_ADDRS) {
		if (addr_in(addrs, n, fs->addrs[ix]))
			continue;
		del_rule(priv, ix);
		clear_bit(ix, fs->used);
	}
	for (i = 0; i < n; i++) {
		bool have = false;

		for_each_set_bit(ix, fs->used, MLX5C_EN_FT_ADDRS)
			if (ether_addr_equal(fs->addrs[ix], addrs[i]))
				have = true;
		if (have)
			continue;
		ix = find_first_zero_bit(fs->used, MLX5C_EN_FT_ADDRS);
		if (ix >= MLX5C_EN_FT_ADDRS)
			break;
		if (set_rule(priv, ix, fs->fg_addr, addrs[i]))
			continue;
		ether_addr_copy(fs->addrs[ix], addrs[i]);
		set_bit(ix, fs->used);
	}
	if (allmulti != fs->allmulti) {
		if (allmulti)
			allmulti = !set_rule(priv, FT_IX_MCAST, fs->fg_mcast, mcast);
		else
			del_rule(priv, FT_IX_MCAST);
		fs->allmulti = allmulti;
	}
	if (promisc != fs->promisc) {
		if (promisc)
			promisc = !set_rule(priv, FT_IX_ANY, fs->fg_any, NULL);
		else
			del_rule(priv, FT_IX_ANY);
		fs->promisc = promisc;
	}
	/* On an e-switch manager, the uplink takes our unicast addresses in. */
	mlx5c_mpfs_set_own(priv->mdev, &addrs[0][0], n);
	/* What reaches the function at all is the e-switch's (a VF's). */
	if (mlx5c_en_set_vport_rx_mode(priv, &addrs[0][0], n,
				       netdev->flags & IFF_PROMISC, fs->allmulti))
		netdev_warn(netdev, "the NIC vport did not take the receive addresses\n");
	kfree(addrs);
}

/**
 * mlx5c_en_fs_create() - the flow table, its groups and rules, as the root
 * @priv: netdev private data, with the TIR
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_fs_create(struct mlx5c_en_priv *priv)
{
	static const u8 mcast[ETH_ALEN] = { 0x01 };
	struct mlx5c_en_fs *fs = &priv->fs;
	u8 all[ETH_ALEN];
	int err;

	memset(fs, 0, sizeof(*fs));
	err = mlx5c_ft_create(priv->mdev, &nic_rx, 0, MLX5C_EN_FT_LOG_SIZE, &fs->ft_id);
	if (err)
		return err;

	fs->created = true;
	eth_broadcast_addr(all);
	err = create_group(priv, 0, MLX5C_EN_FT_ADDRS - 1, all, &fs->fg_addr);
	if (!err) {
		fs->ngroups++;
		err = create_group(priv, FT_IX_MCAST, FT_IX_MCAST, mcast, &fs->fg_mcast);
	}
	if (!err) {
		fs->ngroups++;
		err = create_group(priv, FT_IX_ANY, FT_IX_ANY, NULL, &fs->fg_any);
	}
	if (!err) {
		fs->ngroups++;
		err = set_root(priv, true);
	}
	if (!err)
		fs->root = true;
	if (err) {
		mlx5c_en_fs_destroy(priv);
		return err;
	}
	fs_sync(priv);
	return 0;
}

/**
 * mlx5c_en_fs_destroy() - disconnect and destroy the flow table
 * @priv: netdev private data
 */
void mlx5c_en_fs_destroy(struct mlx5c_en_priv *priv)
{
	struct mlx5c_en_fs *fs = &priv->fs;
	int ix;

	if (!fs->created)
		return;
	mlx5c_mpfs_set_own(priv->mdev, NULL, 0);
	if (fs->root)
		set_root(priv, false);
	for_each_set_bit(ix, fs->used, MLX5C_EN_FT_ADDRS)
		del_rule(priv, ix);
	if (fs->allmulti)
		del_rule(priv, FT_IX_MCAST);
	if (fs->promisc)
		del_rule(priv, FT_IX_ANY);
	if (fs->ngroups > 2)
		destroy_group(priv, fs->fg_any);
	if (fs->ngroups > 1)
		destroy_group(priv, fs->fg_mcast);
	if (fs->ngroups > 0)
		destroy_group(priv, fs->fg_addr);
	mlx5c_ft_destroy(priv->mdev, &nic_rx, fs->ft_id);
	memset(fs, 0, sizeof(*fs));
}

/**
 * mlx5c_en_rx_mode_work() - reprogram the rules (ndo_set_rx_mode's work)
 * @work: the netdev's rx-mode work
 */
void mlx5c_en_rx_mode_work(struct work_struct *work)
{
	struct mlx5c_en_priv *priv = container_of(work, struct mlx5c_en_priv, rx_mode_work);

	mutex_lock(&priv->lock);
	if (priv->opened && priv->fs.root)
		fs_sync(priv);
	mutex_unlock(&priv->lock);
}
