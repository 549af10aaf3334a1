// SPDX-License-Identifier: GPL-2.0
#include "fw/command_queue.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "dma/guest_memory.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace ce = prm::cmd_entry;
namespace mb = prm::mailbox;
using bits::load_be32;
using bits::load_be64;

CommandEngine::CommandEngine(Firmware &fw) : fw_(fw) {}

CommandEngine::~CommandEngine() { stop(); }

void CommandEngine::start()
{
	std::lock_guard<std::mutex> lk(mu_);
	if (thread_.joinable())
		return;
	stop_ = false;
	thread_ = std::thread([this] { run(); });
}

void CommandEngine::stop()
{
	{
		std::lock_guard<std::mutex> lk(mu_);
		stop_ = true;
	}
	cv_.notify_all();
	if (thread_.joinable())
		thread_.join();
}

void CommandEngine::ring(uint32_t slot_mask)
{
	auto now = Clock::now();
	{
		std::lock_guard<std::mutex> lk(mu_);
		++c_.doorbells;
		for (unsigned s = 0; s < kSlots; ++s)
			if ((slot_mask >> s) & 1 && !((pending_ >> s) & 1))
				rung_[s] = now;
		pending_ |= slot_mask;
	}
	cv_.notify_one();
}

void CommandEngine::schedule(Clock::time_point when, std::function<void()> fn)
{
	{
		std::lock_guard<std::mutex> lk(mu_);
		deferred_.emplace(when, Deferred{generation_, std::move(fn)});
		++c_.deferred;
	}
	cv_.notify_one();
}

void CommandEngine::set_hung(bool hung)
{
	{
		std::lock_guard<std::mutex> lk(mu_);
		hung_ = hung;
	}
	cv_.notify_one();
}

bool CommandEngine::hung() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return hung_;
}

void CommandEngine::reset()
{
	std::lock_guard<std::mutex> lk(mu_);
	pending_ = 0;
	deferred_.clear();
	++generation_;
}

bool CommandEngine::idle() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return !pending_ && deferred_.empty() && !busy_;
}

CommandEngine::Counters CommandEngine::counters() const
{
	std::lock_guard<std::mutex> lk(mu_);
	return c_;
}

void CommandEngine::run()
{
	std::unique_lock<std::mutex> lk(mu_);
	for (;;) {
		if (stop_)
			return;
		auto now = Clock::now();
		if (!hung_ && !deferred_.empty() && deferred_.begin()->first <= now) {
			Deferred d = std::move(deferred_.begin()->second);
			deferred_.erase(deferred_.begin());
			if (d.generation != generation_)
				continue;
			busy_ = true;
			lk.unlock();
			d.fn();
			lk.lock();
			busy_ = false;
			continue;
		}
		if (!hung_ && pending_) {
			unsigned slot = static_cast<unsigned>(__builtin_ctz(pending_));
			pending_ &= ~(1u << slot);
			Clock::time_point rung = rung_[slot];
			busy_ = true;
			lk.unlock();
			process_slot(slot, rung);
			lk.lock();
			busy_ = false;
			continue;
		}
		if (!hung_ && !deferred_.empty())
			cv_.wait_until(lk, deferred_.begin()->first);
		else
			cv_.wait(lk);
	}
}

// Gathers the input message: 16 inline bytes, then the mailbox chain.
// Returns a delivery status.
uint8_t CommandEngine::read_input(const uint8_t *entry, uint32_t inlen, std::vector<uint8_t> *in)
{
	in->assign(inlen, 0);
	std::memcpy(in->data(), entry + ce::kIn, std::min<uint32_t>(inlen, ce::kInlineBytes));
	if (inlen <= ce::kInlineBytes)
		return prm::delivery::OK;

	uint8_t token = entry[ce::kToken];
	uint64_t ptr = load_be64(entry + ce::kInPtr);
	uint32_t left = inlen - ce::kInlineBytes;
	// The driver may chain more blocks than the length needs (cached
	// messages); only the blocks that carry data are examined.
	for (uint32_t n = 0; left; ++n) {
		if (!ptr)
			return prm::delivery::BAD_BLOCK_NUM; // chain too short
		if (ptr % mb::kAlign)
			return prm::delivery::IN_PTR_ALIGN;
		uint8_t blk[mb::kBlockSize];
		if (!fw_.mem.read(ptr, blk, sizeof blk))
			return prm::delivery::FW_INTERNAL_ERR;
		if (load_be32(blk + mb::kBlockNum) != n)
			return prm::delivery::BAD_BLOCK_NUM;
		if (blk[mb::kToken] != token)
			return prm::delivery::TOKEN_ERR;
		uint32_t chunk = std::min<uint32_t>(left, mb::kDataSize);
		std::memcpy(in->data() + (inlen - left), blk, chunk);
		left -= chunk;
		ptr = load_be64(blk + mb::kNext);
	}
	return prm::delivery::OK;
}

