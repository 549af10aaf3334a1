// SPDX-License-Identifier: GPL-2.0
// The fabric: a switch linking the port of every HCA served by the process.
// Packets are routed by destination LID (a multicast LID reaches every
// port but the sender's) and delivered on the engine thread;
// the control channel can drop packets or delay the link.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/engine.h"
#include "fabric/l2_switch.h"
#include "fabric/packet.h"

namespace mlx5emu {

// An HCA port on the fabric. receive() runs on the engine thread with the
// state lock held.
class FabricPort {
public:
	virtual ~FabricPort() = default;
	virtual void receive(const Packet &p) = 0;
	// An Ethernet frame from the L2 switch (Ethernet ports only).
	virtual void receive_frame(const std::vector<uint8_t> &) {}
};

class Fabric {
public:
	Fabric();
	~Fabric();

	Engine &engine() { return engine_; }

	// Connects a port with `lid` (state lock held by the caller or not:
	// takes it). Replaces an earlier port with the same LID.
	void attach(uint16_t lid, FabricPort *port);
	void detach(uint16_t lid, FabricPort *port);

	// Engine thread, state lock held: sends `p` to p.dlid, or for a
	// multicast DLID to every port except the one with LID p.slid (after the
	// configured delay, or never if a drop is pending). Packets to a LID
	// no port has are dropped at once (no_route); at most kLinkQueueCap
	// packets wait for each port, more are dropped (dropped_full), as a
	// switch with full buffers does: the RC requester retransmits.
	void transmit(Packet p);
	static constexpr uint32_t kLinkQueueCap = 1024;

	// Ethernet ports (eth_fabric.cc): one L2 switch links them. attach_eth
	// returns the port's number on the switch.
	uint32_t attach_eth(FabricPort *port);
	void detach_eth(uint32_t port);
	// Engine thread, state lock held: a frame from switch port `in`, to
	// the ports the switch picks, with the same drop and delay injection
	// and per-port queue bound as packets.
	void transmit_frame(uint32_t in, std::vector<uint8_t> frame);

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
		uint32_t drops_pending = 0, delay_ms = 0;
	};
	Counters counters() const;
	std::vector<std::string> describe() const;

private:
	void deliver(uint16_t lid, const Packet &p);
	void deliver_frame(uint32_t port, const std::vector<uint8_t> &frame);

	mutable std::mutex cfg_mu_; // injection settings and counters
	uint32_t drops_pending_ = 0;
	uint32_t skip_pending_ = 0;
	uint32_t delay_ms_ = 0;
	Counters c_;
	std::map<uint16_t, uint32_t> queued_;    // packets waiting, by LID (cfg_mu_)
	std::map<uint16_t, FabricPort *> ports_; // by LID, under the state lock
	// Ethernet: switch ports (state lock) and frames waiting per port (cfg_mu_).
	L2Switch l2_;
	std::map<uint32_t, FabricPort *> eth_ports_;
	std::map<uint32_t, uint32_t> eth_queued_;
	uint32_t next_eth_port_ = 1;
	Engine engine_;
};

} // namespace mlx5emu
