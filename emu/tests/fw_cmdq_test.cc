// SPDX-License-Identifier: GPL-2.0
// Command transport: entries, mailbox chains, delivery status, doorbells.
#include "fw_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint16_t kNop = 0x80d;

TEST(FwCmdq, NopRoundTrip)
{
	FwHarness h;
	auto p = h.prepare(0, Msg(kNop, 0, 16).b, 16);
	h.ring(1);
	ASSERT_TRUE(h.wait(p));
	auto r = h.collect(p);
	EXPECT_EQ(r.delivery, 0);
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(h.mem.byte(p.entry + 0x3f), 0u) << "status_own: delivery 0, owner software";
}

TEST(FwCmdq, UnknownOpcodeIsBadOperation)
{
	FwHarness h;
	auto r = h.exec(Msg(0x7ff, 0, 16).b, 16);
	ASSERT_TRUE(r.done);
	EXPECT_EQ(r.delivery, 0);
	EXPECT_EQ(r.status, 0x02);
	EXPECT_NE(r.syndrome, 0u);
}

TEST(FwCmdq, BadDescriptorType)
{
	FwHarness h;
	FwHarness::Options o;
	o.type = 3;
	auto r = h.exec(Msg(kNop, 0, 16).b, 16, 0, o);
	ASSERT_TRUE(r.done);
	EXPECT_EQ(r.delivery, 0x10);
}

TEST(FwCmdq, LengthErrors)
{
	FwHarness h;
	std::vector<uint8_t> tiny(4, 0);
	auto r = h.exec(tiny, 16);
	ASSERT_TRUE(r.done);
	EXPECT_EQ(r.delivery, 0x7);
	r = h.exec(Msg(kNop, 0, 16).b, 4);
	ASSERT_TRUE(r.done);
	EXPECT_EQ(r.delivery, 0x8);
}

TEST(FwCmdq, InputMailboxErrors)
{
	FwHarness h;
	h.enable();
	Msg set_cap(0x109, 0, 4112); // 8 input blocks
	FwHarness::Options o;

	o = {};
	o.bad_token_block = 3;
	EXPECT_EQ(h.exec(set_cap.b, 16, 0, o).delivery, 0x2) << "token";
	o = {};
	o.bad_blocknum_block = 5;
	EXPECT_EQ(h.exec(set_cap.b, 16, 0, o).delivery, 0x3) << "block number";
	o = {};
	o.misalign_in = true;
	EXPECT_EQ(h.exec(set_cap.b, 16, 0, o).delivery, 0x5) << "input pointer alignment";
	o = {};
	o.in_blocks = 4;
	EXPECT_EQ(h.exec(set_cap.b, 16, 0, o).delivery, 0x3) << "chain too short";
}

TEST(FwCmdq, OutputMailboxErrors)
{
	FwHarness h;
	h.enable();
	Msg q(0x100, 1, 16);
	FwHarness::Options o;
	o.misalign_out = true;
	EXPECT_EQ(h.exec(q.b, 4112, 0, o).delivery, 0x4);
	o = {};
	o.bad_out_token_block = 2;
	EXPECT_EQ(h.exec(q.b, 4112, 0, o).delivery, 0x2);
}

TEST(FwCmdq, LongerCachedChainIsAccepted)
{
	// The driver reuses cached messages with more blocks than needed; the
	// spare blocks carry stale tokens and must be ignored.
	FwHarness h;
	h.enable();
	FwHarness::Options o;
	o.extra_in_blocks = 8;
	Msg m(0x109, 0, 4112);
	m.set({4 + 4, 4, 0}, 12); // log_max_qp
	auto r = h.exec(m.b, 16, 0, o);
	EXPECT_EQ(r.delivery, 0);
	EXPECT_EQ(r.status, 0);
}

TEST(FwCmdq, LongestChainIsAcceptedOneByteMoreIsNot)
{
	// Page lists of large CQs and MRs need long chains: the whole
	// kMaxMsgLen (32768 mailboxes) is read, one byte more is a length error
	// before any mailbox is touched.
	FwHarness h;
	auto r = h.exec(Msg(kNop, 0, CommandEngine::kMaxMsgLen).b, 16);
	ASSERT_TRUE(r.done);
	EXPECT_EQ(r.delivery, 0);
	EXPECT_EQ(r.status, 0);
	FwHarness::Options o;
	o.in_blocks = 0;
	r = h.exec(Msg(kNop, 0, CommandEngine::kMaxMsgLen + 1).b, 16, 0, o);
	ASSERT_TRUE(r.done);
	EXPECT_EQ(r.delivery, 0x7);
}

TEST(FwCmdq, QueryHcaCapSpansEightOutputBlocks)
{
	FwHarness h;
	h.enable();
	auto out = h.ok(Msg(0x100, 1, 16), 4112);
	ASSERT_EQ(out.size(), 4112u);
	// Capability block at 0x10; fields in blocks 0 (num_ports) and 7 (last
	// byte of the capability area stays zero but must be transferred).
	EXPECT_EQ(field(out, bits::Field{4 + 0xd, 7, 0}), 1u) << "num_ports";
	EXPECT_EQ(field(out, bits::Field{4 + 0x7, 3, 0}), 6u) << "log_max_eq";
}

