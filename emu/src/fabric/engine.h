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
#include <mutex>
#include <thread>
#include <vector>

namespace mlx5emu {

class Engine {
public:
	using Clock = std::chrono::steady_clock;
	using Task = std::function<void()>;
	// A timer's task gets the id post_at() returned (to tell itself from
	// a later timer of the same object).
	using TimerTask = std::function<void(uint64_t id)>;

	Engine();
	~Engine();
	Engine(const Engine &) = delete;
	Engine &operator=(const Engine &) = delete;

	// Any thread. Runs `fn` on the engine thread, after the tasks already
	// queued. A task that posts (the engine thread) takes neither the
	// queue lock nor a wake-up: what it posts runs right after its batch,
	// before the tasks other threads queued while the batch ran.
	void post(Task fn);
	// Runs `fn` at `when`; returns a timer id (never 0) for cancel().
	// `owner` tags it for cancel_owned(). Allocates nothing once the
	// timer pool has grown to the most timers pending at once (and `fn`
	// fits std::function's own storage: two words).
	uint64_t post_at(Clock::time_point when, TimerTask fn, const void *owner = nullptr);
	// Forgets a timer that has not run yet (an id that ran, was
	// cancelled or was never issued: nothing).
	void cancel(uint64_t id);
	// Forgets every pending timer posted with `owner`.
	void cancel_owned(const void *owner);

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
		uint64_t task_exceptions = 0; // tasks that threw (logged, the engine went on)
	};
	Counters counters() const;
	// CPU time the engine thread has used so far (CLOCK_THREAD_CPUTIME_ID
	// of the thread): what the data path costs, whatever the host's load.
	std::chrono::nanoseconds cpu_time() const;

private:
	void run();
	// With q_mu_ held, after a batch or a timer: local_ in front of tasks_.
	void take_local();
	template <class Fn> void run_task(Fn &&fn) noexcept;

	static constexpr size_t kTaskRoom = 256;
	// Timers pending at once before the pool grows: a few per QP that
	// waits for an ACK or RNR, and per CQ that holds an event back.
	static constexpr size_t kTimerRoom = 64;

	mutable std::mutex q_mu_;
	mutable std::condition_variable cv_;
	mutable std::condition_variable idle_cv_;
	// Queued tasks; run() swaps it with its batch: both vectors keep
	// their capacity, so queueing allocates nothing once warm.
	std::vector<Task> tasks_;
	// Tasks the engine thread posted while its batch or timer ran (engine
	// thread only, no lock); put in front of tasks_ when the batch ends.
	std::vector<Task> local_;
	// Timers: a pool of slots (an id is the slot's generation and index,
	// so a stale id names nothing) and a binary min-heap of deadlines.
	// cancel() frees the slot and leaves its heap entry, which run()
	// drops when it surfaces, or post_at() when the heap is full. All
	// three vectors keep their capacity.
	struct TimerSlot {
		TimerTask fn;
		const void *owner = nullptr;
		uint32_t gen = 0;
		bool live = false;
	};
	struct Deadline {
		Clock::time_point when;
		uint32_t slot, gen;
		// std::push_heap keeps the greatest first: the latest compares less.
		bool operator<(const Deadline &o) const { return when > o.when; }
	};
	bool stale(const Deadline &d) const { return !slots_[d.slot].live || slots_[d.slot].gen != d.gen; }
	// A timer's id: its slot's generation and index (+1: an id is never 0).
	static uint64_t timer_id(uint32_t slot, uint32_t gen) { return static_cast<uint64_t>(gen) << 32 | (slot + 1u); }
	void free_slot(uint32_t slot);
	void drop_stale_deadlines();

	std::vector<TimerSlot> slots_;
	std::vector<uint32_t> free_slots_;
	std::vector<Deadline> deadlines_;
	size_t timers_live_ = 0;
	bool stop_ = false;
	bool busy_ = false;
	Counters c_;
	std::mutex state_mu_;
	std::thread thread_;
};

} // namespace mlx5emu
