// SPDX-License-Identifier: GPL-2.0
#include "fw/mad.h"

#include <cstdio>
#include <cstring>

#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "fw/prm.h"

namespace mlx5emu {

using bits::store_be16;
using bits::store_be32;
using bits::store_be64;

void node_description(const Firmware &fw, uint8_t *d64)
{
	std::memset(d64, 0, 64);
	std::snprintf(reinterpret_cast<char *>(d64), 64, "mlx5-emu HCA-%u", fw.cfg.index + 1);
}

namespace {

// NodeInfo (IBA 14.2.5.3), offsets inside the SMP data.
void node_info(const Firmware &fw, uint8_t port, uint8_t *d)
{
	const PortAttrs &p = fw.port();
	d[0] = 1; // BaseVersion
	d[1] = 1; // ClassVersion
	d[2] = 1; // NodeType: channel adapter
	d[3] = 1; // NumPorts
	store_be64(d + 4, p.system_image_guid);
	store_be64(d + 12, p.node_guid);
	store_be64(d + 20, p.port_guid);
	store_be16(d + 28, static_cast<uint16_t>(fw.caps.pkey_table_len()));
	store_be16(d + 30, fw.cfg.device_id);
	store_be32(d + 32, 0); // Revision
	store_be32(d + 36, static_cast<uint32_t>(port) << 24 | 0x0002c9); // LocalPortNum, VendorID
}

void node_desc(const Firmware &fw, uint8_t *d) { node_description(fw, d); }

// PortInfo (IBA 14.2.5.6).
void port_info(const Firmware &fw, uint8_t port, uint8_t *d)
{
	const PortAttrs &p = fw.port();
	store_be64(d + 8, p.gid_prefix);
	store_be16(d + 16, p.lid);
	store_be16(d + 18, p.sm_lid);
	store_be32(d + 20, p.cap_mask);
	d[28] = port;                         // LocalPortNum
	d[29] = 2;                            // LinkWidthEnabled: 4x
	d[30] = 3;                            // LinkWidthSupported: 1x, 4x
	d[31] = 2;                            // LinkWidthActive: 4x
	d[32] = 1 << 4 | mad::PORT_ACTIVE;    // LinkSpeedSupported SDR | PortState
	d[33] = mad::PHYS_LINK_UP << 4 | mad::PHYS_POLLING;
	d[34] = p.lmc & 7;                    // LMC
	d[35] = 1 << 4 | 1;                   // LinkSpeedActive | Enabled: SDR (see ext)
	d[36] = static_cast<uint8_t>(p.mtu << 4 | (p.sm_sl & 0xf)); // NeighborMTU | MasterSMSL
	d[37] = 1 << 4;                       // VLCap: VL0
	d[41] = p.mtu;                        // InitTypeReply 0 | MTUCap
	d[43] = 1 << 4;                       // OperationalVLs: VL0
	d[50] = static_cast<uint8_t>(fw.caps.gid_table_len()); // GUIDCap
	d[51] = p.subnet_timeout & 0x1f;
	d[52] = 16;                           // RespTimeValue
	d[62] = 2 << 4 | 3;                   // LinkSpeedExtActive EDR | Supported FDR, EDR
	d[63] = 3;                            // LinkSpeedExtEnabled
}

bool guid_info(const Firmware &fw, uint32_t block, uint8_t *d)
{
	unsigned len = fw.caps.gid_table_len();
	if (block * 8 >= len)
		return false;
	if (block == 0)
		store_be64(d, fw.port().port_guid);
	return true;
}

bool pkey_table(const Firmware &fw, uint32_t block, uint8_t *d)
{
	unsigned len = fw.caps.pkey_table_len();
	if (block * 32 >= len)
		return false;
	if (block == 0)
		store_be16(d, fw.port().pkey0);
	return true;
}

} // namespace

void mad_process(const Firmware &fw, uint8_t port, const uint8_t *req, uint8_t *resp)
{
	std::memcpy(resp, req, mad::kSize);
	uint8_t cls = req[mad::kMgmtClass];
	uint8_t method = req[mad::kMethod];
	uint16_t attr = bits::load_be16(req + mad::kAttrId);
	uint32_t mod = bits::load_be32(req + mad::kAttrMod);
	uint16_t st = 0;
	uint8_t *data = resp + mad::kSmpData;

	resp[mad::kMethod] = mad::METHOD_GET_RESP;
	if (cls != mad::CLASS_SUBN_LID_ROUTED && cls != mad::CLASS_SUBN_DIRECTED_ROUTE) {
		st = mad::STATUS_UNSUP_METHOD_ATTR;
	} else if (req[mad::kBaseVersion] != 1 || req[mad::kClassVersion] != 1) {
		st = mad::STATUS_BAD_VERSION;
	} else if (method != mad::METHOD_GET) {
		st = mad::STATUS_UNSUP_METHOD; // the port is configured by the emulator's SM
	} else {
		std::memset(data, 0, mad::kSmpDataLen);
		switch (attr) {
		case mad::ATTR_NODE_INFO:
			node_info(fw, port, data);
			break;
		case mad::ATTR_NODE_DESC:
			node_desc(fw, data);
			break;
		case mad::ATTR_PORT_INFO:
			if (mod != 0 && mod != port)
				st = mad::STATUS_INVALID_ATTR_VALUE;
			else
				port_info(fw, port, data);
			break;
		case mad::ATTR_GUID_INFO:
			if (!guid_info(fw, mod, data))
				st = mad::STATUS_INVALID_ATTR_VALUE;
			break;
		case mad::ATTR_PKEY_TABLE:
			if (!pkey_table(fw, mod & 0xffff, data))
				st = mad::STATUS_INVALID_ATTR_VALUE;
			break;
		default:
			st = mad::STATUS_UNSUP_METHOD_ATTR;
			break;
		}
	}
	if (cls == mad::CLASS_SUBN_DIRECTED_ROUTE)
		st |= mad::STATUS_DIRECTION;
	store_be16(resp + mad::kStatus, st);
}

void mad_ifc(CmdCtx &c)
{
	uint32_t port = c.get(prm::mad_ifc_in::port);
	if (port != 1)
		return c.fail(prm::status::BAD_PARAM, 1);
	mad_process(c.fw, static_cast<uint8_t>(port), c.in + prm::mad_ifc_in::kMad, c.out + prm::mad_ifc_in::kMad);
}

} // namespace mlx5emu
