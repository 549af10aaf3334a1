// SPDX-License-Identifier: GPL-2.0
// listen_unix(): the socket's path appears only once it accepts; stale
// sockets are replaced, other files are not.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sock/listen_unix.h"

namespace mlx5emu::test {
namespace {

class ListenUnix : public ::testing::Test {
protected:
	void SetUp() override
	{
		char tmpl[] = "/tmp/mlx5emu-sock-XXXXXX";
		ASSERT_NE(::mkdtemp(tmpl), nullptr);
		dir = tmpl;
		path = dir + "/s.sock";
	}
	void TearDown() override
	{
		::unlink(path.c_str());
		::rmdir(dir.c_str());
	}
	// connect() to path: 0, or the errno.
	static int connect_to(const std::string &p)
	{
		int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		sockaddr_un a{};
		a.sun_family = AF_UNIX;
		std::memcpy(a.sun_path, p.c_str(), p.size() + 1);
		int r = ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) < 0 ? errno : 0;
		::close(fd);
		return r;
	}
	std::string dir, path;
};

// A client that connects the instant the path shows up is never refused:
// between bind() and listen() the path does not exist yet (bound at the
// path itself, it would, and refuse: a CI run's control client got
// ECONNREFUSED), and once listen_unix() returns it accepts.
TEST_F(ListenUnix, PathAppearsOnlyOnceItAccepts)
{
	std::string err;
	int between = -1;
	int fd = listen_unix(path, 4, &err, [&] {
		struct stat st;
		between = ::lstat(path.c_str(), &st) == 0 ? connect_to(path) : ENOENT;
	});
	ASSERT_GE(fd, 0) << err;
	EXPECT_EQ(between, ENOENT) << "the path existed before the socket listened: connect() "
				   << (between ? std::strerror(between) : "worked");
	EXPECT_EQ(connect_to(path), 0);
	::close(fd);
}

TEST_F(ListenUnix, StaleSocketIsReplacedOtherFilesAreNot)
{
	std::string err;
	int old = listen_unix(path, 4, &err);
	ASSERT_GE(old, 0) << err;
	::close(old); // the path stays: a stale socket
	int fd = listen_unix(path, 4, &err);
	ASSERT_GE(fd, 0) << err;
	EXPECT_EQ(connect_to(path), 0);
	::close(fd);
	::unlink(path.c_str());

	int f = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_GE(f, 0);
	::close(f);
	EXPECT_LT(listen_unix(path, 4, &err), 0);
	EXPECT_NE(err.find("not a socket"), std::string::npos) << err;
	struct stat st;
	ASSERT_EQ(::stat(path.c_str(), &st), 0);
	EXPECT_TRUE(S_ISREG(st.st_mode)) << "the file is left alone";
}

TEST_F(ListenUnix, TooLongAPathIsAnError)
{
	std::string err;
	EXPECT_LT(listen_unix(dir + "/" + std::string(120, 'x'), 4, &err), 0);
	EXPECT_NE(err.find("longer than"), std::string::npos) << err;
	EXPECT_LT(listen_unix("", 4, &err), 0);
}

} // namespace
} // namespace mlx5emu::test
