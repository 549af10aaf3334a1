// SPDX-License-Identifier: GPL-2.0
// Firmware pages: which 4 KiB pages each function has given the device, the
// device's page demand, and leak reports when a function goes away while
// the device still holds its pages.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace mlx5emu {

struct FnId {
	bool ec = false;      // embedded-CPU function
	uint16_t func_id = 0; // 0 = this function

	auto operator<=>(const FnId &) const = default;
};

class PageTracker {
public:
	// Pages the device asks for at each stage (QUERY_PAGES), cumulative.
	static constexpr int32_t kBootPages = 16;
	static constexpr int32_t kInitPages = 32;

	// GIVE: all-or-nothing. Returns 0 or a command status.
	uint8_t give(FnId fn, const std::vector<uint64_t> &pas, uint32_t *reason);
	// TAKE: returns up to n pages (fewer if the device holds fewer).
	std::vector<uint64_t> take(FnId fn, uint32_t n);
	void cant_give(FnId fn, uint32_t n);

	uint64_t held(FnId fn) const;
	uint64_t held_total() const;
	bool holds(uint64_t pa) const;

	// Extra regular pages requested (positive) or to be returned
	// (negative) through page-request events.
	void adjust_demand(int32_t delta) { extra_demand_ += delta; }
	// What QUERY_PAGES reports for op_mod `stage` (1 boot, 2 init, 3
	// regular): pages still missing for that stage, or a negative number
	// of pages the device is willing to give back.
	int32_t query(FnId fn, uint16_t stage) const;

	// Forget every page of `fn` (function disabled or reset). Returns the
	// number of pages that were still held, i.e. leaked by software.
	uint64_t release(FnId fn, const std::string &why);
	uint64_t release_all(const std::string &why);

	struct Counters {
		uint64_t given = 0, taken = 0, cant_give = 0;
		uint64_t leak_reports = 0, leaked_pages = 0;
		std::string last_leak;
	};
	const Counters &counters() const { return c_; }
	void set_label(std::string label) { label_ = std::move(label); }

private:
	std::map<FnId, std::set<uint64_t>> pages_;
	int32_t extra_demand_ = 0;
	Counters c_;
	std::string label_ = "hca";
};

} // namespace mlx5emu
