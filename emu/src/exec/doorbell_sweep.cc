// SPDX-License-Identifier: GPL-2.0
// Doorbells lost in a polled UAR page (fw/doorbell_pages.h), found again in
// the doorbell records.
//
// A polled doorbell register keeps only the last store: when two queues of
// one page ring the same register (the kernel's Ethernet SQs share one
// BlueFlame register, a process's CQs share the page's CQ doorbell) before
// the poller looks, the first doorbell is gone. Drivers write the doorbell
// record before the doorbell, so once the poller has seen any doorbell of
// the page, the record of every doorbell that one overwrote is up to date;
// the poller asks for the sweep after the last doorbell it took from the
// page in a scan, so that the sweep reads the records after all of them
// (Firmware::poll_doorbells):
//   send queues: the record's send counter (dword 1, low 16 bits) is the
//     producer the doorbell carried; it moves the producer forward under
//     the rule a doorbell follows (forward, within one queue length);
//   CQs: the arm record (dword 1) holds the arm doorbell's dword 0; a
//     value other than the last arm applied is an arm. CREATE_CQ wrote
//     Cq::kUntouchedArmRecord there, so even the first arm (REQ_NOT at CI
//     0, the word 0) differs from an untouched record. An arm doorbell
//     still waiting for its task is older than the record: the sweep
//     applies the record in its place (a stale arm must not follow a
//     newer one; a send doorbell only ever moves the producer forward).
// Runs on the engine with the state lock held; objects of other pages are
// not looked at, so the ownership rule still holds.
#include <algorithm>

#include "dma/guest_memory.h"
#include "exec/datapath.h"
#include "prm/bits.h"

namespace mlx5emu {

namespace {

bool read_be32(GuestMemory &mem, uint64_t addr, uint32_t *v)
{
	uint8_t b[4];
	if (!addr || !mem.read(addr, b, sizeof b))
		return false;
	*v = bits::load_be32(b);
	return true;
}

} // namespace

void DataPath::sweep_uar(uint32_t uar)
{
	{
		std::lock_guard<std::mutex> lk(sweep_mu_);
		if (std::find(sweep_pages_.begin(), sweep_pages_.end(), uar) == sweep_pages_.end())
			sweep_pages_.push_back(uar);
		if (sweep_queued_)
			return;
		sweep_queued_ = true;
	}
	fabric_.engine().post([this] { guarded(0, [this] { run_sweeps(); }); });
}

void DataPath::run_sweeps()
{
	std::vector<uint32_t> &pages = sweep_batch_;
	pages.clear();
	{
		// The flag is cleared as the pages are taken, before any record
		// is read: a sweep_uar() after this queues another sweep.
		std::lock_guard<std::mutex> lk(sweep_mu_);
		pages.swap(sweep_pages_);
		sweep_queued_ = false;
	}
	std::sort(pages.begin(), pages.end());
	auto swept = [&](uint32_t uar) { return std::binary_search(pages.begin(), pages.end(), uar); };
	uint32_t v;
	for (auto &[n, qp] : res_.qps) {
		if (qp->cfg.no_sq || !swept(qp->cfg.uar_page) || !read_be32(mem_, qp->cfg.dbr_addr + 4, &v))
			continue;
		if (advance_sq(*qp, static_cast<uint16_t>(v))) {
			++c_.doorbells_recovered;
			run_sq(*qp);
		}
	}
	for (auto &[n, sq] : res_.sqs) {
		if (!swept(sq->wq.uar_page) || !read_be32(mem_, sq->wq.dbr_addr + 4, &v))
			continue;
		uint16_t end = static_cast<uint16_t>(v);
		uint16_t ahead = static_cast<uint16_t>(end - sq->ci);
		uint16_t cur = static_cast<uint16_t>(sq->pi - sq->ci);
		if (ahead <= sq->wq.entries() && ahead > cur) {
			sq->pi = end;
			++c_.doorbells_recovered;
			eth_path_.nic_run_sq(*sq);
		}
	}
	for (auto &[n, cq] : res_.cqs) {
		if (!swept(cq->config().uar_page))
			continue;
		// An arm doorbell of this CQ taken from the page whose task has
		// not run yet: the record, read after it, is as new or newer.
		// The sweep applies the record and the task finds nothing: run
		// after the sweep (this sweep was queued before the doorbell
		// came), it would undo a newer arm with an older one.
		uint32_t d0, d1;
		bool pending = owners_.take(DoorbellOwners::Kind::Cq, n, &d0, &d1);
		if (!read_be32(mem_, cq->config().dbr_addr + 4, &v) || v == Cq::kUntouchedArmRecord) {
			if (pending)
				arm_cq(*cq, d0);
			continue;
		}
		if (!pending && v == cq->last_arm_word())
			continue;
		if (!pending || v != d0)
			++c_.doorbells_recovered;
		arm_cq(*cq, v);
	}
}

} // namespace mlx5emu
