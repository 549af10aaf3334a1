// SPDX-License-Identifier: GPL-2.0
// Command opcode names, for traces, statistics and the control channel.
#include "prm/opcode_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace mlx5emu {

namespace {

struct OpName {
	uint16_t opcode;
	const char *name;
};

// Opcode numbers of the ConnectX command interface.
constexpr OpName kNames[] = {
	{0x100, "QUERY_HCA_CAP"},
	{0x101, "QUERY_ADAPTER"},
	{0x102, "INIT_HCA"},
	{0x103, "TEARDOWN_HCA"},
	{0x104, "ENABLE_HCA"},
	{0x105, "DISABLE_HCA"},
	{0x107, "QUERY_PAGES"},
	{0x108, "MANAGE_PAGES"},
	{0x109, "SET_HCA_CAP"},
	{0x10a, "QUERY_ISSI"},
	{0x10b, "SET_ISSI"},
	{0x10d, "SET_DRIVER_VERSION"},
	{0x111, "QUERY_SF_PARTITION"},
	{0x113, "ALLOC_SF"},
	{0x114, "DEALLOC_SF"},
	{0x115, "SUSPEND_VHCA"},
	{0x116, "RESUME_VHCA"},
	{0x117, "QUERY_VHCA_MIGRATION_STATE"},
	{0x118, "SAVE_VHCA_STATE"},
	{0x119, "LOAD_VHCA_STATE"},
	{0x200, "CREATE_MKEY"},
	{0x201, "QUERY_MKEY"},
	{0x202, "DESTROY_MKEY"},
	{0x203, "QUERY_SPECIAL_CONTEXTS"},
	{0x204, "PAGE_FAULT_RESUME"},
	{0x205, "ALLOC_MEMIC"},
	{0x206, "DEALLOC_MEMIC"},
	{0x207, "MODIFY_MEMIC"},
	{0x301, "CREATE_EQ"},
	{0x302, "DESTROY_EQ"},
	{0x303, "QUERY_EQ"},
	{0x304, "GEN_EQE"},
	{0x400, "CREATE_CQ"},
	{0x401, "DESTROY_CQ"},
	{0x402, "QUERY_CQ"},
	{0x403, "MODIFY_CQ"},
	{0x500, "CREATE_QP"},
	{0x501, "DESTROY_QP"},
	{0x502, "RST2INIT_QP"},
	{0x503, "INIT2RTR_QP"},
	{0x504, "RTR2RTS_QP"},
	{0x505, "RTS2RTS_QP"},
	{0x506, "SQERR2RTS_QP"},
	{0x507, "2ERR_QP"},
	{0x50a, "2RST_QP"},
	{0x50b, "QUERY_QP"},
	{0x50c, "SQD_RTS_QP"},
	{0x50d, "MAD_IFC"},
	{0x50e, "INIT2INIT_QP"},
	{0x600, "CREATE_PSV"},
	{0x601, "DESTROY_PSV"},
	{0x700, "CREATE_SRQ"},
	{0x701, "DESTROY_SRQ"},
	{0x702, "QUERY_SRQ"},
	{0x703, "ARM_RQ"},
	{0x705, "CREATE_XRC_SRQ"},
	{0x706, "DESTROY_XRC_SRQ"},
	{0x707, "QUERY_XRC_SRQ"},
	{0x708, "ARM_XRC_SRQ"},
	{0x710, "CREATE_DCT"},
	{0x711, "DESTROY_DCT"},
	{0x712, "DRAIN_DCT"},
	{0x713, "QUERY_DCT"},
	{0x714, "ARM_DCT_FOR_KEY_VIOLATION"},
	{0x717, "CREATE_XRQ"},
	{0x718, "DESTROY_XRQ"},
	{0x719, "QUERY_XRQ"},
	{0x71a, "ARM_XRQ"},
	{0x725, "QUERY_XRQ_DC_PARAMS_ENTRY"},
	{0x726, "SET_XRQ_DC_PARAMS_ENTRY"},
	{0x727, "QUERY_XRQ_ERROR_PARAMS"},
	{0x729, "RELEASE_XRQ_ERROR"},
	{0x72a, "MODIFY_XRQ"},
	{0x740, "QUERY_ESW_FUNCTIONS"},
	{0x750, "QUERY_VPORT_STATE"},
	{0x751, "MODIFY_VPORT_STATE"},
	{0x752, "QUERY_ESW_VPORT_CONTEXT"},
	{0x753, "MODIFY_ESW_VPORT_CONTEXT"},
	{0x754, "QUERY_NIC_VPORT_CONTEXT"},
	{0x755, "MODIFY_NIC_VPORT_CONTEXT"},
	{0x760, "QUERY_ROCE_ADDRESS"},
	{0x761, "SET_ROCE_ADDRESS"},
	{0x762, "QUERY_HCA_VPORT_CONTEXT"},
	{0x763, "MODIFY_HCA_VPORT_CONTEXT"},
	{0x764, "QUERY_HCA_VPORT_GID"},
	{0x765, "QUERY_HCA_VPORT_PKEY"},
	{0x76f, "QUERY_VNIC_ENV"},
	{0x770, "QUERY_VPORT_COUNTER"},
	{0x771, "ALLOC_Q_COUNTER"},
	{0x772, "DEALLOC_Q_COUNTER"},
	{0x773, "QUERY_Q_COUNTER"},
	{0x774, "SET_MONITOR_COUNTER"},
	{0x775, "ARM_MONITOR_COUNTER"},
	{0x780, "SET_PP_RATE_LIMIT"},
	{0x781, "QUERY_RATE_LIMIT"},
	{0x782, "CREATE_SCHEDULING_ELEMENT"},
	{0x783, "DESTROY_SCHEDULING_ELEMENT"},
	{0x784, "QUERY_SCHEDULING_ELEMENT"},
	{0x785, "MODIFY_SCHEDULING_ELEMENT"},
	{0x786, "CREATE_QOS_PARA_VPORT"},
	{0x787, "DESTROY_QOS_PARA_VPORT"},
	{0x800, "ALLOC_PD"},
	{0x801, "DEALLOC_PD"},
	{0x802, "ALLOC_UAR"},
	{0x803, "DEALLOC_UAR"},
	{0x804, "CONFIG_INT_MODERATION"},
	{0x805, "ACCESS_REG"},
	{0x806, "ATTACH_TO_MCG"},
	{0x807, "DETACH_FROM_MCG"},
	{0x80a, "GET_DROPPED_PACKET_LOG"},
	{0x80b, "QUERY_MAD_DEMUX"},
	{0x80c, "SET_MAD_DEMUX"},
	{0x80d, "NOP"},
	{0x80e, "ALLOC_XRCD"},
	{0x80f, "DEALLOC_XRCD"},
	{0x816, "ALLOC_TRANSPORT_DOMAIN"},
	{0x817, "DEALLOC_TRANSPORT_DOMAIN"},
	{0x822, "QUERY_CONG_STATUS"},
	{0x823, "MODIFY_CONG_STATUS"},
	{0x824, "QUERY_CONG_PARAMS"},
	{0x825, "MODIFY_CONG_PARAMS"},
	{0x826, "QUERY_CONG_STATISTICS"},
	{0x827, "ADD_VXLAN_UDP_DPORT"},
	{0x828, "DELETE_VXLAN_UDP_DPORT"},
	{0x829, "SET_L2_TABLE_ENTRY"},
	{0x82a, "QUERY_L2_TABLE_ENTRY"},
	{0x82b, "DELETE_L2_TABLE_ENTRY"},
	{0x830, "SET_WOL_ROL"},
	{0x831, "QUERY_WOL_ROL"},
	{0x840, "CREATE_LAG"},
	{0x841, "MODIFY_LAG"},
	{0x842, "QUERY_LAG"},
	{0x843, "DESTROY_LAG"},
	{0x844, "CREATE_VPORT_LAG"},
	{0x845, "DESTROY_VPORT_LAG"},
	{0x900, "CREATE_TIR"},
	{0x901, "MODIFY_TIR"},
	{0x902, "DESTROY_TIR"},
	{0x903, "QUERY_TIR"},
	{0x904, "CREATE_SQ"},
	{0x905, "MODIFY_SQ"},
	{0x906, "DESTROY_SQ"},
	{0x907, "QUERY_SQ"},
	{0x908, "CREATE_RQ"},
	{0x909, "MODIFY_RQ"},
	{0x90a, "DESTROY_RQ"},
	{0x90b, "QUERY_RQ"},
	{0x90c, "CREATE_RMP"},
	{0x90d, "MODIFY_RMP"},
	{0x90e, "DESTROY_RMP"},
	{0x90f, "QUERY_RMP"},
	{0x910, "SET_DELAY_DROP_PARAMS"},
	{0x912, "CREATE_TIS"},
	{0x913, "MODIFY_TIS"},
	{0x914, "DESTROY_TIS"},
	{0x915, "QUERY_TIS"},
	{0x916, "CREATE_RQT"},
	{0x917, "MODIFY_RQT"},
	{0x918, "DESTROY_RQT"},
	{0x919, "QUERY_RQT"},
	{0x930, "CREATE_FLOW_TABLE"},
	{0x931, "DESTROY_FLOW_TABLE"},
	{0x932, "QUERY_FLOW_TABLE"},
	{0x933, "CREATE_FLOW_GROUP"},
	{0x934, "DESTROY_FLOW_GROUP"},
	{0x935, "QUERY_FLOW_GROUP"},
	{0x936, "SET_FLOW_TABLE_ENTRY"},
	{0x937, "QUERY_FLOW_TABLE_ENTRY"},
	{0x938, "DELETE_FLOW_TABLE_ENTRY"},
	{0x939, "ALLOC_FLOW_COUNTER"},
	{0x93a, "DEALLOC_FLOW_COUNTER"},
	{0x93b, "QUERY_FLOW_COUNTER"},
	{0x93c, "MODIFY_FLOW_TABLE"},
	{0x93d, "ALLOC_PACKET_REFORMAT_CONTEXT"},
	{0x93e, "DEALLOC_PACKET_REFORMAT_CONTEXT"},
	{0x93f, "QUERY_PACKET_REFORMAT_CONTEXT"},
	{0x940, "ALLOC_MODIFY_HEADER_CONTEXT"},
	{0x941, "DEALLOC_MODIFY_HEADER_CONTEXT"},
	{0x942, "QUERY_MODIFY_HEADER_CONTEXT"},
	{0x960, "FPGA_CREATE_QP"},
	{0x961, "FPGA_MODIFY_QP"},
	{0x962, "FPGA_QUERY_QP"},
	{0x963, "FPGA_DESTROY_QP"},
	{0x964, "FPGA_QUERY_QP_COUNTERS"},
	{0xa00, "CREATE_GENERAL_OBJECT"},
	{0xa01, "MODIFY_GENERAL_OBJECT"},
	{0xa02, "QUERY_GENERAL_OBJECT"},
	{0xa03, "DESTROY_GENERAL_OBJECT"},
	{0xa04, "CREATE_UCTX"},
	{0xa06, "DESTROY_UCTX"},
	{0xa08, "CREATE_UMEM"},
	{0xa0a, "DESTROY_UMEM"},
	{0xb00, "SYNC_STEERING"},
	{0xb0d, "QUERY_VHCA_STATE"},
	{0xb0e, "MODIFY_VHCA_STATE"},
	{0xb10, "PSP_GEN_SPI"},
	{0xb11, "PSP_ROTATE_KEY"},
	{0xb12, "SYNC_CRYPTO"},
	{0xb16, "ALLOW_OTHER_VHCA_ACCESS"},
	{0xb17, "GENERATE_WQE"},
};

} // namespace

const char *opcode_name(uint16_t opcode)
{
	for (const OpName &n : kNames)
		if (n.opcode == opcode)
			return n.name;
	return "UNKNOWN";
}

bool parse_opcode(const std::string &text, uint16_t *opcode)
{
	if (text.empty())
		return false;
	if (std::isdigit(static_cast<unsigned char>(text[0]))) {
		char *end = nullptr;
		unsigned long v = std::strtoul(text.c_str(), &end, 0);
		if (*end != '\0' || v > 0xffff)
			return false;
		*opcode = static_cast<uint16_t>(v);
		return true;
	}
	std::string up = text;
	std::transform(up.begin(), up.end(), up.begin(),
		       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
	for (const OpName &n : kNames) {
		if (up == n.name) {
			*opcode = n.opcode;
			return true;
		}
	}
	return false;
}

} // namespace mlx5emu
