// SPDX-License-Identifier: GPL-2.0
// The fabric's topology and the switch: directed-route SMPs with their hop
// pointers and return paths out and back, the switch's SMA (NodeInfo,
// SwitchInfo, PortInfo, the forwarding tables), forwarding by the linear
// and multicast tables as an SM programmed them, LID learning, and the
// internal SM programming the switch itself.
#include <gtest/gtest.h>

#include <cstring>

#include "fabric/fabric.h"
#include "fabric/ib_switch.h"
#include "poll_for.h"
#include "prm/bits.h"

namespace mlx5emu::test {
namespace {

using namespace std::chrono_literals;
using bits::load_be16;
using bits::store_be16;

struct Port : FabricPort {
	std::vector<Packet> got;
	void receive(const Packet &p) override { got.push_back(p); }
};

// A directed-route SMP as a CA's MAD layer puts it on the wire: hop
// pointer already 1, the initial path `path` (path[0] unused).
Packet dr_smp(uint8_t method, uint16_t attr, uint32_t mod, std::vector<uint8_t> path, const uint8_t *data = nullptr)
{
	Packet p;
	p.dlid = p.slid = mad::kPermissiveLid;
	p.dqpn = p.sqpn = 0;
	p.vl = kVl15;
	p.opcode = ibop::UD_SEND_ONLY;
	p.payload.assign(mad::kSize, 0);
	uint8_t *m = p.payload.data();
	m[0] = 1;
	m[1] = mad::CLASS_SUBN_DIRECTED_ROUTE;
	m[2] = 1;
	m[3] = method;
	m[mad::kHopPtr] = 1;
	m[mad::kHopCnt] = static_cast<uint8_t>(path.size() - 1);
	store_be16(m + mad::kAttrId, attr);
	bits::store_be32(m + mad::kAttrMod, mod);
	store_be16(m + mad::kDrSlid, mad::kPermissiveLid);
	store_be16(m + mad::kDrDlid, mad::kPermissiveLid);
	for (size_t i = 0; i < path.size(); ++i)
		m[mad::kInitialPath + i] = path[i];
	if (data)
		std::memcpy(m + mad::kSmpData, data, mad::kSmpDataLen);
	return p;
}

TEST(IbSwitch, DirectedRouteToTheSwitchAndBack)
{
	IbSwitch sw(3, 0x1234, false);
	sw.set_link(1, true);
	sw.set_link(2, true);
	IbSwitch::Out out;
	sw.receive(2, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1}), &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].first, 2u) << "the answer leaves by the port the request came in by";
	const uint8_t *m = out[0].second.payload.data();
	EXPECT_EQ(m[mad::kMethod], mad::METHOD_GET_RESP);
	EXPECT_EQ(load_be16(m + mad::kStatus), mad::STATUS_DIRECTION);
	EXPECT_EQ(m[mad::kHopPtr], 1) << "hop_cnt + 1 -> hop_cnt";
	EXPECT_EQ(m[mad::kReturnPath + 1], 2);
	EXPECT_EQ(m[mad::kSmpData + 2], mad::NODE_SWITCH);
	EXPECT_EQ(m[mad::kSmpData + 3], 3) << "NumPorts";
	EXPECT_EQ(m[mad::kSmpData + 36], 2) << "LocalPortNum";
	EXPECT_EQ(out[0].second.dlid, mad::kPermissiveLid);
}

