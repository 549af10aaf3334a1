// SPDX-License-Identifier: GPL-2.0
// One emulated ConnectX: a PF and its VFs, shared by the Firmware of each
// of its functions (HcaConfig::adapter; null: a function alone, as before).
// It holds what belongs to the adapter rather than to one function: the
// SR-IOV control state of the PF's capability (NumVFs, VF Enable, VF MSE),
// which VFs the PF has enabled (ENABLE_HCA function_id n), the pages the
// firmware still wants from the PF for each VF, and the vport table
// (vport 0 = the PF, n = VF n, 1-based): what the manager sets (MAC, link,
// VST, spoof check, trust, GUIDs) and what each function last wrote to its
// own NIC vport context (address lists, promiscuous modes, MTU).
//
// Lock order: Firmware::mu -> Adapter::mu_ -> the engines' locks (the
// command engine's queue, the data path's state lock) -> EqTable locks.
// The adapter never takes a Firmware::mu: it reaches another function only
// by queueing an action on that function's command engine, which then
// reads the adapter (Firmware::adapter_sync()).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "fw/eth_port.h"
#include "fw/health.h"
#include "steer/eswitch.h"

namespace mlx5emu {

class DataPath;
class Firmware;
struct EthCounters;

// The NIC vport context events a manager arms (nic_vport_context dword 1,
// event_on_*): each fires once, with a NIC_VPORT_CHANGE EQE to the manager
// naming the vport, and is armed again by the manager's next
// MODIFY_NIC_VPORT_CONTEXT (field_select change_event).
namespace vport_event {
enum : uint8_t { UC = 1 << 0, MC = 1 << 1, VLAN = 1 << 2, PROMISC = 1 << 3, MTU = 1 << 4 };
}

struct VportRecord {
	bool seeded = false; // the function's defaults taken (first attach)
	// The manager's (the PF's commands with other_vport, or the control
	// channel's `hca N vport ...` on the VF): what the function reads.
	MacAddr mac{};
	VportAdmin admin = VportAdmin::Auto; // Ethernet vport state, InfiniBand policy
	uint16_t vst_vlan = 0;
	uint8_t vst_qos = 0;
	bool spoofchk = false;
	bool trust = false;
	uint64_t node_guid = 0, port_guid = 0; // 0: the function's own default
	uint8_t armed = 0;                     // vport_event bits
	// The function's own NIC vport context, as it last wrote it (the
	// manager reads these with other_vport).
	std::vector<MacAddr> uc_list, mc_list;
	std::vector<uint16_t> vlan_list;
	bool promisc_uc = false, promisc_mc = false, promisc_all = false;
	uint16_t mtu = 0;
	bool roce_en = false;
	// What the function reports (its state and effective GUIDs).
	bool oper_up = false;
	uint8_t ib_state = 0; // IB PortState of the vport
	uint64_t cur_node_guid = 0, cur_port_guid = 0;
	uint64_t change_events = 0; // NIC_VPORT_CHANGE EQEs queued to the PF
};

class Adapter {
public:
	// VFs behind one PF: functions 0.1-0.7 of its slot (offset 1, stride 1).
	static constexpr uint16_t kMaxVfs = 7;
	// Entries of the MPFS (log_max_l2_table of an Ethernet function).
	static constexpr unsigned kLogL2Table = 10;
	// Pages the firmware asks the PF for on behalf of each VF it enables
	// (PAGE_REQUEST func_id n), and the most it accepts for one VF: a
	// GIVE beyond it fails NO_RESOURCES. The emulator's choices.
	static constexpr int32_t kVfPfPages = 8;
	static constexpr uint32_t kVfPageBudget = 64;

	// guest_pf: the PF is a function of the guest (SR-IOV on the PF): a
	// VF lives only while the PF has it enabled (ENABLE_HCA function_id
	// n), VF Enable is set and n <= NumVFs. Otherwise the emulator plays
	// the PF (`--function vf`): every VF lives, its vport is set by the
	// control channel. total_vfs is capped at kMaxVfs.
	Adapter(uint16_t total_vfs, bool guest_pf);
	Adapter(const Adapter &) = delete;
	Adapter &operator=(const Adapter &) = delete;

	uint16_t total_vfs() const { return total_vfs_; }
	bool guest_pf() const { return guest_pf_; }
	bool valid_vf(uint32_t n) const { return n >= 1 && n <= total_vfs_; }

