// SPDX-License-Identifier: GPL-2.0
/* ib_verbs_test cases: data integrity, query_qp, SRQ, UD. */
#define _GNU_SOURCE
#include "ib_verbs.h"

/* WRITE or READ of len bytes between a (offset lo) and b (offset ro). */
static bool rdma_check(struct ep *a, struct ep *b, enum ibv_wr_opcode op, size_t lo, size_t ro,
		       uint32_t len, uint64_t wr_id)
{
	struct ep *src = op == IBV_WR_RDMA_WRITE ? a : b, *dst = op == IBV_WR_RDMA_WRITE ? b : a;
	size_t so = op == IBV_WR_RDMA_WRITE ? lo : ro, doff = op == IBV_WR_RDMA_WRITE ? ro : lo;
	struct ibv_wc wc;
	long d;

	memset(dst->m.buf, 0xee, dst->m.len);
	fill(src->m.buf + so, len, (uint32_t)wr_id);
	if (post_rdma(a, op, wr_id, lo, a->m.mr->lkey, len, (uintptr_t)b->m.buf + ro, b->m.mr->rkey))
		return false;
	if (!expect_wc(a->scq, wr_id, IBV_WC_SUCCESS, &wc))
		return false;
	if (wc.opcode != (op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ)) {
		diag("completion opcode %d", wc.opcode);
		return false;
	}
	d = first_diff(src->m.buf + so, dst->m.buf + doff, len);
	if (d >= 0) {
		diag("%s %u bytes: byte %ld is 0x%02x, sent 0x%02x",
		     op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ", len, d,
		     dst->m.buf[doff + d], src->m.buf[so + d]);
		return false;
	}
	d = first_not(dst->m.buf, doff, 0xee);
	if (d < 0)
		d = first_not(dst->m.buf + doff + len, dst->m.len - doff - len, 0xee);
	if (d >= 0) {
		diag("%u bytes at %zu: a byte outside the target changed", len, doff);
		return false;
	}
	return true;
}

/* One atomic on b's 8 bytes at off; returns the fetched value in *old. */
static bool atomic_op(struct ep *a, struct ep *b, enum ibv_wr_opcode op, size_t off,
		      uint64_t cmp_add, uint64_t swap, uint64_t wr_id, uint64_t *old)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)a->m.buf + 0x1000, .length = 8, .lkey = a->m.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sg, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = {
			.remote_addr = (uintptr_t)b->m.buf + off, .rkey = b->m.mr->rkey,
			.compare_add = cmp_add, .swap = swap,
		},
	};
	struct ibv_wc wc;

	memset(a->m.buf + 0x1000, 0xee, 8);
	if (post_wr(a->qp, &wr) || !expect_wc(a->scq, wr_id, IBV_WC_SUCCESS, &wc))
		return false;
	if (wc.opcode != (op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD)) {
		diag("atomic completion opcode %d", wc.opcode);
		return false;
	}
	memcpy(old, a->m.buf + 0x1000, 8);
	return true;
}

