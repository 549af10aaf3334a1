// SPDX-License-Identifier: GPL-2.0
/*
 * Thin wrappers around resource commands used by mlx5_ib: protection
 * domains and memory keys.
 */
#include "mlx5_core.h"

/**
 * mlx5c_pd_alloc() - allocate a protection domain
 * @mdev: core device
 * @uid: user id (0 for kernel use)
 * @pdn: the PD number (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_pd_alloc(struct mlx5c_dev *mdev, u16 uid, u32 *pdn)
{
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	int err;

	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	MLX5_SET(alloc_pd_in, in, uid, uid);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*pdn = MLX5_GET(alloc_pd_out, out, pd);
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_pd_alloc, MLX5C_NS);

/**
 * mlx5c_pd_free() - free a protection domain
 * @mdev: core device
 * @uid: user id it was allocated with
 * @pdn: PD number
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_pd_free(struct mlx5c_dev *mdev, u16 uid, u32 pdn)
{
	u32 out[MLX5_ST_SZ_DW(dealloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(dealloc_pd_in)] = {};

	MLX5_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	MLX5_SET(dealloc_pd_in, in, uid, uid);
	MLX5_SET(dealloc_pd_in, in, pd, pdn);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_pd_free, MLX5C_NS);

/**
 * mlx5c_mkey_create() - create a memory key
 * @mdev: core device
 * @in: CREATE_MKEY input built by the caller; the low byte of the key is
 *	the mkey_7_0 field of its context
 * @inlen: input length
 * @mkey: the memory key, index << 8 | mkey_7_0 (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_mkey_create(struct mlx5c_dev *mdev, void *in, int inlen, u32 *mkey)
{
	u32 out[MLX5_ST_SZ_DW(create_mkey_out)] = {};
	u32 key_7_0;
	int err;

	key_7_0 = MLX5_GET(create_mkey_in, in, memory_key_mkey_entry.mkey_7_0);
	MLX5_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	if (!err)
		*mkey = MLX5_GET(create_mkey_out, out, mkey_index) << 8 | key_7_0;
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_mkey_create, MLX5C_NS);

/**
 * mlx5c_mkey_destroy() - destroy a memory key
 * @mdev: core device
 * @uid: user id it was created with
 * @mkey: the memory key
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_mkey_destroy(struct mlx5c_dev *mdev, u16 uid, u32 mkey)
{
	u32 out[MLX5_ST_SZ_DW(destroy_mkey_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_mkey_in)] = {};

	MLX5_SET(destroy_mkey_in, in, opcode, MLX5_CMD_OP_DESTROY_MKEY);
	MLX5_SET(destroy_mkey_in, in, uid, uid);
	MLX5_SET(destroy_mkey_in, in, mkey_index, mkey >> 8);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_mkey_destroy, MLX5C_NS);
