// SPDX-License-Identifier: GPL-2.0
/*
 * Channels: per completion vector a send CQ, a receive CQ, an SQ, an RQ
 * and one NAPI context. The CQs report to the vector's EQ; the core calls
 * their completion handler from the interrupt (comp_in_irq), which
 * schedules NAPI. Also the RSS objects in front of the RQs: an RQ table
 * and an indirect TIR hashing IPv4/TCP with Toeplitz.
 */
#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include <mlx5c/cq.h>

#include "en.h"


/* ---- CQs ------------------------------------------------------------- */

static void en_cq_comp(struct mlx5c_cq *mcq)
{
	struct mlx5c_en_cq *cq = container_of(mcq, struct mlx5c_en_cq, mcq);

	napi_schedule(cq->napi);
}

static void en_cq_event(struct mlx5c_cq *mcq, int type)
{
	struct mlx5c_en_cq *cq = container_of(mcq, struct mlx5c_en_cq, mcq);

	netdev_err_once(cq->napi->dev, "CQ 0x%x: error event %d\n", mcq->cqn, type);
}

/*
 * A CQ for a ring of 2^@log_ring entries (one CQE per WQE at most, and room
 * to spare), moderated by @usecs and @frames (0: an event per CQE).
 */
static int cq_create(struct mlx5c_en_priv *priv, struct mlx5c_en_channel *c,
		     struct mlx5c_en_cq *cq, u8 log_ring, u16 usecs, u16 frames)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	struct mlx5_cqe64 *cqe;
	int inlen, err, i;
	void *in, *cqc;
	u32 eqn;

	err = mlx5c_comp_eqn(priv->mdev, c->ix % priv->max_channels, &eqn);
	if (err)
		return err;
	cq->log_size = log_ring + 1;
	cq->cc = 0;
	cq->napi = &c->napi;
	err = mlx5c_buf_alloc(priv->mdev, BIT(cq->log_size) * sizeof(*cqe),
			      MLX5C_BUF_DBR, &cq->buf);
	if (err)
		return err;
	for (i = 0; i < BIT(cq->log_size); i++)
		mlx5c_cqe_init(mlx5c_buf_at(&cq->buf, i * sizeof(*cqe)));

	inlen = MLX5_ST_SZ_BYTES(create_cq_in) + cq->buf.nfrags * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_buf;
	}
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, log_cq_size, cq->log_size);
	MLX5_SET(cqc, cqc, uar_page, mlx5c_kernel_uar_index(priv->mdev));
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size, MLX5C_BUF_LOG_PAGE_SIZE);
	MLX5_SET(cqc, cqc, cq_period, usecs);
	MLX5_SET(cqc, cqc, cq_max_count, frames);
	MLX5_SET64(cqc, cqc, dbr_addr, cq->buf.db_dma);
	mlx5c_buf_fill_pas(&cq->buf, MLX5_ADDR_OF(create_cq_in, in, pas));
	cq->mcq.comp = en_cq_comp;
	cq->mcq.comp_in_irq = true;
	cq->mcq.event = en_cq_event;
	err = mlx5c_cq_create(priv->mdev, &cq->mcq, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		goto err_buf;
	return 0;

err_buf:
	mlx5c_buf_free(priv->mdev, &cq->buf);
	return err;
}

static void cq_destroy(struct mlx5c_en_priv *priv, struct mlx5c_en_cq *cq)
{
	if (!cq->buf.frags)
		return;
	/* On failure the device may still write the ring: keep it. */
	if (mlx5c_cq_destroy(priv->mdev, &cq->mcq))
		mlx5c_buf_quarantine(priv->mdev, &cq->buf);
	else
		mlx5c_buf_free(priv->mdev, &cq->buf);
}

/* ---- SQ -------------------------------------------------------------- */

