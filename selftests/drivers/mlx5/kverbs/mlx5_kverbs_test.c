// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel test of an RDMA device's kernel verbs, written for the
 * mlx5-clone mlx5_ib: what the ULPs (MAD layer, IPoIB, NVMe over RDMA) use,
 * exercised on purpose. Loaded with devname=mlx5_N, it registers an
 * ib_client, runs its cases on that device when ib_core adds it, and prints
 * a KTAP document to the kernel log, each line prefixed with the module
 * name (kverbs_test.sh collects them). Loading fails (-ENODEV) when the
 * device never showed up.
 *
 * Cases: RC send/recv, immediate data, RDMA WRITE (+IMM), READ, atomics,
 * inline data, the port's hardware counters, unsignalled sends, remote
 * access errors, an SRQ whose WQEs
 * are recycled, UD with an address handle, UD multicast, fast registration
 * with local and remote invalidation, IB_CQ_REPORT_MISSED_EVENTS,
 * posting and polling from the completion handler (softirq context),
 * ib_drain_qp() with receives outstanding, and destroying a QP whose CQEs
 * are still in its CQ. With dead_device=1 only ib_drain_qp() on a device
 * that enters the internal-error state meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

static char *devname = "mlx5_0";
module_param(devname, charp, 0444);
MODULE_PARM_DESC(devname, "RDMA device to test");
static bool dead_device;
module_param(dead_device, bool, 0444);
MODULE_PARM_DESC(dead_device,
		 "only drain QPs after the device entered its internal-error state (the caller makes it fail)");

#define KT_BUF_SIZE	(4 * PAGE_SIZE)
#define KT_TIMEOUT_MS	10000
#define KT_QP_DEPTH	64
#define KT_CHAIN	32
#define KT_QKEY		0x11111111

struct kt {
	struct ib_device *dev;
	u32 port;
	u16 lid;
	enum ib_mtu mtu;
	struct ib_pd *pd;
	struct ib_cq *scq;
	struct ib_cq *rcq;
	/* src: first half, dst: second half of the DMA buffer */
	u8 *buf;
	u64 dma;
	int n;
	int failed;
	bool ran;
};

static struct kt kt;

static u8 *kt_src(void) { return kt.buf; }
static u8 *kt_dst(void) { return kt.buf + KT_BUF_SIZE / 2; }
static u64 kt_src_dma(void) { return kt.dma; }
static u64 kt_dst_dma(void) { return kt.dma + KT_BUF_SIZE / 2; }

static void kt_result(const char *name, int err)
{
	kt.n++;
	if (err) {
		kt.failed++;
		pr_info("not ok %d %s # error %d\n", kt.n, name, err);
	} else {
		pr_info("ok %d %s\n", kt.n, name);
	}
}

#define KT_CHECK(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		pr_info("# %s:%d: " fmt "\n", __func__, __LINE__,	\
			##__VA_ARGS__);					\
		return -EIO;						\
	}								\
} while (0)

/* One completion from a directly polled CQ, or -ETIMEDOUT. */
static int kt_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_TIMEOUT_MS);
	int n;

	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(20, 100);
	}
}

/* The next completion must be a success of @op with @wr_id. */
static int kt_expect(struct ib_cq *cq, u64 wr_id, enum ib_wc_opcode op,
		     struct ib_wc *wc)
{
	int err = kt_poll(cq, wc);

	KT_CHECK(!err, "no completion for wr_id %llu: %d", wr_id, err);
	KT_CHECK(wc->status == IB_WC_SUCCESS, "wr_id %llu: status %s (%d) vendor 0x%x",
		 wc->wr_id, ib_wc_status_msg(wc->status), wc->status,
		 wc->vendor_err);
	KT_CHECK(wc->wr_id == wr_id, "wr_id %llu, expected %llu", wc->wr_id, wr_id);
	KT_CHECK(wc->opcode == op, "opcode %d, expected %d", wc->opcode, op);
	return 0;
}

static int kt_cq_empty(struct ib_cq *cq)
{
	struct ib_wc wc;
	int n = ib_poll_cq(cq, 1, &wc);

	KT_CHECK(n == 0, "unexpected completion wr_id %llu status %d", wc.wr_id,
		 wc.status);
	return 0;
}

static struct ib_qp *kt_qp(enum ib_qp_type type, struct ib_cq *scq,
			   struct ib_cq *rcq, struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = KT_QP_DEPTH,
			.max_recv_wr = srq ? 0 : KT_QP_DEPTH,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 2,
			.max_inline_data = 64,
		},
	};

	return ib_create_qp(kt.pd, &init);
}

static int kt_rc_connect(struct ib_qp *qp, u32 remote)
{
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = kt.port;
	a.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = kt.mtu;
	a.dest_qp_num = remote;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&a.ah_attr, kt.lid);
	rdma_ah_set_port_num(&a.ah_attr, kt.port);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 4;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static int kt_ud_ready(struct ib_qp *qp)
{
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = kt.port;
	a.qkey = KT_QKEY;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	a.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &a, IB_QP_STATE);
	if (err)
		return err;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* Two connected RC QPs; either may be NULL on error (then both are). */
static int kt_rc_pair(struct ib_cq *scq, struct ib_cq *rcq,
		      struct ib_srq *srq_b, struct ib_qp **a, struct ib_qp **b)
{
	int err;

