// SPDX-License-Identifier: GPL-2.0
// vfio-user commands over a socketpair, with the reply sizes QEMU's client
// insists on (its reply buffer is as large as its request).
#include <gtest/gtest.h>
#include <linux/vfio.h>

#include <cstring>
#include <string>

#include "pci/pci_defs.h"
#include "vfio_user/protocol.h"
#include "vfio_user_fixture.h"

namespace mlx5emu::vfio_user {
namespace {

using testing::FakeBar;
using testing::FunctionHarness;
using testing::is_error;
using testing::payload_as;
using testing::Session;
using Got = Client::Got;

constexpr size_t kHdr = sizeof(MessageHeader);

struct ProtocolTest : ::testing::Test {
	FunctionHarness f;
	Session s{f};

	Message request(Command cmd, const std::vector<uint8_t> &payload)
	{
		Message reply;
		EXPECT_EQ(s.client.request(cmd, payload, reply), Got::reply) << command_name(uint16_t(cmd));
		EXPECT_EQ(reply.header.flags & kFlagTypeMask, kTypeReply);
		return reply;
	}
	Message region_info(uint32_t index, uint32_t argsz = sizeof(vfio_region_info))
	{
		vfio_region_info ri{};
		ri.argsz = argsz;
		ri.index = index;
		return request(Command::device_get_region_info, bytes_of(ri));
	}
	std::vector<uint8_t> region_read(uint32_t region, uint64_t offset, uint32_t count)
	{
		Message r = request(Command::region_read, bytes_of(RegionAccessPayload{offset, region, count}));
		EXPECT_FALSE(r.header.flags & kFlagError) << "error " << r.header.error;
		EXPECT_EQ(r.header.size, kHdr + 16 + count) << "REGION_READ reply is 32 + count bytes";
		auto a = payload_as<RegionAccessPayload>(r);
		EXPECT_EQ(a.offset, offset);
		EXPECT_EQ(a.region, region);
		EXPECT_EQ(a.count, count);
		if (r.body.size() < 16)
			return {};
		return std::vector<uint8_t>(r.body.begin() + 16, r.body.end());
	}
	std::vector<uint8_t> region_write_payload(uint32_t region, uint64_t offset, const void *data, uint32_t n)
	{
		std::vector<uint8_t> p = bytes_of(RegionAccessPayload{offset, region, n});
		auto *d = static_cast<const uint8_t *>(data);
		p.insert(p.end(), d, d + n);
		return p;
	}
};

TEST_F(ProtocolTest, VersionRoundTrip)
{
	// What QEMU 11.1.3 sends (214 bytes in all).
	const char json[] = "{\"capabilities\": {\"pgsizes\": 4096, \"max_msg_fds\": 16, \"max_dma_maps\": 65535, "
			    "\"max_data_xfer_size\": 1048576, \"migration\": {\"max_bitmap_size\": 268435456, "
			    "\"pgsize\": 4096}, \"write_multiple\": true}}";
	std::vector<uint8_t> p = bytes_of(VersionPayload{0, 0});
	p.insert(p.end(), json, json + sizeof(json));
	ASSERT_EQ(kHdr + p.size(), 214u);
	Message r = request(Command::version, p);
	ASSERT_FALSE(r.header.flags & kFlagError);
	EXPECT_LE(r.header.size, 214u);
	EXPECT_EQ(r.header.size, kHdr + r.body.size());
	auto v = payload_as<VersionPayload>(r);
	EXPECT_EQ(v.major, 0);
	EXPECT_EQ(v.minor, 0);
	ASSERT_GT(r.body.size(), 4u);
	EXPECT_EQ(r.body.back(), 0) << "JSON is NUL-terminated";
	std::string reply_json(reinterpret_cast<const char *>(r.body.data() + 4));
	EXPECT_EQ(reply_json, "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576}}");
	EXPECT_EQ(reply_json.find("write_multiple"), std::string::npos);

	Message bad = request(Command::version, bytes_of(VersionPayload{1, 0}));
	EXPECT_TRUE(bad.header.flags & kFlagError);
}

TEST_F(ProtocolTest, DeviceInfoIsExactly32Bytes)
{
	Message r = request(Command::device_get_info, bytes_of(DeviceInfoPayload{16, 0, 0, 0}));
	ASSERT_EQ(r.header.size, 32u);
	auto info = payload_as<DeviceInfoPayload>(r);
	EXPECT_EQ(info.argsz, 16u);
	EXPECT_EQ(info.flags, uint32_t(VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI));
	EXPECT_EQ(info.num_regions, 9u);
	EXPECT_EQ(info.num_irqs, 5u);

	EXPECT_TRUE(is_error(request(Command::device_get_info, bytes_of(DeviceInfoPayload{8, 0, 0, 0})), EINVAL));
	EXPECT_TRUE(is_error(request(Command::device_get_info, {}), EINVAL));
}

TEST_F(ProtocolTest, RegionInfo)
{
	struct Expect {
		uint32_t index;
		uint64_t size;
	} expect[] = {{0, 32u << 20}, {1, 0}, {2, 16u << 10}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 4096}, {8, 0}};
	for (const auto &e : expect) {
		Message r = region_info(e.index);
		ASSERT_FALSE(r.header.flags & kFlagError) << e.index;
		EXPECT_EQ(r.header.size, kHdr + 32) << "no caps: 48 bytes, region " << e.index;
		auto ri = payload_as<vfio_region_info>(r);
		EXPECT_EQ(ri.index, e.index);
		EXPECT_EQ(ri.size, e.size) << e.index;
		EXPECT_EQ(ri.argsz, 32u);
		EXPECT_EQ(ri.cap_offset, 0u);
		EXPECT_FALSE(ri.flags & (VFIO_REGION_INFO_FLAG_MMAP | VFIO_REGION_INFO_FLAG_CAPS));
		uint32_t rw = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
		EXPECT_EQ(ri.flags, e.size ? rw : 0u) << e.index;
		EXPECT_TRUE(r.fds.empty());
	}
	EXPECT_TRUE(is_error(region_info(9), EINVAL));
	EXPECT_TRUE(is_error(region_info(0, 16), EINVAL)) << "argsz smaller than the struct";
	Message big = region_info(7, 4096);
	EXPECT_EQ(big.header.size, kHdr + 32) << "a large argsz does not pad the reply";
}

TEST(RegionInfoEncoding, SparseMmapCapabilityAndArgszRetry)
{
	FunctionHarness f;
	testing::Session s(f);
	UniqueFd uar = testing::make_memfd(0x10000);
	f.pci.set_bar0_mmap(uar.get(), 0, {{0x3000, 0x1000}, {0x8000, 0x8000}});

	vfio_region_info ri{};
	ri.argsz = 32;
	ri.index = 0;
	Message first;
	ASSERT_EQ(s.client.request(Command::device_get_region_info, bytes_of(ri), first), Got::reply);
	ASSERT_FALSE(first.header.flags & kFlagError);
	EXPECT_EQ(first.header.size, kHdr + 32) << "reply fits the first request's buffer";
	auto short_info = payload_as<vfio_region_info>(first);
	const uint32_t needed = 32 + 16 + 2 * 16;
	EXPECT_EQ(short_info.argsz, needed);
	EXPECT_FALSE(short_info.flags & VFIO_REGION_INFO_FLAG_CAPS);
	EXPECT_TRUE(first.fds.empty());

	ri.argsz = needed; // QEMU retries with the size it was told
	Message full;
	ASSERT_EQ(s.client.request(Command::device_get_region_info, bytes_of(ri), full), Got::reply);
	ASSERT_EQ(full.header.size, kHdr + needed);
	auto info = payload_as<vfio_region_info>(full);
	EXPECT_EQ(info.argsz, needed);
	EXPECT_EQ(info.size, 32u << 20);
	EXPECT_EQ(info.cap_offset, 32u);
	EXPECT_EQ(info.flags, uint32_t(VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
				       VFIO_REGION_INFO_FLAG_MMAP | VFIO_REGION_INFO_FLAG_CAPS));
	auto cap = payload_as<vfio_region_info_cap_sparse_mmap>(full, 32);
	EXPECT_EQ(cap.header.id, VFIO_REGION_INFO_CAP_SPARSE_MMAP);
	EXPECT_EQ(cap.header.version, 1);
	EXPECT_EQ(cap.header.next, 0u);
	EXPECT_EQ(cap.nr_areas, 2u);
	auto a1 = payload_as<vfio_region_sparse_mmap_area>(full, 48);
	auto a2 = payload_as<vfio_region_sparse_mmap_area>(full, 64);
	EXPECT_EQ(a1.offset, 0x3000u);
	EXPECT_EQ(a1.size, 0x1000u);
	EXPECT_EQ(a2.offset, 0x8000u);
	EXPECT_EQ(a2.size, 0x8000u);
	ASSERT_EQ(full.fds.size(), 1u) << "exactly one fd with an mmap-able region";
	// The fd is the same file: a write through it shows in ours.
	ASSERT_EQ(::pwrite(full.fds[0].get(), "X", 1, 0x3000), 1);
	char c = 0;
	ASSERT_EQ(::pread(uar.get(), &c, 1, 0x3000), 1);
	EXPECT_EQ(c, 'X');
}

TEST_F(ProtocolTest, IrqInfoIsExactly32Bytes)
{
	for (uint32_t index = 0; index < 5; index++) {
		vfio_irq_info q{16, 0, index, 0};
		Message r = request(Command::device_get_irq_info, bytes_of(q));
		ASSERT_EQ(r.header.size, 32u) << index;
		auto info = payload_as<vfio_irq_info>(r);
		EXPECT_EQ(info.index, index);
		uint32_t expect_count = index == 2 ? 64 : index == 3 ? 1 : 0;
		EXPECT_EQ(info.count, expect_count) << index;
		EXPECT_TRUE(info.flags & VFIO_IRQ_INFO_EVENTFD);
		EXPECT_FALSE(info.flags & VFIO_IRQ_INFO_NORESIZE) << "QEMU must not resize MSI-X";
	}
	EXPECT_TRUE(is_error(request(Command::device_get_irq_info, bytes_of(vfio_irq_info{16, 0, 5, 0})), EINVAL));
	EXPECT_TRUE(is_error(request(Command::device_get_irq_info, bytes_of(vfio_irq_info{12, 0, 2, 0})), EINVAL));
}

TEST_F(ProtocolTest, ConfigSpaceReads)
{
	// Realize reads the whole config region in one message.
	std::vector<uint8_t> all = region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, 4096);
	ASSERT_EQ(all.size(), 4096u);
	auto u16 = [&](size_t o) { return uint16_t(all[o] | all[o + 1] << 8); };
	EXPECT_EQ(u16(0), 0x15b3);
	EXPECT_EQ(u16(2), 0x1017);
	EXPECT_EQ(all[0x0b], 0x02);
	EXPECT_EQ(all[0x0a], 0x07);
	EXPECT_TRUE(u16(6) & pci::kStatusCapList);
	uint8_t cap = all[0x34];
	bool msix = false, exp = false;
	for (int i = 0; cap && i < 16; i++, cap = all[cap + 1]) {
		msix |= all[cap] == pci::kCapMsix;
		exp |= all[cap] == pci::kCapExp;
	}
	EXPECT_TRUE(msix);
	EXPECT_TRUE(exp);
	// Then small reads of fields.
	std::vector<uint8_t> two = region_read(VFIO_PCI_CONFIG_REGION_INDEX, 2, 2);
	EXPECT_EQ(two, std::vector<uint8_t>({0x17, 0x10}));
	std::vector<uint8_t> one = region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0x3d, 1);
	EXPECT_EQ(one, std::vector<uint8_t>({0}));
}

