// SPDX-License-Identifier: GPL-2.0
#include "steer/esw_qos.h"

#include <algorithm>

#include "prm/prm.h"
#include "prm/qos.h"
#include "util/fmt.h"

namespace mlx5emu::steer {

namespace se = prm::sched_elem;

// ---------------------------------------------------------------------------
// TokenBucket

double TokenBucket::burst() const
{
	return std::max(kMinBurstBytes, bytes_per_usec() * static_cast<double>(kBurstUsec));
}

void TokenBucket::set_rate(uint64_t mbps, Clock::time_point now)
{
	if (mbps == mbps_)
		return;
	mbps_ = mbps;
	tokens_ = mbps ? burst() : 0;
	last_ = now;
}

void TokenBucket::refill(Clock::time_point now)
{
	if (now <= last_)
		return;
	double us = static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(now - last_).count());
	tokens_ = std::min(burst(), tokens_ + us * bytes_per_usec());
	last_ = now;
}

uint64_t TokenBucket::wait_usec(Clock::time_point now)
{
	if (!mbps_)
		return 0;
	refill(now);
	if (tokens_ >= 0)
		return 0;
	return static_cast<uint64_t>(-tokens_ / bytes_per_usec()) + 1;
}

void TokenBucket::consume(uint64_t bytes, Clock::time_point now)
{
	if (!mbps_)
		return;
	refill(now);
	tokens_ -= static_cast<double>(bytes);
}

// ---------------------------------------------------------------------------
// EswQos

EswQos::EswQos(uint16_t max_vport) : max_vport_(max_vport), buckets_(max_vport + 1u) {}

enum Reason : uint32_t {
	kType = 0x10,
	kTsarType = 0x11,
	kParent = 0x12,
	kVport = 0x13,
	kShare = 0x14,
	kFull = 0x15,
	kNoElement = 0x16,
	kHasChildren = 0x17,
	kVportTaken = 0x18,
	kBitmask = 0x19,
};

uint8_t EswQos::create(const SchedElement &e, uint32_t max_share, uint32_t *id, uint32_t *reason)
{
	auto fail = [&](uint8_t st, uint32_t r) {
		*reason = r;
		return st;
	};
	if (e.type != se::TYPE_TSAR && e.type != se::TYPE_VPORT)
		return fail(prm::status::BAD_PARAM, kType);
	if (e.parent) {
		const SchedElement *p = find(e.parent);
		if (!p || p->type != se::TYPE_TSAR)
			return fail(prm::status::BAD_PARAM, kParent);
	} else if (e.type == se::TYPE_VPORT) {
		return fail(prm::status::BAD_PARAM, kParent); // a vport hangs off a TSAR
	}
	if (e.bw_share > max_share)
		return fail(prm::status::BAD_PARAM, kShare);
	if (e.type == se::TYPE_VPORT) {
		if (e.vport > max_vport_)
			return fail(prm::status::BAD_PARAM, kVport);
		for (const auto &[n, x] : el_)
			if (x.type == se::TYPE_VPORT && x.vport == e.vport)
				return fail(prm::status::BAD_PARAM, kVportTaken);
	}
	if (el_.size() >= kMaxElements)
		return fail(prm::status::NO_RESOURCES, kFull);
	while (!next_id_ || el_.count(next_id_))
		++next_id_;
	*id = next_id_++;
	el_[*id] = e;
	rates_changed();
	return 0;
}

uint8_t EswQos::modify(uint32_t id, uint32_t bitmask, uint32_t bw_share, uint32_t max_average_bw, uint32_t max_share,
		       uint32_t *reason)
{
	auto it = el_.find(id);
	if (it == el_.end()) {
		*reason = kNoElement;
		return prm::status::BAD_PARAM;
	}
	if (bitmask & ~uint32_t(se::MODIFY_BW_SHARE | se::MODIFY_MAX_AVERAGE_BW)) {
		*reason = kBitmask;
		return prm::status::BAD_PARAM;
	}
	if ((bitmask & se::MODIFY_BW_SHARE) && bw_share > max_share) {
		*reason = kShare;
		return prm::status::BAD_PARAM;
	}
	if (bitmask & se::MODIFY_BW_SHARE)
		it->second.bw_share = bw_share;
	if (bitmask & se::MODIFY_MAX_AVERAGE_BW)
		it->second.max_average_bw = max_average_bw;
	rates_changed();
	return 0;
}

uint8_t EswQos::destroy(uint32_t id, uint32_t *reason)
{
	if (!el_.count(id)) {
		*reason = kNoElement;
		return prm::status::BAD_PARAM;
	}
	for (const auto &[n, x] : el_)
		if (x.parent == id) {
			*reason = kHasChildren;
			return prm::status::BAD_RES_STATE;
		}
	el_.erase(id);
	rates_changed();
	return 0;
}

const SchedElement *EswQos::find(uint32_t id) const
{
	auto it = el_.find(id);
	return it == el_.end() ? nullptr : &it->second;
}

uint64_t EswQos::vport_rate(uint16_t vport) const
{
	uint64_t rate = 0;
	for (const auto &[n, x] : el_) {
		if (x.type != se::TYPE_VPORT || x.vport != vport)
			continue;
		// The lowest maximum up to the root (parents exist: a TSAR
		// with children cannot be destroyed; the depth is bounded by
		// the element count).
		const SchedElement *e = &x;
		for (size_t hops = 0; e && hops <= kMaxElements; ++hops) {
			if (e->max_average_bw && (!rate || e->max_average_bw < rate))
				rate = e->max_average_bw;
			e = e->parent ? find(e->parent) : nullptr;
		}
	}
	return rate;
}

void EswQos::rates_changed()
{
	auto now = TokenBucket::Clock::now();
	for (uint16_t v = 0; v <= max_vport_; ++v)
		buckets_[v].set_rate(vport_rate(v), now);
}

uint64_t EswQos::tx_wait_usec(uint16_t vport, TokenBucket::Clock::time_point now)
{
	return vport <= max_vport_ ? buckets_[vport].wait_usec(now) : 0;
}

void EswQos::tx_sent(uint16_t vport, uint64_t bytes, TokenBucket::Clock::time_point now)
{
	if (vport <= max_vport_)
		buckets_[vport].consume(bytes, now);
}

void EswQos::clear()
{
	el_.clear();
	next_id_ = 1;
	rates_changed();
}

std::vector<std::string> EswQos::describe() const
{
	std::vector<std::string> v;
	for (const auto &[n, x] : el_) {
		if (x.type == se::TYPE_TSAR)
			v.push_back(fmt("  sched %u tsar parent %u max_average_bw %u bw_share %u", n, x.parent,
					x.max_average_bw, x.bw_share));
		else
			v.push_back(fmt("  sched %u vport %u parent %u max_average_bw %u bw_share %u", n, x.vport,
					x.parent, x.max_average_bw, x.bw_share));
	}
	for (uint16_t vp = 0; vp <= max_vport_; ++vp)
		if (uint64_t r = buckets_[vp].mbps())
			v.push_back(fmt("  vport %u tx_rate_mbps %llu", vp, static_cast<unsigned long long>(r)));
	return v;
}

} // namespace mlx5emu::steer
