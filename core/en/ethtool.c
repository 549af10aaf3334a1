// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool: driver information, link settings (speed from PTYS), the
 * counters (-S: software ring counters, the vport counters and per channel
 * rxN_/txN_ packets and bytes), channels
 * (-l/-L), ring sizes (-g/-G: new queues), interrupt coalescing (-c/-C:
 * the CQs' event moderation, changed on the live CQs), RSS (-x/-X: the
 * indirection table and Toeplitz key, on the live RQ table and TIR) and
 * global pause (-a/-A: the port's PFCC; no autonegotiation of it).
 */
#include <linux/ethtool.h>

#include "en.h"

/* Software counters: name and offset in struct mlx5c_en_ring_stats. */
struct en_stat {
	const char *name;
	bool rx;
	size_t off;
};

#define RX_STAT(n, f) { n, true, offsetof(struct mlx5c_en_ring_stats, f) }
#define TX_STAT(n, f) { n, false, offsetof(struct mlx5c_en_ring_stats, f) }

static const struct en_stat sw_stats[] = {
	RX_STAT("rx_packets", packets),
	RX_STAT("rx_bytes", bytes),
	RX_STAT("rx_csum_complete", csum_complete),
	RX_STAT("rx_csum_none", csum_none),
	RX_STAT("rx_dropped", dropped),
	RX_STAT("rx_errors", errors),
	TX_STAT("tx_packets", packets),
	TX_STAT("tx_bytes", bytes),
	TX_STAT("tx_csum_partial", csum_partial),
	TX_STAT("tx_tso_packets", tso_packets),
	TX_STAT("tx_tso_bytes", tso_bytes),
	TX_STAT("tx_dropped", dropped),
	TX_STAT("tx_errors", errors),
	TX_STAT("tx_queue_stopped", stopped),
	TX_STAT("tx_queue_wake", wake),
	RX_STAT("rx_bad_cqe", bad_cqe),
	TX_STAT("tx_bad_cqe", bad_cqe),
};

#define NUM_SW_STATS ARRAY_SIZE(sw_stats)

/* The totals of channels destroyed, in sw_stats order. */
static u64 *old_stat(struct mlx5c_en_priv *priv, int i)
{
	u64 *o = (u64 *)&priv->old_stats;

	BUILD_BUG_ON(sizeof(priv->old_stats) != NUM_SW_STATS * sizeof(u64));
	return &o[i];
}

static u64 ring_stat(struct mlx5c_en_ring_stats *s, size_t off)
{
	unsigned int start;
	u64 v;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		v = u64_stats_read((u64_stats_t *)((u8 *)s + off));
	} while (u64_stats_fetch_retry(&s->syncp, start));
	return v;
}

static u64 channel_stat(struct mlx5c_en_channel *c, int i)
{
	return ring_stat(sw_stats[i].rx ? &c->rq.stats : &c->sq.stats, sw_stats[i].off);
}

/**
 * mlx5c_en_fold_stats() - add a channel's counters to the totals kept
 * @priv: netdev private data, stats_lock held
 * @c: channel about to be destroyed
 */
void mlx5c_en_fold_stats(struct mlx5c_en_priv *priv, struct mlx5c_en_channel *c)
{
	int i;

	for (i = 0; i < NUM_SW_STATS; i++)
		*old_stat(priv, i) += channel_stat(c, i);
}

static void en_get_drvinfo(struct net_device *netdev, struct ethtool_drvinfo *info)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u16 major, minor, sub;

	strscpy(info->driver, MLX5C_CORE_DRV_NAME, sizeof(info->driver));
	mlx5c_fw_version(priv->mdev, &major, &minor, &sub);
	snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u.%u (%s)",
		 major, minor, sub, mlx5c_board_id(priv->mdev));
	strscpy(info->bus_info, pci_name(mlx5c_pdev(priv->mdev)), sizeof(info->bus_info));
}

static int en_get_link_ksettings(struct net_device *netdev,
				 struct ethtool_link_ksettings *ks)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u32 mbps = 0;

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.port = PORT_DA;
	ks->base.autoneg = AUTONEG_DISABLE;
	ks->base.duplex = DUPLEX_UNKNOWN;
	ks->base.speed = SPEED_UNKNOWN;
	if (netif_carrier_ok(netdev) && !mlx5c_en_port_speed(priv, &mbps) && mbps) {
		ks->base.speed = mbps;
		ks->base.duplex = DUPLEX_FULL;
	}
	return 0;
}

/*
 * Per channel: packets and bytes of its RQ and SQ since the channel was
 * made (the totals above also hold those of channels destroyed).
 */
