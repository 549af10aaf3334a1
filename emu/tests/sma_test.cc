// SPDX-License-Identifier: GPL-2.0
// The SMA: PortInfo Get/Set (LID, LMC, SM LID, the INIT -> ARMED -> ACTIVE
// transitions, MTU and VL checks, ClientReregister), the M_Key check, the
// P_Key, GUID, SL-to-VL and VL arbitration tables, bad input; and the
// firmware behind MAD_IFC with an external SM: a port waiting in INIT, the
// LID reaching the data path and QUERY_HCA_VPORT_CONTEXT, the port-change
// EQEs, the PMA counters.
#include <gtest/gtest.h>

#include "exec/datapath.h"
#include "fabric/fabric.h"
#include "fabric/sma_port.h"
#include "fw/mad.h"
#include "fw_harness.h"

namespace mlx5emu::test {
namespace {

using bits::load_be16;
using bits::store_be16;

SmaPort fresh()
{
	SmaPort p;
	p.init(0x1122334455667788ull, 64, 8);
	return p;
}

// PortInfo data that changes nothing but what the caller sets.
std::array<uint8_t, 64> pi_of(const SmaPort &p)
{
	std::array<uint8_t, 64> d{};
	sma::get_port_info(p, 1, d.data());
	d[32] &= 0xf0; // PortState: no change
	d[33] = 0;     // PortPhysicalState: no change
	return d;
}

TEST(Sma, PortInfoSetsLidLmcSmAndWalksTheStates)
{
	SmaPort p = fresh();
	EXPECT_EQ(p.state, mad::PORT_INIT);
	auto d = pi_of(p);
	store_be16(d.data() + 16, 0x12);
	store_be16(d.data() + 18, 0x1);
	d[34] = 2;                 // LMC 2
	d[36] = 4 << 4 | 3;        // NeighborMTU 2048, SM SL 3
	d[43] = 1 << 4;            // OperationalVLs VL0
	PortChanges ch;
	ASSERT_TRUE(sma::set_port_info(p, d.data(), &ch));
	EXPECT_TRUE(ch.lid && ch.sm && !ch.state);
	EXPECT_EQ(p.lid, 0x12);
	EXPECT_EQ(p.lmc, 2);
	EXPECT_EQ(p.sm_lid, 1);
	EXPECT_EQ(p.sm_sl, 3);
	EXPECT_EQ(p.neighbor_mtu, 4);
	EXPECT_TRUE(p.owns_lid(0x13));
	EXPECT_FALSE(p.owns_lid(0x14));

	// INIT -> ACTIVE skips ARMED: refused, nothing changes.
	d = pi_of(p);
	d[32] |= mad::PORT_ACTIVE;
	store_be16(d.data() + 16, 0x40);
	EXPECT_FALSE(sma::set_port_info(p, d.data(), &ch));
	EXPECT_EQ(p.state, mad::PORT_INIT);
	EXPECT_EQ(p.lid, 0x12);

	d = pi_of(p);
	d[32] |= mad::PORT_ARMED;
	ch = {};
	ASSERT_TRUE(sma::set_port_info(p, d.data(), &ch));
	EXPECT_TRUE(ch.state);
	EXPECT_EQ(p.state, mad::PORT_ARMED);
	d = pi_of(p);
	d[32] |= mad::PORT_ACTIVE;
	d[51] |= 0x80; // ClientReregister
	ch = {};
	ASSERT_TRUE(sma::set_port_info(p, d.data(), &ch));
	EXPECT_TRUE(ch.state && ch.rereg && !ch.lid);
	EXPECT_EQ(ch.old_state, mad::PORT_ARMED);
	EXPECT_EQ(p.state, mad::PORT_ACTIVE);
	std::array<uint8_t, 64> g{};
	sma::get_port_info(p, 1, g.data());
	EXPECT_EQ(g[32] & 0xf, mad::PORT_ACTIVE);
	EXPECT_EQ(g[51] & 0x80, 0) << "ClientReregister reads 0";
	EXPECT_EQ(load_be16(g.data() + 16), 0x12);

	// ARMED from ACTIVE: refused. DOWN: the link retrains to INIT.
	d = pi_of(p);
	d[32] |= mad::PORT_ARMED;
	EXPECT_FALSE(sma::set_port_info(p, d.data(), &ch));
	d = pi_of(p);
	d[32] |= mad::PORT_DOWN;
	ch = {};
	ASSERT_TRUE(sma::set_port_info(p, d.data(), &ch));
	EXPECT_TRUE(ch.state);
	EXPECT_EQ(p.state, mad::PORT_INIT);
}

TEST(Sma, PortInfoRefusesBadValues)
{
	SmaPort p = fresh();
	PortChanges ch;
	auto bad = [&](auto edit) {
		auto d = pi_of(p);
		edit(d);
		SmaPort before = p;
		EXPECT_FALSE(sma::set_port_info(p, d.data(), &ch));
		EXPECT_EQ(p.lid, before.lid);
		EXPECT_EQ(p.neighbor_mtu, before.neighbor_mtu);
	};
	bad([](auto &d) { store_be16(d.data() + 16, 0xc001); }); // multicast LID
	bad([](auto &d) { store_be16(d.data() + 16, 0xffff); }); // permissive
	bad([](auto &d) { d[36] = 6 << 4; });                     // NeighborMTU above MTUCap
	bad([](auto &d) { d[43] = 2 << 4; });                     // OperationalVLs above VLCap
	bad([](auto &d) { d[32] |= 7; });                         // no such state
	bad([](auto &d) { d[29] = 0x10; });                       // width not supported
}

TEST(Sma, MkeyCheck)
{
	SmaPort p = fresh();
	uint8_t req[mad::kSize] = {};
	req[mad::kMethod] = mad::METHOD_GET;
	bool hide;
	EXPECT_TRUE(sma::mkey_allows(p, req, &hide)) << "M_Key 0: no check";
	p.mkey = 0xabcd;
	req[mad::kMethod] = mad::METHOD_SET;
	EXPECT_FALSE(sma::mkey_allows(p, req, &hide)) << "Set with the wrong key";
	bits::store_be64(req + mad::kMkey, 0xabcd);
	EXPECT_TRUE(sma::mkey_allows(p, req, &hide));
	bits::store_be64(req + mad::kMkey, 0);
	req[mad::kMethod] = mad::METHOD_GET;
	EXPECT_TRUE(sma::mkey_allows(p, req, &hide));
	EXPECT_FALSE(hide) << "protection 0: Get sees everything";
	p.mkey_protect = 1;
	EXPECT_TRUE(sma::mkey_allows(p, req, &hide));
	EXPECT_TRUE(hide);
	p.mkey_protect = 2;
	EXPECT_FALSE(sma::mkey_allows(p, req, &hide));
}

TEST(Sma, Tables)
{
	SmaPort p = fresh();
	PortChanges ch;
	uint8_t d[64] = {}, g[64] = {};
	store_be16(d, 0xffff);
	store_be16(d + 2, 0x8001);
	ASSERT_TRUE(sma::set_pkeys(p, 1, d, &ch));
	EXPECT_TRUE(ch.pkey);
	EXPECT_EQ(p.pkeys[33], 0x8001);
	ASSERT_TRUE(sma::get_pkeys(p, 1, g));
	EXPECT_EQ(load_be16(g + 2), 0x8001);
	EXPECT_FALSE(sma::get_pkeys(p, 2, g)) << "64 entries: blocks 0 and 1";
	EXPECT_FALSE(sma::set_pkeys(p, 2, d, &ch));

	uint8_t gd[64] = {};
	bits::store_be64(gd, 0x1);        // GUID 0: read-only
	bits::store_be64(gd + 8, 0x2222); // alias GUID 1
	ch = {};
	ASSERT_TRUE(sma::set_guids(p, 0, gd, &ch));
	EXPECT_TRUE(ch.gid);
	EXPECT_EQ(p.guids[0], 0x1122334455667788ull);
	EXPECT_EQ(p.guids[1], 0x2222u);
	EXPECT_FALSE(sma::get_guids(p, 1, g));

	uint8_t sl[8] = {};
	EXPECT_TRUE(sma::set_sl2vl(p, sl));
	sl[0] = 0x0f; // SL1 -> VL15: drop, allowed
	EXPECT_TRUE(sma::set_sl2vl(p, sl));
	sl[0] = 0x10; // SL0 -> VL1: VLCap is VL0 only
	EXPECT_FALSE(sma::set_sl2vl(p, sl));
	sma::get_sl2vl(p, g);
	EXPECT_EQ(g[0], 0x0f);

	uint8_t arb[64] = {0, 255};
	EXPECT_TRUE(sma::set_vlarb(p, 1, arb));
	EXPECT_TRUE(sma::get_vlarb(p, 1, g));
	EXPECT_EQ(g[1], 255);
	EXPECT_FALSE(sma::set_vlarb(p, 0, arb));
	EXPECT_FALSE(sma::get_vlarb(p, 5, g));
}

// The firmware with an external SM.
class FwSma : public ::testing::Test {
protected:
	FwSma()
	{
		HcaConfig c;
		c.index = 1;
		c.guid_seed = 0x77;
		c.fabric = std::make_shared<Fabric>(Fabric::Sm::External);
		h = std::make_unique<FwHarness>(c);
	}
	void SetUp() override { h->bring_up(); }

