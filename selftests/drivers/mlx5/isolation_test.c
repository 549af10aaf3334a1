// SPDX-License-Identifier: GPL-2.0
/*
 * isolation_test - what an unprivileged process must not reach through an
 * mlx5 RDMA device: another user's memory, the subnet management agents,
 * the device's limits, another user's device memory. Run by
 * isolation_test.sh as user nobody (MLX5_ISOLATION_UID: started as root,
 * it prepares a victim page, then drops to that uid before it opens a
 * device) on mlx5_0 <-> mlx5_1, with ib_verbs_test's helpers
 * (ib_verbs_lib.c) and output (KTAP, "# " diagnostics).
 *
 * Cases:
 *   rlkey_rc   an RC SEND and an RDMA READ whose SGE names the reserved
 *              lkey (0x100, QUERY_SPECIAL_CONTEXTS' resd_lkey) and a
 *              physical address: a local protection (or QP operation)
 *              error; neither the victim page nor the peer's buffer
 *              changes; the same with the MR's lkey succeeds
 *   rlkey_ud   the same SEND on UD
 *   qp0        a UD QP sends a LID-routed SubnGet(NodeInfo) to QPN 0 of
 *              the other port: the send completes, no answer comes in 2 s
 *              (the script checks the emulator counted the drop)
 *   klm        mlx5dv_create_mkey (DEVX CREATE_MKEY, KLM access mode)
 *              with more entries than 1 << log_max_klm_list_size
 *              (QUERY_HCA_CAP through DEVX): refused; one of 4 entries
 *              is created (a control); mlx5_1 still passes traffic
 *   dm_fill    ibv_alloc_dm of 4 KiB, a pattern written and read back,
 *              freed (the first process of the DM case)
 *   dm_check   ibv_alloc_dm of 4 KiB: all zero (what dm_fill left must
 *              not be visible to the next owner)
 *   wqe_rc     a WQE written into the SQ by hand (mlx5dv) with ds = 1 for
 *              each send opcode, a fresh QP each: a WQE that lacks a
 *              segment its opcode needs completes in error (or the QP
 *              goes to error); then mlx5_1 still passes traffic
 *   wqe_ud     the same on UD QPs
 *   wqe_xrc    the same on XRC initiator QPs
 *
 * Exit status: 0 all passed, 1 a case failed, 4 every case skipped.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <infiniband/mlx5dv.h>
#include <sys/mman.h>

#include "ib_verbs.h"

#define RESD_LKEY 0x100		/* the emulator's resd_lkey */
#define PAGE 4096
#define VICTIM_SEED 0x5a17
#define DM_SEED 0xd0d0
#define SMP_SIZE 256
#define GRH_SIZE 40
#define UD_QKEY 0	/* an SMA answers with QP0's Q_Key, 0 */

/* A page of this process whose guest-physical address the SGEs name. */
static uint8_t *victim;
static uint8_t victim_want[PAGE];
static uint64_t victim_pa = 0x1000;	/* no pagemap: a low page of the guest */
static bool victim_known;

/* The victim page: filled, locked, its physical address from pagemap (root only). */
static void victim_setup(void)
{
	uint64_t ent = 0;
	int fd;

	victim = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		      -1, 0);
	if (victim == MAP_FAILED) {
		victim = NULL;
		return;
	}
	fill(victim_want, PAGE, VICTIM_SEED);
	memcpy(victim, victim_want, PAGE);
	if (mlock(victim, PAGE))
		diag("mlock of the victim page: %s", strerror(errno));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd >= 0 && pread(fd, &ent, 8, (off_t)((uintptr_t)victim / PAGE) * 8) == 8 &&
	    (ent >> 63) && (ent & ((1ULL << 55) - 1))) {
		victim_pa = (ent & ((1ULL << 55) - 1)) * PAGE;
		victim_known = true;
	}
	if (fd >= 0)
		close(fd);
}

static void victim_diag(void)
{
	diag("victim page at %p, physical address 0x%llx%s", victim, (unsigned long long)victim_pa,
	     victim_known ? "" : " (not known: pagemap needs root; a low page of the guest instead)");
}