#define NUM_CH_STATS 4

static int en_get_sset_count(struct net_device *netdev, int sset)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return NUM_SW_STATS + MLX5C_EN_VPORT_COUNTERS + NUM_CH_STATS * priv->max_channels;
}

static void en_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < NUM_SW_STATS; i++)
		ethtool_puts(&data, sw_stats[i].name);
	for (i = 0; i < MLX5C_EN_VPORT_COUNTERS; i++)
		ethtool_puts(&data, mlx5c_en_vport_counter_names[i]);
	for (i = 0; i < priv->max_channels; i++) {
		ethtool_sprintf(&data, "rx%d_packets", i);
		ethtool_sprintf(&data, "rx%d_bytes", i);
		ethtool_sprintf(&data, "tx%d_packets", i);
		ethtool_sprintf(&data, "tx%d_bytes", i);
	}
}

static void en_get_ethtool_stats(struct net_device *netdev, struct ethtool_stats *stats,
				 u64 *data)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u64 *ch = data + NUM_SW_STATS + MLX5C_EN_VPORT_COUNTERS;
	int i, j;

	memset(ch, 0, NUM_CH_STATS * priv->max_channels * sizeof(u64));
	spin_lock_bh(&priv->stats_lock);
	for (i = 0; i < NUM_SW_STATS; i++) {
		data[i] = *old_stat(priv, i);
		for (j = 0; j < priv->stats_channels; j++)
			data[i] += channel_stat(priv->channels[j], i);
	}
	for (j = 0; j < priv->stats_channels; j++) {
		struct mlx5c_en_channel *c = priv->channels[j];

		ch[NUM_CH_STATS * j] = ring_stat(&c->rq.stats, offsetof(struct mlx5c_en_ring_stats, packets));
		ch[NUM_CH_STATS * j + 1] = ring_stat(&c->rq.stats, offsetof(struct mlx5c_en_ring_stats, bytes));
		ch[NUM_CH_STATS * j + 2] = ring_stat(&c->sq.stats, offsetof(struct mlx5c_en_ring_stats, packets));
		ch[NUM_CH_STATS * j + 3] = ring_stat(&c->sq.stats, offsetof(struct mlx5c_en_ring_stats, bytes));
	}
	spin_unlock_bh(&priv->stats_lock);
	if (mlx5c_en_vport_counters(priv, data + NUM_SW_STATS, MLX5C_EN_VPORT_COUNTERS))
		memset(data + NUM_SW_STATS, 0, MLX5C_EN_VPORT_COUNTERS * sizeof(u64));
}

static void en_get_channels(struct net_device *netdev, struct ethtool_channels *ch)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	ch->max_combined = priv->max_channels;
	ch->combined_count = priv->num_channels;
}

/*
 * An indirection table the user set stays (the ethtool core refuses fewer
 * channels than it names); the default one is spread over the new count.
 */
static int apply_channels(struct mlx5c_en_priv *priv, int n, int *old)
{
	*old = priv->num_channels;
	priv->num_channels = n;
	if (!netif_is_rxfh_configured(priv->netdev))
		mlx5c_en_rss_indir_default(priv, n);
	return 0;
}

static int en_set_channels(struct net_device *netdev, struct ethtool_channels *ch)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	if (!ch->combined_count || ch->rx_count || ch->tx_count || ch->other_count ||
	    ch->combined_count > priv->max_channels)
		return -EINVAL;
	if (ch->combined_count == priv->num_channels)
		return 0;
	return mlx5c_en_reconfigure(priv, apply_channels, ch->combined_count);
}

/* The largest ring: ours, and the work queues the device takes. */
static u8 en_log_ring_max(struct mlx5c_en_priv *priv)
{
	return min_t(u8, MLX5C_EN_LOG_RING_MAX,
		     MLX5_GET(cmd_hca_cap, mlx5c_cap_general(priv->mdev), log_max_wq_sz));
}

static void en_get_ringparam(struct net_device *netdev, struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	ring->rx_max_pending = BIT(en_log_ring_max(priv));
	ring->tx_max_pending = BIT(en_log_ring_max(priv));
	mutex_lock(&priv->lock);
	ring->rx_pending = BIT(priv->log_rq_size);
	ring->tx_pending = BIT(priv->log_sq_size);
	mutex_unlock(&priv->lock);
}

/* @arg: the RQ's log size in bits 7:0, the SQ's in 15:8. */
static int apply_rings(struct mlx5c_en_priv *priv, int arg, int *old)
{
	*old = priv->log_sq_size << 8 | priv->log_rq_size;
	priv->log_rq_size = arg & 0xff;
	priv->log_sq_size = arg >> 8;
	return 0;
}

