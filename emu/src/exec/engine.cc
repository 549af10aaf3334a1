// SPDX-License-Identifier: GPL-2.0
#include "exec/engine.h"

#include <pthread.h>
#include <time.h>

namespace mlx5emu {

Engine::Engine()
{
	// Room for the tasks of a busy moment, so that queueing rarely
	// grows the vector (run() swaps it with its batch, which gets the
	// same room).
	tasks_.reserve(kTaskRoom);
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
	{
		std::lock_guard<std::mutex> lk(q_mu_);
		tasks_.push_back(std::move(fn));
	}
	cv_.notify_one();
}

uint64_t Engine::post_at(Clock::time_point when, Task fn)
{
	uint64_t id;
	{
		std::lock_guard<std::mutex> lk(q_mu_);
		id = next_timer_++;
		timers_.emplace(id, std::make_pair(when, std::move(fn)));
		timer_order_.emplace(when, id);
	}
	cv_.notify_one();
	return id;
}

void Engine::cancel(uint64_t id)
{
	std::lock_guard<std::mutex> lk(q_mu_);
	auto it = timers_.find(id);
	if (it == timers_.end())
		return;
	auto range = timer_order_.equal_range(it->second.first);
	for (auto o = range.first; o != range.second; ++o) {
		if (o->second == id) {
			timer_order_.erase(o);
			break;
		}
	}
	timers_.erase(it);
	++c_.timers_cancelled;
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
	return timers_.size();
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

void Engine::run()
{
	std::unique_lock<std::mutex> lk(q_mu_);
	std::vector<Task> batch;
	batch.reserve(kTaskRoom);
	for (;;) {
		if (stop_)
			return;
		Task t;
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
					task();
					task = nullptr;
				}
			}
			batch.clear();
			lk.lock();
			busy_ = false;
			continue;
		} else if (!timer_order_.empty() && timer_order_.begin()->first <= now) {
			uint64_t id = timer_order_.begin()->second;
			timer_order_.erase(timer_order_.begin());
			auto it = timers_.find(id);
			t = std::move(it->second.second);
			timers_.erase(it);
			++c_.timers_fired;
		} else {
			idle_cv_.notify_all();
			++c_.wakeups;
			if (timer_order_.empty())
				cv_.wait(lk);
			else {
				// A copy: wait_until reads the deadline again after
				// waking, and cancel() may free the timer meanwhile.
				const Clock::time_point when = timer_order_.begin()->first;
				cv_.wait_until(lk, when);
			}
			continue;
		}
		busy_ = true;
		lk.unlock();
		{
			std::lock_guard<std::mutex> st(state_mu_);
			t();
		}
		lk.lock();
		busy_ = false;
	}
}

} // namespace mlx5emu
