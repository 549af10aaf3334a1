/* SPDX-License-Identifier: GPL-2.0 */
/* mlx5_core internal definitions. */
#ifndef MLX5C_CORE_INTERNAL_H
#define MLX5C_CORE_INTERNAL_H

#include <linux/if_ether.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>
#include <mlx5c/core.h>
#include <mlx5c/hw.h>
#include <mlx5c/kcompat.h>

#include "bh.h"

#define MLX5C_DRV_NAME MLX5C_CORE_DRV_NAME
#define MLX5C_DRV_VERSION "0.1.0"	/* = PACKAGE_VERSION in dkms.conf */

/* Command status 0x7 (FW not ready), absent from older mlx5_ifc.h. */
#define MLX5C_CMD_STAT_NOT_READY	0x7

/* Synthesised completion of commands aborted by the driver. */
#define MLX5C_DRIVER_STATUS_ABORTED	0xfe
#define MLX5C_DRIVER_SYND		0xbadd00de

#define MLX5C_CAP_TYPES			0x30

/* Generic command header layouts, for MLX5_GET/MLX5_SET. */
struct mlx5_ifc_mlx5c_hdr_in_bits {
	u8 opcode[0x10];
	u8 uid[0x10];
	u8 reserved_at_20[0x10];
	u8 op_mod[0x10];
	u8 reserved_at_40[0x40];
};

struct mlx5_ifc_mlx5c_hdr_out_bits {
	u8 status[0x8];
	u8 reserved_at_8[0x18];
	u8 syndrome[0x20];
	u8 reserved_at_40[0x40];
};

#define MLX5C_CAP_GEN(mdev, fld) \
	MLX5_GET(cmd_hca_cap, (mdev)->caps.cur[MLX5_CAP_GENERAL], fld)
#define MLX5C_CAP_GEN_MAX(mdev, fld) \
	MLX5_GET(cmd_hca_cap, (mdev)->caps.max[MLX5_CAP_GENERAL], fld)

struct mlx5c_cmd_ent;
struct dma_pool;

/*
 * Event notifier chains (eq.c): one per EQE type, and MLX5C_EVENT_ANY for
 * the subscribers to every event (mlx5c_event_register()).
 */
#define MLX5C_EVENT_ANY		MLX5_EVENT_TYPE_MAX
#define MLX5C_EVENT_CHAINS	(MLX5C_EVENT_ANY + 1)

/**
 * struct mlx5c_nb - a subscription to one type of EQE
 * @nb: the notifier; action: the EQE type, data: the const struct mlx5_eqe *
 * @event_type: MLX5_EVENT_TYPE_* of <linux/mlx5/device.h>
 */
struct mlx5c_nb {
	struct notifier_block nb;
	u8 event_type;
};
struct dentry;
struct devlink;
struct devlink_health_reporter;

enum mlx5c_cmd_mode {
	MLX5C_CMD_POLLING,
	MLX5C_CMD_EVENTS,
};

#define MLX5C_CMD_HIST_BUCKETS		16

/**
 * struct mlx5c_cmd_stats - per-opcode command statistics
 * @n: commands completed (including failures)
 * @failed: commands that returned an error
 * @timeouts: commands that timed out
 * @total_ns: sum of latencies
 * @max_ns: largest latency
 * @hist: latency histogram, bucket i counts latencies in [2^(i-1), 2^i) us
 */
struct mlx5c_cmd_stats {
	u64 n;
	u64 failed;
	u64 timeouts;
	u64 total_ns;
	u64 max_ns;
	u64 hist[MLX5C_CMD_HIST_BUCKETS];
};

