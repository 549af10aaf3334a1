// SPDX-License-Identifier: GPL-2.0
/*
 * Firmware pages: host memory the device borrows. Boot and init pages are
 * given during bring-up (QUERY_PAGES + MANAGE_PAGES GIVE); later requests
 * arrive as page-request EQEs and run on an ordered workqueue; at unload
 * every page is taken back (MANAGE_PAGES TAKE) before DISABLE_HCA.
 *
 * A PF with VFs also gives pages on behalf of each VF it enabled: page
 * requests with function_id vf + 1 (sriov.c). Every page records the
 * function it was given for (its page_private), so that each function's
 * pages are counted (mdev->pages.count for all, vf_count for the VFs',
 * struct mlx5c_vf for each VF), returned and released on their own.
 *
 * What the firmware may hold, for the function and its VFs together, is
 * bounded by a share of RAM (max_fw_pages_pct): a request beyond it is
 * refused whole, with a message and MANAGE_PAGES ALLOCATION_FAIL, and
 * pages are allocated without retrying reclaim, so a device asking for too
 * much never wakes the OOM killer.
 */
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mlx5_core.h"

static unsigned int max_fw_pages_pct = 25;
module_param(max_fw_pages_pct, uint, 0644);
MODULE_PARM_DESC(max_fw_pages_pct,
		 "Largest share of RAM the firmware of one function may hold, in percent (1-100, default 25)");

#define MLX5C_PAGES_PER_CMD		4096
#define MLX5C_PAGES_PER_RECLAIM		768
#define MLX5C_RECLAIM_TIMEOUT_MS	5000
#define MLX5C_PAGE_REQ_EC		BIT(15)
#define MLX5C_PAGE_REQ_RELEASE_ALL	BIT(14)

struct mlx5c_page_req {
	struct mlx5c_dev *mdev;
	u16 func_id;
	bool ec;
	bool release_all;
	s32 npages;
	struct work_struct work;
};

/* The page counter of VF function @func_id (1..max_vfs), or NULL. */
static atomic_t *vf_pages(struct mlx5c_dev *mdev, u16 func_id)
{
	struct mlx5c_sriov *sriov = &mdev->sriov;

	if (!func_id || func_id > sriov->max_vfs)
		return NULL;
	return &sriov->vfs[func_id - 1].pages;
}

static void fw_pages_add(struct mlx5c_dev *mdev, u16 func_id, int d)
{
	atomic_t *vf = vf_pages(mdev, func_id);

	atomic_add(d, &mdev->pages.count);
	if (vf) {
		atomic_add(d, vf);
		atomic_add(d, &mdev->pages.vf_count);
	}
}

/* Pages the firmware holds for function @func_id. */
static u32 func_held(struct mlx5c_dev *mdev, u16 func_id)
{
	atomic_t *vf = vf_pages(mdev, func_id);

	if (vf)
		return atomic_read(vf);
	return atomic_read(&mdev->pages.count) - atomic_read(&mdev->pages.vf_count);
}

static void page_release(struct mlx5c_dev *mdev, u64 addr, struct page *page)
{
	u16 func_id = page_private(page);

	dma_unmap_page(&mdev->pdev->dev, addr, PAGE_SIZE, DMA_BIDIRECTIONAL);
	set_page_private(page, 0);
	__free_page(page);
	fw_pages_add(mdev, func_id, -1);
}

/*
 * Allocate, map and record one page for function @func_id. Return its bus
 * address or 0.
 */
static u64 page_get(struct mlx5c_dev *mdev, u16 func_id)
{
	struct device *dev = &mdev->pdev->dev;
	struct page *zero_page = NULL;
	struct page *page;
	dma_addr_t addr;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		page = alloc_page(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY);
		if (!page)
			break;
		addr = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, addr)) {
			__free_page(page);
			page = NULL;
			break;
		}
		if (addr)
			break;
		/* The firmware does not take bus address 0: keep it aside. */
		zero_page = page;
		page = NULL;
	}
	if (zero_page) {
		dma_unmap_page(dev, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		__free_page(zero_page);
	}
	if (!page)
		return 0;
	set_page_private(page, func_id);
	if (xa_insert(&mdev->pages.pages, addr >> MLX5_ADAPTER_PAGE_SHIFT, page,
		      GFP_KERNEL)) {
		dma_unmap_page(dev, addr, PAGE_SIZE, DMA_BIDIRECTIONAL);
		set_page_private(page, 0);
		__free_page(page);
		return 0;
	}
	fw_pages_add(mdev, func_id, 1);
	return addr;
}

