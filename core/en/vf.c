// SPDX-License-Identifier: GPL-2.0
/*
 * ip link set <pf> vf N ... and the VF lines of ip link show <pf>: the PF
 * netdev's ndo_set_vf_* and ndo_get_vf_*, each a call into the core's
 * legacy e-switch (core/eswitch/), which owns the VFs' vports. Rate
 * limits are not served yet (the device's QoS scheduling elements).
 */
#include <linux/if_link.h>

#include "en.h"

/* The ndos below: kernel-doc is the netdev_ops' (include/linux/netdevice.h). */

static struct mlx5c_dev *vf_mdev(struct net_device *netdev)
{
	return ((struct mlx5c_en_priv *)netdev_priv(netdev))->mdev;
}

int mlx5c_en_set_vf_mac(struct net_device *netdev, int vf, u8 *mac)
{
	return mlx5c_eswitch_set_vf_mac(vf_mdev(netdev), vf, mac);
}

int mlx5c_en_set_vf_vlan(struct net_device *netdev, int vf, u16 vlan, u8 qos,
			  __be16 proto)
{
	if (proto != htons(ETH_P_8021Q))
		return -EPROTONOSUPPORT;
	return mlx5c_eswitch_set_vf_vlan(vf_mdev(netdev), vf, vlan, qos);
}

int mlx5c_en_set_vf_spoofchk(struct net_device *netdev, int vf, bool on)
{
	return mlx5c_eswitch_set_vf_spoofchk(vf_mdev(netdev), vf, on);
}

int mlx5c_en_set_vf_trust(struct net_device *netdev, int vf, bool on)
{
	return mlx5c_eswitch_set_vf_trust(vf_mdev(netdev), vf, on);
}

int mlx5c_en_set_vf_link_state(struct net_device *netdev, int vf, int state)
{
	return mlx5c_eswitch_set_vf_link_state(vf_mdev(netdev), vf, state);
}

int mlx5c_en_set_vf_rate(struct net_device *netdev, int vf, int min_rate, int max_rate)
{
	return -EOPNOTSUPP;
}

int mlx5c_en_get_vf_config(struct net_device *netdev, int vf, struct ifla_vf_info *ivi)
{
	return mlx5c_eswitch_get_vf_config(vf_mdev(netdev), vf, ivi);
}

int mlx5c_en_get_vf_stats(struct net_device *netdev, int vf, struct ifla_vf_stats *st)
{
	return mlx5c_eswitch_get_vf_stats(vf_mdev(netdev), vf, st);
}