/* MLX5_ISOLATION_UID: drop to that uid (and gid) for good. */
static int drop_privileges(void)
{
	const char *s = getenv("MLX5_ISOLATION_UID");
	uid_t uid;

	if (!s || !*s)
		return 0;
	uid = (uid_t)strtoul(s, NULL, 0);
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		fprintf(stderr, "dropping to uid %u: %s\n", uid, strerror(errno));
		return -1;
	}
	if (getuid() != uid || geteuid() != uid) {
		fprintf(stderr, "still uid %u/%u\n", getuid(), geteuid());
		return -1;
	}
	return 0;
}

static bool victim_intact(void)
{
	long d = first_diff(victim, victim_want, PAGE);

	if (d >= 0)
		diag("the victim page changed at byte %ld", d);
	return d < 0;
}

/* An error a bad local key gives. */
static bool lkey_error(enum ibv_wc_status s)
{
	return s == IBV_WC_LOC_PROT_ERR || s == IBV_WC_LOC_QP_OP_ERR;
}

/* One completion of wr_id within wait_ms, whatever its status. */
static bool one_wc(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *wc)
{
	if (wait_wc(cq, wc, 1, wait_ms) != 1) {
		diag("no completion for wr_id 0x%llx within %d ms", (unsigned long long)wr_id, wait_ms);
		return false;
	}
	if (wc->wr_id != wr_id)
		diag("completion of wr_id 0x%llx, expected 0x%llx", (unsigned long long)wc->wr_id,
		     (unsigned long long)wr_id);
	return wc->wr_id == wr_id;
}

/* --- reserved lkey -------------------------------------------------------- */

/* a's SEND of 256 bytes: sge (addr, lkey) into b's buffer at 8 KiB. */
static int rc_send_from(struct ep *a, struct ep *b, uint64_t addr, uint32_t lkey, bool ok)
{
	struct ibv_sge sg = { .addr = addr, .length = 256, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0x51, .sg_list = &sg, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	int rc = KSFT_PASS;

	memset(b->m.buf + 8192, 0, 4096);
	CHECK(!post_recv(b, 0xb1, 8192, 4096), "post receive");
	CHECK(!post_wr(a->qp, &wr), "post SEND");
	CHECK(one_wc(a->scq, 0x51, &wc), "SEND completion");
	if (ok) {
		CHECK(wc.status == IBV_WC_SUCCESS, "SEND with the MR's lkey: %s", wc_status(wc.status));
		CHECK(expect_wc(b->rcq, 0xb1, IBV_WC_SUCCESS, NULL), "the peer's receive");
		goto out;
	}
	diag("SEND with lkey 0x%x at 0x%llx: %s (vendor 0x%x)", lkey, (unsigned long long)addr,
	     wc_status(wc.status), wc.vendor_err);
	CHECK(lkey_error(wc.status), "SEND from the reserved lkey completed %s",
	      wc_status(wc.status));
	if (wait_wc(b->rcq, &wc, 1, quiet_ms) == 1)
		CHECK(wc.status != IBV_WC_SUCCESS, "the peer received %u bytes", wc.byte_len);
	CHECK(first_not(b->m.buf + 8192, 4096, 0) < 0, "the peer's buffer changed at byte %ld",
	      first_not(b->m.buf + 8192, 4096, 0));
out:
	return rc;
}

static int case_rlkey_rc(void)
{
	struct ep a = {}, b = {};
	struct two t = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;

	CHECK(victim, "no victim page");
	victim_diag();
	CHECK(!two_open(&t), "open devices");
	/* Control: the MR's own lkey. */
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "RC pair");
	fill(a.m.buf, 256, 0x11);
	CHECK(rc_send_from(&a, &b, (uintptr_t)a.m.buf, a.m.mr->lkey, true) == KSFT_PASS,
	      "control SEND");
	/* SEND gathering from the victim's physical address. */
	CHECK(rc_send_from(&a, &b, victim_pa, RESD_LKEY, false) == KSFT_PASS,
	      "SEND from the reserved lkey");
	CHECK(victim_intact(), "victim page");
	ep_destroy(&a);
	ep_destroy(&b);

	/* RDMA READ scattering into the victim's physical address. */
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "RC pair");
	fill(b.m.buf, 4096, 0x22);
	{
		struct ibv_sge sg = { .addr = victim_pa, .length = 256, .lkey = RESD_LKEY };
		struct ibv_send_wr wr = {
			.wr_id = 0x52, .sg_list = &sg, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = (uintptr_t)b.m.buf, .rkey = b.m.mr->rkey },
		};

		CHECK(!post_wr(a.qp, &wr), "post RDMA READ");
		CHECK(one_wc(a.scq, 0x52, &wc), "READ completion");
		diag("RDMA READ into lkey 0x%x at 0x%llx: %s (vendor 0x%x)", RESD_LKEY,
		     (unsigned long long)victim_pa, wc_status(wc.status), wc.vendor_err);
		CHECK(lkey_error(wc.status), "READ into the reserved lkey completed %s",
		      wc_status(wc.status));
	}
	CHECK(victim_intact(), "victim page");
	ep_destroy(&a);
	ep_destroy(&b);
	/* Control: a READ into the MR works. */
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "RC pair");
	fill(b.m.buf, 256, 0x33);
	CHECK(!post_rdma(&a, IBV_WR_RDMA_READ, 0x53, 0, a.m.mr->lkey, 256, (uintptr_t)b.m.buf,
			 b.m.mr->rkey), "post READ");
	CHECK(expect_wc(a.scq, 0x53, IBV_WC_SUCCESS, NULL), "control READ");
	CHECK(first_diff(a.m.buf, b.m.buf, 256) < 0, "control READ data");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

