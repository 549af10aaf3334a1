// SPDX-License-Identifier: GPL-2.0
// Host-only data-path benchmark (`make bench-emu`): two emulated HCAs on
// one fabric, driven directly through the unit tests' miniature provider
// (tests/dp_harness.h): WQEs in the harness's memory, a doorbell per WQE
// through BAR0 as a driver rings it (the trapped path), CQEs polled without
// sleeping. RC WRITE, READ and SEND from 8 B to 1 MiB, each figure next to
// host memcpy of the same size measured in the same run.
//
//   mlx5emu_bench [SECONDS_PER_POINT]   (default 0.3)
//
// A benchmark, not a test: it prints figures and fails only when a
// completion is missing or in error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dp_harness.h"

using namespace mlx5emu;
using namespace mlx5emu::test;
using clk = std::chrono::steady_clock;

namespace {

constexpr unsigned kDepth = 16;          // WQEs in flight
constexpr uint64_t kBuf = 1u << 20;      // largest message
constexpr unsigned kRq = 16; // RcPair's receive queue

double seconds(clk::duration d) { return std::chrono::duration<double>(d).count(); }

// Host memcpy of `size` bytes between two 1 MiB buffers, in batches of
// 64 for about `budget` seconds: MiB/s of the fastest batch (the host is
// shared; a batch that was descheduled says nothing about memcpy).
double memcpy_rate(size_t size, double budget)
{
	std::vector<uint8_t> a(kBuf, 1), b(kBuf, 2);
	double best = 1e9;
	auto t0 = clk::now();
	do {
		auto b0 = clk::now();
		for (unsigned i = 0; i < 64; ++i) {
			std::memcpy(b.data(), a.data(), size);
			__asm__ volatile("" : : "r"(b.data()) : "memory");
		}
		best = std::min(best, seconds(clk::now() - b0));
	} while (seconds(clk::now() - t0) < budget);
	return 64.0 * size / best / (1 << 20);
}

bool poll_now(DpHca &h, DpHca::Cq &cq, Cqe *e)
{
	return h.poll(cq, e, std::chrono::milliseconds(0));
}

struct Point {
	double mibs = 0, msgs = 0;
	bool ok = true;
};

// `op` of `size` bytes from a to b for about `budget` seconds.
Point run(RcPair &p, uint8_t op, uint32_t size, const DpHca::Mr &la, const DpHca::Mr &rb, double budget)
{
	Point pt;
	unsigned inflight = 0;
	uint64_t done = 0;
	auto t0 = clk::now(), deadline = t0 + std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(budget));
	auto give_up = deadline + std::chrono::seconds(10);
	bool posting = true;
	while (inflight || posting) {
		while (posting && inflight < kDepth) {
			if (op == OP_SEND)
				p.a.post_send(p.aqp, DpHca::send_wr(la, size));
			else
				p.a.post_send(p.aqp, DpHca::rdma_wr(op, la, size, rb.addr, rb.key));
			++inflight;
		}
		Cqe e;
		if (poll_now(p.a, p.acq, &e)) {
			if (e.opcode != 0) {
				std::fprintf(stderr, "bench: error CQE opcode %u syndrome 0x%x\n", e.opcode, e.syndrome);
				pt.ok = false;
				return pt;
			}
			--inflight;
			++done;
		}
		if (op == OP_SEND)
			while (poll_now(p.b, p.bcq, &e)) {
				if (e.opcode == 0xd) {
					pt.ok = false;
					return pt;
				}
				p.b.post_recv(p.bqp, rb, kBuf);
			}
		auto now = clk::now();
		if (now >= deadline)
			posting = false;
		if (now > give_up) {
			std::fprintf(stderr, "bench: %u completions missing\n", inflight);
			pt.ok = false;
			return pt;
		}
	}
	double el = seconds(clk::now() - t0);
	// b's receive completions of the last messages; the receives still
	// posted (each as large as the largest message) serve the next point.
	if (op == OP_SEND) {
		Cqe e;
		while (p.b.poll(p.bcq, &e, std::chrono::milliseconds(50)))
			;
	}
	pt.msgs = done / el;
	pt.mibs = pt.msgs * size / (1 << 20);
	return pt;
}

const char *name(uint8_t op)
{
	switch (op) {
	case OP_WRITE:
		return "WRITE";
	case OP_READ:
		return "READ";
	default:
		return "SEND";
	}
}

} // namespace

int main(int argc, char **argv)
{
	double budget = argc > 1 ? std::atof(argv[1]) : 0.3;
	if (budget <= 0)
		budget = 0.3;
	std::printf("# mlx5-emu host-only RC benchmark: 2 HCAs, one fabric, %u WQEs in flight, a doorbell per WQE\n",
		    kDepth);
	std::printf("# %-5s %8s %12s %12s %14s %8s\n", "op", "bytes", "MiB/s", "msg/s", "memcpy MiB/s", "ratio");
	bool ok = true;
	for (uint8_t op : {OP_WRITE, OP_READ, OP_SEND}) {
		// A fresh pair per operation: SEND's receive queue starts empty.
		RcPair p;
		auto la = p.a.reg_mr(kBuf), rb = p.b.reg_mr(kBuf);
		// SEND: b's receive queue full of receives as large as the largest
		// message, one posted again for each receive completion.
		for (unsigned i = 0; op == OP_SEND && i < kRq; ++i)
			p.b.post_recv(p.bqp, rb, kBuf);
		for (uint32_t size : {8u, 64u, 512u, 4096u, 65536u, 1u << 20}) {
			Point pt = run(p, op, size, la, rb, budget);
			if (!pt.ok) {
				std::printf("  %-5s %8u FAILED\n", name(op), size);
				ok = false;
				break;
			}
			double mc = memcpy_rate(size, budget / 3);
			std::printf("  %-5s %8u %12.1f %12.0f %14.1f %8.3f\n", name(op), size, pt.mibs, pt.msgs, mc,
				    pt.mibs / mc);
			std::fflush(stdout);
		}
	}
	return ok ? 0 : 1;
}
