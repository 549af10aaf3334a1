// SPDX-License-Identifier: GPL-2.0
#include "fw/mad.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

using bits::load_be16;
using bits::load_be32;
using bits::store_be16;
using bits::store_be32;
using bits::store_be64;

void default_node_description(const Firmware &fw, uint8_t *d64)
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
	d[2] = mad::NODE_CA;
	d[3] = 1; // NumPorts
	store_be64(d + 4, p.system_image_guid);
	store_be64(d + 12, p.node_guid);
	store_be64(d + 20, p.port_guid);
	store_be16(d + 28, static_cast<uint16_t>(fw.caps.pkey_table_len()));
	store_be16(d + 30, fw.cfg.device_id);
	store_be32(d + 32, 0); // Revision
	store_be32(d + 36, static_cast<uint32_t>(port) << 24 | 0x0002c9); // LocalPortNum, VendorID
}

// One SMP attribute, Get or Set; the status of the answer.
uint16_t smp_attribute(Firmware &fw, uint8_t port, const uint8_t *req, uint8_t *d, PortChanges *ch)
{
	PortAttrs &p = fw.port();
	bool set = req[mad::kMethod] == mad::METHOD_SET;
	uint16_t attr = load_be16(req + mad::kAttrId);
	uint32_t mod = load_be32(req + mad::kAttrMod);
	const uint8_t *sd = req + mad::kSmpData;
	constexpr uint16_t kBad = mad::STATUS_INVALID_ATTR_VALUE;
	switch (attr) {
	case mad::ATTR_NODE_INFO:
		if (set)
			return mad::STATUS_UNSUP_METHOD_ATTR;
		node_info(fw, port, d);
		return 0;
	case mad::ATTR_NODE_DESC:
		if (set)
			return mad::STATUS_UNSUP_METHOD_ATTR;
		std::memcpy(d, fw.node_desc, sizeof(fw.node_desc));
		return 0;
	case mad::ATTR_PORT_INFO:
		if (mod != 0 && mod != port)
			return kBad;
		if (set && !sma::set_port_info(p, sd, ch)) {
			sma::get_port_info(p, port, d);
			return kBad;
		}
		sma::get_port_info(p, port, d);
		return 0;
	case mad::ATTR_GUID_INFO:
		if (set && !sma::set_guids(p, mod, sd, ch))
			return kBad;
		return sma::get_guids(p, mod, d) ? 0 : kBad;
	case mad::ATTR_PKEY_TABLE:
		if (set && !sma::set_pkeys(p, mod & 0xffff, sd, ch))
			return kBad;
		return sma::get_pkeys(p, mod & 0xffff, d) ? 0 : kBad;
	case mad::ATTR_SL_TO_VL_TABLE:
		if (set && !sma::set_sl2vl(p, sd))
			return kBad;
		sma::get_sl2vl(p, d);
		return 0;
	case mad::ATTR_VL_ARB_TABLE:
		if (set && !sma::set_vlarb(p, mod >> 16, sd))
			return kBad;
		return sma::get_vlarb(p, mod >> 16, d) ? 0 : kBad;
	default:
		return mad::STATUS_UNSUP_METHOD_ATTR;
	}
}

