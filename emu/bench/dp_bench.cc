// SPDX-License-Identifier: GPL-2.0
// Host-only data-path benchmark (`make bench-emu`): two emulated HCAs on
// one fabric, driven directly through the unit tests' miniature provider
// (tests/dp_harness.h): WQEs in the harness's memory, a doorbell per WQE
// through BAR0 as a driver rings it (the trapped path), CQEs polled without
// sleeping. RC WRITE, READ and SEND from 8 B to 1 MiB, each figure next to
// host memcpy of the same size measured in the same run.
//
//   mlx5emu_bench [SECONDS_PER_POINT [OPS [SIZES]]]
//     SECONDS_PER_POINT  default 0.3
//     OPS                comma list of WRITE,READ,SEND (default all)
//     SIZES              comma list of message sizes in bytes (default
//                        8,64,512,4096,65536,1048576)
//
// Besides the rates, each line gives the engine thread's CPU time per
// message (`eng us/msg`), its share of the wall time (`eng %`), and the
// rate the engine sustains per CPU second against memcpy (`eng ratio`,
// bytes / engine CPU time / memcpy rate): the data path's own cost, which
// a loaded host does not inflate (the wall-clock ratio then mostly says
// how much CPU the engine thread got); and how often per message the
// engine ran out of work and slept (`wake/msg`).
//
// MLX5EMU_BENCH_LOCKSTEP=1 in the environment: after posting its WQEs the
// bench waits until the engine is idle before it polls, so every message
// meets the same batches whatever the scheduler does: repeatable
// instruction counts under `valgrind --tool=callgrind` (not a rate).
//
// A benchmark, not a test: it prints figures and fails only when a
// completion is missing or in error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <strings.h>
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
	double eng_us = 0, eng_share = 0; // engine CPU per message, CPU / wall
	double wakes = 0;                 // engine sleeps (and wake-ups) per message
	bool ok = true;
};

