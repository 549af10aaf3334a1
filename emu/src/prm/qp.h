// SPDX-License-Identifier: GPL-2.0
// Queue-pair facts of the ConnectX programming interface: the QP context
// (qpc) and address path (ads), the QP commands, transport types, states
// and optional-parameter bits. Same conventions as prm.h.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

namespace qp_op {
enum : uint16_t {
	CREATE_QP = 0x500,
	DESTROY_QP = 0x501,
	RST2INIT_QP = 0x502,
	INIT2RTR_QP = 0x503,
	RTR2RTS_QP = 0x504,
	RTS2RTS_QP = 0x505,
	SQERR2RTS_QP = 0x506,
	QP_2ERR = 0x507,
	QP_2RST = 0x50a,
	QUERY_QP = 0x50b,
	SQD_RTS_QP = 0x50c,
	INIT2INIT_QP = 0x50e,
};
} // namespace qp_op

// Address path (ads, 44 bytes), relative to the path's start.
namespace ads {
constexpr Field fl{0, 31, 31};
constexpr Field free_ar{0, 30, 30};
constexpr Field pkey_index{0, 15, 0};
constexpr Field grh{1, 23, 23};
constexpr Field mlid{1, 22, 16};
constexpr Field rlid{1, 15, 0};
constexpr Field ack_timeout{2, 31, 27};
constexpr Field src_addr_index{2, 23, 16};
constexpr Field stat_rate{2, 11, 8};
constexpr Field hop_limit{2, 7, 0};
constexpr Field tclass{3, 27, 20};
constexpr Field flow_label{3, 19, 0};
constexpr unsigned kRgid = 0x10; // 16 bytes
constexpr Field ecn{8, 23, 22};
constexpr Field dscp{8, 21, 16};
constexpr Field udp_sport{8, 15, 0};
constexpr Field sl{9, 27, 24};
constexpr Field vhca_port_num{9, 23, 16};
constexpr Field rmac_47_32{9, 15, 0};
constexpr Field rmac_31_0{10, 31, 0};
constexpr unsigned kSize = 44;
} // namespace ads

