// SPDX-License-Identifier: GPL-2.0
/*
 * The command queue: one 4 KiB page of 64-byte entries ("slots") in host
 * memory, input and output mailbox chains for payloads beyond the 16 bytes
 * that fit in an entry, a doorbell register in the initialization segment,
 * and completion by polling the ownership bit or by a command EQE.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mlx5_core.h"

unsigned int mlx5c_cmd_timeout_ms;
module_param_named(cmd_timeout_ms, mlx5c_cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms,
		 "Command timeout in ms (0: the device's value, else 60000)");

#define MLX5C_CMD_DEFAULT_TIMEOUT_MS	60000
#define MLX5C_CMD_INLINE		16
#define MLX5C_CMD_OWNER_HW		0x1

enum mlx5c_ent_state {
	MLX5C_ENT_NEW,
	MLX5C_ENT_POSTED,
	MLX5C_ENT_DONE,
	MLX5C_ENT_ABANDONED,
};

struct mlx5c_cmd_box {
	struct mlx5_cmd_prot_block *blk;
	dma_addr_t dma;
};

struct mlx5c_cmd_chunk {
	void *va;
	dma_addr_t dma;
	size_t size;
};

/* A mailbox chain; @chunk is NULL when the blocks come from the pool. */
struct mlx5c_cmd_chain {
	int n;
	struct mlx5c_cmd_box *box;
	int nchunks;
	struct mlx5c_cmd_chunk *chunk;
};

/*
 * One command in flight. The submitter owns it until the device completes
 * it; a submitter that gives up (timeout, internal error) hands it over to
 * its slot, and whoever sees the late completion (or the final cleanup)
 * frees it, so that the device never writes into freed memory.
 */
struct mlx5c_cmd_ent {
	struct mlx5c_dev *mdev;
	u16 opcode;
	u16 op_mod;
	void *out;
	int inlen;
	int outlen;
	struct mlx5c_cmd_chain in;
	struct mlx5c_cmd_chain outc;
	int slot;
	u8 token;
	bool pages;
	bool quiet;
	bool flushed;
	enum mlx5c_ent_state state;
	u8 delivery;
	__be32 inhdr[4];
	__be32 outhdr[4];
	ktime_t start;
	struct completion done;
	mlx5c_cmd_cb_t cb;
	void *ctx;
	struct work_struct work;
};

static struct mlx5_cmd_layout *cmd_slot(struct mlx5c_cmd *cmd, int slot)
{
	return cmd->q + (slot << cmd->log_stride);
}

/**
 * mlx5c_cmd_errno() - errno for a command status
 * @status: status byte of a command output
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_cmd_errno(u8 status)
{
	switch (status) {
	case MLX5_CMD_STAT_OK:
		return 0;
	case MLX5_CMD_STAT_INT_ERR:
	case MLX5_CMD_STAT_BAD_SYS_STATE_ERR:
	case MLX5_CMD_STAT_BAD_INP_LEN_ERR:
	case MLX5_CMD_STAT_BAD_OUTP_LEN_ERR:
		return -EIO;
	case MLX5_CMD_STAT_BAD_OP_ERR:
	case MLX5_CMD_STAT_BAD_PARAM_ERR:
	case MLX5_CMD_STAT_BAD_RES_ERR:
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR:
	case MLX5_CMD_STAT_IX_ERR:
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR:
	case MLX5_CMD_STAT_BAD_PKT_ERR:
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR:
		return -EINVAL;
	case MLX5_CMD_STAT_RES_BUSY:
		return -EBUSY;
	case MLX5C_CMD_STAT_NOT_READY:
	case MLX5_CMD_STAT_NO_RES_ERR:
		return -EAGAIN;
	case MLX5_CMD_STAT_LIM_ERR:
		return -ENOMEM;
	case MLX5C_DRIVER_STATUS_ABORTED:
		return -ENXIO;
	default:
		return -EIO;
	}
}

/**
 * mlx5c_cmd_status_str() - name of a command status
 * @status: status byte of a command output
 *
 * Return: a constant string.
 */
const char *mlx5c_cmd_status_str(u8 status)
{
	switch (status) {
	case MLX5_CMD_STAT_OK: return "OK";
	case MLX5_CMD_STAT_INT_ERR: return "internal error";
	case MLX5_CMD_STAT_BAD_OP_ERR: return "bad operation";
	case MLX5_CMD_STAT_BAD_PARAM_ERR: return "bad parameter";
	case MLX5_CMD_STAT_BAD_SYS_STATE_ERR: return "bad system state";
	case MLX5_CMD_STAT_BAD_RES_ERR: return "bad resource";
	case MLX5_CMD_STAT_RES_BUSY: return "resource busy";
	case MLX5C_CMD_STAT_NOT_READY: return "FW not ready";
	case MLX5_CMD_STAT_LIM_ERR: return "limits exceeded";
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR: return "bad resource state";
	case MLX5_CMD_STAT_IX_ERR: return "bad index";
	case MLX5_CMD_STAT_NO_RES_ERR: return "no resources";
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR: return "bad QP state";
	case MLX5_CMD_STAT_BAD_PKT_ERR: return "bad packet";
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR: return "too many outstanding CQEs";
	case MLX5_CMD_STAT_BAD_INP_LEN_ERR: return "bad input length";
	case MLX5_CMD_STAT_BAD_OUTP_LEN_ERR: return "bad output length";
	case MLX5C_DRIVER_STATUS_ABORTED: return "aborted by the driver";
	default: return "unknown status";
	}
}

