// SPDX-License-Identifier: GPL-2.0
#include "queues/mcg_table.h"

#include <algorithm>

namespace mlx5emu {

McgTable::Result McgTable::attach(const Gid &mgid, uint32_t qpn)
{
	auto it = groups_.find(mgid);
	if (it == groups_.end()) {
		if (groups_.size() >= kMaxGroups)
			return Result::TableFull;
		groups_[mgid].push_back(qpn);
		return Result::Ok;
	}
	std::vector<uint32_t> &q = it->second;
	if (std::find(q.begin(), q.end(), qpn) != q.end())
		return Result::Already;
	if (q.size() >= kMaxQpsPerGroup)
		return Result::GroupFull;
	q.push_back(qpn);
	return Result::Ok;
}

McgTable::Result McgTable::detach(const Gid &mgid, uint32_t qpn)
{
	auto it = groups_.find(mgid);
	if (it == groups_.end())
		return Result::NotAttached;
	std::vector<uint32_t> &q = it->second;
	auto at = std::find(q.begin(), q.end(), qpn);
	if (at == q.end())
		return Result::NotAttached;
	q.erase(at);
	if (q.empty())
		groups_.erase(it);
	return Result::Ok;
}

void McgTable::forget_qp(uint32_t qpn)
{
	for (auto it = groups_.begin(); it != groups_.end();) {
		std::erase(it->second, qpn);
		it = it->second.empty() ? groups_.erase(it) : std::next(it);
	}
}

const std::vector<uint32_t> *McgTable::members(const Gid &mgid) const
{
	auto it = groups_.find(mgid);
	return it == groups_.end() ? nullptr : &it->second;
}

} // namespace mlx5emu
