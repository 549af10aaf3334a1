// SPDX-License-Identifier: GPL-2.0
// The SR-IOV extended capability of a PF with VFs (`--vfs N`): its layout
// at 0x100, which registers software may write, the VF BAR sizing, and the
// listener that reports NumVFs, VF Enable and VF MSE.
#include <gtest/gtest.h>
#include <linux/vfio.h>

#include <thread>
#include <vector>

#include "pci/connectx_config.h"
#include "pci/function.h"
#include "pci/pci_defs.h"
#include "pci/sriov_cap.h"
#include "vfio_user_fixture.h"

namespace mlx5emu::pci {
namespace {

using testing::FakeBar;

FunctionConfig pf_config(uint16_t vfs = 2)
{
	FunctionConfig c;
	c.device_id = 0x1017;
	c.total_vfs = vfs;
	return c;
}

class PciSriov : public ::testing::Test {
protected:
	PciSriov() : fn(pf_config(), bar)
	{
		fn.set_sriov_listener([this](const SriovState &s) { seen.push_back(s); });
	}

	uint16_t at() const { return fn.layout().sriov; }

	void write16(uint16_t reg, uint16_t v)
	{
		ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, at() + reg, &v, 2), 0);
	}
	void write32(uint16_t reg, uint32_t v)
	{
		ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, at() + reg, &v, 4), 0);
	}
	uint16_t read16(uint16_t reg)
	{
		uint16_t v = 0;
		EXPECT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, at() + reg, &v, 2), 0);
		return v;
	}
	uint32_t read32(uint16_t reg)
	{
		uint32_t v = 0;
		EXPECT_EQ(fn.read(VFIO_PCI_CONFIG_REGION_INDEX, at() + reg, &v, 4), 0);
		return v;
	}

	FakeBar bar;
	PciFunction fn;
	std::vector<SriovState> seen;
};

TEST_F(PciSriov, Layout)
{
	ASSERT_EQ(at(), 0x100);
	EXPECT_EQ(read32(0), 0x00010010u) << "SR-IOV, version 1, the last extended capability";
	EXPECT_EQ(read32(kSriovCaps), 0u) << "no VF migration";
	EXPECT_EQ(read16(kSriovControl), 0);
	EXPECT_EQ(read16(kSriovStatus), 0);
	EXPECT_EQ(read16(kSriovInitialVfs), 2);
	EXPECT_EQ(read16(kSriovTotalVfs), 2);
	EXPECT_EQ(read16(kSriovNumVfs), 0);
	EXPECT_EQ(fn.config().read8(at() + kSriovFuncLink), 0);
	EXPECT_EQ(read16(kSriovVfOffset), 1) << "VF j at function j + 1 of the PF's slot";
	EXPECT_EQ(read16(kSriovVfStride), 1);
	EXPECT_EQ(read16(kSriovVfDeviceId), 0x1018) << "the ConnectX-5 VF";
	EXPECT_EQ(read32(kSriovSupportedPageSizes), 0x7ffu);
	EXPECT_EQ(read32(kSriovSystemPageSize), 1u) << "4 KiB";
	EXPECT_EQ(read32(kSriovVfBar0), kBarMem64 | kBarPrefetch) << "VF BAR0: UARs, 64-bit prefetchable";
	EXPECT_EQ(read32(kSriovVfBar0 + 4), 0u);
	EXPECT_EQ(read32(kSriovVfBar0 + 8), kBarMem64) << "VF BAR2: MSI-X, 64-bit";
	EXPECT_EQ(read32(kSriovVfBar0 + 12), 0u);
	EXPECT_EQ(read32(kSriovVfBar0 + 16), 0u) << "no VF BAR4";
	EXPECT_EQ(read32(kSriovVfBar0 + 20), 0u);
	EXPECT_EQ(read32(kSriovVfMigrationState), 0u);
	EXPECT_EQ(fn.sriov_state(), SriovState{});
}

TEST_F(PciSriov, OtherVfCountsAndIds)
{
	FakeBar b;
	FunctionConfig c = pf_config(7);
	c.device_id = 0x1021; // ConnectX-7
	PciFunction cx7(c, b);
	EXPECT_EQ(cx7.config().read16(0x100 + kSriovTotalVfs), 7);
	EXPECT_EQ(cx7.config().read16(0x100 + kSriovVfDeviceId), 0x101e);
}

TEST_F(PciSriov, NoCapabilityWithoutVfs)
{
	FakeBar b;
	PciFunction plain(pf_config(0), b);
	EXPECT_EQ(plain.layout().sriov, 0);
	EXPECT_EQ(plain.config().read32(0x100), 0u);
	EXPECT_EQ(plain.sriov_state(), SriovState{});
}