static int delivery_errno(u8 delivery)
{
	switch (delivery) {
	case 0x0:
		return 0;
	case 0x1: /* signature */
	case 0x2: /* token */
		return -EBADR;
	case 0x3: /* block number */
	case 0x4: /* output pointer alignment */
	case 0x5: /* input pointer alignment */
		return -EFAULT;
	case 0x6: /* FW internal error */
		return -EIO;
	default: /* lengths, reserved fields, descriptor type */
		return -ENOMSG;
	}
}

static const char *delivery_str(u8 delivery)
{
	static const char * const names[] = {
		[0x0] = "OK",
		[0x1] = "signature error",
		[0x2] = "token error",
		[0x3] = "bad block number",
		[0x4] = "output pointer not aligned",
		[0x5] = "input pointer not aligned",
		[0x6] = "FW internal error",
		[0x7] = "input length error",
		[0x8] = "output length error",
		[0x9] = "reserved fields not cleared",
		[0x10] = "bad command descriptor type",
	};

	if (delivery < ARRAY_SIZE(names) && names[delivery])
		return names[delivery];
	return "unknown delivery status";
}

/**
 * mlx5c_cmd_opcode_str() - name of a command opcode
 * @opcode: command opcode
 *
 * Return: a constant string such as "CREATE_CQ", or "UNKNOWN".
 */
const char *mlx5c_cmd_opcode_str(u16 opcode)
{
	return mlx5c_opcode_name(opcode);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cmd_opcode_str, MLX5C_NS);

/* ---- Mailboxes --------------------------------------------------------- */

/*
 * A chain of mailboxes: 1 KiB-aligned blocks of 512 data bytes, each
 * pointing to the next. Short chains (every command but the page lists of
 * large queues and MRs) take their blocks from the DMA pool; long ones are
 * cut from coherent chunks of up to 64 KiB that are freed with the command,
 * so that one large registration does not leave megabytes in the pool.
 */
#define MLX5C_CMD_POOL_BLOCKS	16
#define MLX5C_CMD_BLOCK_STRIDE	1024
#define MLX5C_CMD_CHUNK_MAX	SZ_64K

static int boxes_for(int len)
{
	if (len <= MLX5C_CMD_INLINE)
		return 0;
	return DIV_ROUND_UP(len - MLX5C_CMD_INLINE, MLX5_CMD_DATA_BLOCK_SIZE);
}

static void chain_free(struct mlx5c_dev *mdev, struct mlx5c_cmd_chain *ch)
{
	struct device *dev = &mdev->pdev->dev;
	int i;

	if (!ch->box)
		return;
	if (ch->chunk) {
		for (i = 0; i < ch->nchunks; i++)
			dma_free_coherent(dev, ch->chunk[i].size, ch->chunk[i].va,
					  ch->chunk[i].dma);
		kvfree(ch->chunk);
	} else {
		for (i = 0; i < ch->n; i++)
			if (ch->box[i].blk)
				dma_pool_free(mdev->cmd.pool, ch->box[i].blk,
					      ch->box[i].dma);
	}
	kvfree(ch->box);
	ch->box = NULL;
}

/* Cut the blocks of @ch from coherent chunks. */
static int chain_alloc_chunks(struct mlx5c_dev *mdev, struct mlx5c_cmd_chain *ch,
			      gfp_t gfp)
{
	struct device *dev = &mdev->pdev->dev;
	int i = 0, max = DIV_ROUND_UP(ch->n * MLX5C_CMD_BLOCK_STRIDE, PAGE_SIZE);

	BUILD_BUG_ON(sizeof(struct mlx5_cmd_prot_block) > MLX5C_CMD_BLOCK_STRIDE);
	ch->chunk = kvcalloc(max, sizeof(*ch->chunk), gfp);
	if (!ch->chunk)
		return -ENOMEM;
	while (i < ch->n) {
		size_t size = min_t(size_t, MLX5C_CMD_CHUNK_MAX,
				    roundup_pow_of_two((ch->n - i) *
						       MLX5C_CMD_BLOCK_STRIDE));
		struct mlx5c_cmd_chunk *c = &ch->chunk[ch->nchunks];
		size_t off;

		size = max_t(size_t, size, PAGE_SIZE);
		for (;;) {
			c->va = dma_alloc_coherent(dev, size, &c->dma,
						   size > PAGE_SIZE ?
						   gfp | __GFP_NOWARN | __GFP_NORETRY : gfp);
			if (c->va || size == PAGE_SIZE)
				break;
			size /= 2;
		}
		if (!c->va)
			return -ENOMEM;
		c->size = size;
		ch->nchunks++;
		for (off = 0; off < size && i < ch->n; off += MLX5C_CMD_BLOCK_STRIDE, i++) {
			ch->box[i].blk = c->va + off;
			ch->box[i].dma = c->dma + off;
		}
	}
	return 0;
}