	*a = kt_qp(IB_QPT_RC, scq, rcq, NULL);
	if (IS_ERR(*a))
		return PTR_ERR(*a);
	*b = kt_qp(IB_QPT_RC, scq, rcq, srq_b);
	if (IS_ERR(*b)) {
		err = PTR_ERR(*b);
		goto err_a;
	}
	err = kt_rc_connect(*a, (*b)->qp_num);
	if (!err)
		err = kt_rc_connect(*b, (*a)->qp_num);
	if (!err)
		return 0;
	ib_destroy_qp(*b);
err_a:
	ib_destroy_qp(*a);
	*a = NULL;
	*b = NULL;
	return err;
}

static void kt_pair_destroy(struct ib_qp *a, struct ib_qp *b)
{
	if (b)
		ib_destroy_qp(b);
	if (a)
		ib_destroy_qp(a);
}

static int kt_post_recv(struct ib_qp *qp, u64 wr_id, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = kt.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

/*
 * One signalled-or-not work request with a single SGE at LOCAL (a DMA
 * address, or a kernel virtual address with IB_SEND_INLINE), and REMOTE
 * with RKEY for RDMA and atomics.
 */
static int kt_post_rdma(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode op,
			u64 local, u32 len, int flags, u64 remote, u32 rkey)
{
	struct ib_sge sge = { .addr = local, .length = len,
			      .lkey = kt.pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = flags },
		.remote_addr = remote,
		.rkey = rkey,
	};

	if (op == IB_WR_SEND_WITH_IMM || op == IB_WR_RDMA_WRITE_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(0x12345678);
	return ib_post_send(qp, &wr.wr, NULL);
}

/* From the source half of the buffer to the destination half. */
static int kt_post_send(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode op,
			u32 len, int flags)
{
	u64 local = flags & IB_SEND_INLINE ? (uintptr_t)kt_src() : kt_src_dma();

	return kt_post_rdma(qp, wr_id, op, local, len, flags, kt_dst_dma(),
			    kt.pd->unsafe_global_rkey);
}

static void kt_pattern(u8 seed, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		kt_src()[i] = seed + i * 7;
	memset(kt_dst(), 0, KT_BUF_SIZE / 2);
}

/* Send, SEND_WITH_IMM, inline send: payload, byte_len, flags. */
static int kt_case_send(struct ib_qp *a, struct ib_qp *b, enum ib_wr_opcode op,
			int flags)
{
	u32 len = flags & IB_SEND_INLINE ? 60 : 1000;
	struct ib_wc wc;
	int err;

	kt_pattern(op + flags, len);
	err = kt_post_recv(b, 2, kt_dst_dma(), KT_BUF_SIZE / 2);
	if (!err)
		err = kt_post_send(a, 1, op, len, flags | IB_SEND_SIGNALED);
	KT_CHECK(!err, "post: %d", err);
	err = kt_expect(kt.scq, 1, IB_WC_SEND, &wc);
	if (err)
		return err;
	err = kt_expect(kt.rcq, 2, IB_WC_RECV, &wc);
	if (err)
		return err;
	KT_CHECK(wc.qp == b, "receive completion of the wrong QP");
	KT_CHECK(wc.byte_len == len, "byte_len %u, sent %u", wc.byte_len, len);
	if (op == IB_WR_SEND_WITH_IMM) {
		KT_CHECK(wc.wc_flags & IB_WC_WITH_IMM, "no immediate flag");
		KT_CHECK(wc.ex.imm_data == cpu_to_be32(0x12345678),
			 "imm 0x%x", be32_to_cpu(wc.ex.imm_data));
	} else {
		KT_CHECK(!(wc.wc_flags & IB_WC_WITH_IMM), "immediate flag set");
	}
	KT_CHECK(!memcmp(kt_src(), kt_dst(), len), "payload differs");
	return 0;
}

static int kt_case_write(struct ib_qp *a, struct ib_qp *b, bool imm)
{
	struct ib_wc wc;
	int err;

	kt_pattern(imm ? 3 : 5, 3000);
	if (imm) {
		err = kt_post_recv(b, 4, kt_dst_dma(), 0);
		KT_CHECK(!err, "post_recv: %d", err);
	}
	err = kt_post_send(a, 3, imm ? IB_WR_RDMA_WRITE_WITH_IMM :
			   IB_WR_RDMA_WRITE, 3000, IB_SEND_SIGNALED);
	KT_CHECK(!err, "post_send: %d", err);
	err = kt_expect(kt.scq, 3, IB_WC_RDMA_WRITE, &wc);
	if (err)
		return err;
	if (imm) {
		err = kt_expect(kt.rcq, 4, IB_WC_RECV_RDMA_WITH_IMM, &wc);
		if (err)
			return err;
		KT_CHECK(wc.byte_len == 3000, "byte_len %u", wc.byte_len);
		KT_CHECK(wc.ex.imm_data == cpu_to_be32(0x12345678), "imm");
	}
	KT_CHECK(!memcmp(kt_src(), kt_dst(), 3000), "written data differs");
	return 0;
}

static int kt_case_read(struct ib_qp *a)
{
	struct ib_wc wc;
	int err;

	kt_pattern(9, 2048);
	err = kt_post_rdma(a, 5, IB_WR_RDMA_READ, kt_dst_dma(), 2048,
			   IB_SEND_SIGNALED, kt_src_dma(),
			   kt.pd->unsafe_global_rkey);
	KT_CHECK(!err, "post_send: %d", err);
	err = kt_expect(kt.scq, 5, IB_WC_RDMA_READ, &wc);
	if (err)
		return err;
	KT_CHECK(wc.byte_len == 2048, "byte_len %u", wc.byte_len);
	KT_CHECK(!memcmp(kt_src(), kt_dst(), 2048), "read data differs");
	return 0;
}

static int kt_atomic(struct ib_qp *a, u32 rkey, enum ib_wr_opcode op,
		     u64 compare_add, u64 swap)
{
	struct ib_sge sge = { .addr = kt_src_dma(), .length = 8,
			      .lkey = kt.pd->local_dma_lkey };
	struct ib_atomic_wr wr = {
		.wr = { .wr_id = 6, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = kt_dst_dma(),
		.rkey = rkey,
		.compare_add = compare_add,
		.swap = swap,
	};
	struct ib_wc wc;
	int err;

	err = ib_post_send(a, &wr.wr, NULL);
	KT_CHECK(!err, "post_send: %d", err);
	return kt_expect(kt.scq, 6, op == IB_WR_ATOMIC_FETCH_AND_ADD ?
			 IB_WC_FETCH_ADD : IB_WC_COMP_SWAP, &wc);
}

/*
 * The PD's global rkey grants remote read and write only, and ib_core has
 * no kernel call for a DMA MR with remote atomic access: ask the driver for
 * one directly.
 */
static struct ib_mr *kt_atomic_mr(void)
{
	struct ib_mr *mr;

	mr = kt.dev->ops.get_dma_mr(kt.pd, IB_ACCESS_LOCAL_WRITE |
				    IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr))
		return mr;
	mr->device = kt.dev;
	mr->pd = kt.pd;
	mr->type = IB_MR_TYPE_DMA;
	mr->uobject = NULL;
	return mr;
}

static int kt_case_atomics(struct ib_qp *a)
{
	u64 *target = (u64 *)kt_dst(), *result = (u64 *)kt_src();
	struct ib_mr *mr;
	int err;

	KT_CHECK(kt.dev->attrs.atomic_cap != IB_ATOMIC_NONE,
		 "the device offers no atomics");
	mr = kt_atomic_mr();
	KT_CHECK(!IS_ERR(mr), "get_dma_mr: %ld", PTR_ERR(mr));
	kt_pattern(0, 0);
	*target = 5;
	err = kt_atomic(a, mr->rkey, IB_WR_ATOMIC_FETCH_AND_ADD, 3, 0);
	if (err)
		goto out;
	if (*result != 5 || *target != 8) {
		pr_info("# fetch-add: got %llu, target %llu\n", *result, *target);
		err = -EIO;
		goto out;
	}
	err = kt_atomic(a, mr->rkey, IB_WR_ATOMIC_CMP_AND_SWP, 8, 42);
	if (!err && (*result != 8 || *target != 42)) {
		pr_info("# cmp-swap: got %llu, target %llu\n", *result, *target);
		err = -EIO;
	}
out:
	kt.dev->ops.dereg_mr(mr, NULL);
	return err;
}

/* Four unsignalled sends, then a signalled one: one send completion. */
static int kt_case_unsignaled(struct ib_qp *a, struct ib_qp *b)
{
	struct ib_wc wc;
	int i, err = 0;

	kt_pattern(1, 64);
	for (i = 0; i < 5 && !err; i++)
		err = kt_post_recv(b, 20 + i, kt_dst_dma(), 64);
	for (i = 0; i < 5 && !err; i++)
		err = kt_post_send(a, 10 + i, IB_WR_SEND, 64,
				   i == 4 ? IB_SEND_SIGNALED : 0);
	KT_CHECK(!err, "post: %d", err);
	for (i = 0; i < 5; i++) {
		err = kt_expect(kt.rcq, 20 + i, IB_WC_RECV, &wc);
		if (err)
			return err;
	}
	err = kt_expect(kt.scq, 14, IB_WC_SEND, &wc);
	if (err)
		return err;
	return kt_cq_empty(kt.scq);
}

/* A write to a bad rkey: remote access error, then flushes. */
static int kt_case_access_error(struct ib_qp *a)
{
	struct ib_wc wc;
	int err;

	err = kt_post_rdma(a, 7, IB_WR_RDMA_WRITE, kt_src_dma(), 16,
			   IB_SEND_SIGNALED, kt_dst_dma(),
			   kt.pd->unsafe_global_rkey ^ 0x7f00);
	KT_CHECK(!err, "post_send: %d", err);
	err = kt_poll(kt.scq, &wc);
	KT_CHECK(!err, "no completion: %d", err);
	KT_CHECK(wc.wr_id == 7 && wc.status == IB_WC_REM_ACCESS_ERR,
		 "wr_id %llu status %s", wc.wr_id, ib_wc_status_msg(wc.status));
	return 0;
}

static int kt_stat(struct rdma_hw_stats *st, const char *name, u64 *v)
{
	int i;

	for (i = 0; i < st->num_counters; i++) {
		if (!strcmp(st->descs[i].name, name)) {
			*v = st->value[i];
			return 0;
		}
	}
	pr_info("# no counter %s\n", name);
	return -ENOENT;
}

/* The port's hardware counters count the RDMA requests the QPs serve. */
static int kt_case_hw_counters(struct ib_qp *a, struct ib_qp *b)
{
	u64 wr0, rd0, wr1, rd1;
	struct rdma_hw_stats *st;
	int err;

	KT_CHECK(kt.dev->ops.alloc_hw_port_stats && kt.dev->ops.get_hw_stats,
		 "no hardware counters");
	st = kt.dev->ops.alloc_hw_port_stats(kt.dev, kt.port);
	KT_CHECK(st, "alloc_hw_port_stats failed");
	err = kt.dev->ops.get_hw_stats(kt.dev, st, kt.port, 0);
	if (err < 0)
		goto out;
	err = kt_stat(st, "rx_write_requests", &wr0) ?:
	      kt_stat(st, "rx_read_requests", &rd0) ?:
	      kt_case_write(a, b, false) ?: kt_case_read(a);
	if (err)
		goto out;
	err = kt.dev->ops.get_hw_stats(kt.dev, st, kt.port, 0);
	if (err < 0)
		goto out;
	err = kt_stat(st, "rx_write_requests", &wr1) ?:
	      kt_stat(st, "rx_read_requests", &rd1);
	if (!err && (wr1 <= wr0 || rd1 <= rd0)) {
		pr_info("# rx_write_requests %llu -> %llu, rx_read_requests %llu -> %llu\n",
			wr0, wr1, rd0, rd1);
		err = -EIO;
	}
out:
	rdma_free_hw_stats_struct(st);
	return err < 0 ? err : 0;
}

static int kt_rc_cases(void)
{
	struct ib_qp *a, *b;
	int err;

	err = kt_rc_pair(kt.scq, kt.rcq, NULL, &a, &b);
	kt_result("rc_connect", err);
	if (err)
		return err;
	kt_result("rc_send", kt_case_send(a, b, IB_WR_SEND, 0));
	kt_result("rc_send_imm", kt_case_send(a, b, IB_WR_SEND_WITH_IMM, 0));
	kt_result("rc_send_inline", kt_case_send(a, b, IB_WR_SEND, IB_SEND_INLINE));
	kt_result("rc_write", kt_case_write(a, b, false));
	kt_result("rc_write_imm", kt_case_write(a, b, true));
	kt_result("rc_read", kt_case_read(a));
	kt_result("rc_atomics", kt_case_atomics(a));
	kt_result("hw_counters", kt_case_hw_counters(a, b));
	kt_result("rc_unsignaled", kt_case_unsignaled(a, b));
	kt_result("rc_remote_access_error", kt_case_access_error(a));
	kt_pair_destroy(a, b);
	kt_result("cq_empty_after_destroy", kt_cq_empty(kt.scq) ?: kt_cq_empty(kt.rcq));
	return 0;
}

/* An SRQ of 8 WQEs serving 3 rounds of 7 messages: WQEs are recycled. */
static int kt_case_srq(void)
{
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = 7, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_srq *srq;
	struct ib_wc wc;
	int round, i, err;

	srq = ib_create_srq(kt.pd, &sinit);
	KT_CHECK(!IS_ERR(srq), "create_srq: %ld", PTR_ERR(srq));
	err = kt_rc_pair(kt.scq, kt.rcq, srq, &a, &b);
	if (err) {
		pr_info("# rc pair with SRQ: %d\n", err);
		goto out;
	}
	kt_pattern(2, 128);
	for (round = 0; round < 3 && !err; round++) {
		for (i = 0; i < 7 && !err; i++) {
			struct ib_sge sge = { .addr = kt_dst_dma() + i * 128,
					      .length = 128,
					      .lkey = kt.pd->local_dma_lkey };
			struct ib_recv_wr wr = { .wr_id = 100 + round * 10 + i,
						 .sg_list = &sge, .num_sge = 1 };

			err = ib_post_srq_recv(srq, &wr, NULL);
		}
		if (err) {
			pr_info("# post_srq_recv round %d: %d\n", round, err);
			break;
		}
		for (i = 0; i < 7 && !err; i++)
			err = kt_post_send(a, 200 + i, IB_WR_SEND, 128,
					   IB_SEND_SIGNALED);
		for (i = 0; i < 7 && !err; i++) {
			err = kt_expect(kt.scq, 200 + i, IB_WC_SEND, &wc);
			if (!err)
				err = kt_expect(kt.rcq, 100 + round * 10 + i,
						IB_WC_RECV, &wc);
			if (!err && wc.qp != b)
				err = -EIO;
		}
	}
out:
	kt_pair_destroy(a, b);
	ib_destroy_srq(srq);
	return err;
}

static int kt_case_ud(void)
{
	struct rdma_ah_attr ah_attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	struct ib_qp *x, *y = NULL;
	struct ib_sge sge = { .addr = kt_src_dma(), .length = 100,
			      .lkey = kt.pd->local_dma_lkey };
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 30, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.remote_qkey = KT_QKEY,
	};
	struct ib_ah *ah = NULL;
	struct ib_wc wc;
	int err;

	x = kt_qp(IB_QPT_UD, kt.scq, kt.rcq, NULL);
	KT_CHECK(!IS_ERR(x), "create UD QP: %ld", PTR_ERR(x));
	y = kt_qp(IB_QPT_UD, kt.scq, kt.rcq, NULL);
	if (IS_ERR(y)) {
		err = PTR_ERR(y);
		y = NULL;
		goto out;
	}
	err = kt_ud_ready(x) ?: kt_ud_ready(y);
	if (err)
		goto out;
	rdma_ah_set_dlid(&ah_attr, kt.lid);
	rdma_ah_set_port_num(&ah_attr, kt.port);
	ah = rdma_create_ah(kt.pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		err = PTR_ERR(ah);
		ah = NULL;
		goto out;
	}
	kt_pattern(4, 100);
	err = kt_post_recv(y, 31, kt_dst_dma(), sizeof(struct ib_grh) + 256);
	if (err)
		goto out;
	wr.ah = ah;
	wr.remote_qpn = y->qp_num;
	err = ib_post_send(x, &wr.wr, NULL);
	if (err)
		goto out;
	err = kt_expect(kt.scq, 30, IB_WC_SEND, &wc);
	if (!err)
		err = kt_expect(kt.rcq, 31, IB_WC_RECV, &wc);
	if (err)
		goto out;
	if (wc.byte_len != 100 + sizeof(struct ib_grh) || wc.src_qp != x->qp_num ||
	    wc.slid != kt.lid || wc.qp != y ||
	    memcmp(kt_src(), kt_dst() + sizeof(struct ib_grh), 100)) {
		pr_info("# UD receive: byte_len %u src_qp 0x%x (0x%x) slid %u (%u)\n",
			wc.byte_len, wc.src_qp, x->qp_num, wc.slid, kt.lid);
		err = -EIO;
	}
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	kt_pair_destroy(x, y);
	return err;
}

