// SPDX-License-Identifier: GPL-2.0
#include "fw/eq.h"

#include <algorithm>
#include <atomic>

#include "dma/guest_memory.h"
#include "prm/prm.h"
#include "irq/interrupt_sink.h"

namespace mlx5emu {

namespace {
constexpr uint32_t kCiMask = 0xffffff; // doorbell CI and counters are 24 bits
}

size_t EqContext::pages_needed() const
{
	uint64_t page = 4096ull << log_page_size;
	uint64_t bytes = static_cast<uint64_t>(page_offset) * 64 + static_cast<uint64_t>(nent()) * prm::eqe::kSize;
	return static_cast<size_t>((bytes + page - 1) / page);
}

EqTable::EqTable(GuestMemory &mem, InterruptSink &irq) : mem_(mem), irq_(irq) {}

uint64_t EqTable::entry_addr(const EqContext &c, uint32_t index)
{
	uint64_t page = 4096ull << c.log_page_size;
	uint64_t off = static_cast<uint64_t>(c.page_offset) * 64 + static_cast<uint64_t>(index) * prm::eqe::kSize;
	return c.pas[off / page] + off % page;
}

uint8_t EqTable::create(const EqContext &ctx, uint8_t *eqn, uint32_t *reason)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (eqs_.size() >= max_eqs_) {
		*reason = 1;
		return prm::status::NO_RESOURCES;
	}
	unsigned n = 0;
	while (eqs_.count(static_cast<uint8_t>(n)))
		++n;
	if (n >= max_eqs_ || n > 0xff) {
		*reason = 2;
		return prm::status::NO_RESOURCES;
	}
	Eq eq;
	eq.ctx = ctx;
	eq.serial = next_serial_++;
	eq.armed = ctx.st == prm::eqc::ST_ARMED || ctx.st == prm::eqc::ST_ALWAYS_ARMED;
	*eqn = static_cast<uint8_t>(n);
	eqs_.emplace(*eqn, std::move(eq));
	update_wanted();
	return prm::status::OK;
}

bool EqTable::destroy(uint8_t eqn)
{
	std::lock_guard<std::mutex> lk(mu_);
	bool found = eqs_.erase(eqn) != 0;
	update_wanted();
	return found;
}

void EqTable::update_wanted()
{
	std::array<uint64_t, 4> w{};
	for (const auto &[n, eq] : eqs_)
		for (size_t i = 0; i < w.size(); ++i)
			w[i] |= eq.ctx.event_mask[i];
	for (size_t i = 0; i < w.size(); ++i)
		wanted_[i].store(w[i], std::memory_order_release);
}

bool EqTable::wants(uint8_t type) const
{
	return (wanted_[type / 64].load(std::memory_order_acquire) >> (type % 64)) & 1;
}

EqSnapshot EqTable::snap(uint8_t eqn, const Eq &eq) const
{
	EqSnapshot s;
	s.eqn = eqn;
	s.ctx = eq.ctx;
	s.producer = eq.producer;
	s.consumer = eq.consumer;
	s.armed = eq.armed;
	s.overrun = eq.overrun;
	s.eqes = eq.eqes;
	s.irqs = eq.irqs;
	s.dropped = eq.dropped;
	return s;
}

bool EqTable::query(uint8_t eqn, EqSnapshot *out) const
{
	std::lock_guard<std::mutex> lk(mu_);
	auto it = eqs_.find(eqn);
	if (it == eqs_.end())
		return false;
	*out = snap(eqn, it->second);
	return true;
}

std::vector<EqSnapshot> EqTable::list() const
{
	std::lock_guard<std::mutex> lk(mu_);
	std::vector<EqSnapshot> v;
	for (const auto &[n, eq] : eqs_)
		v.push_back(snap(n, eq));
	return v;
}

size_t EqTable::count() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return eqs_.size();
}

void EqTable::clear()
{
	std::lock_guard<std::mutex> plk(post_mu_);
	std::lock_guard<std::mutex> lk(mu_);
	eqs_.clear();
	update_wanted();
}

int EqTable::find_for_event(uint8_t type) const
{
	std::lock_guard<std::mutex> lk(mu_);
	for (const auto &[n, eq] : eqs_)
		if (eq.ctx.wants(type))
			return n;
	return -1;
}

uint64_t EqTable::serial(uint8_t eqn) const
{
	std::lock_guard<std::mutex> lk(mu_);
	auto it = eqs_.find(eqn);
	return it == eqs_.end() ? 0 : it->second.serial;
}

