// SPDX-License-Identifier: GPL-2.0
// Ethernet receive steering on its own: header parsing, the match engine
// over fte_match_param images, flow tables (groups, entries, miss tables,
// drop, counters, the root) and the RSS hash (the Toeplitz vectors of the
// Microsoft RSS specification).
#include <gtest/gtest.h>

#include <cstring>

#include "prm/prm.h"
#include "prm/eth.h"
#include "steer/flow_table.h"
#include "steer/headers.h"
#include "steer/match.h"
#include "steer/rss.h"

namespace mlx5emu::test {
namespace {

using namespace steer;
namespace m = prm::match;

// dst, src, [VLAN tci], IPv4 or IPv6, TCP or UDP with ports.
std::vector<uint8_t> frame(bool v6, bool udp, uint16_t sport, uint16_t dport, int vlan = -1,
			   const uint8_t *dmac = nullptr)
{
	static const uint8_t d[6] = {0x00, 0x02, 0xc9, 0x11, 0x22, 0x33};
	std::vector<uint8_t> f(dmac ? dmac : d, (dmac ? dmac : d) + 6);
	const uint8_t s[6] = {0x00, 0x02, 0xc9, 0x44, 0x55, 0x66};
	f.insert(f.end(), s, s + 6);
	if (vlan >= 0) {
		f.insert(f.end(), {0x81, 0x00, static_cast<uint8_t>(vlan >> 8), static_cast<uint8_t>(vlan)});
	}
	unsigned l4 = udp ? 8 : 20;
	if (!v6) {
		f.insert(f.end(), {0x08, 0x00, 0x45, 0x00, 0, static_cast<uint8_t>(20 + l4), 0, 1, 0, 0, 64,
				   static_cast<uint8_t>(udp ? 17 : 6), 0, 0, 66, 9, 149, 187, 161, 142, 100, 80});
	} else {
		f.insert(f.end(), {0x86, 0xdd, 0x60, 0, 0, 0, 0, static_cast<uint8_t>(l4),
				   static_cast<uint8_t>(udp ? 17 : 6), 64});
		for (int i = 0; i < 16; ++i)
			f.push_back(static_cast<uint8_t>(i == 0 ? 0xfd : i));
		for (int i = 0; i < 16; ++i)
			f.push_back(static_cast<uint8_t>(i == 0 ? 0xfd : 0x20 + i));
	}
	f.insert(f.end(), {static_cast<uint8_t>(sport >> 8), static_cast<uint8_t>(sport),
			   static_cast<uint8_t>(dport >> 8), static_cast<uint8_t>(dport)});
	f.resize(f.size() + l4 - 4, 0);
	if (!udp)
		f[f.size() - l4 + 12] = 0x50; // data offset 5
	return f;
}

TEST(EthHeaders, ParsesIpv4TcpIpv6UdpAndVlan)
{
	auto f = frame(false, false, 2794, 1766);
	Headers h = parse_headers(f.data(), f.size());
	EXPECT_EQ(h.ethertype, ethertype::IPV4);
	EXPECT_EQ(h.ip_version, 4);
	EXPECT_TRUE(h.is_tcp());
	EXPECT_EQ(h.sport, 2794);
	EXPECT_EQ(h.dport, 1766);
	EXPECT_EQ(h.l4_hdr_len, 20u);

	f = frame(true, true, 53, 4000, 0x2005);
	h = parse_headers(f.data(), f.size());
	EXPECT_TRUE(h.cvlan);
	EXPECT_EQ(h.vlan_tci, 0x2005);
	EXPECT_EQ(h.ethertype, ethertype::IPV6);
	EXPECT_EQ(h.ip_version, 6);
	EXPECT_TRUE(h.is_udp());
	EXPECT_EQ(h.dport, 4000);

	// Truncated: nothing past what is there.
	h = parse_headers(f.data(), 20);
	EXPECT_EQ(h.ip_version, 0);
	EXPECT_EQ(h.l4_off, 0u);
}

TEST(EthHeaders, ChecksumsVerify)
{
	auto f = frame(false, true, 1, 2);
	Headers h = parse_headers(f.data(), f.size());
	uint8_t *ip = f.data() + h.l3_off;
	uint16_t c = csum_fold(csum_add(0, ip, 20));
	ip[10] = static_cast<uint8_t>(c >> 8);
	ip[11] = static_cast<uint8_t>(c);
	EXPECT_TRUE(ipv4_csum_ok(f.data(), f.size(), h));
	ip[8] ^= 1;
	EXPECT_FALSE(ipv4_csum_ok(f.data(), f.size(), h));
}

MatchParam criteria_dmac_ethertype()
{
	MatchParam c{};
	bits::set(c.data(), m::dmac_47_16, 0xffffffff);
	bits::set(c.data(), m::dmac_15_0, 0xffff);
	bits::set(c.data(), m::ethertype, 0xffff);
	return c;
}

TEST(EthMatch, CriteriaAndValue)
{
	auto f = frame(false, false, 10, 20);
	MatchParam img = match_image(parse_headers(f.data(), f.size()));
	MatchParam crit = criteria_dmac_ethertype();
	MatchParam val{};
	bits::set(val.data(), m::dmac_47_16, 0x0002c911);
	bits::set(val.data(), m::dmac_15_0, 0x2233);
	bits::set(val.data(), m::ethertype, 0x0800);
	EXPECT_TRUE(matches(img, crit, val, 1));
	bits::set(val.data(), m::ethertype, 0x86dd);
	EXPECT_FALSE(matches(img, crit, val, 1));
	// A disabled section does not take part.
	EXPECT_TRUE(matches(img, crit, val, 0));
	// Bits outside the criteria do not matter.
	MatchParam any{};
	EXPECT_TRUE(matches(img, any, val, 1));
}

TEST(EthMatch, UnsupportedCriteriaRefused)
{
	EXPECT_TRUE(criteria_supported(criteria_dmac_ethertype(), 1));
	MatchParam c{};
	c[m::kSectionSize + 4] = 0xff; // misc parameters: not matched on
	EXPECT_TRUE(criteria_supported(c, 1)) << "section disabled";
	EXPECT_FALSE(criteria_supported(c, 1 | 2));
}

// Two tables: the root sends the frame's dmac to table 2, which sends
// IPv4 TCP to TIR 7 (counted) and drops everything else.
struct EthSteerTables : ::testing::Test {
	Steering s;
	uint32_t root = 0, t2 = 0, counter = 0, reason = 0;

