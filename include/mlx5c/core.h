/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between mlx5_core and mlx5_ib of mlx5-clone.
 *
 * mlx5_core owns the PCI function and the firmware; it exports what the
 * RDMA driver needs in the MLX5_CLONE symbol namespace. Exported symbols
 * carry the mlx5c_ prefix so they never collide with the in-tree driver's.
 *
 * Command layouts come from <linux/mlx5/mlx5_ifc.h> (MLX5_SET/MLX5_GET);
 * every structure exchanged with the device is big-endian.
 */
#ifndef MLX5C_CORE_H
#define MLX5C_CORE_H

#include <linux/auxiliary_bus.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include <mlx5c/hw.h>

#define MLX5C_AUX_RDMA_NAME	"rdma"
#define MLX5C_AUX_ETH_NAME	"eth"

struct mlx5c_dev;
struct mlx5c_eq;

/**
 * struct mlx5c_adev - auxiliary device published by mlx5_core
 * @adev: the auxiliary device ("mlx5_core.rdma.N": MLX5C_CORE_DRV_NAME)
 * @mdev: the core device it belongs to
 */
struct mlx5c_adev {
	struct auxiliary_device adev;
	struct mlx5c_dev *mdev;
};

static inline struct mlx5c_adev *to_mlx5c_adev(struct auxiliary_device *adev)
{
	return container_of(adev, struct mlx5c_adev, adev);
}

struct pci_dev *mlx5c_pdev(struct mlx5c_dev *mdev);
bool mlx5c_dev_is_vf(struct mlx5c_dev *mdev);
void mlx5c_fw_version(struct mlx5c_dev *mdev, u16 *major, u16 *minor, u16 *sub);
u64 mlx5c_internal_timer(struct mlx5c_dev *mdev);
const char *mlx5c_board_id(struct mlx5c_dev *mdev);
bool mlx5c_dev_is_error(struct mlx5c_dev *mdev);

/* ---- Ethernet -------------------------------------------------------- */

struct net_device;

struct net_device *mlx5c_netdev_get(struct mlx5c_dev *mdev);
void mlx5c_netdev_set(struct mlx5c_dev *mdev, struct net_device *netdev);

/*
 * The core module's name: its PCI driver's, and the prefix of the
 * auxiliary devices it publishes ("NAME.rdma.N", "NAME.eth.N") that the ib
 * module and the Ethernet driver match. core/Kbuild and ib/Kbuild define
 * MLX5C_CORE_MODNAME from MLX5C_MODNAME: "mlx5_core" by default,
 * "mlx5c_core" in the renamed test build (make modules-renamed).
 */
#ifndef MLX5C_CORE_MODNAME
#error "MLX5C_CORE_MODNAME is not defined (core/Kbuild and ib/Kbuild define it)"
#endif
#define MLX5C_CORE_DRV_NAME	MLX5C_CORE_MODNAME

/* The Ethernet auxiliary driver (core/en/main.c, part of the core module). */
int mlx5c_en_init(void);
void mlx5c_en_exit(void);

/* ---- Commands ---------------------------------------------------------- */

/*
 * Longest command input or output: 16 bytes in the command entry plus a
 * chain of 32768 mailboxes of 512 data bytes (16 MiB). The emulated
 * firmware accepts the same (emu/src/fw/command_queue.h, kMaxMsgLen); it
 * covers the largest page list a caller builds, the 2^20 MTT entries of
 * one CREATE_MKEY (8 MiB).
 */
#define MLX5C_CMD_MAX_MSG_LEN	(16 + 32768 * 512)

int mlx5c_cmd_exec(struct mlx5c_dev *mdev, const void *in, int inlen,
		   void *out, int outlen);
int mlx5c_cmd_exec_quiet(struct mlx5c_dev *mdev, const void *in, int inlen,
			 void *out, int outlen);
int mlx5c_access_reg(struct mlx5c_dev *mdev, u16 reg_id, bool write,
		     const void *data, void *out_data, int size);

/**
 * typedef mlx5c_cmd_cb_t - completion of an asynchronous command
 * @err: 0, or the negative errno mlx5c_cmd_exec() would have returned
 * @ctx: the caller's context
 *
 * Runs in process context (a workqueue of mlx5_core).
 */
typedef void (*mlx5c_cmd_cb_t)(int err, void *ctx);

int mlx5c_cmd_exec_cb(struct mlx5c_dev *mdev, const void *in, int inlen,
		      void *out, int outlen, mlx5c_cmd_cb_t cb, void *ctx);
const char *mlx5c_cmd_opcode_str(u16 opcode);

