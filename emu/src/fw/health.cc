// SPDX-License-Identifier: GPL-2.0
#include "fw/health.h"

#include "fw/hca.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {
constexpr auto kHeartbeatPeriod = std::chrono::milliseconds(50);
}

Health::Health(const HcaConfig &cfg)
	: fw_ver_(static_cast<uint32_t>(cfg.fw_major) << 24 | static_cast<uint32_t>(cfg.fw_minor & 0xff) << 16 |
		  (cfg.fw_subminor & 0xffff)),
	  hw_id_(cfg.device_id)
{
	if (fw_ver_ == 0xffffffffu || fw_ver_ == 0)
		fw_ver_ = 1;
}

void Health::set_syndrome(uint8_t synd, uint16_t ext_synd, bool fatal)
{
	std::lock_guard<std::mutex> lk(mu_);
	synd_ = synd;
	ext_synd_ = ext_synd;
	rfr_severity_ = fatal && synd ? (prm::health::kRfrBit | prm::health::kSeverityValid | 2 /* crit */) : 0;
	if (shared_ && writer_) {
		shared_->synd_ext = static_cast<uint32_t>(synd) << 16 | ext_synd;
		shared_->rfr_severity = rfr_severity_;
	}
}

void Health::share(SharedSyndrome *s, bool writer)
{
	std::lock_guard<std::mutex> lk(mu_);
	shared_ = s;
	writer_ = writer;
}

uint8_t Health::syndrome() const
{
	std::lock_guard<std::mutex> lk(mu_);
	if (!synd_ && shared_ && !writer_)
		return static_cast<uint8_t>(shared_->synd_ext.load() >> 16);
	return synd_;
}

void Health::freeze(bool frozen)
{
	std::lock_guard<std::mutex> lk(mu_);
	if (frozen == frozen_.load())
		return;
	auto now = Clock::now();
	if (frozen) {
		counter_base_ += static_cast<uint32_t>((now - counter_epoch_) / kHeartbeatPeriod);
	} else {
		counter_epoch_ = now;
	}
	frozen_ = frozen;
}

uint32_t Health::counter() const
{
	std::lock_guard<std::mutex> lk(mu_);
	if (frozen_)
		return counter_base_;
	return counter_base_ + static_cast<uint32_t>((Clock::now() - counter_epoch_) / kHeartbeatPeriod);
}

uint32_t Health::buffer_dword(uint32_t off) const
{
	namespace h = prm::health;
	std::lock_guard<std::mutex> lk(mu_);
	// A VF without a syndrome of its own shows its adapter's.
	bool theirs = !synd_ && shared_ && !writer_;
	switch (off & ~3u) {
	case h::kTime:
		return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start_).count());
	case h::kFwVer:
		return fw_ver_;
	case h::kHwId:
		return hw_id_;
	case h::kRfrSeverity:
		return static_cast<uint32_t>(theirs ? shared_->rfr_severity.load() : rfr_severity_) << 24;
	case h::kIriscIndex: // irisc_index, synd, ext_synd
		return theirs ? shared_->synd_ext.load() : static_cast<uint32_t>(synd_) << 16 | ext_synd_;
	default:
		return 0;
	}
}

} // namespace mlx5emu
