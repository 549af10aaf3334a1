// SPDX-License-Identifier: GPL-2.0
/*
 * The MPFS: the adapter's L2 table of the unicast MACs its uplink takes
 * in (SET/DELETE_L2_TABLE_ENTRY), kept by the e-switch manager. It holds
 * the PF netdev's own unicast addresses (mlx5c_mpfs_set_own(), from the
 * netdev's receive-mode sync) and those its VFs publish on their vports
 * (the e-switch's change handling). One entry per MAC, counted: the PF and
 * a VF may both want the same address.
 *
 * The table exists from the load of an e-switch manager to its unload;
 * the device forgets it with the function (a reload, a recovery), so the
 * unload drops it without commands.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>

#include "../mlx5_core.h"

struct mlx5c_mpfs_entry {
	struct list_head list;
	u8 mac[ETH_ALEN];
	u32 index;
	unsigned int refs;
};

static int l2_set(struct mlx5c_dev *mdev, u32 index, const u8 *mac)
{
	u32 out[MLX5_ST_SZ_DW(set_l2_table_entry_out)] = {};
	u32 in[MLX5_ST_SZ_DW(set_l2_table_entry_in)] = {};

	MLX5_SET(set_l2_table_entry_in, in, opcode, MLX5_CMD_OP_SET_L2_TABLE_ENTRY);
	MLX5_SET(set_l2_table_entry_in, in, table_index, index);
	ether_addr_copy(MLX5_ADDR_OF(set_l2_table_entry_in, in, mac_address.mac_addr_47_32), mac);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

static void l2_del(struct mlx5c_dev *mdev, u32 index)
{
	u32 out[MLX5_ST_SZ_DW(delete_l2_table_entry_out)] = {};
	u32 in[MLX5_ST_SZ_DW(delete_l2_table_entry_in)] = {};

	MLX5_SET(delete_l2_table_entry_in, in, opcode, MLX5_CMD_OP_DELETE_L2_TABLE_ENTRY);
	MLX5_SET(delete_l2_table_entry_in, in, table_index, index);
	mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

static struct mlx5c_mpfs_entry *find(struct mlx5c_mpfs *mpfs, const u8 *mac)
{
	struct mlx5c_mpfs_entry *e;

	list_for_each_entry(e, &mpfs->list, list)
		if (ether_addr_equal(e->mac, mac))
			return e;
	return NULL;
}

static int add_locked(struct mlx5c_dev *mdev, const u8 *mac)
{
	struct mlx5c_mpfs *mpfs = &mdev->mpfs;
	struct mlx5c_mpfs_entry *e;
	u32 index;
	int err;

	e = find(mpfs, mac);
	if (e) {
		e->refs++;
		return 0;
	}
	index = find_first_zero_bit(mpfs->used, mpfs->size);
	if (index >= mpfs->size) {
		dev_warn_ratelimited(&mdev->pdev->dev, "MPFS full (%u entries): %pM not added\n",
				     mpfs->size, mac);
		return -ENOSPC;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = l2_set(mdev, index, mac);
	if (err) {
		kfree(e);
		return err;
	}
	ether_addr_copy(e->mac, mac);
	e->index = index;
	e->refs = 1;
	set_bit(index, mpfs->used);
	list_add_tail(&e->list, &mpfs->list);
	return 0;
}

static void del_locked(struct mlx5c_dev *mdev, const u8 *mac)
{
	struct mlx5c_mpfs *mpfs = &mdev->mpfs;
	struct mlx5c_mpfs_entry *e = find(mpfs, mac);

	if (!e || --e->refs)
		return;
	l2_del(mdev, e->index);
	clear_bit(e->index, mpfs->used);
	list_del(&e->list);
	kfree(e);
}

/**
 * mlx5c_mpfs_add() - take a unicast MAC into the L2 table
 * @mdev: core device
 * @mac: the address
 *
 * Return: 0 (also without an MPFS, or for a multicast address), or a
 * negative errno.
 */
int mlx5c_mpfs_add(struct mlx5c_dev *mdev, const u8 *mac)
{
	int err = 0;

	if (is_multicast_ether_addr(mac) || is_zero_ether_addr(mac))
		return 0;
	mutex_lock(&mdev->mpfs.lock);
	if (mdev->mpfs.size)
		err = add_locked(mdev, mac);
	mutex_unlock(&mdev->mpfs.lock);
	return err;
}

