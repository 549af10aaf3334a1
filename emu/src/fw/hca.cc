// SPDX-License-Identifier: GPL-2.0
// Hca: the BarHandler face of the emulated firmware (fw/firmware.h).
#include "fw/hca.h"

#include "fw/firmware.h"

namespace mlx5emu {

Hca::Hca(const HcaConfig &cfg, GuestMemory &mem, InterruptSink &irq)
	: impl_(std::make_unique<Impl>(cfg, mem, irq))
{
}

Hca::~Hca() = default;

const HcaConfig &Hca::config() const { return impl_->cfg; }
Hca::Impl &Hca::impl() { return *impl_; }

uint64_t Hca::bar_read(uint64_t offset, unsigned size) { return impl_->bar_read(offset, size); }
void Hca::bar_write(uint64_t offset, unsigned size, uint64_t value) { impl_->bar_write(offset, size, value); }
void Hca::reset() { impl_->reset(); }

} // namespace mlx5emu
