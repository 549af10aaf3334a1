// SPDX-License-Identifier: GPL-2.0
/*
 * HCA capabilities: QUERY_HCA_CAP (current and maximum values per
 * capability type) and SET_HCA_CAP of the general and atomic capabilities.
 */
#include <linux/cache.h>
#include <linux/slab.h>

#include "mlx5_core.h"

/* The default profile's limit on log_max_qp. */
#define MLX5C_PROFILE_LOG_MAX_QP	18

#define MLX5C_CAP_SZ	MLX5_UN_SZ_BYTES(hca_cap_union)

static int query_cap(struct mlx5c_dev *mdev, unsigned int type, bool max,
		     void *dst)
{
	u32 in[MLX5_ST_SZ_DW(query_hca_cap_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(query_hca_cap_out);
	void *out;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	MLX5_SET(query_hca_cap_in, in, op_mod,
		 (type << 1) | (max ? HCA_CAP_OPMOD_GET_MAX : HCA_CAP_OPMOD_GET_CUR));
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, outlen);
	if (!err)
		memcpy(dst, MLX5_ADDR_OF(query_hca_cap_out, out, capability),
		       MLX5C_CAP_SZ);
	kfree(out);
	return err;
}

/**
 * mlx5c_caps_query() - read the current and maximum values of a capability
 * @mdev: core device
 * @type: capability type (MLX5_CAP_GENERAL, MLX5_CAP_ATOMIC, ...)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_caps_query(struct mlx5c_dev *mdev, unsigned int type)
{
	struct mlx5c_caps *caps = &mdev->caps;
	int err;

	if (type >= MLX5C_CAP_TYPES)
		return -EINVAL;
	if (!caps->cur[type]) {
		caps->cur[type] = kzalloc(MLX5C_CAP_SZ, GFP_KERNEL);
		if (!caps->cur[type])
			return -ENOMEM;
	}
	if (!caps->max[type]) {
		caps->max[type] = kzalloc(MLX5C_CAP_SZ, GFP_KERNEL);
		if (!caps->max[type])
			return -ENOMEM;
	}
	err = query_cap(mdev, type, false, caps->cur[type]);
	if (err)
		return err;
	return query_cap(mdev, type, true, caps->max[type]);
}

/**
 * mlx5c_caps_set_general() - choose the general capabilities the driver uses
 * @mdev: core device whose general capabilities were queried
 *
 * Writes the driver's choices (P_Key table size, QP limit, no command
 * checksums, UAR page size, cache line) with SET_HCA_CAP and re-reads the
 * current values.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_caps_set_general(struct mlx5c_dev *mdev)
{
	int inlen = MLX5_ST_SZ_BYTES(set_hca_cap_in);
	u32 out[MLX5_ST_SZ_DW(set_hca_cap_out)] = {};
	void *in, *cap;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cap = MLX5_ADDR_OF(set_hca_cap_in, in, capability);
	memcpy(cap, mdev->caps.cur[MLX5_CAP_GENERAL], MLX5C_CAP_SZ);

	/* 0 encodes the minimal table of 128 P_Keys. */
	MLX5_SET(cmd_hca_cap, cap, pkey_table_size, 0);
	MLX5_SET(cmd_hca_cap, cap, log_max_qp,
		 min_t(u32, MLX5C_PROFILE_LOG_MAX_QP,
		       MLX5C_CAP_GEN_MAX(mdev, log_max_qp)));
	MLX5_SET(cmd_hca_cap, cap, cmdif_checksum, 0);
	if (MLX5C_CAP_GEN_MAX(mdev, uar_4k) && MLX5_ADAPTER_PAGE_SIZE < PAGE_SIZE)
		MLX5_SET(cmd_hca_cap, cap, uar_4k, 1);
	MLX5_SET(cmd_hca_cap, cap, log_uar_page_sz, PAGE_SHIFT - MLX5_ADAPTER_PAGE_SHIFT);
	if (MLX5C_CAP_GEN_MAX(mdev, cache_line_128byte))
		MLX5_SET(cmd_hca_cap, cap, cache_line_128byte,
			 cache_line_size() >= 128 ? 1 : 0);

	MLX5_SET(set_hca_cap_in, in, opcode, MLX5_CMD_OP_SET_HCA_CAP);
	MLX5_SET(set_hca_cap_in, in, op_mod, MLX5_CAP_GENERAL << 1);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kfree(in);
	if (err)
		return err;
	return query_cap(mdev, MLX5_CAP_GENERAL, false,
			 mdev->caps.cur[MLX5_CAP_GENERAL]);
}