static void page_put(struct mlx5c_dev *mdev, u64 addr)
{
	struct page *page;

	page = xa_erase(&mdev->pages.pages, addr >> MLX5_ADAPTER_PAGE_SHIFT);
	if (!page) {
		dev_warn(&mdev->pdev->dev,
			 "firmware returned page 0x%llx that it did not own\n", addr);
		return;
	}
	page_release(mdev, addr, page);
}

static int cant_give(struct mlx5c_dev *mdev, u16 func_id, bool ec)
{
	u32 in[MLX5_ST_SZ_DW(manage_pages_in)] = {};
	u32 out[MLX5_ST_SZ_DW(manage_pages_out)] = {};

	MLX5_SET(manage_pages_in, in, opcode, MLX5_CMD_OP_MANAGE_PAGES);
	MLX5_SET(manage_pages_in, in, op_mod, MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_FAIL);
	MLX5_SET(manage_pages_in, in, function_id, func_id);
	MLX5_SET(manage_pages_in, in, embedded_cpu_function, ec);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/* One MANAGE_PAGES GIVE of @n pages (n may be 0). */
static int give_batch(struct mlx5c_dev *mdev, u16 func_id, bool ec, u32 n,
		      bool event)
{
	int inlen = MLX5_ST_SZ_BYTES(manage_pages_in) + n * sizeof(u64);
	u32 out[MLX5_ST_SZ_DW(manage_pages_out)] = {};
	u32 i, got;
	void *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		goto no_mem;
	for (got = 0; got < n; got++) {
		u64 addr = page_get(mdev, func_id);

		if (!addr)
			break;
		MLX5_ARRAY_SET64(manage_pages_in, in, pas, got, addr);
	}
	if (got < n) {
		for (i = 0; i < got; i++)
			page_put(mdev, MLX5_GET64(manage_pages_in, in, pas[i]));
		kvfree(in);
		goto no_mem;
	}

	MLX5_SET(manage_pages_in, in, opcode, MLX5_CMD_OP_MANAGE_PAGES);
	MLX5_SET(manage_pages_in, in, op_mod, MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_SUCCESS);
	MLX5_SET(manage_pages_in, in, function_id, func_id);
	MLX5_SET(manage_pages_in, in, embedded_cpu_function, ec);
	MLX5_SET(manage_pages_in, in, input_num_entries, n);
	err = mlx5c_cmd_exec(mdev, in, inlen, out, sizeof(out));
	if (!err) {
		mdev->pages.given += n;
	} else if (mlx5c_cmd_maybe_ran(err)) {
		/*
		 * The firmware may have taken them: they stay recorded as its
		 * own, to be reclaimed at teardown or freed once the device no
		 * longer masters the bus (mlx5c_pages_cleanup()).
		 */
		dev_warn(&mdev->pdev->dev,
			 "MANAGE_PAGES gave %u pages without an answer (%d): kept until the function is down\n",
			 n, err);
	} else {
		for (i = 0; i < n; i++)
			page_put(mdev, MLX5_GET64(manage_pages_in, in, pas[i]));
	}
	kvfree(in);
	return err;

no_mem:
	mdev->pages.give_failed++;
	dev_warn(&mdev->pdev->dev, "cannot allocate %u pages for the firmware\n", n);
	if (event)
		cant_give(mdev, func_id, ec);
	return -ENOMEM;
}

/* Pages the firmware may hold: max_fw_pages_pct of RAM. */
static u64 pages_limit(void)
{
	unsigned int pct = clamp(READ_ONCE(max_fw_pages_pct), 1U, 100U);

	return div_u64((u64)totalram_pages() * pct, 100);
}

static int give_pages(struct mlx5c_dev *mdev, u16 func_id, bool ec, u32 n,
		      bool event)
{
	u64 held = atomic_read(&mdev->pages.count);
	u64 limit = pages_limit();
	int err;

	if (held + n > limit) {
		mdev->pages.give_failed++;
		mdev->pages.refused++;
		if (func_id && !ec)
			dev_err(&mdev->pdev->dev,
				"VF %u page request of %u pages refused: the firmware holds %llu pages for this PF and its VFs, the limit is %llu (max_fw_pages_pct=%u)\n",
				func_id - 1, n, held, limit, READ_ONCE(max_fw_pages_pct));
		else
			dev_err(&mdev->pdev->dev,
				"firmware asks for %u more pages, holding %llu: refused, the limit is %llu (max_fw_pages_pct=%u)\n",
				n, held, limit, READ_ONCE(max_fw_pages_pct));
		if (event)
			cant_give(mdev, func_id, ec);
		return -ENOMEM;
	}
	do {
		u32 batch = min_t(u32, n, MLX5C_PAGES_PER_CMD);

		err = give_batch(mdev, func_id, ec, batch, event);
		if (err)
			return err;
		n -= batch;
	} while (n);
	return 0;
}

/* One MANAGE_PAGES TAKE of up to @n pages. Return pages reclaimed or errno. */
static int take_pages(struct mlx5c_dev *mdev, u16 func_id, bool ec, u32 n)
{
	int outlen = MLX5_ST_SZ_BYTES(manage_pages_out) + n * sizeof(u64);
	u32 in[MLX5_ST_SZ_DW(manage_pages_in)] = {};
	__be64 *pas;
	u32 i, got;
	void *out;
	int err;

	out = kvzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(manage_pages_in, in, opcode, MLX5_CMD_OP_MANAGE_PAGES);
	MLX5_SET(manage_pages_in, in, op_mod, MLX5_MANAGE_PAGES_IN_OP_MOD_HCA_RETURN_PAGES);
	MLX5_SET(manage_pages_in, in, function_id, func_id);
	MLX5_SET(manage_pages_in, in, embedded_cpu_function, ec);
	MLX5_SET(manage_pages_in, in, input_num_entries, n);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, outlen);
	if (err)
		goto out;
	got = MLX5_GET(manage_pages_out, out, output_num_entries);
	if (got > n) {
		dev_err(&mdev->pdev->dev,
			"firmware returned %u pages for a request of %u\n", got, n);
		err = -EREMOTEIO;
		goto out;
	}
	pas = MLX5_ADDR_OF(manage_pages_out, out, pas);
	for (i = 0; i < got; i++)
		page_put(mdev, be64_to_cpu(pas[i]));
	mdev->pages.reclaimed += got;
	err = got;
out:
	kvfree(out);
	return err;
}

