// SPDX-License-Identifier: GPL-2.0
// ConnectX programming-interface facts used by the emulated firmware:
// opcodes, status codes, event types and structure layouts.
//
// Layouts are written as bits::Field{dword, high bit, low bit} relative to
// the start of the structure named by the namespace (see bits.h). Byte
// offsets (kXxx) are used for arrays and embedded blocks.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

// ---------------------------------------------------------------------------
// Opcodes
namespace op {
enum : uint16_t {
	QUERY_HCA_CAP = 0x100,
	QUERY_ADAPTER = 0x101,
	INIT_HCA = 0x102,
	TEARDOWN_HCA = 0x103,
	ENABLE_HCA = 0x104,
	DISABLE_HCA = 0x105,
	QUERY_PAGES = 0x107,
	MANAGE_PAGES = 0x108,
	SET_HCA_CAP = 0x109,
	QUERY_ISSI = 0x10a,
	SET_ISSI = 0x10b,
	SET_DRIVER_VERSION = 0x10d,
	QUERY_SPECIAL_CONTEXTS = 0x203,
	PAGE_FAULT_RESUME = 0x204,
	ALLOC_MEMIC = 0x205,
	DEALLOC_MEMIC = 0x206,
	CREATE_EQ = 0x301,
	DESTROY_EQ = 0x302,
	QUERY_EQ = 0x303,
	GEN_EQE = 0x304,
	MAD_IFC = 0x50d,
	QUERY_VPORT_STATE = 0x750,
	QUERY_NIC_VPORT_CONTEXT = 0x754,
	MODIFY_NIC_VPORT_CONTEXT = 0x755,
	QUERY_HCA_VPORT_CONTEXT = 0x762,
	MODIFY_HCA_VPORT_CONTEXT = 0x763,
	QUERY_HCA_VPORT_GID = 0x764,
	QUERY_HCA_VPORT_PKEY = 0x765,
	ALLOC_UAR = 0x802,
	DEALLOC_UAR = 0x803,
	ACCESS_REG = 0x805,
	ATTACH_TO_MCG = 0x806,
	DETACH_FROM_MCG = 0x807,
	NOP = 0x80d,
	QUERY_LAG = 0x842,
	CREATE_UCTX = 0xa04,
	DESTROY_UCTX = 0xa06,
	CREATE_UMEM = 0xa08,
	DESTROY_UMEM = 0xa0a,
};
} // namespace op

// CREATE_UCTX / DESTROY_UCTX (a user context: the uid of the commands of
// one process opened with DEVX).
namespace uctx_cmd {
constexpr Field create_out_uid{2, 15, 0};
constexpr Field destroy_in_uid{2, 15, 0};
constexpr unsigned kCreateInSize = 0x10 + 0x30; // header + uctx
} // namespace uctx_cmd

// CREATE_UMEM / DESTROY_UMEM: pinned user memory named by id in queue
// contexts (umem at byte 0x10 of the input: MTTs of 4 KiB << log_page_size
// pages, the umem starting page_offset bytes into the first).
namespace umem_cmd {
constexpr Field ats{8, 31, 31};
constexpr Field log_page_size{8, 4, 0};
constexpr Field page_offset{9, 31, 0};
constexpr unsigned kNumOfMtt = 0x28; // be64
constexpr unsigned kMtt = 0x30;      // be64 each: address | wr_en << 1 | rd_en
constexpr unsigned kCreateInSize = 0x30;
constexpr Field create_out_umem_id{2, 23, 0};
constexpr Field destroy_in_umem_id{2, 23, 0};
constexpr unsigned kOutSize = 16;
} // namespace umem_cmd

// QUERY_LAG: the LAG context (8 bytes at output byte 8; lag_state 0 = no LAG).
namespace query_lag {
constexpr unsigned kInSize = 16;
constexpr unsigned kOutSize = 16;
} // namespace query_lag

// Command status (output byte 0).
namespace status {
enum : uint8_t {
	OK = 0x00,
	INTERNAL_ERR = 0x01,
	BAD_OP = 0x02,
	BAD_PARAM = 0x03,
	BAD_SYS_STATE = 0x04,
	BAD_RESOURCE = 0x05,
	RESOURCE_BUSY = 0x06,
	NOT_READY = 0x07,
	EXCEED_LIM = 0x08,
	BAD_RES_STATE = 0x09,
	BAD_INDEX = 0x0a,
	NO_RESOURCES = 0x0f,
	BAD_INPUT_LEN = 0x50,
	BAD_OUTPUT_LEN = 0x51,
};
} // namespace status

