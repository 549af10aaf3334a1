// SPDX-License-Identifier: GPL-2.0
// The fabric: the nodes and links between the ports of the HCAs served by
// the process. One or two HCAs are linked back to back; from the third on
// every HCA port links to a port of an emulated switch (fabric/ib_switch.h)
// with HCA index i on switch port i + 1.
//
// Each port's LID range is what its SM set (set_lid): the emulator's own
// (Sm::Internal, LID = index + 1, ports ACTIVE, the switch's forwarding
// table programmed here) or a real one (Sm::External, opensm in the guest
// through QP0 SMPs). LID-routed packets follow those LIDs (through the
// switch's linear forwarding table); directed-route SMPs (DLID permissive)
// cross exactly one link, to the neighbour's QP0 or to the switch's SMA;
// multicast LIDs cross the link to the neighbour, or go through the switch
// to the ports of its multicast forwarding table (the sender's HCA
// delivered its own loopback copies already). QP0 traffic is VL15
// traffic: a port or the switch's SMA drops a packet for QPN 0 that did
// not leave a QP0 (Packet::vl, vl15_matches_qp0).
// Packets are delivered on the engine thread; the control channel can drop
// packets or delay the link.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fabric/engine.h"
#include "fabric/l2_switch.h"
#include "fabric/packet.h"

namespace mlx5emu {

class IbSwitch;

// An HCA port on the fabric. receive() runs on the engine thread with the
// state lock held.
class FabricPort {
public:
	virtual ~FabricPort() = default;
	virtual void receive(const Packet &p) = 0;
	// An Ethernet frame from the L2 switch (Ethernet ports only).
	virtual void receive_frame(const std::vector<uint8_t> &) {}
	// The memory receive() writes, held over a burst of deliveries
	// (GuestMemory::hold); null: none to hold.
	virtual GuestMemory *burst_memory() { return nullptr; }
	// Around a burst of receive() calls (Fabric::drain): what the port
	// holds back for the burst goes out at its end.
	virtual void burst_begin() {}
	virtual void burst_end() {}
	// Packets the fabric kept from this port (state lock): for its QP0
	// but not on VL15 (sent by a QP other than QP0), or on VL15 for
	// another QP.
	uint64_t qp0_dropped() const { return qp0_dropped_; }

private:
	friend class Fabric;
	uint64_t qp0_dropped_ = 0;
};

class Fabric {
public:
	// Who plays subnet manager.
	enum class Sm { Internal, External };
	explicit Fabric(Sm sm = Sm::Internal);
	~Fabric();

	Engine &engine() { return engine_; }
	Sm sm() const { return sm_; }

	// Connects the port of HCA `index` (takes the state lock). The third
	// HCA brings the switch in.
	void attach(unsigned index, FabricPort *port);
	void detach(FabricPort *port);
	// State lock held: the LID range [lid, lid + 2^lmc) of `port`'s
	// port (lid 0: none). With the internal SM and a switch, also its
	// forwarding table.
	void set_lid(FabricPort *port, uint16_t lid, uint8_t lmc);
	// State lock held: the link of `port` went down and up (its HCA was
	// reset). The switch port at the other end retrains (DOWN, then INIT
	// with an external SM) and sets SwitchInfo's PortStateChange.
	void retrain(FabricPort *port);

	// Engine thread, state lock held: `p` leaves `from`'s port. Packets
	// that reach no port are dropped at once (no_route); at most
	// kLinkQueueCap packets wait for each port, more are dropped
	// (dropped_full), as a switch with full buffers does: the RC requester
	// retransmits.
	void transmit(FabricPort *from, Packet &&p);
	static constexpr uint32_t kLinkQueueCap = 1024;

	// Ethernet ports (eth_fabric.cc): one L2 switch links them. attach_eth
	// returns the port's number on the switch.
	uint32_t attach_eth(FabricPort *port);
	void detach_eth(uint32_t port);
	// Engine thread, state lock held: a frame from switch port `in`, to
	// the ports the switch picks, with the same drop and delay injection
	// and per-port queue bound as packets.
	void transmit_frame(uint32_t in, std::vector<uint8_t> frame);

