// SPDX-License-Identifier: GPL-2.0
// The QP context (qpc) <-> QpConfig, and the QP state machine: which
// transition is allowed from which state and which context fields each
// transition takes (mandatory ones always, optional ones by
// opt_param_mask), as the QP commands define them.
#pragma once

#include <cstdint>
#include <vector>

#include "queues/qp.h"

namespace mlx5emu {

struct QpLimits {
	uint8_t log_max_ra_req = 4; // log_sra_max bound
	uint8_t log_max_ra_res = 4; // log_rra_max bound
	uint8_t max_mtu = 5;        // port MTU (IB enum)
	uint8_t log_max_msg = 30;
};

// The fields CREATE_QP takes from the context.
void qp_config_from_create(const uint8_t *qpc, QpConfig *cfg);

// Applies QP command `opcode` (RST2INIT .. INIT2INIT, 2ERR, 2RST) with
// context `qpc` (nullptr for 2ERR/2RST). Returns 0 or a command status
// (BAD_QP_STATE for a transition not allowed from the current state),
// with *reason for the syndrome. On success qp.state is the new state;
// the caller handles the side effects (flush on ERR, reset on RST).
uint8_t qp_transition(Qp &qp, uint16_t opcode, const uint8_t *qpc, uint32_t opt_mask, const QpLimits &lim,
		      uint32_t *reason);

// One transition of the state machine, read-only, for the tests that
// compare it with the driver's table (tests/qp_rules_compare_test.cc):
// the command, the state it needs (kQpAnyState: any) and the state it
// leaves, and the opt_param_mask bits it honours, those whose every
// context field the transition takes when the bit is set.
constexpr uint8_t kQpAnyState = 0xff;
struct QpTransitionRule {
	uint16_t opcode;
	uint8_t from;
	uint8_t to;
	uint32_t optpar;
};
std::vector<QpTransitionRule> qp_transition_rules();

// The context QUERY_QP reports.
void qp_config_to_qpc(const Qp &qp, uint8_t *qpc);

} // namespace mlx5emu
