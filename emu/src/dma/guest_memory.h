// SPDX-License-Identifier: GPL-2.0
// Guest memory as the device sees it: DMA reads and writes by IOVA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mlx5emu {

// Abstract DMA window into guest RAM. The vfio-user transport provides the
// real one (memfd regions from DMA_MAP); unit tests provide a fake.
class GuestMemory {
public:
	virtual ~GuestMemory() = default;
	// Copy len bytes from guest address iova into dst. Returns false (and
	// copies nothing) when any byte of the range is not mapped.
	virtual bool read(uint64_t iova, void *dst, size_t len) = 0;
	// Copy len bytes from src to guest address iova. Returns false (and
	// writes nothing) when any byte of the range is not mapped writable.
	virtual bool write(uint64_t iova, const void *src, size_t len) = 0;

	enum class Copy { Ok, BadSource, BadDest };
	// Copy len bytes from guest address src_iova as `src` sees guest RAM
	// (another device's view, or this one) to iova here: what one device
	// moving a payload from its host memory into another's does. Views
	// that can name their host memory copy once, source to destination;
	// this default goes through a bounce buffer. BadSource / BadDest: a
	// byte of that side is not mapped (bytes before it may be written).
	virtual Copy copy_from(uint64_t iova, GuestMemory &src, uint64_t src_iova, size_t len);
	// The view a copy reads through when this is its source: itself, or
	// the memory a wrapper forwards to; null when it cannot be read now.
	virtual GuestMemory *source() { return this; }

	// Keeps this memory's mappings in place for the calling thread until
	// the matching release(): its reads, writes and copies in between
	// take no lock of their own (a burst of DMA pays one lock instead of
	// one per access). Nests. Unmapping waits for the release, so a
	// holder must not map or unmap itself, and holds only briefly.
	// Default: nothing to hold.
	virtual void hold() {}
	virtual void release() {}

protected:
	// The calling thread's holds, for hold()/release() of views with a
	// lock: First (take the lock), Again (held already: nested), None
	// (no room to note it: take nothing, access as without a hold).
	enum class Hold { First, Again, Last, None };
	Hold note_hold() const;
	// Last (drop the lock), Again (still held: nested), None (not noted).
	Hold note_release() const;
	// True when the calling thread holds this memory.
	bool held_here() const;
};

// Holds a few memories (GuestMemory::hold) for one scope, each once,
// e.g. the receiver's and the senders' memories over a burst of packet
// deliveries. Memories past kMax are not held (their accesses lock as
// usual).
class DmaHolds {
public:
	static constexpr unsigned kMax = 4;
	DmaHolds() = default;
	~DmaHolds()
	{
		while (n_)
			held_[--n_]->release();
	}
	DmaHolds(const DmaHolds &) = delete;
	DmaHolds &operator=(const DmaHolds &) = delete;
	void add(GuestMemory *m)
	{
		if (!m || n_ == kMax)
			return;
		for (unsigned i = 0; i < n_; ++i)
			if (held_[i] == m)
				return;
		m->hold();
		held_[n_++] = m;
	}

private:
	GuestMemory *held_[kMax];
	unsigned n_ = 0;
};

} // namespace mlx5emu