/**
 * mlx5c_caps_set_atomic() - 8-byte atomics on operands in host byte order
 * @mdev: core device before INIT_HCA
 *
 * Without this choice the device treats the 8-byte operands of CAS and
 * FETCH_ADD as big-endian, so that on a little-endian host the compare of
 * a CAS misses and FETCH_ADD adds to a byte-swapped value. When the device
 * supports it (atomic_req_8B_endianness_mode 1), select host endianness.
 * Devices without atomics or without the mode are left alone (mlx5_ib then
 * reports no atomic support on a little-endian host).
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_caps_set_atomic(struct mlx5c_dev *mdev)
{
	int inlen = MLX5_ST_SZ_BYTES(set_hca_cap_in);
	u32 out[MLX5_ST_SZ_DW(set_hca_cap_out)] = {};
	void *in, *cap;
	int err;

	if (!MLX5C_CAP_GEN(mdev, atomic))
		return 0;
	err = mlx5c_caps_query(mdev, MLX5_CAP_ATOMIC);
	if (err)
		return err;
	if (!MLX5_GET(atomic_caps, mdev->caps.max[MLX5_CAP_ATOMIC],
		      supported_atomic_req_8B_endianness_mode_1))
		return 0;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cap = MLX5_ADDR_OF(set_hca_cap_in, in, capability);
	memcpy(cap, mdev->caps.cur[MLX5_CAP_ATOMIC], MLX5C_CAP_SZ);
	MLX5_SET(atomic_caps, cap, atomic_req_8B_endianness_mode, 1);
	MLX5_SET(set_hca_cap_in, in, opcode, MLX5_CMD_OP_SET_HCA_CAP);
	MLX5_SET(set_hca_cap_in, in, op_mod, MLX5_CAP_ATOMIC << 1);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kfree(in);
	return err;
}

/**
 * mlx5c_caps_set_roce() - let software pick the RoCEv2 UDP source ports
 * @mdev: core device before INIT_HCA
 *
 * mlx5_ib derives each connection's UDP source port from its flow label
 * and writes it into the QP path and address vectors; the device uses
 * them only with sw_r_roce_src_udp_port set. Devices without RoCE or
 * without the choice are left alone.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_caps_set_roce(struct mlx5c_dev *mdev)
{
	int inlen = MLX5_ST_SZ_BYTES(set_hca_cap_in);
	u32 out[MLX5_ST_SZ_DW(set_hca_cap_out)] = {};
	void *in, *cap;
	int err;

	if (!MLX5C_CAP_GEN(mdev, roce))
		return 0;
	err = mlx5c_caps_query(mdev, MLX5_CAP_ROCE);
	if (err)
		return err;
	if (!MLX5_GET(roce_cap, mdev->caps.max[MLX5_CAP_ROCE],
		      sw_r_roce_src_udp_port))
		return 0;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cap = MLX5_ADDR_OF(set_hca_cap_in, in, capability);
	memcpy(cap, mdev->caps.cur[MLX5_CAP_ROCE], MLX5C_CAP_SZ);
	MLX5_SET(roce_cap, cap, sw_r_roce_src_udp_port, 1);
	MLX5_SET(set_hca_cap_in, in, opcode, MLX5_CMD_OP_SET_HCA_CAP);
	MLX5_SET(set_hca_cap_in, in, op_mod, MLX5_CAP_ROCE << 1);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kfree(in);
	return err;
}

/**
 * mlx5c_caps_query_optional() - read the capability types mlx5_ib uses
 * @mdev: core device after INIT_HCA
 *
 * Re-reads the general capabilities, then ODP, ATOMIC, ROCE, DEV_MEM, the
 * e-switch's (ESWITCH_FLOW_TABLE, ESWITCH) and GENERAL_2 when the general
 * capabilities advertise them.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_caps_query_optional(struct mlx5c_dev *mdev)
{
	int err;

	err = query_cap(mdev, MLX5_CAP_GENERAL, false,
			mdev->caps.cur[MLX5_CAP_GENERAL]);
	if (err)
		return err;
	if (MLX5C_CAP_GEN(mdev, pg)) {
		err = mlx5c_caps_query(mdev, MLX5_CAP_ODP);
		if (err)
			return err;
	}
	if (MLX5C_CAP_GEN(mdev, atomic)) {
		err = mlx5c_caps_query(mdev, MLX5_CAP_ATOMIC);
		if (err)
			return err;
	}
	if (MLX5C_CAP_GEN(mdev, roce)) {
		err = mlx5c_caps_query(mdev, MLX5_CAP_ROCE);
		if (err)
			return err;
	}
	if (MLX5C_CAP_GEN(mdev, device_memory)) {
		err = mlx5c_caps_query(mdev, MLX5_CAP_DEV_MEM);
		if (err)
			return err;
	}
	/* The legacy e-switch's table and VLAN capabilities (eswitch/). */
	if (MLX5C_CAP_GEN(mdev, eswitch_manager)) {
		err = mlx5c_caps_query(mdev, MLX5_CAP_ESWITCH_FLOW_TABLE);
		if (!err)
			err = mlx5c_caps_query(mdev, MLX5_CAP_ESWITCH);
		if (err)
			return err;
	}
	if (MLX5C_CAP_GEN_MAX(mdev, hca_cap_2)) {
		err = mlx5c_caps_query(mdev, MLX5_CAP_GENERAL_2);
		if (err)
			return err;
	}
	return 0;
}