TEST(PciSriovConfig, BadConfigsAreRefused)
{
	FunctionConfig c = pf_config(7);
	EXPECT_STREQ(check_function_config(c), "");
	c.total_vfs = 8;
	EXPECT_STREQ(check_function_config(c), "at most 7 VFs (functions 1-7 of the PF's slot)");
	c = pf_config();
	c.device_id = 0x1234;
	EXPECT_STREQ(check_function_config(c), "no VF device ID is known for this device ID");
	c = pf_config();
	c.vf_bar0_size = 3 << 20;
	EXPECT_STREQ(check_function_config(c), "VF BAR0 size must be a power of 2 of at least 4 KiB");
	c.vf_bar0_size = 2048;
	EXPECT_STREQ(check_function_config(c), "VF BAR0 size must be a power of 2 of at least 4 KiB");
	c = pf_config();
	c.device_id = 0x1018;
	c.role = FunctionRole::Vf;
	EXPECT_STREQ(check_function_config(c), "a VF has no VFs");
}

TEST_F(PciSriov, ReadOnlyRegistersKeepTheirValues)
{
	write32(0, 0xffffffff);
	write32(kSriovCaps, 0xffffffff);
	write16(kSriovStatus, 0xffff);
	write16(kSriovInitialVfs, 5);
	write16(kSriovTotalVfs, 5);
	write32(kSriovVfOffset, 0x00050005);
	write16(kSriovVfDeviceId, 0x1234);
	write32(kSriovSupportedPageSizes, 0);
	write32(kSriovVfBar0 + 16, 0xffffffff);
	write32(kSriovVfMigrationState, 0xffffffff);
	EXPECT_EQ(read32(0), 0x00010010u);
	EXPECT_EQ(read32(kSriovCaps), 0u);
	EXPECT_EQ(read16(kSriovStatus), 0);
	EXPECT_EQ(read16(kSriovInitialVfs), 2);
	EXPECT_EQ(read16(kSriovTotalVfs), 2);
	EXPECT_EQ(read32(kSriovVfOffset), 0x00010001u);
	EXPECT_EQ(read16(kSriovVfDeviceId), 0x1018);
	EXPECT_EQ(read32(kSriovSupportedPageSizes), 0x7ffu);
	EXPECT_EQ(read32(kSriovVfBar0 + 16), 0u);
	EXPECT_EQ(read32(kSriovVfMigrationState), 0u);
	// Only VF Enable, VF MSE and ARI Capable Hierarchy are writable.
	write16(kSriovControl, 0xffff);
	EXPECT_EQ(read16(kSriovControl), kSriovControlVfEnable | kSriovControlVfMse | kSriovControlAriHierarchy);
	EXPECT_EQ(seen, (std::vector<SriovState>{{0, true, true}})) << "only the control write changed the state";
}

TEST_F(PciSriov, SystemPageSizeIsWritable)
{
	write32(kSriovSystemPageSize, 0x10); // 64 KiB
	EXPECT_EQ(read32(kSriovSystemPageSize), 0x10u);
	write32(kSriovSystemPageSize, 0xfffff800);
	EXPECT_EQ(read32(kSriovSystemPageSize), 0u) << "only the supported sizes' bits";
	write32(kSriovSystemPageSize, 1);
	EXPECT_EQ(read32(kSriovSystemPageSize), 1u);
}

// Sizing as the kernel does (all ones, read back): the size of one VF's BAR.
TEST_F(PciSriov, VfBarSizing)
{
	write32(kSriovVfBar0, 0xffffffff);
	write32(kSriovVfBar0 + 4, 0xffffffff);
	EXPECT_EQ(read32(kSriovVfBar0), (~uint32_t((32u << 20) - 1)) | kBarMem64 | kBarPrefetch) << "32 MiB per VF";
	EXPECT_EQ(read32(kSriovVfBar0 + 4), 0xffffffffu);
	write32(kSriovVfBar0 + 8, 0xffffffff);
	write32(kSriovVfBar0 + 12, 0xffffffff);
	EXPECT_EQ(read32(kSriovVfBar0 + 8), (~uint32_t(kMsixBarSize - 1)) | kBarMem64) << "16 KiB per VF";
	EXPECT_EQ(read32(kSriovVfBar0 + 12), 0xffffffffu);

	// An address, as the kernel assigns one.
	write32(kSriovVfBar0, 0xc0000000);
	write32(kSriovVfBar0 + 4, 0x1);
	EXPECT_EQ(read32(kSriovVfBar0), 0xc0000000u | kBarMem64 | kBarPrefetch);
	EXPECT_EQ(read32(kSriovVfBar0 + 4), 0x1u);

	FakeBar b;
	FunctionConfig c = pf_config();
	c.vf_bar0_size = 1 << 20;
	PciFunction small(c, b);
	uint32_t ones = 0xffffffff;
	ASSERT_EQ(small.write(VFIO_PCI_CONFIG_REGION_INDEX, 0x100 + kSriovVfBar0, &ones, 4), 0);
	EXPECT_EQ(small.config().read32(0x100 + kSriovVfBar0), 0xfff00000u | kBarMem64 | kBarPrefetch);
	EXPECT_TRUE(seen.empty());
}

// The kernel's sriov_enable(): NumVFs, then VF Enable and VF MSE together;
// sriov_disable(): the control register cleared, then NumVFs 0.
TEST_F(PciSriov, ListenerSeesEnableAndDisable)
{
	write16(kSriovNumVfs, 2);
	write16(kSriovControl, kSriovControlVfEnable | kSriovControlVfMse);
	EXPECT_EQ(fn.sriov_state(), (SriovState{2, true, true}));
	write16(kSriovControl, 0);
	write16(kSriovNumVfs, 0);
	EXPECT_EQ(seen, (std::vector<SriovState>{{2, false, false}, {2, true, true}, {2, false, false}, {0, false, false}}));
}