static int sq_create(struct mlx5c_en_priv *priv, struct mlx5c_en_channel *c)
{
	u32 out[MLX5_ST_SZ_DW(create_sq_out)] = {};
	u32 min[MLX5_ST_SZ_DW(modify_sq_in)] = {};
	u32 mout[MLX5_ST_SZ_DW(modify_sq_out)] = {};
	struct mlx5c_en_sq *sq = &c->sq;
	int inlen, err, entries;
	void *in, *sqc, *wq;

	entries = BIT(priv->log_sq_size);
	sq->mask = entries - 1;
	sq->pc = 0;
	sq->cc = 0;
	sq->rung_pc = 0;
	sq->last_wqe = 0;
	sq->uar = priv->uar;
	sq->txq = netdev_get_tx_queue(priv->netdev, c->ix);
	u64_stats_init(&sq->stats.syncp);
	sq->info = kvcalloc(entries, sizeof(*sq->info), GFP_KERNEL);
	if (!sq->info)
		return -ENOMEM;
	err = mlx5c_buf_alloc(priv->mdev, entries * MLX5C_SEND_WQE_BB,
			      MLX5C_BUF_DBR, &sq->buf);
	if (err)
		goto err_info;

	inlen = MLX5_ST_SZ_BYTES(create_sq_in) + sq->buf.nfrags * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_buf;
	}
	MLX5_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	sqc = MLX5_ADDR_OF(create_sq_in, in, ctx);
	MLX5_SET(sqc, sqc, flush_in_error_en, 1);
	MLX5_SET(sqc, sqc, state, MLX5_SQC_STATE_RST);
	MLX5_SET(sqc, sqc, cqn, sq->cq.mcq.cqn);
	MLX5_SET(sqc, sqc, tis_lst_sz, 1);
	MLX5_SET(sqc, sqc, tis_num_0, priv->tisn);
	wq = MLX5_ADDR_OF(sqc, sqc, wq);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, priv->pdn);
	MLX5_SET(wq, wq, uar_page, mlx5c_kernel_uar_index(priv->mdev));
	MLX5_SET64(wq, wq, dbr_addr, sq->buf.db_dma);
	MLX5_SET(wq, wq, log_wq_stride, ilog2(MLX5C_SEND_WQE_BB));
	MLX5_SET(wq, wq, log_wq_sz, priv->log_sq_size);
	MLX5_SET(wq, wq, log_wq_pg_sz, MLX5C_BUF_LOG_PAGE_SIZE);
	mlx5c_buf_fill_pas(&sq->buf, MLX5_ADDR_OF(wq, wq, pas));
	err = mlx5c_cmd_exec(priv->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		goto err_buf;
	sq->sqn = MLX5_GET(create_sq_out, out, sqn);

	MLX5_SET(modify_sq_in, min, opcode, MLX5_CMD_OP_MODIFY_SQ);
	MLX5_SET(modify_sq_in, min, sq_state, MLX5_SQC_STATE_RST);
	MLX5_SET(modify_sq_in, min, sqn, sq->sqn);
	MLX5_SET(modify_sq_in, min, ctx.state, MLX5_SQC_STATE_RDY);
	err = mlx5c_cmd_exec(priv->mdev, min, sizeof(min), mout, sizeof(mout));
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	{
		u32 din[MLX5_ST_SZ_DW(destroy_sq_in)] = {};
		u32 dout[MLX5_ST_SZ_DW(destroy_sq_out)] = {};

		MLX5_SET(destroy_sq_in, din, opcode, MLX5_CMD_OP_DESTROY_SQ);
		MLX5_SET(destroy_sq_in, din, sqn, sq->sqn);
		mlx5c_cmd_exec(priv->mdev, din, sizeof(din), dout, sizeof(dout));
	}
err_buf:
	mlx5c_buf_free(priv->mdev, &sq->buf);
err_info:
	kvfree(sq->info);
	sq->info = NULL;
	return err;
}

