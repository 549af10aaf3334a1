// SPDX-License-Identifier: GPL-2.0
/*
 * The port and the NIC vport as the netdev sees them: administrative
 * state (PAOS), operational state (the vport's, QUERY_VPORT_STATE) and
 * speed (PTYS), MTU (PMTU and the vport context), the vport's address
 * lists and promiscuous modes, the permanent MAC address, the vport
 * counters and global pause (PFCC); port change events update the
 * carrier. The vport commands
 * themselves are core/vport.c's (mlx5c_vport_*()).
 */
#include <linux/slab.h>

#include "en.h"

static int access_reg(struct mlx5c_en_priv *priv, u16 reg, bool write,
		      const void *data, void *out_data, int size)
{
	return mlx5c_access_reg(priv->mdev, reg, write, data, out_data, size);
}

/**
 * mlx5c_en_port_set_admin() - set the port's administrative state (PAOS)
 * @priv: netdev private data
 * @up: up or down
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_port_set_admin(struct mlx5c_en_priv *priv, bool up)
{
	u32 reg[MLX5_ST_SZ_DW(paos_reg)] = {};

	MLX5_SET(paos_reg, reg, local_port, 1);
	MLX5_SET(paos_reg, reg, admin_status, up ? MLX5C_PORT_UP : MLX5C_PORT_DOWN);
	MLX5_SET(paos_reg, reg, ase, 1);
	return access_reg(priv, MLX5C_REG_PAOS, true, reg, NULL, sizeof(reg));
}

/**
 * mlx5c_en_port_oper_up() - read the NIC vport's operational state
 * @priv: netdev private data
 * @up: whether the link is up (out)
 *
 * QUERY_VPORT_STATE of the function's own vport: the port's state as its
 * vport sees it, which on a VF also holds what the e-switch manager set
 * (the link state of `ip link set <pf> vf N state`), unlike PAOS.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_port_oper_up(struct mlx5c_en_priv *priv, bool *up)
{
	u8 state;
	int err;

	err = mlx5c_vport_query_state(priv->mdev, MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT,
				      0, false, &state);
	if (!err)
		*up = state == VPORT_STATE_UP;
	return err;
}

/* Link modes of PTYS eth_proto_oper (the bit number) and their speed. */
static const struct {
	u8 bit;
	u32 mbps;
} ptys_speeds[] = {
	{ 1, 1000 }, { 2, 10000 }, { 3, 10000 }, { 4, 10000 }, { 6, 40000 },
	{ 7, 40000 }, { 12, 10000 }, { 14, 10000 }, { 15, 40000 }, { 16, 40000 },
	{ 20, 100000 }, { 21, 100000 }, { 22, 100000 }, { 23, 100000 },
	{ 27, 25000 }, { 28, 25000 }, { 29, 25000 }, { 30, 50000 }, { 31, 50000 },
};

