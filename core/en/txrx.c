// SPDX-License-Identifier: GPL-2.0
/*
 * The data path of the netdev, all of it run by a channel's NAPI context
 * except xmit:
 * - send: one send WQE per skb (control segment, Ethernet segment with
 *   the inlined L2 header, or every header for LSO, then one data pointer
 *   per mapped piece), every WQE signalled; BQL and queue stop/wake on the
 *   WQEBBs left; completions free the skbs;
 * - receive: a cyclic RQ whose WQEs point at page-pool pages (as many as
 *   the MTU needs), small frames copied, larger ones built from their
 *   pages, CHECKSUM_COMPLETE from the CQE, GRO;
 * - completions: the CQE ownership test and consumer-index update of
 *   <mlx5c/cq.h>, and the CQ arm when NAPI completes.
 * WQE layouts are <mlx5c/wqe.h>'s, CQE layouts <linux/mlx5/device.h>'s.
 */
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/tcp.h>

#include "en.h"

#define MLX5C_CQE_L3_SHIFT	2	/* l4_l3_hdr_type: bits 2-3 */

/* ---- Completions ------------------------------------------------------ */

/* The CQE at the consumer counter if software owns it (<mlx5c/cq.h>). */
static struct mlx5_cqe64 *cqe_next(struct mlx5c_en_cq *cq)
{
	u32 nent = BIT(cq->log_size);

	return mlx5c_cqe_sw(mlx5c_buf_at(&cq->buf, (cq->cc & (nent - 1)) *
					 sizeof(struct mlx5_cqe64)),
			    cq->cc, nent);
}

/**
 * mlx5c_en_cq_arm() - request an event for the next CQE
 * @priv: netdev private data
 * @cq: CQ
 */
void mlx5c_en_cq_arm(struct mlx5c_en_priv *priv, struct mlx5c_en_cq *cq)
{
	mlx5c_cq_arm(&cq->mcq, MLX5C_CQ_DB_REQ_NOT, priv->uar, cq->buf.db, cq->cc);
}

/* ---- Send ------------------------------------------------------------ */

/* WQEBBs left in the ring. */
static u16 sq_room(const struct mlx5c_en_sq *sq)
{
	return sq->mask + 1 - (u16)(READ_ONCE(sq->pc) - READ_ONCE(sq->cc));
}

static void tx_unmap(struct device *dev, struct mlx5c_en_tx_info *ti)
{
	int i;

	for (i = 0; i < ti->ndma; i++) {
		if (ti->dma[i].page)
			dma_unmap_page(dev, ti->dma[i].addr, ti->dma[i].len, DMA_TO_DEVICE);
		else
			dma_unmap_single(dev, ti->dma[i].addr, ti->dma[i].len, DMA_TO_DEVICE);
	}
	ti->ndma = 0;
}

static void ring_doorbell(struct mlx5c_en_sq *sq, const struct mlx5c_wqe_ctrl_seg *ctrl)
{
	/* The WQE is in memory before the doorbell record counts it. */
	dma_wmb();
	sq->buf.db[1] = cpu_to_be32(sq->pc);
	/* The record is written before the doorbell rings. */
	wmb();
	__raw_writeq(*(const u64 *)ctrl, sq->uar + MLX5C_UAR_BF);
	sq->rung_pc = sq->pc;
}

/*
 * A dropped frame that ends a batch: ring for the WQEs the batch posted
 * without a doorbell (xmit_more), or they wait for the next frame.
 */
static void ring_pending(struct mlx5c_en_sq *sq)
{
	if (netdev_xmit_more() || sq->pc == sq->rung_pc)
		return;
	ring_doorbell(sq, mlx5c_buf_at(&sq->buf, (sq->last_wqe & sq->mask) *
					      MLX5C_SEND_WQE_BB));
}

/* Bytes of headers to inline: all of them for LSO, else the L2 header. */
static int tx_inline_len(struct sk_buff *skb)
{
	if (skb_is_gso(skb))
		return skb_tcp_all_headers(skb);
	return min_t(int, skb->len, ETH_HLEN);
}

/**
 * mlx5c_en_xmit() - ndo_start_xmit
 * @skb: frame
 * @netdev: our netdev
 *
 * Return: NETDEV_TX_OK (the skb is sent or dropped) or NETDEV_TX_BUSY.
 */
