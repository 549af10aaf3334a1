// SPDX-License-Identifier: GPL-2.0
// The forwarding decision of an Ethernet switch: source MAC learning, and
// flooding of broadcast, multicast and unknown unicast to every port but
// the one the frame came from. Ports are small numbers; the fabric
// (fabric/eth_fabric.cc) owns the ports and the queues. Not thread-safe:
// used under the fabric's state lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace mlx5emu {

class L2Switch {
public:
	using Mac = std::array<uint8_t, 6>;
	static constexpr size_t kMaxMacs = 4096; // learned entries (oldest forgotten)

	void add_port(uint32_t port) { ports_.insert(port); }
	void remove_port(uint32_t port);
	// The ports a frame from `in` with these addresses goes to; learns
	// `smac` behind `in` (unless it is a multicast address).
	std::vector<uint32_t> forward(uint32_t in, const Mac &dmac, const Mac &smac);
	size_t learned() const { return table_.size(); }
	uint64_t flooded() const { return flooded_; }

private:
	std::set<uint32_t> ports_;
	std::map<Mac, uint32_t> table_;
	std::map<uint64_t, Mac> age_; // learning order -> MAC, to forget the oldest
	std::map<Mac, uint64_t> when_;
	uint64_t tick_ = 0;
	uint64_t flooded_ = 0;
};

} // namespace mlx5emu