// Delivery status (status_own bits[7:1]).
namespace delivery {
enum : uint8_t {
	OK = 0x0,
	SIGNATURE_ERR = 0x1,
	TOKEN_ERR = 0x2,
	BAD_BLOCK_NUM = 0x3,
	OUT_PTR_ALIGN = 0x4,
	IN_PTR_ALIGN = 0x5,
	FW_INTERNAL_ERR = 0x6,
	IN_LEN_ERR = 0x7,
	OUT_LEN_ERR = 0x8,
	RES_FIELD_NOT_CLEARED = 0x9,
	BAD_CMD_TYPE = 0x10,
};
} // namespace delivery

// EQE types.
namespace event {
enum : uint8_t {
	COMP = 0x00,
	PORT_CHANGE = 0x09,
	CMD = 0x0a,
	PAGE_REQUEST = 0x0b,
	NIC_VPORT_CHANGE = 0x0d,
};
} // namespace event

// Capability types (QUERY_HCA_CAP op_mod >> 1).
namespace cap_type {
enum : uint16_t {
	GENERAL = 0x0,
	ODP = 0x2,
	ATOMIC = 0x3,
	DEV_MEM = 0xf,
};
} // namespace cap_type

// Register ids for ACCESS_REG.
namespace reg {
enum : uint16_t {
	PCAP = 0x5001, // port capability mask (PortInfo CapabilityMask)
	PVLC = 0x500f, // port VL capability (an IB port's data VLs)
	NODE_DESC = 0x6001, // the node description (64 bytes), NodeDescription SMPs
	HOST_ENDIANNESS = 0x7004,
};
} // namespace reg

// ---------------------------------------------------------------------------
// Transport: command queue entry (64 bytes) and mailbox block (576 bytes).
namespace cmd_entry {
constexpr unsigned kSize = 64;
constexpr unsigned kType = 0x00;      // u8, always 7
constexpr unsigned kInlen = 0x04;     // be32
constexpr unsigned kInPtr = 0x08;     // be64
constexpr unsigned kIn = 0x10;        // 16 inline input bytes
constexpr unsigned kOut = 0x20;       // 16 inline output bytes
constexpr unsigned kOutPtr = 0x30;    // be64
constexpr unsigned kOutlen = 0x38;    // be32
constexpr unsigned kToken = 0x3c;     // u8
constexpr unsigned kSig = 0x3d;       // u8
constexpr unsigned kStatusOwn = 0x3f; // u8: delivery << 1 | owner
constexpr uint8_t kTypePciCmd = 7;
constexpr unsigned kInlineBytes = 16;
} // namespace cmd_entry

namespace mailbox {
constexpr unsigned kDataSize = 512;
constexpr unsigned kBlockSize = 576;
constexpr unsigned kAlign = 1024;
constexpr unsigned kNext = 0x230;     // be64
constexpr unsigned kBlockNum = 0x238; // be32
constexpr unsigned kToken = 0x23d;    // u8
} // namespace mailbox

// Headers common to every command.
namespace hdr_in {
constexpr Field opcode{0, 31, 16};
constexpr Field uid{0, 15, 0};
constexpr Field op_mod{1, 15, 0};
} // namespace hdr_in
namespace hdr_out {
constexpr Field status{0, 31, 24};
constexpr Field syndrome{1, 31, 0};
constexpr unsigned kMinLen = 8;
} // namespace hdr_out

// ---------------------------------------------------------------------------
// HCA / function control
namespace enable_hca_in { // also disable_hca_in
constexpr Field embedded_cpu_function{2, 31, 31};
constexpr Field function_id{2, 15, 0};
constexpr unsigned kSize = 16;
constexpr unsigned kOutSize = 12;
} // namespace enable_hca_in

namespace query_issi_out {
constexpr Field current_issi{2, 15, 0};
constexpr Field supported_issi_dw0{0x1b, 31, 0};
constexpr unsigned kSize = 112;
} // namespace query_issi_out

