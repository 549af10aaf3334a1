// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_qp.c - CREATE_QP with malformed mlx5 requests (flags mlx5_ib
 * does not take, queue geometry that does not match the core request,
 * unaligned or unmapped buffers, unknown handles), then an RC QP through
 * MODIFY_QP with out-of-range attributes at each step, and QUERY_QP; then
 * the DC QPs of mlx5dv_create_qp() (type IB_QPT_DRIVER): bad flag
 * combinations, a DCT without an SRQ, a DCI with a receive queue, and a DCI
 * and a DCT through their transitions, with the ones they do not have.
 */
#include "ib_udata.h"

void qp_core(struct ib_uverbs_create_qp *c, uint32_t pd, const uint32_t cq[2], uint8_t type)
{
	*c = (struct ib_uverbs_create_qp){
		.pd_handle = pd,
		.send_cq_handle = cq[0],
		.recv_cq_handle = cq[1],
		.max_send_wr = 16,
		.max_recv_wr = 16,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.qp_type = type,
	};
}

/* What libmlx5 sends for the core request above (RC, 16 + 16 WRs, 1 SGE). */
static struct mlx5_ib_create_qp qp_req(const struct bufs *b)
{
	struct mlx5_ib_create_qp r = {
		.buf_addr = addr(b->qp_buf),
		.db_addr = addr(b->qp_db),
		.rq_wqe_count = 16,
		.rq_wqe_shift = 4,
		.sq_wqe_count = 64,
		.flags = MLX5_QP_FLAG_SCATTER_CQE,	/* always sent */
		.uidx = 1,
	};

	return r;
}

static long create_qp(int fd, const struct ib_uverbs_create_qp *c, const void *drv,
		      size_t len, struct ib_uverbs_create_qp_resp *resp,
		      struct mlx5_ib_create_qp_resp *mresp)
{
	struct ib_uverbs_create_qp_resp r;
	struct mlx5_ib_create_qp_resp m;

	return uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_CREATE_QP,
		.req = c, .req_len = sizeof(*c),
		.udata = drv, .udata_len = len,
		.resp = resp ? resp : &r, .resp_len = sizeof(r),
		.uresp = mresp ? mresp : &m, .uresp_len = sizeof(m),
	});
}

/* Creates a QP and destroys it again. */
long try_qp(int fd, const struct ib_uverbs_create_qp *c, const void *udata, size_t len)
{
	struct ib_uverbs_create_qp_resp resp;
	long rc = create_qp(fd, c, udata, len, &resp, NULL);

	if (!rc)
		destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_QP, resp.qp_handle);
	return rc;
}

static long modify(int fd, const struct ib_uverbs_modify_qp *m)
{
	return uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_MODIFY_QP,
		.req = m, .req_len = sizeof(*m),
	});
}

static long query_qp(int fd, uint32_t qp, struct ib_uverbs_query_qp_resp *resp)
{
	struct ib_uverbs_query_qp c = {
		.qp_handle = qp,
		.attr_mask = (IBV_QP_DEST_QPN << 1) - 1,	/* every attribute */
	};

	return uv_write(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_CMD_QUERY_QP,
		.req = &c, .req_len = sizeof(c),
		.resp = resp, .resp_len = sizeof(*resp),
	});
}

static struct ib_uverbs_modify_qp mod(uint32_t qp, uint8_t state, uint32_t mask)
{
	struct ib_uverbs_modify_qp m = {
		.qp_handle = qp,
		.qp_state = state,
		.attr_mask = IBV_QP_STATE | mask,
	};

	return m;
}

static void test_query(int fd, uint32_t qp, uint32_t qpn)
{
	struct ib_uverbs_query_qp_resp q;
	long rc;

	rc = query_qp(fd, qp, &q);
	if (rc)
		diag("QUERY_QP: %ld", rc);
	else
		diag("query: state %u mtu %u dest_qp 0x%x timeout %u retry %u rnr %u dlid %u port %u",
		     q.qp_state, q.path_mtu, q.dest_qp_num, q.timeout, q.retry_cnt,
		     q.rnr_retry, q.dest.dlid, q.port_num);
	ok(!rc && q.qp_state == IBV_QPS_RTS && q.path_mtu == IBV_MTU_4096 &&
	   q.dest_qp_num == qpn && q.timeout == 14 && q.retry_cnt == 7 && q.rnr_retry == 7 &&
	   q.min_rnr_timer == 12 && q.dest.dlid == 1 && q.port_num == 1 &&
	   q.max_send_wr >= 16 && q.max_recv_wr >= 16, "query: RTS with the applied attributes");
}