static int chain_alloc(struct mlx5c_dev *mdev, struct mlx5c_cmd_chain *ch,
		       int n, gfp_t gfp)
{
	int i, err = 0;

	ch->n = n;
	if (!n)
		return 0;
	ch->box = kvcalloc(n, sizeof(*ch->box), gfp);
	if (!ch->box)
		return -ENOMEM;
	if (n > MLX5C_CMD_POOL_BLOCKS) {
		err = chain_alloc_chunks(mdev, ch, gfp);
	} else {
		for (i = 0; i < n && !err; i++) {
			ch->box[i].blk = dma_pool_zalloc(mdev->cmd.pool, gfp,
							 &ch->box[i].dma);
			if (!ch->box[i].blk)
				err = -ENOMEM;
		}
	}
	if (err) {
		chain_free(mdev, ch);
		return err;
	}
	for (i = 0; i < n; i++) {
		ch->box[i].blk->block_num = cpu_to_be32(i);
		if (i + 1 < n)
			ch->box[i].blk->next = cpu_to_be64(ch->box[i + 1].dma);
	}
	return 0;
}

static void ent_free(struct mlx5c_cmd *cmd, struct mlx5c_cmd_ent *ent)
{
	chain_free(ent->mdev, &ent->in);
	chain_free(ent->mdev, &ent->outc);
	kfree(ent);
}

static struct mlx5c_cmd_ent *ent_alloc(struct mlx5c_dev *mdev, const void *in,
				       int inlen, void *out, int outlen, gfp_t gfp)
{
	struct mlx5c_cmd_ent *ent;
	const u8 *src = in;
	int i, len;

	ent = kzalloc(sizeof(*ent), gfp);
	if (!ent)
		return ERR_PTR(-ENOMEM);
	ent->mdev = mdev;
	ent->opcode = MLX5_GET(mlx5c_hdr_in, in, opcode);
	ent->op_mod = MLX5_GET(mlx5c_hdr_in, in, op_mod);
	ent->pages = ent->opcode == MLX5_CMD_OP_MANAGE_PAGES;
	ent->inlen = inlen;
	ent->out = out;
	ent->outlen = outlen;
	init_completion(&ent->done);
	memcpy(ent->inhdr, in, min(inlen, MLX5C_CMD_INLINE));

	if (chain_alloc(mdev, &ent->in, boxes_for(inlen), gfp) ||
	    chain_alloc(mdev, &ent->outc, boxes_for(outlen), gfp))
		goto err;
	src += MLX5C_CMD_INLINE;
	len = inlen - MLX5C_CMD_INLINE;
	for (i = 0; i < ent->in.n; i++) {
		int chunk = min(len, MLX5_CMD_DATA_BLOCK_SIZE);

		memcpy(ent->in.box[i].blk->data, src, chunk);
		src += chunk;
		len -= chunk;
	}
	return ent;
err:
	ent_free(&mdev->cmd, ent);
	return ERR_PTR(-ENOMEM);
}

/* ---- Statistics -------------------------------------------------------- */

static struct mlx5c_cmd_stats *stats_get(struct mlx5c_cmd *cmd, u16 opcode)
{
	struct mlx5c_cmd_stats *st = xa_load(&cmd->stats, opcode);

	if (st)
		return st;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return NULL;
	if (xa_insert(&cmd->stats, opcode, st, GFP_KERNEL)) {
		kfree(st);
		st = xa_load(&cmd->stats, opcode);
	}
	return st;
}

/* Called with cmd->lock held. */
static void stats_account(struct mlx5c_cmd *cmd, struct mlx5c_cmd_ent *ent)
{
	struct mlx5c_cmd_stats *st = xa_load(&cmd->stats, ent->opcode);
	u64 ns = ktime_to_ns(ktime_sub(ktime_get(), ent->start));
	u64 us = div_u64(ns, NSEC_PER_USEC);
	unsigned int b;

	if (!st)
		return;
	st->n++;
	st->total_ns += ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	b = us ? fls64(us) : 0;
	if (b >= MLX5C_CMD_HIST_BUCKETS)
		b = MLX5C_CMD_HIST_BUCKETS - 1;
	st->hist[b]++;
}

static void stats_count(struct mlx5c_cmd *cmd, u16 opcode, bool timeout)
{
	struct mlx5c_cmd_stats *st = xa_load(&cmd->stats, opcode);
	unsigned long flags;

	if (!st)
		return;
	spin_lock_irqsave(&cmd->lock, flags);
	st->failed++;
	if (timeout)
		st->timeouts++;
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/* ---- Submission and completion ----------------------------------------- */

static u8 xor8(const void *buf, int len)
{
	const u8 *p = buf;
	u8 x = 0;

	while (len--)
		x ^= *p++;
	return x;
}

/*
 * Give @ent its token and write it into every mailbox. Done before the
 * slot is taken, outside the interrupts-off section: a long chain (the
 * page list of a large MR) has thousands of blocks.
 */
static void ent_stamp_token(struct mlx5c_cmd *cmd, struct mlx5c_cmd_ent *ent)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cmd->lock, flags);
	if (++cmd->token == 0)
		cmd->token = 1;
	ent->token = cmd->token;
	spin_unlock_irqrestore(&cmd->lock, flags);
	for (i = 0; i < ent->in.n; i++)
		ent->in.box[i].blk->token = ent->token;
	for (i = 0; i < ent->outc.n; i++)
		ent->outc.box[i].blk->token = ent->token;
}

