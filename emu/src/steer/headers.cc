// SPDX-License-Identifier: GPL-2.0
#include "steer/headers.h"

#include <algorithm>
#include <cstring>

namespace mlx5emu::steer {

namespace {

uint16_t be16(const uint8_t *p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

bool is_ipv6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 60; // hop-by-hop, routing, destination options
}

void parse_l4(const uint8_t *f, size_t len, Headers &h, unsigned off)
{
	if (h.ip_proto == ipproto::TCP && off + 20 <= len) {
		h.l4_off = off;
		h.sport = be16(f + off);
		h.dport = be16(f + off + 2);
		h.l4_hdr_len = (f[off + 12] >> 4) * 4u;
		h.tcp_flags = static_cast<uint16_t>((f[off + 12] & 1) << 8 | f[off + 13]);
	} else if (h.ip_proto == ipproto::UDP && off + 8 <= len) {
		h.l4_off = off;
		h.sport = be16(f + off);
		h.dport = be16(f + off + 2);
		h.l4_hdr_len = 8;
	} else if ((h.ip_proto == ipproto::ICMP || h.ip_proto == ipproto::ICMPV6) && off + 4 <= len) {
		h.l4_off = off;
	}
}

} // namespace

bool Headers::broadcast() const
{
	static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	return std::memcmp(dmac, bc, 6) == 0;
}

Headers parse_headers(const uint8_t *f, size_t len)
{
	Headers h;
	if (len < 14)
		return h;
	std::memcpy(h.dmac, f, 6);
	std::memcpy(h.smac, f + 6, 6);
	unsigned off = 12;
	uint16_t et = be16(f + off);
	for (int tags = 0; (et == ethertype::VLAN || et == ethertype::QINQ) && tags < 2; ++tags) {
		if (off + 6 > len)
			return h;
		if (tags == 0) {
			(et == ethertype::VLAN ? h.cvlan : h.svlan) = true;
			h.vlan_tci = be16(f + off + 2);
		}
		off += 4;
		et = be16(f + off);
	}
	h.ethertype = et;
	off += 2;
	if (et == ethertype::IPV4 && off + 20 <= len && (f[off] >> 4) == 4) {
		unsigned ihl = (f[off] & 0xf) * 4u;
		if (ihl < 20 || off + ihl > len)
			return h;
		h.l3_off = off;
		h.ip_version = 4;
		h.dscp = f[off + 1] >> 2;
		h.ecn = f[off + 1] & 3;
		h.l3_len = be16(f + off + 2);
		uint16_t frag = be16(f + off + 6);
		h.frag = (frag & 0x3fff) != 0; // MF or an offset
		h.ttl = f[off + 8];
		h.ip_proto = f[off + 9];
		std::memcpy(h.src_ip + 12, f + off + 12, 4);
		std::memcpy(h.dst_ip + 12, f + off + 16, 4);
		if (!h.frag)
			parse_l4(f, len, h, off + ihl);
	} else if (et == ethertype::IPV6 && off + 40 <= len && (f[off] >> 4) == 6) {
		h.l3_off = off;
		h.ip_version = 6;
		uint8_t tc = static_cast<uint8_t>((f[off] & 0xf) << 4 | f[off + 1] >> 4);
		h.dscp = tc >> 2;
		h.ecn = tc & 3;
		h.l3_len = 40u + be16(f + off + 4);
		h.ttl = f[off + 7];
		std::memcpy(h.src_ip, f + off + 8, 16);
		std::memcpy(h.dst_ip, f + off + 24, 16);
		uint8_t nh = f[off + 6];
		unsigned p = off + 40;
		for (int n = 0; is_ipv6_ext(nh) && n < 4; ++n) {
			if (p + 8 > len)
				return h;
			nh = f[p];
			p += (f[p + 1] + 1u) * 8;
		}
		if (nh == 44) { // fragment header
			h.frag = true;
			h.ip_proto = p + 1 <= len ? f[p] : 0;
			return h;
		}
		h.ip_proto = nh;
		parse_l4(f, len, h, p);
	}
	return h;
}

uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t s = sum;
	size_t i = 0;
	for (; i + 1 < len; i += 2)
		s += static_cast<uint32_t>(p[i] << 8 | p[i + 1]);
	if (i < len)
		s += static_cast<uint32_t>(p[i] << 8);
	while (s >> 32)
		s = (s & 0xffffffff) + (s >> 32);
	return static_cast<uint32_t>(s);
}

uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return static_cast<uint16_t>(~sum & 0xffff);
}

uint32_t pseudo_header_sum(const Headers &h, unsigned l4_len)
{
	uint32_t s = 0;
	if (h.ip_version == 4) {
		s = csum_add(s, h.src_ip + 12, 4);
		s = csum_add(s, h.dst_ip + 12, 4);
		s += h.ip_proto;
		s += l4_len;
	} else {
		s = csum_add(s, h.src_ip, 16);
		s = csum_add(s, h.dst_ip, 16);
		s += l4_len >> 16;
		s += l4_len & 0xffff;
		s += h.ip_proto;
	}
	return s;
}

bool ipv4_csum_ok(const uint8_t *f, size_t len, const Headers &h)
{
	if (h.ip_version != 4)
		return false;
	unsigned ihl = (f[h.l3_off] & 0xf) * 4u;
	if (h.l3_off + ihl > len)
		return false;
	return csum_fold(csum_add(0, f + h.l3_off, ihl)) == 0;
}

bool l4_csum_ok(const uint8_t *f, size_t len, const Headers &h)
{
	if (!h.is_tcp() && !h.is_udp())
		return false;
	unsigned l3_hdr = h.l4_off - h.l3_off;
	if (h.l3_len < l3_hdr || h.l3_off + h.l3_len > len)
		return false;
	unsigned l4_len = h.l3_len - l3_hdr;
	if (h.is_udp() && h.ip_version == 4 && be16(f + h.l4_off + 6) == 0)
		return true;
	uint32_t s = pseudo_header_sum(h, l4_len);
	return csum_fold(csum_add(s, f + h.l4_off, l4_len)) == 0;
}

} // namespace mlx5emu::steer