/**
 * mlx5c_mpfs_del() - drop one use of a MAC mlx5c_mpfs_add() took
 * @mdev: core device
 * @mac: the address
 */
void mlx5c_mpfs_del(struct mlx5c_dev *mdev, const u8 *mac)
{
	mutex_lock(&mdev->mpfs.lock);
	if (mdev->mpfs.size)
		del_locked(mdev, mac);
	mutex_unlock(&mdev->mpfs.lock);
}

static bool mac_in(const u8 *addrs, int n, const u8 *mac)
{
	int i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(addrs + i * ETH_ALEN, mac))
			return true;
	return false;
}

/**
 * mlx5c_mpfs_set_own() - the PF netdev's unicast addresses in the L2 table
 * @mdev: core device
 * @addrs: the addresses the netdev receives (ETH_ALEN bytes each; the
 *	multicast ones are skipped), NULL with @n 0 when it stops
 * @n: how many
 *
 * Without an MPFS (a function that is no e-switch manager) nothing
 * happens. An address the table has no room for is said and left out.
 */
void mlx5c_mpfs_set_own(struct mlx5c_dev *mdev, const u8 *addrs, int n)
{
	struct mlx5c_mpfs *mpfs = &mdev->mpfs;
	u8 (*own)[ETH_ALEN] = NULL;
	int i, k = 0;

	if (n) {
		own = kcalloc(n, ETH_ALEN, GFP_KERNEL);
		if (!own)
			return;
	}
	mutex_lock(&mpfs->lock);
	if (!mpfs->size)
		goto out;
	for (i = 0; i < mpfs->n_own; i++)
		if (!mac_in(addrs, n, mpfs->own[i]))
			del_locked(mdev, mpfs->own[i]);
	for (i = 0; i < n; i++) {
		const u8 *mac = addrs + i * ETH_ALEN;

		if (is_multicast_ether_addr(mac) || is_zero_ether_addr(mac) ||
		    mac_in(&own[0][0], k, mac))
			continue;
		if (!mac_in(&mpfs->own[0][0], mpfs->n_own, mac) && add_locked(mdev, mac))
			continue;
		ether_addr_copy(own[k++], mac);
	}
	swap(mpfs->own, own);
	mpfs->n_own = k;
out:
	mutex_unlock(&mpfs->lock);
	kfree(own);
}

/**
 * mlx5c_mpfs_init() - the MPFS lock and list, at probe
 * @mdev: core device
 */
void mlx5c_mpfs_init(struct mlx5c_dev *mdev)
{
	mutex_init(&mdev->mpfs.lock);
	INIT_LIST_HEAD(&mdev->mpfs.list);
}

/**
 * mlx5c_mpfs_load() - an empty L2 table on an e-switch manager
 * @mdev: core device, its capabilities read
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_mpfs_load(struct mlx5c_dev *mdev)
{
	struct mlx5c_mpfs *mpfs = &mdev->mpfs;
	u32 size;

	if (!MLX5C_CAP_GEN(mdev, eswitch_manager) || !mlx5c_port_is_eth(mdev))
		return 0;
	size = 1U << min(MLX5C_CAP_GEN(mdev, log_max_l2_table), 16U);
	mutex_lock(&mpfs->lock);
	mpfs->used = bitmap_zalloc(size, GFP_KERNEL);
	if (mpfs->used)
		mpfs->size = size;
	mutex_unlock(&mpfs->lock);
	return mpfs->used ? 0 : -ENOMEM;
}

/**
 * mlx5c_mpfs_unload() - forget the table (the device forgets it too)
 * @mdev: core device being unloaded
 */
void mlx5c_mpfs_unload(struct mlx5c_dev *mdev)
{
	struct mlx5c_mpfs *mpfs = &mdev->mpfs;
	struct mlx5c_mpfs_entry *e, *tmp;

	mutex_lock(&mpfs->lock);
	list_for_each_entry_safe(e, tmp, &mpfs->list, list) {
		list_del(&e->list);
		kfree(e);
	}
	bitmap_free(mpfs->used);
	mpfs->used = NULL;
	mpfs->size = 0;
	kfree(mpfs->own);
	mpfs->own = NULL;
	mpfs->n_own = 0;
	mutex_unlock(&mpfs->lock);
}
