// SPDX-License-Identifier: GPL-2.0
#include "vfio_user/message_io.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mlx5emu::vfio_user {

namespace {

enum class WaitResult { readable, stopped, error };

WaitResult wait_readable(int sock, int stop_fd)
{
	pollfd pfd[2] = {{sock, POLLIN, 0}, {stop_fd, POLLIN, 0}};
	for (;;) {
		int n = ::poll(pfd, stop_fd >= 0 ? 2 : 1, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return WaitResult::error;
		}
		if (stop_fd >= 0 && (pfd[1].revents & POLLIN))
			return WaitResult::stopped;
		if (pfd[0].revents)
			return WaitResult::readable; // data, hangup or error: recvmsg tells
	}
}

// Collects SCM_RIGHTS fds from one recvmsg's control data.
void take_fds(msghdr &mh, Message &msg)
{
	if (mh.msg_flags & MSG_CTRUNC)
		msg.fds_truncated = true;
	for (cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *data = CMSG_DATA(c);
		for (size_t i = 0; i < n; i++) {
			int fd;
			std::memcpy(&fd, data + i * sizeof(int), sizeof(int));
			if (msg.fds.size() < kMaxMsgFds)
				msg.fds.emplace_back(fd);
			else {
				UniqueFd drop(fd);
				msg.fds_truncated = true;
			}
		}
	}
}

// Reads exactly len bytes (fds collected into msg). Returns message on
// success, peer_closed on EOF, stopped or io_error.
ReadOutcome read_exact(int sock, int stop_fd, void *buf, size_t len, Message &msg)
{
	// Room for a few more fds than allowed so an excess is detected, not
	// silently truncated by the kernel.
	alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * (kMaxMsgFds + 4))];
	size_t done = 0;
	while (done < len) {
		switch (wait_readable(sock, stop_fd)) {
		case WaitResult::stopped: return ReadOutcome::stopped;
		case WaitResult::error: return ReadOutcome::io_error;
		case WaitResult::readable: break;
		}
		iovec iov{static_cast<char *>(buf) + done, len - done};
		msghdr mh{};
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		ssize_t n = ::recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ECONNRESET)
				return ReadOutcome::peer_closed;
			return ReadOutcome::io_error;
		}
		take_fds(mh, msg);
		if (n == 0)
			return ReadOutcome::peer_closed;
		done += size_t(n);
	}
	return ReadOutcome::message;
}

} // namespace

ReadOutcome read_message(int sock, int stop_fd, Message &msg, uint32_t max_size)
{
	msg = Message{};
	ReadOutcome r = read_exact(sock, stop_fd, &msg.header, sizeof(msg.header), msg);
	if (r != ReadOutcome::message)
		return r;
	if (msg.header.size < sizeof(MessageHeader) || msg.header.size > max_size)
		return ReadOutcome::bad_size;
	msg.body.resize(msg.header.size - sizeof(MessageHeader));
	if (msg.body.empty())
		return ReadOutcome::message;
	return read_exact(sock, stop_fd, msg.body.data(), msg.body.size(), msg);
}

