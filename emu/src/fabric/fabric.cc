// SPDX-License-Identifier: GPL-2.0
#include "fabric/fabric.h"

#include <cstdio>

namespace mlx5emu {

Fabric::Fabric() = default;
Fabric::~Fabric() = default;

void Fabric::attach(uint16_t lid, FabricPort *port)
{
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	ports_[lid] = port;
}

void Fabric::detach(uint16_t lid, FabricPort *port)
{
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	auto it = ports_.find(lid);
	if (it != ports_.end() && it->second == port)
		ports_.erase(it);
}

void Fabric::transmit(Packet p)
{
	std::vector<uint16_t> to;
	uint32_t delay;
	{
		std::lock_guard<std::mutex> lk(cfg_mu_);
		++c_.packets;
		c_.bytes += p.payload.size();
		if (skip_pending_) {
			--skip_pending_;
		} else if (drops_pending_) {
			--drops_pending_;
			++c_.dropped;
			return;
		}
		if (is_multicast_lid(p.dlid)) {
			// Every port but the sender's: its own HCA delivered the
			// loopback copies already.
			++c_.multicast;
			for (const auto &[lid, port] : ports_)
				if (lid != p.slid)
					to.push_back(lid);
		} else if (ports_.count(p.dlid)) {
			to.push_back(p.dlid);
		} else {
			// No port with that LID: the switch drops it now, instead
			// of carrying it to a link that does not exist.
			++c_.no_route;
			return;
		}
		std::erase_if(to, [this](uint16_t lid) {
			uint32_t &q = queued_[lid];
			if (q >= kLinkQueueCap) {
				++c_.dropped_full;
				return true;
			}
			++q;
			if (q > c_.queued_max)
				c_.queued_max = q;
			return false;
		});
		delay = delay_ms_;
		if (delay && !to.empty())
			++c_.delayed;
	}
	auto pkt = std::make_shared<const Packet>(std::move(p));
	for (uint16_t lid : to) {
		auto fn = [this, lid, pkt] { deliver(lid, *pkt); };
		if (delay)
			engine_.post_at(Engine::Clock::now() + std::chrono::milliseconds(delay), fn);
		else
			engine_.post(fn);
	}
}

void Fabric::deliver(uint16_t lid, const Packet &p)
{
	{
		std::lock_guard<std::mutex> lk(cfg_mu_);
		auto q = queued_.find(lid);
		if (q != queued_.end() && q->second && !--q->second)
			queued_.erase(q);
	}
	auto it = ports_.find(lid);
	if (it == ports_.end()) {
		std::lock_guard<std::mutex> lk(cfg_mu_);
		++c_.no_route;
		return;
	}
	{
		std::lock_guard<std::mutex> lk(cfg_mu_);
		++c_.delivered;
	}
	it->second->receive(p);
}

void Fabric::drop_next(uint32_t n, uint32_t skip)
{
	std::lock_guard<std::mutex> lk(cfg_mu_);
	drops_pending_ = n;
	skip_pending_ = n ? skip : 0;
}

void Fabric::set_delay_ms(uint32_t ms)
{
	std::lock_guard<std::mutex> lk(cfg_mu_);
	delay_ms_ = ms;
}

Fabric::Counters Fabric::counters() const
{
	std::lock_guard<std::mutex> lk(cfg_mu_);
	Counters c = c_;
	for (const auto &[lid, n] : queued_)
		c.queued += n;
	c.drops_pending = drops_pending_;
	c.delay_ms = delay_ms_;
	return c;
}

std::vector<std::string> Fabric::describe() const
{
	Counters c = counters();
	auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
	char b[256];
	std::vector<std::string> v;
	std::snprintf(b, sizeof b, "packets %llu", u(c.packets));
	v.push_back(b);
	std::snprintf(b, sizeof b, "bytes %llu", u(c.bytes));
	v.push_back(b);
	std::snprintf(b, sizeof b, "delivered %llu", u(c.delivered));
	v.push_back(b);
	std::snprintf(b, sizeof b, "dropped %llu", u(c.dropped));
	v.push_back(b);
	std::snprintf(b, sizeof b, "no_route %llu", u(c.no_route));
	v.push_back(b);
	std::snprintf(b, sizeof b, "multicast %llu", u(c.multicast));
	v.push_back(b);
	std::snprintf(b, sizeof b, "dropped_full %llu", u(c.dropped_full));
	v.push_back(b);
	std::snprintf(b, sizeof b, "queued %llu", u(c.queued));
	v.push_back(b);
	std::snprintf(b, sizeof b, "queued_max %llu", u(c.queued_max));
	v.push_back(b);
	std::snprintf(b, sizeof b, "link_queue_cap %u", kLinkQueueCap);
	v.push_back(b);
	std::snprintf(b, sizeof b, "delayed %llu", u(c.delayed));
	v.push_back(b);
	std::snprintf(b, sizeof b, "drops_pending %u", c.drops_pending);
	v.push_back(b);
	std::snprintf(b, sizeof b, "delay_ms %u", c.delay_ms);
	v.push_back(b);
	return v;
}

} // namespace mlx5emu
