// SPDX-License-Identifier: GPL-2.0
// A minimal synchronous vfio-user client: sends commands, waits for
// replies with a timeout. Used by the protocol tests; it plays QEMU.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vfio_user/message_io.h"
#include "util/unique_fd.h"

namespace mlx5emu::vfio_user {

class Client {
public:
	explicit Client(UniqueFd sock) : sock_(std::move(sock)) {}
	// Connects to a listening server socket; invalid fd on failure.
	static UniqueFd connect_unix(const std::string &path);

	int fd() const { return sock_.get(); }
	void close() { sock_.reset(); }

	// Sends a command; returns its msg_id (or -1 on a send error).
	int send(Command cmd, std::span<const uint8_t> payload, std::span<const int> fds = {},
		 uint32_t flags = 0);
	bool send_raw(const void *bytes, size_t len, std::span<const int> fds = {});

	enum class Got { reply, timeout, closed, error };
	// Waits up to timeout_ms for the next message.
	Got receive(Message &reply, int timeout_ms = 2000);
	// send() + receive(); the reply must carry the same msg_id and command.
	Got request(Command cmd, std::span<const uint8_t> payload, Message &reply,
		    std::span<const int> fds = {});
	// True once the server closed the connection (within timeout_ms).
	bool wait_closed(int timeout_ms = 2000);

private:
	UniqueFd sock_;
	uint16_t next_id_ = 1;
};

// Payload builders.
template <class T> std::vector<uint8_t> bytes_of(const T &v)
{
	const auto *p = reinterpret_cast<const uint8_t *>(&v);
	return std::vector<uint8_t>(p, p + sizeof(T));
}

} // namespace mlx5emu::vfio_user
