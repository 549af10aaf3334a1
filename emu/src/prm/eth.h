// SPDX-License-Identifier: GPL-2.0
// Ethernet facts: the NIC queue objects (TIS, TIR, RQT, SQ, RQ and their
// work-queue context), the NIC vport context, the port access registers,
// the Ethernet and flow-table capability blocks, flow steering commands and
// the match-parameter layout. Same conventions as prm.h: fields are
// {dword, high bit, low bit} relative to the structure named by the
// namespace; kXxx are byte offsets.
#pragma once

#include <cstdint>

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

namespace nic_op {
enum : uint16_t {
	MODIFY_VPORT_STATE = 0x751,
	QUERY_ROCE_ADDRESS = 0x760,
	SET_ROCE_ADDRESS = 0x761,
	QUERY_VPORT_COUNTER = 0x770,
	CREATE_TIR = 0x900,
	MODIFY_TIR = 0x901,
	DESTROY_TIR = 0x902,
	QUERY_TIR = 0x903,
	CREATE_SQ = 0x904,
	MODIFY_SQ = 0x905,
	DESTROY_SQ = 0x906,
	QUERY_SQ = 0x907,
	CREATE_RQ = 0x908,
	MODIFY_RQ = 0x909,
	DESTROY_RQ = 0x90a,
	QUERY_RQ = 0x90b,
	CREATE_TIS = 0x912,
	MODIFY_TIS = 0x913,
	DESTROY_TIS = 0x914,
	QUERY_TIS = 0x915,
	CREATE_RQT = 0x916,
	MODIFY_RQT = 0x917,
	DESTROY_RQT = 0x918,
	QUERY_RQT = 0x919,
	SET_FLOW_TABLE_ROOT = 0x92f,
	CREATE_FLOW_TABLE = 0x930,
	DESTROY_FLOW_TABLE = 0x931,
	QUERY_FLOW_TABLE = 0x932,
	CREATE_FLOW_GROUP = 0x933,
	DESTROY_FLOW_GROUP = 0x934,
	QUERY_FLOW_GROUP = 0x935,
	SET_FLOW_TABLE_ENTRY = 0x936,
	QUERY_FLOW_TABLE_ENTRY = 0x937,
	DELETE_FLOW_TABLE_ENTRY = 0x938,
	ALLOC_FLOW_COUNTER = 0x939,
	DEALLOC_FLOW_COUNTER = 0x93a,
	QUERY_FLOW_COUNTER = 0x93b,
	MODIFY_FLOW_TABLE = 0x93c,
};
} // namespace nic_op

// Capability types beyond GENERAL and ATOMIC.
namespace cap_type_eth {
enum : uint16_t { ETHERNET_OFFLOADS = 0x1, ROCE = 0x4, FLOW_TABLE = 0x7, ESWITCH_FLOW_TABLE = 0x8, ESWITCH = 0x9 };
}

// E_SWITCH capabilities (e_switch_cap): the vport VLAN offloads of the
// legacy e-switch (MODIFY_ESW_VPORT_CONTEXT).
namespace esw_caps {
constexpr Field vport_svlan_strip{0, 31, 31};
constexpr Field vport_cvlan_strip{0, 30, 30};
constexpr Field vport_svlan_insert{0, 29, 29};
constexpr Field vport_cvlan_insert_if_not_exist{0, 28, 28};
constexpr Field vport_cvlan_insert_overwrite{0, 27, 27};
constexpr Field vport_cvlan_insert_always{0, 25, 25};
constexpr Field nic_vport_node_guid_modify{0, 1, 1};
constexpr Field nic_vport_port_guid_modify{0, 0, 0};
} // namespace esw_caps

// ESWITCH_FLOW_TABLE capabilities (flow_table_eswitch_cap): a
// flow_table_prop_layout (ft_caps) per e-switch table type.
namespace esw_ft_caps {
constexpr unsigned kFdb = 0x40;
constexpr unsigned kIngressAcl = 0x80;
constexpr unsigned kEgressAcl = 0xc0;
} // namespace esw_ft_caps

// ROCE capabilities (roce_cap).
namespace roce_caps {
constexpr Field sw_r_roce_src_udp_port{0, 27, 27};
constexpr Field qp_ts_format{0, 1, 0};
constexpr Field l3_type{4, 19, 16};
constexpr Field roce_version{4, 7, 0};
constexpr Field r_roce_dest_udp_port{5, 15, 0};
constexpr Field r_roce_max_src_udp_port{6, 31, 16};
constexpr Field r_roce_min_src_udp_port{6, 15, 0};
constexpr Field roce_address_table_size{7, 15, 0};
constexpr uint32_t L3_IPV4_CAP = 1u << 1, L3_IPV6_CAP = 1u << 2;
constexpr uint32_t VERSION_1_CAP = 1u << 0, VERSION_2_CAP = 1u << 2;
} // namespace roce_caps

