// SPDX-License-Identifier: GPL-2.0
// The vport ACLs: VST tag insertion and stripping, the spoof check, the
// unicast filter.
#include "steer/vport_acl.h"

#include <algorithm>

namespace mlx5emu::steer {

namespace {

constexpr unsigned kMacs = 12; // destination and source MAC
constexpr uint16_t kTpidCvlan = 0x8100, kTpidSvlan = 0x88a8;

uint16_t be16_at(const std::vector<uint8_t> &f, unsigned off)
{
	return static_cast<uint16_t>(f[off] << 8 | f[off + 1]);
}

bool tagged(const std::vector<uint8_t> &f)
{
	if (f.size() < kMacs + 2)
		return false;
	uint16_t tpid = be16_at(f, kMacs);
	return tpid == kTpidCvlan || tpid == kTpidSvlan;
}

} // namespace

AclVerdict vport_ingress(const VportAcl &acl, std::vector<uint8_t> &frame)
{
	if (frame.size() < kMacs)
		return AclVerdict::DropSpoofed;
	if (acl.spoofchk && !std::equal(acl.mac.begin(), acl.mac.end(), frame.begin() + 6))
		return AclVerdict::DropSpoofed;
	if (!acl.vlan)
		return AclVerdict::Pass;
	if (tagged(frame))
		return AclVerdict::DropTagged;
	uint16_t tci = static_cast<uint16_t>((acl.qos & 7) << 13 | (acl.vlan & 0xfff));
	const uint8_t tag[4] = {kTpidCvlan >> 8, kTpidCvlan & 0xff, static_cast<uint8_t>(tci >> 8),
				static_cast<uint8_t>(tci)};
	frame.insert(frame.begin() + kMacs, tag, tag + 4);
	return AclVerdict::Pass;
}

AclVerdict vport_egress(const VportAcl &acl, std::vector<uint8_t> &frame)
{
	if (!acl.vlan)
		return AclVerdict::Pass;
	if (!tagged(frame) || frame.size() < kMacs + 4 || be16_at(frame, kMacs) != kTpidCvlan ||
	    (be16_at(frame, kMacs + 2) & 0xfff) != acl.vlan)
		return AclVerdict::DropVlan;
	frame.erase(frame.begin() + kMacs, frame.begin() + kMacs + 4);
	return AclVerdict::Pass;
}

AclVerdict vport_unicast(const VportAcl &acl, const uint8_t *frame, size_t len)
{
	if (!acl.filter_unicast || acl.promisc)
		return AclVerdict::Pass;
	if (len < 6)
		return AclVerdict::DropUnicast;
	if (frame[0] & 1)
		return AclVerdict::Pass; // multicast and broadcast
	auto is_dst = [&](const std::array<uint8_t, 6> &m) { return std::equal(m.begin(), m.end(), frame); };
	if (is_dst(acl.mac) || std::any_of(acl.unicast.begin(), acl.unicast.end(), is_dst))
		return AclVerdict::Pass;
	return AclVerdict::DropUnicast;
}

const char *acl_verdict_name(AclVerdict v)
{
	switch (v) {
	case AclVerdict::Pass:
		return "pass";
	case AclVerdict::DropSpoofed:
		return "spoofed";
	case AclVerdict::DropTagged:
		return "tagged";
	case AclVerdict::DropVlan:
		return "vlan";
	case AclVerdict::DropUnicast:
		return "unicast";
	}
	return "?";
}

} // namespace mlx5emu::steer
