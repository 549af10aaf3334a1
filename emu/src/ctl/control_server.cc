// SPDX-License-Identifier: GPL-2.0
// The control channel's UNIX-socket server and its command-line client.
#include "ctl/control_server.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

#include "ctl/ctl_commands.h"
#include "ctl/process_death.h"
#include "sock/listen_unix.h"

namespace mlx5emu {

namespace {

constexpr size_t kMaxLine = 4096;
constexpr size_t kMaxClients = 16;

bool fill_addr(const std::string &path, sockaddr_un *a, std::string *err)
{
	std::memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	if (path.empty() || path.size() >= sizeof a->sun_path) {
		*err = "socket path empty or too long: " + path;
		return false;
	}
	std::memcpy(a->sun_path, path.c_str(), path.size() + 1);
	return true;
}

bool write_all(int fd, const std::string &s)
{
	size_t off = 0;
	while (off < s.size()) {
		ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		off += static_cast<size_t>(n);
	}
	return true;
}

} // namespace

struct ControlServer::Impl {
	std::string path;
	std::vector<Hca *> hcas;
	std::mutex exec_mu;
	int listen_fd = -1;
	int wake[2] = {-1, -1};
	std::thread thread;

	struct Client {
		int fd;
		std::string buf;
	};

	void run();
};

void ControlServer::Impl::run()
{
	std::vector<Client> clients;
	for (;;) {
		std::vector<pollfd> pfds;
		pfds.push_back({wake[0], POLLIN, 0});
		pfds.push_back({listen_fd, POLLIN, 0});
		for (const Client &c : clients)
			pfds.push_back({c.fd, POLLIN, 0});
		if (::poll(pfds.data(), pfds.size(), -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfds[0].revents)
			break;
		if (pfds[1].revents & POLLIN) {
			int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
			if (fd >= 0) {
				if (clients.size() >= kMaxClients) {
					write_all(fd, "error: too many clients\n");
					::close(fd);
				} else {
					clients.push_back({fd, {}});
				}
			}
		}
		for (size_t i = 2; i < pfds.size(); ++i) {
			if (!pfds[i].revents)
				continue;
			Client &c = clients[i - 2];
			char tmp[1024];
			ssize_t n = ::recv(c.fd, tmp, sizeof tmp, 0);
			bool drop = n <= 0;
			if (n > 0) {
				c.buf.append(tmp, static_cast<size_t>(n));
				size_t nl;
				while (!drop && (nl = c.buf.find('\n')) != std::string::npos) {
					std::string line = c.buf.substr(0, nl);
					c.buf.erase(0, nl + 1);
					if (!line.empty() && line.back() == '\r')
						line.pop_back();
					std::string answer;
					{
						std::lock_guard<std::mutex> lk(exec_mu);
						answer = execute_control_command(hcas, line);
					}
					drop = !write_all(c.fd, answer);
					// The answer is in the peer's socket before the process goes.
					if (is_die_command(line))
						die_on_request();
				}
				if (c.buf.size() > kMaxLine) {
					write_all(c.fd, "error: line too long\n");
					drop = true;
				}
			}
			if (drop) {
				::close(c.fd);
				c.fd = -1;
			}
		}
		std::erase_if(clients, [](const Client &c) { return c.fd < 0; });
	}
	for (Client &c : clients)
		::close(c.fd);
}

ControlServer::ControlServer(std::string socket_path, std::vector<Hca *> hcas) : impl_(std::make_unique<Impl>())
{
	impl_->path = std::move(socket_path);
	impl_->hcas = std::move(hcas);
}

ControlServer::~ControlServer() { stop(); }

bool ControlServer::start(std::string *err)
{
	std::string dummy;
	if (!err)
		err = &dummy;
	if (impl_->thread.joinable())
		return true;
	int fd = listen_unix(impl_->path, 8, err);
	if (fd < 0)
		return false;
	if (::pipe2(impl_->wake, O_CLOEXEC) < 0) {
		*err = std::string("pipe: ") + std::strerror(errno);
		::close(fd);
		::unlink(impl_->path.c_str());
		return false;
	}
	impl_->listen_fd = fd;
	impl_->thread = std::thread([this] { impl_->run(); });
	return true;
}

void ControlServer::stop()
{
	if (!impl_ || !impl_->thread.joinable())
		return;
	char b = 1;
	(void)!::write(impl_->wake[1], &b, 1);
	impl_->thread.join();
	::close(impl_->listen_fd);
	::close(impl_->wake[0]);
	::close(impl_->wake[1]);
	impl_->listen_fd = impl_->wake[0] = impl_->wake[1] = -1;
	::unlink(impl_->path.c_str());
}

std::string ControlServer::execute(const std::string &line)
{
	std::lock_guard<std::mutex> lk(impl_->exec_mu);
	return execute_control_command(impl_->hcas, line);
}

// ---------------------------------------------------------------------------
// Client

bool control_request(const std::string &path, const std::string &line, std::string *answer, std::string *err)
{
	sockaddr_un a;
	if (!fill_addr(path, &a, err))
		return false;
	int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = std::string("socket: ") + std::strerror(errno);
		return false;
	}
	if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) < 0) {
		*err = "connect " + path + ": " + std::strerror(errno);
		::close(fd);
		return false;
	}
	if (!write_all(fd, line + "\n")) {
		*err = "send failed";
		::close(fd);
		return false;
	}
	std::string buf;
	answer->clear();
	bool first = true, is_block = false, done = false;
	while (!done) {
		size_t nl;
		while ((nl = buf.find('\n')) != std::string::npos) {
			std::string l = buf.substr(0, nl);
			buf.erase(0, nl + 1);
			if (first) {
				first = false;
				is_block = !(l.rfind("ok", 0) == 0 || l.rfind("error:", 0) == 0);
				*answer += l + "\n";
				if (!is_block) {
					done = true;
					break;
				}
				continue;
			}
			if (l == ".") {
				done = true;
				break;
			}
			*answer += l + "\n";
		}
		if (done)
			break;
		char tmp[4096];
		ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = "connection closed before the answer ended";
			::close(fd);
			return false;
		}
		buf.append(tmp, static_cast<size_t>(n));
	}
	::close(fd);
	return true;
}

int control_client_main(int argc, char **argv)
{
	std::string path;
	std::vector<std::string> words;
	for (int i = 1; i < argc; ++i) {
		std::string a = argv[i];
		if (a == "--ctl" && i + 1 < argc) {
			path = argv[++i];
		} else if (a.rfind("--ctl=", 0) == 0) {
			path = a.substr(6);
		} else if (words.empty() && path.empty() && a == "ctl") {
			continue; // the subcommand name itself
		} else {
			words.push_back(a);
		}
	}
	if (path.empty() || words.empty()) {
		std::fprintf(stderr, "usage: mlx5-emu ctl --ctl SOCKET COMMAND... (COMMAND 'help' lists commands)\n");
		return 2;
	}
	std::string line;
	for (const std::string &w : words)
		line += (line.empty() ? "" : " ") + w;
	std::string answer, err;
	if (!control_request(path, line, &answer, &err)) {
		std::fprintf(stderr, "mlx5-emu ctl: %s\n", err.c_str());
		return 2;
	}
	std::fputs(answer.c_str(), stdout);
	return answer.rfind("error:", 0) == 0 ? 1 : 0;
}

} // namespace mlx5emu
