// SPDX-License-Identifier: GPL-2.0
/*
 * Posting: each RC opcode (SEND, with immediate, inline, zero-length,
 * several SGEs, RDMA WRITE with and without immediate, READ, both atomics,
 * memory window bind, local and remote invalidation, a WRITE through an
 * rkey whose MR was rereg'ed to allow it), UD through an AH,
 * posting errors (keys, lengths, depths, opcodes, RNR, retries, flushes),
 * the same opcodes through ibv_wr_* on an extended QP, and async events.
 * Every completion on both sides is traced (tr_wc), and data is checked.
 */
#define _GNU_SOURCE
#include "verbs_diff.h"

#define INIT_MASK_EX (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)

struct pair {
	struct two t;
	struct ep a, b;
	uint32_t aq, bq;
};

static int pair_up(struct pair *p, const struct conn_opts *oa, const struct conn_opts *ob)
{
	memset(p, 0, sizeof(*p));
	if (two_open(&p->t) || std_pair(&p->t, &p->a, &p->b, oa, ob))
		return -1;
	p->aq = p->a.qp->qp_num;
	p->bq = p->b.qp->qp_num;
	return 0;
}

static void pair_down(struct pair *p)
{
	ep_destroy(&p->a);
	ep_destroy(&p->b);
	two_close(&p->t);
}

/* Sender's completions then receiver's, n each. */
static void both(struct pair *p, const char *var, int ns, int nr)
{
	char v[64];

	snprintf(v, sizeof(v), "%s_sender", var);
	if (ns)
		tr_poll(p->a.scq, v, ns, wait_ms, p->aq, p->bq);
	snprintf(v, sizeof(v), "%s_receiver", var);
	if (nr)
		tr_poll(p->b.rcq, v, nr, wait_ms, p->bq, p->aq);
}

static int send_wr(struct ep *e, const char *var, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err;

	errno = 0;
	err = ret_err(ibv_post_send(e->qp, wr, &bad));
	tr("ibv_post_send", var, err, "bad_is_wr=%d", err ? bad == wr : -1);
	return err;
}

static int recv_wr(struct ep *e, const char *var, uint64_t id, size_t off, uint32_t len)
{
	int err = ret_err(post_recv(e, id, off, len));

	if (err)
		tr("ibv_post_recv", var, err, NULL);
	return err;
}

/* One signaled WR of one SGE: len bytes at the start of e's buffer. */
static void one_wr(struct ibv_send_wr *wr, struct ibv_sge *sg, enum ibv_wr_opcode op, uint64_t id,
		   const struct ep *e, uint32_t len)
{
	memset(wr, 0, sizeof(*wr));
	wr->opcode = op;
	wr->sg_list = sg;
	wr->num_sge = 1;
	wr->wr_id = id;
	wr->send_flags = IBV_SEND_SIGNALED;
	sg->addr = (uintptr_t)e->m.buf;
	sg->length = len;
	sg->lkey = e->m.mr->lkey;
}
int case_post_rc(void)
{
	struct pair p;
	struct ibv_sge sg[4];
	struct ibv_send_wr wr;
	struct ibv_mw *mw = NULL;
	struct ibv_mr *bmr = NULL;
	uint64_t *atom;
	int rc = KSFT_PASS;

	tr_case = "post_rc";
	CHECK(!pair_up(&p, &default_opts, &default_opts), "RC pair");
#define SG(i, off, len) (sg[i].addr = (uintptr_t)p.a.m.buf + (off), sg[i].length = (len), \
			 sg[i].lkey = p.a.m.mr->lkey)