/**
 * struct mlx5c_cmd - the command queue
 * @q: queue page (CPU address), one 4 KiB page
 * @dma: its bus address
 * @log_sz: log2 of the number of slots
 * @log_stride: log2 of the slot stride
 * @max_reg: number of slots for regular commands; slot @max_reg is for
 *	MANAGE_PAGES
 * @sem: counts free regular slots
 * @pages_sem: the MANAGE_PAGES slot
 * @lock: protects @busy, @ent, @token and the stats
 * @busy: bitmap of slots owned by a command
 * @ent: command in each slot
 * @token: last token used
 * @mode: polling or events
 * @error: internal-error state: commands fail without reaching the device
 * @pool: mailbox blocks
 * @wq: runs asynchronous commands
 * @stats: per-opcode statistics (struct mlx5c_cmd_stats), by opcode
 * @stale: commands abandoned by their caller and still owned by the device
 * @timeout_ms: command timeout
 * @nb: subscription to command-completion EQEs
 */
struct mlx5c_cmd {
	void *q;
	dma_addr_t dma;
	u8 log_sz;
	u8 log_stride;
	u8 max_reg;
	struct semaphore sem;
	struct semaphore pages_sem;
	spinlock_t lock;	/* slots, tokens, statistics */
	unsigned long busy;
	struct mlx5c_cmd_ent *ent[MLX5_MAX_COMMANDS];
	u8 token;
	enum mlx5c_cmd_mode mode;
	bool error;
	struct dma_pool *pool;
	struct workqueue_struct *wq;
	struct xarray stats;
	unsigned int stale;
	unsigned int timeout_ms;
	struct mlx5c_nb nb;
};

/**
 * struct mlx5c_caps - capability buffers (struct cmd_hca_cap layout etc.)
 * @cur: current values by capability type, NULL when not queried
 * @max: maximum values by capability type, NULL when not queried
 */
struct mlx5c_caps {
	void *cur[MLX5C_CAP_TYPES];
	void *max[MLX5C_CAP_TYPES];
};

/**
 * struct mlx5c_pages - firmware page accounting
 * @wq: ordered workqueue running page requests
 * @pages: struct page by bus address >> 12 of every page given to the FW;
 *	each page's private field is the function it was given for (0: this
 *	function, n: VF n - 1 of a PF)
 * @count: pages currently owned by the firmware, for every function
 * @vf_count: of @count, the pages given on behalf of VFs (per VF:
 *	struct mlx5c_vf)
 * @boot: boot pages given
 * @init: init pages given
 * @given: pages given in total
 * @reclaimed: pages returned by the firmware in total
 * @freed_locally: pages freed without the firmware returning them
 * @requests: page-request events received
 * @give_failed: GIVE requests that could not be satisfied
 * @refused: GIVE requests beyond the limit (max_fw_pages_pct), refused whole
 * @vf_requests: page-request events for another function than this one
 *	(a VF of this PF, or refused as @bad_func)
 * @bad_func: page requests for a function this PF does not have, refused
 * @nb: subscription to page-request EQEs
 */
struct mlx5c_pages {
	struct workqueue_struct *wq;
	struct xarray pages;
	atomic_t count;
	atomic_t vf_count;
	u32 boot;
	u32 init;
	u64 given;
	u64 reclaimed;
	u64 freed_locally;
	u64 requests;
	u64 give_failed;
	u64 refused;
	u64 vf_requests;
	u64 bad_func;
	struct mlx5c_nb nb;
};

/**
 * struct mlx5c_vf - one virtual function of a PF, as the PF sees it
 *	(sriov.c)
 * @enabled: the PF enabled it in the device (ENABLE_HCA function_id
 *	vf + 1) and has not disabled it since
 * @pages: pages the PF gave the firmware on its behalf (pagealloc.c)
 * @hca: what the PF's administrator set in its HCA vport (InfiniBand:
 *	GUIDs, link policy; the fields of hca.field_select), written to the
 *	device again each time the VF is enabled in it; under
 *	&mlx5c_sriov.hca_lock
 */
struct mlx5c_vf {
	bool enabled;
	atomic_t pages;
	struct mlx5c_vf_hca hca;
};