/**
 * mlx5c_cmd_maybe_ran() - may a failed command have run in the firmware
 * @err: what mlx5c_cmd_exec() returned
 *
 * -ETIMEDOUT: the driver gave up waiting; -ENXIO: the device entered the
 * internal-error state, possibly with the command in flight. A CREATE that
 * failed so may have created its object, and a DESTROY that failed at all
 * left it: the memory the object names goes to the quarantine below.
 *
 * Return: true when the outcome is unknown.
 */
static inline bool mlx5c_cmd_maybe_ran(int err)
{
	return err == -ETIMEDOUT || err == -ENXIO;
}

/* ---- Memory the device may still write (quarantine.c) ------------------ */

struct sg_table;

void mlx5c_quarantine_coherent(struct mlx5c_dev *mdev, void *cpu,
			       dma_addr_t dma, size_t size);
void mlx5c_quarantine_sgt(struct mlx5c_dev *mdev, struct sg_table *sgt);

/* ---- Capabilities ------------------------------------------------------ */

const void *mlx5c_cap_general(struct mlx5c_dev *mdev);
const void *mlx5c_hca_cap(struct mlx5c_dev *mdev, unsigned int type, bool max);

/* ---- Events ------------------------------------------------------------ */

/*
 * Event notifier (mlx5c_event_register()): the action is the EQE type
 * (MLX5_EVENT_TYPE_* of <linux/mlx5/device.h>) and the data a const struct
 * mlx5_eqe *, for every EQE of the device's control EQs. mlx5_core's own
 * subscribers (command completions, page requests, CQ errors, which go to
 * the CQ's event callback) are called first: a callback ignores the types
 * it does not handle. Device-level events of mlx5_core use actions from
 * MLX5C_EVENT_BASE on, with data NULL. The chain is atomic: callbacks run
 * in hard-IRQ context (or in a workqueue for the device-level events) and
 * must not sleep.
 */
#define MLX5C_EVENT_BASE		0x1000
/* The device entered the internal-error state: every command now fails. */
#define MLX5C_EVENT_DEVICE_ERROR	(MLX5C_EVENT_BASE + 1)

int mlx5c_event_register(struct mlx5c_dev *mdev, struct notifier_block *nb);
int mlx5c_event_unregister(struct mlx5c_dev *mdev, struct notifier_block *nb);

/* ---- Completion queues ------------------------------------------------- */

/* Arm commands for mlx5c_cq_arm(). */
#define MLX5C_CQ_DB_REQ_NOT		0
#define MLX5C_CQ_DB_REQ_NOT_SOL		BIT(24)

/**
 * struct mlx5c_cq - a completion queue known to mlx5_core
 * @cqn: CQ number (set by mlx5c_cq_create())
 * @eqn: completion EQ number the CQ reports to (set by mlx5c_cq_create())
 * @arm_sn: arm sequence number, incremented on every completion event
 * @uid: user id the CQ was created with (0 for kernel CQs)
 * @comp: completion callback, called in softirq context once per batch of
 *	completion events (mandatory)
 * @comp_in_irq: call @comp from the EQ's interrupt handler, once per
 *	completion event, instead of the bottom half (for a NAPI owner)
 * @event: asynchronous event callback (CQ error), called in hard-IRQ
 *	context with the EQE type; may be NULL
 * @priv: for the owner of the CQ
 * @comp_events: number of completion events dispatched (statistics)
 * @refcount: private to mlx5_core
 * @free: private to mlx5_core
 * @bh_entry: private to mlx5_core
 * @eq: private to mlx5_core
 * @list: private to mlx5_core
 *
 * The owner builds the CREATE_CQ command (buffer, doorbell record, UAR,
 * c_eqn from mlx5c_comp_eqn()) and hands it to mlx5c_cq_create(), which
 * executes it and starts dispatching the CQ's events.
 */
struct mlx5c_cq {
	u32 cqn;
	u32 eqn;
	u8 arm_sn;
	u16 uid;
	void (*comp)(struct mlx5c_cq *cq);
	bool comp_in_irq;
	void (*event)(struct mlx5c_cq *cq, int event_type);
	void *priv;
	u64 comp_events;
	refcount_t refcount;
	struct completion free;
	struct list_head bh_entry;
	struct mlx5c_eq *eq;
	struct list_head list;
};

int mlx5c_comp_vectors(struct mlx5c_dev *mdev);
int mlx5c_comp_eqn(struct mlx5c_dev *mdev, int vector, u32 *eqn);
int mlx5c_cq_create(struct mlx5c_dev *mdev, struct mlx5c_cq *cq,
		    const void *in, int inlen, void *out, int outlen);
int mlx5c_cq_destroy(struct mlx5c_dev *mdev, struct mlx5c_cq *cq);
int mlx5c_cq_moderate(struct mlx5c_dev *mdev, struct mlx5c_cq *cq, u16 count,
		      u16 period);
