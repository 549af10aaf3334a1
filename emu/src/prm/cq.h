// SPDX-License-Identifier: GPL-2.0
// Completion-queue facts: the CQ context (cqc), the CQ commands, the CQE
// layout, CQE opcodes and error syndromes, and the CQ doorbells. Same
// conventions as prm.h.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

namespace cq_op {
enum : uint16_t { CREATE_CQ = 0x400, DESTROY_CQ = 0x401, QUERY_CQ = 0x402, MODIFY_CQ = 0x403 };
}

// CQ context (cqc, 64 bytes).
namespace cqc {
constexpr Field status{0, 31, 28};
constexpr Field dbr_umem_valid{0, 25, 25};
constexpr Field dbr_umem_id{1, 31, 0}; // with dbr_umem_valid: dbr_addr is a byte offset in it
constexpr Field cqe_sz{0, 23, 21};
constexpr Field cc{0, 20, 20};
constexpr Field oi{0, 17, 17};
constexpr Field cq_period_mode{0, 16, 15};
// The moderation period starts at the last event (EQE) or the first CQE.
enum : uint8_t { PERIOD_FROM_EQE = 0, PERIOD_FROM_CQE = 1 };
constexpr Field cqe_comp_en{0, 14, 14};
constexpr Field st{0, 11, 8};
constexpr Field page_offset{2, 11, 6};
constexpr Field log_cq_size{3, 28, 24};
constexpr Field uar_page{3, 23, 0};
constexpr Field cq_period{4, 27, 16};
constexpr Field cq_max_count{4, 15, 0};
constexpr Field c_eqn{5, 31, 0};
constexpr Field log_page_size{6, 28, 24};
constexpr Field last_notified_index{8, 23, 0};
constexpr Field last_solicit_index{9, 23, 0};
constexpr Field consumer_counter{0xa, 23, 0};
constexpr Field producer_counter{0xb, 23, 0};
constexpr unsigned kDbrAddr = 0x38; // be64
constexpr unsigned kSize = 64;
enum : uint8_t { CQE_SZ_64 = 0, CQE_SZ_128 = 1, CQE_SZ_128_PAD = 2 };
enum : uint8_t { ST_SOLICITED_ARMED = 0x6, ST_ARMED = 0x9, ST_FIRED = 0xa };
enum : uint8_t { STATUS_OK = 0x0, STATUS_OVERFLOW = 0x9, STATUS_WRITE_FAIL = 0xa };
} // namespace cqc

namespace cq_cmd {
constexpr Field cqn{2, 23, 0}; // CREATE out, DESTROY/QUERY/MODIFY in
constexpr unsigned kCqc = 0x10;
constexpr unsigned kUmemOffset = 0x50; // be64, with cq_umem_valid
constexpr Field cq_umem_id{0x16, 31, 0};
constexpr Field cq_umem_valid{0x17, 31, 31};
constexpr unsigned kPas = 0x110;
constexpr unsigned kCreateSize = 0x110;
} // namespace cq_cmd
namespace modify_cq_in {
// op_mod 0 = modify (field select), 1 = resize.
constexpr Field field_select{3, 31, 0};
enum : uint32_t { SEL_PERIOD = 1u << 0, SEL_COUNT = 1u << 1, SEL_OI = 1u << 2, SEL_PERIOD_MODE = 1u << 4 };
enum : uint16_t { OPMOD_MODIFY = 0, OPMOD_RESIZE = 1 };
// Resize: which context fields the new buffer takes.
enum : uint32_t { RESIZE_LOG_SIZE = 1u << 0, RESIZE_PAGE_OFFSET = 1u << 1, RESIZE_PAGE_SIZE = 1u << 2 };
} // namespace modify_cq_in

