// SPDX-License-Identifier: GPL-2.0
// Shared-receive-queue facts: the SRQ context (srqc), the XRC SRQ context
// (xrc_srqc), the receive memory pool (rmpc) with its work-queue context
// (wq), and their commands. Same conventions as prm.h.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

namespace srq_op {
enum : uint16_t {
	CREATE_SRQ = 0x700,
	DESTROY_SRQ = 0x701,
	QUERY_SRQ = 0x702,
	ARM_RQ = 0x703,
	CREATE_XRC_SRQ = 0x705,
	DESTROY_XRC_SRQ = 0x706,
	QUERY_XRC_SRQ = 0x707,
	ARM_XRC_SRQ = 0x708,
	CREATE_RMP = 0x90c,
	MODIFY_RMP = 0x90d,
	DESTROY_RMP = 0x90e,
	QUERY_RMP = 0x90f,
};
} // namespace srq_op

// SRQ context (srqc, 64 bytes). log_rq_stride is log2(stride / 16).
namespace srqc {
constexpr Field state{0, 31, 28};
constexpr Field log_srq_size{0, 27, 24};
constexpr Field wq_signature{1, 31, 31};
constexpr Field rlky{1, 28, 28};
constexpr Field log_rq_stride{1, 26, 24};
constexpr Field xrcd{1, 23, 0};
constexpr Field page_offset{2, 31, 26};
constexpr Field cqn{2, 23, 0};
constexpr Field log_page_size{4, 29, 24};
constexpr Field pd{6, 23, 0};
constexpr Field lwm{7, 31, 16};
constexpr Field wqe_cnt{7, 15, 0};
constexpr unsigned kDbrAddr = 0x28; // be64
constexpr unsigned kSize = 64;
enum : uint8_t { STATE_GOOD = 0, STATE_ERROR = 1 };
} // namespace srqc

// XRC SRQ context (xrc_srqc, 64 bytes): srqc plus a user index.
namespace xrc_srqc {
constexpr Field state{0, 31, 28};
constexpr Field log_xrc_srq_size{0, 27, 24};
constexpr Field wq_signature{1, 31, 31};
constexpr Field log_rq_stride{1, 26, 24};
constexpr Field xrcd{1, 23, 0};
constexpr Field page_offset{2, 31, 26};
constexpr Field cqn{2, 23, 0};
constexpr Field user_index_equal_xrc_srqn{4, 31, 31};
constexpr Field log_page_size{4, 29, 24};
constexpr Field user_index{4, 23, 0};
constexpr Field pd{6, 23, 0};
constexpr Field lwm{7, 31, 16};
constexpr Field wqe_cnt{7, 15, 0};
constexpr unsigned kDbrAddr = 0x28; // be64 (low 2 bits reserved)
} // namespace xrc_srqc

// Work-queue context (wq, 200 bytes); log_wq_stride is log2(stride in
// bytes), log_wq_pg_sz is log2(page) - 12, page_offset in page/64 units.
namespace wq {
constexpr Field wq_type{0, 31, 28};
constexpr Field wq_signature{0, 27, 27};
constexpr Field page_offset{1, 20, 16};
constexpr Field lwm{1, 15, 0};
constexpr Field pd{2, 23, 0};
constexpr Field uar_page{3, 23, 0};
constexpr unsigned kDbrAddr = 0x10; // be64
constexpr Field hw_counter{6, 31, 0};
constexpr Field sw_counter{7, 31, 0};
constexpr Field log_wq_stride{8, 19, 16};
constexpr Field log_wq_pg_sz{8, 12, 8};
constexpr Field log_wq_sz{8, 4, 0};
constexpr Field dbr_umem_valid{9, 31, 31};
constexpr Field wq_umem_valid{9, 30, 30};
constexpr unsigned kPas = 0xc0;
enum : uint8_t { TYPE_LINKED_LIST = 0, TYPE_CYCLIC = 1 };
} // namespace wq

// RMP context (rmpc): state, then the wq at 0x30.
namespace rmpc {
constexpr Field state{0, 23, 20};
constexpr Field basic_cyclic_rcv_wqe{1, 31, 31};
constexpr unsigned kWq = 0x30;
enum : uint8_t { STATE_RDY = 1, STATE_ERR = 3 };
} // namespace rmpc

namespace srq_cmd {
constexpr Field number{2, 23, 0}; // srqn / xrc_srqn / rmpn everywhere
constexpr unsigned kSrqc = 0x10;  // CREATE_SRQ / CREATE_XRC_SRQ in, QUERY out
constexpr unsigned kSrqPas = 0x110;
constexpr Field xrc_srq_umem_valid{0x17, 31, 31};
constexpr unsigned kRmpc = 0x20;  // CREATE_RMP / MODIFY_RMP in, QUERY_RMP out
constexpr unsigned kRmpPas = kRmpc + rmpc::kWq + wq::kPas; // 0x110
constexpr unsigned kCreateSize = 0x110;
// MODIFY_RMP
constexpr Field modify_rmp_state{2, 31, 28};
constexpr Field modify_bitmask_lwm{5, 0, 0};
// ARM_RQ / ARM_XRC_SRQ
constexpr Field arm_lwm{3, 15, 0};
enum : uint16_t { ARM_RQ_OPMOD_RQ = 0, ARM_RQ_OPMOD_SRQ = 1, ARM_RQ_OPMOD_XRQ = 2 };
} // namespace srq_cmd

} // namespace mlx5emu::prm
