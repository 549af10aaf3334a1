// SPDX-License-Identifier: GPL-2.0
// A miniature "driver" for the firmware unit tests: builds command entries
// and mailbox chains in fake guest memory, rings the doorbell and polls the
// ownership bit. Transport offsets are written out literally here (from the
// hardware-interface reference) so that they check the firmware's tables
// rather than reuse them.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <endian.h>
#include <memory>
#include <thread>
#include <vector>

#include "fake_guest_memory.h"
#include "prm/bits.h"
#include "fw/firmware.h"
#include "fw/hca.h"
#include "prm/prm.h"

namespace mlx5emu::test {

using namespace std::chrono_literals;

// A command input or output buffer with PRM field accessors.
struct Msg {
	std::vector<uint8_t> b;

	Msg(uint16_t opcode, uint16_t op_mod, size_t size) : b(size, 0)
	{
		bits::store_be16(b.data(), opcode);
		bits::store_be16(b.data() + 6, op_mod);
	}
	Msg &set(bits::Field f, uint32_t v)
	{
		bits::set(b.data(), b.size(), f, v);
		return *this;
	}
	Msg &be64(size_t off, uint64_t v)
	{
		bits::store_be64(b.data() + off, v);
		return *this;
	}
};

inline uint32_t field(const std::vector<uint8_t> &v, bits::Field f) { return bits::get(v.data(), v.size(), f); }
inline uint32_t be32_at(const std::vector<uint8_t> &v, size_t off) { return bits::load_be32(v.data() + off); }
inline uint64_t be64_at(const std::vector<uint8_t> &v, size_t off) { return bits::load_be64(v.data() + off); }

// Transport tampering for error-path tests.
struct CmdOptions {
	uint8_t type = 7;
	uint8_t owner = 1;
	int bad_token_block = -1;    // input block with a wrong token
	int bad_blocknum_block = -1; // input block with a wrong number
	int bad_out_token_block = -1;
	bool misalign_in = false;
	bool misalign_out = false;
	int in_blocks = -1;    // provide only this many input blocks
	int extra_in_blocks = 0; // chain more blocks than needed (stale token)
};

class FwHarness {
public:
	// Entry/mailbox offsets (hw-interface.md 3.1, 3.3).
	static constexpr unsigned kEntType = 0x00, kEntInlen = 0x04, kEntInPtr = 0x08, kEntIn = 0x10,
				  kEntOut = 0x20, kEntOutPtr = 0x30, kEntOutlen = 0x38, kEntToken = 0x3c,
				  kEntSig = 0x3d, kEntStatusOwn = 0x3f;
	static constexpr unsigned kBlkNext = 0x230, kBlkNum = 0x238, kBlkToken = 0x23d;

	using Options = CmdOptions;
	struct Pending {
		unsigned slot = 0;
		uint64_t entry = 0;
		uint32_t outlen = 0;
		std::vector<uint64_t> out_blocks;
	};
	struct Result {
		bool done = false;
		uint8_t delivery = 0xff;
		uint8_t status = 0xff;
		uint32_t syndrome = 0;
		std::vector<uint8_t> out;
	};
	struct EqBuf {
		uint8_t eqn = 0;
		uint64_t buf = 0;
		unsigned log_size = 0;
		uint32_t uar = 0;
		uint16_t intr = 0;
		uint32_t nent() const { return 1u << log_size; }
	};

	// Put into the header of every command sent while not 0 (a user
	// context's commands, as a driver sends them for a DEVX process).
	uint16_t uid = 0;

	explicit FwHarness(HcaConfig c = {}) : cfg(c)
	{
		hca = std::make_unique<Hca>(cfg, mem, irq);
		init_cmdq();
	}

	Firmware &fw() { return hca->impl(); }

	uint32_t rd32(uint64_t off) { return be32toh(static_cast<uint32_t>(hca->bar_read(off, 4))); }
	void wr32(uint64_t off, uint32_t v) { hca->bar_write(off, 4, htobe32(v)); }

	void init_cmdq()
	{
		cmdq = mem.alloc(4096, 4096);
		wr32(0x10, static_cast<uint32_t>(cmdq >> 32));
		wr32(0x14, static_cast<uint32_t>(cmdq));
	}