// SET_ROCE_ADDRESS / QUERY_ROCE_ADDRESS and roce_addr_layout.
namespace roce_addr {
constexpr Field index{2, 31, 16};       // roce_address_index (both inputs)
constexpr Field vhca_port_num{2, 3, 0};
constexpr unsigned kSetAt = 0x10;        // SET: the layout in the input
constexpr unsigned kQueryAt = 0x10;      // QUERY: the layout in the output
constexpr unsigned kSize = 0x20;
constexpr unsigned kAddress = 0x0;       // 16 bytes
constexpr Field vlan_valid{4, 28, 28};
constexpr Field vlan_id{4, 27, 16};
constexpr Field mac_47_32{4, 15, 0};
constexpr Field mac_31_0{5, 31, 0};
constexpr Field l3_type{6, 11, 8};
constexpr Field version{6, 7, 0};
} // namespace roce_addr

// General-capability fields of an Ethernet function.
namespace eth_gen_caps {
constexpr Field log_max_flow_counter_bulk{0x1a, 23, 16};
constexpr Field max_flow_counter_15_0{0x1a, 15, 0};
constexpr Field log_max_rq{0x1b, 28, 24};
constexpr Field log_max_sq{0x1b, 20, 16};
constexpr Field log_max_tir{0x1b, 12, 8};
constexpr Field log_max_tis{0x1b, 4, 0};
constexpr Field log_max_rqt{0x1c, 20, 16};
constexpr Field log_max_rqt_size{0x1c, 12, 8};
constexpr Field log_max_tis_per_sq{0x1c, 4, 0};
constexpr Field log_max_wq_sz{0x1e, 4, 0};
constexpr Field log_max_vlan_list{0x1f, 20, 16};
constexpr Field log_max_current_mc_list{0x1f, 12, 8};
constexpr Field log_max_current_uc_list{0x1f, 4, 0};
constexpr Field disable_local_lb_uc{0x1f, 30, 30};
constexpr Field log_max_l2_table{0x24, 28, 24};
} // namespace eth_gen_caps

// Ethernet offload capabilities (per_protocol_networking_offload_caps).
namespace eth_caps {
constexpr Field csum_cap{0, 31, 31};
constexpr Field vlan_cap{0, 30, 30};
constexpr Field max_lso_cap{0, 20, 16};
constexpr Field wqe_inline_mode{0, 13, 12};
constexpr Field rss_ind_tbl_cap{0, 11, 8};
enum : uint8_t { INLINE_L2 = 0, INLINE_VPORT_CONTEXT = 1, INLINE_NOT_REQUIRED = 2 };
} // namespace eth_caps

// Flow-table capabilities: the NIC receive table properties at 0x40.
namespace ft_caps {
constexpr unsigned kNicRx = 0x40;
// flow_table_prop_layout, relative to its start
constexpr Field ft_support{0, 31, 31};
constexpr Field flow_counter{0, 29, 29};
constexpr Field flow_modify_en{0, 28, 28};
constexpr Field modify_root{0, 27, 27};
constexpr Field identified_miss_table_mode{0, 26, 26};
constexpr Field flow_table_modify{0, 25, 25};
constexpr Field log_max_ft_size{1, 29, 24};
constexpr Field max_ft_level{1, 7, 0};
constexpr Field log_max_ft_num{3, 7, 0};
constexpr Field log_max_flow_counter{4, 15, 8};
constexpr Field log_max_destination{4, 7, 0};
constexpr Field log_max_flow{5, 7, 0};
// ft_field_support (at +0x20) and ft_field_bitmask_support (+0x30)
constexpr unsigned kFieldSupport = 0x20;
constexpr unsigned kFieldBitmask = 0x30;
constexpr Field outer_dmac{0, 31, 31};
constexpr Field outer_smac{0, 30, 30};
constexpr Field outer_ether_type{0, 29, 29};
constexpr Field outer_ip_version{0, 28, 28};
constexpr Field outer_first_prio{0, 27, 27};
constexpr Field outer_first_cfi{0, 26, 26};
constexpr Field outer_first_vid{0, 25, 25};
constexpr Field outer_sip{0, 19, 19};
constexpr Field outer_dip{0, 18, 18};
constexpr Field outer_frag{0, 17, 17};
constexpr Field outer_ip_protocol{0, 16, 16};
constexpr Field outer_udp_sport{0, 13, 13};
constexpr Field outer_udp_dport{0, 12, 12};
constexpr Field outer_tcp_sport{0, 11, 11};
constexpr Field outer_tcp_dport{0, 10, 10};
} // namespace ft_caps

