// SPDX-License-Identifier: GPL-2.0
// The vport ACLs (steer/vport_acl.h): the spoof check, VST's tag on the
// way out and its strip and filter on the way in, the unicast filter.
#include <gtest/gtest.h>

#include "steer/vport_acl.h"

namespace mlx5emu::steer {
namespace {

const std::array<uint8_t, 6> kVfMac{0x02, 0, 0, 0, 0x32, 0x01};

// An untagged IPv4 frame from `src` (60 bytes).
std::vector<uint8_t> frame_from(const std::array<uint8_t, 6> &src)
{
	std::vector<uint8_t> f(60, 0xab);
	for (unsigned i = 0; i < 6; ++i) {
		f[i] = 0xff;
		f[6 + i] = src[i];
	}
	f[12] = 0x08;
	f[13] = 0x00;
	return f;
}

std::vector<uint8_t> tagged(std::vector<uint8_t> f, uint16_t tpid, uint16_t tci)
{
	const uint8_t tag[4] = {static_cast<uint8_t>(tpid >> 8), static_cast<uint8_t>(tpid),
				static_cast<uint8_t>(tci >> 8), static_cast<uint8_t>(tci)};
	f.insert(f.begin() + 12, tag, tag + 4);
	return f;
}

TEST(VportAcl, NoAclPassesEverythingUnchanged)
{
	VportAcl acl;
	for (auto f : {frame_from(kVfMac), tagged(frame_from({1, 2, 3, 4, 5, 6}), 0x8100, 7)}) {
		auto in = f, out = f;
		EXPECT_EQ(vport_ingress(acl, in), AclVerdict::Pass);
		EXPECT_EQ(in, f);
		EXPECT_EQ(vport_egress(acl, out), AclVerdict::Pass);
		EXPECT_EQ(out, f);
	}
}

TEST(VportAcl, SpoofCheckDropsOtherSources)
{
	VportAcl acl;
	acl.spoofchk = true;
	acl.mac = kVfMac;
	auto own = frame_from(kVfMac), other = frame_from({0x02, 0xde, 0xad, 0, 0, 1});
	EXPECT_EQ(vport_ingress(acl, own), AclVerdict::Pass);
	EXPECT_EQ(vport_ingress(acl, other), AclVerdict::DropSpoofed);
	std::vector<uint8_t> runt(8, 0);
	EXPECT_EQ(vport_ingress(acl, runt), AclVerdict::DropSpoofed) << "no source MAC at all";
	EXPECT_EQ(vport_egress(acl, other), AclVerdict::Pass) << "the check is on the VF's frames only";
}

TEST(VportAcl, VstTagsOnTheWayOutAndStripsOnTheWayIn)
{
	VportAcl acl;
	acl.vlan = 100;
	acl.qos = 5;
	auto f = frame_from(kVfMac);
	auto out = f;
	ASSERT_EQ(vport_ingress(acl, out), AclVerdict::Pass);
	EXPECT_EQ(out, tagged(f, 0x8100, 5 << 13 | 100));

	auto in = out;
	ASSERT_EQ(vport_egress(acl, in), AclVerdict::Pass);
	EXPECT_EQ(in, f) << "the tag is stripped";

	auto own_tag = tagged(f, 0x8100, 100);
	EXPECT_EQ(vport_ingress(acl, own_tag), AclVerdict::DropTagged) << "the VF may not tag under VST";
	auto qinq = tagged(f, 0x88a8, 100);
	EXPECT_EQ(vport_ingress(acl, qinq), AclVerdict::DropTagged);

	auto other_vlan = tagged(f, 0x8100, 200), untagged = f, short_frame = std::vector<uint8_t>(13, 0);
	EXPECT_EQ(vport_egress(acl, other_vlan), AclVerdict::DropVlan);
	EXPECT_EQ(vport_egress(acl, untagged), AclVerdict::DropVlan);
	EXPECT_EQ(vport_egress(acl, short_frame), AclVerdict::DropVlan);
	EXPECT_STREQ(acl_verdict_name(AclVerdict::DropVlan), "vlan");
}

// A VF's e-switch port forwards the unicast frames for its MAC and its
// unicast list, multicast and broadcast always; all unicast when it is
// trusted and promiscuous (Firmware::vport_acl_changed folds trust and the
// mode into `promisc`); a PF (no filter) gets everything.
TEST(VportAcl, UnicastFilter)
{
	const std::array<uint8_t, 6> kOther{0x02, 0, 0, 0, 0x99, 0x99}, kListed{0x02, 0, 0, 0, 0x55, 0x01};
	auto to = [](const std::array<uint8_t, 6> &dst) {
		std::vector<uint8_t> f(60, 0);
		std::copy(dst.begin(), dst.end(), f.begin());
		return f;
	};
	VportAcl acl;
	acl.mac = kVfMac;
	EXPECT_EQ(vport_unicast(acl, to(kOther).data(), 60), AclVerdict::Pass) << "no filter: a PF";
	acl.filter_unicast = true;
	EXPECT_EQ(vport_unicast(acl, to(kVfMac).data(), 60), AclVerdict::Pass);
	EXPECT_EQ(vport_unicast(acl, to(kOther).data(), 60), AclVerdict::DropUnicast);
	EXPECT_EQ(vport_unicast(acl, to(kListed).data(), 60), AclVerdict::DropUnicast);
	acl.unicast.push_back(kListed);
	EXPECT_EQ(vport_unicast(acl, to(kListed).data(), 60), AclVerdict::Pass) << "its unicast list";
	EXPECT_EQ(vport_unicast(acl, to({0xff, 0xff, 0xff, 0xff, 0xff, 0xff}).data(), 60), AclVerdict::Pass);
	EXPECT_EQ(vport_unicast(acl, to({0x33, 0x33, 0, 0, 0, 1}).data(), 60), AclVerdict::Pass) << "multicast";
	EXPECT_EQ(vport_unicast(acl, to(kOther).data(), 5), AclVerdict::DropUnicast) << "a runt";
	acl.promisc = true;
	EXPECT_EQ(vport_unicast(acl, to(kOther).data(), 60), AclVerdict::Pass) << "trusted and promiscuous";
	EXPECT_STREQ(acl_verdict_name(AclVerdict::DropUnicast), "unicast");
}

} // namespace
} // namespace mlx5emu::steer
