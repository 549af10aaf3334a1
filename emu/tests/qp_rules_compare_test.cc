// SPDX-License-Identifier: GPL-2.0
// The driver's QP state machine (ib/qp_rules.h, the tables modify_qp runs
// on) against the emulator's (queues/qp_context.cc): for every pair of
// states, the driver sends the command the emulator runs for it, and for
// every command, the optional parameters the driver sends are those the
// emulator takes. Where the two differ on purpose, the difference is
// listed below with its reason, so that a new difference on either side,
// or an old one that goes away, fails.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "prm/qp.h"
#include "queues/qp_context.h"

// The few names the driver's header uses, with the values of the kernel's
// headers (<rdma/ib_verbs.h>, <linux/mlx5/mlx5_ifc.h>) and of the driver's
// <mlx5c/hw.h>. The MLX5 and MLX5C ones are checked against the emulator's PRM
// constants below; the IB ones are ib_core's ABI.
namespace kdrv {
using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;

enum ib_qp_state { IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD, IB_QPS_SQE, IB_QPS_ERR };

constexpr uint32_t IB_QP_ACCESS_FLAGS = 1u << 3;
constexpr uint32_t IB_QP_PKEY_INDEX = 1u << 4;
constexpr uint32_t IB_QP_PORT = 1u << 5;
constexpr uint32_t IB_QP_QKEY = 1u << 6;
constexpr uint32_t IB_QP_AV = 1u << 7;
constexpr uint32_t IB_QP_TIMEOUT = 1u << 9;
constexpr uint32_t IB_QP_RETRY_CNT = 1u << 10;
constexpr uint32_t IB_QP_RNR_RETRY = 1u << 11;
constexpr uint32_t IB_QP_MAX_QP_RD_ATOMIC = 1u << 13;
constexpr uint32_t IB_QP_MIN_RNR_TIMER = 1u << 15;
constexpr uint32_t IB_QP_MAX_DEST_RD_ATOMIC = 1u << 17;
constexpr uint32_t IB_QP_PATH_MIG_STATE = 1u << 18;

constexpr uint16_t MLX5_CMD_OP_RST2INIT_QP = 0x502;
constexpr uint16_t MLX5_CMD_OP_INIT2RTR_QP = 0x503;
constexpr uint16_t MLX5_CMD_OP_RTR2RTS_QP = 0x504;
constexpr uint16_t MLX5_CMD_OP_RTS2RTS_QP = 0x505;
constexpr uint16_t MLX5_CMD_OP_SQERR2RTS_QP = 0x506;
constexpr uint16_t MLX5_CMD_OP_2ERR_QP = 0x507;
constexpr uint16_t MLX5_CMD_OP_2RST_QP = 0x50a;
constexpr uint16_t MLX5_CMD_OP_SQD_RTS_QP = 0x50c;
constexpr uint16_t MLX5_CMD_OP_INIT2INIT_QP = 0x50e;

constexpr uint32_t MLX5C_QP_OPTPAR_RRE = 1u << 1;
constexpr uint32_t MLX5C_QP_OPTPAR_RAE = 1u << 2;
constexpr uint32_t MLX5C_QP_OPTPAR_RWE = 1u << 3;
constexpr uint32_t MLX5C_QP_OPTPAR_PKEY_INDEX = 1u << 4;
constexpr uint32_t MLX5C_QP_OPTPAR_Q_KEY = 1u << 5;
constexpr uint32_t MLX5C_QP_OPTPAR_RNR_TIMEOUT = 1u << 6;
constexpr uint32_t MLX5C_QP_OPTPAR_PRIMARY_ADDR_PATH = 1u << 7;
constexpr uint32_t MLX5C_QP_OPTPAR_SRA_MAX = 1u << 8;
constexpr uint32_t MLX5C_QP_OPTPAR_RRA_MAX = 1u << 9;
constexpr uint32_t MLX5C_QP_OPTPAR_PM_STATE = 1u << 10;
constexpr uint32_t MLX5C_QP_OPTPAR_RETRY_COUNT = 1u << 12;
constexpr uint32_t MLX5C_QP_OPTPAR_RNR_RETRY = 1u << 13;
constexpr uint32_t MLX5C_QP_OPTPAR_ACK_TIMEOUT = 1u << 14;
constexpr uint32_t MLX5C_QP_OPTPAR_PRI_PORT = 1u << 16;
constexpr uint32_t MLX5C_QP_OPTPAR_COUNTER_SET_ID = 1u << 25;

#include "../../ib/qp_rules.h"
} // namespace kdrv