	void SetUp() override
	{
		FlowTable t;
		t.log_size = 4;
		ASSERT_EQ(s.create_table(t, &t2, &reason), 0);
		ASSERT_EQ(s.create_table(t, &root, &reason), 0);
		ASSERT_EQ(s.alloc_counters(1, &counter, &reason), 0);

		FlowGroup g;
		g.start = 0;
		g.end = 3;
		g.enable = 1;
		bits::set(g.criteria.data(), m::dmac_47_16, 0xffffffff);
		bits::set(g.criteria.data(), m::dmac_15_0, 0xffff);
		uint32_t gid = 0;
		ASSERT_EQ(s.create_group(root, g, &gid, &reason), 0);
		FlowEntry e;
		e.group_id = gid;
		e.action = prm::flow_ctx::ACT_FWD_DEST;
		bits::set(e.value.data(), m::dmac_47_16, 0x0002c911);
		bits::set(e.value.data(), m::dmac_15_0, 0x2233);
		e.dests.push_back({prm::dest::FLOW_TABLE, t2});
		ASSERT_EQ(s.set_entry(root, e, false, &reason), 0);

		FlowGroup g2;
		g2.start = 0;
		g2.end = 0;
		g2.enable = 1;
		bits::set(g2.criteria.data(), m::ip_version, 0xf);
		bits::set(g2.criteria.data(), m::ip_protocol, 0xff);
		ASSERT_EQ(s.create_group(t2, g2, &gid, &reason), 0);
		FlowEntry tcp;
		tcp.index = 0;
		tcp.group_id = gid;
		tcp.action = prm::flow_ctx::ACT_FWD_DEST | prm::flow_ctx::ACT_COUNT;
		tcp.flow_tag = 0x42;
		bits::set(tcp.value.data(), m::ip_version, 4);
		bits::set(tcp.value.data(), m::ip_protocol, 6);
		tcp.dests.push_back({prm::dest::TIR, 7});
		tcp.counters.push_back(counter);
		ASSERT_EQ(s.set_entry(t2, tcp, false, &reason), 0);
		FlowGroup g3;
		g3.start = 1;
		g3.end = 1;
		ASSERT_EQ(s.create_group(t2, g3, &gid, &reason), 0);
		FlowEntry drop;
		drop.index = 1;
		drop.group_id = gid;
		drop.action = prm::flow_ctx::ACT_DROP;
		ASSERT_EQ(s.set_entry(t2, drop, false, &reason), 0);
		ASSERT_EQ(s.set_root(root, &reason), 0);
	}

