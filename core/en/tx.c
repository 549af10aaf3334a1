// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: one send WQE per skb (control segment, Ethernet segment
 * with the inlined L2 header, or every header for LSO, then one data
 * pointer per mapped piece), every WQE signalled; BQL and queue stop/wake
 * on the WQEBBs left; completions free the skbs in NAPI.
 */
#include <linux/dma-mapping.h>
#include <linux/tcp.h>

#include "en.h"

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

static void ring_doorbell(struct mlx5c_en_sq *sq, const struct mlx5c_en_ctrl_seg *ctrl)
{
	/* The WQE is in memory before the doorbell record counts it. */
	dma_wmb();
	sq->db[1] = cpu_to_be32(sq->pc);
	/* The record is written before the doorbell rings. */
	wmb();
	__raw_writeq(*(const u64 *)ctrl, sq->uar + MLX5C_UAR_SEND_DB);
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
	ring_doorbell(sq, sq->buf.va + (sq->last_wqe & sq->mask) * MLX5C_WQE_BB);
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
	u8 wqe[MLX5C_WQE_MAX_BBS * MLX5C_WQE_BB] __aligned(8);
	struct device *dev = &priv->mdev->pdev->dev;
	struct mlx5c_en_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5c_en_eth_seg *eseg = (void *)(ctrl + 1);
	struct mlx5c_en_data_seg *dseg;
	struct mlx5c_en_tx_info *ti;
	struct mlx5c_en_sq *sq;
	int ihs, ds, nbb, i, len;
	u32 bytes, packets;
	u8 opcode = MLX5_OPCODE_SEND;
	dma_addr_t addr;
	u16 pi, k;

	sq = &priv->channels[skb_get_queue_mapping(skb)]->sq;
	if (skb_shinfo(skb)->nr_frags + 2 + DIV_ROUND_UP(MLX5C_TX_MAX_INLINE, MLX5C_WQE_DS) >
	    MLX5C_WQE_MAX_DS && skb_linearize(skb))
		goto drop;
	ihs = tx_inline_len(skb);
	if (ihs > MLX5C_TX_MAX_INLINE || (ihs > skb_headlen(skb) && !pskb_may_pull(skb, ihs)))
		goto drop;

	memset(wqe, 0, sizeof(struct mlx5c_en_ctrl_seg) + sizeof(struct mlx5c_en_eth_seg));
	packets = 1;
	bytes = skb->len;
	if (skb_is_gso(skb)) {
		opcode = MLX5_OPCODE_LSO;
		eseg->mss = cpu_to_be16(skb_shinfo(skb)->gso_size);
		packets = skb_shinfo(skb)->gso_segs;
		/* Every segment carries the headers on the wire. */
		bytes += (packets - 1) * ihs;
		eseg->cs_flags = MLX5C_ETH_CS_L3 | MLX5C_ETH_CS_L4;
	} else if (skb->ip_summed == CHECKSUM_PARTIAL) {
		eseg->cs_flags = MLX5C_ETH_CS_L3 | MLX5C_ETH_CS_L4;
	}
	eseg->inline_hdr_sz = cpu_to_be16(ihs);
	memcpy(eseg->inline_hdr, skb->data, min(ihs, 2));
	if (ihs > 2)
		memcpy(eseg + 1, skb->data + 2, ihs - 2);
	ds = 2 + (ihs > 2 ? DIV_ROUND_UP(ihs - 2, MLX5C_WQE_DS) : 0);
	dseg = (void *)(wqe + ds * MLX5C_WQE_DS);

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

	nbb = DIV_ROUND_UP(ds * MLX5C_WQE_DS, MLX5C_WQE_BB);
	ctrl->opmod_idx_opcode = cpu_to_be32((u32)sq->pc << 8 | opcode);
	ctrl->qpn_ds = cpu_to_be32(sq->sqn << 8 | ds);
	ctrl->fm_ce_se = MLX5C_WQE_CE_CQ_UPDATE;
	for (k = 0; k < nbb; k++)
		memcpy(sq->buf.va + ((sq->pc + k) & sq->mask) * MLX5C_WQE_BB,
		       wqe + k * MLX5C_WQE_BB, MLX5C_WQE_BB);

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

	if (!netif_txq_maybe_stop(sq->txq, sq_room(sq), MLX5C_WQE_MAX_BBS, MLX5C_WQE_MAX_BBS)) {
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
 * mlx5c_en_poll_tx() - consume send completions
 * @sq: send queue
 * @budget: NAPI budget (0: netpoll, skbs are still freed)
 *
 * Return: true if CQEs may remain.
 */
bool mlx5c_en_poll_tx(struct mlx5c_en_sq *sq, int budget)
{
	struct mlx5c_en_channel *c = container_of(sq, struct mlx5c_en_channel, sq);
	struct device *dev = &c->priv->mdev->pdev->dev;
	unsigned int pkts = 0, bytes = 0;
	struct mlx5c_en_tx_info *ti;
	struct mlx5_cqe64 *cqe;
	int n = 0, limit = 256;
	u16 wqe_counter, start, cc = sq->cc;
	u8 opcode;

	while (n < limit && (cqe = mlx5c_en_cqe_next(&sq->cq))) {
		opcode = cqe->op_own >> 4;
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
		mlx5c_en_cq_update_ci(&sq->cq);
		/*
		 * The CQ's consumer index reaches the doorbell record before
		 * xmit sees the room: else xmit (another CPU) could post more
		 * WQEs than the CQ has free entries for, and overrun it.
		 */
		wmb();
		WRITE_ONCE(sq->cc, cc);
	}
	if (!netif_txq_completed_wake(sq->txq, pkts, bytes, sq_room(sq), MLX5C_WQE_MAX_BBS)) {
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
	struct device *dev = &priv->mdev->pdev->dev;
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
