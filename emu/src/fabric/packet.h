// SPDX-License-Identifier: GPL-2.0
// What travels between HCA ports: an InfiniBand transport packet with its
// LRH/BTH essentials, the GRH when the sender added one, and the extended
// headers the data path uses (RETH, AtomicETH, AETH, AtomicAckETH, DETH,
// ImmDt, IETH, XRCETH), plus the payload.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "dma/guest_memory.h"

namespace mlx5emu {

// BTH opcodes (IBA 9.2): reliable connected and unreliable datagram.
namespace ibop {
enum : uint8_t {
	RC_SEND_FIRST = 0x00,
	RC_SEND_MIDDLE = 0x01,
	RC_SEND_LAST = 0x02,
	RC_SEND_LAST_IMM = 0x03,
	RC_SEND_ONLY = 0x04,
	RC_SEND_ONLY_IMM = 0x05,
	RC_WRITE_FIRST = 0x06,
	RC_WRITE_MIDDLE = 0x07,
	RC_WRITE_LAST = 0x08,
	RC_WRITE_LAST_IMM = 0x09,
	RC_WRITE_ONLY = 0x0a,
	RC_WRITE_ONLY_IMM = 0x0b,
	RC_READ_REQUEST = 0x0c,
	RC_READ_RESPONSE_FIRST = 0x0d,
	RC_READ_RESPONSE_MIDDLE = 0x0e,
	RC_READ_RESPONSE_LAST = 0x0f,
	RC_READ_RESPONSE_ONLY = 0x10,
	RC_ACK = 0x11,
	RC_ATOMIC_ACK = 0x12,
	RC_CMP_SWAP = 0x13,
	RC_FETCH_ADD = 0x14,
	RC_SEND_LAST_INV = 0x16,
	RC_SEND_ONLY_INV = 0x17,
	// UC (0x20 | the RC opcode): SEND and WRITE only.
	UC_BASE = 0x20,
	// XRC (0xa0 | the RC opcode): every RC request and response.
	XRC_BASE = 0xa0,
	UD_SEND_ONLY = 0x64,
	UD_SEND_ONLY_IMM = 0x65,
};
} // namespace ibop

// AETH syndrome (IBA 9.7.5.1): [7:5] kind, [4:0] credits / RNR timer / NAK code.
namespace aeth {
constexpr uint8_t ACK = 0x00, RNR_NAK = 0x20, NAK = 0x60;
constexpr uint8_t NAK_PSN_SEQ = 0, NAK_INVALID_REQUEST = 1, NAK_REMOTE_ACCESS = 2, NAK_REMOTE_OP = 3, NAK_INVALID_RD = 4;
constexpr uint8_t kKindMask = 0xe0;
constexpr uint8_t kValueMask = 0x1f;
} // namespace aeth

using Gid = std::array<uint8_t, 16>;

// Global route header (IBA 8.3): present when the sender's address vector
// or QP path asks for it; mandatory for multicast.
struct Grh {
	bool present = false;
	uint8_t tclass = 0;
	uint32_t flow_label = 0; // 20 bits
	uint8_t hop_limit = 0;
	Gid sgid{}, dgid{};

