// SPDX-License-Identifier: GPL-2.0
// Port and vport queries, MAD_IFC, ACCESS_REG, UARs, special contexts.
#include "fw_harness.h"

#include "fw/mad.h"

namespace mlx5emu::test {
namespace {

namespace op = prm::op;

class FwPort : public ::testing::Test {
protected:
	FwPort()
	{
		HcaConfig c;
		c.index = 2;
		c.guid_seed = 0x1234;
		h = std::make_unique<FwHarness>(c);
	}
	void SetUp() override { h->bring_up(); }

	std::vector<uint8_t> smp_get(uint16_t attr, uint32_t mod, uint8_t cls = 0x01)
	{
		Msg m(op::MAD_IFC, 0, 16 + 256);
		m.set({2, 7, 0}, 1); // port
		uint8_t *mad = m.b.data() + 16;
		mad[0] = 1;   // base version
		mad[1] = cls; // management class
		mad[2] = 1;   // class version
		mad[3] = 1;   // Get
		bits::store_be16(mad + 16, attr);
		bits::store_be32(mad + 20, mod);
		auto out = h->ok(m, 16 + 256);
		return std::vector<uint8_t>(out.begin() + 16, out.end());
	}

	std::unique_ptr<FwHarness> h;
};

TEST_F(FwPort, GuidsLidAndGidFollowTheConfig)
{
	const PortAttrs &p = h->fw().port();
	EXPECT_EQ(p.node_guid >> 40, 0x0002c9u);
	EXPECT_EQ(p.port_guid, p.node_guid + 1);
	EXPECT_EQ(p.lid, 3u) << "index + 1";
	EXPECT_EQ(p.sm_lid, 1u);
	HcaConfig other;
	other.index = 3;
	other.guid_seed = 0x1234;
	FwHarness h2(other);
	EXPECT_NE(h2.fw().port().node_guid, p.node_guid);
}

TEST_F(FwPort, VportState)
{
	auto out = h->ok(Msg(op::QUERY_VPORT_STATE, 0, 16), 16);
	EXPECT_EQ(field(out, {3, 3, 0}), 1u);
	EXPECT_EQ(field(out, {3, 7, 4}), 1u);
	h->fails(Msg(op::QUERY_VPORT_STATE, 0, 16).set({2, 31, 31}, 1).set({2, 15, 0}, 1), 16, 0x03);
}

TEST_F(FwPort, HcaVportContext)
{
	auto out = h->ok(Msg(op::QUERY_HCA_VPORT_CONTEXT, 0, 16).set({2, 19, 16}, 1), 528);
	const PortAttrs &p = h->fw().port();
	const size_t c = 0x10;
	EXPECT_EQ(field(out, bits::Field{8, 7, 4}.at(c)), 4u) << "port_state ACTIVE";
	EXPECT_EQ(field(out, bits::Field{8, 15, 12}.at(c)), 5u) << "LinkUp";
	EXPECT_EQ(be64_at(out, c + 0x30), p.port_guid);
	EXPECT_EQ(be64_at(out, c + 0x38), p.node_guid);
	EXPECT_EQ(field(out, bits::Field{0x18, 31, 16}.at(c)), 3u) << "lid";
	EXPECT_EQ(field(out, bits::Field{0x19, 31, 16}.at(c)), 1u) << "sm_lid";
	EXPECT_NE(field(out, bits::Field{0x10, 31, 0}.at(c)) & (1u << 16), 0u) << "CM supported";
	h->fails(Msg(op::QUERY_HCA_VPORT_CONTEXT, 0, 16).set({2, 19, 16}, 2), 528, 0x03);
}

TEST_F(FwPort, HcaVportGidAndPkey)
{
	auto out = h->ok(Msg(op::QUERY_HCA_VPORT_GID, 0, 16), 32);
	EXPECT_EQ(field(out, {3, 31, 16}), 1u);
	EXPECT_EQ(be64_at(out, 16), 0xfe80000000000000ull);
	EXPECT_EQ(be64_at(out, 24), h->fw().port().port_guid);
	out = h->ok(Msg(op::QUERY_HCA_VPORT_GID, 0, 16).set({3, 15, 0}, 0xffff), 16 + 16 * 8);
	EXPECT_EQ(field(out, {3, 31, 16}), 8u);
	EXPECT_EQ(be64_at(out, 16 + 16 + 8), 0u) << "GID[1] empty";
	h->fails(Msg(op::QUERY_HCA_VPORT_GID, 0, 16).set({3, 15, 0}, 8), 32, 0x03);

	out = h->ok(Msg(op::QUERY_HCA_VPORT_PKEY, 0, 16), 20);
	EXPECT_EQ(be32_at(out, 16) & 0xffff, 0xffffu);
	out = h->ok(Msg(op::QUERY_HCA_VPORT_PKEY, 0, 16).set({3, 15, 0}, 0xffff), 16 + 4 * 128);
	EXPECT_EQ(be32_at(out, 16 + 4) & 0xffff, 0u);
	h->fails(Msg(op::QUERY_HCA_VPORT_PKEY, 0, 16).set({3, 15, 0}, 0xffff), 20, 0x51);
}

TEST_F(FwPort, NicVportContext)
{
	auto out = h->ok(Msg(op::QUERY_NIC_VPORT_CONTEXT, 0, 16), 272);
	EXPECT_EQ(be64_at(out, 0x10 + 0x38), h->fw().port().node_guid);
	EXPECT_EQ(field(out, bits::Field{0, 0, 0}.at(0x10)), 0u) << "roce_en";
}

TEST_F(FwPort, MadNodeInfo)
{
	auto r = smp_get(0x11, 0);
	EXPECT_EQ(r[3], 0x81) << "GetResp";
	EXPECT_EQ(bits::load_be16(r.data() + 4), 0u) << "MAD status";
	const uint8_t *d = r.data() + 64;
	EXPECT_EQ(d[2], 1) << "channel adapter";
	EXPECT_EQ(d[3], 1) << "one port";
	EXPECT_EQ(bits::load_be64(d + 12), h->fw().port().node_guid);
	EXPECT_EQ(bits::load_be64(d + 20), h->fw().port().port_guid);
	EXPECT_EQ(bits::load_be16(d + 28), 128u) << "partition cap";
	EXPECT_EQ(bits::load_be32(d + 36) & 0xffffff, 0x0002c9u) << "vendor id";
}

TEST_F(FwPort, MadPortInfo)
{
	auto r = smp_get(0x15, 1);
	const uint8_t *d = r.data() + 64;
	EXPECT_EQ(bits::load_be64(d + 8), 0xfe80000000000000ull) << "GID prefix";
	EXPECT_EQ(bits::load_be16(d + 16), 3u) << "LID";
	EXPECT_EQ(bits::load_be16(d + 18), 1u) << "SM LID";
	EXPECT_EQ(d[32] & 0xf, 4) << "ACTIVE";
	EXPECT_EQ(d[33] >> 4, 5) << "LinkUp";
	EXPECT_EQ(d[36] >> 4, 5) << "active MTU 4096";
	EXPECT_EQ(d[41] & 0xf, 5) << "max MTU 4096";
	EXPECT_EQ(d[50], 8) << "GUID cap = GID table length";
	EXPECT_EQ(d[62] >> 4, 2) << "EDR";
}

TEST_F(FwPort, MadGuidInfoPkeyTableNodeDesc)
{
	auto r = smp_get(0x14, 0);
	EXPECT_EQ(bits::load_be64(r.data() + 64), h->fw().port().port_guid);
	EXPECT_EQ(bits::load_be64(r.data() + 72), 0u);
	r = smp_get(0x14, 1); // GUIDs 8..15 do not exist
	EXPECT_EQ(bits::load_be16(r.data() + 4), 0x1cu);
	r = smp_get(0x16, 0);
	EXPECT_EQ(bits::load_be16(r.data() + 64), 0xffffu);
	r = smp_get(0x16, 3); // P_Keys 96..127
	EXPECT_EQ(bits::load_be16(r.data() + 4), 0u);
	r = smp_get(0x10, 0);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(r.data() + 64)), "mlx5-emu HCA-3");
}