#define WR(op, id, n, fl) (memset(&wr, 0, sizeof(wr)), wr.opcode = (op), wr.wr_id = (id), \
			   wr.sg_list = sg, wr.num_sge = (n), wr.send_flags = (fl))
	/* SEND */
	fill(p.a.m.buf, 8192, 1);
	recv_wr(&p.b, "send", 0xb1, 65536, 4096);
	SG(0, 0, 100); WR(IBV_WR_SEND, 0xa1, 1, IBV_SEND_SIGNALED);
	send_wr(&p.a, "send", &wr);
	both(&p, "send", 1, 1);
	tr("data", "send", 0, "same=%d", first_diff(p.a.m.buf, p.b.m.buf + 65536, 100) < 0);
	/* SEND with immediate */
	recv_wr(&p.b, "send_imm", 0xb2, 65536, 4096);
	SG(0, 0, 200); WR(IBV_WR_SEND_WITH_IMM, 0xa2, 1, IBV_SEND_SIGNALED);
	wr.imm_data = htonl(0x12345678);
	send_wr(&p.a, "send_imm", &wr);
	both(&p, "send_imm", 1, 1);
	/* inline */
	recv_wr(&p.b, "send_inline", 0xb3, 65536, 4096);
	fill(p.a.m.buf + 4096, 64, 3);
	SG(0, 4096, 48); WR(IBV_WR_SEND, 0xa3, 1, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	send_wr(&p.a, "send_inline", &wr);
	both(&p, "send_inline", 1, 1);
	tr("data", "send_inline", 0, "same=%d",
	   first_diff(p.a.m.buf + 4096, p.b.m.buf + 65536, 48) < 0);
	/* zero length */
	recv_wr(&p.b, "send_zero", 0xb4, 65536, 4096);
	WR(IBV_WR_SEND, 0xa4, 0, IBV_SEND_SIGNALED);
	send_wr(&p.a, "send_zero", &wr);
	both(&p, "send_zero", 1, 1);
	/* three SGEs gathered, into a receive of two scattered */
	{
		struct ibv_sge rs[2] = {
			{ (uintptr_t)p.b.m.buf + 65536, 100, p.b.m.mr->lkey },
			{ (uintptr_t)p.b.m.buf + 70000, 1000, p.b.m.mr->lkey },
		};

		tr("ibv_post_recv", "two_sge", ret_err(post_recv_sge(p.b.qp, 0xb5, rs, 2)), NULL);
		SG(0, 0, 50); SG(1, 1000, 60); SG(2, 2000, 70);
		WR(IBV_WR_SEND, 0xa5, 3, IBV_SEND_SIGNALED);
		send_wr(&p.a, "send_three_sge", &wr);
		both(&p, "send_three_sge", 1, 1);
		tr("data", "send_three_sge", 0, "same=%d",
		   first_diff(p.a.m.buf, p.b.m.buf + 65536, 50) < 0 &&
		   first_diff(p.a.m.buf + 1000, p.b.m.buf + 65536 + 50, 50) < 0 &&
		   first_diff(p.a.m.buf + 1050, p.b.m.buf + 70000, 10) < 0 &&
		   first_diff(p.a.m.buf + 2000, p.b.m.buf + 70010, 70) < 0);
	}
	/* RDMA WRITE, with immediate, READ */
	SG(0, 0, 4096); WR(IBV_WR_RDMA_WRITE, 0xa6, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 131072;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	send_wr(&p.a, "write", &wr);
	both(&p, "write", 1, 0);
	tr("data", "write", 0, "same=%d", first_diff(p.a.m.buf, p.b.m.buf + 131072, 4096) < 0);
	recv_wr(&p.b, "write_imm", 0xb7, 65536, 16);
	SG(0, 0, 3000); WR(IBV_WR_RDMA_WRITE_WITH_IMM, 0xa7, 1, IBV_SEND_SIGNALED);
	wr.imm_data = htonl(0xabcdef01);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 131072;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	send_wr(&p.a, "write_imm", &wr);
	both(&p, "write_imm", 1, 1);
	recv_wr(&p.b, "write_imm_zero", 0xb8, 65536, 16);
	WR(IBV_WR_RDMA_WRITE_WITH_IMM, 0xa8, 0, IBV_SEND_SIGNALED);
	wr.imm_data = htonl(7);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	send_wr(&p.a, "write_imm_zero", &wr);
	both(&p, "write_imm_zero", 1, 1);
	fill(p.b.m.buf + 200000, 5000, 9);
	SG(0, 20000, 5000); WR(IBV_WR_RDMA_READ, 0xa9, 1, IBV_SEND_SIGNALED);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 200000;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	send_wr(&p.a, "read", &wr);
	both(&p, "read", 1, 0);
	tr("data", "read", 0, "same=%d",
	   first_diff(p.a.m.buf + 20000, p.b.m.buf + 200000, 5000) < 0);
	/* atomics */
	atom = (uint64_t *)(p.b.m.buf + 240000);
	*atom = 100;
	SG(0, 30000, 8); WR(IBV_WR_ATOMIC_FETCH_AND_ADD, 0xaa, 1, IBV_SEND_SIGNALED);
	wr.wr.atomic.remote_addr = (uintptr_t)atom;
	wr.wr.atomic.rkey = p.b.m.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	send_wr(&p.a, "fetch_add", &wr);
	both(&p, "fetch_add", 1, 0);
	tr("data", "fetch_add", 0, "old=%llu new=%llu",
	   (unsigned long long)*(uint64_t *)(p.a.m.buf + 30000), (unsigned long long)*atom);
	SG(0, 30008, 8); WR(IBV_WR_ATOMIC_CMP_AND_SWP, 0xab, 1, IBV_SEND_SIGNALED);
	wr.wr.atomic.remote_addr = (uintptr_t)atom;
	wr.wr.atomic.rkey = p.b.m.mr->rkey;
	wr.wr.atomic.compare_add = 105;
	wr.wr.atomic.swap = 999;
	send_wr(&p.a, "cmp_swp_hit", &wr);
	both(&p, "cmp_swp_hit", 1, 0);
	wr.wr_id = 0xac;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 5;
	send_wr(&p.a, "cmp_swp_miss", &wr);
	both(&p, "cmp_swp_miss", 1, 0);
	tr("data", "cmp_swp", 0, "old=%llu new=%llu",
	   (unsigned long long)*(uint64_t *)(p.a.m.buf + 30008), (unsigned long long)*atom);
	/* unsignaled then signaled: one completion */
	SG(0, 0, 64); WR(IBV_WR_RDMA_WRITE, 0xad, 1, 0);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	send_wr(&p.a, "write_unsignaled", &wr);
	wr.wr_id = 0xae;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	send_wr(&p.a, "write_fenced", &wr);
	both(&p, "unsignaled_then_signaled", 1, 0);
	/* a chain of three WRs in one post */
	{
		struct ibv_send_wr w[3];

		for (int i = 0; i < 3; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].wr_id = 0xc0 + i;
			w[i].opcode = IBV_WR_RDMA_WRITE;
			w[i].sg_list = sg;
			w[i].num_sge = 1;
			w[i].send_flags = IBV_SEND_SIGNALED;
			w[i].wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 4096 * i;
			w[i].wr.rdma.rkey = p.b.m.mr->rkey;
			w[i].next = i < 2 ? &w[i + 1] : NULL;
		}
		send_wr(&p.a, "chain3", w);
		both(&p, "chain3", 3, 0);
	}
	/*
	 * rereg of access only, then remote traffic through the rkey the peer
	 * already holds: the key stays and takes the new rights (UCX and MPI
	 * libraries hand out rkeys once).
	 */
	{
		struct ibv_mr *rmr;
		uint32_t k0;

		errno = 0;
		rmr = ibv_reg_mr(p.t.d[1].pd, p.b.m.buf + 8192, 8192, IBV_ACCESS_LOCAL_WRITE);
		tr("ibv_reg_mr", "for_rereg_traffic", ptr_err(rmr), NULL);
		if (rmr) {
			k0 = rmr->rkey;
			errno = 0;
			tr("ibv_rereg_mr", "add_remote_write",
			   ibv_rereg_mr(rmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
					IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
			   "key_kept=%d", rmr->rkey == k0);
			fill(p.a.m.buf, 1024, 11);
			SG(0, 0, 1024); WR(IBV_WR_RDMA_WRITE, 0xb6, 1, IBV_SEND_SIGNALED);
			wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 8192;
			wr.wr.rdma.rkey = k0;
			send_wr(&p.a, "write_after_rereg", &wr);
			both(&p, "write_after_rereg", 1, 0);
			tr("data", "write_after_rereg", 0, "same=%d",
			   first_diff(p.a.m.buf, p.b.m.buf + 8192, 1024) < 0);
			tr("ibv_dereg_mr", "rereg_traffic", ret_err(ibv_dereg_mr(rmr)), NULL);
		}
	}
	/* type 2 window: bind on b, WRITE through it, SEND_WITH_INV, bind again, LOCAL_INV */
	errno = 0;
	bmr = ibv_reg_mr(p.t.d[1].pd, p.b.m.buf, 65536, MR_ALL | IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(p.t.d[1].pd, IBV_MW_TYPE_2);
	tr("ibv_alloc_mw", "type2", ptr_err(mw), NULL);
	if (bmr && mw) {
		struct ibv_send_wr bw;
		uint32_t rkey = ibv_inc_rkey(mw->rkey);

		memset(&bw, 0, sizeof(bw));
		bw.opcode = IBV_WR_BIND_MW;
		bw.wr_id = 0xb9;
		bw.send_flags = IBV_SEND_SIGNALED;
		bw.bind_mw.mw = mw;
		bw.bind_mw.rkey = rkey;
		bw.bind_mw.bind_info.mr = bmr;
		bw.bind_mw.bind_info.addr = (uintptr_t)p.b.m.buf;
		bw.bind_mw.bind_info.length = 8192;
		bw.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
		send_wr(&p.b, "bind_mw", &bw);
		tr_poll(p.b.scq, "bind_mw", 1, wait_ms, p.bq, p.aq);
		SG(0, 0, 512); WR(IBV_WR_RDMA_WRITE, 0xaf, 1, IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 1024;
		wr.wr.rdma.rkey = rkey;
		send_wr(&p.a, "write_via_mw", &wr);
		both(&p, "write_via_mw", 1, 0);
		recv_wr(&p.b, "send_inv", 0xba, 65536, 4096);
		SG(0, 0, 16); WR(IBV_WR_SEND_WITH_INV, 0xb0, 1, IBV_SEND_SIGNALED);
		wr.invalidate_rkey = rkey;
		send_wr(&p.a, "send_inv", &wr);
		both(&p, "send_inv", 1, 1);
		rkey = ibv_inc_rkey(rkey);
		bw.bind_mw.rkey = rkey;
		bw.wr_id = 0xbb;
		send_wr(&p.b, "bind_mw_again", &bw);
		tr_poll(p.b.scq, "bind_mw_again", 1, wait_ms, p.bq, p.aq);
		memset(&bw, 0, sizeof(bw));
		bw.opcode = IBV_WR_LOCAL_INV;
		bw.wr_id = 0xbc;
		bw.send_flags = IBV_SEND_SIGNALED;
		bw.invalidate_rkey = rkey;
		send_wr(&p.b, "local_inv", &bw);
		tr_poll(p.b.scq, "local_inv", 1, wait_ms, p.bq, p.aq);
		/* The invalidated rkey: a remote access error, the QP goes to ERR. */
		SG(0, 0, 16); WR(IBV_WR_RDMA_WRITE, 0xbd, 1, IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + 1024;
		wr.wr.rdma.rkey = rkey;
		send_wr(&p.a, "write_via_invalidated_mw", &wr);
		both(&p, "write_via_invalidated_mw", 1, 0);
		tr("qp_state", "after_remote_access_error", 0, "a=%s",
		   qp_wait_state(p.a.qp, IBV_QPS_ERR, wait_ms) ? "ERR" : qps_name(qp_state(p.a.qp)));
	}
#undef SG
#undef WR
out:
	ep_destroy(&p.a);
	ep_destroy(&p.b);
	if (mw)
		ibv_dealloc_mw(mw);
	if (bmr)
		ibv_dereg_mr(bmr);
	two_close(&p.t);
	return rc;
}

int case_post_ud(void)
{
	struct two t;
	struct ibv_cq *cq[2] = {};
	struct ibv_qp *qp[2] = {};
	struct ibv_ah *ah = NULL;
	struct mem m[2] = {};
	int rc = KSFT_PASS;

	tr_case = "post_ud";
	CHECK(!two_open(&t), "open devices");
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_UD, .cap = { 16, 16, 2, 2, 64 },
		};
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x1111 };

		cq[i] = ibv_create_cq(t.d[i].ctx, 64, NULL, NULL, 0);
		CHECK(cq[i], "CQ");
		ia.send_cq = ia.recv_cq = cq[i];
		qp[i] = ibv_create_qp(t.d[i].pd, &ia);
		CHECK(qp[i], "UD QP: %s", strerror(errno));
		CHECK(!ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_QKEY), "INIT");
		a.qp_state = IBV_QPS_RTR;
		CHECK(!ibv_modify_qp(qp[i], &a, IBV_QP_STATE), "RTR");
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		CHECK(!ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN), "RTS");
		CHECK(!mem_reg(&m[i], &t.d[i], 65536, IBV_ACCESS_LOCAL_WRITE), "MR");
	}
	{
		struct ibv_ah_attr aa = { .dlid = t.d[1].port.lid, .port_num = 1 };

		ah = ibv_create_ah(t.d[0].pd, &aa);
		CHECK(ah, "AH: %s", strerror(errno));
	}
	{
		static const struct { const char *n; uint32_t len; bool imm; uint32_t qkey; int fl; } v[] = {
			{ "send64", 64, false, 0x1111, 0 },
			{ "send_imm", 100, true, 0x1111, 0 },
			{ "send_inline", 32, false, 0x1111, IBV_SEND_INLINE },
			{ "send_zero", 0, false, 0x1111, 0 },
			{ "send_mtu", 0, false, 0x1111, 0 },
			{ "wrong_qkey", 64, false, 0x2222, 0 },
			{ "beyond_mtu", 1, false, 0x1111, 0 },
			{ "bigger_than_recv", 3000, false, 0x1111, 0 },
		};
		uint32_t mtu = 128u << t.d[0].port.active_mtu;

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			struct ibv_sge rs = { (uintptr_t)m[1].buf, 40 + 2048, m[1].mr->lkey };
			struct ibv_sge ss = { (uintptr_t)m[0].buf, v[i].len, m[0].mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = 0x10 + i, .sg_list = &ss, .num_sge = v[i].len ? 1 : 0,
				.opcode = v[i].imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED | v[i].fl,
				.imm_data = htonl(0x5555),
			}, *bad;
			bool to_peer;

			if (!strcmp(v[i].n, "send_mtu"))
				ss.length = mtu, wr.num_sge = 1;
			if (!strcmp(v[i].n, "beyond_mtu"))
				ss.length = mtu + 1;
			if (!strcmp(v[i].n, "bigger_than_recv"))
				rs.length = 40 + 1000;
			fill(m[0].buf, ss.length, (uint32_t)i);
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = qp[1]->qp_num;
			wr.wr.ud.remote_qkey = v[i].qkey;
			tr("ibv_post_recv", v[i].n, ret_err(post_recv_sge(qp[1], 0x20 + i, &rs, 1)), NULL);
			errno = 0;
			tr("ibv_post_send", v[i].n, ret_err(ibv_post_send(qp[0], &wr, &bad)), NULL);
			tr_poll(cq[0], v[i].n, 1, wait_ms, qp[0]->qp_num, qp[1]->qp_num);
			to_peer = strcmp(v[i].n, "wrong_qkey") && strcmp(v[i].n, "beyond_mtu");
			/* Dropped datagrams leave the receive posted: none must come. */
			if (to_peer) {
				/*
				 * Bigger than the receive: the emulator drops the
				 * datagram (no LOC_LEN_ERR) on either driver; a
				 * short wait shows it.
				 */
				tr_poll(cq[1], v[i].n, 1,
					strcmp(v[i].n, "bigger_than_recv") ? wait_ms : quiet_ms,
					qp[1]->qp_num, qp[0]->qp_num);
			} else {
				tr("cq_quiet", v[i].n, 0, "%d", cq_quiet(cq[1], quiet_ms));
			}
			if (to_peer && ss.length <= rs.length - 40)
				tr("data", v[i].n, 0, "same=%d",
				   first_diff(m[0].buf, m[1].buf + 40, ss.length) < 0);
		}
	}
	{
		/* An AH of the other device's PD: the provider takes any AH. */
		struct ibv_ah_attr aa = { .dlid = 0, .port_num = 1 };
		struct ibv_ah *bad_ah = ibv_create_ah(t.d[0].pd, &aa);

		tr("ibv_create_ah", "dlid0", ptr_err(bad_ah), NULL);
		if (bad_ah)
			ibv_destroy_ah(bad_ah);
	}