	std::vector<uint8_t> smp(uint8_t method, uint16_t attr, uint32_t mod, const uint8_t *data = nullptr,
				 uint8_t cls = mad::CLASS_SUBN_DIRECTED_ROUTE)
	{
		Msg m(prm::op::MAD_IFC, 0, 16 + 256);
		m.set({2, 7, 0}, 1);
		uint8_t *mad = m.b.data() + 16;
		mad[0] = 1;
		mad[1] = cls;
		mad[2] = 1;
		mad[3] = method;
		bits::store_be16(mad + 16, attr);
		bits::store_be32(mad + 20, mod);
		if (cls == mad::CLASS_SUBN_DIRECTED_ROUTE)
			bits::store_be16(mad + mad::kDrSlid, 0xffff), bits::store_be16(mad + mad::kDrDlid, 0xffff);
		if (data)
			std::memcpy(mad + 64, data, 64);
		auto out = h->ok(m, 16 + 256);
		return std::vector<uint8_t>(out.begin() + 16, out.end());
	}
	std::vector<uint8_t> set_state(uint8_t state, uint16_t lid = 0)
	{
		auto g = smp(mad::METHOD_GET, mad::ATTR_PORT_INFO, 1);
		g[64 + 32] = static_cast<uint8_t>((g[64 + 32] & 0xf0) | state);
		g[64 + 33] = 0;
		if (lid)
			store_be16(&g[64 + 16], lid), store_be16(&g[64 + 18], lid);
		return smp(mad::METHOD_SET, mad::ATTR_PORT_INFO, 1, &g[64]);
	}