static void sq_destroy(struct mlx5c_en_priv *priv, struct mlx5c_en_sq *sq)
{
	u32 in[MLX5_ST_SZ_DW(destroy_sq_in)] = {};
	u32 out[MLX5_ST_SZ_DW(destroy_sq_out)] = {};
	int err;

	if (!sq->info)
		return;
	MLX5_SET(destroy_sq_in, in, opcode, MLX5_CMD_OP_DESTROY_SQ);
	MLX5_SET(destroy_sq_in, in, sqn, sq->sqn);
	err = mlx5c_cmd_exec(priv->mdev, in, sizeof(in), out, sizeof(out));
	if (err && !mlx5c_dev_is_error(priv->mdev)) {
		/*
		 * The device may still read the ring and the frames: the
		 * ring to the quarantine, the frames leaked.
		 */
		netdev_err(priv->netdev, "DESTROY_SQ 0x%x failed: %d\n", sq->sqn, err);
		mlx5c_buf_quarantine(priv->mdev, &sq->buf);
		netdev_tx_reset_queue(sq->txq);
		sq->info = NULL;
		return;
	}
	/* The device no longer reads the ring: unmap and free what it held. */
	mlx5c_en_sq_drain(priv, sq);
	mlx5c_buf_free(priv->mdev, &sq->buf);
	kvfree(sq->info);
	sq->info = NULL;
}

/* ---- RQ -------------------------------------------------------------- */

static int rq_create(struct mlx5c_en_priv *priv, struct mlx5c_en_channel *c)
{
	u32 out[MLX5_ST_SZ_DW(create_rq_out)] = {};
	u32 min[MLX5_ST_SZ_DW(modify_rq_in)] = {};
	u32 mout[MLX5_ST_SZ_DW(modify_rq_out)] = {};
	struct page_pool_params pp = {};
	struct mlx5c_en_rq *rq = &c->rq;
	int inlen, err, entries, frame;
	void *in, *rqc, *wq;

	entries = BIT(priv->log_rq_size);
	frame = priv->netdev->mtu + MLX5C_EN_HW_MTU_EXTRA;
	rq->nfrags = DIV_ROUND_UP(frame, PAGE_SIZE);
	/* Room for a terminating segment when the fragments do not fill it. */
	rq->log_stride = order_base_2(rq->nfrags * sizeof(struct mlx5c_wqe_data_seg));
	rq->mask = entries - 1;
	rq->pc = 0;
	rq->cc = 0;
	u64_stats_init(&rq->stats.syncp);

	rq->pages = kvcalloc(entries * rq->nfrags, sizeof(*rq->pages), GFP_KERNEL);
	if (!rq->pages)
		return -ENOMEM;
	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pp.order = 0;
	pp.pool_size = entries * rq->nfrags;
	pp.nid = dev_to_node(priv->dev);
	pp.dev = priv->dev;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.max_len = PAGE_SIZE;
	pp.offset = 0;
	rq->pool = page_pool_create(&pp);
	if (IS_ERR(rq->pool)) {
		err = PTR_ERR(rq->pool);
		rq->pool = NULL;
		goto err_pages;
	}
	err = mlx5c_buf_alloc(priv->mdev, entries << rq->log_stride,
			      MLX5C_BUF_DBR, &rq->buf);
	if (err)
		goto err_pool;

	inlen = MLX5_ST_SZ_BYTES(create_rq_in) + rq->buf.nfrags * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_buf;
	}
	MLX5_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	rqc = MLX5_ADDR_OF(create_rq_in, in, ctx);
	MLX5_SET(rqc, rqc, vsd, 1);
	MLX5_SET(rqc, rqc, flush_in_error_en, 1);
	MLX5_SET(rqc, rqc, state, MLX5_RQC_STATE_RST);
	MLX5_SET(rqc, rqc, cqn, rq->cq.mcq.cqn);
	wq = MLX5_ADDR_OF(rqc, rqc, wq);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, priv->pdn);
	MLX5_SET64(wq, wq, dbr_addr, rq->buf.db_dma);
	MLX5_SET(wq, wq, log_wq_stride, rq->log_stride);
	MLX5_SET(wq, wq, log_wq_sz, priv->log_rq_size);
	MLX5_SET(wq, wq, log_wq_pg_sz, MLX5C_BUF_LOG_PAGE_SIZE);
	mlx5c_buf_fill_pas(&rq->buf, MLX5_ADDR_OF(wq, wq, pas));
	err = mlx5c_cmd_exec(priv->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		goto err_buf;
	rq->rqn = MLX5_GET(create_rq_out, out, rqn);

	MLX5_SET(modify_rq_in, min, opcode, MLX5_CMD_OP_MODIFY_RQ);
	MLX5_SET(modify_rq_in, min, rq_state, MLX5_RQC_STATE_RST);
	MLX5_SET(modify_rq_in, min, rqn, rq->rqn);
	MLX5_SET(modify_rq_in, min, ctx.state, MLX5_RQC_STATE_RDY);
	err = mlx5c_cmd_exec(priv->mdev, min, sizeof(min), mout, sizeof(mout));
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	{
		u32 din[MLX5_ST_SZ_DW(destroy_rq_in)] = {};
		u32 dout[MLX5_ST_SZ_DW(destroy_rq_out)] = {};

		MLX5_SET(destroy_rq_in, din, opcode, MLX5_CMD_OP_DESTROY_RQ);
		MLX5_SET(destroy_rq_in, din, rqn, rq->rqn);
		mlx5c_cmd_exec(priv->mdev, din, sizeof(din), dout, sizeof(dout));
	}
err_buf:
	mlx5c_buf_free(priv->mdev, &rq->buf);
err_pool:
	page_pool_destroy(rq->pool);
	rq->pool = NULL;
err_pages:
	kvfree(rq->pages);
	rq->pages = NULL;
	return err;
}