/* Fill the slot of @ent. Called with cmd->lock held. */
static void ent_write_slot(struct mlx5c_cmd *cmd, struct mlx5c_cmd_ent *ent)
{
	struct mlx5_cmd_layout *lay = cmd_slot(cmd, ent->slot);

	memset(lay, 0, sizeof(*lay));
	lay->type = MLX5_PCI_CMD_XPORT;
	lay->inlen = cpu_to_be32(ent->inlen);
	lay->outlen = cpu_to_be32(ent->outlen);
	memcpy(lay->in, ent->inhdr, sizeof(lay->in));
	if (ent->in.n)
		lay->in_ptr = cpu_to_be64(ent->in.box[0].dma);
	if (ent->outc.n)
		lay->out_ptr = cpu_to_be64(ent->outc.box[0].dma);
	lay->token = ent->token;
	lay->status_own = MLX5C_CMD_OWNER_HW;
	lay->sig = 0xff ^ xor8(lay, sizeof(*lay));
}

/*
 * Complete the commands of a completion vector (bitmask of slots reported
 * complete). Called for a command-completion EQE (hard IRQ), or by a
 * polling submitter for its own slot. Slots still owned by the device are
 * skipped.
 */
static void mlx5c_cmd_comp(struct mlx5c_dev *mdev, u32 vector)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct mlx5c_cmd_ent *late[MLX5_MAX_COMMANDS];
	unsigned long vec = vector;
	unsigned long flags;
	int nlate = 0, i;

	spin_lock_irqsave(&cmd->lock, flags);
	for_each_set_bit(i, &vec, 1 << cmd->log_sz) {
		struct mlx5_cmd_layout *lay = cmd_slot(cmd, i);
		struct mlx5c_cmd_ent *ent = cmd->ent[i];

		if (!ent || (READ_ONCE(lay->status_own) & MLX5C_CMD_OWNER_HW))
			continue;
		/* Read the output only after seeing the ownership change. */
		dma_rmb();
		memcpy(ent->outhdr, lay->out, sizeof(ent->outhdr));
		ent->delivery = lay->status_own >> 1;
		stats_account(cmd, ent);
		cmd->ent[i] = NULL;
		__clear_bit(i, &cmd->busy);
		up(ent->pages ? &cmd->pages_sem : &cmd->sem);
		if (ent->state == MLX5C_ENT_ABANDONED) {
			cmd->stale--;
			late[nlate++] = ent;
		} else {
			ent->state = MLX5C_ENT_DONE;
			complete(&ent->done);
		}
	}
	spin_unlock_irqrestore(&cmd->lock, flags);

	for (i = 0; i < nlate; i++) {
		dev_warn_ratelimited(&mdev->pdev->dev,
				     "late completion of abandoned command %s(0x%x), slot recovered\n",
				     mlx5c_opcode_name(late[i]->opcode), late[i]->opcode);
		ent_free(cmd, late[i]);
	}
}

static int cmd_comp_event(struct notifier_block *nb, unsigned long type, void *data)
{
	struct mlx5c_dev *mdev = container_of(nb, struct mlx5c_dev, cmd.nb.nb);
	const struct mlx5_eqe *eqe = data;

	mlx5c_cmd_comp(mdev, be32_to_cpu(eqe->data.cmd.vector));
	return NOTIFY_OK;
}

/**
 * mlx5c_cmd_reap() - recover slots of abandoned commands the device completed
 * @mdev: core device
 *
 * In polling mode nobody watches abandoned slots; this checks them. Called
 * before every submission that finds no free slot and by the health poller.
 */
void mlx5c_cmd_reap(struct mlx5c_dev *mdev)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	unsigned long flags;
	u32 vec = 0;
	int i;

	spin_lock_irqsave(&cmd->lock, flags);
	if (cmd->stale)
		for (i = 0; i < (1 << cmd->log_sz); i++)
			if (cmd->ent[i] && cmd->ent[i]->state == MLX5C_ENT_ABANDONED)
				vec |= BIT(i);
	spin_unlock_irqrestore(&cmd->lock, flags);
	if (vec)
		mlx5c_cmd_comp(mdev, vec);
}

/*
 * Post @ent and wait for it. Return 0 once the device completed it. When
 * the caller has to give up on a posted command, *@gone is set: the entry
 * then belongs to its slot and the caller must not touch it any more.
 */
