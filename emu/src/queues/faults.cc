// SPDX-License-Identifier: GPL-2.0
#include "queues/faults.h"

#include <algorithm>
#include <cstdio>

#include "prm/bits.h"
#include "prm/opcode_names.h"
#include "prm/cq.h"

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

namespace {

bool cqe_is_recv(const uint8_t *cqe)
{
	switch (cqe[prm::cqe::kOpOwn] >> 4) {
	case prm::cqe_opcode::RESP_WR_IMM:
	case prm::cqe_opcode::RESP_SEND:
	case prm::cqe_opcode::RESP_SEND_IMM:
	case prm::cqe_opcode::RESP_SEND_INV:
	case prm::cqe_opcode::RESP_ERR:
		return true;
	default:
		return false;
	}
}

const char *kind_name(Faults::CqeKind k)
{
	return k == Faults::CqeKind::Send ? "send" : k == Faults::CqeKind::Recv ? "recv" : "any";
}

const char *field_name(Faults::CqeField f)
{
	return f == Faults::CqeField::WqeCounter ? "wqe_counter" : f == Faults::CqeField::ByteCnt ? "byte_cnt" : "qpn";
}

} // namespace

void Faults::repeat_cqe(uint32_t count, CqeKind kind)
{
	std::lock_guard<std::mutex> lk(mu_);
	cqe_repeat_ = {kind, count};
	cqe_armed_ = cqe_repeat_.remaining || cqe_corrupt_.remaining;
}

void Faults::corrupt_cqe(CqeField field, uint32_t value, uint32_t count, CqeKind kind)
{
	std::lock_guard<std::mutex> lk(mu_);
	cqe_corrupt_ = {kind, count};
	corrupt_field_ = field;
	corrupt_value_ = value;
	cqe_armed_ = cqe_repeat_.remaining || cqe_corrupt_.remaining;
}

bool Faults::apply_cqe(uint8_t *cqe)
{
	if (!cqe_armed_.load(std::memory_order_relaxed))
		return false;
	std::lock_guard<std::mutex> lk(mu_);
	bool recv = cqe_is_recv(cqe);
	auto matches = [recv](const CqeRule &r) {
		return r.remaining && (r.kind == CqeKind::Any || (r.kind == CqeKind::Recv) == recv);
	};
	if (matches(cqe_corrupt_)) {
		--cqe_corrupt_.remaining;
		switch (corrupt_field_) {
		case CqeField::WqeCounter:
			bits::store_be16(cqe + prm::cqe::kWqeCounter, static_cast<uint16_t>(corrupt_value_));
			break;
		case CqeField::ByteCnt:
			bits::store_be32(cqe + prm::cqe::kByteCnt, corrupt_value_);
			break;
		case CqeField::Qpn: {
			uint32_t v = bits::load_be32(cqe + prm::cqe::kSopDropQpn);
			bits::store_be32(cqe + prm::cqe::kSopDropQpn, (v & 0xff000000u) | (corrupt_value_ & 0xffffff));
			break;
		}
		}
	}
	bool repeat = matches(cqe_repeat_);
	if (repeat)
		--cqe_repeat_.remaining;
	cqe_armed_ = cqe_repeat_.remaining || cqe_corrupt_.remaining;
	return repeat;
}

void Faults::bogus_memic(MemicBogus how, uint32_t count)
{
	std::lock_guard<std::mutex> lk(mu_);
	memic_how_ = how;
	memic_bogus_ = count;
}

std::optional<Faults::MemicBogus> Faults::take_bogus_memic()
{
	std::lock_guard<std::mutex> lk(mu_);
	if (!memic_bogus_)
		return std::nullopt;
	--memic_bogus_;
	return memic_how_;
}

void Faults::remember_bogus_memic(uint64_t addr)
{
	std::lock_guard<std::mutex> lk(mu_);
	// Bounded: software that never frees them cannot grow this.
	if (memic_bogus_addrs_.size() < 1024)
		memic_bogus_addrs_.push_back(addr);
}

bool Faults::forget_bogus_memic(uint64_t addr)
{
	std::lock_guard<std::mutex> lk(mu_);
	auto it = std::find(memic_bogus_addrs_.begin(), memic_bogus_addrs_.end(), addr);
	if (it == memic_bogus_addrs_.end())
		return false;
	memic_bogus_addrs_.erase(it);
	return true;
}

void Faults::throw_cmd(uint16_t opcode, uint32_t count)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (count)
		cmd_throw_[opcode] = count;
	else
		cmd_throw_.erase(opcode);
}

bool Faults::take_cmd_throw(uint16_t opcode)
{
	std::lock_guard<std::mutex> lk(mu_);
	auto it = cmd_throw_.find(opcode);
	if (it == cmd_throw_.end())
		return false;
	if (--it->second == 0)
		cmd_throw_.erase(it);
	return true;
}

void Faults::fail_sq_wqe(uint32_t count)
{
	sq_wqe_fail_.store(count, std::memory_order_relaxed);
}

bool Faults::take_sq_wqe_failure()
{
	uint32_t n = sq_wqe_fail_.load(std::memory_order_relaxed);
	while (n && !sq_wqe_fail_.compare_exchange_weak(n, n - 1, std::memory_order_relaxed))
		;
	return n != 0;
}

void Faults::clear()
{
	std::lock_guard<std::mutex> lk(mu_);
	fail_.clear();
	cmd_throw_.clear();
	cmd_delay_.clear();
	eqe_drop_.clear();
	eqe_delay_.clear();
	cmd_eqe_drop_.clear();
	cmd_eqe_delay_.clear();
	cqe_repeat_ = {};
	cqe_corrupt_ = {};
	cqe_armed_ = false;
	memic_bogus_ = 0;
	sq_wqe_fail_ = 0;
	// The bogus addresses already answered stay freeable.
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
	if (cqe_repeat_.remaining) {
		std::snprintf(b, sizeof b, "cqe-repeat %s remaining=%u", kind_name(cqe_repeat_.kind),
			      cqe_repeat_.remaining);
		v.emplace_back(b);
	}
	if (cqe_corrupt_.remaining) {
		std::snprintf(b, sizeof b, "cqe-corrupt %s %s=0x%x remaining=%u", kind_name(cqe_corrupt_.kind),
			      field_name(corrupt_field_), corrupt_value_, cqe_corrupt_.remaining);
		v.emplace_back(b);
	}
	if (uint32_t n = sq_wqe_fail_.load(std::memory_order_relaxed)) {
		std::snprintf(b, sizeof b, "sq-error remaining=%u", n);
		v.emplace_back(b);
	}
	if (memic_bogus_) {
		std::snprintf(b, sizeof b, "memic-addr-bogus %s remaining=%u",
			      memic_how_ == MemicBogus::Outside ? "outside" : "unaligned", memic_bogus_);
		v.emplace_back(b);
	}
	return v;
}

} // namespace mlx5emu