	Pending prepare(unsigned slot, const std::vector<uint8_t> &in_, uint32_t outlen, const Options &o = {})
	{
		// A process's command: the header's uid (dword 0, bits 15..0)
		// set where the message leaves it 0.
		std::vector<uint8_t> in = in_;
		if (uid && in.size() >= 4 && !in[2] && !in[3])
			bits::store_be16(in.data() + 2, uid);
		if (++token == 0)
			token = 1;
		Pending p;
		p.slot = slot;
		p.outlen = outlen;
		p.entry = cmdq + slot * 64;
		uint8_t e[64] = {};
		uint32_t inlen = static_cast<uint32_t>(in.size());
		e[kEntType] = o.type;
		bits::store_be32(e + kEntInlen, inlen);
		std::memcpy(e + kEntIn, in.data(), std::min<size_t>(16, in.size()));
		bits::store_be32(e + kEntOutlen, outlen);
		e[kEntToken] = token;

		if (inlen > 16) {
			int n = static_cast<int>((inlen - 16 + 511) / 512);
			int provide = o.in_blocks >= 0 ? o.in_blocks : n + o.extra_in_blocks;
			std::vector<uint64_t> blocks;
			for (int i = 0; i < provide; ++i)
				blocks.push_back(mem.alloc(1024, 1024));
			for (int i = 0; i < provide; ++i) {
				uint8_t blk[576] = {};
				size_t off = 16 + 512ull * i;
				if (off < in.size())
					std::memcpy(blk, in.data() + off, std::min<size_t>(512, in.size() - off));
				bits::store_be64(blk + kBlkNext, i + 1 < provide ? blocks[i + 1] : 0);
				bits::store_be32(blk + kBlkNum, i == o.bad_blocknum_block ? i + 7 : i);
				blk[kBlkToken] = i == o.bad_token_block ? static_cast<uint8_t>(token + 1) : token;
				if (i >= n)
					blk[kBlkToken] = static_cast<uint8_t>(token + 0x55); // stale cached block
				mem.write(blocks[i], blk, sizeof blk);
			}
			uint64_t first = blocks.empty() ? 0 : blocks[0] + (o.misalign_in ? 64 : 0);
			bits::store_be64(e + kEntInPtr, first);
		}
		if (outlen > 16) {
			int n = static_cast<int>((outlen - 16 + 511) / 512);
			for (int i = 0; i < n; ++i)
				p.out_blocks.push_back(mem.alloc(1024, 1024));
			for (int i = 0; i < n; ++i) {
				uint8_t blk[576] = {};
				bits::store_be64(blk + kBlkNext, i + 1 < n ? p.out_blocks[i + 1] : 0);
				bits::store_be32(blk + kBlkNum, i);
				blk[kBlkToken] = i == o.bad_out_token_block ? static_cast<uint8_t>(token + 1) : token;
				mem.write(p.out_blocks[i], blk, sizeof blk);
			}
			bits::store_be64(e + kEntOutPtr, p.out_blocks[0] + (o.misalign_out ? 64 : 0));
		}
		e[kEntStatusOwn] = o.owner;
		uint8_t x = 0;
		for (uint8_t b : e)
			x ^= b;
		e[kEntSig] = static_cast<uint8_t>(~x);
		mem.write(p.entry, e, sizeof e);
		return p;
	}

	void ring(uint32_t mask) { wr32(0x18, mask); }

	// Polls the ownership bit (no sleeping).
	bool wait(const Pending &p, std::chrono::milliseconds timeout = kPatience)
	{
		auto end = std::chrono::steady_clock::now() + timeout;
		while (mem.byte(p.entry + kEntStatusOwn) & 1) {
			if (std::chrono::steady_clock::now() > end)
				return false;
			std::this_thread::yield();
		}
		return true;
	}