/* Register the destination half of the buffer on @mr with a new key. */
static int kt_reg_mr(struct ib_qp *qp, struct ib_mr *mr, u64 wr_id)
{
	struct ib_reg_wr wr = {
		.wr = { .wr_id = wr_id, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	struct scatterlist sg;
	struct ib_wc wc;
	int n, err;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = kt_dst_dma();
	sg_dma_len(&sg) = KT_BUF_SIZE / 2;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	KT_CHECK(n == 1, "ib_map_mr_sg: %d", n);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.key = mr->rkey;
	err = ib_post_send(qp, &wr.wr, NULL);
	KT_CHECK(!err, "post REG_MR: %d", err);
	return kt_expect(kt.scq, wr_id, IB_WC_REG_MR, &wc);
}

/* An RDMA WRITE through @rkey into the destination half. */
static int kt_write_rkey(struct ib_qp *a, u32 rkey, u64 wr_id,
			 enum ib_wc_status *status)
{
	struct ib_wc wc;
	int err;

	err = kt_post_rdma(a, wr_id, IB_WR_RDMA_WRITE, kt_src_dma(), 1500,
			   IB_SEND_SIGNALED, kt_dst_dma() + 100, rkey);
	KT_CHECK(!err, "post WRITE: %d", err);
	err = kt_poll(kt.scq, &wc);
	KT_CHECK(!err && wc.wr_id == wr_id, "no completion for the WRITE: %d", err);
	*status = wc.status;
	return 0;
}

/*
 * Fast registration: REG_MR gives the MR pages and rights, a WRITE through
 * its rkey lands, LOCAL_INV (or a SEND_WITH_INV from the peer) takes the
 * rights away again and the next WRITE fails with a remote access error.
 */
static int kt_case_frwr(bool remote_inv)
{
	struct ib_qp *a = NULL, *b = NULL;
	enum ib_wc_status status;
	struct ib_mr *mr;
	struct ib_wc wc;
	int err;

	KT_CHECK(kt.dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS,
		 "the device offers no fast registration");
	mr = ib_alloc_mr(kt.pd, IB_MR_TYPE_MEM_REG, 4);
	KT_CHECK(!IS_ERR(mr), "ib_alloc_mr: %ld", PTR_ERR(mr));
	err = kt_rc_pair(kt.scq, kt.rcq, NULL, &a, &b);
	if (err)
		goto out;
	kt_pattern(remote_inv ? 11 : 12, 1500);
	err = kt_reg_mr(a, mr, 60) ?: kt_write_rkey(a, mr->rkey, 61, &status);
	if (err)
		goto out;
	if (status != IB_WC_SUCCESS ||
	    memcmp(kt_src(), kt_dst() + 100, 1500)) {
		pr_info("# WRITE through the registered key: %s\n",
			ib_wc_status_msg(status));
		err = -EIO;
		goto out;
	}
	if (remote_inv) {
		struct ib_sge sge = { .addr = kt_src_dma(), .length = 16,
				      .lkey = kt.pd->local_dma_lkey };
		struct ib_send_wr swr = {
			.wr_id = 62, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND_WITH_INV,
			.send_flags = IB_SEND_SIGNALED,
			.ex.invalidate_rkey = mr->rkey,
		};

		err = kt_post_recv(a, 63, kt_src_dma() + 64, 64) ?:
		      ib_post_send(b, &swr, NULL) ?:
		      kt_expect(kt.scq, 62, IB_WC_SEND, &wc) ?:
		      kt_expect(kt.rcq, 63, IB_WC_RECV, &wc);
		if (!err && (!(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
			     wc.ex.invalidate_rkey != mr->rkey)) {
			pr_info("# receive: flags 0x%x invalidated 0x%x (0x%x)\n",
				wc.wc_flags, wc.ex.invalidate_rkey, mr->rkey);
			err = -EIO;
		}
	} else {
		struct ib_send_wr iwr = {
			.wr_id = 64, .opcode = IB_WR_LOCAL_INV,
			.send_flags = IB_SEND_SIGNALED,
			.ex.invalidate_rkey = mr->rkey,
		};

		err = ib_post_send(a, &iwr, NULL) ?:
		      kt_expect(kt.scq, 64, IB_WC_LOCAL_INV, &wc);
	}
	if (err)
		goto out;
	err = kt_write_rkey(a, mr->rkey, 65, &status);
	if (!err && status != IB_WC_REM_ACCESS_ERR) {
		pr_info("# WRITE through the invalidated key: %s\n",
			ib_wc_status_msg(status));
		err = -EIO;
	}
out:
	kt_pair_destroy(a, b);
	ib_dereg_mr(mr);
	return err;
}

/*
 * A UD QP attached to a multicast group receives what another QP sends to
 * the group's MLID (the device's loopback copy), with the GRH in front.
 */
static int kt_case_ud_multicast(void)
{
	union ib_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x42 } };
	struct rdma_ah_attr ah_attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	struct ib_sge sge = { .addr = kt_src_dma(), .length = 64,
			      .lkey = kt.pd->local_dma_lkey };
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 50, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.remote_qpn = 0xffffff,
		.remote_qkey = KT_QKEY,
	};
	const u16 mlid = 0xc042;
	struct ib_qp *x, *y = NULL;
	struct ib_grh *grh = (struct ib_grh *)kt_dst();
	struct ib_ah *ah = NULL;
	bool attached = false;
	struct ib_wc wc;
	int err;

	KT_CHECK(kt.dev->attrs.max_mcast_grp, "the device offers no multicast groups");
	x = kt_qp(IB_QPT_UD, kt.scq, kt.rcq, NULL);
	KT_CHECK(!IS_ERR(x), "create UD QP: %ld", PTR_ERR(x));
	y = kt_qp(IB_QPT_UD, kt.scq, kt.rcq, NULL);
	if (IS_ERR(y)) {
		err = PTR_ERR(y);
		y = NULL;
		goto out;
	}
	err = kt_ud_ready(x) ?: kt_ud_ready(y) ?: ib_attach_mcast(y, &mgid, mlid);
	if (err)
		goto out;
	attached = true;
	rdma_ah_set_dlid(&ah_attr, mlid);
	rdma_ah_set_port_num(&ah_attr, kt.port);
	rdma_ah_set_grh(&ah_attr, &mgid, 0, 0, 1, 0);
	ah = rdma_create_ah(kt.pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		err = PTR_ERR(ah);
		ah = NULL;
		goto out;
	}
	kt_pattern(8, 64);
	wr.ah = ah;
	err = kt_post_recv(y, 51, kt_dst_dma(), sizeof(struct ib_grh) + 256) ?:
	      ib_post_send(x, &wr.wr, NULL);
	if (err)
		goto out;
	err = kt_expect(kt.scq, 50, IB_WC_SEND, &wc) ?:
	      kt_expect(kt.rcq, 51, IB_WC_RECV, &wc);
	if (err)
		goto out;
	if (!(wc.wc_flags & IB_WC_GRH) || wc.qp != y ||
	    wc.byte_len != 64 + sizeof(struct ib_grh) ||
	    memcmp(grh->dgid.raw, mgid.raw, sizeof(mgid.raw)) ||
	    memcmp(kt_src(), kt_dst() + sizeof(struct ib_grh), 64)) {
		pr_info("# multicast receive: flags 0x%x byte_len %u\n",
			wc.wc_flags, wc.byte_len);
		err = -EIO;
	}
out:
	if (attached) {
		int derr = ib_detach_mcast(y, &mgid, mlid);

		if (derr && !err) {
			pr_info("# detach: %d\n", derr);
			err = derr;
		}
	}
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	kt_pair_destroy(x, y);
	return err;
}

