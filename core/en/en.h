/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Ethernet netdev of mlx5_core: one netdev per function whose port
 * runs Ethernet, bound to the auxiliary device "eth". Each channel (one
 * per completion vector) has an SQ and an RQ with their CQs on the
 * vector's EQ and one NAPI context; the RQs sit behind an RQ table and an
 * indirect TIR (RSS), which the receive flow table's rules point at.
 */
#ifndef MLX5C_EN_H
#define MLX5C_EN_H

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>
#include <mlx5c/core.h>
#include <mlx5c/cq.h>
#include <mlx5c/kcompat.h>
#include <mlx5c/wqe.h>
/* The page pool's helpers moved to <net/page_pool/helpers.h> in v6.6. */
#ifdef HAVE_PAGE_POOL_HELPERS_H
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

#define MLX5C_EN_DRV_NAME	"mlx5c_en"
#define MLX5C_EN_MAX_CHANNELS	16
/* RSS indirection entries (fewer when the device's RQ tables are smaller). */
#define MLX5C_EN_RQT_SIZE	128
/* Ring sizes: the defaults, and the range ethtool -G may set. */
#define MLX5C_EN_LOG_SQ_SIZE	10	/* WQEBBs */
#define MLX5C_EN_LOG_RQ_SIZE	9	/* WQEs */
#define MLX5C_EN_LOG_RING_MIN	6
#define MLX5C_EN_LOG_RING_MAX	13
#define MLX5C_EN_MIN_MTU	68
#define MLX5C_EN_MAX_MTU	9000
/* Frame bytes beyond the MTU: Ethernet header, one VLAN tag, FCS. */
#define MLX5C_EN_HW_MTU_EXTRA	(ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN)
/* Received frames up to this size are copied into a fresh skb. */
#define MLX5C_EN_RX_COPYBREAK	256

/*
 * The most header bytes a send WQE inlines (the WQE layouts and units are
 * <mlx5c/wqe.h>'s).
 */
#define MLX5C_TX_MAX_INLINE	256

/* PAOS admin and operational status. */
#define MLX5C_PORT_UP		1
#define MLX5C_PORT_DOWN		2

/**
 * struct mlx5c_en_cq - a completion queue of a channel
 * @mcq: the core's CQ (dispatch by CQN)
 * @buf: CQE ring (64-byte CQEs) and doorbell record (consumer index, arm
 *	word)
 * @log_size: log2 of the number of CQEs
 * @cc: consumer counter
 * @napi: the channel's NAPI context the CQ schedules
 */
struct mlx5c_en_cq {
	struct mlx5c_cq mcq;
	struct mlx5c_buf buf;
	u8 log_size;
	u32 cc;
	struct napi_struct *napi;
};

/**
 * struct mlx5c_en_tx_dma - one DMA mapping of a sent skb
 * @addr: bus address
 * @len: length
 * @page: a fragment (dma_unmap_page) rather than the linear part
 */
struct mlx5c_en_tx_dma {
	dma_addr_t addr;
	u32 len;
	bool page;
};

/**
 * struct mlx5c_en_tx_info - what a send WQE holds, by its first WQEBB
 * @skb: the skb
 * @nbb: WQEBBs of the WQE
 * @ndma: mappings in @dma
 * @bytes: bytes counted for BQL and statistics
 * @packets: frames on the wire (LSO segments)
 * @dma: the mappings
 */
struct mlx5c_en_tx_info {
	struct sk_buff *skb;
	u16 nbb;
	u8 ndma;
	u32 bytes;
	u32 packets;
	struct mlx5c_en_tx_dma dma[MAX_SKB_FRAGS + 1];
};

/**
 * struct mlx5c_en_ring_stats - counters of one ring
 * @syncp: 64-bit counter consistency
 * @packets: frames
 * @bytes: bytes
 * @csum_complete: received with CHECKSUM_COMPLETE
 * @csum_none: received without checksum information
 * @csum_partial: sent with checksum offload
 * @tso_packets: LSO sends
 * @tso_bytes: bytes sent with LSO
 * @dropped: dropped by the driver (no buffer, mapping failure)
 * @errors: error completions
 * @stopped: times the queue was stopped
 * @wake: times the queue was woken
 * @bad_cqe: CQEs dropped because they named no outstanding WQE or a
 *	length the buffer cannot hold (a device that misbehaves)
 */
