// SPDX-License-Identifier: GPL-2.0
#include "vfio_user/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

namespace mlx5emu::vfio_user {

UniqueFd Client::connect_unix(const std::string &path)
{
	sockaddr_un addr{};
	addr.sun_family = AF_UNIX;
	if (path.size() >= sizeof(addr.sun_path))
		return UniqueFd();
	std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
	UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (!s || ::connect(s.get(), reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) < 0)
		return UniqueFd();
	return s;
}

int Client::send(Command cmd, std::span<const uint8_t> payload, std::span<const int> fds, uint32_t flags)
{
	MessageHeader h{};
	h.msg_id = next_id_++;
	h.command = uint16_t(cmd);
	h.size = uint32_t(sizeof(h) + payload.size());
	h.flags = kTypeCommand | flags;
	if (!write_message(sock_.get(), h, payload, fds))
		return -1;
	return h.msg_id;
}

bool Client::send_raw(const void *bytes, size_t len, std::span<const int> fds)
{
	// Reuse the framing writer: treat the first 16 bytes as the header.
	if (len < sizeof(MessageHeader)) {
		iovec iov{const_cast<void *>(bytes), len};
		msghdr mh{};
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		return ::sendmsg(sock_.get(), &mh, MSG_NOSIGNAL) == ssize_t(len);
	}
	MessageHeader h;
	std::memcpy(&h, bytes, sizeof(h));
	auto *p = static_cast<const uint8_t *>(bytes) + sizeof(h);
	return write_message(sock_.get(), h, std::span<const uint8_t>(p, len - sizeof(h)), fds);
}

Client::Got Client::receive(Message &reply, int timeout_ms)
{
	pollfd pfd{sock_.get(), POLLIN, 0};
	int n = ::poll(&pfd, 1, timeout_ms);
	if (n == 0)
		return Got::timeout;
	if (n < 0)
		return Got::error;
	switch (read_message(sock_.get(), -1, reply)) {
	case ReadOutcome::message: return Got::reply;
	case ReadOutcome::peer_closed: return Got::closed;
	default: return Got::error;
	}
}

Client::Got Client::request(Command cmd, std::span<const uint8_t> payload, Message &reply,
			    std::span<const int> fds)
{
	int id = send(cmd, payload, fds);
	if (id < 0)
		return Got::error;
	Got g = receive(reply);
	if (g == Got::reply && (reply.header.msg_id != id || reply.header.command != uint16_t(cmd)))
		return Got::error;
	return g;
}

bool Client::wait_closed(int timeout_ms)
{
	for (;;) {
		Message m;
		Got g = receive(m, timeout_ms);
		if (g == Got::closed)
			return true;
		if (g != Got::reply)
			return g == Got::error; // ECONNRESET and friends count as closed
	}
}

} // namespace mlx5emu::vfio_user
