// SPDX-License-Identifier: GPL-2.0
#include "steer/eswitch.h"

#include <cstring>

#include "prm/eth.h"
#include "prm/prm.h"
#include "steer/headers.h"
#include "steer/match.h"
#include "util/fmt.h"

namespace mlx5emu::steer {

namespace st = prm::status;
namespace ftt = prm::flow_table_type;

namespace {

// Table and group ids of a namespace start here: the FDB's above the NIC
// receive tables' (from 1), each vport's ACLs in a window of their own
// (Steering::kMaxTables < 0x1000 tables each).
uint32_t first_id(uint8_t type, uint16_t vport)
{
	if (type == ftt::FDB)
		return 0x100000;
	return (type == ftt::ESW_INGRESS_ACL ? 0x200000u : 0x400000u) + 0x1000u * vport;
}

const char *type_name(uint8_t type)
{
	switch (type) {
	case ftt::FDB:
		return "fdb";
	case ftt::ESW_INGRESS_ACL:
		return "ingress acl";
	default:
		return "egress acl";
	}
}

} // namespace

Eswitch::Eswitch(uint16_t max_vport, unsigned log_l2_size)
	: max_vport_(max_vport), log_l2_size_(log_l2_size), qos_(max_vport)
{
}

Steering *Eswitch::tables(uint8_t type, uint16_t vport)
{
	bool acl = type == ftt::ESW_INGRESS_ACL || type == ftt::ESW_EGRESS_ACL;
	if (type == ftt::FDB ? vport != 0 : !acl || vport > max_vport_)
		return nullptr;
	auto key = std::make_pair(type, vport);
	auto it = ns_.find(key);
	if (it == ns_.end())
		it = ns_.try_emplace(key, first_id(type, vport), max_vport_).first;
	return &it->second;
}

const Steering *Eswitch::find(uint8_t type, uint16_t vport) const
{
	auto it = ns_.find(std::make_pair(type, vport));
	return it == ns_.end() ? nullptr : &it->second;
}

bool Eswitch::acl_passes(uint8_t type, uint16_t vport, const uint8_t *frame, size_t len)
{
	auto it = ns_.find(std::make_pair(type, vport));
	if (it == ns_.end() || !it->second.root())
		return true;
	Headers h = parse_headers(frame, len);
	return !it->second.classify(esw_match_image(h, vport), static_cast<uint32_t>(len)).dropped_by_rule;
}

EswVportCtx Eswitch::vport_ctx_of(uint16_t vport) const
{
	auto it = ctx_.find(vport);
	return it == ctx_.end() ? EswVportCtx{} : it->second;
}

uint8_t Eswitch::set_l2(uint32_t index, const L2Entry &e, uint32_t *reason)
{
	if (index >= l2_size())
		return *reason = 1, st::BAD_PARAM;
	if (e.mac[0] & 1)
		return *reason = 2, st::BAD_PARAM; // the MPFS holds unicast addresses
	for (const auto &[i, o] : l2_)
		if (i != index && o.mac == e.mac && o.vlan_valid == e.vlan_valid && o.vlan == e.vlan)
			return *reason = 3, st::BAD_PARAM; // one index per address
	l2_[index] = e;
	return st::OK;
}

uint8_t Eswitch::delete_l2(uint32_t index, uint32_t *reason)
{
	if (!l2_.erase(index))
		return *reason = 4, st::BAD_PARAM;
	return st::OK;
}

bool Eswitch::mpfs_has(const uint8_t *mac) const
{
	for (const auto &[i, e] : l2_)
		if (std::memcmp(e.mac.data(), mac, 6) == 0)
			return true;
	return false;
}

void Eswitch::clear()
{
	ns_.clear();
	ctx_.clear();
	l2_.clear();
	qos_.clear();
}

std::vector<std::string> Eswitch::describe() const
{
	std::vector<std::string> out;
	out.push_back(fmt("e-switch: %zu MPFS entries of %u, %zu table namespaces", l2_.size(), l2_size(), ns_.size()));
	for (const auto &[i, e] : l2_)
		out.push_back(fmt("  mpfs %u %02x:%02x:%02x:%02x:%02x:%02x%s", i, e.mac[0], e.mac[1], e.mac[2], e.mac[3],
				  e.mac[4], e.mac[5], e.vlan_valid ? fmt(" vlan %u", e.vlan).c_str() : ""));
	for (const auto &[v, c] : ctx_)
		if (c.cvlan_strip || c.cvlan_insert)
			out.push_back(fmt("  vport %u: cvlan strip %d insert %u vid %u pcp %u", v, c.cvlan_strip,
					  c.cvlan_insert, c.cvlan_id, c.cvlan_pcp));
	for (const auto &[k, s] : ns_) {
		out.push_back(fmt("  %s of vport %u: root 0x%x, %zu tables, %zu entries", type_name(k.first), k.second,
				  s.root(), s.tables(), s.entries()));
	}
	for (std::string &l : qos_.describe())
		out.push_back(std::move(l));
	return out;
}

} // namespace mlx5emu::steer
