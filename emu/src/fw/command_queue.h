// SPDX-License-Identifier: GPL-2.0
// The command engine: a firmware worker thread that takes command-doorbell
// slots, reads entries and mailbox chains from guest memory, executes the
// commands and writes their completions (output, status_own, CMD EQE).
//
// The BAR path only records doorbell bits and wakes the worker; it never
// waits for a command. The worker also runs deferred actions (delayed
// completions and EQEs, control-channel events).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "fw/stats.h"

namespace mlx5emu {

class Firmware;

class CommandEngine {
public:
	using Clock = std::chrono::steady_clock;
	static constexpr unsigned kSlots = 32;
	// Largest inlen/outlen accepted (bigger -> length delivery error):
	// 16 bytes in the entry plus 32768 mailboxes, as the driver's
	// MLX5C_CMD_MAX_MSG_LEN. Enough for the page list of a 1 GiB CQ ring
	// or the 2^20 MTT entries of one CREATE_MKEY in 4 KiB pages.
	static constexpr uint32_t kMaxMsgLen = 16 + 32768u * 512;

	explicit CommandEngine(Firmware &fw);
	~CommandEngine();

	void start();
	void stop();

	// Command doorbell (any thread, non-blocking).
	void ring(uint32_t slot_mask);
	// Run `fn` on the worker at `when` (dropped by reset()).
	void schedule(Clock::time_point when, std::function<void()> fn);
	// While hung the worker completes nothing and runs no deferred action.
	void set_hung(bool hung);
	bool hung() const;
	// Forget pending doorbells and deferred actions.
	void reset();
	// True when no doorbell or deferred action is waiting and the worker
	// is not executing anything (for tests and the control channel).
	bool idle() const;

	struct Counters {
		uint64_t doorbells = 0, commands = 0, delivery_errors = 0;
		uint64_t not_hw_owned = 0, entry_dma_errors = 0, deferred = 0;
	};
	Counters counters() const;

private:
	struct Completion {
		unsigned slot = 0;
		uint64_t entry = 0;
		std::vector<uint8_t> out;
		std::vector<uint64_t> out_blocks;
		uint8_t delivery = 0;
		int cmd_eqn = -1;
		uint64_t cmd_eq_serial = 0;
		// trace
		uint16_t opcode = 0, op_mod = 0;
		uint8_t status = 0;
		uint32_t syndrome = 0, inlen = 0, outlen = 0;
		bool injected = false;
		Clock::time_point rung;
	};
	struct Deferred {
		uint64_t generation;
		std::function<void()> fn;
	};

	void run();
	void process_slot(unsigned slot, Clock::time_point rung);
	uint8_t read_input(const uint8_t *entry, uint32_t inlen, std::vector<uint8_t> *in);
	uint8_t check_output(const uint8_t *entry, uint32_t outlen, std::vector<uint64_t> *blocks);
	void complete(const Completion &c);
	TraceEntry::Eqe plan_cmd_eqe(const Completion &c, uint32_t *delay_ms);
	void post_cmd_eqe(const Completion &c, uint32_t delay_ms);

	Firmware &fw_;
	mutable std::mutex mu_;
	std::condition_variable cv_;
	uint32_t pending_ = 0;
	Clock::time_point rung_[kSlots];
	std::multimap<Clock::time_point, Deferred> deferred_;
	uint64_t generation_ = 0;
	bool stop_ = false;
	bool hung_ = false;
	bool busy_ = false;
	Counters c_;
	std::thread thread_;
};

} // namespace mlx5emu
