// SPDX-License-Identifier: GPL-2.0
// Placeholder: initialization segment only. Replaced by the firmware model.
#include "fw/hca.h"

#include <chrono>
#include <endian.h>

namespace mlx5emu {

struct Hca::Impl {
	HcaConfig cfg;
	std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

Hca::Hca(const HcaConfig &cfg, GuestMemory &, InterruptSink &) : impl_(std::make_unique<Impl>())
{
	impl_->cfg = cfg;
}

Hca::~Hca() = default;

const HcaConfig &Hca::config() const { return impl_->cfg; }
Hca::Impl &Hca::impl() { return *impl_; }

uint64_t Hca::bar_read(uint64_t offset, unsigned size)
{
	uint32_t v = 0;
	const HcaConfig &c = impl_->cfg;

	switch (offset & ~3ull) {
	case 0x000: v = (uint32_t)c.fw_minor << 16 | c.fw_major; break;
	case 0x004: v = 5u << 16 | c.fw_subminor; break;
	case 0x014: v = 0x56; break;
	case 0x230: v = 1; break;
	case 0x1010:
		v = (uint32_t)std::chrono::duration_cast<std::chrono::milliseconds>(
			std::chrono::steady_clock::now() - impl_->start).count() / 100;
		break;
	default: v = 0;
	}
	uint32_t be = htobe32(v);
	uint32_t shift = (offset & 3) * 8;
	uint64_t r = (uint64_t)be >> shift;
	return size >= 4 ? r : r & ((1ull << (size * 8)) - 1);
}

void Hca::bar_write(uint64_t, unsigned, uint64_t) {}
void Hca::reset() {}

} // namespace mlx5emu
