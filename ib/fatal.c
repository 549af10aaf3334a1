// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel queues of a device in the internal-error state. The device
 * completes nothing any more, yet in-kernel consumers tear down by moving
 * their QPs to the error state and waiting for the flush completions of
 * what they posted (ib_drain_qp()). So once the device is dead, modify_qp
 * to ERR or RESET succeeds without the firmware, poll_cq ignores the ring
 * (a failing device may still write to it) and completes every
 * outstanding WQE of the CQ's kernel QPs with IB_WC_WR_FLUSH_ERR, and the
 * CQs' completion handlers are called from a work item (at the error, and
 * after every post) so that the consumers poll.
 */
#include "mlx5_ib.h"

/**
 * mlx5c_ib_dead() - the device completes nothing any more
 * @dev: device
 *
 * Return: true in the internal-error state.
 */
bool mlx5c_ib_dead(struct mlx5c_ib_dev *dev)
{
	return READ_ONCE(dev->fatal) || mlx5c_dev_is_error(dev->mdev);
}

/* Some QP reporting to @cq has WQEs the device will never complete. */
static bool mlx5c_ib_dead_pending(struct mlx5c_ib_dev *dev,
				  struct mlx5c_ib_cq *cq)
{
	struct mlx5c_ib_qp *qp;
	bool pending = false;

	spin_lock_irq(&dev->kqp_lock);
	list_for_each_entry(qp, &dev->kqps, kqp_entry) {
		if ((qp->ibqp.send_cq == &cq->ibcq &&
		     READ_ONCE(qp->sq.tail) != READ_ONCE(qp->sq.head)) ||
		    (qp->ibqp.recv_cq == &cq->ibcq &&
		     READ_ONCE(qp->rq.tail) != READ_ONCE(qp->rq.head))) {
			pending = true;
			break;
		}
	}
	spin_unlock_irq(&dev->kqp_lock);
	return pending;
}

/*
 * Only CQs with work pending are kicked: a CQ whose QPs are gone may be
 * on its way out of ib_free_cq(), which cancels its poll work only once.
 */
static void mlx5c_ib_dead_work(struct work_struct *work)
{
	struct mlx5c_ib_dev *dev = container_of(work, struct mlx5c_ib_dev,
						dead_work);
	struct mlx5c_ib_cq *cq;

	mutex_lock(&dev->kcq_mutex);
	list_for_each_entry(cq, &dev->kcqs, kcq_entry) {
		if (!cq->ibcq.comp_handler || !mlx5c_ib_dead_pending(dev, cq))
			continue;
		/* Consumers expect their handler in softirq-like context. */
		local_bh_disable();
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
		local_bh_enable();
	}
	mutex_unlock(&dev->kcq_mutex);
}

/**
 * mlx5c_ib_dead_init() - prepare the dead-device completion work
 * @dev: device
 */
void mlx5c_ib_dead_init(struct mlx5c_ib_dev *dev)
{
	mutex_init(&dev->kcq_mutex);
	INIT_LIST_HEAD(&dev->kcqs);
	spin_lock_init(&dev->kqp_lock);
	INIT_LIST_HEAD(&dev->kqps);
	INIT_WORK(&dev->dead_work, mlx5c_ib_dead_work);
}

/**
 * mlx5c_ib_dead_kick() - have the kernel CQs' consumers poll
 * @dev: device in the internal-error state
 */
void mlx5c_ib_dead_kick(struct mlx5c_ib_dev *dev)
{
	schedule_work(&dev->dead_work);
}

/**
 * mlx5c_ib_dead_forget() - a kernel CQ is being destroyed
 * @dev: device
 * @cq: kernel CQ
 *
 * After this the work no longer calls @cq's handler, and a poll work that
 * an earlier call queued (ib_core's workqueue polling) has finished.
 */
void mlx5c_ib_dead_forget(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq)
{
	mutex_lock(&dev->kcq_mutex);
	list_del(&cq->kcq_entry);
	mutex_unlock(&dev->kcq_mutex);
	if (cq->ibcq.poll_ctx == IB_POLL_WORKQUEUE ||
	    cq->ibcq.poll_ctx == IB_POLL_UNBOUND_WORKQUEUE)
		cancel_work_sync(&cq->ibcq.work);
}

/**
 * mlx5c_ib_dead_cleanup() - wait for the work, before the device is freed
 * @dev: device whose kernel CQs are all destroyed
 */
void mlx5c_ib_dead_cleanup(struct mlx5c_ib_dev *dev)
{
	cancel_work_sync(&dev->dead_work);
	mutex_destroy(&dev->kcq_mutex);
}

static void mlx5c_ib_flush_wc(struct mlx5c_ib_qp *qp, u64 wr_id, u8 op,
			      struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->opcode = op;
	wc->status = IB_WC_WR_FLUSH_ERR;
	wc->qp = &qp->ibqp;
}

/**
 * mlx5c_ib_dead_poll() - flush completions for a CQ of a dead device
 * @dev: device
 * @cq: kernel CQ, its lock held
 * @wc: room for completions
 * @num: entries of @wc
 *
 * Return: the completions written: every WQE still outstanding on the send
 * queues and receive queues that report to @cq.
 */
int mlx5c_ib_dead_poll(struct mlx5c_ib_dev *dev, struct mlx5c_ib_cq *cq,
		       struct ib_wc *wc, int num)
{
	struct mlx5c_ib_qp *qp;
	u32 idx, head;
	int n = 0;

	spin_lock(&dev->kqp_lock);
	list_for_each_entry(qp, &dev->kqps, kqp_entry) {
		if (qp->ibqp.send_cq == &cq->ibcq && qp->sq.wqe_cnt) {
			head = READ_ONCE(qp->sq.head);
			/* The WQE bookkeeping was written before the head. */
			smp_rmb();
			while (n < num && qp->sq.tail != head) {
				idx = qp->sq.tail & (qp->sq.wqe_cnt - 1);
				mlx5c_ib_flush_wc(qp, qp->sq.wrid[idx],
						  qp->sq.wc_op[idx], &wc[n++]);
				WRITE_ONCE(qp->sq.tail, qp->sq.next[idx]);
			}
		}
		if (qp->ibqp.recv_cq == &cq->ibcq && qp->rq.wqe_cnt) {
			head = READ_ONCE(qp->rq.head);
			/* The WQE bookkeeping was written before the head. */
			smp_rmb();
			while (n < num && qp->rq.tail != head) {
				idx = qp->rq.tail & (qp->rq.wqe_cnt - 1);
				mlx5c_ib_flush_wc(qp, qp->rq.wrid[idx], IB_WC_RECV,
						  &wc[n++]);
				WRITE_ONCE(qp->rq.tail, qp->rq.tail + 1);
			}
		}
	}
	spin_unlock(&dev->kqp_lock);
	return n;
}