TEST(IbSwitch, DirectedRouteThroughTheSwitch)
{
	IbSwitch sw(4, 0x1234, false);
	for (unsigned n = 1; n <= 4; ++n)
		sw.set_link(n, true);
	IbSwitch::Out out;
	// From the CA on port 1 to the CA on port 3: path 0,1,3.
	sw.receive(1, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1, 3}), &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].first, 3u);
	Packet fwd = out[0].second;
	EXPECT_EQ(fwd.payload[mad::kHopPtr], 2);
	EXPECT_EQ(fwd.payload[mad::kReturnPath + 1], 1);
	EXPECT_EQ(fwd.payload[mad::kMethod], mad::METHOD_GET) << "forwarded, not answered";

	// The CA answers (its MAD layer: D set, hop pointer cnt); back through port 1.
	Packet ans = fwd;
	ans.payload[mad::kMethod] = mad::METHOD_GET_RESP;
	store_be16(ans.payload.data() + mad::kStatus, mad::STATUS_DIRECTION);
	ans.payload[mad::kReturnPath + 2] = 1;
	out.clear();
	sw.receive(3, ans, &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].first, 1u);
	EXPECT_EQ(out[0].second.payload[mad::kHopPtr], 1);

	// Bad hops: a port that does not exist, one without a link, hop pointer 0.
	out.clear();
	sw.receive(1, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1, 9}), &out);
	Packet zero = dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1, 2});
	zero.payload[mad::kHopPtr] = 0;
	sw.receive(1, zero, &out);
	sw.set_link(4, false);
	sw.receive(1, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1, 4}), &out);
	EXPECT_TRUE(out.empty());
	EXPECT_EQ(sw.counters().dropped, 3u);
}

TEST(IbSwitch, SmaProgramsForwarding)
{
	IbSwitch sw(3, 0x1234, false);
	for (unsigned n = 1; n <= 3; ++n)
		sw.set_link(n, true);
	IbSwitch::Out out;
	// LFT block 0: LID 1 -> port 1, LID 2 -> port 2, LID 3 -> port 3.
	uint8_t lft[64];
	std::memset(lft, 0xff, sizeof lft);
	lft[1] = 1, lft[2] = 2, lft[3] = 3;
	sw.receive(1, dr_smp(mad::METHOD_SET, mad::ATTR_LINEAR_FT, 0, {0, 1}, lft), &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(load_be16(out[0].second.payload.data() + mad::kStatus), mad::STATUS_DIRECTION);
	EXPECT_EQ(sw.lft(2), 2);
	// SwitchInfo: LinearFDBTop 3.
	uint8_t si[64] = {};
	store_be16(si + 6, 3);
	out.clear();
	sw.receive(1, dr_smp(mad::METHOD_SET, mad::ATTR_SWITCH_INFO, 0, {0, 1}, si), &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(load_be16(out[0].second.payload.data() + mad::kSmpData), IbSwitch::kLftCap);
	EXPECT_EQ(load_be16(out[0].second.payload.data() + mad::kSmpData + 6), 3);

	// Data waits for ACTIVE ports.
	Packet data;
	data.dlid = 2;
	data.dqpn = 0x55;
	out.clear();
	sw.receive(1, data, &out);
	EXPECT_TRUE(out.empty()) << "ports in INIT pass SMPs only";
	for (unsigned n = 1; n <= 3; ++n)
		for (uint8_t st : {mad::PORT_ARMED, mad::PORT_ACTIVE}) {
			uint8_t pi[64] = {};
			pi[32] = st;
			out.clear();
			sw.receive(1, dr_smp(mad::METHOD_SET, mad::ATTR_PORT_INFO, n, {0, 1}, pi), &out);
			ASSERT_EQ(out.size(), 1u);
			EXPECT_EQ(out[0].second.payload[mad::kSmpData + 32] & 0xf, st);
			EXPECT_EQ(out[0].second.payload[mad::kSmpData + 28], 1) << "LocalPortNum: the port it came in by";
		}
	out.clear();
	sw.receive(1, data, &out);
	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].first, 2u);
	data.dlid = 9; // beyond LinearFDBTop
	out.clear();
	sw.receive(1, data, &out);
	EXPECT_TRUE(out.empty());

	// MFT: MLID 0xc001 to ports 2 and 3 (block 0, position 0).
	uint8_t mft[64] = {};
	store_be16(mft + 2, 1 << 2 | 1 << 3);
	out.clear();
	sw.receive(1, dr_smp(mad::METHOD_SET, mad::ATTR_MULTICAST_FT, 0, {0, 1}, mft), &out);
	EXPECT_EQ(sw.outports(0xc001), (std::vector<unsigned>{2, 3}));
	data.dlid = 0xc001;
	out.clear();
	sw.receive(2, data, &out);
	ASSERT_EQ(out.size(), 1u) << "not back out the port it came in by";
	EXPECT_EQ(out[0].first, 3u);

	// Bad input: an LFT block beyond the cap, an MFT position beyond the ports.
	out.clear();
	sw.receive(1, dr_smp(mad::METHOD_GET, mad::ATTR_LINEAR_FT, IbSwitch::kLftCap / 64, {0, 1}), &out);
	sw.receive(1, dr_smp(mad::METHOD_GET, mad::ATTR_MULTICAST_FT, 7u << 28, {0, 1}), &out);
	ASSERT_EQ(out.size(), 2u);
	for (auto &o : out)
		EXPECT_EQ(load_be16(o.second.payload.data() + mad::kStatus),
			  mad::STATUS_DIRECTION | mad::STATUS_INVALID_ATTR_VALUE);
}

