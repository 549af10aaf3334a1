// SPDX-License-Identifier: GPL-2.0
// Fuzz target: doorbells and the rest of BAR0. For every input a fresh
// DpFixture (dp_fixture.h) whose QPs hold a signaled 64-byte SEND in each
// of their first 8 WQEBBs, not rung. The input is a sequence of 14-byte
// records: u8 kind, u8 size (1, 2, 4 or 8 by its low 2 bits), u32 offset,
// u64 value:
//   0 a write to the HCA's UAR page (offset modulo 4 KiB: the CQ arm
//     doorbell, the EQ doorbells, the BlueFlame registers),
//   1 a write anywhere in BAR0 (the initialization segment, the command
//     doorbell, other UAR pages, on-device memory),
//   2 a read anywhere in BAR0,
//   3 a 4-byte store of the value into a doorbell record in guest memory
//     (offset bits 0-1: which QP, modulo 3, or the CQ; bit 2: the
//     second dword),
// other kinds count as kind % 4. Offsets are aligned to the size, as the
// PCI layer splits accesses. Then the harness waits until the data path
// and the firmware are idle. Passed when no input crashes the emulator or
// raises a sanitizer report.
#include "dp_fixture.h"
#include "fuzz_input.h"

using namespace mlx5emu;
using namespace mlx5emu::test;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::DpFixture f;
	f.post_unrung_sends();
	Hca &hca = *f.a.h.hca;
	uint64_t bar = f.a.h.cfg.bar0_size;
	fuzz::Input in(data, size);
	while (!in.empty()) {
		uint8_t kind = in.take<uint8_t>() % 4;
		unsigned sz = 1u << (in.take<uint8_t>() & 3);
		uint32_t off = in.take<uint32_t>();
		uint64_t value = in.take<uint64_t>();
		switch (kind) {
		case 0:
			hca.bar_write((f.a.uar * 4096ull + off % 4096) & ~uint64_t(sz - 1), sz, value);
			break;
		case 1:
			hca.bar_write((off % bar) & ~uint64_t(sz - 1), sz, value);
			break;
		case 2:
			hca.bar_read((off % bar) & ~uint64_t(sz - 1), sz);
			break;
		case 3: {
			uint64_t rec = (off & 3) == 3 ? f.cq.dbr : f.qps[off & 3].dbr;
			f.a.mem().write(rec + (off & 4), &value, 4);
			break;
		}
		}
	}
	if (!f.a.settle() || !f.a.h.idle())
		__builtin_trap(); // never idle: a hang
	return 0;
}