ReadOutcome MessageReader::fill(size_t need, uint32_t max_size)
{
	while (tail_ - head_ < need) {
		if (head_ && (head_ == tail_ || buf_.size() - head_ < need)) {
			std::memmove(buf_.data(), buf_.data() + head_, tail_ - head_);
			tail_ -= head_;
			head_ = 0;
		}
		size_t want = std::max<size_t>(need, 64 * 1024);
		if (buf_.size() < want)
			buf_.resize(std::min<size_t>(std::max(want, buf_.size() * 2), size_t(max_size) + 64 * 1024));
		alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * (kMaxMsgFds + 4))];
		iovec iov{buf_.data() + tail_, buf_.size() - tail_};
		msghdr mh{};
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		ssize_t n = ::recvmsg(sock_, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				unpolled_ = 0;
				switch (wait_readable(sock_, stop_fd_)) {
				case WaitResult::stopped: return ReadOutcome::stopped;
				case WaitResult::error: return ReadOutcome::io_error;
				case WaitResult::readable: continue;
				}
			}
			if (errno == ECONNRESET)
				return ReadOutcome::peer_closed;
			return ReadOutcome::io_error;
		}
		uint64_t begin = offset_ + (tail_ - head_);
		if (mh.msg_controllen || (mh.msg_flags & MSG_CTRUNC)) {
			Message tmp;
			take_fds(mh, tmp);
			if (!tmp.fds.empty() || tmp.fds_truncated)
				fd_chunks_.push_back({begin, begin + uint64_t(n), std::move(tmp.fds), tmp.fds_truncated});
		}
		if (n == 0)
			return ReadOutcome::peer_closed;
		tail_ += size_t(n);
	}
	return ReadOutcome::message;
}

ReadOutcome MessageReader::next(Message &msg, uint32_t max_size)
{
	msg = Message{};
	// A peer that never pauses never makes fill() poll: look at stop_fd
	// now and then anyway.
	if (stop_fd_ >= 0 && ++unpolled_ >= 1024) {
		unpolled_ = 0;
		pollfd p{stop_fd_, POLLIN, 0};
		if (::poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
			return ReadOutcome::stopped;
	}
	ReadOutcome r = fill(sizeof(msg.header), max_size);
	if (r != ReadOutcome::message)
		return r;
	std::memcpy(&msg.header, buf_.data() + head_, sizeof(msg.header));
	if (msg.header.size < sizeof(MessageHeader) || msg.header.size > max_size)
		return ReadOutcome::bad_size;
	r = fill(msg.header.size, max_size);
	if (r != ReadOutcome::message)
		return r;
	msg.body.assign(buf_.begin() + head_ + sizeof(MessageHeader), buf_.begin() + head_ + msg.header.size);
	uint64_t start = offset_, end = offset_ + msg.header.size;
	head_ += msg.header.size;
	offset_ = end;
	for (auto it = fd_chunks_.begin(); it != fd_chunks_.end();) {
		if (it->begin <= start && start < it->end && end >= it->end) {
			for (UniqueFd &fd : it->fds)
				msg.fds.push_back(std::move(fd));
			msg.fds_truncated |= it->truncated;
			it = fd_chunks_.erase(it);
		} else if (it->end <= start) {
			it = fd_chunks_.erase(it); // no message started in it: dropped (closed)
		} else {
			++it;
		}
	}
	return ReadOutcome::message;
}

bool write_message(int sock, const MessageHeader &header, std::span<const uint8_t> payload,
		   std::span<const int> fds)
{
	iovec iov[2] = {
		{const_cast<MessageHeader *>(&header), sizeof(header)},
		{const_cast<uint8_t *>(payload.data()), payload.size()},
	};
	size_t total = sizeof(header) + payload.size();
	std::vector<cmsghdr> control(CMSG_SPACE(sizeof(int) * fds.size()) / sizeof(cmsghdr) + 1);
	size_t sent = 0;
	bool fd_pending = !fds.empty();
	while (sent < total) {
		// Skip what was already sent.
		iovec cur[2];
		int n_iov = 0;
		size_t skip = sent;
		for (const iovec &v : iov) {
			if (skip >= v.iov_len) {
				skip -= v.iov_len;
				continue;
			}
			cur[n_iov++] = {static_cast<char *>(v.iov_base) + skip, v.iov_len - skip};
			skip = 0;
		}
		msghdr mh{};
		mh.msg_iov = cur;
		mh.msg_iovlen = n_iov;
		if (fd_pending) {
			mh.msg_control = control.data();
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
			cmsghdr *c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
			std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
		}
		ssize_t n = ::sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return false;
		}
		fd_pending = false;
		sent += size_t(n);
	}
	return true;
}

} // namespace mlx5emu::vfio_user
