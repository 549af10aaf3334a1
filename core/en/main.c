// SPDX-License-Identifier: GPL-2.0
/*
 * The Ethernet netdev: the auxiliary driver bound to "mlx5_core.eth", the
 * per-function resources (transport domain, PD, physical-address memory
 * key, TIS, doorbell records), netdev registration with the vport's MAC
 * address, open/stop, MTU change, statistics.
 */
#include <linux/slab.h>

#include "en.h"

static int alloc_td(struct mlx5c_en_priv *priv)
{
	u32 out[MLX5_ST_SZ_DW(alloc_transport_domain_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_transport_domain_in)] = {};
	int err;

	MLX5_SET(alloc_transport_domain_in, in, opcode, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	err = mlx5c_cmd_exec(priv->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		priv->tdn = MLX5_GET(alloc_transport_domain_out, out, transport_domain);
	return err;
}

static void dealloc_td(struct mlx5c_en_priv *priv)
{
	u32 out[MLX5_ST_SZ_DW(dealloc_transport_domain_out)] = {};
	u32 in[MLX5_ST_SZ_DW(dealloc_transport_domain_in)] = {};

	MLX5_SET(dealloc_transport_domain_in, in, opcode, MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN);
	MLX5_SET(dealloc_transport_domain_in, in, transport_domain, priv->tdn);
	mlx5c_cmd_exec(priv->mdev, in, sizeof(in), out, sizeof(out));
}

static int create_pa_mkey(struct mlx5c_en_priv *priv)
{
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	mlx5c_mkc_fill(mkc, MLX5_MKC_ACCESS_MODE_PA, MLX5C_MKC_LW, priv->pdn, 0, 0,
		       MLX5C_MKC_LEN64);
	return mlx5c_mkey_create(priv->mdev, in, sizeof(in), &priv->mkey);
}

static int create_tis(struct mlx5c_en_priv *priv)
{
	u32 out[MLX5_ST_SZ_DW(create_tis_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_tis_in)] = {};
	int err;

	MLX5_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	MLX5_SET(create_tis_in, in, ctx.transport_domain, priv->tdn);
	err = mlx5c_cmd_exec(priv->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		priv->tisn = MLX5_GET(create_tis_out, out, tisn);
	return err;
}

static void destroy_tis(struct mlx5c_en_priv *priv)
{
	u32 out[MLX5_ST_SZ_DW(destroy_tis_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_tis_in)] = {};

	MLX5_SET(destroy_tis_in, in, opcode, MLX5_CMD_OP_DESTROY_TIS);
	MLX5_SET(destroy_tis_in, in, tisn, priv->tisn);
	mlx5c_cmd_exec(priv->mdev, in, sizeof(in), out, sizeof(out));
}

static int res_create(struct mlx5c_en_priv *priv)
{
	int err;

	err = alloc_td(priv);
	if (err)
		return err;
	err = mlx5c_pd_alloc(priv->mdev, 0, &priv->pdn);
	if (err)
		goto err_td;
	err = create_pa_mkey(priv);
	if (err)
		goto err_pd;
	err = create_tis(priv);
	if (err)
		goto err_mkey;
	return 0;

err_mkey:
	mlx5c_mkey_destroy(priv->mdev, 0, priv->mkey);
err_pd:
	mlx5c_pd_free(priv->mdev, 0, priv->pdn);
err_td:
	dealloc_td(priv);
	return err;
}

static void res_destroy(struct mlx5c_en_priv *priv)
{
	destroy_tis(priv);
	mlx5c_mkey_destroy(priv->mdev, 0, priv->mkey);
	mlx5c_pd_free(priv->mdev, 0, priv->pdn);
	dealloc_td(priv);
}

/*
 * Queues, RSS, steering and, with @port, the port's admin state up. Called
 * with priv->lock.
 */
static int en_open_locked(struct mlx5c_en_priv *priv, bool port)
{
	struct net_device *netdev = priv->netdev;
	int err, i;

	err = netif_set_real_num_tx_queues(netdev, priv->num_channels);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, priv->num_channels);
	if (err)
		return err;
	err = mlx5c_en_channels_open(priv);
	if (err)
		return err;
	err = mlx5c_en_rss_create(priv);
	if (err)
		goto err_channels;
	priv->opened = true;
	err = mlx5c_en_fs_create(priv);
	if (err)
		goto err_rss;
	if (port) {
		err = mlx5c_en_port_set_admin(priv, true);
		if (err)
			goto err_fs;
	}
	/*
	 * The queues of the channels only: a queue above them (fewer channels
	 * than before) stays stopped, so no late xmit indexes past them.
	 */
	for (i = 0; i < priv->num_channels; i++)
		netif_tx_start_queue(netdev_get_tx_queue(netdev, i));
	queue_work(priv->wq, &priv->port_work);
	return 0;

err_fs:
	mlx5c_en_fs_destroy(priv);
err_rss:
	priv->opened = false;
	mlx5c_en_rss_destroy(priv);
err_channels:
	mlx5c_en_channels_deactivate(priv);
	mlx5c_en_channels_close(priv);
	return err;
}

static void en_stop_locked(struct mlx5c_en_priv *priv, bool port)
{
	priv->opened = false;
	if (port)
		mlx5c_en_port_set_admin(priv, false);
	netif_carrier_off(priv->netdev);
	/*
	 * NAPI first: a send completion polled after the queues stopped
	 * would wake them, and the stack would call xmit on channels being
	 * destroyed.
	 */
	mlx5c_en_channels_deactivate(priv);
	netif_tx_disable(priv->netdev);
	mlx5c_en_fs_destroy(priv);
	mlx5c_en_rss_destroy(priv);
	mlx5c_en_channels_close(priv);
}

static int en_open(struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	int err;

	mutex_lock(&priv->lock);
	err = en_open_locked(priv, true);
	mutex_unlock(&priv->lock);
	return err;
}

static int en_stop(struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	mutex_lock(&priv->lock);
	en_stop_locked(priv, true);
	mutex_unlock(&priv->lock);
	return 0;
}

/**
 * mlx5c_en_reconfigure() - apply a change that needs new queues
 * @priv: netdev private data
 * @apply: makes the change while the queues are down and stores in its
 *	   third argument the value it replaced (may be NULL)
 * @arg: for @apply
 *
 * Closes the queues if the netdev is up, applies the change, opens them.
 * The port stays up: its link carries RoCE too, whose QPs would see it
 * down for as long as the queues take (the carrier goes off meanwhile).
 * When the queues do not open with the change, the old value is applied
 * again and the queues reopened with it: a refused change leaves the
 * netdev as it was, and the caller gets the error.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_reconfigure(struct mlx5c_en_priv *priv,
			 int (*apply)(struct mlx5c_en_priv *priv, int arg, int *old), int arg)
{
	bool running;
	int err = 0, old;

	mutex_lock(&priv->lock);
	running = priv->opened;
	if (running)
		en_stop_locked(priv, false);
	if (apply)
		err = apply(priv, arg, &old);
	if (running) {
		int err2 = en_open_locked(priv, false);

		if (err2 && apply && !err) {
			netdev_warn(priv->netdev,
				    "queues did not open with the new settings (%d): back to the old ones\n",
				    err2);
			if (!apply(priv, old, &old))
				err2 = en_open_locked(priv, false) ?: err2;
			if (!priv->opened)
				netdev_err(priv->netdev, "queues did not open with the old settings either: down\n");
		}
		err = err ?: err2;
	}
	mutex_unlock(&priv->lock);
	return err;
}

static int apply_mtu(struct mlx5c_en_priv *priv, int mtu, int *old)
{
	int err;

	*old = priv->netdev->mtu;
	err = mlx5c_en_set_hw_mtu(priv, mtu);
	if (!err)
		WRITE_ONCE(priv->netdev->mtu, mtu);
	return err;
}

static int en_change_mtu(struct net_device *netdev, int mtu)
{
	return mlx5c_en_reconfigure(netdev_priv(netdev), apply_mtu, mtu);
}

static void en_set_rx_mode(struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	queue_work(priv->wq, &priv->rx_mode_work);
}

static int en_set_mac(struct net_device *netdev, void *addr)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	struct sockaddr *sa = addr;

	if (!is_valid_ether_addr(sa->sa_data))
		return -EADDRNOTAVAIL;
	netif_addr_lock_bh(netdev);
	eth_hw_addr_set(netdev, sa->sa_data);
	netif_addr_unlock_bh(netdev);
	queue_work(priv->wq, &priv->rx_mode_work);
	return 0;
}

static void ring_stats_read(struct mlx5c_en_ring_stats *s, u64 *packets, u64 *bytes)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		*packets = u64_stats_read(&s->packets);
		*bytes = u64_stats_read(&s->bytes);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

static void en_get_stats64(struct net_device *netdev, struct rtnl_link_stats64 *st)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	struct mlx5c_en_channel *c;
	u64 p, b;
	int i;

	spin_lock_bh(&priv->stats_lock);
	st->rx_packets = priv->old_stats.rx_packets;
	st->rx_bytes = priv->old_stats.rx_bytes;
	st->tx_packets = priv->old_stats.tx_packets;
	st->tx_bytes = priv->old_stats.tx_bytes;
	st->rx_dropped = priv->old_stats.rx_dropped;
	st->tx_dropped = priv->old_stats.tx_dropped;
	st->rx_errors = priv->old_stats.rx_errors;
	st->tx_errors = priv->old_stats.tx_errors;
	for (i = 0; i < priv->stats_channels; i++) {
		c = priv->channels[i];
		ring_stats_read(&c->rq.stats, &p, &b);
		st->rx_packets += p;
		st->rx_bytes += b;
		ring_stats_read(&c->sq.stats, &p, &b);
		st->tx_packets += p;
		st->tx_bytes += b;
		st->rx_dropped += u64_stats_read(&c->rq.stats.dropped);
		st->tx_dropped += u64_stats_read(&c->sq.stats.dropped);
		st->rx_errors += u64_stats_read(&c->rq.stats.errors);
		st->tx_errors += u64_stats_read(&c->sq.stats.errors);
	}
	spin_unlock_bh(&priv->stats_lock);
}

static const struct net_device_ops mlx5c_en_netdev_ops = {
	.ndo_open = en_open,
	.ndo_stop = en_stop,
	.ndo_start_xmit = mlx5c_en_xmit,
	.ndo_change_mtu = en_change_mtu,
	.ndo_set_rx_mode = en_set_rx_mode,
	.ndo_set_mac_address = en_set_mac,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_get_stats64 = en_get_stats64,
	.ndo_set_vf_mac = mlx5c_en_set_vf_mac,
	.ndo_set_vf_vlan = mlx5c_en_set_vf_vlan,
	.ndo_set_vf_spoofchk = mlx5c_en_set_vf_spoofchk,
	.ndo_set_vf_trust = mlx5c_en_set_vf_trust,
	.ndo_set_vf_link_state = mlx5c_en_set_vf_link_state,
	.ndo_set_vf_rate = mlx5c_en_set_vf_rate,
	.ndo_get_vf_config = mlx5c_en_get_vf_config,
	.ndo_get_vf_stats = mlx5c_en_get_vf_stats,
};

static int en_probe(struct auxiliary_device *adev, const struct auxiliary_device_id *id)
{
	struct mlx5c_dev *mdev = to_mlx5c_adev(adev)->mdev;
	struct mlx5c_en_priv *priv;
	struct net_device *netdev;
	u8 mac[ETH_ALEN];
	int nch, err;

	nch = clamp(mlx5c_comp_vectors(mdev), 1, MLX5C_EN_MAX_CHANNELS);
	netdev = alloc_etherdev_mqs(sizeof(*priv), nch, nch);
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &mlx5c_pdev(mdev)->dev);
	priv = netdev_priv(netdev);
	priv->netdev = netdev;
	priv->mdev = mdev;
	priv->dev = &mlx5c_pdev(mdev)->dev;
	priv->adev = adev;
	priv->max_channels = nch;
	priv->num_channels = nch;
	priv->log_sq_size = MLX5C_EN_LOG_SQ_SIZE;
	priv->log_rq_size = MLX5C_EN_LOG_RQ_SIZE;
	priv->uar = mlx5c_kernel_uar_map(mdev);
	mutex_init(&priv->lock);
	spin_lock_init(&priv->stats_lock);
	INIT_WORK(&priv->port_work, mlx5c_en_port_work);
	INIT_WORK(&priv->rx_mode_work, mlx5c_en_rx_mode_work);
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	priv->rss_size = min_t(int, MLX5C_EN_RQT_SIZE,
			       BIT(MLX5_GET(cmd_hca_cap, mlx5c_cap_general(mdev), log_max_rqt_size)));
	mlx5c_en_rss_indir_default(priv, nch);
	priv->wq = alloc_ordered_workqueue("mlx5c_en/%s", 0, dev_name(&adev->dev));
	if (!priv->wq) {
		err = -ENOMEM;
		goto err_free;
	}
	err = res_create(priv);
	if (err)
		goto err_wq;
	err = mlx5c_en_query_mac(priv, mac);
	if (err)
		goto err_res;
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(netdev, mac);
	} else {
		dev_warn(&adev->dev, "no MAC address in the vport context, using a random one\n");
		eth_hw_addr_random(netdev);
	}
	netdev->min_mtu = MLX5C_EN_MIN_MTU;
	netdev->max_mtu = MLX5C_EN_MAX_MTU;
	err = mlx5c_en_set_hw_mtu(priv, netdev->mtu);
	if (err)
		goto err_res;

	netdev->netdev_ops = &mlx5c_en_netdev_ops;
	netdev->ethtool_ops = &mlx5c_en_ethtool_ops;
	netdev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			      NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_RXCSUM |
			      NETIF_F_RXHASH | NETIF_F_GRO;
	netdev->features = netdev->hw_features;
	netdev->vlan_features = netdev->hw_features & ~NETIF_F_RXHASH;
	netif_set_tso_max_size(netdev, GSO_LEGACY_MAX_SIZE);
	netif_carrier_off(netdev);
	mlx5c_en_dcb_init(priv);

	priv->nb.notifier_call = mlx5c_en_port_event;
	mlx5c_event_register(mdev, &priv->nb);
	/* For mlx5c_netdev_get() (mlx5_ib's RoCE port). */
	mlx5c_netdev_set(mdev, netdev);
	err = register_netdev(netdev);
	if (err)
		goto err_nb;
	dev_set_drvdata(&adev->dev, priv);
	return 0;

err_nb:
	mlx5c_netdev_set(mdev, NULL);
	mlx5c_event_unregister(mdev, &priv->nb);
	cancel_work_sync(&priv->port_work);
err_res:
	res_destroy(priv);
err_wq:
	destroy_workqueue(priv->wq);
err_free:
	mutex_destroy(&priv->lock);
	free_netdev(netdev);
	return err;
}

static void en_remove(struct auxiliary_device *adev)
{
	struct mlx5c_en_priv *priv = dev_get_drvdata(&adev->dev);
	struct net_device *netdev = priv->netdev;

	unregister_netdev(netdev);
	mlx5c_en_dcb_cleanup(priv);
	mlx5c_netdev_set(priv->mdev, NULL);
	mlx5c_event_unregister(priv->mdev, &priv->nb);
	cancel_work_sync(&priv->port_work);
	cancel_work_sync(&priv->rx_mode_work);
	destroy_workqueue(priv->wq);
	res_destroy(priv);
	mutex_destroy(&priv->lock);
	free_netdev(netdev);
}

static const struct auxiliary_device_id en_id_table[] = {
	{ .name = MLX5C_CORE_DRV_NAME "." MLX5C_AUX_ETH_NAME },
	{}
};

static struct auxiliary_driver mlx5c_en_driver = {
	.name = "eth",
	.probe = en_probe,
	.remove = en_remove,
	.id_table = en_id_table,
};

/**
 * mlx5c_en_init() - register the Ethernet auxiliary driver
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_init(void)
{
	return auxiliary_driver_register(&mlx5c_en_driver);
}

/**
 * mlx5c_en_exit() - unregister the Ethernet auxiliary driver
 */
void mlx5c_en_exit(void)
{
	auxiliary_driver_unregister(&mlx5c_en_driver);
}