/*
 * The firmware dropped every page of function @func (negative: of every
 * function): free them here.
 */
static void release_all(struct mlx5c_dev *mdev, int func)
{
	struct page *page;
	unsigned long idx;
	u64 n = 0;

	xa_for_each(&mdev->pages.pages, idx, page) {
		if (func >= 0 && page_private(page) != (unsigned long)func)
			continue;
		xa_erase(&mdev->pages.pages, idx);
		page_release(mdev, (u64)idx << MLX5_ADAPTER_PAGE_SHIFT, page);
		n++;
	}
	mdev->pages.freed_locally += n;
	if (n)
		dev_info(&mdev->pdev->dev, "freed %llu firmware pages without reclaim\n", n);
}

/*
 * Return up to @n pages the firmware asks to give back, in commands of at
 * most MLX5C_PAGES_PER_RECLAIM; never more than it holds.
 */
static int return_pages(struct mlx5c_dev *mdev, u16 func_id, bool ec, u32 n)
{
	u32 held = func_held(mdev, func_id);
	int got;

	if (n > held) {
		dev_warn(&mdev->pdev->dev,
			 "firmware asks to return %u pages of function %u but holds %u\n",
			 n, func_id, held);
		n = held;
	}
	while (n) {
		got = take_pages(mdev, func_id, ec, min_t(u32, n, MLX5C_PAGES_PER_RECLAIM));
		if (got <= 0)
			return got;
		n -= min_t(u32, n, got);
	}
	return 0;
}

