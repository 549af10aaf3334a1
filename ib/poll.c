// SPDX-License-Identifier: GPL-2.0
/*
 * Polling and arming kernel CQs. The device writes 64-byte CQEs into the
 * ring, the owner bit last; software hands entries back by writing the
 * consumer index into the doorbell record, and asks for the next
 * completion event with the arm doorbell (mlx5c_cq_arm()). The ownership
 * test and the consumer-index update, with their barriers, are those of
 * <mlx5c/cq.h>.
 *
 * A CQE names its QP by number; the QP's queues give the wr_id: the send
 * queue by the WQE counter in the CQE (unsignalled WQEs before it are
 * retired with it), a receive queue in order, an SRQ by WQE index.
 */
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>

#include "mlx5_ib.h"

/* Bits 28-29 of flags_rqpn: a GRH preceded the payload. */
#define MLX5C_CQE_GRH_SHIFT	28

static struct mlx5_cqe64 *mlx5c_ib_cqe(struct mlx5c_ib_cq *cq, u32 n)
{
	return mlx5c_buf_at(&cq->kbuf,
			    (size_t)(n & cq->ibcq.cqe) * sizeof(struct mlx5_cqe64));
}

/* The CQE at consumer index @n if software owns it, else NULL. */
static struct mlx5_cqe64 *mlx5c_ib_sw_cqe(struct mlx5c_ib_cq *cq, u32 n)
{
	return mlx5c_cqe_sw(mlx5c_ib_cqe(cq, n), n, cq->ibcq.cqe + 1);
}

static void mlx5c_ib_cq_set_ci(struct mlx5c_ib_cq *cq)
{
	mlx5c_cq_set_ci(cq->kbuf.db, cq->cons_index);
}

static enum ib_wc_status mlx5c_ib_wc_status(u8 syndrome)
{
	switch (syndrome) {
	case MLX5C_CQE_SYND_LOCAL_LENGTH:
		return IB_WC_LOC_LEN_ERR;
	case MLX5C_CQE_SYND_LOCAL_QP_OP:
		return IB_WC_LOC_QP_OP_ERR;
	case MLX5C_CQE_SYND_LOCAL_PROT:
		return IB_WC_LOC_PROT_ERR;
	case MLX5C_CQE_SYND_WR_FLUSH:
		return IB_WC_WR_FLUSH_ERR;
	case MLX5C_CQE_SYND_MW_BIND:
		return IB_WC_MW_BIND_ERR;
	case MLX5C_CQE_SYND_BAD_RESP:
		return IB_WC_BAD_RESP_ERR;
	case MLX5C_CQE_SYND_LOCAL_ACCESS:
		return IB_WC_LOC_ACCESS_ERR;
	case MLX5C_CQE_SYND_REMOTE_INVAL_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case MLX5C_CQE_SYND_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case MLX5C_CQE_SYND_REMOTE_OP:
		return IB_WC_REM_OP_ERR;
	case MLX5C_CQE_SYND_TRANSPORT_RETRY_EXC:
		return IB_WC_RETRY_EXC_ERR;
	case MLX5C_CQE_SYND_RNR_RETRY_EXC:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case MLX5C_CQE_SYND_REMOTE_ABORTED:
		return IB_WC_REM_ABORT_ERR;
	default:
		return IB_WC_GENERAL_ERR;
	}
}

/*
 * Whether @counter names a send WQE the device may complete: the start of
 * a WQE posted and not yet retired. A repeated or corrupted CQE names
 * another one (or none), and would retire WQEs the device still reads.
 */
static bool mlx5c_ib_sq_counter_ok(struct mlx5c_ib_qp *qp, u16 counter)
{
	u32 tail = qp->sq.tail, out = READ_ONCE(qp->sq.head) - tail;
	u32 at = (u16)(counter - tail), end;

	if (!qp->sq.wqe_cnt || at >= out)
		return false;
	/* The WQE that starts there ends within the posted ones. */
	end = qp->sq.next[counter & (qp->sq.wqe_cnt - 1)] - tail;
	return at < end && end <= out;
}

/* Retire the send WQE that starts at basic block @idx and those before it. */
static void mlx5c_ib_sq_complete(struct mlx5c_ib_qp *qp, u16 counter,
				 struct ib_wc *wc)
{
	u32 idx = counter & (qp->sq.wqe_cnt - 1);

