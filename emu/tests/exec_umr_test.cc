// SPDX-License-Identifier: GPL-2.0
// UMR WQEs (exec/umr.cc): registration through the UMR QP (inline and
// indirect translation lists, translation offsets), PD and access changes,
// fast registration and local invalidation on an RC QP, send with
// invalidate, memory windows of type 1 and 2 (bind, access through the
// window, invalidation), strong ordering, and the refusals: bounds of the
// translation room, foreign PDs, keys without UMR, free checks, windows
// wider than their region or granting more than it allows.
#include "dp_harness.h"
#include "fw/caps.h"

namespace mlx5emu::test {
namespace {

constexpr uint8_t OP_UMR = 0x25;
constexpr uint8_t kReq = 0, kRespSendInv = 4, kReqErr = 0xd, kRespErr = 0xe;
constexpr uint8_t kLocalLength = 0x01, kLocalProt = 0x04, kFlush = 0x05, kMwBind = 0x06, kRemoteAccess = 0x13;
constexpr uint8_t kModeMtt = 1, kModeKlm = 2;

// UMR control segment flags and mkey mask bits (PRM layouts).
enum : uint8_t { U_INLINE = 0x80, U_FAIL_IF_FREE = 0x40, U_FAIL_IF_NOT_FREE = 0x20, U_XLT_OFFSET = 0x10, U_CHECK_QPN = 0x08 };
enum : uint64_t {
	M_LEN = 1ull << 0, M_PAGE_SIZE = 1ull << 1, M_START = 1ull << 6, M_PD = 1ull << 7, M_EN_RINVAL = 1ull << 8,
	M_KEY = 1ull << 13, M_QPN = 1ull << 14, M_LR = 1ull << 17, M_LW = 1ull << 18, M_RR = 1ull << 19,
	M_RW = 1ull << 20, M_A = 1ull << 21, M_FREE = 1ull << 29,
	M_ACCESS = M_LR | M_LW | M_RR | M_RW | M_A,
	M_TRANSLATION = M_LEN | M_PAGE_SIZE | M_START,
};

// One UMR WQE: the UMR control segment, the mkey segment, then inline
// entries or a data segment.
struct Umr {
	uint8_t flags = U_INLINE;
	uint16_t octowords = 0;
	uint64_t xlt_offset = 0; // 16-byte units
	uint64_t mask = 0;
	std::vector<uint8_t> mkc = std::vector<uint8_t>(64, 0);
	std::vector<uint8_t> data;

	Umr &field(bits::Field f, uint32_t v)
	{
		bits::set(mkc.data(), mkc.size(), f, v);
		return *this;
	}
	Umr &access(unsigned a) { return field({0, 14, 10}, a >> 10); }
	Umr &range(uint64_t start, uint64_t len)
	{
		bits::store_be64(&mkc[0x10], start);
		bits::store_be64(&mkc[0x18], len);
		return *this;
	}
	Umr &free(bool f) { return field({0, 30, 30}, f); }
	Umr &variant(uint8_t v) { return field({1, 7, 0}, v); }
	Umr &qpn(uint32_t q) { return field({1, 31, 8}, q); }
	Umr &pd(uint32_t p) { return field({3, 23, 0}, p); }
	Umr &en_rinval(bool e) { return field({3, 24, 24}, e); }
	Umr &log_page(unsigned l) { return field({0xe, 5, 0}, l); }
	// Inline MTT entries (present), padded to 64 bytes.
	Umr &mtts(const std::vector<uint64_t> &pages)
	{
		data.assign((pages.size() * 8 + 63) / 64 * 64, 0);
		for (size_t i = 0; i < pages.size(); ++i)
			bits::store_be64(&data[8 * i], pages[i] | 3);
		octowords = static_cast<uint16_t>(data.size() / 16);
		flags |= U_INLINE;
		return *this;
	}
	// Inline KLM entries (byte count, key, address), padded to 64 bytes.
	Umr &klms(const std::vector<Klm> &es)
	{
		data.assign((es.size() * 16 + 63) / 64 * 64, 0);
		for (size_t i = 0; i < es.size(); ++i) {
			bits::store_be32(&data[16 * i], es[i].bcount);
			bits::store_be32(&data[16 * i + 4], es[i].key);
			bits::store_be64(&data[16 * i + 8], es[i].va);
		}
		octowords = static_cast<uint16_t>(data.size() / 16);
		flags |= U_INLINE;
		return *this;
	}
	Umr &klm(uint32_t bcount, uint32_t key, uint64_t va) { return klms({Klm{bcount, key, va}}); }
	// The translation list at (`addr`, `lkey`) in guest memory.
	Umr &indirect(uint64_t addr, uint32_t lkey, uint32_t bytes)
	{
		data.assign(16, 0);
		bits::store_be32(&data[0], bytes);
		bits::store_be32(&data[4], lkey);
		bits::store_be64(&data[8], addr);
		octowords = static_cast<uint16_t>(bytes / 16);
		flags &= static_cast<uint8_t>(~U_INLINE);
		return *this;
	}

