// SPDX-License-Identifier: GPL-2.0
/*
 * Event queues: the command EQ (command completions), the async EQ (QP,
 * SRQ, CQ-error, port events), the pages EQ (page requests), all on the
 * control vector, and one completion EQ per completion vector. The IRQ
 * handlers consume up to a budget of EQEs and re-arm the EQ.
 *
 * The control EQs only dispatch: each EQE goes to the notifier chain of its
 * type (mlx5c_eq_notifier_register(): commands, page requests, CQ errors
 * subscribe so), then to the chain of every event (mlx5c_event_register():
 * mlx5_ib, the Ethernet driver). Completion EQEs go to their CQ directly.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include <mlx5c/cq.h>

#include "mlx5_core.h"

#define MLX5C_EQE_SIZE		64
#define MLX5C_NUM_SPARE_EQE	128
#define MLX5C_EQ_BUDGET		128
#define MLX5C_CMD_EQ_NENT	32
#define MLX5C_ASYNC_EQ_NENT	4096
#define MLX5C_PAGES_EQ_NENT	1
#define MLX5C_COMP_EQ_NENT	1024
#define MLX5C_SHARED_UID	0xffff

/* Events 1-5, 7, 9 and 0x10-0x14: QP/SRQ/WQ events, CQ error, port change. */
#define MLX5C_ASYNC_EVENT_MASK	(BIT_ULL(MLX5_EVENT_TYPE_PATH_MIG) | \
				 BIT_ULL(MLX5_EVENT_TYPE_COMM_EST) | \
				 BIT_ULL(MLX5_EVENT_TYPE_SQ_DRAINED) | \
				 BIT_ULL(MLX5_EVENT_TYPE_CQ_ERROR) | \
				 BIT_ULL(MLX5_EVENT_TYPE_WQ_CATAS_ERROR) | \
				 BIT_ULL(MLX5_EVENT_TYPE_PATH_MIG_FAILED) | \
				 BIT_ULL(MLX5_EVENT_TYPE_PORT_CHANGE) | \
				 BIT_ULL(MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR) | \
				 BIT_ULL(MLX5_EVENT_TYPE_WQ_ACCESS_ERROR) | \
				 BIT_ULL(MLX5_EVENT_TYPE_SRQ_CATAS_ERROR) | \
				 BIT_ULL(MLX5_EVENT_TYPE_SRQ_LAST_WQE) | \
				 BIT_ULL(MLX5_EVENT_TYPE_SRQ_RQ_LIMIT))

static struct mlx5_eqe *eq_entry(struct mlx5c_eq *eq, u32 idx)
{
	return mlx5c_buf_at(&eq->buf, (size_t)idx * MLX5C_EQE_SIZE);
}

/*
 * The EQE at the consumer index if software owns it, else NULL. The owner
 * rule is the CQE's (<mlx5c/cq.h>); an EQE has no invalid opcode.
 */
static struct mlx5_eqe *eq_next(struct mlx5c_eq *eq)
{
	u32 mask = BIT(eq->log_nent) - 1;
	struct mlx5_eqe *eqe = eq_entry(eq, eq->cons_index & mask);

	if (!mlx5c_owner_is_sw(READ_ONCE(eqe->owner), eq->cons_index,
			       BIT(eq->log_nent)))
		return NULL;
	/* Read the EQE body only after its owner byte. */
	dma_rmb();
	return eqe;
}

/**
 * mlx5c_eq_arm() - report the consumer index, optionally re-arming the EQ
 * @eq: event queue
 * @arm: request an interrupt for the next EQE
 */
void mlx5c_eq_arm(struct mlx5c_eq *eq, bool arm)
{
	u32 val = (eq->cons_index & 0xffffff) | ((u32)eq->eqn << 24);
	void __iomem *db = eq->mdev->uar_map +
			   (arm ? MLX5C_UAR_EQ_ARM_DB : MLX5C_UAR_EQ_CI_DB);

	/* Finish reading the consumed EQEs before the device may reuse them. */
	mb();
	iowrite32be(val, db);
	if (arm)
		WRITE_ONCE(eq->armed, true);
}

static void cq_put(struct mlx5c_cq *cq)
{
	if (refcount_dec_and_test(&cq->refcount))
		complete(&cq->free);
}