/* Sizes are rounded up to a power of two, as the work queues take them. */
static int en_set_ringparam(struct net_device *netdev, struct ethtool_ringparam *ring,
			    struct kernel_ethtool_ringparam *kring,
			    struct netlink_ext_ack *extack)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u8 lrq, lsq;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "no mini or jumbo RX rings");
		return -EINVAL;
	}
	if (ring->rx_pending < BIT(MLX5C_EN_LOG_RING_MIN) ||
	    ring->tx_pending < BIT(MLX5C_EN_LOG_RING_MIN)) {
		/* A fixed text: 6.1 has no NL_SET_ERR_MSG_FMT_MOD. */
		static_assert(BIT(MLX5C_EN_LOG_RING_MIN) == 64);
		NL_SET_ERR_MSG_MOD(extack, "rings of at least 64 entries");
		return -EINVAL;
	}
	if (ring->rx_pending > BIT(en_log_ring_max(priv)) ||
	    ring->tx_pending > BIT(en_log_ring_max(priv)))
		return -EINVAL;
	lrq = order_base_2(ring->rx_pending);
	lsq = order_base_2(ring->tx_pending);
	if (lrq == READ_ONCE(priv->log_rq_size) && lsq == READ_ONCE(priv->log_sq_size))
		return 0;
	return mlx5c_en_reconfigure(priv, apply_rings, lsq << 8 | lrq);
}

static int en_get_coalesce(struct net_device *netdev, struct ethtool_coalesce *coal,
			   struct kernel_ethtool_coalesce *kcoal,
			   struct netlink_ext_ack *extack)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	mutex_lock(&priv->lock);
	coal->rx_coalesce_usecs = priv->rx_usecs;
	coal->rx_max_coalesced_frames = priv->rx_frames;
	coal->tx_coalesce_usecs = priv->tx_usecs;
	coal->tx_max_coalesced_frames = priv->tx_frames;
	mutex_unlock(&priv->lock);
	return 0;
}

/*
 * The open channels' CQs are changed in place (MODIFY_CQ); closed ones get
 * the values when they are made. A CQ the device refused to change keeps
 * its old moderation, and the error is returned.
 */
static int en_set_coalesce(struct net_device *netdev, struct ethtool_coalesce *coal,
			   struct kernel_ethtool_coalesce *kcoal,
			   struct netlink_ext_ack *extack)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	int i, err = 0;

	if (!MLX5_GET(cmd_hca_cap, mlx5c_cap_general(priv->mdev), cq_moderation))
		return -EOPNOTSUPP;
	if (coal->rx_coalesce_usecs > MLX5C_MAX_CQ_PERIOD ||
	    coal->tx_coalesce_usecs > MLX5C_MAX_CQ_PERIOD ||
	    coal->rx_max_coalesced_frames > U16_MAX ||
	    coal->tx_max_coalesced_frames > U16_MAX) {
		static_assert(MLX5C_MAX_CQ_PERIOD == 4095);
		NL_SET_ERR_MSG_MOD(extack, "at most 4095 usecs and 65535 frames");
		return -ERANGE;
	}
	mutex_lock(&priv->lock);
	priv->rx_usecs = coal->rx_coalesce_usecs;
	priv->rx_frames = coal->rx_max_coalesced_frames;
	priv->tx_usecs = coal->tx_coalesce_usecs;
	priv->tx_frames = coal->tx_max_coalesced_frames;
	for (i = 0; priv->opened && i < priv->num_channels && !err; i++) {
		struct mlx5c_en_channel *c = priv->channels[i];

		err = mlx5c_cq_moderate(priv->mdev, &c->rq.cq.mcq, priv->rx_frames,
					priv->rx_usecs) ?:
		      mlx5c_cq_moderate(priv->mdev, &c->sq.cq.mcq, priv->tx_frames,
					priv->tx_usecs);
	}
	mutex_unlock(&priv->lock);
	return err;
}

static u32 en_get_rxfh_key_size(struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	return sizeof(priv->rss_key);
}

static u32 en_get_rxfh_indir_size(struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	return priv->rss_size;
}

/* The RX rings the indirection table may name: the channels in use. */
static u32 en_get_rx_ring_count(struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	return READ_ONCE(priv->num_channels);
}

static int en_get_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *info, u32 *rules)
{
	if (info->cmd != ETHTOOL_GRXRINGS)
		return -EOPNOTSUPP;
	info->data = en_get_rx_ring_count(netdev);
	return 0;
}

