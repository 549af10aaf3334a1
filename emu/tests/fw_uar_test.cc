// SPDX-License-Identifier: GPL-2.0
// Doorbell ownership: EQ, CQ and send doorbells count only through the UAR
// page named in the object's context; anything else is dropped and counted
// per function. Also: doorbells of one object rung faster than the engine
// runs fold into one queued task.
#include <algorithm>

#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

namespace op = prm::op;
constexpr uint64_t kCmdMask = 1ull << 0x0a;

bool has_line(const std::vector<std::string> &v, const std::string &l)
{
	return std::find(v.begin(), v.end(), l) != v.end();
}

// What a user reported: a process writes EQ doorbells (CI and arm) for
// eqn 0..7 through its own UAR page. The command EQ belongs to the
// kernel's UAR page: its consumer index and arm state must not move, and
// the next command still gets its EQE and interrupt.
TEST(FwUar, EqDoorbellsOfAnotherUarPageAreDropped)
{
	FwHarness h;
	h.bring_up();
	uint32_t kuar = h.alloc_uar(), user = h.alloc_uar();
	auto cmd = h.create_eq(5, kCmdMask, 0, kuar);
	h.eq_doorbell(cmd, 0, true);
	ASSERT_TRUE(h.idle());
	h.irq.clear();

	const unsigned n = 20000;
	for (unsigned i = 0; i < n; ++i) {
		uint32_t eqn = i % 8, ci = i * 7;
		h.wr32(user * 4096ull + (i & 1 ? 0x40 : 0x48), (ci & 0xffffff) | eqn << 24);
	}
	EXPECT_EQ(h.fw().doorbells_dropped().eq, n);
	EqSnapshot s;
	ASSERT_TRUE(h.fw().eqs.query(cmd.eqn, &s));
	EXPECT_EQ(s.consumer, 0u);
	EXPECT_TRUE(s.armed);
	EXPECT_FALSE(s.overrun);
	EXPECT_EQ(h.irq.count(), 0u) << "a foreign arm fired the EQ";

	for (uint32_t ci = 0; ci < 64; ++ci) { // twice around the 32-entry EQ
		h.ok(Msg(op::NOP, 0, 16), 16);
		ASSERT_TRUE(h.wait_eqe(cmd, ci)) << "command " << ci << " got no EQE";
		ASSERT_TRUE(h.irq.wait_for(ci + 1)) << "command " << ci << " raised no interrupt";
		h.eq_doorbell(cmd, ci + 1, true);
	}
	auto st = h.fw().stats_lines();
	EXPECT_TRUE(has_line(st, "doorbells_dropped_eq 20000"));
	EXPECT_TRUE(has_line(st, "eq_uar_mismatch " + std::to_string(n / 8)))
		<< "only eqn 0 exists: 1/8 of the writes name it";
}

TEST(FwUar, CqArmOnlyThroughTheCqsUarPage)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0);
	auto cq = a.create_cq(4);
	uint32_t own = a.uar;
	a.uar = a.h.alloc_uar();
	a.arm(cq, false);
	ASSERT_TRUE(a.settle());
	EXPECT_EQ(a.dp().res().cq(cq.cqn)->arm_state(), Cq::Arm::None);
	EXPECT_EQ(a.dp().counters().cq_doorbells_dropped.load(), 1u);
	EXPECT_EQ(a.h.fw().doorbells_dropped().cq, 1u);
	a.uar = own;
	a.arm(cq, false);
	ASSERT_TRUE(a.settle());
	EXPECT_EQ(a.dp().res().cq(cq.cqn)->arm_state(), Cq::Arm::All);
	EXPECT_TRUE(has_line(a.h.fw().stats_lines(), "doorbells_dropped_cq 1"));
}

