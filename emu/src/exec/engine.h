// SPDX-License-Identifier: GPL-2.0
// The data-path engine: one thread that runs every data-path task of the
// HCAs on a fabric (doorbells, packet deliveries, retransmission and RNR
// timers) in order, holding the state lock while a task runs: the tasks
// queued when it looks run as one batch under one take of the lock.
//
// The BAR path only queues tasks (a short queue lock, never the state
// lock). Commands that change data-path objects take the state lock.
// When idle the thread sleeps on a condition variable: it never spins.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mlx5emu {

class Engine {
public:
	using Clock = std::chrono::steady_clock;
	using Task = std::function<void()>;

	Engine();
	~Engine();
	Engine(const Engine &) = delete;
	Engine &operator=(const Engine &) = delete;

	// Any thread. Runs `fn` on the engine thread, after the tasks already
	// queued.
	void post(Task fn);
	// Runs `fn` at `when`; returns a timer id (never 0) for cancel().
	uint64_t post_at(Clock::time_point when, Task fn);
	// Forgets a timer that has not run yet.
	void cancel(uint64_t id);

	// Held by the engine while a task runs; commands take it to change
	// data-path objects.
	std::mutex &state_mutex() { return state_mu_; }

	// True when no task is queued or running (timers may be pending).
	bool idle() const;
	// Waits until idle() (tests); false on timeout.
	bool wait_idle(std::chrono::milliseconds timeout) const;

	// Timers started and neither run nor cancelled yet.
	size_t timers_pending() const;

	struct Counters {
		uint64_t tasks = 0, timers_fired = 0, timers_cancelled = 0, wakeups = 0;
	};
	Counters counters() const;
	// CPU time the engine thread has used so far (CLOCK_THREAD_CPUTIME_ID
	// of the thread): what the data path costs, whatever the host's load.
	std::chrono::nanoseconds cpu_time() const;

private:
	void run();

	static constexpr size_t kTaskRoom = 256;

	mutable std::mutex q_mu_;
	mutable std::condition_variable cv_;
	mutable std::condition_variable idle_cv_;
	// Queued tasks; run() swaps it with its batch: both vectors keep
	// their capacity, so queueing allocates nothing once warm.
	std::vector<Task> tasks_;
	std::multimap<Clock::time_point, uint64_t> timer_order_;
	std::unordered_map<uint64_t, std::pair<Clock::time_point, Task>> timers_;
	uint64_t next_timer_ = 1;
	bool stop_ = false;
	bool busy_ = false;
	Counters c_;
	std::mutex state_mu_;
	std::thread thread_;
};

} // namespace mlx5emu
