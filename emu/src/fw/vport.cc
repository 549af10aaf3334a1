// SPDX-License-Identifier: GPL-2.0
// A function's side of its adapter (fw/adapter.h): liveness (a VF its
// guest PF has not enabled), the vport record it reads (what its manager
// set) and publishes (its own NIC vport context), the PF's events about its
// VFs (NIC_VPORT_CHANGE, page requests for VF func_ids) and `hca N vfs`.
#include "exec/datapath.h"
#include "fw/firmware.h"
#include "fw/mad.h"
#include "prm/prm.h"
#include "util/fmt.h"

namespace mlx5emu {

void Firmware::queue_action(std::function<void()> fn) { engine_.schedule(CommandEngine::Clock::now(), std::move(fn)); }

VportRecord Firmware::vport_seed() const
{
	VportRecord r;
	r.mac = eth.perm_mac;
	r.admin = is_eth() ? eth.vport_admin : ib_vport_admin;
	r.vst_vlan = eth.vst_vlan;
	r.vst_qos = eth.vst_qos;
	r.spoofchk = eth.spoofchk;
	r.trust = eth.trust;
	r.port_guid = host_port_guid;
	return r;
}

void Firmware::publish_vport()
{
	if (!cfg.adapter || !attached_)
		return;
	bool up = eth.oper_up();
	uint8_t ib_state = ib_vport_state();
	cfg.adapter->publish(cfg.vport(), [&](VportRecord &r) {
		r.uc_list = eth.uc_list;
		r.mc_list = eth.mc_list;
		r.vlan_list = eth.vlan_list;
		r.promisc_uc = eth.promisc_uc;
		r.promisc_mc = eth.promisc_mc;
		r.promisc_all = eth.promisc_all;
		r.mtu = eth.vport_mtu;
		r.roce_en = eth.roce_en;
		r.oper_up = up;
		r.ib_state = ib_state;
		r.cur_node_guid = port_.node_guid;
		r.cur_port_guid = port_.port_guid;
	});
}

void Firmware::apply_adapter_locked()
{
	Adapter &a = *cfg.adapter;
	uint16_t n = cfg.vport();
	bool alive = a.alive(n);
	bool was_alive = alive_.exchange(alive);
	iseg.set_ready(alive);
	if (was_alive && !alive) {
		// Its PF disabled it (DISABLE_HCA, VF Enable cleared, the PF's
		// own reset or crash): the VF starts over, and its interface
		// reads DISABLED, which the health poller of a driver bound to
		// it takes as fatal: it recovers, and waits (initializing)
		// until the PF enables the VF again.
		function_reset("disabled by its PF");
		iseg.disable();
	}
	if (!cfg.is_vf()) {
		publish_vport();
		return;
	}
	VportRecord r = a.vport(n);
	if (is_eth()) {
		bool was_up = eth.oper_up();
		eth.perm_mac = r.mac;
		eth.vport_admin = r.admin;
		eth.vst_vlan = r.vst_vlan;
		eth.vst_qos = r.vst_qos;
		eth.spoofchk = r.spoofchk;
		eth.trust = r.trust;
		eth_port_changed(was_up);
		vport_acl_changed();
	} else {
		uint8_t before = ib_vport_state();
		ib_vport_admin = r.admin;
		{
			auto dl = dp_->lock();
			dp_->set_port(port_.lid, port_.lmc, ib_vport_state(), port_.gid_prefix);
		}
		post_vport_state_event(before);
	}
	// GUIDs: the manager's, else the emulator's (taken at once; a
	// running driver reads them again when it reloads).
	port_.node_guid = r.node_guid ? r.node_guid : default_node_guid_;
	if (host_port_guid != r.port_guid) {
		host_port_guid = r.port_guid;
		port_.port_guid = port_.guids[0] = r.port_guid ? r.port_guid : default_node_guid_ + 1;
		auto dl = dp_->lock();
		dp_->set_port_guid(port_.port_guid);
	}
	publish_vport();
}

void Firmware::adapter_sync()
{
	std::lock_guard<std::mutex> lk(mu);
	if (cfg.adapter && attached_)
		apply_adapter_locked();
}

void Firmware::adapter_restart(const char *why)
{
	std::lock_guard<std::mutex> lk(mu);
	function_reset(why);
	iseg.disable(); // as above: its driver sees it and starts over
}

bool Firmware::host_set(const std::function<void(VportRecord &)> &fn)
{
	if (!cfg.adapter)
		return false;
	std::lock_guard<std::mutex> lk(mu);
	cfg.adapter->set_vport(cfg.vport(), fn, this);
	if (attached_)
		apply_adapter_locked();
	return true;
}

void Firmware::post_nic_vport_change(uint16_t vport)
{
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = prm::event::NIC_VPORT_CHANGE;
	bits::store_be16(eqe + prm::eqe::kVportChangeVportNum, vport);
	post_event(eqe);
}

bool Firmware::post_page_request(uint16_t func_id, int32_t npages)
{
	if (!eqs.wants(prm::event::PAGE_REQUEST))
		return false;
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = prm::event::PAGE_REQUEST;
	bits::store_be16(eqe + prm::eqe::kPageReqFuncId, func_id);
	bits::store_be32(eqe + prm::eqe::kPageReqNumPages, static_cast<uint32_t>(npages));
	std::vector<uint8_t> copy(eqe, eqe + sizeof eqe);
	// After the command that caused it completes, like every event the
	// worker writes.
	queue_action([this, copy] { post_event(copy.data()); });
	return true;
}

std::vector<std::string> Firmware::vfs_lines() const
{
	if (!cfg.adapter || cfg.is_vf() || !cfg.adapter->total_vfs())
		return {"error: not a PF with VFs"};
	std::lock_guard<std::mutex> lk(mu);
	return cfg.adapter->lines([this](uint16_t n) { return pages.held({false, n}); });
}

std::vector<std::string> Firmware::esw_lines()
{
	if (!cfg.adapter || !caps.gen(prm::cmd_hca_cap::eswitch_manager))
		return {"error: not an e-switch manager (an Ethernet PF with VFs)"};
	auto lk = dp_->lock();
	return cfg.adapter->eswitch().describe();
}

} // namespace mlx5emu