TEST_F(PciSriov, ListenerOnlyOnChanges)
{
	uint16_t cmd = kCommandMemory | kCommandMaster;
	ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, kCommand, &cmd, 2), 0);
	write32(kSriovSystemPageSize, 1);
	write16(kSriovControl, 0);
	write16(kSriovNumVfs, 0);
	EXPECT_TRUE(seen.empty());
	write16(kSriovNumVfs, 1);
	write16(kSriovNumVfs, 1);
	write16(kSriovControl, kSriovControlAriHierarchy);
	EXPECT_EQ(seen, (std::vector<SriovState>{{1, false, false}}));
	// A byte write of NumVFs' low byte and a dword write of NumVFs and
	// the function dependency link are seen too.
	uint8_t b = 2;
	ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, at() + kSriovNumVfs, &b, 1), 0);
	write32(kSriovNumVfs, 0x00000001);
	EXPECT_EQ(seen, (std::vector<SriovState>{{1, false, false}, {2, false, false}, {1, false, false}}));
}

TEST_F(PciSriov, NumVfsAboveTotalIsNotTaken)
{
	write16(kSriovNumVfs, 3);
	EXPECT_EQ(read16(kSriovNumVfs), 0);
	write16(kSriovNumVfs, 0xffff);
	EXPECT_EQ(read16(kSriovNumVfs), 0);
	write16(kSriovNumVfs, 2);
	write16(kSriovNumVfs, 7);
	EXPECT_EQ(read16(kSriovNumVfs), 2);
	EXPECT_EQ(seen, (std::vector<SriovState>{{2, false, false}}));
}

TEST_F(PciSriov, NumVfsIsFixedWhileVfEnableIsSet)
{
	write16(kSriovNumVfs, 2);
	write16(kSriovControl, kSriovControlVfEnable | kSriovControlVfMse);
	write16(kSriovNumVfs, 1);
	EXPECT_EQ(read16(kSriovNumVfs), 2);
	// One dword write clearing VF Enable and NumVFs: the old VF Enable
	// holds NumVFs.
	write32(kSriovControl, 0);
	EXPECT_EQ(read16(kSriovNumVfs), 2);
	write16(kSriovNumVfs, 1);
	EXPECT_EQ(read16(kSriovNumVfs), 1);
	EXPECT_EQ(seen, (std::vector<SriovState>{{2, false, false}, {2, true, true}, {2, false, false}, {1, false, false}}));
}

TEST_F(PciSriov, ResetClearsTheStateAndReportsIt)
{
	write16(kSriovNumVfs, 2);
	write16(kSriovControl, kSriovControlVfEnable | kSriovControlVfMse);
	write32(kSriovSystemPageSize, 0x10);
	seen.clear();
	fn.reset();
	EXPECT_EQ(seen, (std::vector<SriovState>{{0, false, false}}));
	EXPECT_EQ(read32(kSriovSystemPageSize), 1u);
	fn.reset();
	EXPECT_EQ(seen.size(), 1u) << "a reset that changes nothing is not reported";

	// FLR through DevCtl resets it as well.
	write16(kSriovNumVfs, 1);
	write16(kSriovControl, kSriovControlVfEnable);
	seen.clear();
	uint16_t exp = fn.layout().exp;
	uint16_t ctl = fn.config().read16(exp + kExpDevCtl) | kExpDevCtlInitiateFlr;
	ASSERT_EQ(fn.write(VFIO_PCI_CONFIG_REGION_INDEX, exp + kExpDevCtl, &ctl, 2), 0);
	EXPECT_EQ(seen, (std::vector<SriovState>{{0, false, false}}));
}

// A PF clearing VF Enable resets its VFs from its own connection thread
// while theirs may be writing their config space.
TEST(PciSriovThreads, ResetFromAnotherThread)
{
	FakeBar bar;
	FunctionConfig c;
	c.device_id = 0x1018;
	c.role = FunctionRole::Vf;
	PciFunction vf(c, bar);
	std::vector<bool> bm;
	vf.set_bus_master_listener([&bm](bool on) { bm.push_back(on); });
	std::thread other([&vf] {
		for (int i = 0; i < 200; i++)
			vf.reset();
	});
	for (int i = 0; i < 200; i++) {
		uint16_t cmd = kCommandMemory | kCommandMaster;
		ASSERT_EQ(vf.write(VFIO_PCI_CONFIG_REGION_INDEX, kCommand, &cmd, 2), 0);
	}
	other.join();
	EXPECT_EQ(bar.resets(), 200);
	EXPECT_EQ(bm.size(), 400u);
	vf.reset();
	EXPECT_FALSE(bm.back()) << "the last report is the state after the last reset";
	EXPECT_FALSE(vf.bus_master_enabled());
}

} // namespace
} // namespace mlx5emu::pci