struct mlx5c_en_ring_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t csum_complete;
	u64_stats_t csum_none;
	u64_stats_t csum_partial;
	u64_stats_t tso_packets;
	u64_stats_t tso_bytes;
	u64_stats_t dropped;
	u64_stats_t errors;
	u64_stats_t stopped;
	u64_stats_t wake;
	u64_stats_t bad_cqe;
};

/**
 * struct mlx5c_en_sq - a send queue
 * @sqn: SQ number
 * @buf: WQE ring and doorbell record (send counter in word 1)
 * @uar: mapped UAR page for the doorbell
 * @mask: WQEBBs - 1
 * @pc: producer counter (WQEBBs)
 * @cc: consumer counter (WQEBBs)
 * @rung_pc: @pc at the last doorbell
 * @last_wqe: first WQEBB of the last WQE posted
 * @info: per-WQE state, by first WQEBB
 * @txq: the netdev queue
 * @cq: the SQ's CQ
 * @stats: counters
 */
struct mlx5c_en_sq {
	u32 sqn;
	struct mlx5c_buf buf;
	void __iomem *uar;
	u16 mask;
	u16 pc;
	u16 cc;
	u16 rung_pc;
	u16 last_wqe;
	struct mlx5c_en_tx_info *info;
	struct netdev_queue *txq;
	struct mlx5c_en_cq cq;
	struct mlx5c_en_ring_stats stats;
};

/**
 * struct mlx5c_en_rq - a receive queue (cyclic, page-pool pages)
 * @rqn: RQ number
 * @buf: WQE ring and doorbell record (receive counter in word 0)
 * @log_stride: log2 of the WQE size
 * @nfrags: pages per WQE
 * @mask: WQEs - 1
 * @pc: producer counter
 * @cc: consumer counter
 * @pages: the page of every WQE fragment (NULL: to refill)
 * @pool: page pool
 * @cq: the RQ's CQ
 * @stats: counters
 */
struct mlx5c_en_rq {
	u32 rqn;
	struct mlx5c_buf buf;
	u8 log_stride;
	u8 nfrags;
	u16 mask;
	u16 pc;
	u16 cc;
	struct page **pages;
	struct page_pool *pool;
	struct mlx5c_en_cq cq;
	struct mlx5c_en_ring_stats stats;
};

struct mlx5c_en_priv;

#define MLX5C_EN_NUM_DSCP	64

/**
 * struct mlx5c_en_dcb - what DCB keeps beyond the device's registers
 * @num_tc: traffic classes (max_tc)
 * @ets: ETS and rate limits offered (QETCR, QTCT)
 * @dscp: DSCP trust offered (QPTS, QPDPM)
 * @buffers: receive buffers readable (PBMC, PPTB)
 * @trust: QPTS trust state last set
 * @tsa: the transmission selection each TC was given (the device keeps
 *	groups and shares only)
 * @cable_len: PFC delay allowance (meters)
 * @dscp_apps: DSCP APP entries in dcbnl's table
 * @dscp_prio: the device's DSCP -> priority map as set
 */
struct mlx5c_en_dcb {
	u8 num_tc;
	bool ets;
	bool dscp;
	bool buffers;
	u8 trust;
	u8 tsa[8];
	u32 cable_len;
	int dscp_apps;
	u8 dscp_prio[MLX5C_EN_NUM_DSCP];
};

/**
 * struct mlx5c_en_channel - one completion vector's queues
 * @priv: netdev private data
 * @ix: channel index (= TX queue, completion vector)
 * @napi: polls both CQs
 * @sq: send queue
 * @rq: receive queue
 */
struct mlx5c_en_channel {
	struct mlx5c_en_priv *priv;
	int ix;
	struct napi_struct napi;
	struct mlx5c_en_sq sq;
	struct mlx5c_en_rq rq;
};

#define MLX5C_EN_FT_LOG_SIZE	7
#define MLX5C_EN_FT_ADDRS	((1 << MLX5C_EN_FT_LOG_SIZE) - 2)