void mlx5c_cq_arm(struct mlx5c_cq *cq, u32 cmd, void __iomem *uar_page,
		  __be32 *dbrec, u32 cons_index);

/* ---- Queue memory (buf.c) --------------------------------------------- */

/* log_page_size of a queue context whose ring came from mlx5c_buf_alloc(). */
#define MLX5C_BUF_LOG_PAGE_SIZE	(PAGE_SHIFT - 12)

/* Flag of mlx5c_buf_alloc(): allocate a doorbell record too. */
#define MLX5C_BUF_DBR		BIT(0)

/**
 * struct mlx5c_buf_frag - one page of a queue ring
 * @buf: CPU address
 * @dma: bus address
 */
struct mlx5c_buf_frag {
	void *buf;
	dma_addr_t dma;
};

struct mlx5c_db_page;

/**
 * struct mlx5c_buf - a queue ring in DMA-coherent pages, and its doorbell
 *	record
 * @size: ring bytes
 * @nfrags: pages of the ring (PAGE_SIZE each; also the PAS entries)
 * @frags: the pages
 * @db: doorbell record (NULL without MLX5C_BUF_DBR), two big-endian
 *	words: a CQ's consumer index and arm word; a QP's receive and send
 *	counters (MLX5C_RCV_DBR, MLX5C_SND_DBR), an RQ's or SRQ's in word 0,
 *	an SQ's in word 1
 * @db_dma: its bus address (the dbr_addr of the queue context)
 * @db_page: private to mlx5_core
 */
struct mlx5c_buf {
	size_t size;
	u32 nfrags;
	struct mlx5c_buf_frag *frags;
	__be32 *db;
	dma_addr_t db_dma;
	struct mlx5c_db_page *db_page;
};

int mlx5c_buf_alloc(struct mlx5c_dev *mdev, size_t size, unsigned int flags,
		    struct mlx5c_buf *buf);
void mlx5c_buf_free(struct mlx5c_dev *mdev, struct mlx5c_buf *buf);
void mlx5c_buf_quarantine(struct mlx5c_dev *mdev, struct mlx5c_buf *buf);
void mlx5c_buf_fill_pas(const struct mlx5c_buf *buf, __be64 *pas);

/**
 * mlx5c_buf_at() - CPU address of a ring offset
 * @buf: ring from mlx5c_buf_alloc()
 * @off: byte offset, below @buf->size; an entry never straddles a page
 *
 * Return: the address.
 */
static inline void *mlx5c_buf_at(const struct mlx5c_buf *buf, size_t off)
{
	return buf->frags[off >> PAGE_SHIFT].buf + (off & ~PAGE_MASK);
}

/* ---- UARs -------------------------------------------------------------- */

int mlx5c_uar_alloc(struct mlx5c_dev *mdev, u16 uid, u32 *index);
int mlx5c_uar_free(struct mlx5c_dev *mdev, u16 uid, u32 index);
phys_addr_t mlx5c_uar_phys(struct mlx5c_dev *mdev, u32 index);
u32 mlx5c_kernel_uar_index(struct mlx5c_dev *mdev);
void __iomem *mlx5c_kernel_uar_map(struct mlx5c_dev *mdev);

/* ---- Thin resource wrappers -------------------------------------------- */

int mlx5c_pd_alloc(struct mlx5c_dev *mdev, u16 uid, u32 *pdn);
int mlx5c_pd_free(struct mlx5c_dev *mdev, u16 uid, u32 pdn);
int mlx5c_mkey_create(struct mlx5c_dev *mdev, void *in, int inlen, u32 *mkey);
int mlx5c_mkey_destroy(struct mlx5c_dev *mdev, u16 uid, u32 mkey);

/* ---- Flow tables (flow.c): the netdev's and the e-switch's ------------ */

/* Flow table types of the e-switch (the PRM's; device.h names NIC_RX only). */
#define MLX5C_FT_TYPE_ESW_EGRESS_ACL	0x2
#define MLX5C_FT_TYPE_ESW_INGRESS_ACL	0x3
#define MLX5C_FT_TYPE_FDB		0x4

/* match_criteria_enable: which sections of the fte_match_param are matched. */
#define MLX5C_MATCH_OUTER		BIT(0)
#define MLX5C_MATCH_MISC		BIT(1)

#define MLX5C_FTE_MAX_DEST		2

/**
 * struct mlx5c_ft_ns - the flow tables a flow-table command names
 * @type: MLX5_FLOW_TABLE_TYPE_NIC_RX or MLX5C_FT_TYPE_*
 * @vport: whose ACL, with @other
 * @other: another function's vport (the e-switch manager on a VF's ACL)
 */