/* Arming an empty CQ reports nothing; arming one with a CQE reports it. */
static int kt_case_missed_events(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_TIMEOUT_MS);
	struct ib_qp *a, *b;
	struct ib_wc wc;
	int ret, err;

	err = kt_rc_pair(kt.scq, kt.rcq, NULL, &a, &b);
	KT_CHECK(!err, "rc pair: %d", err);
	ret = ib_req_notify_cq(kt.scq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	if (ret) {
		pr_info("# empty CQ: req_notify_cq returned %d\n", ret);
		err = -EIO;
		goto out;
	}
	err = kt_post_recv(b, 41, kt_dst_dma(), 64) ?:
	      kt_post_send(a, 40, IB_WR_SEND, 64, IB_SEND_SIGNALED);
	if (err)
		goto out;
	do {
		ret = ib_req_notify_cq(kt.scq, IB_CQ_SOLICITED |
				       IB_CQ_REPORT_MISSED_EVENTS);
		if (ret)
			break;
		usleep_range(20, 100);
	} while (!time_after(jiffies, end));
	if (ret != 1) {
		pr_info("# CQE waiting: req_notify_cq returned %d\n", ret);
		err = -EIO;
		goto out;
	}
	err = kt_expect(kt.scq, 40, IB_WC_SEND, &wc) ?:
	      kt_expect(kt.rcq, 41, IB_WC_RECV, &wc);
out:
	kt_pair_destroy(a, b);
	return err;
}