// QP context (qpc, 232 bytes).
namespace qpc {
constexpr Field state{0, 31, 28};
constexpr Field st{0, 23, 16};
constexpr Field pm_state{0, 12, 11};
constexpr Field wq_signature{1, 31, 31};
constexpr Field block_lb_mc{1, 30, 30};
constexpr Field pd{1, 23, 0};
constexpr Field mtu{2, 31, 29};
constexpr Field log_msg_max{2, 28, 24};
constexpr Field log_rq_size{2, 22, 19};
constexpr Field log_rq_stride{2, 18, 16};
constexpr Field no_sq{2, 15, 15};
constexpr Field log_sq_size{2, 14, 11};
constexpr Field ts_format{2, 7, 6};
constexpr Field rlky{2, 4, 4};
constexpr Field counter_set_id{3, 31, 24};
constexpr Field uar_page{3, 23, 0};
constexpr Field user_index{4, 23, 0};
constexpr Field log_page_size{5, 28, 24};
constexpr Field remote_qpn{5, 23, 0};
constexpr unsigned kPrimaryPath = 0x18;
constexpr unsigned kSecondaryPath = 0x44;
// Primary path fields as qpc fields.
constexpr Field pp_pkey_index{6, 15, 0};
constexpr Field pp_grh{7, 23, 23};
constexpr Field pp_mlid{7, 22, 16};
constexpr Field pp_rlid{7, 15, 0};
constexpr Field pp_ack_timeout{8, 31, 27};
constexpr Field pp_src_addr_index{8, 23, 16};
constexpr Field pp_hop_limit{8, 7, 0};
constexpr Field pp_tclass{9, 27, 20};
constexpr Field pp_flow_label{9, 19, 0};
constexpr unsigned kPpRgid = kPrimaryPath + ads::kRgid; // 16 bytes
constexpr Field pp_ecn{0xe, 23, 22};
constexpr Field pp_dscp{0xe, 21, 16};
constexpr Field pp_udp_sport{0xe, 15, 0};
constexpr Field pp_sl{0xf, 27, 24};
constexpr Field pp_vhca_port_num{0xf, 23, 16};
constexpr Field pp_rmac_47_32{0xf, 15, 0};
constexpr Field pp_rmac_31_0{0x10, 31, 0};
constexpr Field log_ack_req_freq{0x1c, 31, 28};
constexpr Field log_sra_max{0x1c, 23, 21};
constexpr Field retry_count{0x1c, 18, 16};
constexpr Field rnr_retry{0x1c, 15, 13};
constexpr Field fre{0x1c, 11, 11};
constexpr Field cur_rnr_retry{0x1c, 10, 8};
constexpr Field cur_retry_count{0x1c, 7, 5};
constexpr Field next_send_psn{0x1e, 23, 0};
constexpr Field cqn_snd{0x1f, 23, 0};
constexpr Field deth_sqpn{0x20, 23, 0};
constexpr Field last_acked_psn{0x22, 23, 0};
constexpr Field ssn{0x23, 23, 0};
constexpr Field log_rra_max{0x24, 23, 21};
constexpr Field atomic_mode{0x24, 19, 16};
constexpr Field rre{0x24, 15, 15};
constexpr Field rwe{0x24, 14, 14};
constexpr Field rae{0x24, 13, 13};
constexpr Field page_offset{0x24, 11, 6};
constexpr Field min_rnr_nak{0x25, 28, 24};
constexpr Field next_rcv_psn{0x25, 23, 0};
constexpr Field xrcd{0x26, 23, 0};
constexpr Field cqn_rcv{0x27, 23, 0};
constexpr unsigned kDbrAddr = 0xa0; // be64
constexpr Field q_key{0x2a, 31, 0};
constexpr Field rq_type{0x2b, 26, 24};
constexpr Field srqn_rmpn_xrqn{0x2b, 23, 0};
constexpr Field rmsn{0x2c, 23, 0};
constexpr Field hw_sq_wqebb_counter{0x2d, 31, 16};
constexpr Field sw_sq_wqebb_counter{0x2d, 15, 0};
constexpr Field hw_rq_counter{0x2e, 31, 0};
constexpr Field sw_rq_counter{0x2f, 31, 0};
constexpr Field cs_req{0x31, 15, 8};
constexpr Field cs_res{0x31, 7, 0};
constexpr Field dbr_umem_valid{0x34, 28, 28};
constexpr Field dbr_umem_id{0x39, 31, 0}; // with dbr_umem_valid: dbr_addr is a byte offset in it
constexpr unsigned kSize = 232;
} // namespace qpc

// Every QP command input: the QP number at dword 2, then
// opt_param_mask and the context (create, the transitions with a context).
namespace qp_cmd_in {
constexpr Field qpn{2, 23, 0}; // input_qpn for CREATE_QP
constexpr Field opt_param_mask{4, 31, 0};
constexpr Field ece{5, 31, 0};
constexpr unsigned kQpc = 0x18;
constexpr unsigned kPas = 0x110; // CREATE_QP: be64 page addresses
constexpr unsigned kWqUmemOffset = 0x100; // be64, with wq_umem_valid
constexpr Field wq_umem_id{0x42, 31, 0};
constexpr Field wq_umem_valid{0x43, 31, 31};
constexpr unsigned kTransitionSize = 0x100 + 16; // transitions with a context
constexpr unsigned kCreateSize = 0x110;            // 272 without pas
} // namespace qp_cmd_in
namespace create_qp_out {
constexpr Field qpn{2, 23, 0};
}
namespace query_qp_out {
constexpr Field opt_param_mask{4, 31, 0};
constexpr unsigned kQpc = 0x18;
constexpr unsigned kPas = 0x110; // page list (no context extension)
constexpr unsigned kSize = 0x110;
} // namespace query_qp_out

// Dynamically Connected targets (DCT): CREATE_DCT .. ARM_DCT_FOR_KEY_VIOLATION.
namespace dct_op {
enum : uint16_t {
	CREATE_DCT = 0x710,
	DESTROY_DCT = 0x711,
	DRAIN_DCT = 0x712,
	QUERY_DCT = 0x713,
	ARM_DCT_FOR_KEY_VIOLATION = 0x714,
};
} // namespace dct_op