static int ent_run(struct mlx5c_dev *mdev, struct mlx5c_cmd_ent *ent,
		   bool *gone)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct semaphore *sem = ent->pages ? &cmd->pages_sem : &cmd->sem;
	unsigned long tmo = msecs_to_jiffies(cmd->timeout_ms);
	struct mlx5_cmd_layout *lay;
	enum mlx5c_cmd_mode mode;
	unsigned long flags, deadline;
	u16 opcode = ent->opcode, op_mod = ent->op_mod;
	bool flushed;
	int slot, i;
	u8 token;

	*gone = false;
	if (READ_ONCE(cmd->error))
		return -ENXIO;
	if (down_trylock(sem)) {
		mlx5c_cmd_reap(mdev);
		if (down_timeout(sem, tmo)) {
			dev_err(&mdev->pdev->dev,
				"command %s(0x%x): no free command slot after %u ms\n",
				mlx5c_opcode_name(ent->opcode), ent->opcode,
				cmd->timeout_ms);
			return -EBUSY;
		}
	}

	ent_stamp_token(cmd, ent);
	spin_lock_irqsave(&cmd->lock, flags);
	if (cmd->error) {
		spin_unlock_irqrestore(&cmd->lock, flags);
		up(sem);
		return -ENXIO;
	}
	if (ent->pages)
		slot = cmd->max_reg;
	else
		slot = find_first_zero_bit(&cmd->busy, cmd->max_reg);
	if (WARN_ON(slot > cmd->max_reg || test_bit(slot, &cmd->busy))) {
		spin_unlock_irqrestore(&cmd->lock, flags);
		up(sem);
		return -EIO;
	}
	__set_bit(slot, &cmd->busy);
	cmd->ent[slot] = ent;
	ent->slot = slot;
	token = ent->token;
	ent->state = MLX5C_ENT_POSTED;
	ent_write_slot(cmd, ent);
	mode = cmd->mode;
	ent->start = ktime_get();
	/* The entry and mailboxes must be in memory before the doorbell. */
	wmb();
	iowrite32be(BIT(slot), mdev->iseg + MLX5C_ISEG_CMD_DBELL);
	spin_unlock_irqrestore(&cmd->lock, flags);

	lay = cmd_slot(cmd, slot);
	if (mode == MLX5C_CMD_POLLING) {
		deadline = jiffies + tmo;
		for (i = 0;; i++) {
			if (!(READ_ONCE(lay->status_own) & MLX5C_CMD_OWNER_HW)) {
				mlx5c_cmd_comp(mdev, BIT(slot));
				break;
			}
			if (READ_ONCE(ent->flushed) || time_after(jiffies, deadline))
				break;
			if (i < 64)
				udelay(2);
			else
				usleep_range(20, 100);
		}
	} else if (!wait_for_completion_timeout(&ent->done, tmo)) {
		/* Maybe the completion EQE was lost or not yet handled. */
		mlx5c_eq_poll_cmd(mdev);
		if (!(READ_ONCE(lay->status_own) & MLX5C_CMD_OWNER_HW)) {
			dev_warn(&mdev->pdev->dev,
				 "command %s(0x%x) completed without a command EQE\n",
				 mlx5c_opcode_name(ent->opcode), ent->opcode);
			mlx5c_cmd_comp(mdev, BIT(slot));
		}
	}

	spin_lock_irqsave(&cmd->lock, flags);
	if (ent->state == MLX5C_ENT_DONE) {
		spin_unlock_irqrestore(&cmd->lock, flags);
		return 0;
	}
	/* Give the entry to the slot: the device may still write to it. */
	ent->state = MLX5C_ENT_ABANDONED;
	flushed = ent->flushed;
	cmd->stale++;
	*gone = true;
	spin_unlock_irqrestore(&cmd->lock, flags);

	if (flushed)
		return -ENXIO;
	stats_count(cmd, opcode, true);
	dev_err(&mdev->pdev->dev,
		"command %s(0x%x) op_mod 0x%x timed out after %u ms (slot %d, token 0x%02x, %s mode)\n",
		mlx5c_opcode_name(opcode), opcode, op_mod,
		cmd->timeout_ms, slot, token,
		mode == MLX5C_CMD_POLLING ? "polling" : "event");
	/* No answer and no heartbeat: later commands would wait in vain. */
	if (mlx5c_health_heartbeat_stopped(mdev, cmd->timeout_ms))
		mlx5c_enter_error(mdev, "command timed out and the firmware heartbeat stopped");
	return -ETIMEDOUT;
}

/* Copy the output of a completed @ent and turn its status into an errno. */
static int ent_finish(struct mlx5c_dev *mdev, struct mlx5c_cmd_ent *ent)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	u8 *dst = ent->out;
	int len, i, err;
	u32 syndrome;
	u8 status;

	if (ent->delivery) {
		err = delivery_errno(ent->delivery);
		stats_count(cmd, ent->opcode, false);
		dev_err(&mdev->pdev->dev,
			"command %s(0x%x) op_mod 0x%x: delivery status %s(0x%x), errno %d\n",
			mlx5c_opcode_name(ent->opcode), ent->opcode, ent->op_mod,
			delivery_str(ent->delivery), ent->delivery, err);
		return err;
	}

	memcpy(dst, ent->outhdr, min_t(int, ent->outlen, MLX5C_CMD_INLINE));
	dst += MLX5C_CMD_INLINE;
	len = ent->outlen - MLX5C_CMD_INLINE;
	for (i = 0; i < ent->outc.n; i++) {
		int chunk = min(len, MLX5_CMD_DATA_BLOCK_SIZE);

		memcpy(dst, ent->outc.box[i].blk->data, chunk);
		dst += chunk;
		len -= chunk;
	}

	status = MLX5_GET(mlx5c_hdr_out, ent->outhdr, status);
	if (!status)
		return 0;
	syndrome = MLX5_GET(mlx5c_hdr_out, ent->outhdr, syndrome);
	err = mlx5c_cmd_errno(status);
	stats_count(cmd, ent->opcode, false);
	if (!ent->quiet)
		dev_err(&mdev->pdev->dev,
			"command %s(0x%x) op_mod 0x%x failed: status %s(0x%x), syndrome 0x%08x, errno %d\n",
			mlx5c_opcode_name(ent->opcode), ent->opcode, ent->op_mod,
			mlx5c_cmd_status_str(status), status, syndrome, err);
	return err;
}

