// SPDX-License-Identifier: GPL-2.0
#include "fw/pages.h"

#include <cstdio>

#include "prm/prm.h"

namespace mlx5emu {

uint8_t PageTracker::give(FnId fn, const std::vector<uint64_t> &pas, uint32_t *reason)
{
	std::set<uint64_t> &held = pages_[fn];
	std::set<uint64_t> batch;
	for (uint64_t pa : pas) {
		if (pa == 0 || (pa & 0xfff)) {
			*reason = 1; // address 0 or not 4 KiB aligned
			return prm::status::BAD_PARAM;
		}
		if (held.count(pa) || !batch.insert(pa).second) {
			*reason = 2; // page given twice
			return prm::status::BAD_PARAM;
		}
	}
	held.insert(batch.begin(), batch.end());
	c_.given += batch.size();
	return prm::status::OK;
}

std::vector<uint64_t> PageTracker::take(FnId fn, uint32_t n)
{
	std::vector<uint64_t> out;
	auto it = pages_.find(fn);
	if (it == pages_.end())
		return out;
	std::set<uint64_t> &held = it->second;
	while (n-- && !held.empty()) {
		auto last = std::prev(held.end());
		out.push_back(*last);
		held.erase(last);
	}
	c_.taken += out.size();
	return out;
}

void PageTracker::cant_give(FnId, uint32_t) { ++c_.cant_give; }

uint64_t PageTracker::held(FnId fn) const
{
	auto it = pages_.find(fn);
	return it == pages_.end() ? 0 : it->second.size();
}

uint64_t PageTracker::held_total() const
{
	uint64_t n = 0;
	for (const auto &[fn, s] : pages_)
		n += s.size();
	return n;
}

bool PageTracker::holds(uint64_t pa) const
{
	for (const auto &[fn, s] : pages_)
		if (s.count(pa))
			return true;
	return false;
}

int32_t PageTracker::query(FnId fn, uint16_t stage) const
{
	int64_t target;
	switch (stage) {
	case prm::query_pages_opmod::BOOT:
		target = kBootPages;
		break;
	case prm::query_pages_opmod::INIT:
		target = kBootPages + kInitPages;
		break;
	default:
		target = static_cast<int64_t>(kBootPages) + kInitPages + extra_demand_;
		break;
	}
	int64_t missing = target - static_cast<int64_t>(held(fn));
	// Boot and init only ever ask for more; regular may give back.
	if (stage != prm::query_pages_opmod::REGULAR && missing < 0)
		missing = 0;
	return static_cast<int32_t>(missing);
}

uint64_t PageTracker::release(FnId fn, const std::string &why)
{
	auto it = pages_.find(fn);
	uint64_t n = it == pages_.end() ? 0 : it->second.size();
	if (it != pages_.end())
		pages_.erase(it);
	extra_demand_ = 0;
	if (n) {
		++c_.leak_reports;
		c_.leaked_pages += n;
		char buf[160];
		std::snprintf(buf, sizeof buf, "%s: %s with %llu firmware page(s) still held (leaked by software)",
			      label_.c_str(), why.c_str(), static_cast<unsigned long long>(n));
		c_.last_leak = buf;
		std::fprintf(stderr, "mlx5-emu: %s\n", buf);
	}
	return n;
}

uint64_t PageTracker::release_all(const std::string &why)
{
	uint64_t n = 0;
	while (!pages_.empty())
		n += release(pages_.begin()->first, why);
	extra_demand_ = 0;
	return n;
}

} // namespace mlx5emu
