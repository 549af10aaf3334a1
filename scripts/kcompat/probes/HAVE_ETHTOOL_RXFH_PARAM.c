/* struct ethtool_rxfh_param for get_rxfh/set_rxfh (v6.8) */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
int probe(struct net_device *dev, struct ethtool_rxfh_param *p);
int probe(struct net_device *dev, struct ethtool_rxfh_param *p)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;

	return ops->get_rxfh(dev, p) + p->hfunc;
}