netdev_tx_t mlx5c_en_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u8 wqe[MLX5C_SEND_WQE_MAX_WQEBBS * MLX5C_SEND_WQE_BB] __aligned(8);
	struct device *dev = priv->dev;
	struct mlx5c_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5c_wqe_eth_seg *eseg = (void *)(ctrl + 1);
	struct mlx5c_wqe_data_seg *dseg;
	struct mlx5c_en_tx_info *ti;
	struct mlx5c_en_sq *sq;
	int ihs, ds, nbb, i, len;
	u32 bytes, packets;
	u8 opcode = MLX5_OPCODE_SEND;
	dma_addr_t addr;
	u16 pi, k;

	sq = &priv->channels[skb_get_queue_mapping(skb)]->sq;
	if (skb_shinfo(skb)->nr_frags + 2 + DIV_ROUND_UP(MLX5C_TX_MAX_INLINE, MLX5C_SEND_WQE_DS) >
	    MLX5C_WQE_CTRL_DS_MASK && skb_linearize(skb))
		goto drop;
	ihs = tx_inline_len(skb);
	if (ihs > MLX5C_TX_MAX_INLINE || (ihs > skb_headlen(skb) && !pskb_may_pull(skb, ihs)))
		goto drop;

	memset(wqe, 0, sizeof(struct mlx5c_wqe_ctrl_seg) + sizeof(struct mlx5c_wqe_eth_seg));
	packets = 1;
	bytes = skb->len;
	if (skb_is_gso(skb)) {
		opcode = MLX5_OPCODE_LSO;
		eseg->mss = cpu_to_be16(skb_shinfo(skb)->gso_size);
		packets = skb_shinfo(skb)->gso_segs;
		/* Every segment carries the headers on the wire. */
		bytes += (packets - 1) * ihs;
		eseg->cs_flags = MLX5C_ETH_WQE_L3_CSUM | MLX5C_ETH_WQE_L4_CSUM;
	} else if (skb->ip_summed == CHECKSUM_PARTIAL) {
		eseg->cs_flags = MLX5C_ETH_WQE_L3_CSUM | MLX5C_ETH_WQE_L4_CSUM;
	}
	eseg->inline_hdr_sz = cpu_to_be16(ihs);
	memcpy(eseg->inline_hdr_start, skb->data, min(ihs, 2));
	if (ihs > 2)
		memcpy(eseg + 1, skb->data + 2, ihs - 2);
	ds = 2 + (ihs > 2 ? DIV_ROUND_UP(ihs - 2, MLX5C_SEND_WQE_DS) : 0);
	dseg = (void *)(wqe + ds * MLX5C_SEND_WQE_DS);

	pi = sq->pc & sq->mask;
	ti = &sq->info[pi];
	ti->ndma = 0;
	len = skb_headlen(skb) - ihs;
	if (len > 0) {
		addr = dma_map_single(dev, skb->data + ihs, len, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, addr))
			goto drop;
		ti->dma[ti->ndma++] = (struct mlx5c_en_tx_dma){ addr, len, false };
		dseg->byte_count = cpu_to_be32(len);
		dseg->lkey = cpu_to_be32(priv->mkey);
		dseg->addr = cpu_to_be64(addr);
		dseg++;
		ds++;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		skb_frag_t *frag = &skb_shinfo(skb)->frags[i];

		len = skb_frag_size(frag);
		if (!len)
			continue;
		addr = skb_frag_dma_map(dev, frag, 0, len, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, addr))
			goto unmap;
		ti->dma[ti->ndma++] = (struct mlx5c_en_tx_dma){ addr, len, true };
		dseg->byte_count = cpu_to_be32(len);
		dseg->lkey = cpu_to_be32(priv->mkey);
		dseg->addr = cpu_to_be64(addr);
		dseg++;
		ds++;
	}

	nbb = DIV_ROUND_UP(ds * MLX5C_SEND_WQE_DS, MLX5C_SEND_WQE_BB);
	ctrl->opmod_idx_opcode = cpu_to_be32((u32)sq->pc << 8 | opcode);
	ctrl->qpn_ds = cpu_to_be32(sq->sqn << 8 | ds);
	ctrl->fm_ce_se = MLX5C_WQE_CTRL_CQ_UPDATE;
	for (k = 0; k < nbb; k++)
		memcpy(mlx5c_buf_at(&sq->buf, ((sq->pc + k) & sq->mask) * MLX5C_SEND_WQE_BB),
		       wqe + k * MLX5C_SEND_WQE_BB, MLX5C_SEND_WQE_BB);

	ti->skb = skb;
	ti->nbb = nbb;
	ti->bytes = bytes;
	ti->packets = packets;
	sq->last_wqe = sq->pc;
	/* Published to NAPI's room check (sq_room()). */
	WRITE_ONCE(sq->pc, sq->pc + nbb);
	skb_tx_timestamp(skb);

	u64_stats_update_begin(&sq->stats.syncp);
	u64_stats_add(&sq->stats.packets, packets);
	u64_stats_add(&sq->stats.bytes, bytes);
	if (opcode == MLX5_OPCODE_LSO) {
		u64_stats_inc(&sq->stats.tso_packets);
		u64_stats_add(&sq->stats.tso_bytes, skb->len);
	}
	if (eseg->cs_flags)
		u64_stats_inc(&sq->stats.csum_partial);
	u64_stats_update_end(&sq->stats.syncp);

	if (!netif_txq_maybe_stop(sq->txq, sq_room(sq), MLX5C_SEND_WQE_MAX_WQEBBS, MLX5C_SEND_WQE_MAX_WQEBBS)) {
		u64_stats_update_begin(&sq->stats.syncp);
		u64_stats_inc(&sq->stats.stopped);
		u64_stats_update_end(&sq->stats.syncp);
	}
	if (__netdev_tx_sent_queue(sq->txq, bytes, netdev_xmit_more()))
		ring_doorbell(sq, ctrl);
	return NETDEV_TX_OK;

