// SPDX-License-Identifier: GPL-2.0
#include "fabric/sma_port.h"

#include <cstring>

#include "prm/bits.h"

namespace mlx5emu {

using bits::load_be16;
using bits::load_be64;
using bits::store_be16;
using bits::store_be64;

void SmaPort::init(uint64_t guid, unsigned pkey_entries, unsigned guid_entries)
{
	port_guid = guid;
	pkeys.assign(pkey_entries ? pkey_entries : 1, 0);
	pkeys[0] = 0xffff;
	guids.assign(guid_entries ? guid_entries : 1, 0);
	guids[0] = guid;
}

namespace sma {

void get_port_info(const SmaPort &p, uint8_t local_port, uint8_t *d)
{
	if (p.lid_fields) {
		store_be64(d + 0, p.mkey);
		store_be64(d + 8, p.gid_prefix);
		store_be16(d + 16, p.lid);
		store_be16(d + 18, p.sm_lid);
		store_be16(d + 26, p.mkey_lease);
	}
	bits::store_be32(d + 20, p.cap_mask);
	d[28] = local_port;
	d[29] = p.link_width_enabled;
	d[30] = 3;                                      // LinkWidthSupported: 1x, 4x
	d[31] = p.link_up ? 2 : 0;                      // LinkWidthActive: 4x
	d[32] = static_cast<uint8_t>(1 << 4 | (p.link_up ? p.state : uint8_t{mad::PORT_DOWN})); // LinkSpeedSupported SDR | PortState
	d[33] = static_cast<uint8_t>((p.link_up ? mad::PHYS_LINK_UP : mad::PHYS_POLLING) << 4 | mad::PHYS_POLLING);
	d[34] = static_cast<uint8_t>((p.lid_fields ? p.mkey_protect << 6 | (p.lmc & 7) : 0));
	d[35] = static_cast<uint8_t>(1 << 4 | (p.link_speed_enabled & 0xf)); // LinkSpeedActive SDR | Enabled
	d[36] = static_cast<uint8_t>(p.neighbor_mtu << 4 | (p.lid_fields ? p.sm_sl & 0xf : 0));
	d[37] = static_cast<uint8_t>(p.vl_cap << 4);   // VLCap | InitType 0
	d[38] = p.vl_high_limit;
	d[39] = 8;                                      // VLArbitrationHighCap
	d[40] = 8;                                      // VLArbitrationLowCap
	d[41] = p.mtu_cap;                              // InitTypeReply 0 | MTUCap
	d[42] = static_cast<uint8_t>((p.vl_stall & 7) << 5 | (p.hoq_life & 0x1f));
	d[43] = static_cast<uint8_t>(p.op_vls << 4 | (p.enforcement & 0xf));
	store_be16(d + 44, p.mkey_violations);
	d[50] = static_cast<uint8_t>(p.guids.size());   // GUIDCap
	d[51] = p.subnet_timeout & 0x1f;                // ClientReregister reads 0
	d[52] = 16;                                     // RespTimeValue
	d[62] = static_cast<uint8_t>((p.link_up ? 2 : 0) << 4 | 3); // LinkSpeedExtActive EDR | Supported FDR, EDR
	d[63] = p.speed_ext_enabled & 0x1f;
}

bool set_port_info(SmaPort &p, const uint8_t *d, PortChanges *ch)
{
	SmaPort n = p;
	uint8_t want_state = d[32] & 0xf;
	uint8_t width = d[29], speed = d[35] & 0xf;
	uint8_t nmtu = d[36] >> 4, opvls = d[43] >> 4;
	if (p.lid_fields) {
		uint16_t lid = load_be16(d + 16), sm_lid = load_be16(d + 18);
		if (is_multicast_lid(lid) || lid == mad::kPermissiveLid)
			return false;
		if (is_multicast_lid(sm_lid) || sm_lid == mad::kPermissiveLid)
			return false;
		n.mkey = load_be64(d + 0);
		n.gid_prefix = load_be64(d + 8);
		n.lid = lid;
		n.sm_lid = sm_lid;
		n.mkey_lease = load_be16(d + 26);
		n.mkey_protect = d[34] >> 6;
		n.lmc = d[34] & 7;
		n.sm_sl = d[36] & 0xf;
	}
	// PortState: no change, DOWN from any state, ARMED from INIT, ACTIVE
	// from ARMED (setting the state a port is in is a no-op).
	switch (want_state) {
	case mad::PORT_NOP:
		break;
	case mad::PORT_DOWN:
		n.state = mad::PORT_INIT; // the link retrains: back to INIT, LID kept
		break;
	case mad::PORT_ARMED:
		if (p.state != mad::PORT_INIT && p.state != mad::PORT_ARMED)
			return false;
		n.state = mad::PORT_ARMED;
		break;
	case mad::PORT_ACTIVE:
		if (p.state != mad::PORT_ARMED && p.state != mad::PORT_ACTIVE)
			return false;
		n.state = mad::PORT_ACTIVE;
		break;
	default:
		return false;
	}
	if (want_state != mad::PORT_NOP && !p.link_up)
		return false;
	uint8_t phys = d[33] >> 4;
	if (phys != 0 && phys != mad::PHYS_POLLING && phys != mad::PHYS_DISABLED)
		return false;
	if (width == 0xff)
		n.link_width_enabled = 3;
	else if (width) {
		if (width & ~3u)
			return false;
		n.link_width_enabled = width;
	}
	if (speed == 0xf)
		n.link_speed_enabled = 1;
	else if (speed) {
		if (speed & ~1u)
			return false;
		n.link_speed_enabled = speed;
	}
	if (uint8_t ext = d[63] & 0x1f; ext == 0x1e)
		n.speed_ext_enabled = 3;
	else if (ext)
		n.speed_ext_enabled = ext & 3;
	if (nmtu) {
		if (nmtu > p.mtu_cap)
			return false;
		n.neighbor_mtu = nmtu;
	}
	if (opvls) {
		if (opvls > p.vl_cap)
			return false;
		n.op_vls = opvls;
	}
	n.vl_high_limit = d[38];
	n.vl_stall = d[42] >> 5;
	n.hoq_life = d[42] & 0x1f;
	n.enforcement = d[43] & 0xf;
	n.subnet_timeout = d[51] & 0x1f;
	bool rereg = d[51] & 0x80;
	if (load_be16(d + 44) == 0)
		n.mkey_violations = 0;

	ch->lid = n.lid != p.lid || n.lmc != p.lmc;
	ch->sm = n.sm_lid != p.sm_lid || n.sm_sl != p.sm_sl;
	ch->state = n.state != p.state || want_state == mad::PORT_DOWN;
	ch->old_state = p.state;
	ch->gid = n.gid_prefix != p.gid_prefix;
	ch->rereg = rereg;
	p = std::move(n);
	return true;
}

bool get_pkeys(const SmaPort &p, uint32_t block, uint8_t *d)
{
	if (static_cast<uint64_t>(block) * kPkeysPerBlock >= p.pkeys.size())
		return false;
	for (unsigned i = 0; i < kPkeysPerBlock && block * kPkeysPerBlock + i < p.pkeys.size(); ++i)
		store_be16(d + 2 * i, p.pkeys[block * kPkeysPerBlock + i]);
	return true;
}

bool set_pkeys(SmaPort &p, uint32_t block, const uint8_t *d, PortChanges *ch)
{
	if (static_cast<uint64_t>(block) * kPkeysPerBlock >= p.pkeys.size())
		return false;
	for (unsigned i = 0; i < kPkeysPerBlock && block * kPkeysPerBlock + i < p.pkeys.size(); ++i) {
		uint16_t &e = p.pkeys[block * kPkeysPerBlock + i];
		uint16_t v = load_be16(d + 2 * i);
		if (e != v)
			ch->pkey = true;
		e = v;
	}
	return true;
}

bool get_guids(const SmaPort &p, uint32_t block, uint8_t *d)
{
	if (static_cast<uint64_t>(block) * kGuidsPerBlock >= p.guids.size())
		return false;
	for (unsigned i = 0; i < kGuidsPerBlock && block * kGuidsPerBlock + i < p.guids.size(); ++i)
		store_be64(d + 8 * i, p.guids[block * kGuidsPerBlock + i]);
	return true;
}

bool set_guids(SmaPort &p, uint32_t block, const uint8_t *d, PortChanges *ch)
{
	if (static_cast<uint64_t>(block) * kGuidsPerBlock >= p.guids.size())
		return false;
	for (unsigned i = 0; i < kGuidsPerBlock && block * kGuidsPerBlock + i < p.guids.size(); ++i) {
		unsigned idx = block * kGuidsPerBlock + i;
		if (idx == 0)
			continue; // GUID 0 is the port GUID
		uint64_t v = load_be64(d + 8 * i);
		if (p.guids[idx] != v)
			ch->gid = true;
		p.guids[idx] = v;
	}
	return true;
}

void get_sl2vl(const SmaPort &p, uint8_t *d) { std::memcpy(d, p.sl2vl.data(), p.sl2vl.size()); }

bool set_sl2vl(SmaPort &p, const uint8_t *d)
{
	// Every SL maps to a data VL the port has, or to VL15 (drop).
	unsigned vls = 1u << (p.vl_cap - 1);
	for (unsigned i = 0; i < 16; ++i) {
		unsigned vl = (d[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;
		if (vl != 15 && vl >= vls)
			return false;
	}
	std::memcpy(p.sl2vl.data(), d, p.sl2vl.size());
	return true;
}

bool get_vlarb(const SmaPort &p, uint32_t block, uint8_t *d)
{
	if (block < 1 || block > 4)
		return false;
	std::memcpy(d, p.vlarb[block - 1].data(), 64);
	return true;
}

bool set_vlarb(SmaPort &p, uint32_t block, const uint8_t *d)
{
	if (block < 1 || block > 4)
		return false;
	std::memcpy(p.vlarb[block - 1].data(), d, 64);
	return true;
}

bool mkey_allows(const SmaPort &p, const uint8_t *req, bool *hide_mkey)
{
	*hide_mkey = false;
	if (!p.lid_fields || p.mkey == 0 || load_be64(req + mad::kMkey) == p.mkey)
		return true;
	uint8_t method = req[mad::kMethod];
	if (method == mad::METHOD_GET) {
		if (p.mkey_protect == 0)
			return true;
		if (p.mkey_protect == 1) {
			*hide_mkey = true;
			return true;
		}
	}
	return false;
}

void begin_response(const uint8_t *req, uint8_t *resp)
{
	std::memcpy(resp, req, mad::kSize);
	resp[mad::kMethod] = mad::METHOD_GET_RESP;
	if (req[mad::kMethod] == mad::METHOD_GET)
		std::memset(resp + mad::kSmpData, 0, mad::kSmpDataLen);
}

void finish_response(uint8_t *resp, uint16_t status)
{
	if (resp[mad::kMgmtClass] == mad::CLASS_SUBN_DIRECTED_ROUTE)
		status |= mad::STATUS_DIRECTION;
	store_be16(resp + mad::kStatus, status);
}

} // namespace sma
} // namespace mlx5emu