namespace set_issi_in {
constexpr Field current_issi{2, 15, 0};
} // namespace set_issi_in

namespace query_pages_in {
constexpr Field embedded_cpu_function{2, 31, 31};
constexpr Field function_id{2, 15, 0};
} // namespace query_pages_in
namespace query_pages_out {
constexpr Field embedded_cpu_function{2, 31, 31};
constexpr Field function_id{2, 15, 0};
constexpr Field num_pages{3, 31, 0}; // signed
} // namespace query_pages_out
namespace query_pages_opmod {
enum : uint16_t { BOOT = 1, INIT = 2, REGULAR = 3 };
}

namespace manage_pages_in {
constexpr Field embedded_cpu_function{2, 31, 31};
constexpr Field function_id{2, 15, 0};
constexpr Field input_num_entries{3, 31, 0};
constexpr unsigned kPas = 0x10; // be64 each
} // namespace manage_pages_in
namespace manage_pages_out {
constexpr Field output_num_entries{2, 31, 0};
constexpr unsigned kPas = 0x10;
} // namespace manage_pages_out
namespace manage_pages_opmod {
enum : uint16_t { CANT_GIVE = 0, GIVE = 1, TAKE = 2 };
}

namespace query_hca_cap_in { // also set_hca_cap_in
constexpr Field other_function{2, 31, 31};
constexpr Field function_id{2, 15, 0};
constexpr unsigned kCapability = 0x10; // in SET input and QUERY output
constexpr unsigned kCapSize = 4096;
constexpr unsigned kSize = 16;
constexpr unsigned kOutSize = 0x10 + kCapSize; // 4112
} // namespace query_hca_cap_in

namespace init_hca_in {
constexpr Field sw_vhca_id{3, 29, 16};
constexpr unsigned kSwOwnerId = 0x10; // 16 bytes
} // namespace init_hca_in

namespace teardown_hca_in {
constexpr Field profile{2, 15, 0};
enum : uint16_t { GRACEFUL = 0, FORCE_CLOSE = 1, PREPARE_FAST_TEARDOWN = 2 };
} // namespace teardown_hca_in
namespace teardown_hca_out {
constexpr Field state{3, 0, 0};
}

namespace set_driver_version_in {
constexpr unsigned kString = 0x10;
constexpr unsigned kStringLen = 64;
} // namespace set_driver_version_in

namespace query_adapter_out {
// The parameter block begins at 0x10; fields are given from the output start.
constexpr Field ieee_vendor_id{4 + 6, 23, 0};
constexpr Field vsd_vendor_id{4 + 7, 15, 0};
constexpr unsigned kVsd = 0x10 + 0x20; // 208 bytes
constexpr unsigned kVsdLen = 208;
constexpr unsigned kPsid = 0x10 + 0xf0; // 16 bytes
constexpr unsigned kPsidLen = 16;
constexpr unsigned kSize = 272;
} // namespace query_adapter_out

namespace access_register_in {
constexpr Field register_id{2, 15, 0};
constexpr Field argument{3, 31, 0};
constexpr unsigned kData = 0x10;
enum : uint16_t { WRITE = 0, READ = 1 };
} // namespace access_register_in

namespace uar_cmd { // ALLOC_UAR output / DEALLOC_UAR input
constexpr Field uar{2, 23, 0};
}

namespace query_special_contexts_out {
constexpr Field dump_fill_mkey{2, 31, 0};
constexpr Field resd_lkey{3, 31, 0};
constexpr Field null_mkey{4, 31, 0};
constexpr Field terminate_scatter_list_mkey{5, 31, 0};
constexpr Field repeated_mkey{6, 31, 0};
constexpr unsigned kSize = 32;
} // namespace query_special_contexts_out

// ---------------------------------------------------------------------------
// Event queues
namespace eqc { // 64 bytes
constexpr Field status{0, 31, 28};
constexpr Field ec{0, 18, 18};
constexpr Field oi{0, 17, 17};
constexpr Field st{0, 11, 8};
constexpr Field page_offset{2, 11, 6};
constexpr Field log_eq_size{3, 28, 24};
constexpr Field uar_page{3, 23, 0};
constexpr Field intr{5, 11, 0};
constexpr Field log_page_size{6, 28, 24};
constexpr Field consumer_counter{0xa, 23, 0};
constexpr Field producer_counter{0xb, 23, 0};
constexpr unsigned kSize = 64;
enum : uint8_t { ST_ARMED = 0x9, ST_FIRED = 0xa, ST_ALWAYS_ARMED = 0xb };
enum : uint8_t { STATUS_OK = 0x0, STATUS_OVERFLOW = 0x9 };
} // namespace eqc