unmap:
	tx_unmap(dev, ti);
drop:
	u64_stats_update_begin(&sq->stats.syncp);
	u64_stats_inc(&sq->stats.dropped);
	u64_stats_update_end(&sq->stats.syncp);
	dev_kfree_skb_any(skb);
	ring_pending(sq);
	return NETDEV_TX_OK;
}

/**
 * poll_tx() - consume send completions
 * @sq: send queue
 * @budget: NAPI budget (0: netpoll, skbs are still freed)
 *
 * Return: true if CQEs may remain.
 */
static bool poll_tx(struct mlx5c_en_sq *sq, int budget)
{
	struct mlx5c_en_channel *c = container_of(sq, struct mlx5c_en_channel, sq);
	struct device *dev = c->priv->dev;
	unsigned int pkts = 0, bytes = 0;
	struct mlx5c_en_tx_info *ti;
	struct mlx5_cqe64 *cqe;
	int n = 0, limit = 256;
	u16 wqe_counter, start, cc = sq->cc;
	u8 opcode;

	while (n < limit && (cqe = cqe_next(&sq->cq))) {
		opcode = get_cqe_opcode(cqe);
		wqe_counter = be16_to_cpu(cqe->wqe_counter);
		sq->cq.cc++;
		n++;
		/* A repeated or corrupted CQE completes nothing. */
		if ((u16)(wqe_counter - cc) >= (u16)(READ_ONCE(sq->pc) - cc)) {
			if (net_ratelimit())
				netdev_err(c->priv->netdev,
					   "SQ 0x%x: CQE for WQE %u, outstanding from %u: dropped\n",
					   sq->sqn, wqe_counter, cc);
			u64_stats_update_begin(&sq->stats.syncp);
			u64_stats_inc(&sq->stats.bad_cqe);
			u64_stats_update_end(&sq->stats.syncp);
			continue;
		}
		if (opcode == MLX5C_CQE_REQ_ERR) {
			netdev_err_once(c->priv->netdev, "SQ 0x%x: error completion\n", sq->sqn);
			u64_stats_update_begin(&sq->stats.syncp);
			u64_stats_inc(&sq->stats.errors);
			u64_stats_update_end(&sq->stats.syncp);
		}
		/* Every WQE is signalled: complete up to this one. */
		do {
			start = cc;
			ti = &sq->info[cc & sq->mask];
			if (!ti->skb) {
				cc++;
				continue;
			}
			tx_unmap(dev, ti);
			pkts++;
			bytes += ti->bytes;
			napi_consume_skb(ti->skb, budget);
			ti->skb = NULL;
			cc += ti->nbb;
		} while (start != wqe_counter && cc != READ_ONCE(sq->pc));
	}
	if (n) {
		mlx5c_cq_set_ci(sq->cq.buf.db, sq->cq.cc);
		/*
		 * The CQ's consumer index reaches the doorbell record before
		 * xmit sees the room: else xmit (another CPU) could post more
		 * WQEs than the CQ has free entries for, and overrun it.
		 */
		wmb();
		WRITE_ONCE(sq->cc, cc);
	}
	if (!netif_txq_completed_wake(sq->txq, pkts, bytes, sq_room(sq), MLX5C_SEND_WQE_MAX_WQEBBS)) {
		u64_stats_update_begin(&sq->stats.syncp);
		u64_stats_inc(&sq->stats.wake);
		u64_stats_update_end(&sq->stats.syncp);
	}
	return n == limit;
}