// Validates the output mailbox chain and records its block addresses.
uint8_t CommandEngine::check_output(const uint8_t *entry, uint32_t outlen, std::vector<uint64_t> *blocks)
{
	blocks->clear();
	if (outlen <= ce::kInlineBytes)
		return prm::delivery::OK;
	uint8_t token = entry[ce::kToken];
	uint64_t ptr = load_be64(entry + ce::kOutPtr);
	uint32_t left = outlen - ce::kInlineBytes;
	for (uint32_t n = 0; left; ++n) {
		if (!ptr)
			return prm::delivery::BAD_BLOCK_NUM;
		if (ptr % mb::kAlign)
			return prm::delivery::OUT_PTR_ALIGN;
		uint8_t tail[mb::kBlockSize - mb::kNext];
		if (!fw_.mem.read(ptr + mb::kNext, tail, sizeof tail))
			return prm::delivery::FW_INTERNAL_ERR;
		if (load_be32(tail + (mb::kBlockNum - mb::kNext)) != n)
			return prm::delivery::BAD_BLOCK_NUM;
		if (tail[mb::kToken - mb::kNext] != token)
			return prm::delivery::TOKEN_ERR;
		blocks->push_back(ptr);
		left -= std::min<uint32_t>(left, mb::kDataSize);
		ptr = load_be64(tail);
	}
	return prm::delivery::OK;
}

void CommandEngine::process_slot(unsigned slot, Clock::time_point rung)
{
	const uint64_t entry_addr = fw_.iseg.cmdq_addr() + (static_cast<uint64_t>(slot) << prm::iseg::kLogCmdqStride);
	uint8_t entry[ce::kSize];
	if (!fw_.mem.read(entry_addr, entry, sizeof entry)) {
		std::lock_guard<std::mutex> lk(mu_);
		++c_.entry_dma_errors;
		return;
	}
	if (!(entry[ce::kStatusOwn] & 1)) {
		// Software still owns the entry: nothing to execute.
		std::lock_guard<std::mutex> lk(mu_);
		++c_.not_hw_owned;
		return;
	}

	Completion c;
	c.slot = slot;
	c.entry = entry_addr;
	c.rung = rung;
	c.inlen = load_be32(entry + ce::kInlen);
	c.outlen = load_be32(entry + ce::kOutlen);
	c.opcode = static_cast<uint16_t>(bits::load_be16(entry + ce::kIn));
	c.op_mod = static_cast<uint16_t>(bits::load_be16(entry + ce::kIn + 6));

	std::vector<uint8_t> in;
	if (entry[ce::kType] != ce::kTypePciCmd)
		c.delivery = prm::delivery::BAD_CMD_TYPE;
	else if (c.inlen < prm::hdr_out::kMinLen || c.inlen > kMaxMsgLen)
		c.delivery = prm::delivery::IN_LEN_ERR;
	else if (c.outlen < prm::hdr_out::kMinLen || c.outlen > kMaxMsgLen)
		c.delivery = prm::delivery::OUT_LEN_ERR;
	else if ((c.delivery = read_input(entry, c.inlen, &in)) == prm::delivery::OK)
		c.delivery = check_output(entry, c.outlen, &c.out_blocks);

	if (c.delivery == prm::delivery::OK) {
		c.out.assign(c.outlen, 0);
		std::lock_guard<std::mutex> lk(fw_.mu);
		// A CMD EQE is owed only to a command EQ that existed before
		// this command: not for the CREATE_EQ that makes it.
		c.cmd_eqn = fw_.eqs.find_for_event(prm::event::CMD);
		if (c.cmd_eqn >= 0)
			c.cmd_eq_serial = fw_.eqs.serial(static_cast<uint8_t>(c.cmd_eqn));

		CmdCtx ctx{fw_, in.data(), c.inlen, c.out.data(), c.outlen, c.opcode, c.op_mod,
			   static_cast<uint16_t>(bits::get(in.data(), prm::hdr_in::uid))};
		if (auto f = fw_.faults.take_cmd_failure(c.opcode)) {
			ctx.status = f->status;
			ctx.syndrome = f->syndrome;
			c.injected = true;
		} else {
			dispatch_command(ctx);
		}
		if (ctx.status != prm::status::OK)
			std::fill(c.out.begin(), c.out.end(), 0); // no partial output on error
		bits::set(c.out.data(), prm::hdr_out::status, ctx.status);
		bits::set(c.out.data(), prm::hdr_out::syndrome, ctx.syndrome);
		c.status = ctx.status;
		c.syndrome = ctx.syndrome;
	} else {
		std::lock_guard<std::mutex> lk(fw_.mu);
		c.cmd_eqn = fw_.eqs.find_for_event(prm::event::CMD);
		if (c.cmd_eqn >= 0)
			c.cmd_eq_serial = fw_.eqs.serial(static_cast<uint8_t>(c.cmd_eqn));
	}

	{
		std::lock_guard<std::mutex> lk(mu_);
		++c_.commands;
		if (c.delivery)
			++c_.delivery_errors;
	}

	uint32_t delay = c.delivery ? 0 : fw_.faults.cmd_delay_ms(c.opcode);
	if (delay)
		schedule(Clock::now() + std::chrono::milliseconds(delay), [this, c] { complete(c); });
	else
		complete(c);
}

