// SPDX-License-Identifier: GPL-2.0
// Fault injection driven by the control channel: failing or delaying
// commands, dropping or delaying EQEs; a device that misbehaves on purpose
// (CQEs repeated or corrupted, a MEMIC address outside what was asked for)
// for the drivers' checks of what the device answers.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlx5emu {

class Faults {
public:
	static constexpr uint32_t kForever = 0;

	struct CmdFailure {
		uint8_t status;
		uint32_t syndrome;
	};

	// The next `count` commands with `opcode` complete with `status`
	// without being executed (count kForever: until cleared).
	void fail_cmd(uint16_t opcode, uint8_t status, uint32_t syndrome, uint32_t count);
	std::optional<CmdFailure> take_cmd_failure(uint16_t opcode);

	// Completion of every `opcode` command is held back by `ms` (0 clears).
	void delay_cmd(uint16_t opcode, uint32_t ms);
	uint32_t cmd_delay_ms(uint16_t opcode) const;

	// The next `count` EQEs of `type` are silently dropped.
	void drop_eqe(uint8_t type, uint32_t count);
	bool take_eqe_drop(uint8_t type);

	// Every EQE of `type` is written `ms` later (0 clears).
	void delay_eqe(uint8_t type, uint32_t ms);
	uint32_t eqe_delay_ms(uint8_t type) const;

	// Per opcode, the command-completion EQE only: the next `count`
	// commands with `opcode` complete (output and ownership written) but
	// their CMD EQE is lost; or it is posted `ms` after the completion
	// (0 clears). A command completed while no command EQ exists owes no
	// EQE and consumes no drop.
	void drop_cmd_eqe(uint16_t opcode, uint32_t count);
	bool take_cmd_eqe_drop(uint16_t opcode);
	void delay_cmd_eqe(uint16_t opcode, uint32_t ms);
	uint32_t cmd_eqe_delay_ms(uint16_t opcode) const;

	// CQEs, on any CQ of the function: those of requests (send) or of
	// receives (recv), or either.
	enum class CqeKind : uint8_t { Any, Send, Recv };
	enum class CqeField : uint8_t { WqeCounter, ByteCnt, Qpn };
	// The next `count` CQEs of `kind` are each written twice: the second
	// copy the same CQE in the next slot (count 0 clears).
	void repeat_cqe(uint32_t count, CqeKind kind);
	// The next `count` CQEs of `kind` carry `value` in `field` (the QPN's
	// 24 bits, the 16-bit WQE counter, the byte count); count 0 clears.
	void corrupt_cqe(CqeField field, uint32_t value, uint32_t count, CqeKind kind);
	// Applied to each CQE about to be written (64 bytes, opcode set):
	// corrupts it in place; true when it is to be written twice. Cheap
	// while nothing is armed (no lock).
	bool apply_cqe(uint8_t *cqe);

	// The next `count` successful ALLOC_MEMIC answer an address the
	// software did not ask for: past the MEMIC window (Outside) or 8
	// bytes after the allocation's start, off the 64-byte granule
	// (Unaligned). The allocation itself is undone,
	// and a DEALLOC_MEMIC of the bogus address succeeds (count 0 clears).
	enum class MemicBogus : uint8_t { Outside, Unaligned };
	void bogus_memic(MemicBogus how, uint32_t count);
	std::optional<MemicBogus> take_bogus_memic();
	void remember_bogus_memic(uint64_t addr);
	bool forget_bogus_memic(uint64_t addr);

	// The next `count` commands with `opcode` throw from their handler (a
	// firmware bug on purpose): the command engine's catch completes them
	// with INTERNAL_ERR and the function goes on (count 0 clears).
	void throw_cmd(uint16_t opcode, uint32_t count);
	bool take_cmd_throw(uint16_t opcode);

	// The next `count` WQEs the function's Ethernet SQs execute complete
	// in error (local protection) and move their SQ to the error state,
	// for the driver's SQ recovery (count 0 clears). Cheap while nothing
	// is armed (no lock).
	void fail_sq_wqe(uint32_t count);
	bool take_sq_wqe_failure();

	void clear();
	std::vector<std::string> describe() const;

private:
	struct Fail {
		CmdFailure f;
		uint32_t remaining; // kForever = unlimited
	};
	mutable std::mutex mu_;
	std::map<uint16_t, Fail> fail_;
	std::map<uint16_t, uint32_t> cmd_delay_;
	std::map<uint8_t, uint32_t> eqe_drop_;
	std::map<uint8_t, uint32_t> eqe_delay_;
	std::map<uint16_t, uint32_t> cmd_eqe_drop_;
	std::map<uint16_t, uint32_t> cmd_eqe_delay_;
	std::map<uint16_t, uint32_t> cmd_throw_;
	struct CqeRule {
		CqeKind kind = CqeKind::Any;
		uint32_t remaining = 0;
	};
	CqeRule cqe_repeat_;
	CqeRule cqe_corrupt_;
	CqeField corrupt_field_ = CqeField::WqeCounter;
	uint32_t corrupt_value_ = 0;
	std::atomic<bool> cqe_armed_{false};
	MemicBogus memic_how_ = MemicBogus::Outside;
	uint32_t memic_bogus_ = 0;
	std::vector<uint64_t> memic_bogus_addrs_; // answered, not yet freed
	std::atomic<uint32_t> sq_wqe_fail_{0};
};

} // namespace mlx5emu