EqTable::Post EqTable::post(uint8_t eqn, const uint8_t *eqe64)
{
	std::lock_guard<std::mutex> plk(post_mu_);
	uint64_t addr;
	uint8_t owner;
	{
		std::lock_guard<std::mutex> lk(mu_);
		auto it = eqs_.find(eqn);
		if (it == eqs_.end())
			return Post::NoEq;
		Eq &eq = it->second;
		uint32_t nent = eq.ctx.nent();
		uint32_t outstanding = (eq.producer - eq.consumer) & kCiMask;
		if (eq.overrun || (!eq.ctx.oi && outstanding >= nent)) {
			if (!eq.overrun)
				++c_.overruns;
			eq.overrun = true;
			++eq.dropped;
			++c_.dropped_overrun;
			return Post::Overrun;
		}
		addr = entry_addr(eq.ctx, eq.producer & (nent - 1));
		// The buffer starts with owner = 1; pass k is written with k & 1.
		owner = static_cast<uint8_t>((eq.producer >> eq.ctx.log_size) & 1);
	}

	// Body first, then the owner byte, so software never sees a valid
	// owner with stale contents. The owner byte lands under mu_, with the
	// producer's advance and the arm decision: an arm doorbell (which
	// takes mu_) sees either neither (the EQE is not visible, the CI
	// cannot pass it) or both. Were the EQE visible first, a driver
	// quick to consume it and re-arm would meet the old producer: its
	// doorbell would fire for an entry it had read, disarm the EQ, and
	// this post, finding it disarmed, would leave it so with nothing
	// pending: the next EQE would raise no interrupt.
	uint8_t buf[prm::eqe::kSize];
	std::copy(eqe64, eqe64 + prm::eqe::kSize, buf);
	buf[prm::eqe::kOwner] = static_cast<uint8_t>((buf[prm::eqe::kOwner] & ~1u) | owner);
	bool ok = mem_.write(addr, buf, prm::eqe::kOwner);
	std::atomic_thread_fence(std::memory_order_release);

	int vector = -1;
	{
		std::lock_guard<std::mutex> lk(mu_);
		auto it = eqs_.find(eqn);
		if (it == eqs_.end())
			return Post::NoEq;
		Eq &eq = it->second;
		if (!ok || !mem_.write(addr + prm::eqe::kOwner, &buf[prm::eqe::kOwner], 1)) {
			++c_.dma_errors;
			return Post::DmaError;
		}
		++eq.producer;
		++eq.eqes;
		++c_.eqes;
		if (eq.armed) {
			if (eq.ctx.st != prm::eqc::ST_ALWAYS_ARMED)
				eq.armed = false;
			vector = eq.ctx.intr;
			++eq.irqs;
			++c_.irqs;
		}
	}
	if (vector >= 0)
		irq_.raise(static_cast<uint32_t>(vector));
	return Post::Written;
}

void EqTable::doorbell(uint32_t uar_index, uint32_t value, bool arm)
{
	uint8_t eqn = static_cast<uint8_t>(value >> 24);
	uint32_t ci = value & kCiMask;
	int vector = -1;
	{
		std::lock_guard<std::mutex> lk(mu_);
		auto it = eqs_.find(eqn);
		if (it == eqs_.end()) {
			++c_.bad_doorbells;
			return;
		}
		Eq &eq = it->second;
		// Only the UAR page in the EQ's context moves its consumer index
		// or arms it: anyone else's write would fake the CI, overrun the
		// EQ and silence its events.
		if (eq.ctx.uar_page != uar_index) {
			++c_.uar_mismatch;
			return;
		}
		if (arm)
			++c_.arm_doorbells;
		else
			++c_.ci_doorbells;
		eq.consumer = ci;
		if (arm) {
			if (((eq.producer - ci) & kCiMask) != 0) {
				// Entries beyond the CI already exist: fire now.
				if (eq.ctx.st != prm::eqc::ST_ALWAYS_ARMED)
					eq.armed = false;
				vector = eq.ctx.intr;
				++eq.irqs;
				++c_.irqs;
			} else {
				eq.armed = true;
			}
		}
	}
	if (vector >= 0)
		irq_.raise(static_cast<uint32_t>(vector));
}

EqTable::Counters EqTable::counters() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return c_;
}

} // namespace mlx5emu