	std::vector<uint8_t> segments() const
	{
		std::vector<uint8_t> w(16 + 48, 0);
		w[16] = flags;
		bits::store_be16(&w[16 + 4], octowords);
		bits::store_be16(&w[16 + 6], static_cast<uint16_t>(xlt_offset));
		bits::store_be64(&w[16 + 8], mask);
		bits::store_be32(&w[16 + 16], static_cast<uint32_t>(xlt_offset >> 16));
		w.insert(w.end(), mkc.begin(), mkc.end());
		w.insert(w.end(), data.begin(), data.end());
		return w;
	}
};

uint16_t post_umr(DpHca &h, DpHca::Qp &q, uint32_t key, const Umr &u, uint8_t flags = F_SIGNALED)
{
	return h.post_wqe(q, OP_UMR, flags, key, u.segments());
}

// A free key made for UMR (what the in-tree MR cache, ib_alloc_mr and
// ALLOC_MW create): `octowords` of translation room.
DpHca::Mr free_key(DpHca &h, uint8_t mode, uint32_t octowords, unsigned access = A_LR, bool en_rinval = false,
		   uint32_t pd = 0, uint8_t variant = 0)
{
	Msg c(0x200, 0, 0x110);
	c.set({ctx_dw(0), 30, 30}, 1).set({ctx_dw(0), 15, 15}, 1).set({ctx_dw(0), 14, 10}, access >> 10);
	c.set({ctx_dw(0), 9, 8}, mode).set({ctx_dw(1), 31, 8}, 0xffffff).set({ctx_dw(1), 7, 0}, variant);
	c.set({ctx_dw(3), 24, 24}, en_rinval).set({ctx_dw(3), 23, 0}, pd ? pd : h.pd);
	c.set({ctx_dw(0xd), 31, 0}, octowords).set({ctx_dw(0xe), 5, 0}, 12);
	auto out = h.h.ok(c, 16);
	DpHca::Mr m;
	m.index = be32_at(out, 8) & 0xffffff;
	m.key = m.index << 8 | variant;
	return m;
}

std::vector<uint64_t> pages_of(uint64_t addr, size_t n)
{
	std::vector<uint64_t> v;
	for (size_t i = 0; i < n; ++i)
		v.push_back(addr + 4096 * i);
	return v;
}

// The mask and fields the in-tree driver's fast registration (IB_WR_REG_MR)
// writes: translation, rights, key variant, remote invalidation, in use.
Umr frwr(uint64_t iova, uint64_t len, unsigned access, uint8_t variant, const std::vector<uint64_t> &pages)
{
	Umr u;
	u.mask = M_TRANSLATION | M_EN_RINVAL | M_KEY | M_ACCESS | M_FREE;
	u.access(access | A_LR).range(iova, len).variant(variant).qpn(0xffffff).en_rinval(true).log_page(12).mtts(pages);
	return u;
}

// Two connected RC QPs (requester a, responder b) and a UMR QP on b.
struct UmrPair : RcPair {
	DpHca::Cq ucq = b.create_cq(5);
	DpHca::Qp uqp = b.create_qp(ST_UMR, ucq, ucq, 0, 5);

	UmrPair() { b.to_rts_ud(uqp, 0); }

	// b's RC QP as the in-tree driver creates its kernel QPs: with
	// rlky, its lists may live behind the reserved lkey.
	void kernel_rlky()
	{
		auto lk = b.dp().lock();
		b.dp().res().qp(bqp.qpn)->rlky = true;
	}

	// a writes `len` bytes of `src` to (raddr, rkey) on b; the CQE.
	Cqe write(const DpHca::Mr &src, uint32_t len, uint64_t raddr, uint32_t rkey)
	{
		send(DpHca::rdma_wr(OP_WRITE, src, len, raddr, rkey));
		Cqe e;
		EXPECT_TRUE(a.poll(acq, &e));
		return e;
	}
	// b's UMR QP executes `u` on `key`; the CQE.
	Cqe umr(uint32_t key, const Umr &u)
	{
		post_umr(b, uqp, key, u);
		Cqe e;
		EXPECT_TRUE(b.poll(ucq, &e));
		return e;
	}
	// b's RC QP executes `u` on `key`; the CQE.
	Cqe umr_rc(uint32_t key, const Umr &u)
	{
		post_umr(b, bqp, key, u);
		Cqe e;
		EXPECT_TRUE(b.poll(bcq, &e));
		return e;
	}
};

TEST(ExecUmr, UmrQpRegistersAFreeKeyWithInlineMtts)
{
	UmrPair p;
	auto key = free_key(p.b, kModeMtt, 8); // 16 pages of room
	uint64_t buf = p.b.mem().alloc(3 * 4096, 4096);
	auto src = p.a.reg_mr(8192);
	fill(p.a.mem(), src.addr, 8192, 9);
	// Not usable while free.
	Cqe e = p.write(src, 64, 0x10000, key.key);
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteAccess);
	UmrPair q;
	key = free_key(q.b, kModeMtt, 8);
	buf = q.b.mem().alloc(3 * 4096, 4096);
	src = q.a.reg_mr(8192);
	fill(q.a.mem(), src.addr, 8192, 9);
	// Enable, as the MR cache does: key, rights, PD, translation, in use.
	Umr u;
	u.flags = U_FAIL_IF_NOT_FREE;
	u.mask = M_KEY | M_FREE | M_ACCESS | M_PD | M_TRANSLATION;
	u.access(A_LR | A_LW | A_RW).pd(q.b.pd).range(0x10000, 3 * 4096).log_page(12).variant(0x33).qpn(0xffffff);
	u.mtts(pages_of(buf, 3));
	e = q.umr(key.key, u);
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_UMR);
	uint32_t rkey = key.index << 8 | 0x33;
	// 8 KiB at 0x10800: across all three pages.
	e = q.write(src, 8192, 0x10800, rkey);
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(q.b.mem().bytes(buf + 0x800, 8192), q.a.mem().bytes(src.addr, 8192));
	// The old variant is gone; the end of the range holds.
	EXPECT_EQ(q.write(src, 16, 0x10800, key.key).syndrome, kRemoteAccess);
}

TEST(ExecUmr, IndirectListWithTranslationOffset)
{
	UmrPair p;
	auto key = free_key(p.b, kModeMtt, 8);
	uint64_t buf = p.b.mem().alloc(16 * 4096, 4096);
	// The list lives in guest memory behind the reserved lkey: first
	// pages 0-7 at offset 0 (translation only, key stays free), then
	// pages 8-15 at offset 4 octowords with the enable.
	uint64_t list = p.b.mem().alloc(64, 64);
	auto put_list = [&](size_t first) {
		std::vector<uint8_t> l(64);
		for (size_t i = 0; i < 8; ++i)
			bits::store_be64(&l[8 * i], (buf + 4096 * (first + i)) | 3);
		p.b.mem().write(list, l.data(), l.size());
	};
	put_list(0);
	Umr u;
	u.flags = U_FAIL_IF_NOT_FREE | U_XLT_OFFSET;
	u.indirect(list, 0x100, 64);
	EXPECT_EQ(p.umr(key.key, u).opcode, kReq);
	put_list(8);
	u.xlt_offset = 4;
	u.mask = M_FREE | M_ACCESS | M_PD | M_TRANSLATION;
	u.access(A_LR | A_LW | A_RW).pd(p.b.pd).range(0x40000, 16 * 4096).log_page(12).qpn(0xffffff);
	EXPECT_EQ(p.umr(key.key, u).opcode, kReq);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 4);
	EXPECT_EQ(p.write(src, 4096, 0x40000 + 15 * 4096, key.key).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(buf + 15 * 4096, 4096), p.a.mem().bytes(src.addr, 4096));
	EXPECT_EQ(p.write(src, 100, 0x40000 + 3 * 4096, key.key).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(buf + 3 * 4096, 100), p.a.mem().bytes(src.addr, 100));
}

