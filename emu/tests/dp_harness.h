// SPDX-License-Identifier: GPL-2.0
// A miniature verbs provider for the data-path tests: PDs, MRs, CQs, QPs
// and SRQs created through commands, WQEs written into fake guest memory,
// doorbells rung through BAR0, CQEs polled with the owner bit. Several
// HCAs can share one fabric. Context and WQE offsets are written out
// literally (from the PRM layouts) so that they check the emulator's
// tables instead of reusing them.
#pragma once

#include <cstring>
#include <memory>

#include "exec/datapath.h"
#include "fabric/fabric.h"
#include "fw_harness.h"

namespace mlx5emu::test {

// Absolute input dword of a context dword: qpc at 0x18, cqc/mkc at 0x10.
constexpr uint16_t qpc_dw(uint16_t d) { return static_cast<uint16_t>(6 + d); }
constexpr uint16_t ctx_dw(uint16_t d) { return static_cast<uint16_t>(4 + d); }

// WQE and CQE literals.
enum : uint8_t { OP_NOP = 0x00, OP_SEND_INV = 0x01, OP_WRITE = 0x08, OP_WRITE_IMM = 0x09, OP_SEND = 0x0a,
		 OP_SEND_IMM = 0x0b, OP_READ = 0x10, OP_CAS = 0x11, OP_FAA = 0x12 };
enum : uint8_t { F_SIGNALED = 0x08, F_SOLICITED = 0x02, F_FENCE = 0x40 };
enum : uint8_t { ST_RC = 0, ST_UC = 1, ST_UD = 2, ST_XRC = 3, ST_DCI = 5, ST_QP0 = 7, ST_QP1 = 8, ST_UMR = 0xc };
enum : unsigned { A_LR = 1u << 10, A_LW = 1u << 11, A_RR = 1u << 12, A_RW = 1u << 13, A_ATOMIC = 1u << 14,
		  A_ALL = A_LR | A_LW | A_RR | A_RW | A_ATOMIC, A_UMR_EN = 1u << 15 };

struct Cqe {
	uint8_t opcode = 0xf, owner = 0, syndrome = 0, wqe_opcode = 0;
	uint16_t wqe_counter = 0, slid = 0;
	uint32_t qpn = 0, byte_cnt = 0, imm = 0, srqn_uidx = 0, flags_rqpn = 0;
	uint64_t timestamp = 0;
};

struct Sg {
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

class DpHca {
public:
	struct Mr {
		uint64_t addr = 0, len = 0;
		uint32_t key = 0, index = 0;
	};
	struct Cq {
		uint32_t cqn = 0;
		uint64_t buf = 0, dbr = 0;
		unsigned log = 0, stride = 64;
		uint32_t ci = 0;
	};
	struct Qp {
		uint32_t qpn = 0;
		uint8_t st = 0;
		uint64_t buf = 0, dbr = 0;
		unsigned log_rq = 0, log_rq_stride = 0, log_sq = 0;
		uint16_t sq_pi = 0, rq_pi = 0;
		uint64_t rq_bytes() const { return log_rq_stride || log_rq ? (16ull << log_rq_stride) << log_rq : 0; }
	};
	struct Srq {
		uint32_t n = 0;
		uint64_t buf = 0, dbr = 0;
		unsigned log = 0, log_stride = 0;
		uint16_t head = 0, counter = 0;
	};

	static HcaConfig config(std::shared_ptr<Fabric> f, unsigned index, LinkType link = LinkType::Ib,
				bool poll_doorbells = false, pci::FunctionRole role = pci::FunctionRole::Pf)
	{
		HcaConfig c;
		c.index = index;
		c.fabric = std::move(f);
		c.link = link;
		c.poll_doorbells = poll_doorbells;
		c.role = role;
		return c;
	}

	// Brought up like mlx5_core: atomic endianness mode 1 (host order,
	// little-endian here) unless `atomic_be`. With `poll_doorbells`, UAR
	// pages after the first are polled (fw/doorbell_pages.h): `uar` (the
	// first, with the EQ) still traps.
	DpHca(std::shared_ptr<Fabric> fabric, unsigned index, bool atomic_be = false, LinkType link = LinkType::Ib,
	      bool poll_doorbells = false, pci::FunctionRole role = pci::FunctionRole::Pf)
		: h(config(std::move(fabric), index, link, poll_doorbells, role)), atomic_be_(atomic_be)
	{
		up();
	}