// The 64-byte CQE (the second half of a 128-byte CQE).
namespace cqe {
constexpr unsigned kSize = 64;
constexpr unsigned kWqeId = 0x02;       // be16
constexpr unsigned kMlPath = 0x11;      // u8
constexpr unsigned kSlid = 0x16;        // be16
constexpr unsigned kL4L3HdrType = 0x1d; // u8: Ethernet, [0] VLAN stripped
constexpr unsigned kVlanInfo = 0x1e;    // be16: Ethernet, the VLAN tag
// be32: [29:28] grh, [27:24] sl (IB) / [25:24] RoCE L3 header type
// (Ethernet: 0 GRH, 1 IPv6, 2 IPv4), [23:0] source QPN
constexpr unsigned kFlagsRqpn = 0x18;
constexpr unsigned kSrqnUidx = 0x20;    // be32: srqn or user index (24 bits)
constexpr unsigned kImmInvalPkey = 0x24; // be32
constexpr unsigned kByteCnt = 0x2c;     // be32
constexpr unsigned kTimestampH = 0x30;
constexpr unsigned kTimestampL = 0x34;
constexpr unsigned kSopDropQpn = 0x38;  // be32: [31:24] WQE opcode (requester), [23:0] QPN
constexpr unsigned kWqeCounter = 0x3c;  // be16
constexpr unsigned kSignature = 0x3e;
constexpr unsigned kOpOwn = 0x3f;       // [7:4] opcode, [3:2] format, [0] owner
// Error CQE.
constexpr unsigned kVendorErrSynd = 0x36;
constexpr unsigned kSyndrome = 0x37;
} // namespace cqe

namespace cqe_opcode {
enum : uint8_t {
	REQ = 0,
	RESP_WR_IMM = 1,
	RESP_SEND = 2,
	RESP_SEND_IMM = 3,
	RESP_SEND_INV = 4,
	RESIZE_CQ = 5,
	REQ_ERR = 13,
	RESP_ERR = 14,
	INVALID = 15,
};
} // namespace cqe_opcode

namespace cqe_syndrome {
enum : uint8_t {
	LOCAL_LENGTH = 0x01,
	LOCAL_QP_OP = 0x02,
	LOCAL_PROT = 0x04,
	WR_FLUSH = 0x05,
	MW_BIND = 0x06,
	BAD_RESP = 0x10,
	LOCAL_ACCESS = 0x11,
	REMOTE_INVAL_REQ = 0x12,
	REMOTE_ACCESS = 0x13,
	REMOTE_OP = 0x14,
	TRANSPORT_RETRY_EXC = 0x15,
	RNR_RETRY_EXC = 0x16,
	REMOTE_ABORTED = 0x22,
};
} // namespace cqe_syndrome

// CQ arm doorbell (UAR + 0x20, 64-bit): dword0 = sn << 28 | cmd | ci,
// dword1 = cqn.
namespace cq_doorbell {
constexpr uint32_t kSnShift = 28;
constexpr uint32_t kCmdMask = 0x07000000;
constexpr uint32_t kCmdReqNot = 0;
constexpr uint32_t kCmdReqNotSol = 1u << 24;
constexpr uint32_t kCiMask = 0xffffff;
} // namespace cq_doorbell

// Asynchronous event types used by the data path and their data fields.
namespace async_event {
enum : uint8_t {
	PATH_MIG = 0x01,
	COMM_EST = 0x02,
	SQ_DRAINED = 0x03,
	CQ_ERROR = 0x04,
	WQ_CATAS_ERROR = 0x05,
	SRQ_LAST_WQE = 0x13,
	SRQ_RQ_LIMIT = 0x14,
	WQ_INVAL_REQ_ERROR = 0x10,
	WQ_ACCESS_ERROR = 0x11,
};
constexpr unsigned kCqErrCqn = 0x20;       // be32
constexpr unsigned kCqErrSyndrome = 0x2b;  // u8
constexpr unsigned kQpSrqType = 0x34;      // u8: 0 QP
constexpr unsigned kQpSrqNumber = 0x38;    // be32
constexpr unsigned kCompCqn = 0x38;        // COMP EQE: be32
enum : uint8_t { CQ_ERR_OVERRUN = 1, CQ_ERR_ACCESS_VIOLATION = 2 };
} // namespace async_event

} // namespace mlx5emu::prm
