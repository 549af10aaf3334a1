// SPDX-License-Identifier: GPL-2.0
// SlotRing: FIFO order across the wrap and growth, erase_if keeping the
// order of what stays, and slots that keep their occupants' allocations.
#include <vector>

#include <gtest/gtest.h>

#include "util/slot_ring.h"

namespace mlx5emu {
namespace {

std::vector<int> contents(const SlotRing<int> &r)
{
	std::vector<int> v;
	for (int x : r)
		v.push_back(x);
	return v;
}

void push(SlotRing<int> &r, int x)
{
	r.next() = x;
	r.push();
}

TEST(SlotRing, FifoAcrossWrapAndGrowth)
{
	SlotRing<int> r;
	EXPECT_TRUE(r.empty());
	int in = 0, out = 0;
	// Wrap the first slots several times, then grow while wrapped.
	for (int round = 0; round < 200; ++round) {
		push(r, in++);
		if (round % 3 != 2) {
			ASSERT_EQ(r.front(), out++);
			r.pop_front();
		}
	}
	EXPECT_EQ(r.size(), static_cast<size_t>(in - out));
	EXPECT_EQ(r.back(), in - 1);
	std::vector<int> want;
	for (int x = out; x < in; ++x)
		want.push_back(x);
	EXPECT_EQ(contents(r), want);
	while (!r.empty()) {
		ASSERT_EQ(r.front(), out++);
		r.pop_front();
	}
	EXPECT_EQ(out, in);
}

TEST(SlotRing, EraseIfKeepsTheOrderOfTheRest)
{
	SlotRing<int> r;
	for (int x = 0; x < 40; ++x)
		push(r, x);
	for (int x = 0; x < 30; ++x)
		r.pop_front(); // the head sits past the start
	for (int x = 40; x < 60; ++x)
		push(r, x); // wrapped
	r.erase_if([](int x) { return x % 2 == 0; });
	std::vector<int> want;
	for (int x = 31; x < 60; x += 2)
		want.push_back(x);
	EXPECT_EQ(contents(r), want);
	push(r, 99);
	EXPECT_EQ(r.back(), 99);
	EXPECT_EQ(r.size(), want.size() + 1);
}

TEST(SlotRing, ReusedSlotsKeepTheirAllocations)
{
	SlotRing<std::vector<int>> r;
	for (int i = 0; i < 64; ++i) {
		std::vector<int> &v = r.next();
		v.clear();
		v.resize(100, i);
		r.push();
		r.pop_front();
	}
	// Every slot has held a vector of 100: taking one again finds the
	// capacity there.
	std::vector<int> &v = r.next();
	EXPECT_GE(v.capacity(), 100u);
	r.clear();
	EXPECT_TRUE(r.empty());
	EXPECT_GE(r.next().capacity(), 100u) << "clear() keeps the slots";
}

} // namespace
} // namespace mlx5emu
