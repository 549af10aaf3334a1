// SPDX-License-Identifier: GPL-2.0
/*
 * DEVX: firmware commands that a process builds itself.
 *
 * libmlx5 opens every context asking for DEVX (MLX5_IB_ALLOC_UCTX_DEVX)
 * and falls back without it. A DEVX context gets a user context of its own
 * in the firmware (CREATE_UCTX): a uid, which this file writes into the
 * header of every command the process sends, whatever the process put
 * there, so that the firmware sees whose command it is.
 *
 * What a process may send is a short list, checked here before the
 * firmware sees it:
 * - MLX5_IB_METHOD_DEVX_OTHER: queries of the function's own state
 *   (capabilities, its vport, GIDs, P_Keys, RoCE addresses), never of
 *   another function or vport. libmlx5 reads the capabilities at open.
 * - MLX5_IB_OBJECT_DEVX_OBJ: memory keys only (mlx5dv_create_mkey), and
 *   only keys that start free, with no translation entry, on a PD of the
 *   same context, not bound to a QP: the process fills them later through
 *   UMR work requests, with keys of its own. A key that names physical
 *   pages would give the process the machine's memory, so none is
 *   accepted (no DEVX umems either). QUERY_MKEY of the object's own key.
 *   A PD that a DEVX key names is busy (-EBUSY) until the key is gone.
 * Anything else is refused before it reaches the device.
 *
 * The objects go with their context: uverbs destroys them when the file
 * is closed or the device goes away, before the context, whose uid is
 * returned last (DESTROY_UCTX). A destroy the firmware refuses fails the
 * process's destroy, the object and its PD kept (devx_obj_destroy());
 * when the context goes it leaves an orphan (orphan.c), as for the verbs
 * objects, retried at removal with its uid (the kernel's, uid 0, if the
 * firmware let the user context go), before its PD and the user context.
 *
 * Objects the process makes through the verbs (PDs, CQs, QPs, SRQs, XRC
 * domains, memory keys, UARs) carry the uid too, from creation to
 * destroy, as in the in-tree driver: the firmware's uid isolation covers
 * them, and a DEVX key names a PD of the same uid.
 */
#include <linux/slab.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

#define UVERBS_MODULE_NAME mlx5c_ib
#include <rdma/uverbs_named_ioctl.h>

/**
 * struct mlx5c_ib_devx_obj - a firmware object a process created
 * @mkey: the memory key (index << 8 | mkey_7_0)
 * @pdn: the PD it belongs to
 */
struct mlx5c_ib_devx_obj {
	u32 mkey;
	u32 pdn;
};

/**
 * mlx5c_ib_devx_uctx_create() - a firmware user context for a process
 * @dev: device
 * @uid: its uid (out)
 *
 * Return: 0, -EOPNOTSUPP if the device has no user contexts, or the
 * command's negative errno.
 */
int mlx5c_ib_devx_uctx_create(struct mlx5c_ib_dev *dev, u16 *uid)
{
	u32 out[MLX5_ST_SZ_DW(create_uctx_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_uctx_in)] = {};
	int err;

	if (!MLX5C_IB_CAP(dev, log_max_uctx))
		return -EOPNOTSUPP;
	/* No capability bit: no raw packets, no device-internal resources. */
	MLX5_SET(create_uctx_in, in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (err)
		return err;
	*uid = MLX5_GET(create_uctx_out, out, uid);
	return 0;
}

/**
 * mlx5c_ib_devx_uctx_destroy() - return a process's uid to the firmware
 * @dev: device
 * @uid: the uid of mlx5c_ib_devx_uctx_create()
 */
void mlx5c_ib_devx_uctx_destroy(struct mlx5c_ib_dev *dev, u16 uid)
{
	/*
	 * Refused while objects of the uid the firmware would not destroy
	 * live on: then retried at removal, after them (orphan.c).
	 */
	mlx5c_ib_destroy_obj(dev, MLX5C_IB_OBJ_UCTX, uid, 0, NULL);
}

/* The calling process's context, if it was opened with DEVX. */
static struct mlx5c_ib_ucontext *devx_ctx(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *uctx = ib_uverbs_get_ucontext(attrs);

	if (IS_ERR(uctx))
		return ERR_CAST(uctx);
	if (!to_mucontext(uctx)->devx_uid)
		return ERR_PTR(-EINVAL);
	return to_mucontext(uctx);
}

/* Queries of the function's own state, the only commands of DEVX_OTHER. */
static bool devx_query_allowed(const void *in)
{
	switch (MLX5_GET(general_obj_in_cmd_hdr, in, opcode)) {
	case MLX5_CMD_OP_QUERY_HCA_CAP:
		return !MLX5_GET(query_hca_cap_in, in, other_function);
	case MLX5_CMD_OP_QUERY_VPORT_STATE:
		return !MLX5_GET(query_vport_state_in, in, other_vport);
	case MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
		return !MLX5_GET(query_nic_vport_context_in, in, other_vport);
	case MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT:
		return !MLX5_GET(query_hca_vport_context_in, in, other_vport);
	case MLX5_CMD_OP_QUERY_HCA_VPORT_GID:
		return !MLX5_GET(query_hca_vport_gid_in, in, other_vport);
	case MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY:
		return !MLX5_GET(query_hca_vport_pkey_in, in, other_vport);
	case MLX5_CMD_OP_QUERY_ROCE_ADDRESS:
		return true;
	default:
		return false;
	}
}

/* Send a process's command under its uid, without logging its failure. */
static int devx_exec(struct mlx5c_ib_ucontext *ctx, void *in, int inlen,
		     void *out, int outlen)
{
	struct mlx5c_ib_dev *dev = to_mdev(ctx->ibuc.device);

	MLX5_SET(general_obj_in_cmd_hdr, in, uid, ctx->devx_uid);
	return mlx5c_cmd_exec_quiet(dev->mdev, in, inlen, out, outlen);
}

/*
 * The output goes back to the process when the firmware answered, with a
 * failure status too: the status and syndrome are the process's to read.
 */
static int devx_answer(struct uverbs_attr_bundle *attrs, u16 out_attr,
		       const void *out, int outlen, int err)
{
	int cerr;

	if (err && !MLX5_GET(general_obj_out_cmd_hdr, out, status))
		return err;	/* no answer: nothing to give back */
	cerr = uverbs_copy_to(attrs, out_attr, out, outlen);
	return err ?: cerr;
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OTHER)(
	struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_ucontext *ctx = devx_ctx(attrs);
	int inlen, outlen;
	void *in, *out;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	in = uverbs_attr_get_alloced_ptr(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN);
	inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN);
	outlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT);
	if (IS_ERR(in) || inlen < 0 || outlen < 0)
		return -EINVAL;
	if (!devx_query_allowed(in))
		return -EINVAL;
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	return devx_answer(attrs, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, out, outlen,
			   devx_exec(ctx, in, inlen, out, outlen));
}

