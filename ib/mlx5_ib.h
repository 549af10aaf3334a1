/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mlx5_ib of mlx5-clone: internal definitions shared by the object files.
 *
 * Every firmware command is built here with MLX5_SET() on the layouts of
 * <linux/mlx5/mlx5_ifc.h> and executed by mlx5_core (mlx5c_cmd_exec()).
 * A process with a firmware user context (DEVX, devx.c) has its uid on
 * every command about its objects: those it sends itself and those of the
 * verbs (PD, CQ, QP, SRQ, XRCD, MKey, UAR; the layouts with a uid field),
 * from creation to destroy. The kernel's objects have uid 0.
 */
#ifndef MLX5C_IB_H
#define MLX5C_IB_H

#include <linux/auxiliary_bus.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/mlx5-abi.h>

#include <mlx5c/core.h>
#include <mlx5c/cq.h>
#include <mlx5c/wqe.h>

#include "kcompat.h"

#define MLX5C_IB_VENDOR_ID		0x02c9
#define MLX5C_IB_MAX_PORTS		2
/* Static UARs per context: libmlx5 asks for 16 bfregs (8 UARs). */
#define MLX5C_IB_MAX_BFREGS		512
#define MLX5C_IB_BFREGS_PER_UAR		2
/* bfreg numbering of the provider: four per UAR, two usable. */
#define MLX5C_IB_PROV_BFREGS_PER_UAR	4
#define MLX5C_IB_DEFAULT_UIDX		0xffffff
/* The send-WQE basic block and segment sizes (<mlx5c/wqe.h>). */
#define MLX5C_IB_WQE_BB			MLX5C_SEND_WQE_BB
#define MLX5C_IB_DATA_SEG		MLX5C_SEND_WQE_DS
#define MLX5C_IB_CTRL_SEG		MLX5C_SEND_WQE_DS
#define MLX5C_IB_RADDR_SEG		MLX5C_SEND_WQE_DS
/* Bits 0 (read) and 1 (write) of an MTT entry. */
#define MLX5C_IB_MTT_RW			3ULL

/* rq_type of the QP context. */
#define MLX5C_QP_RQ_REGULAR		0
#define MLX5C_QP_RQ_SRQ			1
#define MLX5C_QP_RQ_ZERO_LEN		3

/**
 * struct mlx5c_ib_port - what the driver remembers of a port
 * @gid_tbl_len: GID table length reported to ib_core
 * @pkey_tbl_len: P_Key table length reported to ib_core
 */
struct mlx5c_ib_port {
	int gid_tbl_len;
	u16 pkey_tbl_len;
};

/* Pages of the MEMIC window the driver hands out (1 MiB at 4 KiB). */
#define MLX5C_IB_MEMIC_PAGES	256

/**
 * struct mlx5c_ib_dev - one registered RDMA device
 * @ib: the ib_core device
 * @mdev: mlx5_core device
 * @pdev: PCI function
 * @adev: auxiliary device we are bound to
 * @num_ports: physical ports
 * @port: per-port data, index port - 1
 * @cqe_version: CQE version the device supports (0 or 1)
 * @max_sq_desc: SQ WQE size the advertised SGE limits derive from (at
 *	most 512 bytes, as the in-tree driver reports them)
 * @max_sq_wqe: largest SQ WQE in bytes the device executes (a QP may use
 *	it: the provider sizes WQEs by the max_sq_desc_sz we return)
 * @max_rq_desc: largest RQ WQE in bytes
 * @sys_image_guid: system image GUID (NodeInfo)
 * @event_nb: notifier for the device's asynchronous events
 * @qps: QPs by QPN, for asynchronous events
 * @srqs: SRQs by SRQN, for asynchronous events
 * @mkey_variant: rolling low byte of the memory keys
 * @fatal: the device entered the internal-error state
 * @orphans_lock: protects @orphans
 * @orphans: objects the firmware refused to destroy (orphan.c)
 * @uar: mlx5_core's kernel UAR page: CQ arm and send doorbells of kernel
 *	queues
 * @uar_index: its index (uar_page of kernel CQs and QPs)
 * @cap_mask_mutex: serialises modify_port's read-modify-write of the
 *	port capability mask
 * @q_counter: the Q counter set every QP counts in (counters.c)
 * @kcq_mutex: protects @kcqs
 * @kcqs: kernel CQs (fatal.c)
 * @kqp_lock: protects @kqps
 * @kqps: kernel QPs (fatal.c)
 * @dead_work: calls the kernel CQs' handlers on a dead device
 * @roce: the port runs Ethernet: RoCE (roce.c, netdev.c)
 * @ib_virt: InfiniBand virtualization (a VF, or a PF with VFs): the port
 *	is read through the HCA vport context and the port registers, not
 *	through SMPs (port.c); a PF has the VF ops (sriov.c)
 * @has_smi: subnet management is this function's: QP0 sends and SMPs
 *	through MAD_IFC (a PF; with @ib_virt the vport context says)
 * @udp_sport_min: the lowest RoCEv2 UDP source port (ROCE capabilities)
 * @netdev_nb: netdevice notifier binding the port's netdev (netdev.c)
 * @netdev: the netdev the port is bound to (RTNL)
 * @netdev_active: last port state reported from the netdev (netdev.c)
 * @ib_registered: ib_register_device() returned
 * @memic_lock: protects @memic_pages
 * @memic_start: BAR0 offset of the MEMIC window (dm.c)
 * @memic_npages: its pages (0: no device memory)
 * @memic_max: the largest allocation
 * @memic_pages: pages of the window in use by an allocation
 * @umr: the driver's UMR QP (umr_qp.c)
 */