out:
	if (ah)
		ibv_destroy_ah(ah);
	for (int i = 0; i < 2; i++) {
		if (qp[i])
			ibv_destroy_qp(qp[i]);
		mem_free(&m[i]);
		if (cq[i])
			ibv_destroy_cq(cq[i]);
	}
	two_close(&t);
	return rc;
}

int case_post_errors(void)
{
	struct pair p;
	struct ibv_sge sg[64];
	struct ibv_send_wr wr, *bad;
	struct conn_opts o = default_opts;
	int rc = KSFT_PASS, n, err;

	tr_case = "post_errors";
	/* Too many SGEs, too much inline, an unknown opcode: refused at post. */
	CHECK(!pair_up(&p, &default_opts, &default_opts), "RC pair");
	for (int i = 0; i < 64; i++) {
		sg[i].addr = (uintptr_t)p.a.m.buf + 16 * i;
		sg[i].length = 16;
		sg[i].lkey = p.a.m.mr->lkey;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = sg;
	wr.num_sge = (int)p.a.cap.max_send_sge + 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	tr("granted", "cap", 0, "send_sge=%u inline=%u send_wr=%u recv_wr=%u", p.a.cap.max_send_sge,
	   p.a.cap.max_inline_data, p.a.cap.max_send_wr, p.a.cap.max_recv_wr);
	send_wr(&p.a, "sge_beyond", &wr);
	wr.num_sge = 1;
	sg[0].length = p.a.cap.max_inline_data + 1;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	send_wr(&p.a, "inline_beyond", &wr);
	sg[0].length = 16;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = (enum ibv_wr_opcode)0x55;
	send_wr(&p.a, "opcode_unknown", &wr);
	{
		struct ibv_recv_wr rw = { .sg_list = sg, .num_sge = (int)p.b.cap.max_recv_sge + 1 };
		struct ibv_recv_wr *rbad;

		for (int i = 0; i < rw.num_sge; i++)
			sg[i].lkey = p.b.m.mr->lkey, sg[i].addr = (uintptr_t)p.b.m.buf + 16 * i;
		err = ret_err(ibv_post_recv(p.b.qp, &rw, &rbad));
		tr("ibv_post_recv", "sge_beyond", err, "bad_is_wr=%d", err ? rbad == &rw : -1);
		for (int i = 0; i < 64; i++)
			sg[i].lkey = p.a.m.mr->lkey, sg[i].addr = (uintptr_t)p.a.m.buf + 16 * i;
	}
	/* Receive queue until full. */
	n = 0;
	do
		err = ret_err(post_recv(&p.b, 0x1000 + n, 0, 64));
	while (!err && ++n < 100000);
	tr("ibv_post_recv", "until_full", err, "posted=%d", n);
	/* A bad lkey: local protection error, the QP in ERR, what follows flushed. */
	one_wr(&wr, sg, IBV_WR_SEND, 0xe1, &p.a, 16);
	sg[0].lkey = p.a.m.mr->lkey ^ 0x5500;
	send_wr(&p.a, "bad_lkey", &wr);
	tr_poll(p.a.scq, "bad_lkey", 1, wait_ms, p.aq, p.bq);
	tr("qp_state", "after_bad_lkey", 0, "%s",
	   qp_wait_state(p.a.qp, IBV_QPS_ERR, wait_ms) ? "ERR" : qps_name(qp_state(p.a.qp)));
	sg[0].lkey = p.a.m.mr->lkey;
	wr.wr_id = 0xe2;
	send_wr(&p.a, "in_err", &wr);
	tr_poll(p.a.scq, "in_err", 1, wait_ms, p.aq, p.bq);
	pair_down(&p);

	/* Receive too small: LOC_LEN_ERR at the receiver, REM_INV_REQ at the sender. */
	CHECK(!pair_up(&p, &default_opts, &default_opts), "RC pair");
	one_wr(&wr, sg, IBV_WR_SEND, 0xe3, &p.a, 1000);
	recv_wr(&p.b, "short_recv", 0xf3, 0, 100);
	send_wr(&p.a, "short_recv", &wr);
	both(&p, "short_recv", 1, 1);
	pair_down(&p);

	/* A bad rkey: remote access error. */
	CHECK(!pair_up(&p, &default_opts, &default_opts), "RC pair");
	one_wr(&wr, sg, IBV_WR_RDMA_WRITE, 0xe4, &p.a, 64);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf;
	wr.wr.rdma.rkey = p.b.m.mr->rkey ^ 0x3300;
	send_wr(&p.a, "bad_rkey", &wr);
	both(&p, "bad_rkey", 1, 0);
	pair_down(&p);

	/* Out of the MR's range, remotely. */
	CHECK(!pair_up(&p, &default_opts, &default_opts), "RC pair");
	wr.wr_id = 0xe5;
	sg[0].lkey = p.a.m.mr->lkey;
	sg[0].addr = (uintptr_t)p.a.m.buf;
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf + BUF_SIZE - 32;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	send_wr(&p.a, "write_past_mr", &wr);
	both(&p, "write_past_mr", 1, 0);
	pair_down(&p);

	/* RNR: no receive posted, no RNR retries. */
	o.rnr_retry = 0;
	CHECK(!pair_up(&p, &o, &default_opts), "RC pair");
	one_wr(&wr, sg, IBV_WR_SEND, 0xe6, &p.a, 64);
	send_wr(&p.a, "rnr", &wr);
	both(&p, "rnr", 1, 0);
	pair_down(&p);

	/* Send queue until full (unsignaled WRITEs are not retired). */
	CHECK(!pair_up(&p, &default_opts, &default_opts), "RC pair");
	one_wr(&wr, sg, IBV_WR_RDMA_WRITE, 0, &p.a, 8);
	wr.send_flags = 0;
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.m.buf;
	wr.wr.rdma.rkey = p.b.m.mr->rkey;
	n = 0;
	do {
		wr.wr_id = (uint64_t)n;
		err = ret_err(ibv_post_send(p.a.qp, &wr, &bad));
	} while (!err && ++n < 100000);
	tr("ibv_post_send", "until_full", err, "posted=%d", n);
	tr("cq_quiet", "unsignaled", 0, "%d", cq_quiet(p.a.scq, quiet_ms));
	pair_down(&p);

	/* Transport retries exceeded: a peer QPN nobody has. */
	o = default_opts;
	o.dest_qpn = 0xfff0;
	o.timeout = 8;
	o.retry_cnt = 1;
	CHECK(!pair_up(&p, &o, &default_opts), "RC pair");
	one_wr(&wr, sg, IBV_WR_SEND, 0xe7, &p.a, 64);
	send_wr(&p.a, "no_such_peer", &wr);
	tr_poll(p.a.scq, "no_such_peer", 1, 4 * wait_ms, p.aq, p.bq);
	pair_down(&p);
	return rc;
out:
	pair_down(&p);
	return rc;
}

/* Polls one completion of an extended CQ and traces what the ibv_wc_read_* give. */
static void tr_poll_ex(struct ibv_cq_ex *cq, const char *var, uint32_t self, uint32_t peer)
{
	struct ibv_poll_cq_attr pa = {};
	long long end = now_ms() + wait_ms;
	int err;

	while ((err = ibv_start_poll(cq, &pa)) == ENOENT && now_ms() < end)
		usleep(1000);
	if (err) {
		tr("ibv_start_poll", var, err, NULL);
		return;
	}
	if (cq->status != IBV_WC_SUCCESS) {
		tr("wc_ex", var, 0, "wr_id=0x%llx status=%s", (unsigned long long)cq->wr_id,
		   ibv_wc_status_str(cq->status));
	} else {
		uint32_t qpn = ibv_wc_read_qp_num(cq);
		int op = ibv_wc_read_opcode(cq);
		unsigned int fl = ibv_wc_read_wc_flags(cq);

		tr("wc_ex", var, 0, "wr_id=0x%llx status=%s opcode=%d byte_len=%u flags=0x%x imm=0x%x qp=%s",
		   (unsigned long long)cq->wr_id, ibv_wc_status_str(cq->status), op,
		   ibv_wc_read_byte_len(cq), fl,
		   (fl & IBV_WC_WITH_IMM) ? ntohl(ibv_wc_read_imm_data(cq)) : 0,
		   qpn == self ? "self" : qpn == peer ? "peer" : "other");
	}
	ibv_end_poll(cq);
}

int case_qp_ex(void)
{
	struct two t;
	struct ibv_cq_ex *cq[2] = {};
	struct ibv_qp *qp[2] = {};
	struct mem m[2] = {};
	struct ep e[2];
	int rc = KSFT_PASS, err;

	tr_case = "qp_ex";
	memset(e, 0, sizeof(e));
	CHECK(!two_open(&t), "open devices");
	for (int i = 0; i < 2; i++) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 64, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
					       IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP,
		};
		struct ibv_qp_init_attr_ex qa = {
			.qp_type = IBV_QPT_RC, .cap = { 16, 16, 2, 2, 64 },
			.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = t.d[i].pd,
			.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
					  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
					  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
					  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		};
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = MR_ALL,
		};

		errno = 0;
		cq[i] = ibv_create_cq_ex(t.d[i].ctx, &ca);
		tr("ibv_create_cq_ex", "for_qp_ex", ptr_err(cq[i]), NULL);
		CHECK(cq[i], "CQ_ex");
		qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq[i]);
		errno = 0;
		qp[i] = ibv_create_qp_ex(t.d[i].ctx, &qa);
		tr("ibv_create_qp_ex", "rc_ops", ptr_err(qp[i]), NULL);
		CHECK(qp[i], "QP_ex");
		CHECK(!ibv_modify_qp(qp[i], &a, INIT_MASK_EX), "INIT");
		CHECK(!mem_reg(&m[i], &t.d[i], 65536, MR_ALL), "MR");
		e[i].d = &t.d[i];
		e[i].qp = qp[i];
		e[i].scq = e[i].rcq = ibv_cq_ex_to_cq(cq[i]);
	}
	CHECK(!ep_connect(&e[0], &e[1], &default_opts) && !ep_connect(&e[1], &e[0], &default_opts),
	      "connect");
	{
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp[0]);
		uint32_t lk = m[0].mr->lkey, rk = m[1].mr->rkey;
		uint64_t ra = (uintptr_t)m[1].buf;
		uint64_t la = (uintptr_t)m[0].buf;
		uint32_t s = qp[0]->qp_num, pq = qp[1]->qp_num;

		tr("ibv_qp_to_qp_ex", "rc", x ? 0 : EINVAL, NULL);
		CHECK(x, "qp_ex");
		fill(m[0].buf, 4096, 5);
		for (int i = 0; i < 4; i++)
			CHECK(!post_recv_sge(qp[1], 0x50 + i,
					     &(struct ibv_sge){ (uintptr_t)m[1].buf + 32768, 4096, m[1].mr->lkey }, 1),
			      "recv");
		ibv_wr_start(x);
		x->wr_id = 1; x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(x);
		ibv_wr_set_sge(x, lk, la, 100);
		x->wr_id = 2;
		ibv_wr_send_imm(x, htonl(0x4242));
		ibv_wr_set_sge(x, lk, la, 200);
		x->wr_id = 3; x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_send(x);
		ibv_wr_set_inline_data(x, m[0].buf, 40);
		x->wr_id = 4; x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(x, rk, ra);
		ibv_wr_set_sge_list(x, 2, (struct ibv_sge[]){ { la, 10, lk }, { la + 100, 20, lk } });
		x->wr_id = 5;
		ibv_wr_rdma_read(x, rk, ra);
		ibv_wr_set_sge(x, lk, la + 8192, 64);
		x->wr_id = 6;
		ibv_wr_atomic_fetch_add(x, rk, ra + 16384, 3);
		ibv_wr_set_sge(x, lk, la + 12288, 8);
		x->wr_id = 7;
		ibv_wr_atomic_cmp_swp(x, rk, ra + 16384, 3, 10);
		ibv_wr_set_sge(x, lk, la + 12296, 8);
		x->wr_id = 8;
		ibv_wr_rdma_write_imm(x, rk, ra, htonl(0x77));
		ibv_wr_set_sge(x, lk, la, 0);
		err = ibv_wr_complete(x);
		tr("ibv_wr_complete", "eight_ops", err, NULL);
		for (int i = 0; i < 8; i++) {
			char v[16];

			snprintf(v, sizeof(v), "sender%d", i);
			tr_poll_ex(cq[0], v, s, pq);
		}
		for (int i = 0; i < 4; i++) {
			char v[16];

			snprintf(v, sizeof(v), "receiver%d", i);
			tr_poll_ex(cq[1], v, pq, s);
		}
		/* Aborted: nothing posted. */
		ibv_wr_start(x);
		x->wr_id = 9;
		ibv_wr_send(x);
		ibv_wr_set_sge(x, lk, la, 10);
		ibv_wr_abort(x);
		tr("cq_quiet", "after_abort", 0, "%d", cq_quiet(ibv_cq_ex_to_cq(cq[0]), quiet_ms));
	}
