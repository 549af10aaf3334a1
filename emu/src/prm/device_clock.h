// SPDX-License-Identifier: GPL-2.0
// The device's free-running clock: nanoseconds of the host's monotonic
// clock, i.e. 1 GHz (device_frequency_khz). The internal timer of the
// initialization segment reads it, and every successful CQE carries the
// value of the moment it was written, so that software can place a CQE
// timestamp between two reads of the timer.
#pragma once

#include <chrono>
#include <cstdint>

namespace mlx5emu {

inline uint64_t device_clock_ns()
{
	using namespace std::chrono;
	return static_cast<uint64_t>(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
}

} // namespace mlx5emu
