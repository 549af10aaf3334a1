// SPDX-License-Identifier: GPL-2.0
// The port's access registers (port_regs.cc).
#pragma once

#include <cstdint>

namespace mlx5emu {

struct CmdCtx;

// ACCESS_REG of register `id` on an Ethernet port: PAOS, PTYS, PMTU,
// PPCNT, PFCC. False when `id` is not one of them (the caller fails it).
bool eth_port_register(CmdCtx &c, uint16_t id);
// The same on an InfiniBand port: PTYS, PMTU, PVLC, read-only.
bool ib_port_register(CmdCtx &c, uint16_t id);

} // namespace mlx5emu
