// SPDX-License-Identifier: GPL-2.0
// The L2 switch: source MAC learning, flooding of broadcast, multicast and
// unknown unicast, no reflection to the ingress port, the table bound; and
// frames carried by the fabric between Ethernet ports.
#include <gtest/gtest.h>

#include "fabric/fabric.h"
#include "fabric/l2_switch.h"
#include "poll_for.h"

namespace mlx5emu::test {
namespace {

using namespace std::chrono_literals;
using Mac = L2Switch::Mac;

Mac mac(uint8_t last) { return Mac{0x00, 0x02, 0xc9, 0, 0, last}; }
const Mac kBroadcast{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

TEST(L2Switch, LearnsAndFloods)
{
	L2Switch s;
	for (uint32_t p : {1u, 2u, 3u})
		s.add_port(p);
	// Unknown destination: every other port.
	EXPECT_EQ(s.forward(1, mac(2), mac(1)), (std::vector<uint32_t>{2, 3}));
	// mac(1) was learned behind port 1.
	EXPECT_EQ(s.forward(2, mac(1), mac(2)), std::vector<uint32_t>{1});
	EXPECT_EQ(s.forward(3, kBroadcast, mac(3)), (std::vector<uint32_t>{1, 2}));
	Mac mc{0x33, 0x33, 0, 0, 0, 1};
	EXPECT_EQ(s.forward(1, mc, mac(1)), (std::vector<uint32_t>{2, 3}));
	// Known behind the ingress port: not sent back.
	EXPECT_TRUE(s.forward(1, mac(1), mac(9)).empty());
	// A station that moves is learned again.
	s.forward(3, kBroadcast, mac(1));
	EXPECT_EQ(s.forward(2, mac(1), mac(2)), std::vector<uint32_t>{3});
	s.remove_port(3);
	EXPECT_EQ(s.forward(2, mac(1), mac(2)), std::vector<uint32_t>{1}) << "forgotten with its port: flooded";
}

TEST(L2Switch, TableIsBounded)
{
	L2Switch s;
	s.add_port(1);
	s.add_port(2);
	for (size_t i = 0; i < L2Switch::kMaxMacs + 100; ++i) {
		Mac m{0x02, 0, 0, static_cast<uint8_t>(i >> 16), static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i)};
		s.forward(1, kBroadcast, m);
	}
	EXPECT_EQ(s.learned(), L2Switch::kMaxMacs);
}

struct Port : FabricPort {
	std::vector<std::vector<uint8_t>> frames;
	void receive(const Packet &) override {}
	void receive_frame(const std::vector<uint8_t> &f) override { frames.push_back(f); }
};

std::vector<uint8_t> eth_frame(const Mac &d, const Mac &s)
{
	std::vector<uint8_t> f(d.begin(), d.end());
	f.insert(f.end(), s.begin(), s.end());
	f.insert(f.end(), {0x08, 0x00});
	f.resize(60, 0xab);
	return f;
}

TEST(EthFabric, CarriesFramesWithDropInjection)
{
	Fabric f;
	Port a, b;
	uint32_t pa = f.attach_eth(&a), pb = f.attach_eth(&b);
	f.engine().post([&] { f.transmit_frame(pa, eth_frame(kBroadcast, mac(1))); });
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(b.frames.size(), 1u);
	EXPECT_TRUE(a.frames.empty());
	f.drop_next(1);
	f.engine().post([&] {
		f.transmit_frame(pb, eth_frame(mac(1), mac(2)));
		f.transmit_frame(pb, eth_frame(mac(1), mac(2)));
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(a.frames.size(), 1u) << "one of two dropped";
	Fabric::Counters c = f.counters();
	EXPECT_EQ(c.dropped, 1u);
	EXPECT_EQ(c.delivered, 2u);
	f.detach_eth(pa);
	f.detach_eth(pb);
}

} // namespace
} // namespace mlx5emu::test