/**
 * mlx5c_events_init() - prepare the event notifier chains
 * @mdev: core device, before anything subscribes
 */
void mlx5c_events_init(struct mlx5c_dev *mdev)
{
	int i;

	for (i = 0; i < MLX5C_EVENT_CHAINS; i++)
		ATOMIC_INIT_NOTIFIER_HEAD(&mdev->event_nh[i]);
}

/**
 * mlx5c_eq_notifier_register() - subscribe to one type of EQE
 * @mdev: core device
 * @nb: notifier and the EQE type (MLX5_EVENT_TYPE_*) it wants
 *
 * The callback runs in hard-IRQ context with the EQE type as its action
 * and the const struct mlx5_eqe * as its data. Subscribe before the EQ
 * that carries the type is created and unsubscribe after it is destroyed:
 * then no event is lost and none arrives late.
 *
 * Return: 0.
 */
int mlx5c_eq_notifier_register(struct mlx5c_dev *mdev, struct mlx5c_nb *nb)
{
	return atomic_notifier_chain_register(&mdev->event_nh[nb->event_type], &nb->nb);
}

/**
 * mlx5c_eq_notifier_unregister() - unsubscribe; waits for running callbacks
 * @mdev: core device
 * @nb: notifier given to mlx5c_eq_notifier_register()
 *
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int mlx5c_eq_notifier_unregister(struct mlx5c_dev *mdev, struct mlx5c_nb *nb)
{
	return atomic_notifier_chain_unregister(&mdev->event_nh[nb->event_type], &nb->nb);
}

/**
 * mlx5c_event_register() - subscribe to every event of the device
 * @mdev: core device
 * @nb: notifier; see MLX5C_EVENT_BASE in <mlx5c/core.h> for the actions
 *
 * Return: 0.
 */
int mlx5c_event_register(struct mlx5c_dev *mdev, struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&mdev->event_nh[MLX5C_EVENT_ANY], nb);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_event_register, MLX5C_NS);

/**
 * mlx5c_event_unregister() - unsubscribe from the device's events
 * @mdev: core device
 * @nb: notifier given to mlx5c_event_register()
 *
 * Waits for notifier callbacks running on other CPUs.
 *
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int mlx5c_event_unregister(struct mlx5c_dev *mdev, struct notifier_block *nb)
{
	return atomic_notifier_chain_unregister(&mdev->event_nh[MLX5C_EVENT_ANY], nb);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_event_unregister, MLX5C_NS);

/**
 * mlx5c_event_notify() - tell the mlx5c_event_register() subscribers
 * @mdev: core device
 * @event: an MLX5C_EVENT_* device-level event
 */
void mlx5c_event_notify(struct mlx5c_dev *mdev, unsigned long event)
{
	atomic_notifier_call_chain(&mdev->event_nh[MLX5C_EVENT_ANY], event, NULL);
}

/* The subscribers of the EQE's type, then those of every event. */
static void eq_dispatch(struct mlx5c_dev *mdev, struct mlx5_eqe *eqe)
{
	atomic_notifier_call_chain(&mdev->event_nh[eqe->type], eqe->type, eqe);
	atomic_notifier_call_chain(&mdev->event_nh[MLX5C_EVENT_ANY], eqe->type, eqe);
}

/* CQ errors go to the event callback of the CQ they name. */
static int eq_cq_error(struct notifier_block *nb, unsigned long type, void *data)
{
	struct mlx5c_dev *mdev = container_of(nb, struct mlx5c_dev, cq_err_nb.nb);
	struct mlx5_eqe *eqe = data;
	unsigned long flags;
	struct mlx5c_cq *cq;
	u32 cqn;

	cqn = be32_to_cpu(eqe->data.cq_err.cqn) & 0xffffff;
	dev_warn_ratelimited(&mdev->pdev->dev, "CQ error on CQ 0x%x, syndrome 0x%x\n",
			     cqn, eqe->data.cq_err.syndrome);
	xa_lock_irqsave(&mdev->cqs, flags);
	cq = xa_load(&mdev->cqs, cqn);
	if (cq && !refcount_inc_not_zero(&cq->refcount))
		cq = NULL;
	xa_unlock_irqrestore(&mdev->cqs, flags);
	if (cq) {
		if (cq->event)
			cq->event(cq, type);
		cq_put(cq);
	}
	return NOTIFY_OK;
}

