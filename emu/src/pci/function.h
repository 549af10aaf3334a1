// SPDX-License-Identifier: GPL-2.0
// One emulated PCI function as the vfio-user transport sees it: nine VFIO
// regions (BAR0-5, ROM, config, VGA) and the accesses to them.
//   BAR0    trapped, forwarded to the BarHandler in 1/2/4/8-byte pieces
//   BAR2    MSI-X table (emulated by QEMU; reads 0 here) and PBA (reads 0)
//   CONFIG  4096 bytes (pci/connectx_config.h)
// Used by the connection thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "pci/bar_handler.h"
#include "pci/config_space.h"
#include <functional>

#include "pci/connectx_config.h"
#include "pci/region.h"

namespace mlx5emu::pci {

class PciFunction {
public:
	// cfg must pass check_function_config().
	PciFunction(const FunctionConfig &cfg, BarHandler &bar0);

	static constexpr unsigned kNumRegions = 9;
	RegionDescription region(unsigned index) const;

	// Region accesses. Return 0 or an errno (EINVAL: no such region, or the
	// range is outside it).
	int read(unsigned region, uint64_t offset, void *dst, uint32_t count);
	int write(unsigned region, uint64_t offset, const void *src, uint32_t count);

	// Function reset (DEVICE_RESET, FLR, client gone): config space back to
	// power-on values, then BarHandler::reset().
	void reset();

	// Future UAR pages: make areas of BAR0 mmap-able from fd (borrowed; must
	// outlive the function). Pass an empty vector to trap everything again.
	void set_bar0_mmap(int fd, uint64_t file_offset, std::vector<MmapArea> areas);

	// Called with the new Bus Master Enable state after every config write
	// to the command register and after a reset.
	void set_bus_master_listener(std::function<void(bool)> fn) { bus_master_listener_ = std::move(fn); }

	const ConfigSpace &config() const { return config_; }
	const ConfigLayout &layout() const { return layout_; }
	const FunctionConfig &function_config() const { return cfg_; }
	bool bus_master_enabled() const;
	uint64_t flr_count() const { return flr_count_; }

private:
	void notify_bus_master();
	int config_write(uint64_t offset, const void *src, uint32_t count);
	void bar0_read(uint64_t offset, uint8_t *dst, uint32_t count);
	void bar0_write(uint64_t offset, const uint8_t *src, uint32_t count);

	FunctionConfig cfg_;
	BarHandler &bar0_;
	ConfigSpace config_;
	ConfigLayout layout_;
	int bar0_mmap_fd_ = -1;
	uint64_t bar0_mmap_offset_ = 0;
	std::vector<MmapArea> bar0_mmap_areas_;
	std::function<void(bool)> bus_master_listener_;
	uint64_t flr_count_ = 0;
};

} // namespace mlx5emu::pci