TEST_F(FwPort, MadUnsupportedAndDirectedRoute)
{
	auto r = smp_get(0x20, 0); // SMInfo
	EXPECT_EQ(bits::load_be16(r.data() + 4), 0x0cu);
	r = smp_get(0x11, 0, 0x81); // directed route
	EXPECT_EQ(bits::load_be16(r.data() + 4), 0x8000u);
	EXPECT_EQ(bits::load_be64(r.data() + 64 + 12), h->fw().port().node_guid);
	Msg m(op::MAD_IFC, 0, 16 + 256);
	m.set({2, 7, 0}, 2); // no port 2
	h->fails(m, 16 + 256, 0x03);
}

TEST_F(FwPort, HostEndiannessRegister)
{
	Msg w(op::ACCESS_REG, 0, 32);
	w.set({2, 15, 0}, 0x7004);
	w.b[16] = 0x80;
	h->ok(w, 32);
	Msg r(op::ACCESS_REG, 1, 32);
	r.set({2, 15, 0}, 0x7004);
	auto out = h->ok(r, 32);
	EXPECT_EQ(out[16], 0x80);
	h->fails(Msg(op::ACCESS_REG, 1, 32).set({2, 15, 0}, 0xc00e), 32, 0x03); // DTOR
	h->fails(Msg(op::ACCESS_REG, 1, 32).set({2, 15, 0}, 0x5006), 32, 0x03); // PAOS: Ethernet's
	h->fails(Msg(op::ACCESS_REG, 5, 32).set({2, 15, 0}, 0x7004), 32, 0x03);
}