	// The driver's load: ENABLE_HCA .. INIT_HCA, a UAR, a completion EQ
	// and a PD.
	void up()
	{
		h.enable();
		h.give_pages(static_cast<uint32_t>(h.query_pages(1)));
		if (!atomic_be_)
			h.ok(Msg(0x109, 3 << 1, 4112).set(bits::Field{2, 31, 30}.at(0x10), 1), 16);
		h.give_pages(static_cast<uint32_t>(h.query_pages(2)));
		h.ok(Msg(0x102, 0, 32), 16);
		uar = h.alloc_uar();
		eq = h.create_eq(7, 0, 1, uar); // a completion EQ on vector 1
		h.eq_doorbell(eq, 0, true);
		pd = alloc_pd();
	}

	// The driver's unload after up() (the objects created since gone):
	// PD, EQ and UAR freed, TEARDOWN_HCA, every page reclaimed, DISABLE_HCA,
	// then a function reset as at the next probe; the command queue is set
	// up again.
	void down()
	{
		h.ok(Msg(0x801, 0, 16).set({2, 23, 0}, pd), 16);
		h.ok(Msg(0x302, 0, 16).set({2, 7, 0}, eq.eqn), 16);
		h.ok(Msg(0x803, 0, 16).set({2, 23, 0}, uar), 16);
		h.ok(Msg(0x103, 0, 16), 16);
		while (h.fw().pages_outstanding()) {
			if (h.take_pages(256, 256).empty())
				break;
		}
		h.given.clear();
		h.ok(Msg(0x105, 0, 16), 12);
		h.hca->reset();
		h.init_cmdq();
	}

	uint16_t lid() const { return static_cast<uint16_t>(h.cfg.index + 1); }
	DataPath &dp() { return h.fw().dp(); }
	FakeGuestMemory &mem() { return h.mem; }

	uint32_t alloc_pd()
	{
		auto out = h.ok(Msg(0x800, 0, 16), 16);
		return be32_at(out, 8) & 0xffffff;
	}

	// A page-aligned buffer registered with an MTT list of 4 KiB pages.
	Mr reg_mr(uint64_t len, unsigned access = A_ALL, uint32_t in_pd = 0, uint8_t variant = 0x5a)
	{
		Mr m;
		m.len = len;
		size_t pages = (len + 4095) / 4096;
		m.addr = h.mem.alloc(pages * 4096, 4096);
		Msg c(0x200, 0, 0x110 + 8 * ((pages + 1) & ~1ull));
		c.set({ctx_dw(0), 9, 8}, 1).set({ctx_dw(0), 15, 10}, access >> 10);
		c.set({ctx_dw(1), 31, 8}, 0xffffff).set({ctx_dw(1), 7, 0}, variant);
		c.set({ctx_dw(3), 23, 0}, in_pd ? in_pd : pd);
		c.be64(0x20, m.addr).be64(0x28, len);
		c.set({ctx_dw(0xd), 31, 0}, static_cast<uint32_t>((pages + 1) / 2)).set({ctx_dw(0xe), 5, 0}, 12);
		c.set({0x18, 31, 0}, static_cast<uint32_t>((pages + 1) / 2));
		for (size_t i = 0; i < pages; ++i)
			c.be64(0x110 + 8 * i, (m.addr + 4096 * i) | 3);
		auto out = h.ok(c, 16);
		m.index = be32_at(out, 8) & 0xffffff;
		m.key = m.index << 8 | variant;
		return m;
	}

	Cq create_cq(unsigned log, unsigned cqe_sz = 0)
	{
		Cq q;
		q.log = log;
		q.stride = cqe_sz ? 128 : 64;
		size_t bytes = static_cast<size_t>(q.stride) << log;
		size_t pages = (bytes + 4095) / 4096;
		q.buf = h.mem.alloc(pages * 4096, 4096);
		q.dbr = h.mem.alloc(64, 64);
		for (size_t i = 0; i < (1u << log); ++i) {
			uint8_t inv = 0xf0; // opcode INVALID, owner 0
			h.mem.write(q.buf + i * q.stride + q.stride - 1, &inv, 1);
		}
		Msg c(0x400, 0, 0x110 + 8 * pages);
		c.set({ctx_dw(0), 23, 21}, cqe_sz).set({ctx_dw(3), 28, 24}, log).set({ctx_dw(3), 23, 0}, uar);
		c.set({ctx_dw(5), 31, 0}, eq.eqn).be64(0x48, q.dbr);
		for (size_t i = 0; i < pages; ++i)
			c.be64(0x110 + 8 * i, q.buf + 4096 * i);
		auto out = h.ok(c, 16);
		q.cqn = be32_at(out, 8) & 0xffffff;
		return q;
	}

