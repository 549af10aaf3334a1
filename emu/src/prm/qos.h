// SPDX-License-Identifier: GPL-2.0
// Port QoS facts (DCB): the general capability bits that advertise them,
// the QOS capability type, and the access registers of PFC's buffers, ETS,
// priority-to-TC mapping, trust and DSCP mapping, DCBX mode and the
// capability masks (PCAM, QCAM). Same conventions as prm.h: fields are
// {dword, high bit, low bit} relative to the register; kXxx are byte
// offsets and sizes.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

// General capability bits (cmd_hca_cap) of port QoS; qos, max_tc,
// pcam_reg, qcam_reg and vport_group_manager are in prm.h.
namespace qos_gen_caps {
constexpr Field sbcam_reg{0xb, 18, 18};
constexpr Field ets{0xd, 26, 26};
constexpr Field dcbx{0xe, 14, 14};
} // namespace qos_gen_caps

namespace cap_type_qos {
enum : uint16_t { QOS = 0xc };
} // namespace cap_type_qos

namespace reg_qos {
enum : uint16_t {
	QPTS = 0x4002,
	QETCR = 0x4005,
	QTCT = 0x400a,
	QPDPM = 0x4013,
	QCAM = 0x4019,
	DCBX_PARAM = 0x4020,
};
} // namespace reg_qos

constexpr unsigned kNumPrio = 8;
constexpr unsigned kNumTc = 8;
constexpr unsigned kNumDscp = 64;

// QETCR: per-TC ETS group, bandwidth share and rate limit (ets_tcn_config,
// 8 bytes each from kTc), then the port's rate limit (kGlobal).
namespace qetcr {
constexpr Field port_number{0, 23, 16};
constexpr unsigned kTc = 0x08;
constexpr unsigned kTcSize = 8;
constexpr Field g{0, 31, 31}; // group valid (a write sets `group`)
constexpr Field b{0, 30, 30}; // bw_allocation valid
constexpr Field r{0, 29, 29}; // rate limit valid
constexpr Field group{0, 19, 16};
constexpr Field bw_allocation{0, 6, 0};
constexpr Field max_bw_units{1, 19, 16};
constexpr Field max_bw_value{1, 15, 0};
constexpr unsigned kGlobal = 0x48;
constexpr Field global_r{0, 29, 29};
constexpr Field global_max_bw_units{1, 19, 16};
constexpr Field global_max_bw_value{1, 7, 0};
constexpr unsigned kSize = 0x50;
enum : uint8_t { BW_NO_LIMIT = 0, BW_100_MBPS = 3, BW_GBPS = 4 };
constexpr unsigned kMaxGroup = 7;
constexpr unsigned kFullBw = 100; // percent
} // namespace qetcr

// QTCT: one priority's traffic class.
namespace qtct {
constexpr Field port_number{0, 23, 16};
constexpr Field prio{0, 2, 0};
constexpr Field tclass{1, 2, 0};
constexpr unsigned kSize = 8;
} // namespace qtct

// QPTS: the port's trust state (which header field gives a packet's
// priority).
namespace qpts {
constexpr Field local_port{0, 23, 16};
constexpr Field trust_state{1, 2, 0};
constexpr unsigned kSize = 8;
enum : uint8_t { TRUST_PCP = 1, TRUST_DSCP = 2, TRUST_BOTH = 3 };
} // namespace qpts

// QPDPM: DSCP -> priority, one big-endian 16-bit entry per DSCP value
// from kDscp (e: a write updates this entry).
namespace qpdpm {
constexpr Field local_port{0, 23, 16};
constexpr unsigned kDscp = 0x04;
constexpr uint16_t kEntryE = 0x8000;
constexpr uint16_t kEntryPrio = 0x000f;
constexpr unsigned kSize = kDscp + 2 * kNumDscp;
} // namespace qpdpm

// PBMC: the port's receive buffers (bufferx, 8 bytes each from kBuffer;
// 0..7 are the network buffers, 8 and 9 the device's own), in cells.
namespace pbmc {
constexpr Field local_port{0, 23, 16};
constexpr Field xoff_timer_value{1, 31, 16};
constexpr Field xoff_refresh{1, 15, 0};
constexpr Field fullness_threshold{2, 22, 16};
constexpr Field port_buffer_size{2, 15, 0};
constexpr unsigned kBuffer = 0x0c;
constexpr unsigned kBufferSize = 8;
constexpr unsigned kNumBuffers = 10;
constexpr unsigned kNumNetworkBuffers = 8;
constexpr Field lossy{0, 25, 25};
constexpr Field epsb{0, 24, 24};
constexpr Field size{0, 15, 0};
constexpr Field xoff_threshold{1, 31, 16};
constexpr Field xon_threshold{1, 15, 0};
constexpr unsigned kSize = 0x6c;
} // namespace pbmc

// PPTB: priority -> receive buffer (4 bits per priority, priority 0 in
// the low bits); pm says which priorities a write updates.
namespace pptb {
constexpr Field mm{0, 29, 28};
constexpr Field local_port{0, 23, 16};
constexpr Field cm{0, 9, 9};
constexpr Field um{0, 8, 8};
constexpr Field pm{0, 7, 0};
constexpr Field prio_x_buff{1, 31, 0};
constexpr Field pm_msb{2, 31, 24};
constexpr Field ctrl_buff{2, 7, 4};
constexpr Field untagged_buff{2, 3, 0};
constexpr unsigned kSize = 12;
} // namespace pptb

