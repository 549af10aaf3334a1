// SPDX-License-Identifier: GPL-2.0
// Command opcode names (INIT_HCA <-> 0x102).
#pragma once

#include <cstdint>
#include <string>

namespace mlx5emu {

// "UNKNOWN" for opcodes without a name.
const char *opcode_name(uint16_t opcode);
// Accepts a symbolic name (case-insensitive) or a number (0x102, 258).
bool parse_opcode(const std::string &text, uint16_t *opcode);

} // namespace mlx5emu
