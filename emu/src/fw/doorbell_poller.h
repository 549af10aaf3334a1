// SPDX-License-Identifier: GPL-2.0
// The thread that finds doorbells in the polled UAR pages of every HCA of
// the process (fw/doorbell_pages.h), with an adaptive back-off: it scans
// without sleeping while doorbells come, for `spin_us` after the last one,
// then sleeps between scans, the sleep doubling from `min_sleep_us` up to
// `max_sleep_us`. An idle guest therefore costs one scan per
// max_sleep_us; a busy one sees its doorbells within a scan.
//
// Threads: its own. add() before start().
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace mlx5emu {

class Firmware;

class DoorbellPoller {
public:
	struct Options {
		unsigned spin_us = 200;
		unsigned min_sleep_us = 10;
		unsigned max_sleep_us = 1000;
	};
	DoorbellPoller() : DoorbellPoller(Options{}) {}
	explicit DoorbellPoller(const Options &o) : o_(o) {}
	~DoorbellPoller() { stop(); }
	DoorbellPoller(const DoorbellPoller &) = delete;
	DoorbellPoller &operator=(const DoorbellPoller &) = delete;

	void add(Firmware *fw) { fws_.push_back(fw); }
	void start();
	// Ends the thread after one last scan: every doorbell written before
	// the call is found (its task queued on the engine).
	void stop();

	struct Counters {
		std::atomic<uint64_t> scans{0}, sleeps{0}, doorbells{0};
	};
	const Counters &counters() const { return c_; }
	// CPU time the thread used so far, in microseconds (0 if unknown).
	uint64_t cpu_us() const;

private:
	void run();

	Options o_;
	std::vector<Firmware *> fws_;
	std::thread thread_;
	std::atomic<bool> stop_{false};
	std::atomic<uint64_t> clock_id_{0};
	std::atomic<bool> has_clock_{false};
	std::atomic<uint64_t> final_cpu_us_{0};
	Counters c_;
};

} // namespace mlx5emu