static void page_req_work(struct work_struct *work)
{
	struct mlx5c_page_req *req = container_of(work, struct mlx5c_page_req, work);
	struct mlx5c_dev *mdev = req->mdev;
	int err = 0;

	if (req->func_id && (req->ec || !vf_pages(mdev, req->func_id))) {
		/* Not a VF of this PF: nothing to give or take for it. */
		mdev->pages.bad_func++;
		dev_err_ratelimited(&mdev->pdev->dev,
				    "page request of %d pages for function %u%s refused: this function has %u VFs\n",
				    req->npages, req->func_id, req->ec ? " (embedded CPU)" : "",
				    mdev->sriov.max_vfs);
		if (req->npages > 0 && !req->release_all)
			cant_give(mdev, req->func_id, req->ec);
	} else if (req->release_all) {
		release_all(mdev, req->func_id);
	} else if (req->npages > 0)
		err = give_pages(mdev, req->func_id, req->ec, req->npages, true);
	else if (req->npages < 0)
		err = return_pages(mdev, req->func_id, req->ec,
				   -(s64)req->npages);
	if (err < 0 && !READ_ONCE(mdev->cmd.error))
		dev_warn(&mdev->pdev->dev, "page request of %d pages failed: %d\n",
			 req->npages, err);
	kfree(req);
}

/*
 * A page-request EQE, in hard-IRQ context: the work is done on the pages
 * workqueue.
 */
static int pages_request_event(struct notifier_block *nb, unsigned long type, void *data)
{
	struct mlx5c_dev *mdev = container_of(nb, struct mlx5c_dev, pages.nb.nb);
	const struct mlx5_eqe *eqe = data;
	u16 ec_function = be16_to_cpu(eqe->data.req_pages.ec_function);
	struct mlx5c_page_req *req;

	mdev->pages.requests++;
	req = kzalloc(sizeof(*req), GFP_ATOMIC);
	if (!req) {
		dev_warn_ratelimited(&mdev->pdev->dev, "page request dropped: no memory\n");
		return NOTIFY_OK;
	}
	req->mdev = mdev;
	req->func_id = be16_to_cpu(eqe->data.req_pages.func_id);
	req->npages = (s32)be32_to_cpu(eqe->data.req_pages.num_pages);
	req->ec = !!(ec_function & MLX5C_PAGE_REQ_EC);
	req->release_all = !!(ec_function & MLX5C_PAGE_REQ_RELEASE_ALL);
	if (req->func_id)
		mdev->pages.vf_requests++;
	INIT_WORK(&req->work, page_req_work);
	queue_work(mdev->pages.wq, &req->work);
	return NOTIFY_OK;
}

/**
 * mlx5c_pages_startup() - give the boot or init pages
 * @mdev: core device
 * @boot: boot pages (before SET_HCA_CAP) rather than init pages
 *
 * Return: 0 or a negative errno.
 */
int mlx5c_pages_startup(struct mlx5c_dev *mdev, bool boot)
{
	u32 out[MLX5_ST_SZ_DW(query_pages_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_pages_in)] = {};
	u16 func_id;
	s32 npages;
	int err;

	MLX5_SET(query_pages_in, in, opcode, MLX5_CMD_OP_QUERY_PAGES);
	MLX5_SET(query_pages_in, in, op_mod,
		 boot ? MLX5_QUERY_PAGES_IN_OP_MOD_BOOT_PAGES :
			MLX5_QUERY_PAGES_IN_OP_MOD_INIT_PAGES);
	MLX5_SET(query_pages_in, in, embedded_cpu_function, mdev->ecpu);
	err = mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
	if (err)
		return err;
	func_id = MLX5_GET(query_pages_out, out, function_id);
	npages = MLX5_GET(query_pages_out, out, num_pages);
	if (npages < 0) {
		dev_err(&mdev->pdev->dev, "firmware asks for %d %s pages\n", npages,
			boot ? "boot" : "init");
		return -EINVAL;
	}
	dev_dbg(&mdev->pdev->dev, "giving %d %s pages\n", npages, boot ? "boot" : "init");
	err = give_pages(mdev, func_id, mdev->ecpu, npages, false);
	if (err)
		return err;
	if (boot)
		mdev->pages.boot = npages;
	else
		mdev->pages.init = npages;
	return 0;
}

/**
 * mlx5c_pages_flush() - wait for queued page requests
 * @mdev: core device
 */
void mlx5c_pages_flush(struct mlx5c_dev *mdev)
{
	flush_workqueue(mdev->pages.wq);
}