out:
	for (int i = 0; i < 2; i++) {
		if (qp[i])
			ibv_destroy_qp(qp[i]);
		mem_free(&m[i]);
		if (cq[i])
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq[i]));
	}
	two_close(&t);
	return rc;
}

static void tr_events(struct dev *d, const char *var)
{
	char buf[256] = "";
	size_t n = 0;

	async_drain(d, 200);
	for (int i = 0; i < d->nev && n < sizeof(buf) - 32; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "",
				      ibv_event_type_str(d->ev[i].type));
	tr("async_events", var, 0, "[%s]", buf);
	d->nev = 0;
}

int case_events(void)
{
	struct pair p;
	struct ibv_srq *srq = NULL;
	struct conn_opts o = default_opts;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr ma = { .srq_limit = 4 };
	int rc = KSFT_PASS;

	tr_case = "events";
	memset(&p, 0, sizeof(p));
	CHECK(!two_open(&p.t), "open devices");
	srq = ibv_create_srq(p.t.d[1].pd, &sa);
	CHECK(srq, "SRQ");
	o.srq = srq;
	CHECK(!std_pair(&p.t, &p.a, &p.b, &default_opts, &o), "pair");
	p.aq = p.a.qp->qp_num;
	p.bq = p.b.qp->qp_num;
	for (int i = 0; i < 6; i++) {
		struct ibv_sge sg = { (uintptr_t)p.b.m.buf + 256 * i, 256, p.b.m.mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 0x60 + i, .sg_list = &sg, .num_sge = 1 }, *bad;

		CHECK(!ibv_post_srq_recv(srq, &rw, &bad), "SRQ recv");
	}
	tr("ibv_modify_srq", "arm_limit4", ret_err(ibv_modify_srq(srq, &ma, IBV_SRQ_LIMIT)), NULL);
	tr_events(&p.t.d[1], "before");
	for (int i = 0; i < 3; i++)
		CHECK(!post_send(&p.a, 0x70 + i, 0, 32, IBV_SEND_SIGNALED), "send");
	tr_poll(p.a.scq, "srq_sends", 3, wait_ms, p.aq, p.bq);
	tr_poll(p.b.rcq, "srq_recvs", 3, wait_ms, p.bq, p.aq);
	async_wait(&p.t.d[1], IBV_EVENT_SRQ_LIMIT_REACHED, srq, wait_ms);
	tr_events(&p.t.d[1], "srq_limit");
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		tr("ibv_modify_qp", "srq_qp_to_err", ret_err(ibv_modify_qp(p.b.qp, &a, IBV_QP_STATE)), NULL);
		async_wait(&p.t.d[1], IBV_EVENT_QP_LAST_WQE_REACHED, p.b.qp, wait_ms);
		tr_events(&p.t.d[1], "last_wqe");
	}
	ep_destroy(&p.a);
	ep_destroy(&p.b);
	/* CQ overrun: more completions than the CQ holds. */
	{
		struct ibv_cq *small = ibv_create_cq(p.t.d[0].ctx, 1, NULL, NULL, 0);
		struct ep a2, b2;
		int n = 0;

		memset(&a2, 0, sizeof(a2));
		memset(&b2, 0, sizeof(b2));
		CHECK(small, "small CQ");
		tr("ibv_create_cq", "small", 0, "cqe=%d", small->cqe);
		if (!ep_create(&a2, &p.t.d[0], small, small, MR_ALL, &default_opts) &&
		    !ep_create(&b2, &p.t.d[1], NULL, NULL, MR_ALL, &default_opts) &&
		    !pair_connect(&a2, &b2, &default_opts, &default_opts)) {
			for (int i = 0; i < small->cqe + 4; i++)
				n += !post_rdma(&a2, IBV_WR_RDMA_WRITE, 0x90 + i, 0, a2.m.mr->lkey, 8,
						(uintptr_t)b2.m.buf, b2.m.mr->rkey);
			tr("overrun", "posted", 0, "n_is_cqe+4=%d", n == small->cqe + 4);
			async_wait(&p.t.d[0], IBV_EVENT_CQ_ERR, small, wait_ms);
			tr_events(&p.t.d[0], "cq_overrun");
		}
		ep_destroy(&a2);
		ep_destroy(&b2);
		ibv_destroy_cq(small);
	}
out:
	ep_destroy(&p.a);
	ep_destroy(&p.b);
	if (srq)
		ibv_destroy_srq(srq);
	two_close(&p.t);
	return rc;
}
