// SPDX-License-Identifier: GPL-2.0
/*
 * The netdev of an Ethernet (RoCE) port: mlx5_core's Ethernet driver
 * registers it (mlx5c_netdev_get()); a netdevice notifier binds the port
 * to it when it registers (ib_device_set_netdev(), after which ib_core
 * fills the GID table from its addresses and resolves next-hop MACs) and
 * lets go when it unregisters. The port's state, speed and MTU are the
 * netdev's.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "mlx5_ib.h"

#ifndef HAVE_IB_REPORT_PORT_EVENT
/*
 * Kernels whose ib_core does not turn the netdev's link changes into port
 * events (ib_dispatch_port_state_event, v6.13): tell ib_core ourselves.
 */
static void mlx5c_ib_netdev_port_event(struct mlx5c_ib_dev *dev,
				       struct net_device *ndev)
{
	struct ib_event ev = { .device = &dev->ib, .element.port_num = 1 };
	bool active = netif_running(ndev) && netif_carrier_ok(ndev);

	if (active == dev->netdev_active)
		return;
	dev->netdev_active = active;
	ev.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}
#endif

/* Netdevice events, under RTNL. */
static int mlx5c_ib_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct mlx5c_ib_dev *dev = container_of(nb, struct mlx5c_ib_dev,
						netdev_nb);
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct net_device *own;
	int err;

	switch (event) {
	case NETDEV_REGISTER:
		own = mlx5c_netdev_get(dev->mdev);
		if (own && own == ndev && !dev->netdev) {
			err = ib_device_set_netdev(&dev->ib, ndev, 1);
			if (err)
				dev_err(&dev->adev->dev,
					"binding %s failed: %d\n",
					netdev_name(ndev), err);
			else
				dev->netdev = ndev;
		}
		dev_put(own);
		break;
	case NETDEV_UNREGISTER:
		if (ndev != dev->netdev)
			break;
		ib_device_set_netdev(&dev->ib, NULL, 1);
		dev->netdev = NULL;
		break;
#ifndef HAVE_IB_REPORT_PORT_EVENT
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		if (ndev == dev->netdev && dev->ib_registered)
			mlx5c_ib_netdev_port_event(dev, ndev);
		break;
#endif
	default:
		break;
	}
	return NOTIFY_DONE;
}

/**
 * mlx5c_ib_netdev_init() - watch for the port's netdev
 * @dev: device with an Ethernet port
 *
 * Binds the netdev at once if it is registered already (the notifier's
 * registration replays NETDEV_REGISTER), before ib_register_device(), so
 * that the GID table is filled as the device registers.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_netdev_init(struct mlx5c_ib_dev *dev)
{
	dev->netdev_nb.notifier_call = mlx5c_ib_netdev_event;
	return register_netdevice_notifier(&dev->netdev_nb);
}

/**
 * mlx5c_ib_netdev_cleanup() - stop watching, let the netdev go
 * @dev: device with an Ethernet port
 */
void mlx5c_ib_netdev_cleanup(struct mlx5c_ib_dev *dev)
{
	/* Replays NETDEV_UNREGISTER, which unbinds the netdev. */
	unregister_netdevice_notifier(&dev->netdev_nb);
}

/**
 * mlx5c_ib_query_port_eth() - attributes of an Ethernet port
 * @dev: device
 * @port: port number
 * @props: attributes (out; zeroed by the caller)
 *
 * Active while the netdev is up with carrier; the speed is the link's
 * (ethtool), the active MTU the largest IB MTU the netdev's MTU carries.
 *
 * Return: 0.
 */
int mlx5c_ib_query_port_eth(struct mlx5c_ib_dev *dev, u32 port,
			    struct ib_port_attr *props)
{
	struct net_device *ndev;
	enum ib_mtu mtu;

	props->gid_tbl_len = dev->port[port - 1].gid_tbl_len;
	props->pkey_tbl_len = dev->port[port - 1].pkey_tbl_len;
	props->max_msg_sz = 1U << MLX5C_IB_CAP(dev, log_max_msg);
	/* No capability mask to change here: modify_port leaves it alone. */
	props->port_cap_flags = IB_PORT_CM_SUP | IB_UVERBS_PCF_IP_BASED_GIDS;
	props->max_vl_num = 1;
	props->max_mtu = IB_MTU_4096;
	props->active_mtu = IB_MTU_256;
	props->state = IB_PORT_DOWN;
	props->phys_state = IB_PORT_PHYS_STATE_DISABLED;

	ndev = mlx5c_netdev_get(dev->mdev);
	if (ndev) {
		if (netif_running(ndev) && netif_carrier_ok(ndev)) {
			props->state = IB_PORT_ACTIVE;
			props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
		}
		mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));
		if (mtu >= IB_MTU_256)
			props->active_mtu = min(props->max_mtu, mtu);
		dev_put(ndev);
	}
	/*
	 * Speed and width from ethtool through the netdev ib_core knows
	 * (ib_get_eth_speed() takes RTNL); none bound yet: the slowest.
	 */
	if (ib_get_eth_speed(&dev->ib, port, &props->active_speed,
			     &props->active_width)) {
		props->active_speed = IB_SPEED_SDR;
		props->active_width = IB_WIDTH_1X;
	}
	return 0;
}
