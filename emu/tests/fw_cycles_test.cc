// SPDX-License-Identifier: GPL-2.0
// The driver's probe/remove cycle, repeated on one HCA as the emulator
// process lives through a guest's module reloads (probe_cycles_test.sh):
// load, a CQ, an MR and an RC QP that sends, everything destroyed, unload,
// function reset. Every cycle leaves the firmware's tables empty, and the
// heap the emulator holds stops growing once the first cycles are done
// (the command trace's ring, cleared here, is bounded on its own).
#include <malloc.h>

#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPlainMalloc = false;
#elif defined(__has_feature)
constexpr bool kPlainMalloc = !__has_feature(address_sanitizer);
#else
constexpr bool kPlainMalloc = true;
#endif

// Bytes in use in glibc's heap (every arena, and its mmapped blocks).
size_t heap_in_use()
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

TEST(FwCycles, ProbeRemoveCyclesLeaveNoObjectsAndNoHeapGrowth)
{
	constexpr int kCycles = 60, kWarm = 20;
	constexpr size_t kSlack = 64 * 1024;
	auto fabric = std::make_shared<Fabric>();
	DpHca d(fabric, 0);
	DpHca::RcParams p;
	p.dlid = 77; // nobody: the SEND is never answered
	p.dqpn = 0x123;
	p.ack_timeout = 0;
	size_t warm = 0;
	for (int i = 0; i < kCycles; ++i) {
		DpHca::Cq cq = d.create_cq(6);
		DpHca::Mr mr = d.reg_mr(4096);
		DpHca::Qp qp = d.create_qp(ST_RC, cq, cq, 4, 4);
		d.to_rts_rc(qp, p);
		d.post_send(qp, DpHca::send_wr(mr, 64));
		ASSERT_TRUE(d.settle()) << "cycle " << i;
		d.h.ok(Msg(0x501, 0, 16).set({2, 23, 0}, qp.qpn), 16);
		d.h.ok(Msg(0x202, 0, 16).set({2, 23, 0}, mr.index), 16);
		d.h.ok(Msg(0x401, 0, 16).set({2, 23, 0}, cq.cqn), 16);
		d.down();
		{
			auto lk = d.dp().lock();
			ASSERT_TRUE(d.dp().res().qps.empty()) << "cycle " << i;
			ASSERT_TRUE(d.dp().res().cqs.empty()) << "cycle " << i;
		}
		ASSERT_EQ(d.h.fw().pages_outstanding(), 0u) << "cycle " << i;
		ASSERT_EQ(d.h.fw().eqs.count(), 0u) << "cycle " << i;
		ASSERT_EQ(fabric->engine().timers_pending(), 0u) << "cycle " << i;
		d.h.fw().trace_clear();
		malloc_trim(0);
		if (i + 1 == kWarm)
			warm = heap_in_use();
		d.up();
	}
	if (kPlainMalloc) {
		size_t end = heap_in_use();
		RecordProperty("heap_after_warm_cycles", static_cast<int>(warm));
		RecordProperty("heap_at_end", static_cast<int>(end));
		EXPECT_LE(end, warm + kSlack) << "the heap grew " << (end - warm) / 1024 << " KiB in "
					       << kCycles - kWarm << " cycles";
	}
}

} // namespace
} // namespace mlx5emu::test