/**
 * mlx5c_en_sq_drain() - free the skbs of WQEs that will not complete
 * @priv: netdev private data
 * @sq: send queue, destroyed in the device
 */
void mlx5c_en_sq_drain(struct mlx5c_en_priv *priv, struct mlx5c_en_sq *sq)
{
	struct device *dev = priv->dev;
	struct mlx5c_en_tx_info *ti;

	while (sq->cc != sq->pc) {
		ti = &sq->info[sq->cc & sq->mask];
		if (!ti->skb) {
			sq->cc++;
			continue;
		}
		tx_unmap(dev, ti);
		dev_kfree_skb_any(ti->skb);
		ti->skb = NULL;
		sq->cc += ti->nbb;
	}
	netdev_tx_reset_queue(sq->txq);
}

/* ---- Receive --------------------------------------------------------- */

static struct mlx5c_wqe_data_seg *rq_seg(struct mlx5c_en_rq *rq, u16 idx, int frag)
{
	return mlx5c_buf_at(&rq->buf, ((size_t)idx << rq->log_stride) +
			    frag * sizeof(struct mlx5c_wqe_data_seg));
}

static int rq_post(struct mlx5c_en_priv *priv, struct mlx5c_en_rq *rq, u16 idx)
{
	struct page **pages = &rq->pages[idx * rq->nfrags];
	struct mlx5c_wqe_data_seg *seg;
	int j;

	for (j = 0; j < rq->nfrags; j++) {
		if (pages[j])
			continue;
		pages[j] = page_pool_dev_alloc_pages(rq->pool);
		if (!pages[j])
			return -ENOMEM;
		seg = rq_seg(rq, idx, j);
		seg->byte_count = cpu_to_be32(PAGE_SIZE);
		seg->lkey = cpu_to_be32(priv->mkey);
		seg->addr = cpu_to_be64(page_pool_get_dma_addr(pages[j]));
	}
	if ((rq->nfrags * sizeof(*seg)) < BIT(rq->log_stride)) {
		seg = rq_seg(rq, idx, rq->nfrags);
		seg->byte_count = 0;
		seg->lkey = cpu_to_be32(MLX5C_INVALID_LKEY);
		seg->addr = 0;
	}
	return 0;
}

/**
 * mlx5c_en_rq_refill() - post receive WQEs until the ring is full
 * @priv: netdev private data
 * @rq: receive queue
 *
 * Runs in the RQ's NAPI context, or before NAPI is enabled.
 *
 * Return: true if the RQ holds at least one WQE.
 */
bool mlx5c_en_rq_refill(struct mlx5c_en_priv *priv, struct mlx5c_en_rq *rq)
{
	u16 pc = rq->pc;

	while ((u16)(rq->pc - rq->cc) <= rq->mask) {
		if (rq_post(priv, rq, rq->pc & rq->mask)) {
			u64_stats_update_begin(&rq->stats.syncp);
			u64_stats_inc(&rq->stats.dropped);
			u64_stats_update_end(&rq->stats.syncp);
			break;
		}
		rq->pc++;
	}
	if (rq->pc != pc) {
		/* The WQEs are in memory before the producer counter. */
		dma_wmb();
		rq->buf.db[0] = cpu_to_be32(rq->pc);
	}
	return rq->pc != rq->cc;
}

/**
 * mlx5c_en_rq_free_pages() - return every posted page to the pool
 * @rq: receive queue, destroyed in the device
 */
void mlx5c_en_rq_free_pages(struct mlx5c_en_rq *rq)
{
	int i;

	for (i = 0; i < (rq->mask + 1) * rq->nfrags; i++) {
		if (rq->pages[i])
			page_pool_put_full_page(rq->pool, rq->pages[i], false);
		rq->pages[i] = NULL;
	}
}

