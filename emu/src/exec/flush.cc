// SPDX-License-Identifier: GPL-2.0
// Errors and flushes: a QP entering the error state completes every
// outstanding send and receive WQE with a flush error (and keeps doing so
// for WQEs posted later); a UD send error stops only the send queue.
#include "exec/datapath.h"
#include "prm/cq.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {
constexpr uint64_t kFlushPollUsec = 10000; // RQ doorbell records have no MMIO doorbell
}

void Completer::flush_wr(Qp &qp, const SendWr &wr, uint8_t syndrome)
{
	++qp.ctr.flushed;
	complete_send_error(qp, wr, syndrome);
}

void Completer::flush_sq(Qp &qp)
{
	Requester &r = qp.req;
	for (const SendWr &wr : r.wrs)
		flush_wr(qp, wr, prm::cqe_syndrome::WR_FLUSH);
	r.wrs.clear();
	r.rd_atomic_outstanding = 0;
	SendWr wr;
	DataPath::UdAddress av;
	uint8_t s;
	while (dp_.take_send_wqe(qp, &wr, &av, &s))
		flush_wr(qp, wr, prm::cqe_syndrome::WR_FLUSH);
}

void Completer::enter_sq_error(Qp &qp)
{
	qp.state = prm::qp_state::SQER;
	flush_sq(qp);
}

void Completer::enter_error(Qp &qp)
{
	qp.state = prm::qp_state::ERR;
	dp_.requester_.rc_timer_stop(qp);
	dp_.stop_timer(&qp.req.rnr_timer);
	qp.req.rnr_wait = false;
	flush_sq(qp);
	dp_.responder_.flush_rq(qp);
	if (qp.cfg.rq_type == prm::rq_type::SRQ)
		dp_.post_qp_event(prm::async_event::SRQ_LAST_WQE, qp.qpn);
	if (qp.cfg.has_rq() && !qp.flush_timer)
		qp.flush_timer = dp_.start_timer(kFlushPollUsec, qp.qpn, DataPath::TimerKind::FlushPoll);
}

void Completer::flush_poll(uint32_t qpn, uint64_t id)
{
	Qp *qp = dp_.res_.qp(qpn);
	if (!qp || qp->flush_timer != id)
		return;
	qp->flush_timer = 0;
	if (qp->state != prm::qp_state::ERR)
		return;
	dp_.responder_.flush_rq(*qp);
	qp->flush_timer = dp_.start_timer(kFlushPollUsec, qpn, DataPath::TimerKind::FlushPoll);
}

} // namespace mlx5emu
