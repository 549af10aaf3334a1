// SPDX-License-Identifier: GPL-2.0
// RoCE framing (roce_wire.h): the InfiniBand transport headers as bytes
// (BTH and the extended headers each opcode carries, IBA 9.2-9.5), behind
// an Ethernet / IP / UDP (RoCEv2) or Ethernet / GRH (RoCEv1) header, with
// the ICRC.
#include "exec/roce_wire.h"

#include <algorithm>
#include <cstring>

#include "prm/bits.h"
#include "steer/headers.h"
#include "util/crc32.h"

namespace mlx5emu {

namespace {

using bits::load_be16;
using bits::load_be32;
using bits::load_be64;
using bits::store_be16;
using bits::store_be32;
using bits::store_be64;

constexpr unsigned kBth = 12, kReth = 16, kAeth = 4, kAtomicEth = 28, kAtomicAckEth = 8, kDeth = 8, kImm = 4,
		   kIeth = 4, kXrcEth = 4, kIcrc = 4;
constexpr unsigned kIpv4 = 20, kIpv6 = 40, kUdp = 8;

// Which extended headers follow the BTH of `op` (IBA table 38).
struct Ext {
	bool reth = false, aeth = false, atomic = false, atomic_ack = false, deth = false, imm = false, ieth = false,
	     xrceth = false;
	bool known = false;
};

Ext ext_of(uint8_t op)
{
	Ext e;
	if (op == ibop::UD_SEND_ONLY || op == ibop::UD_SEND_ONLY_IMM) {
		e.known = e.deth = true;
		e.imm = op == ibop::UD_SEND_ONLY_IMM;
		return e;
	}
	uint8_t base = op;
	if (is_xrc_op(op)) {
		base = op & 0x1f;
		e.xrceth = !is_rc_response(base);
	} else if (is_uc_request(op)) {
		base = op & 0x1f;
	} else if (op >= 0x20) {
		return e; // RD, CNP and the rest: not ours
	}
	e.known = base <= ibop::RC_SEND_ONLY_INV && base != 0x15;
	switch (base) {
	case ibop::RC_SEND_LAST_IMM:
	case ibop::RC_SEND_ONLY_IMM:
	case ibop::RC_WRITE_LAST_IMM:
		e.imm = true;
		break;
	case ibop::RC_WRITE_FIRST:
	case ibop::RC_WRITE_ONLY:
	case ibop::RC_READ_REQUEST:
		e.reth = true;
		break;
	case ibop::RC_WRITE_ONLY_IMM:
		e.reth = e.imm = true;
		break;
	case ibop::RC_READ_RESPONSE_FIRST:
	case ibop::RC_READ_RESPONSE_LAST:
	case ibop::RC_READ_RESPONSE_ONLY:
	case ibop::RC_ACK:
		e.aeth = true;
		break;
	case ibop::RC_ATOMIC_ACK:
		e.aeth = e.atomic_ack = true;
		break;
	case ibop::RC_CMP_SWAP:
	case ibop::RC_FETCH_ADD:
		e.atomic = true;
		break;
	case ibop::RC_SEND_LAST_INV:
	case ibop::RC_SEND_ONLY_INV:
		e.ieth = true;
		break;
	default:
		break;
	}
	return e;
}

unsigned ext_len(const Ext &e)
{
	return (e.xrceth ? kXrcEth : 0) + (e.deth ? kDeth : 0) + (e.reth ? kReth : 0) + (e.atomic ? kAtomicEth : 0) +
	       (e.aeth ? kAeth : 0) + (e.atomic_ack ? kAtomicAckEth : 0) + (e.imm ? kImm : 0) + (e.ieth ? kIeth : 0);
}

// BTH and extended headers of `p` at `o`.
void put_transport(const Packet &p, const Ext &e, unsigned pad, uint8_t *o)
{
	o[0] = p.opcode;
	o[1] = static_cast<uint8_t>((p.solicited ? 0x80 : 0) | pad << 4); // TVer 0, no migration
	store_be16(o + 2, p.pkey);
	store_be32(o + 4, p.dqpn & 0xffffff);
	store_be32(o + 8, (p.ack_req ? 0x80000000u : 0) | (p.psn & 0xffffff));
	o += kBth;
	if (e.xrceth) {
		store_be32(o, p.xrc_srqn & 0xffffff);
		o += kXrcEth;
	}
	if (e.deth) {
		store_be32(o, p.qkey);
		store_be32(o + 4, p.sqpn & 0xffffff);
		o += kDeth;
	}
	if (e.reth) {
		store_be64(o, p.va);
		store_be32(o + 8, p.rkey);
		store_be32(o + 12, p.dma_len);
		o += kReth;
	}
	if (e.atomic) {
		store_be64(o, p.va);
		store_be32(o + 8, p.rkey);
		store_be64(o + 12, p.swap_add);
		store_be64(o + 20, p.compare);
		o += kAtomicEth;
	}
	if (e.aeth) {
		store_be32(o, static_cast<uint32_t>(p.syndrome) << 24 | (p.msn & 0xffffff));
		o += kAeth;
	}
	if (e.atomic_ack) {
		store_be64(o, p.orig);
		o += kAtomicAckEth;
	}
	if (e.imm) {
		std::memcpy(o, &p.imm, 4); // raw big-endian bytes
		o += kImm;
	}
	if (e.ieth)
		store_be32(o, p.inv_rkey);
}

// The transport headers at `t` (`n` bytes from the BTH through the ICRC).
bool get_transport(const uint8_t *t, size_t n, Packet *p)
{
	if (n < kBth + kIcrc)
		return false;
	p->opcode = t[0];
	p->solicited = t[1] & 0x80;
	unsigned pad = (t[1] >> 4) & 3;
	if (t[1] & 0xf)
		return false; // transport header version 0 only
	p->pkey = load_be16(t + 2);
	p->dqpn = load_be32(t + 4) & 0xffffff;
	uint32_t w = load_be32(t + 8);
	p->ack_req = w & 0x80000000u;
	p->psn = w & 0xffffff;
	Ext e = ext_of(p->opcode);
	if (!e.known || n < kBth + ext_len(e) + pad + kIcrc)
		return false;
	const uint8_t *o = t + kBth;
	if (e.xrceth) {
		p->xrc_srqn = load_be32(o) & 0xffffff;
		o += kXrcEth;
	}
	if (e.deth) {
		p->qkey = load_be32(o);
		p->sqpn = load_be32(o + 4) & 0xffffff;
		o += kDeth;
	}
	if (e.reth) {
		p->va = load_be64(o);
		p->rkey = load_be32(o + 8);
		p->dma_len = load_be32(o + 12);
		o += kReth;
	}
	if (e.atomic) {
		p->va = load_be64(o);
		p->rkey = load_be32(o + 8);
		p->swap_add = load_be64(o + 12);
		p->compare = load_be64(o + 20);
		o += kAtomicEth;
	}
	if (e.aeth) {
		uint32_t a = load_be32(o);
		p->syndrome = static_cast<uint8_t>(a >> 24);
		p->msn = a & 0xffffff;
		o += kAeth;
	}
	if (e.atomic_ack) {
		p->orig = load_be64(o);
		o += kAtomicAckEth;
	}
	if (e.imm) {
		std::memcpy(&p->imm, o, 4);
		o += kImm;
	}
	if (e.ieth) {
		p->inv_rkey = load_be32(o);
		o += kIeth;
	}
	size_t payload = n - kBth - ext_len(e) - pad - kIcrc;
	p->payload.assign(o, o + payload);
	return true;
}

} // namespace

bool RoceGid::valid() const
{
	return std::any_of(gid.begin(), gid.end(), [](uint8_t b) { return b != 0; });
}

bool is_ipv4_mapped(const Gid &g)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return std::memcmp(g.data(), prefix, 12) == 0;
}