TEST(FwCmdq, SoftwareOwnedEntryIsNotExecuted)
{
	FwHarness h;
	FwHarness::Options o;
	o.owner = 0;
	auto p = h.prepare(0, Msg(kNop, 0, 16).b, 16, o);
	h.ring(1);
	ASSERT_TRUE(h.idle());
	EXPECT_EQ(h.mem.byte(p.entry + 0x3f), 0u);
	EXPECT_EQ(h.fw().trace_entries().size(), 0u);
}

TEST(FwCmdq, SeveralDoorbellBitsAtOnce)
{
	FwHarness h;
	std::vector<FwHarness::Pending> ps;
	for (unsigned s : {0u, 3u, 7u, 30u, 31u})
		ps.push_back(h.prepare(s, Msg(kNop, 0, 16).b, 16));
	h.ring(1u << 0 | 1u << 3 | 1u << 7 | 1u << 30 | 1u << 31);
	for (auto &p : ps) {
		ASSERT_TRUE(h.wait(p)) << "slot " << p.slot;
		EXPECT_EQ(h.collect(p).status, 0);
	}
	EXPECT_EQ(h.fw().trace_entries().size(), 5u);
}

TEST(FwCmdq, CommandsBeforeEnableAreRejected)
{
	FwHarness h;
	h.fails(Msg(0x10a, 0, 16), 112, 0x04); // QUERY_ISSI: bad system state
	h.fails(Msg(0x802, 0, 16), 16, 0x04);  // ALLOC_UAR
}

TEST(FwCmdq, ShortCommandLengthsAreReported)
{
	FwHarness h;
	h.enable();
	h.fails(Msg(0x10a, 0, 16), 16, 0x51);   // QUERY_ISSI needs 112 output bytes
	h.fails(Msg(0x109, 0, 100), 16, 0x50);  // SET_HCA_CAP needs the whole capability
}

TEST(FwCmdq, TraceRecordsEachCommand)
{
	FwHarness h;
	h.enable();
	h.exec(Msg(0x7ff, 0, 16).b, 16);
	auto t = h.fw().trace_entries();
	ASSERT_EQ(t.size(), 2u);
	EXPECT_EQ(t[0].opcode, 0x104);
	EXPECT_EQ(t[0].status, 0);
	EXPECT_EQ(t[1].opcode, 0x7ff);
	EXPECT_EQ(t[1].status, 0x02);
	EXPECT_NE(CommandTrace::format(t[0]).find("ENABLE_HCA"), std::string::npos);
}

// A command is in the trace and the opcode statistics by the time its
// entry is back with software: a control-channel client reads them right
// after its command completes (a CI run under ASan once read them first).
// Checked just before the device's write of the entry's ownership byte.
TEST(FwCmdq, CommandIsRecordedWhenItsEntryReturns)
{
	std::atomic<uint64_t> status_own{0};
	std::atomic<int> in_trace{-1};
	std::atomic<uint64_t> counted{0};
	FwHarness h;
	h.mem.before_write([&](uint64_t iova, size_t len) {
		if (iova != status_own.load() || len != 1)
			return;
		auto t = h.fw().trace_entries();
		in_trace = !t.empty() && t.back().opcode == 0x7ff;
		counted = h.fw().opstats.snapshot()[0x7ff].total;
	});
	h.enable();
	auto p = h.prepare(0, Msg(0x7ff, 0, 16).b, 16);
	status_own = p.entry + FwHarness::kEntStatusOwn;
	h.ring(1);
	ASSERT_TRUE(h.wait(p));
	EXPECT_EQ(in_trace.load(), 1) << "the entry returned before the trace held the command";
	EXPECT_EQ(counted.load(), 1u) << "the entry returned before the command was counted";
	EXPECT_EQ(h.collect(p).status, 0x02);
}

TEST(FwCmdq, TraceTimesEachCommandFromTheLastClear)
{
	FwHarness h;
	h.enable();
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	h.exec(Msg(0x7ff, 0, 16).b, 16);
	auto t = h.fw().trace_entries();
	ASSERT_EQ(t.size(), 2u);
	EXPECT_GE(t[1].at_usec, t[0].at_usec + 20000);
	EXPECT_NE(CommandTrace::format(t[1]).find(" at="), std::string::npos);
	// Timed from the clear: within what clear and command took here
	// (from the first command it would be past the 20 ms slept).
	const auto c0 = std::chrono::steady_clock::now();
	h.fw().trace_clear();
	h.exec(Msg(0x7ff, 0, 16).b, 16);
	const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - c0);
	t = h.fw().trace_entries();
	ASSERT_EQ(t.size(), 1u);
	EXPECT_LE(t[0].at_usec, static_cast<uint64_t>(took.count()));
}

TEST(FwCmdq, UnmappedMailboxIsAnInternalError)
{
	FwHarness h;
	h.enable();
	std::vector<uint8_t> in = Msg(0x109, 0, 4112).b;
	auto p = h.prepare(0, in, 16);
	// Point the input chain outside guest memory.
	uint8_t bad[8];
	bits::store_be64(bad, 0x4000);
	h.mem.write(p.entry + 0x08, bad, 8);
	h.ring(1);
	ASSERT_TRUE(h.wait(p));
	EXPECT_EQ(h.collect(p).delivery, 0x6);
}

} // namespace
} // namespace mlx5emu::test