	// MODIFY_CQ resize of `q` to 2^log entries in a new buffer, returned
	// in *next (the buffer software moves to once it polls the resize
	// CQE, see follow_resize). The command's result.
	FwHarness::Result resize_cq(const Cq &q, unsigned log, Cq *next)
	{
		*next = q;
		next->log = log;
		size_t pages = ((static_cast<size_t>(q.stride) << log) + 4095) / 4096;
		next->buf = h.mem.alloc(pages * 4096, 4096);
		for (size_t i = 0; i < (1u << log); ++i) {
			uint8_t inv = 0xf0;
			h.mem.write(next->buf + i * q.stride + q.stride - 1, &inv, 1);
		}
		Msg c(0x403, 1, 0x110 + 8 * pages);
		c.set({2, 23, 0}, q.cqn).set({3, 31, 0}, 7); // log size, page offset, page size
		c.set({ctx_dw(0), 23, 21}, q.stride == 128).set({ctx_dw(3), 28, 24}, log);
		for (size_t i = 0; i < pages; ++i)
			c.be64(0x110 + 8 * i, next->buf + 4096 * i);
		return h.exec(c, 16);
	}
	// Software's side of a resize: polls the old buffer up to the resize
	// CQE (the CQEs before it into *before), then moves to `next`.
	::testing::AssertionResult follow_resize(Cq &q, const Cq &next, std::vector<Cqe> *before)
	{
		Cqe e;
		for (unsigned n = 0; n <= (1u << q.log); ++n) {
			if (!poll(q, &e))
				return ::testing::AssertionFailure() << "no resize CQE after " << n << " CQEs";
			if (e.opcode == 5) {
				q.buf = next.buf;
				q.log = next.log;
				return ::testing::AssertionSuccess();
			}
			before->push_back(e);
		}
		return ::testing::AssertionFailure() << "more CQEs than the old CQ holds";
	}

	// Polls one CQE; false on timeout.
	bool poll(Cq &q, Cqe *e, std::chrono::milliseconds timeout = kPatience)
	{
		auto end = std::chrono::steady_clock::now() + timeout;
		uint64_t at = q.buf + (q.ci & ((1u << q.log) - 1)) * q.stride + q.stride - 64;
		for (;;) {
			uint8_t op_own = h.mem.peek(at + 63);
			if ((op_own >> 4) != 0xf && (op_own & 1) == ((q.ci >> q.log) & 1))
				break;
			if (std::chrono::steady_clock::now() > end)
				return false;
			std::this_thread::sleep_for(50us);
		}
		auto b = h.mem.cpu_bytes(at, 64);
		e->opcode = b[63] >> 4;
		e->owner = b[63] & 1;
		e->syndrome = b[0x37];
		e->wqe_opcode = b[0x38];
		e->qpn = bits::load_be32(&b[0x38]) & 0xffffff;
		e->wqe_counter = bits::load_be16(&b[0x3c]);
		e->byte_cnt = bits::load_be32(&b[0x2c]);
		std::memcpy(&e->imm, &b[0x24], 4);
		e->srqn_uidx = bits::load_be32(&b[0x20]) & 0xffffff;
		e->flags_rqpn = bits::load_be32(&b[0x18]);
		e->slid = bits::load_be16(&b[0x16]);
		e->timestamp = bits::load_be64(&b[0x30]);
		++q.ci;
		uint8_t ci[4];
		bits::store_be32(ci, q.ci & 0xffffff);
		h.mem.cpu_write(q.dbr, ci, 4);
		return true;
	}
	// True when no CQE shows up within `ms`.
	bool empty(Cq &q, std::chrono::milliseconds ms = 50ms)
	{
		Cqe e;
		uint32_t ci = q.ci;
		bool got = poll(q, &e, ms);
		q.ci = ci;
		return !got;
	}

	void arm(const Cq &q, bool solicited, uint8_t sn = 0)
	{
		uint8_t b[8];
		bits::store_be32(b, static_cast<uint32_t>(sn & 3) << 28 | (solicited ? 1u << 24 : 0) | (q.ci & 0xffffff));
		bits::store_be32(b + 4, q.cqn);
		uint64_t v;
		std::memcpy(&v, b, 8);
		h.hca->bar_write(uar * 4096ull + 0x20, 8, v);
	}

