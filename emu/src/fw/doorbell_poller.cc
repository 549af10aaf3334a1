// SPDX-License-Identifier: GPL-2.0
#include "fw/doorbell_poller.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>

#include <chrono>

#include "fw/firmware.h"

namespace mlx5emu {

namespace {
inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}
} // namespace

void DoorbellPoller::start()
{
	if (thread_.joinable())
		return;
	stop_ = false;
	thread_ = std::thread([this] { run(); });
}

void DoorbellPoller::stop()
{
	stop_ = true;
	if (thread_.joinable())
		thread_.join();
}

uint64_t DoorbellPoller::cpu_us() const
{
	if (!has_clock_.load())
		return final_cpu_us_.load();
	timespec ts{};
	if (clock_gettime(static_cast<clockid_t>(clock_id_.load()), &ts) != 0)
		return 0;
	return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

void DoorbellPoller::run()
{
	pthread_setname_np(pthread_self(), "db-poller");
	// Sleeps of tens of microseconds, not the default 50 us of slack.
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	clockid_t cid;
	if (pthread_getcpuclockid(pthread_self(), &cid) == 0) {
		clock_id_ = static_cast<uint64_t>(cid);
		has_clock_ = true;
	}
	using clock = std::chrono::steady_clock;
	auto last = clock::now();
	unsigned sleep_us = 0;
	while (!stop_.load(std::memory_order_relaxed)) {
		unsigned n = 0;
		for (Firmware *fw : fws_)
			n += fw->poll_doorbells();
		++c_.scans;
		auto now = clock::now();
		if (n) {
			c_.doorbells += n;
			last = now;
			sleep_us = 0;
			continue;
		}
		if (now - last < std::chrono::microseconds(o_.spin_us)) {
			cpu_relax();
			continue;
		}
		sleep_us = sleep_us ? std::min(sleep_us * 2, o_.max_sleep_us) : o_.min_sleep_us;
		++c_.sleeps;
		timespec ts{0, static_cast<long>(sleep_us) * 1000};
		nanosleep(&ts, nullptr);
	}
	// A doorbell written before stop() may have come during a sleep.
	for (Firmware *fw : fws_)
		c_.doorbells += fw->poll_doorbells();
	final_cpu_us_ = cpu_us();
	has_clock_ = false; // the clock goes with the thread
}

} // namespace mlx5emu
