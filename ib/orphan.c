// SPDX-License-Identifier: GPL-2.0
/*
 * Objects the firmware refused to destroy.
 *
 * ib_core cannot keep a user object whose destroy callback fails: when the
 * process exits it retries, then WARNs and leaks the object. So a destroy
 * that the firmware answers with an error, on a device that is alive, still
 * frees the software object and returns 0 (one that fails because the
 * device is dead is simply done: the objects went with the device). What
 * the device may still use is kept here instead: the object's number, to
 * retry the command, and the pinned memory the device writes (a CQ ring,
 * the pages of an MR) or reads WQEs from (QP and SRQ rings). Doorbell
 * records are only read by the device and go with the user context.
 *
 * The callers took the object out of the event tables before sending the
 * destroy command, so events the device still posts for its number find
 * nothing and are dropped. At removal every command is retried, QPs first
 * and PDs last (the order in which objects refer to each other), and the
 * memory is released; mlx5_core then tears the function down.
 *
 * A CREATE whose outcome is unknown (it timed out, or the device failed
 * with it in flight) may have made an object whose number the driver never
 * learnt: nothing can destroy it before the function goes down. The memory
 * it names goes to mlx5_core's quarantine (core/quarantine.c), as does the
 * memory of an orphan whose destroy still fails at removal: mlx5_core frees
 * it once the device no longer masters the bus.
 */
#include <linux/slab.h>

#include "mlx5_ib.h"

/**
 * struct mlx5c_ib_orphan - an object the firmware still holds
 * @list: in the device's list
 * @kind: what it is
 * @num: its number (the memory key for an MKey, the uid for a user context)
 * @uid: the user context it was created in (0: the kernel's)
 * @umem: pinned memory the device may still access, or NULL
 * @kbuf: the kernel ring the device may still access (kernel queues)
 */
struct mlx5c_ib_orphan {
	struct list_head list;
	enum mlx5c_ib_obj kind;
	u32 num;
	u16 uid;
	struct ib_umem *umem;
	struct mlx5c_buf kbuf;
};

static const char *const mlx5c_ib_obj_names[MLX5C_IB_OBJ_NR] = {
	[MLX5C_IB_OBJ_QP] = "QP",
	[MLX5C_IB_OBJ_DCT] = "DCT",
	[MLX5C_IB_OBJ_SRQ] = "SRQ",
	[MLX5C_IB_OBJ_XRC_SRQ] = "XRC SRQ",
	[MLX5C_IB_OBJ_MKEY] = "MKey",
	[MLX5C_IB_OBJ_CQ] = "CQ",
	[MLX5C_IB_OBJ_PD] = "PD",
	[MLX5C_IB_OBJ_XRCD] = "XRCD",
	[MLX5C_IB_OBJ_UCTX] = "user context",
};

/* QPs, SRQs and CQs are destroyed with commands of one size. */
static_assert(MLX5_ST_SZ_BYTES(destroy_qp_in) == MLX5_ST_SZ_BYTES(destroy_cq_in));
static_assert(MLX5_ST_SZ_BYTES(destroy_srq_in) == MLX5_ST_SZ_BYTES(destroy_cq_in));
static_assert(MLX5_ST_SZ_BYTES(destroy_qp_out) == MLX5_ST_SZ_BYTES(destroy_cq_out));
static_assert(MLX5_ST_SZ_BYTES(destroy_srq_out) == MLX5_ST_SZ_BYTES(destroy_cq_out));
static_assert(MLX5_ST_SZ_BYTES(destroy_xrc_srq_in) == MLX5_ST_SZ_BYTES(destroy_cq_in));
static_assert(MLX5_ST_SZ_BYTES(destroy_xrc_srq_out) == MLX5_ST_SZ_BYTES(destroy_cq_out));
static_assert(MLX5_ST_SZ_BYTES(dealloc_xrcd_in) == MLX5_ST_SZ_BYTES(destroy_cq_in));
static_assert(MLX5_ST_SZ_BYTES(dealloc_xrcd_out) == MLX5_ST_SZ_BYTES(destroy_cq_out));
static_assert(MLX5_ST_SZ_BYTES(destroy_uctx_in) == MLX5_ST_SZ_BYTES(destroy_cq_in));
static_assert(MLX5_ST_SZ_BYTES(destroy_uctx_out) == MLX5_ST_SZ_BYTES(destroy_cq_out));
static_assert(MLX5_ST_SZ_BYTES(destroy_dct_in) == MLX5_ST_SZ_BYTES(destroy_cq_in));
static_assert(MLX5_ST_SZ_BYTES(destroy_dct_out) == MLX5_ST_SZ_BYTES(destroy_cq_out));

