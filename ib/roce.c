// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE: the GID table and the address path of an Ethernet port.
 *
 * ib_core fills the port's GID table from the netdev's addresses (its
 * roce_gid_mgmt) and hands each entry to add_gid/del_gid, which write it
 * into the firmware's table with SET_ROCE_ADDRESS: the address, the RoCE
 * version (v1: GRH over ethertype 0x8915; v2: IPv4 or IPv6 over UDP), the
 * source MAC and VLAN of the netdev the address belongs to. QP paths and
 * address vectors name an entry by index; on top of the InfiniBand GRH
 * fields they carry the next hop's MAC (resolved by ib_core), the UDP
 * source port (RoCEv2, from the flow label), DSCP/ECN and the priority.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>

#include "mlx5_ib.h"

#define MLX5C_IB_ROCE_CAP(dev, fld) \
	MLX5_GET(roce_cap, mlx5c_hca_cap((dev)->mdev, MLX5_CAP_ROCE, false), fld)

/**
 * mlx5c_ib_roce_port_caps() - ib_core's port capability flags of RoCE
 * @dev: device with an Ethernet port
 *
 * Return: RDMA_CORE_PORT_IBA_ROCE and/or _ROCE_UDP_ENCAP as the firmware
 * runs RoCE v1 and v2.
 */
u32 mlx5c_ib_roce_port_caps(struct mlx5c_ib_dev *dev)
{
	u32 versions = MLX5C_IB_ROCE_CAP(dev, roce_version);
	u32 l3 = MLX5C_IB_ROCE_CAP(dev, l3_type);
	u32 flags = 0;

	if (versions & MLX5_ROCE_VERSION_1_CAP)
		flags |= RDMA_CORE_PORT_IBA_ROCE;
	if (versions & MLX5_ROCE_VERSION_2_CAP &&
	    l3 & (MLX5_ROCE_L3_TYPE_IPV4_CAP | MLX5_ROCE_L3_TYPE_IPV6_CAP))
		flags |= RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	return flags;
}

/*
 * RoCE on in the NIC vport context: without it the device hands RoCE
 * frames to the NIC receive path instead of the QPs.
 */
static int mlx5c_ib_roce_enable(struct mlx5c_ib_dev *dev, bool on)
{
	int inlen = MLX5_ST_SZ_BYTES(modify_nic_vport_context_in);
	void *in;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(modify_nic_vport_context_in, in, field_select.roce_en, 1);
	MLX5_SET(modify_nic_vport_context_in, in, nic_vport_context.roce_en, on);
	err = mlx5c_vport_modify_nic(dev->mdev, 0, false, in, inlen);
	kfree(in);
	return err;
}

/**
 * mlx5c_ib_roce_init() - prepare an Ethernet port for RoCE
 * @dev: device
 *
 * Reads the table size and UDP source ports of the ROCE capabilities and
 * switches RoCE on in the NIC vport context.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_roce_init(struct mlx5c_ib_dev *dev)
{
	u32 tbl;

	if (!MLX5C_IB_CAP(dev, roce) ||
	    !mlx5c_hca_cap(dev->mdev, MLX5_CAP_ROCE, false)) {
		dev_info(&dev->adev->dev, "Ethernet port without RoCE\n");
		return -EOPNOTSUPP;
	}
	if (!mlx5c_ib_roce_port_caps(dev)) {
		dev_info(&dev->adev->dev, "no RoCE version this driver runs\n");
		return -EOPNOTSUPP;
	}
	tbl = MLX5C_IB_ROCE_CAP(dev, roce_address_table_size);
	if (!tbl) {
		dev_err(&dev->adev->dev, "RoCE without a GID table\n");
		return -EINVAL;
	}
	dev->port[0].gid_tbl_len = tbl;
	dev->port[0].pkey_tbl_len = 1;
	dev->udp_sport_min = MLX5C_IB_ROCE_CAP(dev, r_roce_min_src_udp_port);
	return mlx5c_ib_roce_enable(dev, true);
}

/**
 * mlx5c_ib_roce_cleanup() - switch RoCE off again
 * @dev: device
 */
void mlx5c_ib_roce_cleanup(struct mlx5c_ib_dev *dev)
{
	int err = mlx5c_ib_roce_enable(dev, false);

	if (err && !mlx5c_ib_gone(dev, err))
		dev_warn(&dev->adev->dev, "disabling RoCE failed: %d\n", err);
}