static void rq_destroy(struct mlx5c_en_priv *priv, struct mlx5c_en_rq *rq)
{
	u32 in[MLX5_ST_SZ_DW(destroy_rq_in)] = {};
	u32 out[MLX5_ST_SZ_DW(destroy_rq_out)] = {};
	int err;

	if (!rq->pages)
		return;
	MLX5_SET(destroy_rq_in, in, opcode, MLX5_CMD_OP_DESTROY_RQ);
	MLX5_SET(destroy_rq_in, in, rqn, rq->rqn);
	err = mlx5c_cmd_exec(priv->mdev, in, sizeof(in), out, sizeof(out));
	if (err && !mlx5c_dev_is_error(priv->mdev)) {
		/*
		 * The device may still write the pages: the ring to the
		 * quarantine, the pages leaked.
		 */
		netdev_err(priv->netdev, "DESTROY_RQ 0x%x failed: %d\n", rq->rqn, err);
		mlx5c_buf_quarantine(priv->mdev, &rq->buf);
		return;
	}
	mlx5c_en_rq_free_pages(rq);
	mlx5c_buf_free(priv->mdev, &rq->buf);
	page_pool_destroy(rq->pool);
	rq->pool = NULL;
	kvfree(rq->pages);
	rq->pages = NULL;
}

/* ---- Channels -------------------------------------------------------- */

/* The channel's NAPI is disabled. */
static void channel_close(struct mlx5c_en_priv *priv, struct mlx5c_en_channel *c)
{
	sq_destroy(priv, &c->sq);
	rq_destroy(priv, &c->rq);
	cq_destroy(priv, &c->sq.cq);
	cq_destroy(priv, &c->rq.cq);
	netif_napi_del(&c->napi);
	kfree(c);
}