	Qp create_qp(uint8_t st, const Cq &scq, const Cq &rcq, unsigned log_rq = 4, unsigned log_sq = 4,
		     const Srq *srq = nullptr, uint32_t user_index = 0xffffff, bool block_lb_mc = false)
	{
		Qp q;
		q.st = st;
		q.log_rq = srq ? 0 : log_rq;
		q.log_rq_stride = srq ? 0 : 2; // 64-byte receive WQEs: 4 segments
		q.log_sq = log_sq;
		uint64_t bytes = (srq ? 0 : q.rq_bytes()) + (64ull << log_sq);
		size_t pages = (bytes + 4095) / 4096;
		q.buf = h.mem.alloc(pages * 4096, 4096);
		q.dbr = h.mem.alloc(64, 64);
		Msg c(0x500, 0, 0x110 + 8 * pages);
		c.set({qpc_dw(0), 23, 16}, st).set({qpc_dw(0), 12, 11}, 3).set({qpc_dw(1), 23, 0}, pd);
		c.set({qpc_dw(1), 30, 30}, block_lb_mc);
		c.set({qpc_dw(2), 4, 4}, rlky || st == ST_UMR);
		if (!srq)
			c.set({qpc_dw(2), 22, 19}, log_rq).set({qpc_dw(2), 18, 16}, q.log_rq_stride);
		c.set({qpc_dw(2), 14, 11}, log_sq).set({qpc_dw(3), 23, 0}, uar).set({qpc_dw(4), 23, 0}, user_index);
		c.set({qpc_dw(0x1f), 23, 0}, scq.cqn).set({qpc_dw(0x27), 23, 0}, rcq.cqn).be64(0x18 + 0xa0, q.dbr);
		if (srq)
			c.set({qpc_dw(0x2b), 26, 24}, 1).set({qpc_dw(0x2b), 23, 0}, srq->n);
		for (size_t i = 0; i < pages; ++i)
			c.be64(0x110 + 8 * i, q.buf + 4096 * i);
		auto out = h.ok(c, 16);
		q.qpn = be32_at(out, 8) & 0xffffff;
		return q;
	}

	// A transition command with the context fields in `ctx` set.
	Msg modify_msg(uint16_t opcode, const Qp &q, uint32_t opt = 0)
	{
		Msg m(opcode, 0, 0x110);
		m.set({2, 23, 0}, q.qpn).set({4, 31, 0}, opt);
		return m;
	}

	struct RcParams {
		uint16_t dlid = 0;
		uint32_t dqpn = 0;
		uint32_t sq_psn = 0x100, rq_psn = 0x200;
		unsigned mtu = 5, ack_timeout = 10, retry = 7, rnr_retry = 7, min_rnr = 1;
		unsigned log_sra = 4, log_rra = 4; // READs/atomics out / answered at a time
		bool rre = true, rwe = true, rae = true;
	};

	void to_rts_rc(const Qp &q, const RcParams &p)
	{
		Msg a = modify_msg(0x502, q);
		a.set({qpc_dw(0xf), 23, 16}, 1).set({qpc_dw(0x24), 15, 15}, p.rre).set({qpc_dw(0x24), 14, 14}, p.rwe);
		a.set({qpc_dw(0x24), 13, 13}, p.rae);
		h.ok(a, 16);
		Msg b = modify_msg(0x503, q);
		b.set({qpc_dw(2), 31, 29}, p.mtu).set({qpc_dw(5), 23, 0}, p.dqpn).set({qpc_dw(7), 15, 0}, p.dlid);
		b.set({qpc_dw(0x25), 28, 24}, p.min_rnr).set({qpc_dw(0x25), 23, 0}, p.rq_psn).set({qpc_dw(0x24), 23, 21}, p.log_rra);
		h.ok(b, 16);
		Msg c = modify_msg(0x504, q);
		c.set({qpc_dw(0x1e), 23, 0}, p.sq_psn).set({qpc_dw(8), 31, 27}, p.ack_timeout);
		c.set({qpc_dw(0x1c), 18, 16}, p.retry).set({qpc_dw(0x1c), 15, 13}, p.rnr_retry).set({qpc_dw(0x1c), 23, 21}, p.log_sra);
		h.ok(c, 16);
	}

	void to_rts_ud(const Qp &q, uint32_t qkey)
	{
		h.ok(modify_msg(0x502, q).set({qpc_dw(0xf), 23, 16}, 1).set({qpc_dw(0x2a), 31, 0}, qkey), 16);
		h.ok(modify_msg(0x503, q), 16);
		h.ok(modify_msg(0x504, q).set({qpc_dw(0x1e), 23, 0}, 0), 16);
	}

	uint8_t modify_status(uint16_t opcode, const Qp &q)
	{
		auto r = h.exec(modify_msg(opcode, q), 16);
		return r.status;
	}

