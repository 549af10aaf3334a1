// SPDX-License-Identifier: GPL-2.0
// Fault injection driven by the control channel: failing or delaying
// commands, dropping or delaying EQEs.
#pragma once

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
};

} // namespace mlx5emu
