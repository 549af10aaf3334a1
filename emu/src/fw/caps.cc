// SPDX-License-Identifier: GPL-2.0
// The capability profile: a ConnectX-5-like single-port InfiniBand HCA that
// advertises only what the emulator implements. Everything not set here is 0
// (no Ethernet, RoCE, eswitch, flow tables, PCAM/MCAM/QCAM, debug, device
// memory, UMR, DC, XRC, counters, PPS/real-time clock, GENERAL_2).
#include "fw/caps.h"

#include "fw/adapter.h"
#include "fw/hca.h"
#include "prm/prm.h"
#include "queues/mcg_table.h"
#include "prm/eth.h"
#include "prm/qos.h"
#include "exec/datapath.h"

namespace mlx5emu {

using bits::Field;
namespace gc = prm::cmd_hca_cap;
namespace ac = prm::atomic_caps;

namespace {

void put(Caps::Block &b, Field f, uint32_t v) { bits::set(b.data(), f, v); }

// An Ethernet port: the general fields of a NIC function, the offloads
// the send and receive paths execute (checksums, LSO, VLAN stripping, RSS)
// and NIC receive flow tables over the fields the match engine parses.
// No striding RQ, LRO, tunnel offloads, TLS/IPsec, eswitch, NIC transmit
// tables, header rewrite or packet reformat.
void ethernet_caps(Caps::Block &g, std::map<uint16_t, Caps::Block> &max, bool roce)
{
	namespace eg = prm::eth_gen_caps;
	namespace ec = prm::eth_caps;
	namespace fc = prm::ft_caps;
	put(g, gc::port_type, gc::PORT_TYPE_ETH);
	put(g, gc::eth_net_offloads, 1);
	put(g, gc::nic_flow_table, 1);
	put(g, eg::log_max_rq, 12);
	put(g, eg::log_max_sq, 12);
	put(g, eg::log_max_tir, 10);
	put(g, eg::log_max_tis, 8);
	put(g, eg::log_max_rqt, 8);
	put(g, eg::log_max_rqt_size, 8);
	put(g, eg::log_max_tis_per_sq, 0);
	put(g, eg::log_max_wq_sz, 15);
	put(g, eg::log_max_flow_counter_bulk, 8);
	put(g, eg::max_flow_counter_15_0, 0xffff);
	put(g, eg::log_max_current_uc_list, 7);
	put(g, eg::log_max_current_mc_list, 7);
	put(g, eg::log_max_vlan_list, 7);
	put(g, eg::log_max_l2_table, Adapter::kLogL2Table);

	Caps::Block e{};
	put(e, ec::csum_cap, 1);
	put(e, ec::vlan_cap, 1);
	// No self_lb_en_modifiable: a frame never comes back to the function
	// that sent it (no local loopback), so there is nothing to block.
	put(e, ec::max_lso_cap, 16); // 64 KiB
	put(e, ec::wqe_inline_mode, ec::INLINE_L2);
	put(e, ec::rss_ind_tbl_cap, 8);
	max[prm::cap_type_eth::ETHERNET_OFFLOADS] = e;

	Caps::Block f{};
	uint8_t *rx = f.data() + fc::kNicRx;
	bits::set(rx, fc::ft_support, 1);
	bits::set(rx, fc::flow_counter, 1);
	bits::set(rx, fc::flow_modify_en, 1);
	bits::set(rx, fc::modify_root, 1);
	bits::set(rx, fc::identified_miss_table_mode, 1);
	bits::set(rx, fc::flow_table_modify, 1);
	bits::set(rx, fc::log_max_ft_size, 16);
	bits::set(rx, fc::max_ft_level, 64);
	bits::set(rx, fc::log_max_ft_num, 10);
	bits::set(rx, fc::log_max_flow_counter, 16);
	bits::set(rx, fc::log_max_destination, 4);
	bits::set(rx, fc::log_max_flow, 16);
	for (unsigned at : {fc::kFieldSupport, fc::kFieldBitmask}) {
		uint8_t *fs = rx + at;
		for (Field x : {fc::outer_dmac, fc::outer_smac, fc::outer_ether_type, fc::outer_ip_version,
				fc::outer_first_prio, fc::outer_first_cfi, fc::outer_first_vid, fc::outer_sip,
				fc::outer_dip, fc::outer_frag, fc::outer_ip_protocol, fc::outer_udp_sport,
				fc::outer_udp_dport, fc::outer_tcp_sport, fc::outer_tcp_dport})
			bits::set(fs, x, 1);
	}
	max[prm::cap_type_eth::FLOW_TABLE] = f;

	// RoCE (exec/roce.cc, roce_wire.cc): v1 and v2, over IPv4 and IPv6,
	// the GID table (SET/QUERY_ROCE_ADDRESS), the UDP source port the
	// QP path or address vector names, local loopback that the NIC vport
	// context can switch off for unicast and multicast.
	if (!roce)
		return;
	namespace rc = prm::roce_caps;
	put(g, gc::roce, 1);
	put(g, eg::disable_local_lb_uc, 1);
	Caps::Block r{};
	put(r, rc::sw_r_roce_src_udp_port, 1);
	put(r, rc::l3_type, rc::L3_IPV4_CAP | rc::L3_IPV6_CAP);
	put(r, rc::roce_version, rc::VERSION_1_CAP | rc::VERSION_2_CAP);
	put(r, rc::r_roce_dest_udp_port, roce::kUdpPort);
	put(r, rc::r_roce_max_src_udp_port, DataPath::kUdpSportMax);
	put(r, rc::r_roce_min_src_udp_port, DataPath::kUdpSportMin);
	put(r, rc::roce_address_table_size, DataPath::kRoceGids);
	max[prm::cap_type_eth::ROCE] = r;
}

// Port QoS on an Ethernet PF (fw/port_qos.cc): the ETS, trust, DSCP,
// buffer and DCBX registers, the PCAM/QCAM masks naming them (PCAM's ppcnt
// bit too: with pcam_reg the in-tree driver reads PPCNT only when PCAM
// says so), 8 TCs, and an empty QOS cap block (no packet pacing or
// scheduling elements). A ConnectX PF is its port's vport group manager:
// the in-tree mlx5e offers dcbnl_ops, `ethtool -A` and DSCP trust only on
// it. No SBCAM (128-byte buffer cells), buffer_ownership or pfcc_mask.
void qos_caps(Caps::Block &g, std::map<uint16_t, Caps::Block> &max)
{
	namespace qg = prm::qos_gen_caps;
	put(g, gc::vport_group_manager, 1);
	put(g, gc::qos, 1);
	put(g, qg::ets, 1);
	put(g, qg::dcbx, 1);
	put(g, gc::max_tc, prm::kNumTc);
	put(g, gc::pcam_reg, 1);
	put(g, gc::qcam_reg, 1);
	max[prm::cap_type_qos::QOS] = Caps::Block{};
}

// The e-switch manager of an Ethernet adapter with VFs, as a ConnectX in
// legacy mode reports it: eswitch_manager; the E_SWITCH type with the
// vport C-VLAN strip and insert-if-none (VST through the esw vport
// context, fw/cmd_esw.cc); the ESWITCH_FLOW_TABLE type with FDB, ingress
// and egress ACL tables over the NIC tables' fields (the FDB also over
// source_port), forwarding to vports and the uplink. No flow counters on
// the ACLs, no VLAN push/pop actions (the in-tree driver then takes the
// esw vport context for VST). In the QOS type, the e-switch's transmit
// scheduling (fw/cmd_esw.cc, steer/esw_qos.h): TSARs of type DWRR and VPORT
// elements with a maximum rate and a share (of at most kEswMaxBwShare);
// no scheduling depth beyond the root TSAR (the in-tree PF then hangs its
// vports off the root), no rate-limit elements.
constexpr uint32_t kEswMaxBwShare = 100;

void esw_manager_caps(Caps::Block &g, std::map<uint16_t, Caps::Block> &max)
{
	namespace fc = prm::ft_caps;
	namespace ec = prm::esw_caps;
	namespace qc = prm::esw_qos_caps;
	put(g, gc::eswitch_manager, 1);
	put(g, gc::qos, 1);
	Caps::Block &q = max[prm::cap_type_qos::QOS];
	put(q, qc::esw_scheduling, 1);
	put(q, qc::esw_bw_share, 1);
	put(q, qc::esw_rate_limit, 1);
	put(q, qc::esw_element_type, qc::ELEMENT_CAP_TSAR | qc::ELEMENT_CAP_VPORT);
	put(q, qc::esw_tsar_type, qc::TSAR_CAP_DWRR);
	put(q, qc::max_tsar_bw_share, kEswMaxBwShare);
	Caps::Block e{};
	put(e, ec::vport_cvlan_strip, 1);
	put(e, ec::vport_cvlan_insert_if_not_exist, 1);
	max[prm::cap_type_eth::ESWITCH] = e;

	Caps::Block f{};
	for (unsigned at : {prm::esw_ft_caps::kFdb, prm::esw_ft_caps::kIngressAcl, prm::esw_ft_caps::kEgressAcl}) {
		uint8_t *t = f.data() + at;
		bits::set(t, fc::ft_support, 1);
		bits::set(t, fc::flow_modify_en, 1);
		bits::set(t, fc::modify_root, 1);
		bits::set(t, fc::log_max_ft_size, at == prm::esw_ft_caps::kFdb ? 16 : 10);
		bits::set(t, fc::max_ft_level, 64);
		bits::set(t, fc::log_max_ft_num, 10);
		bits::set(t, fc::log_max_destination, 4);
		bits::set(t, fc::log_max_flow, 16);
		for (unsigned fs : {fc::kFieldSupport, fc::kFieldBitmask})
			for (Field x : {fc::outer_dmac, fc::outer_smac, fc::outer_ether_type, fc::outer_first_prio,
					fc::outer_first_cfi, fc::outer_first_vid})
				bits::set(t + fs, x, 1);
	}
	max[prm::cap_type_eth::ESWITCH_FLOW_TABLE] = f;
}

unsigned log2_floor(uint64_t v)
{
	unsigned l = 0;
	while (v > 1) {
		v >>= 1;
		++l;
	}
	return l;
}

// How a general-capability field may be changed by SET_HCA_CAP.
enum class Rule {
	LeMax, // any value <= MAXIMUM
	IfMax, // may be set only when MAXIMUM has it; ignored otherwise
	Any,   // stored as given
};

struct Writable {
	Field field;
	Rule rule;
};

// The general-capability fields software may change. Everything else in
// the block is read-only and silently keeps its CURRENT value.
constexpr Writable kGeneralWritable[] = {
	{gc::pkey_table_size, Rule::LeMax},
	{gc::log_max_qp, Rule::LeMax},
	{gc::cmdif_checksum, Rule::LeMax},
	{gc::uar_4k, Rule::IfMax},
	{gc::log_uar_page_sz, Rule::Any},
	{gc::cache_line_128byte, Rule::IfMax},
	{gc::dct, Rule::IfMax},
	{gc::num_vhca_ports, Rule::LeMax},
	{gc::release_all_pages, Rule::IfMax},
	{gc::mkey_by_name, Rule::IfMax},
	{gc::roce, Rule::IfMax},
	{gc::abs_native_port_num, Rule::IfMax},
	{gc::pci_sync_for_fw_update_event, Rule::IfMax},
	{gc::pci_sync_for_fw_update_with_driver_unload, Rule::IfMax},
	{gc::pcie_reset_using_hotreset_method, Rule::IfMax},
	{gc::num_total_dynamic_vf_msix, Rule::LeMax},
	{gc::event_on_vhca_state_teardown_request, Rule::IfMax},
	{gc::event_on_vhca_state_in_use, Rule::IfMax},
	{gc::event_on_vhca_state_active, Rule::IfMax},
	{gc::event_on_vhca_state_allocated, Rule::IfMax},
	{gc::event_on_vhca_state_invalid, Rule::IfMax},
};

} // namespace

Caps::Caps(const HcaConfig &cfg) { build(cfg); }

void Caps::build(const HcaConfig &cfg)
{
	Block g{};

	// Queues and objects.
	put(g, gc::log_max_qp_sz, 15);  // 32K WQEs per queue
	put(g, gc::log_max_qp, 12);     // 4096 QPs
	put(g, gc::log_max_srq_sz, 15);
	put(g, gc::log_max_srq, 12);
	put(g, gc::log_max_cq_sz, 22);
	put(g, gc::log_max_cq, 12);
	put(g, gc::log_max_eq_sz, 22);
	put(g, gc::log_max_eq, 6); // 64 EQs
	put(g, gc::log_max_mkey, 16);
	put(g, gc::log_max_mrw_sz, 48);
	put(g, gc::log_max_pd, 16);
	put(g, gc::log_max_msg, 30);
	put(g, gc::log_max_ra_req_qp, 4);
	put(g, gc::log_max_ra_res_qp, 4);
	put(g, gc::max_wqe_sz_sq, 1024);
	put(g, gc::max_wqe_sz_rq, 512);
	put(g, gc::local_ca_ack_delay, 16);
	put(g, gc::cqe_version, 1);

	// Transports: RC, UC and UD (UD is needed for the GSI QP on IB).
	// XRC: domains, XRC SRQs, initiator and target QPs (exec/xrc.cc).
	put(g, gc::rc, 1);
	put(g, gc::uc, 1);
	put(g, gc::ud, 1);
	put(g, gc::xrc, 1);
	put(g, gc::log_max_xrcd, 16);
	put(g, gc::log_max_transport_domain, 16);
	// DC (cmd_dct.cc, exec/dc.cc): DCTs and DCIs as a ConnectX-5 has
	// them (no DCI streams), the DCI's read/atomic depth and WQE size as
	// an RC QP's.
	put(g, gc::dct, 1);
	put(g, gc::log_max_ra_req_dc, 4);
	put(g, gc::log_max_ra_res_dc, 4);
	put(g, gc::max_wqe_sz_sq_dc, 1024);
	// CQs: MODIFY_CQ resizes (queues/cq.cc); event moderation by count
	// and period, the period from the last EQE or the first CQE, changed
	// by MODIFY_CQ too (exec/cq_moderation.cc).
	put(g, gc::cq_resize, 1);
	put(g, gc::cq_moderation, 1);
	put(g, gc::cq_period_mode_modify, 1);
	put(g, gc::cq_period_start_from_cqe, 1);
	if (cfg.caps_atomic)
		put(g, gc::atomic, 1);
	// MCAM and the firmware-update registers it names (fw/fw_update.cc):
	// every function reads the versions; a VF's MCC/MCDA writes are
	// refused (cmd_reg.cc).
	put(g, gc::mcam_reg, 1);

	// Multicast groups (ATTACH_TO_MCG), with the loopback block of the
	// sender's own QP (qpc.block_lb_mc) and of the whole function (NIC
	// vport context disable_mc_local_lb).
	put(g, gc::log_max_mcg, McgTable::kLogMaxGroups);
	put(g, gc::max_qp_mcg, McgTable::kMaxQpsPerGroup);
	put(g, gc::block_lb_mc, 1);
	put(g, gc::disable_local_lb_mc, 1); // MODIFY_NIC_VPORT_CONTEXT

	// No enhanced IPoIB (ipoib_enhanced_offloads) and no IPoIB checksum /
	// LSO offloads (ipoib_basic_offloads): ib_ipoib runs as classic IPoIB
	// over kernel verbs (UD QP, and RC QPs with an SRQ in connected mode).

	// UMR (exec/umr.cc): translation, page size, access (atomic too), PD
	// and free-state changes; memory windows and KLM keys (imaicl). UMR
	// WQEs run strongly ordered (umr_fence 0). No indirect-mkey updates
	// for ODP, no 48-bit translation offsets (umr_extended_translation_offset).
	put(g, gc::umr_modify_entity_size_disabled, !cfg.caps_umr);
	put(g, gc::umr_modify_atomic_disabled, !cfg.caps_umr);
	put(g, gc::umr_indirect_mkey_disabled, 1);
	put(g, gc::imaicl, cfg.caps_umr);
	// The longest translation list one fast registration carries: 2^15
	// entries, MTT or KLM (a KLM is one octoword, and the UMR control
	// segment counts octowords in 16 bits). The in-tree mlx5_ib reports
	// 1 << this as max_fast_reg_page_list_len, and nvme-rdma sizes its MRs
	// and its largest request by it (0 left it one page per MR: every
	// request over 4 pages failed "Failed to map data").
	put(g, gc::log_max_klm_list_size, kLogMaxFastRegList);

	// On-demand paging, transport page-fault scheme (exec/odp.cc): MTT
	// entries carry present bits (`pg`), and an RC responder's RDMA WRITE
	// or READ that meets a missing one raises a PAGE_FAULT event and
	// waits for PAGE_FAULT_RESUME. No requester (send gather), receive,
	// atomic, SRQ, UD, XRC or DC faults, no memory scheme; none of those
	// bits is writable, so software has nothing to set (SET_HCA_CAP of
	// the type keeps the bits within these).
	bool odp = cfg.caps_odp && cfg.caps_umr;
	put(g, gc::pg, odp);

	// User contexts (cmd_uctx.cc): the in-tree mlx5_ib creates one per
	// process that asks for DEVX (libmlx5 always asks) and puts its uid in
	// the commands of that process's objects. No uctx_cap bits (raw
	// packet TX, internal device resources).
	if (cfg.caps_uctx)
		put(g, gc::log_max_uctx, Resources::kLogMaxUctx);

	// Port: one InfiniBand port.
	put(g, gc::port_type, gc::PORT_TYPE_IB);
	put(g, gc::num_ports, 1);
	put(g, gc::native_port_num, 1);
	put(g, gc::gid_table_size, 0);  // 8 GIDs
	put(g, gc::pkey_table_size, 0); // 128 P_Keys

	// UARs: 4 KiB pages in BAR0, no BlueFlame write-combining promise.
	put(g, gc::uar_sz, log2_floor(cfg.bar0_size >> 20));
	put(g, gc::log_pg_sz, 12);
	put(g, gc::log_bf_reg_size, 9);
	put(g, gc::num_of_uars_per_page, 1);
	put(g, gc::log_uar_page_sz, 0);

	// On-device memory (MEMIC) at the top of BAR0: allocations of 64-byte
	// granules (ALLOC_MEMIC), mapped by software, read and written by the
	// data path through MEMIC keys. No MEMIC operations (MODIFY_MEMIC),
	// no software-owned ICM.
	if (cfg.memic_size)
		put(g, gc::device_memory, 1);

	// The internal timer (iseg 0x1000) counts nanoseconds: a 1 GHz clock.
	put(g, gc::device_frequency_khz, 1000000);

	// Command interface.
	put(g, gc::driver_version, 1);
	put(g, gc::cmdif_checksum, 0);

	if (cfg.link == LinkType::Eth)
		ethernet_caps(g, max_, cfg.caps_roce);
	if (cfg.link == LinkType::Eth && !cfg.is_vf())
		qos_caps(g, max_);

	// A VF: its vhca_id is its vport number (VF n, 1-based, is n; the PF
	// is 0 — the numbers are the emulator's choice, firmware picks them).
	// No manager role: not the vport group manager or the e-switch manager,
	// and no NIC_VPORT_CHANGE events (the manager's), so the driver builds
	// no e-switch, MPFS or SR-IOV state on it.
	if (cfg.is_vf()) {
		put(g, gc::vhca_id, cfg.vf_index + 1u);
		put(g, gc::vport_group_manager, 0);
		put(g, gc::eswitch_manager, 0);
		put(g, gc::nic_vport_change_event, 0);
		// InfiniBand virtualization: the VF reads its port through
		// its HCA vport context (GUIDs, state, has_smi 0) and the
		// port registers, not through SMPs (cmd_vport.cc).
		if (cfg.link == LinkType::Ib)
			put(g, gc::ib_virt, 1);
	}
	// A PF with VFs (an adapter with total_vfs > 0) manages their vports:
	// vport_group_manager (other_vport commands, VF pages, ENABLE_HCA of
	// its VFs; the in-tree driver's MLX5_VPORT_MANAGER on Ethernet),
	// nic_vport_change_event (NIC_VPORT_CHANGE when a VF changes its
	// address lists or promiscuous modes) and, on InfiniBand, ib_virt
	// (the VFs' GUIDs and policy through MODIFY_HCA_VPORT_CONTEXT; the
	// port through the HCA vport context). On Ethernet it is also the
	// e-switch manager of the legacy e-switch (esw_manager_caps).
	if (!cfg.is_vf() && cfg.adapter && cfg.adapter->total_vfs()) {
		put(g, gc::vport_group_manager, 1);
		put(g, gc::nic_vport_change_event, 1);
		if (cfg.link == LinkType::Ib)
			put(g, gc::ib_virt, 1);
		if (cfg.link == LinkType::Eth)
			esw_manager_caps(g, max_);
	}
	max_[prm::cap_type::GENERAL] = g;

	if (cfg.caps_atomic) {
		Block a{};
		put(a, ac::atomic_operations, ac::OPS_CMP_SWAP | ac::OPS_FETCH_ADD);
		put(a, ac::atomic_size_qp, ac::SIZE_QP_8B);
		put(a, ac::supported_atomic_req_8B_endianness_mode_1, 1);
		max_[prm::cap_type::ATOMIC] = a;
	}

	if (cfg.memic_size) {
		namespace dc = prm::dev_mem_caps;
		Block d{};
		uint64_t start = cfg.bar0_size - cfg.memic_size;
		put(d, dc::memic, 1);
		put(d, dc::log_min_memic_alloc_size, 6);
		put(d, dc::log_max_memic_addr_alignment, log2_floor(cfg.memic_size) - 6);
		bits::store_be64(d.data() + dc::kMemicBarStartAddr, start);
		put(d, dc::memic_bar_size, cfg.memic_size);
		put(d, dc::max_memic_size, cfg.memic_size);
		max_[prm::cap_type::DEV_MEM] = d;
	}

	if (odp) {
		Block o{};
		put(o, prm::odp::rc_write, 1);
		put(o, prm::odp::rc_read, 1);
		max_[prm::cap_type::ODP] = o;
	}

	// CURRENT starts equal to MAXIMUM except for the mode fields that
	// software selects.
	initial_cur_ = max_;
	if (cfg.caps_atomic)
		bits::set(initial_cur_[prm::cap_type::ATOMIC].data(), ac::atomic_req_8B_endianness_mode, 0);
	if (initial_cur_.count(prm::cap_type_eth::ROCE))
		bits::set(initial_cur_[prm::cap_type_eth::ROCE].data(), prm::roce_caps::sw_r_roce_src_udp_port, 0);
	cur_ = initial_cur_;
}

const Caps::Block *Caps::max(uint16_t type) const
{
	auto it = max_.find(type);
	return it == max_.end() ? nullptr : &it->second;
}

const Caps::Block *Caps::cur(uint16_t type) const
{
	auto it = cur_.find(type);
	return it == cur_.end() ? nullptr : &it->second;
}

void Caps::reset_current() { cur_ = initial_cur_; }

uint8_t Caps::set(uint16_t type, const uint8_t *in, uint32_t *reason)
{
	auto mit = max_.find(type);
	if (mit == max_.end()) {
		*reason = 1;
		return prm::status::BAD_PARAM;
	}
	const uint8_t *mx = mit->second.data();
	Block next = cur_.at(type);

	if (type == prm::cap_type::GENERAL) {
		for (const Writable &w : kGeneralWritable) {
			uint32_t v = bits::get(in, w.field);
			uint32_t m = bits::get(mx, w.field);
			switch (w.rule) {
			case Rule::LeMax:
				if (v > m) {
					*reason = 0x10 + static_cast<uint32_t>(&w - kGeneralWritable);
					return prm::status::BAD_PARAM;
				}
				break;
			case Rule::IfMax:
				if (!m)
					continue;
				break;
			case Rule::Any:
				break;
			}
			bits::set(next.data(), w.field, v);
		}
	} else if (type == prm::cap_type::ATOMIC) {
		uint32_t mode = bits::get(in, ac::atomic_req_8B_endianness_mode);
		if (mode > 1 ||
		    (mode == 1 && !bits::get(mx, ac::supported_atomic_req_8B_endianness_mode_1))) {
			*reason = 2;
			return prm::status::BAD_PARAM;
		}
		bits::set(next.data(), ac::atomic_req_8B_endianness_mode, mode);
	} else if (type == prm::cap_type::ODP) {
		// Per-transport fault bits: what software asks within MAXIMUM.
		for (unsigned i = 0; i < kBlockSize; ++i)
			next[i] = in[i] & mx[i];
	} else if (type == prm::cap_type_eth::ROCE) {
		// Software may ask to pick the UDP source port itself.
		namespace rc = prm::roce_caps;
		if (bits::get(mx, rc::sw_r_roce_src_udp_port))
			bits::set(next.data(), rc::sw_r_roce_src_udp_port, bits::get(in, rc::sw_r_roce_src_udp_port));
	}
	cur_[type] = next;
	return prm::status::OK;
}

unsigned Caps::log_max_eq() const { return gen(gc::log_max_eq); }
unsigned Caps::log_max_eq_sz() const { return gen(gc::log_max_eq_sz); }
unsigned Caps::gid_table_len() const
{
	unsigned v = gen(gc::gid_table_size);
	return v > 4 ? 0 : 8u << v;
}
unsigned Caps::pkey_table_len() const
{
	unsigned v = gen(gc::pkey_table_size);
	return v > 5 ? 0 : 128u << v;
}

} // namespace mlx5emu