/* Consume up to a budget of EQEs of a control EQ. Called with eq->lock. */
static void eq_poll_async(struct mlx5c_eq *eq)
{
	struct mlx5_eqe *eqe;
	int n = 0;

	while (n < MLX5C_EQ_BUDGET && (eqe = eq_next(eq))) {
		eq_dispatch(eq->mdev, eqe);
		eq->cons_index++;
		eq->eqes++;
		n++;
	}
}

static int eq_async_notify(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct mlx5c_eq *eq = container_of(nb, struct mlx5c_eq, nb);
	unsigned long flags;

	spin_lock_irqsave(&eq->lock, flags);
	eq->interrupts++;
	WRITE_ONCE(eq->armed, false);
	eq_poll_async(eq);
	mlx5c_eq_arm(eq, true);
	spin_unlock_irqrestore(&eq->lock, flags);
	return NOTIFY_OK;
}

static int eq_comp_notify(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	struct mlx5c_eq *eq = container_of(nb, struct mlx5c_eq, nb);
	struct mlx5_eqe *eqe;
	struct mlx5c_cq *cq;
	int n = 0;
	u32 cqn;

	spin_lock(&eq->lock);
	eq->interrupts++;
	WRITE_ONCE(eq->armed, false);
	while (n < MLX5C_EQ_BUDGET && (eqe = eq_next(eq))) {
		cqn = be32_to_cpu(eqe->data.comp.cqn) & 0xffffff;
		rcu_read_lock();
		cq = xa_load(&eq->cq_table, cqn);
		if (cq && refcount_inc_not_zero(&cq->refcount)) {
			cq->arm_sn++;
			cq->comp_events++;
			if (cq->comp_in_irq) {
				cq->comp(cq);
				cq_put(cq);
				goto next;
			}
			spin_lock(&eq->bh_lock);
			if (list_empty(&cq->bh_entry)) {
				list_add_tail(&cq->bh_entry, &eq->bh_list);
				cq = NULL;	/* the list holds the reference */
			}
			spin_unlock(&eq->bh_lock);
			if (cq)
				cq_put(cq);
		} else {
			dev_warn_ratelimited(&eq->mdev->pdev->dev,
					     "completion event for unknown CQ 0x%x on EQ %u\n",
					     cqn, eq->eqn);
		}
next:
		rcu_read_unlock();
		eq->cons_index++;
		eq->eqes++;
		n++;
	}
	mlx5c_eq_arm(eq, true);
	spin_unlock(&eq->lock);
	if (n)
		mlx5c_bh_schedule(&eq->bh);
	return NOTIFY_OK;
}

/**
 * mlx5c_cq_dispatch_bh() - call the completion callbacks of an EQ's CQs
 * @bh: the EQ's bottom half
 *
 * Runs in softirq context; each CQ with pending events is called once.
 */
void mlx5c_cq_dispatch_bh(struct mlx5c_bh *bh)
{
	struct mlx5c_eq *eq = container_of(bh, struct mlx5c_eq, bh);
	unsigned long flags;
	struct mlx5c_cq *cq;
	LIST_HEAD(local);

	spin_lock_irqsave(&eq->bh_lock, flags);
	list_splice_init(&eq->bh_list, &local);
	spin_unlock_irqrestore(&eq->bh_lock, flags);

	while (!list_empty(&local)) {
		cq = list_first_entry(&local, struct mlx5c_cq, bh_entry);
		spin_lock_irqsave(&eq->bh_lock, flags);
		list_del_init(&cq->bh_entry);
		spin_unlock_irqrestore(&eq->bh_lock, flags);
		cq->comp(cq);
		cq_put(cq);
	}
}

/**
 * mlx5c_eq_poll_cmd() - poll the command EQ outside its interrupt
 * @mdev: core device
 *
 * Recovers command completions whose interrupt was lost.
 */
void mlx5c_eq_poll_cmd(struct mlx5c_dev *mdev)
{
	struct mlx5c_eq *eq = mdev->cmd_eq;
	unsigned long flags;

	if (!eq)
		return;
	spin_lock_irqsave(&eq->lock, flags);
	eq_poll_async(eq);
	mlx5c_eq_arm(eq, true);
	spin_unlock_irqrestore(&eq->lock, flags);
}

