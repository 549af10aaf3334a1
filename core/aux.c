// SPDX-License-Identifier: GPL-2.0
/*
 * The auxiliary device through which mlx5_ib finds a core device.
 */
#include <linux/auxiliary_bus.h>
#include <linux/idr.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "mlx5_core.h"

static DEFINE_IDA(mlx5c_aux_ida);

static void mlx5c_adev_release(struct device *dev)
{
	struct mlx5c_adev *madev = to_mlx5c_adev(to_auxiliary_dev(dev));

	ida_free(&mlx5c_aux_ida, madev->adev.id);
	kfree(madev);
}

static int aux_add_one(struct mlx5c_dev *mdev, const char *name,
		       struct mlx5c_adev **slot)
{
	struct mlx5c_adev *madev;
	int id, err;

	madev = kzalloc(sizeof(*madev), GFP_KERNEL);
	if (!madev)
		return -ENOMEM;
	id = ida_alloc(&mlx5c_aux_ida, GFP_KERNEL);
	if (id < 0) {
		kfree(madev);
		return id;
	}
	madev->mdev = mdev;
	madev->adev.name = name;
	madev->adev.id = id;
	madev->adev.dev.parent = &mdev->pdev->dev;
	madev->adev.dev.release = mlx5c_adev_release;

	err = auxiliary_device_init(&madev->adev);
	if (err) {
		ida_free(&mlx5c_aux_ida, id);
		kfree(madev);
		return err;
	}
	err = auxiliary_device_add(&madev->adev);
	if (err) {
		auxiliary_device_uninit(&madev->adev);
		return err;
	}
	*slot = madev;
	return 0;
}

static void aux_del_one(struct mlx5c_adev **slot)
{
	if (!*slot)
		return;
	auxiliary_device_delete(&(*slot)->adev);
	auxiliary_device_uninit(&(*slot)->adev);
	*slot = NULL;
}

/**
 * mlx5c_port_is_eth() - whether the function's port runs Ethernet
 * @mdev: core device
 *
 * Return: true for an Ethernet port (port_type of the general capabilities).
 */
bool mlx5c_port_is_eth(struct mlx5c_dev *mdev)
{
	return MLX5C_CAP_GEN(mdev, port_type) == MLX5_CAP_PORT_TYPE_ETH;
}

/*
 * The "rdma" device on every function (mlx5_ib decides what it serves),
 * the "eth" device (our netdev, en/) on Ethernet ports.
 */
int mlx5c_aux_add(struct mlx5c_dev *mdev)
{
	int err;

	err = aux_add_one(mdev, MLX5C_AUX_RDMA_NAME, &mdev->rdma_adev);
	if (err || !mlx5c_port_is_eth(mdev))
		return err;
	err = aux_add_one(mdev, MLX5C_AUX_ETH_NAME, &mdev->eth_adev);
	if (err)
		aux_del_one(&mdev->rdma_adev);
	return err;
}

void mlx5c_aux_del(struct mlx5c_dev *mdev)
{
	aux_del_one(&mdev->rdma_adev);
	aux_del_one(&mdev->eth_adev);
}

/**
 * mlx5c_pdev() - the PCI function behind a core device
 * @mdev: core device
 *
 * Return: the PCI device.
 */
struct pci_dev *mlx5c_pdev(struct mlx5c_dev *mdev)
{
	return mdev->pdev;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_pdev, MLX5C_NS);

/**
 * mlx5c_dev_is_vf() - whether the core device is a virtual function
 * @mdev: core device
 *
 * Known from the PCI device ID, so that a VF passed to a VM, a plain PCI
 * function there, is one too. A VF manages no e-switch and no port: its
 * vport's MAC, link state and GUIDs are its manager's.
 *
 * Return: true on a VF.
 */
bool mlx5c_dev_is_vf(struct mlx5c_dev *mdev)
{
	return mdev->is_vf;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_dev_is_vf, MLX5C_NS);

/**
 * mlx5c_netdev_get() - the Ethernet netdev of a core device
 * @mdev: core device
 *
 * mlx5_ib binds its RoCE port to it. The netdev counts from the moment it
 * is registered (its NETDEV_REGISTER notification included, so that a
 * netdevice notifier recognises it) until its unregistration starts.
 *
 * Return: the netdev with a reference (dev_put() it), or NULL.
 */
struct net_device *mlx5c_netdev_get(struct mlx5c_dev *mdev)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rcu_dereference(mdev->netdev);
	if (ndev && READ_ONCE(ndev->reg_state) == NETREG_REGISTERED)
		dev_hold(ndev);
	else
		ndev = NULL;
	rcu_read_unlock();
	return ndev;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_netdev_get, MLX5C_NS);

/**
 * mlx5c_netdev_set() - publish or withdraw the Ethernet netdev
 * @mdev: core device
 * @netdev: the netdev, before register_netdev(); NULL after its
 *	unregistration (then waits for mlx5c_netdev_get() callers)
 */
void mlx5c_netdev_set(struct mlx5c_dev *mdev, struct net_device *netdev)
{
	if (netdev) {
		rcu_assign_pointer(mdev->netdev, netdev);
		return;
	}
	RCU_INIT_POINTER(mdev->netdev, NULL);
	synchronize_rcu();
}
EXPORT_SYMBOL_NS_GPL(mlx5c_netdev_set, MLX5C_NS);

/**
 * mlx5c_fw_version() - firmware version read from the initialization segment
 * @mdev: core device
 * @major: major number (out)
 * @minor: minor number (out)
 * @sub: sub-minor number (out)
 */
void mlx5c_fw_version(struct mlx5c_dev *mdev, u16 *major, u16 *minor, u16 *sub)
{
	*major = mdev->fw_major;
	*minor = mdev->fw_minor;
	*sub = mdev->fw_sub;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_fw_version, MLX5C_NS);

/**
 * mlx5c_internal_timer() - read the device's free-running clock
 * @mdev: core device
 *
 * Return: the count of the internal timer (device_frequency_khz), read
 * so that a carry between its two words is not lost.
 */
u64 mlx5c_internal_timer(struct mlx5c_dev *mdev)
{
	u32 hi, lo, again;

	hi = mlx5c_iseg_read(mdev, MLX5C_ISEG_INTERNAL_TIMER_H);
	for (;;) {
		lo = mlx5c_iseg_read(mdev, MLX5C_ISEG_INTERNAL_TIMER_L);
		again = mlx5c_iseg_read(mdev, MLX5C_ISEG_INTERNAL_TIMER_H);
		if (again == hi)
			return (u64)hi << 32 | lo;
		hi = again;
	}
}
EXPORT_SYMBOL_NS_GPL(mlx5c_internal_timer, MLX5C_NS);

/**
 * mlx5c_board_id() - board identifier (PSID) read with QUERY_ADAPTER
 * @mdev: core device
 *
 * Return: a NUL-terminated string, possibly empty.
 */
const char *mlx5c_board_id(struct mlx5c_dev *mdev)
{
	return mdev->board_id;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_board_id, MLX5C_NS);