int case_data(void)
{
	static const struct { uint32_t len; size_t lo, ro; } xfer[] = {
		{ 1, 0, 0 }, { 63, 3, 5 }, { 4096, 0, 4096 }, { 4113, 17, 1 },
		{ 65539, 4095, 8191 }, { 131072, 0, 65536 },
	};
	struct two t = {};
	struct ep a = {}, b = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	uint64_t v, old;
	unsigned int i;

	CHECK(!two_open(&t), "devices");
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "pair");
	diag("path MTU %d, max_qp_rd_atom %d, atomic_cap %d", 128 << a.d->port.active_mtu,
	     a.d->attr.max_qp_rd_atom, a.d->attr.atomic_cap);

	for (i = 0; i < sizeof(xfer) / sizeof(xfer[0]); i++) {
		CHECK(rdma_check(&a, &b, IBV_WR_RDMA_WRITE, xfer[i].lo, xfer[i].ro, xfer[i].len,
				 0x100 + i), "RDMA WRITE of %u bytes", xfer[i].len);
		CHECK(rdma_check(&a, &b, IBV_WR_RDMA_READ, xfer[i].lo, xfer[i].ro, xfer[i].len,
				 0x200 + i), "RDMA READ of %u bytes", xfer[i].len);
	}

	/* WRITE with immediate: data in place, the immediate and the length
	 * in b's receive completion.
	 */
	{
		struct ibv_sge sg = {
			.addr = (uintptr_t)a.m.buf, .length = 5000, .lkey = a.m.mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 0x300, .sg_list = &sg, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(0x12345678),
			.wr.rdma = { .remote_addr = (uintptr_t)b.m.buf + 100, .rkey = b.m.mr->rkey },
		};

		memset(b.m.buf, 0xee, b.m.len);
		fill(a.m.buf, 5000, 0x300);
		CHECK(!post_recv(&b, 0x301, 200000, 16), "recv");
		CHECK(!post_wr(a.qp, &wr), "WRITE_WITH_IMM");
		CHECK(expect_wc(a.scq, 0x300, IBV_WC_SUCCESS, NULL), "WRITE_WITH_IMM");
		CHECK(expect_wc(b.rcq, 0x301, IBV_WC_SUCCESS, &wc), "receive of WRITE_WITH_IMM");
		CHECK(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		      ntohl(wc.imm_data) == 0x12345678 && wc.byte_len == 5000,
		      "opcode %d flags 0x%x imm 0x%x byte_len %u", wc.opcode, wc.wc_flags,
		      ntohl(wc.imm_data), wc.byte_len);
		CHECK(first_diff(a.m.buf, b.m.buf + 100, 5000) < 0 &&
		      first_not(b.m.buf, 100, 0xee) < 0 &&
		      first_not(b.m.buf + 5100, b.m.len - 5100, 0xee) < 0,
		      "WRITE_WITH_IMM data");
	}

	/* SEND gathered from 3 pieces, scattered into 2. */
	{
		struct ibv_sge gs[3] = {
			{ (uintptr_t)a.m.buf + 10, 1000, a.m.mr->lkey },
			{ (uintptr_t)a.m.buf + 20000, 3000, a.m.mr->lkey },
			{ (uintptr_t)a.m.buf + 40001, 777, a.m.mr->lkey },
		};
		struct ibv_sge ss[2] = {
			{ (uintptr_t)b.m.buf + 1, 2500, b.m.mr->lkey },
			{ (uintptr_t)b.m.buf + 100000, 8000, b.m.mr->lkey },
		};
		struct ibv_send_wr wr = {
			.wr_id = 0x400, .sg_list = gs, .num_sge = 3,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		uint8_t want[4777], got[4777];

		fill(a.m.buf, 65536, 0x400);
		memset(b.m.buf, 0xee, b.m.len);
		memcpy(want, a.m.buf + 10, 1000);
		memcpy(want + 1000, a.m.buf + 20000, 3000);
		memcpy(want + 4000, a.m.buf + 40001, 777);
		CHECK(!post_recv_sge(b.qp, 0x401, ss, 2), "recv");
		CHECK(!post_wr(a.qp, &wr), "SEND");
		CHECK(expect_wc(a.scq, 0x400, IBV_WC_SUCCESS, NULL), "SEND");
		CHECK(expect_wc(b.rcq, 0x401, IBV_WC_SUCCESS, &wc), "receive");
		CHECK(wc.opcode == IBV_WC_RECV && wc.byte_len == sizeof(want),
		      "opcode %d byte_len %u", wc.opcode, wc.byte_len);
		memcpy(got, b.m.buf + 1, 2500);
		memcpy(got + 2500, b.m.buf + 100000, sizeof(got) - 2500);
		CHECK(first_diff(want, got, sizeof(want)) < 0, "SEND data differ at %ld",
		      first_diff(want, got, sizeof(want)));
		CHECK(first_not(b.m.buf + 100000 + sizeof(got) - 2500, 100, 0xee) < 0 &&
		      first_not(b.m.buf + 2501, 100, 0xee) < 0, "SEND wrote past its length");
	}

	/* Inline SEND and WRITE: the data is copied at post time, so the
	 * buffer may change right after ibv_post_send returns.
	 */
	if (a.cap.max_inline_data) {
		uint32_t n = a.cap.max_inline_data;
		uint8_t want[1024];
		struct ibv_sge sg = { (uintptr_t)a.m.buf, n, 0 };
		struct ibv_send_wr wr = {
			.wr_id = 0x450, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		};

		CHECK(n <= sizeof(want), "max_inline_data %u", n);
		diag("inline: max_inline_data %u", n);
		fill(a.m.buf, n, 0x450);
		memcpy(want, a.m.buf, n);
		memset(b.m.buf, 0xee, b.m.len);
		CHECK(!post_recv(&b, 0x451, 0, 4096), "recv");
		CHECK(!post_wr(a.qp, &wr), "inline SEND");
		memset(a.m.buf, 0, n);
		CHECK(expect_wc(a.scq, 0x450, IBV_WC_SUCCESS, NULL), "inline SEND");
		CHECK(expect_wc(b.rcq, 0x451, IBV_WC_SUCCESS, &wc), "inline receive");
		CHECK(wc.byte_len == n && first_diff(want, b.m.buf, n) < 0 &&
		      first_not(b.m.buf + n, 64, 0xee) < 0,
		      "inline SEND: byte_len %u, data differ at %ld", wc.byte_len,
		      first_diff(want, b.m.buf, n));

		fill(a.m.buf, n, 0x452);
		memcpy(want, a.m.buf, n);
		wr.wr_id = 0x452;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)b.m.buf + 8192 + 3;
		wr.wr.rdma.rkey = b.m.mr->rkey;
		CHECK(!post_wr(a.qp, &wr), "inline WRITE");
		memset(a.m.buf, 0, n);
		CHECK(expect_wc(a.scq, 0x452, IBV_WC_SUCCESS, NULL), "inline WRITE");
		CHECK(first_diff(want, b.m.buf + 8192 + 3, n) < 0 &&
		      first_not(b.m.buf + 8192, 3, 0xee) < 0 &&
		      first_not(b.m.buf + 8192 + 3 + n, 64, 0xee) < 0,
		      "inline WRITE data differ at %ld", first_diff(want, b.m.buf + 8192 + 3, n));
	} else {
		diag("inline: max_inline_data 0, not checked");
	}

	if (a.d->attr.atomic_cap == IBV_ATOMIC_NONE) {
		diag("atomics not supported (atomic_cap NONE): not checked");
		goto out;
	}
	/* Atomics on b's 8 bytes at 0x2008, in host byte order. */
	v = 0x1122334455667788ULL;
	memset(b.m.buf + 0x2000, 0xee, 32);
	memcpy(b.m.buf + 0x2008, &v, 8);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_CMP_AND_SWP, 0x2008, v, 0xa5a5a5a55a5a5a5aULL, 0x500,
			&old), "CAS");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0x1122334455667788ULL && v == 0xa5a5a5a55a5a5a5aULL,
	      "CAS (equal): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_CMP_AND_SWP, 0x2008, 0x1122334455667788ULL, 1, 0x501,
			&old), "CAS");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0xa5a5a5a55a5a5a5aULL && v == 0xa5a5a5a55a5a5a5aULL,
	      "CAS (not equal): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	v = 0x00000000ffffffffULL;
	memcpy(b.m.buf + 0x2008, &v, 8);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_FETCH_AND_ADD, 0x2008, 0x100000001ULL, 0, 0x502, &old),
	      "FETCH_ADD");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0xffffffffULL && v == 0x200000000ULL,
	      "FETCH_ADD (carry): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	CHECK(atomic_op(&a, &b, IBV_WR_ATOMIC_FETCH_AND_ADD, 0x2008, (uint64_t)-1, 0, 0x503, &old),
	      "FETCH_ADD");
	memcpy(&v, b.m.buf + 0x2008, 8);
	CHECK(old == 0x200000000ULL && v == 0x1ffffffffULL,
	      "FETCH_ADD (-1): fetched 0x%llx, memory 0x%llx", (unsigned long long)old,
	      (unsigned long long)v);
	CHECK(first_not(b.m.buf + 0x2000, 8, 0xee) < 0 && first_not(b.m.buf + 0x2010, 16, 0xee) < 0,
	      "an atomic touched the neighbouring bytes");
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

