// SPDX-License-Identifier: GPL-2.0
// The MKey table: key lookup (index and variant), PD, access rights,
// bounds, MTT translation across pages, PA mode and the reserved lkey.
#include <gtest/gtest.h>

#include "fake_guest_memory.h"
#include "prm/mkey.h"
#include "queues/mkey.h"

namespace mlx5emu::test {
namespace {

struct MkeyFixture : ::testing::Test {
	FakeGuestMemory mem;
	MkeyTable t;

	// A 3-page MTT key over scattered guest pages, starting 0x100 into
	// the first page of virtual address 0x7000_0000.
	uint32_t mtt_key(unsigned access, uint32_t pd = 5, std::vector<uint64_t> *pages = nullptr)
	{
		Mkey m;
		m.variant = 0x33;
		m.pd = pd;
		m.mode = prm::mkc::MODE_MTT;
		m.access = access;
		m.start = 0x70000100;
		m.len = 3 * 4096 - 0x200;
		m.log_page = 12;
		for (int i = 0; i < 3; ++i) {
			mem.alloc(4096, 4096); // a hole between pages
			m.mtt.push_back(mem.alloc(4096, 4096));
		}
		if (pages)
			*pages = m.mtt;
		uint32_t index;
		EXPECT_TRUE(t.create(m, &index));
		return index << 8 | 0x33;
	}
};

TEST_F(MkeyFixture, LookupNeedsTheRightVariant)
{
	uint32_t k = mtt_key(ACC_LOCAL_READ);
	const Mkey *m = nullptr;
	EXPECT_EQ(t.check(k, 5, 0x70000100, 16, ACC_LOCAL_READ, &m), KeyStatus::Ok);
	EXPECT_EQ(t.check(k ^ 1, 5, 0x70000100, 16, ACC_LOCAL_READ, &m), KeyStatus::NoKey);
	EXPECT_EQ(t.check(k + 0x100, 5, 0x70000100, 16, ACC_LOCAL_READ, &m), KeyStatus::NoKey);
	EXPECT_GE(k >> 8, MkeyTable::kFirstIndex) << "indices never collide with the 0x100 lkey";
}

TEST_F(MkeyFixture, ProtectionDomainAndRights)
{
	uint32_t k = mtt_key(ACC_LOCAL_READ | ACC_LOCAL_WRITE | ACC_REMOTE_READ);
	const Mkey *m = nullptr;
	EXPECT_EQ(t.check(k, 6, 0x70000100, 8, ACC_LOCAL_READ, &m), KeyStatus::BadPd);
	EXPECT_EQ(t.check(k, 5, 0x70000100, 8, ACC_REMOTE_READ, &m), KeyStatus::Ok);
	EXPECT_EQ(t.check(k, 5, 0x70000100, 8, ACC_REMOTE_WRITE, &m), KeyStatus::NoAccess);
	EXPECT_EQ(t.check(k, 5, 0x70000100, 8, ACC_ATOMIC, &m), KeyStatus::NoAccess);
}

TEST_F(MkeyFixture, Bounds)
{
	uint32_t k = mtt_key(ACC_LOCAL_READ);
	const Mkey *m = nullptr;
	uint64_t end = 0x70000100 + 3 * 4096 - 0x200;
	EXPECT_EQ(t.check(k, 5, end - 8, 8, ACC_LOCAL_READ, &m), KeyStatus::Ok);
	EXPECT_EQ(t.check(k, 5, end - 8, 9, ACC_LOCAL_READ, &m), KeyStatus::Bounds);
	EXPECT_EQ(t.check(k, 5, 0x700000ff, 4, ACC_LOCAL_READ, &m), KeyStatus::Bounds);
	EXPECT_EQ(t.check(k, 5, 0x70000100, 0, ACC_LOCAL_READ, &m), KeyStatus::Ok);
}

TEST_F(MkeyFixture, TranslationAcrossScatteredPages)
{
	std::vector<uint64_t> pages;
	uint32_t k = mtt_key(ACC_LOCAL_READ | ACC_LOCAL_WRITE, 5, &pages);
	const Mkey *m = nullptr;
	ASSERT_EQ(t.check(k, 5, 0x70000ff0, 0x20, ACC_LOCAL_WRITE, &m), KeyStatus::Ok);
	std::vector<uint8_t> v(0x20);
	for (size_t i = 0; i < v.size(); ++i)
		v[i] = static_cast<uint8_t>(i + 1);
	ASSERT_TRUE(t.write(mem, *m, 0x70000ff0, v.data(), v.size()));
	EXPECT_EQ(mem.byte(pages[0] + 0xff0), 1);
	EXPECT_EQ(mem.byte(pages[0] + 0xfff), 0x10);
	EXPECT_EQ(mem.byte(pages[1] + 0x000), 0x11) << "continues on the next MTT page";
	std::vector<uint8_t> back(0x20);
	ASSERT_TRUE(t.read(mem, *m, 0x70000ff0, back.data(), back.size()));
	EXPECT_EQ(back, v);
}

TEST_F(MkeyFixture, PaModeAndReservedLkey)
{
	Mkey m;
	m.pd = 2;
	m.mode = prm::mkc::MODE_PA;
	m.access = ACC_LOCAL_READ | ACC_LOCAL_WRITE;
	m.length64 = true;
	uint32_t index;
	ASSERT_TRUE(t.create(m, &index));
	const Mkey *k = nullptr;
	uint64_t pa = mem.alloc(64);
	ASSERT_EQ(t.check(index << 8, 2, pa, 64, ACC_LOCAL_WRITE, &k), KeyStatus::Ok);
	uint32_t x = 0xabcd;
	ASSERT_TRUE(t.write(mem, *k, pa, &x, 4));
	EXPECT_EQ(mem.byte(pa), 0xcd);
	// The reserved lkey: physical addresses in any PD, local rights
	// only, for a queue whose context has rlky; no key for any other.
	ASSERT_EQ(t.check(MkeyTable::kReservedLkey, 9, pa, 64, ACC_LOCAL_READ, &k, Mkey::kNoQp, true), KeyStatus::Ok);
	EXPECT_EQ(t.check(MkeyTable::kReservedLkey, 9, pa, 64, ACC_LOCAL_READ, &k), KeyStatus::NoKey);
	EXPECT_EQ(t.check(MkeyTable::kReservedLkey, 9, pa, 64, ACC_LOCAL_WRITE, &k, Mkey::kNoQp, false), KeyStatus::NoKey);
	EXPECT_EQ(t.check(MkeyTable::kReservedLkey, 9, pa, 64, ACC_REMOTE_READ, &k, Mkey::kNoQp, true), KeyStatus::NoKey);
}

TEST_F(MkeyFixture, FreeKeysAndDestroy)
{
	Mkey m;
	m.pd = 1;
	m.free = true;
	m.access = ACC_LOCAL_READ;
	m.len = 64;
	uint32_t index;
	ASSERT_TRUE(t.create(m, &index));
	const Mkey *k = nullptr;
	EXPECT_EQ(t.check(index << 8, 1, 0, 8, ACC_LOCAL_READ, &k), KeyStatus::NoKey) << "free: not usable";
	EXPECT_TRUE(t.destroy(index));
	EXPECT_FALSE(t.destroy(index));
}

} // namespace
} // namespace mlx5emu::test

