// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests driven from debugfs, built only with MLX5C_TEST=1 (core/Kbuild;
 * make check sets it, an installed module never has them): test_cq creates
 * a kernel CQ on every completion vector, makes the device post completion
 * EQEs for it with GEN_EQE, and counts the completion callbacks that arrive
 * through IRQ -> EQ -> CQN lookup -> BH work -> callback; test_async runs
 * asynchronous NOP commands; test_event delivers port-change EQEs to an
 * event consumer. Write N to a file to run its test, read it for the last
 * result.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <mlx5c/cq.h>

#include "mlx5_core.h"

#define MLX5C_TEST_LOG_CQ_SIZE	6	/* 64 CQEs of 64 bytes: one 4 KiB page */
#define MLX5C_TEST_WAIT_MS	2000

/**
 * struct mlx5c_test - state of the debugfs self-tests of one device
 * @mdev: the device
 * @lock: serialises test runs
 * @callbacks: completion callbacks seen by the last run
 * @result: summary of the last run
 */
struct mlx5c_test {
	struct mlx5c_dev *mdev;
	struct mutex lock;	/* one test at a time */
	atomic_t callbacks;
	char result[160];
};

struct mlx5c_test_cq {
	struct mlx5c_cq cq;
	struct mlx5c_buf buf;
	atomic_t callbacks;
	bool created;
	bool soft;
};

static void test_comp(struct mlx5c_cq *cq)
{
	struct mlx5c_test_cq *tcq = container_of(cq, struct mlx5c_test_cq, cq);
	struct mlx5c_test *test = cq->priv;

	atomic_inc(&tcq->callbacks);
	atomic_inc(&test->callbacks);
}

static void test_cq_free(struct mlx5c_dev *mdev, struct mlx5c_test_cq *tcq)
{
	struct device *dev = &mdev->pdev->dev;

	if (tcq->created && mlx5c_cq_destroy(mdev, &tcq->cq)) {
		/* The device may still write the CQ: leave its memory to it. */
		dev_err(dev, "test CQ 0x%x not destroyed; its ring stays allocated\n",
			tcq->cq.cqn);
		mlx5c_buf_quarantine(mdev, &tcq->buf);
		return;
	}
	if (tcq->soft)
		mlx5c_cq_detach(mdev, &tcq->cq);
	mlx5c_buf_free(mdev, &tcq->buf);
}

static int test_cq_create(struct mlx5c_test *test, struct mlx5c_test_cq *tcq, int vector)
{
	struct mlx5c_dev *mdev = test->mdev;
	int inlen = MLX5_ST_SZ_BYTES(create_cq_in) + sizeof(u64);
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	struct mlx5_cqe64 *cqe;
	void *in, *cqc;
	u32 eqn;
	int i, err;

	err = mlx5c_comp_eqn(mdev, vector, &eqn);
	if (err)
		return err;
	err = mlx5c_buf_alloc(mdev, BIT(MLX5C_TEST_LOG_CQ_SIZE) * sizeof(*cqe),
			      MLX5C_BUF_DBR, &tcq->buf);
	if (err)
		return err;
	for (i = 0; i < BIT(MLX5C_TEST_LOG_CQ_SIZE); i++)
		mlx5c_cqe_init(mlx5c_buf_at(&tcq->buf, i * sizeof(*cqe)));

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, 0);
	MLX5_SET(cqc, cqc, log_cq_size, MLX5C_TEST_LOG_CQ_SIZE);
	MLX5_SET(cqc, cqc, uar_page, mlx5c_kernel_uar_index(mdev));
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size, MLX5C_BUF_LOG_PAGE_SIZE);
	MLX5_SET64(cqc, cqc, dbr_addr, tcq->buf.db_dma);
	mlx5c_buf_fill_pas(&tcq->buf, MLX5_ADDR_OF(create_cq_in, in, pas));

	tcq->cq.comp = test_comp;
	tcq->cq.priv = test;
	err = mlx5c_cq_create(mdev, &tcq->cq, in, inlen, out, sizeof(out));
	kfree(in);
	if (!err) {
		tcq->created = true;
		return 0;
	}
	if (MLX5_GET(create_cq_out, out, status) != MLX5_CMD_STAT_BAD_OP_ERR)
		return err;
	/*
	 * A device without CREATE_CQ: track a software-only CQ with a CQN
	 * from the top of the range, so that the EQ dispatch path can still
	 * be exercised with GEN_EQE.
	 */
	tcq->cq.cqn = 0xffff00 + vector;
	err = mlx5c_cq_attach(mdev, &tcq->cq, mlx5c_comp_eq_by_eqn(mdev, eqn));
	if (!err)
		tcq->soft = true;
	return err;
}