namespace create_eq_in {
constexpr unsigned kEqc = 0x10;
constexpr unsigned kEventBitmask = 0x58; // 4 x be64; bit n of word 0 = type n
constexpr unsigned kPas = 0x110;
} // namespace create_eq_in
namespace eq_number_field { // CREATE_EQ out, DESTROY/QUERY/GEN_EQE in
constexpr Field eq_number{2, 7, 0};
}
namespace query_eq_out {
constexpr unsigned kEqc = 0x10;
constexpr unsigned kEventBitmask = 0x58; // be64
constexpr unsigned kPas = 0x110;
} // namespace query_eq_out
namespace gen_eqe_in {
constexpr unsigned kEqe = 0x10; // 64 bytes
constexpr unsigned kSize = 80;
} // namespace gen_eqe_in

// PORT_CHANGE EQE sub_type.
namespace port_change {
enum : uint8_t { DOWN = 1, ACTIVE = 4, INITIALIZED = 5, LID = 6, PKEY = 7, GUID = 8, CLIENT_REREG = 9 };
}

namespace eqe { // 64 bytes
constexpr unsigned kSize = 64;
constexpr unsigned kType = 0x01;
constexpr unsigned kSubType = 0x03;
constexpr unsigned kData = 0x20; // 28 bytes
constexpr unsigned kDataLen = 28;
constexpr unsigned kOwner = 0x3f;
// CMD: be32 bitmask of completed slots at kData.
// PAGE_REQUEST: be16 ec_function, be16 func_id, be32 num_pages (signed).
constexpr unsigned kPageReqEcFunction = 0x20;
constexpr unsigned kPageReqFuncId = 0x22;
constexpr unsigned kPageReqNumPages = 0x24;
// NIC_VPORT_CHANGE: be16 vport_num at data + 2.
constexpr unsigned kVportChangeVportNum = 0x22;
} // namespace eqe

// On-demand paging (transport page-fault scheme).
namespace odp {
// The ODP capability page (QUERY/SET_HCA_CAP type ODP): per transport,
// which accesses may fault: send, receive, write, read, atomic,
// srq_receive from bit 31 down. RC at dword 4 of the transport scheme.
constexpr unsigned kRcCapsDword = 4;
constexpr Field rc_write{kRcCapsDword, 29, 29};
constexpr Field rc_read{kRcCapsDword, 28, 28};
// PAGE_FAULT EQE (event type 0xc); sub_type RDMA: a responder's RDMA
// WRITE/READ hit a translation that is not present.
constexpr uint8_t kEventPageFault = 0x0c;
enum : uint8_t { SUBTYPE_WQE = 0, SUBTYPE_RDMA = 1 };
// Fault types (resume: page_fault_type; EQE: pftype): bits.
enum : uint8_t { TYPE_REQUESTOR = 1 << 0, TYPE_WRITE = 1 << 1, TYPE_RDMA = 1 << 2 };
// RDMA sub_type data, offsets in the EQE.
constexpr unsigned kBytesCommitted = 0x20; // be32
constexpr unsigned kRkey = 0x24;           // be32
constexpr unsigned kPacketLength = 0x2a;   // be16
constexpr unsigned kRdmaOpLen = 0x2c;      // be32
constexpr unsigned kRdmaVa = 0x30;         // be64
constexpr unsigned kPftypeToken = 0x38;    // be32: type << 24 | token
// PAGE_FAULT_RESUME input (transport scheme).
constexpr Field resume_error{2, 31, 31};
constexpr Field resume_type{2, 26, 24};
constexpr Field resume_wq{2, 23, 0};
constexpr Field resume_token{3, 23, 0};
} // namespace odp

