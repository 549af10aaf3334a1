// SPDX-License-Identifier: GPL-2.0
// A device that misbehaves on purpose, from the control channel: CQEs
// written twice (hca N cqe-repeat), CQEs with a wrong WQE counter, byte
// count or QPN (hca N cqe-corrupt), ALLOC_MEMIC answering an address the
// software did not ask for (hca N memic-addr-bogus).
#include "ctl/ctl_commands.h"
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

bool contains(const std::string &s, const std::string &what) { return s.find(what) != std::string::npos; }

struct Misbehave : RcPair {
	std::vector<Hca *> hcas{a.h.hca.get(), b.h.hca.get()};
	DpHca::Mr src = a.reg_mr(4096), dst = b.reg_mr(4096);

	std::string ask(const std::string &l) { return execute_control_command(hcas, l); }
	// One SEND of `len` bytes; the CQEs on both sides.
	void send_one(uint32_t len, Cqe *req, Cqe *resp)
	{
		recv(dst, 64);
		ASSERT_TRUE(send_and_poll(src, len, req, resp));
	}
};

TEST(CtlMisbehave, CqeRepeatWritesTheReceiveCqeTwice)
{
	Misbehave m;
	EXPECT_EQ(m.ask("hca 1 cqe-repeat 1 recv"), "ok\n");
	EXPECT_TRUE(contains(m.ask("hca 1 faults"), "cqe-repeat recv remaining=1")) << m.ask("hca 1 faults");
	Cqe req, resp, dup;
	m.send_one(8, &req, &resp);
	ASSERT_TRUE(m.b.poll(m.bcq, &dup)) << "no second copy";
	EXPECT_EQ(dup.opcode, resp.opcode);
	EXPECT_EQ(dup.wqe_counter, resp.wqe_counter);
	EXPECT_EQ(dup.qpn, resp.qpn);
	EXPECT_EQ(dup.byte_cnt, 8u);
	EXPECT_TRUE(m.a.empty(m.acq)) << "the send CQE was not asked for";
	EXPECT_TRUE(m.b.empty(m.bcq));
	EXPECT_FALSE(contains(m.ask("hca 1 faults"), "cqe-repeat"));

	// Spent: the next SEND completes once on each side.
	m.send_one(8, &req, &resp);
	EXPECT_TRUE(m.b.empty(m.bcq));
}

TEST(CtlMisbehave, CqeCorruptSetsOneFieldOfTheNextCqes)
{
	Misbehave m;
	Cqe req, resp;
	EXPECT_EQ(m.ask("hca 1 cqe-corrupt qpn 0x123 1 recv"), "ok\n");
	m.send_one(8, &req, &resp);
	EXPECT_EQ(resp.qpn, 0x123u);
	EXPECT_EQ(req.qpn, m.aqp.qpn) << "hca 0 untouched";

	EXPECT_EQ(m.ask("hca 1 cqe-corrupt wqe_counter 0x4242"), "ok\n");
	m.send_one(16, &req, &resp);
	EXPECT_EQ(resp.wqe_counter, 0x4242);
	EXPECT_EQ(resp.qpn, m.bqp.qpn) << "one field only";

	EXPECT_EQ(m.ask("hca 0 cqe-corrupt byte_cnt 100000 2 send"), "ok\n");
	m.send_one(24, &req, &resp);
	EXPECT_EQ(req.byte_cnt, 100000u);
	EXPECT_EQ(resp.byte_cnt, 24u);
	EXPECT_EQ(m.ask("hca 0 cqe-corrupt byte_cnt 1 0"), "ok\n") << "count 0 clears";
	m.send_one(24, &req, &resp);
	EXPECT_NE(req.byte_cnt, 100000u);
	EXPECT_EQ(resp.qpn, m.bqp.qpn);
}

