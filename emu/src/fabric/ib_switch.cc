// SPDX-License-Identifier: GPL-2.0
#include "fabric/ib_switch.h"

#include <cstdio>
#include <cstring>

#include "prm/bits.h"

namespace mlx5emu {

using bits::load_be16;
using bits::load_be32;
using bits::store_be16;
using bits::store_be32;
using bits::store_be64;

namespace {
constexpr uint16_t kDeviceId = 0xd2f0; // a Quantum-like switch ASIC
} // namespace

IbSwitch::IbSwitch(unsigned nports, uint64_t node_guid, bool internal_sm)
	: guid_(node_guid), internal_sm_(internal_sm), lft_(kLftCap, kNoPort), mft_(kMftCap)
{
	resize(nports);
}

void IbSwitch::resize(unsigned nports)
{
	size_t old = ports_.size();
	if (nports + 1 <= old)
		return;
	ports_.resize(nports + 1);
	for (size_t n = old; n < ports_.size(); ++n) {
		SmaPort &p = ports_[n];
		p.init(guid_, kPkeyEntries, n == 0 ? 1 : 0);
		p.lid_fields = n == 0;
		p.link_up = n == 0;
		p.state = n == 0 || internal_sm_ ? mad::PORT_ACTIVE : mad::PORT_INIT;
		p.cap_mask = n == 0 ? 1u << 11 | 1u << 14 : 0; // port 0: IsSystemImageGUIDSupported, IsExtendedSpeedsSupported
	}
}

void IbSwitch::set_link(unsigned n, bool up)
{
	if (!port_ok(n))
		return;
	ports_[n].link_up = up;
	if (!up)
		ports_[n].state = mad::PORT_DOWN;
	else if (ports_[n].state == mad::PORT_DOWN)
		ports_[n].state = internal_sm_ ? mad::PORT_ACTIVE : mad::PORT_INIT;
	life_state_ |= 1 << 2; // PortStateChange
}

void IbSwitch::program_lid(uint16_t lid, uint8_t lmc, unsigned n)
{
	for (unsigned i = 0; i < (1u << lmc); ++i) {
		unsigned l = (lid & ~((1u << lmc) - 1)) + i;
		if (l && l < kLftCap) {
			lft_[l] = static_cast<uint8_t>(n);
			if (l > lft_top_)
				lft_top_ = static_cast<uint16_t>(l);
		}
	}
}

std::vector<unsigned> IbSwitch::outports(uint16_t mlid) const
{
	std::vector<unsigned> v;
	if (!is_multicast_lid(mlid) || unsigned(mlid - kMulticastLidFirst) >= kMftCap)
		return v;
	const auto &e = mft_[mlid - kMulticastLidFirst];
	for (unsigned n = 1; n < ports_.size() && n < kMftPositions * 16; ++n)
		if (e[n / 16] >> (n % 16) & 1)
			v.push_back(n);
	return v;
}

void IbSwitch::receive(unsigned in, Packet p, Out *out)
{
	if (!port_ok(in) || !ports_[in].link_up) {
		++c_.dropped;
		return;
	}
	// The management port's SMI takes VL15 packets for QP0 only (a UD
	// QP's packet to QPN 0 came on a data VL); data VLs are forwarded.
	bool to_sma = p.dlid == mad::kPermissiveLid || (lid() && p.dlid == lid());
	if (to_sma && p.dqpn == 0 && p.vl != kVl15) {
		++c_.qp0_dropped;
		return;
	}
	bool smp = p.vl == kVl15 && p.dqpn == 0 && p.payload.size() >= mad::kSize;
	if (smp && p.payload[mad::kMgmtClass] == mad::CLASS_SUBN_DIRECTED_ROUTE && p.dlid == mad::kPermissiveLid)
		return directed_route(in, std::move(p), out);
	if (smp && to_sma)
		return lid_routed_smp(in, std::move(p), out);
	forward(in, std::move(p), out);
}

// IBA 14.2.2.2 as a switch: an outgoing SMP (D = 0) at an intermediate hop
// records the port it came by in the return path and leaves by the next
// initial-path port; at the end of the path the SMA answers, and the
// answer (D = 1) goes back by the return path, the hop pointer counting
// down.
void IbSwitch::directed_route(unsigned in, Packet p, Out *out)
{
	uint8_t *m = p.payload.data();
	bool returning = load_be16(m + mad::kStatus) & mad::STATUS_DIRECTION;
	unsigned ptr = m[mad::kHopPtr], cnt = m[mad::kHopCnt];
	if (cnt > mad::kMaxHops) {
		++c_.dropped;
		return;
	}
	if (!returning) {
		if (ptr == 0 || ptr > cnt + 1) {
			++c_.dropped;
			return;
		}
		if (ptr < cnt) {
			m[mad::kReturnPath + ptr] = static_cast<uint8_t>(in);
			++ptr;
			unsigned next = m[mad::kInitialPath + ptr];
			if (!port_ok(next) || !ports_[next].link_up) {
				++c_.dropped;
				return;
			}
			m[mad::kHopPtr] = static_cast<uint8_t>(ptr);
			++c_.forwarded;
			out->emplace_back(next, std::move(p));
			return;
		}
		if (ptr == cnt) {
			m[mad::kReturnPath + ptr] = static_cast<uint8_t>(in);
			++ptr;
			m[mad::kHopPtr] = static_cast<uint8_t>(ptr);
			if (load_be16(m + mad::kDrDlid) != mad::kPermissiveLid) {
				++c_.dropped; // a LID-routed part after the directed one: not modelled
				return;
			}
		}
		// ptr == cnt + 1: the SMP is for this switch.
		std::vector<uint8_t> resp(mad::kSize);
		if (!sma(in, m, resp.data()))
			return;
		// The answer retraces the path: hop pointer cnt + 1 -> cnt, out by
		// return_path[cnt] (the port the request came in by).
		unsigned back = resp[mad::kReturnPath + cnt];
		resp[mad::kHopPtr] = static_cast<uint8_t>(cnt);
		if (!port_ok(back)) {
			++c_.dropped;
			return;
		}
		Packet r = reply_packet(p, std::move(resp));
		r.dlid = mad::kPermissiveLid;
		r.slid = mad::kPermissiveLid;
		out->emplace_back(back, std::move(r));
		return;
	}
	// Returning: 2 <= ptr <= cnt passes through toward the SM.
	if (ptr >= 2 && ptr <= cnt) {
		--ptr;
		unsigned back = m[mad::kReturnPath + ptr];
		if (!port_ok(back) || !ports_[back].link_up) {
			++c_.dropped;
			return;
		}
		m[mad::kHopPtr] = static_cast<uint8_t>(ptr);
		++c_.forwarded;
		out->emplace_back(back, std::move(p));
		return;
	}
	++c_.dropped; // the SM is never on the switch
}

void IbSwitch::lid_routed_smp(unsigned in, Packet p, Out *out)
{
	std::vector<uint8_t> resp(mad::kSize);
	if (p.payload[mad::kMgmtClass] != mad::CLASS_SUBN_LID_ROUTED || !sma(in, p.payload.data(), resp.data()))
		return;
	Packet r = reply_packet(p, std::move(resp));
	r.slid = lid();
	r.dlid = p.slid;
	if (p.slid == mad::kPermissiveLid) {
		out->emplace_back(in, std::move(r));
		return;
	}
	unsigned o = lft(p.slid);
	if (!port_ok(o)) {
		++c_.dropped;
		return;
	}
	out->emplace_back(o, std::move(r));
}

Packet IbSwitch::reply_packet(const Packet &req, std::vector<uint8_t> mad) const
{
	Packet r;
	r.opcode = ibop::UD_SEND_ONLY;
	r.sl = req.sl;
	r.vl = kVl15;
	r.pkey = req.pkey;
	r.dqpn = req.sqpn;
	r.sqpn = 0;
	r.payload = std::move(mad);
	return r;
}

void IbSwitch::forward(unsigned in, Packet p, Out *out)
{
	bool smp = p.vl == kVl15;
	// Data leaves and enters only by ACTIVE ports; SMPs (VL15) by any
	// port with a link.
	auto usable = [&](unsigned n) { return port_ok(n) && ports_[n].link_up && (smp || ports_[n].active()); };
	if (!usable(in)) {
		++c_.dropped;
		return;
	}
	if (is_multicast_lid(p.dlid)) {
		std::vector<unsigned> to = outports(p.dlid);
		if (to.empty() && internal_sm_) // the emulator's SM programs no groups: flood
			for (unsigned n = 1; n < ports_.size(); ++n)
				to.push_back(n);
		size_t before = out->size();
		for (unsigned n : to)
			if (n != in && usable(n))
				out->emplace_back(n, p);
		if (out->size() == before)
			++c_.dropped;
		else
			++c_.forwarded;
		return;
	}
	unsigned o = p.dlid <= lft_top_ || internal_sm_ ? lft(p.dlid) : kNoPort;
	if (!usable(o) || o == in) {
		++c_.dropped;
		return;
	}
	++c_.forwarded;
	out->emplace_back(o, std::move(p));
}

// SwitchInfo (IBA 14.2.5.4).
uint16_t IbSwitch::switch_info(const uint8_t *req, uint8_t *d)
{
	if (req[mad::kMethod] == mad::METHOD_SET) {
		const uint8_t *s = req + mad::kSmpData;
		uint16_t top = load_be16(s + 6);
		if (top >= kLftCap)
			return mad::STATUS_INVALID_ATTR_VALUE;
		lft_top_ = top;
		default_port_ = s[8];
		default_mcast_primary_ = s[9];
		default_mcast_not_primary_ = s[10];
		uint8_t ls = s[11];
		life_state_ = static_cast<uint8_t>((ls & 0xf8) | (life_state_ & 0x04 & ~(ls & 0x04)));
		mft_top_ = load_be16(s + 18);
	}
	store_be16(d + 0, kLftCap);
	store_be16(d + 2, 0);
	store_be16(d + 4, kMftCap);
	store_be16(d + 6, lft_top_);
	d[8] = default_port_;
	d[9] = default_mcast_primary_;
	d[10] = default_mcast_not_primary_;
	d[11] = life_state_;
	store_be16(d + 12, 0);             // LIDsPerPort
	store_be16(d + 14, 0);             // PartitionEnforcementCap
	d[16] = 0;                         // no enforcement, base port 0
	store_be16(d + 18, mft_top_);
	return 0;
}

bool IbSwitch::sma(unsigned in, const uint8_t *req, uint8_t *resp)
{
	++c_.sma_requests;
	uint8_t method = req[mad::kMethod];
	if (method != mad::METHOD_GET && method != mad::METHOD_SET)
		return false;
	bool hide;
	if (!sma::mkey_allows(ports_[0], req, &hide))
		return false;
	sma::begin_response(req, resp);
	if (hide)
		std::memset(resp + mad::kMkey, 0, 8);
	uint16_t st = 0;
	uint16_t attr = load_be16(req + mad::kAttrId);
	uint32_t mod = load_be32(req + mad::kAttrMod);
	bool set = method == mad::METHOD_SET;
	const uint8_t *sd = req + mad::kSmpData;
	uint8_t *d = resp + mad::kSmpData;
	if (req[mad::kBaseVersion] != 1 || req[mad::kClassVersion] != 1) {
		st = mad::STATUS_BAD_VERSION;
	} else {
		switch (attr) {
		case mad::ATTR_NODE_INFO:
			if (set) {
				st = mad::STATUS_UNSUP_METHOD_ATTR;
				break;
			}
			d[0] = 1;
			d[1] = 1;
			d[2] = mad::NODE_SWITCH;
			d[3] = static_cast<uint8_t>(ports());
			store_be64(d + 4, guid_);  // SystemImageGUID
			store_be64(d + 12, guid_); // NodeGUID
			store_be64(d + 20, guid_); // PortGUID (port 0)
			store_be16(d + 28, kPkeyEntries);
			store_be16(d + 30, kDeviceId);
			store_be32(d + 32, 0);
			store_be32(d + 36, in << 24 | 0x0002c9);
			break;
		case mad::ATTR_NODE_DESC:
			if (set)
				st = mad::STATUS_UNSUP_METHOD_ATTR;
			else
				std::snprintf(reinterpret_cast<char *>(d), mad::kSmpDataLen, "mlx5-emu switch");
			break;
		case mad::ATTR_SWITCH_INFO:
			st = switch_info(req, d);
			break;
		case mad::ATTR_PORT_INFO: {
			unsigned n = mod & 0xff;
			if (n >= ports_.size()) {
				st = mad::STATUS_INVALID_ATTR_VALUE;
				break;
			}
			if (set) {
				uint8_t data[mad::kSmpDataLen];
				std::memcpy(data, sd, sizeof data);
				if (n == 0)
					data[32] &= 0xf0; // port 0's state follows the switch
				PortChanges ch;
				if (!sma::set_port_info(ports_[n], data, &ch))
					st = mad::STATUS_INVALID_ATTR_VALUE;
			}
			std::memset(d, 0, mad::kSmpDataLen);
			// LocalPortNum: the port the SMP came in by, whichever port it describes.
			sma::get_port_info(ports_[n], static_cast<uint8_t>(in), d);
			if (hide)
				std::memset(d, 0, 8);
			break;
		}
		case mad::ATTR_PKEY_TABLE: {
			unsigned n = mod >> 16, block = mod & 0xffff;
			PortChanges ch;
			if (n >= ports_.size() || (set && !sma::set_pkeys(ports_[n], block, sd, &ch)) ||
			    !sma::get_pkeys(ports_[n], block, d))
				st = mad::STATUS_INVALID_ATTR_VALUE;
			break;
		}
		case mad::ATTR_GUID_INFO: {
			PortChanges ch;
			if ((set && !sma::set_guids(ports_[0], mod, sd, &ch)) || !sma::get_guids(ports_[0], mod, d))
				st = mad::STATUS_INVALID_ATTR_VALUE;
			break;
		}
		case mad::ATTR_SL_TO_VL_TABLE: {
			unsigned i = mod >> 8 & 0xff, o = mod & 0xff;
			if (i >= ports_.size() || o >= ports_.size()) {
				st = mad::STATUS_INVALID_ATTR_VALUE;
				break;
			}
			auto &t = sl2vl_[static_cast<uint16_t>(i << 8 | o)];
			if (set) {
				SmaPort probe = ports_[o];
				if (!sma::set_sl2vl(probe, sd)) {
					st = mad::STATUS_INVALID_ATTR_VALUE;
					break;
				}
				std::memcpy(t.data(), sd, t.size());
			}
			std::memcpy(d, t.data(), t.size());
			break;
		}
		case mad::ATTR_VL_ARB_TABLE: {
			unsigned n = mod & 0xffff, block = mod >> 16;
			if (n >= ports_.size() || (set && !sma::set_vlarb(ports_[n], block, sd)) ||
			    !sma::get_vlarb(ports_[n], block, d))
				st = mad::STATUS_INVALID_ATTR_VALUE;
			break;
		}
		case mad::ATTR_LINEAR_FT: {
			if (static_cast<uint64_t>(mod) * 64 >= kLftCap) {
				st = mad::STATUS_INVALID_ATTR_VALUE;
				break;
			}
			if (set)
				std::memcpy(&lft_[mod * 64], sd, 64);
			std::memcpy(d, &lft_[mod * 64], 64);
			break;
		}
		case mad::ATTR_MULTICAST_FT: {
			unsigned block = mod & 0x1ff, pos = mod >> 28;
			if (static_cast<uint64_t>(block) * 32 >= kMftCap || pos >= kMftPositions) {
				st = mad::STATUS_INVALID_ATTR_VALUE;
				break;
			}
			for (unsigned i = 0; i < 32; ++i) {
				uint16_t &e = mft_[block * 32 + i][pos];
				if (set)
					e = load_be16(sd + 2 * i);
				store_be16(d + 2 * i, e);
			}
			break;
		}
		default:
			st = mad::STATUS_UNSUP_METHOD_ATTR;
			break;
		}
	}
	sma::finish_response(resp, st);
	return true;
}

} // namespace mlx5emu
