// SPDX-License-Identifier: GPL-2.0
// Health buffer contents and the firmware heartbeat (health_counter).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace mlx5emu {

struct HcaConfig;

// The syndrome words of the health buffer that one adapter's functions
// share: a firmware crash shows in every function's buffer (the in-tree
// driver's reset_fw_if_needed() says as much). The PF's syndrome is
// written here; a VF reads it when it has none of its own.
struct SharedSyndrome {
	std::atomic<uint32_t> synd_ext{0}; // synd << 16 | ext_synd
	std::atomic<uint8_t> rfr_severity{0};
};

class Health {
public:
	explicit Health(const HcaConfig &cfg);

	// Syndrome injection. `fatal` also raises the reset-for-recovery bit
	// with a valid severity, which the driver treats as a fatal error.
	void set_syndrome(uint8_t synd, uint16_t ext_synd, bool fatal);
	// The syndrome the function's health buffer shows (its own, else
	// the one it shares).
	uint8_t syndrome() const;
	// The adapter's shared words (they outlive this object): `writer`
	// (the PF) publishes its syndrome there, a reader shows it.
	void share(SharedSyndrome *s, bool writer);

	// A frozen heartbeat stops health_counter (the driver notices after
	// three polls).
	void freeze(bool frozen);
	bool frozen() const { return frozen_.load(); }

	uint32_t counter() const;
	// The running firmware's version (major << 24 | minor << 16 |
	// subminor): the health buffer's fw_ver, the init segment's fw_rev
	// and MCQI's running version. Any thread.
	uint32_t fw_version() const { return fw_ver_.load(); }
	void set_fw_version(uint32_t v) { fw_ver_ = v; }
	// Big-endian dword of the 64-byte health buffer at `off` (0..0x3c).
	uint32_t buffer_dword(uint32_t off) const;

private:
	using Clock = std::chrono::steady_clock;
	std::atomic<uint32_t> fw_ver_;
	uint32_t hw_id_;
	Clock::time_point start_ = Clock::now();

	mutable std::mutex mu_;
	uint8_t synd_ = 0;
	uint16_t ext_synd_ = 0;
	uint8_t rfr_severity_ = 0;
	SharedSyndrome *shared_ = nullptr;
	bool writer_ = false;
	std::atomic<bool> frozen_{false};
	uint32_t counter_base_ = 0;
	Clock::time_point counter_epoch_ = Clock::now();
};

} // namespace mlx5emu
