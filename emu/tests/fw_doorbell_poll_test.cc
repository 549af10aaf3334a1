// SPDX-License-Identifier: GPL-2.0
// Polled UAR pages (fw/doorbell_pages.h, fw/doorbell_poller.h,
// exec/doorbell_sweep.cc): doorbells written to shared memory as a guest
// writes them through QEMU's mapping, taken by a scan, overwritten ones
// recovered from the doorbell records, the ownership rules of trapped
// doorbells kept; and a stress run checked against reference counts.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "dp_harness.h"
#include "fw/doorbell_poller.h"
#include "fw/firmware.h"

namespace mlx5emu::test {
namespace {

void store64(uint8_t *at, uint64_t v) { __atomic_store_n(reinterpret_cast<uint64_t *>(at), v, __ATOMIC_RELEASE); }
void store32(uint8_t *at, uint32_t v) { __atomic_store_n(reinterpret_cast<uint32_t *>(at), v, __ATOMIC_RELEASE); }

TEST(DoorbellPages, TakesWhatWasWrittenToLivePagesOnly)
{
	DoorbellPages p(1 << 20, 4, 200);
	ASSERT_TRUE(p.ok()) << p.error();
	struct Got {
		uint32_t page, off;
		unsigned size;
		uint64_t v;
	};
	std::vector<Got> got;
	auto take = [&] {
		got.clear();
		return p.take([&](uint32_t page, uint32_t off, unsigned size, uint64_t v) { got.push_back({page, off, size, v}); });
	};
	p.open_page(5);
	p.open_page(130);
	EXPECT_EQ(take(), 0u);
	store64(p.page_memory(5) + 0x900, 0x1122334455667788ull);
	store32(p.page_memory(130) + 0x48, 0x01000007u);
	ASSERT_EQ(take(), 2u);
	EXPECT_EQ(got[0].page, 5u);
	EXPECT_EQ(got[0].off, 0x900u);
	EXPECT_EQ(got[0].size, 8u);
	EXPECT_EQ(got[0].v, 0x1122334455667788ull);
	EXPECT_EQ(got[1].page, 130u);
	EXPECT_EQ(got[1].off, 0x48u);
	EXPECT_EQ(got[1].size, 4u);
	EXPECT_EQ(got[1].v, 0x01000007u);
	EXPECT_EQ(take(), 0u) << "each doorbell is taken once";
	// The register reads all-ones again once taken.
	uint64_t reg;
	std::memcpy(&reg, p.page_memory(5) + 0x900, 8);
	EXPECT_EQ(reg, ~0ull);

	store64(p.page_memory(6) + 0x800, 1); // never opened
	p.close_page(5);
	store64(p.page_memory(5) + 0x20, 2);
	EXPECT_EQ(take(), 0u);
	p.open_page(5); // a new allocation starts empty
	EXPECT_EQ(take(), 0u);
	p.close_all();
	store64(p.page_memory(130) + 0x20, 3);
	EXPECT_EQ(take(), 0u);
	EXPECT_FALSE(p.polled(3));
	EXPECT_FALSE(p.polled(200));
}

// One HCA with polled doorbells: `page` is a polled UAR page that the CQs
// and QPs created from here on use; the EQ stays on the first (trapped).
struct Polled {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0, false, LinkType::Ib, true};
	uint32_t trapped = a.uar;
	uint32_t page = 0;
	uint8_t *mem = nullptr;

	Polled()
	{
		page = a.h.alloc_uar();
		a.uar = page;
		mem = a.h.fw().dbpages->page_memory(page);
	}
	Firmware &fw() { return a.h.fw(); }

