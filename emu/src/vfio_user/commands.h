// SPDX-License-Identifier: GPL-2.0
// The vfio-user commands a client sends, applied to one PCI function.
// Each handler validates its payload and returns either a reply payload or
// an errno. Handlers live in one file per mechanism:
//   version_command.cc   VERSION
//   dma_commands.cc      DMA_MAP, DMA_UNMAP
//   info_commands.cc     DEVICE_GET_INFO, DEVICE_GET_REGION_INFO, DEVICE_GET_IRQ_INFO
//   irq_commands.cc      DEVICE_SET_IRQS
//   region_commands.cc   REGION_READ, REGION_WRITE, DEVICE_RESET
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dma/dma_map_table.h"
#include "irq/eventfd_irqs.h"
#include "pci/function.h"
#include "vfio_user/message_io.h"

namespace mlx5emu::vfio_user {

// The state a connection drives: owned elsewhere, outlives connections.
struct FunctionContext {
	pci::PciFunction &pci;
	DmaMapTable &dma;
	EventfdInterrupts &irqs;
};

struct Reply {
	int error = 0;                // errno; 0 = success
	std::vector<uint8_t> payload; // after the header (empty with error)
	int fd = -1;                  // borrowed fd to attach, or -1

	static Reply failure(int err) { return Reply{err, {}, -1}; }
	static Reply empty() { return Reply{}; }
};

class CommandHandler {
public:
	// name prefixes the log lines ("hca0 connection 1").
	CommandHandler(FunctionContext ctx, std::string name) : ctx_(ctx), name_(std::move(name)) {}

	// Handles one command. May take fds out of msg; the rest close with it.
	Reply handle(Message &msg);

	// Client gone: interrupts off, function reset, guest memory unmapped.
	void end_session();

	// The VERSION reply's JSON (also used by tests).
	static const char *capabilities_json();

private:
	Reply version(const Message &msg);
	Reply dma_map(Message &msg);
	Reply dma_unmap(const Message &msg);
	Reply device_get_info(const Message &msg);
	Reply device_get_region_info(const Message &msg);
	Reply device_get_irq_info(const Message &msg);
	Reply device_set_irqs(Message &msg);
	Reply region_read(const Message &msg);
	Reply region_write(const Message &msg);
	Reply device_reset(const Message &msg);

	const char *tag() const { return name_.c_str(); }

	FunctionContext ctx_;
	std::string name_;
	bool version_done_ = false;
};

// Encodes a DEVICE_GET_REGION_INFO reply for region `index` described by r,
// for a client that offered client_argsz bytes: the 32-byte
// vfio_region_info plus, when they fit, the capabilities (sparse mmap).
// When they do not fit, argsz says how much is needed and no caps follow.
// *attach_fd receives the fd to pass along (only with the full reply).
std::vector<uint8_t> encode_region_info(uint32_t index, const pci::RegionDescription &r,
					uint32_t client_argsz, int *attach_fd);

// Helpers for handlers: copy a POD out of a byte span (false if short).
template <class T> bool load(std::span<const uint8_t> bytes, T &out, size_t at = 0)
{
	if (bytes.size() < at || bytes.size() - at < sizeof(T))
		return false;
	__builtin_memcpy(&out, bytes.data() + at, sizeof(T));
	return true;
}

template <class T> void append(std::vector<uint8_t> &out, const T &v)
{
	const auto *p = reinterpret_cast<const uint8_t *>(&v);
	out.insert(out.end(), p, p + sizeof(T));
}

} // namespace mlx5emu::vfio_user