uint32_t roce_icrc(const uint8_t *f, size_t len, size_t l3, bool v1)
{
	// The covered bytes: a masked LRH (8 ones), the network header with
	// its variant fields as ones, the UDP header with the checksum as
	// ones, the BTH with its reserved byte as ones, and the rest up to
	// the ICRC.
	std::vector<uint8_t> b(8 + (len - kIcrc - l3));
	std::memset(b.data(), 0xff, 8);
	std::memcpy(b.data() + 8, f + l3, len - kIcrc - l3);
	uint8_t *n = b.data() + 8;
	size_t bth;
	if (v1 || (n[0] >> 4) == 6) {
		n[0] |= 0x0f; // traffic class, flow label
		n[1] = n[2] = n[3] = 0xff;
		n[7] = 0xff;  // hop limit
		bth = kIpv6 + (v1 ? 0 : kUdp);
	} else {
		n[1] = 0xff;            // TOS
		n[8] = 0xff;            // TTL
		n[10] = n[11] = 0xff;   // header checksum
		bth = kIpv4 + kUdp;
	}
	if (!v1) {
		size_t udp = bth - kUdp;
		n[udp + 6] = n[udp + 7] = 0xff;
	}
	if (bth + kBth <= len - l3)
		n[bth + 4] = 0xff; // FECN, BECN, reserved
	return ~crc32_update(0xffffffffu, b.data(), b.size());
}

