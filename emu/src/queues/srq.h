// SPDX-License-Identifier: GPL-2.0
// Shared receive queues: basic SRQs (CREATE_SRQ), receive memory pools
// (CREATE_RMP, what ISSI 1 drivers use for SRQs) and XRC SRQs share one
// number space and one model: a linked list of receive WQEs, each led by a
// "next" segment, and a doorbell record with the posted-WQE counter.
#pragma once

#include <cstdint>

#include "queues/page_list.h"

namespace mlx5emu {

struct SrqConfig {
	enum class Kind : uint8_t { Srq, Rmp, XrcSrq };
	Kind kind = Kind::Srq;
	uint8_t log_size = 0;    // log2 of the number of WQEs
	uint8_t log_stride = 4;  // log2 of the WQE stride in bytes
	bool wq_signature = false;
	uint32_t pd = 0;
	uint32_t xrcd = 0;
	uint32_t cqn = 0;        // XRC SRQs complete to their own CQ
	uint32_t user_index = 0xffffff;
	uint16_t lwm = 0;
	uint64_t dbr_addr = 0;
	PageList buf;

	uint32_t nwqes() const { return 1u << log_size; }
	uint32_t stride() const { return 1u << log_stride; }
};

struct Srq {
	uint32_t number = 0;
	SrqConfig cfg;
	bool error = false;
	uint16_t head = 0;     // index of the next WQE to take
	uint16_t consumed = 0; // WQEs taken (16-bit counter)
	bool limit_armed = false;
	uint64_t taken = 0, limit_events = 0;
};

const char *srq_kind_name(SrqConfig::Kind k);

} // namespace mlx5emu
