// SPDX-License-Identifier: GPL-2.0
#include "fabric/l2_switch.h"

namespace mlx5emu {

void L2Switch::remove_port(uint32_t port)
{
	ports_.erase(port);
	for (auto it = table_.begin(); it != table_.end();) {
		if (it->second == port) {
			age_.erase(when_[it->first]);
			when_.erase(it->first);
			it = table_.erase(it);
		} else {
			++it;
		}
	}
}

std::vector<uint32_t> L2Switch::forward(uint32_t in, const Mac &dmac, const Mac &smac)
{
	if (!(smac[0] & 1)) {
		auto w = when_.find(smac);
		if (w != when_.end())
			age_.erase(w->second);
		else if (table_.size() >= kMaxMacs && !age_.empty()) {
			Mac old = age_.begin()->second;
			age_.erase(age_.begin());
			when_.erase(old);
			table_.erase(old);
		}
		table_[smac] = in;
		when_[smac] = ++tick_;
		age_[tick_] = smac;
	}
	std::vector<uint32_t> out;
	if (!(dmac[0] & 1)) {
		auto it = table_.find(dmac);
		if (it != table_.end()) {
			if (it->second != in && ports_.count(it->second))
				out.push_back(it->second);
			return out; // known: that port only (none when it is behind `in`)
		}
	}
	++flooded_;
	for (uint32_t p : ports_)
		if (p != in)
			out.push_back(p);
	return out;
}

} // namespace mlx5emu