// ---------------------------------------------------------------------------
// Vport

namespace nic_vport {
// nic_vport_context, relative to its start (QUERY output +0x10, MODIFY
// input +0x100).
constexpr Field min_wqe_inline_mode{0, 26, 24};
constexpr Field disable_mc_local_lb{0, 2, 2};
constexpr Field disable_uc_local_lb{0, 1, 1};
constexpr Field roce_en{0, 0, 0};
// The manager's event arming (MODIFY with other_vport, SEL_CHANGE_EVENT).
constexpr Field arm_change_event{1, 31, 31};
constexpr Field event_on_mtu{1, 4, 4};
constexpr Field event_on_promisc_change{1, 3, 3};
constexpr Field event_on_vlan_change{1, 2, 2};
constexpr Field event_on_mc_address_change{1, 1, 1};
constexpr Field event_on_uc_address_change{1, 0, 0};
constexpr Field mtu{9, 15, 0};
constexpr Field promisc_uc{0x3c, 31, 31};
constexpr Field promisc_mc{0x3c, 30, 30};
constexpr Field promisc_all{0x3c, 29, 29};
constexpr Field allowed_list_type{0x3c, 26, 24};
constexpr Field allowed_list_size{0x3c, 15, 0};
constexpr Field perm_mac_47_32{0x3d, 15, 0};
constexpr Field perm_mac_31_0{0x3e, 31, 0};
constexpr unsigned kAddressList = 0x100; // 8 bytes per entry
constexpr unsigned kQueryAt = 0x10;
constexpr unsigned kModifyAt = 0x100;
constexpr unsigned kModifyMinLen = 0x100 + 0x100;
constexpr Field query_allowed_list_type{3, 26, 24}; // QUERY input
constexpr Field modify_field_select{3, 31, 0};      // MODIFY input
enum : uint32_t {
	SEL_ROCE_EN = 1u << 1,
	SEL_ADDRESSES_LIST = 1u << 2,
	SEL_PERMANENT_ADDRESS = 1u << 3,
	SEL_PROMISC = 1u << 4,
	SEL_CHANGE_EVENT = 1u << 5,
	SEL_MTU = 1u << 6,
	SEL_MIN_INLINE = 1u << 7,
	SEL_PORT_GUID = 1u << 8,
	SEL_NODE_GUID = 1u << 9,
	SEL_DISABLE_MC_LOCAL_LB = 1u << 10,
	SEL_DISABLE_UC_LOCAL_LB = 1u << 11,
};
enum : uint8_t { LIST_UC = 0, LIST_MC = 1, LIST_VLAN = 2 };
} // namespace nic_vport

namespace vport_state {
constexpr Field max_tx_speed{3, 31, 16}; // QUERY output
constexpr Field admin_state{3, 7, 4};
constexpr Field state{3, 3, 0};
constexpr Field modify_admin_state{3, 7, 4}; // MODIFY input
enum : uint8_t { DOWN = 0, UP = 1, FOLLOW = 2 };
// op_mod of QUERY/MODIFY_VPORT_STATE: which vport of the function.
enum : uint16_t { OPMOD_VNIC_VPORT = 0, OPMOD_ESW_VPORT = 1, OPMOD_UPLINK = 2 };
} // namespace vport_state

namespace vport_counter {
constexpr unsigned kOutSize = 0x210;
// traffic_counter pairs (packets, octets: be64 each) in the output
constexpr unsigned kReceivedErrors = 0x10;
constexpr unsigned kTransmitErrors = 0x20;
constexpr unsigned kRxIbUnicast = 0x30;
constexpr unsigned kTxIbUnicast = 0x40;
constexpr unsigned kRxIbMulticast = 0x50;
constexpr unsigned kTxIbMulticast = 0x60;
constexpr unsigned kRxEthBroadcast = 0x70;
constexpr unsigned kTxEthBroadcast = 0x80;
constexpr unsigned kRxEthUnicast = 0x90;
constexpr unsigned kTxEthUnicast = 0xa0;
constexpr unsigned kRxEthMulticast = 0xb0;
constexpr unsigned kTxEthMulticast = 0xc0;
} // namespace vport_counter

// ---------------------------------------------------------------------------
// Port access registers (ACCESS_REG data, relative to the register)

