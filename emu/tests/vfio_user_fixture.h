// SPDX-License-Identifier: GPL-2.0
// Shared by the vfio_user_* tests: a PCI function with a fake BAR0 handler,
// served by a Connection on one end of a socketpair, driven by a Client.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <dirent.h>
#include <mutex>
#include <thread>
#include <vector>

#include "dma/dma_map_table.h"
#include "irq/eventfd_irqs.h"
#include "pci/bar_handler.h"
#include "pci/function.h"
#include "vfio_user/client.h"
#include "vfio_user/connection.h"

namespace mlx5emu::testing {

// BAR0 handler that records every access; reads return a pattern built
// from the offset so tests can check byte placement.
class FakeBar : public BarHandler {
public:
	struct Access {
		uint64_t offset;
		unsigned size;
		uint64_t value;
		bool operator==(const Access &) const = default;
	};

	static uint64_t pattern(uint64_t offset, unsigned size)
	{
		uint64_t v = 0;
		for (unsigned i = 0; i < size; i++)
			v |= uint64_t(uint8_t(offset + i) ^ 0xa5) << (8 * i);
		return v;
	}

	uint64_t bar_read(uint64_t offset, unsigned size) override
	{
		std::lock_guard g(m_);
		reads_.push_back({offset, size, 0});
		return pattern(offset, size);
	}
	void bar_write(uint64_t offset, unsigned size, uint64_t value) override
	{
		std::lock_guard g(m_);
		writes_.push_back({offset, size, value});
	}
	void reset() override
	{
		std::lock_guard g(m_);
		resets_++;
	}

	std::vector<Access> reads() { std::lock_guard g(m_); return reads_; }
	std::vector<Access> writes() { std::lock_guard g(m_); return writes_; }
	int resets() { std::lock_guard g(m_); return resets_; }

private:
	std::mutex m_;
	std::vector<Access> reads_, writes_;
	int resets_ = 0;
};

struct FunctionHarness {
	explicit FunctionHarness(uint32_t msix = 64) : irqs(msix), pci(make_config(msix), bar) {}
	static pci::FunctionConfig make_config(uint32_t msix)
	{
		pci::FunctionConfig c;
		c.msix_vectors = msix;
		return c;
	}
	vfio_user::FunctionContext ctx() { return {pci, dma, irqs}; }

	FakeBar bar;
	DmaMapTable dma;
	EventfdInterrupts irqs;
	pci::PciFunction pci;
};

// A Connection serving one end of a socketpair on its own thread.
class Session {
	UniqueFd server_end_; // declared first: make_pair() fills it while client is built

public:
	explicit Session(FunctionHarness &f) : client(make_pair())
	{
		thread_ = std::thread([this, &f] {
			vfio_user::Connection c(std::move(server_end_), f.ctx(), -1, "test");
			end_ = c.run();
		});
	}
	~Session()
	{
		if (thread_.joinable()) {
			client.close();
			thread_.join();
		}
	}
	// Client hangs up; returns how the connection ended.
	vfio_user::Connection::End finish()
	{
		client.close();
		thread_.join();
		return end_;
	}
	// Waits for the server side to end on its own (protocol error).
	vfio_user::Connection::End join()
	{
		thread_.join();
		return end_;
	}

	vfio_user::Client client;

private:
	UniqueFd make_pair()
	{
		int sv[2];
		EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
		server_end_.reset(sv[1]);
		return UniqueFd(sv[0]);
	}

	std::thread thread_;
	vfio_user::Connection::End end_ = vfio_user::Connection::End::io_error;
};

inline UniqueFd make_memfd(size_t size)
{
	int fd = ::memfd_create("guest-ram", MFD_CLOEXEC);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(::ftruncate(fd, off_t(size)), 0);
	return UniqueFd(fd);
}

inline int open_fd_count()
{
	int n = 0;
	if (DIR *d = ::opendir("/proc/self/fd")) {
		while (::readdir(d))
			n++;
		::closedir(d);
	}
	return n;
}

template <class T> T payload_as(const vfio_user::Message &m, size_t at = 0)
{
	T v{};
	EXPECT_GE(m.body.size(), at + sizeof(T));
	if (m.body.size() >= at + sizeof(T))
		std::memcpy(&v, m.body.data() + at, sizeof(T));
	return v;
}

inline bool is_error(const vfio_user::Message &m, uint32_t err)
{
	return (m.header.flags & vfio_user::kFlagError) && m.header.error == err &&
	       m.header.size == sizeof(vfio_user::MessageHeader);
}

} // namespace mlx5emu::testing