static struct sk_buff *rx_build_skb(struct mlx5c_en_channel *c, struct mlx5c_en_rq *rq,
				    u16 idx, u32 len)
{
	struct device *dev = c->priv->dev;
	struct page **pages = &rq->pages[idx * rq->nfrags];
	u32 hlen, off, flen, left;
	struct sk_buff *skb;
	dma_addr_t addr;
	void *va;
	int j;

	if (len > rq->nfrags * PAGE_SIZE)
		return NULL;
	addr = page_pool_get_dma_addr(pages[0]);
	dma_sync_single_for_cpu(dev, addr, min_t(u32, len, PAGE_SIZE), DMA_FROM_DEVICE);
	va = page_address(pages[0]);
	if (len <= MLX5C_EN_RX_COPYBREAK) {
		skb = napi_alloc_skb(&c->napi, len);
		if (skb)
			skb_put_data(skb, va, len);
		/* The page stays in the WQE for the next frame. */
		dma_sync_single_for_device(dev, addr, len, DMA_FROM_DEVICE);
		return skb;
	}
	hlen = eth_get_headlen(c->priv->netdev, va,
			       min_t(u32, len, MLX5C_EN_RX_COPYBREAK));
	skb = napi_alloc_skb(&c->napi, MLX5C_EN_RX_COPYBREAK);
	if (!skb)
		return NULL;
	skb_put_data(skb, va, hlen);
	left = len - hlen;
	off = hlen;
	for (j = 0; left; j++) {
		flen = min_t(u32, left, PAGE_SIZE - off);
		if (j)
			dma_sync_single_for_cpu(dev, page_pool_get_dma_addr(pages[j]), flen,
						DMA_FROM_DEVICE);
		if (flen) {
			skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, pages[j], off, flen,
					PAGE_SIZE);
			pages[j] = NULL;
		}
		left -= flen;
		off = 0;
	}
	skb_mark_for_recycle(skb);
	return skb;
}

static void rx_csum(struct net_device *netdev, struct sk_buff *skb,
		    struct mlx5_cqe64 *cqe, struct mlx5c_en_rq *rq)
{
	u8 l3 = (cqe->l4_l3_hdr_type >> MLX5C_CQE_L3_SHIFT) & 3;

	if ((netdev->features & NETIF_F_RXCSUM) && l3) {
		skb->ip_summed = CHECKSUM_COMPLETE;
		/* The ones'-complement sum from the IP header on (rx_csum_vlan). */
		skb->csum = csum_unfold((__force __sum16)cqe->check_sum);
		u64_stats_inc(&rq->stats.csum_complete);
	} else {
		skb->ip_summed = CHECKSUM_NONE;
		u64_stats_inc(&rq->stats.csum_none);
	}
}

/*
 * The CQE's sum starts at the IP header, after any VLAN tags the device
 * left in the frame (our RQs do not strip them); the stack's
 * CHECKSUM_COMPLETE covers everything after skb->data, which
 * eth_type_trans left at the first tag. Adds the tags (4 bytes each, at
 * even offsets) to the sum.
 */
static void rx_csum_vlan(struct sk_buff *skb)
{
	struct vlan_hdr *vh, buf;
	__be16 proto = skb->protocol;
	int off = 0;

	if (skb->ip_summed != CHECKSUM_COMPLETE)
		return;
	while (eth_type_vlan(proto)) {
		vh = skb_header_pointer(skb, off, VLAN_HLEN, &buf);
		if (!vh) {
			/* A truncated tag: no sum rather than a wrong one. */
			skb->ip_summed = CHECKSUM_NONE;
			return;
		}
		skb->csum = csum_partial(vh, VLAN_HLEN, skb->csum);
		proto = vh->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}
}

/*
 * A CQE the ring cannot have produced: a WQE index that is not posted and
 * not yet completed (a repeated or corrupted CQE). The device is not
 * trusted: such a CQE is counted and dropped, and the RQ goes on from
 * where it was.
 */
static bool rx_counter_bad(struct mlx5c_en_channel *c, struct mlx5c_en_rq *rq,
			   u16 counter)
{
	if ((u16)(counter - rq->cc) < (u16)(rq->pc - rq->cc))
		return false;
	if (net_ratelimit())
		netdev_err(c->priv->netdev,
			   "RQ 0x%x: CQE for WQE %u, outstanding %u..%u: dropped\n",
			   rq->rqn, counter, rq->cc, (u16)(rq->pc - 1));
	return true;
}

/*
 * A length the WQE's pages cannot hold (or no Ethernet header): the frame
 * is dropped, the WQE's pages stay posted for the next one.
 */