namespace reg_eth {
enum : uint16_t {
	PMLP = 0x5002,
	PMTU = 0x5003,
	PTYS = 0x5004,
	PAOS = 0x5006,
	PFCC = 0x5007,
	PPCNT = 0x5008,
	PPTB = 0x500b,
	PBMC = 0x500c,
	PMAOS = 0x5012,
	PPLR = 0x5018,
	PPLM = 0x5023,
	PDDR = 0x5031,
	PCMR = 0x5041,
	PCAM = 0x507f,
	MCIA = 0x9014,
	MCAM = 0x907f,
};
} // namespace reg_eth

namespace paos {
constexpr Field local_port{0, 23, 16};
constexpr Field admin_status{0, 11, 8};
constexpr Field oper_status{0, 3, 0};
constexpr Field ase{1, 31, 31};
constexpr Field ee{1, 30, 30};
constexpr Field e{1, 1, 0};
constexpr unsigned kSize = 16;
enum : uint8_t { UP = 1, DOWN = 2, DOWN_ONCE = 3 };
} // namespace paos

namespace ptys {
constexpr Field an_disable_admin{0, 30, 30};
constexpr Field local_port{0, 23, 16};
constexpr Field proto_mask{0, 2, 0};
constexpr Field an_status{1, 31, 28};
constexpr Field ext_eth_proto_capability{2, 31, 0};
constexpr Field eth_proto_capability{3, 31, 0};
constexpr Field ib_link_width_capability{4, 31, 16};
constexpr Field ib_proto_capability{4, 15, 0};
constexpr Field ext_eth_proto_admin{5, 31, 0};
constexpr Field eth_proto_admin{6, 31, 0};
constexpr Field ext_eth_proto_oper{8, 31, 0};
constexpr Field eth_proto_oper{9, 31, 0};
constexpr Field ib_link_width_oper{0xa, 31, 16};
constexpr Field ib_proto_oper{0xa, 15, 0};
constexpr Field connector_type{0xb, 3, 0};
constexpr Field eth_proto_lp_advertise{0xc, 31, 0};
constexpr unsigned kSize = 64;
enum : uint8_t { PROTO_IB = 1, PROTO_EN = 4 };
// Legacy link modes: 100GBASE-CR4 is bit 20 (MLX5E_100GBASE_CR4).
constexpr uint32_t kMode100GbaseCr4 = 1u << 20;
} // namespace ptys

namespace pmtu {
constexpr Field local_port{0, 23, 16};
constexpr Field max_mtu{1, 31, 16};
constexpr Field admin_mtu{2, 31, 16};
constexpr Field oper_mtu{3, 31, 16};
constexpr unsigned kSize = 16;
} // namespace pmtu

namespace pvlc {
constexpr Field local_port{0, 23, 16};
constexpr Field vl_hw_cap{1, 3, 0};
constexpr Field vl_admin{2, 3, 0};
constexpr Field vl_operational{3, 3, 0};
constexpr unsigned kSize = 16;
} // namespace pvlc

namespace pfcc {
constexpr Field local_port{0, 23, 16};
constexpr Field pptx{2, 31, 31};
constexpr Field aptx{2, 30, 30};
constexpr Field pfctx{2, 23, 16};
constexpr Field pprx{3, 31, 31};
constexpr Field aprx{3, 30, 30};
constexpr Field pfcrx{3, 23, 16};
constexpr unsigned kSize = 32;
} // namespace pfcc

namespace ppcnt {
constexpr Field local_port{0, 23, 16};
constexpr Field grp{0, 5, 0};
constexpr Field clr{1, 31, 31};
constexpr Field prio_tc{1, 4, 0};
constexpr unsigned kCounters = 0x08; // be64 counters from here
constexpr unsigned kSize = 256;
enum : uint8_t {
	GRP_802_3 = 0x0,
	GRP_RFC_2863 = 0x1,
	GRP_RFC_2819 = 0x2,
	GRP_RFC_3635 = 0x3,
	GRP_ETH_EXTENDED = 0x5,
	GRP_ETH_DISCARD = 0x6,
	GRP_PER_PRIO = 0x10,
	GRP_PER_TC = 0x11,
	GRP_PHYSICAL_LAYER = 0x12,
	GRP_PHYSICAL_LAYER_STATISTICAL = 0x16,
};
// 802.3 group, counter index (be64 each from kCounters).
enum : uint8_t {
	C8023_FRAMES_TX_OK = 0,
	C8023_FRAMES_RX_OK = 1,
	C8023_FCS_ERRORS = 2,
	C8023_ALIGNMENT_ERRORS = 3,
	C8023_OCTETS_TX_OK = 4,
	C8023_OCTETS_RX_OK = 5,
	C8023_MCAST_TX = 6,
	C8023_BCAST_TX = 7,
	C8023_MCAST_RX = 8,
	C8023_BCAST_RX = 9,
};
// RFC 2863 group: if_in_octets, ucast, discards, errors, unknown protos,
// if_out_octets, ucast, discards, errors, if_in_mcast, if_in_bcast,
// if_out_mcast, if_out_bcast.
enum : uint8_t {
	C2863_IN_OCTETS = 0,
	C2863_IN_UCAST = 1,
	C2863_IN_DISCARDS = 2,
	C2863_OUT_OCTETS = 5,
	C2863_OUT_UCAST = 6,
	C2863_IN_MCAST = 9,
	C2863_IN_BCAST = 10,
	C2863_OUT_MCAST = 11,
	C2863_OUT_BCAST = 12,
};
} // namespace ppcnt