/* Write GID table entry @index; @attr NULL empties it. */
static int mlx5c_ib_set_roce_addr(struct mlx5c_ib_dev *dev, u32 port,
				  unsigned int index,
				  const struct ib_gid_attr *attr)
{
	u32 out[MLX5_ST_SZ_DW(set_roce_address_out)] = {};
	u32 in[MLX5_ST_SZ_DW(set_roce_address_in)] = {};
	void *addr = MLX5_ADDR_OF(set_roce_address_in, in, roce_address);
	u16 vlan = 0xffff;
	u8 mac[ETH_ALEN];
	int err;

	MLX5_SET(set_roce_address_in, in, opcode, MLX5_CMD_OP_SET_ROCE_ADDRESS);
	MLX5_SET(set_roce_address_in, in, roce_address_index, index);
	if (MLX5C_IB_CAP(dev, num_vhca_ports))
		MLX5_SET(set_roce_address_in, in, vhca_port_num, port);
	if (attr) {
		err = rdma_read_gid_l2_fields(attr, &vlan, mac);
		if (err)
			return err;
		memcpy(MLX5_ADDR_OF(roce_addr_layout, addr, source_l3_address),
		       attr->gid.raw, sizeof(attr->gid.raw));
		MLX5_SET(roce_addr_layout, addr, source_mac_47_32,
			 get_unaligned_be16(mac));
		MLX5_SET(roce_addr_layout, addr, source_mac_31_0,
			 get_unaligned_be32(mac + 2));
		if (vlan < VLAN_N_VID) {
			MLX5_SET(roce_addr_layout, addr, vlan_valid, 1);
			MLX5_SET(roce_addr_layout, addr, vlan_id, vlan);
		}
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
			MLX5_SET(roce_addr_layout, addr, roce_version,
				 MLX5_ROCE_VERSION_2);
			MLX5_SET(roce_addr_layout, addr, roce_l3_type,
				 ipv6_addr_v4mapped((void *)attr->gid.raw) ?
				 MLX5_ROCE_L3_TYPE_IPV4 :
				 MLX5_ROCE_L3_TYPE_IPV6);
		} else {
			MLX5_SET(roce_addr_layout, addr, roce_version,
				 MLX5_ROCE_VERSION_1);
		}
	}
	return mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_ib_add_gid() - write a GID entry ib_core added into the firmware
 * @attr: the entry: index, address, type, netdev
 * @context: unused
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct mlx5c_ib_dev *dev = to_mdev(attr->device);

	if (attr->gid_type != IB_GID_TYPE_ROCE &&
	    attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	return mlx5c_ib_set_roce_addr(dev, attr->port_num, attr->index, attr);
}

/**
 * mlx5c_ib_del_gid() - empty a GID entry ib_core deleted
 * @attr: the entry
 * @context: unused
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct mlx5c_ib_dev *dev = to_mdev(attr->device);
	int err;

	err = mlx5c_ib_set_roce_addr(dev, attr->port_num, attr->index, NULL);
	return mlx5c_ib_gone(dev, err) ? 0 : err;
}

/**
 * mlx5c_ib_roce_query_gid() - one entry of the firmware's GID table
 * @dev: device
 * @port: port number
 * @index: GID index
 * @gid: the address (out; zero for an empty entry)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_roce_query_gid(struct mlx5c_ib_dev *dev, u32 port, int index,
			    union ib_gid *gid)
{
	u32 out[MLX5_ST_SZ_DW(query_roce_address_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_roce_address_in)] = {};
	void *addr = MLX5_ADDR_OF(query_roce_address_out, out, roce_address);
	int err;

	MLX5_SET(query_roce_address_in, in, opcode,
		 MLX5_CMD_OP_QUERY_ROCE_ADDRESS);
	MLX5_SET(query_roce_address_in, in, roce_address_index, index);
	if (MLX5C_IB_CAP(dev, num_vhca_ports))
		MLX5_SET(query_roce_address_in, in, vhca_port_num, port);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		memcpy(gid->raw,
		       MLX5_ADDR_OF(roce_addr_layout, addr, source_l3_address),
		       sizeof(gid->raw));
	return err;
}

/* The RoCE version the source GID entry of @grh sends with. */
static bool mlx5c_ib_roce_v2(const struct ib_global_route *grh)
{
	return grh->sgid_attr &&
	       grh->sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
}

/**
 * mlx5c_ib_roce_check_ah() - whether an address vector suits a RoCE port
 * @ah: the address vector
 *
 * Return: 0, or -EINVAL for one that is not of type RoCE or has no GRH.
 */
int mlx5c_ib_roce_check_ah(const struct rdma_ah_attr *ah)
{
	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	return 0;
}

/**
 * mlx5c_ib_roce_set_path() - the Ethernet fields of a QP's address path
 * @dev: device
 * @ads: the address path of the QP context
 * @ah: the address vector (type RoCE, with a GRH)
 * @lqpn: the QP's number
 * @rqpn: the remote QP number (for the UDP source port)
 *
 * The GRH fields are set by the caller.
 */
void mlx5c_ib_roce_set_path(struct mlx5c_ib_dev *dev, void *ads,
			    const struct rdma_ah_attr *ah, u32 lqpn, u32 rqpn)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	MLX5_SET(ads, ads, rmac_47_32, get_unaligned_be16(ah->roce.dmac));
	MLX5_SET(ads, ads, rmac_31_0, get_unaligned_be32(ah->roce.dmac + 2));
	MLX5_SET(ads, ads, eth_prio, rdma_ah_get_sl(ah) & 0x7);
	if (!mlx5c_ib_roce_v2(grh))
		return;
	/* Entropy for ECMP: the same port both ways of a connection. */
	MLX5_SET(ads, ads, udp_sport,
		 rdma_get_udp_sport(grh->flow_label, lqpn, rqpn));
	MLX5_SET(ads, ads, dscp, grh->traffic_class >> 2);
	MLX5_SET(ads, ads, ecn, grh->traffic_class & 0x3);
}

/**
 * mlx5c_ib_roce_set_av() - the Ethernet fields of a UD address vector
 * @dev: device
 * @av: the address vector of the send WQE's datagram segment
 * @ah: the address vector (type RoCE, with a GRH)
 *
 * The GRH fields are set by the caller. The UDP source port sits where
 * InfiniBand has the DLID.
 */
void mlx5c_ib_roce_set_av(struct mlx5c_ib_dev *dev, struct mlx5c_av *av,
			  const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	memcpy(av->rmac, ah->roce.dmac, ETH_ALEN);
	/* stat_rate_sl: the priority in bits 3:1 on Ethernet. */
	av->stat_rate_sl = (rdma_ah_get_sl(ah) & 0x7) << 1;
	if (!mlx5c_ib_roce_v2(grh))
		return;
	av->udp_sport = cpu_to_be16(grh->flow_label ?
				    rdma_flow_label_to_udp_sport(grh->flow_label) :
				    dev->udp_sport_min);
}
