// SPDX-License-Identifier: GPL-2.0
// The generic match engine of flow steering. A frame's headers are written
// into an fte_match_param image (the same 512-byte layout as a flow group's
// match criteria and a flow entry's match value); an entry matches when
// (image & criteria) == (value & criteria) in every enabled section.
// Criteria bits outside the fields the image fills are refused when the
// group is created, so a rule never silently matches on a field the
// emulator does not parse.
#pragma once

#include <array>
#include <cstdint>

#include "steer/headers.h"

namespace mlx5emu::steer {

using MatchParam = std::array<uint8_t, 512>;

// The match image of a received frame.
MatchParam match_image(const Headers &h);

// The match image of a frame entering the e-switch from vport
// `source_port` (prm::dest::kUplinkVport: the uplink): the headers and
// misc_parameters.source_port.
MatchParam esw_match_image(const Headers &h, uint16_t source_port);

// True when every criteria bit lies in a field the image fills, within the
// sections of `enable` (criteria of disabled sections are ignored); `esw`:
// an e-switch table's, whose image also has the source port.
bool criteria_supported(const MatchParam &criteria, uint8_t enable, bool esw = false);

bool matches(const MatchParam &image, const MatchParam &criteria, const MatchParam &value, uint8_t enable);

} // namespace mlx5emu::steer