TEST(ExecUmr, UmrQpReadsItsListThroughAKeyOfAnyPd)
{
	// The in-tree driver's list key is its UMR PD's DMA key, whatever
	// PD the UMR QP context names.
	UmrPair p;
	auto key = free_key(p.b, kModeMtt, 4);
	uint64_t buf = p.b.mem().alloc(4096, 4096);
	auto list = p.b.reg_mr(64, A_LR | A_LW, p.b.alloc_pd());
	std::vector<uint8_t> l(64);
	bits::store_be64(&l[0], buf | 3);
	p.b.mem().write(list.addr, l.data(), l.size());
	Umr u;
	u.flags = U_FAIL_IF_NOT_FREE;
	u.mask = M_FREE | M_ACCESS | M_TRANSLATION;
	u.access(A_LR | A_LW | A_RW).range(0x3000, 4096).log_page(12).qpn(0xffffff);
	u.indirect(list.addr, list.key, 64);
	EXPECT_EQ(p.umr(key.key, u).opcode, kReq);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 64, 8);
	EXPECT_EQ(p.write(src, 64, 0x3000, key.key).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(buf, 64), p.a.mem().bytes(src.addr, 64));
}

TEST(ExecUmr, TranslationBeyondTheRoomFailsAndLeavesTheKey)
{
	UmrPair p;
	auto key = free_key(p.b, kModeMtt, 4); // 8 entries (one 64-byte unit)
	Umr u;
	u.flags = U_FAIL_IF_NOT_FREE | U_XLT_OFFSET;
	u.xlt_offset = 4; // entries 8..15: past the room
	u.mtts(pages_of(0x100000, 8));
	Cqe e = p.umr(key.key, u);
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalLength);
	const Mkey *k = p.b.dp().res().mkeys.find_index(key.index);
	ASSERT_NE(k, nullptr);
	EXPECT_TRUE(k->free);
	EXPECT_TRUE(k->mtt.empty());
	// The UMR QP is in error: the next WQE flushes.
	post_umr(p.b, p.uqp, key.key, Umr{});
	ASSERT_TRUE(p.b.poll(p.ucq, &e));
	EXPECT_EQ(e.syndrome, kFlush);
}

TEST(ExecUmr, IndirectListLongerThanItsKeyIsRefused)
{
	UmrPair p;
	auto key = free_key(p.b, kModeMtt, 1024);
	auto small = p.b.reg_mr(4096, A_LR | A_LW);
	Umr u;
	u.flags = U_FAIL_IF_NOT_FREE;
	u.indirect(small.addr, small.key, 8192); // the list would run past the MR
	Cqe e = p.umr(key.key, u);
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalProt);
}

TEST(ExecUmr, RereregChangesPdAndAccess)
{
	UmrPair p;
	auto dst = p.b.reg_mr(4096, A_LR | A_LW | A_UMR_EN);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 1);
	EXPECT_EQ(p.write(src, 64, dst.addr, dst.key).syndrome, kRemoteAccess) << "no remote write yet";
	RcPair fresh; // a fresh connection (the first one is in error)
	auto d2 = fresh.b.reg_mr(4096, A_LR | A_LW | A_UMR_EN);
	auto s2 = fresh.a.reg_mr(4096);
	fill(fresh.a.mem(), s2.addr, 4096, 1);
	DpHca::Cq ucq = fresh.b.create_cq(5);
	DpHca::Qp uqp = fresh.b.create_qp(ST_UMR, ucq, ucq, 0, 5);
	fresh.b.to_rts_ud(uqp, 0);
	// The in-tree rereg: access and PD, the key must be in use.
	Umr u;
	u.flags = U_INLINE | U_FAIL_IF_FREE;
	u.mask = M_ACCESS | M_PD;
	u.access(A_LR | A_LW | A_RW).pd(fresh.b.pd).qpn(0xffffff).variant(0x5a);
	post_umr(fresh.b, uqp, d2.key, u);
	Cqe e;
	ASSERT_TRUE(fresh.b.poll(ucq, &e));
	EXPECT_EQ(e.opcode, kReq);
	fresh.send(DpHca::rdma_wr(OP_WRITE, s2, 64, d2.addr, d2.key));
	ASSERT_TRUE(fresh.a.poll(fresh.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(fresh.b.mem().bytes(d2.addr, 64), fresh.a.mem().bytes(s2.addr, 64));
	// Another PD: the responder QP (in the first PD) may no longer use it.
	uint32_t pd2 = fresh.b.alloc_pd();
	u.pd(pd2);
	post_umr(fresh.b, uqp, d2.key, u);
	ASSERT_TRUE(fresh.b.poll(ucq, &e));
	EXPECT_EQ(e.opcode, kReq);
	fresh.send(DpHca::rdma_wr(OP_WRITE, s2, 64, d2.addr, d2.key));
	ASSERT_TRUE(fresh.a.poll(fresh.acq, &e));
	EXPECT_EQ(e.syndrome, kRemoteAccess);
	EXPECT_EQ(fresh.b.dp().res().mkeys.find_index(d2.index)->pd, pd2);
}

TEST(ExecUmr, ChecksOfTheFlagsAndKeysWithoutUmr)
{
	UmrPair p;
	auto plain = p.b.reg_mr(4096, A_LR | A_LW); // created without umr_en
	Umr u;
	u.mask = M_ACCESS;
	u.access(A_LR);
	Cqe e = p.umr(plain.key, u);
	EXPECT_EQ(e.syndrome, kLocalProt);
	UmrPair q;
	auto key = free_key(q.b, kModeMtt, 4);
	u.flags = U_INLINE | U_FAIL_IF_FREE; // rereg of a free key
	e = q.umr(key.key, u);
	EXPECT_EQ(e.syndrome, kLocalProt);
	UmrPair r;
	auto used = r.b.reg_mr(4096, A_LR | A_UMR_EN);
	u.flags = U_INLINE | U_FAIL_IF_NOT_FREE; // enabling a key in use
	e = r.umr(used.key, u);
	EXPECT_EQ(e.syndrome, kLocalProt);
	UmrPair s;
	e = s.umr(0xfff00, u); // no such key
	EXPECT_EQ(e.syndrome, kLocalProt);
}

TEST(ExecUmr, FastRegistrationAndLocalInvalidateOnAnRcQp)
{
	UmrPair p;
	auto frmr = free_key(p.b, kModeMtt, 4);
	uint64_t buf = p.b.mem().alloc(2 * 4096, 4096);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 7);
	uint32_t rkey = frmr.index << 8 | 0x01;
	Cqe e = p.umr_rc(rkey, frwr(0x7000800, 4096, A_LW | A_RW, 0x01, pages_of(buf, 2)));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_UMR);
	EXPECT_EQ(p.write(src, 4096, 0x7000800, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(buf + 0x800, 4096), p.a.mem().bytes(src.addr, 4096));
	// IB_WR_LOCAL_INV: free, nothing else.
	Umr inv;
	inv.mask = M_FREE;
	inv.free(true);
	e = p.umr_rc(rkey, inv);
	EXPECT_EQ(e.opcode, kReq);
	e = p.write(src, 16, 0x7000800, rkey);
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kRemoteAccess);
}

