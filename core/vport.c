// SPDX-License-Identifier: GPL-2.0
/*
 * The vport commands, for every caller (the netdev, mlx5_ib, and the
 * e-switch to come): the NIC and HCA vport contexts (query, modify, the
 * HCA vport's GIDs and P_Keys), the vport state and the vport counters.
 * Each takes the vport it is about: the function's own (@other false:
 * other_vport 0, vport_number 0, which is what a function that is no
 * e-switch manager may name) or, for an e-switch manager, another
 * function's (@other true, @vport its number). The callers fill in the
 * fields they select; these set the opcode and the vport.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>

#include "mlx5_core.h"

/* A query whose output is too large for the stack: the output (kfree() it) or an ERR_PTR. */
static void *vport_query(struct mlx5c_dev *mdev, const void *in, int inlen, int outlen)
{
	void *out = kzalloc(outlen, GFP_KERNEL);
	int err;

	if (!out)
		return ERR_PTR(-ENOMEM);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, outlen);
	if (err) {
		kfree(out);
		return ERR_PTR(err);
	}
	return out;
}

/**
 * mlx5c_vport_query_state() - the state of a vport (QUERY_VPORT_STATE)
 * @mdev: core device
 * @opmod: which state: MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT (what the
 *	function's vNIC sees, the e-switch manager's setting included),
 *	_ESW_VPORT or _UPLINK
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @state: VPORT_STATE_DOWN or VPORT_STATE_UP (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_query_state(struct mlx5c_dev *mdev, u8 opmod, u16 vport,
			    bool other, u8 *state)
{
	u32 out[MLX5_ST_SZ_DW(query_vport_state_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_vport_state_in)] = {};
	int err;

	MLX5_SET(query_vport_state_in, in, opcode, MLX5_CMD_OP_QUERY_VPORT_STATE);
	MLX5_SET(query_vport_state_in, in, op_mod, opmod);
	MLX5_SET(query_vport_state_in, in, other_vport, other);
	MLX5_SET(query_vport_state_in, in, vport_number, other ? vport : 0);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*state = MLX5_GET(query_vport_state_out, out, state);
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_state, MLX5C_NS);

/**
 * mlx5c_vport_query_nic() - a NIC vport context (QUERY_NIC_VPORT_CONTEXT)
 * @mdev: core device
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 *
 * Return: the command's output, a query_nic_vport_context_out whose
 * nic_vport_context is the context (kfree() it), or an ERR_PTR.
 */