	// --- the PF's PCI SR-IOV capability (any thread, no lock held) -----
	// Writes of NumVFs / VF Enable / VF MSE: a VF that stops being alive
	// (VF Enable cleared, NumVFs below it) is reset. NumVFs is capped at
	// total_vfs (the PCI core refuses more before it writes).
	void sriov_control(uint16_t num_vfs, bool vfe, bool mse);
	struct Sriov {
		uint16_t num_vfs = 0;
		bool vfe = false, mse = false;
	};
	Sriov sriov() const;

	// --- functions (the Firmware constructor and destructor) -----------
	// `seed`: the function's defaults for its vport record, taken on the
	// record's first attach (later attaches keep what the manager set).
	// Returns the record as it stands.
	VportRecord attach(uint16_t vport, Firmware *fw, const VportRecord &seed);
	void detach(uint16_t vport, Firmware *fw);

	// --- the PF's commands (PF's Firmware::mu held) --------------------
	// ENABLE_HCA / DISABLE_HCA function_id n: VF n's liveness follows.
	void enable_vf(uint16_t n, bool on);
	bool vf_enabled(uint16_t n) const;
	// The PF's function reset (DISABLE_HCA of itself, crash, reset):
	// every VF it had enabled is disabled and reset.
	void pf_reset();
	// Pages the firmware asked the PF for on behalf of VF n and still
	// wants (set at ENABLE_HCA, 0 at DISABLE_HCA).
	void set_vf_pages_wanted(uint16_t n, int32_t pages);
	int32_t vf_pages_wanted(uint16_t n) const;
	// VF n's own function is alive: its init segment is ready and its
	// commands run. Always for vport 0 and without a guest PF.
	bool alive(uint16_t vport) const;

	// --- vport records (any thread; a Firmware::mu may be held) --------
	VportRecord vport(uint16_t n) const;
	// The manager's change of vport n: the function learns it (an action
	// queued on its engine) unless it is `caller`, which applies it itself.
	void set_vport(uint16_t n, const std::function<void(VportRecord &)> &fn, const Firmware *caller);
	// The function of vport n publishes its own context: a change of an
	// armed event class queues a NIC_VPORT_CHANGE to the PF and disarms it.
	void publish(uint16_t n, const std::function<void(VportRecord &)> &fn);
	// The Ethernet counters of vport n's function (its data path, under
	// the data path's state lock). False when no function is attached.
	bool vport_counters(uint16_t n, EthCounters *out) const;
	// Runs `fn` on the data path of vport n's function, under the data
	// path's state lock (its traffic counters). False, without running it,
	// when no function is attached.
	bool with_vport_dp(uint16_t n, const std::function<void(const DataPath &)> &fn) const;

	// --- the legacy e-switch (steer/eswitch.h) --------------------------
	// What the PF's e-switch commands program and the data path walks:
	// only under the data path engine's state lock (DataPath::lock()),
	// never Adapter::mu_ (the PF's reset clears it, fw/firmware.cc).
	steer::Eswitch &eswitch() { return esw_; }

	// The health buffer's syndrome the adapter's functions share (the
	// PF's Health writes it, each VF's reads it: fw/health.h).
	SharedSyndrome &shared_syndrome() { return synd_; }

	// `hca N vfs`: the SR-IOV state and each VF (pages held: `held(n)`,
	// the PF's page count for func_id n, which the caller knows).
	std::vector<std::string> lines(const std::function<uint64_t(uint16_t)> &held) const;

private:
	bool alive_locked(uint16_t vport) const;
	// Queue adapter_sync() on the functions whose liveness changed since
	// `before` (mu_ held).
	void liveness_changed_locked(const std::vector<bool> &before);
	std::vector<bool> liveness_locked() const;
	void sync_locked(uint16_t vport);

	const uint16_t total_vfs_;
	const bool guest_pf_;
	mutable std::mutex mu_;
	Sriov sriov_;
	std::vector<Firmware *> fns_;     // by vport; null: not attached
	std::vector<bool> enabled_;       // by vport: enabled by the PF (VFs)
	std::vector<int32_t> pages_wanted_; // by vport
	std::vector<VportRecord> vports_; // by vport
	steer::Eswitch esw_;              // under the engine's state lock
	SharedSyndrome synd_;             // atomics
};

} // namespace mlx5emu