// The in-tree driver's gappy fast registration (IB_MR_TYPE_SG_GAPS, what
// nvme-rdma uses when imaicl is advertised): a KLM key whose entries name
// the PD's DMA key (physical addresses) piece by piece.
TEST(ExecUmr, KlmFastRegistrationOverTheDmaKey)
{
	UmrPair p;
	Msg c(0x200, 0, 0x110);
	c.set({ctx_dw(0), 14, 10}, (A_LR | A_LW) >> 10).set({ctx_dw(1), 31, 8}, 0xffffff);
	c.set({ctx_dw(3), 31, 31}, 1).set({ctx_dw(3), 23, 0}, p.b.pd); // PA, length64
	uint32_t dma_key = (be32_at(p.b.h.ok(c, 16), 8) & 0xffffff) << 8;
	auto gappy = free_key(p.b, kModeKlm, 4);
	uint64_t b1 = p.b.mem().alloc(4096, 4096), b2 = p.b.mem().alloc(4096, 4096);
	Umr u;
	u.mask = M_TRANSLATION | M_EN_RINVAL | M_KEY | M_ACCESS | M_FREE;
	u.access(A_LR | A_LW | A_RW).range(b1 + 512, 3584 + 100).variant(0x44).qpn(0xffffff).en_rinval(true);
	u.klms({Klm{3584, dma_key, b1 + 512}, Klm{100, dma_key, b2 + 7}});
	uint32_t rkey = gappy.index << 8 | 0x44;
	ASSERT_EQ(p.umr_rc(rkey, u).opcode, kReq);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 3684, 6);
	ASSERT_EQ(p.write(src, 3684, b1 + 512, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(b1 + 512, 3584), p.a.mem().bytes(src.addr, 3584));
	EXPECT_EQ(p.b.mem().bytes(b2 + 7, 100), p.a.mem().bytes(src.addr + 3584, 100));
	// One byte past the registered length.
	EXPECT_EQ(p.write(src, 3685, b1 + 512, rkey).syndrome, kRemoteAccess);
}

