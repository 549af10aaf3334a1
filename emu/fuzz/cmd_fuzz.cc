// SPDX-License-Identifier: GPL-2.0
// Fuzz target: the command interface. A fresh HCA (fw_harness.h: fake guest
// memory, command queue set up) executes the input's records in order:
//   0 command: u16 inlen, u32 outlen (modulo 64 KiB), u8 slot, u8 options,
//     inlen bytes: the harness builds the entry and mailbox chains as a
//     driver does, with the transport faults the options select
//     (options()), rings the slot and waits until the firmware is idle;
//   1 raw entry: u8 slot, u8 link, 64 entry bytes, u8 nblocks (at most
//     8), that many 576-byte mailbox blocks placed in guest memory (link
//     bit 0: the entry's input pointer and the blocks' next pointers chain
//     them; otherwise the pointers are the input's), then ring and wait;
//   2 doorbell: u32 slot mask rung as is (entries left by earlier
//     records), then wait.
// Other kinds count as kind % 3. Guest addresses below 32 MiB are left to
// the input (the seeds' page lists, queue buffers and pages point there);
// the harness's own mailboxes come after. Passed when no input crashes
// the firmware or raises a sanitizer report.
#include "fuzz_input.h"
#include "fw_harness.h"

namespace {

using namespace mlx5emu;
using namespace mlx5emu::test;

constexpr size_t kInputArea = 32u << 20; // addresses the input may name
constexpr unsigned kBlock = 576, kMaxBlocks = 8;
constexpr uint32_t kMaxLen = 64u << 10;

// The transport faults of a command record's options byte (see
// make_seeds.cc): bits 0-2 a wrong token / block number / output token in
// block 0, 3-4 misaligned input / output chain, 5 no input block, 6 one
// block more than needed, 7 not owned by hardware.
CmdOptions options(uint8_t b)
{
	CmdOptions o;
	o.bad_token_block = b & 1 ? 0 : -1;
	o.bad_blocknum_block = b & 2 ? 0 : -1;
	o.bad_out_token_block = b & 4 ? 0 : -1;
	o.misalign_in = b & 8;
	o.misalign_out = b & 16;
	o.in_blocks = b & 32 ? 0 : -1;
	o.extra_in_blocks = b & 64 ? 1 : 0;
	o.owner = b & 128 ? 0 : 1;
	return o;
}

void raw_entry(FwHarness &h, fuzz::Input &in)
{
	unsigned slot = in.take<uint8_t>() % CommandEngine::kSlots;
	uint8_t link = in.take<uint8_t>();
	std::vector<uint8_t> e = in.bytes(64);
	e.resize(64);
	unsigned n = in.take<uint8_t>() % (kMaxBlocks + 1);
	std::vector<uint64_t> at(n);
	for (unsigned i = 0; i < n; ++i)
		at[i] = h.mem.alloc(1024, 1024);
	for (unsigned i = 0; i < n; ++i) {
		std::vector<uint8_t> b = in.bytes(kBlock);
		b.resize(kBlock);
		if (link & 1)
			bits::store_be64(b.data() + FwHarness::kBlkNext, i + 1 < n ? at[i + 1] : 0);
		if (at[i])
			h.mem.write(at[i], b.data(), b.size());
	}
	if ((link & 1) && n)
		bits::store_be64(e.data() + FwHarness::kEntInPtr, at[0]);
	h.mem.write(h.cmdq + 64ull * slot, e.data(), e.size());
	h.ring(1u << slot);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FwHarness h;
	h.mem.alloc(kInputArea, 4096);
	fuzz::Input in(data, size);
	while (!in.empty()) {
		switch (in.take<uint8_t>() % 3) {
		case 0: {
			uint32_t inlen = in.take<uint16_t>();
			uint32_t outlen = in.take<uint32_t>() % kMaxLen;
			unsigned slot = in.take<uint8_t>() % CommandEngine::kSlots;
			CmdOptions o = options(in.take<uint8_t>());
			std::vector<uint8_t> msg = in.bytes(inlen);
			msg.resize(std::max<uint32_t>(inlen, 1)); // prepare() copies from data()
			h.prepare(slot, msg, outlen, o);
			h.ring(1u << slot);
			break;
		}
		case 1:
			raw_entry(h, in);
			break;
		case 2:
			h.ring(in.take<uint32_t>());
			break;
		}
		if (!h.idle())
			__builtin_trap(); // the firmware never finished: a hang
	}
	return 0;
}
