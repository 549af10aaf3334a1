// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: cyclic RQ whose WQEs point at page-pool pages (as many
 * as the MTU needs), CQEs read in NAPI, small frames copied, larger ones
 * built from their pages, CHECKSUM_COMPLETE from the CQE, GRO.
 */
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>

#include "en.h"

#define MLX5C_CQE_L3_SHIFT	2

static struct mlx5c_en_data_seg *rq_seg(struct mlx5c_en_rq *rq, u16 idx, int frag)
{
	return rq->buf.va + ((size_t)idx << rq->log_stride) + frag * sizeof(struct mlx5c_en_data_seg);
}

static int rq_post(struct mlx5c_en_priv *priv, struct mlx5c_en_rq *rq, u16 idx)
{
	struct page **pages = &rq->pages[idx * rq->nfrags];
	struct mlx5c_en_data_seg *seg;
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
		rq->db[0] = cpu_to_be32(rq->pc);
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
	struct device *dev = &c->priv->mdev->pdev->dev;
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
 * mlx5c_en_poll_rx() - receive up to a budget of frames, then refill
 * @c: channel
 * @budget: NAPI budget
 *
 * Return: frames consumed, or @budget when the refill left the RQ empty
 * (no page): no CQE will schedule NAPI again, so NAPI keeps polling.
 */
int mlx5c_en_poll_rx(struct mlx5c_en_channel *c, int budget)
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
	while (n < budget && (cqe = mlx5c_en_cqe_next(&rq->cq))) {
		rq->cq.cc++;
		n++;
		counter = be16_to_cpu(cqe->wqe_counter);
		if (rx_counter_bad(c, rq, counter)) {
			rx_count_bad(rq);
			continue;
		}
		rq->cc = counter + 1;
		if ((cqe->op_own >> 4) != MLX5C_CQE_RESP_SEND) {
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
		mlx5c_en_cq_update_ci(&rq->cq);
	if (!mlx5c_en_rq_refill(c->priv, rq))
		return budget;
	return n;
}