	wc->wr_id = qp->sq.wrid[idx];
	wc->opcode = qp->sq.wc_op[idx];
	/* post_send reads the tail without the CQ's lock. */
	WRITE_ONCE(qp->sq.tail, qp->sq.next[idx]);
}

/*
 * A receive queue completes in order: the CQE names the oldest WQE posted,
 * or, if the device lost CQEs before it (a corrupted one was dropped), a
 * later one still outstanding. An SRQ's WQEs complete in any order; its
 * index is masked to the ring.
 */
static bool mlx5c_ib_rq_counter_ok(struct mlx5c_ib_qp *qp, u16 counter)
{
	u32 tail = qp->rq.tail;

	if (qp->ibqp.srq)
		return true;
	return qp->rq.wqe_cnt &&
	       (u16)(counter - tail) < READ_ONCE(qp->rq.head) - tail;
}

static void mlx5c_ib_rq_complete(struct mlx5c_ib_qp *qp, u16 counter,
				 struct ib_wc *wc)
{
	struct mlx5c_ib_srq *srq;
	unsigned long flags;
	u32 skip;

	if (qp->ibqp.srq) {
		srq = to_msrq(qp->ibqp.srq);
		wc->wr_id = srq->wrid[counter & (srq->max - 1)];
		spin_lock_irqsave(&srq->lock, flags);
		mlx5c_ib_srq_free_wqe(srq, counter & (srq->max - 1));
		spin_unlock_irqrestore(&srq->lock, flags);
		return;
	}
	/* WQEs whose CQEs the device lost never complete: the ring goes on. */
	skip = (u16)(counter - qp->rq.tail);
	if (skip)
		dev_err_ratelimited(&to_mdev(qp->ibqp.device)->adev->dev,
				    "QP 0x%x: %u receive WQEs completed without a CQE\n",
				    qp->qpn, skip);
	wc->wr_id = qp->rq.wrid[counter & (qp->rq.wqe_cnt - 1)];
	WRITE_ONCE(qp->rq.tail, qp->rq.tail + skip + 1);
}

/*
 * What a RoCE receive carries instead of LIDs: the network header the
 * 40-byte GRH area holds (flags_rqpn[25:24]), which ib_core needs to read
 * the source GID, and the VLAN with its priority.
 */
static void mlx5c_ib_recv_wc_roce(struct mlx5_cqe64 *cqe, struct ib_wc *wc)
{
	u16 vlan = be16_to_cpu(cqe->vlan_info);

	if (cqe->l4_l3_hdr_type & 0x1) {
		wc->vlan_id = vlan & VLAN_VID_MASK;
		wc->sl = vlan >> VLAN_PRIO_SHIFT;
		wc->wc_flags |= IB_WC_WITH_VLAN;
	}
	switch ((be32_to_cpu(cqe->flags_rqpn) >> 24) & 0x3) {
	case MLX5_CQE_ROCE_L3_HEADER_TYPE_GRH:
		wc->network_hdr_type = RDMA_NETWORK_ROCE_V1;
		break;
	case MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV6:
		wc->network_hdr_type = RDMA_NETWORK_IPV6;
		break;
	case MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV4:
		wc->network_hdr_type = RDMA_NETWORK_IPV4;
		break;
	default:
		return;
	}
	wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
}

static void mlx5c_ib_recv_wc(struct mlx5c_ib_qp *qp, struct mlx5_cqe64 *cqe,
			     struct ib_wc *wc)
{
	u32 rqpn = be32_to_cpu(cqe->flags_rqpn);
	u16 pkey;

	wc->byte_len = be32_to_cpu(cqe->byte_cnt);
	switch (get_cqe_opcode(cqe)) {
	case MLX5C_CQE_RESP_WR_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags = IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immediate;
		break;
	case MLX5C_CQE_RESP_SEND_IMM:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags = IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immediate;
		break;
	case MLX5C_CQE_RESP_SEND_INV:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->inval_rkey);
		break;
	default:
		wc->opcode = IB_WC_RECV;
		break;
	}
	wc->src_qp = rqpn & 0xffffff;
	if ((rqpn >> MLX5C_CQE_GRH_SHIFT) & 3)
		wc->wc_flags |= IB_WC_GRH;
	wc->dlid_path_bits = cqe->ml_path & 0x7f;
	wc->pkey_index = 0;
	if (to_mdev(qp->ibqp.device)->roce) {
		mlx5c_ib_recv_wc_roce(cqe, wc);
	} else {
		wc->sl = (rqpn >> 24) & 0xf;
		wc->slid = be16_to_cpu(cqe->slid);
	}
	/* QP1 receives carry the packet's P_Key where others carry data. */
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		pkey = be32_to_cpu(cqe->pkey) & 0xffff;
		if (ib_find_cached_pkey(qp->ibqp.device, qp->port, pkey,
					&wc->pkey_index))
			wc->pkey_index = 0;
	}
}

