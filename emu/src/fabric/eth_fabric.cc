// SPDX-License-Identifier: GPL-2.0
// The Ethernet side of the fabric: ports on one L2 switch, frames queued
// and delivered on the engine thread like packets.
#include <memory>

#include "fabric/fabric.h"

namespace mlx5emu {

uint32_t Fabric::attach_eth(FabricPort *port)
{
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	uint32_t n = next_eth_port_++;
	eth_ports_[n] = port;
	l2_.add_port(n);
	return n;
}

void Fabric::detach_eth(uint32_t port)
{
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	eth_ports_.erase(port);
	l2_.remove_port(port);
}

void Fabric::transmit_frame(uint32_t in, std::vector<uint8_t> frame)
{
	if (frame.size() < 14)
		return;
	L2Switch::Mac dmac, smac;
	std::copy(frame.begin(), frame.begin() + 6, dmac.begin());
	std::copy(frame.begin() + 6, frame.begin() + 12, smac.begin());
	bump(s_.packets);
	bump(s_.bytes, frame.size());
	if (drops_armed_.load(std::memory_order_relaxed) && drop_injected())
		return;
	std::vector<uint32_t> out;
	{
		std::lock_guard<std::mutex> lk(cfg_mu_);
		for (uint32_t p : l2_.forward(in, dmac, smac)) {
			uint32_t &q = eth_queued_[p];
			if (q >= kLinkQueueCap) {
				bump(s_.dropped_full);
				continue;
			}
			++q;
			bump_max(s_.queued_max, q);
			out.push_back(p);
		}
	}
	if (out.empty())
		return count_no_route();
	uint32_t delay = delay_ms_.load(std::memory_order_relaxed);
	if (delay)
		bump(s_.delayed);
	auto f = std::make_shared<std::vector<uint8_t>>(std::move(frame));
	for (uint32_t p : out) {
		auto fn = [this, p, f] { deliver_frame(p, *f); };
		if (delay)
			engine_.post_at(Engine::Clock::now() + std::chrono::milliseconds(delay), [fn](uint64_t) { fn(); });
		else
			engine_.post(fn);
	}
}

void Fabric::deliver_frame(uint32_t port, const std::vector<uint8_t> &frame)
{
	{
		std::lock_guard<std::mutex> lk(cfg_mu_);
		auto q = eth_queued_.find(port);
		if (q != eth_queued_.end() && q->second && !--q->second)
			eth_queued_.erase(q);
	}
	auto it = eth_ports_.find(port);
	bump(it == eth_ports_.end() ? s_.no_route : s_.delivered);
	if (it != eth_ports_.end())
		it->second->receive_frame(frame);
}

} // namespace mlx5emu