/*
 * The driver's UMR QP and the work request it executes. The QP type and
 * the opcode are ib_core's values reserved for drivers: nothing outside
 * this driver posts either (wr.c refuses the opcode on other QPs, qp.c a
 * user QP of the type).
 */
#define MLX5C_IB_QPT_REG_UMR	IB_QPT_RESERVED1
#define MLX5C_IB_WR_UMR_REREG	IB_WR_RESERVED1

/**
 * struct mlx5c_ib_umr_res - the UMR QP: changes memory keys of any PD
 * @lock: serialises its creation and every change (one WQE at a time)
 * @pd: its PD
 * @cq: its CQ
 * @qp: the QP (st REG_UMR), in RTS; NULL before the device is
 *	registered, or when it could not be made
 * @broken: the QP could not be made, or a change timed out (its state is
 *	unknown): no key is changed in place any more (rereg makes new keys)
 */
struct mlx5c_ib_umr_res {
	struct mutex lock; /* creation and posting */
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	bool broken;
};

/**
 * struct mlx5c_ib_umr_rereg_wr - MLX5C_IB_WR_UMR_REREG: new rights and PD
 *	of a memory key, its translation kept
 * @wr: the send work request (opcode MLX5C_IB_WR_UMR_REREG)
 * @mkey: the key
 * @pdn: its new PD
 * @access: its new IB_ACCESS_* rights
 */
struct mlx5c_ib_umr_rereg_wr {
	struct ib_send_wr wr;
	u32 mkey;
	u32 pdn;
	int access;
};

struct mlx5c_ib_dev {
	struct ib_device ib;
	struct mlx5c_dev *mdev;
	struct pci_dev *pdev;
	struct auxiliary_device *adev;
	u8 num_ports;
	struct mlx5c_ib_port port[MLX5C_IB_MAX_PORTS];
	u8 cqe_version;
	u32 max_sq_desc;
	u32 max_sq_wqe;
	u32 max_rq_desc;
	__be64 sys_image_guid;
	struct notifier_block event_nb;
	struct xarray qps;
	struct xarray srqs;
	atomic_t mkey_variant;
	bool fatal;
	struct mutex orphans_lock; /* protects orphans */
	struct list_head orphans;
	void __iomem *uar;
	u32 uar_index;
	struct mutex cap_mask_mutex; /* modify_port */
	u32 q_counter;
	struct mutex kcq_mutex; /* protects kcqs */
	struct list_head kcqs;
	spinlock_t kqp_lock; /* protects kqps */
	struct list_head kqps;
	struct work_struct dead_work;
	u32 xrcdn_ini;
	bool has_xrcd_ini;
	void *clock_info;
	struct delayed_work clock_work;
	bool roce;
	bool ib_virt;
	bool has_smi;
	u16 udp_sport_min;
	struct notifier_block netdev_nb;
	struct net_device *netdev;
	bool netdev_active;
	bool ib_registered;
	spinlock_t memic_lock; /* protects memic_pages */
	u64 memic_start;
	u32 memic_npages;
	u64 memic_max;
	DECLARE_BITMAP(memic_pages, MLX5C_IB_MEMIC_PAGES);
	struct mlx5c_ib_umr_res umr;
};

/**
 * struct mlx5c_ib_db_page - a pinned user page holding doorbell records
 * @list: in the context's list
 * @user_page: page-aligned user address
 * @umem: the pinned page
 * @refcnt: doorbell records using it
 */
struct mlx5c_ib_db_page {
	struct list_head list;
	unsigned long user_page;
	struct ib_umem *umem;
	int refcnt;
};

/**
 * struct mlx5c_ib_db - a user doorbell record mapped for the device
 * @page: the pinned page it lives in
 * @dma: bus address of the record
 */
struct mlx5c_ib_db {
	struct mlx5c_ib_db_page *page;
	dma_addr_t dma;
};

/**
 * struct mlx5c_ib_qpages - a ring's pages as CREATE_CQ/QP/SRQ name them (mem.c)
 * @umem: pinned user ring, or NULL for a kernel ring
 * @kbuf: kernel ring
 * @pgsz: page size of the page list
 * @page_offset: start of the ring in its first page, in 64ths of a page
 * @npas: page list entries
 */
struct mlx5c_ib_qpages {
	struct ib_umem *umem;
	const struct mlx5c_buf *kbuf;
	unsigned long pgsz;
	u32 page_offset;
	size_t npas;
};

/**
 * struct mlx5c_ib_ucontext - a user context (one per open device)
 * @ibuc: the ib_core context
 * @tot_bfregs: bfregs of the static UAR scheme (0: dynamic UARs only)
 * @num_low_lat: bfregs reserved for dedicated low-latency use
 * @num_uars: static UAR pages (tot_bfregs / 2)
 * @uars: their UAR indexes
 * @cqe_version: CQE version negotiated with user space
 * @lock: protects @bfreg_count and @db_pages
 * @bfreg_count: QPs using each bfreg
 * @db_pages: pinned doorbell-record pages
 * @dyn_uars: UAR objects (mlx5c_ib_mmap_entry.list), under @lock
 * @devx_uid: the firmware user context of a DEVX context (devx.c), or 0
 * @pds: the context's PDs by number, changed under @lock (DEVX keys name
 *	them)
 */