static int en_rxfh_get(struct mlx5c_en_priv *priv, u32 *indir, u8 *key, u8 *hfunc)
{
	int i;

	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	mutex_lock(&priv->lock);
	if (indir)
		for (i = 0; i < priv->rss_size; i++)
			indir[i] = priv->rss_indir[i];
	if (key)
		memcpy(key, priv->rss_key, sizeof(priv->rss_key));
	mutex_unlock(&priv->lock);
	return 0;
}

/*
 * ethtool -X: the indirection table and the Toeplitz key, applied to the
 * live RQ table and TIR without new queues. A change the device refuses
 * is undone.
 */
static int en_rxfh_set(struct mlx5c_en_priv *priv, const u32 *indir, const u8 *key, u8 hfunc)
{
	u8 old_indir[MLX5C_EN_RQT_SIZE], old_key[sizeof(priv->rss_key)];
	int i, err = 0;

	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	mutex_lock(&priv->lock);
	if (indir)
		for (i = 0; i < priv->rss_size; i++)
			if (indir[i] >= priv->num_channels) {
				err = -EINVAL;
				goto out;
			}
	memcpy(old_indir, priv->rss_indir, sizeof(old_indir));
	memcpy(old_key, priv->rss_key, sizeof(old_key));
	if (indir)
		for (i = 0; i < priv->rss_size; i++)
			priv->rss_indir[i] = indir[i];
	if (key)
		memcpy(priv->rss_key, key, sizeof(priv->rss_key));
	if (priv->opened) {
		err = mlx5c_en_rss_modify(priv);
		if (err) {
			memcpy(priv->rss_indir, old_indir, sizeof(old_indir));
			memcpy(priv->rss_key, old_key, sizeof(old_key));
			if (mlx5c_en_rss_modify(priv))
				netdev_warn(priv->netdev, "RSS not restored after a refused change\n");
		}
	}
out:
	mutex_unlock(&priv->lock);
	return err;
}

#ifdef HAVE_ETHTOOL_RXFH_PARAM
static int en_get_rxfh(struct net_device *netdev, struct ethtool_rxfh_param *p)
{
	return en_rxfh_get(netdev_priv(netdev), p->indir, p->key, &p->hfunc);
}

static int en_set_rxfh(struct net_device *netdev, struct ethtool_rxfh_param *p,
		       struct netlink_ext_ack *extack)
{
	if (p->rss_context) {
		NL_SET_ERR_MSG_MOD(extack, "no additional RSS contexts");
		return -EOPNOTSUPP;
	}
	return en_rxfh_set(netdev_priv(netdev), p->indir, p->key, p->hfunc);
}
#else
static int en_get_rxfh(struct net_device *netdev, u32 *indir, u8 *key, u8 *hfunc)
{
	return en_rxfh_get(netdev_priv(netdev), indir, key, hfunc);
}

static int en_set_rxfh(struct net_device *netdev, const u32 *indir, const u8 *key,
		       const u8 hfunc)
{
	return en_rxfh_set(netdev_priv(netdev), indir, key, hfunc);
}
#endif

static void en_get_pauseparam(struct net_device *netdev, struct ethtool_pauseparam *pause)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	bool rx, tx;

	if (mlx5c_en_pause_get(priv, &rx, &tx))
		return;
	pause->autoneg = 0;
	pause->rx_pause = rx;
	pause->tx_pause = tx;
}

static int en_set_pauseparam(struct net_device *netdev, struct ethtool_pauseparam *pause)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	if (pause->autoneg)
		return -EINVAL;
	return mlx5c_en_pause_set(priv, pause->rx_pause, pause->tx_pause);
}

const struct ethtool_ops mlx5c_en_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.get_drvinfo = en_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = en_get_link_ksettings,
	.get_sset_count = en_get_sset_count,
	.get_strings = en_get_strings,
	.get_ethtool_stats = en_get_ethtool_stats,
	.get_channels = en_get_channels,
	.set_channels = en_set_channels,
	.get_ringparam = en_get_ringparam,
	.set_ringparam = en_set_ringparam,
	.get_coalesce = en_get_coalesce,
	.set_coalesce = en_set_coalesce,
	.get_rxnfc = en_get_rxnfc,
#ifdef HAVE_ETHTOOL_GET_RX_RING_COUNT
	.get_rx_ring_count = en_get_rx_ring_count,
#endif
	.get_rxfh_key_size = en_get_rxfh_key_size,
	.get_rxfh_indir_size = en_get_rxfh_indir_size,
	.get_rxfh = en_get_rxfh,
	.set_rxfh = en_set_rxfh,
	.get_pauseparam = en_get_pauseparam,
	.set_pauseparam = en_set_pauseparam,
};