// EQ doorbells inside a UAR page.
namespace uar_page {
constexpr unsigned kCqDoorbell = 0x20;    // 64-bit
constexpr unsigned kEqArm = 0x40;         // be32: ci | eqn << 24, arms
constexpr unsigned kEqUpdateCi = 0x48;    // be32: ci | eqn << 24
constexpr unsigned kBlueFlame = 0x800;    // .. 0xfff
constexpr unsigned kFirstUarIndex = 3;    // never overlaps the iseg
} // namespace uar_page

// ---------------------------------------------------------------------------
// Vport / port queries
namespace vport_in { // common head of the vport query inputs
constexpr Field other_vport{2, 31, 31};
constexpr Field port_num{2, 19, 16};
constexpr Field vport_number{2, 15, 0};
} // namespace vport_in

namespace query_vport_state_out {
constexpr Field max_tx_speed{3, 31, 16};
constexpr Field admin_state{3, 7, 4};
constexpr Field state{3, 3, 0};
enum : uint8_t { STATE_DOWN = 0, STATE_UP = 1 };
} // namespace query_vport_state_out

namespace hca_vport_context { // 512 bytes, at output 0x10
constexpr unsigned kAt = 0x10;
constexpr Field has_smi{8, 30, 30};
constexpr Field port_physical_state{8, 15, 12};
constexpr Field vport_state_policy{8, 11, 8};
constexpr Field port_state{8, 7, 4};
constexpr Field vport_state{8, 3, 0};
constexpr unsigned kSystemImageGuid = 0x28;
constexpr unsigned kPortGuid = 0x30;
constexpr unsigned kNodeGuid = 0x38;
constexpr Field field_select{0, 31, 0}; // MODIFY: which of the below apply
constexpr uint32_t SEL_PORT_GUID = 1u << 0;
constexpr uint32_t SEL_NODE_GUID = 1u << 1;
constexpr uint32_t SEL_STATE_POLICY = 1u << 2;
constexpr Field cap_mask1{0x10, 31, 0};
// QUERY: the CapabilityMask bits this vport may change; MODIFY: the bits
// of cap_mask1 to change.
constexpr Field cap_mask1_field_select{0x11, 31, 0};
constexpr Field cap_mask2{0x12, 31, 0};
constexpr Field lid{0x18, 31, 16};
constexpr Field init_type_reply{0x18, 11, 8};
constexpr Field lmc{0x18, 7, 5};
constexpr Field subnet_timeout{0x18, 4, 0};
constexpr Field sm_lid{0x19, 31, 16};
constexpr Field sm_sl{0x19, 15, 12};
constexpr Field qkey_violation_counter{0x1a, 31, 16};
constexpr Field pkey_violation_counter{0x1a, 15, 0};
constexpr unsigned kOutSize = 0x10 + 512;
} // namespace hca_vport_context

namespace modify_hca_vport_context_in {
constexpr unsigned kContext = 0x10; // hca_vport_context, 512 bytes
constexpr unsigned kSize = kContext + 512;
} // namespace modify_hca_vport_context_in

namespace query_hca_vport_gid {
constexpr Field gid_index{3, 15, 0}; // input; 0xffff = whole table
constexpr Field gids_num{3, 31, 16}; // output
constexpr unsigned kGids = 0x10;     // 16 bytes each
} // namespace query_hca_vport_gid
namespace query_hca_vport_pkey {
constexpr Field pkey_index{3, 15, 0}; // input; 0xffff = whole table
constexpr unsigned kPkeys = 0x10;     // 4 bytes each, pkey in bits[15:0]
} // namespace query_hca_vport_pkey

namespace nic_vport_context { // 256 bytes at output 0x10
constexpr unsigned kAt = 0x10;
constexpr Field roce_en{0, 0, 0};
constexpr Field disable_mc_local_lb{0, 2, 2};
constexpr Field disable_uc_local_lb{0, 1, 1};
constexpr Field mtu{9, 15, 0};
constexpr unsigned kSystemImageGuid = 0x28;
constexpr unsigned kPortGuid = 0x30;
constexpr unsigned kNodeGuid = 0x38;
constexpr unsigned kOutSize = 0x10 + 256;
} // namespace nic_vport_context