TEST_F(ProtocolTest, ConfigWritesAreStoredWhereWritable)
{
	uint16_t cmd = pci::kCommandMemory | pci::kCommandMaster;
	Message w = request(Command::region_write, region_write_payload(VFIO_PCI_CONFIG_REGION_INDEX, 4, &cmd, 2));
	ASSERT_FALSE(w.header.flags & kFlagError);
	EXPECT_EQ(w.header.size, kHdr + 16) << "REGION_WRITE reply: offset, region, count";
	EXPECT_EQ(region_read(VFIO_PCI_CONFIG_REGION_INDEX, 4, 2), std::vector<uint8_t>({0x06, 0x00}));
	uint16_t vendor = 0x1234;
	request(Command::region_write, region_write_payload(VFIO_PCI_CONFIG_REGION_INDEX, 0, &vendor, 2));
	EXPECT_EQ(region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, 2), std::vector<uint8_t>({0xb3, 0x15}));
}

TEST_F(ProtocolTest, Bar0ReachesTheBarHandler)
{
	std::vector<uint8_t> v = region_read(VFIO_PCI_BAR0_REGION_INDEX, 0x1010, 4);
	uint64_t expect = FakeBar::pattern(0x1010, 4);
	EXPECT_EQ(v, std::vector<uint8_t>({uint8_t(expect), uint8_t(expect >> 8), uint8_t(expect >> 16),
					   uint8_t(expect >> 24)}));
	region_read(VFIO_PCI_BAR0_REGION_INDEX, 0x18, 8);
	std::vector<FakeBar::Access> reads = {{0x1010, 4, 0}, {0x18, 8, 0}};
	EXPECT_EQ(f.bar.reads(), reads);

	uint64_t db = 0x1122334455667788ull;
	Message w = request(Command::region_write, region_write_payload(VFIO_PCI_BAR0_REGION_INDEX, 0x3800, &db, 8));
	EXPECT_EQ(w.header.size, kHdr + 16);
	std::vector<FakeBar::Access> writes = {{0x3800, 8, db}};
	EXPECT_EQ(f.bar.writes(), writes);
}