static bool rx_len_bad(struct mlx5c_en_channel *c, struct mlx5c_en_rq *rq,
		       u16 counter, u32 len)
{
	struct page **pages = &rq->pages[(counter & rq->mask) * rq->nfrags];
	bool ok = len >= ETH_HLEN && len <= rq->nfrags * PAGE_SIZE;
	int j;

	for (j = 0; ok && j < DIV_ROUND_UP(len, PAGE_SIZE); j++)
		ok = pages[j];
	if (!ok && net_ratelimit())
		netdev_err(c->priv->netdev,
			   "RQ 0x%x: CQE of %u bytes for WQE %u: dropped\n",
			   rq->rqn, len, counter);
	return !ok;
}

static void rx_count_bad(struct mlx5c_en_rq *rq)
{
	u64_stats_update_begin(&rq->stats.syncp);
	u64_stats_inc(&rq->stats.bad_cqe);
	u64_stats_update_end(&rq->stats.syncp);
}

/**
 * poll_rx() - receive up to a budget of frames, then refill
 * @c: channel
 * @budget: NAPI budget
 *
 * Return: frames consumed, or @budget when the refill left the RQ empty
 * (no page): no CQE will schedule NAPI again, so NAPI keeps polling.
 */
static int poll_rx(struct mlx5c_en_channel *c, int budget)
{
	struct net_device *netdev = c->priv->netdev;
	struct mlx5c_en_rq *rq = &c->rq;
	struct mlx5_cqe64 *cqe;
	struct sk_buff *skb;
	u16 counter;
	int n = 0;
	u32 len;

	if (!budget)
		return 0;
	while (n < budget && (cqe = cqe_next(&rq->cq))) {
		rq->cq.cc++;
		n++;
		counter = be16_to_cpu(cqe->wqe_counter);
		if (rx_counter_bad(c, rq, counter)) {
			rx_count_bad(rq);
			continue;
		}
		rq->cc = counter + 1;
		if (get_cqe_opcode(cqe) != MLX5C_CQE_RESP_SEND) {
			netdev_err_once(netdev, "RQ 0x%x: error completion\n", rq->rqn);
			u64_stats_update_begin(&rq->stats.syncp);
			u64_stats_inc(&rq->stats.errors);
			u64_stats_update_end(&rq->stats.syncp);
			continue;
		}
		len = be32_to_cpu(cqe->byte_cnt);
		if (rx_len_bad(c, rq, counter, len)) {
			rx_count_bad(rq);
			continue;
		}
		skb = rx_build_skb(c, rq, counter & rq->mask, len);
		u64_stats_update_begin(&rq->stats.syncp);
		if (!skb) {
			u64_stats_inc(&rq->stats.dropped);
			u64_stats_update_end(&rq->stats.syncp);
			continue;
		}
		u64_stats_inc(&rq->stats.packets);
		u64_stats_add(&rq->stats.bytes, len);
		rx_csum(netdev, skb, cqe, rq);
		u64_stats_update_end(&rq->stats.syncp);
		skb_record_rx_queue(skb, c->ix);
		if (netdev->features & NETIF_F_RXHASH && cqe->rss_hash_type)
			skb_set_hash(skb, be32_to_cpu(cqe->rss_hash_result), PKT_HASH_TYPE_L3);
		skb->protocol = eth_type_trans(skb, netdev);
		rx_csum_vlan(skb);
		napi_gro_receive(&c->napi, skb);
	}
	if (n)
		mlx5c_cq_set_ci(rq->cq.buf.db, rq->cq.cc);
	if (!mlx5c_en_rq_refill(c->priv, rq))
		return budget;
	return n;
}

/* ---- NAPI ------------------------------------------------------------ */

/**
 * mlx5c_en_napi_poll() - NAPI poll of a channel: send, then receive
 * @napi: the channel's NAPI context
 * @budget: NAPI budget
 *
 * Return: work done; @budget to keep polling.
 */
int mlx5c_en_napi_poll(struct napi_struct *napi, int budget)
{
	struct mlx5c_en_channel *c = container_of(napi, struct mlx5c_en_channel, napi);
	bool tx_busy;
	int work;

	tx_busy = poll_tx(&c->sq, budget);
	work = poll_rx(c, budget);
	if (tx_busy || work >= budget)
		return budget;
	if (napi_complete_done(napi, work)) {
		mlx5c_en_cq_arm(c->priv, &c->sq.cq);
		mlx5c_en_cq_arm(c->priv, &c->rq.cq);
	}
	return work;
}
