// SPDX-License-Identifier: GPL-2.0
// Completion events and their moderation: an armed CQ with cq_max_count
// or cq_period set holds its event back (Cq::push) until max_count CQEs
// have come or the period has passed, whichever is first. The period
// starts at the first CQE held (PERIOD_FROM_CQE) or at the CQ's last
// event (PERIOD_FROM_EQE: after a quiet spell longer than the period the
// first CQE fires at once). An arm that finds CQEs software has not
// polled holds them the same way (Cq::arm): the period starts at the arm.
// One engine timer per CQ at most, for at most 2^12 - 1 microseconds.
#include "exec/datapath.h"
#include "prm/cq.h"

namespace mlx5emu {

uint64_t Completer::now_us() const
{
	return static_cast<uint64_t>(
		std::chrono::duration_cast<std::chrono::microseconds>(Engine::Clock::now().time_since_epoch()).count());
}

void Completer::comp_event(Cq &cq)
{
	// A period still running belongs to the CQEs this event reports.
	dp_.stop_timer(&cq.moderation_timer());
	cq.last_event_us() = now_us();
	++dp_.c_.comp_events;
	dp_.events_.completion_event(cq.config().c_eqn, cq.cqn());
}

void Completer::moderation_start(Cq &cq)
{
	const CqConfig &f = cq.config();
	uint64_t wait = f.period;
	if (f.period && f.period_mode == prm::cqc::PERIOD_FROM_EQE) {
		uint64_t since = now_us() - cq.last_event_us();
		wait = since >= f.period ? 0 : f.period - since;
		if (!wait) {
			if (cq.moderation_expired())
				comp_event(cq);
			return;
		}
	}
	// No period: only max_count CQEs fire the event.
	if (!wait || cq.moderation_timer())
		return;
	cq.moderation_timer() = dp_.start_timer(wait, cq.cqn(), DataPath::TimerKind::CqModeration);
}

void Completer::moderation_timeout(uint32_t cqn, uint64_t id)
{
	Cq *cq = dp_.res_.cq(cqn);
	if (!cq || cq->moderation_timer() != id)
		return;
	cq->moderation_timer() = 0;
	++dp_.c_.moderation_timeouts;
	if (cq->moderation_expired())
		comp_event(*cq);
}

} // namespace mlx5emu
