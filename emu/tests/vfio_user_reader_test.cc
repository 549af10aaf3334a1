// SPDX-License-Identifier: GPL-2.0
// MessageReader: messages that arrived together come out one by one, a
// message split over several sends is reassembled, and file descriptors
// stay with the message they were sent with.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <thread>

#include "vfio_user/message_io.h"

namespace mlx5emu::vfio_user {
namespace {

struct Pair {
	UniqueFd a, b;
	Pair()
	{
		int sv[2];
		EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		a = UniqueFd(sv[0]);
		b = UniqueFd(sv[1]);
	}
};

bool send(int sock, uint16_t id, size_t body, std::span<const int> fds = {})
{
	MessageHeader h{};
	h.msg_id = id;
	h.size = uint32_t(sizeof(h) + body);
	std::vector<uint8_t> p(body, uint8_t(id));
	return write_message(sock, h, p, fds);
}

TEST(MessageReader, ManyMessagesWithFdsInTheMiddle)
{
	Pair s;
	UniqueFd e1(::eventfd(0, EFD_CLOEXEC)), e2(::eventfd(0, EFD_CLOEXEC));
	int f1 = e1.get(), f2[2] = {e1.get(), e2.get()};
	// All of them queued before the first read: one recvmsg may see many.
	for (uint16_t i = 0; i < 200; ++i) {
		if (i == 57)
			ASSERT_TRUE(send(s.a.get(), i, 24, std::span<const int>(&f1, 1)));
		else if (i == 58)
			ASSERT_TRUE(send(s.a.get(), i, 8, std::span<const int>(f2, 2)));
		else
			ASSERT_TRUE(send(s.a.get(), i, i % 3 ? 8 : 40));
	}
	MessageReader r(s.b.get(), -1);
	for (uint16_t i = 0; i < 200; ++i) {
		Message m;
		ASSERT_EQ(r.next(m), ReadOutcome::message) << i;
		EXPECT_EQ(m.header.msg_id, i);
		EXPECT_EQ(m.body.size(), i == 57 ? 24u : i == 58 ? 8u : i % 3 ? 8u : 40u);
		EXPECT_EQ(m.fds.size(), i == 57 ? 1u : i == 58 ? 2u : 0u) << "message " << i;
	}
}

TEST(MessageReader, LargeMessageInPiecesAndPeerClose)
{
	Pair s;
	std::thread t([&] {
		MessageHeader h{};
		h.msg_id = 7;
		h.size = uint32_t(sizeof(h) + 300000);
		std::vector<uint8_t> p(300000, 0x5a);
		write_message(s.a.get(), h, p);
		s.a.reset();
	});
	MessageReader r(s.b.get(), -1);
	Message m;
	ASSERT_EQ(r.next(m), ReadOutcome::message);
	EXPECT_EQ(m.body.size(), 300000u);
	EXPECT_EQ(m.body.back(), 0x5a);
	EXPECT_EQ(r.next(m), ReadOutcome::peer_closed);
	t.join();
}

} // namespace
} // namespace mlx5emu::vfio_user
