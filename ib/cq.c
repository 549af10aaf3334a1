// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues. A user CQ's ring and doorbell record live in user
 * memory, and the provider polls and arms without the kernel; a kernel
 * CQ's live in kernel pages and are polled and armed by poll.c. The
 * kernel's part for both is CREATE_CQ and the delivery of completion
 * events: mlx5_core finds the CQ by CQN when its EQ reports one and calls
 * mlx5c_ib_cq_comp(), which calls ib_cq->comp_handler (the completion
 * channel of a user CQ, the consumer's handler of a kernel CQ).
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "mlx5_ib.h"

static void mlx5c_ib_cq_comp(struct mlx5c_cq *mcq)
{
	struct mlx5c_ib_cq *cq = container_of(mcq, struct mlx5c_ib_cq, mcq);
	struct ib_cq *ibcq = &cq->ibcq;

	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

static void mlx5c_ib_cq_event(struct mlx5c_cq *mcq, int type)
{
	struct mlx5c_ib_cq *cq = container_of(mcq, struct mlx5c_ib_cq, mcq);
	struct ib_cq *ibcq = &cq->ibcq;
	struct ib_event ev = {
		.device = ibcq->device,
		.event = IB_EVENT_CQ_ERR,
		.element.cq = ibcq,
	};

	if (type != MLX5_EVENT_TYPE_CQ_ERROR)
		return;
	dev_warn_ratelimited(&to_mdev(ibcq->device)->adev->dev,
			     "CQ 0x%x error event\n", mcq->cqn);
	if (ibcq->event_handler)
		ibcq->event_handler(&ev, ibcq->cq_context);
}

static int mlx5c_ib_cq_cmd(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq,
			   u32 uar, dma_addr_t dbr, u32 entries, u8 cqe_sz,
			   u32 vector)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	struct mlx5c_ib_qpages pages;
	void *in, *cqc;
	u32 eqn;
	int inlen, err;

	err = mlx5c_comp_eqn(dev->mdev, vector, &eqn);
	if (err)
		return err;
	err = mlx5c_ib_qpages_init(&pages, cq->umem, &cq->kbuf);
	if (err)
		return err;
	inlen = MLX5_ST_SZ_BYTES(create_cq_in) + pages.npas * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	/* mlx5_core keeps it for DESTROY_CQ (mcq.uid). */
	MLX5_SET(create_cq_in, in, uid, mlx5c_ib_ctx_uid(cq->ctx));
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, cqe_sz);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(entries));
	MLX5_SET(cqc, cqc, oi, cq->oi);
	MLX5_SET(cqc, cqc, uar_page, uar);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size, mlx5c_ib_qpages_log(&pages));
	MLX5_SET(cqc, cqc, page_offset, pages.page_offset);
	MLX5_SET64(cqc, cqc, dbr_addr, dbr);
	mlx5c_ib_qpages_fill(&pages, MLX5_ADDR_OF(create_cq_in, in, pas));

	cq->mcq.comp = mlx5c_ib_cq_comp;
	cq->mcq.event = mlx5c_ib_cq_event;
	err = mlx5c_cq_create(dev->mdev, &cq->mcq, in, inlen, out, sizeof(out));
	mlx5c_ib_create_failed(dev, MLX5C_IB_OBJ_CQ, err, cq->umem, &cq->kbuf);
	kvfree(in);
	return err;
}

/*
 * A kernel CQ: 64-byte CQEs in kernel pages, all marked invalid so that
 * polling finds nothing until the device writes the first one; arming
 * and send doorbells go through mlx5_core's kernel UAR.
 */
static int mlx5c_ib_create_kernel_cq(struct mlx5c_ib_dev *dev,
				     struct mlx5c_ib_cq *cq, u32 entries,
				     u32 vector)
{
	struct mlx5_cqe64 *cqe;
	u32 i;
	int err;

	cq->cqe_size = sizeof(*cqe);
	spin_lock_init(&cq->lock);
	cq->cons_index = 0;
	err = mlx5c_buf_alloc(dev->mdev, (size_t)entries * cq->cqe_size,
			      MLX5C_BUF_DBR, &cq->kbuf);
	if (err)
		return err;
	for (i = 0; i < entries; i++) {
		cqe = mlx5c_buf_at(&cq->kbuf, (size_t)i * cq->cqe_size);
		mlx5c_cqe_init(cqe);
	}
	err = mlx5c_ib_cq_cmd(dev, cq, dev->uar_index, cq->kbuf.db_dma, entries,
			      0, vector);
	if (err) {
		mlx5c_buf_free(dev->mdev, &cq->kbuf);
		return err;
	}
	mutex_lock(&dev->kcq_mutex);
	list_add_tail(&cq->kcq_entry, &dev->kcqs);
	mutex_unlock(&dev->kcq_mutex);
	return 0;
}