// ---------------------------------------------------------------------------
// NIC objects

// Work-queue context (wq, 192 bytes), embedded at +0x30 of the SQ and RQ
// contexts; its pas follow at +0xc0.
namespace wq {
constexpr Field wq_type{0, 31, 28};
constexpr Field wq_signature{0, 27, 27};
constexpr Field end_padding_mode{0, 26, 25};
constexpr Field page_offset{1, 20, 16};
constexpr Field lwm{1, 15, 0};
constexpr Field pd{2, 23, 0};
constexpr Field uar_page{3, 23, 0};
constexpr unsigned kDbrAddr = 0x10;
constexpr Field hw_counter{6, 31, 0};
constexpr Field sw_counter{7, 31, 0};
constexpr Field log_wq_stride{8, 19, 16};
constexpr Field log_wq_pg_sz{8, 12, 8};
constexpr Field log_wq_sz{8, 4, 0};
constexpr Field dbr_umem_valid{9, 31, 31};
constexpr Field wq_umem_valid{9, 30, 30};
constexpr Field log_wqe_num_of_strides{9, 11, 8};
constexpr Field log_wqe_stride_size{9, 2, 0};
constexpr Field shampo_enable{0xf, 31, 31};
constexpr unsigned kPas = 0xc0;
enum : uint8_t { TYPE_LINKED_LIST = 0, TYPE_CYCLIC = 1, TYPE_STRIDING_LINKED_LIST = 2, TYPE_STRIDING_CYCLIC = 3 };
} // namespace wq

// SQ context (sqc, 240 bytes + pas).
namespace sqc {
constexpr Field rlky{0, 31, 31};
constexpr Field fre{0, 29, 29};
constexpr Field flush_in_error_en{0, 28, 28};
constexpr Field allow_multi_pkt_send_wqe{0, 27, 27};
constexpr Field min_wqe_inline_mode{0, 26, 24};
constexpr Field state{0, 23, 20};
constexpr Field reg_umr{0, 19, 19};
constexpr Field allow_swp{0, 18, 18};
constexpr Field hairpin{0, 17, 17};
constexpr Field user_index{1, 23, 0};
constexpr Field cqn{2, 23, 0};
constexpr Field packet_pacing_rate_limit_index{7, 15, 0};
constexpr Field tis_lst_sz{8, 31, 16};
constexpr Field tis_num_0{0xb, 23, 0};
constexpr unsigned kWq = 0x30;
} // namespace sqc

// RQ context (rqc, 240 bytes + pas).
namespace rqc {
constexpr Field rlky{0, 31, 31};
constexpr Field delay_drop_en{0, 30, 30};
constexpr Field scatter_fcs{0, 29, 29};
constexpr Field vsd{0, 28, 28};
constexpr Field mem_rq_type{0, 27, 24};
constexpr Field state{0, 23, 20};
constexpr Field flush_in_error_en{0, 18, 18};
constexpr Field hairpin{0, 17, 17};
constexpr Field user_index{1, 23, 0};
constexpr Field cqn{2, 23, 0};
constexpr Field counter_set_id{3, 31, 24};
constexpr Field rmpn{4, 23, 0};
constexpr unsigned kWq = 0x30;
enum : uint8_t { MEM_RQ_INLINE = 0, MEM_RQ_RMP = 1 };
} // namespace rqc

// SQ / RQ states (shared by both).
namespace wq_state {
enum : uint8_t { RST = 0, RDY = 1, ERR = 3 };
}

