// SPDX-License-Identifier: GPL-2.0
// ATTACH_TO_MCG / DETACH_FROM_MCG: a UD QP joins or leaves the multicast
// group of an MGID (the data path delivers by the packet's DGID; the MLID
// only steers the fabric). Bounded by the table's limits (caps
// log_max_mcg, max_qp_mcg).
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kNoQp = 1,        // no such QP
	kNotUd = 2,       // only UD QPs join groups (not RC/UC, not QP0/QP1)
	kNotMulticast = 3, // MGID[0] is not 0xff
	kTableFull = 4,   // kMaxGroups groups exist
	kGroupFull = 5,   // kMaxQpsPerGroup QPs in the group
	kNotAttached = 6, // DETACH of a QP that is not in the group
};

// The QP and MGID of the command; false (failed) when they cannot join.
bool mcg_args(CmdCtx &c, Gid *mgid, uint32_t *qpn)
{
	*qpn = c.get(mcg_in::qpn);
	std::copy(c.in + mcg_in::kMgid, c.in + mcg_in::kMgid + 16, mgid->begin());
	const Qp *qp = c.fw.dp().res().qp(*qpn);
	if (!qp) {
		c.fail(status::BAD_PARAM, kNoQp);
		return false;
	}
	if (qp->cfg.st != qp_st::UD) {
		c.fail(status::BAD_PARAM, kNotUd);
		return false;
	}
	if ((*mgid)[0] != 0xff) {
		c.fail(status::BAD_PARAM, kNotMulticast);
		return false;
	}
	return true;
}

void attach_to_mcg(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Gid mgid;
	uint32_t qpn;
	if (!mcg_args(c, &mgid, &qpn))
		return;
	switch (c.fw.dp().res().mcgs.attach(mgid, qpn)) {
	case McgTable::Result::TableFull:
		return c.fail(status::NO_RESOURCES, kTableFull);
	case McgTable::Result::GroupFull:
		return c.fail(status::EXCEED_LIM, kGroupFull);
	default:
		return; // attached (again: one entry)
	}
}

void detach_from_mcg(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Gid mgid;
	uint32_t qpn;
	if (!mcg_args(c, &mgid, &qpn))
		return;
	if (c.fw.dp().res().mcgs.detach(mgid, qpn) != McgTable::Result::Ok)
		c.fail(status::BAD_PARAM, kNotAttached);
}

constexpr CmdSpec kCommands[] = {
	{op::ATTACH_TO_MCG, attach_to_mcg, mcg_in::kSize, 16, Need::Initialized},
	{op::DETACH_FROM_MCG, detach_from_mcg, mcg_in::kSize, 16, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> mcg_commands() { return kCommands; }

} // namespace mlx5emu