	struct Wr {
		uint8_t opcode = OP_SEND;
		uint8_t flags = F_SIGNALED;
		std::vector<Sg> sgl;
		std::vector<uint8_t> inl; // inline data (used when non-empty)
		uint64_t raddr = 0;
		uint32_t rkey = 0;
		uint32_t imm = 0; // host value, written big-endian
		uint64_t swap_add = 0, compare = 0;
		uint16_t dlid = 0;
		uint32_t dqpn = 0, qkey = 0;
		// The address vector's GRH (when `grh`).
		bool grh = false;
		uint8_t tclass = 0, hop_limit = 0, sgid_index = 0;
		uint32_t flow_label = 0;
		Gid dgid{};
		uint32_t xrc_srqn = 0; // XRC initiators: the XRC segment
		uint64_t dc_key = 0;   // DCIs: the address vector's DC access key (dqpn: the DCT)
	};

	// A signaled SEND of `len` bytes at `off` in `m`.
	static Wr send_wr(const Mr &m, uint32_t len, uint64_t off = 0)
	{
		Wr w;
		w.sgl = {{m.addr + off, len, m.key}};
		return w;
	}
	// A signaled RDMA WRITE/READ or atomic on (`raddr`, `rkey`) with
	// `len` bytes at `off` in `m` on the local side.
	static Wr rdma_wr(uint8_t opcode, const Mr &m, uint32_t len, uint64_t raddr, uint32_t rkey, uint64_t off = 0)
	{
		Wr w = send_wr(m, len, off);
		w.opcode = opcode;
		w.raddr = raddr;
		w.rkey = rkey;
		return w;
	}

	// Writes the WQE at sq_pi and rings the doorbell (unless `ring` is
	// false). Returns the WQE index.
	uint16_t post_send(Qp &q, const Wr &w, bool ring = true)
	{
		std::vector<uint8_t> wqe(16, 0);
		if (q.st == ST_UD || q.st == ST_QP0 || q.st == ST_QP1 || q.st == ST_DCI) {
			std::vector<uint8_t> av(48, 0);
			if (q.st == ST_DCI)
				bits::store_be64(&av[0], w.dc_key);
			else
				bits::store_be32(&av[0], w.qkey);
			bits::store_be32(&av[8], 0x80000000u | w.dqpn);
			bits::store_be16(&av[14], w.dlid);
			if (w.grh) {
				av[0x1a] = w.tclass;
				av[0x1b] = w.hop_limit;
				bits::store_be32(&av[0x1c], 1u << 30 | static_cast<uint32_t>(w.sgid_index) << 20 | w.flow_label);
				std::memcpy(&av[0x20], w.dgid.data(), 16);
			}
			wqe.insert(wqe.end(), av.begin(), av.end());
		}
		if (q.st == ST_XRC) {
			uint8_t x[16] = {};
			bits::store_be32(x, w.xrc_srqn);
			wqe.insert(wqe.end(), x, x + 16);
		}
		if (w.opcode == OP_WRITE || w.opcode == OP_WRITE_IMM || w.opcode == OP_READ || w.opcode == OP_CAS ||
		    w.opcode == OP_FAA) {
			uint8_t r[16] = {};
			bits::store_be64(r, w.raddr);
			bits::store_be32(r + 8, w.rkey);
			wqe.insert(wqe.end(), r, r + 16);
		}
		if (w.opcode == OP_CAS || w.opcode == OP_FAA) {
			uint8_t a[16];
			bits::store_be64(a, w.swap_add);
			bits::store_be64(a + 8, w.compare);
			wqe.insert(wqe.end(), a, a + 16);
		}
		if (!w.inl.empty()) {
			std::vector<uint8_t> s(4, 0);
			bits::store_be32(s.data(), 0x80000000u | static_cast<uint32_t>(w.inl.size()));
			s.insert(s.end(), w.inl.begin(), w.inl.end());
			s.resize((s.size() + 15) / 16 * 16, 0);
			wqe.insert(wqe.end(), s.begin(), s.end());
		}
		for (const Sg &g : w.sgl) {
			uint8_t d[16];
			bits::store_be32(d, g.len);
			bits::store_be32(d + 4, g.lkey);
			bits::store_be64(d + 8, g.addr);
			wqe.insert(wqe.end(), d, d + 16);
		}
		return post_wqe(q, w.opcode, w.flags, w.imm, std::move(wqe), ring);
	}