static int gen_eqe(struct mlx5c_dev *mdev, u32 eqn, u32 cqn)
{
	u32 out[MLX5_ST_SZ_DW(mlx5c_hdr_out)] = {};
	u32 in[MLX5_ST_SZ_DW(gen_eqe_in)] = {};
	struct mlx5_eqe *eqe;

	MLX5_SET(gen_eqe_in, in, opcode, MLX5_CMD_OP_GEN_EQE);
	MLX5_SET(gen_eqe_in, in, eq_number, eqn);
	eqe = MLX5_ADDR_OF(gen_eqe_in, in, eqe);
	eqe->type = MLX5_EVENT_TYPE_COMP;
	eqe->data.comp.cqn = cpu_to_be32(cqn);
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

static bool wait_callbacks(struct mlx5c_test_cq *tcq, int n)
{
	int ms;

	for (ms = 0; ms < MLX5C_TEST_WAIT_MS; ms++) {
		if (atomic_read(&tcq->callbacks) >= n)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

/*
 * The completion-path test: @nevents completion events per completion
 * vector. Return: 0 if every event produced one callback, else a negative
 * errno; the outcome is left in test->result.
 */
static int test_cq_run(struct mlx5c_test *test, int nevents)
{
	struct mlx5c_dev *mdev = test->mdev;
	int nvec = mlx5c_comp_vectors(mdev);
	struct mlx5c_test_cq *tcqs;
	bool soft = false;
	u64 eqes = 0;
	int v, i, err = 0;

	if (nevents <= 0 || nevents > 100000 || !nvec)
		return -EINVAL;
	tcqs = kcalloc(nvec, sizeof(*tcqs), GFP_KERNEL);
	if (!tcqs)
		return -ENOMEM;

	mutex_lock(&test->lock);
	atomic_set(&test->callbacks, 0);
	for (v = 0; v < nvec && !err; v++) {
		struct mlx5c_test_cq *tcq = &tcqs[v];

		err = test_cq_create(test, tcq, v);
		if (err) {
			snprintf(test->result, sizeof(test->result),
				 "FAIL: CQ creation on vector %d: %d\n", v, err);
			break;
		}
		for (i = 0; i < nevents; i++) {
			err = gen_eqe(mdev, tcq->cq.eqn, tcq->cq.cqn);
			if (err) {
				snprintf(test->result, sizeof(test->result),
					 "FAIL: GEN_EQE to EQ %u: %d\n", tcq->cq.eqn, err);
				break;
			}
			/* One event at a time: callbacks of a batch coalesce. */
			if (!wait_callbacks(tcq, i + 1)) {
				snprintf(test->result, sizeof(test->result),
					 "FAIL: no callback for event %d on vector %d (EQ %u, CQ 0x%x)\n",
					 i, v, tcq->cq.eqn, tcq->cq.cqn);
				err = -ETIMEDOUT;
				break;
			}
		}
		eqes += tcq->cq.comp_events;
		soft |= tcq->soft;
	}
	for (v = 0; v < nvec; v++)
		test_cq_free(mdev, &tcqs[v]);
	if (!err)
		snprintf(test->result, sizeof(test->result),
			 "ok: vectors %d, events %d, eqes %llu, callbacks %d%s\n",
			 nvec, nvec * nevents, eqes, atomic_read(&test->callbacks),
			 soft ? " (software CQs: the device has no CREATE_CQ)" : "");
	mutex_unlock(&test->lock);
	kfree(tcqs);
	return err;
}

struct mlx5c_test_async {
	atomic_t pending;
	atomic_t failed;
	struct completion done;
	u32 (*out)[MLX5_ST_SZ_DW(mlx5c_hdr_out)];
};

static void test_async_cb(int err, void *ctx)
{
	struct mlx5c_test_async *t = ctx;

	if (err)
		atomic_inc(&t->failed);
	if (atomic_dec_and_test(&t->pending))
		complete(&t->done);
}

/*
 * @n asynchronous NOP commands, queued at once. Return: 0 if every command
 * completed successfully, else a negative errno; the outcome is left in
 * test->result.
 */
static int test_async_run(struct mlx5c_test *test, int n)
{
	struct mlx5c_dev *mdev = test->mdev;
	u32 in[MLX5_ST_SZ_DW(mlx5c_hdr_in)] = {};
	struct mlx5c_test_async *t;
	ktime_t start;
	int i, err = 0;
	s64 us;

	if (n <= 0 || n > 10000)
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->out = kvcalloc(n, sizeof(*t->out), GFP_KERNEL);
	if (!t->out) {
		kfree(t);
		return -ENOMEM;
	}
	init_completion(&t->done);
	atomic_set(&t->pending, 1);
	MLX5_SET(mlx5c_hdr_in, in, opcode, MLX5_CMD_OP_NOP);

	mutex_lock(&test->lock);
	start = ktime_get();
	for (i = 0; i < n; i++) {
		atomic_inc(&t->pending);
		err = mlx5c_cmd_exec_cb(mdev, in, sizeof(in), t->out[i], sizeof(t->out[i]),
					test_async_cb, t);
		if (err) {
			atomic_dec(&t->pending);
			break;
		}
	}
	if (atomic_dec_and_test(&t->pending))
		complete(&t->done);
	wait_for_completion(&t->done);
	us = ktime_us_delta(ktime_get(), start);
	if (!err && atomic_read(&t->failed))
		err = -EIO;
	snprintf(test->result, sizeof(test->result),
		 "%s: async NOP commands %d queued, %d failed, %lld us\n",
		 err ? "FAIL" : "ok", i, atomic_read(&t->failed), us);
	mutex_unlock(&test->lock);
	kvfree(t->out);
	kfree(t);
	return err;
}

struct mlx5c_test_event {
	struct notifier_block nb;
	atomic_t port_changes;
	u8 last_port;
};

static int test_event_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct mlx5c_test_event *t = container_of(nb, struct mlx5c_test_event, nb);
	const struct mlx5_eqe *eqe = data;

	if (action != MLX5_EVENT_TYPE_PORT_CHANGE)
		return NOTIFY_DONE;
	t->last_port = eqe->data.port.port >> 4;
	atomic_inc(&t->port_changes);
	return NOTIFY_OK;
}

static int gen_port_change(struct mlx5c_dev *mdev, u8 port)
{
	u32 out[MLX5_ST_SZ_DW(mlx5c_hdr_out)] = {};
	u32 in[MLX5_ST_SZ_DW(gen_eqe_in)] = {};
	struct mlx5_eqe *eqe;

	MLX5_SET(gen_eqe_in, in, opcode, MLX5_CMD_OP_GEN_EQE);
	MLX5_SET(gen_eqe_in, in, eq_number, mdev->async_eq->eqn);
	eqe = MLX5_ADDR_OF(gen_eqe_in, in, eqe);
	eqe->type = MLX5_EVENT_TYPE_PORT_CHANGE;
	eqe->sub_type = 4;	/* port active */
	eqe->data.port.port = port << 4;
	return mlx5c_cmd_exec(mdev, in, sizeof(in), out, sizeof(out));
}

/*
 * @n port-change events generated on the async EQ with GEN_EQE, counted by
 * a notifier registered as mlx5_ib registers its own. Return: 0 if every
 * event arrived, else a negative errno; the outcome is left in
 * test->result.
 */
static int test_event_run(struct mlx5c_test *test, int n)
{
	struct mlx5c_dev *mdev = test->mdev;
	struct mlx5c_test_event t = { .nb.notifier_call = test_event_notify };
	int i, ms, err = 0;

	if (n <= 0 || n > 1000)
		return -EINVAL;
	atomic_set(&t.port_changes, 0);
	mutex_lock(&test->lock);
	mlx5c_event_register(mdev, &t.nb);
	for (i = 0; i < n && !err; i++)
		err = gen_port_change(mdev, 1);
	for (ms = 0; !err && ms < MLX5C_TEST_WAIT_MS && atomic_read(&t.port_changes) < n; ms++)
		usleep_range(1000, 2000);
	mlx5c_event_unregister(mdev, &t.nb);
	if (!err && atomic_read(&t.port_changes) != n)
		err = -ETIMEDOUT;
	snprintf(test->result, sizeof(test->result),
		 "%s: port-change events %d generated, %d delivered, port %u\n",
		 err ? "FAIL" : "ok", i, atomic_read(&t.port_changes), t.last_port);
	mutex_unlock(&test->lock);
	return err;
}

/* Reading a test file shows the result of the last test run. */
static ssize_t test_result_read(struct file *f, char __user *buf, size_t len,
				loff_t *pos)
{
	struct mlx5c_test *test = f->private_data;
	char res[sizeof(test->result)];

	mutex_lock(&test->lock);
	strscpy(res, test->result[0] ? test->result : "not run\n", sizeof(res));
	mutex_unlock(&test->lock);
	return simple_read_from_buffer(buf, len, pos, res, strlen(res));
}

/* Writing N to a test file runs that test with N as its count. */
static ssize_t test_run_write(struct file *f, const char __user *buf, size_t len,
			      int (*run)(struct mlx5c_test *test, int n))
{
	int n, err;

	err = kstrtoint_from_user(buf, len, 0, &n);
	if (err)
		return err;
	err = run(f->private_data, n);
	return err ? err : len;
}

#define MLX5C_TEST_FILE(name)						\
static ssize_t name##_write(struct file *f, const char __user *buf,	\
			    size_t len, loff_t *pos)			\
{									\
	return test_run_write(f, buf, len, name##_run);			\
}									\
static const struct file_operations name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.read = test_result_read,					\
	.write = name##_write,						\
	.llseek = default_llseek,					\
}

MLX5C_TEST_FILE(test_cq);
MLX5C_TEST_FILE(test_async);
MLX5C_TEST_FILE(test_event);

/**
 * mlx5c_test_debugfs_init() - add the self-test files to the device's
 *	debugfs directory
 * @mdev: core device whose debugfs directory exists (or debugfs is off)
 */
void mlx5c_test_debugfs_init(struct mlx5c_dev *mdev)
{
	struct mlx5c_test *test;

	if (!mdev->dbg)
		return;
	test = kzalloc(sizeof(*test), GFP_KERNEL);
	if (!test)
		return;
	test->mdev = mdev;
	mutex_init(&test->lock);
	atomic_set(&test->callbacks, 0);
	mdev->test = test;
	debugfs_create_file("test_cq", 0600, mdev->dbg, test, &test_cq_fops);
	debugfs_create_file("test_async", 0600, mdev->dbg, test, &test_async_fops);
	debugfs_create_file("test_event", 0600, mdev->dbg, test, &test_event_fops);
}

/**
 * mlx5c_test_debugfs_cleanup() - free the self-tests' state
 * @mdev: core device whose debugfs directory is removed (no test runs)
 */
void mlx5c_test_debugfs_cleanup(struct mlx5c_dev *mdev)
{
	struct mlx5c_test *test = mdev->test;

	if (!test)
		return;
	mdev->test = NULL;
	mutex_destroy(&test->lock);
	kfree(test);
}