std::vector<uint8_t> roce_encode(const Packet &p, const RoceGid &src, const std::array<uint8_t, 6> &dmac)
{
	Ext e = ext_of(p.opcode);
	unsigned pad = static_cast<unsigned>((4 - p.payload.size() % 4) % 4);
	size_t transport = kBth + ext_len(e) + p.payload.size() + pad + kIcrc;
	bool v1 = src.version == roce::VERSION_1;
	bool v4 = !v1 && src.l3_type == roce::L3_IPV4;
	size_t l2 = 14 + (src.vlan_valid ? 4 : 0);
	size_t net = v1 ? kIpv6 : v4 ? kIpv4 + kUdp : kIpv6 + kUdp;
	std::vector<uint8_t> f(l2 + net + transport, 0);
	uint8_t *o = f.data();
	std::memcpy(o, dmac.data(), 6);
	std::memcpy(o + 6, src.mac.data(), 6);
	o += 12;
	if (src.vlan_valid) {
		store_be16(o, steer::ethertype::VLAN);
		store_be16(o + 2, src.vlan_id & 0xfff);
		o += 4;
	}
	store_be16(o, v1 ? roce::kEthertypeV1 : v4 ? steer::ethertype::IPV4 : steer::ethertype::IPV6);
	o += 2;
	size_t l3 = static_cast<size_t>(o - f.data());
	if (v4) {
		o[0] = 0x45;
		o[1] = p.grh.tclass;
		store_be16(o + 2, static_cast<uint16_t>(kIpv4 + kUdp + transport));
		store_be16(o + 6, 0x4000); // don't fragment
		o[8] = p.grh.hop_limit;
		o[9] = steer::ipproto::UDP;
		std::memcpy(o + 12, p.grh.sgid.data() + 12, 4);
		std::memcpy(o + 16, p.grh.dgid.data() + 12, 4);
		store_be16(o + 10, steer::csum_fold(steer::csum_add(0, o, kIpv4)));
		o += kIpv4;
	} else {
		Grh g = p.grh;
		uint16_t paylen = static_cast<uint16_t>(transport + (v1 ? 0 : kUdp));
		g.encode(paylen, o);
		o[6] = v1 ? Grh::kNextHeaderIba : steer::ipproto::UDP;
		o += kIpv6;
	}
	if (!v1) {
		store_be16(o, p.roce.udp_sport);
		store_be16(o + 2, roce::kUdpPort);
		store_be16(o + 4, static_cast<uint16_t>(kUdp + transport));
		// UDP checksum 0: RoCEv2 leaves it to the ICRC.
		o += kUdp;
	}
	put_transport(p, e, pad, o);
	// An ACK's payload may have no buffer at all: memcpy from null is
	// undefined even for 0 bytes (UBSan in make emu-test-asan).
	if (!p.payload.empty())
		std::memcpy(o + kBth + ext_len(e), p.payload.data(), p.payload.size());
	uint32_t icrc = roce_icrc(f.data(), f.size(), l3, v1);
	uint8_t *ic = f.data() + f.size() - kIcrc;
	for (int i = 0; i < 4; ++i)
		ic[i] = static_cast<uint8_t>(icrc >> (8 * i));
	return f;
}

