// SPDX-License-Identifier: GPL-2.0
// Which UAR page may ring which CQ and send queue, read on the BAR path.
//
// A ConnectX honours a CQ doorbell only through the UAR page named in the
// CQ's context and a send doorbell (or BlueFlame write) only through the
// UAR page in the QP's context; anything else is dropped. The table also
// coalesces doorbells: at most one engine task per object is queued, and
// it runs with the latest doorbell written, so a guest that rings faster
// than the engine executes cannot grow the engine's queue.
//
// Threads: commands (state lock held) add and remove objects; the BAR path
// rings; the engine takes the pending doorbell. One short lock of its own,
// taken under the state lock or alone, never the other way round.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace mlx5emu {

class DoorbellOwners {
public:
	enum class Kind : uint8_t { Cq, Sq };
	enum class Ring : uint8_t {
		Dropped, // no such object, or not its UAR page
		Queued,  // the caller posts one engine task for it
		Merged,  // a task is already queued; it will see this doorbell
	};

	void add(Kind k, uint32_t num, uint32_t uar);
	void remove(Kind k, uint32_t num);
	void clear();

	// BAR path: a doorbell (two host-order dwords) written at UAR page
	// `uar` for object `num`.
	Ring ring(Kind k, uint32_t num, uint32_t uar, uint32_t dw0, uint32_t dw1);
	// Engine: the latest doorbell of `num`, and the next ring queues a new
	// task. False if the object went away meanwhile.
	bool take(Kind k, uint32_t num, uint32_t *dw0, uint32_t *dw1);

	// Objects known (tests).
	size_t size(Kind k) const;

private:
	struct Slot {
		uint32_t uar = 0;
		bool queued = false;
		uint32_t dw0 = 0, dw1 = 0;
	};
	std::unordered_map<uint32_t, Slot> &map(Kind k) { return k == Kind::Cq ? cqs_ : sqs_; }

	mutable std::mutex mu_;
	std::unordered_map<uint32_t, Slot> cqs_, sqs_;
};

} // namespace mlx5emu
