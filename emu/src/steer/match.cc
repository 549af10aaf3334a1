// SPDX-License-Identifier: GPL-2.0
#include "steer/match.h"

#include <cstring>

#include "prm/eth.h"

namespace mlx5emu::steer {

namespace m = prm::match;
using bits::Field;

namespace {

// The outer-header fields the image fills (the frame parser's fields).
constexpr Field kOuterFields[] = {
	m::smac_47_16, m::smac_15_0, m::ethertype, m::dmac_47_16, m::dmac_15_0, m::first_prio, m::first_cfi,
	m::first_vid,  m::ip_protocol, m::ip_dscp, m::ip_ecn, m::cvlan_tag, m::svlan_tag, m::frag,
	m::ip_version, m::tcp_flags, m::tcp_sport, m::tcp_dport, m::ttl_hoplimit, m::udp_sport, m::udp_dport,
};

const MatchParam &supported_mask()
{
	static const MatchParam mask = [] {
		MatchParam p{};
		for (const Field &f : kOuterFields)
			bits::set(p.data(), f, f.mask());
		std::memset(p.data() + m::kSrcIp, 0xff, 16);
		std::memset(p.data() + m::kDstIp, 0xff, 16);
		return p;
	}();
	return mask;
}

const MatchParam &esw_supported_mask()
{
	static const MatchParam mask = [] {
		MatchParam p = supported_mask();
		bits::set(p.data(), m::source_port, m::source_port.mask());
		return p;
	}();
	return mask;
}

uint32_t mac_hi(const uint8_t *a)
{
	return static_cast<uint32_t>(a[0]) << 24 | a[1] << 16 | a[2] << 8 | a[3];
}
uint32_t mac_lo(const uint8_t *a) { return static_cast<uint32_t>(a[4] << 8 | a[5]); }

} // namespace

MatchParam match_image(const Headers &h)
{
	MatchParam p{};
	uint8_t *o = p.data();
	bits::set(o, m::smac_47_16, mac_hi(h.smac));
	bits::set(o, m::smac_15_0, mac_lo(h.smac));
	bits::set(o, m::dmac_47_16, mac_hi(h.dmac));
	bits::set(o, m::dmac_15_0, mac_lo(h.dmac));
	bits::set(o, m::ethertype, h.ethertype);
	if (h.cvlan || h.svlan) {
		bits::set(o, m::cvlan_tag, h.cvlan);
		bits::set(o, m::svlan_tag, h.svlan);
		bits::set(o, m::first_prio, h.vlan_tci >> 13);
		bits::set(o, m::first_cfi, (h.vlan_tci >> 12) & 1);
		bits::set(o, m::first_vid, h.vlan_tci & 0xfff);
	}
	if (h.ip_version) {
		bits::set(o, m::ip_version, h.ip_version);
		bits::set(o, m::ip_protocol, h.ip_proto);
		bits::set(o, m::ip_dscp, h.dscp);
		bits::set(o, m::ip_ecn, h.ecn);
		bits::set(o, m::frag, h.frag);
		bits::set(o, m::ttl_hoplimit, h.ttl);
		if (h.ip_version == 4) {
			std::memcpy(o + m::kSrcIp + 12, h.src_ip + 12, 4);
			std::memcpy(o + m::kDstIp + 12, h.dst_ip + 12, 4);
		} else {
			std::memcpy(o + m::kSrcIp, h.src_ip, 16);
			std::memcpy(o + m::kDstIp, h.dst_ip, 16);
		}
	}
	if (h.is_tcp()) {
		bits::set(o, m::tcp_sport, h.sport);
		bits::set(o, m::tcp_dport, h.dport);
		bits::set(o, m::tcp_flags, h.tcp_flags);
	} else if (h.is_udp()) {
		bits::set(o, m::udp_sport, h.sport);
		bits::set(o, m::udp_dport, h.dport);
	}
	return p;
}

MatchParam esw_match_image(const Headers &h, uint16_t source_port)
{
	MatchParam p = match_image(h);
	bits::set(p.data(), m::source_port, source_port);
	return p;
}

bool criteria_supported(const MatchParam &criteria, uint8_t enable, bool esw)
{
	const MatchParam &mask = esw ? esw_supported_mask() : supported_mask();
	for (unsigned sec = 0; sec < m::kSize / m::kSectionSize; ++sec) {
		if (!(enable >> sec & 1))
			continue;
		for (unsigned i = sec * m::kSectionSize; i < (sec + 1) * m::kSectionSize; ++i)
			if (criteria[i] & ~mask[i])
				return false;
	}
	return true;
}

bool matches(const MatchParam &image, const MatchParam &criteria, const MatchParam &value, uint8_t enable)
{
	for (unsigned sec = 0; sec < m::kSize / m::kSectionSize; ++sec) {
		if (!(enable >> sec & 1))
			continue;
		for (unsigned i = sec * m::kSectionSize; i < (sec + 1) * m::kSectionSize; ++i)
			if ((image[i] ^ value[i]) & criteria[i])
				return false;
	}
	return true;
}

} // namespace mlx5emu::steer