/* --- UD ------------------------------------------------------------------- */

struct ud {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct mem m;
};

static int ud_create(struct ud *u, struct dev *d, uint32_t qkey)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = port_num, .qkey = qkey,
	};

	memset(u, 0, sizeof(*u));
	u->cq = cq_new(d, 64, NULL, NULL);
	if (!u->cq)
		return -1;
	ia.send_cq = ia.recv_cq = u->cq;
	u->qp = ibv_create_qp(d->pd, &ia);
	if (!u->qp) {
		diag("ibv_create_qp UD: %s", strerror(errno));
		return -1;
	}
	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) {
		diag("UD QP to INIT: %s", strerror(errno));
		return -1;
	}
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE)) {
		diag("UD QP to RTR: %s", strerror(errno));
		return -1;
	}
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		diag("UD QP to RTS: %s", strerror(errno));
		return -1;
	}
	return mem_reg(&u->m, d, 4 * PAGE, IBV_ACCESS_LOCAL_WRITE);
}

static void ud_destroy(struct ud *u)
{
	if (u->qp)
		ibv_destroy_qp(u->qp);
	u->qp = NULL;
	mem_free(&u->m);
	cq_free(&u->cq);
}

static struct ibv_ah *ah_to(struct dev *from, struct dev *to)
{
	struct ibv_ah_attr aa = { .dlid = to->port.lid, .port_num = port_num };
	struct ibv_ah *ah;

	if (from->grh) {
		aa.is_global = 1;
		aa.grh.dgid = to->gid;
		aa.grh.sgid_index = gid_index;
		aa.grh.hop_limit = 1;
	}
	ah = ibv_create_ah(from->pd, &aa);
	if (!ah)
		diag("ibv_create_ah: %s", strerror(errno));
	return ah;
}

static int ud_send(struct ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey, uint64_t addr,
		   uint32_t len, uint32_t lkey, uint64_t wr_id)
{
	struct ibv_sge sg = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sg, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = qkey },
	};

	return post_wr(u->qp, &wr);
}

static int ud_recv(struct ud *u, size_t off, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sg = { .addr = (uintptr_t)u->m.buf + off, .length = len, .lkey = u->m.mr->lkey };

	return post_recv_sge(u->qp, wr_id, &sg, 1);
}

