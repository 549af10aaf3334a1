// SPDX-License-Identifier: GPL-2.0
// On-device memory (MEMIC): the capabilities, ALLOC_MEMIC / DEALLOC_MEMIC,
// CPU access through BAR0, MEMIC keys (zero-based over one allocation) and
// RDMA WRITE and READ into and out of them.
#include "dp_harness.h"

namespace mlx5emu::test {
namespace {

constexpr uint16_t kAllocMemic = 0x205, kDeallocMemic = 0x206;
constexpr uint8_t kReq = 0, kReqErr = 13, kRemoteAccess = 0x13;

constexpr uint64_t kBar0 = 32ull << 20, kMemic = 256 * 1024, kWindow = kBar0 - kMemic;

Msg alloc_msg(uint64_t start, uint32_t range, uint32_t size, uint8_t log_align = 0)
{
	return Msg(kAllocMemic, 0, 32).set({3, 7, 0}, log_align).be64(0x10, start).set({6, 31, 0}, range).set(
		{7, 31, 0}, size);
}

Msg dealloc_msg(uint64_t addr, uint32_t size)
{
	return Msg(kDeallocMemic, 0, 32).be64(0x10, addr).set({6, 31, 0}, size);
}

uint64_t alloc(FwHarness &h, uint64_t start, uint32_t range, uint32_t size, uint8_t log_align = 0)
{
	return bits::load_be64(h.ok(alloc_msg(start, range, size, log_align), 16).data() + 8);
}

// A MEMIC key: `len` bytes of device memory at BAR0 offset `addr`.
Msg memic_mkey_msg(uint32_t pd, uint64_t addr, uint64_t len, unsigned access = A_ALL)
{
	Msg c(0x200, 0, 0x110);
	c.set({ctx_dw(0), 9, 8}, 1).set({ctx_dw(0), 28, 26}, 1).set({ctx_dw(0), 15, 10}, access >> 10);
	c.set({ctx_dw(1), 31, 8}, 0xffffff).set({ctx_dw(1), 7, 0}, 0x33);
	c.set({ctx_dw(3), 23, 0}, pd);
	c.be64(0x20, addr).be64(0x28, len);
	return c;
}

uint32_t memic_mkey(FwHarness &h, uint32_t pd, uint64_t addr, uint64_t len)
{
	auto out = h.ok(memic_mkey_msg(pd, addr, len), 16);
	return (be32_at(out, 8) & 0xffffff) << 8 | 0x33;
}

TEST(FwMemic, CapabilitiesNameTheWindowAtTheTopOfBar0)
{
	FwHarness h;
	h.bring_up();
	auto g = h.ok(Msg(0x100, 1, 16), 0x1010);
	EXPECT_EQ(bits::get(g.data() + 0x10, prm::cmd_hca_cap::device_memory), 1u);
	auto d = h.ok(Msg(0x100, 0xf << 1 | 1, 16), 0x1010);
	const uint8_t *c = d.data() + 0x10;
	EXPECT_EQ(bits::get(c, prm::dev_mem_caps::memic), 1u);
	EXPECT_EQ(bits::load_be64(c + prm::dev_mem_caps::kMemicBarStartAddr), kWindow);
	EXPECT_EQ(bits::get(c, prm::dev_mem_caps::memic_bar_size), kMemic);
	EXPECT_EQ(bits::get(c, prm::dev_mem_caps::max_memic_size), kMemic);
	EXPECT_EQ(bits::get(c, prm::dev_mem_caps::log_max_memic_addr_alignment), 12u);
	EXPECT_EQ(bits::get(c, prm::dev_mem_caps::memic_operations), 0u) << "no MODIFY_MEMIC";
	EXPECT_EQ(h.fw().uar_limit(), kWindow >> 12) << "no UAR page inside the window";
}

TEST(FwMemic, NoDeviceMemoryWhenConfiguredOff)
{
	HcaConfig cfg;
	cfg.memic_size = 0;
	FwHarness h(cfg);
	h.bring_up();
	auto g = h.ok(Msg(0x100, 1, 16), 0x1010);
	EXPECT_EQ(bits::get(g.data() + 0x10, prm::cmd_hca_cap::device_memory), 0u);
	h.fails(Msg(0x100, 0xf << 1 | 1, 16), 0x1010, prm::status::BAD_PARAM);
	h.fails(alloc_msg(kWindow, 4096, 64), 16, prm::status::BAD_OP);
	EXPECT_EQ(h.fw().uar_limit(), kBar0 >> 12);
}

TEST(FwMemic, AllocationsInsideTheirRangeWithoutOverlap)
{
	FwHarness h;
	h.bring_up();
	uint64_t a = alloc(h, kWindow, 4096, 128);
	EXPECT_EQ(a, kWindow);
	uint64_t b = alloc(h, kWindow, 4096, 64);
	EXPECT_EQ(b, kWindow + 128) << "the next free granule of the range";
	uint64_t c = alloc(h, kWindow, 4096, 256, 3); // 512-byte alignment
	EXPECT_EQ(c, kWindow + 512);
	h.fails(alloc_msg(kWindow, 256, 256), 16, prm::status::NO_RESOURCES); // the range is taken
	h.fails(alloc_msg(kWindow - 4096, 4096, 64), 16, prm::status::BAD_PARAM); // below the window
	h.fails(alloc_msg(kBar0 - 4096, 8192, 64), 16, prm::status::BAD_PARAM);   // past its end
	h.fails(alloc_msg(kWindow + 4096, 4096, 100), 16, prm::status::BAD_PARAM); // not 64-byte granules
	h.fails(alloc_msg(kWindow + 4096, 4096, 0), 16, prm::status::BAD_PARAM);
	h.fails(alloc_msg(kWindow + 4096, 64, 128), 16, prm::status::BAD_PARAM); // larger than its range
	h.fails(alloc_msg(kWindow + 4096, 4096, 64, 13), 16, prm::status::BAD_PARAM); // alignment beyond the cap
	EXPECT_EQ(h.fw().memic->allocations(), 3u);

	h.fails(dealloc_msg(a, 64), 16, prm::status::BAD_PARAM) ; // not the allocation's size
	h.fails(dealloc_msg(a + 64, 64), 16, prm::status::BAD_PARAM);
	h.ok(dealloc_msg(a, 128), 16);
	h.fails(dealloc_msg(a, 128), 16, prm::status::BAD_PARAM);
	EXPECT_EQ(alloc(h, kWindow, 4096, 64), kWindow) << "freed space is used again";
	// DISABLE_HCA drops every allocation.
	h.ok(Msg(0x105, 0, 16), 16);
	EXPECT_EQ(h.fw().memic->allocations(), 0u);
}

TEST(FwMemic, CpuAccessThroughBar0)
{
	FwHarness h;
	h.bring_up();
	uint64_t a = alloc(h, kWindow + 8192, 4096, 4096);
	h.wr32(a + 4, 0x11223344);
	h.hca->bar_write(a + 8, 8, 0x0102030405060708ull);
	EXPECT_EQ(h.rd32(a + 4), 0x11223344u);
	EXPECT_EQ(h.hca->bar_read(a + 8, 8), 0x0102030405060708ull);
	EXPECT_EQ(h.hca->bar_read(a + 9, 1), 0x07u);
	uint8_t b[12];
	ASSERT_TRUE(h.fw().memic->read(a + 4, b, sizeof(b)));
	EXPECT_EQ(b[0], 0x11) << "the bytes as the CPU wrote them (big-endian register order)";
	EXPECT_EQ(b[4], 0x08);
	EXPECT_FALSE(h.fw().memic->read(a + 4090, b, sizeof(b))) << "past the allocation";
}

TEST(FwMemic, MemicKeysCoverOneAllocation)
{
	DpHca d(std::make_shared<Fabric>(), 0);
	uint64_t a = alloc(d.h, kWindow, 4096, 4096);
	memic_mkey(d.h, d.pd, a, 4096);
	memic_mkey(d.h, d.pd, a + 1024, 1024);
	d.h.fails(memic_mkey_msg(d.pd, a, 8192), 16, prm::status::BAD_PARAM);       // past the allocation
	d.h.fails(memic_mkey_msg(d.pd, a + 4096, 64), 16, prm::status::BAD_PARAM); // not allocated
	d.h.fails(memic_mkey_msg(d.pd, a, 64, A_ALL | A_UMR_EN), 16, prm::status::BAD_PARAM);
}

// RDMA WRITE into a MEMIC key of b and READ back out of it: the data
// lands in b's device memory (zero-based offsets), a write past the key's
// end is a remote access error.
TEST(FwMemic, RdmaWriteAndReadThroughAMemicKey)
{
	RcPair p;
	uint64_t a = alloc(p.b.h, kWindow + 4096, 8192, 8192);
	uint32_t rkey = memic_mkey(p.b.h, p.b.pd, a, 8192);
	auto src = p.a.reg_mr(8192), back = p.a.reg_mr(8192);
	fill(p.a.mem(), src.addr, 8192, 3);

	p.send(DpHca::rdma_wr(OP_WRITE, src, 5000, 100, rkey));
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	ASSERT_EQ(e.opcode, kReq) << "syndrome 0x" << std::hex << unsigned(e.syndrome);
	std::vector<uint8_t> dm(5000);
	ASSERT_TRUE(p.b.h.fw().memic->read(a + 100, dm.data(), dm.size()));
	EXPECT_EQ(dm, p.a.mem().bytes(src.addr, 5000));
	// The CPU sees it through BAR0 too.
	EXPECT_EQ(p.b.h.hca->bar_read(a + 100, 1), dm[0]);

	p.send(DpHca::rdma_wr(OP_READ, back, 5000, 100, rkey));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	ASSERT_EQ(e.opcode, kReq) << "syndrome 0x" << std::hex << unsigned(e.syndrome);
	EXPECT_EQ(p.a.mem().bytes(back.addr, 5000), p.a.mem().bytes(src.addr, 5000));

	p.send(DpHca::rdma_wr(OP_WRITE, src, 64, 8192 - 32, rkey));
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteAccess);
}

} // namespace
} // namespace mlx5emu::test