// nvme-rdma's fast registration on the in-tree driver: ib_alloc_mr with
// 257 entries (a key of ALIGN(257, 4) = 260 octowords of room: mlx5_ib
// writes the entry count there), then IB_WR_REG_MR of a 1 MiB request,
// 256 pages, the list read through the reserved lkey, and the target's
// 1 MiB RDMA WRITE through the new rkey.
TEST(ExecUmr, FastRegistrationOfANvmeRequest)
{
	UmrPair p;
	auto frmr = free_key(p.b, kModeMtt, 260);
	constexpr size_t kPages = 256, kBytes = kPages * 4096;
	uint64_t buf = p.b.mem().alloc(kBytes, 4096);
	uint64_t list = p.b.mem().alloc(kPages * 8, 64);
	std::vector<uint8_t> l(kPages * 8);
	for (size_t i = 0; i < kPages; ++i)
		bits::store_be64(&l[8 * i], (buf + 4096 * i) | 3);
	p.b.mem().write(list, l.data(), l.size());
	uint32_t rkey = frmr.index << 8 | 0x02;
	Umr u = frwr(buf, kBytes, A_LW | A_RW | A_RR, 0x02, {});
	u.indirect(list, 0x100, kPages * 8);
	p.kernel_rlky();
	Cqe e = p.umr_rc(rkey, u);
	ASSERT_EQ(e.opcode, kReq);
	auto src = p.a.reg_mr(kBytes);
	fill(p.a.mem(), src.addr, kBytes, 3);
	ASSERT_EQ(p.write(src, kBytes, buf, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(buf, kBytes), p.a.mem().bytes(src.addr, kBytes));
	EXPECT_EQ(p.write(src, 1, buf + kBytes, rkey).syndrome, kRemoteAccess);
}

// The longest list the capabilities advertise (log_max_klm_list_size) in
// one fast registration: 2^15 pages, every entry aliasing one of two
// buffers, the first and the last page written through the key.
TEST(ExecUmr, FastRegistrationOfTheAdvertisedListLength)
{
	UmrPair p;
	auto gen = p.b.h.ok(Msg(0x100, 1, 16), 4112);
	unsigned log_len = field(gen, bits::Field{0x8, 5, 0}.at(0x10));
	ASSERT_EQ(log_len, Caps::kLogMaxFastRegList);
	const size_t n = size_t{1} << log_len;
	auto frmr = free_key(p.b, kModeMtt, static_cast<uint32_t>(n));
	uint64_t even = p.b.mem().alloc(4096, 4096), odd = p.b.mem().alloc(4096, 4096);
	uint64_t list = p.b.mem().alloc(n * 8, 64);
	std::vector<uint8_t> l(n * 8);
	for (size_t i = 0; i < n; ++i)
		bits::store_be64(&l[8 * i], ((i & 1) ? odd : even) | 3);
	p.b.mem().write(list, l.data(), l.size());
	const uint64_t iova = 0x100000000ull;
	uint32_t rkey = frmr.index << 8 | 0x03;
	Umr u = frwr(iova, n * 4096, A_LW | A_RW, 0x03, {});
	u.indirect(list, 0x100, static_cast<uint32_t>(n * 8));
	p.kernel_rlky();
	ASSERT_EQ(u.octowords, n / 2);
	ASSERT_EQ(p.umr_rc(rkey, u).opcode, kReq);
	auto src = p.a.reg_mr(8192);
	fill(p.a.mem(), src.addr, 8192, 5);
	ASSERT_EQ(p.write(src, 4096, iova, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(even, 4096), p.a.mem().bytes(src.addr, 4096));
	ASSERT_EQ(p.write(src, 4096, iova + (n - 1) * 4096, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(odd, 4096), p.a.mem().bytes(src.addr, 4096));
}

// log_max_klm_list_size bounds a KLM key's whole list and a fast
// registration's pages: beyond it a UMR is LOCAL_LENGTH, fails its QP and
// allocates nothing (one WQE at an offset used to grow a list to the
// key's room, up to the budget: hundreds of MiB). The UMR QP's MTT
// updates at an offset (the MR cache) are bounded by the key's room.
TEST(ExecUmr, TranslationsBeyondTheAdvertisedListLengthAreRefused)
{
	const uint64_t max = uint64_t{1} << Caps::kLogMaxFastRegList;
	UmrPair p;
	// CREATE_MKEY gives a KLM key room for max entries at most
	// (fw_isolation_test); one entry at offset max is beyond it.
	auto klmkey = free_key(p.b, kModeKlm, static_cast<uint32_t>(max)); // room for max entries
	auto region = p.b.reg_mr(4096, A_LR | A_LW);
	uint64_t before;
	{
		auto lk = p.b.dp().lock();
		before = p.b.dp().res().mkeys.xlt_entries();
	}
	Umr u;
	u.flags = U_FAIL_IF_NOT_FREE | U_XLT_OFFSET;
	u.xlt_offset = max; // KLM entries are 16-byte units
	u.klm(4096, region.key, region.addr);
	Cqe e = p.umr(klmkey.key, u);
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalLength);
	{
		auto lk = p.b.dp().lock();
		EXPECT_TRUE(p.b.dp().res().mkeys.find_index(klmkey.index)->klm.empty());
		EXPECT_EQ(p.b.dp().res().mkeys.xlt_entries(), before);
		EXPECT_EQ(p.b.dp().counters().umr_xlt_refused, 1u);
	}

	// A fast registration on an RC QP: pages max .. max + 7 are refused.
	UmrPair q;
	uint64_t buf = q.b.mem().alloc(8 * 4096, 4096);
	auto frmr = free_key(q.b, kModeMtt, static_cast<uint32_t>(max)); // room for 2 * max pages
	Umr f = frwr(0x100000, 8 * 4096, A_LW, 0x01, pages_of(buf, 8));
	f.flags |= U_XLT_OFFSET;
	f.xlt_offset = max / 2; // MTT entries are 8 bytes
	e = q.umr_rc(frmr.key, f);
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalLength);
	{
		auto lk = q.b.dp().lock();
		EXPECT_TRUE(q.b.dp().res().mkeys.find_index(frmr.index)->mtt.empty());
		EXPECT_EQ(q.b.dp().counters().umr_xlt_refused, 1u);
	}
	// The UMR QP writes the same entries of a key with that room.
	auto cached = free_key(q.b, kModeMtt, static_cast<uint32_t>(max));
	Umr m;
	m.flags = U_FAIL_IF_NOT_FREE | U_XLT_OFFSET;
	m.xlt_offset = max / 2;
	m.mtts(pages_of(buf, 8));
	EXPECT_EQ(q.umr(cached.key, m).opcode, kReq);
}

TEST(ExecUmr, RcUmrOnAKeyOfAnotherPdIsRefused)
{
	UmrPair p;
	uint32_t pd2 = p.b.alloc_pd();
	auto frmr = free_key(p.b, kModeMtt, 4, A_LR, false, pd2);
	Cqe e = p.umr_rc(frmr.key, frwr(0x1000, 4096, A_LW, 0, pages_of(0x200000, 1)));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kLocalProt);
}

TEST(ExecUmr, UmrWaitsForTheWqesBeforeIt)
{
	UmrPair p;
	auto frmr = free_key(p.a, kModeMtt, 4);
	uint64_t buf = p.a.mem().alloc(4096, 4096);
	fill(p.a.mem(), buf, 4096, 3);
	auto dst = p.b.reg_mr(4096);
	// a registers its source, writes from it and invalidates it in one
	// go: the WRITE must read its data before the invalidation.
	post_umr(p.a, p.aqp, frmr.key, frwr(0x5000, 4096, A_LW, 0, pages_of(buf, 1)), 0);
	p.send(DpHca::rdma_wr(OP_WRITE, DpHca::Mr{0x5000, 4096, frmr.key, frmr.index}, 4096, dst.addr, dst.key));
	Umr inv;
	inv.mask = M_FREE;
	inv.free(true);
	post_umr(p.a, p.aqp, frmr.key, inv);
	Cqe e;
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_WRITE);
	ASSERT_TRUE(p.a.poll(p.acq, &e));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(e.wqe_opcode, OP_UMR);
	EXPECT_EQ(p.b.mem().bytes(dst.addr, 4096), p.a.mem().bytes(buf, 4096));
	EXPECT_TRUE(p.a.dp().res().mkeys.find_index(frmr.index)->free);
}

