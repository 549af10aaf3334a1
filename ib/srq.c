// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues, of user space or the kernel: a ring
 * of receive WQEs, each a 16-byte next segment followed by scatter
 * entries, plus a doorbell record holding the producer counter. The
 * kernel's WQEs form a free list through the next segments (wr.c posts
 * from its head, poll.c returns completed ones to its tail). An XRC SRQ
 * (user space only) is the same ring in an XRC domain, with a CQ of its
 * own, created and driven by the XRC_SRQ commands (see xrc.c).
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

#define MLX5C_IB_SRQ_NEXT_SEG	16
#define MLX5C_IB_SRQ_MIN_DESC	32
#define MLX5C_ARM_RQ_OP_MOD_SRQ	1
#define MLX5C_ARM_XRC_SRQ_OP_MOD	1

static u32 mlx5c_ib_srq_desc(u32 max_sge)
{
	u32 desc = MLX5C_IB_SRQ_NEXT_SEG + max_sge * MLX5C_IB_DATA_SEG;

	return max_t(u32, MLX5C_IB_SRQ_MIN_DESC, roundup_pow_of_two(desc));
}

static int mlx5c_ib_srq_create_cmd(struct mlx5c_ib_dev *dev,
				   struct mlx5c_ib_srq *srq, u32 desc,
				   dma_addr_t dbr, bool sig)
{
	u32 out[MLX5_ST_SZ_DW(create_srq_out)] = {};
	struct mlx5c_ib_qpages pages;
	void *in, *srqc;
	int inlen, err;

	err = mlx5c_ib_qpages_init(&pages, srq->umem, &srq->kbuf);
	if (err)
		return err;
	inlen = MLX5_ST_SZ_BYTES(create_srq_in) + pages.npas * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
	MLX5_SET(create_srq_in, in, uid, mlx5c_ib_ctx_uid(srq->ctx));
	srqc = MLX5_ADDR_OF(create_srq_in, in, srq_context_entry);
	MLX5_SET(srqc, srqc, log_srq_size, ilog2(srq->max));
	MLX5_SET(srqc, srqc, log_rq_stride, ilog2(desc) - ilog2(MLX5C_IB_DATA_SEG));
	MLX5_SET(srqc, srqc, wq_signature, sig);
	MLX5_SET(srqc, srqc, pd, to_mpd(srq->ibsrq.pd)->pdn);
	MLX5_SET(srqc, srqc, lwm, srq->limit);
	MLX5_SET(srqc, srqc, log_page_size, mlx5c_ib_qpages_log(&pages));
	MLX5_SET(srqc, srqc, page_offset, pages.page_offset);
	MLX5_SET64(srqc, srqc, dbr_addr, dbr);
	mlx5c_ib_qpages_fill(&pages, MLX5_ADDR_OF(create_srq_in, in, pas));

	err = mlx5c_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_SRQ, err, srq->umem, &srq->kbuf);
	if (!err)
		srq->srqn = MLX5_GET(create_srq_out, out, srqn);
	kvfree(in);
	return err;
}

