// SPDX-License-Identifier: GPL-2.0
// The PCI identity of a VF (`--function vf`): the VF device ID of each PF
// generation, and the config space a ConnectX VF passed to a VM shows: no
// PM, no vendor-specific and no extended capability, an Express link that
// reports no speed or width, the class by link type.
#include <gtest/gtest.h>
#include <linux/vfio.h>

#include "pci/connectx_config.h"
#include "pci/function.h"
#include "pci/pci_defs.h"
#include "vfio_user_fixture.h"

namespace mlx5emu::pci {
namespace {

using testing::FakeBar;

// The capability IDs of the standard list, in order.
std::vector<uint8_t> cap_ids(const ConfigSpace &cs)
{
	std::vector<uint8_t> ids;
	uint16_t pos = cs.read8(kCapabilityPointer);
	for (int guard = 0; pos && guard < 48; guard++) {
		ids.push_back(cs.read8(pos));
		pos = cs.read8(pos + 1);
	}
	return ids;
}

FunctionConfig vf_config(uint32_t class_code = kClassEthernet)
{
	FunctionConfig c;
	c.device_id = 0x1018;
	c.role = FunctionRole::Vf;
	c.class_code = class_code;
	return c;
}

TEST(PciVf, DeviceIdTable)
{
	const std::pair<uint16_t, uint16_t> want[] = {
		{0x1011, 0x1012}, {0x1013, 0x1014}, {0x1015, 0x1016}, {0x1017, 0x1018}, {0x1019, 0x101a},
		{0x101b, 0x101c}, {0x101d, 0x101e}, {0x101f, 0x101e}, {0x1021, 0x101e}, {0x1023, 0x101e},
		{0xa2d2, 0xa2d3},
	};
	for (const auto &[pf, vf] : want) {
		EXPECT_EQ(vf_device_id(pf), vf) << std::hex << pf;
		EXPECT_TRUE(is_vf_device_id(vf)) << std::hex << vf;
		EXPECT_FALSE(is_vf_device_id(pf)) << std::hex << pf;
	}
	EXPECT_EQ(vf_device_id(0x1018), 0) << "a VF has no VFs";
	EXPECT_EQ(vf_device_id(0x1234), 0);
}

TEST(PciVf, ConfigNeedsAVfDeviceId)
{
	FunctionConfig c = vf_config();
	EXPECT_STREQ(check_function_config(c), "");
	c.device_id = 0x1017;
	EXPECT_STREQ(check_function_config(c), "a VF needs a VF device ID");
	c.role = FunctionRole::Pf;
	EXPECT_STREQ(check_function_config(c), "");
}

TEST(PciVf, IdentityAndCapabilities)
{
	FakeBar bar;
	PciFunction fn(vf_config(), bar);
	const ConfigSpace &cs = fn.config();
	EXPECT_EQ(cs.read16(kVendorId), 0x15b3);
	EXPECT_EQ(cs.read16(kDeviceId), 0x1018);
	EXPECT_EQ(cs.read32(kRevisionId) >> 8, 0x020000u) << "an Ethernet controller";
	EXPECT_EQ(cs.read8(kHeaderType), 0);
	EXPECT_TRUE(cs.read16(kStatus) & kStatusCapList);
	EXPECT_EQ(cap_ids(cs), (std::vector<uint8_t>{kCapMsix, kCapExp})) << "no PM, no vendor-specific capability";
	EXPECT_EQ(fn.layout().pm, 0);
	EXPECT_EQ(cs.read32(0x100), 0u) << "no extended capability: no SR-IOV";
	// The BARs of the emulator's layout: UARs and MSI-X.
	EXPECT_EQ(cs.read32(kBar0), kBarMem64 | kBarPrefetch);
	EXPECT_EQ(cs.read32(kBar0 + 8), kBarMem64);

	FakeBar bar2;
	PciFunction ib(vf_config(kClassInfiniband), bar2);
	EXPECT_EQ(ib.config().read32(kRevisionId) >> 8, 0x020700u);
}

TEST(PciVf, ExpressLinkIsThePfs)
{
	FakeBar bar, pf_bar;
	PciFunction fn(vf_config(), bar);
	PciFunction pf(FunctionConfig{}, pf_bar);
	const ConfigSpace &cs = fn.config();
	uint16_t exp = fn.layout().exp;
	ASSERT_NE(exp, 0);
	EXPECT_EQ(cs.read16(exp + kExpFlags) & 0xf0, kExpTypeEndpoint << 4);
	EXPECT_EQ(cs.read32(exp + kExpLinkCap), pf.config().read32(pf.layout().exp + kExpLinkCap))
		<< "the PF's link capabilities";
	EXPECT_EQ(cs.read16(exp + kExpLinkSta), 0) << "no speed, width x0";
	EXPECT_EQ(cs.read32(exp + kExpLinkCap2), 0u);
	EXPECT_EQ(cs.read16(exp + kExpLinkCtl2), 0);
	uint16_t v = 0xffff;
	ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, exp + kExpLinkCtl, &v, 2), 0);
	EXPECT_EQ(cs.read16(exp + kExpLinkCtl), 0) << "link control is reserved";
	EXPECT_TRUE(cs.read32(exp + kExpDevCap) & 1u << 28) << "FLR, as the PF";

	// FLR works on a VF as on the PF.
	uint64_t before = fn.flr_count();
	uint16_t ctl = cs.read16(exp + kExpDevCtl) | kExpDevCtlInitiateFlr;
	ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, exp + kExpDevCtl, &ctl, 2), 0);
	EXPECT_EQ(fn.flr_count(), before + 1);
}

} // namespace
} // namespace mlx5emu::pci