	// The send doorbell of the WQE at `idx` (its control segment's first
	// 8 bytes) stored to BlueFlame register half `reg` (0..7) of `at`.
	void ring(const DpHca::Qp &q, uint16_t idx, unsigned reg, uint8_t *at = nullptr)
	{
		uint64_t sq = q.buf + q.rq_bytes() + (idx & ((1u << q.log_sq) - 1)) * 64ull;
		uint64_t v;
		auto b = a.mem().bytes(sq, 8);
		std::memcpy(&v, b.data(), 8);
		store64((at ? at : mem) + 0x800 + reg * 0x100, v);
	}
	// A CQ arm as drivers write it: the arm record, then the doorbell.
	uint32_t arm(const DpHca::Cq &q, uint8_t sn, bool solicited)
	{
		uint32_t word = static_cast<uint32_t>(sn & 3) << 28 | (solicited ? 1u << 24 : 0) | (q.ci & 0xffffff);
		uint8_t rec[4];
		bits::store_be32(rec, word);
		a.mem().write(q.dbr + 4, rec, 4);
		uint8_t db[8];
		bits::store_be32(db, word);
		bits::store_be32(db + 4, q.cqn);
		uint64_t v;
		std::memcpy(&v, db, 8);
		store64(mem + 0x20, v);
		return word;
	}
	uint64_t arms(const DpHca::Cq &q)
	{
		auto lk = a.dp().lock();
		return a.dp().res().cq(q.cqn)->counters().arms;
	}
	uint32_t last_arm(const DpHca::Cq &q)
	{
		auto lk = a.dp().lock();
		return a.dp().res().cq(q.cqn)->last_arm_word();
	}
};

TEST(DoorbellPoll, OverwrittenSendDoorbellsComeBackFromTheRecords)
{
	Polled t;
	DpHca &a = t.a;
	auto scq = a.create_cq(6), rcq = a.create_cq(6);
	auto q1 = a.create_qp(ST_RC, scq, scq, 4, 6), q2 = a.create_qp(ST_RC, scq, scq, 4, 6);
	auto r1 = a.create_qp(ST_RC, rcq, rcq, 4, 6), r2 = a.create_qp(ST_RC, rcq, rcq, 4, 6);
	connect_rc(a, q1, a, r1);
	connect_rc(a, q2, a, r2);
	auto src = a.reg_mr(4096), dst = a.reg_mr(4096);
	fill(a.mem(), src.addr, 64, 1);

	// q1 and q2 ring the same register before the poller looks: only
	// q2's doorbell is there.
	uint16_t i1 = a.post_send(q1, DpHca::rdma_wr(OP_WRITE, src, 16, dst.addr, dst.key), false);
	t.ring(q1, i1, 0);
	uint16_t i2 = a.post_send(q2, DpHca::rdma_wr(OP_WRITE, src, 16, dst.addr + 64, dst.key, 16), false);
	t.ring(q2, i2, 0);
	EXPECT_EQ(t.fw().poll_doorbells(), 1u);
	Cqe e1, e2;
	ASSERT_TRUE(a.poll(scq, &e1));
	ASSERT_TRUE(a.poll(scq, &e2));
	EXPECT_EQ(e1.opcode, 0u);
	EXPECT_EQ(e2.opcode, 0u);
	EXPECT_NE(e1.qpn, e2.qpn);
	EXPECT_EQ(a.mem().bytes(dst.addr, 16), a.mem().bytes(src.addr, 16));
	EXPECT_EQ(a.mem().bytes(dst.addr + 64, 16), a.mem().bytes(src.addr + 16, 16));
	ASSERT_TRUE(a.settle());
	// q1's doorbell, and the page's two CQs: never armed, so the first
	// sweep takes their records (CREATE_CQ wrote nothing there) as arms,
	// once.
	EXPECT_EQ(a.dp().counters().doorbells_recovered, 3u);
	EXPECT_EQ(t.fw().bar.polled_doorbells.load(), 1u);
	ASSERT_NE(t.last_arm(scq), Cq::kNeverArmed);
	ASSERT_NE(t.last_arm(rcq), Cq::kNeverArmed);
}

// The sweep a scan asks for runs on the engine while the scan goes on:
// when it has read the records before a doorbell the same scan takes
// later from the same page was written, and that doorbell had overwritten
// another, the overwritten one must still come back (a sweep asked for
// after the page's last doorbell of the scan).
TEST(DoorbellPoll, DoorbellOverwrittenAfterTheScansSweepRanComesBack)
{
	Polled t;
	DpHca &a = t.a;
	auto scq = a.create_cq(6), rcq = a.create_cq(6);
	std::vector<DpHca::Qp> q, r;
	for (unsigned i = 0; i < 3; ++i) {
		q.push_back(a.create_qp(ST_RC, scq, scq, 4, 6));
		r.push_back(a.create_qp(ST_RC, rcq, rcq, 4, 6));
		connect_rc(a, q[i], a, r[i]);
	}
	auto m = a.reg_mr(4096);
	auto wr = [&](unsigned i) { return DpHca::rdma_wr(OP_WRITE, m, 8, m.addr + 2048 + 8 * i, m.key); };
	ASSERT_TRUE(a.settle());

	// q0 rings BlueFlame register 0: the scan takes it first and asks
	// for a sweep of the page.
	t.ring(q[0], a.post_send(q[0], wr(0), false), 0);
	unsigned calls = 0;
	t.fw().after_polled_doorbell = [&](uint32_t page, uint32_t off) {
		if (calls++ || page != t.page || off != 0x800)
			return;
		// That sweep has run (read the records) before the scan looks
		// at register 1, where q2's doorbell overwrites q1's.
		EXPECT_TRUE(a.settle());
		t.ring(q[1], a.post_send(q[1], wr(1), false), 1);
		t.ring(q[2], a.post_send(q[2], wr(2), false), 1);
	};
	EXPECT_EQ(t.fw().poll_doorbells(), 2u);
	t.fw().after_polled_doorbell = nullptr;
	EXPECT_EQ(calls, 2u);
	std::vector<unsigned> got(3);
	Cqe e;
	for (unsigned k = 0; k < 3 && a.poll(scq, &e, std::chrono::milliseconds(2000)); ++k) {
		EXPECT_EQ(e.opcode, 0u);
		for (unsigned i = 0; i < 3; ++i)
			got[i] += e.qpn == q[i].qpn;
	}
	EXPECT_EQ(got, std::vector<unsigned>({1, 1, 1})) << "q1's doorbell, overwritten by q2's, was lost";
	ASSERT_TRUE(a.settle());
	EXPECT_TRUE(a.empty(scq));
}

TEST(DoorbellPoll, OverwrittenCqArmComesBackFromTheArmRecord)
{
	Polled t;
	auto c1 = t.a.create_cq(4), c2 = t.a.create_cq(4);
	// CREATE_CQ wrote nothing into the doorbell records (software's).
	EXPECT_EQ(t.a.mem().bytes(c1.dbr, 64), std::vector<uint8_t>(64, 0));
	EXPECT_EQ(t.a.mem().bytes(c2.dbr, 64), std::vector<uint8_t>(64, 0));
	// c1's first arm is REQ_NOT at CI 0: the word 0.
	EXPECT_EQ(t.arm(c1, 0, false), 0u);
	t.arm(c2, 0, true);
	EXPECT_EQ(t.fw().poll_doorbells(), 1u);
	ASSERT_TRUE(t.a.settle());
	EXPECT_EQ(t.arms(c1), 1u);
	EXPECT_EQ(t.arms(c2), 1u);
	// Nothing new in the records: a later sweep arms nothing again.
	t.arm(c2, 0, true);
	EXPECT_EQ(t.fw().poll_doorbells(), 1u);
	ASSERT_TRUE(t.a.settle());
	EXPECT_EQ(t.arms(c1), 1u);
	EXPECT_EQ(t.arms(c2), 2u);
}

// A sweep queued before a CQ's arm doorbell task runs before it, with the
// records as they are when it runs: it may apply an arm newer than the
// doorbell that task carries (that arm's own doorbell overwritten). The
// older doorbell must not undo it. The engine is held (the state lock)
// so that all of it is queued before anything runs.
TEST(DoorbellPoll, StaleCqArmAfterANewerSweptOneIsNotApplied)
{
	Polled t;
	auto c1 = t.a.create_cq(4), c2 = t.a.create_cq(4);
	ASSERT_TRUE(t.a.settle());
	uint32_t newest;
	{
		auto held = t.a.dp().lock();
		t.arm(c2, 0, false);
		EXPECT_EQ(t.fw().poll_doorbells(), 1u); // c2's task, then a sweep
		t.arm(c1, 1, false);
		EXPECT_EQ(t.fw().poll_doorbells(), 1u); // c1's task, after the sweep
		newest = t.arm(c1, 2, true);
		t.arm(c2, 1, true); // overwrites c1's newest arm
		EXPECT_EQ(t.fw().poll_doorbells(), 1u);
	}
	ASSERT_TRUE(t.a.settle());
	EXPECT_EQ(t.last_arm(c1), newest) << "c1's older arm doorbell undid the newer arm its record held";
	// Nothing new: another sweep of the page changes nothing.
	t.arm(c2, 2, false);
	EXPECT_EQ(t.fw().poll_doorbells(), 1u);
	ASSERT_TRUE(t.a.settle());
	EXPECT_EQ(t.last_arm(c1), newest);
}

TEST(DoorbellPoll, OwnershipRulesHoldOnPolledPages)
{
	Polled t;
	DpHca &a = t.a;
	// A QP and a CQ of the trapped page, rung through the polled one.
	a.uar = t.trapped;
	auto cq = a.create_cq(4);
	auto qp = a.create_qp(ST_RC, cq, cq, 4, 6);
	auto peer = a.create_qp(ST_RC, cq, cq, 4, 6);
	connect_rc(a, qp, a, peer);
	auto m = a.reg_mr(4096);
	uint16_t idx = a.post_send(qp, DpHca::rdma_wr(OP_WRITE, m, 8, m.addr + 512, m.key), false);
	t.ring(qp, idx, 3);
	uint8_t db[8];
	bits::store_be32(db, 0);
	bits::store_be32(db + 4, cq.cqn);
	uint64_t v;
	std::memcpy(&v, db, 8);
	store64(t.mem + 0x20, v);
	store32(t.mem + 0x40, htobe32(a.eq.eqn << 24));
	EXPECT_EQ(t.fw().poll_doorbells(), 3u);
	ASSERT_TRUE(a.settle());
	Firmware::DroppedDoorbells d = t.fw().doorbells_dropped();
	EXPECT_EQ(d.sq, 1u);
	EXPECT_EQ(d.cq, 1u);
	EXPECT_EQ(d.eq, 1u);
	EXPECT_TRUE(a.empty(cq)) << "a doorbell through another page moved nothing";
	// The sweep of the polled page leaves the trapped page's queues alone.
	EXPECT_EQ(a.dp().counters().doorbells_recovered, 0u);
	// Through its own page it goes.
	a.ring_sq(qp, a.mem().bytes(qp.buf + qp.rq_bytes(), 8).data());
	Cqe e;
	ASSERT_TRUE(a.poll(cq, &e));
	EXPECT_EQ(e.opcode, 0u);
}

// Many random doorbells from one thread while the poller thread runs with
// its back-off: 8 QPs ring random BlueFlame registers of two polled pages
// (so they overwrite each other's doorbells), 4 idle CQs are armed at
// random through the same pages. Every WQE posted must complete exactly
// once (per-QP reference counts), and every CQ ends with the last arm
// written.
TEST(DoorbellPoll, StressNoDoorbellIsLost)
{
	Polled t;
	DpHca &a = t.a;
	uint32_t page2 = a.h.alloc_uar();
	uint8_t *mem2 = t.fw().dbpages->page_memory(page2);
	constexpr unsigned kQps = 8, kArmCqs = 4, kOutstanding = 24;
	const unsigned total = 20000;

	auto scq = a.create_cq(10), rcq = a.create_cq(10);
	std::vector<DpHca::Qp> q, r;
	std::vector<uint8_t *> qmem;
	for (unsigned i = 0; i < kQps; ++i) {
		a.uar = i % 2 ? page2 : t.page;
		qmem.push_back(i % 2 ? mem2 : t.mem);
		q.push_back(a.create_qp(ST_RC, scq, scq, 4, 6));
		r.push_back(a.create_qp(ST_RC, rcq, rcq, 4, 6));
		connect_rc(a, q[i], a, r[i]);
	}
	a.uar = t.page;
	std::vector<DpHca::Cq> acq;
	for (unsigned i = 0; i < kArmCqs; ++i)
		acq.push_back(a.create_cq(4));
	auto m = a.reg_mr(4096);

	DoorbellPoller poller;
	poller.add(&t.fw());
	poller.start();

	std::mt19937 rng(1234);
	std::vector<unsigned> posted(kQps), completed(kQps), outstanding(kQps);
	std::vector<uint32_t> last_arm(kArmCqs, Cq::kNeverArmed);
	std::vector<uint8_t> sn(kArmCqs, 1);
	unsigned done = 0, sent = 0;
	auto drain = [&](std::chrono::milliseconds wait) {
		Cqe e;
		while (a.poll(scq, &e, wait)) {
			EXPECT_EQ(e.opcode, 0u) << "syndrome 0x" << std::hex << unsigned(e.syndrome);
			for (unsigned i = 0; i < kQps; ++i)
				if (q[i].qpn == e.qpn) {
					++completed[i];
					--outstanding[i];
				}
			++done;
			wait = std::chrono::milliseconds(0);
		}
	};
	while (sent < total) {
		unsigned i = rng() % kQps;
		if (outstanding[i] < kOutstanding) {
			uint16_t idx = a.post_send(q[i], DpHca::rdma_wr(OP_WRITE, m, 8, m.addr + 2048 + 8 * i, m.key), false);
			t.ring(q[i], idx, rng() % 8, qmem[i]);
			++posted[i];
			++outstanding[i];
			++sent;
		}
		if (rng() % 16 == 0) {
			unsigned k = rng() % kArmCqs;
			last_arm[k] = t.arm(acq[k], sn[k]++, rng() % 2);
		}
		drain(std::chrono::milliseconds(0));
	}
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
	while (done < total && std::chrono::steady_clock::now() < end)
		drain(std::chrono::milliseconds(5));
	// The last arms may still sit in the page: stop() scans it once more.
	poller.stop();
	ASSERT_TRUE(a.settle());

	EXPECT_EQ(done, total);
	for (unsigned i = 0; i < kQps; ++i)
		EXPECT_EQ(completed[i], posted[i]) << "QP " << i;
	for (unsigned k = 0; k < kArmCqs; ++k) {
		if (last_arm[k] == Cq::kNeverArmed)
			continue;
		EXPECT_EQ(t.last_arm(acq[k]), last_arm[k]) << "CQ " << k;
	}
	std::printf("stress: %u WQEs, %llu doorbells polled, %llu recovered from records, %llu scans, %llu sleeps\n", total,
		    (unsigned long long)t.fw().bar.polled_doorbells.load(),
		    (unsigned long long)a.dp().counters().doorbells_recovered,
		    (unsigned long long)poller.counters().scans.load(), (unsigned long long)poller.counters().sleeps.load());
	EXPECT_GT(a.dp().counters().doorbells_recovered, 0u) << "the registers were never overwritten: no stress";
}

} // namespace
} // namespace mlx5emu::test
