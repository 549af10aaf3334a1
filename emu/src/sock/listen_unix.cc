// SPDX-License-Identifier: GPL-2.0
#include "sock/listen_unix.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace mlx5emu {
namespace {

bool fits(const std::string &path)
{
	return !path.empty() && path.size() < sizeof(sockaddr_un{}.sun_path);
}

// ".NAME.PID" beside NAME: unique to this process, in the same directory
// (rename() does not cross file systems).
std::string sibling(const std::string &path)
{
	size_t slash = path.rfind('/');
	std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
	std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
	return dir + "." + base + "." + std::to_string(::getpid());
}

} // namespace

int listen_unix(const std::string &path, int backlog, std::string *err,
		const std::function<void()> &between_bind_and_listen)
{
	auto fail = [&](const std::string &what, int e) {
		*err = path + ": " + what + (e ? std::string(": ") + std::strerror(e) : "");
		return -1;
	};
	if (!fits(path))
		return fail("socket path empty or longer than " + std::to_string(sizeof(sockaddr_un{}.sun_path) - 1), 0);
	struct stat st;
	if (::lstat(path.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode))
		return fail("exists and is not a socket", 0);
	// A path too long for the temporary name is bound in place.
	std::string tmp = sibling(path);
	const std::string &at = fits(tmp) ? tmp : path;

	int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket", errno);
	sockaddr_un a{};
	a.sun_family = AF_UNIX;
	std::memcpy(a.sun_path, at.c_str(), at.size() + 1);
	::unlink(at.c_str()); // a stale socket of an earlier run
	if (::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) < 0) {
		int e = errno;
		::close(fd);
		return fail("bind " + at, e);
	}
	if (between_bind_and_listen)
		between_bind_and_listen();
	if (::listen(fd, backlog) < 0 || (&at != &path && ::rename(at.c_str(), path.c_str()) < 0)) {
		int e = errno;
		::close(fd);
		::unlink(at.c_str());
		return fail("listen/rename " + at, e);
	}
	return fd;
}

} // namespace mlx5emu
