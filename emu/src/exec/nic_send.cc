// SPDX-License-Identifier: GPL-2.0
// The Ethernet send path: SQ doorbells, send WQEs (control segment,
// Ethernet segment with the inline headers, checksum-offload flags and the
// LSO MSS, data pointers), checksum insertion, LSO segmentation, the frame
// onto the L2 switch (and back to this function's own receive path when
// it is addressed to it), and the TX completion.
#include <cstring>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/prm.h"
#include "prm/cq.h"
#include "prm/eth.h"
#include "prm/wqe.h"
#include "queues/faults.h"

namespace mlx5emu {

namespace {

namespace w = prm::wqe;

constexpr uint8_t kOpSend = 0x0a, kOpLso = 0x0e, kOpNop = 0x00;
constexpr unsigned kEthSeg = 16;              // after the control segment
constexpr unsigned kEthCsFlags = 4;           // u8
constexpr unsigned kEthMss = 6;               // be16
constexpr unsigned kEthInlineSz = 12;         // be16
constexpr unsigned kEthInlineStart = 14;      // the first 2 inline bytes
constexpr uint8_t kCsL3 = 1u << 6, kCsL4 = 1u << 7;
constexpr unsigned kMaxFrame = 64 * 1024 + 256; // LSO payload + headers
constexpr unsigned kWqesPerTask = 256;
// Local-protection / length error syndromes of a send CQE.
constexpr uint8_t kSyndLocalLength = 0x01, kSyndLocalProt = 0x04, kSyndLocalQpOp = 0x02;

uint16_t be16(const uint8_t *p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = static_cast<uint8_t>(v >> 8);
	p[1] = static_cast<uint8_t>(v);
}

// Fills in the IPv4 header checksum and the TCP/UDP checksum of a frame,
// as the checksum-offload flags ask.
void insert_checksums(std::vector<uint8_t> &f, uint8_t cs_flags)
{
	steer::Headers h = steer::parse_headers(f.data(), f.size());
	if ((cs_flags & kCsL3) && h.ip_version == 4) {
		uint8_t *ip = f.data() + h.l3_off;
		unsigned ihl = (ip[0] & 0xf) * 4u;
		put_be16(ip + 10, 0);
		put_be16(ip + 10, steer::csum_fold(steer::csum_add(0, ip, ihl)));
	}
	if ((cs_flags & kCsL4) && (h.is_tcp() || h.is_udp())) {
		unsigned l3_hdr = h.l4_off - h.l3_off;
		if (h.l3_len < l3_hdr || h.l3_off + h.l3_len > f.size())
			return;
		unsigned l4_len = h.l3_len - l3_hdr;
		uint8_t *l4 = f.data() + h.l4_off;
		unsigned at = h.is_tcp() ? 16 : 6;
		put_be16(l4 + at, 0);
		uint16_t c = steer::csum_fold(steer::csum_add(steer::pseudo_header_sum(h, l4_len), l4, l4_len));
		if (h.is_udp() && c == 0)
			c = 0xffff;
		put_be16(l4 + at, c);
	}
}

// Cuts a TCP super-frame (headers + payload) into MSS-sized frames with
// their own IP lengths, IPv4 ids, sequence numbers and flags; checksums
// are inserted afterwards.
bool lso_segments(const std::vector<uint8_t> &f, unsigned mss, std::vector<std::vector<uint8_t>> *out)
{
	steer::Headers h = steer::parse_headers(f.data(), f.size());
	if (!h.is_tcp() || !mss)
		return false;
	unsigned hdr = h.l4_off + h.l4_hdr_len;
	if (hdr > f.size())
		return false;
	unsigned payload = static_cast<unsigned>(f.size()) - hdr;
	uint32_t seq = bits::load_be32(f.data() + h.l4_off + 4);
	uint16_t id = h.ip_version == 4 ? be16(f.data() + h.l3_off + 4) : 0;
	uint8_t flags = f[h.l4_off + 13];
	unsigned nseg = payload ? (payload + mss - 1) / mss : 1;
	for (unsigned i = 0; i < nseg; ++i) {
		unsigned off = i * mss;
		unsigned n = std::min(mss, payload - std::min(payload, off));
		std::vector<uint8_t> s(f.begin(), f.begin() + hdr);
		s.insert(s.end(), f.begin() + hdr + off, f.begin() + hdr + off + n);
		uint8_t *ip = s.data() + h.l3_off;
		unsigned l3_len = static_cast<unsigned>(s.size()) - h.l3_off;
		if (h.ip_version == 4) {
			put_be16(ip + 2, static_cast<uint16_t>(l3_len));
			put_be16(ip + 4, static_cast<uint16_t>(id + i));
		} else {
			put_be16(ip + 4, static_cast<uint16_t>(l3_len - 40));
		}
		uint8_t *tcp = s.data() + h.l4_off;
		bits::store_be32(tcp + 4, seq + off);
		uint8_t fl = flags;
		if (i + 1 < nseg)
			fl &= static_cast<uint8_t>(~(0x01 | 0x08)); // FIN, PSH only on the last
		if (i > 0)
			fl &= static_cast<uint8_t>(~0x80); // CWR only on the first
		tcp[13] = fl;
		out->push_back(std::move(s));
	}
	return true;
}

} // namespace

void EthPath::nic_sq_doorbell(NicSq &sq, uint32_t d0, uint32_t d1)
{
	++sq.ctr.doorbells;
	uint16_t end = static_cast<uint16_t>(((d0 >> 8) & 0xffff) + ((d1 & 0x3f) + 3) / 4);
	uint16_t ahead = static_cast<uint16_t>(end - sq.ci);
	uint16_t cur = static_cast<uint16_t>(sq.pi - sq.ci);
	if (ahead <= sq.wq.entries() && ahead > cur)
		sq.pi = end;
	nic_run_sq(sq);
}

void EthPath::nic_run_sq(NicSq &sq)
{
	unsigned done = 0;
	while (sq.state == prm::wq_state::RDY && sq.ci != sq.pi) {
		if (sq.pace_timer)
			return; // waiting for the vport's rate; the timer resumes it
		if (esw_) {
			// The vport's transmit rate (its manager's scheduling
			// elements): a shaper, the SQ waits until the rate has
			// paid for what it sent.
			if (uint64_t us = esw_->qos().tx_wait_usec(esw_vport_, steer::TokenBucket::Clock::now())) {
				++eth_.tx_rate_waits;
				sq.pace_timer = dp_.start_timer(us, sq.sqn, DataPath::TimerKind::SqPace);
				return;
			}
		}
		if (done++ == kWqesPerTask) {
			// Let the other queues run; continue in a later task.
			uint32_t n = sq.sqn;
			dp_.post_task([this, n] {
				dp_.guarded(n, [&] {
					if (NicSq *s = dp_.res_.sq(n))
						nic_run_sq(*s);
				});
			});
			return;
		}
		uint16_t nbb = 1;
		if (!nic_send_wqe(sq, &nbb))
			return;
		sq.ci = static_cast<uint16_t>(sq.ci + nbb);
	}
}

void EthPath::nic_sq_paced(uint32_t sqn, uint64_t id)
{
	NicSq *sq = dp_.res_.sq(sqn);
	if (!sq || sq->pace_timer != id)
		return; // gone, or another SQ of that number
	sq->pace_timer = 0;
	nic_run_sq(*sq);
}

void EthPath::nic_complete_sq(NicSq &sq, uint16_t wqe_counter, uint8_t opcode, uint8_t syndrome)
{
	CqeInfo ci;
	ci.qpn = sq.sqn;
	ci.wqe_counter = wqe_counter;
	ci.wqe_opcode = opcode;
	ci.srqn_uidx = sq.user_index;
	ci.opcode = syndrome ? prm::cqe_opcode::REQ_ERR : prm::cqe_opcode::REQ;
	ci.syndrome = syndrome;
	++sq.ctr.cqes;
	dp_.completer_.complete(sq.cqn, ci, syndrome != 0);
}

bool EthPath::nic_send_wqe(NicSq &sq, uint16_t *nbb)
{
	const uint32_t mask = sq.wq.entries() - 1;
	auto read_bb = [&](uint16_t k, uint8_t *dst) {
		return sq.wq.buf.read(dp_.mem_, static_cast<uint64_t>((sq.ci + k) & mask) * w::kBasicBlock, dst,
				      w::kBasicBlock);
	};
	auto fail = [&](uint8_t opcode, uint8_t synd) {
		++sq.ctr.errors;
		++eth_.tx_errors;
		nic_complete_sq(sq, sq.ci, opcode, synd);
		sq.state = prm::wq_state::ERR;
		return false;
	};
	uint8_t wqe[w::kBasicBlock * w::kMaxWqebbs];
	if (!read_bb(0, wqe))
		return fail(0, kSyndLocalProt);
	uint32_t ctrl0 = bits::load_be32(wqe + w::kCtrlOpmodIdxOpcode);
	uint8_t opcode = static_cast<uint8_t>(ctrl0);
	unsigned ds = bits::load_be32(wqe + w::kCtrlQpnDs) & 0x3f;
	bool signaled = wqe[w::kCtrlFmCeSe] & w::kCeCqUpdate;
	if (!ds)
		return fail(opcode, kSyndLocalLength);
	*nbb = static_cast<uint16_t>((ds * w::kDsUnit + w::kBasicBlock - 1) / w::kBasicBlock);
	if (*nbb > w::kMaxWqebbs || static_cast<uint16_t>(sq.pi - sq.ci) < *nbb)
		return fail(opcode, kSyndLocalLength);
	for (uint16_t k = 1; k < *nbb; ++k)
		if (!read_bb(k, wqe + k * w::kBasicBlock))
			return fail(opcode, kSyndLocalProt);
	uint16_t index = static_cast<uint16_t>(ctrl0 >> 8);
	if (dp_.faults_ && dp_.faults_->take_sq_wqe_failure())
		return fail(opcode, kSyndLocalProt);

	if (opcode == kOpNop) {
		if (signaled)
			nic_complete_sq(sq, index, opcode, 0);
		return true;
	}
	if ((opcode != kOpSend && opcode != kOpLso) || ds < 2 || !sq.tisn)
		return fail(opcode, kSyndLocalQpOp);

	// Ethernet segment: inline headers from +14, then data pointers.
	const uint8_t *eth = wqe + kEthSeg;
	uint8_t cs_flags = eth[kEthCsFlags];
	unsigned mss = be16(eth + kEthMss);
	unsigned inl = be16(eth + kEthInlineSz);
	unsigned bytes = ds * w::kDsUnit;
	unsigned data_at = kEthSeg + 16 + (inl > 2 ? (inl - 2 + 15) / 16 * 16 : 0);
	if (kEthSeg + kEthInlineStart + inl > bytes || data_at > bytes)
		return fail(opcode, kSyndLocalLength);
	std::vector<uint8_t> frame(eth + kEthInlineStart, eth + kEthInlineStart + inl);
	for (unsigned at = data_at; at + w::kDataSize <= bytes; at += w::kDataSize) {
		const uint8_t *d = wqe + at;
		uint32_t bc = bits::load_be32(d + w::kDataByteCount);
		if (bc & w::kInlineFlag)
			return fail(opcode, kSyndLocalQpOp);
		uint32_t len = bc & w::kByteCountMask;
		if (!len)
			continue;
		if (frame.size() + len > kMaxFrame)
			return fail(opcode, kSyndLocalLength);
		const Mkey *mk = nullptr;
		uint64_t addr = bits::load_be64(d + w::kDataAddr);
		size_t old = frame.size();
		frame.resize(old + len);
		uint32_t lkey = bits::load_be32(d + w::kDataLkey);
		if (dp_.res_.mkeys.check(lkey, sq.wq.pd, addr, len, ACC_LOCAL_READ, &mk, Mkey::kNoQp, sq.rlky) != KeyStatus::Ok ||
		    !dp_.res_.mkeys.read(dp_.mem_, *mk, addr, frame.data() + old, len)) {
			if (lkey == MkeyTable::kReservedLkey && !sq.rlky)
				++dp_.c_.resd_lkey_refused;
			return fail(opcode, kSyndLocalProt);
		}
	}
	if (frame.size() < 14)
		return fail(opcode, kSyndLocalLength);

	++sq.ctr.packets;
	sq.ctr.bytes += frame.size();
	if (opcode == kOpLso) {
		std::vector<std::vector<uint8_t>> segs;
		if (!lso_segments(frame, mss, &segs))
			return fail(opcode, kSyndLocalQpOp);
		eth_.lso_segments += segs.size();
		for (auto &s : segs) {
			insert_checksums(s, cs_flags | kCsL4 | (s[12] == 0x08 && s[13] == 0x00 ? kCsL3 : 0));
			nic_transmit(s);
		}
	} else {
		if (frame.size() > eth_hw_mtu_ + 0u)
			return fail(opcode, kSyndLocalLength);
		insert_checksums(frame, cs_flags);
		nic_transmit(frame);
	}
	if (signaled)
		nic_complete_sq(sq, index, opcode, 0);
	return true;
}

void EthPath::nic_transmit(const std::vector<uint8_t> &frame)
{
	if (!eth_up_) {
		++eth_.tx_link_down;
		return;
	}
	if (esw_ && !esw_->acl_passes(prm::flow_table_type::ESW_INGRESS_ACL, esw_vport_, frame.data(), frame.size())) {
		++eth_.tx_acl_dropped;
		return;
	}
	if (!acl_.spoofchk && !acl_.vlan)
		return nic_transmit_accepted(frame);
	std::vector<uint8_t> f = frame; // VST may insert a tag
	switch (steer::vport_ingress(acl_, f)) {
	case steer::AclVerdict::Pass:
		return nic_transmit_accepted(f);
	case steer::AclVerdict::DropTagged:
		++eth_.tx_tagged;
		return;
	default:
		++eth_.tx_spoofed;
		return;
	}
}

void EthPath::nic_transmit_accepted(const std::vector<uint8_t> &frame)
{
	steer::Headers h = steer::parse_headers(frame.data(), frame.size());
	int cast = h.broadcast() ? EthCounters::Bcast : h.multicast() ? EthCounters::Mcast : EthCounters::Ucast;
	++eth_.tx[cast].packets;
	eth_.tx[cast].bytes += frame.size();
	if (esw_)
		esw_->qos().tx_sent(esw_vport_, frame.size(), steer::TokenBucket::Clock::now());
	dp_.fabric_.transmit_frame(eth_port_, frame);
}

} // namespace mlx5emu