/**
 * struct mlx5c_sriov - SR-IOV of a PF (sriov.c)
 * @max_vfs: TotalVFs of the function's SR-IOV capability; 0: none (no
 *	capability, or a VF)
 * @num_vfs: VFs the PCI core has through sriov_numvfs; the PF keeps them
 *	enabled in the device, and enables them again after a recovery
 * @vfs: @max_vfs entries, VF n (function_id n + 1) at index n
 * @hca_lock: serialises the VFs' HCA vport settings (mlx5_ib's VF ops,
 *	under RTNL) with their restore (under state_lock); taken after either
 */
struct mlx5c_sriov {
	u16 max_vfs;
	u16 num_vfs;
	struct mlx5c_vf *vfs;
	struct mutex hca_lock;	/* the vfs' hca settings */
};

/* Unicast addresses of a VF the e-switch follows (its vport's list). */
#define MLX5C_ESW_MAX_UC	16

/**
 * struct mlx5c_esw_acl - one ACL table of a vport (eswitch/acl.c)
 * @ft: the table, 0 while there is none
 * @fg_allow: the group of the allow rule
 * @fg_drop: the group of the drop-all rule
 */
struct mlx5c_esw_acl {
	u32 ft;
	u32 fg_allow;
	u32 fg_drop;
};

/**
 * struct mlx5c_esw_vport - one VF's vport of the legacy e-switch
 * @esw: the e-switch
 * @num: vport number (VF n: n + 1)
 * @enabled: the e-switch serves it (between enable and disable)
 * @mac: the MAC its manager set (ip link set <pf> vf N mac), or zero
 * @vlan: VLAN switch tagging (VST) VID, 0: none
 * @qos: VST priority
 * @spoofchk: frames from the VF with another source MAC are dropped
 * @trust: the VF's promiscuous modes are honoured
 * @link_state: IFLA_VF_LINK_STATE_*
 * @uc: the unicast addresses the VF last published, in the MPFS and FDB
 * @uc_fte: each one's FDB flow index
 * @n_uc: how many
 * @promisc: the VF asked for a promiscuous mode (honoured when trusted)
 * @ingress: ingress ACL (spoof check, VST: frames from the VF)
 * @egress: egress ACL (VST: frames to the VF)
 * @change_work: reads the VF's addresses after a NIC_VPORT_CHANGE
 *
 * The settings (@mac to @link_state) stay across a disable and a
 * recovery, as the PF's administrator made them.
 */
struct mlx5c_esw_vport {
	struct mlx5c_eswitch *esw;
	u16 num;
	bool enabled;
	u8 mac[ETH_ALEN];
	u16 vlan;
	u8 qos;
	bool spoofchk;
	bool trust;
	int link_state;
	u8 uc[MLX5C_ESW_MAX_UC][ETH_ALEN];
	u32 uc_fte[MLX5C_ESW_MAX_UC];
	int n_uc;
	bool promisc;
	struct mlx5c_esw_acl ingress;
	struct mlx5c_esw_acl egress;
	struct work_struct change_work;
};

/**
 * struct mlx5c_eswitch - the legacy e-switch of a PF with VFs (eswitch/)
 * @mdev: the PF
 * @lock: serialises the settings, the tables and the change handling
 * @wq: runs the vports' change work
 * @vports: @nvports entries, VF n at index n (index 0 unused: the PF's
 *	own vport is its netdev's)
 * @nvports: TotalVFs + 1
 * @enabled_vfs: VFs served now, 0 while disabled
 * @fdb: the FDB table, 0 while disabled
 * @fdb_fg: its group (destination MAC)
 * @fdb_used: flow indexes in use
 * @fdb_size: flow indexes of @fdb
 * @nb: subscription to NIC_VPORT_CHANGE EQEs
 */
struct mlx5c_eswitch {
	struct mlx5c_dev *mdev;
	struct mutex lock;	/* settings, tables, change handling */
	struct workqueue_struct *wq;
	struct mlx5c_esw_vport *vports;
	u16 nvports;
	u16 enabled_vfs;
	u32 fdb;
	u32 fdb_fg;
	unsigned long *fdb_used;
	u32 fdb_size;
	struct mlx5c_nb nb;
};

