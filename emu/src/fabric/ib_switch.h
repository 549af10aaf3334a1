// SPDX-License-Identifier: GPL-2.0
// An InfiniBand switch: external ports 1..N (one per HCA) and management
// port 0 (base port 0: the switch's LID is port 0's). Its SMA answers
// SMPs by directed route (hop pointer and return path processing of IBA
// 14.2.2, done by the switch itself) and by LID: NodeInfo, NodeDescription,
// SwitchInfo, PortInfo of every port, P_KeyTable, GUIDInfo,
// SLtoVLMappingTable, VLArbitrationTable, LinearForwardingTable and
// MulticastForwardingTable. LID-routed packets follow the linear
// forwarding table, multicast ones the multicast table. Plain data: the
// fabric calls it with the engine's state lock held.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "fabric/packet.h"
#include "fabric/sma_port.h"

namespace mlx5emu {

class IbSwitch {
public:
	static constexpr unsigned kLftCap = 0xc000;    // LinearFDBCap: every unicast LID
	static constexpr unsigned kMftCap = 1024;      // MulticastFDBCap: MLIDs 0xc000..0xc3ff
	static constexpr unsigned kPkeyEntries = 32;   // PartitionCap
	static constexpr uint8_t kNoPort = 0xff;

	// `internal_sm`: the emulator programs the tables and the ports are
	// ACTIVE; else the ports wait in INIT for an SM.
	IbSwitch(unsigned nports, uint64_t node_guid, bool internal_sm);

	unsigned ports() const { return static_cast<unsigned>(ports_.size() - 1); }
	uint64_t node_guid() const { return guid_; }
	uint16_t lid() const { return ports_[0].lid; }
	// Grows to `nports` external ports; link state of port `n`.
	void resize(unsigned nports);
	void set_link(unsigned n, bool up);
	// The internal SM: LIDs [lid, lid + 2^lmc) leave by port `n`.
	void program_lid(uint16_t lid, uint8_t lmc, unsigned n);

	// A packet entering by external port `in`: appends the (port, packet)
	// pairs that leave the switch (forwarded, or answers of its SMA).
	using Out = std::vector<std::pair<unsigned, Packet>>;
	void receive(unsigned in, Packet p, Out *out);

	// Forwarding tables (tests and the multicast path).
	uint8_t lft(uint16_t lid) const { return lid < kLftCap ? lft_[lid] : kNoPort; }
	std::vector<unsigned> outports(uint16_t mlid) const;
	const SmaPort &port(unsigned n) const { return ports_[n]; }

	// SMA: the answer to SMP `req` that arrived by port `in` into `resp`;
	// false: no answer (not a Get/Set, or refused by the M_Key).
	bool sma(unsigned in, const uint8_t *req, uint8_t *resp);

	struct Counters {
		uint64_t forwarded = 0, sma_requests = 0, dropped = 0;
		uint64_t qp0_dropped = 0; // for the SMA (QPN 0) but not on VL15: not from a QP0
	};
	const Counters &counters() const { return c_; }

private:
	void directed_route(unsigned in, Packet p, Out *out);
	void lid_routed_smp(unsigned in, Packet p, Out *out);
	void forward(unsigned in, Packet p, Out *out);
	Packet reply_packet(const Packet &req, std::vector<uint8_t> mad) const;
	uint16_t switch_info(const uint8_t *req, uint8_t *d);
	bool port_ok(unsigned n) const { return n >= 1 && n < ports_.size(); }

	uint64_t guid_;
	bool internal_sm_;
	std::vector<SmaPort> ports_; // [0] management port
	std::vector<uint8_t> lft_;
	uint16_t lft_top_ = 0;
	uint16_t mft_top_ = 0;
	uint8_t default_port_ = 0, default_mcast_primary_ = kNoPort, default_mcast_not_primary_ = kNoPort;
	uint8_t life_state_ = 0;
	// Multicast forwarding: per MLID, a port mask by position (16 ports each).
	static constexpr unsigned kMftPositions = 5; // ports 0..79
	std::vector<std::array<uint16_t, kMftPositions>> mft_;
	std::map<uint16_t, std::array<uint8_t, 8>> sl2vl_; // by in port << 8 | out port
	Counters c_;
};

} // namespace mlx5emu
