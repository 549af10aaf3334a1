// SPDX-License-Identifier: GPL-2.0
/*
 * The flow-table commands, for every table the driver programs: the
 * netdev's NIC receive table (en/fs.c) and the legacy e-switch's FDB and
 * vport ACLs (eswitch/). A struct mlx5c_ft_ns names the tables a command
 * is about: their type and, for an ACL, whose vport; the callers build
 * the match criteria and values (fte_match_param) and say which
 * destinations a rule has.
 */
#include <linux/slab.h>

#include "mlx5_core.h"

/* One destination entry of a flow context: type in the top byte, id below. */
#define FT_DEST_SIZE	8

#define FT_SET_NS(cmd, in, ns) do {						\
	MLX5_SET(cmd, in, table_type, (ns)->type);				\
	MLX5_SET(cmd, in, other_vport, (ns)->other);				\
	MLX5_SET(cmd, in, vport_number, (ns)->other ? (ns)->vport : 0);		\
} while (0)

/**
 * mlx5c_ft_create() - create a flow table (CREATE_FLOW_TABLE)
 * @mdev: core device
 * @ns: whose tables
 * @level: its level in the namespace
 * @log_size: log2 of its flow entries
 * @id: the table id (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ft_create(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u8 level,
		    u8 log_size, u32 *id)
{
	u32 out[MLX5_ST_SZ_DW(create_flow_table_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_flow_table_in)] = {};
	int err;

	MLX5_SET(create_flow_table_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
	FT_SET_NS(create_flow_table_in, in, ns);
	MLX5_SET(create_flow_table_in, in, flow_table_context.level, level);
	MLX5_SET(create_flow_table_in, in, flow_table_context.log_size, log_size);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*id = MLX5_GET(create_flow_table_out, out, table_id);
	return err;
}

/**
 * mlx5c_ft_destroy() - destroy a flow table (DESTROY_FLOW_TABLE)
 * @mdev: core device
 * @ns: whose tables
 * @id: the table
 */
void mlx5c_ft_destroy(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 id)
{
	u32 out[MLX5_ST_SZ_DW(destroy_flow_table_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_flow_table_in)] = {};

	MLX5_SET(destroy_flow_table_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
	FT_SET_NS(destroy_flow_table_in, in, ns);
	MLX5_SET(destroy_flow_table_in, in, table_id, id);
	mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_ft_set_root() - make a table the namespace's root, or none
 *	(SET_FLOW_TABLE_ROOT)
 * @mdev: core device
 * @ns: whose tables
 * @id: the table, 0 to disconnect the root
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ft_set_root(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 id)
{
	u32 out[MLX5_ST_SZ_DW(set_flow_table_root_out)] = {};
	u32 in[MLX5_ST_SZ_DW(set_flow_table_root_in)] = {};

	MLX5_SET(set_flow_table_root_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	MLX5_SET(set_flow_table_root_in, in, op_mod, id ? 0 : 1);
	FT_SET_NS(set_flow_table_root_in, in, ns);
	MLX5_SET(set_flow_table_root_in, in, table_id, id);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_fg_create() - create a flow group (CREATE_FLOW_GROUP)
 * @mdev: core device
 * @ns: whose tables
 * @table: the table
 * @start: its first flow index
 * @end: its last flow index
 * @enable: match_criteria_enable (MLX5C_MATCH_*)
 * @criteria: an fte_match_param of the bits matched, or NULL (none)
 * @id: the group id (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_fg_create(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table,
		    u32 start, u32 end, u8 enable, const void *criteria, u32 *id)
{
	u32 out[MLX5_ST_SZ_DW(create_flow_group_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(create_flow_group_in);
	void *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
	FT_SET_NS(create_flow_group_in, in, ns);
	MLX5_SET(create_flow_group_in, in, table_id, table);
	MLX5_SET(create_flow_group_in, in, start_flow_index, start);
	MLX5_SET(create_flow_group_in, in, end_flow_index, end);
	if (criteria) {
		MLX5_SET(create_flow_group_in, in, match_criteria_enable, enable);
		memcpy(MLX5_ADDR_OF(create_flow_group_in, in, match_criteria), criteria,
		       MLX5_ST_SZ_BYTES(fte_match_param));
	}
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	if (!err)
		*id = MLX5_GET(create_flow_group_out, out, group_id);
	kvfree(in);
	return err;
}

/**
 * mlx5c_fg_destroy() - destroy a flow group (DESTROY_FLOW_GROUP)
 * @mdev: core device
 * @ns: whose tables
 * @table: the table
 * @id: the group
 */
void mlx5c_fg_destroy(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table, u32 id)
{
	u32 out[MLX5_ST_SZ_DW(destroy_flow_group_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_flow_group_in)] = {};

	MLX5_SET(destroy_flow_group_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_GROUP);
	FT_SET_NS(destroy_flow_group_in, in, ns);
	MLX5_SET(destroy_flow_group_in, in, table_id, table);
	MLX5_SET(destroy_flow_group_in, in, group_id, id);
	mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_fte_set() - set a flow entry (SET_FLOW_TABLE_ENTRY)
 * @mdev: core device
 * @ns: whose tables
 * @table: the table
 * @fte: the entry: index, group, action, match value, destinations
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_fte_set(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table,
		  const struct mlx5c_fte *fte)
{
	u32 out[MLX5_ST_SZ_DW(set_fte_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(set_fte_in) + fte->ndest * FT_DEST_SIZE;
	void *in, *fc;
	__be32 *dest;
	int err, i;

	if (fte->ndest > MLX5C_FTE_MAX_DEST)
		return -EINVAL;
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	FT_SET_NS(set_fte_in, in, ns);
	MLX5_SET(set_fte_in, in, table_id, table);
	MLX5_SET(set_fte_in, in, flow_index, fte->index);
	fc = MLX5_ADDR_OF(set_fte_in, in, flow_context);
	MLX5_SET(flow_context, fc, group_id, fte->group);
	MLX5_SET(flow_context, fc, action, fte->action);
	MLX5_SET(flow_context, fc, destination_list_size, fte->ndest);
	if (fte->match)
		memcpy(MLX5_ADDR_OF(flow_context, fc, match_value), fte->match,
		       MLX5_ST_SZ_BYTES(fte_match_param));
	/* The destination layout's name differs by kernel: build it by hand. */
	dest = MLX5_ADDR_OF(flow_context, fc, destination);
	for (i = 0; i < fte->ndest; i++)
		dest[2 * i] = cpu_to_be32(fte->dest[i].type << 24 | fte->dest[i].id);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	return err;
}

/**
 * mlx5c_fte_del() - delete a flow entry (DELETE_FLOW_TABLE_ENTRY)
 * @mdev: core device
 * @ns: whose tables
 * @table: the table
 * @index: the entry's flow index
 */
void mlx5c_fte_del(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table, u32 index)
{
	u32 out[MLX5_ST_SZ_DW(delete_fte_out)] = {};
	u32 in[MLX5_ST_SZ_DW(delete_fte_in)] = {};

	MLX5_SET(delete_fte_in, in, opcode, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
	FT_SET_NS(delete_fte_in, in, ns);
	MLX5_SET(delete_fte_in, in, table_id, table);
	MLX5_SET(delete_fte_in, in, flow_index, index);
	mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}
