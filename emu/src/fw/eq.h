// SPDX-License-Identifier: GPL-2.0
// Event queues: context, EQE writer with owner parity, arm/fire state,
// doorbells and overrun detection.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mlx5emu {

class GuestMemory;
class InterruptSink;

struct EqContext {
	uint8_t log_size = 0;
	uint32_t uar_page = 0;
	uint16_t intr = 0;
	uint8_t log_page_size = 0; // page = 4 KiB << log_page_size
	uint8_t page_offset = 0;   // in 64-byte units
	bool oi = false;           // overrun ignore
	bool ec = false;
	uint8_t st = 0; // initial state from the context
	std::array<uint64_t, 4> event_mask{};
	std::vector<uint64_t> pas;

	bool wants(uint8_t type) const { return (event_mask[type / 64] >> (type % 64)) & 1; }
	uint32_t nent() const { return 1u << log_size; }
	// Number of buffer pages the context needs.
	size_t pages_needed() const;
};

struct EqSnapshot {
	uint8_t eqn = 0;
	EqContext ctx;
	uint32_t producer = 0; // EQEs written, full counter
	uint32_t consumer = 0; // last CI from a doorbell (24 bits)
	bool armed = false;
	bool overrun = false;
	uint64_t eqes = 0;
	uint64_t irqs = 0;
	uint64_t dropped = 0;
};

class EqTable {
public:
	EqTable(GuestMemory &mem, InterruptSink &irq);

	void set_max_eqs(unsigned n) { max_eqs_ = n; }

	// Commands. Return 0 or a command status (with *reason for the
	// syndrome).
	uint8_t create(const EqContext &ctx, uint8_t *eqn, uint32_t *reason);
	bool destroy(uint8_t eqn);
	bool query(uint8_t eqn, EqSnapshot *out) const;
	std::vector<EqSnapshot> list() const;
	size_t count() const;
	void clear();

	// Lowest-numbered EQ whose event mask includes `type`, or -1.
	int find_for_event(uint8_t type) const;
	// Whether some EQ takes `type` (find_for_event() >= 0), without the
	// table's lock: for the data path's per-packet questions.
	bool wants(uint8_t type) const;
	// The EQ's creation serial number (0 if it does not exist); lets a
	// caller notice that an EQ was destroyed and re-created.
	uint64_t serial(uint8_t eqn) const;

	enum class Post { Written, NoEq, Overrun, DmaError };
	// Write one EQE (the owner bit is filled in) and interrupt if armed.
	Post post(uint8_t eqn, const uint8_t *eqe64);

	// UAR doorbell at +0x40 (arm) or +0x48 (update CI only). Dropped
	// and counted (bad_doorbells, uar_mismatch) for an EQ that does not
	// exist or whose context names another UAR page.
	void doorbell(uint32_t uar_index, uint32_t value, bool arm);

	struct Counters {
		uint64_t eqes = 0, irqs = 0, overruns = 0, dropped_overrun = 0;
		uint64_t arm_doorbells = 0, ci_doorbells = 0; // honoured
		uint64_t bad_doorbells = 0; // no such EQ
		uint64_t uar_mismatch = 0;  // not through the EQ's UAR page
		uint64_t dma_errors = 0;
	};
	Counters counters() const;

private:
	struct Eq {
		EqContext ctx;
		uint64_t serial = 0;
		uint32_t producer = 0;
		uint32_t consumer = 0;
		bool armed = false;
		bool overrun = false;
		uint64_t eqes = 0, irqs = 0, dropped = 0;
	};
	static uint64_t entry_addr(const EqContext &c, uint32_t index);
	EqSnapshot snap(uint8_t eqn, const Eq &eq) const;
	// mu_ held: wanted_ from every EQ's event mask.
	void update_wanted();

	GuestMemory &mem_;
	InterruptSink &irq_;
	unsigned max_eqs_ = 64;
	uint64_t next_serial_ = 1;

	std::mutex post_mu_; // serialises EQE writers; never held by doorbells
	mutable std::mutex mu_;
	std::map<uint8_t, Eq> eqs_;
	// The event types some EQ takes (the union of their masks): read
	// without mu_ on the data path, which asks per packet (wants()).
	std::array<std::atomic<uint64_t>, 4> wanted_{};
	Counters c_;
};

} // namespace mlx5emu