static int query_all(struct ibv_qp *qp, struct ibv_qp_attr *a, struct ibv_qp_init_attr *ia)
{
	int err;

	memset(a, 0xa5, sizeof(*a));
	memset(ia, 0xa5, sizeof(*ia));
	err = ibv_query_qp(qp, a, IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_CAP,
			   ia);
	if (err)
		diag("ibv_query_qp 0x%x: %s", qp->qp_num, strerror(err));
	return err;
}

/* EXPECT_EQ-like check of one queried attribute. */
#define ATTR(what, got, want) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (g_ != w_) {							\
		diag("%s: %s is %lld, expected %lld", stage, what, g_, w_);	\
		bad++;							\
	}								\
} while (0)

int case_query_qp(void)
{
	struct two t = {};
	struct ep a = {}, b = {};
	struct conn_opts o = default_opts;
	struct ibv_qp_attr q;
	struct ibv_qp_init_attr qi;
	const char *stage;
	int rc = KSFT_PASS, bad = 0;
	enum ibv_mtu mtu;

	CHECK(!two_open(&t), "devices");
	/* Values different from the defaults, within every device limit. */
	o.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	o.timeout = 17;
	o.retry_cnt = 5;
	o.rnr_retry = 3;
	o.min_rnr_timer = 9;
	o.rd_atomic = 2;
	CHECK(t.d[0].attr.max_qp_rd_atom >= 2 && t.d[0].attr.max_qp_init_rd_atom >= 2,
	      "rd_atom limits %d/%d", t.d[0].attr.max_qp_rd_atom, t.d[0].attr.max_qp_init_rd_atom);
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &o), "QP a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "QP b");

	stage = "INIT";
	CHECK(!query_all(a.qp, &q, &qi), "query");
	ATTR("qp_state", q.qp_state, IBV_QPS_INIT);
	/* No responder resources yet (max_dest_rd_atomic 0): the QP serves
	 * remote writes only, as the in-tree driver reports it.
	 */
	ATTR("qp_access_flags", q.qp_access_flags, o.access & IBV_ACCESS_REMOTE_WRITE);
	ATTR("pkey_index", q.pkey_index, 0);
	ATTR("port_num", q.port_num, port_num);

	CHECK(!ep_connect(&a, &b, &o) && !ep_connect(&b, &a, &default_opts), "connect");
	mtu = mtu_min(t.d[0].port.active_mtu, t.d[1].port.active_mtu);
	stage = "RTS";
	CHECK(!query_all(a.qp, &q, &qi), "query");
	ATTR("qp_state", q.qp_state, IBV_QPS_RTS);
	ATTR("cur_qp_state", q.cur_qp_state, IBV_QPS_RTS);
	ATTR("qp_access_flags", q.qp_access_flags, o.access);
	ATTR("pkey_index", q.pkey_index, 0);
	ATTR("port_num", q.port_num, port_num);
	ATTR("path_mtu", q.path_mtu, mtu);
	ATTR("dest_qp_num", q.dest_qp_num, b.qp->qp_num);
	ATTR("rq_psn", q.rq_psn, 0x1000 + (b.qp->qp_num & 0xff));
	ATTR("sq_psn", q.sq_psn, 0x1000 + (a.qp->qp_num & 0xff));
	ATTR("max_dest_rd_atomic", q.max_dest_rd_atomic, 2);
	ATTR("max_rd_atomic", q.max_rd_atomic, 2);
	ATTR("min_rnr_timer", q.min_rnr_timer, 9);
	ATTR("timeout", q.timeout, 17);
	ATTR("retry_cnt", q.retry_cnt, 5);
	ATTR("rnr_retry", q.rnr_retry, 3);
	ATTR("ah_attr.dlid", q.ah_attr.dlid, t.d[1].port.lid);
	ATTR("ah_attr.sl", q.ah_attr.sl, 0);
	ATTR("ah_attr.port_num", q.ah_attr.port_num, port_num);
	ATTR("ah_attr.is_global", q.ah_attr.is_global, t.d[0].grh);
	ATTR("ah_attr.src_path_bits", q.ah_attr.src_path_bits, 0);
	ATTR("ah_attr.static_rate", q.ah_attr.static_rate, 0);
	ATTR("sq_draining", q.sq_draining, 0);
	ATTR("init qp_type", qi.qp_type, IBV_QPT_RC);
	ATTR("init sq_sig_all", qi.sq_sig_all, 0);
	ATTR("cap.max_send_wr", q.cap.max_send_wr, a.cap.max_send_wr);
	ATTR("cap.max_recv_wr", q.cap.max_recv_wr, a.cap.max_recv_wr);
	ATTR("cap.max_send_sge", q.cap.max_send_sge, a.cap.max_send_sge);
	ATTR("cap.max_recv_sge", q.cap.max_recv_sge, a.cap.max_recv_sge);
	ATTR("cap.max_inline_data", q.cap.max_inline_data, a.cap.max_inline_data);
	ATTR("init cap.max_send_wr", qi.cap.max_send_wr, a.cap.max_send_wr);
	ATTR("init cap.max_recv_wr", qi.cap.max_recv_wr, a.cap.max_recv_wr);
	diag("granted: send_wr %u recv_wr %u send_sge %u recv_sge %u inline %u",
	     a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	     a.cap.max_inline_data);
	CHECK(a.cap.max_send_wr >= QP_DEPTH && a.cap.max_recv_wr >= QP_DEPTH &&
	      a.cap.max_send_sge >= 4 && a.cap.max_recv_sge >= 4 && a.cap.max_inline_data >= 64,
	      "granted less than asked");

	/* The connection works with these attributes. */
	CHECK(write_ok(&a, &b, 0x66), "WRITE");

	{
		struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };

		CHECK(!ibv_modify_qp(a.qp, &e, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	}
	stage = "ERR";
	CHECK(!query_all(a.qp, &q, &qi), "query");
	ATTR("qp_state", q.qp_state, IBV_QPS_ERR);
	ATTR("cur_qp_state", q.cur_qp_state, IBV_QPS_ERR);
	CHECK(!bad, "%d attributes differ", bad);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

int case_srq(void)
{
	struct two t = {};
	struct ep a = {}, b = {}, a2 = {}, b2 = {};
	struct ibv_srq *srq = NULL;
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct conn_opts ob = default_opts;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[8];
	int rc = KSFT_PASS, i;
	const int posted = 8, sent = 5;

	CHECK(!two_open(&t), "devices");
	srq = ibv_create_srq(t.d[1].pd, &si);
	CHECK(srq, "ibv_create_srq: %s", strerror(errno));
	ob.srq = srq;
	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "a");
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &ob), "b on the SRQ");
	CHECK(!pair_connect(&a, &b, &default_opts, &ob), "connect");
	for (i = 0; i < posted; i++) {
		struct ibv_sge sg = {
			(uintptr_t)b.m.buf + 4096 * i, 4096, b.m.mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = 0x100 + i, .sg_list = &sg, .num_sge = 1 }, *bad;

		CHECK(!ibv_post_srq_recv(srq, &wr, &bad), "ibv_post_srq_recv %d", i);
	}
	/* Limit 4: the event comes when fewer than 4 WQEs are left. */
	sa.srq_limit = 4;
	CHECK(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "ibv_modify_srq: %s", strerror(errno));
	CHECK(!ibv_query_srq(srq, &sa), "ibv_query_srq: %s", strerror(errno));
	CHECK(sa.srq_limit == 4, "srq_limit %u after arming", sa.srq_limit);
	CHECK(sa.max_wr >= 16 && sa.max_sge >= 1, "max_wr %u max_sge %u", sa.max_wr, sa.max_sge);

	for (i = 0; i < sent; i++) {
		fill(a.m.buf + 1000 * i, 1000, 0x200 + i);
		CHECK(!post_send(&a, 0x200 + i, 1000 * i, 1000, IBV_SEND_SIGNALED), "send %d", i);
	}
	CHECK(wait_wc(a.scq, wc, sent, wait_ms) == sent, "sends");
	for (i = 0; i < sent; i++)
		CHECK(wc[i].status == IBV_WC_SUCCESS, "send %d: %s", i, wc_status(wc[i].status));
	CHECK(wait_wc(b.rcq, wc, sent, wait_ms) == sent, "SRQ receives");
	for (i = 0; i < sent; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == 0x100u + i &&
		      wc[i].byte_len == 1000 && wc[i].qp_num == b.qp->qp_num,
		      "receive %d: wr_id 0x%llx %s len %u qp 0x%x", i,
		      (unsigned long long)wc[i].wr_id, wc_status(wc[i].status), wc[i].byte_len,
		      wc[i].qp_num);
		CHECK(first_diff(a.m.buf + 1000 * i, b.m.buf + 4096 * i, 1000) < 0, "data %d", i);
	}
	CHECK(async_wait(&t.d[1], IBV_EVENT_SRQ_LIMIT_REACHED, srq, wait_ms),
	      "no IBV_EVENT_SRQ_LIMIT_REACHED");
	/* The limit fired once and is disarmed. */
	CHECK(!ibv_query_srq(srq, &sa), "ibv_query_srq: %s", strerror(errno));
	CHECK(sa.srq_limit == 0, "srq_limit %u after the event", sa.srq_limit);

	/* b to ERR: the last-WQE event; the SRQ keeps its 3 WQEs. */
	CHECK(!ibv_modify_qp(b.qp, &err, IBV_QP_STATE), "modify to ERR: %s", strerror(errno));
	CHECK(async_wait(&t.d[1], IBV_EVENT_QP_LAST_WQE_REACHED, b.qp, wait_ms),
	      "no IBV_EVENT_QP_LAST_WQE_REACHED");
	CHECK(cq_quiet(b.rcq, quiet_ms), "SRQ WQEs flushed by a QP in error");

	/* Another QP on the same SRQ consumes the remaining WQEs. */
	ob.srq = srq;
	CHECK(!ep_create(&a2, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "a2");
	CHECK(!ep_create(&b2, &t.d[1], NULL, NULL, MR_ALL, &ob), "b2 on the SRQ");
	CHECK(!pair_connect(&a2, &b2, &default_opts, &ob), "connect");
	fill(a2.m.buf, 777, 0x300);
	CHECK(!post_send(&a2, 0x300, 0, 777, IBV_SEND_SIGNALED), "send");
	CHECK(expect_wc(a2.scq, 0x300, IBV_WC_SUCCESS, NULL), "send on b2");
	CHECK(expect_wc(b2.rcq, 0x100 + sent, IBV_WC_SUCCESS, wc), "next SRQ WQE");
	CHECK(wc[0].byte_len == 777 && first_diff(a2.m.buf, b.m.buf + 4096 * sent, 777) < 0,
	      "data on b2: len %u", wc[0].byte_len);
out:
	ep_destroy(&a2);
	ep_destroy(&b2);
	ep_destroy(&a);
	ep_destroy(&b);
	if (t.d[1].ctx)
		async_drain(&t.d[1], 0);
	if (srq && ibv_destroy_srq(srq))
		diag("ibv_destroy_srq: %s", strerror(errno));
	two_close(&t);
	return rc;
}