TEST(ExecUmr, SendWithInvalidateFreesTheResponderKey)
{
	UmrPair p;
	auto frmr = free_key(p.b, kModeMtt, 4);
	uint64_t buf = p.b.mem().alloc(4096, 4096);
	ASSERT_EQ(p.umr_rc(frmr.key, frwr(0x9000, 4096, A_LW | A_RW, 0, pages_of(buf, 1))).opcode, kReq);
	auto src = p.a.reg_mr(4096);
	auto rbuf = p.b.reg_mr(4096);
	p.recv(rbuf, 4096);
	DpHca::Wr w = DpHca::send_wr(src, 32);
	w.opcode = OP_SEND_INV;
	w.imm = frmr.key;
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(e.opcode, kReq);
	EXPECT_EQ(r.opcode, kRespSendInv);
	uint8_t be[4];
	bits::store_be32(be, frmr.key);
	EXPECT_EQ(std::memcmp(&r.imm, be, 4), 0) << "the invalidated rkey";
	EXPECT_TRUE(p.b.dp().res().mkeys.find_index(frmr.index)->free);
	EXPECT_EQ(p.write(src, 16, 0x9000, frmr.key).syndrome, kRemoteAccess);
}

TEST(ExecUmr, SendWithInvalidateOfAKeyWithoutRemoteInvalidationFails)
{
	UmrPair p;
	auto plain = p.b.reg_mr(4096); // CREATE_MKEY: no en_rinval
	auto src = p.a.reg_mr(4096);
	auto rbuf = p.b.reg_mr(4096);
	p.recv(rbuf, 4096);
	DpHca::Wr w = DpHca::send_wr(src, 32);
	w.opcode = OP_SEND_INV;
	w.imm = plain.key;
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(r.opcode, kRespErr);
	EXPECT_FALSE(p.b.dp().res().mkeys.find_index(plain.index)->free);
}

// A window bind as the mlx5 provider posts it: key, rights, range and one
// KLM entry into the region (type 2 also names the QP and must be free).
Umr bind(uint8_t variant, unsigned access, uint64_t addr, uint64_t len, const DpHca::Mr &mr, uint32_t qpn)
{
	Umr u;
	u.flags = U_INLINE | U_XLT_OFFSET | (qpn != 0xffffff ? U_FAIL_IF_NOT_FREE : 0);
	u.mask = M_FREE | M_KEY | M_LEN | M_START | M_LW | M_RR | M_RW | M_A | (qpn != 0xffffff ? uint64_t(M_QPN) : 0);
	u.access(access).range(addr, len).variant(variant).qpn(qpn).klm(static_cast<uint32_t>(len), mr.key, addr);
	return u;
}

// Invalidation: a zero-length bind (type 1) or IBV_WR_LOCAL_INV (type 2).
Umr unbind(bool type2)
{
	Umr u;
	u.flags = U_INLINE | U_XLT_OFFSET | (type2 ? U_CHECK_QPN : 0);
	u.mask = M_FREE | M_KEY | (type2 ? uint64_t(M_QPN) : 0);
	u.free(true).qpn(0xffffff);
	return u;
}

TEST(ExecUmr, Type1WindowBindAccessAndInvalidate)
{
	UmrPair p;
	auto mr = p.b.reg_mr(8192, A_LR | A_LW);
	auto mw = free_key(p.b, kModeKlm, 4);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 5);
	uint32_t rkey = mw.index << 8 | 0x11;
	Cqe e = p.umr_rc(mw.key, bind(0x11, A_RW | A_RR, mr.addr + 1024, 4096, mr, 0xffffff));
	EXPECT_EQ(e.opcode, kReq);
	// Remote write through the window lands in the region; the region
	// itself grants no remote access.
	EXPECT_EQ(p.write(src, 4096, mr.addr + 1024, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(mr.addr + 1024, 4096), p.a.mem().bytes(src.addr, 4096));
	// Past the window's end.
	UmrPair q;
	mr = q.b.reg_mr(8192, A_LR | A_LW);
	mw = free_key(q.b, kModeKlm, 4);
	src = q.a.reg_mr(4096);
	rkey = mw.index << 8 | 0x11;
	ASSERT_EQ(q.umr_rc(mw.key, bind(0x11, A_RW, mr.addr, 4096, mr, 0xffffff)).opcode, kReq);
	EXPECT_EQ(q.write(src, 16, mr.addr + 4090, rkey).syndrome, kRemoteAccess);
	// Invalidated by a zero-length bind: access fails.
	UmrPair r;
	mr = r.b.reg_mr(8192, A_LR | A_LW);
	mw = free_key(r.b, kModeKlm, 4);
	src = r.a.reg_mr(4096);
	rkey = mw.index << 8 | 0x11;
	ASSERT_EQ(r.umr_rc(mw.key, bind(0x11, A_RW, mr.addr, 4096, mr, 0xffffff)).opcode, kReq);
	ASSERT_EQ(r.umr_rc(rkey, unbind(false)).opcode, kReq);
	EXPECT_EQ(r.write(src, 16, mr.addr, rkey).syndrome, kRemoteAccess);
}

TEST(ExecUmr, WindowBindRefusals)
{
	UmrPair p;
	auto ro = p.b.reg_mr(8192, A_LR); // no local write
	auto rw = p.b.reg_mr(8192, A_LR | A_LW);
	auto mw = free_key(p.b, kModeKlm, 4);
	// Remote write over a region without local write.
	Cqe e = p.umr_rc(mw.key, bind(0x11, A_RW, ro.addr, 4096, ro, 0xffffff));
	EXPECT_EQ(e.opcode, kReqErr);
	EXPECT_EQ(e.syndrome, kMwBind);
	EXPECT_TRUE(p.b.dp().res().mkeys.find_index(mw.index)->free) << "a refused bind changes nothing";
	// Wider than the region.
	UmrPair q;
	rw = q.b.reg_mr(8192, A_LR | A_LW);
	mw = free_key(q.b, kModeKlm, 4);
	e = q.umr_rc(mw.key, bind(0x11, A_RR, rw.addr + 4096, 8192, rw, 0xffffff));
	EXPECT_EQ(e.syndrome, kMwBind);
	// A region of another PD.
	UmrPair r;
	uint32_t pd2 = r.b.alloc_pd();
	auto other = r.b.reg_mr(4096, A_LR | A_LW, pd2);
	mw = free_key(r.b, kModeKlm, 4);
	e = r.umr_rc(mw.key, bind(0x11, A_RR, other.addr, 4096, other, 0xffffff));
	EXPECT_EQ(e.syndrome, kMwBind);
	// A window of another PD.
	UmrPair s;
	rw = s.b.reg_mr(4096, A_LR | A_LW);
	mw = free_key(s.b, kModeKlm, 4, A_LR, false, s.b.alloc_pd());
	e = s.umr_rc(mw.key, bind(0x11, A_RR, rw.addr, 4096, rw, 0xffffff));
	EXPECT_EQ(e.syndrome, kMwBind);
	// More KLM entries than the window's room.
	UmrPair t;
	rw = t.b.reg_mr(4096, A_LR | A_LW);
	mw = free_key(t.b, kModeKlm, 4);
	Umr u = bind(0x11, A_RR, rw.addr, 4096, rw, 0xffffff);
	u.xlt_offset = 4;
	e = t.umr_rc(mw.key, u);
	EXPECT_EQ(e.syndrome, kLocalLength);
}

