// SPDX-License-Identifier: GPL-2.0
/*
 * Ports: attributes from the firmware's subnet management agent (MAD_IFC
 * with PortInfo/NodeInfo/NodeDescription SMPs), GIDs and P_Keys from the
 * HCA vport queries. With InfiniBand virtualization (ib_virt, a VF) the
 * agent is not the function's: attributes come from the HCA vport context
 * and the port registers (PTYS, PMTU, PVLC), and the capability mask is
 * changed through MODIFY_HCA_VPORT_CONTEXT. Ethernet (RoCE) ports take
 * their attributes from the netdev (netdev.c) and their GIDs from the RoCE
 * table (roce.c).
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "mlx5_ib.h"

/* PortInfo byte offsets (IBA 14.2.5.6) inside the SMP data. */
#define PI_GID_PREFIX		8
#define PI_LID			16
#define PI_SM_LID		18
#define PI_CAP_MASK		20
#define PI_WIDTH_ACTIVE		31
#define PI_STATE		32
#define PI_PHYS_STATE		33
#define PI_LMC			34
#define PI_SPEED_ACTIVE		35
#define PI_MTU_SMSL		36
#define PI_VL_CAP		37
#define PI_MTU_CAP		41
#define PI_PKEY_VIOL		46
#define PI_QKEY_VIOL		48
#define PI_SUBNET_TO		51
#define PI_CAP_MASK2		60
#define PI_EXT_SPEED		62

/* NodeInfo byte offsets (IBA 14.2.5.3). */
#define NI_SYS_IMAGE_GUID	4
#define NI_NODE_GUID		12

/**
 * mlx5c_ib_mad_get() - run a Get() SMP through the firmware's agent
 * @dev: device
 * @port: port number
 * @attr_id: SMP attribute (IB_SMP_ATTR_*)
 * @attr_mod: attribute modifier
 * @data: the 64 bytes of attribute data (out)
 *
 * Return: 0 or a negative errno.
 */
static int mlx5c_ib_mad_get(struct mlx5c_ib_dev *dev, u8 port, __be16 attr_id,
			    u32 attr_mod, u8 *data)
{
	struct ib_smp *in, *out;
	u16 status;
	int err;

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	in->base_version = IB_MGMT_BASE_VERSION;
	in->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	in->class_version = 1;
	in->method = IB_MGMT_METHOD_GET;
	in->attr_id = attr_id;
	in->attr_mod = cpu_to_be32(attr_mod);
	/* This is the local agent: no M_Key or B_Key check. */
	err = mlx5c_ib_mad_ifc(dev, IB_MAD_IGNORE_MKEY | IB_MAD_IGNORE_BKEY,
			       port, 0, (const struct ib_mad *)in,
			       (struct ib_mad *)out);
	if (err)
		goto out;
	status = be16_to_cpu(out->status & ~IB_SMP_DIRECTION);
	if (status) {
		dev_dbg(&dev->adev->dev, "SMP 0x%x failed: MAD status 0x%x\n",
			be16_to_cpu(attr_id), status);
		err = -EINVAL;
		goto out;
	}
	memcpy(data, out->data, IB_SMP_DATA_SIZE);
out:
	kfree(out);
	kfree(in);
	return err;
}

/*
 * This function's HCA vport context: the command's output (kfree() it; the
 * context is its hca_vport_context), or an ERR_PTR.
 */
static void *mlx5c_ib_hca_vport_context(struct mlx5c_ib_dev *dev, u8 port)
{
	return mlx5c_vport_query_hca(dev->mdev, port, 0, false);
}

#define HCA_VPORT_CTX(out) \
	MLX5_ADDR_OF(query_hca_vport_context_out, (out), hca_vport_context)

/* The NODE_DESC register: the description the firmware's agent answers. */
static int query_node_desc_reg(struct mlx5c_ib_dev *dev, char *node_desc)
{
	u8 desc[IB_SMP_DATA_SIZE] = {};
	int err;

	BUILD_BUG_ON(sizeof(desc) < IB_DEVICE_NODE_DESC_MAX);
	err = mlx5c_access_reg(dev->mdev, MLX5C_REG_NODE_DESC, false, desc, desc, sizeof(desc));
	if (err)
		return err;
	memcpy(node_desc, desc, IB_DEVICE_NODE_DESC_MAX);
	node_desc[IB_DEVICE_NODE_DESC_MAX - 1] = '\0';
	return 0;
}

