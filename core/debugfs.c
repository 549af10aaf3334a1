// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/mlx5c/<bdf>/{cmd,eqs,cqs,pages,health}, and
 * vfs on a PF with the SR-IOV capability. A module built with MLX5C_TEST=1
 * adds its self-test files there (test.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "mlx5_core.h"

static struct dentry *mlx5c_dbg_root;

static int cmd_show(struct seq_file *s, void *unused)
{
	struct mlx5c_dev *mdev = s->private;
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct mlx5c_cmd_stats *st;
	unsigned long flags, op;
	int i;

	spin_lock_irqsave(&cmd->lock, flags);
	seq_printf(s, "mode: %s\nstate: %s\nslots: %u (+1 for pages), stride %u\n",
		   cmd->mode == MLX5C_CMD_EVENTS ? "events" : "polling",
		   cmd->error ? "internal-error" : "up", cmd->max_reg,
		   1 << cmd->log_stride);
	seq_printf(s, "timeout_ms: %u\nbusy: 0x%lx\nabandoned: %u\ntoken: %u\n",
		   cmd->timeout_ms, cmd->busy, cmd->stale, cmd->token);
	seq_puts(s, "opcode name n failed timeouts avg_us max_us hist(<1us,<2,<4,...us)\n");
	xa_for_each(&cmd->stats, op, st) {
		seq_printf(s, "0x%03lx %s %llu %llu %llu %llu %llu", op, mlx5c_opcode_name(op),
			   st->n, st->failed, st->timeouts,
			   st->n ? div64_u64(st->total_ns, st->n * NSEC_PER_USEC) : 0,
			   div64_u64(st->max_ns, NSEC_PER_USEC));
		for (i = 0; i < MLX5C_CMD_HIST_BUCKETS; i++)
			seq_printf(s, "%c%llu", i ? ',' : ' ', st->hist[i]);
		seq_putc(s, '\n');
	}
	spin_unlock_irqrestore(&cmd->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cmd);

static void eq_show_one(struct seq_file *s, const char *name, struct mlx5c_eq *eq)
{
	if (!eq)
		return;
	seq_printf(s, "%-8s eqn %3u vector %2d irq %4d nent %5lu cons_index %8u armed %d eqes %llu interrupts %llu\n",
		   name, eq->eqn, eq->irq->index, eq->irq->irqn, BIT(eq->log_nent),
		   READ_ONCE(eq->cons_index), READ_ONCE(eq->armed), READ_ONCE(eq->eqes),
		   READ_ONCE(eq->interrupts));
}

static int eqs_show(struct seq_file *s, void *unused)
{
	struct mlx5c_dev *mdev = s->private;
	char name[16];
	int i;

	eq_show_one(s, "cmd", mdev->cmd_eq);
	eq_show_one(s, "async", mdev->async_eq);
	eq_show_one(s, "pages", mdev->pages_eq);
	for (i = 0; i < mdev->num_comp_eqs; i++) {
		snprintf(name, sizeof(name), "comp%d", i);
		eq_show_one(s, name, mdev->comp_eqs[i]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(eqs);

static int cqs_show(struct seq_file *s, void *unused)
{
	struct mlx5c_dev *mdev = s->private;
	struct mlx5c_cq *cq;
	unsigned long cqn;

	seq_puts(s, "cqn eqn uid arm_sn comp_events\n");
	/* The lock keeps mlx5c_cq_detach() from returning while a CQ is shown. */
	xa_lock_irq(&mdev->cqs);
	xa_for_each(&mdev->cqs, cqn, cq)
		seq_printf(s, "0x%06lx %u %u %u %llu\n", cqn, cq->eqn, cq->uid,
			   READ_ONCE(cq->arm_sn), READ_ONCE(cq->comp_events));
	xa_unlock_irq(&mdev->cqs);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqs);

static int pages_show(struct seq_file *s, void *unused)
{
	struct mlx5c_pages *pg = &((struct mlx5c_dev *)s->private)->pages;

	seq_printf(s, "fw_pages: %d\nboot: %u\ninit: %u\ngiven: %llu\nreclaimed: %llu\n",
		   atomic_read(&pg->count), pg->boot, pg->init, pg->given, pg->reclaimed);
	seq_printf(s, "freed_locally: %llu\nrequests: %llu\ngive_failed: %llu\nrefused: %llu\n",
		   pg->freed_locally, pg->requests, pg->give_failed, pg->refused);
	seq_printf(s, "vf_pages: %d\nvf_requests: %llu\nbad_function: %llu\n",
		   atomic_read(&pg->vf_count), pg->vf_requests, pg->bad_func);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pages);

/*
 * The PF's VFs: how many the PCI core has (sriov_numvfs), and for each VF
 * whether the PF enabled it in the device and the pages the PF gave the
 * firmware on its behalf.
 */
static int vfs_show(struct seq_file *s, void *unused)
{
	struct mlx5c_dev *mdev = s->private;
	struct mlx5c_sriov *sriov = &mdev->sriov;
	int vf;

	seq_printf(s, "num_vfs: %u\ntotal_vfs: %u\nvf_pages: %d\n",
		   READ_ONCE(sriov->num_vfs), sriov->max_vfs,
		   atomic_read(&mdev->pages.vf_count));
	seq_puts(s, "vf function_id enabled pages\n");
	for (vf = 0; vf < sriov->max_vfs; vf++)
		seq_printf(s, "%d %d %s %d\n", vf, vf + 1,
			   READ_ONCE(sriov->vfs[vf].enabled) ? "yes" : "no",
			   atomic_read(&sriov->vfs[vf].pages));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vfs);

static int health_show(struct seq_file *s, void *unused)
{
	struct mlx5c_dev *mdev = s->private;
	struct mlx5c_health *h = &mdev->health;

	seq_printf(s, "state: %s\n", READ_ONCE(mdev->health.error) ? "internal-error" : "ok");
	seq_printf(s, "reason: %s\n", h->fatal_reason ?: "-");
	seq_printf(s, "polls: %llu\nhealth_counter: %u\nmisses: %u\nsyndrome: 0x%x\n",
		   h->polls, mlx5c_iseg_read(mdev, MLX5C_ISEG_HEALTH_COUNTER), h->misses,
		   ioread8(mdev->iseg + MLX5C_ISEG_HEALTH +
			   offsetof(struct health_buffer, synd)));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(health);

/**
 * mlx5c_debugfs_init() - create the device's debugfs directory
 * @mdev: core device
 */
void mlx5c_debugfs_init(struct mlx5c_dev *mdev)
{
	struct dentry *d;

	if (!mlx5c_dbg_root)
		return;
	d = debugfs_create_dir(pci_name(mdev->pdev), mlx5c_dbg_root);
	if (IS_ERR(d))
		return;
	mdev->dbg = d;
	debugfs_create_file("cmd", 0444, d, mdev, &cmd_fops);
	debugfs_create_file("eqs", 0444, d, mdev, &eqs_fops);
	debugfs_create_file("cqs", 0444, d, mdev, &cqs_fops);
	debugfs_create_file("pages", 0444, d, mdev, &pages_fops);
	debugfs_create_file("health", 0444, d, mdev, &health_fops);
	if (mdev->sriov.max_vfs)
		debugfs_create_file("vfs", 0444, d, mdev, &vfs_fops);
}

/**
 * mlx5c_debugfs_cleanup() - remove the device's debugfs directory
 * @mdev: core device
 */
void mlx5c_debugfs_cleanup(struct mlx5c_dev *mdev)
{
	debugfs_remove_recursive(mdev->dbg);
	mdev->dbg = NULL;
}

/**
 * mlx5c_debugfs_module_init() - create /sys/kernel/debug/mlx5c
 */
void mlx5c_debugfs_module_init(void)
{
	struct dentry *d = debugfs_create_dir("mlx5c", NULL);

	mlx5c_dbg_root = IS_ERR(d) ? NULL : d;
}

/**
 * mlx5c_debugfs_module_exit() - remove /sys/kernel/debug/mlx5c
 */
void mlx5c_debugfs_module_exit(void)
{
	debugfs_remove_recursive(mlx5c_dbg_root);
	mlx5c_dbg_root = NULL;
}