/**
 * mlx5c_en_port_speed() - the operational link speed (PTYS)
 * @priv: netdev private data
 * @mbps: speed in Mb/s, 0 if unknown or down (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_port_speed(struct mlx5c_en_priv *priv, u32 *mbps)
{
	u32 reg[MLX5_ST_SZ_DW(ptys_reg)] = {};
	u32 oper;
	int err, i;

	MLX5_SET(ptys_reg, reg, local_port, 1);
	MLX5_SET(ptys_reg, reg, proto_mask, MLX5C_PTYS_PROTO_EN);
	err = access_reg(priv, MLX5C_REG_PTYS, false, reg, reg, sizeof(reg));
	if (err)
		return err;
	oper = MLX5_GET(ptys_reg, reg, eth_proto_oper);
	*mbps = 0;
	for (i = 0; i < ARRAY_SIZE(ptys_speeds); i++)
		if (oper & BIT(ptys_speeds[i].bit))
			*mbps = max(*mbps, ptys_speeds[i].mbps);
	return 0;
}

/**
 * mlx5c_en_set_hw_mtu() - set the port and vport MTU for a netdev MTU
 * @priv: netdev private data
 * @mtu: netdev MTU; the hardware MTU adds the L2 header, a VLAN tag and FCS
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_set_hw_mtu(struct mlx5c_en_priv *priv, int mtu)
{
	u32 in[MLX5_ST_SZ_DW(modify_nic_vport_context_in)] = {};
	u32 reg[MLX5_ST_SZ_DW(pmtu_reg)] = {};
	u16 hw_mtu = mtu + MLX5C_EN_HW_MTU_EXTRA;
	int err;

	MLX5_SET(pmtu_reg, reg, local_port, 1);
	MLX5_SET(pmtu_reg, reg, admin_mtu, hw_mtu);
	err = access_reg(priv, MLX5C_REG_PMTU, true, reg, NULL, sizeof(reg));
	if (err)
		return err;
	MLX5_SET(modify_nic_vport_context_in, in, field_select.mtu, 1);
	MLX5_SET(modify_nic_vport_context_in, in, nic_vport_context.mtu, hw_mtu);
	return mlx5c_vport_modify_nic(priv->mdev, 0, false, in, sizeof(in));
}

/* One address list (unicast or multicast) of the NIC vport context. */
static int set_vport_list(struct mlx5c_en_priv *priv, int type, const u8 *addrs, int n,
			  bool mcast)
{
	const void *caps = mlx5c_cap_general(priv->mdev);
	u32 log = mcast ? MLX5_GET(cmd_hca_cap, caps, log_max_current_mc_list) :
			  MLX5_GET(cmd_hca_cap, caps, log_max_current_uc_list);
	int inlen, i, k = 0, max, err;
	void *in, *ctx, *e;

	/* The firmware's limit, never more room than the n addresses need. */
	max = log < ilog2(MLX5C_EN_FT_ADDRS) ? 1 << log : MLX5C_EN_FT_ADDRS;
	max = min(max, n);
	inlen = MLX5_ST_SZ_BYTES(modify_nic_vport_context_in) +
		max * MLX5_ST_SZ_BYTES(mac_address_layout);
	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(modify_nic_vport_context_in, in, field_select.addresses_list, 1);
	ctx = MLX5_ADDR_OF(modify_nic_vport_context_in, in, nic_vport_context);
	for (i = 0; i < n && k < max; i++) {
		if (is_multicast_ether_addr(addrs + i * ETH_ALEN) != mcast)
			continue;
		e = MLX5_ADDR_OF(nic_vport_context, ctx, current_uc_mac_address[k++]);
		ether_addr_copy(MLX5_ADDR_OF(mac_address_layout, e, mac_addr_47_32),
				addrs + i * ETH_ALEN);
	}
	MLX5_SET(nic_vport_context, ctx, allowed_list_type, type);
	MLX5_SET(nic_vport_context, ctx, allowed_list_size, k);
	err = mlx5c_vport_modify_nic(priv->mdev, 0, false, in,
				     MLX5_ST_SZ_BYTES(modify_nic_vport_context_in) +
				     k * MLX5_ST_SZ_BYTES(mac_address_layout));
	kfree(in);
	return err;
}

/**
 * mlx5c_en_set_vport_rx_mode() - tell the NIC vport what the netdev receives
 * @priv: netdev private data
 * @addrs: the destination MACs it wants (unicast and multicast), ETH_ALEN
 *	bytes each
 * @n: how many
 * @promisc: promiscuous mode
 * @allmulti: all multicast
 *
 * The vport's address lists and promiscuous modes: what an e-switch
 * forwards to the function (a VF's unicast lists; its promiscuous modes
 * only if its host trusts it). A list longer than the firmware takes is
 * cut.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_set_vport_rx_mode(struct mlx5c_en_priv *priv, const u8 *addrs, int n,
			       bool promisc, bool allmulti)
{
	u32 in[MLX5_ST_SZ_DW(modify_nic_vport_context_in)] = {};
	int err;

	err = set_vport_list(priv, MLX5_NVPRT_LIST_TYPE_UC, addrs, n, false);
	if (!err)
		err = set_vport_list(priv, MLX5_NVPRT_LIST_TYPE_MC, addrs, n, true);
	if (err)
		return err;
	MLX5_SET(modify_nic_vport_context_in, in, field_select.promisc, 1);
	/* Promiscuous is every frame; all-multicast every multicast one. */
	MLX5_SET(modify_nic_vport_context_in, in, nic_vport_context.promisc_all, promisc);
	MLX5_SET(modify_nic_vport_context_in, in, nic_vport_context.promisc_mc, allmulti);
	return mlx5c_vport_modify_nic(priv->mdev, 0, false, in, sizeof(in));
}

