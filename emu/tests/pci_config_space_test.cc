// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>
#include <linux/vfio.h>

#include <cerrno>
#include <cstring>

#include "pci/connectx_config.h"
#include "pci/function.h"
#include "pci/pci_defs.h"
#include "vfio_user_fixture.h"

namespace mlx5emu::pci {
namespace {

using testing::FakeBar;

// Walks the standard capability list; returns the offset of `id` or 0.
uint16_t find_cap(const ConfigSpace &cs, uint8_t id)
{
	uint16_t pos = cs.read8(kCapabilityPointer);
	for (int guard = 0; pos && guard < 48; guard++) {
		if (cs.read8(pos) == id)
			return pos;
		pos = cs.read8(pos + 1);
	}
	return 0;
}

struct PciFunctionTest : ::testing::Test {
	FakeBar bar;
	FunctionConfig cfg;
	PciFunction fn{cfg, bar};
	const ConfigSpace &cs() { return fn.config(); }
	void cfg_write16(uint16_t off, uint16_t v) { ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, off, &v, 2), 0); }
	void cfg_write32(uint16_t off, uint32_t v) { ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, off, &v, 4), 0); }
};

TEST_F(PciFunctionTest, IdentityAndClass)
{
	EXPECT_EQ(cs().read16(kVendorId), 0x15b3);
	EXPECT_EQ(cs().read16(kDeviceId), 0x1017);
	EXPECT_EQ(cs().read8(kRevisionId), 0);
	EXPECT_EQ(cs().read32(kRevisionId) >> 8, 0x020700u);
	EXPECT_EQ(cs().read16(kSubsystemVendorId), 0x15b3);
	EXPECT_EQ(cs().read16(kSubsystemId), 0x0008);
	EXPECT_EQ(cs().read8(kHeaderType), 0);
	EXPECT_EQ(cs().read8(kInterruptPin), 0) << "no INTx";
	EXPECT_TRUE(cs().read16(kStatus) & kStatusCapList);
	EXPECT_EQ(cs().read32(kRomBar), 0u);

	FakeBar other_bar;
	FunctionConfig c2;
	c2.device_id = 0x101b;
	PciFunction cx6(c2, other_bar);
	EXPECT_EQ(cx6.config().read16(kDeviceId), 0x101b);
}

TEST_F(PciFunctionTest, BarTypesAndSizing)
{
	EXPECT_EQ(cs().read32(kBar0), kBarMem64 | kBarPrefetch);
	EXPECT_EQ(cs().read32(kBar0 + 8), kBarMem64) << "BAR2: 64-bit, not prefetchable";
	EXPECT_EQ(cs().read32(kBar0 + 16), 0u);
	EXPECT_EQ(cs().read32(kBar0 + 20), 0u);
	// Sizing writes: all ones reads back the size mask with the type bits.
	cfg_write32(kBar0, 0xffffffff);
	cfg_write32(kBar0 + 4, 0xffffffff);
	EXPECT_EQ(cs().read32(kBar0), uint32_t(~(cfg.bar0_size - 1)) | kBarMem64 | kBarPrefetch);
	EXPECT_EQ(cs().read32(kBar0 + 4), 0xffffffffu);
	cfg_write32(kBar0 + 8, 0xffffffff);
	EXPECT_EQ(cs().read32(kBar0 + 8), 0xffffc000u | kBarMem64);
	cfg_write32(kBar0 + 16, 0xffffffff);
	EXPECT_EQ(cs().read32(kBar0 + 16), 0u) << "unimplemented BAR stays 0";
	cfg_write32(kBar0, 0xfe000000);
	EXPECT_EQ(cs().read32(kBar0), 0xfe000000u | kBarMem64 | kBarPrefetch);
}

TEST_F(PciFunctionTest, CommandAndStatusSemantics)
{
	cfg_write16(kCommand, 0xffff);
	EXPECT_EQ(cs().read16(kCommand), kCommandMemory | kCommandMaster | kCommandParity | kCommandSerr |
						  kCommandIntxDisable);
	EXPECT_TRUE(fn.bus_master_enabled());
	cfg_write16(kCommand, kCommandMemory);
	EXPECT_EQ(cs().read16(kCommand), kCommandMemory);
	EXPECT_FALSE(fn.bus_master_enabled());
	cfg_write16(kStatus, 0xffff);
	EXPECT_EQ(cs().read16(kStatus), kStatusCapList) << "read-only bits keep their value";
	cfg_write32(kVendorId, 0);
	EXPECT_EQ(cs().read16(kVendorId), 0x15b3);
}

