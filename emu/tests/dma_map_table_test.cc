// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "dma/dma_map_table.h"
#include "vfio_user_fixture.h"

namespace mlx5emu {
namespace {

using testing::make_memfd;
constexpr uint32_t RW = DmaMapTable::kRead | DmaMapTable::kWrite;

TEST(DmaMapTable, ReadWriteThroughMemfd)
{
	UniqueFd mem = make_memfd(1 << 20);
	DmaMapTable t;
	ASSERT_EQ(t.map(0x100000, 1 << 20, 0, RW, mem.get()), 0);
	mem.reset(); // the mapping survives the fd

	const char msg[] = "hello guest";
	ASSERT_TRUE(t.write(0x100010, msg, sizeof(msg)));
	char back[sizeof(msg)] = {};
	ASSERT_TRUE(t.read(0x100010, back, sizeof(back)));
	EXPECT_STREQ(back, msg);
	EXPECT_FALSE(t.read(0xfffff, back, 2)) << "one byte below the mapping";
	EXPECT_FALSE(t.read(0x1ffffe, back, 4)) << "past the end";
	EXPECT_TRUE(t.read(0x1ffffc, back, 4));
}

TEST(DmaMapTable, NoDmaWithoutBusMaster)
{
	UniqueFd mem = make_memfd(1 << 20);
	DmaMapTable t;
	ASSERT_EQ(t.map(0x100000, 1 << 20, 0, RW, mem.get()), 0);
	uint32_t v = 0x11223344, back = 0;
	t.set_bus_master(false);
	EXPECT_FALSE(t.write(0x100000, &v, 4)) << "bus master disabled";
	EXPECT_FALSE(t.read(0x100000, &back, 4));
	t.set_bus_master(true);
	ASSERT_TRUE(t.read(0x100000, &back, 4));
	EXPECT_EQ(back, 0u) << "the refused write left memory alone";
	EXPECT_TRUE(t.write(0x100000, &v, 4));
}

TEST(DmaMapTable, FdOffsetSelectsTheRightBytes)
{
	UniqueFd mem = make_memfd(0x10000);
	uint8_t *p = static_cast<uint8_t *>(::mmap(nullptr, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, mem.get(), 0));
	ASSERT_NE(p, MAP_FAILED);
	p[0x3000] = 0x42;
	p[0x3010] = 0x43;
	DmaMapTable t;
	// Page-aligned and unaligned fd offsets.
	ASSERT_EQ(t.map(0x1000, 0x1000, 0x3000, RW, mem.get()), 0);
	ASSERT_EQ(t.map(0x8000, 0x100, 0x3010, RW, mem.get()), 0);
	uint8_t b = 0;
	ASSERT_TRUE(t.read(0x1000, &b, 1));
	EXPECT_EQ(b, 0x42);
	ASSERT_TRUE(t.read(0x8000, &b, 1));
	EXPECT_EQ(b, 0x43);
	b = 0x99;
	ASSERT_TRUE(t.write(0x1001, &b, 1));
	EXPECT_EQ(p[0x3001], 0x99) << "MAP_SHARED: the guest sees device writes";
	::munmap(p, 0x10000);
}

TEST(DmaMapTable, RangeSpanningAdjacentMappings)
{
	UniqueFd a = make_memfd(0x2000), b = make_memfd(0x2000);
	DmaMapTable t;
	ASSERT_EQ(t.map(0x10000, 0x2000, 0, RW, a.get()), 0);
	ASSERT_EQ(t.map(0x12000, 0x2000, 0, RW, b.get()), 0);
	std::vector<uint8_t> in(0x1000), out(0x1000);
	for (size_t i = 0; i < in.size(); i++)
		in[i] = uint8_t(i * 7);
	ASSERT_TRUE(t.write(0x11800, in.data(), in.size()));
	ASSERT_TRUE(t.read(0x11800, out.data(), out.size()));
	EXPECT_EQ(in, out);

	// A hole breaks the range, and nothing is copied.
	DmaMapTable holes;
	ASSERT_EQ(holes.map(0x10000, 0x1000, 0, RW, a.get()), 0);
	ASSERT_EQ(holes.map(0x12000, 0x1000, 0, RW, b.get()), 0);
	std::vector<uint8_t> untouched(0x2000, 0xee);
	EXPECT_FALSE(holes.read(0x10800, untouched.data(), 0x2000));
	EXPECT_EQ(untouched[0], 0xee);
}

TEST(DmaMapTable, AccessRightsAndFdlessMaps)
{
	UniqueFd m = make_memfd(0x1000);
	DmaMapTable t;
	ASSERT_EQ(t.map(0xc0000, 0x1000, 0, DmaMapTable::kRead, m.get()), 0);
	ASSERT_EQ(t.map(0xfffc0000, 0x40000, 0, DmaMapTable::kRead, -1), 0) << "no fd: recorded";
	uint32_t v = 1;
	EXPECT_TRUE(t.read(0xc0000, &v, 4));
	EXPECT_FALSE(t.write(0xc0000, &v, 4)) << "read-only map";
	EXPECT_FALSE(t.read(0xfffc0000, &v, 4)) << "fd-less map is not reachable";
	EXPECT_EQ(t.size(), 2u);
}

TEST(DmaMapTable, RejectsOverlapsAndBadRanges)
{
	DmaMapTable t(3);
	EXPECT_EQ(t.map(0x1000, 0x1000, 0, RW, -1), 0);
	EXPECT_EQ(t.map(0x1800, 0x1000, 0, RW, -1), EEXIST);
	EXPECT_EQ(t.map(0x0800, 0x1000, 0, RW, -1), EEXIST);
	EXPECT_EQ(t.map(0x1000, 0x1000, 0, RW, -1), EEXIST);
	EXPECT_EQ(t.map(0x0, 0x1000, 0, RW, -1), 0) << "adjacent below";
	EXPECT_EQ(t.map(0x2000, 0x1000, 0, RW, -1), 0) << "adjacent above";
	EXPECT_EQ(t.map(0x9000, 0x1000, 0, RW, -1), ENOSPC);
	EXPECT_EQ(t.map(0x9000, 0, 0, RW, -1), EINVAL);
	EXPECT_EQ(t.map(~0ull - 10, 0x1000, 0, RW, -1), EINVAL);
	EXPECT_EQ(t.map(0x9000, 0x1000, 0, 0x4, -1), EINVAL);
	UniqueFd ro(::open("/dev/null", O_RDONLY | O_CLOEXEC));
	DmaMapTable u;
	EXPECT_NE(u.map(0x0, 0x1000, 0, RW, ro.get()), 0) << "mmap errors come back";
	EXPECT_EQ(u.size(), 0u);
}

TEST(DmaMapTable, UnmapExactMatchAndAll)
{
	UniqueFd m = make_memfd(0x4000);
	DmaMapTable t;
	ASSERT_EQ(t.map(0x1000, 0x2000, 0, RW, m.get()), 0);
	EXPECT_EQ(t.unmap(0x1000, 0x1000), ENOENT);
	EXPECT_EQ(t.unmap(0x2000, 0x1000), ENOENT);
	EXPECT_EQ(t.unmap(0x1000, 0x2000), 0);
	uint8_t b;
	EXPECT_FALSE(t.read(0x1000, &b, 1));
	ASSERT_EQ(t.map(0x1000, 0x2000, 0, RW, m.get()), 0) << "range free again";
	ASSERT_EQ(t.map(0x8000, 0x1000, 0, RW, -1), 0);
	t.unmap_all();
	EXPECT_EQ(t.size(), 0u);
	EXPECT_FALSE(t.read(0x1000, &b, 1));
}

TEST(DmaMapTable, ReadersRaceWithMapAndUnmap)
{
	UniqueFd m = make_memfd(0x10000);
	DmaMapTable t;
	ASSERT_EQ(t.map(0x0, 0x10000, 0, RW, m.get()), 0);
	std::atomic<bool> stop{false};
	std::atomic<uint64_t> ok{0};
	std::thread reader([&] {
		std::vector<uint8_t> buf(0x1000);
		while (!stop) {
			if (t.read(0x100000, buf.data(), buf.size()))
				ok++;
			ASSERT_TRUE(t.write(0x2000, buf.data(), buf.size()));
		}
	});
	for (int i = 0; i < 2000; i++) {
		ASSERT_EQ(t.map(0x100000, 0x10000, 0, RW, m.get()), 0);
		ASSERT_EQ(t.unmap(0x100000, 0x10000), 0);
	}
	stop = true;
	reader.join();
	EXPECT_EQ(t.size(), 1u);
}

// A thread holding the table (a burst of DMA) accesses it without taking
// its lock again; unmapping waits for the last release, so no access of
// the burst can meet a vanished mapping.
TEST(DmaMapTable, HoldKeepsMappingsUntilTheLastRelease)
{
	UniqueFd m = make_memfd(0x10000);
	DmaMapTable t;
	ASSERT_EQ(t.map(0x0, 0x10000, 0, RW, m.get()), 0);
	const char msg[] = "burst";
	char back[sizeof(msg)] = {};
	t.hold();
	t.hold(); // nested, as two packets of one sender in a burst
	ASSERT_TRUE(t.write(0x100, msg, sizeof(msg)));
	ASSERT_EQ(t.copy_from(0x200, t, 0x100, sizeof(msg)), GuestMemory::Copy::Ok);
	ASSERT_TRUE(t.read(0x200, back, sizeof(back)));
	EXPECT_STREQ(back, msg);
	// Other threads read as usual meanwhile.
	std::thread([&] {
		char b[sizeof(msg)] = {};
		EXPECT_TRUE(t.read(0x200, b, sizeof(b)));
		EXPECT_STREQ(b, msg);
	}).join();

	std::atomic<bool> unmapped{false};
	std::thread unmapper([&] {
		EXPECT_EQ(t.unmap(0x0, 0x10000), 0);
		unmapped = true;
	});
	// A negative check: nothing to poll for but the absence of the unmap.
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
	while (std::chrono::steady_clock::now() < until)
		ASSERT_FALSE(unmapped.load()) << "unmap went through a hold";
	EXPECT_TRUE(t.read(0x100, back, sizeof(back))) << "the mapping is still there";
	t.release();
	until = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
	while (std::chrono::steady_clock::now() < until)
		ASSERT_FALSE(unmapped.load()) << "unmap went through the outer hold";
	t.release();
	unmapper.join();
	EXPECT_TRUE(unmapped.load());
	EXPECT_FALSE(t.read(0x100, back, sizeof(back)));
}

// More memories than a thread notes: the extra holds take nothing and
// their accesses lock as usual; DmaHolds releases what it held.
TEST(DmaMapTable, HoldsPastTheThreadsSlotsStillWork)
{
	UniqueFd m = make_memfd(0x1000);
	std::vector<std::unique_ptr<DmaMapTable>> ts;
	for (int i = 0; i < 12; ++i) {
		ts.push_back(std::make_unique<DmaMapTable>());
		ASSERT_EQ(ts.back()->map(0x0, 0x1000, 0, RW, m.get()), 0);
	}
	for (auto &t : ts)
		t->hold();
	uint32_t v = 7;
	for (auto &t : ts)
		EXPECT_TRUE(t->write(0x10, &v, sizeof(v)));
	for (auto &t : ts)
		t->release();
	// Every lock is free again: each table unmaps at once.
	for (auto &t : ts)
		EXPECT_EQ(t->unmap(0x0, 0x1000), 0);
	ASSERT_EQ(ts[0]->map(0x0, 0x1000, 0, RW, m.get()), 0);
	{
		DmaHolds h;
		for (int i = 0; i < 6; ++i)
			h.add(ts[0].get()); // held once, however often added
		EXPECT_TRUE(ts[0]->write(0x10, &v, sizeof(v)));
	}
	EXPECT_EQ(ts[0]->unmap(0x0, 0x1000), 0) << "released as often as held";
}

} // namespace
} // namespace mlx5emu