static int eq_alloc_buf(struct mlx5c_dev *mdev, struct mlx5c_eq *eq)
{
	u32 nent = BIT(eq->log_nent);
	int err;
	u32 j;

	err = mlx5c_buf_alloc(mdev, nent * MLX5C_EQE_SIZE, 0, &eq->buf);
	if (err)
		return err;
	/* Every EQE starts owned by hardware: owner bit 1. */
	for (j = 0; j < nent; j++)
		eq_entry(eq, j)->owner = 1;
	return 0;
}

/*
 * Free the ring, or with @keep (the firmware may still hold the EQ: its
 * CREATE timed out, or its DESTROY failed) hand it to the quarantine.
 */
static void eq_free_buf(struct mlx5c_dev *mdev, struct mlx5c_eq *eq, bool keep)
{
	if (keep)
		mlx5c_buf_quarantine(mdev, &eq->buf);
	else
		mlx5c_buf_free(mdev, &eq->buf);
}

static struct mlx5c_eq *eq_create(struct mlx5c_dev *mdev, enum mlx5c_eq_kind kind,
				  u32 nent, u64 mask, struct mlx5c_irq *irq)
{
	u32 out[MLX5_ST_SZ_DW(create_eq_out)] = {};
	u32 log_max = MLX5C_CAP_GEN(mdev, log_max_eq_sz);
	struct mlx5c_eq *eq;
	void *in, *eqc;
	int inlen, err;

	eq = kzalloc(sizeof(*eq), GFP_KERNEL);
	if (!eq)
		return ERR_PTR(-ENOMEM);
	eq->mdev = mdev;
	eq->kind = kind;
	eq->irq = irq;
	eq->vecidx = -1;
	spin_lock_init(&eq->lock);
	spin_lock_init(&eq->bh_lock);
	INIT_LIST_HEAD(&eq->bh_list);
	mlx5c_bh_init(&eq->bh, mlx5c_cq_dispatch_bh);
	xa_init(&eq->cq_table);
	eq->log_nent = order_base_2(nent + MLX5C_NUM_SPARE_EQE);
	if (log_max && eq->log_nent > log_max)
		eq->log_nent = log_max;

	err = eq_alloc_buf(mdev, eq);
	if (err)
		goto err_eq;

	inlen = MLX5_ST_SZ_BYTES(create_eq_in) + eq->buf.nfrags * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_buf;
	}
	mlx5c_buf_fill_pas(&eq->buf, MLX5_ADDR_OF(create_eq_in, in, pas));
	MLX5_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	if (kind == MLX5C_EQ_COMP && MLX5C_CAP_GEN(mdev, log_max_uctx))
		MLX5_SET(create_eq_in, in, uid, MLX5C_SHARED_UID);
	MLX5_ARRAY_SET64(create_eq_in, in, event_bitmask, 0, mask);
	eqc = MLX5_ADDR_OF(create_eq_in, in, eq_context_entry);
	MLX5_SET(eqc, eqc, log_eq_size, eq->log_nent);
	MLX5_SET(eqc, eqc, uar_page, mdev->uar_index);
	MLX5_SET(eqc, eqc, intr, irq->index);
	MLX5_SET(eqc, eqc, log_page_size, MLX5C_BUF_LOG_PAGE_SIZE);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err) {
		eq_free_buf(mdev, eq, mlx5c_cmd_maybe_ran(err));
		goto err_eq;
	}
	eq->eqn = MLX5_GET(create_eq_out, out, eq_number);

	eq->nb.notifier_call = kind == MLX5C_EQ_COMP ? eq_comp_notify : eq_async_notify;
	atomic_notifier_chain_register(&irq->nh, &eq->nb);
	mlx5c_eq_arm(eq, true);
	return eq;

err_buf:
	eq_free_buf(mdev, eq, false);
err_eq:
	kfree(eq);
	return ERR_PTR(err);
}