void *mlx5c_vport_query_nic(struct mlx5c_dev *mdev, u16 vport, bool other)
{
	u32 in[MLX5_ST_SZ_DW(query_nic_vport_context_in)] = {};

	MLX5_SET(query_nic_vport_context_in, in, opcode, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	MLX5_SET(query_nic_vport_context_in, in, other_vport, other);
	MLX5_SET(query_nic_vport_context_in, in, vport_number, other ? vport : 0);
	return vport_query(mdev, in, sizeof(in), MLX5_ST_SZ_BYTES(query_nic_vport_context_out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_nic, MLX5C_NS);

/**
 * mlx5c_vport_query_mac() - the permanent MAC address of a NIC vport
 * @mdev: core device
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @mac: ETH_ALEN bytes (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_query_mac(struct mlx5c_dev *mdev, u16 vport, bool other, u8 *mac)
{
	void *out = mlx5c_vport_query_nic(mdev, vport, other);
	void *addr;

	if (IS_ERR(out))
		return PTR_ERR(out);
	addr = MLX5_ADDR_OF(query_nic_vport_context_out, out,
			    nic_vport_context.permanent_address);
	/* mac_addr_47_32 sits in the low half of the first dword. */
	ether_addr_copy(mac, addr + 2);
	kfree(out);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_mac, MLX5C_NS);

/**
 * mlx5c_vport_modify_nic() - change a NIC vport context
 *	(MODIFY_NIC_VPORT_CONTEXT)
 * @mdev: core device
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @in: a modify_nic_vport_context_in whose field_select and
 *	nic_vport_context the caller filled in; the opcode and the vport are
 *	set here
 * @inlen: its length (with the address list it carries, if any)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_modify_nic(struct mlx5c_dev *mdev, u16 vport, bool other,
			   void *in, int inlen)
{
	u32 out[MLX5_ST_SZ_DW(modify_nic_vport_context_out)] = {};

	MLX5_SET(modify_nic_vport_context_in, in, opcode, MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
	MLX5_SET(modify_nic_vport_context_in, in, other_vport, other);
	MLX5_SET(modify_nic_vport_context_in, in, vport_number, other ? vport : 0);
	return mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_modify_nic, MLX5C_NS);

/**
 * mlx5c_vport_query_counter() - the traffic counters of a vport
 *	(QUERY_VPORT_COUNTER)
 * @mdev: core device
 * @port: port number (0: the function's port)
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 *
 * Return: the command's output, a query_vport_counter_out of
 * traffic_counter fields (kfree() it), or an ERR_PTR.
 */
void *mlx5c_vport_query_counter(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other)
{
	u32 in[MLX5_ST_SZ_DW(query_vport_counter_in)] = {};

	MLX5_SET(query_vport_counter_in, in, opcode, MLX5_CMD_OP_QUERY_VPORT_COUNTER);
	MLX5_SET(query_vport_counter_in, in, port_num, port);
	MLX5_SET(query_vport_counter_in, in, other_vport, other);
	MLX5_SET(query_vport_counter_in, in, vport_number, other ? vport : 0);
	return vport_query(mdev, in, sizeof(in), MLX5_ST_SZ_BYTES(query_vport_counter_out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_counter, MLX5C_NS);

/**
 * mlx5c_vport_query_hca() - an HCA vport context (QUERY_HCA_VPORT_CONTEXT)
 * @mdev: core device
 * @port: port number
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 *
 * Return: the command's output, a query_hca_vport_context_out whose
 * hca_vport_context is the context (kfree() it), or an ERR_PTR.
 */
void *mlx5c_vport_query_hca(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other)
{
	u32 in[MLX5_ST_SZ_DW(query_hca_vport_context_in)] = {};

	MLX5_SET(query_hca_vport_context_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT);
	MLX5_SET(query_hca_vport_context_in, in, port_num, port);
	MLX5_SET(query_hca_vport_context_in, in, other_vport, other);
	MLX5_SET(query_hca_vport_context_in, in, vport_number, other ? vport : 0);
	return vport_query(mdev, in, sizeof(in), MLX5_ST_SZ_BYTES(query_hca_vport_context_out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_hca, MLX5C_NS);

/**
 * mlx5c_vport_modify_hca() - change an HCA vport context
 *	(MODIFY_HCA_VPORT_CONTEXT)
 * @mdev: core device
 * @port: port number
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @in: a modify_hca_vport_context_in whose hca_vport_context (field
 *	selects included) the caller filled in; the opcode, port and vport
 *	are set here
 * @inlen: its length
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_modify_hca(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other,
			   void *in, int inlen)
{
	u32 out[MLX5_ST_SZ_DW(modify_hca_vport_context_out)] = {};

	MLX5_SET(modify_hca_vport_context_in, in, opcode, MLX5_CMD_OP_MODIFY_HCA_VPORT_CONTEXT);
	MLX5_SET(modify_hca_vport_context_in, in, port_num, port);
	MLX5_SET(modify_hca_vport_context_in, in, other_vport, other);
	MLX5_SET(modify_hca_vport_context_in, in, vport_number, other ? vport : 0);
	return mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_modify_hca, MLX5C_NS);

/**
 * mlx5c_vport_query_hca_gid() - one GID of an HCA vport
 *	(QUERY_HCA_VPORT_GID)
 * @mdev: core device
 * @port: port number
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @index: GID index
 * @gid: 16 bytes (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_query_hca_gid(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other,
			      u16 index, u8 *gid)
{
	u32 in[MLX5_ST_SZ_DW(query_hca_vport_gid_in)] = {};
	void *out;

	MLX5_SET(query_hca_vport_gid_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_VPORT_GID);
	MLX5_SET(query_hca_vport_gid_in, in, port_num, port);
	MLX5_SET(query_hca_vport_gid_in, in, other_vport, other);
	MLX5_SET(query_hca_vport_gid_in, in, vport_number, other ? vport : 0);
	MLX5_SET(query_hca_vport_gid_in, in, gid_index, index);
	out = vport_query(mdev, in, sizeof(in), MLX5_ST_SZ_BYTES(query_hca_vport_gid_out) +
			  MLX5_ST_SZ_BYTES(array128_auto));
	if (IS_ERR(out))
		return PTR_ERR(out);
	memcpy(gid, MLX5_ADDR_OF(query_hca_vport_gid_out, out, gid), 16);
	kfree(out);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_hca_gid, MLX5C_NS);

/**
 * mlx5c_vport_query_hca_pkey() - one P_Key of an HCA vport
 *	(QUERY_HCA_VPORT_PKEY)
 * @mdev: core device
 * @port: port number
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @index: P_Key index
 * @pkey: the P_Key (out)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_query_hca_pkey(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other,
			       u16 index, u16 *pkey)
{
	u32 out[(MLX5_ST_SZ_BYTES(query_hca_vport_pkey_out) +
		 MLX5_ST_SZ_BYTES(pkey)) / 4] = {};
	u32 in[MLX5_ST_SZ_DW(query_hca_vport_pkey_in)] = {};
	int err;

	MLX5_SET(query_hca_vport_pkey_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY);
	MLX5_SET(query_hca_vport_pkey_in, in, port_num, port);
	MLX5_SET(query_hca_vport_pkey_in, in, other_vport, other);
	MLX5_SET(query_hca_vport_pkey_in, in, vport_number, other ? vport : 0);
	MLX5_SET(query_hca_vport_pkey_in, in, pkey_index, index);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		*pkey = MLX5_GET(pkey, MLX5_ADDR_OF(query_hca_vport_pkey_out, out, pkey), pkey);
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_vport_query_hca_pkey, MLX5C_NS);

/**
 * mlx5c_vport_modify_state() - set a vport's administrative state
 *	(MODIFY_VPORT_STATE)
 * @mdev: core device
 * @opmod: MLX5_VPORT_STATE_OP_MOD_ESW_VPORT for the e-switch manager on a
 *	VF's vport
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @admin: MLX5_VPORT_ADMIN_STATE_DOWN, _UP or _AUTO (follow the uplink)
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_vport_modify_state(struct mlx5c_dev *mdev, u8 opmod, u16 vport, bool other, u8 admin)
{
	u32 out[MLX5_ST_SZ_DW(modify_vport_state_out)] = {};
	u32 in[MLX5_ST_SZ_DW(modify_vport_state_in)] = {};

	MLX5_SET(modify_vport_state_in, in, opcode, MLX5_CMD_OP_MODIFY_VPORT_STATE);
	MLX5_SET(modify_vport_state_in, in, op_mod, opmod);
	MLX5_SET(modify_vport_state_in, in, other_vport, other);
	MLX5_SET(modify_vport_state_in, in, vport_number, other ? vport : 0);
	MLX5_SET(modify_vport_state_in, in, admin_state, admin);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/**
 * mlx5c_vport_query_nic_uc() - the unicast addresses a NIC vport lists
 * @mdev: core device
 * @vport: vport number, with @other
 * @other: another function's vport (an e-switch manager), else the own one
 * @addrs: room for @max addresses, ETH_ALEN bytes each (out)
 * @max: how many fit
 * @promisc: whether the vport asked for a unicast or full promiscuous mode
 *	(out)
 *
 * Return: the number of addresses (at most @max) or a negative errno.
 */
int mlx5c_vport_query_nic_uc(struct mlx5c_dev *mdev, u16 vport, bool other,
			     u8 *addrs, int max, bool *promisc)
{
	u32 in[MLX5_ST_SZ_DW(query_nic_vport_context_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(query_nic_vport_context_out) +
		     max * MLX5_ST_SZ_BYTES(mac_address_layout);
	void *out, *ctx, *e;
	int n, i;

	MLX5_SET(query_nic_vport_context_in, in, opcode, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	MLX5_SET(query_nic_vport_context_in, in, other_vport, other);
	MLX5_SET(query_nic_vport_context_in, in, vport_number, other ? vport : 0);
	MLX5_SET(query_nic_vport_context_in, in, allowed_list_type, MLX5_NVPRT_LIST_TYPE_UC);
	out = vport_query(mdev, in, sizeof(in), outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	ctx = MLX5_ADDR_OF(query_nic_vport_context_out, out, nic_vport_context);
	n = min_t(int, MLX5_GET(nic_vport_context, ctx, allowed_list_size), max);
	for (i = 0; i < n; i++) {
		e = MLX5_ADDR_OF(nic_vport_context, ctx, current_uc_mac_address[i]);
		ether_addr_copy(addrs + i * ETH_ALEN,
				MLX5_ADDR_OF(mac_address_layout, e, mac_addr_47_32));
	}
	*promisc = MLX5_GET(nic_vport_context, ctx, promisc_uc) ||
		   MLX5_GET(nic_vport_context, ctx, promisc_all);
	kfree(out);
	return n;
}