/* Output of a command failed locally in the internal-error state. */
static void out_aborted(void *out, int outlen)
{
	__be32 hdr[4] = {};

	MLX5_SET(mlx5c_hdr_out, hdr, status, MLX5C_DRIVER_STATUS_ABORTED);
	MLX5_SET(mlx5c_hdr_out, hdr, syndrome, MLX5C_DRIVER_SYND);
	memcpy(out, hdr, min_t(int, outlen, sizeof(hdr)));
}

/* Lengths come from callers that size page lists by user requests. */
static bool cmd_args_ok(struct mlx5c_dev *mdev, const void *in, int inlen,
			void *out, int outlen)
{
	if (!in || !out || inlen < 8 || outlen < 8 ||
	    inlen > MLX5C_CMD_MAX_MSG_LEN || outlen > MLX5C_CMD_MAX_MSG_LEN) {
		dev_err_ratelimited(&mdev->pdev->dev,
				    "command 0x%x: bad lengths %d/%d (at most %d)\n",
				    in ? MLX5_GET(mlx5c_hdr_in, in, opcode) : 0,
				    inlen, outlen, MLX5C_CMD_MAX_MSG_LEN);
		return false;
	}
	return true;
}

/**
 * __mlx5c_cmd_exec() - execute a command, optionally without error log
 * @mdev: core device
 * @in: command input (starts with the 16-byte header)
 * @inlen: input length in bytes
 * @out: command output buffer
 * @outlen: output length in bytes
 * @quiet: do not log a failure status (the caller handles it)
 *
 * Return: 0, or a negative errno (see mlx5c_cmd_exec()).
 */
int __mlx5c_cmd_exec(struct mlx5c_dev *mdev, const void *in, int inlen,
		     void *out, int outlen, bool quiet)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct mlx5c_cmd_ent *ent;
	bool gone;
	int err;

	might_sleep();
	if (!cmd_args_ok(mdev, in, inlen, out, outlen))
		return -EINVAL;
	ent = ent_alloc(mdev, in, inlen, out, outlen, GFP_KERNEL);
	if (IS_ERR(ent))
		return PTR_ERR(ent);
	ent->quiet = quiet;
	stats_get(cmd, ent->opcode);

	err = ent_run(mdev, ent, &gone);
	if (!err)
		err = ent_finish(mdev, ent);
	else if (err == -ENXIO)
		out_aborted(out, outlen);
	/* An abandoned entry belongs to its slot now. */
	if (!gone)
		ent_free(cmd, ent);
	return err;
}

/**
 * mlx5c_cmd_exec() - execute a firmware command and wait for it
 * @mdev: core device
 * @in: command input, starting with the 16-byte header (opcode, uid, op_mod)
 * @inlen: input length in bytes
 * @out: buffer for the command output, starting with status and syndrome
 * @outlen: output length in bytes
 *
 * Sleeps. Commands run in parallel up to the number of command slots.
 * A failure is logged with the opcode name, status and syndrome.
 *
 * Return: 0 on success; -EREMOTEIO-style errnos mapped from the command
 * status (-EINVAL, -EIO, -EBUSY, -EAGAIN, -ENOMEM); -ETIMEDOUT if the
 * device did not complete the command in time; -ENXIO if the device is in
 * the internal-error state (@out then holds status 0xfe).
 */
int mlx5c_cmd_exec(struct mlx5c_dev *mdev, const void *in, int inlen,
		   void *out, int outlen)
{
	return __mlx5c_cmd_exec(mdev, in, inlen, out, outlen, false);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cmd_exec, MLX5C_NS);

/**
 * mlx5c_cmd_exec_quiet() - mlx5c_cmd_exec() without the failure log
 * @mdev: core device
 * @in: command input, starting with the 16-byte header
 * @inlen: input length in bytes
 * @out: buffer for the command output
 * @outlen: output length in bytes
 *
 * For commands whose failure status belongs to someone else to report: the
 * ones a process builds itself (DEVX), which would otherwise let it fill
 * the kernel log.
 *
 * Return: as mlx5c_cmd_exec().
 */
int mlx5c_cmd_exec_quiet(struct mlx5c_dev *mdev, const void *in, int inlen,
			 void *out, int outlen)
{
	return __mlx5c_cmd_exec(mdev, in, inlen, out, outlen, true);
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cmd_exec_quiet, MLX5C_NS);