	// Writes a WQE whose segments after the control segment are `wqe`
	// from byte 16 on (bytes 0-15 are filled in here) at sq_pi and rings
	// the doorbell (unless `ring` is false). Returns the WQE index.
	uint16_t post_wqe(Qp &q, uint8_t opcode, uint8_t flags, uint32_t imm, std::vector<uint8_t> wqe, bool ring = true)
	{
		uint16_t idx = q.sq_pi;
		unsigned ds = static_cast<unsigned>(wqe.size() / 16);
		bits::store_be32(&wqe[0], static_cast<uint32_t>(idx) << 8 | opcode);
		bits::store_be32(&wqe[4], q.qpn << 8 | ds);
		wqe[11] = flags;
		bits::store_be32(&wqe[12], imm);
		wqe.resize((wqe.size() + 63) / 64 * 64, 0);
		uint64_t sq = q.buf + (q.st == ST_RC || q.st == ST_UC || q.st == ST_UD || q.st == ST_QP0 || q.st == ST_QP1 ||
				       q.st == ST_UMR ? q.rq_bytes() : 0);
		for (size_t bb = 0; bb < wqe.size() / 64; ++bb)
			h.mem.cpu_write(sq + ((idx + bb) & ((1u << q.log_sq) - 1)) * 64, &wqe[bb * 64], 64);
		q.sq_pi = static_cast<uint16_t>(q.sq_pi + wqe.size() / 64);
		uint8_t db[4];
		bits::store_be32(db, q.sq_pi);
		h.mem.cpu_write(q.dbr + 4, db, 4);
		if (ring)
			ring_sq(q, wqe.data());
		return idx;
	}

	// The 64-bit doorbell: the first 8 bytes of the control segment.
	void ring_sq(const Qp &, const uint8_t *ctrl, unsigned bf_offset = 0)
	{
		uint64_t v;
		std::memcpy(&v, ctrl, 8);
		h.hca->bar_write(uar * 4096ull + 0x800 + bf_offset, 8, v);
	}

	void post_recv(Qp &q, const std::vector<Sg> &sgl)
	{
		unsigned stride = 16u << q.log_rq_stride;
		std::vector<uint8_t> wqe(stride, 0);
		size_t i = 0;
		for (; i < sgl.size(); ++i) {
			bits::store_be32(&wqe[16 * i], sgl[i].len);
			bits::store_be32(&wqe[16 * i + 4], sgl[i].lkey);
			bits::store_be64(&wqe[16 * i + 8], sgl[i].addr);
		}
		if (16 * i < stride)
			bits::store_be32(&wqe[16 * i + 4], 0x100); // terminator
		h.mem.cpu_write(q.buf + (q.rq_pi & ((1u << q.log_rq) - 1)) * stride, wqe.data(), stride);
		++q.rq_pi;
		uint8_t db[4];
		bits::store_be32(db, q.rq_pi);
		h.mem.cpu_write(q.dbr, db, 4);
	}

	// A receive WQE of one SGE: `len` bytes at `off` in `m`.
	void post_recv(Qp &q, const Mr &m, uint32_t len, uint64_t off = 0) { post_recv(q, {{m.addr + off, len, m.key}}); }

	// A basic SRQ through CREATE_RMP (what ISSI 1 drivers send): WQEs of
	// 64 bytes with a "next" segment, linked 0 -> 1 -> ... -> n-1.
	Srq create_rmp(unsigned log)
	{
		Srq s;
		s.log = log;
		s.log_stride = 6;
		size_t bytes = 64ull << log;
		size_t pages = (bytes + 4095) / 4096;
		s.buf = h.mem.alloc(pages * 4096, 4096);
		s.dbr = h.mem.alloc(64, 64);
		for (unsigned i = 0; i < (1u << log); ++i) {
			uint8_t nx[2];
			bits::store_be16(nx, static_cast<uint16_t>((i + 1) & ((1u << log) - 1)));
			h.mem.write(s.buf + 64ull * i + 2, nx, 2);
		}
		Msg c(0x90c, 0, 0x110 + 8 * pages);
		c.set({8, 23, 20}, 1); // rmpc.state RDY
		// wq at 0x50: pd, dbr_addr, log_wq_stride, log_wq_pg_sz, log_wq_sz
		c.set({0x14 + 2, 23, 0}, pd).be64(0x50 + 0x10, s.dbr);
		c.set({0x14 + 8, 19, 16}, s.log_stride).set({0x14 + 8, 4, 0}, log);
		for (size_t i = 0; i < pages; ++i)
			c.be64(0x110 + 8 * i, s.buf + 4096 * i);
		auto out = h.ok(c, 16);
		s.n = be32_at(out, 8) & 0xffffff;
		return s;
	}

