// SPDX-License-Identifier: GPL-2.0
// Waiting in tests: poll a condition (no sleeping) up to a deadline.
#pragma once

#include <chrono>
#include <thread>

namespace mlx5emu::test {

// How long a test waits for what must happen (a CQE, a command's
// completion, an EQE, the engine going idle): what takes micro- to
// milliseconds here can take seconds under ASan on a loaded CI host (two
// cores, QEMU guests beside). A passing test never waits this long; a
// failing one reports after it. Waits for what must NOT happen are short
// and explicit, and only where nothing legitimate can come later.
inline constexpr std::chrono::milliseconds kPatience = std::chrono::seconds(10);

// Polls `done` until it holds (true) or `timeout` passed (false).
template <class F>
bool poll_for(F done, std::chrono::milliseconds timeout = kPatience)
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