	static constexpr unsigned kBytes = 40;
	static constexpr uint8_t kNextHeaderIba = 0x1b; // an IBA transport header follows
	// The 40 bytes as on the wire; `paylen` counts from the BTH through
	// the ICRC.
	void encode(uint16_t paylen, uint8_t *out) const;
};

// Multicast LIDs (IBA 4.1.1): 0xc000..0xfffe; 0xffff is the permissive LID.
constexpr uint16_t kMulticastLidFirst = 0xc000, kMulticastLidLast = 0xfffe;
inline bool is_multicast_lid(uint16_t lid) { return lid >= kMulticastLidFirst && lid <= kMulticastLidLast; }

// VL15: the management VL. Only QP0 (the SMI) sends on it, and the SMI
// takes a packet only from it (its checks: LRH VL 15, BTH DestQP 0); every
// other QP's packets go on a data VL (VL0 here: SL-to-VL is not modelled
// in the data path), so a packet a UD QP aims at QPN 0 reaches no SMA.
constexpr uint8_t kVl15 = 15;

// RoCE (exec/roce_wire.h): how an Ethernet port frames a packet, and what
// the frame a packet came in said beyond the GRH fields.
struct RoceAddr {
	std::array<uint8_t, 6> dmac{}, smac{};
	uint8_t sgid_index = 0;  // send: the source GID table entry
	uint16_t udp_sport = 0;  // RoCEv2 UDP source port (0: the device's minimum)
	bool force_lb = false;   // send: the address vector's force-loopback bit
	// Receive: the CQE's RoCE L3 header type (0 GRH = RoCEv1, 1 IPv6,
	// 2 IPv4), the VLAN tag, and the IPv4 header as it came (the UD
	// receive buffer's network header area).
	uint8_t l3 = 0;
	bool vlan = false;
	uint16_t vlan_tci = 0;
	std::array<uint8_t, 20> ipv4{};
};

// A payload left in the sending device's memory, read by the device that
// receives the packet: guest address ranges as the sender sees guest RAM
// (`mem`, its host link). The payload then moves once, from the sender's
// buffer straight into the receiver's (GuestMemory::copy_from), as a DMA
// engine moves it, instead of into a packet buffer and out again.
// A reference lives only while its packet is queued on the fabric: the
// fabric delivers it on the engine before the sender can go (DataPath's
// destructor waits for the engine), and gives packets it holds longer
// (delay injection) or frames it serialises (RoCE) their bytes first.
struct PayloadRef {
	static constexpr unsigned kExtents = 8;
	struct Extent {
		uint64_t iova;
		uint32_t len;
	};
	GuestMemory *mem = nullptr; // null: no reference (Packet::payload holds the bytes)
	uint32_t len = 0;
	uint8_t n = 0;
	Extent ext[kExtents];

	// Appends [iova, iova + len) (merged with the last extent when they
	// touch); false when kExtents are used up.
	bool add(uint64_t iova, size_t bytes)
	{
		if (n && ext[n - 1].iova + ext[n - 1].len == iova && ext[n - 1].len + bytes <= UINT32_MAX) {
			ext[n - 1].len += static_cast<uint32_t>(bytes);
		} else {
			if (n == kExtents)
				return false;
			ext[n++] = Extent{iova, static_cast<uint32_t>(bytes)};
		}
		len += static_cast<uint32_t>(bytes);
		return true;
	}
};

struct Packet {
	// LRH / GRH / BTH
	uint16_t slid = 0, dlid = 0;
	uint8_t sl = 0;
	uint8_t vl = 0; // kVl15 from QP0 only
	uint8_t opcode = 0;
	bool solicited = false;
	bool ack_req = false;
	uint16_t pkey = 0xffff;
	uint32_t dqpn = 0;
	uint32_t psn = 0;
	uint32_t sqpn = 0; // source QP (DETH for UD; kept for every packet)
	Grh grh;
	// Extended headers (valid per opcode)
	uint64_t va = 0;        // RETH / AtomicETH
	uint32_t rkey = 0;      // RETH / AtomicETH
	uint32_t dma_len = 0;   // RETH
	uint64_t swap_add = 0;  // AtomicETH
	uint64_t compare = 0;   // AtomicETH
	uint8_t syndrome = 0;   // AETH
	uint32_t msn = 0;       // AETH
	uint64_t orig = 0;      // AtomicAckETH
	uint32_t qkey = 0;      // DETH
	uint32_t imm = 0;       // ImmDt (raw big-endian bytes)
	uint32_t inv_rkey = 0;  // IETH
	uint32_t xrc_srqn = 0;  // XRCETH (XRC requests)
	uint64_t dc_key = 0;    // DCETH (DC requests: the DC access key)
	// DC (exec/dc.cc): the DCI's connection generation, and whether the
	// packet opens that connection at the DCT.
	uint32_t dc_gen = 0;
	bool dc_connect = false;
	RoceAddr roce;          // Ethernet ports only
	std::vector<uint8_t> payload; // the bytes, unless `ref` names them
	PayloadRef ref;
	// A burst: `burst` consecutive MTU packets of one RC SEND or WRITE
	// moving as one (an RC requester's first transmission by reference,
	// between IB ports of this process), PSNs psn .. psn + burst - 1.
	// `opcode` is the first packet's, `last_opcode` the last one's, those
	// between are MIDDLE; each packet but the last carries `burst_mtu`
	// bytes of the payload. The RETH fields belong to the first packet;
	// ImmDt / IETH, `solicited` and `ack_req` to the last (no packet
	// before the last asks for an ACK). Whoever needs the packets one by
	// one (drop or delay injection, the switch, a full port queue, a
	// receiver without the burst's fast path) takes them with part().
	uint16_t burst = 1;
	uint8_t last_opcode = 0;
	uint32_t burst_mtu = 0;

