// SPDX-License-Identifier: GPL-2.0
// Numbers for device objects (PDs, XRC domains, CQs, QPs, ...): the lowest
// free number in [first, limit).
#pragma once

#include <cstdint>
#include <set>

namespace mlx5emu {

class IdPool {
public:
	IdPool(uint32_t first, uint32_t limit) : first_(first), limit_(limit) {}

	// False when every number is in use.
	bool alloc(uint32_t *id)
	{
		uint32_t n = first_;
		for (uint32_t used : used_) {
			if (used > n)
				break;
			if (used == n)
				++n;
		}
		if (n >= limit_)
			return false;
		used_.insert(n);
		*id = n;
		return true;
	}
	bool release(uint32_t id) { return used_.erase(id) != 0; }
	bool contains(uint32_t id) const { return used_.count(id) != 0; }
	size_t size() const { return used_.size(); }
	void clear() { used_.clear(); }
	void set_limit(uint32_t limit) { limit_ = limit; }

private:
	uint32_t first_, limit_;
	std::set<uint32_t> used_;
};

} // namespace mlx5emu