static int case_rlkey_ud(void)
{
	struct ud a = {}, b = {};
	struct ibv_ah *ah = NULL;
	struct two t = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;

	CHECK(victim, "no victim page");
	victim_diag();
	CHECK(!two_open(&t), "open devices");
	CHECK(!ud_create(&a, &t.d[0], 0x1234) && !ud_create(&b, &t.d[1], 0x1234), "UD QPs");
	CHECK((ah = ah_to(&t.d[0], &t.d[1])), "address handle");
	/* Control: from a's MR. */
	fill(a.m.buf, 256, 0x44);
	memset(b.m.buf, 0, 4 * PAGE);
	CHECK(!ud_recv(&b, 0, GRH_SIZE + 256, 0xb0), "post receive");
	CHECK(!ud_send(&a, ah, b.qp->qp_num, 0x1234, (uintptr_t)a.m.buf, 256, a.m.mr->lkey, 0xa0),
	      "post SEND");
	CHECK(expect_wc(a.cq, 0xa0, IBV_WC_SUCCESS, NULL), "control SEND");
	CHECK(expect_wc(b.cq, 0xb0, IBV_WC_SUCCESS, NULL), "control receive");
	CHECK(first_diff(a.m.buf, b.m.buf + GRH_SIZE, 256) < 0, "control data");
	/* From the reserved lkey. */
	memset(b.m.buf, 0, 4 * PAGE);
	CHECK(!ud_recv(&b, 0, GRH_SIZE + 256, 0xb1), "post receive");
	CHECK(!ud_send(&a, ah, b.qp->qp_num, 0x1234, victim_pa, 256, RESD_LKEY, 0xa1), "post SEND");
	CHECK(one_wc(a.cq, 0xa1, &wc), "SEND completion");
	diag("UD SEND with lkey 0x%x at 0x%llx: %s (vendor 0x%x)", RESD_LKEY,
	     (unsigned long long)victim_pa, wc_status(wc.status), wc.vendor_err);
	CHECK(lkey_error(wc.status), "UD SEND from the reserved lkey completed %s",
	      wc_status(wc.status));
	if (wait_wc(b.cq, &wc, 1, quiet_ms) == 1)
		CHECK(wc.status != IBV_WC_SUCCESS, "the peer received %u bytes", wc.byte_len);
	CHECK(first_not(b.m.buf, 4 * PAGE, 0) < 0, "the peer's buffer changed at byte %ld",
	      first_not(b.m.buf, 4 * PAGE, 0));
	CHECK(victim_intact(), "victim page");
out:
	if (ah)
		ibv_destroy_ah(ah);
	ud_destroy(&a);
	ud_destroy(&b);
	two_close(&t);
	return rc;
}

/* --- QP0 ------------------------------------------------------------------ */