/**
 * struct mlx5c_mpfs - the L2 table of the uplink (eswitch/mpfs.c): the
 *	unicast MACs the adapter takes in, the PF's and its VFs'
 * @lock: protects the fields below
 * @size: entries of the device's table (log_max_l2_table), 0: no MPFS
 *	(not an e-switch manager)
 * @used: table indexes in use
 * @list: struct mlx5c_mpfs_entry, one per MAC
 * @own: the PF netdev's unicast addresses (mlx5c_mpfs_set_own())
 * @n_own: how many
 */
struct mlx5c_mpfs {
	struct mutex lock;	/* the table */
	u32 size;
	unsigned long *used;
	struct list_head list;
	u8 (*own)[ETH_ALEN];
	int n_own;
};

/**
 * struct mlx5c_irq - one MSI-X vector
 * @irqn: Linux IRQ number
 * @index: MSI-X table index
 * @nh: EQs attached to this vector
 * @name: name shown in /proc/interrupts
 */
struct mlx5c_irq {
	int irqn;
	int index;
	struct atomic_notifier_head nh;
	char name[48];
};

enum mlx5c_eq_kind {
	MLX5C_EQ_CMD,
	MLX5C_EQ_ASYNC,
	MLX5C_EQ_PAGES,
	MLX5C_EQ_COMP,
};

/**
 * struct mlx5c_eq - an event queue
 * @mdev: owning device
 * @kind: what the EQ is for
 * @eqn: EQ number assigned by the firmware
 * @log_nent: log2 of the number of entries
 * @buf: the EQE ring (buf.c)
 * @cons_index: consumer index
 * @irq: the vector the EQ interrupts on
 * @nb: notifier on @irq
 * @lock: serialises polling between the IRQ and recovery
 * @armed: the EQ was armed and has not fired since
 * @eqes: EQEs consumed
 * @interrupts: interrupts handled
 * @cq_table: CQs by CQN (completion EQs and the async EQ)
 * @bh_lock: protects @bh_list
 * @bh_list: CQs with pending completion events
 * @bh: bottom half calling the CQs' completion callbacks
 * @vecidx: completion vector index (completion EQs)
 */
struct mlx5c_eq {
	struct mlx5c_dev *mdev;
	enum mlx5c_eq_kind kind;
	u8 eqn;
	u8 log_nent;
	struct mlx5c_buf buf;
	u32 cons_index;
	struct mlx5c_irq *irq;
	struct notifier_block nb;
	spinlock_t lock;	/* EQ polling */
	bool armed;
	u64 eqes;
	u64 interrupts;
	struct xarray cq_table;
	spinlock_t bh_lock;	/* bh_list */
	struct list_head bh_list;
	struct mlx5c_bh bh;
	int vecidx;
};

/**
 * struct mlx5c_health - health poller and internal-error state
 * @error: the device is in the internal-error state (mlx5c_enter_error())
 * @fatal_nh: told of the fatal conditions the poller finds (recovery.c
 *	subscribes)
 * @wq: runs the poll
 * @work: periodic poll
 * @last_counter: health counter at the previous poll
 * @misses: consecutive polls without a counter change
 * @last_synd: syndrome at the previous poll
 * @hb_counter: health counter when it was last seen moving
 * @hb_seen: jiffies of that observation (0: not polling yet)
 * @polls: number of polls
 * @fatal_reason: why the device was declared failed, or NULL
 * @stopped: no more polls
 * @errors: times the device entered the internal-error state
 * @recoveries: recoveries that brought the device back
 * @failed_recoveries: consecutive recoveries that failed
 * @recover_wq: runs @recover_work
 * @recover_work: recovery from the internal-error state
 * @recover_nb: recovery's subscription to @fatal_nh
 * @no_recovery: the device is going away; nothing is recovered any more
 * @fw_reporter: devlink health reporter "fw" (syndromes), or NULL
 * @fatal_reporter: devlink health reporter "fw_fatal" (recovery), or NULL
 * @fw_report_work: reports @report_synd to @fw_reporter (devlink.c)
 * @report_synd: the syndrome the poller found last
 */