namespace modify_nic_vport_context_in {
constexpr Field field_select{3, 31, 0};
constexpr uint32_t kSelDisableUcLocalLb = 1u << 11;
constexpr uint32_t kSelDisableMcLocalLb = 1u << 10;
constexpr unsigned kContext = 0x100; // nic_vport_context, 256 bytes
constexpr unsigned kSize = kContext + 256;
} // namespace modify_nic_vport_context_in

// ATTACH_TO_MCG / DETACH_FROM_MCG input (same layout).
namespace mcg_in {
constexpr Field qpn{2, 23, 0};
constexpr unsigned kMgid = 0x10; // 16 bytes
constexpr unsigned kSize = 0x20;
} // namespace mcg_in

namespace mad_ifc_in {
constexpr Field remote_lid{2, 31, 16};
constexpr Field plane_index{2, 15, 8};
constexpr Field port{2, 7, 0};
constexpr unsigned kMad = 0x10; // 256 bytes; the response is at the same offset of the output
constexpr unsigned kMadLen = 256;
constexpr unsigned kSize = 0x10 + 256;
} // namespace mad_ifc_in

// ---------------------------------------------------------------------------
// Capability structures (relative to the 4096-byte capability block).
namespace cmd_hca_cap {
constexpr Field page_request_disable{0x0, 25, 25};
constexpr Field abs_native_port_num{0x0, 24, 24};
constexpr Field hca_cap_2{0x1, 31, 31};
constexpr Field event_on_vhca_state_teardown_request{0x1, 28, 28};
constexpr Field event_on_vhca_state_in_use{0x1, 27, 27};
constexpr Field event_on_vhca_state_active{0x1, 26, 26};
constexpr Field event_on_vhca_state_allocated{0x1, 25, 25};
constexpr Field event_on_vhca_state_invalid{0x1, 24, 24};
constexpr Field vhca_id{0x1, 15, 0};
constexpr Field log_max_srq_sz{0x4, 31, 24};
constexpr Field log_max_qp_sz{0x4, 23, 16};
constexpr Field event_cap{0x4, 15, 15};
constexpr Field log_max_qp{0x4, 4, 0};
constexpr Field log_max_srq{0x5, 20, 16};
constexpr Field log_max_cq_sz{0x6, 23, 16};
constexpr Field log_max_cq{0x6, 4, 0};
constexpr Field log_max_eq_sz{0x7, 31, 24};
constexpr Field log_max_mkey{0x7, 21, 16};
constexpr Field fast_teardown{0x7, 4, 4};
constexpr Field log_max_eq{0x7, 3, 0};
constexpr Field max_indirection{0x8, 31, 24};
constexpr Field log_max_mrw_sz{0x8, 22, 16};
constexpr Field force_teardown{0x8, 15, 15};
constexpr Field log_max_klm_list_size{0x8, 5, 0};
constexpr Field log_max_ra_req_dc{0x9, 21, 16};
constexpr Field log_max_ra_res_dc{0x9, 5, 0};
constexpr Field release_all_pages{0xa, 26, 26};
constexpr Field log_max_ra_req_qp{0xa, 21, 16};
constexpr Field log_max_ra_res_qp{0xa, 5, 0};
constexpr Field cache_line_128byte{0xb, 27, 27};
constexpr Field qcam_reg{0xb, 16, 16};
constexpr Field gid_table_size{0xb, 15, 0};
constexpr Field debug{0xc, 28, 28};
constexpr Field max_qp_cnt{0xc, 25, 16};
constexpr Field pkey_table_size{0xc, 15, 0};
constexpr Field vport_group_manager{0xd, 31, 31};
constexpr Field ib_virt{0xd, 29, 29};
constexpr Field nic_flow_table{0xd, 25, 25};
constexpr Field eswitch_manager{0xd, 24, 24};
constexpr Field device_memory{0xd, 23, 23};
constexpr Field mcam_reg{0xd, 22, 22};
constexpr Field pcam_reg{0xd, 21, 21};
constexpr Field local_ca_ack_delay{0xd, 20, 16};
constexpr Field port_type{0xd, 9, 8};
constexpr Field num_ports{0xd, 7, 0};
constexpr Field log_max_msg{0xe, 28, 24};
constexpr Field max_tc{0xe, 19, 16};
constexpr Field stat_rate_support{0xf, 31, 16};
constexpr Field pci_sync_for_fw_update_event{0xf, 14, 14};
constexpr Field cqe_version{0xf, 3, 0};
constexpr Field ipoib_enhanced_offloads{0x10, 28, 28};
constexpr Field ipoib_basic_offloads{0x10, 27, 27};
constexpr Field umr_modify_entity_size_disabled{0x10, 24, 24};
constexpr Field umr_modify_atomic_disabled{0x10, 23, 23};
constexpr Field umr_indirect_mkey_disabled{0x10, 22, 22};
constexpr Field imaicl{0x11, 14, 14};
constexpr Field cmdif_checksum{0x10, 15, 14};
constexpr Field dct{0x10, 5, 5};
constexpr Field qos{0x10, 4, 4};
constexpr Field eth_net_offloads{0x10, 3, 3};
constexpr Field roce{0x10, 2, 2};
constexpr Field atomic{0x10, 1, 1};
constexpr Field cq_oi{0x11, 31, 31};
constexpr Field cq_resize{0x11, 30, 30};
constexpr Field cq_moderation{0x11, 29, 29};
constexpr Field cq_period_mode_modify{0x11, 28, 28};
constexpr Field cq_period_start_from_cqe{0x11, 20, 20};
constexpr Field pg{0x11, 24, 24};
constexpr Field block_lb_mc{0x11, 23, 23};
constexpr Field qkv{0x11, 9, 9};
constexpr Field pkv{0x11, 8, 8};
constexpr Field xrc{0x11, 3, 3};
constexpr Field ud{0x11, 2, 2};
constexpr Field uc{0x11, 1, 1};
constexpr Field rc{0x11, 0, 0};
constexpr Field uar_4k{0x12, 31, 31};
constexpr Field uar_sz{0x12, 21, 16};
constexpr Field port_selection_cap{0x12, 15, 15};
constexpr Field log_pg_sz{0x12, 7, 0};
constexpr Field bf{0x13, 31, 31};
constexpr Field driver_version{0x13, 30, 30};
constexpr Field mkey_by_name{0x13, 25, 25};
constexpr Field log_bf_reg_size{0x13, 20, 16};
constexpr Field max_wqe_sz_sq{0x14, 15, 0};
constexpr Field max_wqe_sz_rq{0x15, 15, 0};
constexpr Field max_wqe_sz_sq_dc{0x16, 15, 0};
constexpr Field max_qp_mcg{0x17, 24, 0};
constexpr Field log_max_mcg{0x18, 7, 0};
constexpr Field log_max_transport_domain{0x19, 28, 24};
constexpr Field log_max_pd{0x19, 20, 16};
constexpr Field pcie_reset_using_hotreset_method{0x19, 10, 10};
constexpr Field pci_sync_for_fw_update_with_driver_unload{0x19, 9, 9};
constexpr Field log_max_xrcd{0x19, 4, 0};
constexpr Field roce_rw_supported{0x1d, 30, 30};
constexpr Field nic_vport_change_event{0x1f, 31, 31};
constexpr Field disable_local_lb_mc{0x1f, 29, 29};
constexpr Field vhca_state{0x1f, 21, 21};
constexpr Field log_max_current_uc_list{0x1f, 4, 0};
constexpr Field log_max_uctx{0x23, 28, 24};
constexpr Field max_num_eqs{0x23, 15, 0};
constexpr Field log_uar_page_sz{0x24, 15, 0};
constexpr Field device_frequency_khz{0x27, 31, 0};
constexpr Field num_of_uars_per_page{0x29, 31, 0};
constexpr Field native_port_num{0x30, 23, 16};
constexpr Field num_vhca_ports{0x30, 15, 8};
constexpr Field sw_owner_id{0x30, 1, 1};
constexpr Field num_total_dynamic_vf_msix{0x38, 23, 0};
enum : uint8_t { PORT_TYPE_IB = 0, PORT_TYPE_ETH = 1 };
} // namespace cmd_hca_cap

