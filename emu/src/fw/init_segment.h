// SPDX-License-Identifier: GPL-2.0
// The initialization segment: BAR0 0x0000-0x200F, big-endian registers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

namespace mlx5emu {

struct HcaConfig;
class Health;

class InitSegment {
public:
	// `ring` is called with the slot mask of a command-doorbell write;
	// `sw_reset` when software sets nic_interface to SW_RESET (the
	// firmware resets; nic_interface then reads DISABLED until software
	// writes the command queue address again).
	InitSegment(const HcaConfig &cfg, Health &health, std::function<void(uint32_t)> ring,
		    std::function<void()> sw_reset);

	bool contains(uint64_t offset) const;
	uint64_t read(uint64_t offset, unsigned size) const;
	// Returns false for writes to read-only or unknown registers.
	bool write(uint64_t offset, unsigned size, uint64_t value);

	uint64_t cmdq_addr() const;
	uint8_t nic_interface() const { return nic_ifc_.load(); }
	void reset();
	// The firmware has disabled the function's interface (after a
	// software reset, or a VF whose PF disabled or lost it): the command
	// queue is forgotten and nic_interface reads DISABLED, which a
	// driver's health poller takes as fatal, until software writes the
	// command queue address again.
	void disable();
	// A VF its PF has not enabled reads "initializing" (bit 31 of
	// 0x1fc) until it has (fw/adapter.h); ready otherwise.
	void set_ready(bool ready) { ready_ = ready; }

	// Host-order value of the big-endian dword at `off` (dword aligned).
	uint32_t dword(uint32_t off) const;

private:
	void write_dword(uint32_t off, uint32_t v);

	const HcaConfig &cfg_;
	Health &health_;
	std::function<void(uint32_t)> ring_;
	std::function<void()> sw_reset_;
	std::atomic<uint32_t> cmdq_h_{0};
	std::atomic<uint32_t> cmdq_l_{0}; // bits[31:12]
	std::atomic<uint8_t> nic_ifc_{0};
	std::atomic<bool> ready_{true};
};

} // namespace mlx5emu