/**
 * mlx5c_en_query_mac() - the permanent MAC address of the NIC vport
 * @priv: netdev private data
 * @mac: ETH_ALEN bytes (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_query_mac(struct mlx5c_en_priv *priv, u8 *mac)
{
	return mlx5c_vport_query_mac(priv->mdev, 0, false, mac);
}

const char * const mlx5c_en_vport_counter_names[MLX5C_EN_VPORT_COUNTERS] = {
	"rx_vport_unicast_packets", "rx_vport_unicast_bytes",
	"tx_vport_unicast_packets", "tx_vport_unicast_bytes",
	"rx_vport_multicast_packets", "rx_vport_broadcast_packets",
	"tx_vport_multicast_packets", "tx_vport_broadcast_packets",
};

/**
 * mlx5c_en_vport_counters() - read the vport counters (QUERY_VPORT_COUNTER)
 * @priv: netdev private data
 * @out: MLX5C_EN_VPORT_COUNTERS values, in mlx5c_en_vport_counter_names order
 * @n: room in @out
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_vport_counters(struct mlx5c_en_priv *priv, u64 *out, int n)
{
	void *o;

	if (n < MLX5C_EN_VPORT_COUNTERS)
		return -EINVAL;
	o = mlx5c_vport_query_counter(priv->mdev, 0, 0, false);
	if (IS_ERR(o))
		return PTR_ERR(o);
#define VC(fld, what) MLX5_GET64(traffic_counter, \
	MLX5_ADDR_OF(query_vport_counter_out, o, fld), what)
	out[0] = VC(received_eth_unicast, packets);
	out[1] = VC(received_eth_unicast, octets);
	out[2] = VC(transmitted_eth_unicast, packets);
	out[3] = VC(transmitted_eth_unicast, octets);
	out[4] = VC(received_eth_multicast, packets);
	out[5] = VC(received_eth_broadcast, packets);
	out[6] = VC(transmitted_eth_multicast, packets);
	out[7] = VC(transmitted_eth_broadcast, packets);
#undef VC
	kfree(o);
	return 0;
}

/**
 * mlx5c_en_port_work() - read the operational state into the carrier
 * @work: the netdev's port work
 */
void mlx5c_en_port_work(struct work_struct *work)
{
	struct mlx5c_en_priv *priv = container_of(work, struct mlx5c_en_priv, port_work);
	bool up = false;

	mutex_lock(&priv->lock);
	if (priv->opened && !mlx5c_en_port_oper_up(priv, &up) && up) {
		if (!netif_carrier_ok(priv->netdev))
			netdev_info(priv->netdev, "link up\n");
		netif_carrier_on(priv->netdev);
	} else {
		if (netif_carrier_ok(priv->netdev))
			netdev_info(priv->netdev, "link down\n");
		netif_carrier_off(priv->netdev);
	}
	mutex_unlock(&priv->lock);
}

/**
 * mlx5c_en_port_event() - the core's event notifier: port changes
 * @nb: the netdev's notifier
 * @type: EQE type
 * @data: the EQE
 *
 * Runs in interrupt context; the port state is read by the port work.
 *
 * Return: NOTIFY_OK for port changes, NOTIFY_DONE otherwise.
 */
int mlx5c_en_port_event(struct notifier_block *nb, unsigned long type, void *data)
{
	struct mlx5c_en_priv *priv = container_of(nb, struct mlx5c_en_priv, nb);

	if (type != MLX5_EVENT_TYPE_PORT_CHANGE)
		return NOTIFY_DONE;
	queue_work(priv->wq, &priv->port_work);
	return NOTIFY_OK;
}

/**
 * mlx5c_en_pause_get() - read global pause (PFCC)
 * @priv: netdev private data
 * @rx: rx pause (out)
 * @tx: tx pause (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_pause_get(struct mlx5c_en_priv *priv, bool *rx, bool *tx)
{
	u32 in[MLX5_ST_SZ_DW(pfcc_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(pfcc_reg)];
	int err;

	MLX5_SET(pfcc_reg, in, local_port, 1);
	err = access_reg(priv, MLX5C_REG_PFCC, false, in, out, sizeof(out));
	if (err)
		return err;
	*rx = MLX5_GET(pfcc_reg, out, pprx);
	*tx = MLX5_GET(pfcc_reg, out, pptx);
	return 0;
}

/**
 * mlx5c_en_pause_set() - set global pause (PFCC), PFC left as it is
 * @priv: netdev private data
 * @rx: rx pause
 * @tx: tx pause
 *
 * The device refuses pause in a direction where PFC is on.
 *
 * Return: 0, -EOPNOTSUPP on a function that does not manage its port, or
 * another negative errno.
 */
int mlx5c_en_pause_set(struct mlx5c_en_priv *priv, bool rx, bool tx)
{
	u32 in[MLX5_ST_SZ_DW(pfcc_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(pfcc_reg)];

	if (!MLX5_GET(cmd_hca_cap, mlx5c_cap_general(priv->mdev), vport_group_manager))
		return -EOPNOTSUPP;
	MLX5_SET(pfcc_reg, in, local_port, 1);
	MLX5_SET(pfcc_reg, in, pprx, rx);
	MLX5_SET(pfcc_reg, in, pptx, tx);
	return access_reg(priv, MLX5C_REG_PFCC, true, in, out, sizeof(out));
}