struct mlx5c_health {
	bool error;
	struct devlink_health_reporter *fw_reporter;
	struct devlink_health_reporter *fatal_reporter;
	struct work_struct fw_report_work;
	u8 report_synd;
	struct blocking_notifier_head fatal_nh;
	struct workqueue_struct *wq;
	struct delayed_work work;
	u32 last_counter;
	unsigned int misses;
	u8 last_synd;
	u32 hb_counter;
	unsigned long hb_seen;
	u64 polls;
	const char *fatal_reason;
	bool stopped;
	u32 errors;
	u32 recoveries;
	u32 failed_recoveries;
	struct workqueue_struct *recover_wq;
	struct work_struct recover_work;
	struct notifier_block recover_nb;
	bool no_recovery;
};

/**
 * struct mlx5c_quarantine - memory kept until bus mastering is off
 *	(quarantine.c)
 * @lock: protects the fields below
 * @list: struct mlx5c_quarantined entries
 * @held: entries on @list
 * @bytes: bytes on @list
 * @total: entries ever put on the list
 */
struct mlx5c_quarantine {
	spinlock_t lock;	/* list and counters */
	struct list_head list;
	unsigned int held;
	u64 bytes;
	u64 total;
};

struct mlx5c_test;

/**
 * struct mlx5c_dev - one ConnectX PCI function driven by mlx5_core
 * @pdev: the PCI function
 * @iseg: mapped initialization segment
 * @bar_addr: bus address of BAR0
 * @fw_major: firmware major version
 * @fw_minor: firmware minor version
 * @fw_sub: firmware sub-minor version
 * @ecpu: embedded-CPU function
 * @is_vf: bound through a virtual function's device ID (a VF, or a VF
 *	passed to a VM)
 * @issi: interface step sequence ID in use
 * @board_id: PSID from QUERY_ADAPTER
 * @cmd: command queue
 * @caps: capabilities
 * @pages: firmware pages
 * @sriov: SR-IOV (a PF with the capability)
 * @esw: the legacy e-switch (a PF with the SR-IOV capability), or NULL
 * @mpfs: the uplink's L2 table (an e-switch manager)
 * @health: health poller
 * @quarantine: memory the device may still write, freed once it no longer
 *	masters the bus
 * @state_lock: serialises loading and unloading (probe, remove, recovery,
 *	PCI resets)
 * @loaded: mlx5c_load_one() succeeded, mlx5c_unload_one() not run yet
 * @pci_reset: unloaded for a PCI reset or error recovery that is not over
 * @hca_enabled: ENABLE_HCA succeeded
 * @hca_inited: INIT_HCA succeeded
 * @uar_index: the kernel UAR
 * @uar_map: mapping of the kernel UAR page
 * @num_vectors: MSI-X vectors allocated
 * @irqs: one per vector
 * @cmd_eq: command EQ
 * @async_eq: asynchronous-event EQ
 * @pages_eq: page-request EQ
 * @num_comp_eqs: completion EQs
 * @comp_eqs: completion EQs by vector
 * @cqs: every CQ created through mlx5c_cq_create(), by CQN
 * @event_nh: event notifier chains, by EQE type, and MLX5C_EVENT_ANY
 * @cq_err_nb: subscription to CQ-error EQEs
 * @dbg: debugfs directory
 * @test: self-test state (test.c; MLX5C_TEST=1 builds only)
 * @rdma_adev: auxiliary device "rdma"
 * @eth_adev: auxiliary device "eth" (Ethernet ports)
 * @netdev: the Ethernet netdev while it is registered (en/main.c), for
 *	mlx5c_netdev_get() and mlx5c_netdev_set() (aux.c)
 * @db_pages: pages of doorbell records (buf.c); an empty hlist is all
 *	zeroes, so it needs no initialisation
 */