struct mlx5c_ib_ucontext {
	struct ib_ucontext ibuc;
	u32 tot_bfregs;
	u32 num_low_lat;
	u32 num_uars;
	u32 *uars;
	u8 cqe_version;
	struct mutex lock; /* protects bfreg_count, db_pages, pds */
	u32 *bfreg_count;
	struct list_head db_pages;
	struct list_head dyn_uars;
	u16 devx_uid;
	struct xarray pds;
};

enum mlx5c_ib_mmap_kind {
	MLX5C_IB_MMAP_UAR,
	MLX5C_IB_MMAP_DM,
};

/**
 * struct mlx5c_ib_mmap_entry - device pages a context maps by offset
 * @rdma: ib_core's entry (offset, length, references)
 * @kind: what the pages are
 * @phys: bus address of the first page
 * @wc: mapped write-combining (BlueFlame UARs, device memory)
 * @uar: UAR page number (kind UAR)
 * @users: CQs and QPs whose context names the UAR (kind UAR), under the
 *	context's lock
 * @list: in the context's dyn_uars (kind UAR)
 * @dm_addr: the MEMIC allocation's BAR0 offset (kind DM)
 * @dm_size: its size in bytes
 * @dm_page: its first page in the device's MEMIC window
 */
struct mlx5c_ib_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	enum mlx5c_ib_mmap_kind kind;
	phys_addr_t phys;
	bool wc;
	u32 uar;
	u32 users;
	struct list_head list;
	u64 dm_addr;
	u32 dm_size;
	u32 dm_page;
};

/**
 * struct mlx5c_ib_dm - device memory (ibv_alloc_dm)
 * @ibdm: ib_core DM
 * @entry: its mmap entry, which owns the MEMIC allocation
 * @dev_addr: the allocation's BAR0 offset
 * @size: the length asked for
 */
struct mlx5c_ib_dm {
	struct ib_dm ibdm;
	struct mlx5c_ib_mmap_entry *entry;
	u64 dev_addr;
	u64 size;
};

static inline struct mlx5c_ib_dm *to_mdm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct mlx5c_ib_dm, ibdm);
}

static inline struct mlx5c_ib_mmap_entry *
to_mmap_entry(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct mlx5c_ib_mmap_entry, rdma);
}

/**
 * struct mlx5c_ib_pd - protection domain
 * @ibpd: ib_core PD
 * @pdn: firmware PD number
 * @uid: the user context it belongs to (mlx5c_ib_udata_uid()); the MKeys
 *	on it are created with it too
 * @devx_users: DEVX keys on it (devx.c), under the context's lock
 * @devx_orphans: DEVX keys on it that the firmware refused to destroy: the
 *	PD goes with them, as an orphan (devx.c), under the context's lock
 */
struct mlx5c_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
	u16 uid;
	u32 devx_users;
	u32 devx_orphans;
};

/**
 * struct mlx5c_ib_xrcd - XRC domain
 * @ibxrcd: ib_core XRCD
 * @xrcdn: firmware XRCD number
 * @uid: the user context it belongs to
 */
struct mlx5c_ib_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
	u16 uid;
};

/**
 * struct mlx5c_ib_mr - memory region
 * @ibmr: ib_core MR
 * @umem: pinned user memory
 * @mkey: the memory key (lkey == rkey)
 * @uid: the user context of its PD, which the key's commands carry
 * @descs: page list of a fast-registration MR (MTT entries)
 * @descs_dma: its bus address
 * @max_descs: entries @descs holds
 * @ndescs: entries mapped by the last map_mr_sg
 * @access: IB_ACCESS_* flags of a user MR
 * @umr_en: its key was created UMR-enabled: the UMR QP may change its
 *	rights and PD in place (umr_qp.c)
 * @movable: a DMA-BUF MR whose buffer may move (not pinned)
 * @invalidated: @movable, and its buffer moved: the key is destroyed
 *	(set under the buffer's reservation lock)
 */
struct mlx5c_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	int access;
	u32 mkey;
	u16 uid;
	bool umr_en;
	bool movable;
	bool invalidated;
	__be64 *descs;
	dma_addr_t descs_dma;
	u32 max_descs;
	u32 ndescs;
};

/**
 * struct mlx5c_ib_mw - memory window
 * @ibmw: ib_core MW
 * @mkey: the KLM memory key as created (a type 1 bind changes the
 *	variant the consumer sees; the index stays)
 * @uid: the user context of its PD
 */
struct mlx5c_ib_mw {
	struct ib_mw ibmw;
	u32 mkey;
	u16 uid;
};

/**
 * struct mlx5c_ib_cq - completion queue
 * @ibcq: ib_core CQ
 * @mcq: the CQ as mlx5_core dispatches it
 * @ctx: user context it belongs to
 * @umem: pinned CQE ring
 * @db: doorbell record
 * @cqe_size: 64 or 128
 * @kbuf: CQE ring and doorbell record of a kernel CQ
 * @lock: serialises polling, arming and cleaning of a kernel CQ
 * @cons_index: consumer index of a kernel CQ
 * @kcq_entry: in the device's list of kernel CQs
 * @resize_mutex: serialises resizes of a user CQ (@umem, @cqe_size)
 * @dyn_uar: the dynamic UAR page a user CQ is armed through, or -1
 * @oi: overrun ignored (IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN), no CQ error when full
 */