static int case_qp0(void)
{
	struct ud a = {};
	struct ibv_ah *ah = NULL;
	struct two t = {};
	struct ibv_wc wc;
	uint8_t *mad;
	int rc = KSFT_PASS, i, n;

	CHECK(!two_open(&t), "open devices");
	if (t.d[1].port.link_layer != IBV_LINK_LAYER_INFINIBAND) {
		diag("SKIP: not an InfiniBand port: no QP0");
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(!ud_create(&a, &t.d[0], UD_QKEY), "UD QP");
	CHECK((ah = ah_to(&t.d[0], &t.d[1])), "address handle");
	for (i = 0; i < 4; i++)
		CHECK(!ud_recv(&a, PAGE + i * 512, GRH_SIZE + SMP_SIZE, 0xb0 + i), "post receive");
	/* SubnGet(NodeInfo), LID routed: base version 1, class 0x01, version 1. */
	mad = a.m.buf;
	memset(mad, 0, SMP_SIZE);
	mad[0] = 1;
	mad[1] = 0x01;
	mad[2] = 1;
	mad[3] = 0x01;			/* Get */
	mad[15] = 0x5a;			/* transaction id */
	mad[16] = 0x00;
	mad[17] = 0x11;			/* NodeInfo */
	diag("SubnGet(NodeInfo) from UD QP 0x%x (%s, LID %u) to LID %u QPN 0", a.qp->qp_num,
	     dev_name[0], t.d[0].port.lid, t.d[1].port.lid);
	CHECK(!ud_send(&a, ah, 0, UD_QKEY, (uintptr_t)mad, SMP_SIZE, a.m.mr->lkey, 0xa0), "post SEND");
	CHECK(one_wc(a.cq, 0xa0, &wc), "SEND completion");
	diag("send completion: %s", wc_status(wc.status));
	CHECK(wc.status == IBV_WC_SUCCESS, "UD SEND to QPN 0 completed %s (the packet leaves on a data VL)",
	      wc_status(wc.status));
	/* An answer would come back within 2 s. */
	n = wait_wc(a.cq, &wc, 1, 2000);
	if (n == 1) {
		const uint8_t *r = a.m.buf + PAGE + (wc.wr_id - 0xb0) * 512 + GRH_SIZE;

		diag("received %s, %u bytes from QPN 0x%x LID %u: method 0x%02x status 0x%02x%02x",
		     wc_status(wc.status), wc.byte_len, wc.src_qp, wc.slid, r[3], r[4], r[5]);
	}
	CHECK(n == 0, "an answer came to the SMP of an unprivileged UD QP");
	diag("no answer in 2000 ms");
out:
	if (ah)
		ibv_destroy_ah(ah);
	ud_destroy(&a);
	two_close(&t);
	return rc;
}

/* --- KLM ------------------------------------------------------------------ */

/* A loopback RC pair on mlx5_1: a WRITE and a SEND. */
static int other_function_traffic(void)
{
	struct dev d = {};
	struct ep a = {}, b = {};
	int rc = KSFT_PASS;

	CHECK(!dev_open(&d, dev_name[1]), "open %s", dev_name[1]);
	CHECK(!ep_create(&a, &d, NULL, NULL, MR_ALL, &default_opts) &&
	      !ep_create(&b, &d, NULL, NULL, MR_ALL, &default_opts), "two QPs on %s", dev_name[1]);
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");
	CHECK(write_ok(&a, &b, 0x71), "RDMA WRITE on %s", dev_name[1]);
	fill(a.m.buf, 512, 0x72);
	CHECK(!post_recv(&b, 0xb2, 4096, 512) && !post_send(&a, 0x72, 0, 512, IBV_SEND_SIGNALED),
	      "post SEND");
	CHECK(expect_wc(a.scq, 0x72, IBV_WC_SUCCESS, NULL) && expect_wc(b.rcq, 0xb2, IBV_WC_SUCCESS, NULL),
	      "SEND on %s", dev_name[1]);
	CHECK(first_diff(a.m.buf, b.m.buf + 4096, 512) < 0, "SEND data");
	diag("%s: RDMA WRITE and SEND between two of its QPs", dev_name[1]);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	dev_close(&d);
	return rc;
}

static struct ibv_context *devx_open(const char *name)
{
	struct mlx5dv_context_attr ca = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = mlx5dv_open_device(list[i], &ca);
	ibv_free_device_list(list);
	return ctx;
}

/* log_max_klm_list_size of the general capabilities (QUERY_HCA_CAP, current). */
static int query_log_max_klm(struct ibv_context *ctx)
{
	uint32_t in[4] = {}, out[4 + 1024] = {};
	int err;

	in[0] = htobe32(0x100 << 16);	/* QUERY_HCA_CAP */
	in[1] = htobe32(1);		/* op_mod: general device caps, current */
	err = mlx5dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out));
	if (err) {
		diag("DEVX QUERY_HCA_CAP: %s", strerror(err > 0 ? err : errno));
		return -1;
	}
	/* capability at 0x10; log_max_klm_list_size: dword 8, bits 5:0 */
	return be32toh(out[4 + 8]) & 0x3f;
}

