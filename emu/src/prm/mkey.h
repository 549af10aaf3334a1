// SPDX-License-Identifier: GPL-2.0
// Memory-key and protection-domain facts: the MKey context (mkc), the
// MKey commands, PD / XRC domain / transport domain / Q counter / MAD
// demux commands. Same conventions as prm.h.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

namespace res_op {
enum : uint16_t {
	CREATE_MKEY = 0x200,
	QUERY_MKEY = 0x201,
	DESTROY_MKEY = 0x202,
	ALLOC_Q_COUNTER = 0x771,
	DEALLOC_Q_COUNTER = 0x772,
	QUERY_Q_COUNTER = 0x773,
	ALLOC_PD = 0x800,
	DEALLOC_PD = 0x801,
	QUERY_MAD_DEMUX = 0x80b,
	SET_MAD_DEMUX = 0x80c,
	ALLOC_XRCD = 0x80e,
	DEALLOC_XRCD = 0x80f,
	ALLOC_TRANSPORT_DOMAIN = 0x816,
	DEALLOC_TRANSPORT_DOMAIN = 0x817,
};
} // namespace res_op

// MKey context (mkc, 64 bytes).
namespace mkc {
constexpr Field free{0, 30, 30};
constexpr Field access_mode_4_2{0, 28, 26};
constexpr Field umr_en{0, 15, 15};
constexpr Field a{0, 14, 14};
constexpr Field rw{0, 13, 13};
constexpr Field rr{0, 12, 12};
constexpr Field lw{0, 11, 11};
constexpr Field lr{0, 10, 10};
constexpr Field access_mode_1_0{0, 9, 8};
constexpr Field qpn{1, 31, 8};
constexpr Field mkey_7_0{1, 7, 0};
constexpr Field length64{3, 31, 31};
constexpr Field bsf_en{3, 30, 30};
constexpr Field en_rinval{3, 24, 24};
constexpr Field pd{3, 23, 0};
constexpr unsigned kStartAddr = 0x10; // be64
constexpr unsigned kLen = 0x18;       // be64
constexpr Field bsf_octword_size{8, 31, 0};
constexpr Field translations_octword_size{0xd, 31, 0};
constexpr Field log_page_size{0xe, 5, 0}; // log2 of the page size in bytes
constexpr unsigned kSize = 64;
enum : uint8_t { MODE_PA = 0, MODE_MTT = 1, MODE_KLM = 2, MODE_KSM = 3, MODE_MEMIC = 5 };
} // namespace mkc

namespace mkey_cmd {
constexpr Field pg_access{3, 31, 31};
constexpr Field mkey_umem_valid{3, 30, 30};
constexpr unsigned kMkc = 0x10;
constexpr Field translations_octword_actual_size{0x18, 31, 0};
constexpr unsigned kMtt = 0x110; // be64 entries: page address | rd_en << 0 | wr_en << 1
constexpr unsigned kCreateSize = 0x110;
constexpr Field mkey_index{2, 23, 0}; // CREATE out, QUERY/DESTROY in
constexpr unsigned kQueryOutSize = 0x110;
constexpr uint64_t kMttAddrMask = ~0xffull;
} // namespace mkey_cmd

// ALLOC_PD / ALLOC_XRCD / ALLOC_TRANSPORT_DOMAIN output and the matching
// DEALLOC input carry the number in dword 2, bits [23:0].
namespace res_number {
constexpr Field number{2, 23, 0};
}

namespace q_counter {
constexpr Field alloc_counter_set_id{2, 7, 0};   // ALLOC out, DEALLOC in
constexpr Field query_counter_set_id{7, 7, 0};   // QUERY in
constexpr Field query_clear{6, 31, 31};
constexpr unsigned kQueryOutSize = 256;
// QUERY_Q_COUNTER output fields (dwords of the output).
constexpr Field rx_write_requests{4, 31, 0};
constexpr Field rx_read_requests{6, 31, 0};
constexpr Field rx_atomic_requests{8, 31, 0};
constexpr Field out_of_buffer{0xc, 31, 0};
constexpr Field out_of_sequence{0xe, 31, 0};
constexpr Field duplicate_request{0x10, 31, 0};
constexpr Field rnr_nak_retry_err{0x12, 31, 0};
constexpr Field packet_seq_err{0x14, 31, 0};
constexpr Field local_ack_timeout_err{0x18, 31, 0};
constexpr Field req_cqe_error{0x25, 31, 0};
constexpr Field resp_cqe_error{0x24, 31, 0};
constexpr Field req_cqe_flush_error{0x30, 31, 0};
constexpr Field resp_cqe_flush_error{0x2f, 31, 0};
} // namespace q_counter

namespace mad_demux {
constexpr Field demux_mode{3, 25, 24}; // SET in
constexpr Field parameters{4, 31, 0};  // QUERY out
constexpr unsigned kQueryOutSize = 20;
enum : uint8_t { PASS_ALL = 0, SELECTIVE = 2 };
} // namespace mad_demux

} // namespace mlx5emu::prm