/**
 * mlx5c_ib_destroy_cmd() - send the firmware command that destroys an object
 * @dev: device
 * @kind: QP, DCT, SRQ, XRC SRQ, MKey, CQ, PD, XRCD or user context
 * @num: its number; for an MKey the memory key, for a user context its uid
 * @uid: the user context the object was created in (0: the kernel's)
 *
 * Return: 0 or the command's negative errno.
 */
int mlx5c_ib_destroy_cmd(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			 u32 num, u16 uid)
{
	u32 out[MLX5_ST_SZ_DW(destroy_cq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_cq_in)] = {};

	switch (kind) {
	case MLX5C_IB_OBJ_QP:
		MLX5_SET(destroy_qp_in, in, opcode, MLX5_CMD_OP_DESTROY_QP);
		MLX5_SET(destroy_qp_in, in, uid, uid);
		MLX5_SET(destroy_qp_in, in, qpn, num);
		break;
	case MLX5C_IB_OBJ_DCT:
		MLX5_SET(destroy_dct_in, in, opcode, MLX5_CMD_OP_DESTROY_DCT);
		MLX5_SET(destroy_dct_in, in, uid, uid);
		MLX5_SET(destroy_dct_in, in, dctn, num);
		break;
	case MLX5C_IB_OBJ_SRQ:
		MLX5_SET(destroy_srq_in, in, opcode, MLX5_CMD_OP_DESTROY_SRQ);
		MLX5_SET(destroy_srq_in, in, uid, uid);
		MLX5_SET(destroy_srq_in, in, srqn, num);
		break;
	case MLX5C_IB_OBJ_MKEY:
		return mlx5c_mkey_destroy(dev->mdev, uid, num);
	case MLX5C_IB_OBJ_CQ:
		MLX5_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
		MLX5_SET(destroy_cq_in, in, uid, uid);
		MLX5_SET(destroy_cq_in, in, cqn, num);
		break;
	case MLX5C_IB_OBJ_XRC_SRQ:
		MLX5_SET(destroy_xrc_srq_in, in, opcode,
			 MLX5_CMD_OP_DESTROY_XRC_SRQ);
		MLX5_SET(destroy_xrc_srq_in, in, uid, uid);
		MLX5_SET(destroy_xrc_srq_in, in, xrc_srqn, num);
		break;
	case MLX5C_IB_OBJ_PD:
		return mlx5c_pd_free(dev->mdev, uid, num);
	case MLX5C_IB_OBJ_XRCD:
		MLX5_SET(dealloc_xrcd_in, in, opcode, MLX5_CMD_OP_DEALLOC_XRCD);
		MLX5_SET(dealloc_xrcd_in, in, uid, uid);
		MLX5_SET(dealloc_xrcd_in, in, xrcd, num);
		break;
	case MLX5C_IB_OBJ_UCTX:
		MLX5_SET(destroy_uctx_in, in, opcode, MLX5_CMD_OP_DESTROY_UCTX);
		MLX5_SET(destroy_uctx_in, in, uid, num);
		break;
	default:
		return -EINVAL;
	}
	return mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
}

static void mlx5c_ib_keep(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			  u32 num, u16 uid, struct ib_umem **umem,
			  struct mlx5c_buf *kbuf, int err)
{
	struct mlx5c_ib_orphan *o;

	dev_err_ratelimited(&dev->adev->dev,
			    "firmware did not destroy %s 0x%x (%d): kept, with the memory the device may use, until removal\n",
			    mlx5c_ib_obj_names[kind], num, err);
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return;	/* the memory is released: the best left to do */
	o->kind = kind;
	o->num = num;
	o->uid = uid;
	if (umem) {
		o->umem = *umem;
		*umem = NULL;
	}
	if (kbuf) {
		o->kbuf = *kbuf;
		memset(kbuf, 0, sizeof(*kbuf));
	}
	mutex_lock(&dev->orphans_lock);
	list_add_tail(&o->list, &dev->orphans);
	mutex_unlock(&dev->orphans_lock);
}

/**
 * mlx5c_ib_orphan() - deal with the answer to a destroy command
 * @dev: device
 * @kind: what was destroyed
 * @num: its number
 * @uid: the user context it was created in (0: the kernel's)
 * @umem: the object's pinned memory the device may access (*@umem may be
 *	NULL); taken over, and set to NULL, when the object is kept
 * @err: what the destroy command returned
 *
 * Nothing to do when the command succeeded or the device is dead. Otherwise
 * the firmware still holds the object: keep it, with its memory, until the
 * device is removed.
 */
void mlx5c_ib_orphan(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind, u32 num,
		     u16 uid, struct ib_umem **umem, int err)
{
	if (err && !mlx5c_ib_gone(dev, err))
		mlx5c_ib_keep(dev, kind, num, uid, umem, NULL, err);
}

