// SPDX-License-Identifier: GPL-2.0
#include "fabric/fabric.h"

#include <algorithm>
#include <cstdio>

#include "fabric/ib_switch.h"
#include "fabric/smp.h"

namespace mlx5emu {

namespace {
// The switch's node GUID (Mellanox OUI, fixed: one switch per process).
constexpr uint64_t kSwitchGuid = 0x0002c90300e50000ull;
} // namespace

Fabric::Fabric(Sm sm) : sm_(sm) {}
Fabric::~Fabric() = default;

Fabric::Node *Fabric::node(FabricPort *p)
{
	for (Node &n : nodes_)
		if (n.port == p)
			return &n;
	return nullptr;
}

Fabric::Node *Fabric::on_switch_port(unsigned sp)
{
	for (Node &n : nodes_)
		if (n.index + 1 == sp)
			return &n;
	return nullptr;
}

void Fabric::attach(unsigned index, FabricPort *port)
{
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	std::erase_if(nodes_, [&](const Node &n) { return n.index == index || n.port == port; });
	nodes_.push_back(Node{port, index});
	std::sort(nodes_.begin(), nodes_.end(), [](const Node &a, const Node &b) { return a.index < b.index; });
	relink();
}

void Fabric::detach(FabricPort *port)
{
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	std::erase_if(nodes_, [&](const Node &n) { return n.port == port; });
	// Packets still waiting for the port go with it (a later port at the
	// same address must not get them).
	if (auto it = inbox_.find(port); it != inbox_.end()) {
		s_.queued.store(s_.queued.load(std::memory_order_relaxed) - it->second.queued,
				std::memory_order_relaxed);
		inbox_.erase(it);
	}
	relink();
}

// Two HCAs or fewer: back to back. From the third on: the switch, which
// stays once it exists (its ports lose their link when an HCA leaves).
void Fabric::relink()
{
	if (!sw_ && nodes_.size() < 3)
		return;
	unsigned nports = 0;
	for (const Node &n : nodes_)
		nports = std::max(nports, n.index + 1);
	if (!sw_)
		sw_ = std::make_unique<IbSwitch>(nports, kSwitchGuid, sm_ == Sm::Internal);
	sw_->resize(nports);
	for (unsigned sp = 1; sp <= sw_->ports(); ++sp) {
		Node *n = on_switch_port(sp);
		sw_->set_link(sp, n != nullptr);
		if (n && n->lid && sm_ == Sm::Internal)
			sw_->program_lid(n->lid, n->lmc, sp);
	}
}

void Fabric::set_lid(FabricPort *port, uint16_t lid, uint8_t lmc)
{
	Node *n = node(port);
	if (!n)
		return;
	n->lid = lid;
	n->lmc = lmc;
	if (sw_ && sm_ == Sm::Internal && lid)
		sw_->program_lid(lid, lmc, n->index + 1);
}

void Fabric::retrain(FabricPort *port)
{
	Node *n = node(port);
	if (!n || !sw_)
		return;
	sw_->set_link(n->index + 1, false);
	sw_->set_link(n->index + 1, true);
}

std::vector<unsigned> Fabric::outports(uint16_t mlid) const { return sw_ ? sw_->outports(mlid) : std::vector<unsigned>{}; }

bool Fabric::drop_injected()
{
	std::lock_guard<std::mutex> lk(cfg_mu_);
	bool drop = false;
	if (skip_pending_) {
		--skip_pending_;
	} else if (drops_pending_) {
		--drops_pending_;
		bump(s_.dropped);
		drop = true;
	}
	drops_armed_.store(drops_pending_ || skip_pending_, std::memory_order_relaxed);
	return drop;
}

void Fabric::transmit(FabricPort *from, Packet &&p)
{
	// A burst goes whole only straight to a port without injection; the
	// switch, drops and delays take its packets one by one.
	if (p.burst > 1 && (sw_ || drops_armed_.load(std::memory_order_relaxed) ||
			    delay_ms_.load(std::memory_order_relaxed))) {
		for (unsigned i = 0; i < p.burst; ++i)
			transmit(from, p.part(i));
		return;
	}
	bump(s_.packets, p.burst);
	bump(s_.bytes, p.payload_len());
	if (drops_armed_.load(std::memory_order_relaxed) && drop_injected())
		return;
	if (is_multicast_lid(p.dlid))
		bump(s_.multicast);
	Node *src = node(from);
	if (!src)
		return count_no_route(p.burst);
	// A port's own LIDs loop back inside the HCA.
	if (p.dlid != mad::kPermissiveLid && src->owns(p.dlid))
		return to_port(*src, std::move(p));
	if (sw_)
		return through_switch(src->index + 1, std::move(p));
	Node *peer = nullptr;
	for (Node &n : nodes_)
		if (&n != src)
			peer = &n;
	// Back to back: directed route and multicast cross the link; unicast
	// goes if the neighbour has the LID.
	if (peer && (p.dlid == mad::kPermissiveLid || is_multicast_lid(p.dlid) || peer->owns(p.dlid)))
		return to_port(*peer, std::move(p));
	count_no_route(p.burst);
}

void Fabric::through_switch(unsigned in_port, Packet p)
{
	IbSwitch::Out out;
	sw_->receive(in_port, std::move(p), &out);
	bump(s_.switched);
	if (out.empty())
		return count_no_route();
	for (auto &[sp, pkt] : out) {
		Node *n = on_switch_port(sp);
		if (n)
			to_port(*n, std::move(pkt));
		else
			count_no_route();
	}
}

void Fabric::to_port(Node &n, Packet &&p)
{
	FabricPort *to = n.port;
	Inbox &in = inbox_[to];
	if (p.burst > 1 && (in.queued + p.burst > kLinkQueueCap || delay_ms_.load(std::memory_order_relaxed))) {
		// Those of its packets that fit wait, the rest are dropped
		// (or each is delayed).
		for (unsigned i = 0; i < p.burst; ++i)
			to_port(n, p.part(i));
		return;
	}
	if (in.queued >= kLinkQueueCap) {
		bump(s_.dropped_full);
		return;
	}
	in.queued += p.burst;
	bump(s_.queued, p.burst);
	bump_max(s_.queued_max, in.queued);
	uint32_t delay = delay_ms_.load(std::memory_order_relaxed);
	if (delay) {
		bump(s_.delayed);
		// Held past the engine tasks queued now: with its bytes, not a
		// reference into a sender that may go meanwhile.
		if (!p.materialize()) {
			unqueue(to);
			return count_no_route();
		}
		auto pkt = std::make_shared<Packet>(std::move(p));
		engine_.post_at(Engine::Clock::now() + std::chrono::milliseconds(delay), [this, to, pkt](uint64_t) {
			unqueue(to);
			deliver(to, *pkt);
		});
		return;
	}
	if (in.count == in.ring.size()) {
		// Grow the ring (at most kLinkQueueCap packets wait), oldest first.
		std::vector<Packet> r(std::min<size_t>(kLinkQueueCap, std::max<size_t>(16, 2 * in.ring.size())));
		for (size_t i = 0; i < in.count; ++i)
			r[i] = std::move(in.ring[(in.head + i) % in.ring.size()]);
		in.ring.swap(r);
		in.head = 0;
	}
	in.ring[(in.head + in.count) % in.ring.size()] = std::move(p);
	++in.count;
	if (!in.scheduled) {
		in.scheduled = true;
		engine_.post([this, to] { drain(to); });
	}
}

void Fabric::drain(FabricPort *to)
{
	auto it = inbox_.find(to);
	if (it == inbox_.end())
		return;
	Inbox &in = it->second;
	in.scheduled = false;
	// The receiver's memory and the senders' stay held over the burst:
	// one lock each instead of two per packet.
	DmaHolds holds;
	holds.add(to->burst_memory());
	to->burst_begin();
	// The packets waiting now; those they cause to this port (loopback)
	// come with the next task, after the tasks queued meanwhile.
	for (size_t n = in.count; n; --n) {
		Packet p = std::move(in.ring[in.head]);
		in.head = (in.head + 1) % in.ring.size();
		--in.count;
		unqueue(in, p.burst);
		if (p.ref.mem)
			holds.add(p.ref.mem->source());
		deliver(to, p);
	}
	to->burst_end();
}

void Fabric::unqueue(Inbox &in, uint32_t n)
{
	n = std::min(n, in.queued);
	in.queued -= n;
	s_.queued.store(s_.queued.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
}

void Fabric::unqueue(FabricPort *to)
{
	if (auto it = inbox_.find(to); it != inbox_.end())
		unqueue(it->second);
}

void Fabric::deliver(FabricPort *to, const Packet &p)
{
	// The port may have left while the packet was on its way.
	if (!node(to))
		return count_no_route(p.burst);
	if (!vl15_matches_qp0(p)) {
		bump(s_.qp0_dropped);
		++to->qp0_dropped_;
		return;
	}
	bump(s_.delivered, p.burst);
	to->receive(p);
}

void Fabric::drop_next(uint32_t n, uint32_t skip)
{
	std::lock_guard<std::mutex> lk(cfg_mu_);
	drops_pending_ = n;
	skip_pending_ = n ? skip : 0;
	drops_armed_.store(n != 0, std::memory_order_relaxed);
}

void Fabric::set_delay_ms(uint32_t ms) { delay_ms_.store(ms, std::memory_order_relaxed); }

Fabric::Counters Fabric::counters() const
{
	auto r = [](const std::atomic<uint64_t> &x) { return x.load(std::memory_order_relaxed); };
	Counters c;
	c.packets = r(s_.packets);
	c.bytes = r(s_.bytes);
	c.delivered = r(s_.delivered);
	c.dropped = r(s_.dropped);
	c.no_route = r(s_.no_route);
	c.delayed = r(s_.delayed);
	c.dropped_full = r(s_.dropped_full);
	c.multicast = r(s_.multicast);
	c.queued = r(s_.queued);
	c.queued_max = r(s_.queued_max);
	c.switched = r(s_.switched);
	c.qp0_dropped = r(s_.qp0_dropped);
	c.delay_ms = delay_ms_.load(std::memory_order_relaxed);
	std::lock_guard<std::mutex> lk(cfg_mu_);
	c.drops_pending = drops_pending_;
	return c;
}

std::vector<std::string> Fabric::describe()
{
	Counters c = counters();
	auto u = [](uint64_t x) { return static_cast<unsigned long long>(x); };
	char b[256];
	std::vector<std::string> v;
	auto line = [&](const char *name, uint64_t x) {
		std::snprintf(b, sizeof b, "%s %llu", name, u(x));
		v.push_back(b);
	};
	line("packets", c.packets);
	line("bytes", c.bytes);
	line("delivered", c.delivered);
	line("dropped", c.dropped);
	line("no_route", c.no_route);
	line("dropped_full", c.dropped_full);
	line("multicast", c.multicast);
	line("queued", c.queued);
	line("queued_max", c.queued_max);
	line("link_queue_cap", kLinkQueueCap);
	line("delayed", c.delayed);
	line("switched", c.switched);
	line("qp0_dropped", c.qp0_dropped);
	line("drops_pending", c.drops_pending);
	line("delay_ms", c.delay_ms);
	std::snprintf(b, sizeof b, "sm %s", sm_ == Sm::Internal ? "internal" : "external");
	v.push_back(b);
	std::lock_guard<std::mutex> lk(engine_.state_mutex());
	for (const Node &n : nodes_) {
		std::snprintf(b, sizeof b, "hca %u lid %u lmc %u link %s", n.index, n.lid, n.lmc,
			      sw_ ? "switch" : nodes_.size() == 2 ? "peer" : "none");
		v.push_back(b);
	}
	if (sw_) {
		const IbSwitch::Counters &sc = sw_->counters();
		std::snprintf(b, sizeof b, "switch ports %u lid %u forwarded %llu sma %llu dropped %llu qp0_dropped %llu",
			      sw_->ports(), sw_->lid(), u(sc.forwarded), u(sc.sma_requests), u(sc.dropped),
			      u(sc.qp0_dropped));
		v.push_back(b);
		for (unsigned n = 0; n <= sw_->ports(); ++n) {
			std::snprintf(b, sizeof b, "switch port %u state %u", n, sw_->port(n).state);
			v.push_back(b);
		}
	}
	return v;
}

} // namespace mlx5emu
