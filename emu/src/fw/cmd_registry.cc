// SPDX-License-Identifier: GPL-2.0
#include "fw/cmd_registry.h"

#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "exec/datapath.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/opcode_names.h"
#include "prm/prm.h"
#include "util/log.h"

namespace mlx5emu {

namespace {

// Reasons used by the generic checks (low 16 bits of the syndrome).
enum : uint32_t {
	kReasonUnknownOpcode = 0xff01,
	kReasonState = 0xff02,
	kReasonInlen = 0xff03,
	kReasonOutlen = 0xff04,
	kReasonNotEth = 0xff05,
	kReasonUid = 0xff06,
	kReasonException = 0xff07,
	kReasonManager = 0xff08,
	kReasonNotAlive = 0xff09,
};

const std::map<uint16_t, CmdSpec> &table()
{
	static const std::map<uint16_t, CmdSpec> t = [] {
		std::map<uint16_t, CmdSpec> m;
		for (auto group : {hca_commands(), pages_commands(), eq_commands(), vport_commands(),
				   reg_commands(), misc_commands(), pd_commands(), mkey_commands(), cq_commands(),
				   qp_commands(), dct_commands(), srq_commands(), mcg_commands(), nic_commands(), flow_table_commands(),
				   nic_vport_commands(), roce_commands(), memic_commands(), uctx_commands(),
				   odp_commands(), esw_commands(), umem_commands()})
			for (const CmdSpec &s : group)
				m.emplace(s.opcode, s);
		return m;
	}();
	return t;
}

// Once per opcode and function: which command the driver sent that the
// firmware does not implement.
void log_unknown_opcode(const CmdCtx &ctx)
{
	static std::mutex mu;
	static std::set<std::pair<const Firmware *, uint16_t>> seen;
	std::lock_guard<std::mutex> lk(mu);
	if (!seen.insert({&ctx.fw, ctx.opcode}).second)
		return;
	log_info("hca%u: command %s (0x%x, op_mod 0x%x) is not implemented: BAD_OP", ctx.fw.cfg.index,
		 opcode_name(ctx.opcode), ctx.opcode, ctx.op_mod);
}

void command_threw(CmdCtx &ctx, const char *what)
{
	++ctx.fw.refusals.command_exceptions;
	log_info("hca%u: command %s (0x%x) threw (%s): INTERNAL_ERR", ctx.fw.cfg.index, opcode_name(ctx.opcode),
		 ctx.opcode, what);
	ctx.fail(prm::status::INTERNAL_ERR, kReasonException);
}

bool uid_live(CmdCtx &ctx)
{
	auto lk = ctx.fw.dp().lock();
	return ctx.fw.dp().res().uctxs.contains(ctx.uid);
}

bool state_ok(Need need, FnState st)
{
	switch (need) {
	case Need::Any:
		return true;
	case Need::Enabled:
		return st != FnState::Disabled;
	case Need::NotInit:
		return st == FnState::Enabled;
	case Need::Initialized:
	case Need::EthInitialized:
		return st == FnState::Initialized;
	}
	return false;
}

} // namespace

bool own_vport(CmdCtx &c, uint32_t reason)
{
	if (c.get(prm::vport_in::other_vport) || c.get(prm::vport_in::vport_number)) {
		c.fail(prm::status::BAD_PARAM, reason);
		return false;
	}
	return true;
}

int target_vport(CmdCtx &c, uint32_t reason)
{
	uint32_t n = c.get(prm::vport_in::vport_number);
	if (!c.get(prm::vport_in::other_vport)) {
		if (n == 0)
			return 0;
	} else if (c.fw.cfg.is_vf()) {
		// A VF names no vport but its own, not even with other_vport.
	} else if (n == 0) {
		return 0; // other_vport naming the PF's own vport
	} else if (!c.fw.cfg.is_vf() && c.fw.cfg.adapter && c.fw.cfg.adapter->valid_vf(n)) {
		return static_cast<int>(n);
	}
	c.fail(prm::status::BAD_PARAM, reason);
	return -1;
}

const CmdSpec *find_command(uint16_t opcode)
{
	auto it = table().find(opcode);
	return it == table().end() ? nullptr : &it->second;
}

void dispatch_command(CmdCtx &ctx)
{
	const CmdSpec *spec = find_command(ctx.opcode);
	if (!spec) {
		ctx.fail(prm::status::BAD_OP, kReasonUnknownOpcode);
		log_unknown_opcode(ctx);
		return;
	}
	if (!ctx.fw.alive()) {
		// A VF its PF has not enabled (its init segment still says
		// initializing): nothing runs on it.
		++ctx.fw.refusals.vf_dead;
		ctx.fail(prm::status::BAD_SYS_STATE, kReasonNotAlive);
		return;
	}
	if (spec->who == Who::Manager && ctx.fw.cfg.is_vf()) {
		// Not advertised to a VF: it is no manager (caps.cc).
		++ctx.fw.refusals.vf_refused;
		ctx.fail(prm::status::BAD_OP, kReasonManager);
		return;
	}
	if (spec->need == Need::EthInitialized && !ctx.fw.is_eth()) {
		// Not advertised on an InfiniBand port.
		ctx.fail(prm::status::BAD_OP, kReasonNotEth);
		return;
	}
	if (!state_ok(spec->need, ctx.fw.state)) {
		ctx.fail(prm::status::BAD_SYS_STATE, kReasonState);
		return;
	}
	if (ctx.inlen < spec->min_inlen) {
		ctx.fail(prm::status::BAD_INPUT_LEN, kReasonInlen);
		return;
	}
	if (ctx.outlen < spec->min_outlen) {
		ctx.fail(prm::status::BAD_OUTPUT_LEN, kReasonOutlen);
		return;
	}
	// A uid names a live user context: the objects the command creates
	// are that process's (uid 0: the kernel's; the shared-resource uid:
	// the kernel's, usable by every context).
	if (!uid_privileged(ctx.uid) && ctx.fw.state == FnState::Initialized && !uid_live(ctx)) {
		++ctx.fw.refusals.dead_uid;
		ctx.fail(prm::status::BAD_PARAM, kReasonUid);
		return;
	}
	// No command stops the emulator: a handler that throws (a bug, or
	// an allocation the guest made too large) fails its command with
	// INTERNAL_ERR, is logged and counted, and the function goes on.
	// Handlers hold their locks as RAII guards, released on the way out.
	try {
		if (ctx.fw.faults.take_cmd_throw(ctx.opcode))
			throw std::runtime_error("injected by the control channel");
		spec->handler(ctx);
	} catch (const std::exception &e) {
		command_threw(ctx, e.what());
	} catch (...) {
		command_threw(ctx, "not a std::exception");
	}
}

} // namespace mlx5emu
