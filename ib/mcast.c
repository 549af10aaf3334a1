// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups of UD QPs (IPoIB's broadcast and multicast groups, user
 * UD QPs through ibv_attach_mcast): ATTACH_TO_MCG and DETACH_FROM_MCG by
 * MGID. Offered only when the device reports multicast groups (max_qp_mcg).
 */
#include "mlx5_ib.h"

static int mlx5c_ib_mcg_cmd(struct ib_qp *ibqp, const union ib_gid *gid,
			    u16 opcode)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibqp->device);
	u32 out[MLX5_ST_SZ_DW(attach_to_mcg_out)] = {};
	u32 in[MLX5_ST_SZ_DW(attach_to_mcg_in)] = {};

	static_assert(MLX5_ST_SZ_BYTES(attach_to_mcg_in) ==
		      MLX5_ST_SZ_BYTES(detach_from_mcg_in));
	if (!MLX5C_IB_CAP(dev, max_qp_mcg))
		return -EOPNOTSUPP;
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	/* The two commands share one layout. */
	MLX5_SET(attach_to_mcg_in, in, opcode, opcode);
	MLX5_SET(attach_to_mcg_in, in, uid, mlx5c_ib_ctx_uid(to_mqp(ibqp)->ctx));
	MLX5_SET(attach_to_mcg_in, in, qpn, to_mqp(ibqp)->qpn);
	memcpy(MLX5_ADDR_OF(attach_to_mcg_in, in, multicast_gid), gid->raw,
	       sizeof(gid->raw));
	return mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_ib_attach_mcast() - attach a UD QP to a multicast group
 * @ibqp: QP
 * @gid: the group's MGID
 * @lid: the group's MLID (the device routes by MGID)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return mlx5c_ib_mcg_cmd(ibqp, gid, MLX5_CMD_OP_ATTACH_TO_MCG);
}

/**
 * mlx5c_ib_detach_mcast() - detach a UD QP from a multicast group
 * @ibqp: QP
 * @gid: the group's MGID
 * @lid: the group's MLID
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return mlx5c_ib_mcg_cmd(ibqp, gid, MLX5_CMD_OP_DETACH_FROM_MCG);
}