/* CREATE_XRC_SRQ: the srqc layout, plus the domain, CQ and user index. */
static int mlx5c_ib_xrc_srq_create_cmd(struct mlx5c_ib_dev *dev,
				       struct mlx5c_ib_srq *srq, u32 desc,
				       struct ib_srq_init_attr *init, u32 uidx,
				       bool sig)
{
	u32 out[MLX5_ST_SZ_DW(create_xrc_srq_out)] = {};
	struct mlx5c_ib_qpages pages;
	void *in, *xsrqc;
	int inlen, err;

	err = mlx5c_ib_qpages_init(&pages, srq->umem, NULL);
	if (err)
		return err;
	inlen = MLX5_ST_SZ_BYTES(create_xrc_srq_in) +
		pages.npas * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_xrc_srq_in, in, opcode, MLX5_CMD_OP_CREATE_XRC_SRQ);
	MLX5_SET(create_xrc_srq_in, in, uid, mlx5c_ib_ctx_uid(srq->ctx));
	xsrqc = MLX5_ADDR_OF(create_xrc_srq_in, in, xrc_srq_context_entry);
	MLX5_SET(xrc_srqc, xsrqc, log_xrc_srq_size, ilog2(srq->max));
	MLX5_SET(xrc_srqc, xsrqc, log_rq_stride,
		 ilog2(desc) - ilog2(MLX5C_IB_DATA_SEG));
	MLX5_SET(xrc_srqc, xsrqc, wq_signature, sig);
	MLX5_SET(xrc_srqc, xsrqc, xrcd, to_mxrcd(init->ext.xrc.xrcd)->xrcdn);
	MLX5_SET(xrc_srqc, xsrqc, cqn, to_mcq(init->ext.cq)->mcq.cqn);
	MLX5_SET(xrc_srqc, xsrqc, pd, to_mpd(srq->ibsrq.pd)->pdn);
	MLX5_SET(xrc_srqc, xsrqc, user_index, uidx);
	MLX5_SET(xrc_srqc, xsrqc, lwm, srq->limit);
	MLX5_SET(xrc_srqc, xsrqc, log_page_size, mlx5c_ib_qpages_log(&pages));
	MLX5_SET(xrc_srqc, xsrqc, page_offset, pages.page_offset);
	MLX5_SET(xrc_srqc, xsrqc, db_record_addr_h, upper_32_bits(srq->db.dma));
	MLX5_SET(xrc_srqc, xsrqc, db_record_addr_l,
		 lower_32_bits(srq->db.dma) >> 2);
	mlx5c_ib_qpages_fill(&pages,
			     MLX5_ADDR_OF(create_xrc_srq_in, in, pas));

	err = mlx5c_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_XRC_SRQ, err, srq->umem, &srq->kbuf);
	if (!err)
		srq->srqn = MLX5_GET(create_xrc_srq_out, out, xrc_srqn);
	kvfree(in);
	return err;
}

static enum mlx5c_ib_obj mlx5c_ib_srq_kind(const struct mlx5c_ib_srq *srq)
{
	return srq->xrc ? MLX5C_IB_OBJ_XRC_SRQ : MLX5C_IB_OBJ_SRQ;
}

/*
 * A kernel SRQ: the WQEs form a free list through their next segments,
 * in ring order at first. The last free WQE is never posted, so the list
 * always has a tail to append completed WQEs to.
 */
static int mlx5c_ib_create_kernel_srq(struct mlx5c_ib_dev *dev,
				      struct mlx5c_ib_srq *srq, u32 desc)
{
	struct mlx5_wqe_srq_next_seg *next;
	u32 i;
	int err;