	Result collect(const Pending &p)
	{
		Result r;
		uint8_t so = mem.byte(p.entry + kEntStatusOwn);
		r.done = !(so & 1);
		r.delivery = so >> 1;
		r.out.assign(p.outlen, 0);
		std::vector<uint8_t> head = mem.bytes(p.entry + kEntOut, 16);
		std::memcpy(r.out.data(), head.data(), std::min<size_t>(16, p.outlen));
		size_t off = 16;
		for (uint64_t blk : p.out_blocks) {
			size_t chunk = std::min<size_t>(512, p.outlen - off);
			mem.read(blk, r.out.data() + off, chunk);
			off += chunk;
		}
		r.status = r.out[0];
		r.syndrome = bits::load_be32(head.data() + 4);
		return r;
	}

	Result exec(const std::vector<uint8_t> &in, uint32_t outlen, unsigned slot = 0, const Options &o = {})
	{
		Pending p = prepare(slot, in, outlen, o);
		ring(1u << slot);
		if (!wait(p))
			return Result{};
		return collect(p);
	}
	Result exec(const Msg &m, uint32_t outlen, unsigned slot = 0) { return exec(m.b, outlen, slot); }

	// Runs a command that must succeed; returns its output.
	std::vector<uint8_t> ok(const Msg &m, uint32_t outlen, unsigned slot = 0)
	{
		Result r = exec(m, outlen, slot);
		EXPECT_TRUE(r.done) << "opcode 0x" << std::hex << bits::load_be16(m.b.data());
		EXPECT_EQ(r.delivery, 0) << "opcode 0x" << std::hex << bits::load_be16(m.b.data());
		EXPECT_EQ(r.status, 0) << "opcode 0x" << std::hex << bits::load_be16(m.b.data()) << " syndrome 0x"
				       << r.syndrome;
		return r.out;
	}
	// Runs a command that must fail with `status`.
	void fails(const Msg &m, uint32_t outlen, uint8_t status)
	{
		Result r = exec(m, outlen);
		EXPECT_TRUE(r.done);
		EXPECT_EQ(r.delivery, 0);
		EXPECT_EQ(r.status, status) << "opcode 0x" << std::hex << bits::load_be16(m.b.data());
		if (r.status) {
			EXPECT_NE(r.syndrome, 0u);
		}
	}

	// --- bring-up helpers -------------------------------------------------
	void enable() { ok(Msg(prm::op::ENABLE_HCA, 0, 16), 12); }

	int32_t query_pages(uint16_t stage)
	{
		auto out = ok(Msg(prm::op::QUERY_PAGES, stage, 16), 16);
		return static_cast<int32_t>(be32_at(out, 0xc));
	}

	void give_pages(uint32_t n)
	{
		Msg m(prm::op::MANAGE_PAGES, 1, 16 + 8ull * n);
		m.set({3, 31, 0}, n);
		for (uint32_t i = 0; i < n; ++i) {
			uint64_t pa = mem.alloc(4096, 4096);
			given.push_back(pa);
			m.be64(16 + 8ull * i, pa);
		}
		ok(m, 16, 31);
	}

	std::vector<uint64_t> take_pages(uint32_t n, uint32_t room)
	{
		Msg m(prm::op::MANAGE_PAGES, 2, 16);
		m.set({3, 31, 0}, n);
		auto out = ok(m, 16 + 8 * room, 31);
		uint32_t got = be32_at(out, 8);
		std::vector<uint64_t> v;
		for (uint32_t i = 0; i < got; ++i)
			v.push_back(be64_at(out, 16 + 8 * i));
		return v;
	}

	// ENABLE_HCA .. INIT_HCA with the pages the device asks for.
	void bring_up()
	{
		enable();
		give_pages(static_cast<uint32_t>(query_pages(1)));
		give_pages(static_cast<uint32_t>(query_pages(2)));
		ok(Msg(prm::op::INIT_HCA, 0, 32), 16);
	}

	uint32_t alloc_uar()
	{
		auto out = ok(Msg(prm::op::ALLOC_UAR, 0, 16), 16);
		return be32_at(out, 8) & 0xffffff;
	}