struct mlx5c_ib_cq {
	struct ib_cq ibcq;
	struct mlx5c_cq mcq;
	struct mlx5c_ib_ucontext *ctx;
	struct ib_umem *umem;
	struct mlx5c_ib_db db;
	u32 cqe_size;
	struct mlx5c_buf kbuf;
	spinlock_t lock; /* poll, arm and clean */
	u32 cons_index;
	struct list_head kcq_entry;
	struct mutex resize_mutex;
	s64 dyn_uar;
	bool oi;
};

/**
 * struct mlx5c_ib_wq - a send or receive queue of a kernel QP
 * @lock: serialises posting (and, for the SQ, its completion bookkeeping)
 * @wqe_cnt: entries (SQ: 64-byte basic blocks; RQ: WQEs), a power of two
 * @offset: byte offset of the queue in the QP's ring
 * @shift: log2 of the stride (RQ)
 * @max_gs: scatter/gather entries per WQE
 * @head: producer counter (SQ: basic blocks)
 * @tail: consumer counter, advanced by completions
 * @wrid: wr_id of each entry
 * @next: SQ: head after the WQE that starts at the entry
 * @wc_op: SQ: ib_wc_opcode of the WQE that starts at the entry
 */
struct mlx5c_ib_wq {
	spinlock_t lock; /* posting */
	u32 wqe_cnt;
	u32 offset;
	u32 shift;
	u32 max_gs;
	u32 head;
	u32 tail;
	u64 *wrid;
	u32 *next;
	u8 *wc_op;
};

/* The DC role of a QP of type IB_QPT_DRIVER (dc.c). */
enum mlx5c_ib_dc {
	MLX5C_IB_DC_NONE,
	MLX5C_IB_DCI,
	MLX5C_IB_DCT,
};

/**
 * struct mlx5c_ib_qp - queue pair
 * @ibqp: ib_core QP
 * @ctx: user context it belongs to
 * @umem: pinned RQ + SQ buffer
 * @db: doorbell record
 * @bfreg: kernel bfreg number in the context's static scheme, or -1
 * @dyn_uar: the dynamic UAR page the QP rings, or -1
 * @state: current state as the driver last set it
 * @sq_wqe_cnt: SQ size in basic blocks
 * @rq_wqe_cnt: RQ WQEs
 * @rq_wqe_shift: log2 of the RQ stride
 * @uidx: user index (CQE version 1)
 * @port: port number, once set
 * @refcount: references of event handlers
 * @free: signalled when @refcount drops to zero
 * @mutex: serialises modify_qp and query_qp
 * @attr: attributes applied so far (for query_qp)
 * @cap: capabilities the QP was created with
 * @max_inline: inline data the creator asked for
 * @sq_sig_all: every send WR is signalled
 * @qpn: the firmware QP number (ibqp.qp_num is 0 or 1 for special QPs)
 * @kbuf: RQ + SQ ring and doorbell record of a kernel QP
 * @sq: send queue of a kernel QP
 * @rq: receive queue of a kernel QP
 * @sq_wqe_max: largest send WQE of a kernel QP in bytes
 * @staging: a send WQE is built here, then copied into the ring (whose
 *	pages are not contiguous)
 * @kqp_entry: in the device's list of kernel QPs
 * @xrc_tgt: an XRC target: no rings, no user context (xrc.c)
 * @dc: a DC initiator or target, or neither (dc.c)
 * @dc_key: a DC target's access key
 * @dct_drained: a DC target's drain completed (DCT_DRAINED)
 */
struct mlx5c_ib_qp {
	struct ib_qp ibqp;
	struct mlx5c_ib_ucontext *ctx;
	struct ib_umem *umem;
	struct mlx5c_ib_db db;
	int bfreg;
	s64 dyn_uar;
	enum ib_qp_state state;
	u32 sq_wqe_cnt;
	u32 rq_wqe_cnt;
	u32 rq_wqe_shift;
	u32 uidx;
	u8 port;
	refcount_t refcount;
	struct completion free;
	struct mutex mutex; /* serialises modify_qp and query_qp */
	struct ib_qp_attr attr;
	struct ib_qp_cap cap;
	u32 max_inline;
	bool sq_sig_all;
	u32 qpn;
	struct mlx5c_buf kbuf;
	struct mlx5c_ib_wq sq;
	struct mlx5c_ib_wq rq;
	u32 sq_wqe_max;
	void *staging;
	struct list_head kqp_entry;
	bool xrc_tgt;
	enum mlx5c_ib_dc dc;
	u64 dc_key;
	struct completion dct_drained;
};

/**
 * struct mlx5c_ib_srq - shared receive queue
 * @ibsrq: ib_core SRQ
 * @ctx: user context it belongs to
 * @umem: pinned WQE buffer
 * @db: doorbell record
 * @srqn: firmware SRQ number
 * @max: WQEs in the ring
 * @max_gs: scatter entries per WQE
 * @limit: current limit (lwm)
 * @refcount: references of event handlers
 * @free: signalled when @refcount drops to zero
 * @kbuf: WQE ring and doorbell record of a kernel SRQ
 * @lock: serialises posting and freeing of a kernel SRQ's WQEs
 * @shift: log2 of the WQE stride (kernel SRQ)
 * @head: first free WQE (kernel SRQ)
 * @tail: last free WQE, never handed out, so the list is never empty
 * @counter: WQEs posted, the doorbell record's counter
 * @wrid: wr_id of each WQE (kernel SRQ)
 * @xrc: an XRC SRQ (the XRC_SRQ commands)
 */
