// SPDX-License-Identifier: GPL-2.0
// On-demand paging: PAGE_FAULT_RESUME (transport scheme), software's
// answer to a PAGE_FAULT EQE: the faulting QP goes on (the retried access
// finds the translation software filled in) or fails it (error bit).
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

void page_fault_resume(CmdCtx &c)
{
	if (!c.fw.caps.gen(cmd_hca_cap::pg))
		return c.fail(status::BAD_OP, 1);
	auto lk = c.fw.dp().lock();
	if (!c.fw.dp().page_fault_resume(c.get(odp::resume_token), c.get(odp::resume_wq),
					 static_cast<uint8_t>(c.get(odp::resume_type)), c.get(odp::resume_error)))
		c.fail(status::BAD_PARAM, 2);
}

constexpr CmdSpec kCommands[] = {
	{op::PAGE_FAULT_RESUME, page_fault_resume, 16, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> odp_commands() { return kCommands; }

} // namespace mlx5emu
