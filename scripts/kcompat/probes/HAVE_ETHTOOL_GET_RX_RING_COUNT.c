/* ethtool_ops.get_rx_ring_count (v6.19) */
#include <linux/ethtool.h>
u32 probe(struct net_device *dev, const struct ethtool_ops *ops);
u32 probe(struct net_device *dev, const struct ethtool_ops *ops)
{
	return ops->get_rx_ring_count(dev);
}