/**
 * struct mlx5c_en_fs - the NIC receive flow table
 * @ft_id: table id (0: none)
 * @fg_addr: group matching the whole destination MAC (@addrs)
 * @fg_mcast: group matching the multicast bit (all-multicast)
 * @fg_any: group without criteria (promiscuous)
 * @addrs: destination MAC installed at each index of @fg_addr
 * @used: which indexes of @addrs hold a rule
 * @allmulti: the all-multicast rule is installed
 * @promisc: the promiscuous rule is installed
 * @created: the table exists
 * @ngroups: groups created, in the order above
 * @root: the table is the root of the NIC receive tables
 */
struct mlx5c_en_fs {
	u32 ft_id;
	u32 fg_addr;
	u32 fg_mcast;
	u32 fg_any;
	u8 addrs[MLX5C_EN_FT_ADDRS][ETH_ALEN];
	DECLARE_BITMAP(used, MLX5C_EN_FT_ADDRS);
	bool allmulti;
	bool promisc;
	bool created;
	u8 ngroups;
	bool root;
};

/**
 * struct mlx5c_en_priv - netdev private data
 * @netdev: the netdev
 * @mdev: core device
 * @dev: the PCI function's device, for DMA mappings
 * @adev: auxiliary device
 * @lock: serialises open/stop, reconfiguration and steering updates
 * @tdn: transport domain
 * @pdn: protection domain
 * @mkey: physical-address memory key of @pdn
 * @tisn: transport interface send
 * @rqtn: RQ table (0: none)
 * @tirn: indirect TIR (0: none)
 * @uar: the core's kernel UAR page
 * @num_channels: channels in use (and configured for the next open)
 * @max_channels: completion vectors
 * @channels: the channels while open
 * @opened: the netdev is up and the queues exist
 * @fs: receive steering
 * @rss_key: Toeplitz key
 * @rss_size: entries of the indirection table
 * @rss_indir: the channel of each indirection entry (ethtool -X)
 * @nb: event notifier (port change)
 * @port_work: reads the port state into the carrier
 * @rx_mode_work: reprograms the steering rules from the address lists
 * @wq: runs the two works
 * @stats_lock: protects @old_stats and @stats_channels
 * @stats_channels: channels whose counters the statistics read
 * @old_stats: counters of channels already destroyed
 * @dcb: DCB state (dcb.c)
 */
struct mlx5c_en_priv {
	struct net_device *netdev;
	struct mlx5c_dev *mdev;
	struct device *dev;
	struct auxiliary_device *adev;
	struct mutex lock;	/* state, channels, steering */
	u32 tdn;
	u32 pdn;
	u32 mkey;
	u32 tisn;
	u32 rqtn;
	u32 tirn;
	void __iomem *uar;
	int num_channels;
	int max_channels;
	/* Ring sizes (ethtool -G) and CQ moderation (ethtool -C): lock. */
	u8 log_sq_size;
	u8 log_rq_size;
	u16 rx_usecs, rx_frames;
	u16 tx_usecs, tx_frames;
	struct mlx5c_en_channel **channels;
	bool opened;
	struct mlx5c_en_fs fs;
	u8 rss_key[40];
	u16 rss_size;
	u8 rss_indir[MLX5C_EN_RQT_SIZE];
	struct notifier_block nb;
	struct work_struct port_work;
	struct work_struct rx_mode_work;
	struct workqueue_struct *wq;
	spinlock_t stats_lock;	/* old_stats, stats_channels */
	int stats_channels;
	/* In the order of the ethtool counters (ethtool.c, sw_stats). */
	struct {
		u64 rx_packets, rx_bytes, rx_csum_complete, rx_csum_none;
		u64 rx_dropped, rx_errors, tx_packets, tx_bytes, tx_csum_partial;
		u64 tso_packets, tso_bytes, tx_dropped, tx_errors, tx_stopped, tx_wake;
		u64 rx_bad_cqe, tx_bad_cqe;
	} old_stats;
	struct mlx5c_en_dcb dcb;
};

/* port.c */
int mlx5c_en_port_set_admin(struct mlx5c_en_priv *priv, bool up);
int mlx5c_en_port_oper_up(struct mlx5c_en_priv *priv, bool *up);
int mlx5c_en_port_speed(struct mlx5c_en_priv *priv, u32 *mbps);
int mlx5c_en_set_hw_mtu(struct mlx5c_en_priv *priv, int mtu);
int mlx5c_en_query_mac(struct mlx5c_en_priv *priv, u8 *mac);
int mlx5c_en_set_vport_rx_mode(struct mlx5c_en_priv *priv, const u8 *addrs, int n,
			       bool promisc, bool allmulti);
