// SPDX-License-Identifier: GPL-2.0
// HCA capabilities: the MAXIMUM and CURRENT capability blocks per type, the
// emulator's capability profile, and the SET_HCA_CAP rules.
#pragma once

#include <array>
#include <cstdint>
#include <map>

#include "prm/bits.h"
#include "queues/mkey.h"

namespace mlx5emu {

struct HcaConfig;

class Caps {
public:
	static constexpr unsigned kBlockSize = 4096;
	// log_max_klm_list_size: entries of one fast registration list.
	static constexpr unsigned kLogMaxFastRegList = Mkey::kLogMaxFastRegList;
	using Block = std::array<uint8_t, kBlockSize>;

	explicit Caps(const HcaConfig &cfg);

	bool supported(uint16_t type) const { return max_.count(type) != 0; }
	// nullptr when the type is not supported.
	const Block *max(uint16_t type) const;
	const Block *cur(uint16_t type) const;

	// SET_HCA_CAP: apply the writable fields of `in` to CURRENT. Fields that
	// the device does not let software change are ignored, as firmware
	// does. Returns 0 on success, else a command status; *reason gets a
	// small code for the syndrome.
	uint8_t set(uint16_t type, const uint8_t *in, uint32_t *reason);

	// Back to the power-on CURRENT values (DISABLE_HCA, reset).
	void reset_current();

	uint32_t gen(bits::Field f) const { return bits::get(cur_.at(0).data(), f); }
	uint32_t gen_max(bits::Field f) const { return bits::get(max_.at(0).data(), f); }

	// Profile facts the rest of the firmware needs.
	unsigned log_max_eq() const;
	unsigned log_max_eq_sz() const;
	unsigned gid_table_len() const;  // entries
	unsigned pkey_table_len() const; // entries (CURRENT)

private:
	void build(const HcaConfig &cfg);

	std::map<uint16_t, Block> max_;
	std::map<uint16_t, Block> cur_;
	std::map<uint16_t, Block> initial_cur_;
};

} // namespace mlx5emu
