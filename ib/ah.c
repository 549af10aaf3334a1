// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles for UD. The mlx5 provider builds the address vector of
 * its send WQEs itself (on RoCE with the next hop's MAC it reads from our
 * response); for kernel QPs the AH keeps the address vector in the layout
 * of the WQE's datagram segment, which post_send copies (wr.c) and
 * completes with the Q_Key and QP number.
 */
#include "mlx5_ib.h"

/* grh_gid_fl of the address vector: a GRH follows the LRH. */
#define MLX5C_AV_GRH		BIT(30)
#define MLX5C_AV_SGID_SHIFT	20
/* fl_mlid: bit 7 forces loopback; 0-6 are the source path bits. */
#define MLX5C_AV_MLID_MASK	0x7f

static void mlx5c_ib_set_av(struct mlx5c_ib_dev *dev, struct mlx5c_av *av,
			    const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh;

	memset(av, 0, sizeof(*av));
	if (dev->roce) {
		mlx5c_ib_roce_set_av(dev, av, ah);
	} else {
		av->rlid = cpu_to_be16(rdma_ah_get_dlid(ah));
		av->fl_mlid = rdma_ah_get_path_bits(ah) & MLX5C_AV_MLID_MASK;
		av->stat_rate_sl = rdma_ah_get_sl(ah) & 0xf;
	}
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return;
	grh = rdma_ah_read_grh(ah);
	av->grh_gid_fl = cpu_to_be32(MLX5C_AV_GRH |
				     grh->sgid_index << MLX5C_AV_SGID_SHIFT |
				     (grh->flow_label & 0xfffff));
	av->hop_limit = grh->hop_limit;
	av->tclass = grh->traffic_class;
	memcpy(av->rgid, grh->dgid.raw, sizeof(av->rgid));
}

/*
 * A user AH on RoCE: the provider builds the address vector itself but
 * cannot resolve the next hop's MAC, which ib_core did; it reads it from
 * the response.
 */
static int mlx5c_ib_ah_resp(const struct rdma_ah_attr *ah,
			    struct ib_udata *udata)
{
	struct mlx5_ib_create_ah_resp resp = {};
	size_t len = offsetofend(struct mlx5_ib_create_ah_resp, dmac);

	if (udata->outlen < len)
		return -EINVAL;
	resp.response_length = len;
	memcpy(resp.dmac, ah->roce.dmac, ETH_ALEN);
	return ib_copy_to_udata(udata, &resp, len);
}

/**
 * mlx5c_ib_create_ah() - create an address handle
 * @ibah: AH allocated by ib_core
 * @init: the address vector
 * @udata: user AHs: no request; on RoCE struct mlx5_ib_create_ah_resp out
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		       struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibah->device);
	struct rdma_ah_attr *ah = init->ah_attr;
	u32 port = rdma_ah_get_port_num(ah);
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (dev->roce ? mlx5c_ib_roce_check_ah(ah) :
			ah->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH &&
	    rdma_ah_read_grh(ah)->sgid_index >= dev->port[port - 1].gid_tbl_len)
		return -EINVAL;
	if (udata && dev->roce) {
		err = mlx5c_ib_ah_resp(ah, udata);
		if (err)
			return err;
	}
	to_mlx5c_ah(ibah)->attr = *ah;
	mlx5c_ib_set_av(dev, &to_mlx5c_ah(ibah)->av, ah);
	return 0;
}

/**
 * mlx5c_ib_query_ah() - the attributes of an address handle
 * @ibah: AH
 * @attr: the address vector (out)
 *
 * Return: 0.
 */
int mlx5c_ib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_mlx5c_ah(ibah)->attr;
	/* The GID attribute reference belongs to the ib_ah. */
	attr->grh.sgid_attr = NULL;
	return 0;
}

/**
 * mlx5c_ib_destroy_ah() - destroy an address handle
 * @ibah: AH
 * @flags: RDMA_DESTROY_AH_* flags
 *
 * Return: 0.
 */
int mlx5c_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}