namespace nic_cmd {
constexpr unsigned kCtx = 0x20;     // context in CREATE_*/MODIFY_* input and QUERY_* output
constexpr unsigned kCreateSize = 0x20 + 0xf0;
constexpr unsigned kQueueCreateSize = 0x20 + 0xf0; // SQ/RQ/RQT: then pas / rq list
constexpr unsigned kQueuePas = 0x20 + 0x30 + 0xc0;
constexpr Field number_out{2, 23, 0}; // CREATE_* output
constexpr Field number_in{2, 23, 0};  // DESTROY_*/QUERY_* input, MODIFY_TIR/TIS/RQT input
constexpr Field modify_state{2, 31, 28}; // MODIFY_SQ/RQ: current state
constexpr unsigned kModifyBitmask = 0x10; // be64
constexpr unsigned kOutSize = 0x20 + 0xf0;
} // namespace nic_cmd

// SQ/RQ modify_bitmask bits (be64 at +0x10).
namespace modify_bitmask {
enum : uint64_t {
	RQ_VSD = 1ull << 1,
	RQ_SCATTER_FCS = 1ull << 2,
	RQ_COUNTER_SET_ID = 1ull << 3,
	SQ_PACKET_PACING_RATE_LIMIT_INDEX = 1ull << 0,
	SQ_QOS_QUEUE_GROUP_ID = 1ull << 2,
};
}

// TIS context (tisc, 160 bytes).
namespace tisc {
constexpr Field strict_lag_tx_port_affinity{0, 31, 31};
constexpr Field tls_en{0, 30, 30};
constexpr Field lag_tx_port_affinity{0, 27, 24};
constexpr Field prio{0, 19, 16};
constexpr Field transport_domain{9, 23, 0};
constexpr Field underlay_qpn{0xa, 23, 0};
constexpr Field pd{0xb, 23, 0};
} // namespace tisc

// TIR context (tirc, 240 bytes).
namespace tirc {
constexpr Field disp_type{1, 31, 28};
constexpr Field tls_en{1, 27, 27};
constexpr Field packet_merge_mask{4, 11, 8};
constexpr Field inline_rqn{7, 23, 0};
constexpr Field rx_hash_symmetric{8, 31, 31};
constexpr Field tunneled_offload_en{8, 29, 29};
constexpr Field indirect_table{8, 23, 0};
constexpr Field rx_hash_fn{9, 31, 28};
constexpr Field self_lb_block{9, 25, 24};
constexpr Field transport_domain{9, 23, 0};
constexpr unsigned kToeplitzKey = 0x28; // 40 bytes
constexpr Field hash_outer_l3{0x14, 31, 31};
constexpr Field hash_outer_l4{0x14, 30, 30};
constexpr Field hash_outer_fields{0x14, 29, 0};
constexpr Field hash_inner_fields{0x15, 29, 0};
enum : uint8_t { DISP_DIRECT = 0, DISP_INDIRECT = 1 };
enum : uint8_t { HASH_NONE = 0, HASH_XOR8 = 1, HASH_TOEPLITZ = 2 };
enum : uint8_t { SELF_LB_UNICAST = 1, SELF_LB_MULTICAST = 2 };
// selected_fields bits
enum : uint32_t { SEL_SRC_IP = 1u << 0, SEL_DST_IP = 1u << 1, SEL_L4_SPORT = 1u << 2, SEL_L4_DPORT = 1u << 3,
		  SEL_IPSEC_SPI = 1u << 4 };
} // namespace tirc
namespace modify_tir {
constexpr unsigned kBitmask = 0x10; // be64
enum : uint64_t { PACKET_MERGE = 1ull << 0, HASH = 1ull << 2, SELF_LB_EN = 1ull << 4 };
} // namespace modify_tir

// RQT context (rqtc, 240 bytes + the RQ list at +0xf0, 4 bytes each).
namespace rqtc {
constexpr Field list_q_type{5, 26, 24};
constexpr Field rqt_max_size{5, 15, 0};
constexpr Field rq_vhca_id_format{6, 31, 31};
constexpr Field rqt_actual_size{6, 15, 0};
constexpr unsigned kRqList = 0xf0;
} // namespace rqtc
namespace modify_rqt {
constexpr unsigned kBitmask = 0x10; // be64
enum : uint64_t { RQN_LIST = 1ull << 0 };
} // namespace modify_rqt

// ---------------------------------------------------------------------------
// Flow steering

namespace flow_table_type {
enum : uint8_t { NIC_RX = 0x0, NIC_TX = 0x1, ESW_EGRESS_ACL = 0x2, ESW_INGRESS_ACL = 0x3, FDB = 0x4 };
}