static int case_klm(void)
{
	struct mlx5dv_mkey_init_attr ma = { .create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT };
	struct ibv_context *ctx = NULL;
	struct mlx5dv_mkey *mk;
	struct ibv_pd *pd = NULL;
	int rc = KSFT_PASS, lg;

	ctx = devx_open(dev_name[0]);
	if (!ctx) {
		diag("SKIP: mlx5dv_open_device %s with DEVX: %s", dev_name[0], strerror(errno));
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK((pd = ibv_alloc_pd(ctx)), "ibv_alloc_pd");
	lg = query_log_max_klm(ctx);
	if (lg < 0) {
		lg = 15;
		diag("log_max_klm_list_size unknown: %d assumed", lg);
	}
	diag("log_max_klm_list_size %d: at most %u KLM entries", lg, 1u << lg);
	ma.pd = pd;
	ma.max_entries = 4;
	mk = mlx5dv_create_mkey(&ma);
	if (!mk) {
		diag("SKIP: mlx5dv_create_mkey of 4 entries (the control): %s", strerror(errno));
		rc = KSFT_SKIP;
		goto out;
	}
	mlx5dv_destroy_mkey(mk);
	diag("mkey of 4 KLM entries: created");
	ma.max_entries = (uint16_t)((1u << lg) + 4);
	if (lg >= 16)
		ma.max_entries = 0xfffc;
	mk = mlx5dv_create_mkey(&ma);
	if (mk) {
		mlx5dv_destroy_mkey(mk);
		CHECK(lg >= 16, "mkey of %u KLM entries (more than %u) created", ma.max_entries, 1u << lg);
		diag("SKIP: log_max_klm_list_size %d: no count beyond it fits mlx5dv_create_mkey", lg);
		rc = KSFT_SKIP;
		goto out;
	}
	diag("mkey of %u KLM entries: refused, %s", ma.max_entries, strerror(errno));
	CHECK(other_function_traffic() == KSFT_PASS, "traffic on %s", dev_name[1]);
out:
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	return rc;
}

/* --- device memory -------------------------------------------------------- */

static int dm_case(bool fill_it)
{
	struct ibv_alloc_dm_attr da = { .length = PAGE };
	uint8_t want[PAGE], got[PAGE];
	struct ibv_dm *dm = NULL;
	struct dev d = {};
	int rc = KSFT_PASS, err;
	long nz;

	CHECK(!dev_open(&d, dev_name[0]), "open %s", dev_name[0]);
	dm = ibv_alloc_dm(d.ctx, &da);
	if (!dm && (errno == EOPNOTSUPP || errno == ENOSYS)) {
		diag("SKIP: ibv_alloc_dm: %s", strerror(errno));
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(dm, "ibv_alloc_dm of %d bytes: %s", PAGE, strerror(errno));
	fill(want, PAGE, DM_SEED);
	if (fill_it) {
		err = ibv_memcpy_to_dm(dm, 0, want, PAGE);
		CHECK(!err, "ibv_memcpy_to_dm: %s", strerror(err));
		err = ibv_memcpy_from_dm(got, dm, 0, PAGE);
		CHECK(!err, "ibv_memcpy_from_dm: %s", strerror(err));
		CHECK(first_diff(want, got, PAGE) < 0, "read back differs at byte %ld",
		      first_diff(want, got, PAGE));
		diag("uid %u: 4 KiB of device memory filled with the pattern, freed", getuid());
		goto out;
	}
	memset(got, 0xee, sizeof(got));
	err = ibv_memcpy_from_dm(got, dm, 0, PAGE);
	CHECK(!err, "ibv_memcpy_from_dm: %s", strerror(err));
	nz = first_not(got, PAGE, 0);
	if (nz >= 0)
		diag("byte %ld is 0x%02x; the previous owner's pattern %s", nz, got[nz],
		     first_diff(want, got, PAGE) < 0 ? "entirely" :
		     first_diff(want + nz, got + nz, 64) < 0 ? "in part" : "not seen");
	CHECK(nz < 0, "the new allocation is not all zero");
	diag("uid %u: a fresh 4 KiB allocation reads all zero", getuid());
out:
	if (dm) {
		err = ibv_free_dm(dm);
		if (err && rc == KSFT_PASS) {
			diag("ibv_free_dm: %s", strerror(err));
			rc = KSFT_FAIL;
		}
	}
	dev_close(&d);
	return rc;
}

static int case_dm_fill(void) { return dm_case(true); }
static int case_dm_check(void) { return dm_case(false); }

/* --- malformed WQEs ------------------------------------------------------- */

struct op {
	uint8_t code;
	const char *name;
	bool rc_ds1_ok;	/* ds = 1 is a complete WQE on RC (zero-length SEND, key in imm) */
};

static const struct op ops[] = {
	{ MLX5_OPCODE_SEND, "SEND", true },
	{ MLX5_OPCODE_SEND_IMM, "SEND_IMM", true },
	{ MLX5_OPCODE_SEND_INVAL, "SEND_INVAL", true },
	{ MLX5_OPCODE_RDMA_WRITE, "RDMA_WRITE", false },
	{ MLX5_OPCODE_RDMA_WRITE_IMM, "RDMA_WRITE_IMM", false },
	{ MLX5_OPCODE_RDMA_READ, "RDMA_READ", false },
	{ MLX5_OPCODE_ATOMIC_CS, "ATOMIC_CS", false },
	{ MLX5_OPCODE_ATOMIC_FA, "ATOMIC_FA", false },
	{ MLX5_OPCODE_ATOMIC_MASKED_CS, "ATOMIC_MASKED_CS", false },
	{ MLX5_OPCODE_ATOMIC_MASKED_FA, "ATOMIC_MASKED_FA", false },
	{ MLX5_OPCODE_UMR, "UMR", false },
	{ MLX5_OPCODE_LOCAL_INVAL, "LOCAL_INV", true },
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

/* Writes WQE 0 of qp's SQ by hand: a control segment alone, ds = 1, and rings. */
static int raw_post(struct ibv_qp *qp, uint8_t opcode)
{
	struct mlx5dv_qp dq = {};
	struct mlx5dv_obj o = { .qp = { .in = qp, .out = &dq } };
	struct mlx5_wqe_ctrl_seg *ctrl;

	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP)) {
		diag("mlx5dv_init_obj: %s", strerror(errno));
		return -1;
	}
	ctrl = dq.sq.buf;
	memset(ctrl, 0, dq.sq.stride);
	mlx5dv_set_ctrl_seg(ctrl, 0, opcode, 0, qp->qp_num, MLX5_WQE_CTRL_CQ_UPDATE, 1, 0, 0);
	__sync_synchronize();
	dq.dbrec[MLX5_SND_DBR] = htobe32(1);
	__sync_synchronize();
	*(volatile uint64_t *)dq.bf.reg = *(uint64_t *)ctrl;
	__sync_synchronize();
	return 0;
}

/* The WQE's fate: a completion (an error where `must_fail`), or the QP in error. */
static int raw_outcome(struct ibv_qp *qp, struct ibv_cq *cq, const char *what, bool must_fail)
{
	struct ibv_wc wc;
	enum ibv_qp_state s;
	int rc = KSFT_PASS;

	if (wait_wc(cq, &wc, 1, wait_ms) == 1) {
		diag("%s, ds=1: %s (vendor 0x%x)", what, wc_status(wc.status), wc.vendor_err);
		CHECK(!must_fail || wc.status != IBV_WC_SUCCESS, "%s with ds=1 completed successfully", what);
		goto out;
	}
	s = qp_state(qp);
	diag("%s, ds=1: no completion in %d ms, QP %s", what, wait_ms, qps_name(s));
	CHECK(s == IBV_QPS_ERR || s == IBV_QPS_SQE, "%s with ds=1: no completion and the QP is %s", what,
	      qps_name(s));
out:
	return rc;
}

static int case_wqe_rc(void)
{
	struct ep a = {}, b = {};
	struct two t = {};
	int rc = KSFT_PASS, i, fails = 0;

	CHECK(!two_open(&t), "open devices");
	for (i = 0; i < NOPS; i++) {
		CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "RC pair");
		CHECK(!post_recv(&b, 0xb0, 0, 4096), "post receive");
		CHECK(!raw_post(a.qp, ops[i].code), "post %s", ops[i].name);
		if (raw_outcome(a.qp, a.scq, ops[i].name, !ops[i].rc_ds1_ok))
			fails++;
		ep_destroy(&a);
		ep_destroy(&b);
	}
	CHECK(!fails, "%d of %d malformed WQEs not refused", fails, NOPS);
	CHECK(other_function_traffic() == KSFT_PASS, "traffic on %s", dev_name[1]);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

static int case_wqe_ud(void)
{
	struct ud a = {};
	struct two t = {};
	int rc = KSFT_PASS, i, fails = 0;

	CHECK(!two_open(&t), "open devices");
	for (i = 0; i < NOPS; i++) {
		CHECK(!ud_create(&a, &t.d[0], 0x1234), "UD QP");
		CHECK(!raw_post(a.qp, ops[i].code), "post %s", ops[i].name);
		if (raw_outcome(a.qp, a.cq, ops[i].name, true))
			fails++;
		ud_destroy(&a);
	}
	CHECK(!fails, "%d of %d malformed WQEs not refused", fails, NOPS);
	CHECK(other_function_traffic() == KSFT_PASS, "traffic on %s", dev_name[1]);
out:
	ud_destroy(&a);
	two_close(&t);
	return rc;
}

/* An XRC target on d1 (domain, SRQ, receive QP) and an initiator on d0. */
struct xrc {
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_cq *tcq, *icq;
	struct ibv_qp *tgt, *ini;
	struct mem m;
};

static void xrc_destroy(struct xrc *x)
{
	if (x->ini)
		ibv_destroy_qp(x->ini);
	if (x->tgt)
		ibv_destroy_qp(x->tgt);
	if (x->srq)
		ibv_destroy_srq(x->srq);
	if (x->xrcd)
		ibv_close_xrcd(x->xrcd);
	cq_free(&x->icq);
	cq_free(&x->tcq);
	mem_free(&x->m);
	memset(x, 0, sizeof(*x));
}

static int xrc_modify(struct ibv_qp *qp, struct dev *peer, uint32_t dqpn, bool ini)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = port_num,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = peer->port.active_mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0x10;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = peer->port.lid;
	a.ah_attr.port_num = port_num;
	if (peer->grh) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer->gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 1;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	if (!ini)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0x10;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int xrc_create(struct xrc *x, struct two *t)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, .fd = -1, .oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ |
			     IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC,
		.pd = t->d[1].pd,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = t->d[0].pd,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
	};

	memset(x, 0, sizeof(*x));
	x->xrcd = ibv_open_xrcd(t->d[1].ctx, &xa);
	if (!x->xrcd) {
		diag("ibv_open_xrcd: %s", strerror(errno));
		return -1;
	}
	x->tcq = cq_new(&t->d[1], 32, NULL, NULL);
	x->icq = cq_new(&t->d[0], 32, NULL, NULL);
	if (!x->tcq || !x->icq)
		return -1;
	sa.xrcd = x->xrcd;
	sa.cq = x->tcq;
	x->srq = ibv_create_srq_ex(t->d[1].ctx, &sa);
	if (!x->srq) {
		diag("ibv_create_srq_ex XRC: %s", strerror(errno));
		return -1;
	}
	ta.xrcd = x->xrcd;
	x->tgt = ibv_create_qp_ex(t->d[1].ctx, &ta);
	ia.send_cq = x->icq;
	x->ini = ibv_create_qp_ex(t->d[0].ctx, &ia);
	if (!x->tgt || !x->ini) {
		diag("ibv_create_qp_ex XRC: %s", strerror(errno));
		return -1;
	}
	if (xrc_modify(x->tgt, &t->d[0], x->ini->qp_num, false) ||
	    xrc_modify(x->ini, &t->d[1], x->tgt->qp_num, true)) {
		diag("XRC QPs to RTR/RTS: %s", strerror(errno));
		return -1;
	}
	return mem_reg(&x->m, &t->d[1], PAGE, IBV_ACCESS_LOCAL_WRITE);
}