/* vf.c: the PF's VFs (ndo_set_vf_* / ndo_get_vf_*), through the core's e-switch */
struct ifla_vf_info;
struct ifla_vf_stats;
int mlx5c_en_set_vf_mac(struct net_device *netdev, int vf, u8 *mac);
int mlx5c_en_set_vf_vlan(struct net_device *netdev, int vf, u16 vlan, u8 qos, __be16 proto);
int mlx5c_en_set_vf_spoofchk(struct net_device *netdev, int vf, bool on);
int mlx5c_en_set_vf_trust(struct net_device *netdev, int vf, bool on);
int mlx5c_en_set_vf_link_state(struct net_device *netdev, int vf, int state);
int mlx5c_en_set_vf_rate(struct net_device *netdev, int vf, int min_rate, int max_rate);
int mlx5c_en_get_vf_config(struct net_device *netdev, int vf, struct ifla_vf_info *ivi);
int mlx5c_en_get_vf_stats(struct net_device *netdev, int vf, struct ifla_vf_stats *st);

int mlx5c_en_vport_counters(struct mlx5c_en_priv *priv, u64 *out, int n);
int mlx5c_en_pause_get(struct mlx5c_en_priv *priv, bool *rx, bool *tx);
int mlx5c_en_pause_set(struct mlx5c_en_priv *priv, bool rx, bool tx);
void mlx5c_en_port_work(struct work_struct *work);
int mlx5c_en_port_event(struct notifier_block *nb, unsigned long type, void *data);
#define MLX5C_EN_VPORT_COUNTERS	8
extern const char * const mlx5c_en_vport_counter_names[MLX5C_EN_VPORT_COUNTERS];

/* main.c */
int mlx5c_en_reconfigure(struct mlx5c_en_priv *priv,
			 int (*apply)(struct mlx5c_en_priv *priv, int arg, int *old), int arg);

/* channels.c */
int mlx5c_en_channels_open(struct mlx5c_en_priv *priv);
void mlx5c_en_channels_deactivate(struct mlx5c_en_priv *priv);
void mlx5c_en_channels_close(struct mlx5c_en_priv *priv);
int mlx5c_en_rss_create(struct mlx5c_en_priv *priv);
void mlx5c_en_rss_destroy(struct mlx5c_en_priv *priv);
int mlx5c_en_rss_modify(struct mlx5c_en_priv *priv);
void mlx5c_en_rss_indir_default(struct mlx5c_en_priv *priv, int nch);

/* txrx.c */
netdev_tx_t mlx5c_en_xmit(struct sk_buff *skb, struct net_device *netdev);
void mlx5c_en_sq_drain(struct mlx5c_en_priv *priv, struct mlx5c_en_sq *sq);
bool mlx5c_en_rq_refill(struct mlx5c_en_priv *priv, struct mlx5c_en_rq *rq);
void mlx5c_en_rq_free_pages(struct mlx5c_en_rq *rq);
void mlx5c_en_cq_arm(struct mlx5c_en_priv *priv, struct mlx5c_en_cq *cq);
int mlx5c_en_napi_poll(struct napi_struct *napi, int budget);

/* fs.c */
int mlx5c_en_fs_create(struct mlx5c_en_priv *priv);
void mlx5c_en_fs_destroy(struct mlx5c_en_priv *priv);
void mlx5c_en_rx_mode_work(struct work_struct *work);

/* dcb.c (built with CONFIG_DCB) */
#if IS_ENABLED(CONFIG_DCB)
void mlx5c_en_dcb_init(struct mlx5c_en_priv *priv);
void mlx5c_en_dcb_cleanup(struct mlx5c_en_priv *priv);
#else
static inline void mlx5c_en_dcb_init(struct mlx5c_en_priv *priv) {}
static inline void mlx5c_en_dcb_cleanup(struct mlx5c_en_priv *priv) {}
#endif

/* stats (ethtool.c) */
void mlx5c_en_fold_stats(struct mlx5c_en_priv *priv, struct mlx5c_en_channel *c);
extern const struct ethtool_ops mlx5c_en_ethtool_ops;

#endif /* MLX5C_EN_H */
