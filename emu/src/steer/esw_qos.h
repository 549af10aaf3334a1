// SPDX-License-Identifier: GPL-2.0
// The e-switch's transmit scheduling as its manager programs it
// (CREATE/MODIFY/DESTROY_SCHEDULING_ELEMENT, hierarchy E_SWITCH): a tree
// of TSARs (DWRR arbiters) with a VPORT element per rate-limited vport,
// each with a maximum average rate (Mb/s, 0: none) and a bandwidth share.
// What the data path takes from it: each vport's transmit rate, the
// lowest maximum on the path from its VPORT element to the root (a
// TSAR's maximum bounds each vport under it; their sum is not shared out,
// nor is the share, which only matters under contention), enforced by a
// token bucket per vport that paces the vport's send queues (a shaper:
// the queue waits, no frame is dropped). Plain data, under the data path
// engine's state lock, like the rest of steer::Eswitch.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlx5emu::steer {

// A transmit rate limit: a sender may send while the bucket is not in
// deficit; what it sends is taken out afterwards, so one frame (or an LSO
// burst) may overdraw it, and the next waits until the rate has paid it
// back. It fills up to `kBurstUsec` worth of the rate.
class TokenBucket {
public:
	using Clock = std::chrono::steady_clock;
	static constexpr uint64_t kBurstUsec = 10000;
	static constexpr double kMinBurstBytes = 65536;

	// 0: no limit.
	void set_rate(uint64_t mbps, Clock::time_point now);
	uint64_t mbps() const { return mbps_; }
	// 0 when the sender may go now; else microseconds until it may.
	uint64_t wait_usec(Clock::time_point now);
	void consume(uint64_t bytes, Clock::time_point now);

private:
	void refill(Clock::time_point now);
	double bytes_per_usec() const { return static_cast<double>(mbps_) / 8.0; }
	double burst() const;

	uint64_t mbps_ = 0;
	double tokens_ = 0; // bytes; negative: in deficit
	Clock::time_point last_{};
};

struct SchedElement {
	uint8_t type = 0;      // prm::sched_elem::TYPE_*
	uint16_t vport = 0;    // TYPE_VPORT
	uint32_t parent = 0;   // 0: the root of the hierarchy
	uint32_t bw_share = 0;
	uint32_t max_average_bw = 0; // Mb/s, 0: none
};

class EswQos {
public:
	// Elements one e-switch holds: NO_RESOURCES beyond.
	static constexpr size_t kMaxElements = 64;

	explicit EswQos(uint16_t max_vport);

	// 0 or a command status, with *reason for the syndrome. `max_share`:
	// the advertised max_tsar_bw_share.
	uint8_t create(const SchedElement &e, uint32_t max_share, uint32_t *id, uint32_t *reason);
	uint8_t modify(uint32_t id, uint32_t bitmask, uint32_t bw_share, uint32_t max_average_bw, uint32_t max_share,
		       uint32_t *reason);
	uint8_t destroy(uint32_t id, uint32_t *reason);
	const SchedElement *find(uint32_t id) const;
	const std::map<uint32_t, SchedElement> &elements() const { return el_; }

	// The transmit rate of `vport` (Mb/s, 0: none) and its pacing.
	uint64_t vport_rate(uint16_t vport) const;
	uint64_t tx_wait_usec(uint16_t vport, TokenBucket::Clock::time_point now);
	void tx_sent(uint16_t vport, uint64_t bytes, TokenBucket::Clock::time_point now);

	void clear();
	std::vector<std::string> describe() const;

private:
	void rates_changed();

	const uint16_t max_vport_;
	std::map<uint32_t, SchedElement> el_;
	uint32_t next_id_ = 1;
	std::vector<TokenBucket> buckets_; // by vport
};

} // namespace mlx5emu::steer