static int case_wqe_xrc(void)
{
	struct two t = {};
	struct xrc x = {};
	int rc = KSFT_PASS, i, fails = 0;

	CHECK(!two_open(&t), "open devices");
	for (i = 0; i < NOPS; i++) {
		CHECK(!xrc_create(&x, &t), "XRC initiator and target");
		CHECK(!raw_post(x.ini, ops[i].code), "post %s", ops[i].name);
		if (raw_outcome(x.ini, x.icq, ops[i].name, true))
			fails++;
		xrc_destroy(&x);
	}
	CHECK(!fails, "%d of %d malformed WQEs not refused", fails, NOPS);
	CHECK(other_function_traffic() == KSFT_PASS, "traffic on %s", dev_name[1]);
out:
	xrc_destroy(&x);
	two_close(&t);
	return rc;
}

static const struct verbs_case cases[] = {
	{ "rlkey_rc", "RC SEND and RDMA READ through the reserved lkey: local error, memory untouched",
	  case_rlkey_rc },
	{ "rlkey_ud", "UD SEND through the reserved lkey: local error, nothing received", case_rlkey_ud },
	{ "qp0", "a UD QP's SubnGet(NodeInfo) to QPN 0 of the other port: no answer", case_qp0 },
	{ "klm", "mlx5dv_create_mkey beyond log_max_klm_list_size refused; mlx5_1 passes traffic",
	  case_klm },
	{ "dm_fill", "device memory filled with a pattern and freed", case_dm_fill },
	{ "dm_check", "fresh device memory reads all zero", case_dm_check },
	{ "wqe_rc", "RC: a ds=1 WQE per send opcode refused; mlx5_1 passes traffic", case_wqe_rc },
	{ "wqe_ud", "UD: a ds=1 WQE per send opcode refused; mlx5_1 passes traffic", case_wqe_ud },
	{ "wqe_xrc", "XRC initiator: a ds=1 WQE per send opcode refused; mlx5_1 passes traffic",
	  case_wqe_xrc },
};

int main(int argc, char **argv)
{
	victim_setup();
	if (drop_privileges())
		return KSFT_FAIL;
	return verbs_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
