// SPDX-License-Identifier: GPL-2.0
// The CQ model on its own: owner parity across wraps, 64/128-byte entries,
// overrun against the doorbell-record consumer index, arming.
#include <gtest/gtest.h>

#include "fake_guest_memory.h"
#include "prm/bits.h"
#include "queues/cq.h"

namespace mlx5emu::test {
namespace {

struct CqFixture : ::testing::Test {
	FakeGuestMemory mem;
	uint64_t buf = 0, dbr = 0;

	Cq make(unsigned log, unsigned cqe_sz = 0, bool oi = false)
	{
		CqConfig c;
		c.log_size = static_cast<uint8_t>(log);
		c.cqe_sz = static_cast<uint8_t>(cqe_sz);
		c.oi = oi;
		size_t bytes = static_cast<size_t>(c.stride()) << log;
		buf = mem.alloc((bytes + 4095) / 4096 * 4096, 4096);
		dbr = mem.alloc(64, 64);
		c.dbr_addr = dbr;
		c.buf.log_page = 12;
		for (size_t i = 0; i < (bytes + 4095) / 4096; ++i)
			c.buf.pas.push_back(buf + 4096 * i);
		return Cq(7, c);
	}
	void set_ci(uint32_t ci)
	{
		uint8_t b[4];
		bits::store_be32(b, ci);
		mem.write(dbr, b, 4);
	}
	static std::vector<uint8_t> cqe(uint8_t opcode, uint32_t tag)
	{
		std::vector<uint8_t> v(64, 0);
		bits::store_be32(&v[0x2c], tag);
		v[63] = static_cast<uint8_t>(opcode << 4);
		return v;
	}
};

TEST_F(CqFixture, OwnerBitIsTheWrapParityOfTheProducer)
{
	Cq cq = make(2); // 4 entries
	for (uint32_t n = 0; n < 12; ++n) {
		set_ci(n); // software keeps up
		Cq::Push r = cq.push(mem, cqe(2, n).data(), false);
		ASSERT_TRUE(r.written) << n;
		uint64_t at = buf + 64ull * (n & 3);
		EXPECT_EQ(mem.byte(at + 63) & 1, (n >> 2) & 1) << "CQE " << n;
		EXPECT_EQ(mem.byte(at + 63) >> 4, 2) << "opcode kept";
		EXPECT_EQ(bits::load_be32(mem.bytes(at + 0x2c, 4).data()), n);
	}
	EXPECT_EQ(cq.producer(), 12u);
}

TEST_F(CqFixture, LargePagesAndPageOffsetPlaceEveryEntry)
{
	// The driver maps rings with the largest page that fits: here 8 KiB
	// pages, listed out of order, the ring starting 2 KiB into the first
	// (page_offset 16 of 64ths). 256 entries of 64 bytes span three pages.
	CqConfig c;
	c.log_size = 8;
	c.dbr_addr = dbr = mem.alloc(64, 64);
	c.buf.log_page = 13;
	c.buf.offset = 16 * (8192 / 64);
	uint64_t p[3];
	for (uint64_t &a : p)
		a = mem.alloc(8192, 8192);
	c.buf.pas = {p[2], p[0], p[1]};
	Cq cq(9, c);
	for (uint32_t n = 0; n < 256; ++n) {
		set_ci(n);
		ASSERT_TRUE(cq.push(mem, cqe(2, n).data(), false).written) << n;
		uint64_t pos = c.buf.offset + 64ull * n;
		uint64_t at = c.buf.pas[pos >> 13] + (pos & 8191);
		EXPECT_EQ(bits::load_be32(mem.bytes(at + 0x2c, 4).data()), n) << "CQE " << n;
	}
	EXPECT_EQ(bits::load_be32(mem.bytes(p[2] + 2048 + 0x2c, 4).data()), 0u) << "first entry";
	EXPECT_EQ(bits::load_be32(mem.bytes(p[1] + 2048 - 64 + 0x2c, 4).data()), 255u) << "last entry";
}

TEST_F(CqFixture, Cqe128UsesTheSecondHalf)
{
	Cq cq = make(1, 1);
	ASSERT_TRUE(cq.push(mem, cqe(0, 0x1234).data(), false).written);
	EXPECT_EQ(bits::load_be32(mem.bytes(buf + 64 + 0x2c, 4).data()), 0x1234u);
	EXPECT_EQ(mem.byte(buf + 127) >> 4, 0);
	EXPECT_EQ(bits::load_be32(mem.bytes(buf + 0x2c, 4).data()), 0u) << "first half untouched";
	ASSERT_TRUE(cq.push(mem, cqe(0, 0x5678).data(), false).written);
	EXPECT_EQ(bits::load_be32(mem.bytes(buf + 128 + 64 + 0x2c, 4).data()), 0x5678u);
}

TEST_F(CqFixture, OverrunWhenSoftwareDoesNotConsume)
{
	Cq cq = make(2);
	for (int i = 0; i < 4; ++i)
		ASSERT_TRUE(cq.push(mem, cqe(2, i).data(), false).written);
	Cq::Push r = cq.push(mem, cqe(2, 4).data(), false);
	EXPECT_TRUE(r.overrun);
	EXPECT_FALSE(r.written);
	EXPECT_TRUE(cq.overrun());
	// Sticky: even after software catches up nothing more is written.
	set_ci(4);
	r = cq.push(mem, cqe(2, 5).data(), false);
	EXPECT_FALSE(r.written);
	EXPECT_FALSE(r.overrun) << "reported once";
	EXPECT_EQ(cq.counters().overruns, 1u);
}

TEST_F(CqFixture, ConsumerIndexFromTheDoorbellRecordAvoidsOverrun)
{
	Cq cq = make(2);
	for (uint32_t i = 0; i < 4; ++i)
		ASSERT_TRUE(cq.push(mem, cqe(2, i).data(), false).written);
	set_ci(2);
	EXPECT_TRUE(cq.push(mem, cqe(2, 4).data(), false).written);
	EXPECT_TRUE(cq.push(mem, cqe(2, 5).data(), false).written);
	EXPECT_TRUE(cq.push(mem, cqe(2, 6).data(), false).overrun);
}

TEST_F(CqFixture, OverrunIgnoreKeepsWriting)
{
	Cq cq = make(1, 0, true);
	for (int i = 0; i < 8; ++i)
		EXPECT_TRUE(cq.push(mem, cqe(2, i).data(), false).written);
	EXPECT_FALSE(cq.overrun());
}

TEST_F(CqFixture, ArmFiresOncePerArm)
{
	Cq cq = make(3);
	EXPECT_FALSE(cq.push(mem, cqe(2, 0).data(), false).notify) << "not armed";
	EXPECT_TRUE(cq.arm(0 /* sn 0, REQ_NOT, ci 0 */)) << "a CQE beyond ci: fire at once";
	EXPECT_FALSE(cq.push(mem, cqe(2, 1).data(), false).notify) << "disarmed after firing";
	EXPECT_FALSE(cq.arm(2)) << "ci = producer: arm";
	EXPECT_EQ(cq.arm_state(), Cq::Arm::All);
	EXPECT_TRUE(cq.push(mem, cqe(2, 2).data(), false).notify);
	EXPECT_FALSE(cq.push(mem, cqe(2, 3).data(), false).notify) << "one event per arm";
}

// An arm between an event and the poll of its CQE (perftest's latency
// tests with -e: get the event, re-arm, then poll) posts no second event
// for that CQE: it was notified. A CQE written while the CQ was disarmed
// was not, and fires the next arm whatever the order of arm and poll.
TEST_F(CqFixture, ArmFiresOnlyForCqesAfterTheLastEvent)
{
	Cq cq = make(3);
	EXPECT_FALSE(cq.arm(0));
	EXPECT_TRUE(cq.push(mem, cqe(2, 0).data(), false).notify);
	EXPECT_EQ(cq.last_notified(), 1u);
	EXPECT_FALSE(cq.arm(0)) << "CQE 0 not polled but notified: no second event";
	EXPECT_EQ(cq.arm_state(), Cq::Arm::All);
	EXPECT_TRUE(cq.push(mem, cqe(2, 1).data(), false).notify) << "the next CQE fires";
	EXPECT_FALSE(cq.push(mem, cqe(2, 2).data(), false).notify) << "disarmed";
	EXPECT_TRUE(cq.arm(1)) << "CQE 2 came while disarmed: fire at once";
	EXPECT_FALSE(cq.arm(3)) << "all polled";
	// Solicited: a solicited CQE already notified does not fire again.
	const uint32_t sol = 1u << 24;
	EXPECT_TRUE(cq.push(mem, cqe(2, 3).data(), true).notify);
	EXPECT_FALSE(cq.arm(sol | 3));
	EXPECT_EQ(cq.arm_state(), Cq::Arm::Solicited);
}

TEST_F(CqFixture, SolicitedArmWaitsForASolicitedCqe)
{
	Cq cq = make(3);
	const uint32_t sol = 1u << 24;
	EXPECT_FALSE(cq.arm(sol | 0));
	EXPECT_FALSE(cq.push(mem, cqe(2, 0).data(), false).notify);
	EXPECT_TRUE(cq.push(mem, cqe(2, 1).data(), true).notify);
	// A solicited CQE beyond ci, written while disarmed: fire when armed.
	EXPECT_FALSE(cq.push(mem, cqe(2, 2).data(), true).notify);
	EXPECT_TRUE(cq.arm(sol | 1));
	// Only unsolicited ones beyond ci: wait.
	cq.push(mem, cqe(2, 3).data(), false);
	EXPECT_FALSE(cq.arm(sol | 3));
	EXPECT_EQ(cq.arm_state(), Cq::Arm::Solicited);
}

} // namespace
} // namespace mlx5emu::test
