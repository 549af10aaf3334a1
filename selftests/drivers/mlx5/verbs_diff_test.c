// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_diff_test - every libibverbs/mlx5dv verb the emulator serves, called
 * with valid and invalid arguments on two RDMA devices of one host (mlx5_0
 * and mlx5_1 by default), each call traced as one normalized line:
 *
 *   # T CASE VERB VARIANT RESULT FIELD=VALUE...
 *
 * RESULT is 0 or the errno's name. verbs_diff_test.sh runs the program on
 * the in-tree mlx5_ib and on ours in one boot and diffs the traces; each
 * difference must be fixed or explained in its table. Options and KTAP
 * output as ib_verbs_test (ib_verbs_lib.c). A case fails only when what it
 * needs to go on fails (the devices, a connected pair); the verdict on the
 * driver is the comparison.
 *
 * Cases (one file each, verbs_diff_cases_*.c):
 *   device       ibv_query_device(_ex), ports, GIDs, P_Keys, rt values
 *   pd_mr        PD, ibv_reg_mr per access flag and bad arguments,
 *                reg_mr_iova, rereg_mr, dealloc of a busy PD, null MR
 *   mw           memory windows of type 1 and 2, bind, bad types
 *   dm           ibv_alloc_dm within and beyond max_dm_size, DM MRs
 *   import       ibv_import_device / _pd / _mr, unimport
 *   td_parent    thread domains and parent domains
 *   cq           ibv_create_cq(_ex) sizes, vectors and flags, resize,
 *                modify (moderation), req_notify, busy destroy
 *   channel      completion channels: events, acks, busy destroy
 *   srq          SRQ create/modify/query limits, posts beyond depth
 *   xrc          XRCD, XRC SRQ, XRC INI/TGT QPs, ibv_get_srq_num
 *   qp_create    ibv_create_qp(_ex) per type and capacity, beyond limits
 *   qp_states    every RC/UC/UD state transition, valid and not, with
 *                ibv_query_qp after each
 *   ah           address handles valid and invalid
 *   mcast        attach/detach on UD and RC QPs
 *   post_rc      each RC opcode and its completions on both sides
 *   post_ud      UD SEND with and without immediate, through an AH
 *   post_errors  bad keys, lengths, depths, states, opcodes
 *   qp_ex        ibv_wr_* (QP_ex) posting of each opcode
 *   events       async events: SRQ limit, CQ overrun, QP fatal, last WQE
 *   dv           mlx5dv queries and objects
 *   misc         ECE, flows, WQs, counters, ODP advise, fork init
 *   random       random verbs (MLX5_DIFF_SEED, MLX5_DIFF_OPS), not run
 *                unless named (verbs_random_test.sh)
 */
#define _GNU_SOURCE
#include <string.h>
#include "verbs_diff.h"

const char *tr_case = "-";

const char *ename(int err)
{
	static char buf[32];
	const char *n;

	if (!err)
		return "0";
	if (err < 0)
		return "FAILED_NO_ERRNO";
	n = strerrorname_np(err);
	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno%d", err);
	return buf;
}

int ret_err(int ret)
{
	if (!ret)
		return 0;
	if (ret > 0)
		return ret;
	if (ret == -1)
		return errno ? errno : -1;
	return -ret;
}

void tr(const char *verb, const char *variant, int err, const char *fmt, ...)
{
	va_list ap;

	printf("# T %s %s %s %s", tr_case, verb, variant, ename(err));
	if (fmt && *fmt) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
}

/*
 * A QPN as what it is to the completion: "self" or "peer" (QPNs of the two
 * devices may coincide: the peer first when @peer_first), "0", "1" or
 * "other".
 */
static const char *qpn_rel2(uint32_t qpn, uint32_t self, uint32_t peer, bool peer_first)
{
	if (peer_first && qpn == peer)
		return "peer";
	if (qpn == self)
		return "self";
	if (qpn == peer)
		return "peer";
	if (qpn <= 1)
		return qpn ? "1" : "0";
	return "other";
}

static const char *qpn_rel(uint32_t qpn, uint32_t self, uint32_t peer)
{
	return qpn_rel2(qpn, self, peer, false);
}

/* Completions whose byte_len the verbs define (else left as it was). */
static bool byte_len_defined(enum ibv_wc_opcode op)
{
	return (op & IBV_WC_RECV) || op == IBV_WC_RDMA_READ || op == IBV_WC_COMP_SWAP ||
	       op == IBV_WC_FETCH_ADD;
}

void tr_wc(const char *verb, const char *variant, int n, const struct ibv_wc *wc,
	   uint32_t self_qpn, uint32_t peer_qpn)
{
	char v[96];

	/*
	 * Fields the verbs leave undefined are not printed: byte_len but of
	 * receives, READs and atomics, imm but of receives, the receive
	 * fields of send completions, pkey_index (GSI QPs only).
	 */
	snprintf(v, sizeof(v), "%s#%d", variant, n);
	if (wc->status != IBV_WC_SUCCESS) {
		/* Only wr_id, status, opcode-less error and qp are defined. */
		tr(verb, v, 0, "wr_id=0x%llx status=%s qp=%s", (unsigned long long)wc->wr_id,
		   ibv_wc_status_str(wc->status), qpn_rel(wc->qp_num, self_qpn, peer_qpn));
		return;
	}
	tr(verb, v, 0,
	   "wr_id=0x%llx status=%s opcode=%d byte_len=%u flags=0x%x imm=0x%x qp=%s src_qp=%s sl=%u dlid_path_bits=%u",
	   (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status), wc->opcode,
	   byte_len_defined(wc->opcode) ? wc->byte_len : 0, wc->wc_flags,
	   (wc->opcode & IBV_WC_RECV) && (wc->wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc->imm_data) : 0,
	   qpn_rel(wc->qp_num, self_qpn, peer_qpn),
	   (wc->opcode & IBV_WC_RECV) ? qpn_rel2(wc->src_qp, self_qpn, peer_qpn, true) : "-",
	   (wc->opcode & IBV_WC_RECV) ? wc->sl : 0,
	   (wc->opcode & IBV_WC_RECV) ? wc->dlid_path_bits : 0);
}