struct mlx5c_dev {
	struct pci_dev *pdev;
	void __iomem *iseg;
	resource_size_t bar_addr;
	u16 fw_major, fw_minor, fw_sub;
	bool ecpu;
	bool is_vf;	/* a virtual function's device ID */
	u16 issi;
	char board_id[17];
	struct mlx5c_cmd cmd;
	struct mlx5c_caps caps;
	struct mlx5c_pages pages;
	struct mlx5c_sriov sriov;
	struct mlx5c_eswitch *esw;
	struct mlx5c_mpfs mpfs;
	struct mlx5c_health health;
	struct mlx5c_quarantine quarantine;
	struct mutex state_lock;	/* load and unload */
	bool loaded;
	bool pci_reset;
	bool hca_enabled;
	bool hca_inited;
	u32 uar_index;
	void __iomem *uar_map;
	int num_vectors;
	struct mlx5c_irq *irqs;
	struct mlx5c_eq *cmd_eq;
	struct mlx5c_eq *async_eq;
	struct mlx5c_eq *pages_eq;
	int num_comp_eqs;
	struct mlx5c_eq **comp_eqs;
	struct xarray cqs;
	struct atomic_notifier_head event_nh[MLX5C_EVENT_CHAINS];
	struct mlx5c_nb cq_err_nb;
	struct dentry *dbg;
	struct devlink *devlink;
	struct mlx5c_test *test;
	struct mlx5c_adev *rdma_adev;
	struct mlx5c_adev *eth_adev;
	struct net_device __rcu *netdev;
	struct hlist_head db_pages;
};

static inline u32 mlx5c_iseg_read(struct mlx5c_dev *mdev, unsigned int off)
{
	return ioread32be(mdev->iseg + off);
}

/* main.c */
int mlx5c_load_one(struct mlx5c_dev *mdev);
void mlx5c_unload_one(struct mlx5c_dev *mdev);

/* recovery.c */
int mlx5c_recover_init(struct mlx5c_dev *mdev);
void mlx5c_recover_cleanup(struct mlx5c_dev *mdev);
void mlx5c_recover_disable(struct mlx5c_dev *mdev);
int mlx5c_recover(struct mlx5c_dev *mdev);
bool mlx5c_recover_auto(void);
extern const struct pci_error_handlers mlx5c_err_handler;
extern const struct attribute_group *mlx5c_dev_groups[];

/* quarantine.c */
void mlx5c_quarantine_init(struct mlx5c_dev *mdev);
void mlx5c_quarantine_release(struct mlx5c_dev *mdev);

/* aux.c */
int mlx5c_aux_add(struct mlx5c_dev *mdev);
void mlx5c_aux_del(struct mlx5c_dev *mdev);
bool mlx5c_port_is_eth(struct mlx5c_dev *mdev);

/* cmd.c */
int mlx5c_cmd_init(struct mlx5c_dev *mdev);
void mlx5c_cmd_cleanup(struct mlx5c_dev *mdev);
void mlx5c_cmd_use_events(struct mlx5c_dev *mdev);
void mlx5c_cmd_use_polling(struct mlx5c_dev *mdev);
int __mlx5c_cmd_exec(struct mlx5c_dev *mdev, const void *in, int inlen,
		     void *out, int outlen, bool quiet);
void mlx5c_cmd_flush(struct mlx5c_dev *mdev);
void mlx5c_cmd_reap(struct mlx5c_dev *mdev);
int mlx5c_cmd_errno(u8 status);
const char *mlx5c_cmd_status_str(u8 status);
extern unsigned int mlx5c_cmd_timeout_ms;

/* cmd_names.c */
const char *mlx5c_opcode_name(u16 opcode);

