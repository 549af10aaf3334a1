// SPDX-License-Identifier: GPL-2.0
// One client connection: read a message, handle it, reply (unless the
// command asked for NO_REPLY), until the peer hangs up, the stream is
// beyond repair, or the server stops. Runs on the caller's thread.
#pragma once

#include <string>

#include "vfio_user/commands.h"
#include "util/unique_fd.h"

namespace mlx5emu::vfio_user {

class Connection {
public:
	// stop_fd (borrowed, -1 = none): readable = stop serving.
	Connection(UniqueFd sock, FunctionContext ctx, int stop_fd, std::string name);

	enum class End { peer_closed, stopped, protocol_error, io_error };
	// Serves the connection, then ends the session (interrupts released,
	// function reset, DMA unmapped).
	End run();

	uint64_t messages() const { return messages_; }

private:
	bool send_reply(const MessageHeader &request, const Reply &reply);
	// handler_.handle(), but an exception (a bug, an allocation the
	// message made too large) fails that message with EIO: the server
	// and every other function go on.
	Reply handle_guarded(Message &msg);

	UniqueFd sock_;
	CommandHandler handler_;
	int stop_fd_;
	std::string name_;
	uint64_t messages_ = 0;
};

const char *to_string(Connection::End end);

} // namespace mlx5emu::vfio_user
