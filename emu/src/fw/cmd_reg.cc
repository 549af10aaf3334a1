// SPDX-License-Identifier: GPL-2.0
// ACCESS_REG: the registers the emulated device implements, and what a VF
// may write of them.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>

#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "fw/port_regs.h"
#include "prm/eth.h"
#include "prm/prm.h"
#include "util/log.h"

namespace mlx5emu {

namespace {

using namespace prm;

constexpr uint32_t kHostEndiannessLen = 16;

// A VF's ACCESS_REG writes, by register. Reads are every function's (a VF
// sees the physical port). The physical port belongs to the PF: a VF may
// not shape it, and a register not listed is refused on a VF.
enum class VfWrite : uint8_t {
	Allow,  // as on a PF
	Ignore, // accepted, no effect: answered as a read
	Refuse, // BAD_PARAM
};

struct VfRegRule {
	uint16_t id;
	VfWrite write;
};

constexpr VfRegRule kVfRegisterWrites[] = {
	// mlx5_core's open writes PAOS (port up) on a VF too, unguarded,
	// while it guards the other writes a VF may not make with
	// mlx5_core_is_pf() (HOST_ENDIANNESS, MRTC): a ConnectX VF takes the
	// write, and it leaves the physical port as it is.
	{reg_eth::PAOS, VfWrite::Ignore},
	// mlx5e's MTU change writes PMTU on a VF and fails on an error: the
	// VF's own MTU (this function's, the NIC vport MTU bounds it).
	{reg_eth::PMTU, VfWrite::Allow},
	// InfiniBand: the node description is the function's. Its
	// capability mask goes through MODIFY_HCA_VPORT_CONTEXT (ib_virt),
	// within the bits the vport may change: PCAP would let a VF claim
	// IsSM on the port.
	{reg::NODE_DESC, VfWrite::Allow},
	{reg::PCAP, VfWrite::Refuse},
	// Port shaping and the PF's own settings.
	{reg_eth::PTYS, VfWrite::Refuse},
	{reg_eth::PFCC, VfWrite::Refuse},
	{reg_eth::PPCNT, VfWrite::Refuse},
	{reg::HOST_ENDIANNESS, VfWrite::Refuse},
};

VfWrite vf_write(uint16_t id)
{
	for (const VfRegRule &r : kVfRegisterWrites)
		if (r.id == id)
			return r.write;
	return VfWrite::Refuse;
}

// Once per register and function: what the driver asked for.
void log_unknown_register(const CmdCtx &c, uint16_t id)
{
	static std::mutex mu;
	static std::set<std::pair<const Firmware *, uint16_t>> seen;
	std::lock_guard<std::mutex> lk(mu);
	if (seen.insert({&c.fw, id}).second)
		log_info("hca%u: ACCESS_REG of register 0x%04x (%s) is not implemented: BAD_PARAM", c.fw.cfg.index,
			 id, c.op_mod == access_register_in::WRITE ? "write" : "read");
}

void access_reg(CmdCtx &c)
{
	namespace ar = access_register_in;
	uint16_t id = static_cast<uint16_t>(c.get(ar::register_id));
	if (c.op_mod != ar::WRITE && c.op_mod != ar::READ)
		return c.fail(status::BAD_PARAM, 1);
	if (c.op_mod == ar::WRITE && c.fw.cfg.is_vf()) {
		switch (vf_write(id)) {
		case VfWrite::Allow:
			break;
		case VfWrite::Ignore:
			c.op_mod = ar::READ;
			break;
		case VfWrite::Refuse:
			++c.fw.refusals.vf_refused;
			return c.fail(status::BAD_PARAM, 0x11);
		}
	}

	switch (id) {
	case reg::HOST_ENDIANNESS: {
		Firmware &fw = c.fw;
		if (c.op_mod == ar::WRITE) {
			if (c.inlen < ar::kData + kHostEndiannessLen)
				return c.fail(status::BAD_INPUT_LEN, 2);
			std::memcpy(fw.host_endianness, c.in + ar::kData, kHostEndiannessLen);
		}
		uint32_t n = std::min<uint32_t>(kHostEndiannessLen, c.outlen - ar::kData);
		std::memcpy(c.out + ar::kData, fw.host_endianness, n);
		return;
	}
	case reg::PCAP: {
		// local_port at byte 1, port_capability_mask[0] at byte 4: the
		// PortInfo CapabilityMask (the driver sets IsSM, IsCM through it).
		constexpr uint32_t kLen = 20;
		if (c.inlen < ar::kData + kLen)
			return c.fail(status::BAD_INPUT_LEN, 3);
		if (c.in[ar::kData + 1] != 1)
			return c.fail(status::BAD_PARAM, 4);
		PortAttrs &p = c.fw.port();
		if (c.op_mod == ar::WRITE)
			p.cap_mask = bits::load_be32(c.in + ar::kData + 4);
		if (c.outlen >= ar::kData + kLen) {
			c.out[ar::kData + 1] = 1;
			bits::store_be32(c.out + ar::kData + 4, p.cap_mask);
		}
		return;
	}
	case reg::NODE_DESC: {
		// The 64 bytes of NodeDescription; the SMA answers with what
		// software wrote (ASCII, not necessarily NUL-terminated).
		constexpr uint32_t kLen = sizeof(c.fw.node_desc);
		if (c.op_mod == ar::WRITE) {
			if (c.inlen < ar::kData + kLen)
				return c.fail(status::BAD_INPUT_LEN, 5);
			std::memcpy(c.fw.node_desc, c.in + ar::kData, kLen);
		}
		if (c.outlen < ar::kData + kLen)
			return c.fail(status::BAD_OUTPUT_LEN, 6);
		std::memcpy(c.out + ar::kData, c.fw.node_desc, kLen);
		return;
	}
	default:
		if (c.fw.fwup.access(c, id))
			return;
		if (c.fw.state == FnState::Initialized &&
		    (c.fw.is_eth() ? eth_port_register(c, id) : ib_port_register(c, id)))
			return;
		// No other register is implemented (nor advertised through
		// PCAM/MCAM/QCAM).
		log_unknown_register(c, id);
		return c.fail(status::BAD_PARAM, 0x10);
	}
}

constexpr CmdSpec kCommands[] = {
	{op::ACCESS_REG, access_reg, access_register_in::kData, access_register_in::kData, Need::Enabled},
};

} // namespace

std::span<const CmdSpec> reg_commands() { return kCommands; }

} // namespace mlx5emu
