// SPDX-License-Identifier: GPL-2.0
// The function's link to the host, which a surprise removal cuts.
//
// Everything the firmware and its data path do to the host goes through
// here: DMA reads and writes of guest memory, MSI-X messages. While the
// link is cut (control channel `hca N unplug`) none of them reaches the
// host, BAR0 reads return all ones and writes are dropped (fw/firmware.cc),
// packets from the fabric are dropped: the host sees a device that went
// away, as after a surprise removal. `hca N replug` restores the link to a
// device that starts over from reset.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "dma/guest_memory.h"
#include "irq/interrupt_sink.h"

namespace mlx5emu {

class HostLink : public GuestMemory, public InterruptSink {
public:
	HostLink(GuestMemory &mem, InterruptSink &irq) : mem_(mem), irq_(irq) {}

	bool read(uint64_t iova, void *dst, size_t len) override;
	bool write(uint64_t iova, const void *src, size_t len) override;
	Copy copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len) override;
	GuestMemory *source() override { return is_cut() ? nullptr : mem_.source(); }
	void raise(uint32_t vector) override;

	void cut(bool gone) { cut_.store(gone, std::memory_order_release); }
	bool is_cut() const { return cut_.load(std::memory_order_acquire); }
	// DMA accesses and interrupts that a cut link lost.
	uint64_t lost() const { return lost_.load(std::memory_order_relaxed); }

private:
	GuestMemory &mem_;
	InterruptSink &irq_;
	std::atomic<bool> cut_{false};
	std::atomic<uint64_t> lost_{0};
};

} // namespace mlx5emu