TEST(ExecUmr, Type2WindowServesItsQpAndIsInvalidated)
{
	UmrPair p;
	auto mr = p.b.reg_mr(8192, A_LR | A_LW);
	auto mw = free_key(p.b, kModeKlm, 4, A_LR, true);
	auto src = p.a.reg_mr(4096);
	fill(p.a.mem(), src.addr, 4096, 2);
	uint32_t rkey = mw.index << 8 | 0x22;
	ASSERT_EQ(p.umr_rc(mw.key, bind(0x22, A_RW, mr.addr, 8192, mr, p.bqp.qpn)).opcode, kReq);
	EXPECT_EQ(p.b.dp().res().mkeys.find_index(mw.index)->qpn, p.bqp.qpn);
	EXPECT_EQ(p.write(src, 4096, mr.addr + 4096, rkey).opcode, kReq);
	EXPECT_EQ(p.b.mem().bytes(mr.addr + 4096, 4096), p.a.mem().bytes(src.addr, 4096));
	// Bound: a second type 2 bind must find it free.
	Cqe e = p.umr_rc(rkey, bind(0x23, A_RW, mr.addr, 4096, mr, p.bqp.qpn));
	EXPECT_EQ(e.syndrome, kMwBind);

	// Another QP of the same PD may not use it, nor invalidate it.
	UmrPair q;
	mr = q.b.reg_mr(8192, A_LR | A_LW);
	mw = free_key(q.b, kModeKlm, 4, A_LR, true);
	rkey = mw.index << 8 | 0x22;
	ASSERT_EQ(q.umr_rc(mw.key, bind(0x22, A_RW, mr.addr, 8192, mr, q.bqp.qpn)).opcode, kReq);
	DpHca::Cq ocq = q.b.create_cq(4);
	DpHca::Qp oqp = q.b.create_qp(ST_RC, ocq, ocq, 4, 6), oqp2 = q.b.create_qp(ST_RC, ocq, ocq, 4, 6);
	DpHca::Qp aqp2 = q.a.create_qp(ST_RC, q.acq, q.acq, 4, 6), aqp3 = q.a.create_qp(ST_RC, q.acq, q.acq, 4, 6);
	connect_rc(q.a, aqp2, q.b, oqp);
	connect_rc(q.a, aqp3, q.b, oqp2);
	post_umr(q.b, oqp2, rkey, unbind(true));
	ASSERT_TRUE(q.b.poll(ocq, &e));
	EXPECT_EQ(e.syndrome, kMwBind);
	src = q.a.reg_mr(4096);
	q.a.post_send(aqp2, DpHca::rdma_wr(OP_WRITE, src, 16, mr.addr, rkey));
	ASSERT_TRUE(q.a.poll(q.acq, &e));
	EXPECT_EQ(e.syndrome, kRemoteAccess);
	// Its own QP invalidates it (IBV_WR_LOCAL_INV); access then fails.
	ASSERT_EQ(q.umr_rc(rkey, unbind(true)).opcode, kReq);
	EXPECT_EQ(q.write(src, 16, mr.addr, rkey).syndrome, kRemoteAccess);

	// A type 2 bind naming another QP is refused.
	UmrPair r;
	mr = r.b.reg_mr(8192, A_LR | A_LW);
	mw = free_key(r.b, kModeKlm, 4, A_LR, true);
	e = r.umr_rc(mw.key, bind(0x22, A_RW, mr.addr, 8192, mr, r.bqp.qpn + 1));
	EXPECT_EQ(e.syndrome, kMwBind);
}

TEST(ExecUmr, Type2WindowInvalidatedBySendWithInvalidate)
{
	UmrPair p;
	auto mr = p.b.reg_mr(8192, A_LR | A_LW);
	auto mw = free_key(p.b, kModeKlm, 4, A_LR, true);
	uint32_t rkey = mw.index << 8 | 0x22;
	ASSERT_EQ(p.umr_rc(mw.key, bind(0x22, A_RW, mr.addr, 8192, mr, p.bqp.qpn)).opcode, kReq);
	auto src = p.a.reg_mr(4096);
	p.recv(mr, 64, 4096);
	DpHca::Wr w = DpHca::send_wr(src, 16);
	w.opcode = OP_SEND_INV;
	w.imm = rkey;
	Cqe e, r;
	ASSERT_TRUE(p.send_and_poll(w, &e, &r));
	EXPECT_EQ(r.opcode, kRespSendInv);
	EXPECT_EQ(p.write(src, 16, mr.addr, rkey).syndrome, kRemoteAccess);
}

// A user context (CREATE_UCTX) on `h`: its uid.
uint16_t create_uctx(DpHca &h)
{
	auto out = h.h.ok(Msg(0xa04, 0, 0x40), 16);
	return static_cast<uint16_t>(be32_at(out, 8) & 0xffff);
}

