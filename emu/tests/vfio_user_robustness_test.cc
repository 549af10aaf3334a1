// SPDX-License-Identifier: GPL-2.0
// Malformed input never crashes the server, never leaks fds, and the server
// keeps serving: it answers ERROR, or drops the connection and accepts the
// next one.
#include <gtest/gtest.h>
#include <linux/vfio.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "vfio_user/protocol.h"
#include "vfio_user/server.h"
#include "poll_for.h"
#include "vfio_user_fixture.h"

namespace mlx5emu::vfio_user {
namespace {

using mlx5emu::test::kPatience;
using testing::FunctionHarness;
using testing::is_error;
using testing::Session;
using Got = Client::Got;

constexpr size_t kHdr = sizeof(MessageHeader);

MessageHeader header(uint16_t cmd, uint32_t size, uint16_t id = 7)
{
	MessageHeader h{};
	h.msg_id = id;
	h.command = cmd;
	h.size = size;
	h.flags = kTypeCommand;
	return h;
}

bool version_works(Client &c)
{
	Message r;
	return c.request(Command::version, bytes_of(VersionPayload{0, 0}), r) == Got::reply &&
	       !(r.header.flags & kFlagError);
}

struct ServerTest : ::testing::Test {
	FunctionHarness f;
	std::string dir;
	std::string path;
	std::unique_ptr<Server> server;

	void SetUp() override
	{
		char tmpl[] = "/tmp/mlx5emu-test-XXXXXX";
		ASSERT_NE(::mkdtemp(tmpl), nullptr);
		dir = tmpl;
		path = dir + "/hca0.sock";
		server = std::make_unique<Server>(path, f.ctx(), "hca0", std::chrono::milliseconds(50));
		std::string err;
		ASSERT_TRUE(server->start(&err)) << err;
	}
	void TearDown() override
	{
		server.reset();
		::rmdir(dir.c_str());
	}
	uint64_t accepted = 0; // clients this fixture expects the server to have served

	Client connect()
	{
		++accepted;
		UniqueFd s = Client::connect_unix(path);
		EXPECT_TRUE(s.valid());
		return Client(std::move(s));
	}
	// A client that follows one which hung up or was dropped: first wait
	// until the server has finished with that one (the server turns away
	// a client arriving while another is served, after a 50 ms grace).
	Client connect_next()
	{
		auto done = [&] { return server->connections_served() >= accepted && !server->client_connected(); };
		auto end = std::chrono::steady_clock::now() + kPatience;
		while (!done() && std::chrono::steady_clock::now() < end)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		EXPECT_TRUE(done()) << "the previous connection never ended";
		return connect();
	}
};

TEST_F(ServerTest, TruncatedHeaderThenHangupThenNewClient)
{
	{
		Client c = connect();
		MessageHeader h = header(uint16_t(Command::version), kHdr + 4);
		ASSERT_TRUE(c.send_raw(&h, 8));
	}
	Client next = connect_next();
	EXPECT_TRUE(version_works(next));
	EXPECT_GE(server->connections_served(), 1u);
}

TEST_F(ServerTest, TruncatedBodyThenHangup)
{
	{
		Client c = connect();
		MessageHeader h = header(uint16_t(Command::region_read), kHdr + 16);
		ASSERT_TRUE(c.send_raw(&h, sizeof(h)));
	}
	Client next = connect_next();
	EXPECT_TRUE(version_works(next));
}

TEST_F(ServerTest, SizeSmallerThanHeaderDropsTheConnection)
{
	Client c = connect();
	MessageHeader h = header(uint16_t(Command::version), 8);
	ASSERT_TRUE(c.send_raw(&h, sizeof(h)));
	Message r;
	ASSERT_EQ(c.receive(r), Got::reply);
	EXPECT_TRUE(is_error(r, EINVAL));
	EXPECT_EQ(r.header.msg_id, 7);
	EXPECT_TRUE(c.wait_closed(static_cast<int>(kPatience.count())));
	Client next = connect_next();
	EXPECT_TRUE(version_works(next));
}

TEST_F(ServerTest, HugeSizeDropsTheConnection)
{
	Client c = connect();
	MessageHeader h = header(uint16_t(Command::region_write), 0xfffffff0u);
	ASSERT_TRUE(c.send_raw(&h, sizeof(h)));
	Message r;
	ASSERT_EQ(c.receive(r), Got::reply);
	EXPECT_TRUE(is_error(r, EINVAL));
	EXPECT_TRUE(c.wait_closed(static_cast<int>(kPatience.count())));
	Client next = connect_next();
	EXPECT_TRUE(version_works(next));
}

TEST_F(ServerTest, SecondConcurrentClientIsTurnedAway)
{
	Client first = connect();
	ASSERT_TRUE(version_works(first));
	Client second = connect();
	--accepted; // turned away, never served
	EXPECT_TRUE(second.wait_closed(static_cast<int>(kPatience.count())));
	EXPECT_TRUE(version_works(first)) << "the first client is undisturbed";
	first.close();
	// Once the first is gone a new client is served (after the reset).
	Client third = connect_next();
	EXPECT_TRUE(version_works(third));
}

TEST_F(ServerTest, StopEndsTheConnectionAndUnlinksTheSocket)
{
	Client c = connect();
	ASSERT_TRUE(version_works(c));
	server->stop();
	EXPECT_TRUE(c.wait_closed(static_cast<int>(kPatience.count())));
	struct stat st;
	EXPECT_NE(::lstat(path.c_str(), &st), 0);
	EXPECT_GE(f.bar.resets(), 1);
}

TEST(ServerStart, ReplacesStaleSocketRefusesOtherFiles)
{
	FunctionHarness f;
	char tmpl[] = "/tmp/mlx5emu-test-XXXXXX";
	ASSERT_NE(::mkdtemp(tmpl), nullptr);
	std::string dir = tmpl;
	std::string sock = dir + "/a.sock", file = dir + "/plain";
	{
		Server s1(sock, f.ctx(), "a");
		std::string err;
		ASSERT_TRUE(s1.start(&err)) << err;
	}
	{
		// Leave a stale socket file behind, as a killed emulator would.
		UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
		sockaddr_un a{};
		a.sun_family = AF_UNIX;
		std::strcpy(a.sun_path, sock.c_str());
		ASSERT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
	}
	{
		Server s2(sock, f.ctx(), "a");
		std::string err;
		EXPECT_TRUE(s2.start(&err)) << err;
	}
	std::ofstream(file) << "x";
	Server s3(file, f.ctx(), "b");
	std::string err;
	EXPECT_FALSE(s3.start(&err));
	EXPECT_NE(err.find("not a socket"), std::string::npos) << err;
	::unlink(file.c_str());
	::rmdir(dir.c_str());
}

struct MalformedTest : ::testing::Test {
	FunctionHarness f;
	Session s{f};

