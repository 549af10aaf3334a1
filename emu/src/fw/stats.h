// SPDX-License-Identifier: GPL-2.0
// Firmware statistics and the command trace.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mlx5emu {

struct TraceEntry {
	uint64_t seq = 0;
	unsigned slot = 0;
	uint16_t opcode = 0;
	uint16_t op_mod = 0;
	uint8_t delivery = 0;
	uint8_t status = 0;
	uint32_t syndrome = 0;
	uint32_t inlen = 0, outlen = 0;
	bool injected = false; // failed by fault injection
	// The command-completion EQE it owed: none (no command EQ, or a
	// delivery error), posted, or lost or delayed by fault injection.
	enum class Eqe : uint8_t { None, Posted, Dropped, Delayed } eqe = Eqe::None;
	uint64_t usec = 0;     // doorbell to completion
	// When the doorbell rang: set by the caller, made relative to the
	// trace's epoch (its creation or last clear) by add(), in at_usec.
	std::chrono::steady_clock::time_point rung{};
	uint64_t at_usec = 0;
};

class CommandTrace {
public:
	static constexpr size_t kCapacity = 4096;
	void add(TraceEntry e);
	std::vector<TraceEntry> snapshot() const;
	void clear();
	static std::string format(const TraceEntry &e);

private:
	mutable std::mutex mu_;
	std::deque<TraceEntry> ring_;
	uint64_t next_seq_ = 1;
	std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
};

class OpcodeStats {
public:
	struct Count {
		uint64_t total = 0, failed = 0;
	};
	void record(uint16_t opcode, bool failed);
	std::map<uint16_t, Count> snapshot() const;

private:
	mutable std::mutex mu_;
	std::map<uint16_t, Count> m_;
};

// Counters bumped from the BAR path (lock-free).
struct BarCounters {
	std::atomic<uint64_t> cmd_doorbells{0};
	std::atomic<uint64_t> cq_doorbells{0};
	std::atomic<uint64_t> bf_writes{0};
	std::atomic<uint64_t> polled_doorbells{0}; // taken from the polled UAR pages
	std::atomic<uint64_t> other_uar_writes{0};
	std::atomic<uint64_t> iseg_writes_ignored{0};
	std::atomic<uint64_t> writes_unplugged{0}; // dropped: the link is cut
	std::atomic<uint64_t> last_cq_doorbell{0};
};

// Commands the firmware refused to protect one owner from another or
// itself from a guest's demands (`hca N stats`: refused_*).
struct RefusalCounters {
	std::atomic<uint64_t> dead_uid{0};      // header uid of no live user context
	std::atomic<uint64_t> foreign_touch{0}; // query/modify/destroy of another context's object
	std::atomic<uint64_t> foreign_name{0};  // a context field naming another context's object
	std::atomic<uint64_t> uctx_busy{0};     // DESTROY_UCTX with objects of the uid alive
	std::atomic<uint64_t> parent_busy{0};   // DEALLOC_PD / _XRCD still named by an object
	std::atomic<uint64_t> klm_list{0};      // CREATE_MKEY: KLM room over log_max_klm_list_size
	std::atomic<uint64_t> mkey_budget{0};   // CREATE_MKEY: translation entries over the budget
	std::atomic<uint64_t> mkey_table{0};    // CREATE_MKEY: every key index (log_max_mkey) in use
	std::atomic<uint64_t> privileged_qp{0}; // CREATE_QP of QP0, QP1 or the UMR QP by a user uid
	std::atomic<uint64_t> command_exceptions{0}; // a handler threw: INTERNAL_ERR (cmd_registry.cc)
	std::atomic<uint64_t> vf_refused{0};    // a VF's manager command or port-register write
	std::atomic<uint64_t> vf_dead{0};       // a command to a VF its PF has not enabled
	std::atomic<uint64_t> vf_page_budget{0}; // MANAGE_PAGES GIVE for a VF beyond Adapter::kVfPageBudget
	std::atomic<uint64_t> umem_budget{0};   // CREATE_UMEM beyond UmemTable's count or MTT limits
	std::atomic<uint64_t> umem_busy{0};     // DESTROY_UMEM of a umem a queue still uses

	std::vector<std::string> lines() const;
};

} // namespace mlx5emu