/**
 * mlx5c_access_reg() - read or write one access register (ACCESS_REG)
 * @mdev: core device
 * @reg_id: register id (PRM: PAOS, PCAP, NODE_DESC...)
 * @write: write @data, else read
 * @data: the register's contents to send (a read sends its index fields)
 * @out_data: the register as the firmware returns it, or NULL
 * @size: register size in bytes
 *
 * Sleeps.
 *
 * Return: 0 or a negative errno (see mlx5c_cmd_exec()).
 */
int mlx5c_access_reg(struct mlx5c_dev *mdev, u16 reg_id, bool write,
		     const void *data, void *out_data, int size)
{
	int inlen = MLX5_ST_SZ_BYTES(access_register_in) + size;
	int outlen = MLX5_ST_SZ_BYTES(access_register_out) + size;
	void *in, *out;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	out = kzalloc(outlen, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	MLX5_SET(access_register_in, in, opcode, MLX5_CMD_OP_ACCESS_REG);
	MLX5_SET(access_register_in, in, op_mod, write ? 0 : 1);
	MLX5_SET(access_register_in, in, register_id, reg_id);
	memcpy(MLX5_ADDR_OF(access_register_in, in, register_data), data, size);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, outlen);
	if (!err && out_data)
		memcpy(out_data, MLX5_ADDR_OF(access_register_out, out, register_data),
		       size);
out:
	kfree(in);
	kfree(out);
	return err;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_access_reg, MLX5C_NS);

static void cmd_async_work(struct work_struct *work)
{
	struct mlx5c_cmd_ent *ent = container_of(work, struct mlx5c_cmd_ent, work);
	struct mlx5c_dev *mdev = ent->mdev;
	mlx5c_cmd_cb_t cb = ent->cb;
	void *ctx = ent->ctx;
	void *out = ent->out;
	int outlen = ent->outlen;
	bool gone;
	int err;

	err = ent_run(mdev, ent, &gone);
	if (!err)
		err = ent_finish(mdev, ent);
	else if (err == -ENXIO)
		out_aborted(out, outlen);
	if (!gone)
		ent_free(&mdev->cmd, ent);
	cb(err, ctx);
}

/**
 * mlx5c_cmd_exec_cb() - execute a firmware command asynchronously
 * @mdev: core device
 * @in: command input; copied before this function returns
 * @inlen: input length in bytes
 * @out: buffer for the output; must stay valid until @cb runs
 * @outlen: output length in bytes
 * @cb: called once with the result, in process context
 * @ctx: passed to @cb
 *
 * Return: 0 if the command was queued (@cb will run), or a negative errno
 * (@cb will not run).
 */
int mlx5c_cmd_exec_cb(struct mlx5c_dev *mdev, const void *in, int inlen,
		      void *out, int outlen, mlx5c_cmd_cb_t cb, void *ctx)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct mlx5c_cmd_ent *ent;

	if (!cb || !cmd_args_ok(mdev, in, inlen, out, outlen))
		return -EINVAL;
	if (READ_ONCE(cmd->error))
		return -ENXIO;
	ent = ent_alloc(mdev, in, inlen, out, outlen, GFP_KERNEL);
	if (IS_ERR(ent))
		return PTR_ERR(ent);
	ent->cb = cb;
	ent->ctx = ctx;
	stats_get(cmd, ent->opcode);
	INIT_WORK(&ent->work, cmd_async_work);
	queue_work(cmd->wq, &ent->work);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mlx5c_cmd_exec_cb, MLX5C_NS);

/* ---- Modes, errors, setup ---------------------------------------------- */

/**
 * mlx5c_cmd_use_events() - complete commands through the command EQ
 * @mdev: core device
 */
void mlx5c_cmd_use_events(struct mlx5c_dev *mdev)
{
	unsigned long flags;

	spin_lock_irqsave(&mdev->cmd.lock, flags);
	mdev->cmd.mode = MLX5C_CMD_EVENTS;
	spin_unlock_irqrestore(&mdev->cmd.lock, flags);
}

/**
 * mlx5c_cmd_use_polling() - complete commands by polling their slot
 * @mdev: core device
 */
void mlx5c_cmd_use_polling(struct mlx5c_dev *mdev)
{
	unsigned long flags;

	spin_lock_irqsave(&mdev->cmd.lock, flags);
	mdev->cmd.mode = MLX5C_CMD_POLLING;
	spin_unlock_irqrestore(&mdev->cmd.lock, flags);
}

/**
 * mlx5c_cmd_flush() - enter the internal-error state
 * @mdev: core device
 *
 * Every command in flight returns -ENXIO now; new commands fail without
 * reaching the device.
 */
