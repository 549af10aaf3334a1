// SPDX-License-Identifier: GPL-2.0
// Framing of vfio-user messages on a stream socket: a 16-byte header, the
// body, and file descriptors passed as SCM_RIGHTS with any of its bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vfio_user/protocol.h"
#include "vfio_user/unique_fd.h"

namespace mlx5emu::vfio_user {

struct Message {
	MessageHeader header{};
	std::vector<uint8_t> body;  // header.size - 16 bytes
	std::vector<UniqueFd> fds;  // closed with the message unless taken
	bool fds_truncated = false; // the peer sent more than kMaxMsgFds fds

	std::span<const uint8_t> payload() const { return body; }
};

enum class ReadOutcome {
	message,     // msg is complete
	peer_closed, // orderly hangup (possibly mid-message)
	stopped,     // stop_fd became readable
	bad_size,    // header.size < 16 or > kMaxMessageSize; header valid, body not read
	io_error,    // errno is set
};

// Reads one message. Blocks in poll() on sock and stop_fd (-1 = none) so
// a server can be stopped while waiting. max_size bounds header.size.
ReadOutcome read_message(int sock, int stop_fd, Message &msg, uint32_t max_size = kMaxMessageSize);

// Sends header + payload, attaching fds (borrowed) to the first bytes.
// Returns false on error (errno set); never raises SIGPIPE.
bool write_message(int sock, const MessageHeader &header, std::span<const uint8_t> payload,
		   std::span<const int> fds = {});

} // namespace mlx5emu::vfio_user
