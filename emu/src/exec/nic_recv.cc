// SPDX-License-Identifier: GPL-2.0
// The Ethernet receive path: a frame from the L2 switch through the NIC
// receive flow tables to a TIR, through the TIR's RSS hash and RQ table to
// an RQ, into the RQ's next receive WQE, and its CQE (byte count, L3/L4
// checksum status and the packet's checksum, header types, VLAN, RSS hash,
// flow tag).
#include <cstring>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/prm.h"
#include "prm/cq.h"
#include "prm/eth.h"
#include "prm/wqe.h"
#include "steer/match.h"
#include "steer/rss.h"

namespace mlx5emu {

namespace {

namespace w = prm::wqe;
namespace cq = prm::cqe;

// Ethernet fields of the 64-byte CQE.
constexpr unsigned kRssHashResult = 0x0c; // be32
constexpr unsigned kRssHashType = 0x10;   // u8
constexpr unsigned kCheckSum = 0x14;      // be16
constexpr unsigned kHdsIpExt = 0x1c;      // u8: L2_OK 1, L3_OK 2, L4_OK 4
constexpr unsigned kL4L3HdrType = 0x1d;   // u8: [6:4] L4, [3:2] L3, [0] VLAN stripped
constexpr unsigned kVlanInfo = 0x1e;      // be16
constexpr uint8_t kL2Ok = 1, kL3Ok = 2, kL4Ok = 4;
constexpr uint8_t kL3Ipv6 = 1, kL3Ipv4 = 2;
constexpr uint8_t kL4TcpNoAck = 1, kL4Udp = 2, kL4TcpAckNoData = 3, kL4TcpAckAndData = 4;

} // namespace

void EthPath::receive_frame(const std::vector<uint8_t> &frame)
{
	dp_.guarded(0, [&] { receive_frame_now(frame); });
}

void EthPath::receive_frame_now(const std::vector<uint8_t> &frame)
{
	if (dp_.unplugged_.load(std::memory_order_acquire)) {
		++eth_.rx_dropped;
		return;
	}
	if (steer::vport_unicast(acl_, frame.data(), frame.size()) != steer::AclVerdict::Pass) {
		++eth_.rx_unicast_filtered;
		return;
	}
	if (esw_ && !esw_->acl_passes(prm::flow_table_type::ESW_EGRESS_ACL, esw_vport_, frame.data(), frame.size())) {
		++eth_.rx_acl_dropped;
		return;
	}
	if (!acl_.vlan)
		return receive_accepted(frame);
	std::vector<uint8_t> f = frame; // VST strips the tag
	if (steer::vport_egress(acl_, f) != steer::AclVerdict::Pass) {
		++eth_.rx_vlan_dropped;
		return;
	}
	receive_accepted(f);
}

// A frame the vport's ACL let through: RoCE, or flow steering into RQs.
void EthPath::receive_accepted(const std::vector<uint8_t> &frame)
{
	if (roce_receive(frame))
		return;
	steer::Headers h = steer::parse_headers(frame.data(), frame.size());
	if (!eth_up_ || frame.size() > eth_hw_mtu_ + 0u) {
		(eth_up_ ? eth_.rx_too_long : eth_.rx_dropped)++;
		return;
	}
	int cast = h.broadcast() ? EthCounters::Bcast : h.multicast() ? EthCounters::Mcast : EthCounters::Ucast;
	++eth_.rx[cast].packets;
	eth_.rx[cast].bytes += frame.size();
	steer::Verdict v = dp_.res_.steering.classify(steer::match_image(h), static_cast<uint32_t>(frame.size()));
	if (v.tirs.empty()) {
		++eth_.rx_dropped;
		return;
	}
	for (uint32_t tirn : v.tirs)
		nic_deliver(tirn, frame, h, v.flow_tag);
}

void EthPath::nic_deliver(uint32_t tirn, const std::vector<uint8_t> &frame, const steer::Headers &h,
			   uint32_t flow_tag)
{
	auto it = dp_.res_.tirs.find(tirn);
	if (it == dp_.res_.tirs.end()) {
		++eth_.rx_dropped;
		return;
	}
	const Tir &t = it->second;
	steer::RssConfig rc;
	rc.fn = t.hash_fn;
	rc.symmetric = t.hash_symmetric;
	rc.l3_ipv6 = t.hash_l3_ipv6;
	rc.l4_udp = t.hash_l4_udp;
	rc.fields = t.hash_fields;
	rc.key = t.toeplitz_key;
	uint8_t hash_type = 0;
	uint32_t hash = rss_hash(rc, h, &hash_type);
	uint32_t rqn = t.inline_rqn;
	if (t.disp_type == prm::tirc::DISP_INDIRECT) {
		auto q = dp_.res_.rqts.find(t.rqtn);
		if (q == dp_.res_.rqts.end() || q->second.rqns.empty()) {
			++eth_.rx_dropped;
			return;
		}
		rqn = q->second.rqns[hash % q->second.rqns.size()];
	}
	NicRq *rq = dp_.res_.rq(rqn);
	if (!rq || rq->state != prm::wq_state::RDY) {
		++eth_.rx_dropped;
		return;
	}
	nic_fill_rq(*rq, frame, h, hash, hash_type, flow_tag);
}

bool EthPath::nic_fill_rq(NicRq &rq, const std::vector<uint8_t> &in, const steer::Headers &hin, uint32_t rss_hash,
			   uint8_t hash_type, uint32_t flow_tag)
{
	// The producer counter is in the doorbell record's first dword.
	uint8_t db[4];
	if (!dp_.mem_.read(rq.wq.dbr_addr, db, 4)) {
		++eth_.rx_dropped;
		return false;
	}
	uint16_t pi = static_cast<uint16_t>(bits::load_be32(db));
	if (static_cast<uint16_t>(pi - rq.ci) == 0 || static_cast<uint16_t>(pi - rq.ci) > rq.wq.entries()) {
		++eth_.rx_no_wqe;
		++rq.out_of_buffer;
		return false;
	}
	// VLAN stripping.
	const std::vector<uint8_t> *f = &in;
	std::vector<uint8_t> stripped;
	steer::Headers h = hin;
	bool vlan = false;
	if (rq.vlan_strip && h.cvlan) {
		stripped.assign(in.begin(), in.begin() + 12);
		stripped.insert(stripped.end(), in.begin() + 16, in.end());
		f = &stripped;
		vlan = true;
		h = steer::parse_headers(stripped.data(), stripped.size());
	}
	// The WQE: data pointers filling the stride (cyclic RQ).
	uint32_t idx = rq.ci & (rq.wq.entries() - 1);
	std::vector<uint8_t> wqe(rq.wq.stride());
	if (!rq.wq.buf.read(dp_.mem_, static_cast<uint64_t>(idx) * rq.wq.stride(), wqe.data(), wqe.size())) {
		++eth_.rx_errors;
		return false;
	}
	std::vector<Sge> sgl;
	uint64_t cap = 0;
	unsigned first = rq.wq.type == prm::wq::TYPE_LINKED_LIST ? w::kSrqNextSize : 0;
	for (unsigned at = first; at + w::kDataSize <= wqe.size(); at += w::kDataSize) {
		Sge s;
		s.len = bits::load_be32(wqe.data() + at + w::kDataByteCount) & w::kByteCountMask;
		s.lkey = bits::load_be32(wqe.data() + at + w::kDataLkey);
		s.addr = bits::load_be64(wqe.data() + at + w::kDataAddr);
		if (s.lkey == w::kTerminateLkey || !s.len)
			break;
		cap += s.len;
		sgl.push_back(s);
	}
	if (f->size() > cap) {
		++eth_.rx_too_long;
		return false;
	}
	bool ok = walk_sgl(sgl, 0, f->size(), [&](const Sge &s, uint64_t off, size_t at, size_t n) {
		const Mkey *mk = nullptr;
		return dp_.res_.mkeys.check(s.lkey, rq.wq.pd, s.addr + off, n, ACC_LOCAL_WRITE, &mk, Mkey::kNoQp, rq.rlky) ==
			       KeyStatus::Ok &&
		       dp_.res_.mkeys.write(dp_.mem_, *mk, s.addr + off, f->data() + at, n);
	});
	uint16_t counter = rq.ci;
	rq.ci = static_cast<uint16_t>(rq.ci + 1);
	if (!ok) {
		++eth_.rx_errors;
		CqeInfo ci;
		ci.qpn = rq.rqn;
		ci.wqe_counter = counter;
		ci.srqn_uidx = rq.user_index;
		ci.opcode = prm::cqe_opcode::RESP_ERR;
		ci.syndrome = 0x04; // local protection
		dp_.completer_.complete(rq.cqn, ci, true);
		rq.state = prm::wq_state::ERR;
		return false;
	}
	++rq.ctr.packets;
	rq.ctr.bytes += f->size();

	uint8_t o[cq::kSize] = {};
	bits::store_be32(o + cq::kSrqnUidx, rq.user_index & 0xffffff);
	bits::store_be16(o + cq::kWqeCounter, counter);
	bits::store_be32(o + cq::kByteCnt, static_cast<uint32_t>(f->size()));
	bits::store_be32(o + cq::kSopDropQpn, flow_tag & 0xffffff);
	bits::store_be32(o + kRssHashResult, rss_hash);
	o[kRssHashType] = hash_type;
	uint8_t ok_bits = kL2Ok;
	uint8_t l3 = h.ip_version == 4 ? kL3Ipv4 : h.ip_version == 6 ? kL3Ipv6 : 0;
	uint8_t l4 = 0;
	if (h.ip_version == 6 || (h.ip_version == 4 && steer::ipv4_csum_ok(f->data(), f->size(), h)))
		ok_bits |= kL3Ok;
	if ((h.is_tcp() || h.is_udp()) && steer::l4_csum_ok(f->data(), f->size(), h))
		ok_bits |= kL4Ok;
	if (h.is_udp()) {
		l4 = kL4Udp;
	} else if (h.is_tcp()) {
		bool ack = h.tcp_flags & 0x10;
		unsigned data = h.l3_len - (h.l4_off - h.l3_off) - h.l4_hdr_len;
		l4 = !ack ? kL4TcpNoAck : data ? kL4TcpAckAndData : kL4TcpAckNoData;
	}
	o[kHdsIpExt] = ok_bits;
	o[kL4L3HdrType] = static_cast<uint8_t>(l4 << 4 | l3 << 2 | (vlan ? 1 : 0));
	if (vlan)
		bits::store_be16(o + kVlanInfo, hin.vlan_tci);
	if (h.l3_off) {
		// The ones'-complement sum of everything after the L2 header
		// (CHECKSUM_COMPLETE).
		uint32_t s = steer::csum_add(0, f->data() + h.l3_off, f->size() - h.l3_off);
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		bits::store_be16(o + kCheckSum, static_cast<uint16_t>(s));
	}
	o[cq::kOpOwn] = static_cast<uint8_t>(prm::cqe_opcode::RESP_SEND << 4);
	++rq.ctr.cqes;
	return dp_.completer_.push_cqe(rq.cqn, o, false, rq.rqn);
}

} // namespace mlx5emu