/* caps.c */
int mlx5c_caps_query(struct mlx5c_dev *mdev, unsigned int type);
int mlx5c_caps_set_general(struct mlx5c_dev *mdev);
int mlx5c_caps_set_atomic(struct mlx5c_dev *mdev);
int mlx5c_caps_set_roce(struct mlx5c_dev *mdev);
int mlx5c_caps_query_optional(struct mlx5c_dev *mdev);
void mlx5c_caps_free(struct mlx5c_dev *mdev);

/* pagealloc.c */
int mlx5c_pages_init(struct mlx5c_dev *mdev);
void mlx5c_pages_cleanup(struct mlx5c_dev *mdev);
int mlx5c_pages_startup(struct mlx5c_dev *mdev, bool boot);
void mlx5c_pages_reclaim_all(struct mlx5c_dev *mdev);
void mlx5c_pages_flush(struct mlx5c_dev *mdev);
int mlx5c_pages_wait_vfs(struct mlx5c_dev *mdev, unsigned int timeout_ms);

/* sriov.c */
int mlx5c_sriov_init(struct mlx5c_dev *mdev);
void mlx5c_sriov_cleanup(struct mlx5c_dev *mdev);
int mlx5c_sriov_configure(struct pci_dev *pdev, int num_vfs);
void mlx5c_sriov_remove(struct mlx5c_dev *mdev);
void mlx5c_sriov_detach(struct mlx5c_dev *mdev);
void mlx5c_sriov_attach(struct mlx5c_dev *mdev);

/* vport.c (the exported ones are in <mlx5c/core.h>) */
int mlx5c_vport_modify_state(struct mlx5c_dev *mdev, u8 opmod, u16 vport, bool other, u8 admin);
int mlx5c_vport_query_nic_uc(struct mlx5c_dev *mdev, u16 vport, bool other,
			     u8 *addrs, int max, bool *promisc);

/* eswitch/eswitch.c */
int mlx5c_eswitch_init(struct mlx5c_dev *mdev);
void mlx5c_eswitch_cleanup(struct mlx5c_dev *mdev);
int mlx5c_eswitch_enable(struct mlx5c_dev *mdev, int num_vfs);
void mlx5c_eswitch_disable(struct mlx5c_dev *mdev);
bool mlx5c_eswitch_supported(struct mlx5c_dev *mdev);

/* eswitch/acl.c */
int mlx5c_esw_acl_ingress(struct mlx5c_esw_vport *vp);
int mlx5c_esw_acl_egress(struct mlx5c_esw_vport *vp);
void mlx5c_esw_acl_destroy(struct mlx5c_esw_vport *vp, struct mlx5c_esw_acl *acl, u8 type);

/* eswitch/mpfs.c */
void mlx5c_mpfs_init(struct mlx5c_dev *mdev);
int mlx5c_mpfs_load(struct mlx5c_dev *mdev);
void mlx5c_mpfs_unload(struct mlx5c_dev *mdev);
int mlx5c_mpfs_add(struct mlx5c_dev *mdev, const u8 *mac);
void mlx5c_mpfs_del(struct mlx5c_dev *mdev, const u8 *mac);

/* irq.c */
int mlx5c_irqs_alloc(struct mlx5c_dev *mdev, int want);
void mlx5c_irqs_free(struct mlx5c_dev *mdev);

/* eq.c */
void mlx5c_events_init(struct mlx5c_dev *mdev);
int mlx5c_eq_notifier_register(struct mlx5c_dev *mdev, struct mlx5c_nb *nb);
int mlx5c_eq_notifier_unregister(struct mlx5c_dev *mdev, struct mlx5c_nb *nb);
void mlx5c_event_notify(struct mlx5c_dev *mdev, unsigned long event);
int mlx5c_eqs_wanted_vectors(struct mlx5c_dev *mdev);
int mlx5c_eq_cmd_create(struct mlx5c_dev *mdev);
void mlx5c_eq_cmd_destroy(struct mlx5c_dev *mdev);
int mlx5c_eqs_create(struct mlx5c_dev *mdev);
void mlx5c_eqs_destroy(struct mlx5c_dev *mdev);
void mlx5c_eq_poll_cmd(struct mlx5c_dev *mdev);
void mlx5c_eq_arm(struct mlx5c_eq *eq, bool arm);

