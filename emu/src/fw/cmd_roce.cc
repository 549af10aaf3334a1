// SPDX-License-Identifier: GPL-2.0
// The RoCE GID table of an Ethernet port: SET_ROCE_ADDRESS writes an entry
// (the address, RoCE version, IPv4 or IPv6, source MAC and VLAN; an
// all-zero address empties it), QUERY_ROCE_ADDRESS reads it back. The data
// path sends from these entries and takes the frames addressed to them
// (exec/roce.cc).
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/eth.h"

namespace mlx5emu {

namespace {

using namespace prm;
namespace ra = roce_addr;

enum Reason : uint32_t {
	kNoRoce = 1,
	kIndex = 2,
	kPort = 3,
	kVersion = 4,
	kL3Type = 5,
	kNotMapped = 6,
};

// The entry the input names, or a failure.
bool entry_index(CmdCtx &c, unsigned *index)
{
	if (!c.fw.caps.supported(cap_type_eth::ROCE)) {
		c.fail(status::BAD_OP, kNoRoce);
		return false;
	}
	*index = c.get(ra::index);
	if (*index >= DataPath::kRoceGids) {
		c.fail(status::BAD_PARAM, kIndex);
		return false;
	}
	if (c.get(ra::vhca_port_num) > 1) {
		c.fail(status::BAD_PARAM, kPort);
		return false;
	}
	return true;
}

void set_roce_address(CmdCtx &c)
{
	unsigned index;
	if (!entry_index(c, &index))
		return;
	const uint8_t *l = c.in + ra::kSetAt;
	RoceGid g;
	std::memcpy(g.gid.data(), l + ra::kAddress, 16);
	g.vlan_valid = bits::get(l, ra::vlan_valid);
	g.vlan_id = static_cast<uint16_t>(bits::get(l, ra::vlan_id));
	bits::store_be16(g.mac.data(), static_cast<uint16_t>(bits::get(l, ra::mac_47_32)));
	bits::store_be32(g.mac.data() + 2, bits::get(l, ra::mac_31_0));
	uint32_t version = bits::get(l, ra::version), l3 = bits::get(l, ra::l3_type);
	if (g.valid()) {
		if (version != roce::VERSION_1 && version != roce::VERSION_2)
			return c.fail(status::BAD_PARAM, kVersion);
		if (version == roce::VERSION_2 && l3 != roce::L3_IPV4 && l3 != roce::L3_IPV6)
			return c.fail(status::BAD_PARAM, kL3Type);
		if (version == roce::VERSION_2 && l3 == roce::L3_IPV4 && !is_ipv4_mapped(g.gid))
			return c.fail(status::BAD_PARAM, kNotMapped);
	}
	g.version = static_cast<uint8_t>(version);
	g.l3_type = static_cast<uint8_t>(l3);
	auto lk = c.fw.dp().lock();
	c.fw.dp().set_roce_gid(index, g.valid() ? g : RoceGid{});
}

void query_roce_address(CmdCtx &c)
{
	unsigned index;
	if (!entry_index(c, &index))
		return;
	RoceGid g;
	{
		auto lk = c.fw.dp().lock();
		g = c.fw.dp().roce_gid(index);
	}
	uint8_t *l = c.out + ra::kQueryAt;
	std::memcpy(l + ra::kAddress, g.gid.data(), 16);
	bits::set(l, ra::vlan_valid, g.vlan_valid);
	bits::set(l, ra::vlan_id, g.vlan_id);
	bits::set(l, ra::mac_47_32, bits::load_be16(g.mac.data()));
	bits::set(l, ra::mac_31_0, bits::load_be32(g.mac.data() + 2));
	bits::set(l, ra::l3_type, g.l3_type);
	bits::set(l, ra::version, g.version);
}

constexpr CmdSpec kCommands[] = {
	{nic_op::SET_ROCE_ADDRESS, set_roce_address, ra::kSetAt + ra::kSize, hdr_out::kMinLen, Need::EthInitialized},
	{nic_op::QUERY_ROCE_ADDRESS, query_roce_address, 16, ra::kQueryAt + ra::kSize, Need::EthInitialized},
};

} // namespace

std::span<const CmdSpec> roce_commands() { return kCommands; }

} // namespace mlx5emu
