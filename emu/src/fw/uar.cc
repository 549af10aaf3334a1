// SPDX-License-Identifier: GPL-2.0
// UAR pages: the doorbells software writes into BAR0 above the init
// segment. EQ doorbells (+0x40 arm, +0x48 CI) go to the EQ table; CQ arm
// doorbells (+0x20) and send doorbells / BlueFlame writes (+0x800..) go to
// the data path. Every doorbell counts only through the UAR page named in
// its object's context (EQC, CQC, QPC uar_page), as on a ConnectX:
// another process's page, or the kernel's, cannot reach objects it does
// not own. Dropped doorbells are counted per function (`stats`,
// Firmware::doorbells_dropped()).
//
// Runs on the BAR path: never waits for a command or the engine.
#include <endian.h>

#include "exec/datapath.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/wqe.h"

namespace mlx5emu {

void Firmware::uar_write(uint32_t index, uint32_t off, unsigned size, uint64_t value)
{
	namespace up = prm::uar_page;
	if ((off == up::kEqArm || off == up::kEqUpdateCi) && size == 4) {
		eqs.doorbell(index, be32toh(static_cast<uint32_t>(value)), off == up::kEqArm);
		return;
	}
	if (off == up::kCqDoorbell || off == up::kCqDoorbell + 4) {
		// dword0 = sn/cmd/ci, dword1 = cqn.
		++bar.cq_doorbells;
		bar.last_cq_doorbell = value;
		doorbell_piece(index, off - up::kCqDoorbell, size, value, true);
		return;
	}
	if (off >= up::kBlueFlame) {
		// Send doorbells and BlueFlame: the first 8 bytes of each half of
		// a register are the control segment's first 8 bytes; the rest of
		// a BlueFlame copy repeats the WQE that is also in memory.
		++bar.bf_writes;
		uint32_t rel = (off - up::kBlueFlame) % prm::bf::kHalf;
		if (rel == 0 || rel == 4)
			doorbell_piece(index, rel, size, value, false);
		return;
	}
	++bar.other_uar_writes;
}

void Firmware::doorbell_piece(uint32_t index, uint32_t rel, unsigned size, uint64_t value, bool cq)
{
	// `value` holds the bytes in address order (little-endian host).
	uint32_t dw0, dw1;
	if (rel == 0 && size == 8) {
		dw0 = be32toh(static_cast<uint32_t>(value));
		dw1 = be32toh(static_cast<uint32_t>(value >> 32));
	} else if (size == 4) {
		// Bounded: one first half per UAR page and kind.
		uint64_t key = static_cast<uint64_t>(index) << 1 | cq;
		std::lock_guard<std::mutex> lk(split_mu_);
		if (rel == 0) {
			split_dw0_[key] = be32toh(static_cast<uint32_t>(value));
			return;
		}
		auto it = split_dw0_.find(key);
		if (it == split_dw0_.end())
			return;
		dw0 = it->second;
		dw1 = be32toh(static_cast<uint32_t>(value));
		split_dw0_.erase(it);
	} else {
		++bar.other_uar_writes;
		return;
	}
	if (cq)
		dp_->cq_doorbell(index, dw0, dw1);
	else
		dp_->sq_doorbell(index, dw0, dw1);
}

unsigned Firmware::poll_doorbells()
{
	if (!dbpages)
		return 0;
	namespace up = prm::uar_page;
	// Send and CQ doorbells may have overwritten others of their page:
	// the records tell (DataPath::sweep_uar). The sweep runs on the
	// engine, maybe at once, while this scan goes on: it is asked for
	// once the scan has taken the page's last doorbell, so that it reads
	// every record written before any doorbell taken. (Asked for at the
	// page's first doorbell, a sweep that had already run would miss the
	// record of a doorbell overwritten by one taken later in the scan.)
	// take() goes through a page's registers before the next page's.
	uint32_t to_sweep = ~0u;
	unsigned n = dbpages->take([&](uint32_t page, uint32_t off, unsigned size, uint64_t value) {
		uar_write(page, off, size, value);
		if (off != up::kEqArm && off != up::kEqUpdateCi && page != to_sweep) {
			if (to_sweep != ~0u)
				dp_->sweep_uar(to_sweep);
			to_sweep = page;
		}
		if (after_polled_doorbell)
			after_polled_doorbell(page, off);
	});
	if (to_sweep != ~0u)
		dp_->sweep_uar(to_sweep);
	if (n)
		bar.polled_doorbells += n;
	return n;
}

Firmware::DroppedDoorbells Firmware::doorbells_dropped() const
{
	EqTable::Counters eq = eqs.counters();
	const DataPath::Counters &dc = dp_->counters();
	DroppedDoorbells d;
	d.eq = eq.bad_doorbells + eq.uar_mismatch;
	d.cq = dc.cq_doorbells_dropped.load();
	d.sq = dc.sq_doorbells_dropped.load();
	return d;
}

} // namespace mlx5emu
