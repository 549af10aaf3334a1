// SPDX-License-Identifier: GPL-2.0
// Which objects a command may use, by the uid in its header (the user
// context of the process that sent it, 0 for the kernel). See README.md
// "User contexts and uids" for the rules and why.
#pragma once

#include <cstdint>

#include "queues/resources.h"

namespace mlx5emu {

struct CmdCtx;

// The uid of resources the kernel shares with every user context (the
// in-tree mlx5_core's EQs and Q counters once log_max_uctx is set).
constexpr uint16_t kSharedResourceUid = 0xffff;

// The kernel's commands (uid 0, or the shared-resource uid that only the
// kernel puts in a header) may use every object.
inline bool uid_privileged(uint16_t uid) { return uid == 0 || uid == kSharedResourceUid; }

// Records who created object `id` of `kind`: the command's uid.
void uid_record(CmdCtx &c, Obj kind, uint32_t id);
// The object is gone.
void uid_forget(CmdCtx &c, Obj kind, uint32_t id);

// A query, modify or destroy of object `id`: only by its own user
// context (or the kernel). Otherwise fails the command (BAD_RESOURCE,
// `reason`), counts it and returns false. Callers hold the data path's
// lock and have checked that the object exists.
bool uid_may_touch(CmdCtx &c, Obj kind, uint32_t id, uint32_t reason);
// A context field naming object `id` (a key's PD, a QP's CQ): the
// command's own objects and the kernel's, never another context's.
bool uid_may_name(CmdCtx &c, Obj kind, uint32_t id, uint32_t reason);

} // namespace mlx5emu
