// SPDX-License-Identifier: GPL-2.0
#include "queues/doorbell_owners.h"

namespace mlx5emu {

void DoorbellOwners::add(Kind k, uint32_t num, uint32_t uar)
{
	std::lock_guard<std::mutex> lk(mu_);
	map(k)[num] = Slot{uar, false, 0, 0};
}

void DoorbellOwners::remove(Kind k, uint32_t num)
{
	std::lock_guard<std::mutex> lk(mu_);
	map(k).erase(num);
}

void DoorbellOwners::clear()
{
	std::lock_guard<std::mutex> lk(mu_);
	cqs_.clear();
	sqs_.clear();
}

DoorbellOwners::Ring DoorbellOwners::ring(Kind k, uint32_t num, uint32_t uar, uint32_t dw0, uint32_t dw1)
{
	std::lock_guard<std::mutex> lk(mu_);
	auto &m = map(k);
	auto it = m.find(num);
	if (it == m.end() || it->second.uar != uar)
		return Ring::Dropped;
	Slot &s = it->second;
	s.dw0 = dw0;
	s.dw1 = dw1;
	if (s.queued)
		return Ring::Merged;
	s.queued = true;
	return Ring::Queued;
}

bool DoorbellOwners::take(Kind k, uint32_t num, uint32_t *dw0, uint32_t *dw1)
{
	std::lock_guard<std::mutex> lk(mu_);
	auto &m = map(k);
	auto it = m.find(num);
	if (it == m.end() || !it->second.queued)
		return false;
	it->second.queued = false;
	*dw0 = it->second.dw0;
	*dw1 = it->second.dw1;
	return true;
}

size_t DoorbellOwners::size(Kind k) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return (k == Kind::Cq ? cqs_ : sqs_).size();
}

} // namespace mlx5emu