/*
 * The kernel QP a CQE of @cq names, or NULL (with the reason logged) if
 * that is no QP whose send or receive queue completes on @cq. Called with
 * the CQ's lock held: a QP found here stays alive until the lock is
 * dropped, because destroying it removes it from dev->qps and then cleans
 * both its CQs under their locks (mlx5c_ib_kqp_clean()) before freeing it.
 * A QP of another CQ has no such guarantee, hence the check under the
 * table's lock.
 */
static struct mlx5c_ib_qp *mlx5c_ib_cqe_qp(struct mlx5c_ib_dev *dev,
					  struct mlx5c_ib_cq *cq, u32 qpn)
{
	struct mlx5c_ib_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&dev->qps, flags);
	qp = xa_load(&dev->qps, qpn);
	if (qp && (!qp->kbuf.frags || (qp->ibqp.send_cq != &cq->ibcq &&
				       qp->ibqp.recv_cq != &cq->ibcq)))
		qp = ERR_PTR(-EINVAL);
	xa_unlock_irqrestore(&dev->qps, flags);
	/*
	 * No QP at all is a bad QPN too: a QP's CQEs are cleaned from its CQs
	 * before it is freed, and only a CQE the device writes between the
	 * QP's removal from the table and its DESTROY_QP can miss it.
	 */
	if (IS_ERR_OR_NULL(qp)) {
		dev_err_ratelimited(&dev->adev->dev,
				    "CQ 0x%x: CQE for QP 0x%x, which does not complete on it: dropped\n",
				    cq->mcq.cqn, qpn);
		return NULL;
	}
	return qp;
}

/* One CQE into @wc; false if it names no QP of @cq or no outstanding WQE. */
static bool mlx5c_ib_parse_cqe(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq,
			       struct mlx5_cqe64 *cqe, struct ib_wc *wc)
{
	struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)cqe;
	u8 opcode = get_cqe_opcode(cqe);
	u16 counter = be16_to_cpu(cqe->wqe_counter);
	struct mlx5c_ib_qp *qp;
	bool ok = true;

	qp = mlx5c_ib_cqe_qp(dev, cq, be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff);
	if (!qp)
		return false;
	switch (opcode) {
	case MLX5C_CQE_REQ:
	case MLX5C_CQE_REQ_ERR:
		ok = qp->ibqp.send_cq == &cq->ibcq &&
		     mlx5c_ib_sq_counter_ok(qp, counter);
		break;
	case MLX5C_CQE_RESP_WR_IMM:
	case MLX5C_CQE_RESP_SEND:
	case MLX5C_CQE_RESP_SEND_IMM:
	case MLX5C_CQE_RESP_SEND_INV:
	case MLX5C_CQE_RESP_ERR:
		ok = qp->ibqp.recv_cq == &cq->ibcq &&
		     mlx5c_ib_rq_counter_ok(qp, counter);
		break;
	}
	if (!ok) {
		dev_err_ratelimited(&dev->adev->dev,
				    "CQ 0x%x: CQE opcode %u for WQE %u of QP 0x%x, not outstanding there: dropped\n",
				    cq->mcq.cqn, opcode, counter, qp->qpn);
		return false;
	}
	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	switch (opcode) {
	case MLX5C_CQE_REQ:
		mlx5c_ib_sq_complete(qp, counter, wc);
		wc->status = IB_WC_SUCCESS;
		wc->byte_len = be32_to_cpu(cqe->byte_cnt);
		return true;
	case MLX5C_CQE_RESP_WR_IMM:
	case MLX5C_CQE_RESP_SEND:
	case MLX5C_CQE_RESP_SEND_IMM:
	case MLX5C_CQE_RESP_SEND_INV:
		mlx5c_ib_rq_complete(qp, counter, wc);
		mlx5c_ib_recv_wc(qp, cqe, wc);
		wc->status = IB_WC_SUCCESS;
		return true;
	case MLX5C_CQE_REQ_ERR:
	case MLX5C_CQE_RESP_ERR:
		if (opcode == MLX5C_CQE_REQ_ERR)
			mlx5c_ib_sq_complete(qp, counter, wc);
		else
			mlx5c_ib_rq_complete(qp, counter, wc);
		wc->status = mlx5c_ib_wc_status(err->syndrome);
		wc->vendor_err = err->vendor_err_synd;
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			dev_dbg(&dev->adev->dev,
				"QP 0x%x: error CQE syndrome 0x%x vendor 0x%x\n",
				qp->qpn, err->syndrome, err->vendor_err_synd);
		return true;
	default:
		dev_err_ratelimited(&dev->adev->dev,
				    "QP 0x%x: unexpected CQE opcode %u\n",
				    qp->qpn, opcode);
		wc->status = IB_WC_GENERAL_ERR;
		return true;
	}
}