#define UD_QKEY 0x11111111
#define GRH_LEN 40

static struct ibv_qp *ud_qp(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = port_num, .qkey = UD_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	if (!qp) {
		diag("ibv_create_qp(UD): %s", strerror(errno));
		return NULL;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		goto fail;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto fail;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x123;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto fail;
	return qp;
fail:
	diag("UD QP 0x%x to state %d: %s", qp->qp_num, a.qp_state, strerror(errno));
	ibv_destroy_qp(qp);
	return NULL;
}

int case_ud(void)
{
	struct two t = {};
	struct ibv_cq *ca = NULL, *cb = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_ah *ah = NULL;
	struct mem ma = {}, mb = {};
	struct ibv_wc wc;
	int rc = KSFT_PASS;
	uint32_t mtu, lens[4];

	CHECK(!two_open(&t), "devices");
	ca = cq_new(&t.d[0], 32, NULL, NULL);
	cb = cq_new(&t.d[1], 32, NULL, NULL);
	CHECK(ca && cb, "CQs");
	qa = ud_qp(&t.d[0], ca);
	qb = ud_qp(&t.d[1], cb);
	CHECK(qa && qb, "UD QPs");
	CHECK(!mem_reg(&ma, &t.d[0], 65536, IBV_ACCESS_LOCAL_WRITE) &&
	      !mem_reg(&mb, &t.d[1], 65536, IBV_ACCESS_LOCAL_WRITE), "MRs");
	{
		struct ibv_ah_attr aa = {
			.dlid = t.d[1].port.lid, .sl = 0, .port_num = port_num,
		};

		if (t.d[0].grh) {
			aa.is_global = 1;
			aa.grh.dgid = t.d[1].gid;
			aa.grh.sgid_index = gid_index;
			aa.grh.hop_limit = 1;
		}
		ah = ibv_create_ah(t.d[0].pd, &aa);
		CHECK(ah, "ibv_create_ah: %s", strerror(errno));
	}
	mtu = 128u << mtu_min(t.d[0].port.active_mtu, t.d[1].port.active_mtu);
	lens[0] = 1;
	lens[1] = 100;
	lens[2] = mtu - 1;
	lens[3] = mtu;
	for (unsigned int i = 0; i < 4; i++) {
		uint32_t n = lens[i];
		struct ibv_sge sg = { (uintptr_t)ma.buf, n, ma.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x10 + i, .sg_list = &sg, .num_sge = 1,
			.opcode = i == 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0xabc000 + i),
			.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num, .remote_qkey = UD_QKEY },
		};
		struct ibv_sge rs = { (uintptr_t)mb.buf, n + GRH_LEN, mb.mr->lkey };

		memset(mb.buf, 0xee, mb.len);
		fill(ma.buf, n, 0x10 + i);
		CHECK(!post_recv_sge(qb, 0x20 + i, &rs, 1), "recv");
		CHECK(!post_wr(qa, &wr), "UD send of %u bytes", n);
		CHECK(expect_wc(ca, 0x10 + i, IBV_WC_SUCCESS, NULL), "UD send of %u bytes", n);
		CHECK(expect_wc(cb, 0x20 + i, IBV_WC_SUCCESS, &wc), "UD receive of %u bytes", n);
		CHECK(wc.byte_len == n + GRH_LEN && wc.src_qp == qa->qp_num &&
		      wc.qp_num == qb->qp_num && (t.d[0].grh || wc.slid == t.d[0].port.lid) &&
		      wc.opcode == IBV_WC_RECV,
		      "%u bytes: byte_len %u src_qp 0x%x qp 0x%x slid %u opcode %d",
		      n, wc.byte_len, wc.src_qp, wc.qp_num, wc.slid, wc.opcode);
		CHECK(!!(wc.wc_flags & IBV_WC_WITH_IMM) == (i == 1) &&
		      (i != 1 || ntohl(wc.imm_data) == 0xabc000 + i),
		      "immediate: flags 0x%x imm 0x%x", wc.wc_flags, ntohl(wc.imm_data));
		CHECK(!!(wc.wc_flags & IBV_WC_GRH) == t.d[0].grh, "GRH flag 0x%x", wc.wc_flags);
		CHECK(first_diff(ma.buf, mb.buf + GRH_LEN, n) < 0 &&
		      first_not(mb.buf + GRH_LEN + n, 64, 0xee) < 0,
		      "%u bytes: data differ at %ld", n, first_diff(ma.buf, mb.buf + GRH_LEN, n));
	}

	/* A wrong Q_Key: the send completes, the datagram is dropped. */
	{
		struct ibv_sge sg = { (uintptr_t)ma.buf, 16, ma.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x30, .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num, .remote_qkey = UD_QKEY + 1 },
		};
		struct ibv_sge rs = { (uintptr_t)mb.buf, 4096, mb.mr->lkey };

		CHECK(!post_recv_sge(qb, 0x31, &rs, 1), "recv");
		CHECK(!post_wr(qa, &wr), "send");
		CHECK(expect_wc(ca, 0x30, IBV_WC_SUCCESS, NULL), "send with a wrong Q_Key");
		CHECK(cq_quiet(cb, quiet_ms), "a datagram with a wrong Q_Key was received");
	}
out:
	if (ah && ibv_destroy_ah(ah))
		diag("ibv_destroy_ah: %s", strerror(errno));
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	mem_free(&ma);
	mem_free(&mb);
	cq_free(&ca);
	cq_free(&cb);
	two_close(&t);
	return rc;
}