int tr_poll(struct ibv_cq *cq, const char *variant, int n, int ms, uint32_t self_qpn,
	    uint32_t peer_qpn)
{
	struct ibv_wc wc[64];
	int got, i;

	if (n > 64)
		n = 64;
	got = wait_wc(cq, wc, n, ms);
	if (got < 0) {
		tr("ibv_poll_cq", variant, EIO, "poll error");
		return got;
	}
	tr("ibv_poll_cq", variant, 0, "n=%d of %d", got, n);
	for (i = 0; i < got; i++)
		tr_wc("wc", variant, i, &wc[i], self_qpn, peer_qpn);
	return got;
}

void tr_query_qp(const char *variant, struct ibv_qp *qp, uint32_t peer_qpn)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int mask = IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY |
		   IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |
		   IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		   IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC |
		   IBV_QP_ALT_PATH | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE | IBV_QP_CAP |
		   IBV_QP_DEST_QPN;
	int err;

	memset(&a, 0, sizeof(a));
	memset(&ia, 0, sizeof(ia));
	err = ret_err(ibv_query_qp(qp, &a, mask, &ia));
	if (err) {
		tr("ibv_query_qp", variant, err, NULL);
		return;
	}
	/* Attribute groups on lines of their own: a difference names its group. */
	tr("ibv_query_qp", variant, 0,
	   "state=%s cur=%s access=0x%x pkey_index=%u qkey=0x%x mtu=%d timeout=%u retry=%u rnr_retry=%u rq_psn=0x%x sq_psn=0x%x min_rnr=%u mig=%d dest_qp=%s sqd_notify=%u",
	   qps_name(a.qp_state), qps_name(a.cur_qp_state), a.qp_access_flags, a.pkey_index,
	   a.qkey, a.path_mtu, a.timeout, a.retry_cnt, a.rnr_retry, a.rq_psn, a.sq_psn,
	   a.min_rnr_timer, a.path_mig_state,
	   a.dest_qp_num == peer_qpn ? "peer" : (a.dest_qp_num ? "other" : "0"), a.sq_draining);
	tr("ibv_query_qp", variant, 0, "rd_atomic=%u dest_rd_atomic=%u", a.max_rd_atomic,
	   a.max_dest_rd_atomic);
	tr("ibv_query_qp", variant, 0, "port=%u av.port=%u", a.port_num, a.ah_attr.port_num);
	tr("ibv_query_qp", variant, 0,
	   "av.dlid=%u av.sl=%u av.src_path_bits=%u av.static_rate=%u av.is_global=%u grh.sgid_index=%u grh.hop_limit=%u grh.tclass=%u grh.flow_label=0x%x",
	   a.ah_attr.dlid, a.ah_attr.sl, a.ah_attr.src_path_bits, a.ah_attr.static_rate,
	   a.ah_attr.is_global, a.ah_attr.grh.sgid_index, a.ah_attr.grh.hop_limit,
	   a.ah_attr.grh.traffic_class, a.ah_attr.grh.flow_label);
	tr("ibv_query_qp", variant, 0,
	   "cap.send_wr=%u cap.recv_wr=%u cap.send_sge=%u cap.recv_sge=%u cap.inline=%u init.type=%d init.sq_sig_all=%d",
	   a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	   a.cap.max_inline_data, ia.qp_type, ia.sq_sig_all);
}

static const struct verbs_case cases[] = {
	{ "device", "device, port, GID, P_Key and clock queries", case_device },
	{ "pd_mr", "PDs and MRs: access flags, bad arguments, rereg, busy PD", case_pd_mr },
	{ "mw", "memory windows of type 1 and 2", case_mw },
	{ "dm", "device memory within and beyond its size, DM MRs", case_dm },
	{ "import", "ibv_import_device, _pd, _mr", case_import },
	{ "td_parent", "thread domains and parent domains", case_td_parent },
	{ "cq", "CQ sizes, vectors, flags, resize, moderation, busy destroy", case_cq },
	{ "channel", "completion channels: events, acks, busy destroy", case_channel },
	{ "srq", "SRQ limits, modify, query, posts beyond depth", case_srq },
	{ "xrc", "XRCD, XRC SRQ, XRC QPs", case_xrc },
	{ "qp_create", "QP creation per type and capacity, beyond limits", case_qp_create },
	{ "qp_states", "every QP state transition, valid and not, queried", case_qp_states },
	{ "ah", "address handles", case_ah },
	{ "mcast", "multicast attach and detach", case_mcast },
	{ "post_rc", "each RC opcode and its completions", case_post_rc },
	{ "post_ud", "UD sends through an AH", case_post_ud },
	{ "post_errors", "posting errors: keys, lengths, depths, states", case_post_errors },
	{ "qp_ex", "ibv_wr_* posting of each opcode", case_qp_ex },
	{ "events", "async events: SRQ limit, CQ overrun, QP fatal, last WQE", case_events },
	{ "dv", "mlx5dv queries and objects", case_dv },
	{ "misc", "ECE, flows, WQs, counters, ODP advise", case_misc },
	{ "random", "random verbs (MLX5_DIFF_SEED, MLX5_DIFF_OPS)", case_random },
};

int main(int argc, char **argv)
{
	return verbs_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
