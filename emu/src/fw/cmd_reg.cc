// SPDX-License-Identifier: GPL-2.0
// ACCESS_REG: the registers the emulated device implements.
#include <algorithm>
#include <cstring>

#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "fw/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

constexpr uint32_t kHostEndiannessLen = 16;

void access_reg(CmdCtx &c)
{
	namespace ar = access_register_in;
	uint16_t id = static_cast<uint16_t>(c.get(ar::register_id));
	if (c.op_mod != ar::WRITE && c.op_mod != ar::READ)
		return c.fail(status::BAD_PARAM, 1);

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
	default:
		// No other register is implemented (nor advertised through
		// PCAM/MCAM/QCAM).
		return c.fail(status::BAD_PARAM, 0x10);
	}
}

constexpr CmdSpec kCommands[] = {
	{op::ACCESS_REG, access_reg, access_register_in::kData, access_register_in::kData, Need::Enabled},
};

} // namespace

std::span<const CmdSpec> reg_commands() { return kCommands; }

} // namespace mlx5emu