/*
 * Ethernet ports: the GUIDs from the NIC vport context and the description
 * from the NODE_DESC register, as the in-tree driver reads them there (the
 * firmware's MAD agent belongs to IB ports).
 */
static int query_node_nic_vport(struct mlx5c_ib_dev *dev, __be64 *node_guid,
				__be64 *sys_image_guid, char *node_desc)
{
	void *out, *ctx;

	out = mlx5c_vport_query_nic(dev->mdev, 0, false);
	if (IS_ERR(out))
		return PTR_ERR(out);
	ctx = MLX5_ADDR_OF(query_nic_vport_context_out, out, nic_vport_context);
	*node_guid = cpu_to_be64(MLX5_GET64(nic_vport_context, ctx, node_guid));
	*sys_image_guid = cpu_to_be64(MLX5_GET64(nic_vport_context, ctx,
						 system_image_guid));
	kfree(out);
	return query_node_desc_reg(dev, node_desc);
}

/* ib_virt: the GUIDs the vport's manager gave this function. */
static int query_node_hca_vport(struct mlx5c_ib_dev *dev, __be64 *node_guid,
				__be64 *sys_image_guid, char *node_desc)
{
	void *out = mlx5c_ib_hca_vport_context(dev, 1);

	if (IS_ERR(out))
		return PTR_ERR(out);
	*node_guid = cpu_to_be64(MLX5_GET64(hca_vport_context, HCA_VPORT_CTX(out),
					    node_guid));
	*sys_image_guid = cpu_to_be64(MLX5_GET64(hca_vport_context,
						 HCA_VPORT_CTX(out),
						 system_image_guid));
	kfree(out);
	return query_node_desc_reg(dev, node_desc);
}

/**
 * mlx5c_ib_query_node() - node GUIDs and description
 * @dev: device
 * @node_guid: node GUID (out)
 * @sys_image_guid: system image GUID (out)
 * @node_desc: IB_DEVICE_NODE_DESC_MAX bytes (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_node(struct mlx5c_ib_dev *dev, __be64 *node_guid,
			__be64 *sys_image_guid, char *node_desc)
{
	u8 data[IB_SMP_DATA_SIZE];
	int err;

	if (dev->roce)
		return query_node_nic_vport(dev, node_guid, sys_image_guid, node_desc);
	if (dev->ib_virt)
		return query_node_hca_vport(dev, node_guid, sys_image_guid, node_desc);
	err = mlx5c_ib_mad_get(dev, 1, IB_SMP_ATTR_NODE_INFO, 0, data);
	if (err)
		return err;
	memcpy(sys_image_guid, data + NI_SYS_IMAGE_GUID, sizeof(*sys_image_guid));
	memcpy(node_guid, data + NI_NODE_GUID, sizeof(*node_guid));

	err = mlx5c_ib_mad_get(dev, 1, IB_SMP_ATTR_NODE_DESC, 0, data);
	if (err)
		return err;
	BUILD_BUG_ON(IB_DEVICE_NODE_DESC_MAX > IB_SMP_DATA_SIZE);
	memcpy(node_desc, data, IB_DEVICE_NODE_DESC_MAX);
	node_desc[IB_DEVICE_NODE_DESC_MAX - 1] = '\0';
	return 0;
}

/*
 * Table sizes from the general capabilities (PRM encodings), and whether
 * the port is virtualized and has the SMI (an IB port without ib_virt is
 * the function's own; with it, its vport context says).
 */