struct mlx5c_ib_srq {
	struct ib_srq ibsrq;
	struct mlx5c_ib_ucontext *ctx;
	struct ib_umem *umem;
	struct mlx5c_ib_db db;
	u32 srqn;
	u32 max;
	u32 max_gs;
	u32 limit;
	refcount_t refcount;
	struct completion free;
	struct mlx5c_buf kbuf;
	spinlock_t lock; /* posting and freeing */
	u32 shift;
	u32 head;
	u32 tail;
	u16 counter;
	u64 *wrid;
	bool xrc;
};

/**
 * struct mlx5c_ib_ah - address handle (UD)
 * @ibah: ib_core AH
 * @attr: the address vector
 * @av: the address vector as kernel UD send WQEs carry it
 */
struct mlx5c_ib_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
	struct mlx5c_av av;
};

static inline struct mlx5c_ib_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mlx5c_ib_dev, ib);
}

static inline struct mlx5c_ib_ucontext *to_mucontext(struct ib_ucontext *uc)
{
	return container_of(uc, struct mlx5c_ib_ucontext, ibuc);
}

static inline struct mlx5c_ib_pd *to_mpd(struct ib_pd *pd)
{
	return container_of(pd, struct mlx5c_ib_pd, ibpd);
}

static inline struct mlx5c_ib_mr *to_mmr(struct ib_mr *mr)
{
	return container_of(mr, struct mlx5c_ib_mr, ibmr);
}

static inline struct mlx5c_ib_mw *to_mmw(struct ib_mw *mw)
{
	return container_of(mw, struct mlx5c_ib_mw, ibmw);
}

static inline struct mlx5c_ib_cq *to_mcq(struct ib_cq *cq)
{
	return container_of(cq, struct mlx5c_ib_cq, ibcq);
}

static inline struct mlx5c_ib_qp *to_mqp(struct ib_qp *qp)
{
	return container_of(qp, struct mlx5c_ib_qp, ibqp);
}

static inline struct mlx5c_ib_xrcd *to_mxrcd(struct ib_xrcd *xrcd)
{
	return container_of(xrcd, struct mlx5c_ib_xrcd, ibxrcd);
}

static inline struct mlx5c_ib_srq *to_msrq(struct ib_srq *srq)
{
	return container_of(srq, struct mlx5c_ib_srq, ibsrq);
}

static inline struct mlx5c_ib_ah *to_mlx5c_ah(struct ib_ah *ah)
{
	return container_of(ah, struct mlx5c_ib_ah, ibah);
}

#define MLX5C_IB_CAP(dev, fld) \
	MLX5_GET(cmd_hca_cap, mlx5c_cap_general((dev)->mdev), fld)

/*
 * The uid of the process's firmware user context (a DEVX context), which
 * every object it creates through the verbs carries, as its DEVX commands
 * do; 0 for the kernel's objects and for contexts without DEVX.
 */
static inline u16 mlx5c_ib_udata_uid(struct ib_udata *udata)
{
	struct mlx5c_ib_ucontext *ctx = rdma_udata_to_drv_context(
		udata, struct mlx5c_ib_ucontext, ibuc);

	return ctx ? ctx->devx_uid : 0;
}

/* The same for an object that remembers its context (NULL: the kernel's). */
static inline u16 mlx5c_ib_ctx_uid(struct mlx5c_ib_ucontext *ctx)
{
	return ctx ? ctx->devx_uid : 0;
}

/* Teardown commands that fail because the device is dead still free. */
static inline bool mlx5c_ib_gone(struct mlx5c_ib_dev *dev, int err)
{
	return err && (dev->fatal || mlx5c_dev_is_error(dev->mdev));
}

/* Firmware objects, in the order their destroy is retried (orphan.c). */
enum mlx5c_ib_obj {
	MLX5C_IB_OBJ_QP,
	MLX5C_IB_OBJ_DCT,
	MLX5C_IB_OBJ_SRQ,
	MLX5C_IB_OBJ_XRC_SRQ,
	MLX5C_IB_OBJ_MKEY,
	MLX5C_IB_OBJ_CQ,
	MLX5C_IB_OBJ_PD,
	MLX5C_IB_OBJ_XRCD,
	MLX5C_IB_OBJ_UCTX,
	MLX5C_IB_OBJ_NR
};

/* main.c */
int mlx5c_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			  struct ib_udata *udata);

/* port.c */
int mlx5c_ib_port_init(struct mlx5c_ib_dev *dev);
int mlx5c_ib_query_port(struct ib_device *ibdev, u32 port,
			struct ib_port_attr *props);
int mlx5c_ib_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *imm);
#ifdef HAVE_QUERY_PORT_SPEED
int mlx5c_ib_query_port_speed(struct ib_device *ibdev, u32 port, u64 *speed);
#endif
enum rdma_link_layer mlx5c_ib_link_layer(struct ib_device *ibdev, u32 port);
int mlx5c_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid);
int mlx5c_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			u16 *pkey);
int mlx5c_ib_query_node(struct mlx5c_ib_dev *dev, __be64 *node_guid,
			__be64 *sys_image_guid, char *node_desc);
int mlx5c_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			 struct ib_port_modify *props);
int mlx5c_ib_modify_device(struct ib_device *ibdev, int mask,
			   struct ib_device_modify *props);