	Message request(Command cmd, const std::vector<uint8_t> &payload, std::span<const int> fds = {})
	{
		Message reply;
		EXPECT_EQ(s.client.request(cmd, payload, reply, fds), Got::reply);
		return reply;
	}
	bool still_serving() { return version_works(s.client); }
};

TEST_F(MalformedTest, UnknownAndUnsupportedCommands)
{
	Message r;
	int id = s.client.send(Command(99), {});
	ASSERT_EQ(s.client.receive(r), Got::reply);
	EXPECT_EQ(r.header.msg_id, id);
	EXPECT_EQ(r.header.command, 99);
	EXPECT_TRUE(is_error(r, ENOSYS));
	for (Command c : {Command::device_get_region_io_fds, Command::dma_read, Command::dma_write,
			  Command::region_write_multi, Command::device_feature, Command(14), Command(0)})
		EXPECT_TRUE(is_error(request(c, std::vector<uint8_t>(24, 0)), ENOSYS)) << uint16_t(c);
	EXPECT_TRUE(still_serving());
}

TEST_F(MalformedTest, ShortPayloadsAndWrongArgsz)
{
	std::vector<uint8_t> tiny = {1, 2};
	for (Command c : {Command::version, Command::dma_map, Command::dma_unmap, Command::device_get_info,
			  Command::device_get_region_info, Command::device_get_irq_info, Command::device_set_irqs,
			  Command::region_read, Command::region_write})
		EXPECT_TRUE(is_error(request(c, tiny), EINVAL)) << command_name(uint16_t(c));
	vfio_region_info ri{};
	ri.argsz = 31;
	EXPECT_TRUE(is_error(request(Command::device_get_region_info, bytes_of(ri)), EINVAL));
	vfio_irq_set set{};
	set.argsz = 8;
	set.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
	EXPECT_TRUE(is_error(request(Command::device_set_irqs, bytes_of(set)), EINVAL));
	EXPECT_TRUE(still_serving());
}

TEST_F(MalformedTest, OutOfRangeRegionAccesses)
{
	auto read = [&](uint32_t region, uint64_t off, uint32_t count) {
		return request(Command::region_read, bytes_of(RegionAccessPayload{off, region, count}));
	};
	EXPECT_TRUE(is_error(read(9, 0, 4), EINVAL));
	EXPECT_TRUE(is_error(read(0xffffffff, 0, 4), EINVAL));
	EXPECT_TRUE(is_error(read(VFIO_PCI_ROM_REGION_INDEX, 0, 4), EINVAL));
	EXPECT_TRUE(is_error(read(VFIO_PCI_CONFIG_REGION_INDEX, 4094, 4), EINVAL));
	EXPECT_TRUE(is_error(read(VFIO_PCI_CONFIG_REGION_INDEX, ~0ull - 1, 4), EINVAL));
	EXPECT_TRUE(is_error(read(VFIO_PCI_BAR0_REGION_INDEX, 32u << 20, 4), EINVAL));
	EXPECT_TRUE(is_error(read(VFIO_PCI_BAR0_REGION_INDEX, 0, 0), EINVAL));
	EXPECT_TRUE(is_error(read(VFIO_PCI_BAR0_REGION_INDEX, 0, (1u << 20) + 1), EINVAL)) << "> max_data_xfer_size";

	// REGION_WRITE whose count disagrees with the data.
	std::vector<uint8_t> w = bytes_of(RegionAccessPayload{0, VFIO_PCI_BAR0_REGION_INDEX, 8});
	w.insert(w.end(), 4, 0);
	EXPECT_TRUE(is_error(request(Command::region_write, w), EINVAL));
	EXPECT_TRUE(f.bar.writes().empty());
	EXPECT_TRUE(still_serving());
}

TEST_F(MalformedTest, FdsOnACommandThatTakesNone)
{
	UniqueFd e(::eventfd(0, EFD_CLOEXEC));
	int fd = e.get();
	int before = testing::open_fd_count();
	EXPECT_TRUE(is_error(request(Command::device_get_info, bytes_of(DeviceInfoPayload{16, 0, 0, 0}),
				     std::span<const int>(&fd, 1)),
			     EINVAL));
	EXPECT_TRUE(is_error(request(Command::region_read,
				     bytes_of(RegionAccessPayload{0, VFIO_PCI_CONFIG_REGION_INDEX, 4}),
				     std::span<const int>(&fd, 1)),
			     EINVAL));
	EXPECT_EQ(testing::open_fd_count(), before);
	EXPECT_TRUE(still_serving());
}

TEST_F(MalformedTest, TooManyFds)
{
	std::vector<UniqueFd> owned;
	std::vector<int> fds;
	for (int i = 0; i < 20; i++) {
		owned.emplace_back(::eventfd(0, EFD_CLOEXEC));
		fds.push_back(owned.back().get());
	}
	int before = testing::open_fd_count();
	vfio_irq_set set{20, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, 2, 0, 20};
	EXPECT_TRUE(is_error(request(Command::device_set_irqs, bytes_of(set), fds), EINVAL));
	EXPECT_EQ(testing::open_fd_count(), before);
	EXPECT_FALSE(f.irqs.has_eventfd(2, 0));
	EXPECT_TRUE(still_serving());
}

TEST_F(MalformedTest, ReplyTypeMessagesAreIgnored)
{
	MessageHeader h = header(uint16_t(Command::version), kHdr);
	h.flags = kTypeReply;
	ASSERT_TRUE(s.client.send_raw(&h, sizeof(h)));
	EXPECT_TRUE(still_serving()) << "the next reply is VERSION's";
}

TEST_F(MalformedTest, RandomMessagesNeverCrash)
{
	std::mt19937 rng(12345);
	for (int i = 0; i < 3000; i++) {
		uint16_t cmd = uint16_t(rng() % 20);
		size_t len = rng() % 48;
		std::vector<uint8_t> p(len);
		for (auto &b : p)
			b = uint8_t(rng());
		// Keep argsz plausible half of the time so handlers go deeper.
		if (len >= 4 && (rng() & 1)) {
			uint32_t argsz = uint32_t(len);
			std::memcpy(p.data(), &argsz, 4);
		}
		// Region accesses: mostly real regions and small offsets.
		if ((cmd == 9 || cmd == 10) && len >= 16) {
			RegionAccessPayload a{rng() % 0x2000, uint32_t(rng() % 10), uint32_t(rng() % 16)};
			if (cmd == 10 && (rng() & 1))
				a.count = uint32_t(len - 16);
			std::memcpy(p.data(), &a, sizeof(a));
		}
		Message r;
		ASSERT_EQ(s.client.request(Command(cmd), p, r), Got::reply) << "message " << i;
		EXPECT_LE(r.header.size, kHdr + std::max<size_t>(len, 32) + 16 + (1u << 20));
	}
	EXPECT_TRUE(still_serving());
	EXPECT_EQ(s.finish(), Connection::End::peer_closed);
}

} // namespace
} // namespace mlx5emu::vfio_user