int mlx5c_ib_port_init(struct mlx5c_ib_dev *dev)
{
	unsigned int gid_sz = MLX5C_IB_CAP(dev, gid_table_size);
	unsigned int pkey_sz = MLX5C_IB_CAP(dev, pkey_table_size);
	void *out;
	int i;

	if (gid_sz > 4 || pkey_sz > 5)
		return -EINVAL;
	for (i = 0; i < dev->num_ports; i++) {
		dev->port[i].gid_tbl_len = 8 << gid_sz;
		dev->port[i].pkey_tbl_len = 128 << pkey_sz;
	}
	dev->ib_virt = !dev->roce && MLX5C_IB_CAP(dev, ib_virt);
	dev->has_smi = !dev->roce;
	if (!dev->ib_virt)
		return 0;
	out = mlx5c_ib_hca_vport_context(dev, 1);
	if (IS_ERR(out))
		return PTR_ERR(out);
	dev->has_smi = MLX5_GET(hca_vport_context, HCA_VPORT_CTX(out), has_smi);
	kfree(out);
	return 0;
}

static u16 mlx5c_ib_ext_speed(u8 ext)
{
	switch (ext) {
	case 1:
		return IB_SPEED_FDR;
	case 2:
		return IB_SPEED_EDR;
	case 4:
		return IB_SPEED_HDR;
	case 8:
		return IB_SPEED_NDR;
	default:
		return 0;
	}
}

/* PTYS oper width bits (1x, 2x, 4x, 8x, 12x) as ib_port_attr encodes them. */
static u8 mlx5c_ib_ptys_width(u16 w)
{
	if (w & BIT(4))
		return IB_WIDTH_12X;
	if (w & BIT(3))
		return IB_WIDTH_8X;
	if (w & BIT(2))
		return IB_WIDTH_4X;
	if (w & BIT(1))
		return IB_WIDTH_2X;
	return IB_WIDTH_1X;
}

/* An IB MTU in bytes (PMTU) as its enum; 0 for none. */
static enum ib_mtu mlx5c_ib_mtu_enum(u16 bytes)
{
	switch (bytes) {
	case 256:
		return IB_MTU_256;
	case 512:
		return IB_MTU_512;
	case 1024:
		return IB_MTU_1024;
	case 2048:
		return IB_MTU_2048;
	case 4096:
		return IB_MTU_4096;
	default:
		return 0;
	}
}

/*
 * ib_virt: the port as the vport context (state, LID, SM, mask, counters)
 * and the port registers (link, MTU, VLs) describe it.
 */
static int query_port_hca_vport(struct mlx5c_ib_dev *dev, u8 port,
				struct ib_port_attr *props)
{
	u32 ptys[MLX5_ST_SZ_DW(ptys_reg)] = {};
	u32 pmtu[MLX5_ST_SZ_DW(pmtu_reg)] = {};
	u32 pvlc[MLX5_ST_SZ_DW(pvlc_reg)] = {};
	void *out, *ctx;
	int err;

	out = mlx5c_ib_hca_vport_context(dev, port);
	if (IS_ERR(out))
		return PTR_ERR(out);
	ctx = HCA_VPORT_CTX(out);
	props->lid = MLX5_GET(hca_vport_context, ctx, lid);
	props->lmc = MLX5_GET(hca_vport_context, ctx, lmc);
	props->sm_lid = MLX5_GET(hca_vport_context, ctx, sm_lid);
	props->sm_sl = MLX5_GET(hca_vport_context, ctx, sm_sl);
	props->state = MLX5_GET(hca_vport_context, ctx, vport_state);
	props->phys_state = MLX5_GET(hca_vport_context, ctx, port_physical_state);
	props->port_cap_flags = MLX5_GET(hca_vport_context, ctx, cap_mask1);
	if (props->port_cap_flags & IB_PORT_CAP_MASK2_SUP)
		props->port_cap_flags2 = MLX5_GET(hca_vport_context, ctx, cap_mask2);
	props->bad_pkey_cntr = MLX5_GET(hca_vport_context, ctx, pkey_violation_counter);
	props->qkey_viol_cntr = MLX5_GET(hca_vport_context, ctx, qkey_violation_counter);
	props->subnet_timeout = MLX5_GET(hca_vport_context, ctx, subnet_timeout);
	props->init_type_reply = MLX5_GET(hca_vport_context, ctx, init_type_reply);
	kfree(out);