/* sriov.c */
void mlx5c_ib_sriov_init(struct mlx5c_ib_dev *dev);

/* ucontext.c */
extern bool mlx5c_ib_blueflame;
int mlx5c_ib_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void mlx5c_ib_dealloc_ucontext(struct ib_ucontext *uctx);
void mlx5c_ib_ucontext_resp(struct mlx5c_ib_ucontext *ctx,
			    struct mlx5_ib_alloc_ucontext_resp *resp);
int mlx5c_ib_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void mlx5c_ib_disassociate_ucontext(struct ib_ucontext *uctx);
int mlx5c_ib_bfreg_alloc(struct mlx5c_ib_ucontext *ctx);
void mlx5c_ib_bfreg_free(struct mlx5c_ib_ucontext *ctx, int bfreg);
u32 mlx5c_ib_bfreg_uar(struct mlx5c_ib_ucontext *ctx, int bfreg);
u32 mlx5c_ib_bfreg_prov_index(int bfreg);

/* clock.c */
int mlx5c_ib_clock_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_clock_cleanup(struct mlx5c_ib_dev *dev);
int mlx5c_ib_mmap_clock_info(struct ib_ucontext *uctx,
			     struct vm_area_struct *vma, unsigned long version);
void mlx5c_ib_clock_attrs(struct mlx5c_ib_dev *dev,
			  struct ib_device_attr *props);
void mlx5c_ib_clock_resp(struct mlx5c_ib_dev *dev,
			 struct mlx5_ib_alloc_ucontext_resp *resp);
bool mlx5c_ib_clock_cq_ok(struct mlx5c_ib_dev *dev);
int mlx5c_ib_mmap_clock(struct ib_ucontext *uctx, struct vm_area_struct *vma);

/* uar_obj.c */
extern const struct uapi_definition mlx5c_ib_uar_defs[];
/* mmap command of dynamic UARs: past the provider's (uapi) ones */
#define MLX5C_MMAP_DYN_UAR	9
int mlx5c_ib_mmap_entry_insert(struct mlx5c_ib_ucontext *ctx,
			       struct mlx5c_ib_mmap_entry *e, size_t size,
			       u32 cmd);
u16 mlx5c_ib_mmap_entry_index(struct mlx5c_ib_mmap_entry *e);
u64 mlx5c_ib_mmap_entry_offset(struct mlx5c_ib_mmap_entry *e);
int mlx5c_ib_mmap_entry(struct ib_ucontext *uctx, struct vm_area_struct *vma,
			u32 cmd);
void mlx5c_ib_mmap_free(struct rdma_user_mmap_entry *rentry);
int mlx5c_ib_uar_get(struct mlx5c_ib_ucontext *ctx, u32 page);
void mlx5c_ib_uar_put(struct mlx5c_ib_ucontext *ctx, u32 page);

/* dm.c */
extern const struct uapi_definition mlx5c_ib_dm_defs[];
void mlx5c_ib_dm_init(struct mlx5c_ib_dev *dev);
u64 mlx5c_ib_dm_max_size(struct mlx5c_ib_dev *dev);
void mlx5c_ib_dm_release(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mmap_entry *e);
struct ib_dm *mlx5c_ib_alloc_dm(struct ib_device *ibdev,
				struct ib_ucontext *uctx,
				struct ib_dm_alloc_attr *attr,
				struct uverbs_attr_bundle *attrs);
int mlx5c_ib_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct ib_mr *mlx5c_ib_reg_dm_mr(struct ib_pd *pd, struct ib_dm *ibdm,
				 struct ib_dm_mr_attr *attr,
				 struct uverbs_attr_bundle *attrs);

/* devx.c */
extern const struct uapi_definition mlx5c_ib_devx_defs[];
int mlx5c_ib_devx_uctx_create(struct mlx5c_ib_dev *dev, u16 *uid);
void mlx5c_ib_devx_uctx_destroy(struct mlx5c_ib_dev *dev, u16 uid);

/* uapi.c */
extern const struct uapi_definition mlx5c_ib_uapi_defs[];
int mlx5c_ib_query_ucontext(struct ib_ucontext *uctx,
			    struct uverbs_attr_bundle *attrs);

/* doorbell.c */
int mlx5c_ib_db_map(struct mlx5c_ib_ucontext *ctx, u64 virt,
		    struct mlx5c_ib_db *db);
void mlx5c_ib_db_unmap(struct mlx5c_ib_ucontext *ctx, struct mlx5c_ib_db *db);

/* mem.c */
int mlx5c_ib_udata_in(struct ib_udata *udata, void *req, size_t min,
		      size_t size);
int mlx5c_ib_udata_out(struct ib_udata *udata, const void *resp, size_t size);
void mlx5c_ib_fill_pas(struct ib_umem *umem, unsigned long pgsz, __be64 *pas,
		       u64 flags);
/* Page sizes of queue buffers and MTTs: 4 KiB up to 1 GiB. */
#define MLX5C_IB_PGSZ_BITMAP	GENMASK_ULL(30, 12)
unsigned long mlx5c_ib_queue_pgsz(struct ib_umem *umem, u32 *page_offset);
int mlx5c_ib_qpages_init(struct mlx5c_ib_qpages *p, struct ib_umem *umem,
			 const struct mlx5c_buf *kbuf);
