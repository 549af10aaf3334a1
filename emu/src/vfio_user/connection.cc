// SPDX-License-Identifier: GPL-2.0
#include "vfio_user/connection.h"

#include <cerrno>
#include <cstring>
#include <exception>
#include <string>

#include "util/log.h"

namespace mlx5emu::vfio_user {

const char *to_string(Connection::End end)
{
	switch (end) {
	case Connection::End::peer_closed: return "peer hung up";
	case Connection::End::stopped: return "server stopping";
	case Connection::End::protocol_error: return "protocol error";
	case Connection::End::io_error: return "socket error";
	}
	return "?";
}

Connection::Connection(UniqueFd sock, FunctionContext ctx, int stop_fd, std::string name)
	: sock_(std::move(sock)), handler_(ctx, name), stop_fd_(stop_fd), name_(std::move(name))
{
}

Reply Connection::handle_guarded(Message &msg)
{
	std::string what = "not a std::exception";
	try {
		return handler_.handle(msg);
	} catch (const std::exception &e) {
		what = e.what(); // copied: the exception ends with its handler
	} catch (...) {
	}
	log_info("%s: %s id %u threw (%s): failed with EIO", name_.c_str(), command_name(msg.header.command),
		 msg.header.msg_id, what.c_str());
	return Reply::failure(EIO);
}

bool Connection::send_reply(const MessageHeader &request, const Reply &reply)
{
	MessageHeader h{};
	h.msg_id = request.msg_id;
	h.command = request.command;
	h.flags = kTypeReply;
	std::span<const uint8_t> payload;
	if (reply.error) {
		h.flags |= kFlagError;
		h.error = uint32_t(reply.error);
	} else {
		payload = reply.payload;
	}
	h.size = uint32_t(sizeof(h) + payload.size());
	int fd = reply.error ? -1 : reply.fd;
	std::span<const int> fds;
	if (fd >= 0)
		fds = std::span<const int>(&fd, 1);
	if (!write_message(sock_.get(), h, payload, fds)) {
		log_info("%s: sending the %s reply failed: %s", name_.c_str(), command_name(h.command),
			 std::strerror(errno));
		return false;
	}
	return true;
}

Connection::End Connection::run()
{
	End end = End::peer_closed;
	MessageReader reader(sock_.get(), stop_fd_);
	for (;;) {
		Message msg;
		ReadOutcome got = reader.next(msg);
		if (got == ReadOutcome::peer_closed) {
			end = End::peer_closed;
			break;
		}
		if (got == ReadOutcome::stopped) {
			end = End::stopped;
			break;
		}
		if (got == ReadOutcome::io_error) {
			log_info("%s: receive failed: %s", name_.c_str(), std::strerror(errno));
			end = End::io_error;
			break;
		}
		if (got == ReadOutcome::bad_size) {
			// The stream cannot be resynchronised: answer and hang up.
			log_info("%s: message %u (%s) has size %u: dropping the connection", name_.c_str(),
				 msg.header.msg_id, command_name(msg.header.command), msg.header.size);
			send_reply(msg.header, Reply::failure(EINVAL));
			end = End::protocol_error;
			break;
		}
		messages_++;
		const MessageHeader &h = msg.header;
		if ((h.flags & kFlagTypeMask) != kTypeCommand) {
			// We never send requests, so the client has nothing to answer.
			log_info("%s: unexpected message type %u (command %u) ignored", name_.c_str(),
				 h.flags & kFlagTypeMask, h.command);
			continue;
		}
		log_debug("%s: <- %s id %u size %u fds %zu", name_.c_str(), command_name(h.command), h.msg_id,
			  h.size, msg.fds.size());
		Reply reply = handle_guarded(msg);
		msg.fds.clear(); // fds the handler did not take: closed before replying
		if (h.flags & kFlagNoReply) {
			if (reply.error)
				log_info("%s: %s (no reply requested) failed: %s", name_.c_str(),
					 command_name(h.command), std::strerror(reply.error));
			continue;
		}
		if (!send_reply(h, reply)) {
			end = End::io_error;
			break;
		}
	}
	log_info("%s: connection closed (%s) after %llu messages", name_.c_str(), to_string(end),
		 (unsigned long long)messages_);
	handler_.end_session();
	sock_.reset();
	return end;
}

} // namespace mlx5emu::vfio_user
