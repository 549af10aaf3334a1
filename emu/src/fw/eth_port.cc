// SPDX-License-Identifier: GPL-2.0
// Ethernet port state changes: the data path's link state and the port
// change event; the control channel's cable pull and the host side of a
// VF's vport (its MAC, admin state and ACLs, which a VF cannot set itself).
#include "exec/datapath.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "util/fmt.h"

namespace mlx5emu {

void Firmware::eth_port_changed(bool was_up)
{
	bool up = eth.oper_up();
	{
		auto lk = dp_->lock();
		dp_->set_eth_link(eth.link_up(), eth.admin_mtu);
	}
	publish_vport();
	if (up == was_up || state != FnState::Initialized)
		return;
	post_port_change(up ? prm::port_change::ACTIVE : prm::port_change::DOWN);
}

bool Firmware::set_eth_cable(bool up)
{
	if (!is_eth())
		return false;
	std::lock_guard<std::mutex> lk(mu);
	bool was_up = eth.oper_up();
	eth.cable_up = up;
	eth_port_changed(was_up);
	return true;
}

namespace {
constexpr const char *kNotVf = "not an Ethernet VF (a PF's driver manages its own vport)";
constexpr const char *kAdmin[] = {"disable", "enable", "auto"};
} // namespace

// The data path learns the vport's ACLs (under Firmware::mu): after a
// change of the host's settings, or of the VF's addresses and modes.
void Firmware::vport_acl_changed()
{
	steer::VportAcl acl;
	acl.vlan = eth.vst_vlan;
	acl.qos = eth.vst_qos;
	acl.spoofchk = eth.spoofchk;
	acl.mac = eth.perm_mac;
	acl.filter_unicast = eth.vport_on_eswitch;
	acl.promisc = eth.trust && (eth.promisc_uc || eth.promisc_all);
	acl.unicast.assign(eth.uc_list.begin(), eth.uc_list.end());
	auto lk = dp_->lock();
	dp_->set_vport_acl(acl);
}

std::string Firmware::set_host_vport_mac(const MacAddr &mac)
{
	if (!cfg.is_vf() || !is_eth())
		return kNotVf;
	if (host_set([&](VportRecord &r) { r.mac = mac; }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	// Read by the VF's driver when it builds its netdev: a running netdev
	// keeps its address until the driver is reloaded, as on a ConnectX.
	eth.perm_mac = mac;
	vport_acl_changed();
	return {};
}

std::string Firmware::set_host_vport_vlan(uint16_t vlan, uint8_t qos)
{
	if (!cfg.is_vf() || !is_eth())
		return kNotVf;
	if (vlan > 4095 || qos > 7)
		return "VLAN is 0..4095, QOS 0..7";
	if (host_set([&](VportRecord &r) {
		    r.vst_vlan = vlan;
		    r.vst_qos = vlan ? qos : 0;
	    }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	eth.vst_vlan = vlan;
	eth.vst_qos = vlan ? qos : 0;
	vport_acl_changed();
	return {};
}

std::string Firmware::set_host_vport_spoofchk(bool on)
{
	if (!cfg.is_vf() || !is_eth())
		return kNotVf;
	if (host_set([&](VportRecord &r) { r.spoofchk = on; }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	eth.spoofchk = on;
	vport_acl_changed();
	return {};
}

std::string Firmware::set_host_vport_trust(bool on)
{
	if (!cfg.is_vf() || !is_eth())
		return kNotVf;
	if (host_set([&](VportRecord &r) { r.trust = on; }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	eth.trust = on;
	vport_acl_changed();
	return {};
}

std::string Firmware::set_host_vport_admin(VportAdmin a)
{
	if (!cfg.is_vf())
		return kNotVf;
	if (!is_eth())
		return set_ib_vport_admin(a);
	if (host_set([a](VportRecord &r) { r.admin = a; }))
		return {};
	std::lock_guard<std::mutex> lk(mu);
	bool was_up = eth.oper_up();
	eth.vport_admin = a;
	eth_port_changed(was_up);
	return {};
}

namespace {

// A PF with VFs: each VF's vport as the adapter holds it (what the PF or
// the control channel set, what the VF reports).
std::vector<std::string> vf_vport_lines(const Adapter &a, bool eth)
{
	std::vector<std::string> v;
	for (uint16_t n = 1; n <= a.total_vfs(); ++n) {
		VportRecord r = a.vport(n);
		const MacAddr &m = r.mac;
		std::string s = fmt("vf %u vport %u link %s node_guid 0x%016llx port_guid 0x%016llx", n - 1u, n,
				    kAdmin[static_cast<unsigned>(r.admin)], static_cast<unsigned long long>(r.cur_node_guid),
				    static_cast<unsigned long long>(r.cur_port_guid));
		if (eth)
			s += fmt(" mac %02x:%02x:%02x:%02x:%02x:%02x state %s uc %zu mc %zu promisc %s", m[0], m[1], m[2],
				 m[3], m[4], m[5], r.oper_up ? "up" : "down", r.uc_list.size(), r.mc_list.size(),
				 r.promisc_uc || r.promisc_all ? "on" : "off");
		v.push_back(std::move(s));
	}
	return v;
}

} // namespace

std::vector<std::string> Firmware::vport_lines() const
{
	std::vector<std::string> v = own_vport_lines();
	if (cfg.adapter && !cfg.is_vf())
		for (std::string &s : vf_vport_lines(*cfg.adapter, is_eth()))
			v.push_back(std::move(s));
	return v;
}

std::vector<std::string> Firmware::own_vport_lines() const
{
	std::lock_guard<std::mutex> lk(mu);
	if (!is_eth())
		return {fmt("function %s", cfg.is_vf() ? "vf" : "pf"),
			fmt("node_guid 0x%016llx port_guid 0x%016llx", static_cast<unsigned long long>(port_.node_guid),
			    static_cast<unsigned long long>(port_.port_guid)),
			fmt("smi %s ib_virt %s", has_smi() ? "yes" : "no", cfg.is_vf() ? "yes" : "no"),
			fmt("link %s", kAdmin[static_cast<unsigned>(ib_vport_admin)]),
			fmt("state %s", ib_vport_state() == mad::PORT_ACTIVE ? "active" : "not active")};
	const MacAddr &m = eth.perm_mac;
	return {fmt("function %s", cfg.is_vf() ? "vf" : "pf"),
		fmt("mac %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]),
		fmt("link %s", kAdmin[static_cast<unsigned>(eth.vport_admin)]),
		fmt("vlan %u qos %u spoofchk %s trust %s", eth.vst_vlan, eth.vst_qos, eth.spoofchk ? "on" : "off",
		    eth.trust ? "on" : "off"),
		fmt("state %s cable %s", eth.oper_up() ? "up" : "down", eth.cable_up ? "in" : "out")};
}

} // namespace mlx5emu