	spin_lock_init(&srq->lock);
	srq->shift = ilog2(desc);
	srq->wrid = kvcalloc(srq->max, sizeof(*srq->wrid), GFP_KERNEL);
	if (!srq->wrid)
		return -ENOMEM;
	err = mlx5c_buf_alloc(dev->mdev, (size_t)srq->max * desc,
			      MLX5C_BUF_DBR, &srq->kbuf);
	if (err)
		goto err_wrid;
	for (i = 0; i < srq->max; i++) {
		next = mlx5c_buf_at(&srq->kbuf, (size_t)i << srq->shift);
		next->next_wqe_index = cpu_to_be16((i + 1) & (srq->max - 1));
	}
	srq->head = 0;
	srq->tail = srq->max - 1;
	srq->counter = 0;
	err = mlx5c_ib_srq_create_cmd(dev, srq, desc, srq->kbuf.db_dma, false);
	if (err)
		goto err_buf;
	err = xa_insert_irq(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	mlx5c_ib_orphan_kbuf(dev, MLX5C_IB_OBJ_SRQ, srq->srqn, &srq->kbuf,
			     mlx5c_ib_destroy_cmd(dev, MLX5C_IB_OBJ_SRQ,
						  srq->srqn, 0));
err_buf:
	mlx5c_buf_free(dev->mdev, &srq->kbuf);
err_wrid:
	kvfree(srq->wrid);
	srq->wrid = NULL;
	return err;
}

/**
 * mlx5c_ib_srq_free_wqe() - return a completed WQE to a kernel SRQ
 * @srq: kernel SRQ, its lock held
 * @idx: the WQE's index
 */
void mlx5c_ib_srq_free_wqe(struct mlx5c_ib_srq *srq, u32 idx)
{
	struct mlx5_wqe_srq_next_seg *next;

	next = mlx5c_buf_at(&srq->kbuf, (size_t)srq->tail << srq->shift);
	next->next_wqe_index = cpu_to_be16(idx);
	srq->tail = idx;
}

/**
 * mlx5c_ib_create_srq() - create a user SRQ
 * @ibsrq: SRQ allocated by ib_core
 * @init: type (basic, or XRC with its domain and CQ), size, scatter
 *	entries, limit; the sizes are updated
 * @udata: struct mlx5_ib_create_srq in, struct mlx5_ib_create_srq_resp out;
 *	NULL for a kernel SRQ
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5c_ib_srq *srq = to_msrq(ibsrq);
	u32 max_sz = 1U << MLX5C_IB_CAP(dev, log_max_srq_sz);
	struct mlx5_ib_create_srq_resp resp = {};
	struct mlx5_ib_create_srq ucmd;
	struct mlx5c_ib_ucontext *ctx;
	u32 desc;
	int err;

	ctx = rdma_udata_to_drv_context(udata, struct mlx5c_ib_ucontext, ibuc);
	if (udata && !ctx)
		return -EOPNOTSUPP;
	switch (init->srq_type) {
	case IB_SRQT_BASIC:
		break;
	case IB_SRQT_XRC:
		if (!MLX5C_IB_CAP(dev, xrc) || !udata)
			return -EOPNOTSUPP;
		if (!init->ext.xrc.xrcd || !init->ext.cq)
			return -EINVAL;
		srq->xrc = true;
		break;
	default:
		return -EOPNOTSUPP;
	}
	/*
	 * No entries is one (the ring holds a power of two beyond max_wr);
	 * srq_limit means nothing at creation (ibv_create_srq(3)): the SRQ
	 * starts unarmed, as the in-tree driver's does.
	 */
	if (init->attr.max_wr >= max_sz)
		return -EINVAL;
	if (init->attr.max_sge >
	    (dev->max_rq_desc - MLX5C_IB_SRQ_NEXT_SEG) / MLX5C_IB_DATA_SEG)
		return -EINVAL;
	refcount_set(&srq->refcount, 1);
	init_completion(&srq->free);
	if (!udata) {
		desc = mlx5c_ib_srq_desc(init->attr.max_sge);
		srq->max = roundup_pow_of_two(init->attr.max_wr + 1);
		srq->max_gs = (desc - MLX5C_IB_SRQ_NEXT_SEG) / MLX5C_IB_DATA_SEG;
		srq->limit = 0;
		err = mlx5c_ib_create_kernel_srq(dev, srq, desc);
		if (err)
			return err;
		init->attr.max_wr = srq->max - 1;
		init->attr.max_sge = srq->max_gs;
		return 0;
	}

