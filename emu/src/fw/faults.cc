// SPDX-License-Identifier: GPL-2.0
#include "fw/faults.h"

#include <cstdio>

#include "fw/opcode_names.h"

namespace mlx5emu {

namespace {

// A per-key setting: `v` replaces it, 0 removes it.
template <typename Map> void set_or_erase(Map &m, typename Map::key_type k, uint32_t v)
{
	if (v)
		m[k] = v;
	else
		m.erase(k);
}

// Takes one from a per-key countdown; false when the key has none left.
template <typename Map> bool take_one(Map &m, typename Map::key_type k)
{
	auto it = m.find(k);
	if (it == m.end())
		return false;
	if (--it->second == 0)
		m.erase(it);
	return true;
}

template <typename Map> uint32_t value_or_zero(const Map &m, typename Map::key_type k)
{
	auto it = m.find(k);
	return it == m.end() ? 0 : it->second;
}

} // namespace

void Faults::fail_cmd(uint16_t opcode, uint8_t status, uint32_t syndrome, uint32_t count)
{
	std::lock_guard<std::mutex> lk(mu_);
	fail_[opcode] = Fail{{status, syndrome}, count};
}

std::optional<Faults::CmdFailure> Faults::take_cmd_failure(uint16_t opcode)
{
	std::lock_guard<std::mutex> lk(mu_);
	auto it = fail_.find(opcode);
	if (it == fail_.end())
		return std::nullopt;
	CmdFailure f = it->second.f;
	if (it->second.remaining != kForever && --it->second.remaining == 0)
		fail_.erase(it);
	return f;
}

void Faults::delay_cmd(uint16_t opcode, uint32_t ms)
{
	std::lock_guard<std::mutex> lk(mu_);
	set_or_erase(cmd_delay_, opcode, ms);
}

uint32_t Faults::cmd_delay_ms(uint16_t opcode) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return value_or_zero(cmd_delay_, opcode);
}

void Faults::drop_eqe(uint8_t type, uint32_t count)
{
	std::lock_guard<std::mutex> lk(mu_);
	set_or_erase(eqe_drop_, type, count);
}

bool Faults::take_eqe_drop(uint8_t type)
{
	std::lock_guard<std::mutex> lk(mu_);
	return take_one(eqe_drop_, type);
}

void Faults::delay_eqe(uint8_t type, uint32_t ms)
{
	std::lock_guard<std::mutex> lk(mu_);
	set_or_erase(eqe_delay_, type, ms);
}

uint32_t Faults::eqe_delay_ms(uint8_t type) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return value_or_zero(eqe_delay_, type);
}

void Faults::drop_cmd_eqe(uint16_t opcode, uint32_t count)
{
	std::lock_guard<std::mutex> lk(mu_);
	set_or_erase(cmd_eqe_drop_, opcode, count);
}

bool Faults::take_cmd_eqe_drop(uint16_t opcode)
{
	std::lock_guard<std::mutex> lk(mu_);
	return take_one(cmd_eqe_drop_, opcode);
}

void Faults::delay_cmd_eqe(uint16_t opcode, uint32_t ms)
{
	std::lock_guard<std::mutex> lk(mu_);
	set_or_erase(cmd_eqe_delay_, opcode, ms);
}

uint32_t Faults::cmd_eqe_delay_ms(uint16_t opcode) const
{
	std::lock_guard<std::mutex> lk(mu_);
	return value_or_zero(cmd_eqe_delay_, opcode);
}

void Faults::clear()
{
	std::lock_guard<std::mutex> lk(mu_);
	fail_.clear();
	cmd_delay_.clear();
	eqe_drop_.clear();
	eqe_delay_.clear();
	cmd_eqe_drop_.clear();
	cmd_eqe_delay_.clear();
}

std::vector<std::string> Faults::describe() const
{
	std::lock_guard<std::mutex> lk(mu_);
	std::vector<std::string> v;
	char b[160];
	for (const auto &[op, f] : fail_) {
		std::snprintf(b, sizeof b, "fail-cmd %s(0x%x) status=0x%x syndrome=0x%x remaining=%s",
			      opcode_name(op), op, f.f.status, f.f.syndrome,
			      f.remaining == kForever ? "forever" : std::to_string(f.remaining).c_str());
		v.emplace_back(b);
	}
	for (const auto &[op, ms] : cmd_delay_) {
		std::snprintf(b, sizeof b, "delay-cmd %s(0x%x) %u ms", opcode_name(op), op, ms);
		v.emplace_back(b);
	}
	for (const auto &[t, n] : eqe_drop_) {
		std::snprintf(b, sizeof b, "drop-eqe type=0x%x remaining=%u", t, n);
		v.emplace_back(b);
	}
	for (const auto &[t, ms] : eqe_delay_) {
		std::snprintf(b, sizeof b, "delay-eqe type=0x%x %u ms", t, ms);
		v.emplace_back(b);
	}
	for (const auto &[op, n] : cmd_eqe_drop_) {
		std::snprintf(b, sizeof b, "drop-cmd-eqe %s(0x%x) remaining=%u", opcode_name(op), op, n);
		v.emplace_back(b);
	}
	for (const auto &[op, ms] : cmd_eqe_delay_) {
		std::snprintf(b, sizeof b, "delay-cmd-eqe %s(0x%x) %u ms", opcode_name(op), op, ms);
		v.emplace_back(b);
	}
	return v;
}

} // namespace mlx5emu
