// SPDX-License-Identifier: GPL-2.0
/*
 * ib_verbs_test - verbs behaviour that the rdma-core tools and perftest do
 * not exercise, checked through libibverbs on two RDMA devices of one host
 * (by default mlx5_0 and mlx5_1; the emulator links them through its
 * fabric). Both ends of every connection live in this process: LIDs, GIDs
 * and QP numbers are exchanged in memory.
 *
 * Cases (each prints one KTAP line; run one with its name as argument):
 *   cq_overflow     a CQ smaller than the completions it receives: CQ error
 *                   event on the async fd, the QP that overran it in error
 *   rnr_retry       SEND with no receive posted: RNR retry exhausted after
 *                   rnr_retry 0 and 3; rnr_retry 7 waits for the receive
 *   flush           QP moved to ERR: every outstanding receive and send, and
 *                   those posted afterwards, complete with WR_FLUSH_ERR
 *   mr_access       remote access errors (no REMOTE_WRITE / REMOTE_READ,
 *                   out of bounds, bad rkey) and local protection errors
 *                   (bad lkey, READ into a read-only MR)
 *   comp_channel    several CQs on one completion channel: each event names
 *                   its CQ, one event per arm, ibv_ack_cq_events counts
 *   solicited       ibv_req_notify_cq(solicited_only=1): an unsolicited SEND
 *                   does not wake the channel, a solicited one and an error
 *                   completion do
 *   data            RDMA WRITE (+IMM), READ, multi-SGE SEND, inline SEND and
 *                   WRITE, atomic CAS and FETCH_ADD, checked byte for byte
 *   query_qp        ibv_query_qp returns what INIT/RTR/RTS applied, and ERR
 *   srq             SRQ limit event (and disarm), last-WQE event of a QP in
 *                   error, SRQ WQEs outlive it and serve another QP
 *   ud              UD datagrams 1 byte to the MTU (GRH room, immediate,
 *                   source QP and LID), a wrong Q_Key dropped
 *   errors          a SEND longer than the receive buffer (LOC_LEN_ERR on the
 *                   responder, REM_INV_REQ_ERR on the requester), transport
 *                   retries exhausted (RETRY_EXC_ERR)
 *   limits          CQ/QP/SRQ/MR/rd_atomic requests beyond the device limits
 *                   refused (errno printed for comparing the drivers)
 *   large           the largest objects the device advertises work: CQs of
 *                   2^21 - 1 and max_cqe entries, QPs of max_qp_wr WRs and
 *                   max_sge SGEs, an SRQ of max_srq_wr, a 1 GiB MR in 4 KiB
 *                   and in huge pages written at its ends, an MR of
 *                   max_mr_size (at most 4 GiB) where the guest has the
 *                   memory (scripts/vm --mem 6144); one entry, WR or page
 *                   beyond a limit fails with EINVAL
 *   cq_resize       ibv_resize_cq: shrinking below the completions present
 *                   fails and keeps them, growing and shrinking keep them in
 *                   order, completions in flight cross a resize
 *   cq_moderation   ibv_modify_cq: one event per cq_count completions, the
 *                   period fires the event of fewer, (0, 0) fires at once
 *
 * The cq_ cases accept EOPNOTSUPP from a driver without the verbs (the CQ
 * must still work) unless -x says the driver implements them.
 *
 * Exit status: 0 all passed, 1 a case failed, 4 every case skipped.
 */
#define _GNU_SOURCE
#include "ib_verbs.h"

static const struct verbs_case cases[] = {
	{ "cq_overflow", "CQ overrun: CQ error event, the QP in error", case_cq_overflow },
	{ "rnr_retry", "RNR retry exhausted (rnr_retry 0, 3); rnr_retry 7 waits", case_rnr_retry },
	{ "flush", "QP to error: every outstanding WR flushed", case_flush },
	{ "mr_access", "MR access violations: remote access and local protection errors",
	  case_mr_access },
	{ "comp_channel", "one completion channel, three CQs: events, arms, acks", case_comp_channel },
	{ "solicited", "solicited-only notification", case_solicited },
	{ "event_stress", "16 CQs on 4 channels, random arm and poll order: no completion event lost",
	  case_event_stress },
	{ "data", "data integrity: WRITE(+IMM), READ, SEND, inline, CAS, FETCH_ADD", case_data },
	{ "query_qp", "ibv_query_qp returns the attributes applied in INIT, RTS and ERR",
	  case_query_qp },
	{ "srq", "SRQ: limit event, last-WQE event, WQEs outlive a QP in error", case_srq },
	{ "ud", "UD: datagrams up to the MTU (GRH room, immediate, source), Q_Key mismatch",
	  case_ud },
	{ "mcast", "UD multicast: attach/detach, copies on both devices with the GRH, loopback, BLOCK_SELF_MCAST_LB",
	  case_mcast },
	{ "errors", "receive too small (LOC_LEN / REM_INV_REQ), transport retries exhausted",
	  case_errors },
	{ "limits", "requests beyond the device limits refused", case_limits },
	{ "large", "the largest objects: CQ of 2^21 - 1 and max_cqe, 1 GiB MR, max_qp_wr QP; one beyond is EINVAL",
	  case_large },
	{ "cq_resize", "ibv_resize_cq: too small fails, grow and shrink keep completions, resize in flight",
	  case_cq_resize },
	{ "cq_moderation", "ibv_modify_cq moderation: cq_count completions per event, the period, (0, 0)",
	  case_cq_moderation },
};

int main(int argc, char **argv)
{
	return verbs_main(argc, argv, cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
