// SPDX-License-Identifier: GPL-2.0
// The emulated firmware of one HCA function: BAR0 routing, function state,
// resources, events, and the control API used by ctl/.
//
// Threads: the BAR path (transport thread) touches only atomics, the EQ
// table's short lock and the command engine's doorbell mask. The firmware
// worker executes commands holding `mu`. The control channel takes `mu`
// for anything that reads or changes firmware state.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fabric/sma_port.h"
#include "fw/adapter.h"
#include "fw/caps.h"
#include "fw/command_queue.h"
#include "fw/doorbell_pages.h"
#include "fw/eq.h"
#include "fw/eth_port.h"
#include "fw/fw_update.h"
#include "queues/faults.h"
#include "fw/hca.h"
#include "fw/health.h"
#include "fw/host_link.h"
#include "fw/init_segment.h"
#include "fw/pages.h"
#include "fw/stats.h"
#include "queues/device_memory.h"

namespace mlx5emu {

class DataPath;
class Fabric;

enum class FnState : uint8_t { Disabled, Enabled, Initialized };

// The InfiniBand port: what its SMA reports and the subnet manager sets
// (fabric/sma_port.h), plus what identifies the node. With the internal
// SM the emulator configured it (ACTIVE, LID = index + 1, SM LID 1); with
// an external one it starts in INIT without a LID.
// IB PortInfo CapabilityMask bits the emulated port reports.
constexpr uint32_t kCapSystemImageGuid = 1u << 11;
constexpr uint32_t kCapExtendedSpeeds = 1u << 14;
constexpr uint32_t kCapCm = 1u << 16;
constexpr uint32_t kCapClientReregister = 1u << 25;
// The bits a function with ib_virt may change in its vport's mask
// (MODIFY_HCA_VPORT_CONTEXT): IsCM, which ib_cm sets. Never IsSM.
constexpr uint32_t kVportCapMaskChangeable = kCapCm;

struct PortAttrs : SmaPort {
	uint64_t node_guid = 0;
	uint64_t system_image_guid = 0;
	uint8_t mtu = 5; // IB MTU enum: 5 = 4096, the largest path MTU
};

class Firmware {
public:
	Firmware(const HcaConfig &cfg, GuestMemory &mem, InterruptSink &irq);
	virtual ~Firmware();
	Firmware(const Firmware &) = delete;
	Firmware &operator=(const Firmware &) = delete;

	// --- BAR0 -------------------------------------------------------------
	uint64_t bar_read(uint64_t offset, unsigned size);
	void bar_write(uint64_t offset, unsigned size, uint64_t value);
	void reset();

	// --- control API (any thread) ----------------------------------------
	void hang(bool hung);
	bool hung() const;
	// Surprise removal (fw/host_link.h): the host loses the device, which
	// executes nothing more; replugging brings it back as after a reset.
	void unplug(bool gone);
	bool unplugged() const { return link.is_cut(); }
	// A fatal syndrome is a firmware crash: the commands in flight and
	// those rung meanwhile are lost, and the function's queues, EQs and
	// pages are gone, so the device writes nothing to guest memory any
	// more (software frees its buffers without the firmware's help).
	// Clearing the syndrome brings the firmware back with the function
	// disabled, as after a reset: software starts over with ENABLE_HCA.
	// A reset (function reset, or software setting nic_interface to
	// SW_RESET) clears the syndrome too.
	void set_health_syndrome(uint8_t synd, uint16_t ext_synd, bool fatal);
	bool crashed() const { return crashed_.load(); }
	// Queue a PAGE_REQUEST EQE asking software to give (npages > 0) or
	// take back (npages < 0) pages. False if no EQ takes page requests.
	bool page_request(int32_t npages, std::string *err);
	uint64_t pages_outstanding() const;
	std::vector<std::string> stats_lines() const;
	std::vector<std::string> pages_lines() const;
	std::vector<std::string> eq_lines() const;
	std::vector<TraceEntry> trace_entries() const { return trace.snapshot(); }
	void trace_clear() { trace.clear(); }
	// True when the worker has nothing queued or running.
	bool idle() const { return engine_.idle(); }
	FnState function_state() const;
	const PortAttrs &port() const { return port_; }
	bool is_eth() const { return cfg.link == LinkType::Eth; }
	// The SMA's view (worker thread, `mu` held): changes go through
	// port_changed(), which tells the data path and raises the events.
	PortAttrs &port() { return port_; }
	void port_changed(const PortChanges &ch);