	void post_srq_recv(Srq &s, const Sg &g)
	{
		uint64_t at = s.buf + 64ull * s.head;
		uint8_t d[16] = {};
		bits::store_be32(d, g.len);
		bits::store_be32(d + 4, g.lkey);
		bits::store_be64(d + 8, g.addr);
		h.mem.write(at + 16, d, 16);
		uint8_t term[16] = {};
		bits::store_be32(term + 4, 0x100);
		h.mem.write(at + 32, term, 16);
		s.head = bits::load_be16(h.mem.bytes(at + 2, 2).data());
		++s.counter;
		uint8_t db[4];
		bits::store_be32(db, s.counter);
		h.mem.write(s.dbr, db, 4);
	}

	uint32_t alloc_xrcd()
	{
		auto out = h.ok(Msg(0x80e, 0, 16), 16);
		return be32_at(out, 8) & 0xffffff;
	}

	// An XRC SRQ (CREATE_XRC_SRQ) in `xrcd` completing to `cq`, on PD
	// `in_pd` (this HCA's PD by default): 64-byte WQEs linked as by
	// create_rmp.
	Srq create_xrc_srq(unsigned log, uint32_t xrcd, const Cq &cq, uint32_t user_index, uint32_t in_pd = 0)
	{
		Srq s;
		s.log = log;
		s.log_stride = 6;
		size_t pages = ((64ull << log) + 4095) / 4096;
		s.buf = h.mem.alloc(pages * 4096, 4096);
		s.dbr = h.mem.alloc(64, 64);
		for (unsigned i = 0; i < (1u << log); ++i) {
			uint8_t nx[2];
			bits::store_be16(nx, static_cast<uint16_t>((i + 1) & ((1u << log) - 1)));
			h.mem.write(s.buf + 64ull * i + 2, nx, 2);
		}
		Msg c(0x705, 0, 0x110 + 8 * pages);
		c.set({ctx_dw(0), 27, 24}, log).set({ctx_dw(1), 26, 24}, 2).set({ctx_dw(1), 23, 0}, xrcd);
		c.set({ctx_dw(2), 23, 0}, cq.cqn).set({ctx_dw(4), 23, 0}, user_index);
		c.set({ctx_dw(6), 23, 0}, in_pd ? in_pd : pd).be64(0x10 + 0x28, s.dbr);
		for (size_t i = 0; i < pages; ++i)
			c.be64(0x110 + 8 * i, s.buf + 4096 * i);
		auto out = h.ok(c, 16);
		s.n = be32_at(out, 8) & 0xffffff;
		return s;
	}

	// XRC QPs as the in-tree mlx5_ib creates them: receive side on an
	// SRQ (`srq`, any kind), in domain `xrcd`; an initiator has a send
	// queue of 2^log_sq WQEBBs completing to `cq`, a target none.
	// bare: a target naming no PD, CQ or SRQ of its own (as our mlx5_ib
	// creates them).
	Qp create_xrc_qp(bool target, const Cq &cq, uint32_t xrcd, const Srq &srq, unsigned log_sq = 4,
			 bool bare = false)
	{
		Qp q;
		q.st = ST_XRC;
		q.log_sq = target ? 0 : log_sq;
		q.buf = h.mem.alloc(target ? 4096 : ((64ull << log_sq) + 4095) / 4096 * 4096, 4096);
		q.dbr = h.mem.alloc(64, 64);
		Msg c(0x500, 0, 0x110 + 8 * (target ? 0 : ((64ull << log_sq) + 4095) / 4096));
		uint32_t cqn = bare ? 0 : cq.cqn;
		c.set({qpc_dw(0), 23, 16}, ST_XRC).set({qpc_dw(0), 12, 11}, 3).set({qpc_dw(1), 23, 0}, bare ? 0 : pd);
		c.set({qpc_dw(2), 4, 4}, rlky);
		if (target)
			c.set({qpc_dw(2), 15, 15}, 1);
		else
			c.set({qpc_dw(2), 14, 11}, log_sq);
		c.set({qpc_dw(3), 23, 0}, target ? 0 : uar).set({qpc_dw(0x1f), 23, 0}, cqn).set({qpc_dw(0x27), 23, 0}, cqn);
		c.set({qpc_dw(0x26), 23, 0}, xrcd).set({qpc_dw(0x2b), 26, 24}, 1).set({qpc_dw(0x2b), 23, 0}, bare ? 0 : srq.n);
		c.be64(0x18 + 0xa0, q.dbr);
		for (size_t i = 0; !target && i < ((64ull << log_sq) + 4095) / 4096; ++i)
			c.be64(0x110 + 8 * i, q.buf + 4096 * i);
		auto out = h.ok(c, 16);
		q.qpn = be32_at(out, 8) & 0xffffff;
		return q;
	}

	// Waits for the engine to run out of queued work.
	bool settle() { return h.fw().fabric().engine().wait_idle(kPatience); }