struct mlx5c_ft_ns {
	u8 type;
	u16 vport;
	bool other;
};

/**
 * struct mlx5c_fte - a flow entry for mlx5c_fte_set()
 * @index: flow index
 * @group: the group the index is in
 * @action: MLX5_FLOW_CONTEXT_ACTION_* (ALLOW, DROP, FWD_DEST)
 * @match: an fte_match_param of the values matched, or NULL
 * @ndest: destinations, with FWD_DEST
 * @dest: each a MLX5_IFC_FLOW_DESTINATION_TYPE_* and the TIR, table or
 *	vport number
 */
struct mlx5c_fte {
	u32 index;
	u32 group;
	u16 action;
	const void *match;
	int ndest;
	struct {
		u8 type;
		u32 id;
	} dest[MLX5C_FTE_MAX_DEST];
};

int mlx5c_ft_create(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u8 level,
		    u8 log_size, u32 *id);
void mlx5c_ft_destroy(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 id);
int mlx5c_ft_set_root(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 id);
int mlx5c_fg_create(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table,
		    u32 start, u32 end, u8 enable, const void *criteria, u32 *id);
void mlx5c_fg_destroy(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table, u32 id);
int mlx5c_fte_set(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table,
		  const struct mlx5c_fte *fte);
void mlx5c_fte_del(struct mlx5c_dev *mdev, const struct mlx5c_ft_ns *ns, u32 table, u32 index);

/* ---- The legacy e-switch of a PF with VFs (eswitch/), for the netdev -- */

struct ifla_vf_info;
struct ifla_vf_stats;

int mlx5c_eswitch_set_vf_mac(struct mlx5c_dev *mdev, int vf, const u8 *mac);
int mlx5c_eswitch_set_vf_vlan(struct mlx5c_dev *mdev, int vf, u16 vlan, u8 qos);
int mlx5c_eswitch_set_vf_spoofchk(struct mlx5c_dev *mdev, int vf, bool on);
int mlx5c_eswitch_set_vf_trust(struct mlx5c_dev *mdev, int vf, bool on);
int mlx5c_eswitch_set_vf_link_state(struct mlx5c_dev *mdev, int vf, int state);
int mlx5c_eswitch_get_vf_config(struct mlx5c_dev *mdev, int vf, struct ifla_vf_info *ivi);
int mlx5c_eswitch_get_vf_stats(struct mlx5c_dev *mdev, int vf, struct ifla_vf_stats *st);
void mlx5c_mpfs_set_own(struct mlx5c_dev *mdev, const u8 *addrs, int n);

/* ---- Vports (vport.c): the own one, or with @other another function's -- */

int mlx5c_vport_query_state(struct mlx5c_dev *mdev, u8 opmod, u16 vport,
			    bool other, u8 *state);
void *mlx5c_vport_query_nic(struct mlx5c_dev *mdev, u16 vport, bool other);
int mlx5c_vport_query_mac(struct mlx5c_dev *mdev, u16 vport, bool other, u8 *mac);
int mlx5c_vport_modify_nic(struct mlx5c_dev *mdev, u16 vport, bool other,
			   void *in, int inlen);
void *mlx5c_vport_query_counter(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other);
void *mlx5c_vport_query_hca(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other);
int mlx5c_vport_modify_hca(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other,
			   void *in, int inlen);
int mlx5c_vport_query_hca_gid(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other,
			      u16 index, u8 *gid);
int mlx5c_vport_query_hca_pkey(struct mlx5c_dev *mdev, u8 port, u16 vport, bool other,
			       u16 index, u16 *pkey);

/* ---- SR-IOV: a PF's VFs (sriov.c) ------------------------------------- */

/**
 * struct mlx5c_vf_hca - settings of a VF's HCA vport (InfiniBand), made
 *	by its PF
 * @field_select: MLX5_HCA_VPORT_SEL_* of the fields below that are set
 * @node_guid: node GUID (MLX5_HCA_VPORT_SEL_NODE_GUID)
 * @port_guid: port GUID (MLX5_HCA_VPORT_SEL_PORT_GUID)
 * @policy: link state policy (MLX5_HCA_VPORT_SEL_STATE_POLICY):
 *	MLX5_VPORT_ADMIN_STATE_DOWN, _UP, or _AUTO (follow the port)
 */
struct mlx5c_vf_hca {
	u32 field_select;
	u64 node_guid;
	u64 port_guid;
	u8 policy;
};

int mlx5c_sriov_set_vf_hca(struct mlx5c_dev *mdev, int vf, u8 port,
			   const struct mlx5c_vf_hca *set);
int mlx5c_sriov_get_vf_hca(struct mlx5c_dev *mdev, int vf, struct mlx5c_vf_hca *got);

#endif /* MLX5C_CORE_H */
