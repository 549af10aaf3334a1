// SPDX-License-Identifier: GPL-2.0
// One emulated PCI function as the vfio-user transport sees it: nine VFIO
// regions (BAR0-5, ROM, config, VGA) and the accesses to them.
//   BAR0    trapped, forwarded to the BarHandler in 1/2/4/8-byte pieces
//   BAR2    MSI-X table (emulated by QEMU; reads 0 here) and PBA (reads 0)
//   CONFIG  4096 bytes (pci/connectx_config.h)
// Used by the connection thread, except reset(), which another thread may
// call too (a PF clearing VF Enable resets its VFs): config-space accesses
// hold a lock, and the listeners are called in the order of the states
// they report.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "pci/bar_handler.h"
#include "pci/config_space.h"
#include "pci/connectx_config.h"
#include "pci/region.h"
#include "pci/sriov_cap.h"

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

	// A PF with VFs: called with the new SR-IOV control state (NumVFs,
	// VF Enable, VF MSE) whenever a config write or a reset changed it.
	// NumVFs above TotalVFs, or changed while VF Enable is set, is not
	// taken (the register keeps its value). Set before the function is
	// served.
	void set_sriov_listener(std::function<void(const SriovState &)> fn) { sriov_listener_ = std::move(fn); }
	SriovState sriov_state() const;

	// Unlocked: for single-threaded use (tests, set-up).
	const ConfigSpace &config() const { return config_; }
	const ConfigLayout &layout() const { return layout_; }
	const FunctionConfig &function_config() const { return cfg_; }
	bool bus_master_enabled() const;
	uint64_t flr_count() const { return flr_count_; }

private:
	void notify_bus_master();
	void notify_sriov();
	void keep_num_vfs_sane(uint64_t offset, uint32_t count, const SriovState &before);
	int config_write(uint64_t offset, const void *src, uint32_t count);
	void bar0_read(uint64_t offset, uint8_t *dst, uint32_t count);
	void bar0_write(uint64_t offset, const uint8_t *src, uint32_t count);

	FunctionConfig cfg_;
	BarHandler &bar0_;
	mutable std::mutex config_mu_; // config_
	ConfigSpace config_;
	ConfigLayout layout_;
	std::mutex notify_mu_; // a listener call and the state it reports
	SriovState reported_sriov_;
	std::function<void(const SriovState &)> sriov_listener_;
	int bar0_mmap_fd_ = -1;
	uint64_t bar0_mmap_offset_ = 0;
	std::vector<MmapArea> bar0_mmap_areas_;
	std::function<void(bool)> bus_master_listener_;
	uint64_t flr_count_ = 0;
};

} // namespace mlx5emu::pci