/**
 * mlx5c_ib_create_cq() - create a user CQ
 * @ibcq: CQ allocated by ib_core
 * @attr: size, completion vector, flags
 * @attrs: uverbs call; driver data struct mlx5_ib_create_cq in,
 *	struct mlx5_ib_create_cq_resp out
 *
 * Without @attrs the CQ is a kernel CQ (ring in kernel memory, polled
 * with mlx5c_ib_poll_cq()).
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct uverbs_attr_bundle *attrs)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5c_ib_cq *cq = to_mcq(ibcq);
	struct mlx5_ib_create_cq_resp resp = {};
	struct mlx5c_ib_ucontext *ctx;
	struct mlx5_ib_create_cq ucmd;
	struct ib_udata *udata;
	u32 entries, max_entries;
	u8 cqe_sz;
	int err;

	/*
	 * Every CQE carries a timestamp when the device has a clock; an
	 * overrun-ignoring CQ (the firmware's oi) raises no CQ error when full.
	 */
	if (attr->flags & ~(IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
			    IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN) ||
	    (attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION &&
	     !mlx5c_ib_clock_cq_ok(dev)))
		return -EOPNOTSUPP;
	cq->oi = attr->flags & IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	max_entries = 1U << MLX5C_IB_CAP(dev, log_max_cq_sz);
	if (attr->cqe < 1 || attr->cqe > max_entries - 1)
		return -EINVAL;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (!attrs) {
		entries = roundup_pow_of_two(attr->cqe + 1);
		err = mlx5c_ib_create_kernel_cq(dev, cq, entries,
						attr->comp_vector);
		if (!err)
			ibcq->cqe = entries - 1;
		return err;
	}
	udata = &attrs->driver_udata;
	ctx = rdma_udata_to_drv_context(udata, struct mlx5c_ib_ucontext, ibuc);
	if (!ctx)
		return -EOPNOTSUPP;

	/* Old providers ended the request after cqe_size. */
	err = mlx5c_ib_udata_in(udata, &ucmd,
				offsetofend(typeof(ucmd), cqe_size), sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.cqe_comp_en || ucmd.cqe_comp_res_format)
		return -EOPNOTSUPP;
	if (ucmd.flags & ~(MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD |
			   MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return -EOPNOTSUPP;
	if (ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	/* Armed through a dynamic UAR it names, else the first static one. */
	if (!(ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX) &&
	    (ucmd.uar_page_index || !ctx->num_uars))
		return -EINVAL;
	switch (ucmd.cqe_size) {
	case 64:
		if (ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD)
			return -EINVAL;
		cqe_sz = 0;
		break;
	case 128:
		cqe_sz = ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD ?
			 2 : 1;
		break;
	default:
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(ucmd.buf_addr))
		return -EINVAL;

	entries = roundup_pow_of_two(attr->cqe + 1);
	cq->dyn_uar = -1;
	if (ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX) {
		err = mlx5c_ib_uar_get(ctx, ucmd.uar_page_index);
		if (err)
			return err;
		cq->dyn_uar = ucmd.uar_page_index;
	}
	mutex_init(&cq->resize_mutex);
	cq->ctx = ctx;
	cq->cqe_size = ucmd.cqe_size;
	cq->umem = mlx5c_umem_get_cq(ibcq->device, attrs, ucmd.buf_addr,
				     (size_t)entries * ucmd.cqe_size);
	if (IS_ERR(cq->umem)) {
		err = PTR_ERR(cq->umem);
		goto err_uar;
	}
	err = mlx5c_ib_db_map(ctx, ucmd.db_addr, &cq->db);
	if (err)
		goto err_umem;

	err = mlx5c_ib_cq_cmd(dev, cq, cq->dyn_uar >= 0 ? cq->dyn_uar :
			      ctx->uars[0], cq->db.dma, entries, cqe_sz,
			      attr->comp_vector);
	if (err)
		goto err_db;

	ibcq->cqe = entries - 1;
	resp.cqn = cq->mcq.cqn;
	err = mlx5c_ib_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_cq;
	return 0;

err_cq:
	mlx5c_ib_orphan(dev, MLX5C_IB_OBJ_CQ, cq->mcq.cqn, cq->mcq.uid,
			&cq->umem, mlx5c_cq_destroy(dev->mdev, &cq->mcq));
err_db:
	mlx5c_ib_db_unmap(ctx, &cq->db);
err_umem:
	ib_umem_release(cq->umem);
err_uar:
	if (cq->dyn_uar >= 0)
		mlx5c_ib_uar_put(ctx, cq->dyn_uar);
	return err;
}

/**
 * mlx5c_ib_destroy_cq() - destroy a CQ
 * @ibcq: CQ
 * @udata: the caller's driver data (user CQs)
 *
 * Return: 0; a CQ the firmware refuses to destroy is kept, with its ring,
 * as an orphan (its events are no longer delivered either way).
 */
int mlx5c_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5c_ib_cq *cq = to_mcq(ibcq);

	if (!cq->ctx) {
		mlx5c_ib_dead_forget(dev, cq);
		mlx5c_ib_orphan_kbuf(dev, MLX5C_IB_OBJ_CQ, cq->mcq.cqn,
				     &cq->kbuf,
				     mlx5c_cq_destroy(dev->mdev, &cq->mcq));
		mlx5c_buf_free(dev->mdev, &cq->kbuf);
		return 0;
	}
	mlx5c_ib_orphan(dev, MLX5C_IB_OBJ_CQ, cq->mcq.cqn, cq->mcq.uid,
			&cq->umem, mlx5c_cq_destroy(dev->mdev, &cq->mcq));
	mlx5c_ib_db_unmap(cq->ctx, &cq->db);
	ib_umem_release(cq->umem);
	if (cq->dyn_uar >= 0)
		mlx5c_ib_uar_put(cq->ctx, cq->dyn_uar);
	return 0;
}

#ifndef HAVE_CREATE_CQ_ATTR_BUNDLE
/*
 * Before create_cq took the uverbs call, it got the call's driver udata,
 * which is embedded in that call.
 */
int mlx5c_ib_create_cq_op(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	return mlx5c_ib_create_cq(ibcq, attr, udata ?
				  container_of(udata, struct uverbs_attr_bundle, driver_udata) :
				  NULL);
}
#endif
