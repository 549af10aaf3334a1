// SPDX-License-Identifier: GPL-2.0
// Management datagram layouts shared by every SMA on the fabric (the HCA
// firmware's behind MAD_IFC, the switch's) and the PMA: the common MAD
// header, the SMP's LID-routed and directed-route forms (IBA 13.4, 14.2.1),
// attribute and status codes.
#pragma once

#include <cstdint>

#include "fabric/packet.h"

namespace mlx5emu::mad {

constexpr unsigned kSize = 256;
// Common MAD header.
constexpr unsigned kBaseVersion = 0;
constexpr unsigned kMgmtClass = 1;
constexpr unsigned kClassVersion = 2;
constexpr unsigned kMethod = 3;
constexpr unsigned kStatus = 4; // be16; bit 15 of a directed-route SMP: D (returning)
constexpr unsigned kHopPtr = 6; // directed route
constexpr unsigned kHopCnt = 7; // directed route
constexpr unsigned kTid = 8;
constexpr unsigned kAttrId = 16; // be16
constexpr unsigned kAttrMod = 20; // be32
// SMP
constexpr unsigned kMkey = 24;    // be64
constexpr unsigned kDrSlid = 32;  // be16, directed route
constexpr unsigned kDrDlid = 34;  // be16, directed route
constexpr unsigned kSmpData = 64; // 64 bytes
constexpr unsigned kSmpDataLen = 64;
constexpr unsigned kInitialPath = 128; // 64 bytes, directed route
constexpr unsigned kReturnPath = 192;  // 64 bytes, directed route
constexpr unsigned kMaxHops = 63;
// GMP (PMA): 40 reserved bytes after the header, then the data.
constexpr unsigned kPmaData = 64;

constexpr uint16_t kPermissiveLid = 0xffff;
// Multicast LIDs: is_multicast_lid() in fabric/packet.h.

enum : uint8_t { CLASS_SUBN_LID_ROUTED = 0x01, CLASS_SUBN_DIRECTED_ROUTE = 0x81, CLASS_PERF_MGMT = 0x04 };
enum : uint8_t {
	METHOD_GET = 0x01,
	METHOD_SET = 0x02,
	METHOD_TRAP = 0x05,
	METHOD_TRAP_REPRESS = 0x07,
	METHOD_GET_RESP = 0x81,
};
enum : uint16_t {
	ATTR_CLASS_PORT_INFO = 0x0001,
	ATTR_NODE_DESC = 0x0010,
	ATTR_NODE_INFO = 0x0011,
	ATTR_SWITCH_INFO = 0x0012,
	ATTR_GUID_INFO = 0x0014,
	ATTR_PORT_INFO = 0x0015,
	ATTR_PKEY_TABLE = 0x0016,
	ATTR_SL_TO_VL_TABLE = 0x0017,
	ATTR_VL_ARB_TABLE = 0x0018,
	ATTR_LINEAR_FT = 0x0019,
	ATTR_MULTICAST_FT = 0x001b,
	ATTR_SM_INFO = 0x0020,
	// PerfMgt
	ATTR_PORT_COUNTERS = 0x0012,
	ATTR_PORT_COUNTERS_EXT = 0x001d,
};
enum : uint16_t {
	STATUS_BAD_VERSION = 0x0004,
	STATUS_UNSUP_METHOD = 0x0008,
	STATUS_UNSUP_METHOD_ATTR = 0x000c,
	STATUS_INVALID_ATTR_VALUE = 0x001c,
	STATUS_DIRECTION = 0x8000, // directed-route: returning
};
// PortInfo PortState and PortPhysicalState (IBA 14.2.5.6).
enum : uint8_t { PORT_NOP = 0, PORT_DOWN = 1, PORT_INIT = 2, PORT_ARMED = 3, PORT_ACTIVE = 4 };
enum : uint8_t { PHYS_SLEEP = 1, PHYS_POLLING = 2, PHYS_DISABLED = 3, PHYS_LINK_UP = 5 };
// NodeInfo NodeType.
enum : uint8_t { NODE_CA = 1, NODE_SWITCH = 2 };

} // namespace mlx5emu::mad