	// State lock held: the switch ports a packet to multicast LID `mlid`
	// leaves by, as the SM programmed the switch's multicast forwarding
	// table (empty without a switch).
	std::vector<unsigned> outports(uint16_t mlid) const;
	// The switch (null while the HCAs are back to back). State lock held.
	IbSwitch *ib_switch() { return sw_.get(); }

	// Control channel (any thread).
	// Drops `n` packets after letting `skip` more pass.
	void drop_next(uint32_t n, uint32_t skip = 0);
	void set_delay_ms(uint32_t ms);
	struct Counters {
		uint64_t packets = 0, bytes = 0, delivered = 0, dropped = 0, no_route = 0, delayed = 0;
		uint64_t dropped_full = 0; // a port's queue held kLinkQueueCap packets
		uint64_t multicast = 0;    // packets to a multicast LID
		uint64_t queued = 0;       // waiting for delivery now, every port
		uint64_t queued_max = 0;   // the most that waited for one port
		uint64_t switched = 0;     // packets that went through the switch
		uint64_t qp0_dropped = 0;  // at HCA ports: for QP0 not on VL15, or on VL15 not for QP0
		uint32_t drops_pending = 0, delay_ms = 0;
	};
	Counters counters() const;
	std::vector<std::string> describe(); // takes the state lock

private:
	struct Node {
		FabricPort *port;
		unsigned index;
		uint16_t lid = 0;
		uint8_t lmc = 0;
		bool owns(uint16_t dlid) const { return lid && (dlid >> lmc) == (lid >> lmc); }
	};
	Node *node(FabricPort *p);
	Node *on_switch_port(unsigned n);
	void relink();
	void through_switch(unsigned in_port, Packet p);
	void to_port(Node &n, Packet &&p);
	// Engine: delivers the packets waiting for `to` (one task per burst,
	// not per packet: no allocation per packet).
	void drain(FabricPort *to);
	void unqueue(FabricPort *to); // one delayed packet fewer waits for `to`
	void deliver(FabricPort *to, const Packet &p);
	void deliver_frame(uint32_t port, const std::vector<uint8_t> &frame);
	// A packet or frame leaves: true when drop injection takes it.
	bool drop_injected();

	// Counters, written on the engine thread under the state lock (one
	// writer at a time: a plain add, no lock per packet), read by
	// counters() from any thread.
	struct Stats {
		std::atomic<uint64_t> packets{0}, bytes{0}, delivered{0}, dropped{0}, no_route{0}, delayed{0};
		std::atomic<uint64_t> dropped_full{0}, multicast{0}, queued{0}, queued_max{0}, switched{0};
		std::atomic<uint64_t> qp0_dropped{0};
	};
	static void bump(std::atomic<uint64_t> &c, uint64_t n = 1)
	{
		c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
	}
	static void bump_max(std::atomic<uint64_t> &c, uint64_t v)
	{
		if (v > c.load(std::memory_order_relaxed))
			c.store(v, std::memory_order_relaxed);
	}
	void count_no_route(uint64_t n = 1) { bump(s_.no_route, n); }

	const Sm sm_;
	mutable std::mutex cfg_mu_; // drop injection, Ethernet queue counts
	uint32_t drops_pending_ = 0;
	uint32_t skip_pending_ = 0;
	std::atomic<bool> drops_armed_{false}; // drops_pending_ || skip_pending_
	std::atomic<uint32_t> delay_ms_{0};
	Stats s_;
	// Packets waiting for a port, oldest first: a ring that grows to at
	// most kLinkQueueCap, reused packet by packet, and how many wait for
	// the port, delayed ones included (state lock).
	struct Inbox {
		std::vector<Packet> ring;
		size_t head = 0, count = 0;
		uint32_t queued = 0;
		bool scheduled = false; // a drain task is queued
	};
	void unqueue(Inbox &in, uint32_t n = 1); // n packets (a burst's) no longer wait
	std::map<FabricPort *, Inbox> inbox_;
	// Under the state lock:
	std::vector<Node> nodes_; // by HCA index
	std::unique_ptr<IbSwitch> sw_;
	// Ethernet: switch ports (state lock) and frames waiting per port (cfg_mu_).
	L2Switch l2_;
	std::map<uint32_t, FabricPort *> eth_ports_;
	std::map<uint32_t, uint32_t> eth_queued_;
	uint32_t next_eth_port_ = 1;
	Engine engine_;
};

} // namespace mlx5emu
