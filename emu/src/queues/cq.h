// SPDX-License-Identifier: GPL-2.0
// Completion queues: the CQE writer (owner parity, 64/128-byte entries),
// overrun detection against the consumer index in the doorbell record, the
// arm state (REQ_NOT, REQ_NOT_SOL: one event per arm), event moderation
// (cq_max_count CQEs or cq_period microseconds) and resizing.
#pragma once

#include <cstdint>

#include "queues/page_list.h"

namespace mlx5emu {

class GuestMemory;

struct CqConfig {
	uint8_t log_size = 0;
	uint8_t cqe_sz = 0; // prm::cqc::CQE_SZ_*
	uint32_t uar_page = 0;
	uint32_t c_eqn = 0;
	uint64_t dbr_addr = 0;
	bool oi = false;
	uint16_t period = 0, max_count = 0; // moderation: microseconds, CQEs
	uint8_t period_mode = 0;            // prm::cqc::PERIOD_FROM_*
	PageList buf;

	uint32_t nent() const { return 1u << log_size; }
	uint32_t stride() const { return cqe_sz == 0 ? 64u : 128u; }
	// An event waits for max_count CQEs or the period (0 and 1 CQE
	// with no period: at once).
	bool moderated() const { return period || max_count > 1; }
};

class Cq {
public:
	enum class Arm : uint8_t { None, All, Solicited };
	struct Push {
		bool written = false;
		bool overrun = false; // the CQ just overflowed (report CQ_ERROR)
		bool dropped = false; // not written: CQ in error or DMA failure
		bool notify = false;  // post a completion event to c_eqn
		// Moderation holds the event back: the first CQE held starts
		// the period (the caller's timer, then moderation_expired()).
		bool hold_started = false;
	};

	Cq(uint32_t cqn, const CqConfig &cfg) : cqn_(cqn), cfg_(cfg) {}

	// Writes `cqe` (64 bytes, op_own opcode set, owner bit filled in here)
	// at the producer index. `solicited` marks solicited and error CQEs.
	Push push(GuestMemory &mem, const uint8_t *cqe, bool solicited);
	// The arm doorbell: dword0 = sn << 28 | cmd | ci. True when an event
	// must be posted at once (CQEs beyond ci that came after the last
	// event already exist: last_notified_index). On a
	// moderated CQ those CQEs are held instead (held() > 0: the caller
	// starts the period) until max_count is reached.
	bool arm(uint32_t dw0);
	// The moderation period ended: true when the held event is due now
	// (the CQ is still armed and CQEs are held).
	bool moderation_expired();
	uint32_t held() const { return held_; }
	// When the last completion event was posted (microseconds of the
	// engine's clock): the period of mode PERIOD_FROM_EQE starts there.
	uint64_t &last_event_us() { return last_event_us_; }
	// The engine timer of the moderation period (exec/), 0 when none.
	uint64_t &moderation_timer() { return mod_timer_; }
	// The last arm word (dword0) a doorbell applied, kNeverArmed before
	// the first: a polled page's sweep (exec/doorbell_sweep.cc) compares
	// the arm doorbell record with it.
	static constexpr uint32_t kNeverArmed = ~0u;
	// What CREATE_CQ writes into the arm record of a CQ on a polled page:
	// no arm word has bits 31:30 set.
	static constexpr uint32_t kUntouchedArmRecord = ~0u;
	uint32_t &last_arm_word() { return last_arm_word_; }

	// Reads the consumer index from the doorbell record.
	uint32_t read_consumer(GuestMemory &mem);

	// MODIFY_CQ resize: a RESIZE_CQ CQE goes into the old buffer at the
	// producer index (software finds it after the CQEs it has not
	// polled, copies those, and counts the resize CQE as consumed); the
	// next CQE goes into `buf` (2^log_size entries of `cqe_sz`) at the
	// next producer index, owner bits by the new size.
	enum class Resize { Ok, TooSmall, Full, Error };
	Resize resize(GuestMemory &mem, uint8_t log_size, uint8_t cqe_sz, PageList buf);

	uint32_t cqn() const { return cqn_; }
	const CqConfig &config() const { return cfg_; }
	CqConfig &config() { return cfg_; }
	uint32_t producer() const { return producer_; }
	uint32_t consumer() const { return consumer_; }
	Arm arm_state() const { return arm_; }
	bool overrun() const { return overrun_; }
	uint32_t last_notified() const { return last_notified_; }
	uint32_t last_solicited() const { return last_solicited_; }

	struct Counters {
		uint64_t cqes = 0, events = 0, arms = 0, overruns = 0, dropped = 0, resizes = 0;
		uint64_t moderated_events = 0; // fired by the count or the period
	};
	const Counters &counters() const { return c_; }

private:
	// Writes a CQE at the producer index (owner bit by the current size)
	// and moves the producer on; false on a DMA failure.
	bool write_entry(GuestMemory &mem, const uint8_t *cqe);
	// The completion event is posted: disarmed until the next arm.
	void fire(Push *r);

	uint32_t cqn_;
	CqConfig cfg_;
	uint32_t producer_ = 0; // CQEs written (full counter)
	uint32_t consumer_ = 0; // last known consumer index (24 bits)
	Arm arm_ = Arm::None;
	bool has_solicited_ = false;
	uint32_t last_solicited_ = 0; // producer value after the last solicited CQE
	uint32_t last_notified_ = 0;
	bool overrun_ = false;
	uint32_t held_ = 0;     // CQEs whose event moderation holds back
	uint64_t mod_timer_ = 0;
	uint64_t last_event_us_ = 0;
	uint32_t last_arm_word_ = kNeverArmed;
	Counters c_;
};

} // namespace mlx5emu