// UMR privilege: a QP created with a user context's uid (a process's QP
// under DEVX, what libmlx5 always asks for) remaps no direct key: the
// in-tree driver's cached MRs are kernel keys with umr_en that a process
// uses in its PD, and their entries are bus addresses. Remapping one is
// a local protection error and changes nothing. Windows and KLM keys
// (entries are keys checked against the PD) stay its to bind, whether
// the kernel created them (the in-tree driver's ALLOC_MW) or its own
// context did; another context's are refused. The kernel's QPs (uid 0)
// keep every right.
TEST(ExecUmr, UserQpRemapsNoDirectKeyAndNoWindowOfAnotherContext)
{
	auto user_qp = [](UmrPair &p) {
		uint16_t uid = create_uctx(p.b);
		p.b.dp().res().qp(p.bqp.qpn)->uid = uid;
		return uid;
	};
	auto uid_of = [](UmrPair &p, const DpHca::Mr &k) -> uint16_t & {
		return p.b.dp().res().mkeys.find_index(k.index)->uid;
	};
	// A kernel key in the process's PD (the MR cache's): refused.
	{
		UmrPair p;
		user_qp(p);
		auto cached = free_key(p.b, kModeMtt, 4);
		Cqe e = p.umr_rc(cached.key, frwr(0x1000, 4096, A_LW | A_RW, 0, pages_of(0x200000, 1)));
		EXPECT_EQ(e.opcode, kReqErr);
		EXPECT_EQ(e.syndrome, kLocalProt);
		EXPECT_TRUE(p.b.dp().res().mkeys.find_index(cached.index)->free) << "a refused UMR changes nothing";
		EXPECT_TRUE(p.b.dp().res().mkeys.find_index(cached.index)->mtt.empty());
	}
	// A direct key of its own context: refused too.
	{
		UmrPair p;
		uint16_t uid = user_qp(p);
		auto own = free_key(p.b, kModeMtt, 4);
		uid_of(p, own) = uid;
		Cqe e = p.umr_rc(own.key, frwr(0x1000, 4096, A_LW, 0, pages_of(0x200000, 1)));
		EXPECT_EQ(e.syndrome, kLocalProt);
	}
	// Windows the kernel or its own context created: bound, used,
	// invalidated.
	for (bool own : {false, true}) {
		UmrPair p;
		uint16_t uid = user_qp(p);
		auto mr = p.b.reg_mr(8192, A_LR | A_LW);
		auto mw = free_key(p.b, kModeKlm, 4);
		if (own)
			uid_of(p, mw) = uid;
		uint32_t rkey = mw.index << 8 | 0x11;
		ASSERT_EQ(p.umr_rc(mw.key, bind(0x11, A_RW, mr.addr, 4096, mr, 0xffffff)).opcode, kReq) << own;
		auto src = p.a.reg_mr(4096);
		EXPECT_EQ(p.write(src, 16, mr.addr, rkey).opcode, kReq);
		ASSERT_EQ(p.umr_rc(rkey, unbind(false)).opcode, kReq);
	}
	// A window of another context in the same PD.
	{
		UmrPair p;
		user_qp(p);
		auto mr = p.b.reg_mr(8192, A_LR | A_LW);
		auto mw = free_key(p.b, kModeKlm, 4);
		uid_of(p, mw) = create_uctx(p.b);
		Cqe e = p.umr_rc(mw.key, bind(0x11, A_RW, mr.addr, 4096, mr, 0xffffff));
		EXPECT_EQ(e.opcode, kReqErr);
		EXPECT_EQ(e.syndrome, kMwBind);
		EXPECT_TRUE(p.b.dp().res().mkeys.find_index(mw.index)->free);
	}
	// The kernel's QP registers the cached key.
	{
		UmrPair p;
		auto cached = free_key(p.b, kModeMtt, 4);
		EXPECT_EQ(p.umr_rc(cached.key, frwr(0x1000, 4096, A_LW, 0, pages_of(0x200000, 1))).opcode, kReq);
	}
}

// The uid in command headers: CREATE_UCTX hands them out, objects keep
// the uid they were created with, a uid that names no user context is
// refused, DESTROY_UCTX takes it back.
TEST(ExecUmr, UserContextsAndTheUidOfObjects)
{
	DpHca h(std::make_shared<Fabric>(), 0);
	EXPECT_EQ(field(h.h.ok(Msg(0x100, 1, 16), 16 + 4096), bits::Field{0x23, 28, 24}.at(16)), 8u) << "log_max_uctx";
	uint16_t uid = create_uctx(h);
	EXPECT_NE(uid, 0u);
	EXPECT_NE(create_uctx(h), uid);
	h.h.fails(Msg(0xa04, 0, 0x40).set({0, 15, 0}, uid), 16, 0x03); // only the kernel creates them
	Msg c(0x200, 0, 0x110);
	c.set({0, 15, 0}, uid).set({ctx_dw(0), 30, 30}, 1).set({ctx_dw(0), 15, 15}, 1).set({ctx_dw(0), 9, 8}, kModeKlm);
	c.set({ctx_dw(3), 23, 0}, h.pd).set({ctx_dw(0xd), 31, 0}, 4);
	uint32_t idx = be32_at(h.h.ok(c, 16), 8) & 0xffffff;
	EXPECT_EQ(h.dp().res().mkeys.find_index(idx)->uid, uid);
	// Not while the context's key lives (fw/README.md "User contexts and uids").
	h.h.fails(Msg(0xa06, 0, 16).set({2, 15, 0}, uid), 16, 0x09);
	h.h.ok(Msg(0x202, 0, 16).set({0, 15, 0}, uid).set({2, 23, 0}, idx), 16);
	h.h.ok(Msg(0xa06, 0, 16).set({2, 15, 0}, uid), 16);
	h.h.fails(Msg(0xa06, 0, 16).set({2, 15, 0}, uid), 16, 0x03);
	h.h.fails(c, 16, 0x03); // a uid that names no context
	c.set({0, 15, 0}, 0xffff); // the shared-resource uid
	h.h.ok(c, 16);
}

TEST(ExecUmr, TranslationBudgetBoundsHostMemory)
{
	MkeyTable t;
	EXPECT_TRUE(t.xlt_resized(0, MkeyTable::kMaxXltEntries));
	EXPECT_FALSE(t.xlt_resized(0, 1));
	EXPECT_TRUE(t.xlt_resized(MkeyTable::kMaxXltEntries, 0));
	EXPECT_EQ(t.xlt_entries(), 0u);
}

} // namespace
} // namespace mlx5emu::test