/* RESET -> INIT -> RTR -> RTS -> ERR -> RESET, with bad attributes on the way. */
static void test_modify(int fd, uint32_t qp, uint32_t qpn)
{
	struct ib_uverbs_modify_qp m;
	long rc;

	m = mod(qp, IBV_QPS_RTR, 0);
	expect_err("modify: RESET -> RTR", modify(fd, &m), EINVAL);
	m = mod(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	m.port_num = 1;
	expect_err("modify: RESET -> INIT without access flags", modify(fd, &m), EINVAL);
	m = mod(qp, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	m.port_num = 1;
	m.pkey_index = 1000;
	expect_err("modify: P_Key index past the table", modify(fd, &m), EINVAL);
	m.pkey_index = 0;
	rc = modify(fd, &m);
	if (rc) {
		diag("RST2INIT: %ld", rc);
		skip("modify: RESET -> INIT", "the device cannot move a QP to INIT");
		return;
	}
	ok(1, "modify: RESET -> INIT");

	m = mod(qp, IBV_QPS_RTR, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	m.dest.dlid = 1;
	m.dest.port_num = 1;
	m.dest_qp_num = qpn;
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 12;
	m.path_mtu = 7;		/* the largest is IBV_MTU_4096, 5 */
	expect_err("modify: path MTU 7", modify(fd, &m), EINVAL);
	m.path_mtu = IBV_MTU_4096;
	m.max_dest_rd_atomic = 200;
	expect_err("modify: 200 responder resources", modify(fd, &m), EINVAL);
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 40;
	expect_err("modify: RNR timer 40", modify(fd, &m), EINVAL);
	m.min_rnr_timer = 12;
	m.dest.is_global = 1;
	m.dest.sgid_index = 200;
	expect_err("modify: GID index past the table", modify(fd, &m), EINVAL);
	m.dest.is_global = 0;
	m.dest.sgid_index = 0;
	rc = modify(fd, &m);
	if (rc) {
		diag("INIT2RTR: %ld", rc);
		skip("modify: INIT -> RTR", "the device cannot move a QP to RTR");
		return;
	}
	ok(1, "modify: INIT -> RTR");

	m = mod(qp, IBV_QPS_RTS, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	m.timeout = 40;
	expect_err("modify: ACK timeout 40", modify(fd, &m), EINVAL);
	m.timeout = 14;
	expect_ok("modify: RTR -> RTS", modify(fd, &m));
	test_query(fd, qp, qpn);
	m = mod(qp, IBV_QPS_ERR, 0);
	expect_ok("modify: RTS -> ERR", modify(fd, &m));
	m = mod(qp, IBV_QPS_RESET, 0);
	expect_ok("modify: ERR -> RESET", modify(fd, &m));
}

/* Driver data that contradicts itself or the core request. */
static void test_qp_requests(int fd, const struct ib_uverbs_create_qp *c,
			     const struct bufs *b)
{
	struct mlx5_ib_create_qp r;

	r = qp_req(b);
	expect_err("qp: 32-byte request", try_qp(fd, c, &r, 32), EINVAL);
	r = qp_req(b);
	r.flags |= MLX5_QP_FLAG_BFREG_INDEX;
	expect_err("qp: bfreg index flag (dynamic UARs)", try_qp(fd, c, &r, sizeof(r)),
		   EOPNOTSUPP);
	r = qp_req(b);
	r.flags |= MLX5_QP_FLAG_UAR_PAGE_INDEX;
	expect_err("qp: UAR page 0, not a UAR object of the context",
		   try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.flags |= MLX5_QP_FLAG_TYPE_DCT;
	expect_err("qp: DCT flag", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	r = qp_req(b);
	r.flags |= 1 << 20;
	expect_err("qp: unknown flag", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	r = qp_req(b);
	r.ece_options = 0x10000000;
	expect_err("qp: ECE options", try_qp(fd, c, &r, sizeof(r)), EOPNOTSUPP);
	r = qp_req(b);
	r.bfreg_index = 3;
	expect_err("qp: bfreg index without its flag", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.sq_buf_addr = addr(b->qp_buf);
	expect_err("qp: separate SQ buffer", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.uidx = 1U << 24;
	expect_err("qp: user index of 25 bits", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.rq_wqe_count = 24;
	expect_err("qp: RQ size not a power of 2", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r.rq_wqe_count = 1U << 20;
	expect_err("qp: RQ of 2^20 WQEs", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.rq_wqe_count = 8;
	expect_err("qp: RQ smaller than max_recv_wr", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.rq_wqe_shift = 3;
	expect_err("qp: RQ stride 8", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r.rq_wqe_shift = 31;
	expect_err("qp: RQ stride 2^31", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.sq_wqe_count = 48;
	expect_err("qp: SQ size not a power of 2", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r.sq_wqe_count = 1U << 30;
	expect_err("qp: SQ of 2^30 basic blocks", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.sq_wqe_count = 0;
	expect_err("qp: no SQ but max_send_wr 16", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	/* 64-byte steps of a page are fine (page_offset), 8 bytes are not. */
	r.buf_addr += 8;
	expect_err("qp: buffer 8 bytes into a page", try_qp(fd, c, &r, sizeof(r)), EINVAL);
	r = qp_req(b);
	r.buf_addr = UNMAPPED;
	expect_err("qp: unmapped buffer", try_qp(fd, c, &r, sizeof(r)), EFAULT);
	r = qp_req(b);
	r.db_addr += 2;
	expect_err("qp: unaligned doorbell record", try_qp(fd, c, &r, sizeof(r)), EINVAL);
}

/* The core request beyond the device's limits, or naming no object. */
static void test_qp_core(int fd, uint32_t pd, const uint32_t cq[2], const struct bufs *b)
{
	struct mlx5_ib_create_qp r = qp_req(b);
	struct ib_uverbs_create_qp c;
	uint8_t big[sizeof(r) + 8];

	qp_core(&c, pd, cq, IB_UVERBS_QPT_RC);
	c.max_send_sge = 1000;
	expect_err("qp: 1000 send SGEs", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	qp_core(&c, pd, cq, IB_UVERBS_QPT_RC);
	c.max_inline_data = 1U << 20;
	expect_err("qp: 1 MiB inline data", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	qp_core(&c, pd, cq, IB_UVERBS_QPT_RAW_PACKET);
	expect_err("qp: raw packet type", try_qp(fd, &c, &r, sizeof(r)), EOPNOTSUPP);
	qp_core(&c, pd, cq, IB_UVERBS_QPT_RC);
	c.pd_handle = pd + 1000;
	expect_bad_handle("qp: unknown PD handle", try_qp(fd, &c, &r, sizeof(r)));
	qp_core(&c, pd, cq, IB_UVERBS_QPT_RC);
	c.send_cq_handle = cq[0] + 1000;
	expect_bad_handle("qp: unknown send CQ handle", try_qp(fd, &c, &r, sizeof(r)));
	qp_core(&c, pd, cq, IB_UVERBS_QPT_RC);
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	big[sizeof(r) + 4] = 0xff;
	expect_err("qp: non-zero trailing bytes", try_qp(fd, &c, big, sizeof(big)), EOPNOTSUPP);
}

/* --- DC: DCIs and DCTs as libmlx5's mlx5dv_create_qp() makes them --- */

/* MODIFY_QP as libmlx5 sends it for a DCT; *dctn the driver's answer. */
static long modify_dct(int fd, const struct ib_uverbs_modify_qp *m, uint32_t *dctn)
{
	struct ib_uverbs_ex_modify_qp c = { .base = *m };
	struct ib_uverbs_ex_modify_qp_resp resp;
	struct mlx5_ib_modify_qp_resp mresp = {};
	struct mlx5_ib_modify_qp drv = {};
	long rc;

	/* libmlx5 sends it extended, to read the DCT's number at RTR. */
	rc = uv_write_ex(fd, &(struct uv_cmd){
		.cmd = IB_USER_VERBS_EX_CMD_MODIFY_QP,
		.req = &c, .req_len = sizeof(c),
		.udata = &drv, .udata_len = sizeof(drv),
		.resp = &resp, .resp_len = sizeof(resp),
		.uresp = &mresp, .uresp_len = sizeof(mresp),
	});
	if (!rc && dctn) {
		if (mresp.response_length < offsetof(struct mlx5_ib_modify_qp_resp, dctn) + 4)
			return -ENODATA;
		*dctn = mresp.dctn;
	}
	return rc;
}

/* An SRQ of 64 one-SGE WQEs for the DCT; its handle in *srq. */
static long dc_srq(int fd, uint32_t pd, const struct bufs *b, uint32_t *srq)
{
	struct mlx5_ib_create_srq r = {
		.buf_addr = addr(b->qp_buf + 8 * PAGE),
		.db_addr = addr(b->qp_db + 128),
		.uidx = 4,
	};

	return create_srq(fd, pd, 63, 1, 0, &r, sizeof(r), srq);
}

/* A DCI: a send queue of 64 basic blocks, no receive queue. */
static void dci_req(struct ib_uverbs_create_qp *c, struct mlx5_ib_create_qp *r,
		    uint32_t pd, const uint32_t cq[2], const struct bufs *b)
{
	qp_core(c, pd, cq, IB_UVERBS_QPT_DRIVER);
	c->max_recv_wr = 0;
	c->max_recv_sge = 0;
	*r = qp_req(b);
	r->flags |= MLX5_QP_FLAG_TYPE_DCI;
	r->rq_wqe_count = 0;
	r->rq_wqe_shift = 0;
}

/* A DCT: no queue of its own, on an SRQ, with an access key. */
static void dct_req(struct ib_uverbs_create_qp *c, struct mlx5_ib_create_qp *r,
		    uint32_t pd, const uint32_t cq[2], uint32_t srq)
{
	qp_core(c, pd, cq, IB_UVERBS_QPT_DRIVER);
	c->max_send_wr = c->max_recv_wr = c->max_send_sge = c->max_recv_sge = 0;
	c->is_srq = 1;
	c->srq_handle = srq;
	*r = (struct mlx5_ib_create_qp){
		.flags = MLX5_QP_FLAG_TYPE_DCT,
		.access_key = 0x1234567890abcdefULL,
		.uidx = 3,
	};
}

/* A DCI through INIT, RTR and RTS: no remote QP, no responder. */
static void test_dci(int fd, uint32_t pd, const uint32_t cq[2], const struct bufs *b)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ib_uverbs_query_qp_resp q;
	struct ib_uverbs_create_qp c;
	struct ib_uverbs_modify_qp m;
	struct mlx5_ib_create_qp r;
	long rc;

	dci_req(&c, &r, pd, cq, b);
	rc = create_qp(fd, &c, &r, sizeof(r), &resp, NULL);
	expect_ok("dc: create a DCI", rc);
	if (rc)
		return;
	m = mod(resp.qp_handle, IBV_QPS_INIT,
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	m.port_num = 1;
	expect_err("dc: DCI to INIT with access flags (it serves no one)", modify(fd, &m),
		   EINVAL);
	m = mod(resp.qp_handle, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	m.port_num = 1;
	expect_ok("dc: DCI to INIT", modify(fd, &m));
	m = mod(resp.qp_handle, IBV_QPS_RTR, IBV_QP_PATH_MTU | IBV_QP_DEST_QPN);
	m.path_mtu = IBV_MTU_1024;
	m.dest_qp_num = 5;
	expect_err("dc: DCI to RTR with a remote QP", modify(fd, &m), EINVAL);
	m = mod(resp.qp_handle, IBV_QPS_RTR, IBV_QP_PATH_MTU);
	m.path_mtu = IBV_MTU_1024;
	expect_ok("dc: DCI to RTR", modify(fd, &m));
	m = mod(resp.qp_handle, IBV_QPS_RTS, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT);
	m.timeout = 14;
	m.retry_cnt = 7;
	expect_err("dc: DCI to RTS without RNR retry, PSN and depth", modify(fd, &m), EINVAL);
	m = mod(resp.qp_handle, IBV_QPS_RTS, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	expect_ok("dc: DCI to RTS", modify(fd, &m));
	rc = query_qp(fd, resp.qp_handle, &q);
	ok(!rc && q.qp_state == IBV_QPS_RTS && q.path_mtu == IBV_MTU_1024 && q.timeout == 14,
	   "dc: query the DCI (RTS, MTU, timeout)");
	m = mod(resp.qp_handle, IBV_QPS_RESET, 0);
	expect_ok("dc: DCI back to RESET", modify(fd, &m));
	expect_ok("dc: destroy the DCI",
		  destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_QP, resp.qp_handle));
}

/* A DCT through INIT and RTR, where the firmware gets it; no further. */
static void test_dct(int fd, uint32_t pd, const uint32_t cq[2], uint32_t srq)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ib_uverbs_query_qp_resp q;
	struct ib_uverbs_create_qp c;
	struct ib_uverbs_modify_qp m;
	struct mlx5_ib_create_qp r;
	uint32_t dctn = 0;
	long rc;

	dct_req(&c, &r, pd, cq, srq);
	rc = create_qp(fd, &c, &r, sizeof(r), &resp, NULL);
	expect_ok("dc: create a DCT", rc);
	if (rc)
		return;
	m = mod(resp.qp_handle, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	m.port_num = 1;
	expect_err("dc: DCT to INIT without access flags", modify(fd, &m), EINVAL);
	m = mod(resp.qp_handle, IBV_QPS_INIT,
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	m.port_num = 1;
	m.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	m.pkey_index = 1000;
	expect_err("dc: DCT to INIT with a P_Key index past the table", modify(fd, &m),
		   EINVAL);
	m.pkey_index = 0;
	expect_ok("dc: DCT to INIT", modify(fd, &m));
	m = mod(resp.qp_handle, IBV_QPS_RTR,
		IBV_QP_MIN_RNR_TIMER | IBV_QP_AV | IBV_QP_PATH_MTU);
	m.min_rnr_timer = 12;
	m.path_mtu = IBV_MTU_1024;
	m.dest.port_num = 1;
	expect_err("dc: DCT to RTR with nowhere to put its number", modify(fd, &m), EINVAL);
	m.min_rnr_timer = 40;
	expect_err("dc: DCT to RTR with RNR timer 40", modify_dct(fd, &m, &dctn), EINVAL);
	m.min_rnr_timer = 12;
	m.attr_mask |= IBV_QP_DEST_QPN;
	expect_err("dc: DCT to RTR with a remote QP", modify_dct(fd, &m, &dctn), EINVAL);
	m.attr_mask &= ~IBV_QP_DEST_QPN;
	rc = modify_dct(fd, &m, &dctn);
	diag("dctn 0x%x", dctn);
	ok(!rc && dctn && dctn < (1U << 24), "dc: DCT to RTR: the firmware's DCT number");
	rc = query_qp(fd, resp.qp_handle, &q);
	ok(!rc && q.qp_state == IBV_QPS_RTR && q.path_mtu == IBV_MTU_1024 &&
	   q.min_rnr_timer == 12 &&
	   q.qp_access_flags == (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
	   "dc: query the DCT (RTR, MTU, RNR timer, access)");
	m = mod(resp.qp_handle, IBV_QPS_RTS, 0);
	expect_err("dc: DCT past RTR", modify_dct(fd, &m, NULL), EINVAL);
	m = mod(resp.qp_handle, IBV_QPS_ERR, 0);
	expect_err("dc: DCT to ERR", modify_dct(fd, &m, NULL), EINVAL);
	expect_ok("dc: destroy the DCT (drained first)",
		  destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_QP, resp.qp_handle));
}

/* Driver QPs with bad requests, then a good DCI and a good DCT. */
static void test_dc(int fd, uint32_t pd, const uint32_t cq[2], const struct bufs *b)
{
	struct ib_uverbs_create_qp c;
	struct mlx5_ib_create_qp r;
	uint32_t srq;
	long rc;

	dci_req(&c, &r, pd, cq, b);
	r.flags |= MLX5_QP_FLAG_TYPE_DCT;
	expect_err("dc: both DCI and DCT", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	dci_req(&c, &r, pd, cq, b);
	r.flags &= ~MLX5_QP_FLAG_TYPE_DCI;
	expect_err("dc: driver QP neither DCI nor DCT", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	dci_req(&c, &r, pd, cq, b);
	expect_err("dc: DCI request of 8 bytes", try_qp(fd, &c, &r, 8), EINVAL);
	dci_req(&c, &r, pd, cq, b);
	c.max_recv_wr = 16;
	c.max_recv_sge = 1;
	r.rq_wqe_count = 16;
	r.rq_wqe_shift = 4;
	expect_err("dc: DCI with a receive queue", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	dci_req(&c, &r, pd, cq, b);
	c.max_send_wr = 0;
	r.sq_wqe_count = 0;
	expect_err("dc: DCI without a send queue", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	dci_req(&c, &r, pd, cq, b);
	r.flags |= MLX5_QP_FLAG_DCI_STREAM;
	r.dci_streams.log_num_concurent = 2;
	expect_err("dc: DCI streams (the device has none)", try_qp(fd, &c, &r, sizeof(r)),
		   EOPNOTSUPP);

	rc = dc_srq(fd, pd, b, &srq);
	if (rc) {
		diag("CREATE_SRQ: %ld", rc);
		skip("dc: DCT checks", "the device cannot create an SRQ");
		test_dci(fd, pd, cq, b);
		return;
	}
	dct_req(&c, &r, pd, cq, srq);
	c.is_srq = 0;
	expect_err("dc: DCT without an SRQ", try_qp(fd, &c, &r, sizeof(r)), EINVAL);
	dct_req(&c, &r, pd, cq, srq);
	r.flags |= MLX5_QP_FLAG_SCATTER_CQE;
	expect_err("dc: DCT with scatter to CQE (not offered)", try_qp(fd, &c, &r, sizeof(r)),
		   EOPNOTSUPP);
	dct_req(&c, &r, pd, cq, srq);
	r.ece_options = 0x10000000;
	expect_err("dc: DCT with ECE options", try_qp(fd, &c, &r, sizeof(r)), EOPNOTSUPP);
	test_dci(fd, pd, cq, b);
	test_dct(fd, pd, cq, srq);
	destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, srq);
}

void test_qp(int fd, uint32_t pd, const uint32_t cq[2], const struct bufs *b)
{
	struct mlx5_ib_create_qp r = qp_req(b);
	struct ib_uverbs_create_qp_resp resp;
	struct mlx5_ib_create_qp_resp mresp;
	struct ib_uverbs_create_qp c;
	long rc;

	qp_core(&c, pd, cq, IB_UVERBS_QPT_RC);
	test_qp_requests(fd, &c, b);
	test_qp_core(fd, pd, cq, b);

	rc = create_qp(fd, &c, &r, sizeof(r), &resp, &mresp);
	if (rc) {
		diag("CREATE_QP: %ld (emulator without QPs?)", rc);
		skip("qp: create RC", "the device cannot create a QP");
		return;
	}
	diag("qpn 0x%x bfreg_index %u", resp.qpn, mresp.bfreg_index);
	ok(resp.qpn < (1U << 24) && mresp.bfreg_index % 4 < 2 &&
	   mresp.bfreg_index / 4 < uresp.tot_bfregs / 2, "qp: create RC (QPN, bfreg index)");
	test_modify(fd, resp.qp_handle, resp.qpn);
	expect_ok("qp: destroy", destroy_handle(fd, IB_USER_VERBS_CMD_DESTROY_QP, resp.qp_handle));

	test_dc(fd, pd, cq, b);

	qp_core(&c, pd, cq, IB_UVERBS_QPT_UD);
	expect_ok("qp: create and destroy UD", try_qp(fd, &c, &r, sizeof(r)));
	qp_core(&c, pd, cq, IB_UVERBS_QPT_UC);
	rc = try_qp(fd, &c, &r, sizeof(r));
	if (rc == -EINVAL) {
		/* Everything was checked by then: the device refused the type. */
		diag("UC: %ld", rc);
		skip("qp: create and destroy UC", "the device refused UC QPs");
	} else {
		expect_ok("qp: create and destroy UC", rc);
	}
}