/**
 * mlx5c_caps_free() - free every capability buffer
 * @mdev: core device
 */
void mlx5c_caps_free(struct mlx5c_dev *mdev)
{
	int i;

	for (i = 0; i < MLX5C_CAP_TYPES; i++) {
		kfree(mdev->caps.cur[i]);
		kfree(mdev->caps.max[i]);
		mdev->caps.cur[i] = NULL;
		mdev->caps.max[i] = NULL;
	}
}

/**
 * mlx5c_cap_general() - current general capabilities
 * @mdev: core device
 *
 * The buffer has the cmd_hca_cap layout of <linux/mlx5/mlx5_ifc.h>:
 * MLX5_GET(cmd_hca_cap, mlx5c_cap_general(mdev), log_max_cq) works.
 *
 * Return: the buffer, valid while the auxiliary device is bound.
 */
const void *mlx5c_cap_general(struct mlx5c_dev *mdev)
{
	return mdev->caps.cur[MLX5_CAP_GENERAL];
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cap_general, MLX5C_NS);

/**
 * mlx5c_hca_cap() - capabilities of one type
 * @mdev: core device
 * @type: capability type (MLX5_CAP_GENERAL, MLX5_CAP_ROCE, ...)
 * @max: the maximum values instead of the current ones
 *
 * Return: the buffer (layout of the type in hca_cap_union), or NULL when
 * the type was not queried because the device does not advertise it.
 */
const void *mlx5c_hca_cap(struct mlx5c_dev *mdev, unsigned int type, bool max)
{
	if (type >= MLX5C_CAP_TYPES)
		return NULL;
	return max ? mdev->caps.max[type] : mdev->caps.cur[type];
}
EXPORT_SYMBOL_NS_GPL(mlx5c_hca_cap, MLX5C_NS);