	err = mlx5c_ib_udata_in(udata, &ucmd, offsetofend(typeof(ucmd), flags),
				sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.flags & ~MLX5_SRQ_FLAG_SIGNATURE)
		return -EOPNOTSUPP;
	if (ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	if (ctx->cqe_version && ucmd.uidx > MLX5C_IB_DEFAULT_UIDX)
		return -EINVAL;
	if (!PAGE_ALIGNED(ucmd.buf_addr))
		return -EINVAL;

	desc = mlx5c_ib_srq_desc(init->attr.max_sge);
	srq->ctx = ctx;
	srq->max = roundup_pow_of_two(init->attr.max_wr + 1);
	srq->max_gs = (desc - MLX5C_IB_SRQ_NEXT_SEG) / MLX5C_IB_DATA_SEG;
	srq->limit = 0;

	srq->umem = mlx5c_umem_get(ibsrq->device, ucmd.buf_addr,
				   (size_t)srq->max * desc, 0);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);
	err = mlx5c_ib_db_map(ctx, ucmd.db_addr, &srq->db);
	if (err)
		goto err_umem;
	if (srq->xrc)
		err = mlx5c_ib_xrc_srq_create_cmd(dev, srq, desc, init,
						  ctx->cqe_version ? ucmd.uidx :
						  MLX5C_IB_DEFAULT_UIDX,
						  ucmd.flags & MLX5_SRQ_FLAG_SIGNATURE);
	else
		err = mlx5c_ib_srq_create_cmd(dev, srq, desc, srq->db.dma,
					      ucmd.flags & MLX5_SRQ_FLAG_SIGNATURE);
	if (err)
		goto err_db;
	err = xa_insert_irq(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	/* What uverbs returns as the SRQ number XRC senders name. */
	if (srq->xrc)
		ibsrq->ext.xrc.srq_num = srq->srqn;
	resp.srqn = srq->srqn;
	err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_xa;
	init->attr.max_wr = srq->max - 1;
	init->attr.max_sge = srq->max_gs;
	return 0;

err_xa:
	xa_erase_irq(&dev->srqs, srq->srqn);
err_destroy:
	mlx5c_ib_destroy_obj(dev, mlx5c_ib_srq_kind(srq), srq->srqn,
			     mlx5c_ib_ctx_uid(srq->ctx), &srq->umem);
err_db:
	mlx5c_ib_db_unmap(ctx, &srq->db);
err_umem:
	ib_umem_release(srq->umem);
	return err;
}

/**
 * mlx5c_ib_modify_srq() - arm the SRQ limit
 * @ibsrq: SRQ
 * @attr: attributes
 * @mask: IB_SRQ_LIMIT arms; IB_SRQ_MAX_WR (resizing) is refused
 * @udata: must carry no request
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5c_ib_srq *srq = to_msrq(ibsrq);
	u32 out[MLX5_ST_SZ_DW(arm_rq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(arm_rq_in)] = {};
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	/* As the in-tree driver: no resizing (EINVAL), other bits ignored. */
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= srq->max)
		return -EINVAL;

	if (srq->xrc) {
		static_assert(MLX5_ST_SZ_BYTES(arm_xrc_srq_in) <= sizeof(in));
		static_assert(MLX5_ST_SZ_BYTES(arm_xrc_srq_out) <= sizeof(out));
		MLX5_SET(arm_xrc_srq_in, in, opcode, MLX5_CMD_OP_ARM_XRC_SRQ);
		MLX5_SET(arm_xrc_srq_in, in, op_mod, MLX5C_ARM_XRC_SRQ_OP_MOD);
		MLX5_SET(arm_xrc_srq_in, in, uid, mlx5c_ib_ctx_uid(srq->ctx));
		MLX5_SET(arm_xrc_srq_in, in, xrc_srqn, srq->srqn);
		MLX5_SET(arm_xrc_srq_in, in, lwm, attr->srq_limit);
	} else {
		MLX5_SET(arm_rq_in, in, opcode, MLX5_CMD_OP_ARM_RQ);
		MLX5_SET(arm_rq_in, in, op_mod, MLX5C_ARM_RQ_OP_MOD_SRQ);
		MLX5_SET(arm_rq_in, in, uid, mlx5c_ib_ctx_uid(srq->ctx));
		MLX5_SET(arm_rq_in, in, srq_number, srq->srqn);
		MLX5_SET(arm_rq_in, in, lwm, attr->srq_limit);
	}
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, sizeof(out));
	if (!err)
		srq->limit = attr->srq_limit;
	return err;
}