/* uar.c */
int mlx5c_kernel_uar_alloc(struct mlx5c_dev *mdev);
void mlx5c_kernel_uar_free(struct mlx5c_dev *mdev);

/* health.c */
void mlx5c_enter_error(struct mlx5c_dev *mdev, const char *reason);
void mlx5c_health_clear_error(struct mlx5c_dev *mdev);
int mlx5c_health_fatal_register(struct mlx5c_dev *mdev, struct notifier_block *nb);
void mlx5c_health_fatal_unregister(struct mlx5c_dev *mdev, struct notifier_block *nb);
int mlx5c_health_init(struct mlx5c_dev *mdev);
void mlx5c_health_cleanup(struct mlx5c_dev *mdev);
void mlx5c_health_start(struct mlx5c_dev *mdev);
void mlx5c_health_stop(struct mlx5c_dev *mdev);
void mlx5c_health_print(struct mlx5c_dev *mdev);

/**
 * struct mlx5c_health_buf - the health buffer of the initialization segment
 *	(struct health_buffer), in host byte order
 */
struct mlx5c_health_buf {
	u32 assert_var[6];
	u32 assert_exit_ptr;
	u32 assert_callra;
	u32 time;
	u32 fw_ver;
	u32 hw_id;
	u8 rfr_severity;
	u8 irisc_index;
	u8 synd;
	u16 ext_synd;
};

void mlx5c_health_buffer_read(struct mlx5c_dev *mdev, struct mlx5c_health_buf *hb);
const char *mlx5c_health_synd_str(u8 synd);


/* devlink.c */
int mlx5c_devlink_alloc(struct mlx5c_dev *mdev);
void mlx5c_devlink_register(struct mlx5c_dev *mdev);
void mlx5c_devlink_unregister(struct mlx5c_dev *mdev);
void mlx5c_devlink_free(struct mlx5c_dev *mdev);
void mlx5c_devlink_report_fw(struct mlx5c_dev *mdev, u8 synd);
int mlx5c_devlink_report_fatal(struct mlx5c_dev *mdev);
bool mlx5c_health_heartbeat_stopped(struct mlx5c_dev *mdev, unsigned int ms);

/* cq.c */
struct mlx5c_eq *mlx5c_comp_eq_by_eqn(struct mlx5c_dev *mdev, u32 eqn);
int mlx5c_cq_attach(struct mlx5c_dev *mdev, struct mlx5c_cq *cq, struct mlx5c_eq *eq);
void mlx5c_cq_detach(struct mlx5c_dev *mdev, struct mlx5c_cq *cq);
void mlx5c_cq_dispatch_bh(struct mlx5c_bh *bh);

/* debugfs.c */
void mlx5c_debugfs_init(struct mlx5c_dev *mdev);
void mlx5c_debugfs_cleanup(struct mlx5c_dev *mdev);
void mlx5c_debugfs_module_init(void);
void mlx5c_debugfs_module_exit(void);

/* test.c: the GEN_EQE self-test harness, built with MLX5C_TEST=1 only */
#ifdef MLX5C_TEST
void mlx5c_test_debugfs_init(struct mlx5c_dev *mdev);
void mlx5c_test_debugfs_cleanup(struct mlx5c_dev *mdev);
#else
static inline void mlx5c_test_debugfs_init(struct mlx5c_dev *mdev) {}
static inline void mlx5c_test_debugfs_cleanup(struct mlx5c_dev *mdev) {}
#endif

#endif /* MLX5C_CORE_INTERNAL_H */
