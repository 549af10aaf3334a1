// SPDX-License-Identifier: GPL-2.0
// Multicast groups of one HCA: which UD QPs ATTACH_TO_MCG joined to which
// MGID. Bounded: at most kMaxGroups groups and kMaxQpsPerGroup QPs in
// each, as the capabilities say (log_max_mcg, max_qp_mcg).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "fabric/packet.h"

namespace mlx5emu {

class McgTable {
public:
	static constexpr unsigned kLogMaxGroups = 10;
	static constexpr uint32_t kMaxGroups = 1u << kLogMaxGroups;
	static constexpr uint32_t kMaxQpsPerGroup = 64;

	enum class Result { Ok, Already, TableFull, GroupFull, NotAttached };
	Result attach(const Gid &mgid, uint32_t qpn);
	Result detach(const Gid &mgid, uint32_t qpn);
	// DESTROY_QP: the QP leaves every group it is in.
	void forget_qp(uint32_t qpn);
	// The QPs attached to `mgid` in attach order (nullptr: no such group).
	const std::vector<uint32_t> *members(const Gid &mgid) const;
	size_t groups() const { return groups_.size(); }
	void clear() { groups_.clear(); }

private:
	std::map<Gid, std::vector<uint32_t>> groups_;
};

} // namespace mlx5emu