// modify_device of the in-tree mlx5_ib: NODE_DESC (0x6001) is what the
// SMA answers NodeDescription SMPs with, on an InfiniBand port too; a
// function reset restores the firmware's own description.
TEST_F(FwPort, NodeDescRegister)
{
	Msg w(op::ACCESS_REG, 0, 16 + 64);
	w.set({2, 15, 0}, 0x6001);
	std::memcpy(w.b.data() + 16, "node-a mlx5_0", 13);
	h->ok(w, 16 + 64);
	auto r = smp_get(0x10, 0);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(r.data() + 64)), "node-a mlx5_0");
	Msg rd(op::ACCESS_REG, 1, 16 + 64);
	rd.set({2, 15, 0}, 0x6001);
	auto out = h->ok(rd, 16 + 64);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(out.data() + 16)), "node-a mlx5_0");
	h->fails(Msg(op::ACCESS_REG, 0, 16 + 32).set({2, 15, 0}, 0x6001), 16 + 64, 0x50); // BAD_INPUT_LEN
	h->fails(Msg(op::ACCESS_REG, 1, 16 + 64).set({2, 15, 0}, 0x6001), 16 + 32, 0x51); // BAD_OUTPUT_LEN
	h->ok(Msg(op::DISABLE_HCA, 0, 16), 16);
	h->bring_up();
	r = smp_get(0x10, 0);
	EXPECT_EQ(std::string(reinterpret_cast<const char *>(r.data() + 64)), "mlx5-emu HCA-3");
}

// modify_port of the in-tree mlx5_ib: PCAP (0x5001) writes the whole
// PortInfo CapabilityMask (e.g. IsSM for opensm, IsCM for ib_cm).
TEST_F(FwPort, PcapRegisterSetsCapabilityMask)
{
	uint32_t before = bits::load_be32(smp_get(0x15, 1).data() + 64 + 20);
	Msg w(op::ACCESS_REG, 0, 16 + 20);
	w.set({2, 15, 0}, 0x5001);
	w.b[16 + 1] = 1; // local_port
	bits::store_be32(w.b.data() + 16 + 4, before | 0x2); // IsSM
	auto out = h->ok(w, 16 + 20);
	EXPECT_EQ(bits::load_be32(out.data() + 16 + 4), before | 0x2);
	EXPECT_EQ(bits::load_be32(smp_get(0x15, 1).data() + 64 + 20), before | 0x2);
	Msg bad(op::ACCESS_REG, 0, 16 + 20);
	bad.set({2, 15, 0}, 0x5001);
	bad.b[16 + 1] = 2;
	h->fails(bad, 16 + 20, 0x03);
}

TEST_F(FwPort, UarAllocation)
{
	uint32_t a = h->alloc_uar();
	uint32_t b = h->alloc_uar();
	EXPECT_GE(a, 3u);
	EXPECT_NE(a, b);
	h->ok(Msg(op::DEALLOC_UAR, 0, 16).set({2, 23, 0}, a), 16);
	h->fails(Msg(op::DEALLOC_UAR, 0, 16).set({2, 23, 0}, a), 16, 0x03);
	EXPECT_EQ(h->alloc_uar(), a) << "lowest free index reused";
}

TEST_F(FwPort, SpecialContexts)
{
	auto out = h->ok(Msg(op::QUERY_SPECIAL_CONTEXTS, 0, 16), 32);
	EXPECT_NE(be32_at(out, 0xc), 0u) << "resd_lkey";
}

TEST(FwMad, BadVersionAndMethod)
{
	FwHarness h;
	uint8_t req[256] = {}, resp[256];
	req[0] = 2;
	req[1] = 1;
	req[2] = 1;
	req[3] = 1;
	mad_process(h.fw(), 1, req, resp);
	EXPECT_EQ(bits::load_be16(resp + 4), mad::STATUS_BAD_VERSION);
	req[0] = 1;
	req[3] = 3; // Send: no SMP method
	mad_process(h.fw(), 1, req, resp);
	EXPECT_EQ(bits::load_be16(resp + 4), mad::STATUS_UNSUP_METHOD);
	req[3] = 2; // Set NodeInfo: read-only
	bits::store_be16(req + 16, mad::ATTR_NODE_INFO);
	mad_process(h.fw(), 1, req, resp);
	EXPECT_EQ(bits::load_be16(resp + 4), mad::STATUS_UNSUP_METHOD_ATTR);
}

} // namespace
} // namespace mlx5emu::test