static int channel_open(struct mlx5c_en_priv *priv, int ix, struct mlx5c_en_channel **cp)
{
	struct mlx5c_en_channel *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->priv = priv;
	c->ix = ix;
	netif_napi_add(priv->netdev, &c->napi, mlx5c_en_napi_poll);
	err = cq_create(priv, c, &c->sq.cq, priv->log_sq_size, priv->tx_usecs,
			priv->tx_frames);
	if (err)
		goto err_napi;
	err = cq_create(priv, c, &c->rq.cq, priv->log_rq_size, priv->rx_usecs,
			priv->rx_frames);
	if (err)
		goto err_sq_cq;
	err = sq_create(priv, c);
	if (err)
		goto err_rq_cq;
	err = rq_create(priv, c);
	if (err)
		goto err_sq;
	/* Before NAPI runs: the page pool's cache is NAPI's alone after. */
	if (!mlx5c_en_rq_refill(priv, &c->rq)) {
		err = -ENOMEM;
		goto err_rq;
	}
	napi_enable(&c->napi);
	mlx5c_en_cq_arm(priv, &c->sq.cq);
	mlx5c_en_cq_arm(priv, &c->rq.cq);
	*cp = c;
	return 0;

err_rq:
	rq_destroy(priv, &c->rq);
err_sq:
	sq_destroy(priv, &c->sq);
err_rq_cq:
	cq_destroy(priv, &c->rq.cq);
err_sq_cq:
	cq_destroy(priv, &c->sq.cq);
err_napi:
	netif_napi_del(&c->napi);
	kfree(c);
	return err;
}

/**
 * mlx5c_en_channels_open() - create priv->num_channels channels
 * @priv: netdev private data, with the TIS and the PD in place
 *
 * Return: 0 or a negative errno (then no channel exists).
 */
int mlx5c_en_channels_open(struct mlx5c_en_priv *priv)
{
	int i, err;

	priv->channels = kcalloc(priv->num_channels, sizeof(*priv->channels), GFP_KERNEL);
	if (!priv->channels)
		return -ENOMEM;
	for (i = 0; i < priv->num_channels; i++) {
		err = channel_open(priv, i, &priv->channels[i]);
		if (err)
			goto err;
	}
	spin_lock_bh(&priv->stats_lock);
	priv->stats_channels = priv->num_channels;
	spin_unlock_bh(&priv->stats_lock);
	return 0;
err:
	while (--i >= 0) {
		napi_disable(&priv->channels[i]->napi);
		channel_close(priv, priv->channels[i]);
	}
	kfree(priv->channels);
	priv->channels = NULL;
	return err;
}

/**
 * mlx5c_en_channels_deactivate() - stop the channels' NAPI polling
 * @priv: netdev private data
 *
 * Waits for a running poll. Afterwards no send completion is consumed, so
 * nothing wakes a TX queue again: the caller stops the queues after this
 * (netif_tx_disable()), then may close the channels.
 */
void mlx5c_en_channels_deactivate(struct mlx5c_en_priv *priv)
{
	int i;

	if (!priv->channels)
		return;
	for (i = 0; i < priv->num_channels; i++)
		napi_disable(&priv->channels[i]->napi);
}

/**
 * mlx5c_en_channels_close() - destroy the channels
 * @priv: netdev private data, channels deactivated and TX queues stopped
 */
void mlx5c_en_channels_close(struct mlx5c_en_priv *priv)
{
	int i;

	if (!priv->channels)
		return;
	spin_lock_bh(&priv->stats_lock);
	for (i = 0; i < priv->num_channels; i++)
		mlx5c_en_fold_stats(priv, priv->channels[i]);
	priv->stats_channels = 0;
	spin_unlock_bh(&priv->stats_lock);
	for (i = 0; i < priv->num_channels; i++)
		channel_close(priv, priv->channels[i]);
	kfree(priv->channels);
	priv->channels = NULL;
}

/* ---- RSS ------------------------------------------------------------- */