	std::unique_ptr<FwHarness> h;
};

TEST_F(FwSma, PortWaitsInInitThenTheSmBringsItUp)
{
	auto pi = smp(mad::METHOD_GET, mad::ATTR_PORT_INFO, 1);
	EXPECT_EQ(load_be16(&pi[4]), mad::STATUS_DIRECTION) << "directed route answered";
	EXPECT_EQ(pi[64 + 32] & 0xf, mad::PORT_INIT);
	EXPECT_EQ(pi[64 + 33] >> 4, mad::PHYS_LINK_UP);
	EXPECT_EQ(load_be16(&pi[64 + 16]), 0) << "no LID before the SM";
	{
		auto lk = h->fw().dp().lock();
		EXPECT_EQ(h->fw().dp().port_lid(), 0);
	}
	uint32_t uar = h->alloc_uar();
	auto eq = h->create_eq(4, 1ull << prm::event::PORT_CHANGE, 0, uar);

	auto r = set_state(mad::PORT_ACTIVE, 7);
	EXPECT_EQ(load_be16(&r[4]), mad::STATUS_DIRECTION | mad::STATUS_INVALID_ATTR_VALUE) << "INIT -> ACTIVE";
	r = set_state(mad::PORT_ARMED, 7);
	EXPECT_EQ(load_be16(&r[4]), mad::STATUS_DIRECTION);
	EXPECT_EQ(r[64 + 32] & 0xf, mad::PORT_ARMED);
	r = set_state(mad::PORT_ACTIVE);
	EXPECT_EQ(r[64 + 32] & 0xf, mad::PORT_ACTIVE);
	{
		auto lk = h->fw().dp().lock();
		EXPECT_EQ(h->fw().dp().port_lid(), 7);
	}
	// LID change, then port active.
	ASSERT_TRUE(h->wait_eqe(eq, 0));
	auto e = h->eqe(eq, 0);
	EXPECT_EQ(e[prm::eqe::kType], prm::event::PORT_CHANGE);
	EXPECT_EQ(e[prm::eqe::kSubType], prm::port_change::LID);
	EXPECT_EQ(e[prm::eqe::kData + 8] >> 4, 1);
	ASSERT_TRUE(h->wait_eqe(eq, 1));
	EXPECT_EQ(h->eqe(eq, 1)[prm::eqe::kSubType], prm::port_change::ACTIVE);

	auto out = h->ok(Msg(prm::op::QUERY_HCA_VPORT_CONTEXT, 0, 16).set({2, 19, 16}, 1), 528);
	EXPECT_EQ(field(out, bits::Field{8, 7, 4}.at(0x10)), mad::PORT_ACTIVE);
	EXPECT_EQ(field(out, bits::Field{0x18, 31, 16}.at(0x10)), 7u) << "lid";
	EXPECT_EQ(field(out, bits::Field{0x19, 31, 16}.at(0x10)), 7u) << "sm_lid";
}

// A function reset (the driver's DISABLE_HCA at unload) takes the port back
// to power-on: INIT without a LID, waiting for the next sweep.
TEST_F(FwSma, FunctionResetForgetsWhatTheSmSet)
{
	set_state(mad::PORT_ARMED, 9);
	set_state(mad::PORT_ACTIVE);
	ASSERT_EQ(h->fw().port().lid, 9);
	h->ok(Msg(prm::op::TEARDOWN_HCA, 0, 16), 16);
	h->ok(Msg(prm::op::DISABLE_HCA, 0, 16), 16);
	EXPECT_EQ(h->fw().port().state, mad::PORT_INIT);
	EXPECT_EQ(h->fw().port().lid, 0);
	EXPECT_EQ(h->fw().port().sm_lid, 0);
	{
		auto lk = h->fw().dp().lock();
		EXPECT_EQ(h->fw().dp().port_lid(), 0);
	}
	h->bring_up();
	auto pi = smp(mad::METHOD_GET, mad::ATTR_PORT_INFO, 1);
	EXPECT_EQ(pi[64 + 32] & 0xf, mad::PORT_INIT);
	EXPECT_EQ(load_be16(&pi[64 + 16]), 0);
}

TEST_F(FwSma, PmaCountsTheDataPath)
{
	Msg m(prm::op::MAD_IFC, 0, 16 + 256);
	m.set({2, 7, 0}, 1);
	uint8_t *mad = m.b.data() + 16;
	mad[0] = 1;
	mad[1] = mad::CLASS_PERF_MGMT;
	mad[2] = 1;
	mad[3] = mad::METHOD_GET;
	bits::store_be16(mad + 16, mad::ATTR_PORT_COUNTERS);
	mad[64 + 1] = 1;
	{
		auto lk = h->fw().dp().lock();
		Packet p;
		p.dlid = 0xffff; // an SMP: taken in INIT
		p.dqpn = 0;
		p.opcode = ibop::UD_SEND_ONLY;
		p.payload.assign(256, 0);
		h->fw().dp().receive(p);
	}
	auto out = h->ok(m, 16 + 256);
	const uint8_t *d = out.data() + 16 + 64;
	EXPECT_EQ(load_be16(out.data() + 16 + 4), 0);
	EXPECT_EQ(bits::load_be32(d + 36), 1u) << "PortRcvPkts";
	EXPECT_EQ(bits::load_be32(d + 28), (256u + 26) / 4) << "PortRcvData";
	mad[64 + 1] = 2;
	out = h->ok(m, 16 + 256);
	EXPECT_EQ(load_be16(out.data() + 16 + 4), mad::STATUS_INVALID_ATTR_VALUE) << "no port 2";
}

TEST_F(FwSma, TablesThroughMadIfc)
{
	uint8_t d[64] = {};
	store_be16(d, 0xffff);
	store_be16(d + 2, 0x8002);
	auto r = smp(mad::METHOD_SET, mad::ATTR_PKEY_TABLE, 0, d, mad::CLASS_SUBN_LID_ROUTED);
	EXPECT_EQ(load_be16(&r[4]), 0);
	auto out = h->ok(Msg(prm::op::QUERY_HCA_VPORT_PKEY, 0, 16).set({3, 15, 0}, 1), 20);
	EXPECT_EQ(bits::load_be32(&out[16]) & 0xffff, 0x8002u) << "P_Key 1 as the SM set it";
	r = smp(mad::METHOD_GET, mad::ATTR_VL_ARB_TABLE, 1u << 16, nullptr, mad::CLASS_SUBN_LID_ROUTED);
	EXPECT_EQ(load_be16(&r[4]), 0);
	r = smp(mad::METHOD_GET, mad::ATTR_SM_INFO, 0, nullptr, mad::CLASS_SUBN_LID_ROUTED);
	EXPECT_EQ(load_be16(&r[4]), mad::STATUS_UNSUP_METHOD_ATTR);
}

} // namespace
} // namespace mlx5emu::test
