// SPDX-License-Identifier: GPL-2.0
// The opcode -> handler table and the context a handler runs in.
#pragma once

#include <cstdint>
#include <span>

#include "prm/bits.h"

namespace mlx5emu {

class Firmware;

// Function state a command needs.
enum class Need : uint8_t {
	Any,         // even a disabled function (ENABLE_HCA, NOP)
	Enabled,     // after ENABLE_HCA
	NotInit,     // enabled but before INIT_HCA (SET_HCA_CAP, INIT_HCA)
	Initialized, // after INIT_HCA
	EthInitialized, // after INIT_HCA, on an Ethernet port only (NIC, flow steering)
};

// One command being executed. Handlers read the input with get(), write
// the output with put()/out, and report errors with fail(); the header
// (status, syndrome) is filled in by the command engine.
struct CmdCtx {
	Firmware &fw;
	const uint8_t *in;
	uint32_t inlen;
	uint8_t *out;
	uint32_t outlen;
	uint16_t opcode;
	uint16_t op_mod;
	uint16_t uid;
	uint8_t status = 0;
	uint32_t syndrome = 0;

	uint32_t get(bits::Field f) const { return bits::get(in, inlen, f); }
	void put(bits::Field f, uint32_t v) { bits::set(out, outlen, f, v); }
	// Syndromes are (opcode << 16 | reason): unique per error site and
	// easy to decode from a driver log.
	void fail(uint8_t st, uint32_t reason)
	{
		status = st;
		syndrome = static_cast<uint32_t>(opcode) << 16 | (reason & 0xffff);
	}
	bool ok() const { return status == 0; }
};

// Which functions may issue a command. The one place that says what a VF
// may not: a Manager command from a VF fails BAD_OP, as a command its caps
// do not advertise does (no vport_group_manager / eswitch_manager). A
// command with no row at all is BAD_OP on every function.
enum class Who : uint8_t {
	Any,     // every function, PF or VF
	Manager, // the vport group / e-switch manager (a PF), never a VF
};

struct CmdSpec {
	uint16_t opcode;
	void (*handler)(CmdCtx &);
	uint32_t min_inlen;  // shorter input -> BAD_INPUT_LEN
	uint32_t min_outlen; // shorter output -> BAD_OUTPUT_LEN
	Need need;
	Who who = Who::Any;
};

// The vport commands' common check: only the function's own vport
// (other_vport 0, vport_number 0; dword 2 of every vport command's input).
// False, with the command failed BAD_PARAM and `reason`, otherwise.
bool own_vport(CmdCtx &c, uint32_t reason);
// The same for the commands a manager may send for another vport: 0 for
// its own, n with other_vport for VF n of its adapter (a PF with VFs);
// -1, with the command failed BAD_PARAM and `reason`, for anything else (a
// VF never names another vport).
int target_vport(CmdCtx &c, uint32_t reason);

// Per-group tables (cmd_*.cc).
std::span<const CmdSpec> hca_commands();
std::span<const CmdSpec> pages_commands();
std::span<const CmdSpec> eq_commands();
std::span<const CmdSpec> vport_commands();
std::span<const CmdSpec> reg_commands();
std::span<const CmdSpec> misc_commands();
std::span<const CmdSpec> pd_commands();
std::span<const CmdSpec> mkey_commands();
std::span<const CmdSpec> cq_commands();
std::span<const CmdSpec> qp_commands();
std::span<const CmdSpec> dct_commands();
std::span<const CmdSpec> srq_commands();
std::span<const CmdSpec> mcg_commands();
std::span<const CmdSpec> nic_commands();
std::span<const CmdSpec> flow_table_commands();
std::span<const CmdSpec> nic_vport_commands();
std::span<const CmdSpec> roce_commands();
std::span<const CmdSpec> memic_commands();
std::span<const CmdSpec> uctx_commands();
std::span<const CmdSpec> odp_commands();
std::span<const CmdSpec> esw_commands();
std::span<const CmdSpec> umem_commands();

// nullptr for an opcode the firmware does not implement.
const CmdSpec *find_command(uint16_t opcode);

// Runs `ctx` through the table: state and length checks, then the handler.
void dispatch_command(CmdCtx &ctx);

} // namespace mlx5emu