TEST_F(ProtocolTest, PostedWriteGetsNoReply)
{
	uint32_t v = 0xdeadbeef;
	ASSERT_GT(s.client.send(Command::region_write, region_write_payload(VFIO_PCI_BAR0_REGION_INDEX, 0x18, &v, 4),
				{}, kFlagNoReply), 0);
	// Even a failing posted write stays silent.
	ASSERT_GT(s.client.send(Command::region_write, region_write_payload(VFIO_PCI_BAR0_REGION_INDEX, 1ull << 40, &v, 4),
				{}, kFlagNoReply), 0);
	// The next reply on the wire belongs to the next request.
	vfio_irq_info q{16, 0, 2, 0};
	int id = s.client.send(Command::device_get_irq_info, bytes_of(q));
	Message r;
	ASSERT_EQ(s.client.receive(r), Got::reply);
	EXPECT_EQ(r.header.msg_id, id);
	EXPECT_EQ(r.header.command, uint16_t(Command::device_get_irq_info));
	std::vector<FakeBar::Access> writes = {{0x18, 4, 0xdeadbeef}};
	EXPECT_EQ(f.bar.writes(), writes);
}

TEST_F(ProtocolTest, PbaReadsZero)
{
	EXPECT_EQ(region_read(VFIO_PCI_BAR2_REGION_INDEX, 0x2000, 8), std::vector<uint8_t>(8, 0));
}

TEST_F(ProtocolTest, DeviceResetResetsTheFunction)
{
	uint16_t cmd = pci::kCommandMemory;
	request(Command::region_write, region_write_payload(VFIO_PCI_CONFIG_REGION_INDEX, 4, &cmd, 2));
	Message r = request(Command::device_reset, {});
	EXPECT_EQ(r.header.size, kHdr);
	EXPECT_FALSE(r.header.flags & kFlagError);
	EXPECT_EQ(f.bar.resets(), 1);
	EXPECT_EQ(region_read(VFIO_PCI_CONFIG_REGION_INDEX, 4, 2), std::vector<uint8_t>({0, 0}));
}

TEST_F(ProtocolTest, HangupEndsTheSessionCleanly)
{
	region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, 4);
	EXPECT_EQ(s.finish(), Connection::End::peer_closed);
	EXPECT_EQ(f.bar.resets(), 1) << "the function is reset for the next client";
}

} // namespace
} // namespace mlx5emu::vfio_user