// DCBX_PARAM: who runs DCBX (the host, or the firmware's agent in CEE,
// IEEE or automatic mode) and the port's DCB capabilities.
namespace dcbx_param {
constexpr Field dcbx_cee_cap{0, 31, 31};
constexpr Field dcbx_ieee_cap{0, 30, 30};
constexpr Field dcbx_standby_cap{0, 29, 29};
constexpr Field port_number{0, 23, 16};
constexpr Field max_application_table_size{0, 5, 0};
constexpr Field version_oper{1, 10, 8};
constexpr Field version_admin{1, 2, 0};
constexpr Field willing_admin{2, 31, 31};
constexpr Field pfc_cap_oper{2, 27, 24};
constexpr Field pfc_cap_admin{2, 19, 16};
constexpr Field num_of_tc_oper{2, 11, 8};
constexpr Field num_of_tc_admin{2, 3, 0};
constexpr Field remote_willing{3, 31, 31};
constexpr Field remote_pfc_cap{3, 27, 24};
constexpr Field remote_num_of_tc{3, 3, 0};
constexpr Field error{4, 7, 0};
constexpr unsigned kSize = 64;
enum : uint8_t { VER_HOST = 0, VER_CEE = 1, VER_IEEE = 2, VER_AUTO = 3 };
} // namespace dcbx_param

// PCAM and QCAM: which registers (bit n: register 0x5000 + n, or
// 0x4000 + n; bit 0 in the last byte of the 16-byte mask) and features the
// port serves, for feature group 0 and register group 0.
namespace cam {
constexpr Field feature_group{0, 23, 16};
constexpr Field access_reg_group{0, 7, 0};
constexpr unsigned kRegMask = 0x08;
constexpr unsigned kFeatureMask = 0x28;
constexpr unsigned kMaskSize = 16;
constexpr unsigned kPcamSize = 0x50;
constexpr unsigned kQcamSize = 0x48;
// Sets bit `n` of a 128-bit mask that starts at `mask`.
inline void set_bit(uint8_t *mask, unsigned n) { mask[kMaskSize - 1 - n / 8] |= static_cast<uint8_t>(1u << (n % 8)); }
} // namespace cam

// PFCC fields beyond prm/eth.h's: the write masks and buffer ownership.
namespace pfcc_mask {
constexpr Field buf_ownership{0, 27, 26};
constexpr Field pptx_mask_n{2, 29, 29};
constexpr Field pprx_mask_n{3, 29, 29};
constexpr Field prio_mask_tx{1, 23, 16};
constexpr Field prio_mask_rx{1, 7, 0};
} // namespace pfcc_mask


// The e-switch's transmit scheduling (SCHEDULING_HIERARCHY_E_SWITCH): the
// QOS capability type's e-switch bits, and the scheduling element
// commands with their scheduling_context (byte kCtxAt of CREATE/MODIFY's
// input and QUERY's output; the context's fields relative to it).
namespace esw_qos_caps {
constexpr Field esw_scheduling{0, 30, 30};
constexpr Field esw_bw_share{0, 29, 29};
constexpr Field esw_rate_limit{0, 28, 28};
constexpr Field log_esw_max_sched_depth{0, 19, 16};
constexpr Field esw_element_type{5, 31, 16}; // ELEMENT_TYPE_CAP_MASK_*
constexpr Field esw_tsar_type{5, 15, 0};     // TSAR_TYPE_CAP_MASK_*
constexpr Field max_tsar_bw_share{7, 31, 0};
enum : uint32_t { ELEMENT_CAP_TSAR = 1 << 0, ELEMENT_CAP_VPORT = 1 << 1 };
enum : uint32_t { TSAR_CAP_DWRR = 1 << 0 };
} // namespace esw_qos_caps

namespace sched_op {
enum : uint16_t {
	CREATE_SCHEDULING_ELEMENT = 0x782,
	DESTROY_SCHEDULING_ELEMENT = 0x783,
	QUERY_SCHEDULING_ELEMENT = 0x784,
	MODIFY_SCHEDULING_ELEMENT = 0x785,
};
} // namespace sched_op

namespace sched_elem {
constexpr Field scheduling_hierarchy{2, 31, 24};
constexpr Field scheduling_element_id{3, 31, 0}; // MODIFY, DESTROY, QUERY in
constexpr Field modify_bitmask{5, 31, 0};
constexpr Field out_element_id{4, 31, 0};        // CREATE out
constexpr unsigned kCtxAt = 0x20;
constexpr unsigned kInSize = 0x80;      // CREATE, MODIFY in; QUERY out
constexpr unsigned kCreateOutSize = 0x40;
constexpr unsigned kDestroyInSize = 0x40;
// scheduling_context
constexpr Field element_type{0, 31, 24};
constexpr Field tsar_type{1, 23, 16};
constexpr Field vport_number{1, 15, 0};
constexpr Field parent_element_id{2, 31, 0};
constexpr Field bw_share{5, 31, 0};
constexpr Field max_average_bw{6, 31, 0}; // Mb/s, 0: no limit
constexpr Field max_bw_obj_id{7, 31, 0};
enum : uint8_t { HIERARCHY_E_SWITCH = 0x2 };
enum : uint8_t { TYPE_TSAR = 0x0, TYPE_VPORT = 0x1 };
enum : uint8_t { TSAR_DWRR = 0x0 };
enum : uint32_t { MODIFY_BW_SHARE = 0x1, MODIFY_MAX_AVERAGE_BW = 0x2 };
} // namespace sched_elem

} // namespace mlx5emu::prm