// `op` of `size` bytes from a to b for about `budget` seconds.
Point run(RcPair &p, uint8_t op, uint32_t size, const DpHca::Mr &la, const DpHca::Mr &rb, double budget)
{
	static const bool lockstep = std::getenv("MLX5EMU_BENCH_LOCKSTEP") != nullptr;
	Point pt;
	unsigned inflight = 0;
	uint64_t done = 0;
	auto t0 = clk::now(), deadline = t0 + std::chrono::duration_cast<clk::duration>(std::chrono::duration<double>(budget));
	auto give_up = deadline + std::chrono::seconds(10);
	bool posting = true;
	Engine &eng = p.fabric->engine();
	auto cpu0 = eng.cpu_time();
	uint64_t wake0 = eng.counters().wakeups;
	while (inflight || posting) {
		{
			// Lockstep: the engine waits while the WQEs are posted
			// (their doorbells fold into one task).
			std::unique_lock<std::mutex> hold(eng.state_mutex(), std::defer_lock);
			if (lockstep)
				hold.lock();
			while (posting && inflight < kDepth) {
				if (op == OP_SEND)
					p.a.post_send(p.aqp, DpHca::send_wr(la, size));
				else
					p.a.post_send(p.aqp, DpHca::rdma_wr(op, la, size, rb.addr, rb.key));
				++inflight;
			}
		}
		if (lockstep)
			eng.wait_idle(std::chrono::seconds(10));
		Cqe e;
		while (poll_now(p.a, p.acq, &e)) {
			if (e.opcode != 0) {
				std::fprintf(stderr, "bench: error CQE opcode %u syndrome 0x%x\n", e.opcode, e.syndrome);
				pt.ok = false;
				return pt;
			}
			--inflight;
			++done;
			if (!lockstep)
				break;
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
	double cpu = std::chrono::duration<double>(eng.cpu_time() - cpu0).count();
	// b's receive completions of the last messages; the receives still
	// posted (each as large as the largest message) serve the next point.
	if (op == OP_SEND) {
		Cqe e;
		while (p.b.poll(p.bcq, &e, std::chrono::milliseconds(50)))
			;
	}
	pt.msgs = done / el;
	pt.mibs = pt.msgs * size / (1 << 20);
	pt.eng_us = done ? cpu * 1e6 / done : 0;
	pt.eng_share = cpu / el;
	pt.wakes = done ? static_cast<double>(eng.counters().wakeups - wake0) / done : 0;
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

// The numbers of a comma list ("8,4096"), or the names of `names` it
// lists ("WRITE,SEND").
std::vector<uint64_t> list(const char *arg, const std::vector<std::pair<const char *, uint64_t>> &names)
{
	std::vector<uint64_t> v;
	std::string s(arg);
	size_t at = 0;
	while (at <= s.size()) {
		size_t end = s.find(',', at);
		std::string item = s.substr(at, end == std::string::npos ? std::string::npos : end - at);
		bool named = false;
		for (const auto &[n, x] : names)
			if (strcasecmp(item.c_str(), n) == 0) {
				v.push_back(x);
				named = true;
			}
		if (!named && !item.empty())
			v.push_back(std::strtoull(item.c_str(), nullptr, 0));
		if (end == std::string::npos)
			break;
		at = end + 1;
	}
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	double budget = argc > 1 ? std::atof(argv[1]) : 0.3;
	if (budget <= 0)
		budget = 0.3;
	std::vector<uint64_t> ops = {OP_WRITE, OP_READ, OP_SEND};
	std::vector<uint64_t> sizes = {8, 64, 512, 4096, 65536, kBuf};
	if (argc > 2)
		ops = list(argv[2], {{"WRITE", OP_WRITE}, {"READ", OP_READ}, {"SEND", OP_SEND}});
	if (argc > 3)
		sizes = list(argv[3], {});
	for (uint64_t s : sizes)
		if (!s || s > kBuf) {
			std::fprintf(stderr, "bench: sizes are 1 .. %llu bytes\n", static_cast<unsigned long long>(kBuf));
			return 2;
		}
	std::printf("# mlx5-emu host-only RC benchmark: 2 HCAs, one fabric, %u WQEs in flight, a doorbell per WQE\n",
		    kDepth);
	std::printf("# %-5s %8s %12s %12s %14s %8s %11s %6s %9s %9s\n", "op", "bytes", "MiB/s", "msg/s",
		    "memcpy MiB/s", "ratio", "eng us/msg", "eng %", "eng ratio", "wake/msg");
	bool ok = true;
	for (uint64_t op64 : ops) {
		uint8_t op = static_cast<uint8_t>(op64);
		// A fresh pair per operation: SEND's receive queue starts empty.
		RcPair p;
		// As DmaMapTable: the device's writes share the memory's lock.
		p.a.mem().share_writes(true);
		p.b.mem().share_writes(true);
		auto la = p.a.reg_mr(kBuf), rb = p.b.reg_mr(kBuf);
		// SEND: b's receive queue full of receives as large as the largest
		// message, one posted again for each receive completion.
		for (unsigned i = 0; op == OP_SEND && i < kRq; ++i)
			p.b.post_recv(p.bqp, rb, kBuf);
		for (uint64_t size64 : sizes) {
			uint32_t size = static_cast<uint32_t>(size64);
			Point pt = run(p, op, size, la, rb, budget);
			if (!pt.ok) {
				std::printf("  %-5s %8u FAILED\n", name(op), size);
				ok = false;
				break;
			}
			double mc = memcpy_rate(size, budget / 3);
			double eng_mibs = pt.eng_us > 0 ? size / pt.eng_us * 1e6 / (1 << 20) : 0;
			std::printf("  %-5s %8u %12.1f %12.0f %14.1f %8.3f %11.2f %6.0f %9.3f %9.2f\n", name(op), size,
				    pt.mibs, pt.msgs, mc, pt.mibs / mc, pt.eng_us, 100 * pt.eng_share, eng_mibs / mc,
				    pt.wakes);
			std::fflush(stdout);
		}
	}
	return ok ? 0 : 1;
}