/**
 * mlx5c_en_rss_indir_default() - spread the indirection table evenly
 * @priv: netdev private data
 * @nch: over this many channels
 */
void mlx5c_en_rss_indir_default(struct mlx5c_en_priv *priv, int nch)
{
	int i;

	for (i = 0; i < priv->rss_size; i++)
		priv->rss_indir[i] = ethtool_rxfh_indir_default(i, nch);
}

/* The RQ table's size and entries: the channel each indirection entry names. */
static void rss_fill_rqt(struct mlx5c_en_priv *priv, void *rqtc)
{
	int i, ch;

	MLX5_SET(rqtc, rqtc, rqt_max_size, priv->rss_size);
	MLX5_SET(rqtc, rqtc, rqt_actual_size, priv->rss_size);
	for (i = 0; i < priv->rss_size; i++) {
		ch = priv->rss_indir[i];
		if (ch >= priv->num_channels)
			ch = i % priv->num_channels;
		MLX5_SET(rqtc, rqtc, rq_num[i], priv->channels[ch]->rq.rqn);
	}
}

/* The TIR's hash: Toeplitz with our key over IPv4 addresses and TCP ports. */
static void rss_fill_hash(struct mlx5c_en_priv *priv, void *tirc)
{
	void *hf = MLX5_ADDR_OF(tirc, tirc, rx_hash_field_selector_outer);

	MLX5_SET(tirc, tirc, rx_hash_fn, MLX5_RX_HASH_FN_TOEPLITZ);
	memcpy(MLX5_ADDR_OF(tirc, tirc, rx_hash_toeplitz_key), priv->rss_key,
	       sizeof(priv->rss_key));
	MLX5_SET(rx_hash_field_select, hf, l3_prot_type, MLX5_L3_PROT_TYPE_IPV4);
	MLX5_SET(rx_hash_field_select, hf, l4_prot_type, MLX5_L4_PROT_TYPE_TCP);
	MLX5_SET(rx_hash_field_select, hf, selected_fields,
		 MLX5_HASH_FIELD_SEL_SRC_IP | MLX5_HASH_FIELD_SEL_DST_IP |
		 MLX5_HASH_FIELD_SEL_L4_SPORT | MLX5_HASH_FIELD_SEL_L4_DPORT);
}

static int rss_rqt_inlen(struct mlx5c_en_priv *priv)
{
	return MLX5_ST_SZ_BYTES(modify_rqt_in) + priv->rss_size * MLX5_ST_SZ_BYTES(rq_num);
}

/**
 * mlx5c_en_rss_create() - the RQ table over the channels' RQs and the TIR
 * @priv: netdev private data, channels open
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_en_rss_create(struct mlx5c_en_priv *priv)
{
	u32 tout[MLX5_ST_SZ_DW(create_tir_out)] = {};
	u32 out[MLX5_ST_SZ_DW(create_rqt_out)] = {};
	int inlen = rss_rqt_inlen(priv), err;
	void *in, *tirc;

	BUILD_BUG_ON(MLX5_ST_SZ_BYTES(create_rqt_in) != MLX5_ST_SZ_BYTES(modify_rqt_in));
	in = kvzalloc(max_t(int, inlen, MLX5_ST_SZ_BYTES(create_tir_in)), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_rqt_in, in, opcode, MLX5_CMD_OP_CREATE_RQT);
	rss_fill_rqt(priv, MLX5_ADDR_OF(create_rqt_in, in, rqt_context));
	err = mlx5c_cmd_exec(priv->mdev, in, inlen, out, sizeof(out));
	if (err)
		goto out;
	priv->rqtn = MLX5_GET(create_rqt_out, out, rqtn);

	memset(in, 0, MLX5_ST_SZ_BYTES(create_tir_in));
	MLX5_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	tirc = MLX5_ADDR_OF(create_tir_in, in, ctx);
	MLX5_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_INDIRECT);
	MLX5_SET(tirc, tirc, indirect_table, priv->rqtn);
	MLX5_SET(tirc, tirc, transport_domain, priv->tdn);
	MLX5_SET(tirc, tirc, self_lb_block, MLX5_TIRC_SELF_LB_BLOCK_BLOCK_UNICAST |
		 MLX5_TIRC_SELF_LB_BLOCK_BLOCK_MULTICAST);
	rss_fill_hash(priv, tirc);
	err = mlx5c_cmd_exec(priv->mdev, in, MLX5_ST_SZ_BYTES(create_tir_in), tout, sizeof(tout));
	if (err) {
		mlx5c_en_rss_destroy(priv);
		goto out;
	}
	priv->tirn = MLX5_GET(create_tir_out, tout, tirn);
out:
	kvfree(in);
	return err;
}

/**
 * mlx5c_en_rss_modify() - the live RQ table and TIR hash to the current
 * indirection table and key (ethtool -X)
 * @priv: netdev private data, lock held, queues open
 *
 * Return: 0 or a negative errno (the device may then hold either state).
 */
