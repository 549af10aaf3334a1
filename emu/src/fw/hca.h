// SPDX-License-Identifier: GPL-2.0
// One emulated ConnectX HCA function: BAR0 (initialization segment, command
// queue, UAR pages) and the firmware behind it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dma/guest_memory.h"
#include "irq/interrupt_sink.h"
#include "pci/bar_handler.h"
#include "pci/connectx_config.h"

namespace mlx5emu {

class Adapter;
class Fabric;

// The link layer of the HCA's port.
enum class LinkType : uint8_t { Ib, Eth };

struct HcaConfig {
	unsigned index = 0;          // HCA number in this process (0, 1, ...)
	uint16_t device_id = 0x1017; // PCI device id (ConnectX-5)
	// A PF (the default), or a VF as a VM sees one (`--function vf`):
	// VF caps (no manager bits, vhca_id), manager-only commands and
	// port-shaping register writes refused (cmd_registry.h `Who`,
	// cmd_reg.cc). vf_index: which VF of its adapter (0-based; its vport
	// and vhca_id are vf_index + 1).
	pci::FunctionRole role = pci::FunctionRole::Pf;
	uint16_t vf_index = 0;
	uint64_t guid_seed = 0;      // per-device seed for node/port GUIDs
	uint16_t fw_major = 16, fw_minor = 35, fw_subminor = 4030;
	uint32_t msix_vectors = 64;
	uint64_t bar0_size = 32ull << 20;
	// Advertise RDMA atomics (general cap `atomic` + the ATOMIC cap type):
	// the data path executes 8-byte compare-and-swap and fetch-and-add.
	bool caps_atomic = true;
	// InfiniBand (the default) or Ethernet: an Ethernet port advertises
	// port_type Ethernet with the NIC, offload and flow-table caps, and
	// carries frames over the process's L2 switch.
	LinkType link = LinkType::Ib;
	// UMR (entity size and atomic changes), memory windows and KLM keys
	// (`imaicl`): exec/umr.cc executes them.
	bool caps_umr = true;
	// User contexts (log_max_uctx, CREATE_UCTX/DESTROY_UCTX, fw/cmd_uctx.cc):
	// a process's objects carry its uid, and UMR from its QPs is limited
	// to indirect keys not of another context (exec/umr.cc).
	bool caps_uctx = true;
	// On-demand paging, transport scheme (exec/odp.cc): general cap `pg`
	// and the ODP cap type with RC RDMA WRITE and READ responder faults,
	// PAGE_FAULT events, PAGE_FAULT_RESUME. Needs caps_umr (software
	// fills and zaps translations through UMR).
	bool caps_odp = true;
	// RoCE on an Ethernet port (exec/roce.cc): the ROCE capabilities,
	// roce in the general ones, the GID table commands.
	bool caps_roce = true;
	// On-device memory (MEMIC, queues/device_memory.h): this many bytes
	// at the top of BAR0 (a multiple of 4 KiB; 0: none). The device_memory
	// cap, the DEV_MEM caps, ALLOC_MEMIC / DEALLOC_MEMIC and MEMIC keys.
	uint32_t memic_size = 256 * 1024;
	// Polled doorbells (fw/doorbell_pages.h): the UAR pages above the
	// first one (the kernel's, with the EQ doorbells) are shared memory
	// that QEMU maps into BAR0; a DoorbellPoller finds the doorbells.
	bool poll_doorbells = false;
	// The fabric linking this HCA's port to the others of the process;
	// null: a private fabric (loopback only).
	std::shared_ptr<Fabric> fabric;
	// The adapter this function belongs to (fw/adapter.h): a PF and its
	// VFs share one. Null: a function alone (no SR-IOV; a VF's host side
	// is its own). A PF with an adapter of VFs is their manager
	// (vport_group_manager, other_vport/other_function commands, VF
	// pages); a VF with an adapter whose PF is a guest function lives
	// only while that PF has it enabled.
	std::shared_ptr<Adapter> adapter;

	bool is_vf() const { return role == pci::FunctionRole::Vf; }
	// Its vport on the adapter: 0 for the PF, n for VF n (1-based).
	uint16_t vport() const { return is_vf() ? static_cast<uint16_t>(vf_index + 1) : 0; }
};

// BAR0 layout (all big-endian registers):
//   0x0000-0x200F   initialization segment (see hw-interface.md section 2.2)
//   uar_index * 4K  UAR pages (index >= 3, never overlapping the iseg)
//   top memic_size  on-device memory (MEMIC), no UAR pages there
class Hca : public BarHandler {
public:
	Hca(const HcaConfig &cfg, GuestMemory &mem, InterruptSink &irq);
	~Hca() override;

	uint64_t bar_read(uint64_t offset, unsigned size) override;
	void bar_write(uint64_t offset, unsigned size, uint64_t value) override;
	void reset() override;

	const HcaConfig &config() const;

	// Implementation detail owned by fw/.
	struct Impl;
	Impl &impl();

private:
	std::unique_ptr<Impl> impl_;
};

} // namespace mlx5emu
