// SPDX-License-Identifier: GPL-2.0
// Firmware page accounting: QUERY_PAGES, MANAGE_PAGES, page requests, leaks.
#include "fw_harness.h"

namespace mlx5emu::test {
namespace {

namespace op = prm::op;

TEST(FwPages, StageDemand)
{
	FwHarness h;
	h.enable();
	EXPECT_EQ(h.query_pages(1), 16);
	EXPECT_EQ(h.query_pages(2), 48);
	h.give_pages(16);
	EXPECT_EQ(h.query_pages(1), 0);
	EXPECT_EQ(h.query_pages(2), 32);
	h.give_pages(32);
	EXPECT_EQ(h.query_pages(2), 0);
	EXPECT_EQ(h.query_pages(3), 0);
	EXPECT_EQ(h.fw().pages_outstanding(), 48u);
	h.fails(Msg(op::QUERY_PAGES, 4, 16), 16, 0x03);
	h.fails(Msg(op::QUERY_PAGES, 1, 16).set({2, 15, 0}, 1), 16, 0x03); // other function
}

TEST(FwPages, GiveManyPagesAcrossMailboxBlocks)
{
	FwHarness h;
	h.enable();
	h.give_pages(200); // 16 + 1600 bytes: 4 input blocks
	EXPECT_EQ(h.fw().pages_outstanding(), 200u);
	for (uint64_t pa : h.given)
		EXPECT_TRUE(h.fw().pages.holds(pa));
}

TEST(FwPages, GiveValidatesAddresses)
{
	FwHarness h;
	h.enable();
	Msg m(op::MANAGE_PAGES, 1, 16 + 16);
	m.set({3, 31, 0}, 2).be64(16, 0x200000).be64(24, 0x200800); // second not 4K aligned
	h.fails(m, 16, 0x03);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u) << "all or nothing";
	m.be64(24, 0x200000); // duplicate within the command
	h.fails(m, 16, 0x03);
	m.be64(16, 0).be64(24, 0x300000); // address 0
	h.fails(m, 16, 0x03);
	Msg ok1(op::MANAGE_PAGES, 1, 24);
	ok1.set({3, 31, 0}, 1).be64(16, 0x400000);
	h.ok(ok1, 16);
	h.fails(ok1, 16, 0x03); // already held
	Msg short_in(op::MANAGE_PAGES, 1, 24);
	short_in.set({3, 31, 0}, 5).be64(16, 0x500000); // 5 entries announced, 1 present
	h.fails(short_in, 16, 0x50);
	h.fails(Msg(op::MANAGE_PAGES, 7, 16), 16, 0x03);
}

TEST(FwPages, TakeReturnsAtMostWhatIsHeldAndFits)
{
	FwHarness h;
	h.enable();
	h.give_pages(40);
	auto got = h.take_pages(10, 10);
	EXPECT_EQ(got.size(), 10u);
	EXPECT_EQ(h.fw().pages_outstanding(), 30u);
	got = h.take_pages(768, 4); // output room for 4 only
	EXPECT_EQ(got.size(), 4u);
	got = h.take_pages(768, 768);
	EXPECT_EQ(got.size(), 26u);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	got = h.take_pages(768, 768);
	EXPECT_EQ(got.size(), 0u);
	// Every page comes back exactly once.
	EXPECT_EQ(h.fw().pages.counters().taken, 40u);
}

TEST(FwPages, CantGiveIsRecorded)
{
	FwHarness h;
	h.enable();
	h.ok(Msg(op::MANAGE_PAGES, 0, 16).set({3, 31, 0}, 16), 16);
	EXPECT_EQ(h.fw().pages.counters().cant_give, 1u);
}

TEST(FwPages, LeakReportedOnDisable)
{
	FwHarness h;
	h.enable();
	h.give_pages(20);
	h.take_pages(5, 5);
	h.ok(Msg(op::DISABLE_HCA, 0, 16), 12);
	EXPECT_EQ(h.fw().pages_outstanding(), 0u);
	EXPECT_EQ(h.fw().pages.counters().leak_reports, 1u);
	EXPECT_EQ(h.fw().pages.counters().leaked_pages, 15u);
	EXPECT_NE(h.fw().pages.counters().last_leak.find("DISABLE_HCA"), std::string::npos);
}

TEST(FwPages, NoLeakWhenAllPagesReturned)
{
	FwHarness h;
	h.enable();
	h.give_pages(20);
	h.take_pages(20, 20);
	h.ok(Msg(op::DISABLE_HCA, 0, 16), 12);
	EXPECT_EQ(h.fw().pages.counters().leak_reports, 0u);
}

TEST(FwPages, LeakReportedOnReset)
{
	FwHarness h;
	h.enable();
	h.give_pages(3);
	h.hca->reset();
	EXPECT_EQ(h.fw().pages.counters().leaked_pages, 3u);
}

TEST(FwPages, PageRequestEvents)
{
	FwHarness h;
	h.bring_up();
	uint32_t uar = h.alloc_uar();
	auto eq = h.create_eq(7, 1ull << 0x0b, 2, uar);
	h.eq_doorbell(eq, 0, true);

	std::string err;
	ASSERT_TRUE(h.fw().page_request(8, &err)) << err;
	ASSERT_TRUE(h.wait_eqe(eq, 0));
	auto e = h.eqe(eq, 0);
	EXPECT_EQ(e[1], 0x0b);
	EXPECT_EQ(bits::load_be16(e.data() + 0x22), 0u) << "func_id";
	EXPECT_EQ(static_cast<int32_t>(bits::load_be32(e.data() + 0x24)), 8);
	ASSERT_TRUE(h.irq.wait_for(1));
	EXPECT_EQ(h.irq.raised().back(), 2u);
	EXPECT_EQ(h.query_pages(3), 8) << "regular demand";
	h.give_pages(8);
	EXPECT_EQ(h.query_pages(3), 0);

	ASSERT_TRUE(h.fw().page_request(-4, &err)) << err;
	ASSERT_TRUE(h.wait_eqe(eq, 1));
	EXPECT_EQ(static_cast<int32_t>(bits::load_be32(h.eqe(eq, 1).data() + 0x24)), -4);
	EXPECT_EQ(h.query_pages(3), -4);
	EXPECT_EQ(h.take_pages(4, 4).size(), 4u);
	EXPECT_EQ(h.fw().pages_outstanding(), 52u);

	EXPECT_FALSE(h.fw().page_request(-1000, &err));
}

TEST(FwPages, PageRequestNeedsAnEq)
{
	FwHarness h;
	h.bring_up();
	std::string err;
	EXPECT_FALSE(h.fw().page_request(4, &err));
	EXPECT_NE(err.find("EQ"), std::string::npos);
}

} // namespace
} // namespace mlx5emu::test