// Common head of the flow-steering commands.
namespace ft_in {
constexpr Field other_vport{2, 31, 31};
constexpr Field vport_number{2, 15, 0};
constexpr Field table_type{4, 31, 24};
constexpr Field table_id{5, 23, 0};
} // namespace ft_in

// flow_table_context at +0x18 of CREATE/MODIFY input and QUERY output.
namespace ftc {
constexpr unsigned kAt = 0x18;
constexpr Field reformat_en{0, 31, 31};
constexpr Field decap_en{0, 30, 30};
constexpr Field sw_owner{0, 29, 29};
constexpr Field termination_table{0, 28, 28};
constexpr Field table_miss_action{0, 27, 24};
constexpr Field level{0, 23, 16};
constexpr Field log_size{0, 7, 0};
constexpr Field table_miss_id{1, 23, 0};
enum : uint8_t { MISS_DEFAULT = 0, MISS_FWD = 1, MISS_SWITCH_DOMAIN = 2 };
} // namespace ftc

namespace create_ft {
constexpr Field table_id_out{2, 23, 0};
constexpr unsigned kSize = 0x40;
} // namespace create_ft
namespace modify_ft {
constexpr Field modify_field_select{3, 15, 0};
enum : uint16_t { SEL_MISS_TABLE_ID = 1u << 0, SEL_LAG_NEXT_TABLE_ID = 1u << 15 };
} // namespace modify_ft
namespace ft_root {
constexpr Field underlay_qpn{6, 23, 0};
}

namespace create_fg {
constexpr Field group_type{4, 19, 16};
constexpr Field start_flow_index{7, 31, 0};
constexpr Field end_flow_index{9, 31, 0};
constexpr Field match_criteria_enable{0xf, 7, 0};
constexpr unsigned kMatchCriteria = 0x40;
constexpr Field group_id_out{2, 31, 0};
constexpr Field group_id_in{6, 31, 0}; // DESTROY/QUERY_FLOW_GROUP
constexpr unsigned kSize = 0x40 + 0x200;
} // namespace create_fg

namespace set_fte {
constexpr Field ignore_flow_level{6, 31, 31};
constexpr Field modify_enable_mask{6, 7, 0};
constexpr Field flow_index{8, 31, 0};
constexpr unsigned kFlowContext = 0x40;
constexpr unsigned kMinSize = 0x40 + 0x300;
} // namespace set_fte
namespace delete_fte {
constexpr Field flow_index{8, 31, 0};
}

// flow_context, relative to its start.
namespace flow_ctx {
constexpr Field group_id{1, 31, 0};
constexpr Field flow_tag{2, 23, 0};
constexpr Field action{3, 15, 0};
constexpr Field extended_destination{4, 31, 31};
constexpr Field destination_list_size{4, 23, 0};
constexpr Field flow_counter_list_size{5, 23, 0};
constexpr Field packet_reformat_id{6, 31, 0};
constexpr Field modify_header_id{7, 31, 0};
constexpr unsigned kMatchValue = 0x40;
constexpr unsigned kDestinations = 0x300; // 8 bytes each, then the counters
// action bits
enum : uint16_t {
	ACT_ALLOW = 1u << 0,
	ACT_DROP = 1u << 1,
	ACT_FWD_DEST = 1u << 2,
	ACT_COUNT = 1u << 3,
	ACT_PACKET_REFORMAT = 1u << 4,
	ACT_DECAP = 1u << 5,
	ACT_MOD_HDR = 1u << 6,
	ACT_VLAN_POP = 1u << 7,
	ACT_VLAN_PUSH = 1u << 8,
};
} // namespace flow_ctx

// A destination entry (8 bytes).
namespace dest {
constexpr Field type{0, 31, 24};
constexpr Field id{0, 23, 0};
constexpr Field counter_id{0, 31, 0}; // a counter entry
enum : uint8_t { VPORT = 0x0, FLOW_TABLE = 0x1, TIR = 0x2, UPLINK = 0x8 };
// The vport number of the uplink (a VPORT destination, source_port).
constexpr uint16_t kUplinkVport = 0xffff;
} // namespace dest

namespace flow_counter {
constexpr Field bulk_log_size{3, 12, 8}; // ALLOC in
constexpr Field bulk{3, 7, 0};           // ALLOC in (old form: 128 << n)
constexpr Field id_out{2, 31, 0};        // ALLOC out
constexpr Field id_in{2, 31, 0};         // DEALLOC in
constexpr Field query_clear{6, 31, 31};
constexpr Field query_num{6, 15, 0};
constexpr Field query_id{7, 31, 0};
constexpr unsigned kQueryStats = 0x10; // traffic_counter (packets, octets be64) each
} // namespace flow_counter

