// SPDX-License-Identifier: GPL-2.0
/*
 * The mlx5-specific ioctl methods and attributes that the mlx5 provider of
 * rdma-core calls through uverbs' object tree: the DV port query
 * (mlx5dv_query_port), the PD query that ibv_import_pd uses to learn the
 * PD number, and the driver response of UVERBS_METHOD_QUERY_CONTEXT, the
 * alloc_ucontext response again, which ibv_import_device needs to set up
 * a second context on the same file.
 */
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

#define UVERBS_MODULE_NAME mlx5c_ib
#include <rdma/uverbs_named_ioctl.h>

static int
UVERBS_HANDLER(MLX5_IB_METHOD_QUERY_PORT)(struct uverbs_attr_bundle *attrs)
{
	struct mlx5_ib_uapi_query_port info = {};
	struct ib_ucontext *uctx;
	u32 port;
	int err;

	uctx = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	err = uverbs_copy_from(&port, attrs, MLX5_IB_ATTR_QUERY_PORT_PORT_NUM);
	if (err)
		return err;
	if (!rdma_is_port_valid(uctx->device, port))
		return -EINVAL;
	/*
	 * The vport, e-switch and steering facts exist only in switchdev
	 * mode, which this driver has not: no flag is set.
	 */
	return uverbs_copy_to_struct_or_zero(attrs, MLX5_IB_ATTR_QUERY_PORT,
					     &info, sizeof(info));
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_QUERY_PORT,
	UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_QUERY_PORT_PORT_NUM,
			   UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_PORT,
			    UVERBS_ATTR_STRUCT(struct mlx5_ib_uapi_query_port,
					       reg_c0),
			    UA_MANDATORY));

ADD_UVERBS_METHODS(mlx5c_ib_device_methods, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(MLX5_IB_METHOD_QUERY_PORT));

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	mlx5c_ib_query_context_attrs, UVERBS_OBJECT_DEVICE,
	UVERBS_METHOD_QUERY_CONTEXT,
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
			    UVERBS_ATTR_STRUCT(struct mlx5_ib_alloc_ucontext_resp,
					       dump_fill_mkey),
			    UA_MANDATORY));

static int
UVERBS_HANDLER(MLX5_IB_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd;

	pd = uverbs_attr_get_obj(attrs, MLX5_IB_ATTR_QUERY_PD_HANDLE);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_QUERY_PD_RESP_PDN,
			      &to_mpd(pd)->pdn, sizeof(to_mpd(pd)->pdn));
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_PD_QUERY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_QUERY_PD_HANDLE, UVERBS_OBJECT_PD,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_PD_RESP_PDN,
			    UVERBS_ATTR_TYPE(u32), UA_MANDATORY));

ADD_UVERBS_METHODS(mlx5c_ib_pd_methods, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(MLX5_IB_METHOD_PD_QUERY));

/**
 * mlx5c_ib_query_ucontext() - the driver part of UVERBS_METHOD_QUERY_CONTEXT
 * @uctx: user context
 * @attrs: the method's attributes
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_ucontext(struct ib_ucontext *uctx,
			    struct uverbs_attr_bundle *attrs)
{
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	int len;

	len = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX);
	if (len < 0)
		return len;
	mlx5c_ib_ucontext_resp(to_mucontext(uctx), &resp);
	resp.response_length = min_t(size_t, len, sizeof(resp));
	return uverbs_copy_to_struct_or_zero(attrs,
					     MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
					     &resp, sizeof(resp));
}

const struct uapi_definition mlx5c_ib_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &mlx5c_ib_device_methods),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE,
				&mlx5c_ib_query_context_attrs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &mlx5c_ib_pd_methods),
	UAPI_DEF_CHAIN(mlx5c_ib_uar_defs),
	UAPI_DEF_CHAIN(mlx5c_ib_dm_defs),
	UAPI_DEF_CHAIN(mlx5c_ib_devx_defs),
	{}
};