// DCT context (dctc, 64 bytes).
namespace dctc {
constexpr Field state{0, 27, 24};
constexpr Field user_index{1, 23, 0};
constexpr Field cqn{2, 23, 0};
constexpr Field counter_set_id{3, 31, 24};
constexpr Field atomic_mode{3, 23, 20};
constexpr Field rre{3, 19, 19};
constexpr Field rwe{3, 18, 18};
constexpr Field rae{3, 17, 17};
constexpr Field rlky{3, 14, 14};
constexpr Field cs_res{4, 23, 16};
constexpr Field min_rnr_nak{4, 12, 8};
constexpr Field srqn_xrqn{5, 23, 0};
constexpr Field pd{6, 23, 0};
constexpr Field tclass{7, 31, 24};
constexpr Field flow_label{7, 19, 0};
constexpr unsigned kDcAccessKey = 0x20; // be64
constexpr Field mtu{0xa, 26, 24};
constexpr Field port{0xa, 23, 16};
constexpr Field pkey_index{0xa, 15, 0};
constexpr Field my_addr_index{0xb, 23, 16};
constexpr Field hop_limit{0xb, 7, 0};
constexpr Field dc_access_key_violation_count{0xc, 31, 0};
constexpr Field ecn{0xd, 7, 6};
constexpr Field dscp{0xd, 5, 0};
constexpr Field ece{0xf, 31, 0};
constexpr unsigned kSize = 64;
} // namespace dctc

// DCT command layouts: the DCT number at dword 2 of every input but
// CREATE's, whose context starts at 0x10 (QUERY's output too).
namespace dct_cmd {
constexpr Field dctn{2, 23, 0};
constexpr unsigned kDctc = 0x10;
constexpr unsigned kCreateInSize = 0x80;
constexpr unsigned kQueryOutSize = 0x80;
constexpr unsigned kSmallInSize = 0x10;
constexpr Field create_out_dctn{2, 23, 0};
} // namespace dct_cmd

namespace dct_state {
enum : uint8_t { ACTIVE = 0, DRAINING = 1, DRAINED = 2 };
}

// DCT events: the DCT number at the EQE's data + 24.
namespace dct_event {
enum : uint8_t { DRAINED = 0x1c, KEY_VIOLATION = 0x1d };
constexpr unsigned kDctn = 0x38; // be32
} // namespace dct_event

// Command status for a QP command in the wrong state.
constexpr uint8_t kStatusBadQpState = 0x10;

namespace qp_state {
enum : uint8_t { RST = 0, INIT = 1, RTR = 2, RTS = 3, SQER = 4, SQD = 5, ERR = 6 };
}
namespace qp_st {
enum : uint8_t { RC = 0x0, UC = 0x1, UD = 0x2, XRC = 0x3, MLX = 0x4, DCI = 0x5, QP0 = 0x7, QP1 = 0x8, REG_UMR = 0xc };
}
namespace rq_type {
enum : uint8_t { REGULAR = 0, SRQ = 1, CRQ = 2, ZERO_LEN = 3 };
}
namespace pm_state {
enum : uint8_t { ARMED = 0, REARM = 1, MIGRATED = 3 };
}

// opt_param_mask bits.
namespace optpar {
enum : uint32_t {
	ALT_ADDR_PATH = 1u << 0,
	RRE = 1u << 1,
	RAE = 1u << 2,
	RWE = 1u << 3,
	PKEY_INDEX = 1u << 4,
	Q_KEY = 1u << 5,
	RNR_TIMEOUT = 1u << 6,
	PRIMARY_ADDR_PATH = 1u << 7,
	SRA_MAX = 1u << 8,
	RRA_MAX = 1u << 9,
	PM_STATE = 1u << 10,
	RETRY_COUNT = 1u << 12,
	RNR_RETRY = 1u << 13,
	ACK_TIMEOUT = 1u << 14,
	LAG_TX_AFF = 1u << 15,
	PRI_PORT = 1u << 16,
	SRQN = 1u << 18,
	CQN_RCV = 1u << 19,
	COUNTER_SET_ID = 1u << 25,
};
} // namespace optpar

// IB path MTU encoding (qpc.mtu).
inline uint32_t mtu_bytes(uint32_t mtu_enum) { return mtu_enum >= 1 && mtu_enum <= 5 ? 128u << mtu_enum : 0; }

} // namespace mlx5emu::prm
