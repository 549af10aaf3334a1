// SPDX-License-Identifier: GPL-2.0
// The subnet-management agent behind MAD_IFC: answers the SMP queries a
// driver makes about its own port (NodeInfo, NodeDescription, PortInfo,
// GUIDInfo, P_KeyTable). The emulator plays the subnet manager, so the
// port is ACTIVE with a LID it assigned.
#pragma once

#include <cstdint>

namespace mlx5emu {

class Firmware;
struct CmdCtx;

namespace mad {
constexpr unsigned kSize = 256;
// MAD header
constexpr unsigned kBaseVersion = 0;
constexpr unsigned kMgmtClass = 1;
constexpr unsigned kClassVersion = 2;
constexpr unsigned kMethod = 3;
constexpr unsigned kStatus = 4; // be16
constexpr unsigned kAttrId = 16; // be16
constexpr unsigned kAttrMod = 20; // be32
// SMP
constexpr unsigned kSmpData = 64; // 64 bytes
constexpr unsigned kSmpDataLen = 64;

enum : uint8_t { CLASS_SUBN_LID_ROUTED = 0x01, CLASS_SUBN_DIRECTED_ROUTE = 0x81 };
enum : uint8_t { METHOD_GET = 0x01, METHOD_SET = 0x02, METHOD_GET_RESP = 0x81 };
enum : uint16_t {
	ATTR_NODE_DESC = 0x0010,
	ATTR_NODE_INFO = 0x0011,
	ATTR_GUID_INFO = 0x0014,
	ATTR_PORT_INFO = 0x0015,
	ATTR_PKEY_TABLE = 0x0016,
};
enum : uint16_t {
	STATUS_BAD_VERSION = 0x0004,
	STATUS_UNSUP_METHOD = 0x0008,
	STATUS_UNSUP_METHOD_ATTR = 0x000c,
	STATUS_INVALID_ATTR_VALUE = 0x001c,
	STATUS_DIRECTION = 0x8000, // directed-route response
};
// IB port states and MTU encoding.
enum : uint8_t { PORT_ACTIVE = 4, PHYS_LINK_UP = 5, PHYS_POLLING = 2 };
} // namespace mad

// Builds the response MAD for `req` into `resp` (both mad::kSize bytes).
void mad_process(const Firmware &fw, uint8_t port, const uint8_t *req, uint8_t *resp);

// The MAD_IFC command handler.
void mad_ifc(CmdCtx &c);

// The node description (64 bytes, NUL-padded): NodeDescription SMPs and,
// on an Ethernet port, the NODE_DESC register.
void node_description(const Firmware &fw, uint8_t *d64);

} // namespace mlx5emu