	// The state of QP `q` (prm::qp_state).
	uint8_t qp_state(const Qp &q)
	{
		auto lk = dp().lock();
		const mlx5emu::Qp *x = dp().res().qp(q.qpn);
		return x ? x->state : 0xff;
	}

	FwHarness h;
	uint32_t uar = 0;
	FwHarness::EqBuf eq;
	uint32_t pd = 0;
	// QPs created from now on set qpc.rlky: their SGEs may name the
	// reserved lkey (the in-tree mlx5_ib's kernel QPs; the UMR QP, a
	// kernel QP, always).
	bool rlky = false;

private:
	bool atomic_be_;

public:
};

// The connection parameters of QP `aqp` on `a` and `bqp` on `b` aimed at
// each other: addresses, and each side's receive PSN the other's send PSN.
inline void aim_rc(const DpHca &a, const DpHca::Qp &aqp, const DpHca &b, const DpHca::Qp &bqp, DpHca::RcParams *pa,
		   DpHca::RcParams *pb)
{
	pa->dlid = b.lid();
	pa->dqpn = bqp.qpn;
	pb->dlid = a.lid();
	pb->dqpn = aqp.qpn;
	pb->sq_psn = pa->rq_psn;
	pb->rq_psn = pa->sq_psn;
}

// Connects the two QPs (a may be b: loopback) and moves both to RTS.
inline void connect_rc(DpHca &a, const DpHca::Qp &aqp, DpHca &b, const DpHca::Qp &bqp, DpHca::RcParams pa = {},
		       DpHca::RcParams pb = {})
{
	aim_rc(a, aqp, b, bqp, &pa, &pb);
	a.to_rts_rc(aqp, pa);
	b.to_rts_rc(bqp, pb);
}

// Polls one CQE from each of two CQs (the requester's, then the
// responder's); says which one timed out.
inline ::testing::AssertionResult poll_both(DpHca &a, DpHca::Cq &acq, Cqe *ae, DpHca &b, DpHca::Cq &bcq, Cqe *be)
{
	if (!a.poll(acq, ae))
		return ::testing::AssertionFailure() << "no CQE on CQ 0x" << std::hex << acq.cqn << " of HCA " << a.h.cfg.index;
	if (!b.poll(bcq, be))
		return ::testing::AssertionFailure() << "no CQE on CQ 0x" << std::hex << bcq.cqn << " of HCA " << b.h.cfg.index;
	return ::testing::AssertionSuccess();
}

// Two connected QPs (RC, or UC with `type`), a on HCA 0 and b on HCA 1,
// on one fabric.
struct RcPair {
	uint8_t type;
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq = a.create_cq(6), bcq = b.create_cq(6);
	// 64 WQEBBs: tests post up to 40 WQEs before polling, and software
	// must never overwrite a WQE the device has not taken.
	DpHca::Qp aqp = a.create_qp(type, acq, acq, 4, 6), bqp = b.create_qp(type, bcq, bcq, 4, 6);

	explicit RcPair(DpHca::RcParams pa = {}, DpHca::RcParams pb = {}, uint8_t st = ST_RC) : type(st)
	{
		connect_rc(a, aqp, b, bqp, pa, pb);
	}

	// b posts a receive of `len` bytes at `off` in `m`.
	void recv(const DpHca::Mr &m, uint32_t len, uint64_t off = 0) { b.post_recv(bqp, m, len, off); }
	// a posts `w`; returns the WQE index.
	uint16_t send(const DpHca::Wr &w) { return a.post_send(aqp, w); }
	// a posts `w`, then the requester CQE is polled on a and the responder
	// CQE on b.
	::testing::AssertionResult send_and_poll(const DpHca::Wr &w, Cqe *req, Cqe *resp, uint16_t *idx = nullptr)
	{
		uint16_t i = send(w);
		if (idx)
			*idx = i;
		return poll_both(a, acq, req, b, bcq, resp);
	}
	// The same for a SEND of `len` bytes at `off` in `src`.
	::testing::AssertionResult send_and_poll(const DpHca::Mr &src, uint32_t len, Cqe *req, Cqe *resp,
						 uint64_t off = 0)
	{
		return send_and_poll(DpHca::send_wr(src, len, off), req, resp);
	}
};

inline void fill(FakeGuestMemory &m, uint64_t addr, size_t len, uint8_t seed)
{
	std::vector<uint8_t> v(len);
	for (size_t i = 0; i < len; ++i)
		v[i] = static_cast<uint8_t>(seed + i * 7);
	m.write(addr, v.data(), len);
}

} // namespace mlx5emu::test
