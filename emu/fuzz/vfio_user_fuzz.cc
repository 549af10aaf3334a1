// SPDX-License-Identifier: GPL-2.0
// Fuzz target: the vfio-user message parser and command handlers. The input
// is the byte stream a client writes on the socket: messages back to back,
// as QEMU sends them. A Connection serves it from one end of a socketpair
// against a PCI function with a recording BAR0 (vfio_user_fixture.h); a
// thread on the other end sends the input, one sendmsg per message while
// the headers' sizes hold (a DMA_MAP carries a memfd, as from QEMU), then
// the rest raw, hangs up and reads every reply. Passed when the input
// leaves the server without a crash or sanitizer report.
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "vfio_user/protocol.h"
#include "vfio_user_fixture.h"

namespace {

using namespace mlx5emu;
using vfio_user::MessageHeader;

int guest_ram_fd()
{
	static int fd = [] {
		int f = ::memfd_create("fuzz-guest-ram", MFD_CLOEXEC);
		if (f >= 0 && ::ftruncate(f, 1 << 20) != 0)
			f = -1;
		return f;
	}();
	return fd;
}

// The client: sends `data` on `sock` (non-blocking), then hangs up its
// sending side and reads replies until the server closes.
void client(int sock, const uint8_t *data, size_t size)
{
	size_t at = 0;
	bool sending = true;
	for (;;) {
		if (sending && at == size) {
			::shutdown(sock, SHUT_WR);
			sending = false;
		}
		pollfd p{sock, short(POLLIN | (sending ? POLLOUT : 0)), 0};
		if (::poll(&p, 1, -1) < 0)
			return;
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			uint8_t sink[65536];
			ssize_t n = ::recv(sock, sink, sizeof sink, MSG_DONTWAIT);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				return;
		}
		if (!sending || !(p.revents & POLLOUT))
			continue;
		// One message per sendmsg while the header's size fits the rest.
		size_t len = size - at;
		MessageHeader h{};
		bool whole = false;
		if (len >= sizeof h) {
			std::memcpy(&h, data + at, sizeof h);
			if (h.size >= sizeof h && h.size <= len) {
				len = h.size;
				whole = true;
			}
		}
		iovec iov{const_cast<uint8_t *>(data + at), len};
		msghdr m{};
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
		int fd = guest_ram_fd();
		if (whole && h.command == uint16_t(vfio_user::Command::dma_map) && fd >= 0) {
			m.msg_control = ctl;
			m.msg_controllen = sizeof ctl;
			cmsghdr *c = CMSG_FIRSTHDR(&m);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
		}
		ssize_t n = ::sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			at += size_t(n);
		else if (errno != EAGAIN && errno != EINTR)
			sending = false, at = size; // the server hung up: read what is left
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 0;
	mlx5emu::testing::FunctionHarness f;
	std::thread peer(client, sv[0], data, size);
	{
		vfio_user::Connection c(UniqueFd(sv[1]), f.ctx(), -1, "fuzz");
		c.run();
	}
	peer.join();
	::close(sv[0]);
	return 0;
}