	MLX5_SET(ptys_reg, ptys, local_port, port);
	MLX5_SET(ptys_reg, ptys, proto_mask, MLX5C_PTYS_PROTO_IB);
	err = mlx5c_access_reg(dev->mdev, MLX5C_REG_PTYS, false, ptys, ptys, sizeof(ptys));
	if (err)
		return err;
	props->active_width = mlx5c_ib_ptys_width(MLX5_GET(ptys_reg, ptys, ib_link_width_oper));
	/* The PTYS protocol bits are the ib_port_attr speed bits. */
	props->active_speed = MLX5_GET(ptys_reg, ptys, ib_proto_oper);

	MLX5_SET(pmtu_reg, pmtu, local_port, port);
	err = mlx5c_access_reg(dev->mdev, MLX5C_REG_PMTU, false, pmtu, pmtu, sizeof(pmtu));
	if (err)
		return err;
	props->max_mtu = mlx5c_ib_mtu_enum(MLX5_GET(pmtu_reg, pmtu, max_mtu));
	props->active_mtu = mlx5c_ib_mtu_enum(MLX5_GET(pmtu_reg, pmtu, oper_mtu));

	MLX5_SET(pvlc_reg, pvlc, local_port, port);
	err = mlx5c_access_reg(dev->mdev, MLX5C_REG_PVLC, false, pvlc, pvlc, sizeof(pvlc));
	if (err)
		return err;
	/* VLCap: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14. */
	props->max_vl_num = MLX5_GET(pvlc_reg, pvlc, vl_hw_cap);
	return 0;
}

/**
 * mlx5c_ib_query_port() - port attributes from PortInfo
 * @ibdev: device
 * @port: port number
 * @props: attributes (out; zeroed by the caller)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_port(struct ib_device *ibdev, u32 port,
			struct ib_port_attr *props)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	u8 d[IB_SMP_DATA_SIZE];
	u16 speed;
	int err;

	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	if (dev->roce)
		return mlx5c_ib_query_port_eth(dev, port, props);
	if (dev->ib_virt) {
		err = query_port_hca_vport(dev, port, props);
		if (err)
			return err;
		goto tables;
	}
	err = mlx5c_ib_mad_get(dev, port, IB_SMP_ATTR_PORT_INFO, port, d);
	if (err)
		return err;

	props->subnet_prefix = get_unaligned_be64(d + PI_GID_PREFIX);
	props->lid = get_unaligned_be16(d + PI_LID);
	props->sm_lid = get_unaligned_be16(d + PI_SM_LID);
	props->port_cap_flags = get_unaligned_be32(d + PI_CAP_MASK);
	props->port_cap_flags2 = get_unaligned_be16(d + PI_CAP_MASK2);
	props->lmc = d[PI_LMC] & 7;
	props->state = d[PI_STATE] & 0xf;
	props->phys_state = d[PI_PHYS_STATE] >> 4;
	props->active_width = d[PI_WIDTH_ACTIVE] & 0xf;
	props->active_speed = d[PI_SPEED_ACTIVE] >> 4;
	if (props->port_cap_flags & IB_PORT_EXTENDED_SPEEDS_SUP) {
		speed = mlx5c_ib_ext_speed(d[PI_EXT_SPEED] >> 4);
		if (speed)
			props->active_speed = speed;
	}
	props->active_mtu = d[PI_MTU_SMSL] >> 4;
	props->sm_sl = d[PI_MTU_SMSL] & 0xf;
	props->max_mtu = d[PI_MTU_CAP] & 0xf;
	props->init_type_reply = d[PI_MTU_CAP] >> 4;
	props->max_vl_num = d[PI_VL_CAP] >> 4;
	props->bad_pkey_cntr = get_unaligned_be16(d + PI_PKEY_VIOL);
	props->qkey_viol_cntr = get_unaligned_be16(d + PI_QKEY_VIOL);
	props->subnet_timeout = d[PI_SUBNET_TO] & 0x1f;
tables:
	props->gid_tbl_len = dev->port[port - 1].gid_tbl_len;
	props->pkey_tbl_len = dev->port[port - 1].pkey_tbl_len;
	props->max_msg_sz = 1U << MLX5C_IB_CAP(dev, log_max_msg);

	/* A port the SM has not brought up reports MTU 0: keep it valid. */
	if (props->max_mtu < IB_MTU_256 || props->max_mtu > IB_MTU_4096)
		props->max_mtu = IB_MTU_4096;
	if (props->active_mtu < IB_MTU_256 || props->active_mtu > props->max_mtu)
		props->active_mtu = props->max_mtu;
	return 0;
}