	Msg create_eq_msg(unsigned log_size, uint64_t mask0, uint16_t intr, uint32_t uar, uint64_t *buf)
	{
		size_t bytes = 64ull << log_size;
		size_t npages = (bytes + 4095) / 4096;
		*buf = mem.alloc(npages * 4096, 4096);
		std::vector<uint8_t> init(bytes, 0);
		for (size_t i = 0; i < bytes; i += 64)
			init[i + 63] = 1; // software initialises every owner bit to 1
		mem.write(*buf, init.data(), init.size());
		Msg m(prm::op::CREATE_EQ, 0, 0x110 + 8 * npages);
		m.set({4 + 3, 28, 24}, log_size).set({4 + 3, 23, 0}, uar).set({4 + 5, 11, 0}, intr);
		m.be64(0x58, mask0);
		for (size_t i = 0; i < npages; ++i)
			m.be64(0x110 + 8 * i, *buf + 4096 * i);
		return m;
	}

	EqBuf create_eq(unsigned log_size, uint64_t mask0, uint16_t intr, uint32_t uar)
	{
		EqBuf e;
		e.log_size = log_size;
		e.uar = uar;
		e.intr = intr;
		auto out = ok(create_eq_msg(log_size, mask0, intr, uar, &e.buf), 16);
		e.eqn = out[0xb];
		return e;
	}

	void eq_doorbell(const EqBuf &e, uint32_t ci, bool arm)
	{
		wr32(e.uar * 4096ull + (arm ? 0x40 : 0x48), (ci & 0xffffff) | static_cast<uint32_t>(e.eqn) << 24);
	}

	std::vector<uint8_t> eqe(const EqBuf &e, uint32_t index)
	{
		return mem.bytes(e.buf + 64ull * (index & (e.nent() - 1)), 64);
	}

	// Is the EQE at consumer index `ci` owned by software?
	bool eqe_ready(const EqBuf &e, uint32_t ci)
	{
		uint8_t owner = mem.byte(e.buf + 64ull * (ci & (e.nent() - 1)) + 63) & 1;
		return owner == ((ci >> e.log_size) & 1);
	}

	bool wait_eqe(const EqBuf &e, uint32_t ci, std::chrono::milliseconds timeout = kPatience)
	{
		auto end = std::chrono::steady_clock::now() + timeout;
		while (!eqe_ready(e, ci)) {
			if (std::chrono::steady_clock::now() > end)
				return false;
			std::this_thread::yield();
		}
		return true;
	}

	// GEN_EQE of `type` to EQ `eqn`.
	void gen_eqe(uint8_t eqn, uint8_t type, uint32_t data0 = 0)
	{
		Msg m(prm::op::GEN_EQE, 0, 80);
		m.set({2, 7, 0}, eqn);
		m.b[16 + 1] = type;
		bits::store_be32(m.b.data() + 16 + 0x20, data0);
		ok(m, 16);
	}

	// Waits for the firmware worker to run out of work.
	bool idle(std::chrono::milliseconds timeout = kPatience)
	{
		auto end = std::chrono::steady_clock::now() + timeout;
		while (!fw().idle()) {
			if (std::chrono::steady_clock::now() > end)
				return false;
			std::this_thread::yield();
		}
		return true;
	}

	HcaConfig cfg;
	FakeGuestMemory mem;
	RecordingInterruptSink irq;
	std::unique_ptr<Hca> hca;
	uint64_t cmdq = 0;
	uint8_t token = 0;
	std::vector<uint64_t> given;
};

// An SR-IOV adapter's functions for the firmware tests: its PF (function 0)
// and VF `vf_index` (function 1 + vf_index). `a` may be null for a PF
// without VFs.
inline HcaConfig pf_config(const std::shared_ptr<Adapter> &a, LinkType link = LinkType::Eth)
{
	HcaConfig c;
	c.index = 0;
	c.link = link;
	c.adapter = a;
	return c;
}

inline HcaConfig vf_config(const std::shared_ptr<Adapter> &a, uint16_t vf_index, LinkType link = LinkType::Eth)
{
	HcaConfig c;
	c.index = 1u + vf_index;
	c.role = pci::FunctionRole::Vf;
	c.vf_index = vf_index;
	c.device_id = 0x1018;
	c.link = link;
	c.adapter = a;
	return c;
}

} // namespace mlx5emu::test
