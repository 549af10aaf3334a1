// SPDX-License-Identifier: GPL-2.0
// Event queues: creation, EQE owner parity, arming, re-fire, overrun, and
// command completions through the command EQ.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "fw_harness.h"

namespace mlx5emu::test {
namespace {

namespace op = prm::op;
constexpr uint64_t kCmdMask = 1ull << 0x0a;

class FwEq : public ::testing::Test {
protected:
	void SetUp() override
	{
		h.bring_up();
		uar = h.alloc_uar();
	}
	FwHarness h;
	uint32_t uar = 0;
};

TEST_F(FwEq, CreateValidation)
{
	uint64_t buf;
	h.fails(h.create_eq_msg(7, 0, 2, uar + 1, &buf), 16, 0x03);           // UAR not allocated
	h.fails(h.create_eq_msg(7, 0, 64, uar, &buf), 16, 0x03);              // intr >= MSI-X vectors
	h.fails(h.create_eq_msg(7, 0, 0, uar, &buf).set({4 + 3, 28, 24}, 23), 16, 0x03); // > log_max_eq_sz
	Msg m = h.create_eq_msg(8, 0, 0, uar, &buf);                          // 16 KiB: 4 pages
	m.b.resize(0x110 + 8 * 2);                                            // only 2 pas
	h.fails(m, 16, 0x50);
	Msg unaligned = h.create_eq_msg(7, 0, 0, uar, &buf);
	unaligned.be64(0x110, buf + 64);
	h.fails(unaligned, 16, 0x03);
	EXPECT_EQ(h.fw().eqs.count(), 0u);
}

TEST_F(FwEq, CreateQueryDestroy)
{
	auto eq = h.create_eq(7, 1ull << 4, 3, uar);
	auto out = h.ok(Msg(op::QUERY_EQ, 0, 16).set({2, 7, 0}, eq.eqn), 0x110 + 8 * 2);
	EXPECT_EQ(field(out, prm::eqc::log_eq_size.at(0x10)), 7u);
	EXPECT_EQ(field(out, prm::eqc::uar_page.at(0x10)), uar);
	EXPECT_EQ(field(out, prm::eqc::intr.at(0x10)), 3u);
	EXPECT_EQ(field(out, prm::eqc::st.at(0x10)), 0xau) << "not armed yet";
	EXPECT_EQ(be64_at(out, 0x58), 1ull << 4);
	EXPECT_EQ(be64_at(out, 0x110), eq.buf);
	h.eq_doorbell(eq, 0, true);
	out = h.ok(Msg(op::QUERY_EQ, 0, 16).set({2, 7, 0}, eq.eqn), 0x110);
	EXPECT_EQ(field(out, prm::eqc::st.at(0x10)), 0x9u) << "armed";
	h.ok(Msg(op::DESTROY_EQ, 0, 16).set({2, 7, 0}, eq.eqn), 16);
	h.fails(Msg(op::DESTROY_EQ, 0, 16).set({2, 7, 0}, eq.eqn), 16, 0x05);
	h.fails(Msg(op::QUERY_EQ, 0, 16).set({2, 7, 0}, eq.eqn), 0x110, 0x05);
}

TEST_F(FwEq, OwnerParityWrapsOverSeveralPasses)
{
	auto eq = h.create_eq(2, 1ull << 4, 1, uar); // 4 entries
	uint32_t ci = 0;
	for (uint32_t i = 0; i < 3 * eq.nent() + 1; ++i) {
		h.gen_eqe(eq.eqn, 4, i);
		ASSERT_TRUE(h.wait_eqe(eq, ci)) << "EQE " << i;
		auto e = h.eqe(eq, ci);
		EXPECT_EQ(e[63] & 1, (ci >> eq.log_size) & 1) << "owner on pass " << (ci >> eq.log_size);
		EXPECT_EQ(e[1], 4);
		EXPECT_EQ(bits::load_be32(e.data() + 0x20), i);
		++ci;
		EXPECT_FALSE(h.eqe_ready(eq, ci)) << "next entry must still belong to hardware";
		h.eq_doorbell(eq, ci, false);
	}
}

TEST_F(FwEq, ArmFireAndRefire)
{
	auto eq = h.create_eq(4, 1ull << 4, 5, uar);
	h.gen_eqe(eq.eqn, 4);
	EXPECT_EQ(h.irq.count(), 0u) << "not armed: no interrupt";
	h.eq_doorbell(eq, 0, true); // entries beyond CI exist: fire now
	EXPECT_EQ(h.irq.count(5), 1u);
	h.gen_eqe(eq.eqn, 4);
	EXPECT_EQ(h.irq.count(5), 1u) << "fired: no interrupt until re-armed";
	h.eq_doorbell(eq, 2, true); // consumed both: arm, no fire
	EXPECT_EQ(h.irq.count(5), 1u);
	h.gen_eqe(eq.eqn, 4);
	EXPECT_EQ(h.irq.count(5), 2u) << "armed EQ interrupts on the next EQE";
	h.eq_doorbell(eq, 3, false); // CI only: stays fired
	h.gen_eqe(eq.eqn, 4);
	EXPECT_EQ(h.irq.count(5), 2u);
	h.eq_doorbell(eq, 3, true); // one entry beyond CI: fire
	EXPECT_EQ(h.irq.count(5), 3u);
}

// A driver that consumes an EQE and re-arms the moment it sees it: the arm
// doorbell must find the EQ's producer past that EQE, or it fires for an
// entry already read, disarms the EQ, and the next EQE raises nothing.
// The doorbell is written from another thread just as the owner byte
// lands (the test waits up to 50 ms for it to get through).
TEST_F(FwEq, ArmAsTheEqeLandsLosesNoInterrupt)
{
	auto eq = h.create_eq(4, 1ull << 4, 5, uar);
	h.eq_doorbell(eq, 0, true);
	std::thread driver;
	std::mutex m;
	std::condition_variable cv;
	bool armed = false, hooked = false;
	const uint64_t owner0 = eq.buf + 63;
	h.mem.before_write([&](uint64_t iova, size_t len) {
		if (iova != owner0 || len != 1 || hooked)
			return;
		hooked = true;
		driver = std::thread([&] {
			h.eq_doorbell(eq, 1, true); // consumed EQE 0, arm
			std::lock_guard<std::mutex> g(m);
			armed = true;
			cv.notify_all();
		});
		std::unique_lock<std::mutex> g(m);
		cv.wait_for(g, std::chrono::milliseconds(50), [&] { return armed; });
	});
	h.gen_eqe(eq.eqn, 4, 1);
	ASSERT_TRUE(h.wait_eqe(eq, 0));
	ASSERT_TRUE(hooked);
	driver.join();
	ASSERT_TRUE(h.irq.wait_for_vector(5, 1));
	h.gen_eqe(eq.eqn, 4, 2);
	ASSERT_TRUE(h.wait_eqe(eq, 1));
	EXPECT_TRUE(h.irq.wait_for_vector(5, 2))
		<< "the EQ was armed past EQE 0, yet EQE 1 raised no interrupt";
	EqSnapshot s;
	ASSERT_TRUE(h.fw().eqs.query(eq.eqn, &s));
	EXPECT_EQ(s.producer, 2u);
}

TEST_F(FwEq, OverrunStopsWriting)
{
	auto eq = h.create_eq(2, 1ull << 4, 1, uar);
	for (int i = 0; i < 4; ++i)
		h.gen_eqe(eq.eqn, 4, static_cast<uint32_t>(i));
	h.gen_eqe(eq.eqn, 4, 99); // fifth without consuming: overrun
	EqSnapshot s;
	ASSERT_TRUE(h.fw().eqs.query(eq.eqn, &s));
	EXPECT_TRUE(s.overrun);
	EXPECT_EQ(s.producer, 4u);
	EXPECT_EQ(s.dropped, 1u);
	EXPECT_EQ(bits::load_be32(h.eqe(eq, 0).data() + 0x20), 0u) << "entry 0 not overwritten";
	EXPECT_EQ(h.fw().eqs.counters().overruns, 1u);
	auto out = h.ok(Msg(op::QUERY_EQ, 0, 16).set({2, 7, 0}, eq.eqn), 0x110);
	EXPECT_EQ(field(out, prm::eqc::status.at(0x10)), 0x9u);
}

TEST_F(FwEq, GenEqeNeedsAnExistingEq)
{
	Msg m(op::GEN_EQE, 0, 80);
	m.set({2, 7, 0}, 9);
	h.fails(m, 16, 0x05);
	h.fails(Msg(op::GEN_EQE, 0, 40), 16, 0x50);
}

TEST_F(FwEq, DoorbellForUnknownEqIsCounted)
{
	h.wr32(uar * 4096ull + 0x40, 0x37000000);
	EXPECT_EQ(h.fw().eqs.counters().bad_doorbells, 1u);
}

TEST_F(FwEq, CommandCompletionsPostCmdEqes)
{
	h.irq.clear();
	// The CREATE_EQ of the command EQ itself gets no EQE.
	auto cq = h.create_eq(5, kCmdMask, 0, uar);
	h.eq_doorbell(cq, 0, true);
	ASSERT_TRUE(h.idle());
	EXPECT_FALSE(h.eqe_ready(cq, 0));
	EXPECT_EQ(h.irq.count(), 0u);

	// Every later command: EQE type 0x0A with the slot mask, MSI-X 0.
	auto p = h.prepare(4, Msg(op::NOP, 0, 16).b, 16);
	h.ring(1u << 4);
	ASSERT_TRUE(h.wait(p));
	ASSERT_TRUE(h.wait_eqe(cq, 0));
	auto e = h.eqe(cq, 0);
	EXPECT_EQ(e[1], 0x0a);
	EXPECT_EQ(bits::load_be32(e.data() + 0x20), 1u << 4);
	ASSERT_TRUE(h.irq.wait_for(1));
	EXPECT_EQ(h.irq.raised()[0], 0u);

	// Several slots at once: one EQE per completed slot.
	auto p1 = h.prepare(1, Msg(op::NOP, 0, 16).b, 16);
	auto p2 = h.prepare(2, Msg(op::NOP, 0, 16).b, 16);
	h.eq_doorbell(cq, 1, true);
	h.ring(1u << 1 | 1u << 2);
	ASSERT_TRUE(h.wait_eqe(cq, 2));
	uint32_t mask = bits::load_be32(h.eqe(cq, 1).data() + 0x20) | bits::load_be32(h.eqe(cq, 2).data() + 0x20);
	EXPECT_EQ(mask, 1u << 1 | 1u << 2);
	EXPECT_TRUE(h.wait(p1) && h.wait(p2));

	// Destroying the command EQ: that command completes by polling only.
	h.ok(Msg(op::DESTROY_EQ, 0, 16).set({2, 7, 0}, cq.eqn), 16);
	ASSERT_TRUE(h.idle());
	EXPECT_FALSE(h.eqe_ready(cq, 4));
}

TEST_F(FwEq, DropAndDelayEqeFaults)
{
	auto cq = h.create_eq(5, kCmdMask, 0, uar);
	h.fw().faults.drop_eqe(0x0a, 1);
	h.ok(Msg(op::NOP, 0, 16), 16);
	ASSERT_TRUE(h.idle());
	EXPECT_FALSE(h.eqe_ready(cq, 0)) << "dropped";
	h.fw().faults.delay_eqe(0x0a, 100);
	auto t0 = std::chrono::steady_clock::now();
	h.ok(Msg(op::NOP, 0, 16), 16); // completes by polling at once
	ASSERT_TRUE(h.wait_eqe(cq, 0));
	EXPECT_GE(std::chrono::steady_clock::now() - t0, 90ms);
}

// Per-opcode command-EQE faults hit only their opcode; the trace says what
// became of each command's EQE.
TEST_F(FwEq, DropAndDelayCmdEqeOfOneOpcode)
{
	using Eqe = TraceEntry::Eqe;
	h.ok(Msg(op::NOP, 0, 16), 16); // no command EQ yet: owes no EQE
	auto cq = h.create_eq(5, kCmdMask, 0, uar);
	h.fw().faults.drop_cmd_eqe(op::NOP, 1);
	h.fw().trace_clear();
	h.ok(Msg(op::QUERY_EQ, 0, 16).set({2, 7, 0}, cq.eqn), 0x110); // not NOP: posted
	ASSERT_TRUE(h.wait_eqe(cq, 0));
	h.ok(Msg(op::NOP, 0, 16), 16); // its EQE lost
	ASSERT_TRUE(h.idle());
	EXPECT_FALSE(h.eqe_ready(cq, 1)) << "dropped";
	h.ok(Msg(op::NOP, 0, 16), 16); // the drop was used up
	ASSERT_TRUE(h.wait_eqe(cq, 1));

	h.fw().faults.delay_cmd_eqe(op::NOP, 100);
	auto t0 = std::chrono::steady_clock::now();
	h.ok(Msg(op::NOP, 0, 16), 16); // completes at once, its EQE later
	// Not there yet, if looked at within the hold: a thread held up past
	// it (a loaded host) rightly finds the EQE.
	bool early = h.eqe_ready(cq, 2);
	if (std::chrono::steady_clock::now() - t0 < 100ms) {
		EXPECT_FALSE(early) << "the EQE came before its delay";
	}
	ASSERT_TRUE(h.wait_eqe(cq, 2));
	EXPECT_GE(std::chrono::steady_clock::now() - t0, 90ms);
	h.fw().faults.delay_cmd_eqe(op::NOP, 0);
	EXPECT_TRUE(h.fw().faults.describe().empty());

	auto t = h.fw().trace_entries();
	ASSERT_EQ(t.size(), 4u);
	EXPECT_EQ(t[0].eqe, Eqe::Posted);
	EXPECT_EQ(t[1].eqe, Eqe::Dropped);
	EXPECT_EQ(t[2].eqe, Eqe::Posted);
	EXPECT_EQ(t[3].eqe, Eqe::Delayed);
	EXPECT_NE(CommandTrace::format(t[1]).find(" eqe=dropped"), std::string::npos);
}

// A held command EQE whose EQ was destroyed meanwhile is not posted into
// the EQ created after it.
TEST_F(FwEq, DelayedCmdEqeOutlivingItsEqIsNotPosted)
{
	auto cq = h.create_eq(5, kCmdMask, 0, uar);
	h.fw().faults.delay_cmd_eqe(op::NOP, 100);
	h.ok(Msg(op::NOP, 0, 16), 16);
	h.ok(Msg(op::DESTROY_EQ, 0, 16).set({2, 7, 0}, cq.eqn), 16);
	auto again = h.create_eq(5, 0, 0, uar);
	std::this_thread::sleep_for(200ms); // past the hold: an absence, nothing to poll for
	EXPECT_FALSE(h.eqe_ready(again, 0));
}

TEST_F(FwEq, TeardownDropsRemainingEqsAndUars)
{
	h.create_eq(3, 0, 0, uar);
	h.ok(Msg(op::TEARDOWN_HCA, 0, 16), 16);
	EXPECT_EQ(h.fw().eqs.count(), 0u);
	std::lock_guard<std::mutex> lk(h.fw().mu);
	EXPECT_TRUE(h.fw().uars.empty());
}

TEST_F(FwEq, EqTableLimit)
{
	// log_max_eq = 6: 64 EQs.
	for (int i = 0; i < 64; ++i)
		h.create_eq(0, 0, 0, uar);
	uint64_t buf;
	h.fails(h.create_eq_msg(0, 0, 0, uar, &buf), 16, 0x0f);
}

} // namespace
} // namespace mlx5emu::test
