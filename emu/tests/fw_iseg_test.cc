// SPDX-License-Identifier: GPL-2.0
// Initialization segment and UAR register behaviour.
#include "fw_harness.h"
#include "prm/device_clock.h"

namespace mlx5emu::test {
namespace {

TEST(FwIseg, IdentityAndCommandQueueGeometry)
{
	HcaConfig c;
	c.fw_major = 16;
	c.fw_minor = 35;
	c.fw_subminor = 4030;
	FwHarness h(c);
	EXPECT_EQ(h.rd32(0x000), 35u << 16 | 16u);
	EXPECT_EQ(h.rd32(0x004) >> 16, 5u) << "cmdif revision";
	EXPECT_EQ(h.rd32(0x004) & 0xffff, 4030u);
	uint32_t lsz = h.rd32(0x014);
	EXPECT_EQ(lsz & 0xff, 0x56u) << "log_sz 5, log_stride 6";
	EXPECT_EQ((lsz >> 8) & 7, 0u) << "NIC interface FULL_DRIVER";
	EXPECT_EQ(h.rd32(0x1fc) >> 31, 0u) << "initializing bit clear";
	EXPECT_EQ(h.rd32(0xff8), 0u);
	EXPECT_EQ(h.rd32(0xffc), 0u);
}

TEST(FwIseg, CommandQueueAddressReadsBack)
{
	FwHarness h;
	h.wr32(0x10, 0x12);
	h.wr32(0x14, 0xabcde000);
	EXPECT_EQ(h.rd32(0x10), 0x12u);
	EXPECT_EQ(h.rd32(0x14), 0xabcde056u);
	EXPECT_EQ(h.fw().iseg.cmdq_addr(), 0x12abcde000ull);
	// Low 12 bits of the address are not stored; bits[10:8] are the NIC
	// interface state, log_sz/log_stride are read-only.
	h.wr32(0x14, 0xabcde000 | 1u << 8 | 0xff);
	EXPECT_EQ(h.rd32(0x14), 0xabcde156u);
	EXPECT_EQ(h.fw().iseg.nic_interface(), 1u);
}

TEST(FwIseg, HealthBufferIsHealthy)
{
	FwHarness h;
	EXPECT_NE(h.rd32(0x230), 0xffffffffu) << "fw_ver";
	EXPECT_NE(h.rd32(0x230), 0u);
	EXPECT_EQ(h.rd32(0x234), 0x1017u) << "hw_id";
	EXPECT_EQ(h.rd32(0x238) >> 24, 0u) << "rfr_severity";
	EXPECT_EQ(h.rd32(0x23c), 0u) << "irisc_index, synd, ext_synd";
	EXPECT_EQ(h.hca->bar_read(0x23d, 1), 0u);
}

TEST(FwIseg, HealthSyndromeAndFatalBits)
{
	FwHarness h;
	h.fw().set_health_syndrome(0x8, 0x1234, false);
	EXPECT_EQ(h.hca->bar_read(0x23d, 1), 0x8u);
	EXPECT_EQ(h.rd32(0x23c) & 0xffff, 0x1234u);
	EXPECT_EQ(h.rd32(0x238) >> 24, 0u);
	h.fw().set_health_syndrome(0x1, 0, true);
	EXPECT_EQ(h.rd32(0x238) >> 31, 1u) << "RFR bit";
	EXPECT_EQ((h.rd32(0x238) >> 24) & 0x8, 0x8u) << "severity valid";
}

// A fatal syndrome crashes the firmware: the function loses its pages and
// state, and a command rung meanwhile never completes, not even once the
// syndrome is cleared (its mailboxes may be free memory by then). After
// the clear, the function starts over with ENABLE_HCA.
TEST(FwIseg, FatalSyndromeCrashesTheFirmware)
{
	FwHarness h;
	h.bring_up();
	ASSERT_GT(h.fw().pages_outstanding(), 0u);
	h.fw().set_health_syndrome(0x1, 0x42, true);
	EXPECT_TRUE(h.fw().crashed());
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	auto p = h.prepare(0, Msg(prm::op::QUERY_ISSI, 0, 16).b, 112);
	h.ring(1);
	EXPECT_FALSE(h.wait(p, 300ms)) << "a crashed firmware completed a command";
	h.fw().set_health_syndrome(0, 0, false);
	EXPECT_FALSE(h.fw().crashed());
	EXPECT_TRUE(h.idle());
	EXPECT_TRUE(h.mem.byte(p.entry + FwHarness::kEntStatusOwn) & 1) << "the lost command ran after the clear";
	h.enable();
	EXPECT_EQ(h.fw().function_state(), FnState::Enabled);
}

// The firmware advertises the software reset (initializing bit 30). A
// driver that sets nic_interface to SW_RESET resets it: a crash is over,
// the health buffer is clear, the function is disabled without pages, the
// command lost in the crash stays lost, and nic_interface reads DISABLED
// until the driver gives the command queue again.
TEST(FwIseg, SoftwareResetEndsACrash)
{
	FwHarness h;
	EXPECT_EQ((h.rd32(0x1fc) >> 30) & 1, 1u) << "FW reset supported";
	h.bring_up();
	h.fw().set_health_syndrome(0x1, 0x42, true);
	ASSERT_TRUE(h.fw().crashed());
	auto p = h.prepare(0, Msg(prm::op::QUERY_ISSI, 0, 16).b, 112);
	h.ring(1);
	h.wr32(0x14, static_cast<uint32_t>(h.cmdq) | 7u << 8);
	EXPECT_FALSE(h.fw().crashed());
	EXPECT_EQ(h.fw().health.syndrome(), 0u);
	EXPECT_EQ(h.rd32(0x238) >> 24, 0u) << "RFR bit cleared";
	EXPECT_EQ((h.rd32(0x14) >> 8) & 7, 1u) << "nic_interface DISABLED after the reset";
	EXPECT_EQ(h.rd32(0x14) & 0xfffff000u, 0u) << "command queue address forgotten";
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	EXPECT_TRUE(h.idle());
	EXPECT_TRUE(h.mem.byte(p.entry + FwHarness::kEntStatusOwn) & 1) << "the lost command ran after the reset";
	h.init_cmdq();
	EXPECT_EQ((h.rd32(0x14) >> 8) & 7, 0u) << "nic_interface FULL_DRIVER again";
	h.bring_up();
	EXPECT_GT(h.fw().pages_outstanding(), 0u);
}

// A function reset (FLR, DEVICE_RESET) ends a crash too.
TEST(FwIseg, FunctionResetEndsACrash)
{
	FwHarness h;
	h.bring_up();
	h.fw().set_health_syndrome(0x1, 0x42, true);
	ASSERT_TRUE(h.fw().crashed());
	h.hca->reset();
	EXPECT_FALSE(h.fw().crashed());
	EXPECT_EQ(h.fw().health.syndrome(), 0u);
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
	h.init_cmdq();
	h.bring_up();
	EXPECT_GT(h.fw().pages_outstanding(), 0u);
}

// A hang from the control channel outlives a reset.
TEST(FwIseg, ResetKeepsAControlChannelHang)
{
	FwHarness h;
	h.fw().hang(true);
	h.hca->reset();
	h.init_cmdq();
	auto p = h.prepare(0, Msg(prm::op::ENABLE_HCA, 0, 16).b, 12);
	h.ring(1);
	EXPECT_FALSE(h.wait(p, 200ms)) << "a hung firmware completed a command";
	h.fw().hang(false);
	EXPECT_TRUE(h.wait(p));
}

TEST(FwIseg, HeartbeatTicksAndFreezes)
{
	FwHarness h;
	uint32_t c0 = h.rd32(0x1010);
	auto end = std::chrono::steady_clock::now() + kPatience;
	while (h.rd32(0x1010) == c0 && std::chrono::steady_clock::now() < end)
		std::this_thread::yield();
	EXPECT_NE(h.rd32(0x1010), c0) << "health_counter must advance";
	h.fw().hang(true);
	uint32_t frozen = h.rd32(0x1010);
	auto until = std::chrono::steady_clock::now() + 150ms;
	while (std::chrono::steady_clock::now() < until)
		ASSERT_EQ(h.rd32(0x1010), frozen);
	h.fw().hang(false);
	end = std::chrono::steady_clock::now() + kPatience;
	while (h.rd32(0x1010) == frozen && std::chrono::steady_clock::now() < end)
		std::this_thread::yield();
	EXPECT_NE(h.rd32(0x1010), frozen);
}

TEST(FwIseg, InternalTimerIsMonotonic)
{
	FwHarness h;
	uint64_t t0 = static_cast<uint64_t>(h.rd32(0x1000)) << 32 | h.rd32(0x1004);
	uint64_t t1 = t0;
	while (t1 == t0)
		t1 = static_cast<uint64_t>(h.rd32(0x1000)) << 32 | h.rd32(0x1004);
	EXPECT_GT(t1, t0);
}

// The timer is the device clock that CQE timestamps come from.
TEST(FwIseg, InternalTimerIsTheDeviceClock)
{
	FwHarness h;
	uint64_t before = device_clock_ns();
	uint64_t t = static_cast<uint64_t>(h.rd32(0x1000)) << 32 | h.rd32(0x1004);
	uint64_t after = device_clock_ns();
	EXPECT_GE(t, before);
	EXPECT_LE(t, after);
}

TEST(FwIseg, InternalTimerRunsAtTheAdvertisedFrequency)
{
	FwHarness h;
	h.enable();
	auto cap = h.ok(Msg(prm::op::QUERY_HCA_CAP, 1, 16), 4112);
	uint64_t khz = field(cap, bits::Field{0x27, 31, 0}.at(0x10));
	ASSERT_EQ(khz, 1000000u);
	auto rd = [&] { return static_cast<uint64_t>(h.rd32(0x1000)) << 32 | h.rd32(0x1004); };
	// Host time around each read and between them: the device's ticks
	// lie between the inner and the outer span, however long a read was
	// held up.
	using Clock = std::chrono::steady_clock;
	auto w0 = Clock::now();
	uint64_t t0 = rd();
	auto i0 = Clock::now();
	while (Clock::now() - i0 < 20ms)
		std::this_thread::yield();
	auto i1 = Clock::now();
	uint64_t t1 = rd();
	auto w1 = Clock::now();
	double inner_ns = std::chrono::duration<double, std::nano>(i1 - i0).count();
	double outer_ns = std::chrono::duration<double, std::nano>(w1 - w0).count();
	double ticks = static_cast<double>(t1 - t0) * 1e6 / static_cast<double>(khz); // in ns
	EXPECT_GT(ticks, 0.5 * inner_ns);
	EXPECT_LT(ticks, 1.5 * outer_ns);
}

TEST(FwIseg, ByteAndQwordReadsSeeBigEndianBytes)
{
	FwHarness h;
	// cmdif_rev_fw_sub = 0x0005xxxx: byte 0x004 is 0x00, byte 0x005 is 0x05.
	EXPECT_EQ(h.hca->bar_read(0x005, 1), 0x05u);
	uint64_t q = h.hca->bar_read(0x000, 8);
	EXPECT_EQ(be32toh(static_cast<uint32_t>(q)), h.rd32(0x000));
	EXPECT_EQ(be32toh(static_cast<uint32_t>(q >> 32)), h.rd32(0x004));
}

TEST(FwIseg, UarPagesReadZeroAndIgnoreUnknownWrites)
{
	FwHarness h;
	EXPECT_EQ(h.hca->bar_read(5 * 4096 + 0x40, 4), 0u);
	h.wr32(0x100, 0xdeadbeef); // reserved iseg space
	EXPECT_EQ(h.rd32(0x100), 0u);
	h.hca->bar_write(5 * 4096 + 0x20, 8, 0x1122334455667788ull);
	h.hca->bar_write(5 * 4096 + 0x800, 8, 1);
	EXPECT_EQ(h.fw().bar.cq_doorbells.load(), 1u);
	EXPECT_EQ(h.fw().bar.bf_writes.load(), 1u);
	EXPECT_EQ(h.fw().bar.last_cq_doorbell.load(), 0x1122334455667788ull);
}

TEST(FwIseg, ResetClearsCommandQueueAddress)
{
	FwHarness h;
	h.enable();
	h.hca->reset();
	EXPECT_EQ(h.fw().iseg.cmdq_addr(), 0u);
	EXPECT_EQ(h.fw().function_state(), FnState::Disabled);
}

} // namespace
} // namespace mlx5emu::test
