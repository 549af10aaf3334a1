// SPDX-License-Identifier: GPL-2.0
#include "fabric/engine.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <pthread.h>
#include <time.h>

namespace mlx5emu {

Engine::Engine()
{
	// Room for the tasks of a busy moment, so that queueing rarely
	// grows the vector (run() swaps it with its batch, which gets the
	// same room).
	tasks_.reserve(kTaskRoom);
	local_.reserve(kTaskRoom);
	slots_.reserve(kTimerRoom);
	free_slots_.reserve(kTimerRoom);
	deadlines_.reserve(kTimerRoom);
	thread_ = std::thread([this] { run(); });
}

Engine::~Engine()
{
	{
		std::lock_guard<std::mutex> lk(q_mu_);
		stop_ = true;
	}
	cv_.notify_all();
	thread_.join();
}

void Engine::post(Task fn)
{
	// thread_ is set before any task runs, and never changes after.
	if (std::this_thread::get_id() == thread_.get_id()) {
		local_.push_back(std::move(fn));
		return;
	}
	{
		std::lock_guard<std::mutex> lk(q_mu_);
		tasks_.push_back(std::move(fn));
	}
	cv_.notify_one();
}

uint64_t Engine::post_at(Clock::time_point when, TimerTask fn, const void *owner)
{
	uint64_t id;
	{
		std::lock_guard<std::mutex> lk(q_mu_);
		uint32_t slot;
		if (!free_slots_.empty()) {
			slot = free_slots_.back();
			free_slots_.pop_back();
		} else {
			slot = static_cast<uint32_t>(slots_.size());
			slots_.emplace_back();
		}
		TimerSlot &t = slots_[slot];
		t.fn = std::move(fn);
		t.owner = owner;
		t.live = true;
		// Cancelled deadlines stay in the heap until they surface:
		// make room by dropping them before the heap would grow (a
		// far timer cancelled and started over and over).
		if (deadlines_.size() == deadlines_.capacity() && deadlines_.size() > timers_live_)
			drop_stale_deadlines();
		deadlines_.push_back(Deadline{when, slot, t.gen});
		std::push_heap(deadlines_.begin(), deadlines_.end());
		++timers_live_;
		id = timer_id(slot, t.gen);
	}
	cv_.notify_one();
	return id;
}

// With q_mu_ held.
void Engine::free_slot(uint32_t slot)
{
	TimerSlot &t = slots_[slot];
	t.fn = nullptr;
	t.owner = nullptr;
	t.live = false;
	++t.gen;
	free_slots_.push_back(slot);
	--timers_live_;
}

// With q_mu_ held: rebuilds the heap of the live deadlines, in place.
void Engine::drop_stale_deadlines()
{
	std::erase_if(deadlines_, [this](const Deadline &d) { return stale(d); });
	std::make_heap(deadlines_.begin(), deadlines_.end());
}

void Engine::cancel(uint64_t id)
{
	std::lock_guard<std::mutex> lk(q_mu_);
	uint64_t index = id & 0xffffffffu;
	if (!index || index > slots_.size())
		return;
	auto slot = static_cast<uint32_t>(index - 1);
	if (!slots_[slot].live || slots_[slot].gen != id >> 32)
		return;
	free_slot(slot);
	++c_.timers_cancelled;
}

void Engine::cancel_owned(const void *owner)
{
	std::lock_guard<std::mutex> lk(q_mu_);
	for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
		if (slots_[slot].live && slots_[slot].owner == owner) {
			free_slot(slot);
			++c_.timers_cancelled;
		}
	}
	drop_stale_deadlines();
}

bool Engine::idle() const
{
	std::lock_guard<std::mutex> lk(q_mu_);
	return tasks_.empty() && !busy_;
}

bool Engine::wait_idle(std::chrono::milliseconds timeout) const
{
	std::unique_lock<std::mutex> lk(q_mu_);
	return idle_cv_.wait_for(lk, timeout, [this] { return tasks_.empty() && !busy_; });
}

size_t Engine::timers_pending() const
{
	std::lock_guard<std::mutex> lk(q_mu_);
	return timers_live_;
}

Engine::Counters Engine::counters() const
{
	std::lock_guard<std::mutex> lk(q_mu_);
	return c_;
}

std::chrono::nanoseconds Engine::cpu_time() const
{
	clockid_t id;
	struct timespec ts;
	if (pthread_getcpuclockid(const_cast<std::thread &>(thread_).native_handle(), &id) || clock_gettime(id, &ts))
		return std::chrono::nanoseconds(0);
	return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// The last line of defence: a task that throws (the data path guards its
// own tasks, exec/datapath.h guarded()) is counted and logged, and the
// engine goes on with the next one. Engine thread, state lock held.
template <class Fn> void Engine::run_task(Fn &&fn) noexcept
{
	try {
		fn();
	} catch (...) {
		const char *what = "unknown exception";
		try {
			throw;
		} catch (const std::exception &e) {
			what = e.what();
		} catch (...) {
		}
		std::fprintf(stderr, "mlx5-emu: engine task threw (%s); going on\n", what);
		std::lock_guard<std::mutex> lk(q_mu_);
		++c_.task_exceptions;
	}
}

void Engine::take_local()
{
	if (local_.empty())
		return;
	// They were posted before the batch ended; the others' tasks,
	// queued meanwhile, may as well have come after it. Both vectors
	// keep their capacity.
	for (Task &t : tasks_)
		local_.push_back(std::move(t));
	tasks_.clear();
	tasks_.swap(local_);
}

void Engine::run()
{
	std::unique_lock<std::mutex> lk(q_mu_);
	std::vector<Task> batch;
	batch.reserve(kTaskRoom);
	TimerTask timer;
	uint64_t fired = 0;
	for (;;) {
		if (stop_)
			return;
		while (!deadlines_.empty() && stale(deadlines_.front())) {
			std::pop_heap(deadlines_.begin(), deadlines_.end());
			deadlines_.pop_back();
		}
		auto now = Clock::now();
		if (!tasks_.empty()) {
			// Every task queued now, under one take of each lock
			// (tasks they queue run in the next batch, in order).
			batch.swap(tasks_);
			c_.tasks += batch.size();
			busy_ = true;
			lk.unlock();
			{
				std::lock_guard<std::mutex> st(state_mu_);
				// Each task is released once it has run,
				// as it would be popped from a queue.
				for (Task &task : batch) {
					run_task(task);
					task = nullptr;
				}
			}
			batch.clear();
			lk.lock();
			take_local();
			busy_ = false;
			continue;
		} else if (!deadlines_.empty() && deadlines_.front().when <= now) {
			const Deadline d = deadlines_.front();
			std::pop_heap(deadlines_.begin(), deadlines_.end());
			deadlines_.pop_back();
			timer = std::move(slots_[d.slot].fn);
			fired = timer_id(d.slot, d.gen);
			free_slot(d.slot);
			++c_.timers_fired;
		} else {
			idle_cv_.notify_all();
			++c_.wakeups;
			if (deadlines_.empty())
				cv_.wait(lk);
			else {
				// A copy: wait_until reads the deadline again after
				// waking, and post_at() may move the heap meanwhile.
				const Clock::time_point when = deadlines_.front().when;
				cv_.wait_until(lk, when);
			}
			continue;
		}
		busy_ = true;
		lk.unlock();
		{
			std::lock_guard<std::mutex> st(state_mu_);
			run_task([&] { timer(fired); });
		}
		timer = nullptr;
		lk.lock();
		take_local();
		busy_ = false;
	}
}

} // namespace mlx5emu
