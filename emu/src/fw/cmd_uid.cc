// SPDX-License-Identifier: GPL-2.0
// Object ownership by uid (cmd_uid.h).
#include "fw/cmd_uid.h"

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

void uid_record(CmdCtx &c, Obj kind, uint32_t id) { c.fw.dp().res().uids.set(kind, id, c.uid); }

void uid_forget(CmdCtx &c, Obj kind, uint32_t id) { c.fw.dp().res().uids.erase(kind, id); }

bool uid_may_touch(CmdCtx &c, Obj kind, uint32_t id, uint32_t reason)
{
	if (uid_privileged(c.uid) || c.fw.dp().res().uids.get(kind, id) == c.uid)
		return true;
	++c.fw.refusals.foreign_touch;
	c.fail(prm::status::BAD_RESOURCE, reason);
	return false;
}

bool uid_may_name(CmdCtx &c, Obj kind, uint32_t id, uint32_t reason)
{
	uint16_t owner = c.fw.dp().res().uids.get(kind, id);
	if (uid_privileged(c.uid) || owner == c.uid || uid_privileged(owner))
		return true;
	++c.fw.refusals.foreign_name;
	c.fail(prm::status::BAD_RESOURCE, reason);
	return false;
}

} // namespace mlx5emu