namespace atomic_caps {
constexpr Field atomic_req_8B_endianness_mode{0x2, 31, 30};
constexpr Field supported_atomic_req_8B_endianness_mode_1{0x2, 25, 25};
constexpr Field atomic_operations{0x4, 15, 0};
constexpr Field atomic_size_qp{0x5, 15, 0};
constexpr Field atomic_size_dc{0x6, 15, 0};
enum : uint16_t { OPS_CMP_SWAP = 1 << 0, OPS_FETCH_ADD = 1 << 1 };
enum : uint16_t { SIZE_QP_8B = 1 << 3 };
} // namespace atomic_caps

namespace dev_mem_caps {
constexpr Field memic{0x0, 31, 31};
constexpr Field log_min_memic_alloc_size{0x1, 20, 16};
constexpr Field log_max_memic_addr_alignment{0x1, 7, 0};
constexpr unsigned kMemicBarStartAddr = 0x08; // 64 bits
constexpr Field memic_bar_size{0x4, 31, 0};
constexpr Field max_memic_size{0x5, 31, 0};
constexpr Field memic_operations{0x10, 31, 0};
} // namespace dev_mem_caps

namespace memic_cmd { // ALLOC_MEMIC in/out, DEALLOC_MEMIC in
constexpr Field log_memic_addr_alignment{0x3, 7, 0};
constexpr unsigned kRangeStartAddr = 0x10;  // ALLOC in, 64 bits
constexpr Field range_size{0x6, 31, 0};      // ALLOC in
constexpr Field alloc_memic_size{0x7, 31, 0}; // ALLOC in
constexpr unsigned kAllocInSize = 0x20;
constexpr unsigned kStartAddrOut = 0x08;    // ALLOC out, 64 bits
constexpr unsigned kAllocOutSize = 0x10;
constexpr unsigned kStartAddrIn = 0x10;     // DEALLOC in, 64 bits
constexpr Field dealloc_memic_size{0x6, 31, 0}; // DEALLOC in
constexpr unsigned kDeallocInSize = 0x20;
} // namespace memic_cmd