void on_engine(Fabric &f, std::function<void()> fn)
{
	f.engine().post(std::move(fn));
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
}

TEST(FabricTopology, BackToBackDirectedRouteCrossesOneLink)
{
	Fabric f(Fabric::Sm::External);
	Port a, b;
	f.attach(0, &a);
	f.attach(1, &b);
	on_engine(f, [&] { f.transmit(&a, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1})); });
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(b.got.size(), 1u);
	EXPECT_TRUE(a.got.empty());
	EXPECT_EQ(f.ib_switch(), nullptr);
	// No LIDs yet: LID-routed packets go nowhere; after set_lid they do.
	Packet p;
	p.dlid = 5;
	p.dqpn = 0x42;
	on_engine(f, [&] { f.transmit(&a, Packet(p)); });
	EXPECT_EQ(f.counters().no_route, 1u);
	on_engine(f, [&] {
		f.set_lid(&b, 4, 2); // LIDs 4..7
		f.transmit(&a, Packet(p));
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(b.got.size(), 2u);
}

TEST(FabricTopology, ThreeHcasGoThroughTheSwitch)
{
	Fabric f(Fabric::Sm::External);
	Port a, b, c;
	f.attach(0, &a);
	f.attach(1, &b);
	f.attach(2, &c);
	ASSERT_NE(f.ib_switch(), nullptr);
	EXPECT_EQ(f.ib_switch()->ports(), 3u);
	// HCA 0's SM asks the switch for its NodeInfo, then HCA 2's through switch port 3.
	on_engine(f, [&] {
		f.transmit(&a, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1}));
		f.transmit(&a, dr_smp(mad::METHOD_GET, mad::ATTR_NODE_INFO, 0, {0, 1, 3}));
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	ASSERT_EQ(a.got.size(), 1u);
	EXPECT_EQ(a.got[0].payload[mad::kSmpData + 2], mad::NODE_SWITCH);
	EXPECT_EQ(a.got[0].payload[mad::kSmpData + 36], 1) << "came in by switch port 1";
	ASSERT_EQ(c.got.size(), 1u);
	EXPECT_EQ(c.got[0].payload[mad::kHopPtr], 2);
	EXPECT_TRUE(b.got.empty());
}

TEST(FabricTopology, InternalSmProgramsTheSwitch)
{
	Fabric f;
	Port a, b, c;
	f.attach(0, &a);
	f.attach(1, &b);
	f.attach(2, &c);
	Packet p;
	p.dlid = 3;
	p.dqpn = 0x42;
	on_engine(f, [&] {
		f.set_lid(&a, 1, 0);
		f.set_lid(&b, 2, 0);
		f.set_lid(&c, 3, 0);
		f.transmit(&a, Packet(p));
		p.dlid = 2;
		f.transmit(&c, Packet(p));
	});
	ASSERT_TRUE(f.engine().wait_idle(kPatience));
	EXPECT_EQ(c.got.size(), 1u);
	EXPECT_EQ(b.got.size(), 1u);
	EXPECT_EQ(f.counters().switched, 2u);
}

} // namespace
} // namespace mlx5emu::test
