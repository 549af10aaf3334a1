// SPDX-License-Identifier: GPL-2.0
// The Ethernet port and NIC vport of a function with `--link eth`: what
// the port registers (PAOS, PMTU, PTYS, PFCC, the QoS registers) and the
// NIC vport context hold. Guarded by Firmware::mu; the data path learns the link state and
// MTU through DataPath::set_eth_link().
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fw/port_qos.h"

namespace mlx5emu {

using MacAddr = std::array<uint8_t, 6>;

// The admin state of a vport, as MODIFY_VPORT_STATE writes it (PRM values).
enum class VportAdmin : uint8_t { Down = 0, Up = 1, Auto = 2 };

struct EthPort {
	MacAddr perm_mac{};
	// NIC vport context.
	uint16_t vport_mtu = 0; // 0 until software sets it
	bool roce_en = false;
	bool promisc_uc = false, promisc_mc = false, promisc_all = false;
	bool disable_uc_local_lb = false; // disable_mc_local_lb: DataPath::mc_local_lb_disabled()
	uint8_t min_inline = 0;
	std::vector<MacAddr> uc_list, mc_list;
	std::vector<uint16_t> vlan_list;
	// Port registers.
	bool admin_up = false;         // PAOS admin status (a PF's port starts down; a VF's is up, see below)
	// The vport's admin state, its manager's to set: MODIFY_VPORT_STATE,
	// or the host side of a VF. A PF's vport is the uplink's and follows the
	// cable either way; a VF's vport is an e-switch port, which Up holds up
	// with the cable out (its frames still need the cable to leave).
	VportAdmin vport_admin = VportAdmin::Auto;
	bool vport_on_eswitch = false; // a VF
	// The vport's ACLs, its manager's too (steer/vport_acl.h): VLAN switch
	// tagging (0: none) and the spoof check against perm_mac.
	uint16_t vst_vlan = 0;
	uint8_t vst_qos = 0;
	bool spoofchk = false;
	// Trusted by its host: a VF's promiscuous modes reach the e-switch
	// (untrusted, it gets the unicast frames for its own addresses only).
	bool trust = false;
	bool cable_up = true;          // the control channel's `port down` pulls the cable
	uint16_t admin_mtu = 1500 + 26; // PMTU: the hardware MTU (L2 header, VLAN tag and FCS included)
	static constexpr uint16_t kMaxMtu = 9216;
	bool pause_rx = true, pause_tx = true; // PFCC global pause
	uint8_t pfc_rx = 0, pfc_tx = 0;
	PortQos qos; // ETS, trust, DSCP map, buffers, DCBX mode

	// The physical port (PAOS and PTYS oper): the vport's state is not in it.
	bool phys_up() const { return admin_up && cable_up; }
	// The vport's operational state (QUERY_VPORT_STATE, port change events).
	bool oper_up() const
	{
		if (!admin_up || vport_admin == VportAdmin::Down)
			return false;
		return cable_up || (vport_on_eswitch && vport_admin == VportAdmin::Up);
	}
	// Frames pass: the vport is up and the cable is in.
	bool link_up() const { return oper_up() && cable_up; }
};

} // namespace mlx5emu