	size_t payload_len() const { return ref.mem ? ref.len : payload.size(); }
	// Payload bytes [off, off + n) into `dst` at guest address `iova`
	// (fabric/payload.cc): one copy from the sender's memory for a
	// reference.
	GuestMemory::Copy copy_payload(GuestMemory &dst, uint64_t iova, uint64_t off, size_t n) const;
	// Payload bytes [off, off + n) into host memory; false when the
	// sender's memory could not be read.
	bool read_payload(uint64_t off, void *dst, size_t n) const;
	// A reference becomes bytes; false (payload left empty) when the
	// sender's memory could not be read.
	bool materialize();
	// Packet i of a burst (0 .. burst - 1) as it would have travelled
	// alone; the packet itself when it is no burst.
	Packet part(unsigned i) const;
};

// MIDDLE of the family (RC/UC SEND or WRITE) `op` belongs to.
inline uint8_t middle_opcode(uint8_t op)
{
	uint8_t rc = op & 0x1f;
	uint8_t mid = rc >= ibop::RC_WRITE_FIRST && rc <= ibop::RC_WRITE_ONLY_IMM ? ibop::RC_WRITE_MIDDLE
										     : ibop::RC_SEND_MIDDLE;
	return static_cast<uint8_t>((op & 0xe0) | mid);
}

inline void Grh::encode(uint16_t paylen, uint8_t *o) const
{
	uint32_t w0 = 6u << 28 | static_cast<uint32_t>(tclass) << 20 | (flow_label & 0xfffff);
	o[0] = static_cast<uint8_t>(w0 >> 24);
	o[1] = static_cast<uint8_t>(w0 >> 16);
	o[2] = static_cast<uint8_t>(w0 >> 8);
	o[3] = static_cast<uint8_t>(w0);
	o[4] = static_cast<uint8_t>(paylen >> 8);
	o[5] = static_cast<uint8_t>(paylen);
	o[6] = kNextHeaderIba;
	o[7] = hop_limit;
	for (unsigned i = 0; i < 16; ++i) {
		o[8 + i] = sgid[i];
		o[24 + i] = dgid[i];
	}
}

// Whether a port takes `p` in: QP0 only from VL15, and from VL15 only
// packets for QP0.
inline bool vl15_matches_qp0(const Packet &p) { return (p.dqpn == 0) == (p.vl == kVl15); }

inline bool is_uc_request(uint8_t op) { return op >= ibop::UC_BASE && op <= (ibop::UC_BASE | ibop::RC_WRITE_ONLY_IMM); }

// READ responses, ACKs and atomic ACKs (RC opcodes).
inline bool is_rc_response(uint8_t op) { return op >= ibop::RC_READ_RESPONSE_FIRST && op <= ibop::RC_ATOMIC_ACK; }

// XRC opcodes: the transport bits 101 over an RC opcode.
inline bool is_xrc_op(uint8_t op) { return (op & 0xe0) == ibop::XRC_BASE; }

inline uint32_t psn_add(uint32_t psn, uint32_t n) { return (psn + n) & 0xffffff; }
// Signed distance a - b of 24-bit PSNs.
inline int32_t psn_diff(uint32_t a, uint32_t b) { return static_cast<int32_t>((a - b) << 8) >> 8; }

} // namespace mlx5emu