/*
 * The completion handler polls, posts the next send from there, and re-arms
 * (with IB_CQ_REPORT_MISSED_EVENTS, polling again when it says so).
 */
struct kt_chain {
	struct ib_qp *a;
	int sends;
	int recvs;
	int events;
	bool softirq;
	int post_err;
	struct completion done;
};

static void kt_chain_handler(struct ib_cq *cq, void *ctx)
{
	struct kt_chain *c = ctx;
	struct ib_wc wc;

	c->events++;
	if (!in_softirq())
		c->softirq = false;
	do {
		while (ib_poll_cq(cq, 1, &wc) > 0) {
			if (wc.status != IB_WC_SUCCESS) {
				c->post_err = -EIO;
				complete(&c->done);
				return;
			}
			if (wc.opcode == IB_WC_RECV) {
				if (++c->recvs == KT_CHAIN)
					complete(&c->done);
				continue;
			}
			if (++c->sends < KT_CHAIN) {
				int err = kt_post_send(c->a, 300 + c->sends,
						       IB_WR_SEND, 32,
						       IB_SEND_SIGNALED);
				if (err && !c->post_err)
					c->post_err = err;
			}
		}
	} while (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				  IB_CQ_REPORT_MISSED_EVENTS) > 0);
}

static int kt_case_softirq_chain(void)
{
	struct ib_cq_init_attr cattr = { .cqe = 4 * KT_CHAIN };
	struct kt_chain c = { .softirq = true };
	struct ib_qp *b = NULL;
	struct ib_cq *cq;
	int i, err;

	init_completion(&c.done);
	cq = ib_create_cq(kt.dev, kt_chain_handler, NULL, &c, &cattr);
	KT_CHECK(!IS_ERR(cq), "create_cq: %ld", PTR_ERR(cq));
	err = kt_rc_pair(cq, cq, NULL, &c.a, &b);
	if (err)
		goto out_cq;
	kt_pattern(6, 32);
	for (i = 0; i < KT_CHAIN && !err; i++)
		err = kt_post_recv(b, 400 + i, kt_dst_dma(), 64);
	if (err)
		goto out;
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	err = kt_post_send(c.a, 300, IB_WR_SEND, 32, IB_SEND_SIGNALED);
	if (err)
		goto out;
	if (!wait_for_completion_timeout(&c.done,
					 msecs_to_jiffies(3 * KT_TIMEOUT_MS))) {
		pr_info("# chain stalled: %d sends, %d receives, %d events\n",
			c.sends, c.recvs, c.events);
		err = -ETIMEDOUT;
		goto out;
	}
	if (c.post_err || !c.softirq) {
		pr_info("# post error %d, handler in softirq %d\n", c.post_err,
			c.softirq);
		err = -EIO;
	}
out:
	kt_pair_destroy(c.a, b);
out_cq:
	ib_destroy_cq(cq);
	return err;
}

