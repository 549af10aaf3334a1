// SPDX-License-Identifier: GPL-2.0
// Fuzz target: send WQE parsing and execution, every send opcode on every
// QP type. For every input a fresh DpFixture (dp_fixture.h); the input is
// u8 qp (0 RC, 1 UC, 2 UD, 3 XRC initiator (its packets reach the XRC
// target and SRQ on the same HCA), 4 the UMR QP (a kernel QP, rlky);
// modulo 5), u8 bell, then the send queue's contents from WQEBB 0 on (at
// most its 64 WQEBBs). The harness writes them into the SQ, sets the SQ doorbell
// record to the WQEBBs written and rings the doorbell with the first 8
// bytes of WQEBB `bell` (as a driver rings for its last WQE), then waits
// until the data path is idle. Passed when no input crashes the emulator
// or raises a sanitizer report.
#include "dp_fixture.h"
#include "fuzz_input.h"

using namespace mlx5emu;
using namespace mlx5emu::test;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::DpFixture f;
	fuzz::Input in(data, size);
	DpHca::Qp &q = f.send_qp(in.take<uint8_t>());
	unsigned bell = in.take<uint8_t>();
	std::vector<uint8_t> sq = in.bytes(64u << fuzz::DpFixture::kLogSq);
	unsigned nbb = unsigned(sq.size() + 63) / 64;
	sq.resize(64 * nbb);
	if (nbb) {
		f.a.mem().write(f.sq(q), sq.data(), sq.size());
		uint8_t db[4];
		bits::store_be32(db, nbb);
		f.a.mem().write(q.dbr + 4, db, 4);
		f.a.ring_sq(q, &sq[64 * (bell % nbb)]);
	}
	if (!f.a.settle())
		__builtin_trap(); // the data path never went idle: a hang
	return 0;
}