int mlx5c_en_rss_modify(struct mlx5c_en_priv *priv)
{
	u32 out[MLX5_ST_SZ_DW(modify_tir_out)] = {};
	int inlen = rss_rqt_inlen(priv), err;
	void *in;

	in = kvzalloc(max_t(int, inlen, MLX5_ST_SZ_BYTES(modify_tir_in)), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(modify_rqt_in, in, opcode, MLX5_CMD_OP_MODIFY_RQT);
	MLX5_SET(modify_rqt_in, in, rqtn, priv->rqtn);
	MLX5_SET(modify_rqt_in, in, bitmask.rqn_list, 1);
	rss_fill_rqt(priv, MLX5_ADDR_OF(modify_rqt_in, in, ctx));
	err = mlx5c_cmd_exec(priv->mdev, in, inlen, out, sizeof(out));
	if (err)
		goto out;
	memset(in, 0, MLX5_ST_SZ_BYTES(modify_tir_in));
	MLX5_SET(modify_tir_in, in, opcode, MLX5_CMD_OP_MODIFY_TIR);
	MLX5_SET(modify_tir_in, in, tirn, priv->tirn);
	MLX5_SET(modify_tir_in, in, bitmask.hash, 1);
	rss_fill_hash(priv, MLX5_ADDR_OF(modify_tir_in, in, ctx));
	err = mlx5c_cmd_exec(priv->mdev, in, MLX5_ST_SZ_BYTES(modify_tir_in), out, sizeof(out));
out:
	kvfree(in);
	return err;
}

/**
 * mlx5c_en_rss_destroy() - destroy the TIR and the RQ table
 * @priv: netdev private data
 */
void mlx5c_en_rss_destroy(struct mlx5c_en_priv *priv)
{
	u32 out[MLX5_ST_SZ_DW(destroy_tir_out)] = {};
	u32 tin[MLX5_ST_SZ_DW(destroy_tir_in)] = {};
	u32 rin[MLX5_ST_SZ_DW(destroy_rqt_in)] = {};

	if (priv->tirn) {
		MLX5_SET(destroy_tir_in, tin, opcode, MLX5_CMD_OP_DESTROY_TIR);
		MLX5_SET(destroy_tir_in, tin, tirn, priv->tirn);
		mlx5c_cmd_exec(priv->mdev, tin, sizeof(tin), out, sizeof(out));
		priv->tirn = 0;
	}
	if (priv->rqtn) {
		MLX5_SET(destroy_rqt_in, rin, opcode, MLX5_CMD_OP_DESTROY_RQT);
		MLX5_SET(destroy_rqt_in, rin, rqtn, priv->rqtn);
		mlx5c_cmd_exec(priv->mdev, rin, sizeof(rin), out, sizeof(out));
		priv->rqtn = 0;
	}
}