TEST(FwUar, SendDoorbellOnlyThroughTheQpsUarPage)
{
	RcPair p;
	auto m = p.a.reg_mr(4096);
	auto r = p.b.reg_mr(4096);
	p.recv(r, 64);
	uint32_t own = p.a.uar, other = p.a.h.alloc_uar();
	p.a.uar = other;
	p.send(DpHca::send_wr(m, 64)); // rung through the wrong page
	ASSERT_TRUE(p.a.settle());
	EXPECT_TRUE(p.a.empty(p.acq));
	EXPECT_EQ(p.a.dp().counters().sq_doorbells_dropped.load(), 1u);
	// BlueFlame register of the other half, and 4-byte halves: dropped too.
	uint8_t ctrl[8];
	bits::store_be32(ctrl, 0u << 8 | OP_SEND);
	bits::store_be32(ctrl + 4, p.aqp.qpn << 8 | 2);
	p.a.ring_sq(p.aqp, ctrl, 0x100);
	uint32_t d0, d1;
	std::memcpy(&d0, ctrl, 4);
	std::memcpy(&d1, ctrl + 4, 4);
	p.a.h.hca->bar_write(other * 4096ull + 0x800, 4, d0);
	p.a.h.hca->bar_write(other * 4096ull + 0x804, 4, d1);
	ASSERT_TRUE(p.a.settle());
	EXPECT_TRUE(p.a.empty(p.acq));
	EXPECT_EQ(p.a.h.fw().doorbells_dropped().sq, 3u);
	EXPECT_TRUE(has_line(p.a.h.fw().stats_lines(), "doorbells_dropped_sq 3"));
	// The owner's doorbell moves it.
	p.a.uar = own;
	p.a.ring_sq(p.aqp, ctrl);
	Cqe req, resp;
	ASSERT_TRUE(poll_both(p.a, p.acq, &req, p.b, p.bcq, &resp));
	EXPECT_EQ(resp.byte_cnt, 64u);
}

TEST(FwUar, DoorbellsOfADestroyedQpAreDropped)
{
	std::shared_ptr<Fabric> f = std::make_shared<Fabric>();
	DpHca a(f, 0);
	auto cq = a.create_cq(4);
	auto q = a.create_qp(ST_RC, cq, cq);
	uint32_t qpn = q.qpn;
	a.h.ok(Msg(0x501, 0, 16).set({2, 23, 0}, qpn), 16);
	a.h.ok(Msg(0x401, 0, 16).set({2, 23, 0}, cq.cqn), 16);
	uint8_t ctrl[8];
	bits::store_be32(ctrl, OP_SEND);
	bits::store_be32(ctrl + 4, qpn << 8 | 2);
	a.ring_sq(q, ctrl);
	a.arm(cq, false);
	EXPECT_EQ(a.h.fw().doorbells_dropped().sq, 1u);
	EXPECT_EQ(a.h.fw().doorbells_dropped().cq, 1u);
}

// While the engine is busy, 1000 doorbells of one QP queue one task; it
// runs with the latest producer index.
TEST(FwUar, DoorbellsOfOneObjectFoldIntoOneTask)
{
	RcPair p;
	auto m = p.a.reg_mr(4096);
	auto r = p.b.reg_mr(4096);
	for (int i = 0; i < 8; ++i)
		p.recv(r, 64);
	uint64_t tasks0;
	{
		auto lk = p.a.dp().lock(); // the engine cannot run a task now
		tasks0 = p.fabric->engine().counters().tasks;
		for (int i = 0; i < 8; ++i)
			p.send(DpHca::send_wr(m, 64));
		uint8_t ctrl[8];
		bits::store_be32(ctrl, 7u << 8 | OP_SEND);
		bits::store_be32(ctrl + 4, p.aqp.qpn << 8 | 2);
		for (int i = 0; i < 992; ++i)
			p.a.ring_sq(p.aqp, ctrl);
	}
	EXPECT_EQ(p.a.dp().counters().doorbells_merged.load(), 999u);
	for (int i = 0; i < 8; ++i) {
		Cqe req, resp;
		ASSERT_TRUE(poll_both(p.a, p.acq, &req, p.b, p.bcq, &resp)) << i;
		EXPECT_EQ(req.wqe_counter, i);
	}
	ASSERT_TRUE(p.a.settle());
	// One doorbell task, then about a packet and an ACK per message;
	// not one task per doorbell.
	EXPECT_LT(p.fabric->engine().counters().tasks - tasks0, 100u);
}

} // namespace
} // namespace mlx5emu::test
