// SPDX-License-Identifier: GPL-2.0
// Memory keys: the MKey table, access checks (PD, rights, bounds, the QP a
// type 2 window is bound to) and the translation of virtual ranges to
// guest addresses (PA mode, MTT lists, KLM lists naming other keys) or to
// on-device memory (MEMIC mode: zero-based, from the key's start address
// in the MEMIC window, queues/device_memory.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace mlx5emu {

class DeviceMemory;
class GuestMemory;

// Access rights a data transfer needs from a key.
enum Access : unsigned {
	ACC_LOCAL_READ = 1u << 0,
	ACC_LOCAL_WRITE = 1u << 1,
	ACC_REMOTE_READ = 1u << 2,
	ACC_REMOTE_WRITE = 1u << 3,
	ACC_ATOMIC = 1u << 4,
};

// One KLM entry: `bcount` bytes of the key's range continue at `va` of
// key `key` (an indirect key: memory windows, KLM memory regions).
struct Klm {
	uint32_t bcount = 0;
	uint32_t key = 0;
	uint64_t va = 0;
};

struct Mkey {
	static constexpr uint32_t kNoQp = 0xffffff;
	// An MTT entry the driver wrote without its present bits.
	static constexpr uint64_t kNotPresent = ~0ull;

	uint32_t index = 0;  // 24 bits, assigned by the device
	uint8_t variant = 0; // mkey_7_0, chosen by software
	uint32_t pd = 0;
	uint8_t mode = 0; // prm::mkc::MODE_*
	unsigned access = 0; // Access bits
	bool free = false;   // not usable until software (UMR) enables it
	bool umr_en = false;
	bool length64 = false; // covers the whole address space
	bool en_rinval = false; // may be invalidated by a remote SEND_INV
	uint32_t qpn = kNoQp; // a type 2 window: the QP it is bound to
	uint16_t uid = 0;     // the user context that created it (0: the kernel)
	uint64_t start = 0, len = 0;
	uint32_t log_page = 12;
	uint32_t translations_octwords = 0; // room for translation entries (16-byte units)
	std::vector<uint64_t> mtt; // page addresses (MTT mode)
	std::vector<Klm> klm;      // KLM mode

	// log_max_klm_list_size of the capability profile: entries of one
	// fast registration list (fw/caps.h reports it, UMR checks it).
	static constexpr unsigned kLogMaxFastRegList = 15;

	// Translation entries the key has room for (UMR writes 64-byte units).
	uint64_t xlt_capacity() const;
	// Whether entries [first, first + count) lie within a list of
	// 2^log_max entries (log_max_klm_list_size).
	static bool xlt_list_fits(uint64_t first, uint64_t count, unsigned log_max)
	{
		uint64_t max = 1ull << log_max;
		return first <= max && count <= max - first;
	}
	size_t xlt_entries() const { return mtt.size() + klm.size(); }

	uint32_t key() const { return index << 8 | variant; }
	// False for a type 2 window bound to a QP other than `q`.
	bool serves(uint32_t q) const;
};

enum class KeyStatus { Ok, NoKey, BadPd, NoAccess, Bounds, Translation };

class MkeyTable {
public:
	static constexpr uint32_t kFirstIndex = 0x10; // 0x100 is the terminator/reserved lkey
	// The reserved lkey (QUERY_SPECIAL_CONTEXTS resd_lkey): guest physical
	// addresses with every local right, in any PD, for the local data of
	// a queue whose context has rlky (the kernel's); any other use is no
	// key at all.
	static constexpr uint32_t kReservedLkey = 0x100;
	// The function's translation budget: entries (MTT + KLM) all its keys
	// together may hold, whoever made them (CREATE_MKEY and UMR both
	// count): 256 MiB of host memory, the tables of 128 GiB in 4 KiB
	// pages. One key may not even ask for room beyond it (CREATE_MKEY).
	static constexpr uint64_t kMaxXltEntries = 1ull << 25;
	// Keys: indexes below 2^log_max_mkey (fw/caps.cc advertises 16).
	static constexpr uint32_t kLogMaxKeys = 16;

	explicit MkeyTable(uint32_t limit = 1u << kLogMaxKeys);

	// Assigns the index. False when the table is full.
	bool create(Mkey m, uint32_t *index);
	bool destroy(uint32_t index);
	// Keeps the entry count in step after a key's translation changed
	// from `before` entries; false (and nothing counted) past the budget.
	bool xlt_resized(size_t before, size_t after);
	uint64_t xlt_entries() const { return xlt_entries_; }
	// Whether `n` more entries fit in the budget.
	bool xlt_fits(uint64_t n) const { return n <= kMaxXltEntries - xlt_entries_; }
	// Keys naming protection domain `pd`.
	unsigned pd_users(uint32_t pd) const;
	const Mkey *find_index(uint32_t index) const;
	Mkey *find_index(uint32_t index);
	void clear() { keys_.clear(); }
	size_t size() const { return keys_.size(); }
	void set_limit(uint32_t limit) { limit_ = limit; }
	// The on-device memory MEMIC keys address (none: no MEMIC keys).
	void set_device_memory(DeviceMemory *dm) { dm_ = dm; }
	DeviceMemory *device_memory() const { return dm_; }

	// Checks `key` for [va, va+len) with the rights in `need` inside
	// protection domain `pd`, used by QP `qpn` (a type 2 window answers
	// only the QP it is bound to); *out gets the key on success. Indirect
	// (KLM) keys are checked through to the keys they name. The reserved
	// lkey passes only local accesses of a queue with `rlky`.
	KeyStatus check(uint32_t key, uint32_t pd, uint64_t va, uint64_t len, unsigned need, const Mkey **out,
			uint32_t qpn = Mkey::kNoQp, bool rlky = false) const;

	// Copy between a checked key range and host memory.
	bool read(GuestMemory &mem, const Mkey &m, uint64_t va, void *dst, size_t len) const;
	bool write(GuestMemory &mem, const Mkey &m, uint64_t va, const void *src, size_t len) const;
	// The guest addresses of [va, va + len) of a checked key, physically
	// contiguous piece by piece in order: fn(ctx, guest_addr, n). False
	// for a MEMIC key (no guest address), a piece that does not
	// translate, or fn returning false.
	// Whether every MTT entry [va, va + len) of a checked key uses is
	// present (an ODP access to a missing one faults: exec/odp.cc).
	bool present(const Mkey &m, uint64_t va, size_t len) const;
	using ExtentFn = bool (*)(void *ctx, uint64_t ga, size_t n);
	bool extents(const Mkey &m, uint64_t va, size_t len, ExtentFn fn, void *ctx) const;

private:
	// Calls fn(guest_addr, offset_in_request, n) for every physically
	// contiguous piece of [va, va+len) of a checked key.
	template <class Fn> bool pieces(const Mkey &m, uint64_t va, size_t len, Fn fn) const;

	std::map<uint32_t, Mkey> keys_;
	uint32_t limit_;
	uint64_t xlt_entries_ = 0;
	Mkey reserved_;
	DeviceMemory *dm_ = nullptr;
};

} // namespace mlx5emu