namespace mlx5emu::test {
namespace {

// MTT pages that follow one another in guest memory make one piece (one
// copy for a multi-page packet); a gap starts a new piece; a page not
// present still fails the walk after the pieces before it.
TEST(MkeyPieces, ContiguousPagesMergeGapsSplitMissingFails)
{
	FakeGuestMemory mem;
	MkeyTable t;
	Mkey m;
	m.variant = 0x11;
	m.pd = 1;
	m.mode = prm::mkc::MODE_MTT;
	m.access = ACC_LOCAL_READ;
	m.start = 0x50000000;
	m.len = 5 * 4096;
	m.log_page = 12;
	uint64_t run = mem.alloc(3 * 4096, 4096);
	mem.alloc(4096, 4096); // a hole
	uint64_t far = mem.alloc(2 * 4096, 4096);
	m.mtt = {run, run + 4096, run + 8192, far, far + 4096};
	uint32_t index;
	ASSERT_TRUE(t.create(m, &index));
	const Mkey *k = t.find_index(index);
	ASSERT_NE(k, nullptr);
	std::vector<std::pair<uint64_t, size_t>> got;
	auto collect = [](void *v, uint64_t ga, size_t n) {
		static_cast<std::vector<std::pair<uint64_t, size_t>> *>(v)->emplace_back(ga, n);
		return true;
	};
	// From 0x100 into page 0 to 0x80 into page 4.
	ASSERT_TRUE(t.extents(*k, m.start + 0x100, 4 * 4096 - 0x80, collect, &got));
	ASSERT_EQ(got.size(), 2u);
	EXPECT_EQ(got[0], std::make_pair(run + 0x100, size_t(3 * 4096 - 0x100)));
	EXPECT_EQ(got[1], std::make_pair(far, size_t(4096 + 0x80)));

	// Page 1 not present: page 0 is one piece, then the walk fails.
	Mkey z = *k;
	z.mtt[1] = Mkey::kNotPresent;
	got.clear();
	EXPECT_FALSE(t.extents(z, m.start, 2 * 4096, collect, &got));
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0], std::make_pair(run, size_t(4096)));
}

} // namespace
} // namespace mlx5emu::test
