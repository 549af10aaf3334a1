// SPDX-License-Identifier: GPL-2.0
#include "fw/stats.h"

#include <cstdio>

#include "prm/opcode_names.h"

namespace mlx5emu {

void CommandTrace::add(TraceEntry e)
{
	std::lock_guard<std::mutex> lk(mu_);
	e.seq = next_seq_++;
	if (e.rung > epoch_)
		e.at_usec = static_cast<uint64_t>(
			std::chrono::duration_cast<std::chrono::microseconds>(e.rung - epoch_).count());
	ring_.push_back(e);
	if (ring_.size() > kCapacity)
		ring_.pop_front();
}

std::vector<TraceEntry> CommandTrace::snapshot() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return {ring_.begin(), ring_.end()};
}

void CommandTrace::clear()
{
	std::lock_guard<std::mutex> lk(mu_);
	ring_.clear();
	epoch_ = std::chrono::steady_clock::now();
}

std::string CommandTrace::format(const TraceEntry &e)
{
	static constexpr const char *kEqeNames[] = {"none", "posted", "dropped", "delayed"};
	char b[256];
	std::snprintf(b, sizeof b,
		      "%llu slot=%u %s(0x%x) op_mod=0x%x delivery=0x%x status=0x%x syndrome=0x%x in=%u out=%u us=%llu at=%llu.%03llu eqe=%s%s",
		      static_cast<unsigned long long>(e.seq), e.slot, opcode_name(e.opcode), e.opcode, e.op_mod,
		      e.delivery, e.status, e.syndrome, e.inlen, e.outlen, static_cast<unsigned long long>(e.usec),
		      static_cast<unsigned long long>(e.at_usec / 1000), static_cast<unsigned long long>(e.at_usec % 1000),
		      kEqeNames[static_cast<size_t>(e.eqe)], e.injected ? " injected" : "");
	return b;
}

void OpcodeStats::record(uint16_t opcode, bool failed)
{
	std::lock_guard<std::mutex> lk(mu_);
	Count &c = m_[opcode];
	++c.total;
	if (failed)
		++c.failed;
}

std::map<uint16_t, OpcodeStats::Count> OpcodeStats::snapshot() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return m_;
}

std::vector<std::string> RefusalCounters::lines() const
{
	const std::pair<const char *, const std::atomic<uint64_t> *> all[] = {
		{"refused_dead_uid", &dead_uid},	{"refused_foreign_touch", &foreign_touch},
		{"refused_foreign_name", &foreign_name}, {"refused_uctx_busy", &uctx_busy},
		{"refused_parent_busy", &parent_busy},	{"refused_klm_list", &klm_list},
		{"refused_mkey_budget", &mkey_budget},	{"refused_mkey_table", &mkey_table},
		{"refused_privileged_qp", &privileged_qp}, {"command_exceptions", &command_exceptions},
		{"refused_vf", &vf_refused},
		{"refused_vf_dead", &vf_dead},
		{"refused_vf_page_budget", &vf_page_budget},
		{"refused_umem_budget", &umem_budget},
		{"refused_umem_busy", &umem_busy},
	};
	std::vector<std::string> v;
	for (const auto &[name, n] : all)
		v.push_back(std::string(name) + " " + std::to_string(n->load()));
	return v;
}

} // namespace mlx5emu
