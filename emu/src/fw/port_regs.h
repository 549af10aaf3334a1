// SPDX-License-Identifier: GPL-2.0
// The port's access registers (port_regs.cc, port_qos.cc).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "fw/cmd_registry.h"
#include "prm/bits.h"
#include "prm/prm.h"

namespace mlx5emu {

// ACCESS_REG of register `id` on an Ethernet port: PAOS, PTYS, PMTU,
// PPCNT, PFCC and the QoS registers of port_qos.cc. False when `id` is not
// one of them (the caller fails it).
bool eth_port_register(CmdCtx &c, uint16_t id);
// The same on an InfiniBand port: PTYS, PMTU, PVLC, read-only.
bool ib_port_register(CmdCtx &c, uint16_t id);
// The QoS registers (port_qos.cc): QETCR, QTCT, QPTS, QPDPM, QCAM,
// DCBX_PARAM, PBMC, PPTB, PCAM.
bool eth_qos_register(CmdCtx &c, uint16_t id);

// One access of a port register: its data in the input (a write) and the
// output (the answer), `size` bytes each.
struct PortReg {
	CmdCtx &c;
	unsigned size;
	const uint8_t *in() const { return c.in + prm::access_register_in::kData; }
	uint8_t *out() const { return c.out + prm::access_register_in::kData; }
	uint32_t get(bits::Field f) const { return bits::get(in(), f); }
	void put(bits::Field f, uint32_t v) const { bits::set(out(), f, v); }
	bool write() const { return c.op_mod == prm::access_register_in::WRITE; }
	// Checks the lengths and that `port` names the port (1, or 0 too when
	// `port0` says the register's users leave it 0), then starts the answer
	// as the request (index fields echoed). False: the command failed.
	bool begin(bits::Field port, bool port0 = false);
};

// A capability-mask register (PCAM, QCAM, MCAM; read-only): group 0 names
// `regs` (register base + n is bit n), the other groups are empty.
void reg_cam(PortReg r, std::initializer_list<uint16_t> regs, uint16_t base);

} // namespace mlx5emu