// PerfMgt (IBA 16.1): the port's counters from the data path.
uint16_t pma(Firmware &fw, uint8_t port, const uint8_t *req, uint8_t *resp)
{
	uint8_t method = req[mad::kMethod];
	uint16_t attr = load_be16(req + mad::kAttrId);
	uint8_t *d = resp + mad::kPmaData;
	const uint8_t *sd = req + mad::kPmaData;
	if (method != mad::METHOD_GET && method != mad::METHOD_SET)
		return mad::STATUS_UNSUP_METHOD;
	if (attr == mad::ATTR_CLASS_PORT_INFO) {
		if (method == mad::METHOD_SET)
			return mad::STATUS_UNSUP_METHOD_ATTR;
		std::memset(d, 0, mad::kSize - mad::kPmaData);
		d[0] = 1;                 // BaseVersion
		d[1] = 1;                 // ClassVersion
		store_be16(d + 2, 1u << 9); // CapabilityMask: PortCountersExtended
		store_be32(d + 4, 18);    // RespTimeValue
		return 0;
	}
	if (attr != mad::ATTR_PORT_COUNTERS && attr != mad::ATTR_PORT_COUNTERS_EXT)
		return mad::STATUS_UNSUP_METHOD_ATTR;
	if (sd[1] != port && sd[1] != 0xff)
		return mad::STATUS_INVALID_ATTR_VALUE;
	auto lk = fw.dp().lock();
	if (method == mad::METHOD_SET)
		fw.dp().clear_port_traffic(); // one set of counters: a Set clears them all
	DataPath::PortTraffic t = fw.dp().port_traffic();
	lk.unlock();
	uint8_t select = sd[1];
	uint16_t cselect = load_be16(sd + 2);
	std::memset(d, 0, mad::kSize - mad::kPmaData);
	d[1] = select;
	store_be16(d + 2, cselect);
	auto sat32 = [](uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, 0xffffffffu)); };
	auto sat16 = [](uint64_t v) { return static_cast<uint16_t>(std::min<uint64_t>(v, 0xffffu)); };
	if (attr == mad::ATTR_PORT_COUNTERS) {
		store_be16(d + 8, sat16(t.rcv_errors));     // PortRcvErrors
		store_be16(d + 14, sat16(t.xmit_discards)); // PortXmitDiscards
		store_be32(d + 24, sat32(t.xmit_bytes / 4));
		store_be32(d + 28, sat32(t.rcv_bytes / 4));
		store_be32(d + 32, sat32(t.xmit_pkts));
		store_be32(d + 36, sat32(t.rcv_pkts));
	} else {
		bits::store_be64(d + 8, t.xmit_bytes / 4);
		bits::store_be64(d + 16, t.rcv_bytes / 4);
		bits::store_be64(d + 24, t.xmit_pkts);
		bits::store_be64(d + 32, t.rcv_pkts);
		bits::store_be64(d + 40, t.xmit_pkts - t.xmit_mcast);
		bits::store_be64(d + 48, t.rcv_pkts - t.rcv_mcast);
		bits::store_be64(d + 56, t.xmit_mcast);
		bits::store_be64(d + 64, t.rcv_mcast);
	}
	return 0;
}

} // namespace

bool mad_process(Firmware &fw, uint8_t port, const uint8_t *req, uint8_t *resp, bool check_mkey)
{
	uint8_t cls = req[mad::kMgmtClass];
	uint8_t method = req[mad::kMethod];
	sma::begin_response(req, resp);
	if (req[mad::kBaseVersion] != 1 || req[mad::kClassVersion] != 1) {
		sma::finish_response(resp, mad::STATUS_BAD_VERSION);
		return true;
	}
	if (cls == mad::CLASS_PERF_MGMT) {
		store_be16(resp + mad::kStatus, pma(fw, port, req, resp));
		return true;
	}
	if (cls != mad::CLASS_SUBN_LID_ROUTED && cls != mad::CLASS_SUBN_DIRECTED_ROUTE) {
		sma::finish_response(resp, mad::STATUS_UNSUP_METHOD_ATTR);
		return true;
	}
	if (method != mad::METHOD_GET && method != mad::METHOD_SET) {
		sma::finish_response(resp, mad::STATUS_UNSUP_METHOD);
		return true;
	}
	bool hide = false;
	if (check_mkey && !sma::mkey_allows(fw.port(), req, &hide)) {
		++fw.port().mkey_violations;
		return false;
	}
	PortChanges ch;
	uint16_t st = smp_attribute(fw, port, req, resp + mad::kSmpData, &ch);
	if (hide) {
		std::memset(resp + mad::kMkey, 0, 8);
		if (load_be16(req + mad::kAttrId) == mad::ATTR_PORT_INFO)
			std::memset(resp + mad::kSmpData, 0, 8);
	}
	sma::finish_response(resp, st);
	if (!st && method == mad::METHOD_SET)
		fw.port_changed(ch);
	return true;
}

void mad_ifc(CmdCtx &c)
{
	uint32_t port = c.get(prm::mad_ifc_in::port);
	if (port != 1)
		return c.fail(prm::status::BAD_PARAM, 1);
	// Subnet management belongs to the function with the SMI: a VF's
	// driver (has_smi 0) sends no SMP here, and one that does is
	// refused before the agent sees it.
	uint8_t mclass = c.in[prm::mad_ifc_in::kMad + 1];
	if (!c.fw.has_smi() && (mclass == mad::CLASS_SUBN_LID_ROUTED || mclass == mad::CLASS_SUBN_DIRECTED_ROUTE))
		return c.fail(prm::status::BAD_PARAM, 3);
	bool check_mkey = !(c.op_mod & 1);
	if (!mad_process(c.fw, static_cast<uint8_t>(port), c.in + prm::mad_ifc_in::kMad, c.out + prm::mad_ifc_in::kMad,
			 check_mkey))
		return c.fail(prm::status::BAD_PARAM, 2); // refused by the M_Key: the driver sends no answer
}

} // namespace mlx5emu