void CommandEngine::complete(const Completion &c)
{
	bool ok = true;
	if (c.delivery == prm::delivery::OK) {
		uint8_t inline_out[ce::kInlineBytes] = {};
		std::memcpy(inline_out, c.out.data(), std::min<size_t>(c.out.size(), sizeof inline_out));
		ok = fw_.mem.write(c.entry + ce::kOut, inline_out, sizeof inline_out);
		size_t off = ce::kInlineBytes;
		for (uint64_t blk : c.out_blocks) {
			size_t chunk = std::min<size_t>(c.out.size() - off, mb::kDataSize);
			ok = fw_.mem.write(blk, c.out.data() + off, chunk) && ok;
			off += chunk;
		}
	}
	uint8_t delivery = ok ? c.delivery : static_cast<uint8_t>(prm::delivery::FW_INTERNAL_ERR);

	// Record the command before handing the entry back: whoever sees it
	// completed (the driver, or a test through the control channel) then
	// finds it in the trace and in the opcode statistics.
	TraceEntry t;
	t.slot = c.slot;
	t.opcode = c.opcode;
	t.op_mod = c.op_mod;
	t.delivery = delivery;
	t.status = c.status;
	t.syndrome = c.syndrome;
	t.inlen = c.inlen;
	t.outlen = c.outlen;
	t.injected = c.injected;
	t.usec = static_cast<uint64_t>(
		std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - c.rung).count());
	t.rung = c.rung;
	uint32_t eqe_delay_ms = 0;
	if (c.cmd_eqn >= 0 && fw_.eqs.serial(static_cast<uint8_t>(c.cmd_eqn)) == c.cmd_eq_serial)
		t.eqe = plan_cmd_eqe(c, &eqe_delay_ms);
	fw_.trace.add(t);
	fw_.opstats.record(c.opcode, delivery != 0 || c.status != 0);

	uint8_t status_own = static_cast<uint8_t>(delivery << 1); // owner bit 0: software
	std::atomic_thread_fence(std::memory_order_release);
	fw_.mem.write(c.entry + ce::kStatusOwn, &status_own, 1);

	if (t.eqe == TraceEntry::Eqe::Posted || t.eqe == TraceEntry::Eqe::Delayed)
		post_cmd_eqe(c, eqe_delay_ms);
}

// What becomes of a command's completion EQE: fault injection may lose it or
// hold it back (*delay_ms).
TraceEntry::Eqe CommandEngine::plan_cmd_eqe(const Completion &c, uint32_t *delay_ms)
{
	if (fw_.faults.take_cmd_eqe_drop(c.opcode))
		return TraceEntry::Eqe::Dropped;
	*delay_ms = fw_.faults.cmd_eqe_delay_ms(c.opcode);
	return *delay_ms ? TraceEntry::Eqe::Delayed : TraceEntry::Eqe::Posted;
}

// Posts the completion EQE after the status is visible, now or delay_ms
// later; a held one is posted only if its EQ is still the same one then.
void CommandEngine::post_cmd_eqe(const Completion &c, uint32_t delay_ms)
{
	auto eqn = static_cast<uint8_t>(c.cmd_eqn);
	uint64_t serial = c.cmd_eq_serial;
	unsigned slot = c.slot;
	auto post = [this, eqn, serial, slot] {
		if (fw_.eqs.serial(eqn) != serial)
			return;
		uint8_t eqe[prm::eqe::kSize] = {};
		eqe[prm::eqe::kType] = prm::event::CMD;
		bits::store_be32(eqe + prm::eqe::kData, 1u << slot);
		fw_.post_event_to(eqn, eqe);
	};
	if (delay_ms)
		schedule(Clock::now() + std::chrono::milliseconds(delay_ms), post);
	else
		post();
}

} // namespace mlx5emu
