// SPDX-License-Identifier: GPL-2.0
// User contexts: CREATE_UCTX gives a process opened with DEVX its uid,
// DESTROY_UCTX takes it back. Commands carry the uid in their header;
// the objects they create remember it (fw/cmd_uid.h: a context touches
// only its own objects; QPs and memory keys: also the UMR rule of
// exec/umr.cc). uid 0 is the kernel's.
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kFull = 1,
	kNoUctx = 2,
	kNested = 3,
	kBusy = 4,
	kNotKernel = 5,
};

void create_uctx(CmdCtx &c)
{
	if (!c.fw.cfg.caps_uctx)
		return c.fail(status::BAD_OP, kNoUctx); // log_max_uctx 0
	// Only the kernel creates user contexts.
	if (c.uid)
		return c.fail(status::BAD_PARAM, kNested);
	auto lk = c.fw.dp().lock();
	uint32_t uid;
	if (!c.fw.dp().res().uctxs.alloc(&uid))
		return c.fail(status::NO_RESOURCES, kFull);
	c.put(uctx_cmd::create_out_uid, uid);
}

// Only once every object of the context is gone: a uid handed out again
// must not find the previous process's objects its own.
void destroy_uctx(CmdCtx &c)
{
	if (c.uid)
		return c.fail(status::BAD_PARAM, kNotKernel); // the header's uid is reserved here
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t uid = c.get(uctx_cmd::destroy_in_uid);
	if (!r.uctxs.contains(uid))
		return c.fail(status::BAD_PARAM, kNoUctx);
	if (r.uids.count(static_cast<uint16_t>(uid))) {
		++c.fw.refusals.uctx_busy;
		return c.fail(status::BAD_RES_STATE, kBusy);
	}
	r.uctxs.release(uid);
}

constexpr CmdSpec kCommands[] = {
	{op::CREATE_UCTX, create_uctx, uctx_cmd::kCreateInSize, 16, Need::Initialized},
	{op::DESTROY_UCTX, destroy_uctx, 16, 16, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> uctx_commands() { return kCommands; }

} // namespace mlx5emu