/**
 * mlx5c_ib_query_srq() - SRQ attributes
 * @ibsrq: SRQ
 * @attr: attributes (out); the limit is read back from the device
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5c_ib_srq *srq = to_msrq(ibsrq);
	int outlen = max(MLX5_ST_SZ_BYTES(query_srq_out),
			 MLX5_ST_SZ_BYTES(query_xrc_srq_out));
	u32 in[MLX5_ST_SZ_DW(query_srq_in)] = {};
	void *out;
	int err;

	static_assert(MLX5_ST_SZ_BYTES(query_xrc_srq_in) == sizeof(in));
	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	if (srq->xrc) {
		MLX5_SET(query_xrc_srq_in, in, opcode,
			 MLX5_CMD_OP_QUERY_XRC_SRQ);
		MLX5_SET(query_xrc_srq_in, in, xrc_srqn, srq->srqn);
	} else {
		MLX5_SET(query_srq_in, in, opcode, MLX5_CMD_OP_QUERY_SRQ);
		MLX5_SET(query_srq_in, in, srqn, srq->srqn);
	}
	err = mlx5c_cmd_exec(dev->mdev, in, sizeof(in), out, outlen);
	if (!err) {
		attr->srq_limit = srq->xrc ?
			MLX5_GET(query_xrc_srq_out, out,
				 xrc_srq_context_entry.lwm) :
			MLX5_GET(query_srq_out, out, srq_context_entry.lwm);
		attr->max_wr = srq->max - 1;
		attr->max_sge = srq->max_gs;
	}
	kfree(out);
	return err;
}

/**
 * mlx5c_ib_destroy_srq() - destroy an SRQ
 * @ibsrq: SRQ
 * @udata: unused
 *
 * The SRQ leaves the event table first: events the device posts for its
 * SRQN from then on are dropped, whatever DESTROY_SRQ answers.
 *
 * Return: 0; an SRQ the firmware refuses to destroy is kept, with its
 * ring, as an orphan.
 */
int mlx5c_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibsrq->device);
	struct mlx5c_ib_srq *srq = to_msrq(ibsrq);

	xa_erase_irq(&dev->srqs, srq->srqn);
	if (!refcount_dec_and_test(&srq->refcount))
		wait_for_completion(&srq->free);
	if (!srq->ctx) {
		mlx5c_ib_orphan_kbuf(dev, MLX5C_IB_OBJ_SRQ, srq->srqn,
				     &srq->kbuf,
				     mlx5c_ib_destroy_cmd(dev, MLX5C_IB_OBJ_SRQ,
							  srq->srqn, 0));
		mlx5c_buf_free(dev->mdev, &srq->kbuf);
		kvfree(srq->wrid);
		return 0;
	}
	mlx5c_ib_destroy_obj(dev, mlx5c_ib_srq_kind(srq), srq->srqn,
			     mlx5c_ib_ctx_uid(srq->ctx), &srq->umem);
	mlx5c_ib_db_unmap(srq->ctx, &srq->db);
	ib_umem_release(srq->umem);
	return 0;
}

/**
 * mlx5c_ib_srq_event() - deliver an asynchronous SRQ event
 * @dev: device
 * @srqn: SRQ number from the EQE
 * @type: EQE type
 *
 * Atomic context.
 */
void mlx5c_ib_srq_event(struct mlx5c_ib_dev *dev, u32 srqn, int type)
{
	struct mlx5c_ib_srq *srq;
	struct ib_event ev;
	unsigned long flags;

	xa_lock_irqsave(&dev->srqs, flags);
	srq = xa_load(&dev->srqs, srqn);
	if (srq && !refcount_inc_not_zero(&srq->refcount))
		srq = NULL;
	xa_unlock_irqrestore(&dev->srqs, flags);
	if (!srq)
		return;

	ev.device = &dev->ib;
	ev.element.srq = &srq->ibsrq;
	ev.event = type == MLX5_EVENT_TYPE_SRQ_RQ_LIMIT ?
		   IB_EVENT_SRQ_LIMIT_REACHED : IB_EVENT_SRQ_ERR;
	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	if (refcount_dec_and_test(&srq->refcount))
		complete(&srq->free);
}
