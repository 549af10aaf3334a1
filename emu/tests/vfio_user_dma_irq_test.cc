// SPDX-License-Identifier: GPL-2.0
// DMA_MAP/DMA_UNMAP feeding GuestMemory, SET_IRQS feeding InterruptSink.
#include <gtest/gtest.h>
#include <linux/vfio.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include <cstring>

#include "vfio_user/protocol.h"
#include "vfio_user_fixture.h"

namespace mlx5emu::vfio_user {
namespace {

using testing::FunctionHarness;
using testing::is_error;
using testing::make_memfd;
using testing::Session;
using Got = Client::Got;

constexpr size_t kHdr = sizeof(MessageHeader);

UniqueFd make_eventfd() { return UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)); }

// Reads the eventfd counter (0 when nothing was signalled).
uint64_t drain(int efd)
{
	uint64_t v = 0;
	if (::read(efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

bool readable(int fd, int timeout_ms = 1000)
{
	pollfd p{fd, POLLIN, 0};
	return ::poll(&p, 1, timeout_ms) == 1;
}

struct DmaIrqTest : ::testing::Test {
	FunctionHarness f;
	Session s{f};

	Message request(Command cmd, const std::vector<uint8_t> &payload, std::span<const int> fds = {})
	{
		Message reply;
		EXPECT_EQ(s.client.request(cmd, payload, reply, fds), Got::reply);
		return reply;
	}
	Message dma_map(uint64_t iova, uint64_t size, uint64_t offset, uint32_t flags, int fd)
	{
		DmaMapPayload p{32, flags, offset, iova, size};
		std::span<const int> fds;
		if (fd >= 0)
			fds = std::span<const int>(&fd, 1);
		return request(Command::dma_map, bytes_of(p), fds);
	}
	Message set_irqs(uint32_t index, uint32_t flags, uint32_t start, uint32_t count, std::span<const int> fds = {},
			 std::vector<uint8_t> data = {})
	{
		vfio_irq_set hdr{};
		hdr.argsz = uint32_t(sizeof(hdr) + data.size());
		hdr.flags = flags;
		hdr.index = index;
		hdr.start = start;
		hdr.count = count;
		std::vector<uint8_t> p = bytes_of(hdr);
		p.insert(p.end(), data.begin(), data.end());
		return request(Command::device_set_irqs, p, fds);
	}
};

constexpr uint32_t RW = kDmaMapRead | kDmaMapWrite;
constexpr uint32_t kEventfdTrigger = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;

TEST_F(DmaIrqTest, DmaMapWithMemfdThenGuestMemory)
{
	const size_t ram = 2 << 20;
	UniqueFd mem = make_memfd(ram);
	auto *guest = static_cast<uint8_t *>(::mmap(nullptr, ram, PROT_READ | PROT_WRITE, MAP_SHARED, mem.get(), 0));
	ASSERT_NE(guest, MAP_FAILED);
	int before = testing::open_fd_count();

	// Like QEMU: [0, 0xc0000) at offset 0 and [0x100000, +1M) at offset 0x100000.
	Message r1 = dma_map(0, 0xc0000, 0, RW, mem.get());
	EXPECT_EQ(r1.header.size, kHdr) << "DMA_MAP reply is the header";
	EXPECT_FALSE(r1.header.flags & kFlagError);
	Message r2 = dma_map(0x100000, 0x100000, 0x100000, RW, mem.get());
	EXPECT_FALSE(r2.header.flags & kFlagError);
	Message rom = dma_map(0xfffc0000, 0x40000, 0, kDmaMapRead, -1);
	EXPECT_FALSE(rom.header.flags & kFlagError) << "fd-less maps are recorded";
	EXPECT_EQ(testing::open_fd_count(), before) << "the server closed the fds it received";
	EXPECT_EQ(f.dma.size(), 3u);

	std::strcpy(reinterpret_cast<char *>(guest + 0x100040), "from the guest");
	char buf[32] = {};
	ASSERT_TRUE(f.dma.read(0x100040, buf, 15));
	EXPECT_STREQ(buf, "from the guest");
	ASSERT_TRUE(f.dma.write(0x1000, "from the device", 16));
	EXPECT_STREQ(reinterpret_cast<char *>(guest + 0x1000), "from the device");

	EXPECT_TRUE(is_error(dma_map(0x100000, 0x1000, 0, RW, mem.get()), EEXIST));
	EXPECT_EQ(testing::open_fd_count(), before) << "fd of a failed DMA_MAP closed too";
	::munmap(guest, ram);
}

TEST_F(DmaIrqTest, DmaUnmapExactAndAll)
{
	UniqueFd mem = make_memfd(0x10000);
	dma_map(0x10000, 0x10000, 0, RW, mem.get());
	dma_map(0x40000, 0x1000, 0, kDmaMapRead, -1);

	DmaUnmapPayload wrong{24, 0, 0x10000, 0x1000};
	EXPECT_TRUE(is_error(request(Command::dma_unmap, bytes_of(wrong)), ENOENT));
	DmaUnmapPayload exact{24, 0, 0x10000, 0x10000};
	Message r = request(Command::dma_unmap, bytes_of(exact));
	EXPECT_FALSE(r.header.flags & kFlagError);
	EXPECT_LE(r.header.size, kHdr + 24) << "never larger than the request";
	uint8_t b;
	EXPECT_FALSE(f.dma.read(0x10000, &b, 1)) << "unmapped before the reply";
	EXPECT_EQ(f.dma.size(), 1u);

	dma_map(0x10000, 0x10000, 0, RW, mem.get());
	DmaUnmapPayload all{24, VFIO_DMA_UNMAP_FLAG_ALL, 0, 0};
	EXPECT_FALSE(request(Command::dma_unmap, bytes_of(all)).header.flags & kFlagError);
	EXPECT_EQ(f.dma.size(), 0u);

	DmaUnmapPayload dirty{24, VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP, 0, 0x1000};
	EXPECT_TRUE(is_error(request(Command::dma_unmap, bytes_of(dirty)), EINVAL));
	DmaUnmapPayload small{16, 0, 0, 0x1000};
	EXPECT_TRUE(is_error(request(Command::dma_unmap, bytes_of(small)), EINVAL));
}

TEST_F(DmaIrqTest, DmaMapRejectsBadRequests)
{
	UniqueFd mem = make_memfd(0x1000);
	DmaMapPayload small{16, RW, 0, 0, 0x1000};
	EXPECT_TRUE(is_error(request(Command::dma_map, bytes_of(small)), EINVAL));
	EXPECT_TRUE(is_error(dma_map(0, 0, 0, RW, -1), EINVAL)) << "empty range";
	EXPECT_TRUE(is_error(dma_map(0, 0x1000, 0, 0x80, -1), EINVAL)) << "unknown flags";
	int two[2] = {mem.get(), mem.get()};
	int before = testing::open_fd_count();
	EXPECT_TRUE(is_error(request(Command::dma_map, bytes_of(DmaMapPayload{32, RW, 0, 0, 0x1000}), two), EINVAL));
	EXPECT_EQ(testing::open_fd_count(), before);
	EXPECT_EQ(f.dma.size(), 0u);
}

TEST_F(DmaIrqTest, MsixEventfdsAndRaise)
{
	UniqueFd e0 = make_eventfd(), e1 = make_eventfd(), e5 = make_eventfd();
	// QEMU's MSI-X enable: "enable, no vectors".
	EXPECT_EQ(set_irqs(2, kEventfdTrigger, 0, 1).header.size, kHdr);
	int run[2] = {e0.get(), e1.get()};
	Message r = set_irqs(2, kEventfdTrigger, 0, 2, run);
	EXPECT_EQ(r.header.size, kHdr);
	EXPECT_FALSE(r.header.flags & kFlagError);
	int five = e5.get();
	set_irqs(2, kEventfdTrigger, 5, 1, std::span<const int>(&five, 1));

	InterruptSink &sink = f.irqs;
	sink.raise(1);
	ASSERT_TRUE(readable(e1.get()));
	EXPECT_EQ(drain(e1.get()), 1u);
	EXPECT_EQ(drain(e0.get()), 0u);
	sink.raise(5);
	sink.raise(5);
	ASSERT_TRUE(readable(e5.get()));
	EXPECT_EQ(drain(e5.get()), 2u);
	EXPECT_EQ(f.irqs.raised(), 3u);

	sink.raise(3); // no eventfd
	sink.raise(64); // no such vector
	EXPECT_EQ(f.irqs.dropped(), 2u);

	// De-assign vector 1 (zero fds).
	set_irqs(2, kEventfdTrigger, 1, 1);
	sink.raise(1);
	EXPECT_EQ(drain(e1.get()), 0u);
	EXPECT_EQ(f.irqs.dropped(), 3u);

	// Disable the whole index.
	set_irqs(2, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0);
	EXPECT_FALSE(f.irqs.has_eventfd(2, 0));
	EXPECT_FALSE(f.irqs.has_eventfd(2, 5));
}

TEST_F(DmaIrqTest, LoopbackTriggerAndErrIndex)
{
	UniqueFd e0 = make_eventfd(), e1 = make_eventfd(), err = make_eventfd();
	int run[2] = {e0.get(), e1.get()};
	set_irqs(2, kEventfdTrigger, 0, 2, run);
	set_irqs(2, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 2);
	EXPECT_EQ(drain(e0.get()), 1u);
	EXPECT_EQ(drain(e1.get()), 1u);
	set_irqs(2, VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 2, {}, {0, 1});
	EXPECT_EQ(drain(e0.get()), 0u);
	EXPECT_EQ(drain(e1.get()), 1u);
	EXPECT_TRUE(is_error(set_irqs(2, VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 2, {}, {1}), EINVAL))
		<< "DATA_BOOL without enough bytes";

	int efd = err.get();
	EXPECT_FALSE(set_irqs(3, kEventfdTrigger, 0, 1, std::span<const int>(&efd, 1)).header.flags & kFlagError);
	EXPECT_TRUE(f.irqs.has_eventfd(3, 0));
	// Masking is QEMU's business for MSI-X: accepted.
	EXPECT_FALSE(set_irqs(2, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_MASK, 0, 1).header.flags & kFlagError);
}

TEST_F(DmaIrqTest, SetIrqsValidation)
{
	UniqueFd e = make_eventfd();
	int fd = e.get();
	int before = testing::open_fd_count();
	EXPECT_TRUE(is_error(set_irqs(2, kEventfdTrigger, 64, 1, std::span<const int>(&fd, 1)), EINVAL)) << "vector 64";
	EXPECT_TRUE(is_error(set_irqs(2, kEventfdTrigger, 63, 2), EINVAL));
	EXPECT_TRUE(is_error(set_irqs(0, kEventfdTrigger, 0, 1, std::span<const int>(&fd, 1)), EINVAL)) << "no INTx";
	EXPECT_TRUE(is_error(set_irqs(5, kEventfdTrigger, 0, 1), EINVAL));
	EXPECT_TRUE(is_error(set_irqs(2, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 1),
			     EINVAL));
	EXPECT_TRUE(is_error(set_irqs(2, kEventfdTrigger, 0, 2, std::span<const int>(&fd, 1)), EINVAL)) << "1 fd for 2";
	EXPECT_TRUE(is_error(set_irqs(2, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 1,
				      std::span<const int>(&fd, 1)),
			     EINVAL))
		<< "fds without DATA_EVENTFD";
	EXPECT_EQ(testing::open_fd_count(), before) << "rejected fds are closed";
	// INTx/REQ "disable" with count 0 is harmless.
	EXPECT_FALSE(set_irqs(0, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0).header.flags & kFlagError);
}

TEST_F(DmaIrqTest, HangupUnmapsAndReleasesEverything)
{
	UniqueFd mem = make_memfd(0x1000), e = make_eventfd();
	dma_map(0, 0x1000, 0, RW, mem.get());
	int fd = e.get();
	set_irqs(2, kEventfdTrigger, 0, 1, std::span<const int>(&fd, 1));
	ASSERT_TRUE(f.irqs.has_eventfd(2, 0));
	ASSERT_EQ(f.dma.size(), 1u);
	EXPECT_EQ(s.finish(), Connection::End::peer_closed);
	EXPECT_EQ(f.dma.size(), 0u);
	EXPECT_FALSE(f.irqs.has_eventfd(2, 0));
}

} // namespace
} // namespace mlx5emu::vfio_user