bool roce_decode(const uint8_t *f, size_t len, Packet *p, bool *is_roce)
{
	*is_roce = false;
	steer::Headers h = steer::parse_headers(f, len);
	bool v1 = h.ethertype == roce::kEthertypeV1;
	size_t l3;
	if (v1) {
		l3 = 14 + (h.cvlan ? 4 : 0) + (h.svlan ? 4 : 0);
	} else {
		if (!h.is_udp() || h.dport != roce::kUdpPort)
			return false;
		l3 = h.l3_off;
	}
	*is_roce = true;
	*p = Packet{};
	RoceAddr &r = p->roce;
	std::memcpy(r.dmac.data(), h.dmac, 6);
	std::memcpy(r.smac.data(), h.smac, 6);
	r.vlan = h.cvlan;
	r.vlan_tci = h.vlan_tci;
	size_t transport;
	Grh &g = p->grh;
	g.present = true;
	if (v1 || h.ip_version == 6) {
		if (l3 + kIpv6 > len)
			return false;
		const uint8_t *n = f + l3;
		if ((n[0] >> 4) != 6 || (v1 && n[6] != Grh::kNextHeaderIba))
			return false;
		uint32_t w0 = load_be32(n);
		g.tclass = static_cast<uint8_t>(w0 >> 20);
		g.flow_label = w0 & 0xfffff;
		g.hop_limit = n[7];
		std::memcpy(g.sgid.data(), n + 8, 16);
		std::memcpy(g.dgid.data(), n + 24, 16);
		size_t end = l3 + kIpv6 + load_be16(n + 4);
		if (end > len)
			return false;
		size_t start = l3 + kIpv6 + (v1 ? 0 : kUdp);
		if (end < start)
			return false;
		transport = start;
		len = end; // Ethernet padding beyond the IP payload
		r.l3 = v1 ? roce::CQE_GRH : roce::CQE_IPV6;
	} else {
		const uint8_t *n = f + l3;
		if (!steer::ipv4_csum_ok(f, len, h) || (n[0] & 0xf) != 5 || h.frag)
			return false;
		g.tclass = n[1];
		g.hop_limit = n[8];
		g.sgid[10] = g.sgid[11] = g.dgid[10] = g.dgid[11] = 0xff;
		std::memcpy(g.sgid.data() + 12, n + 12, 4);
		std::memcpy(g.dgid.data() + 12, n + 16, 4);
		std::memcpy(r.ipv4.data(), n, kIpv4);
		size_t end = l3 + h.l3_len;
		if (end > len || h.l3_len < kIpv4 + kUdp)
			return false;
		transport = l3 + kIpv4 + kUdp;
		len = end;
		r.l3 = roce::CQE_IPV4;
	}
	if (!v1) {
		r.udp_sport = h.sport;
		if (load_be16(f + transport - kUdp + 4) != len - (transport - kUdp))
			return false;
	}
	if (len < transport + kBth + kIcrc)
		return false;
	uint32_t icrc = 0;
	for (int i = 0; i < 4; ++i)
		icrc |= static_cast<uint32_t>(f[len - kIcrc + i]) << (8 * i);
	if (icrc != roce_icrc(f, len, l3, v1))
		return false;
	return get_transport(f + transport, len - transport, p);
}

} // namespace mlx5emu