#ifdef HAVE_QUERY_PORT_SPEED
/**
 * mlx5c_ib_query_port_speed() - the port's effective bandwidth
 * @ibdev: device
 * @port: port number
 * @speed: bandwidth in units of 100 Mb/s (out): width times lane speed of
 *	the active link, 0 while the port is down
 *
 * What ibv_query_port_speed returns (rdma-core 65's ibv_devinfo prints it
 * as effective_speed). Taken from the port attributes on both link layers:
 * the firmware's per-vport transmit limit (QUERY_VPORT_STATE max_tx_speed),
 * which the in-tree driver prefers on Ethernet ports when it is non-zero,
 * is 0 ("not reported") on the emulator, and there is no LAG.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_port_speed(struct ib_device *ibdev, u32 port, u64 *speed)
{
	struct ib_port_speed_info info;
	struct ib_port_attr pa = {};
	int err = mlx5c_ib_query_port(ibdev, port, &pa);

	if (!err && pa.state != IB_PORT_DOWN)
		err = ib_port_attr_to_speed_info(&pa, &info);
	if (err)
		return err;
	*speed = pa.state == IB_PORT_DOWN ? 0 : info.rate;
	return 0;
}
#endif

/**
 * mlx5c_ib_port_immutable() - what ib_core caches per port at registration
 * @ibdev: device
 * @port: port number
 * @imm: immutable attributes (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *imm)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);

	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	imm->pkey_tbl_len = dev->port[port - 1].pkey_tbl_len;
	imm->gid_tbl_len = dev->port[port - 1].gid_tbl_len;
	imm->core_cap_flags = dev->roce ? mlx5c_ib_roce_port_caps(dev) :
					  RDMA_CORE_PORT_IBA_IB;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer mlx5c_ib_link_layer(struct ib_device *ibdev, u32 port)
{
	return to_mdev(ibdev)->roce ? IB_LINK_LAYER_ETHERNET :
				      IB_LINK_LAYER_INFINIBAND;
}

/**
 * mlx5c_ib_query_gid() - one entry of a port's GID table
 * @ibdev: device
 * @port: port number
 * @index: GID index
 * @gid: the GID (out; all zero for an empty entry)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);

	if (port < 1 || port > dev->num_ports || index < 0 ||
	    index >= dev->port[port - 1].gid_tbl_len)
		return -EINVAL;
	if (dev->roce)
		return mlx5c_ib_roce_query_gid(dev, port, index, gid);
	BUILD_BUG_ON(sizeof(gid->raw) != 16);
	return mlx5c_vport_query_hca_gid(dev->mdev, port, 0, false, index, gid->raw);
}

/**
 * mlx5c_ib_query_pkey() - one entry of a port's P_Key table
 * @ibdev: device
 * @port: port number
 * @index: P_Key index
 * @pkey: the P_Key (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			u16 *pkey)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);

	if (port < 1 || port > dev->num_ports ||
	    index >= dev->port[port - 1].pkey_tbl_len)
		return -EINVAL;
	/* RoCE has no partitions: one entry, the full default P_Key. */
	if (dev->roce) {
		*pkey = 0xffff;
		return 0;
	}
	return mlx5c_vport_query_hca_pkey(dev->mdev, port, 0, false, index, pkey);
}

/*
 * ib_virt: the vport's mask, within the bits the firmware lets this
 * function change (QUERY_HCA_VPORT_CONTEXT's cap_mask1_field_select): a
 * VF may say IsCM, it may not claim IsSM.
 */
static int modify_port_hca_vport(struct mlx5c_ib_dev *dev, u8 port,
				 struct ib_port_modify *props)
{
	u32 change = props->set_port_cap_mask | props->clr_port_cap_mask;
	int inlen = MLX5_ST_SZ_BYTES(modify_hca_vport_context_in);
	void *in, *ctx;
	u32 perm;
	int err;