TEST_F(PciFunctionTest, CapabilityChain)
{
	uint16_t pm = find_cap(cs(), kCapPm), msix = find_cap(cs(), kCapMsix), exp = find_cap(cs(), kCapExp);
	ASSERT_NE(pm, 0);
	ASSERT_NE(msix, 0);
	ASSERT_NE(exp, 0);
	EXPECT_EQ(msix, fn.layout().msix);
	EXPECT_EQ(exp, fn.layout().exp);
	for (uint16_t c : {pm, msix, exp}) {
		EXPECT_GE(c, 0x40);
		EXPECT_EQ(c % 4, 0);
	}
	EXPECT_EQ(cs().read32(0x100), 0u) << "no extended capabilities";
}

TEST_F(PciFunctionTest, VendorSpecificCapabilityForTheDriversGateway)
{
	uint16_t vsc = find_cap(cs(), kCapVendor);
	ASSERT_NE(vsc, 0) << "mlx5_core looks for the vendor-specific capability at probe";
	EXPECT_EQ(cs().read8(vsc + 2), 0x18) << "capability length";
	cfg_write32(vsc + 0x10, 0x12345678);
	EXPECT_EQ(cs().read32(vsc + 0x10), 0x12345678u) << "gateway address register is writable";
	EXPECT_EQ(cs().read32(vsc + 0x0c), 0u) << "semaphore reads free";
}

TEST_F(PciFunctionTest, BusMasterEnableIsReported)
{
	std::vector<bool> seen;
	fn.set_bus_master_listener([&](bool on) { seen.push_back(on); });
	cfg_write16(kCommand, kCommandMemory | kCommandMaster);
	cfg_write16(kCommand, kCommandMemory);
	cfg_write32(kBar0, 0); // not the command register: no report
	fn.reset();
	EXPECT_EQ(seen, (std::vector<bool>{true, false, false}));
}

TEST_F(PciFunctionTest, MsixCapability)
{
	uint16_t at = fn.layout().msix;
	EXPECT_EQ(cs().read16(at + kMsixControl), 63) << "table size N-1, disabled";
	EXPECT_EQ(cs().read32(at + kMsixTable), 0x0u | 2) << "table at BAR2 + 0";
	EXPECT_EQ(cs().read32(at + kMsixPba), 0x2000u | 2) << "PBA at BAR2 + 0x2000";
	cfg_write16(at + kMsixControl, 0xffff);
	EXPECT_EQ(cs().read16(at + kMsixControl), 0xc000 | 63) << "only enable and mask-all are writable";

	FakeBar b;
	FunctionConfig c;
	c.msix_vectors = 512;
	PciFunction big(c, b);
	EXPECT_EQ(big.config().read16(big.layout().msix + kMsixControl), 511);
	c.msix_vectors = 513;
	EXPECT_STRNE(check_function_config(c), "");
	c.msix_vectors = 64;
	c.bar0_size = 3 << 20;
	EXPECT_STRNE(check_function_config(c), "");
	c.bar0_size = 32 << 20;
	EXPECT_STREQ(check_function_config(c), "");
}

TEST_F(PciFunctionTest, ExpressCapabilityIsV2Endpoint)
{
	uint16_t at = fn.layout().exp;
	uint16_t flags = cs().read16(at + kExpFlags);
	EXPECT_EQ(flags & 0xf, 2) << "version 2";
	EXPECT_EQ((flags >> 4) & 0xf, kExpTypeEndpoint);
	uint32_t linkcap = cs().read32(at + kExpLinkCap);
	EXPECT_EQ(linkcap & 0xf, 3u) << "8 GT/s";
	EXPECT_EQ((linkcap >> 4) & 0x3f, 8u) << "x8";
	uint16_t linksta = cs().read16(at + kExpLinkSta);
	EXPECT_EQ(linksta & 0xf, 3);
	EXPECT_EQ((linksta >> 4) & 0x3f, 8);
	EXPECT_TRUE(cs().read32(at + kExpDevCap) & (1u << 28)) << "FLR capable";
	EXPECT_LE(at + kExpCapSize, 0x100);
}

TEST_F(PciFunctionTest, FunctionLevelResetThroughDevCtl)
{
	uint16_t at = fn.layout().exp;
	cfg_write16(kCommand, kCommandMemory | kCommandMaster);
	uint16_t devctl = cs().read16(at + kExpDevCtl);
	cfg_write16(at + kExpDevCtl, uint16_t(devctl | 0x7)); // error reporting on
	EXPECT_EQ(cs().read16(at + kExpDevCtl), devctl | 0x7);
	EXPECT_EQ(bar.resets(), 0);
	cfg_write16(at + kExpDevCtl, uint16_t(devctl | kExpDevCtlInitiateFlr));
	EXPECT_EQ(bar.resets(), 1);
	EXPECT_EQ(fn.flr_count(), 1u);
	EXPECT_EQ(cs().read16(kCommand), 0) << "FLR restores power-on config";
	EXPECT_EQ(cs().read16(at + kExpDevCtl), devctl);
}