/**
 * mlx5c_ib_poll_cq() - take completions from a kernel CQ
 * @ibcq: CQ
 * @num_entries: room in @wc
 * @wc: work completions (out)
 *
 * Any context; takes the CQ's lock with interrupts off.
 *
 * Return: the number of completions written.
 */
int mlx5c_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5c_ib_cq *cq = to_mcq(ibcq);
	struct mlx5_cqe64 *cqe;
	unsigned long flags;
	int n = 0;

	if (cq->ctx)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	/*
	 * A dead device's CQEs are not trusted (it may still write some):
	 * every outstanding WQE completes as flushed instead (fatal.c).
	 */
	if (mlx5c_ib_dead(dev)) {
		n = mlx5c_ib_dead_poll(dev, cq, wc, num_entries);
		spin_unlock_irqrestore(&cq->lock, flags);
		return n;
	}
	while (n < num_entries) {
		cqe = mlx5c_ib_sw_cqe(cq, cq->cons_index);
		if (!cqe)
			break;
		cq->cons_index++;
		if (mlx5c_ib_parse_cqe(dev, cq, cqe, &wc[n]))
			n++;
	}
	mlx5c_ib_cq_set_ci(cq);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * mlx5c_ib_req_notify_cq() - ask for a completion event
 * @ibcq: CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 0, or with IB_CQ_REPORT_MISSED_EVENTS 1 when completions are
 * already waiting (the caller polls again instead of waiting for an event).
 */
int mlx5c_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mlx5c_ib_dev *dev = to_mdev(ibcq->device);
	struct mlx5c_ib_cq *cq = to_mcq(ibcq);
	unsigned long irqflags;
	u32 cmd;
	int ret = 0;

	if (cq->ctx)
		return -EINVAL;
	cmd = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      MLX5C_CQ_DB_REQ_NOT_SOL : MLX5C_CQ_DB_REQ_NOT;
	spin_lock_irqsave(&cq->lock, irqflags);
	mlx5c_cq_arm(&cq->mcq, cmd, dev->uar, cq->kbuf.db, cq->cons_index);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS &&
	    mlx5c_ib_sw_cqe(cq, cq->cons_index))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/**
 * mlx5c_ib_cq_clean() - drop the completions of a QP from a kernel CQ
 * @cq: kernel CQ
 * @qpn: firmware QP number
 *
 * For a QP the device no longer completes for (reset or destroyed): its
 * CQEs still in the ring are removed, and the later CQEs moved up over
 * them, keeping the owner bit of the slot they move to.
 */
void mlx5c_ib_cq_clean(struct mlx5c_ib_cq *cq, u32 qpn)
{
	struct mlx5_cqe64 *cqe, *dst;
	unsigned long flags;
	u32 prod, removed = 0;
	u8 owner;

	if (!cq || cq->ctx)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	for (prod = cq->cons_index; mlx5c_ib_sw_cqe(cq, prod); prod++)
		if (prod - cq->cons_index > cq->ibcq.cqe)
			break;
	/* Walk from the newest back; survivors move up by @removed slots. */
	while (prod-- != cq->cons_index) {
		cqe = mlx5c_ib_cqe(cq, prod);
		if ((be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff) == qpn) {
			removed++;
			continue;
		}
		if (!removed)
			continue;
		dst = mlx5c_ib_cqe(cq, prod + removed);
		owner = dst->op_own & MLX5C_CQE_OWNER_MASK;
		memcpy(dst, cqe, sizeof(*cqe));
		dst->op_own = (dst->op_own & ~MLX5C_CQE_OWNER_MASK) | owner;
	}
	if (removed) {
		cq->cons_index += removed;
		/* The moved CQEs must be in place before the device reuses slots. */
		wmb();
		mlx5c_ib_cq_set_ci(cq);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}
