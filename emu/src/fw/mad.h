// SPDX-License-Identifier: GPL-2.0
// The firmware's management agents behind MAD_IFC: the SMA answers the
// SMPs the driver's QP0 agent hands it (Get/Set NodeInfo,
// NodeDescription, PortInfo, P_KeyTable, GUIDInfo, SLtoVLMappingTable,
// VLArbitrationTable, with the M_Key check), and the PMA the PerfMgt GMPs
// (ClassPortInfo, PortCounters, PortCountersExtended from the data path's
// port counters). Port changes raise the PRM's port-change events.
#pragma once

#include <cstdint>

#include "fabric/smp.h"

namespace mlx5emu {

class Firmware;
struct CmdCtx;

// Builds the response MAD for `req` into `resp` (both mad::kSize bytes).
// False: no response (an SMP the M_Key refuses). `check_mkey` false when
// the driver asks to skip the M_Key check (MAD_IFC op_mod bit 0).
bool mad_process(Firmware &fw, uint8_t port, const uint8_t *req, uint8_t *resp, bool check_mkey = true);

// The MAD_IFC command handler.
void mad_ifc(CmdCtx &c);

// The node description the firmware starts with (64 bytes, NUL-padded),
// until software writes the NODE_DESC register (Firmware::node_desc).
void default_node_description(const Firmware &fw, uint8_t *d64);

} // namespace mlx5emu