/* ib_drain_qp() flushes the posted receives and returns. */
struct kt_drain {
	struct ib_cqe cqe;
	atomic_t flushed;
};

static void kt_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_drain *d = container_of(wc->wr_cqe, struct kt_drain, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&d->flushed);
}

/*
 * Two connected RC QPs on their own CQs, with four receives posted on the
 * first: what both drain cases start from.
 */
struct kt_drain_pair {
	struct kt_drain d;
	struct ib_cq *scq, *rcq;
	struct ib_qp *a, *b;
};

static int kt_drain_pair_setup(struct kt_drain_pair *p,
			       enum ib_poll_context rcq_poll)
{
	struct ib_sge sge = { .addr = kt_dst_dma(), .length = 64,
			      .lkey = kt.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_cqe = &p->d.cqe, .sg_list = &sge,
				 .num_sge = 1 };
	int i, err;

	memset(p, 0, sizeof(*p));
	p->d.cqe.done = kt_drain_done;
	atomic_set(&p->d.flushed, 0);
	p->scq = ib_alloc_cq(kt.dev, NULL, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(p->scq))
		return PTR_ERR(p->scq);
	p->rcq = ib_alloc_cq(kt.dev, NULL, 64, 0, rcq_poll);
	if (IS_ERR(p->rcq)) {
		err = PTR_ERR(p->rcq);
		goto out_scq;
	}
	err = kt_rc_pair(p->scq, p->rcq, NULL, &p->a, &p->b);
	if (err)
		goto out_rcq;
	for (i = 0; i < 4 && !err; i++)
		err = ib_post_recv(p->a, &wr, NULL);
	if (!err)
		return 0;
	kt_pair_destroy(p->a, p->b);
out_rcq:
	ib_free_cq(p->rcq);
out_scq:
	ib_free_cq(p->scq);
	return err;
}