	Verdict run(const std::vector<uint8_t> &f)
	{
		return s.classify(match_image(parse_headers(f.data(), f.size())), static_cast<uint32_t>(f.size()));
	}
};

TEST_F(EthSteerTables, ForwardsCountsAndDrops)
{
	Verdict v = run(frame(false, false, 1, 2));
	ASSERT_EQ(v.tirs, std::vector<uint32_t>{7});
	EXPECT_EQ(v.flow_tag, 0x42u);
	EXPECT_EQ(s.counter(counter)->packets, 1u);
	EXPECT_EQ(s.counter(counter)->bytes, 54u);

	v = run(frame(false, true, 1, 2)); // UDP: the drop rule
	EXPECT_TRUE(v.tirs.empty());
	EXPECT_TRUE(v.dropped_by_rule);

	static const uint8_t other[6] = {0x00, 0x02, 0xc9, 0x99, 0x99, 0x99};
	v = run(frame(false, false, 1, 2, -1, other)); // no rule in the root, default miss
	EXPECT_TRUE(v.tirs.empty());
	EXPECT_FALSE(v.dropped_by_rule);
	EXPECT_EQ(s.counter(counter)->packets, 1u);
}

TEST_F(EthSteerTables, MissTableAndBusyObjects)
{
	// Unknown MACs miss the root into table 2.
	ASSERT_EQ(s.modify_miss(root, prm::ftc::MISS_FWD, t2, &reason), 0);
	static const uint8_t other[6] = {0x00, 0x02, 0xc9, 0x99, 0x99, 0x99};
	EXPECT_EQ(run(frame(false, false, 1, 2, -1, other)).tirs, std::vector<uint32_t>{7});

	EXPECT_EQ(s.destroy_table(t2, &reason), prm::status::RESOURCE_BUSY) << "groups";
	EXPECT_EQ(s.dealloc_counter(counter, &reason), prm::status::RESOURCE_BUSY) << "an entry counts on it";
	FlowEntry dup;
	dup.group_id = 99;
	EXPECT_EQ(s.set_entry(root, dup, false, &reason), prm::status::BAD_PARAM) << "no such group";
	EXPECT_EQ(s.delete_entry(t2, 5, &reason), prm::status::BAD_PARAM);
}

TEST(EthRss, ToeplitzMatchesTheSpecificationVectors)
{
	// Microsoft RSS verification suite: 66.9.149.187:2794 -> 161.142.100.80:1766.
	const uint8_t k[40] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
			       0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
			       0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};
	RssConfig c;
	std::memcpy(c.key.data(), k, 40);
	c.fn = prm::tirc::HASH_TOEPLITZ;
	c.fields = prm::tirc::SEL_SRC_IP | prm::tirc::SEL_DST_IP;
	auto f = frame(false, false, 2794, 1766);
	Headers h = parse_headers(f.data(), f.size());
	uint8_t type = 0;
	EXPECT_EQ(rss_hash(c, h, &type), 0x323e8fc2u);
	EXPECT_EQ(type, 1u << 2);
	c.fields |= prm::tirc::SEL_L4_SPORT | prm::tirc::SEL_L4_DPORT;
	EXPECT_EQ(rss_hash(c, h, &type), 0x51ccc178u);
	EXPECT_EQ(type, (1u << 2) | (1u << 6));
	// A TIR for IPv6 does not hash IPv4 packets.
	c.l3_ipv6 = true;
	EXPECT_EQ(rss_hash(c, h, &type), 0u);
	EXPECT_EQ(type, 0u);
}

} // namespace
} // namespace mlx5emu::test