/*
 * A key the process may own: free until UMR fills it with its own keys,
 * nothing in the command that names memory, not bound to a QP, no address
 * translation service, no signature offload.
 */
static bool devx_mkey_allowed(const void *in, int inlen)
{
	const void *mkc = MLX5_ADDR_OF(create_mkey_in, in,
				       memory_key_mkey_entry);

	return inlen == MLX5_ST_SZ_BYTES(create_mkey_in) &&
	       !MLX5_GET(create_mkey_in, in, mkey_umem_valid) &&
	       !MLX5_GET(create_mkey_in, in, pg_access) &&
	       !MLX5_GET(create_mkey_in, in, translations_octword_actual_size) &&
	       MLX5_GET(mkc, mkc, access_mode_1_0) == MLX5_MKC_ACCESS_MODE_KLMS &&
	       !MLX5_GET(mkc, mkc, access_mode_4_2) &&
	       MLX5_GET(mkc, mkc, free) && MLX5_GET(mkc, mkc, umr_en) &&
	       MLX5_GET(mkc, mkc, qpn) == 0xffffff &&
	       !MLX5_GET(mkc, mkc, ma_translation_mode) &&
	       !MLX5_GET(mkc, mkc, bsf_en) &&
	       !MLX5_GET(mkc, mkc, bsf_octword_size);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_CREATE)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(
		attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
	struct mlx5c_ib_ucontext *ctx = devx_ctx(attrs);
	struct mlx5c_ib_devx_obj *obj;
	struct mlx5c_ib_dev *dev;
	struct mlx5c_ib_pd *pd;
	int inlen, outlen, err;
	void *in, *out;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	dev = to_mdev(ctx->ibuc.device);
	in = uverbs_attr_get_alloced_ptr(attrs,
					 MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN);
	inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN);
	outlen = uverbs_attr_get_len(attrs,
				     MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT);
	if (IS_ERR(in) || inlen < 0 || outlen < 0)
		return -EINVAL;
	if (MLX5_GET(general_obj_in_cmd_hdr, in, opcode) !=
	    MLX5_CMD_OP_CREATE_MKEY)
		return -EOPNOTSUPP;
	if (!devx_mkey_allowed(in, inlen) ||
	    outlen < MLX5_ST_SZ_BYTES(create_mkey_out))
		return -EINVAL;
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->pdn = MLX5_GET(create_mkey_in, in, memory_key_mkey_entry.pd);

	/* The PD cannot go while its key is made (mlx5c_ib_dealloc_pd()). */
	mutex_lock(&ctx->lock);
	pd = xa_load(&ctx->pds, obj->pdn);
	if (!pd) {
		mutex_unlock(&ctx->lock);
		kfree(obj);
		return -EINVAL;
	}
	err = devx_exec(ctx, in, inlen, out, outlen);
	if (err) {
		mutex_unlock(&ctx->lock);
		kfree(obj);
		if (mlx5c_cmd_maybe_ran(err))
			dev_warn_ratelimited(&dev->adev->dev,
					     "DEVX CREATE_MKEY of uid %u: %d, the key may exist until reset\n",
					     ctx->devx_uid, err);
		return devx_answer(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT,
				   out, outlen, err);
	}
	obj->mkey = MLX5_GET(create_mkey_out, out, mkey_index) << 8 |
		    MLX5_GET(create_mkey_in, in,
			     memory_key_mkey_entry.mkey_7_0);
	pd->devx_users++;
	mutex_unlock(&ctx->lock);
	/* From here a failure destroys the object (devx_obj_destroy()). */
	uobj->object = obj;
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
	return devx_answer(attrs, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out,
			   outlen, 0);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_DEVX_OBJ_QUERY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(
		attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE);
	struct mlx5c_ib_ucontext *ctx = devx_ctx(attrs);
	struct mlx5c_ib_devx_obj *obj = uobj->object;
	int inlen, outlen;
	void *in, *out;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	in = uverbs_attr_get_alloced_ptr(attrs,
					 MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN);
	inlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN);
	outlen = uverbs_attr_get_len(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT);
	if (IS_ERR(in) || inlen < 0 || outlen < 0)
		return -EINVAL;
	/* The object's own key, nothing else. */
	if (MLX5_GET(general_obj_in_cmd_hdr, in, opcode) !=
	    MLX5_CMD_OP_QUERY_MKEY ||
	    inlen < MLX5_ST_SZ_BYTES(query_mkey_in) ||
	    MLX5_GET(query_mkey_in, in, mkey_index) != obj->mkey >> 8 ||
	    MLX5_GET(query_mkey_in, in, pg_access))
		return -EINVAL;
	out = uverbs_zalloc(attrs, outlen);
	if (IS_ERR(out))
		return PTR_ERR(out);
	return devx_answer(attrs, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, out,
			   outlen, devx_exec(ctx, in, inlen, out, outlen));
}