	// --- used by the command handlers (worker thread, `mu` held) ---------
	// Drop every resource of the function (DISABLE_HCA, ENABLE_HCA over an
	// enabled function, reset); reports leaked pages.
	void function_reset(const char *why);
	// Write an EQE to a given EQ / to the EQ subscribed to its type,
	// honouring the drop/delay fault injections. Any thread.
	void post_event_to(uint8_t eqn, const uint8_t *eqe64);
	bool post_event(const uint8_t *eqe64);
	// The data path (queues, WQE execution) and the fabric it is on.
	DataPath &dp() { return *dp_; }
	Fabric &fabric() { return *fabric_; }
	// Pushes the settings the data path takes from the capabilities and
	// registers (atomic endianness) after INIT_HCA.
	void configure_datapath();

	// Declared first: mem and irq go through it.
	HostLink link;
	const HcaConfig cfg;
	GuestMemory &mem;
	InterruptSink &irq;

	mutable std::mutex mu; // function state below
	FnState state = FnState::Disabled;
	uint16_t issi = 0;
	Caps caps;
	PageTracker pages;
	std::set<uint32_t> uars;
	uint8_t host_endianness[16] = {};
	// NodeDescription (IBA 14.2.5.2): what the SMA answers and the
	// NODE_DESC register reads; software writes it (the in-tree mlx5_ib's
	// modify_device). Back to the default at a function reset.
	uint8_t node_desc[64] = {};
	std::string driver_version;
	std::vector<uint8_t> sw_owner_id;
	EthPort eth; // an Ethernet port (cfg.link == Eth)
	// After a change of the port's admin state or MTU: tells the data
	// path and, when the operational state changed, posts a port change
	// event.
	void eth_port_changed(bool was_up);
	// After a change of the vport's ACL settings or MAC: tells the data path.
	void vport_acl_changed();
	// The host side of a VF's vport, which the control channel plays in
	// place of the PF's e-switch manager: the MAC the VF reads, and the
	// admin state (a change posts PORT_CHANGE; on an InfiniBand VF its
	// link policy, below). An error message on a PF (or for the MAC, an
	// InfiniBand port), else empty.
	std::string set_host_vport_mac(const MacAddr &mac);
	std::string set_host_vport_admin(VportAdmin a);
	// VST (VLAN `vlan` with priority `qos`, 0 clears) and the spoof check.
	std::string set_host_vport_vlan(uint16_t vlan, uint8_t qos);
	std::string set_host_vport_spoofchk(bool on);
	// Trust: the VF's promiscuous modes take effect (untrusted, it gets
	// the unicast frames for its own addresses only).
	std::string set_host_vport_trust(bool on);
	// On a PF with VFs, each VF's vport too.
	std::vector<std::string> vport_lines() const;
	std::vector<std::string> own_vport_lines() const;
	// An InfiniBand VF's GUIDs as its host sets them (`ip link set <pf>
	// vf N node_guid|port_guid` on a host): the vport's node GUID, or its
	// port GUID (GUID[0], GID[0]'s low half). They take effect at once
	// (the driver reads them when it registers its device: a running one
	// sees them after a reload, as on a ConnectX) and outlive a function
	// reset; 0 restores the emulator's. An error message on a PF or an
	// Ethernet port, else empty.
	std::string set_host_vport_guid(bool node, uint64_t guid);
	uint64_t host_port_guid = 0;
	// An InfiniBand VF's link policy as its host sets it (`ip link set
	// <pf> vf N state`, set_host_vport_admin): Down holds the vport down
	// whatever the port does; Auto follows the port, and so does Up (an
	// IB vport cannot be up without the SM's configuration of its port).
	// Kept across resets.
	VportAdmin ib_vport_admin = VportAdmin::Auto;
	// The vport's state: the port's (the SM's), or DOWN by the policy.
	uint8_t ib_vport_state() const;
	// The SMI (QP0 on VL15, SMPs through MAD_IFC) belongs to the PF: a VF
	// has ib_virt and its vport context says has_smi 0 (the PF's
	// physical port is the one the subnet manager manages).
	bool has_smi() const { return !cfg.is_vf(); }
	// PAOS admin status at power-on and after a function reset: a PF's
	// port starts down until its driver opens it; a VF's physical port is
	// its PF's, which the host side keeps up (a VF's PAOS write changes
	// nothing, cmd_reg.cc).
	bool initial_port_admin_up() const { return cfg.is_vf(); }
	// The control channel's link flap: the cable is pulled (or plugged
	// back); false on an InfiniBand port.
	bool set_eth_cable(bool up);

