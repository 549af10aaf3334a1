// SPDX-License-Identifier: GPL-2.0
#include "irq/eventfd_irqs.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "util/log.h"

namespace mlx5emu {

EventfdInterrupts::EventfdInterrupts(uint32_t msix_vectors) : msix_(msix_vectors), err_(1) {}

std::vector<UniqueFd> *EventfdInterrupts::table(uint32_t index)
{
	switch (index) {
	case kIndexMsix: return &msix_;
	case kIndexErr: return &err_;
	default: return nullptr;
	}
}

const std::vector<UniqueFd> *EventfdInterrupts::table(uint32_t index) const
{
	return const_cast<EventfdInterrupts *>(this)->table(index);
}

uint32_t EventfdInterrupts::count(uint32_t index) const
{
	const auto *t = table(index);
	return t ? uint32_t(t->size()) : 0;
}

void EventfdInterrupts::assign(uint32_t index, uint32_t start, std::vector<UniqueFd> fds)
{
	std::unique_lock guard(lock_);
	auto *t = table(index);
	if (!t)
		return;
	for (size_t i = 0; i < fds.size() && start + i < t->size(); i++)
		(*t)[start + i] = std::move(fds[i]);
}

void EventfdInterrupts::release(uint32_t index, uint32_t start, uint32_t count)
{
	std::unique_lock guard(lock_);
	auto *t = table(index);
	if (!t)
		return;
	for (uint64_t v = start; v < uint64_t(start) + count && v < t->size(); v++)
		(*t)[v].reset();
}

void EventfdInterrupts::release_all()
{
	std::unique_lock guard(lock_);
	for (auto &fd : msix_)
		fd.reset();
	for (auto &fd : err_)
		fd.reset();
	drop_logged_ = false;
}

bool EventfdInterrupts::has_eventfd(uint32_t index, uint32_t vector) const
{
	std::shared_lock guard(lock_);
	const auto *t = table(index);
	return t && vector < t->size() && (*t)[vector].valid();
}

void EventfdInterrupts::signal(uint32_t index, uint32_t vector)
{
	std::shared_lock guard(lock_);
	const auto *t = table(index);
	if (!t || vector >= t->size() || !(*t)[vector].valid()) {
		dropped_.fetch_add(1, std::memory_order_relaxed);
		if (!drop_logged_.exchange(true))
			log_info("irq index %u vector %u has no eventfd: dropped (logged once)", index, vector);
		return;
	}
	const uint64_t one = 1;
	ssize_t n;
	do {
		n = ::write((*t)[vector].get(), &one, sizeof(one));
	} while (n < 0 && errno == EINTR);
	// EAGAIN: the counter is saturated, i.e. the interrupt is already pending.
	if (n == sizeof(one) || (n < 0 && errno == EAGAIN)) {
		raised_.fetch_add(1, std::memory_order_relaxed);
	} else {
		dropped_.fetch_add(1, std::memory_order_relaxed);
		if (!drop_logged_.exchange(true))
			log_info("irq index %u vector %u: eventfd write failed: %s (logged once)", index,
				 vector, std::strerror(errno));
	}
}

void EventfdInterrupts::raise(uint32_t vector) { signal(kIndexMsix, vector); }

void EventfdInterrupts::fire(uint32_t index, uint32_t vector) { signal(index, vector); }

} // namespace mlx5emu