/*
 * A key the firmware refuses to destroy still names its PD. On the
 * process's own destroy the error goes back and the object stays, its PD
 * busy: the process may try again, and closing the context does. When the
 * context goes (or the device) the object cannot stay: it becomes an
 * orphan, retried at removal with its uid, and its PD, counted in
 * devx_orphans, is kept as an orphan too when it is freed (pd.c), so that
 * DEALLOC_PD never comes before the key's destroy.
 */
static int devx_obj_destroy(struct ib_uobject *uobj,
			    enum rdma_remove_reason why,
			    struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_ucontext *ctx = to_mucontext(uobj->context);
	struct mlx5c_ib_dev *dev = to_mdev(ctx->ibuc.device);
	struct mlx5c_ib_devx_obj *obj = uobj->object;
	struct mlx5c_ib_pd *pd;
	bool kept;
	int err;

	mutex_lock(&ctx->lock);
	err = mlx5c_mkey_destroy(dev->mdev, ctx->devx_uid, obj->mkey);
	kept = err && !mlx5c_ib_gone(dev, err);
	if (kept && why == RDMA_REMOVE_DESTROY) {
		mutex_unlock(&ctx->lock);
		dev_err_ratelimited(&dev->adev->dev,
				    "firmware did not destroy DEVX MKey 0x%x of uid %u (%d): kept\n",
				    obj->mkey, ctx->devx_uid, err);
		return err;
	}
	mlx5c_ib_orphan(dev, MLX5C_IB_OBJ_MKEY, obj->mkey, ctx->devx_uid, NULL,
			err);
	pd = xa_load(&ctx->pds, obj->pdn);
	if (pd && pd->devx_users) {
		pd->devx_users--;
		if (kept)
			pd->devx_orphans++;
	}
	mutex_unlock(&ctx->lock);
	kfree(obj);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OTHER,
	UVERBS_ATTR_PTR_IN(
		MLX5_IB_ATTR_DEVX_OTHER_CMD_IN,
		UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr)),
		UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(
		MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT,
		UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_out_cmd_hdr)),
		UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OBJ_CREATE,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE,
			MLX5_IB_OBJECT_DEVX_OBJ, UVERBS_ACCESS_NEW,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(
		MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN,
		UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr)),
		UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(
		MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT,
		UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_out_cmd_hdr)),
		UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	MLX5_IB_METHOD_DEVX_OBJ_DESTROY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE,
			MLX5_IB_OBJECT_DEVX_OBJ, UVERBS_ACCESS_DESTROY,
			UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	MLX5_IB_METHOD_DEVX_OBJ_QUERY,
	UVERBS_ATTR_IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE,
			MLX5_IB_OBJECT_DEVX_OBJ, UVERBS_ACCESS_READ,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(
		MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN,
		UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_in_cmd_hdr)),
		UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_OUT(
		MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT,
		UVERBS_ATTR_MIN_SIZE(MLX5_ST_SZ_BYTES(general_obj_out_cmd_hdr)),
		UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(MLX5_IB_OBJECT_DEVX,
			      &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OTHER));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_DEVX_OBJ,
			    UVERBS_TYPE_ALLOC_IDR(devx_obj_destroy),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_CREATE),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_DESTROY),
			    &UVERBS_METHOD(MLX5_IB_METHOD_DEVX_OBJ_QUERY));

const struct uapi_definition mlx5c_ib_devx_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_DEVX_OBJ),
	{}
};