/**
 * mlx5c_ib_orphan_kbuf() - mlx5c_ib_orphan() for a queue in kernel memory
 *	(a kernel object: uid 0)
 * @dev: device
 * @kind: what was destroyed
 * @num: its number
 * @kbuf: the ring the device may still write; taken over, and zeroed, when
 *	the object is kept (mlx5c_buf_free() then has nothing to free)
 * @err: what the destroy command returned
 */
void mlx5c_ib_orphan_kbuf(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			  u32 num, struct mlx5c_buf *kbuf, int err)
{
	if (err && !mlx5c_ib_gone(dev, err))
		mlx5c_ib_keep(dev, kind, num, 0, NULL, kbuf, err);
}

/*
 * Hand memory the device may write to mlx5_core until the function is
 * down: the pages of @umem are held by mlx5_core (the caller still releases
 * @umem), the coherent pages of @kbuf are taken over (and @kbuf zeroed).
 */
static void mlx5c_ib_quarantine(struct mlx5c_ib_dev *dev, struct ib_umem *umem,
				struct mlx5c_buf *kbuf)
{
	if (umem)
		mlx5c_quarantine_sgt(dev->mdev, &umem->sgt_append.sgt);
	if (kbuf)
		mlx5c_buf_quarantine(dev->mdev, kbuf);
}

/**
 * mlx5c_ib_create_failed() - deal with a CREATE command that failed
 * @dev: device
 * @kind: what was created
 * @err: what the command returned
 * @umem: the user memory the command named, or NULL
 * @kbuf: the kernel ring the command named, or NULL; zeroed when taken
 *	over (mlx5c_buf_free() then has nothing to free)
 *
 * When the firmware may have run the command all the same, the memory goes
 * to the quarantine; the caller unwinds as for any other failure.
 */
void mlx5c_ib_create_failed(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			    int err, struct ib_umem *umem,
			    struct mlx5c_buf *kbuf)
{
	if (!mlx5c_cmd_maybe_ran(err))
		return;
	dev_warn_ratelimited(&dev->adev->dev,
			     "creating a %s failed with an unknown outcome (%d): its memory is kept until the function is down\n",
			     mlx5c_ib_obj_names[kind], err);
	mlx5c_ib_quarantine(dev, umem, kbuf);
}

/**
 * mlx5c_ib_destroy_obj() - destroy an object in the firmware, keeping it
 *	as an orphan when the firmware refuses
 * @dev: device
 * @kind: what to destroy
 * @num: its number
 * @uid: the user context it was created in (0: the kernel's)
 * @umem: as for mlx5c_ib_orphan(), may be NULL
 *
 * The caller frees the software object afterwards in every case.
 *
 * Return: what the destroy command returned.
 */
int mlx5c_ib_destroy_obj(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			 u32 num, u16 uid, struct ib_umem **umem)
{
	int err = mlx5c_ib_destroy_cmd(dev, kind, num, uid);

	mlx5c_ib_orphan(dev, kind, num, uid, umem, err);
	return err;
}

/**
 * mlx5c_ib_orphans_release() - retry the destroys the firmware refused
 * @dev: device, unregistered (no more user objects), not yet freed
 *
 * The orphans' memory is released; that of an object the firmware still
 * holds goes to mlx5_core's quarantine, freed once the function is down.
 */
void mlx5c_ib_orphans_release(struct mlx5c_ib_dev *dev)
{
	struct mlx5c_ib_orphan *o, *tmp;
	enum mlx5c_ib_obj kind;
	int err;

	mutex_lock(&dev->orphans_lock);
	for (kind = 0; kind < MLX5C_IB_OBJ_NR; kind++) {
		list_for_each_entry_safe(o, tmp, &dev->orphans, list) {
			if (o->kind != kind)
				continue;
			err = mlx5c_ib_destroy_cmd(dev, kind, o->num, o->uid);
			/*
			 * A firmware that let the user context go with the
			 * object still there takes no command of its uid:
			 * the kernel's (uid 0) then.
			 */
			if (err && o->uid && kind != MLX5C_IB_OBJ_UCTX &&
			    !mlx5c_ib_gone(dev, err))
				err = mlx5c_ib_destroy_cmd(dev, kind, o->num, 0);
			if (err && !mlx5c_ib_gone(dev, err)) {
				dev_err(&dev->adev->dev,
					"firmware still refuses to destroy %s 0x%x (%d); its memory is kept until the function is down\n",
					mlx5c_ib_obj_names[kind], o->num, err);
				mlx5c_ib_quarantine(dev, o->umem, &o->kbuf);
			} else
				dev_info(&dev->adev->dev, "%s 0x%x destroyed at removal\n",
					 mlx5c_ib_obj_names[kind], o->num);
			list_del(&o->list);
			ib_umem_release(o->umem);
			mlx5c_buf_free(dev->mdev, &o->kbuf);
			kfree(o);
		}
	}
	mutex_unlock(&dev->orphans_lock);
}