	if (!change)
		return 0;
	ctx = mlx5c_ib_hca_vport_context(dev, port);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	perm = MLX5_GET(hca_vport_context, HCA_VPORT_CTX(ctx), cap_mask1_field_select);
	kfree(ctx);
	if (change & ~perm) {
		dev_dbg(&dev->adev->dev,
			"port %u: capability bits 0x%x are not this vport's to change (0x%x are)\n",
			port, change & ~perm, perm);
		return -EINVAL;
	}
	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	ctx = MLX5_ADDR_OF(modify_hca_vport_context_in, in, hca_vport_context);
	MLX5_SET(hca_vport_context, ctx, cap_mask1,
		 props->set_port_cap_mask & ~props->clr_port_cap_mask);
	MLX5_SET(hca_vport_context, ctx, cap_mask1_field_select, change);
	err = mlx5c_vport_modify_hca(dev->mdev, port, 0, false, in, inlen);
	kfree(in);
	return err;
}

/**
 * mlx5c_ib_modify_port() - change the capability mask of a port
 * @ibdev: device
 * @port: port number
 * @mask: IB_PORT_* modify flags; only the capability mask is supported
 * @props: bits to set and clear
 *
 * The PortInfo CapabilityMask belongs to the firmware's agent: the new
 * mask (what PortInfo reports, with @props applied) is written to the
 * PCAP register, so that the subnet manager and every remote query see
 * it (IsSM while opensm holds the port, IsCM from ib_cm). With ib_virt
 * the vport's mask changes instead, within what the firmware allows. On
 * an Ethernet port there is no such mask: nothing to do (ib_cm calls this
 * on every port).
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			 struct ib_port_modify *props)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	u32 reg[MLX5_ST_SZ_DW(pcap_reg)] = {};
	struct ib_port_attr attr = {};
	u32 caps;
	int err;

	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	if (mask & (IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE |
		    IB_PORT_RESET_QKEY_CNTR))
		return -EOPNOTSUPP;
	if (mlx5c_ib_link_layer(ibdev, port) != IB_LINK_LAYER_INFINIBAND)
		return 0;
	if (dev->ib_virt)
		return modify_port_hca_vport(dev, port, props);
	/* Serialises the read-modify-write of the mask. */
	mutex_lock(&dev->cap_mask_mutex);
	err = mlx5c_ib_query_port(ibdev, port, &attr);
	if (err)
		goto out;
	caps = (attr.port_cap_flags | props->set_port_cap_mask) &
	       ~props->clr_port_cap_mask;
	MLX5_SET(pcap_reg, reg, local_port, port);
	MLX5_SET(pcap_reg, reg, port_capability_mask[0], caps);
	err = mlx5c_access_reg(dev->mdev, MLX5C_REG_PCAP, true, reg, NULL,
			       sizeof(reg));
out:
	mutex_unlock(&dev->cap_mask_mutex);
	return err;
}

/**
 * mlx5c_ib_modify_device() - change the node description
 * @ibdev: device
 * @mask: IB_DEVICE_MODIFY_NODE_DESC only
 * @props: the new description
 *
 * rdma-ndd (or a write to sysfs node_desc) sets it: the firmware gets it
 * through the NODE_DESC register, so that its agent answers remote
 * NodeDescription queries with it (smpquery nodedesc, the SM's
 * topology), and ib_core keeps the copy local queries read.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_modify_device(struct ib_device *ibdev, int mask,
			   struct ib_device_modify *props)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	u8 desc[IB_DEVICE_NODE_DESC_MAX];
	int err;

	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (!(mask & IB_DEVICE_MODIFY_NODE_DESC))
		return 0;
	BUILD_BUG_ON(sizeof(desc) != IB_SMP_DATA_SIZE);
	memcpy(desc, props->node_desc, sizeof(desc));
	err = mlx5c_access_reg(dev->mdev, MLX5C_REG_NODE_DESC, true, desc, NULL,
			       sizeof(desc));
	if (err)
		return err;
	memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}