namespace mlx5emu::test {
namespace {

using namespace kdrv;
namespace op = prm::qp_op;
namespace opt = prm::optpar;
namespace st = prm::qp_state;

static_assert(MLX5_CMD_OP_RST2INIT_QP == op::RST2INIT_QP && MLX5_CMD_OP_INIT2RTR_QP == op::INIT2RTR_QP &&
	      MLX5_CMD_OP_RTR2RTS_QP == op::RTR2RTS_QP && MLX5_CMD_OP_RTS2RTS_QP == op::RTS2RTS_QP &&
	      MLX5_CMD_OP_SQERR2RTS_QP == op::SQERR2RTS_QP && MLX5_CMD_OP_2ERR_QP == op::QP_2ERR &&
	      MLX5_CMD_OP_2RST_QP == op::QP_2RST && MLX5_CMD_OP_SQD_RTS_QP == op::SQD_RTS_QP &&
	      MLX5_CMD_OP_INIT2INIT_QP == op::INIT2INIT_QP);
static_assert(MLX5C_QP_OPTPAR_RRE == opt::RRE && MLX5C_QP_OPTPAR_RAE == opt::RAE && MLX5C_QP_OPTPAR_RWE == opt::RWE &&
	      MLX5C_QP_OPTPAR_PKEY_INDEX == opt::PKEY_INDEX && MLX5C_QP_OPTPAR_Q_KEY == opt::Q_KEY &&
	      MLX5C_QP_OPTPAR_RNR_TIMEOUT == opt::RNR_TIMEOUT &&
	      MLX5C_QP_OPTPAR_PRIMARY_ADDR_PATH == opt::PRIMARY_ADDR_PATH && MLX5C_QP_OPTPAR_SRA_MAX == opt::SRA_MAX &&
	      MLX5C_QP_OPTPAR_RRA_MAX == opt::RRA_MAX && MLX5C_QP_OPTPAR_PM_STATE == opt::PM_STATE &&
	      MLX5C_QP_OPTPAR_RETRY_COUNT == opt::RETRY_COUNT && MLX5C_QP_OPTPAR_RNR_RETRY == opt::RNR_RETRY &&
	      MLX5C_QP_OPTPAR_ACK_TIMEOUT == opt::ACK_TIMEOUT && MLX5C_QP_OPTPAR_PRI_PORT == opt::PRI_PORT &&
	      MLX5C_QP_OPTPAR_COUNTER_SET_ID == opt::COUNTER_SET_ID);

// ib_core's state numbering differs from the QP context's (SQD, SQE).
uint8_t prm_state(uint8_t ib)
{
	switch (ib) {
	case IB_QPS_RESET:
		return st::RST;
	case IB_QPS_INIT:
		return st::INIT;
	case IB_QPS_RTR:
		return st::RTR;
	case IB_QPS_RTS:
		return st::RTS;
	case IB_QPS_SQD:
		return st::SQD;
	case IB_QPS_SQE:
		return st::SQER;
	case IB_QPS_ERR:
		return st::ERR;
	default:
		return kQpAnyState;
	}
}

const char *const kIbStateName[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

// The emulator's transitions, each from a state the driver knows.
struct KnownEmuOnly {
	uint8_t from, to; // IB_QPS_*
	const char *why;
};
constexpr KnownEmuOnly kEmuOnlyTransitions[] = {
	{IB_QPS_SQD, IB_QPS_RTS, "the driver carries out no SQD transition (-EINVAL, as the in-tree driver)"},
};

// Optional parameters the emulator takes and the driver never sends.
struct KnownEmuOnlyOptpar {
	uint16_t opcode;
	uint32_t bits;
	const char *why;
};
constexpr KnownEmuOnlyOptpar kEmuOnlyOptpar[] = {
	{op::INIT2INIT_QP, opt::COUNTER_SET_ID, "the driver binds the counter set at RST2INIT only"},
	{op::INIT2RTR_QP, opt::COUNTER_SET_ID, "the driver binds the counter set at RST2INIT only"},
	{op::RTS2RTS_QP, opt::ACK_TIMEOUT | opt::RETRY_COUNT | opt::RNR_RETRY | opt::COUNTER_SET_ID,
	 "ib_core's RTS->RTS takes no timeout or retry count; the driver binds the counter set at RST2INIT only"},
	{op::SQERR2RTS_QP, opt::RRE | opt::RAE,
	 "SQE->RTS: the driver sends remote write for UC only; RC does not enter SQE, UD has no access bits"},
};

const mlx5c_qp_trans *driver_row(uint8_t from, uint8_t to)
{
	for (const mlx5c_qp_trans &t : mlx5c_qp_transitions)
		if ((t.from == from || t.from == MLX5C_QPS_ANY) && t.to == to)
			return &t;
	return nullptr;
}

std::optional<QpTransitionRule> emu_rule(uint8_t from, uint8_t to)
{
	for (const QpTransitionRule &r : qp_transition_rules())
		if ((r.from == prm_state(from) || r.from == kQpAnyState) && r.to == prm_state(to))
			return r;
	return std::nullopt;
}

std::optional<QpTransitionRule> emu_rule_by_opcode(uint16_t opcode)
{
	for (const QpTransitionRule &r : qp_transition_rules())
		if (r.opcode == opcode)
			return r;
	return std::nullopt;
}

uint32_t known_emu_only_optpar(uint16_t opcode)
{
	uint32_t bits = 0;
	for (const KnownEmuOnlyOptpar &k : kEmuOnlyOptpar)
		if (k.opcode == opcode)
			bits |= k.bits;
	return bits;
}

std::string hex(uint32_t v)
{
	char b[16];
	std::snprintf(b, sizeof b, "0x%x", v);
	return b;
}

// Every pair of states: the driver's command is the emulator's, and a pair
// the driver refuses is one the emulator has no command for, but for the
// listed ones.
TEST(QpRulesCompare, EveryStatePairTakesTheSameCommand)
{
	for (uint8_t from = IB_QPS_RESET; from <= IB_QPS_ERR; ++from) {
		for (uint8_t to = IB_QPS_RESET; to <= IB_QPS_ERR; ++to) {
			SCOPED_TRACE(std::string(kIbStateName[from]) + " -> " + kIbStateName[to]);
			const mlx5c_qp_trans *d = driver_row(from, to);
			std::optional<QpTransitionRule> e = emu_rule(from, to);
			bool known = false;
			for (const KnownEmuOnly &k : kEmuOnlyTransitions)
				known |= k.from == from && k.to == to;
			if (known) {
				EXPECT_EQ(d, nullptr) << "listed as emulator-only, but the driver carries it out";
				EXPECT_TRUE(e.has_value()) << "listed as emulator-only, but the emulator lacks it";
				continue;
			}
			if (!d) {
				EXPECT_FALSE(e.has_value())
					<< "the emulator runs " << hex(e->opcode) << " for it, the driver refuses it";
				continue;
			}
			// Nothing to send: the QP is in that state already.
			if (!d->opcode) {
				EXPECT_EQ(from, to);
				continue;
			}
			ASSERT_TRUE(e.has_value()) << "the driver sends " << hex(d->opcode)
						   << ", the emulator has no command for it";
			EXPECT_EQ(d->opcode, e->opcode);
		}
	}
}

// The same rows seen from the commands: each command the driver sends
// moves between the same states in the emulator.
TEST(QpRulesCompare, EachCommandMovesBetweenTheSameStates)
{
	for (const mlx5c_qp_trans &t : mlx5c_qp_transitions) {
		if (!t.opcode)
			continue;
		SCOPED_TRACE(hex(t.opcode));
		std::optional<QpTransitionRule> e = emu_rule_by_opcode(t.opcode);
		ASSERT_TRUE(e.has_value());
		EXPECT_EQ(prm_state(t.from), e->from);
		EXPECT_EQ(prm_state(t.to), e->to);
	}
}

// For each command: every optional parameter the driver sends for any kind
// of QP is one whose fields the emulator takes, and every one the emulator
// takes is sent by the driver for some kind of QP, but for the listed ones.
TEST(QpRulesCompare, OptionalParametersAgree)
{
	static const char *const kClass[] = {"RC/XRC", "UC", "UD/QP0/QP1"};
	for (const mlx5c_qp_trans &t : mlx5c_qp_transitions) {
		if (!t.opcode)
			continue;
		SCOPED_TRACE(hex(t.opcode));
		std::optional<QpTransitionRule> e = emu_rule_by_opcode(t.opcode);
		ASSERT_TRUE(e.has_value());
		uint32_t sent = 0;
		for (int c = 0; c < MLX5C_QP_CLASSES; ++c) {
			EXPECT_EQ(hex(t.optpar[c] & ~e->optpar), hex(0)) << kClass[c] << ": sent, the emulator ignores it";
			sent |= t.optpar[c];
		}
		uint32_t known = known_emu_only_optpar(t.opcode);
		EXPECT_EQ(hex(e->optpar & ~sent), hex(known)) << "taken by the emulator, never sent by the driver";
		EXPECT_EQ(hex(sent & known), hex(0)) << "listed as emulator-only, but the driver sends it";
	}
	for (const KnownEmuOnlyOptpar &k : kEmuOnlyOptpar) {
		bool found = false;
		for (const mlx5c_qp_trans &t : mlx5c_qp_transitions)
			found |= t.opcode == k.opcode;
		EXPECT_TRUE(found) << hex(k.opcode) << " is listed, but the driver does not send it";
	}
}

// Every optional parameter of the transition table can be set by some
// attribute, and no attribute sets a bit the emulator does not know.
TEST(QpRulesCompare, EveryOptionalParameterHasAnAttribute)
{
	uint32_t by_attr = 0;
	for (const mlx5c_qp_attr_opt &a : mlx5c_qp_attr_optpars)
		by_attr |= a.optpar;
	uint32_t known = 0;
	for (uint32_t b : {opt::ALT_ADDR_PATH, opt::RRE, opt::RAE, opt::RWE, opt::PKEY_INDEX, opt::Q_KEY,
			   opt::RNR_TIMEOUT, opt::PRIMARY_ADDR_PATH, opt::SRA_MAX, opt::RRA_MAX, opt::PM_STATE,
			   opt::RETRY_COUNT, opt::RNR_RETRY, opt::ACK_TIMEOUT, opt::LAG_TX_AFF, opt::PRI_PORT,
			   opt::SRQN, opt::CQN_RCV, opt::COUNTER_SET_ID})
		known |= b;
	EXPECT_EQ(by_attr & ~known, 0u);
	for (const mlx5c_qp_trans &t : mlx5c_qp_transitions)
		for (int c = 0; c < MLX5C_QP_CLASSES; ++c)
			EXPECT_EQ(t.optpar[c] & ~by_attr, 0u) << hex(t.opcode) << " class " << c;
}

} // namespace
} // namespace mlx5emu::test