static void eq_destroy(struct mlx5c_dev *mdev, struct mlx5c_eq *eq)
{
	u32 out[MLX5_ST_SZ_DW(destroy_eq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_eq_in)] = {};
	int err;

	MLX5_SET(destroy_eq_in, in, opcode, MLX5_CMD_OP_DESTROY_EQ);
	MLX5_SET(destroy_eq_in, in, eq_number, eq->eqn);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (err && err != -ENXIO)
		dev_warn(&mdev->pdev->dev, "DESTROY_EQ %u failed: %d\n", eq->eqn, err);
	atomic_notifier_chain_unregister(&eq->irq->nh, &eq->nb);
	synchronize_irq(eq->irq->irqn);
	mlx5c_bh_kill(&eq->bh);
	if (!xa_empty(&eq->cq_table))
		dev_warn(&mdev->pdev->dev, "EQ %u destroyed with CQs attached\n", eq->eqn);
	xa_destroy(&eq->cq_table);
	eq_free_buf(mdev, eq, err != 0);
	kfree(eq);
}

/*
 * cmd_hca_cap.page_request_disable is bit 6 of dword 0; older
 * <linux/mlx5/mlx5_ifc.h> do not name it.
 */
static bool page_request_disabled(struct mlx5c_dev *mdev)
{
	const __be32 *cap = mdev->caps.cur[MLX5_CAP_GENERAL];

	return be32_to_cpu(cap[0]) & BIT(31 - 6);
}

static int max_eqs(struct mlx5c_dev *mdev)
{
	if (MLX5C_CAP_GEN(mdev, max_num_eqs))
		return MLX5C_CAP_GEN(mdev, max_num_eqs);
	return 1 << MLX5C_CAP_GEN(mdev, log_max_eq);
}

/**
 * mlx5c_eqs_wanted_vectors() - MSI-X vectors worth allocating
 * @mdev: core device with its general capabilities
 *
 * Return: 1 (control) + one completion vector per online CPU, bounded by
 * the number of EQs the device supports.
 */
int mlx5c_eqs_wanted_vectors(struct mlx5c_dev *mdev)
{
	int comp = min_t(int, num_online_cpus(), max_eqs(mdev) - 3);

	return 1 + max(comp, 0);
}

static void comp_eqs_destroy(struct mlx5c_dev *mdev)
{
	int i;

	for (i = mdev->num_comp_eqs - 1; i >= 0; i--)
		eq_destroy(mdev, mdev->comp_eqs[i]);
	kfree(mdev->comp_eqs);
	mdev->comp_eqs = NULL;
	mdev->num_comp_eqs = 0;
}

static int comp_eqs_create(struct mlx5c_dev *mdev)
{
	int n = mdev->num_vectors > 1 ? mdev->num_vectors - 1 : 1;
	struct mlx5c_eq *eq;
	int i;

	mdev->comp_eqs = kcalloc(n, sizeof(*mdev->comp_eqs), GFP_KERNEL);
	if (!mdev->comp_eqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct mlx5c_irq *irq = &mdev->irqs[mdev->num_vectors > 1 ? i + 1 : 0];

		eq = eq_create(mdev, MLX5C_EQ_COMP, MLX5C_COMP_EQ_NENT, 0, irq);
		if (IS_ERR(eq)) {
			comp_eqs_destroy(mdev);
			return PTR_ERR(eq);
		}
		eq->vecidx = i;
		mdev->comp_eqs[i] = eq;
		mdev->num_comp_eqs = i + 1;
	}
	return 0;
}

/**
 * mlx5c_eq_cmd_create() - create the command EQ
 * @mdev: core device with its kernel UAR and MSI-X vectors
 *
 * Created with commands in polling mode; the device posts no EQE for them.
 * The caller switches commands to events afterwards.
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_eq_cmd_create(struct mlx5c_dev *mdev)
{
	struct mlx5c_eq *eq;

	eq = eq_create(mdev, MLX5C_EQ_CMD, MLX5C_CMD_EQ_NENT,
		       BIT_ULL(MLX5_EVENT_TYPE_CMD), &mdev->irqs[0]);
	if (IS_ERR(eq))
		return PTR_ERR(eq);
	mdev->cmd_eq = eq;
	return 0;
}

/**
 * mlx5c_eq_cmd_destroy() - destroy the command EQ
 * @mdev: core device whose commands are back in polling mode
 */
void mlx5c_eq_cmd_destroy(struct mlx5c_dev *mdev)
{
	eq_destroy(mdev, mdev->cmd_eq);
	mdev->cmd_eq = NULL;
}