	// --- the adapter (cfg.adapter; fw/adapter.h) -------------------------
	// Alive: a VF whose guest PF has not enabled it reads "initializing"
	// in its init segment and refuses every command; always true
	// otherwise.
	bool alive() const { return alive_.load(); }
	// Run `fn` on this function's command engine (any thread): how the
	// adapter reaches a function (it never takes a Firmware::mu).
	void queue_action(std::function<void()> fn);
	// Worker actions the adapter queues: learn the vport record and
	// liveness; start over (ENABLE_HCA of an enabled VF by its PF); the
	// PF's NIC_VPORT_CHANGE EQE for `vport`.
	void adapter_sync();
	void adapter_restart(const char *why);
	void post_nic_vport_change(uint16_t vport);
	// A PAGE_REQUEST EQE for function `func_id` (npages > 0: give, < 0:
	// take back), written by the worker after the current command (`mu`
	// held or not). False if no EQ takes page requests.
	bool post_page_request(uint16_t func_id, int32_t npages);
	// `hca N vfs`: an error line on a function that is no PF with VFs.
	std::vector<std::string> vfs_lines() const;
	// `hca N esw`: the legacy e-switch its manager programmed (an error
	// line on a function that is not its adapter's e-switch manager).
	std::vector<std::string> esw_lines();
	// Publishes this function's vport (its NIC vport context, state and
	// GUIDs) to the adapter (`mu` held; nothing without an adapter).
	void publish_vport();

	// On-device memory (cfg.memic_size; null: none). Its own lock, any
	// thread; MEMIC keys reach it through the data path's key table.
	std::unique_ptr<DeviceMemory> memic;
	EqTable eqs;
	Faults faults;
	Health health;
	// Firmware update (MCQS/MCQI/MCC/MCDA; `mu`): the stored image runs
	// at the next reset of the firmware (restart()).
	FwUpdate fwup{health};
	InitSegment iseg;
	CommandTrace trace;
	OpcodeStats opstats;
	BarCounters bar;
	RefusalCounters refusals;

	uint32_t first_uar() const;
	uint32_t uar_limit() const; // one past the highest UAR index

	// Polled UAR pages (cfg.poll_doorbells; null: every page traps).
	// Their memory is BAR0's sparse-mmap area; the first UAR page (where
	// both drivers put their EQs: EQ doorbells have no doorbell record
	// to recover a lost one from) and the init segment keep trapping.
	std::unique_ptr<DoorbellPages> dbpages;
	// The poller's scan (any thread): takes the doorbells written to the
	// polled pages and handles them as trapped writes of the same bytes
	// (same ownership rules and counters). Returns how many.
	unsigned poll_doorbells();
	// Tests: when set, poll_doorbells() calls it after each doorbell it
	// took and handled (UAR page, offset in the page), before it looks
	// at the next register, to force an interleaving with the engine.
	std::function<void(uint32_t page, uint32_t off)> after_polled_doorbell;

	// Doorbells dropped (not through the object's own UAR page, or for
	// no such object), by kind: the EQ table's and the data path's counts.
	struct DroppedDoorbells {
		uint64_t eq = 0, cq = 0, sq = 0;
	};
	DroppedDoorbells doorbells_dropped() const;

private:
	class Events;
	void uar_write(uint32_t index, uint32_t off, unsigned size, uint64_t value);
	void doorbell_piece(uint32_t index, uint32_t off, unsigned size, uint64_t value, bool cq);
	void write_eqe_now(uint8_t eqn, const uint8_t *eqe64);
	void port_power_on();
	std::string set_ib_vport_admin(VportAdmin a); // under no lock; takes mu
	void post_port_change(uint8_t subtype); // PORT_CHANGE for port 1, either link type
	void post_vport_state_event(uint8_t before);
	// A reset of the firmware (function reset, software reset): commands
	// queued are dropped, the function is disabled and a crash is over.
	void restart(const char *why);
	// Apply the adapter's view of this function (`mu` held): liveness
	// (a VF that stops living is reset) and, on a VF, the vport record.
	void apply_adapter_locked();
	// The control channel's host side with an adapter: change the vport
	// record and apply it (false without an adapter: the caller does it).
	bool host_set(const std::function<void(VportRecord &)> &fn);
	VportRecord vport_seed() const;

	PortAttrs port_;
	uint64_t default_node_guid_ = 0; // from the GUID seed and the index
	std::shared_ptr<Fabric> fabric_;
	std::unique_ptr<Events> events_;
	std::unique_ptr<DataPath> dp_;
	// First dwords of doorbells written as two 4-byte pieces, by UAR
	// page offset (BAR path only).
	std::mutex split_mu_;
	std::map<uint64_t, uint32_t> split_dw0_;
	CommandEngine engine_;
	std::atomic<bool> crashed_{false}; // fatal syndrome set (set_health_syndrome)
	std::atomic<bool> ctl_hung_{false}; // hang() from the control channel
	std::atomic<bool> alive_{true};     // see alive()
	bool attached_ = false;             // to cfg.adapter (under mu)
};

} // namespace mlx5emu

// The Hca's implementation object is the firmware.
struct mlx5emu::Hca::Impl : mlx5emu::Firmware {
	using Firmware::Firmware;
};