/* Every receive came back flushed; then the pair is destroyed. */
static int kt_drain_pair_check(struct kt_drain_pair *p, int err)
{
	if (!err && atomic_read(&p->d.flushed) != 4) {
		pr_info("# %d of 4 receives flushed\n",
			atomic_read(&p->d.flushed));
		err = -EIO;
	}
	kt_pair_destroy(p->a, p->b);
	ib_free_cq(p->rcq);
	ib_free_cq(p->scq);
	return err;
}

static int kt_case_drain(void)
{
	struct kt_drain_pair p;
	int err;

	err = kt_drain_pair_setup(&p, IB_POLL_SOFTIRQ);
	if (err)
		return err;
	ib_drain_qp(p.a);
	return kt_drain_pair_check(&p, 0);
}

/*
 * On a device that dies under them (the shell test injects a fatal health
 * syndrome while this waits), ib_drain_qp() must still return, with the
 * posted receives flushed, and without WARN from ib_core.
 */
static DECLARE_COMPLETION(kt_fatal);

static void kt_event(struct ib_event_handler *h, struct ib_event *ev)
{
	if (ev->event == IB_EVENT_DEVICE_FATAL)
		complete(&kt_fatal);
}

static int kt_case_dead_drain(void)
{
	struct ib_event_handler eh;
	struct kt_drain_pair p;
	int err;

	INIT_IB_EVENT_HANDLER(&eh, kt.dev, kt_event);
	ib_register_event_handler(&eh);
	err = kt_drain_pair_setup(&p, IB_POLL_WORKQUEUE);
	if (err)
		goto out_eh;
	pr_info("# waiting for the device error\n");
	if (!wait_for_completion_timeout(&kt_fatal, 60 * HZ)) {
		pr_info("# no IB_EVENT_DEVICE_FATAL\n");
		err = -ETIMEDOUT;
	} else {
		ib_drain_qp(p.a);
		ib_drain_qp(p.b);
	}
	err = kt_drain_pair_check(&p, err);
out_eh:
	ib_unregister_event_handler(&eh);
	return err;
}