/* The async EQ's events: a vport group manager hears of its VFs' vports too. */
static u64 async_mask(struct mlx5c_dev *mdev)
{
	u64 mask = MLX5C_ASYNC_EVENT_MASK;

	if (MLX5C_CAP_GEN(mdev, vport_group_manager) && MLX5C_CAP_GEN(mdev, nic_vport_change_event) &&
	    mlx5c_port_is_eth(mdev))
		mask |= BIT_ULL(MLX5_EVENT_TYPE_NIC_VPORT_CHANGE);
	/* DC targets: the end of a drain (DESTROY waits for it), bad keys. */
	if (MLX5C_CAP_GEN(mdev, dct))
		mask |= BIT_ULL(MLX5_EVENT_TYPE_DCT_DRAINED) |
			BIT_ULL(MLX5_EVENT_TYPE_DCT_KEY_VIOLATION);
	return mask;
}

/**
 * mlx5c_eqs_create() - create the async, page-request and completion EQs
 * @mdev: core device with its command EQ, commands in event mode
 *
 * Return: 0 or a negative errno; on failure nothing is left behind.
 */
int mlx5c_eqs_create(struct mlx5c_dev *mdev)
{
	struct mlx5c_irq *ctrl = &mdev->irqs[0];
	struct mlx5c_eq *eq;
	int err;

	mdev->cq_err_nb.nb.notifier_call = eq_cq_error;
	mdev->cq_err_nb.event_type = MLX5_EVENT_TYPE_CQ_ERROR;
	mlx5c_eq_notifier_register(mdev, &mdev->cq_err_nb);
	eq = eq_create(mdev, MLX5C_EQ_ASYNC, MLX5C_ASYNC_EQ_NENT, async_mask(mdev), ctrl);
	if (IS_ERR(eq)) {
		err = PTR_ERR(eq);
		goto err_nb;
	}
	mdev->async_eq = eq;

	if (!page_request_disabled(mdev)) {
		eq = eq_create(mdev, MLX5C_EQ_PAGES, MLX5C_PAGES_EQ_NENT,
			       BIT_ULL(MLX5_EVENT_TYPE_PAGE_REQUEST), ctrl);
		if (IS_ERR(eq)) {
			err = PTR_ERR(eq);
			goto err_async;
		}
		mdev->pages_eq = eq;
	}

	err = comp_eqs_create(mdev);
	if (err)
		goto err_pages;
	return 0;

err_pages:
	if (mdev->pages_eq) {
		eq_destroy(mdev, mdev->pages_eq);
		mdev->pages_eq = NULL;
	}
err_async:
	eq_destroy(mdev, mdev->async_eq);
	mdev->async_eq = NULL;
err_nb:
	mlx5c_eq_notifier_unregister(mdev, &mdev->cq_err_nb);
	return err;
}

/**
 * mlx5c_eqs_destroy() - destroy what mlx5c_eqs_create() created
 * @mdev: core device
 *
 * Page requests already queued may still run: the caller flushes them
 * before commands leave event mode.
 */
void mlx5c_eqs_destroy(struct mlx5c_dev *mdev)
{
	comp_eqs_destroy(mdev);
	if (mdev->pages_eq) {
		eq_destroy(mdev, mdev->pages_eq);
		mdev->pages_eq = NULL;
	}
	eq_destroy(mdev, mdev->async_eq);
	mdev->async_eq = NULL;
	mlx5c_eq_notifier_unregister(mdev, &mdev->cq_err_nb);
}

/**
 * mlx5c_comp_vectors() - number of completion vectors
 * @mdev: core device
 *
 * Return: the number of completion EQs; valid vectors for mlx5c_comp_eqn()
 * are 0 to this value minus one.
 */
int mlx5c_comp_vectors(struct mlx5c_dev *mdev)
{
	return mdev->num_comp_eqs;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_comp_vectors, MLX5C_NS);

/**
 * mlx5c_comp_eqn() - EQ number of a completion vector
 * @mdev: core device
 * @vector: completion vector, 0 to mlx5c_comp_vectors() - 1
 * @eqn: the EQ number to put in a CQ context's c_eqn (out)
 *
 * Return: 0, or -EINVAL for a vector out of range.
 */
int mlx5c_comp_eqn(struct mlx5c_dev *mdev, int vector, u32 *eqn)
{
	if (vector < 0 || vector >= mdev->num_comp_eqs)
		return -EINVAL;
	*eqn = mdev->comp_eqs[vector]->eqn;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_comp_eqn, MLX5C_NS);
