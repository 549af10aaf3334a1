// SPDX-License-Identifier: GPL-2.0
// Memory keys: the MKey table, access checks (PD, rights, bounds) and the
// translation of virtual ranges to guest addresses (PA mode, MTT lists).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace mlx5emu {

class GuestMemory;

// Access rights a data transfer needs from a key.
enum Access : unsigned {
	ACC_LOCAL_READ = 1u << 0,
	ACC_LOCAL_WRITE = 1u << 1,
	ACC_REMOTE_READ = 1u << 2,
	ACC_REMOTE_WRITE = 1u << 3,
	ACC_ATOMIC = 1u << 4,
};

struct Mkey {
	uint32_t index = 0;  // 24 bits, assigned by the device
	uint8_t variant = 0; // mkey_7_0, chosen by software
	uint32_t pd = 0;
	uint8_t mode = 0; // prm::mkc::MODE_*
	unsigned access = 0; // Access bits
	bool free = false;   // not usable until software (UMR) enables it
	bool umr_en = false;
	bool length64 = false; // covers the whole address space
	bool en_rinval = false; // may be invalidated by a remote SEND_INV
	uint32_t qpn = 0xffffff;
	uint64_t start = 0, len = 0;
	uint32_t log_page = 12;
	uint32_t translations_octwords = 0;
	std::vector<uint64_t> mtt; // page addresses (MTT mode)

	uint32_t key() const { return index << 8 | variant; }
};

enum class KeyStatus { Ok, NoKey, BadPd, NoAccess, Bounds, Translation };

class MkeyTable {
public:
	static constexpr uint32_t kFirstIndex = 0x10; // 0x100 is the terminator/reserved lkey
	// The reserved lkey (QUERY_SPECIAL_CONTEXTS resd_lkey): guest physical
	// addresses with every local right, in any PD.
	static constexpr uint32_t kReservedLkey = 0x100;

	explicit MkeyTable(uint32_t limit = 1u << 16);

	// Assigns the index. False when the table is full.
	bool create(Mkey m, uint32_t *index);
	bool destroy(uint32_t index);
	const Mkey *find_index(uint32_t index) const;
	Mkey *find_index(uint32_t index);
	void clear() { keys_.clear(); }
	size_t size() const { return keys_.size(); }
	void set_limit(uint32_t limit) { limit_ = limit; }

	// Checks `key` for [va, va+len) with the rights in `need` inside
	// protection domain `pd`; *out gets the key on success.
	KeyStatus check(uint32_t key, uint32_t pd, uint64_t va, uint64_t len, unsigned need, const Mkey **out) const;

	// Copy between a checked key range and host memory.
	static bool read(GuestMemory &mem, const Mkey &m, uint64_t va, void *dst, size_t len);
	static bool write(GuestMemory &mem, const Mkey &m, uint64_t va, const void *src, size_t len);

private:
	std::map<uint32_t, Mkey> keys_;
	uint32_t limit_;
	Mkey reserved_;
};

} // namespace mlx5emu
