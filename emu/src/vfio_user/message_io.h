// SPDX-License-Identifier: GPL-2.0
// Framing of vfio-user messages on a stream socket: a 16-byte header, the
// body, and file descriptors passed as SCM_RIGHTS with any of its bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vfio_user/protocol.h"
#include "util/unique_fd.h"

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

// Reads messages from a stream socket through a buffer: one recvmsg takes
// as many messages as have arrived (a guest writing doorbells in a loop
// sends millions of small REGION_WRITEs; reading each with its own poll
// and two recvmsg calls let them pile up in QEMU, behind the driver's own
// MMIO). File descriptors arrive with the sender's sendmsg of the message
// they belong to: the kernel ends a recvmsg after the bytes that carried
// them, so they belong to the last message starting in those bytes.
class MessageReader {
public:
	MessageReader(int sock, int stop_fd) : sock_(sock), stop_fd_(stop_fd) {}
	// As read_message(); polls only when nothing is buffered.
	ReadOutcome next(Message &msg, uint32_t max_size = kMaxMessageSize);

private:
	ReadOutcome fill(size_t need, uint32_t max_size);
	struct FdChunk {
		uint64_t begin, end; // stream offsets of the recvmsg's bytes
		std::vector<UniqueFd> fds;
		bool truncated = false;
	};
	int sock_, stop_fd_;
	unsigned unpolled_ = 0; // messages taken without looking at stop_fd
	std::vector<uint8_t> buf_;
	size_t head_ = 0, tail_ = 0; // unread bytes: buf_[head_, tail_)
	uint64_t offset_ = 0;        // stream offset of buf_[head_]
	std::vector<FdChunk> fd_chunks_;
};

// Sends header + payload, attaching fds (borrowed) to the first bytes.
// Returns false on error (errno set); never raises SIGPIPE.
bool write_message(int sock, const MessageHeader &header, std::span<const uint8_t> payload,
		   std::span<const int> fds = {});

} // namespace mlx5emu::vfio_user