void mlx5c_cmd_flush(struct mlx5c_dev *mdev)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cmd->lock, flags);
	cmd->error = true;
	for (i = 0; i < (1 << cmd->log_sz); i++) {
		struct mlx5c_cmd_ent *ent = cmd->ent[i];

		if (ent && ent->state == MLX5C_ENT_POSTED) {
			WRITE_ONCE(ent->flushed, true);
			complete(&ent->done);
		}
	}
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/**
 * mlx5c_cmd_init() - set up the command queue and give it to the device
 * @mdev: core device with a mapped initialization segment
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_cmd_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct device *dev = &mdev->pdev->dev;
	u32 reg = mlx5c_iseg_read(mdev, MLX5C_ISEG_CMDQ_ADDR_L_SZ);
	u32 exec_to;
	int err;

	cmd->log_sz = (reg >> 4) & 0xf;
	cmd->log_stride = reg & 0xf;
	if (cmd->log_sz < 1 || (1 << cmd->log_sz) > MLX5_MAX_COMMANDS ||
	    cmd->log_sz + cmd->log_stride > 12 ||
	    (1 << cmd->log_stride) < sizeof(struct mlx5_cmd_layout)) {
		dev_err(dev, "unsupported command queue geometry: log_sz %u, log_stride %u\n",
			cmd->log_sz, cmd->log_stride);
		return -EINVAL;
	}
	cmd->max_reg = (1 << cmd->log_sz) - 1;
	sema_init(&cmd->sem, cmd->max_reg);
	sema_init(&cmd->pages_sem, 1);
	spin_lock_init(&cmd->lock);
	xa_init(&cmd->stats);
	cmd->mode = MLX5C_CMD_POLLING;
	cmd->error = false;
	cmd->busy = 0;
	cmd->stale = 0;

	exec_to = mlx5c_iseg_read(mdev, MLX5C_ISEG_CMD_EXEC_TO);
	if (mlx5c_cmd_timeout_ms)
		cmd->timeout_ms = mlx5c_cmd_timeout_ms;
	else if (exec_to)
		cmd->timeout_ms = mlx5c_iseg_timeout_ms(exec_to);
	else
		cmd->timeout_ms = MLX5C_CMD_DEFAULT_TIMEOUT_MS;

	cmd->q = dma_alloc_coherent(dev, SZ_4K, &cmd->dma, GFP_KERNEL);
	if (!cmd->q)
		return -ENOMEM;
	if (cmd->dma & (SZ_4K - 1)) {
		dev_err(dev, "command queue not 4 KiB aligned\n");
		err = -ENOMEM;
		goto err_q;
	}
	cmd->pool = dma_pool_create("mlx5c_cmd", dev, sizeof(struct mlx5_cmd_prot_block),
				    roundup_pow_of_two(sizeof(struct mlx5_cmd_prot_block)), 0);
	if (!cmd->pool) {
		err = -ENOMEM;
		goto err_q;
	}
	cmd->wq = alloc_workqueue("mlx5c_cmd_%s", WQ_UNBOUND | WQ_MEM_RECLAIM, 0,
				  pci_name(mdev->pdev));
	if (!cmd->wq) {
		err = -ENOMEM;
		goto err_pool;
	}

	/* Subscribed before the command EQ exists: no completion is missed. */
	cmd->nb.nb.notifier_call = cmd_comp_event;
	cmd->nb.event_type = MLX5_EVENT_TYPE_CMD;
	mlx5c_eq_notifier_register(mdev, &cmd->nb);

	iowrite32be(upper_32_bits(cmd->dma), mdev->iseg + MLX5C_ISEG_CMDQ_ADDR_H);
	iowrite32be(lower_32_bits(cmd->dma), mdev->iseg + MLX5C_ISEG_CMDQ_ADDR_L_SZ);
	dev_dbg(dev, "command queue at %pad: %u slots of %u bytes, timeout %u ms\n",
		&cmd->dma, 1 << cmd->log_sz, 1 << cmd->log_stride, cmd->timeout_ms);
	return 0;

err_pool:
	dma_pool_destroy(cmd->pool);
err_q:
	dma_free_coherent(dev, SZ_4K, cmd->q, cmd->dma);
	return err;
}

/**
 * mlx5c_cmd_cleanup() - free the command queue
 * @mdev: core device; the device must no longer master the bus if commands
 *	were abandoned
 */
void mlx5c_cmd_cleanup(struct mlx5c_dev *mdev)
{
	struct mlx5c_cmd *cmd = &mdev->cmd;
	struct mlx5c_cmd_stats *st;
	unsigned long idx;
	int i;

	/* The command EQ is gone: no completion EQE comes any more. */
	mlx5c_eq_notifier_unregister(mdev, &cmd->nb);
	destroy_workqueue(cmd->wq);
	mlx5c_cmd_reap(mdev);
	for (i = 0; i < (1 << cmd->log_sz); i++) {
		if (!cmd->ent[i])
			continue;
		dev_warn(&mdev->pdev->dev,
			 "command %s(0x%x) in slot %d never completed\n",
			 mlx5c_opcode_name(cmd->ent[i]->opcode),
			 cmd->ent[i]->opcode, i);
		ent_free(cmd, cmd->ent[i]);
		cmd->ent[i] = NULL;
	}
	xa_for_each(&cmd->stats, idx, st)
		kfree(st);
	xa_destroy(&cmd->stats);
	dma_pool_destroy(cmd->pool);
	dma_free_coherent(&mdev->pdev->dev, SZ_4K, cmd->q, cmd->dma);
	cmd->q = NULL;
}
