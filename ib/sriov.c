// SPDX-License-Identifier: GPL-2.0
/*
 * A PF's InfiniBand VFs, as its administrator sees them through IPoIB:
 * `ip link set ib0 vf N node_guid G`, `port_guid G`, `state
 * enable|disable|auto`, and the VF lines of `ip [-s] link show ib0`
 * (IPoIB's ndo_set_vf_guid, ndo_get_vf_guid, ndo_set_vf_link_state,
 * ndo_get_vf_config and ndo_get_vf_stats call these ops).
 *
 * VF N is vport N + 1 of the PF's e-switch. Its GUIDs and link policy live
 * in its HCA vport context, which the PF sets with other_vport; mlx5_core
 * keeps what was set and sets it again whenever the VF is enabled in the
 * device (core/sriov.c). The link policy of a VF: DOWN holds its port
 * down, UP and AUTO (follow the physical port) let it follow the port.
 *
 * The ops exist on a PF whose port is virtualized (ib_virt); they refuse a
 * VF beyond sriov_numvfs.
 */
#include <linux/if_link.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "mlx5_ib.h"

/* IFLA_VF_LINK_STATE_* and the vport state policy, both ways. */
static const struct {
	int ifla;
	u8 policy;
} link_states[] = {
	{ IFLA_VF_LINK_STATE_AUTO, MLX5_VPORT_ADMIN_STATE_AUTO },
	{ IFLA_VF_LINK_STATE_ENABLE, MLX5_VPORT_ADMIN_STATE_UP },
	{ IFLA_VF_LINK_STATE_DISABLE, MLX5_VPORT_ADMIN_STATE_DOWN },
};

static int mlx5c_ib_set_vf_link_state(struct ib_device *ibdev, int vf, u32 port,
				      int state)
{
	struct mlx5c_vf_hca set = { .field_select = MLX5_HCA_VPORT_SEL_STATE_POLICY };
	int i;

	for (i = 0; i < ARRAY_SIZE(link_states); i++)
		if (link_states[i].ifla == state)
			break;
	if (i == ARRAY_SIZE(link_states))
		return -EINVAL;
	set.policy = link_states[i].policy;
	return mlx5c_sriov_set_vf_hca(to_mdev(ibdev)->mdev, vf, port, &set);
}

static int mlx5c_ib_set_vf_guid(struct ib_device *ibdev, int vf, u32 port, u64 guid,
				int type)
{
	struct mlx5c_vf_hca set = {};

	switch (type) {
	case IFLA_VF_IB_NODE_GUID:
		set.field_select = MLX5_HCA_VPORT_SEL_NODE_GUID;
		set.node_guid = guid;
		break;
	case IFLA_VF_IB_PORT_GUID:
		set.field_select = MLX5_HCA_VPORT_SEL_PORT_GUID;
		set.port_guid = guid;
		break;
	default:
		return -EINVAL;
	}
	return mlx5c_sriov_set_vf_hca(to_mdev(ibdev)->mdev, vf, port, &set);
}

/* The GUIDs set through set_vf_guid (0: never set), as the in-tree driver shows them. */
static int mlx5c_ib_get_vf_guid(struct ib_device *ibdev, int vf, u32 port,
				struct ifla_vf_guid *node_guid,
				struct ifla_vf_guid *port_guid)
{
	struct mlx5c_vf_hca got;
	int err;

	err = mlx5c_sriov_get_vf_hca(to_mdev(ibdev)->mdev, vf, &got);
	if (err)
		return err;
	node_guid->guid = got.field_select & MLX5_HCA_VPORT_SEL_NODE_GUID ? got.node_guid : 0;
	port_guid->guid = got.field_select & MLX5_HCA_VPORT_SEL_PORT_GUID ? got.port_guid : 0;
	return 0;
}

/* The link policy, from the device (the VF's HCA vport). */
static int mlx5c_ib_get_vf_config(struct ib_device *ibdev, int vf, u32 port,
				  struct ifla_vf_info *ivf)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	struct mlx5c_vf_hca got;
	void *out, *ctx;
	u8 policy;
	int i, err;

	/* Refuses a VF beyond sriov_numvfs before the command names it. */
	err = mlx5c_sriov_get_vf_hca(dev->mdev, vf, &got);
	if (err)
		return err;
	out = mlx5c_vport_query_hca(dev->mdev, port, vf + 1, true);
	if (IS_ERR(out))
		return PTR_ERR(out);
	ctx = MLX5_ADDR_OF(query_hca_vport_context_out, out, hca_vport_context);
	policy = MLX5_GET(hca_vport_context, ctx, vport_state_policy);
	kfree(out);
	for (i = 0; i < ARRAY_SIZE(link_states); i++)
		if (link_states[i].policy == policy)
			break;
	if (i == ARRAY_SIZE(link_states)) {
		dev_warn_ratelimited(&dev->ib.dev, "VF %d: unknown vport state policy %u\n",
				     vf, policy);
		return -EINVAL;
	}
	memset(ivf, 0, sizeof(*ivf));
	ivf->linkstate = link_states[i].ifla;
	return 0;
}

/*
 * The VF's vport counters (QUERY_VPORT_COUNTER other_vport): packets and
 * bytes are the unicast ones, multicast the received multicast packets, as
 * the in-tree driver reports them.
 */
static int mlx5c_ib_get_vf_stats(struct ib_device *ibdev, int vf, u32 port,
				 struct ifla_vf_stats *stats)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	struct mlx5c_vf_hca got;
	void *out;
	int err;

	err = mlx5c_sriov_get_vf_hca(dev->mdev, vf, &got);
	if (err)
		return err;
	out = mlx5c_vport_query_counter(dev->mdev, 0, vf + 1, true);
	if (IS_ERR(out))
		return PTR_ERR(out);
	stats->rx_packets = MLX5_GET64(query_vport_counter_out, out,
				       received_ib_unicast.packets);
	stats->tx_packets = MLX5_GET64(query_vport_counter_out, out,
				       transmitted_ib_unicast.packets);
	stats->rx_bytes = MLX5_GET64(query_vport_counter_out, out,
				     received_ib_unicast.octets);
	stats->tx_bytes = MLX5_GET64(query_vport_counter_out, out,
				     transmitted_ib_unicast.octets);
	stats->multicast = MLX5_GET64(query_vport_counter_out, out,
				      received_ib_multicast.packets);
	kfree(out);
	return 0;
}

static const struct ib_device_ops mlx5c_ib_sriov_ops = {
	.get_vf_config = mlx5c_ib_get_vf_config,
	.get_vf_guid = mlx5c_ib_get_vf_guid,
	.get_vf_stats = mlx5c_ib_get_vf_stats,
	.set_vf_guid = mlx5c_ib_set_vf_guid,
	.set_vf_link_state = mlx5c_ib_set_vf_link_state,
};

/**
 * mlx5c_ib_sriov_init() - the VF ops, on a PF with a virtualized IB port
 * @dev: device being probed, before registration
 *
 * Without them (a VF, RoCE, no ib_virt) ib_core answers the ops with
 * -EOPNOTSUPP.
 */
void mlx5c_ib_sriov_init(struct mlx5c_ib_dev *dev)
{
	if (dev->ib_virt && !mlx5c_dev_is_vf(dev->mdev))
		ib_set_device_ops(&dev->ib, &mlx5c_ib_sriov_ops);
}