TEST_F(PciFunctionTest, ResetRestoresDefaults)
{
	cfg_write16(kCommand, kCommandMemory);
	cfg_write32(kBar0, 0xf0000000);
	fn.reset();
	EXPECT_EQ(cs().read16(kCommand), 0);
	EXPECT_EQ(cs().read32(kBar0), kBarMem64 | kBarPrefetch);
	EXPECT_EQ(bar.resets(), 1);
}

TEST_F(PciFunctionTest, ConfigReadsAtAnyOffsetAndSize)
{
	uint8_t all[4096];
	ASSERT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, 0, all, 4096), 0);
	EXPECT_EQ(all[0], 0xb3);
	EXPECT_EQ(all[1], 0x15);
	uint8_t three[3];
	ASSERT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, 1, three, 3), 0);
	EXPECT_EQ(0, std::memcmp(three, all + 1, 3));
	EXPECT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, 4095, three, 2), EINVAL);
	EXPECT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, 4096, three, 1), EINVAL);
	EXPECT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, 0, three, 0), EINVAL);
}

TEST_F(PciFunctionTest, Regions)
{
	EXPECT_EQ(fn.region(VFIO_PCI_BAR0_REGION_INDEX).size, cfg.bar0_size);
	EXPECT_EQ(fn.region(VFIO_PCI_BAR2_REGION_INDEX).size, 16u << 10);
	EXPECT_EQ(fn.region(VFIO_PCI_CONFIG_REGION_INDEX).size, 4096u);
	for (unsigned i : {1u, 3u, 4u, 5u, 6u, 8u})
		EXPECT_EQ(fn.region(i).size, 0u) << "region " << i;
	uint32_t v;
	EXPECT_EQ(fn.read(VFIO_PCI_ROM_REGION_INDEX, 0, &v, 4), EINVAL);
	EXPECT_EQ(fn.read(9, 0, &v, 4), EINVAL);
	EXPECT_EQ(fn.write(VFIO_PCI_BAR4_REGION_INDEX, 0, &v, 4), EINVAL);
}

TEST_F(PciFunctionTest, Bar0AccessesSplitIntoNaturalPieces)
{
	uint64_t v8 = 0;
	ASSERT_EQ(fn.read(VFIO_PCI_BAR0_REGION_INDEX, 0x18, &v8, 8), 0);
	EXPECT_EQ(v8, FakeBar::pattern(0x18, 8));
	uint8_t buf[7];
	ASSERT_EQ(fn.read(VFIO_PCI_BAR0_REGION_INDEX, 0x101, buf, 7), 0);
	std::vector<FakeBar::Access> expect = {{0x18, 8, 0}, {0x101, 1, 0}, {0x102, 2, 0}, {0x104, 4, 0}};
	EXPECT_EQ(bar.reads(), expect);
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(buf[i], uint8_t((0x101 + i) ^ 0xa5)) << i;

	uint32_t w = 0x12345678;
	ASSERT_EQ(fn.write(VFIO_PCI_BAR0_REGION_INDEX, 0x2000, &w, 4), 0);
	uint8_t three[3] = {1, 2, 3};
	ASSERT_EQ(fn.write(VFIO_PCI_BAR0_REGION_INDEX, 0x3002, three, 3), 0);
	std::vector<FakeBar::Access> wexpect = {{0x2000, 4, 0x12345678}, {0x3002, 2, 0x0201}, {0x3004, 1, 3}};
	EXPECT_EQ(bar.writes(), wexpect);
	EXPECT_EQ(fn.read(VFIO_PCI_BAR0_REGION_INDEX, cfg.bar0_size - 2, &w, 4), EINVAL);
}

TEST_F(PciFunctionTest, MsixBarReadsZero)
{
	uint64_t v = ~0ull;
	ASSERT_EQ(fn.read(VFIO_PCI_BAR2_REGION_INDEX, kMsixPbaOffset, &v, 8), 0);
	EXPECT_EQ(v, 0u);
	ASSERT_EQ(fn.write(VFIO_PCI_BAR2_REGION_INDEX, kMsixPbaOffset, &v, 8), 0);
	EXPECT_TRUE(bar.reads().empty());
	EXPECT_TRUE(bar.writes().empty());
}

} // namespace
} // namespace mlx5emu::pci
