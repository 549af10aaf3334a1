// SPDX-License-Identifier: GPL-2.0
// One InfiniBand port as a subnet management agent sees it: the PortInfo
// fields a subnet manager reads and sets (LID, LMC, SM LID, M_Key, the
// DOWN/INIT/ARMED/ACTIVE states, MTU, VLs), its P_Key and GUID tables,
// SL-to-VL mapping and VL arbitration tables, with the Get/Set rules of
// IBA 14.2.5. Used by the HCA firmware's SMA (fw/mad.cc) and by every
// port of the switch (fabric/ib_switch.cc). Plain data: the owner locks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fabric/smp.h"

namespace mlx5emu {

struct SmaPort {
	// What the port is (the SM cannot change these).
	uint64_t port_guid = 0;
	uint32_t cap_mask = 0;
	uint8_t mtu_cap = 5;    // IB MTU enum: 5 = 4096
	uint8_t vl_cap = 1;     // 1: VL0 only
	bool link_up = true;    // physical link (a neighbour is connected)
	bool lid_fields = true; // LID/LMC/SM/M_Key fields apply (not on a switch's external port)

	// What the subnet manager sets.
	uint8_t state = mad::PORT_INIT;
	uint64_t mkey = 0;
	uint8_t mkey_protect = 0;
	uint16_t mkey_lease = 0;
	uint64_t gid_prefix = 0xfe80000000000000ull;
	uint16_t lid = 0;
	uint8_t lmc = 0;
	uint16_t sm_lid = 0;
	uint8_t sm_sl = 0;
	uint8_t neighbor_mtu = 5;
	uint8_t op_vls = 1;
	uint8_t link_width_enabled = 2;  // 4x
	uint8_t link_speed_enabled = 1;  // SDR (the extended field says EDR)
	uint8_t speed_ext_enabled = 3;   // FDR, EDR
	uint8_t subnet_timeout = 18;
	uint8_t hoq_life = 0;
	uint8_t vl_stall = 0;
	uint8_t vl_high_limit = 0;
	uint8_t enforcement = 0; // PartitionEnforcement / FilterRaw bits (byte 43 [3:0])
	uint16_t mkey_violations = 0;
	std::vector<uint16_t> pkeys;  // P_Key table (entries); [0] = 0xffff
	std::vector<uint64_t> guids;  // GUID table (entries); [0] = port_guid, read-only
	std::array<uint8_t, 8> sl2vl{};                 // 16 nibbles, SL0 in the high nibble of byte 0
	std::array<std::array<uint8_t, 64>, 4> vlarb{}; // blocks 1..4 of the VL arbitration table

	// Sizes the tables and GUID[0].
	void init(uint64_t guid, unsigned pkey_entries, unsigned guid_entries);
	bool active() const { return state == mad::PORT_ACTIVE; }
	// The LID range [lid, lid + 2^lmc) holds `dlid`.
	bool owns_lid(uint16_t dlid) const { return lid && (dlid >> lmc) == (lid >> lmc); }
};

// What a Set changed: the events the owner raises.
struct PortChanges {
	bool lid = false;     // LID or LMC
	bool sm = false;      // SM LID or SM SL
	bool state = false;   // PortState (old_state before)
	bool rereg = false;   // ClientReregister asked
	bool pkey = false;
	bool gid = false;     // GID prefix or a GUID
	uint8_t old_state = 0;
};

namespace sma {
constexpr unsigned kPkeysPerBlock = 32;
constexpr unsigned kGuidsPerBlock = 8;

// PortInfo (IBA 14.2.5.6) of `p`; LocalPortNum is `local_port`, the
// port the SMP came in by (an SM skips probing beyond that one).
void get_port_info(const SmaPort &p, uint8_t local_port, uint8_t *d);
// Applies a Set PortInfo; false (invalid attribute value) changes nothing.
bool set_port_info(SmaPort &p, const uint8_t *d, PortChanges *ch);
bool get_pkeys(const SmaPort &p, uint32_t block, uint8_t *d);
bool set_pkeys(SmaPort &p, uint32_t block, const uint8_t *d, PortChanges *ch);
bool get_guids(const SmaPort &p, uint32_t block, uint8_t *d);
bool set_guids(SmaPort &p, uint32_t block, const uint8_t *d, PortChanges *ch);
void get_sl2vl(const SmaPort &p, uint8_t *d);
bool set_sl2vl(SmaPort &p, const uint8_t *d);
bool get_vlarb(const SmaPort &p, uint32_t block, uint8_t *d);
bool set_vlarb(SmaPort &p, uint32_t block, const uint8_t *d);

// M_Key check (IBA 14.2.4) of the SMP `req` against `p`: true when it
// may be processed. A Get that passes only because the protection bits
// allow reads sets *hide_mkey (the answer carries M_Key 0).
bool mkey_allows(const SmaPort &p, const uint8_t *req, bool *hide_mkey);

// Starts the response to SMP `req` in `resp` (copied, GetResp, the data
// cleared for a Get); the caller fills the data and calls finish().
void begin_response(const uint8_t *req, uint8_t *resp);
void finish_response(uint8_t *resp, uint16_t status);
} // namespace sma

} // namespace mlx5emu
