// SPDX-License-Identifier: GPL-2.0
// User memory registered with the firmware (CREATE_UMEM, fw/cmd_umem.cc):
// pinned pages of one process that its queues (CQ and QP buffers,
// doorbell records) name by umem id and byte offset instead of a page
// list of their own.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "util/id_pool.h"

namespace mlx5emu {

struct Umem {
	uint16_t uid = 0;          // the user context that made it
	uint32_t log_page = 12;    // log2 of the page size in bytes
	uint64_t page_offset = 0;  // byte offset of the umem in its first page
	std::vector<uint64_t> pas; // page addresses (the MTTs without their access bits)
	unsigned users = 0;        // queues built on it (DESTROY_UMEM refuses while > 0)

	uint64_t size() const { return (static_cast<uint64_t>(pas.size()) << log_page) - page_offset; }
};

// The umems of one function, and which umems each queue uses.
class UmemTable {
public:
	// Limits a guest cannot exceed: umems per function, MTTs per umem and
	// MTTs of all umems together (the emulator keeps each as 8 bytes).
	static constexpr unsigned kLogMax = 12;
	static constexpr uint64_t kMaxMtts = 1u << 18;      // 1 GiB of 4 KiB pages
	static constexpr uint64_t kMaxTotalMtts = 1u << 20; // 4 GiB of 4 KiB pages

	// False when every id is taken or the MTT budget is spent.
	bool add(Umem u, uint32_t *id)
	{
		if (total_ + u.pas.size() > kMaxTotalMtts || !ids_.alloc(id))
			return false;
		total_ += u.pas.size();
		m_.emplace(*id, std::move(u));
		return true;
	}
	Umem *get(uint32_t id)
	{
		auto it = m_.find(id);
		return it == m_.end() ? nullptr : &it->second;
	}
	void remove(uint32_t id)
	{
		auto it = m_.find(id);
		if (it == m_.end())
			return;
		total_ -= it->second.pas.size();
		m_.erase(it);
		ids_.release(id);
	}
	// Queue `key` (an object kind and number) now uses umem `id`.
	void bind(std::pair<uint8_t, uint32_t> key, uint32_t id)
	{
		if (Umem *u = get(id)) {
			++u->users;
			bound_[key].push_back(id);
		}
	}
	// Queue `key` is gone: its umems are free to go.
	void unbind(std::pair<uint8_t, uint32_t> key)
	{
		auto it = bound_.find(key);
		if (it == bound_.end())
			return;
		for (uint32_t id : it->second)
			if (Umem *u = get(id))
				--u->users;
		bound_.erase(it);
	}
	size_t size() const { return m_.size(); }
	uint64_t total_mtts() const { return total_; }
	void clear()
	{
		m_.clear();
		bound_.clear();
		ids_.clear();
		total_ = 0;
	}

private:
	IdPool ids_{1, 1u << kLogMax};
	std::map<uint32_t, Umem> m_;
	std::map<std::pair<uint8_t, uint32_t>, std::vector<uint32_t>> bound_;
	uint64_t total_ = 0;
};

} // namespace mlx5emu
