// SPDX-License-Identifier: GPL-2.0
// The vport ACLs of the legacy e-switch, as a VF's manager sets them:
// VLAN switch tagging (VST), the spoof check, and the unicast addresses
// the e-switch forwards to a VF (all, if trusted and promiscuous). Pure functions over one
// frame. Ingress is the frame from the function into the e-switch (the
// function's transmit), egress the frame from the e-switch to the
// function (its receive), the PRM's direction names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlx5emu::steer {

struct VportAcl {
	uint16_t vlan = 0;  // VST VLAN ID, 0: none (the function tags its own)
	uint8_t qos = 0;    // VST priority (PCP)
	bool spoofchk = false;
	std::array<uint8_t, 6> mac{}; // the source the spoof check allows
	// A VF gets the unicast frames for its addresses only: `mac` and the
	// unicast list it gave its vport; every unicast frame when its host
	// trusts it and it asked for a promiscuous mode (`promisc`).
	bool filter_unicast = false;
	bool promisc = false;
	std::vector<std::array<uint8_t, 6>> unicast;
};

enum class AclVerdict : uint8_t { Pass, DropSpoofed, DropTagged, DropVlan, DropUnicast };

// The function's frame on its way out: under the spoof check a source MAC
// other than the vport's is dropped; under VST a frame the function tagged
// itself is dropped, an untagged one gets the vport's tag (inserted in
// `frame`).
AclVerdict vport_ingress(const VportAcl &acl, std::vector<uint8_t> &frame);

// A frame on its way to the function: under VST only the vport's VLAN
// passes, its tag stripped from `frame`; anything else is dropped.
AclVerdict vport_egress(const VportAcl &acl, std::vector<uint8_t> &frame);

// Whether the e-switch forwards a frame with this destination (`frame`,
// `len` bytes) to the function: multicast always, unicast by the rule above.
AclVerdict vport_unicast(const VportAcl &acl, const uint8_t *frame, size_t len);

const char *acl_verdict_name(AclVerdict v);

} // namespace mlx5emu::steer
