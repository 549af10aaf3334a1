// SPDX-License-Identifier: GPL-2.0
// The e-switch's transmit scheduling (steer/esw_qos.h): the token bucket
// that paces a vport (a deficit shaper: it lets a sender go while not in
// deficit, and says how long to wait otherwise), and the scheduling
// element tree whose lowest maximum on a vport's path is its rate.
#include <gtest/gtest.h>

#include "prm/prm.h"
#include "prm/qos.h"
#include "steer/esw_qos.h"

namespace mlx5emu::test {
namespace {

using steer::EswQos;
using steer::SchedElement;
using steer::TokenBucket;
namespace se = prm::sched_elem;
using us = std::chrono::microseconds;

TEST(TokenBucket, UnlimitedNeverWaits)
{
	TokenBucket b;
	auto t = TokenBucket::Clock::now();
	b.consume(1 << 30, t);
	EXPECT_EQ(b.wait_usec(t), 0u);
}

// 80 Mb/s = 10 bytes/us: a full burst goes at once, the deficit it leaves
// is paid back at the rate, and idle time refills only up to the burst.
TEST(TokenBucket, PacesAtItsRate)
{
	TokenBucket b;
	auto t = TokenBucket::Clock::now();
	b.set_rate(80, t);
	EXPECT_EQ(b.wait_usec(t), 0u);
	b.consume(100000, t); // burst 100000 bytes (10 ms at 80 Mb/s)
	EXPECT_EQ(b.wait_usec(t), 0u) << "exactly the burst: not in deficit";
	b.consume(5000, t);
	uint64_t w = b.wait_usec(t);
	EXPECT_GE(w, 500u);
	EXPECT_LE(w, 501u);
	EXPECT_EQ(b.wait_usec(t + us(w)), 0u);
	// A long idle time fills the bucket to its burst, no more.
	b.consume(0, t + us(10000000));
	b.consume(100000 + 10000, t + us(10000000));
	EXPECT_GE(b.wait_usec(t + us(10000000)), 999u);
}

TEST(TokenBucket, SmallRatesKeepAMinimumBurst)
{
	TokenBucket b;
	auto t = TokenBucket::Clock::now();
	b.set_rate(1, t); // 0.125 bytes/us
	b.consume(65536, t);
	EXPECT_EQ(b.wait_usec(t), 0u) << "64 KiB: one LSO send";
	b.consume(125, t);
	EXPECT_GE(b.wait_usec(t), 999u);
}

SchedElement tsar(uint32_t parent, uint32_t max = 0)
{
	SchedElement e;
	e.type = se::TYPE_TSAR;
	e.parent = parent;
	e.max_average_bw = max;
	return e;
}

SchedElement vport(uint16_t vp, uint32_t parent, uint32_t max)
{
	SchedElement e;
	e.type = se::TYPE_VPORT;
	e.vport = vp;
	e.parent = parent;
	e.max_average_bw = max;
	return e;
}

TEST(EswQos, VportRateIsTheLowestMaximumToTheRoot)
{
	EswQos q(2);
	uint32_t root = 0, node = 0, v1 = 0, v2 = 0, r = 0;
	ASSERT_EQ(q.create(tsar(0), 100, &root, &r), 0);
	ASSERT_EQ(q.create(tsar(root, 300), 100, &node, &r), 0);
	ASSERT_EQ(q.create(vport(1, node, 500), 100, &v1, &r), 0);
	ASSERT_EQ(q.create(vport(2, root, 0), 100, &v2, &r), 0);
	EXPECT_EQ(q.vport_rate(1), 300u) << "its TSAR's maximum is lower";
	EXPECT_EQ(q.vport_rate(2), 0u) << "no maximum on its path";
	EXPECT_EQ(q.vport_rate(0), 0u) << "no element";
	ASSERT_EQ(q.modify(v1, se::MODIFY_MAX_AVERAGE_BW, 0, 200, 100, &r), 0);
	EXPECT_EQ(q.vport_rate(1), 200u);
	ASSERT_EQ(q.modify(v1, se::MODIFY_BW_SHARE, 40, 999, 100, &r), 0);
	EXPECT_EQ(q.vport_rate(1), 200u) << "the bitmask said bw_share only";
	EXPECT_EQ(q.find(v1)->bw_share, 40u);

	auto now = TokenBucket::Clock::now();
	q.tx_sent(1, 1 << 20, now);
	EXPECT_GT(q.tx_wait_usec(1, now), 0u) << "vport 1 is paced";
	q.tx_sent(2, 1 << 20, now);
	EXPECT_EQ(q.tx_wait_usec(2, now), 0u);
	// Its element gone, the vport is no longer limited.
	ASSERT_EQ(q.destroy(v1, &r), 0);
	EXPECT_EQ(q.vport_rate(1), 0u);
	EXPECT_EQ(q.tx_wait_usec(1, now), 0u);
}

TEST(EswQos, Refusals)
{
	EswQos q(2);
	uint32_t root = 0, id = 0, r = 0;
	EXPECT_EQ(q.create(vport(1, 0, 10), 100, &id, &r), prm::status::BAD_PARAM) << "a vport under no TSAR";
	ASSERT_EQ(q.create(tsar(0), 100, &root, &r), 0);
	EXPECT_EQ(q.create(tsar(root + 7), 100, &id, &r), prm::status::BAD_PARAM) << "no such parent";
	SchedElement odd = tsar(0);
	odd.type = 3;
	EXPECT_EQ(q.create(odd, 100, &id, &r), prm::status::BAD_PARAM) << "an element type not advertised";
	EXPECT_EQ(q.create(vport(3, root, 10), 100, &id, &r), prm::status::BAD_PARAM) << "beyond the last VF";
	SchedElement greedy = vport(1, root, 10);
	greedy.bw_share = 101;
	EXPECT_EQ(q.create(greedy, 100, &id, &r), prm::status::BAD_PARAM) << "share above max_tsar_bw_share";
	ASSERT_EQ(q.create(vport(1, root, 10), 100, &id, &r), 0);
	EXPECT_EQ(q.create(vport(1, root, 20), 100, &id, &r), prm::status::BAD_PARAM) << "vport 1 has one";
	EXPECT_EQ(q.create(vport(2, id, 20), 100, &id, &r), prm::status::BAD_PARAM) << "a vport is no parent";
	EXPECT_EQ(q.modify(999, se::MODIFY_MAX_AVERAGE_BW, 0, 1, 100, &r), prm::status::BAD_PARAM);
	EXPECT_EQ(q.modify(root, 0x4, 0, 1, 100, &r), prm::status::BAD_PARAM) << "an unknown bitmask bit";
	EXPECT_EQ(q.destroy(root, &r), prm::status::BAD_RES_STATE) << "the root still has a child";
	EXPECT_EQ(q.destroy(999, &r), prm::status::BAD_PARAM);
	for (size_t i = q.elements().size(); i < EswQos::kMaxElements; ++i)
		ASSERT_EQ(q.create(tsar(root), 100, &id, &r), 0);
	EXPECT_EQ(q.create(tsar(root), 100, &id, &r), prm::status::NO_RESOURCES);
	q.clear();
	EXPECT_TRUE(q.elements().empty());
	EXPECT_EQ(q.vport_rate(1), 0u);
}

} // namespace
} // namespace mlx5emu::test
