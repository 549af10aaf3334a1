// SPDX-License-Identifier: GPL-2.0
// Interrupt delivery by eventfd, as vfio-user's SET_IRQS sets it up: one
// eventfd per MSI-X vector (VFIO irq index 2) plus the error-reporting
// eventfd (index 3). raise(v) writes the 8-byte value 1 to vector v's fd.
// Safe to raise from any thread while the socket thread re-points vectors.
#pragma once

#include <atomic>
#include <cstdint>
#include <shared_mutex>
#include <vector>

#include "irq/interrupt_sink.h"
#include "util/unique_fd.h"

namespace mlx5emu {

class EventfdInterrupts final : public InterruptSink {
public:
	// VFIO PCI irq indexes (<linux/vfio.h> VFIO_PCI_*_IRQ_INDEX).
	static constexpr uint32_t kIndexIntx = 0, kIndexMsi = 1, kIndexMsix = 2, kIndexErr = 3,
				  kIndexReq = 4, kNumIndexes = 5;

	explicit EventfdInterrupts(uint32_t msix_vectors);

	void raise(uint32_t vector) override;

	// Number of interrupts behind a VFIO irq index (0 for INTx/MSI/REQ).
	uint32_t count(uint32_t index) const;

	// The caller validated index/start/count against count(index).
	// Installs fds[i] for vector start+i (closing what was there).
	void assign(uint32_t index, uint32_t start, std::vector<UniqueFd> fds);
	// Removes the eventfds of [start, start+count).
	void release(uint32_t index, uint32_t start, uint32_t count);
	// Removes every eventfd of every index.
	void release_all();
	// Loopback trigger (SET_IRQS DATA_NONE/DATA_BOOL + TRIGGER).
	void fire(uint32_t index, uint32_t vector);

	bool has_eventfd(uint32_t index, uint32_t vector) const;
	uint64_t raised() const { return raised_.load(std::memory_order_relaxed); }
	uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

private:
	std::vector<UniqueFd> *table(uint32_t index);
	const std::vector<UniqueFd> *table(uint32_t index) const;
	void signal(uint32_t index, uint32_t vector);

	mutable std::shared_mutex lock_;
	std::vector<UniqueFd> msix_;
	std::vector<UniqueFd> err_;
	std::atomic<uint64_t> raised_{0};
	std::atomic<uint64_t> dropped_{0};
	std::atomic<bool> drop_logged_{false};
};

} // namespace mlx5emu