// ---------------------------------------------------------------------------
// Initialization segment (BAR0, big-endian registers).
namespace iseg {
constexpr uint32_t kFwRev = 0x000;
constexpr uint32_t kCmdifRevFwSub = 0x004;
constexpr uint32_t kCmdqAddrH = 0x010;
constexpr uint32_t kCmdqAddrLSz = 0x014;
constexpr uint32_t kCmdDbell = 0x018;
constexpr uint32_t kInitializing = 0x1fc;
constexpr uint32_t kHealth = 0x200;
constexpr uint32_t kCmdExecTo = 0xff8;
constexpr uint32_t kCmdQInitTo = 0xffc;
constexpr uint32_t kInternalTimerH = 0x1000;
constexpr uint32_t kInternalTimerL = 0x1004;
constexpr uint32_t kHealthCounter = 0x1010;
constexpr uint32_t kRealTimeH = 0x1040;
constexpr uint32_t kRealTimeL = 0x1044;
constexpr uint32_t kSize = 0x2010;
constexpr uint32_t kCmdifRev = 5;
constexpr unsigned kLogCmdqSize = 5;   // 32 slots
constexpr unsigned kLogCmdqStride = 6; // 64-byte entries
// initializing: the firmware can be reset through nic_interface SW_RESET.
constexpr uint32_t kFwResetSupported = 1u << 30;
constexpr uint32_t kInitializingBit = 1u << 31; // the firmware is not ready yet
enum : uint8_t { NIC_IFC_FULL_DRIVER = 0, NIC_IFC_DISABLED = 1, NIC_IFC_NO_DRAM_NIC = 2, NIC_IFC_SW_RESET = 7 };
} // namespace iseg

// Health buffer, offsets from iseg::kHealth.
namespace health {
constexpr uint32_t kAssertVar = 0x00; // 6 dwords
constexpr uint32_t kAssertExitPtr = 0x20;
constexpr uint32_t kAssertCallra = 0x24;
constexpr uint32_t kTime = 0x2c;
constexpr uint32_t kFwVer = 0x30;
constexpr uint32_t kHwId = 0x34;
constexpr uint32_t kRfrSeverity = 0x38;  // u8
constexpr uint32_t kIriscIndex = 0x3c;   // u8
constexpr uint32_t kSynd = 0x3d;         // u8
constexpr uint32_t kExtSynd = 0x3e;      // be16
constexpr uint32_t kSize = 0x40;
constexpr uint8_t kRfrBit = 0x80;
constexpr uint8_t kSeverityValid = 0x08;
} // namespace health

} // namespace mlx5emu::prm
