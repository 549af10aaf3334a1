// SPDX-License-Identifier: GPL-2.0
// Waiting in tests: poll a condition (no sleeping) up to a deadline.
#pragma once

#include <chrono>
#include <thread>

namespace mlx5emu::test {

// Polls `done` until it holds (true) or `timeout` passed (false).
template <class F>
bool poll_for(F done, std::chrono::milliseconds timeout = std::chrono::seconds(5))
{
	auto end = std::chrono::steady_clock::now() + timeout;
	while (!done()) {
		if (std::chrono::steady_clock::now() > end)
			return false;
		std::this_thread::yield();
	}
	return true;
}

} // namespace mlx5emu::test
