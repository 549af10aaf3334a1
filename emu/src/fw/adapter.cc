// SPDX-License-Identifier: GPL-2.0
#include "fw/adapter.h"

#include <algorithm>

#include "exec/datapath.h"
#include "fw/firmware.h"
#include "util/fmt.h"

namespace mlx5emu {

Adapter::Adapter(uint16_t total_vfs, bool guest_pf)
	: total_vfs_(std::min(total_vfs, kMaxVfs)), guest_pf_(guest_pf), fns_(total_vfs_ + 1u, nullptr),
	  enabled_(total_vfs_ + 1u, false), pages_wanted_(total_vfs_ + 1u, 0), vports_(total_vfs_ + 1u),
	  esw_(total_vfs_, kLogL2Table)
{
}

Adapter::Sriov Adapter::sriov() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return sriov_;
}

void Adapter::sriov_control(uint16_t num_vfs, bool vfe, bool mse)
{
	std::lock_guard<std::mutex> lk(mu_);
	std::vector<bool> before = liveness_locked();
	sriov_.num_vfs = std::min(num_vfs, total_vfs_);
	sriov_.vfe = vfe;
	sriov_.mse = mse;
	liveness_changed_locked(before);
}

bool Adapter::alive_locked(uint16_t vport) const
{
	if (vport == 0 || !guest_pf_)
		return true;
	return vport <= total_vfs_ && enabled_[vport] && sriov_.vfe && vport <= sriov_.num_vfs;
}

bool Adapter::alive(uint16_t vport) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return alive_locked(vport);
}

std::vector<bool> Adapter::liveness_locked() const
{
	std::vector<bool> v(total_vfs_ + 1u);
	for (uint16_t n = 0; n <= total_vfs_; ++n)
		v[n] = alive_locked(n);
	return v;
}

void Adapter::sync_locked(uint16_t vport)
{
	if (Firmware *fw = fns_[vport])
		fw->queue_action([fw] { fw->adapter_sync(); });
}

void Adapter::liveness_changed_locked(const std::vector<bool> &before)
{
	for (uint16_t n = 1; n <= total_vfs_; ++n)
		if (before[n] != alive_locked(n))
			sync_locked(n);
}

VportRecord Adapter::attach(uint16_t vport, Firmware *fw, const VportRecord &seed)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (vport > total_vfs_)
		return seed; // not a function of this adapter: stands alone
	fns_[vport] = fw;
	VportRecord &r = vports_[vport];
	if (!r.seeded) {
		r = seed;
		r.seeded = true;
	}
	return r;
}

void Adapter::detach(uint16_t vport, Firmware *fw)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (vport <= total_vfs_ && fns_[vport] == fw)
		fns_[vport] = nullptr;
}

void Adapter::enable_vf(uint16_t n, bool on)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (!valid_vf(n))
		return;
	std::vector<bool> before = liveness_locked();
	bool again = on && enabled_[n];
	enabled_[n] = on;
	liveness_changed_locked(before);
	// ENABLE_HCA of an enabled VF starts it over, as for any function.
	if (again && alive_locked(n))
		if (Firmware *fw = fns_[n])
			fw->queue_action([fw] { fw->adapter_restart("ENABLE_HCA of an enabled VF by its PF"); });
}

bool Adapter::vf_enabled(uint16_t n) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return valid_vf(n) && enabled_[n];
}

void Adapter::pf_reset()
{
	std::lock_guard<std::mutex> lk(mu_);
	std::vector<bool> before = liveness_locked();
	std::fill(enabled_.begin(), enabled_.end(), false);
	std::fill(pages_wanted_.begin(), pages_wanted_.end(), 0);
	vports_[0].armed = 0;
	for (VportRecord &r : vports_)
		r.armed = 0; // the manager's arming is gone with its driver
	liveness_changed_locked(before);
}

void Adapter::set_vf_pages_wanted(uint16_t n, int32_t pages)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (valid_vf(n))
		pages_wanted_[n] = pages;
}

int32_t Adapter::vf_pages_wanted(uint16_t n) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return valid_vf(n) ? pages_wanted_[n] : 0;
}

VportRecord Adapter::vport(uint16_t n) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return n <= total_vfs_ ? vports_[n] : VportRecord{};
}

void Adapter::set_vport(uint16_t n, const std::function<void(VportRecord &)> &fn, const Firmware *caller)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (n > total_vfs_)
		return;
	fn(vports_[n]);
	if (fns_[n] != caller)
		sync_locked(n);
}

void Adapter::publish(uint16_t n, const std::function<void(VportRecord &)> &fn)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (n > total_vfs_)
		return;
	VportRecord &r = vports_[n];
	VportRecord old = r;
	fn(r);
	uint8_t changed = 0;
	if (r.uc_list != old.uc_list)
		changed |= vport_event::UC;
	if (r.mc_list != old.mc_list)
		changed |= vport_event::MC;
	if (r.vlan_list != old.vlan_list)
		changed |= vport_event::VLAN;
	if (r.promisc_uc != old.promisc_uc || r.promisc_mc != old.promisc_mc || r.promisc_all != old.promisc_all)
		changed |= vport_event::PROMISC;
	if (r.mtu != old.mtu)
		changed |= vport_event::MTU;
	// The manager (the PF) hears of the change once per arming.
	Firmware *pf = fns_[0];
	if (!(changed & r.armed) || n == 0 || !pf)
		return;
	r.armed = 0;
	++r.change_events;
	pf->queue_action([pf, n] { pf->post_nic_vport_change(n); });
}

bool Adapter::vport_counters(uint16_t n, EthCounters *out) const
{
	return with_vport_dp(n, [out](const DataPath &dp) { *out = dp.eth_counters(); });
}

bool Adapter::with_vport_dp(uint16_t n, const std::function<void(const DataPath &)> &fn) const
{
	std::lock_guard<std::mutex> lk(mu_);
	Firmware *fw = n <= total_vfs_ ? fns_[n] : nullptr;
	if (!fw)
		return false;
	auto dl = fw->dp().lock();
	fn(fw->dp());
	return true;
}

std::vector<std::string> Adapter::lines(const std::function<uint64_t(uint16_t)> &held) const
{
	std::vector<std::string> v;
	std::vector<uint64_t> pages(total_vfs_ + 1u);
	for (uint16_t n = 1; n <= total_vfs_; ++n)
		pages[n] = held(n);
	std::lock_guard<std::mutex> lk(mu_);
	v.push_back(fmt("total_vfs %u num_vfs %u vfe %u mse %u pf %s", total_vfs_, sriov_.num_vfs, sriov_.vfe ? 1 : 0,
			sriov_.mse ? 1 : 0, guest_pf_ ? "guest" : "host"));
	for (uint16_t n = 1; n <= total_vfs_; ++n)
		v.push_back(fmt("vf %u vport %u enabled %s alive %s function %s pages_held %llu pages_wanted %d "
				"change_events %llu",
				n - 1u, n, enabled_[n] ? "yes" : "no", alive_locked(n) ? "yes" : "no",
				fns_[n] ? "attached" : "absent", static_cast<unsigned long long>(pages[n]),
				pages_wanted_[n], static_cast<unsigned long long>(vports_[n].change_events)));
	return v;
}

} // namespace mlx5emu