TEST(CtlMisbehave, ClearFaultsDisarmsTheCqeFaults)
{
	Misbehave m;
	EXPECT_EQ(m.ask("hca 1 cqe-repeat 5"), "ok\n");
	EXPECT_EQ(m.ask("hca 1 cqe-corrupt qpn 7 5"), "ok\n");
	EXPECT_EQ(m.ask("hca 1 clear-faults"), "ok\n");
	Cqe req, resp;
	m.send_one(8, &req, &resp);
	EXPECT_EQ(resp.qpn, m.bqp.qpn);
	EXPECT_TRUE(m.b.empty(m.bcq));
}

TEST(CtlMisbehave, MalformedCqeCommandsAreRefused)
{
	Misbehave m;
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-corrupt opcode 1"), "error: cqe-corrupt: FIELD"));
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-corrupt wqe_counter 0x10000"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-corrupt qpn 0x1000000"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-corrupt qpn 1 x"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-corrupt qpn 1 2 both"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-repeat recv 2"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 cqe-repeat -1"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 memic-addr-bogus sideways"), "error"));
	EXPECT_TRUE(contains(m.ask("hca 0 memic-addr-bogus 1 outside"), "error"));
	EXPECT_EQ(m.ask("hca 0 faults"), "hca 0 faults\n.\n") << "nothing armed by the refused commands";
	EXPECT_TRUE(contains(m.ask("help"), "cqe-corrupt FIELD VALUE"));
}

constexpr uint16_t kAllocMemic = 0x205, kDeallocMemic = 0x206;

Msg alloc_msg(uint64_t start, uint32_t range, uint32_t size)
{
	return Msg(kAllocMemic, 0, 32).be64(0x10, start).set({6, 31, 0}, range).set({7, 31, 0}, size);
}

Msg dealloc_msg(uint64_t addr, uint32_t size) { return Msg(kDeallocMemic, 0, 32).be64(0x10, addr).set({6, 31, 0}, size); }

TEST(CtlMisbehave, MemicAddrBogusAnswersOutsideOrOffTheGranule)
{
	FwHarness h;
	h.bring_up();
	std::vector<Hca *> hcas{h.hca.get()};
	auto ask = [&](const std::string &l) { return execute_control_command(hcas, l); };
	const uint64_t window = h.fw().memic->bar_offset(), end = window + h.fw().memic->size();
	auto alloc = [&] { return bits::load_be64(h.ok(alloc_msg(window, 4096, 64), 16).data() + 8); };

	EXPECT_EQ(ask("hca 0 memic-addr-bogus"), "ok\n");
	EXPECT_TRUE(contains(ask("hca 0 faults"), "memic-addr-bogus outside remaining=1"));
	EXPECT_EQ(alloc(), end);
	EXPECT_EQ(h.fw().memic->allocations(), 0u) << "the allocation is undone";
	h.ok(dealloc_msg(end, 64), 16);
	h.fails(dealloc_msg(end, 64), 16, prm::status::BAD_PARAM); // freed once

	EXPECT_EQ(ask("hca 0 memic-addr-bogus unaligned 2"), "ok\n");
	EXPECT_EQ(alloc(), window + 8);
	EXPECT_EQ(alloc(), window + 8) << "the page was free again";
	h.ok(dealloc_msg(window + 8, 64), 16);
	h.ok(dealloc_msg(window + 8, 64), 16);
	EXPECT_EQ(alloc(), window) << "spent: a true answer";
	EXPECT_EQ(h.fw().memic->allocations(), 1u);
	h.ok(dealloc_msg(window, 64), 16);
}

TEST(CtlMisbehave, MemicAddrBogusNeedsDeviceMemory)
{
	HcaConfig cfg;
	cfg.memic_size = 0;
	FwHarness h(cfg);
	std::vector<Hca *> hcas{h.hca.get()};
	EXPECT_TRUE(contains(execute_control_command(hcas, "hca 0 memic-addr-bogus"), "error: memic-addr-bogus"));
}

} // namespace
} // namespace mlx5emu::test
