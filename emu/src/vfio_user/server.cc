// SPDX-License-Identifier: GPL-2.0
#include "vfio_user/server.h"

#include "sock/listen_unix.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "vfio_user/connection.h"
#include "util/log.h"

namespace mlx5emu::vfio_user {

Server::Server(std::string socket_path, FunctionContext ctx, std::string name,
	       std::chrono::milliseconds busy_grace)
	: path_(std::move(socket_path)), ctx_(ctx), name_(std::move(name)), busy_grace_(busy_grace)
{
}

Server::~Server() { stop(); }

bool Server::start(std::string *err)
{
	auto fail = [&](const std::string &what) {
		*err = path_ + ": " + what;
		listen_.reset();
		stop_.reset();
		return false;
	};
	std::string why;
	listen_.reset(listen_unix(path_, 4, &why));
	if (!listen_) {
		*err = why;
		return false;
	}
	stop_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (!stop_) {
		int e = errno;
		::unlink(path_.c_str());
		return fail(std::string("eventfd: ") + std::strerror(e));
	}
	started_ = true;
	acceptor_ = std::thread([this] { accept_loop(); });
	return true;
}

void Server::stop()
{
	if (!started_)
		return;
	started_ = false;
	const uint64_t one = 1;
	if (::write(stop_.get(), &one, sizeof(one)) < 0)
		log_info("%s: stop eventfd write failed: %s", name_.c_str(), std::strerror(errno));
	if (acceptor_.joinable())
		acceptor_.join();
	if (connection_.joinable())
		connection_.join();
	listen_.reset();
	stop_.reset();
	::unlink(path_.c_str());
}

bool Server::client_connected() const
{
	std::lock_guard guard(mutex_);
	return busy_;
}

bool Server::wait_idle(std::chrono::milliseconds grace)
{
	std::unique_lock guard(mutex_);
	return idle_.wait_for(guard, grace, [this] { return !busy_; });
}

void Server::serve(UniqueFd sock, uint64_t number)
{
	std::string name = name_ + " connection " + std::to_string(number);
	Connection conn(std::move(sock), ctx_, stop_.get(), name);
	conn.run(); // logs the end and resets the function
	std::lock_guard guard(mutex_);
	busy_ = false;
	idle_.notify_all();
}

void Server::accept_loop()
{
	pollfd pfd[2] = {{listen_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
	for (;;) {
		int n = ::poll(pfd, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_info("%s: poll: %s; no longer accepting", name_.c_str(), std::strerror(errno));
			return;
		}
		if (pfd[1].revents & POLLIN)
			return;
		if (!(pfd[0].revents & POLLIN))
			continue;
		UniqueFd sock(::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC));
		if (!sock) {
			if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
				log_info("%s: accept: %s", name_.c_str(), std::strerror(errno));
			continue;
		}
		bool idle = wait_idle(busy_grace_);
		pollfd stopping{stop_.get(), POLLIN, 0};
		if (::poll(&stopping, 1, 0) > 0)
			return;
		if (!idle) {
			log_info("%s: a second client connected while one is being served: turned away",
				 name_.c_str());
			continue; // closes sock
		}
		if (connection_.joinable())
			connection_.join(); // finished: it cleared busy_
		uint64_t number = served_.fetch_add(1) + 1;
		log_info("%s: client connected on %s", name_.c_str(), path_.c_str());
		{
			std::lock_guard guard(mutex_);
			busy_ = true;
		}
		connection_ = std::thread([this, s = std::move(sock), number]() mutable {
			serve(std::move(s), number);
		});
	}
}

} // namespace mlx5emu::vfio_user