u32 mlx5c_ib_qpages_log(const struct mlx5c_ib_qpages *p);
void mlx5c_ib_qpages_fill(const struct mlx5c_ib_qpages *p, __be64 *pas);

/* pd.c */
int mlx5c_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mlx5c_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* mr.c */
/* Longest MR whose MTT list fits one CREATE_MKEY at 4 KiB pages. */
#define MLX5C_IB_MR_MAX_SIZE	SZ_4G
u64 mlx5c_ib_max_mr_size(struct mlx5c_ib_dev *dev);
u8 mlx5c_ib_mkey_variant(struct mlx5c_ib_dev *dev);

/* The MLX5C_MKC_* rights of IB access flags, for mlx5c_mkc_fill(). */
static inline u32 mlx5c_ib_mkc_rights(int access)
{
	return (access & IB_ACCESS_LOCAL_WRITE ? MLX5C_MKC_LW : 0) |
	       (access & IB_ACCESS_REMOTE_READ ? MLX5C_MKC_RR : 0) |
	       (access & IB_ACCESS_REMOTE_WRITE ? MLX5C_MKC_RW : 0) |
	       (access & IB_ACCESS_REMOTE_ATOMIC ? MLX5C_MKC_A : 0);
}
struct ib_mr *mlx5c_ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				   u64 iova, int access, struct ib_udata *udata);
int mlx5c_ib_check_user_mr(struct mlx5c_ib_dev *dev, u64 start, u64 length,
			   u64 iova, int access);
struct mlx5c_ib_mr *mlx5c_ib_user_mr(struct ib_pd *pd, struct ib_umem *umem,
				     u64 iova, u64 length, int access);
void mlx5c_ib_dmabuf_mr_stop(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mr *mr);
struct ib_mr *mlx5c_ib_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset,
					  u64 length, u64 iova, int fd,
					  int access, struct ib_udata *udata);
struct ib_mr *mlx5c_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				     u64 length, u64 iova, int access,
				     struct ib_pd *pd, struct ib_udata *udata);
int mlx5c_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *mlx5c_ib_get_dma_mr(struct ib_pd *pd, int access);
/* Longest page list of a fast-registration MR. */
#define MLX5C_IB_FRWR_MAX_PAGES	1024
struct ib_mr *mlx5c_ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				u32 max_num_sg);
int mlx5c_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		       int sg_nents, unsigned int *sg_offset);

/* mw.c */
bool mlx5c_ib_mw_supported(struct mlx5c_ib_dev *dev);
int mlx5c_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mlx5c_ib_dealloc_mw(struct ib_mw *ibmw);

/* umr_qp.c */
void mlx5c_ib_umr_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_umr_start(struct mlx5c_ib_dev *dev);
void mlx5c_ib_umr_cleanup(struct mlx5c_ib_dev *dev);
int mlx5c_ib_umr_rereg(struct mlx5c_ib_dev *dev, struct mlx5c_ib_mr *mr,
		       struct ib_pd *pd, int access);

/* umr.c */
bool mlx5c_ib_umr_supported(struct mlx5c_ib_dev *dev);
u32 mlx5c_ib_umr_wqe_size(struct mlx5c_ib_dev *dev, enum ib_qp_type type);
int mlx5c_ib_build_umr(struct mlx5c_ib_dev *dev, const struct ib_send_wr *wr,
		       void *seg, __be32 *imm);

/* cq.c */
int mlx5c_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct uverbs_attr_bundle *attrs);
#ifdef HAVE_CREATE_CQ_ATTR_BUNDLE
#define mlx5c_ib_create_cq_op mlx5c_ib_create_cq
#else
int mlx5c_ib_create_cq_op(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata);
#endif
int mlx5c_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);

/* xrc.c */
int mlx5c_ib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int mlx5c_ib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
void mlx5c_ib_xrc_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_xrc_cleanup(struct mlx5c_ib_dev *dev);
int mlx5c_ib_create_xrc_tgt_qp(struct mlx5c_ib_dev *dev,
			       struct mlx5c_ib_qp *qp,
			       struct ib_qp_init_attr *init,
			       struct ib_udata *udata);

/* cq_modify.c */
int mlx5c_ib_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period);
int mlx5c_ib_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		       struct ib_udata *udata);
#ifndef HAVE_RESIZE_USER_CQ
int mlx5c_ib_resize_cq_op(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
#endif

/* poll.c */
int mlx5c_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mlx5c_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void mlx5c_ib_cq_clean(struct mlx5c_ib_cq *cq, u32 qpn);

/* qp.c */
int mlx5c_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata);
int mlx5c_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init);
int mlx5c_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void mlx5c_ib_qp_init_common(struct mlx5c_ib_qp *qp,
			     struct ib_qp_init_attr *init);
void mlx5c_ib_qp_event(struct mlx5c_ib_dev *dev, u32 qpn, int type);
int mlx5c_ib_qp_st(enum ib_qp_type type);
int mlx5c_ib_qp_hw_st(const struct mlx5c_ib_qp *qp);
int mlx5c_ib_qp_user_index(struct mlx5c_ib_ucontext *ctx,
			   const struct mlx5_ib_create_qp *ucmd, u32 *uidx);

/* dc.c */
int mlx5c_ib_dc_role(struct mlx5c_ib_dev *dev, struct ib_qp_init_attr *init,
		     struct ib_udata *udata, enum mlx5c_ib_dc *dc);
int mlx5c_ib_dci_check(struct ib_qp_init_attr *init,
		       const struct mlx5_ib_create_qp *ucmd);
