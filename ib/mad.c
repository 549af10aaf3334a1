// SPDX-License-Identifier: GPL-2.0
/*
 * Management datagrams that the MAD layer offers the driver before its
 * agents see them (process_mad). Subnet management packets for the local
 * port belong to the firmware's subnet management agent, performance
 * management ones to its performance management agent: both go through
 * MAD_IFC and the firmware's answer is the reply. Every other MAD is left
 * to the agents registered with the MAD layer.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "mlx5_ib.h"

/* op_mod of MAD_IFC: skip the agent's M_Key and B_Key checks. */
#define MLX5C_MAD_IFC_IGNORE_MKEY	BIT(0)
#define MLX5C_MAD_IFC_IGNORE_BKEY	BIT(1)

/**
 * mlx5c_ib_mad_ifc() - hand a MAD to the firmware's agents (MAD_IFC)
 * @dev: device
 * @flags: IB_MAD_IGNORE_MKEY / IB_MAD_IGNORE_BKEY: skip the agent's check
 * @port: port number
 * @slid: source LID of a received MAD (0 for a local one)
 * @in_mad: the request
 * @out_mad: the agent's answer (out)
 *
 * The one place that builds MAD_IFC: process_mad for MADs from the wire
 * and the driver's own SMP queries (port.c). SMPs need the SMI: on a
 * function without it (ib_virt, has_smi 0) they are refused here.
 *
 * Return: 0 or a negative errno (the command failed or was refused: no
 * answer).
 */
int mlx5c_ib_mad_ifc(struct mlx5c_ib_dev *dev, int flags, u32 port, u16 slid,
		     const struct ib_mad *in_mad, struct ib_mad *out_mad)
{
	int outlen = MLX5_ST_SZ_BYTES(mad_ifc_out);
	int inlen = MLX5_ST_SZ_BYTES(mad_ifc_in);
	u16 op_mod = 0;
	void *in, *out;
	int err;

	/* Subnet management is not a function's without the SMI (a VF). */
	if (!dev->has_smi &&
	    (in_mad->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	     in_mad->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE))
		return -EPERM;
	in = kzalloc(inlen, GFP_KERNEL);
	out = kzalloc(outlen, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	if (flags & IB_MAD_IGNORE_MKEY)
		op_mod |= MLX5C_MAD_IFC_IGNORE_MKEY;
	if (flags & IB_MAD_IGNORE_BKEY)
		op_mod |= MLX5C_MAD_IFC_IGNORE_BKEY;
	MLX5_SET(mad_ifc_in, in, opcode, MLX5_CMD_OP_MAD_IFC);
	MLX5_SET(mad_ifc_in, in, op_mod, op_mod);
	MLX5_SET(mad_ifc_in, in, remote_lid, slid);
	MLX5_SET(mad_ifc_in, in, port, port);
	memcpy(MLX5_ADDR_OF(mad_ifc_in, in, mad), in_mad, sizeof(*in_mad));
	err = mlx5c_cmd_exec(dev->mdev, in, inlen, out, outlen);
	if (!err)
		memcpy(out_mad, MLX5_ADDR_OF(mad_ifc_out, out, response_mad_packet),
		       sizeof(*out_mad));
out:
	kfree(out);
	kfree(in);
	return err;
}

/**
 * mlx5c_ib_process_mad() - offer a MAD to the driver
 * @ibdev: device
 * @flags: IB_MAD_IGNORE_* flags
 * @port: port number
 * @in_wc: the receive completion (NULL for locally generated MADs)
 * @in_grh: unused
 * @in_mad: the MAD
 * @out_mad: the reply (out)
 * @out_mad_size: its size (in: room; out: used)
 * @out_mad_pkey_index: P_Key index of the reply (unchanged)
 *
 * Process context.
 *
 * Return: IB_MAD_RESULT_* flags: SUCCESS | REPLY when @out_mad answers
 * @in_mad, SUCCESS alone when the MAD layer should deliver the MAD to its
 * agents, FAILURE when the firmware could not be asked.
 */
int mlx5c_ib_process_mad(struct ib_device *ibdev, int flags, u32 port,
			 const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			 const struct ib_mad *in_mad, struct ib_mad *out_mad,
			 size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibdev);
	const struct ib_mad_hdr *hdr = &in_mad->mad_hdr;
	u16 slid = in_wc ? ib_lid_cpu16(in_wc->slid) : 0;

	if (*out_mad_size < sizeof(*out_mad) || port < 1 ||
	    port > dev->num_ports)
		return IB_MAD_RESULT_FAILURE;
	if (hdr->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED &&
	    hdr->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	    hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	if (hdr->method != IB_MGMT_METHOD_GET &&
	    hdr->method != IB_MGMT_METHOD_SET)
		return IB_MAD_RESULT_SUCCESS;
	/* An Ethernet port has no subnet manager and no SMA to ask. */
	if (dev->roce && hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	if (mlx5c_ib_mad_ifc(dev, flags, port, slid, in_mad, out_mad))
		return IB_MAD_RESULT_FAILURE;
	/*
	 * A firmware without a performance agent answers with an error
	 * status: no reply then, so that ib_core's counters read as
	 * unavailable instead of zero (the MAD layer answers a remote
	 * requester itself).
	 */
	if (hdr->mgmt_class == IB_MGMT_CLASS_PERF_MGMT &&
	    out_mad->mad_hdr.status)
		return IB_MAD_RESULT_FAILURE;
	/* The agent's answer, direction bit included for directed route. */
	*out_mad_size = sizeof(*out_mad);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