static int kt_setup(struct ib_device *dev)
{
	struct ib_port_attr pattr;
	struct ib_cq_init_attr cattr = { .cqe = 256 };
	int err;

	kt.dev = dev;
	kt.port = 1;
	err = ib_query_port(dev, kt.port, &pattr);
	if (err)
		return err;
	if (pattr.state != IB_PORT_ACTIVE) {
		pr_info("# port %u is not active\n", kt.port);
		return -ENETDOWN;
	}
	kt.lid = pattr.lid;
	kt.mtu = pattr.active_mtu;
	kt.pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(kt.pd))
		return PTR_ERR(kt.pd);
	kt.scq = ib_create_cq(dev, NULL, NULL, NULL, &cattr);
	if (IS_ERR(kt.scq)) {
		err = PTR_ERR(kt.scq);
		goto err_pd;
	}
	kt.rcq = ib_create_cq(dev, NULL, NULL, NULL, &cattr);
	if (IS_ERR(kt.rcq)) {
		err = PTR_ERR(kt.rcq);
		goto err_scq;
	}
	kt.buf = kzalloc(KT_BUF_SIZE, GFP_KERNEL);
	if (!kt.buf) {
		err = -ENOMEM;
		goto err_rcq;
	}
	kt.dma = ib_dma_map_single(dev, kt.buf, KT_BUF_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, kt.dma)) {
		err = -ENOMEM;
		goto err_buf;
	}
	return 0;

err_buf:
	kfree(kt.buf);
err_rcq:
	ib_destroy_cq(kt.rcq);
err_scq:
	ib_destroy_cq(kt.scq);
err_pd:
	ib_dealloc_pd(kt.pd);
	return err;
}

static void kt_teardown(void)
{
	ib_dma_unmap_single(kt.dev, kt.dma, KT_BUF_SIZE, DMA_BIDIRECTIONAL);
	kfree(kt.buf);
	ib_destroy_cq(kt.rcq);
	ib_destroy_cq(kt.scq);
	ib_dealloc_pd(kt.pd);
}

static void kt_run(struct ib_device *dev)
{
	int err;

	pr_info("KTAP version 1\n");
	pr_info("1..%d\n", dead_device ? 2 : 22);
	pr_info("# device %s\n", dev_name(&dev->dev));
	err = kt_setup(dev);
	kt_result("setup", err);
	if (err)
		return;
	if (dead_device) {
		kt_result("drain_on_dead_device", kt_case_dead_drain());
		goto out;
	}
	kt_result("kernel_cq_empty", kt_cq_empty(kt.scq));
	kt_rc_cases();
	kt_result("srq_recycle", kt_case_srq());
	kt_result("ud_send_recv", kt_case_ud());
	kt_result("ud_multicast", kt_case_ud_multicast());
	kt_result("frwr_local_inv", kt_case_frwr(false));
	kt_result("frwr_send_with_inv", kt_case_frwr(true));
	kt_result("cq_report_missed_events", kt_case_missed_events());
	kt_result("softirq_post_poll_chain", kt_case_softirq_chain());
	kt_result("drain_qp", kt_case_drain());
out:
	kt_teardown();
	pr_info("# totals: pass:%d fail:%d\n", kt.n - kt.failed, kt.failed);
}

static int kt_add(struct ib_device *dev)
{
	if (kt.ran || strcmp(dev_name(&dev->dev), devname))
		return -EOPNOTSUPP;
	kt.ran = true;
	kt_run(dev);
	return -EOPNOTSUPP;
}

static void kt_remove(struct ib_device *dev, void *data)
{
}

static struct ib_client kt_client = {
	.name = "mlx5_kverbs_test",
	.add = kt_add,
	.remove = kt_remove,
};

static int __init kt_init(void)
{
	int err = ib_register_client(&kt_client);

	if (err)
		return err;
	if (!kt.ran) {
		pr_info("# no device %s\n", devname);
		ib_unregister_client(&kt_client);
		return -ENODEV;
	}
	return 0;
}

static void __exit kt_exit(void)
{
	ib_unregister_client(&kt_client);
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("Kernel verbs self-test for mlx5-clone's mlx5_ib");
MODULE_LICENSE("GPL");