/**
 * mlx5c_pages_reclaim_all() - take every page back from the firmware
 * @mdev: core device, after TEARDOWN_HCA and before DISABLE_HCA
 *
 * Gives up after 5 s without progress, or when commands fail; pages still
 * owned by the firmware then are freed by mlx5c_pages_cleanup().
 */
void mlx5c_pages_reclaim_all(struct mlx5c_dev *mdev)
{
	unsigned long end = jiffies + msecs_to_jiffies(MLX5C_RECLAIM_TIMEOUT_MS);
	int left;

	while ((left = func_held(mdev, 0)) > 0) {
		int got;

		if (READ_ONCE(mdev->cmd.error))
			return;
		got = take_pages(mdev, 0, mdev->ecpu,
				 min(left, MLX5C_PAGES_PER_RECLAIM));
		if (got < 0) {
			dev_warn(&mdev->pdev->dev,
				 "page reclaim failed with %d pages left: %d\n", left, got);
			return;
		}
		if (got) {
			end = jiffies + msecs_to_jiffies(MLX5C_RECLAIM_TIMEOUT_MS);
			continue;
		}
		if (time_after(jiffies, end)) {
			dev_warn(&mdev->pdev->dev,
				 "firmware returned no pages for %u ms, %d left\n",
				 MLX5C_RECLAIM_TIMEOUT_MS, left);
			return;
		}
		msleep(20);
	}
}

/**
 * mlx5c_pages_wait_vfs() - wait until the firmware returned every VF page
 * @mdev: core device (a PF) whose VFs are all disabled in the device
 * @timeout_ms: how long the firmware may take
 *
 * After DISABLE_HCA of a VF the firmware asks the PF to take back the pages
 * it held for that VF (a negative page request); this polls the count
 * those requests bring down. A device in the internal-error state returns
 * nothing: its pages are freed when the function is unloaded.
 *
 * Return: 0, -EIO in the internal-error state, or -ETIMEDOUT (said, with
 * the pages left; they stay recorded and are freed at unload).
 */
int mlx5c_pages_wait_vfs(struct mlx5c_dev *mdev, unsigned int timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int left;

	while ((left = atomic_read(&mdev->pages.vf_count)) > 0) {
		if (READ_ONCE(mdev->cmd.error))
			return -EIO;
		if (time_after(jiffies, end)) {
			dev_err(&mdev->pdev->dev,
				"timeout reclaiming VF pages: the firmware still holds %d pages of disabled VFs after %u ms; they are freed when the PF unloads\n",
				left, timeout_ms);
			return -ETIMEDOUT;
		}
		msleep(20);
	}
	return 0;
}

/**
 * mlx5c_pages_init() - set up page accounting
 * @mdev: core device
 *
 * Return: 0 or -ENOMEM.
 */
int mlx5c_pages_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_pages *pg = &mdev->pages;

	memset(pg, 0, sizeof(*pg));
	xa_init(&pg->pages);
	pg->wq = alloc_ordered_workqueue("mlx5c_pages_%s", WQ_MEM_RECLAIM,
					 pci_name(mdev->pdev));
	if (!pg->wq)
		return -ENOMEM;
	/* Subscribed before the pages EQ exists: no request is missed. */
	pg->nb.nb.notifier_call = pages_request_event;
	pg->nb.event_type = MLX5_EVENT_TYPE_PAGE_REQUEST;
	mlx5c_eq_notifier_register(mdev, &pg->nb);
	return 0;
}

/**
 * mlx5c_pages_cleanup() - free what the firmware did not return
 * @mdev: core device that no longer masters the bus
 */
void mlx5c_pages_cleanup(struct mlx5c_dev *mdev)
{
	struct mlx5c_pages *pg = &mdev->pages;
	int left;

	/* The pages EQ is gone: no request comes any more. */
	mlx5c_eq_notifier_unregister(mdev, &pg->nb);
	destroy_workqueue(pg->wq);
	left = atomic_read(&pg->count);
	if (left) {
		/* A failed firmware returns nothing: expected, not a leak. */
		if (READ_ONCE(mdev->health.error))
			dev_info(&mdev->pdev->dev,
				 "freeing the %d pages the failed firmware held\n", left);
		else
			dev_warn(&mdev->pdev->dev,
				 "%d pages were not returned by the firmware; freeing them\n",
				 left);
		release_all(mdev, -1);
	}
	xa_destroy(&pg->pages);
}
