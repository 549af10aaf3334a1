// SPDX-License-Identifier: GPL-2.0
// The vfio-user server of one PCI function: a listening AF_UNIX stream
// socket and an accept thread. Each accepted client is served by its own
// connection thread; one client at a time (a vfio-user device has a single
// owner). When the client goes away the function is reset and the server
// accepts the next one (a second VM boot, say). A client that connects
// while another is being served waits up to `busy_grace` for it to end,
// then is turned away.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "vfio_user/commands.h"
#include "util/unique_fd.h"

namespace mlx5emu::vfio_user {

class Server {
public:
	Server(std::string socket_path, FunctionContext ctx, std::string name,
	       std::chrono::milliseconds busy_grace = std::chrono::milliseconds(2000));
	~Server();
	Server(const Server &) = delete;
	Server &operator=(const Server &) = delete;

	// Binds (replacing a stale socket file), listens, starts the thread.
	bool start(std::string *err);
	// Ends the current connection, joins the threads, unlinks the socket.
	void stop();

	const std::string &socket_path() const { return path_; }
	uint64_t connections_served() const { return served_.load(); }
	bool client_connected() const;

private:
	void accept_loop();
	void serve(UniqueFd sock, uint64_t number);
	bool wait_idle(std::chrono::milliseconds grace);

	std::string path_;
	FunctionContext ctx_;
	std::string name_;
	std::chrono::milliseconds busy_grace_;
	UniqueFd listen_;
	UniqueFd stop_; // eventfd, readable once stop() was called
	std::thread acceptor_;
	std::thread connection_;
	mutable std::mutex mutex_;
	std::condition_variable idle_;
	bool busy_ = false;
	std::atomic<uint64_t> served_{0};
	bool started_ = false;
};

} // namespace mlx5emu::vfio_user