bool mlx5c_ib_dci_modify_ok(enum ib_qp_state cur, enum ib_qp_state new,
			    int mask);
int mlx5c_ib_create_dct(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
			struct ib_qp_init_attr *init, struct ib_udata *udata);
int mlx5c_ib_modify_dct(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr,
			int mask, struct ib_udata *udata);
int mlx5c_ib_query_dct(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr);
void mlx5c_ib_destroy_dct(struct mlx5c_ib_qp *qp);

/* qp_modify.c */
int mlx5c_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_udata *udata);
int mlx5c_ib_qp_access(const struct mlx5c_ib_qp *qp,
		       const struct ib_qp_attr *attr, int mask);
int mlx5c_ib_qp_check_attr(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
			   struct ib_qp_attr *attr, int mask);
void mlx5c_ib_qp_save(struct mlx5c_ib_qp *qp, struct ib_qp_attr *attr,
		      int mask);

/* qp_kernel.c */
int mlx5c_ib_kqp_alloc(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp,
		       struct ib_qp_init_attr *init);
void mlx5c_ib_kqp_free(struct mlx5c_ib_dev *dev, struct mlx5c_ib_qp *qp);
void mlx5c_ib_kqp_clean(struct mlx5c_ib_qp *qp);
void mlx5c_ib_kqp_reset(struct mlx5c_ib_qp *qp);

/* wr.c */
int mlx5c_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr);
int mlx5c_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
int mlx5c_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr);

/* srq.c */
int mlx5c_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			struct ib_udata *udata);
int mlx5c_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mlx5c_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mlx5c_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void mlx5c_ib_srq_event(struct mlx5c_ib_dev *dev, u32 srqn, int type);
void mlx5c_ib_srq_free_wqe(struct mlx5c_ib_srq *srq, u32 idx);

/* orphan.c */
int mlx5c_ib_destroy_cmd(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			 u32 num, u16 uid);
void mlx5c_ib_orphan(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind, u32 num,
		     u16 uid, struct ib_umem **umem, int err);
int mlx5c_ib_destroy_obj(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			 u32 num, u16 uid, struct ib_umem **umem);
void mlx5c_ib_orphan_kbuf(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			  u32 num, struct mlx5c_buf *kbuf, int err);
void mlx5c_ib_orphans_release(struct mlx5c_ib_dev *dev);
void mlx5c_ib_create_failed(struct mlx5c_ib_dev *dev, enum mlx5c_ib_obj kind,
			    int err, struct ib_umem *umem,
			    struct mlx5c_buf *kbuf);

/* counters.c */
int mlx5c_ib_counters_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_counters_cleanup(struct mlx5c_ib_dev *dev);
struct rdma_hw_stats *mlx5c_ib_alloc_hw_port_stats(struct ib_device *ibdev,
						   u32 port);
int mlx5c_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			  u32 port, int index);

/* fatal.c */
bool mlx5c_ib_dead(struct mlx5c_ib_dev *dev);
void mlx5c_ib_dead_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_dead_kick(struct mlx5c_ib_dev *dev);
void mlx5c_ib_dead_forget(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq);
void mlx5c_ib_dead_cleanup(struct mlx5c_ib_dev *dev);
int mlx5c_ib_dead_poll(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq,
		       struct ib_wc *wc, int num);

/* mcast.c */
int mlx5c_ib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int mlx5c_ib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* mad.c */
int mlx5c_ib_mad_ifc(struct mlx5c_ib_dev *dev, int flags, u32 port, u16 slid,
		     const struct ib_mad *in_mad, struct ib_mad *out_mad);
int mlx5c_ib_process_mad(struct ib_device *ibdev, int flags, u32 port,
			 const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			 const struct ib_mad *in_mad, struct ib_mad *out_mad,
			 size_t *out_mad_size, u16 *out_mad_pkey_index);

/* roce.c */
u32 mlx5c_ib_roce_port_caps(struct mlx5c_ib_dev *dev);
int mlx5c_ib_roce_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_roce_cleanup(struct mlx5c_ib_dev *dev);
int mlx5c_ib_add_gid(const struct ib_gid_attr *attr, void **context);
int mlx5c_ib_del_gid(const struct ib_gid_attr *attr, void **context);
int mlx5c_ib_roce_query_gid(struct mlx5c_ib_dev *dev, u32 port, int index,
			    union ib_gid *gid);
int mlx5c_ib_roce_check_ah(const struct rdma_ah_attr *ah);
void mlx5c_ib_roce_set_path(struct mlx5c_ib_dev *dev, void *ads,
			    const struct rdma_ah_attr *ah, u32 lqpn, u32 rqpn);
void mlx5c_ib_roce_set_av(struct mlx5c_ib_dev *dev, struct mlx5c_av *av,
			  const struct rdma_ah_attr *ah);

/* netdev.c */
int mlx5c_ib_netdev_init(struct mlx5c_ib_dev *dev);
void mlx5c_ib_netdev_cleanup(struct mlx5c_ib_dev *dev);
int mlx5c_ib_query_port_eth(struct mlx5c_ib_dev *dev, u32 port,
			    struct ib_port_attr *props);

/* ah.c */
int mlx5c_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		       struct ib_udata *udata);
int mlx5c_ib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int mlx5c_ib_destroy_ah(struct ib_ah *ibah, u32 flags);

#endif /* MLX5C_IB_H */
