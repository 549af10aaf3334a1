// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles for UD. On InfiniBand the mlx5 provider builds the
 * address vector of its send WQEs itself; the kernel object only records
 * and validates the attributes.
 */
#include "mlx5_ib.h"

/**
 * mlx5c_ib_create_ah() - create an address handle
 * @ibah: AH allocated by ib_core
 * @init: the address vector
 * @udata: no driver data is defined (user AHs)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		       struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibah->device);
	struct rdma_ah_attr *ah = init->ah_attr;
	u32 port = rdma_ah_get_port_num(ah);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (ah->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH &&
	    rdma_ah_read_grh(ah)->sgid_index >= dev->port[port - 1].gid_tbl_len)
		return -EINVAL;
	to_mah(ibah)->attr = *ah;
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
	*attr = to_mah(ibah)->attr;
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