// fte_match_param (512 bytes): criteria in CREATE_FLOW_GROUP, values in
// the flow context. match_criteria_enable bit n enables section n.
namespace match {
constexpr unsigned kSize = 0x200;
constexpr unsigned kSectionSize = 0x40;
enum : uint8_t { SEC_OUTER = 0, SEC_MISC = 1, SEC_INNER = 2, SEC_MISC2 = 3, SEC_MISC3 = 4, SEC_MISC4 = 5,
		 SEC_MISC5 = 6 };
// fte_match_set_lyr_2_4 at 0 (outer headers)
constexpr Field smac_47_16{0, 31, 0};
constexpr Field smac_15_0{1, 31, 16};
constexpr Field ethertype{1, 15, 0};
constexpr Field dmac_47_16{2, 31, 0};
constexpr Field dmac_15_0{3, 31, 16};
constexpr Field first_prio{3, 15, 13};
constexpr Field first_cfi{3, 12, 12};
constexpr Field first_vid{3, 11, 0};
constexpr Field ip_protocol{4, 31, 24};
constexpr Field ip_dscp{4, 23, 18};
constexpr Field ip_ecn{4, 17, 16};
constexpr Field cvlan_tag{4, 15, 15};
constexpr Field svlan_tag{4, 14, 14};
constexpr Field frag{4, 13, 13};
constexpr Field ip_version{4, 12, 9};
constexpr Field tcp_flags{4, 8, 0};
constexpr Field tcp_sport{5, 31, 16};
constexpr Field tcp_dport{5, 15, 0};
constexpr Field ttl_hoplimit{6, 7, 0};
constexpr Field udp_sport{7, 31, 16};
constexpr Field udp_dport{7, 15, 0};
constexpr unsigned kSrcIp = 0x20; // 16 bytes; IPv4 in the last 4
constexpr unsigned kDstIp = 0x30;
// fte_match_set_misc at 0x40: the e-switch vport a frame came from.
constexpr Field source_port{0x10 + 1, 15, 0};
} // namespace match

// ---------------------------------------------------------------------------
// The legacy e-switch of a manager (fw/cmd_esw.cc)

namespace esw_op {
enum : uint16_t {
	QUERY_ESW_VPORT_CONTEXT = 0x752,
	MODIFY_ESW_VPORT_CONTEXT = 0x753,
	SET_L2_TABLE_ENTRY = 0x829,
	QUERY_L2_TABLE_ENTRY = 0x82a,
	DELETE_L2_TABLE_ENTRY = 0x82b,
};
} // namespace esw_op

// QUERY/MODIFY_ESW_VPORT_CONTEXT: other_vport and vport_number as every
// vport command (vport_in); the MODIFY's field_select at dword 3; the
// esw_vport_context at +0x10 of the MODIFY input and of the QUERY output.
namespace esw_vport {
constexpr Field field_select{3, 31, 0};
enum : uint32_t { SEL_SVLAN_STRIP = 1u << 0, SEL_CVLAN_STRIP = 1u << 1, SEL_SVLAN_INSERT = 1u << 2,
		  SEL_CVLAN_INSERT = 1u << 3, SEL_FDB_TO_VPORT_REG_C_ID = 1u << 4 };
constexpr unsigned kAt = 0x10;
constexpr unsigned kSize = 0x100;
// relative to the context
constexpr Field vport_svlan_strip{0, 28, 28};
constexpr Field vport_cvlan_strip{0, 27, 27};
constexpr Field vport_svlan_insert{0, 26, 26};
constexpr Field vport_cvlan_insert{0, 25, 24};
constexpr Field cvlan_cfi{2, 15, 15};
constexpr Field cvlan_pcp{2, 14, 12};
constexpr Field cvlan_id{2, 11, 0};
enum : uint8_t { INSERT_NONE = 0, INSERT_WHEN_NO_CVLAN = 1, INSERT_ALWAYS = 3 };
} // namespace esw_vport

// SET/QUERY/DELETE_L2_TABLE_ENTRY: the MPFS, the adapter's table of the
// unicast MACs its uplink accepts.
namespace l2_table {
constexpr Field table_index{5, 23, 0};
constexpr Field silent_mode_valid{7, 15, 15};
constexpr Field silent_mode{7, 14, 14};
constexpr Field vlan_valid{7, 12, 12};
constexpr Field vlan{7, 11, 0};
constexpr unsigned kMac = 0x22; // 6 bytes (mac_address_layout at 0x20)
constexpr unsigned kSize = 0x40;
} // namespace l2_table

} // namespace mlx5emu::prm
