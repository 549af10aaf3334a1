// SPDX-License-Identifier: GPL-2.0
#include "queues/cq.h"

#include <atomic>

#include "dma/guest_memory.h"
#include "prm/bits.h"
#include "prm/cq.h"

namespace mlx5emu {

namespace {
constexpr uint32_t kMask24 = 0xffffff;
// Signed distance a - b of 24-bit counters.
int32_t diff24(uint32_t a, uint32_t b) { return static_cast<int32_t>((a - b) << 8) >> 8; }
} // namespace

uint32_t Cq::read_consumer(GuestMemory &mem)
{
	uint8_t b[4];
	if (cfg_.dbr_addr && mem.read(cfg_.dbr_addr, b, sizeof b))
		consumer_ = bits::load_be32(b) & kMask24;
	return consumer_;
}

bool Cq::write_entry(GuestMemory &mem, const uint8_t *cqe)
{
	uint32_t nent = cfg_.nent();
	uint64_t off = static_cast<uint64_t>(producer_ & (nent - 1)) * cfg_.stride() + (cfg_.stride() - 64);
	uint8_t buf[prm::cqe::kSize];
	std::copy(cqe, cqe + prm::cqe::kSize, buf);
	uint8_t owner = static_cast<uint8_t>((producer_ >> cfg_.log_size) & 1);
	buf[prm::cqe::kOpOwn] = static_cast<uint8_t>((buf[prm::cqe::kOpOwn] & ~1u) | owner);
	// Body first, then op_own: software never sees a valid owner with a
	// stale body.
	bool ok = cfg_.buf.write(mem, off, buf, prm::cqe::kOpOwn);
	std::atomic_thread_fence(std::memory_order_release);
	ok = ok && cfg_.buf.write(mem, off + prm::cqe::kOpOwn, &buf[prm::cqe::kOpOwn], 1);
	if (ok)
		++producer_;
	return ok;
}

Cq::Resize Cq::resize(GuestMemory &mem, uint8_t log_size, uint8_t cqe_sz, PageList buf)
{
	if (overrun_)
		return Resize::Error;
	uint32_t present = (producer_ - read_consumer(mem)) & kMask24;
	// The resize CQE needs a free entry of the old buffer; the CQEs
	// software has not polled must fit the new one.
	if (present >= cfg_.nent())
		return Resize::Full;
	if (present > (1u << log_size))
		return Resize::TooSmall;
	uint8_t cqe[prm::cqe::kSize] = {};
	cqe[prm::cqe::kOpOwn] = static_cast<uint8_t>(prm::cqe_opcode::RESIZE_CQ << 4);
	if (!write_entry(mem, cqe))
		return Resize::Error;
	++c_.resizes;
	cfg_.log_size = log_size;
	cfg_.cqe_sz = cqe_sz;
	cfg_.buf = std::move(buf);
	return Resize::Ok;
}

Cq::Push Cq::push(GuestMemory &mem, const uint8_t *cqe, bool solicited)
{
	Push r;
	if (overrun_) {
		r.dropped = true;
		++c_.dropped;
		return r;
	}
	uint32_t nent = cfg_.nent();
	if (!cfg_.oi && ((producer_ - consumer_) & kMask24) >= nent &&
	    ((producer_ - read_consumer(mem)) & kMask24) >= nent) {
		overrun_ = true;
		r.overrun = r.dropped = true;
		++c_.overruns;
		++c_.dropped;
		return r;
	}

	if (!write_entry(mem, cqe)) {
		r.dropped = true;
		++c_.dropped;
		return r;
	}
	++c_.cqes;
	r.written = true;
	if (solicited) {
		has_solicited_ = true;
		last_solicited_ = producer_;
	}
	if (arm_ == Arm::All || (arm_ == Arm::Solicited && solicited)) {
		if (!cfg_.moderated()) {
			fire(&r);
		} else if (++held_, cfg_.max_count && held_ >= cfg_.max_count) {
			++c_.moderated_events;
			fire(&r);
		} else {
			r.hold_started = held_ == 1;
		}
	}
	return r;
}

void Cq::fire(Push *r)
{
	arm_ = Arm::None;
	last_notified_ = producer_;
	held_ = 0;
	r->notify = true;
	++c_.events;
}

bool Cq::moderation_expired()
{
	if (!held_ || arm_ == Arm::None)
		return false;
	Push r;
	fire(&r);
	++c_.moderated_events;
	return true;
}

bool Cq::arm(uint32_t dw0)
{
	namespace db = prm::cq_doorbell;
	uint32_t ci = dw0 & db::kCiMask;
	bool sol = (dw0 & db::kCmdMask) == db::kCmdReqNotSol;
	++c_.arms;
	consumer_ = ci;
	if (overrun_)
		return false;
	// An arm fires at once only for CQEs that are beyond ci and came
	// after the last event (last_notified_index): a CQE software was
	// told about already, but has not polled, wakes nobody again. An
	// arm between the event and the poll (ibv_get_cq_event, then
	// ibv_req_notify_cq, then ibv_poll_cq, as perftest's latency tests
	// do) would otherwise post a second event for the same CQE, and the
	// next event the program waits for would come before its CQE.
	uint32_t unpolled = (producer_ - ci) & kMask24;
	uint32_t unnotified = (producer_ - last_notified_) & kMask24;
	uint32_t fresh = unpolled < unnotified ? unpolled : unnotified;
	bool pending = sol ? has_solicited_ && diff24(last_solicited_ - 1, ci) >= 0 &&
				     diff24(last_solicited_ - 1, last_notified_) >= 0
			   : fresh != 0;
	arm_ = sol ? Arm::Solicited : Arm::All;
	held_ = 0;
	if (!pending)
		return false;
	Push r;
	if (!cfg_.moderated()) {
		fire(&r);
		return true;
	}
	// Moderated: those CQEs (unpolled, after the last event) count as
	// held, as if they had come after the arm. They often did: the arm
	// is a posted write and may reach us after a doorbell the guest
	// wrote later to another function, whose packets already completed
	// here.
	held_ = fresh;
	if (cfg_.max_count && held_ >= cfg_.max_count) {
		++c_.moderated_events;
		fire(&r);
		return true;
	}
	return false;
}

} // namespace mlx5emu
