// SPDX-License-Identifier: GPL-2.0
// fuzz_seeds DIR: writes seed inputs for the fuzz targets into
// DIR/vfio_user_fuzz, DIR/cmd_fuzz, DIR/wqe_fuzz and DIR/doorbell_fuzz:
// real messages, commands, WQEs and doorbells as the unit-test harnesses
// make them, in each target's input format (the commands are run on a real
// HCA while they are recorded). scripts/fuzz seeds minimises them into
// emu/fuzz/corpus.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "dp_fixture.h"
#include "prm/prm.h"
#include "fuzz_input.h"
#include "vfio_user/protocol.h"

namespace {

using namespace mlx5emu;
using namespace mlx5emu::test;
using fuzz::Output;
namespace vu = mlx5emu::vfio_user;

std::string g_dir;

void save(const char *target, const std::string &name, const std::vector<uint8_t> &bytes)
{
	std::string d = g_dir + "/" + target;
	::mkdir(d.c_str(), 0755);
	if (FILE *f = std::fopen((d + "/" + name).c_str(), "wb")) {
		std::fwrite(bytes.data(), 1, bytes.size(), f);
		std::fclose(f);
	}
}

// --- vfio-user: message streams --------------------------------------------

struct Stream {
	Output o;
	uint16_t id = 1;
	Stream &msg(vu::Command c, const std::vector<uint8_t> &payload, uint32_t flags = vu::kTypeCommand)
	{
		vu::MessageHeader h{};
		h.msg_id = id++;
		h.command = uint16_t(c);
		h.size = uint32_t(sizeof h + payload.size());
		h.flags = flags;
		o.put(h).raw(payload);
		return *this;
	}
	template <class T> static std::vector<uint8_t> pod(const T &v)
	{
		return Output().put(v).bytes;
	}
	Stream &version()
	{
		std::vector<uint8_t> p = pod(vu::VersionPayload{0, 0});
		const char json[] = "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576,"
				    "\"migration\":{\"pgsize\":4096}}}";
		p.insert(p.end(), json, json + sizeof json);
		return msg(vu::Command::version, p);
	}
	Stream &region_read(uint32_t region, uint64_t off, uint32_t count)
	{
		return msg(vu::Command::region_read, pod(vu::RegionAccessPayload{off, region, count}));
	}
	Stream &region_write(uint32_t region, uint64_t off, const std::vector<uint8_t> &data)
	{
		std::vector<uint8_t> p = pod(vu::RegionAccessPayload{off, region, uint32_t(data.size())});
		p.insert(p.end(), data.begin(), data.end());
		return msg(vu::Command::region_write, p);
	}
};

void vfio_user_seeds()
{
	const char *t = "vfio_user_fuzz";
	save(t, "version", Stream().version().o.bytes);
	{
		Stream s;
		s.version().msg(vu::Command::device_get_info, Stream::pod(vu::DeviceInfoPayload{16, 0, 0, 0}));
		for (uint32_t r = 0; r < vu::kNumRegions; ++r) {
			vfio_region_info ri{};
			ri.argsz = r == 0 ? 256 : sizeof ri;
			ri.index = r;
			s.msg(vu::Command::device_get_region_info, Stream::pod(ri));
		}
		for (uint32_t i = 0; i < vu::kNumIrqs; ++i) {
			vfio_irq_info ii{};
			ii.argsz = sizeof ii;
			ii.index = i;
			s.msg(vu::Command::device_get_irq_info, Stream::pod(ii));
		}
		save(t, "probe", s.o.bytes);
	}
	{
		Stream s;
		s.version();
		s.region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, 256).region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0x100, 64);
		s.region_write(VFIO_PCI_CONFIG_REGION_INDEX, 4, {0x06, 0x04}); // memory + bus master
		s.region_write(VFIO_PCI_CONFIG_REGION_INDEX, 0x10, {0xff, 0xff, 0xff, 0xff});
		s.region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0x10, 4);
		save(t, "config_space", s.o.bytes);
	}
	{
		Stream s;
		s.version();
		s.region_read(VFIO_PCI_BAR0_REGION_INDEX, 0, 16).region_read(VFIO_PCI_BAR0_REGION_INDEX, 0x1fc, 4);
		s.region_write(VFIO_PCI_BAR0_REGION_INDEX, 0x10, {0, 0, 0, 0, 0, 0x10, 0, 0});
		s.region_write(VFIO_PCI_BAR0_REGION_INDEX, 0x3800, {1, 2, 3, 4, 5, 6, 7, 8});
		s.msg(vu::Command::region_write, Stream::pod(vu::RegionAccessPayload{0x18, 0, 4}),
		      vu::kTypeCommand | vu::kFlagNoReply);
		save(t, "bar0", s.o.bytes);
	}
	{
		Stream s;
		s.version();
		s.msg(vu::Command::dma_map, Stream::pod(vu::DmaMapPayload{32, vu::kDmaMapRead | vu::kDmaMapWrite, 0,
									 0x100000000ull, 1 << 20}));
		s.msg(vu::Command::dma_map,
		      Stream::pod(vu::DmaMapPayload{32, vu::kDmaMapRead, 4096, 0x200000000ull, 8192}));
		s.msg(vu::Command::dma_unmap, Stream::pod(vu::DmaUnmapPayload{24, 0, 0x200000000ull, 8192}));
		s.msg(vu::Command::dma_unmap, Stream::pod(vu::DmaUnmapPayload{24, VFIO_DMA_UNMAP_FLAG_ALL, 0, 0}));
		save(t, "dma", s.o.bytes);
	}
	{
		Stream s;
		s.version();
		vfio_irq_set is{};
		is.argsz = sizeof is;
		is.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
		is.index = VFIO_PCI_MSIX_IRQ_INDEX;
		is.count = 4;
		s.msg(vu::Command::device_set_irqs, Stream::pod(is));
		is.flags = VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_MASK;
		is.argsz = sizeof is + 1;
		std::vector<uint8_t> p = Stream::pod(is);
		p.push_back(1);
		s.msg(vu::Command::device_set_irqs, p);
		s.msg(vu::Command::device_reset, {});
		save(t, "irqs_reset", s.o.bytes);
	}
	{
		Stream s;
		s.msg(vu::Command::region_read, {}); // before VERSION
		s.version().version();
		s.msg(vu::Command(99), {1, 2, 3});
		s.msg(vu::Command::region_read, Stream::pod(vu::RegionAccessPayload{0, 0, 0}), vu::kTypeReply);
		vu::MessageHeader bad{};
		bad.command = uint16_t(vu::Command::region_write);
		bad.size = 8; // shorter than the header: the connection is dropped
		s.o.put(bad);
		save(t, "malformed", s.o.bytes);
	}
}

// --- commands: records of cmd_fuzz, run on a harness as they are written ---

struct Cmds {
	FwHarness h;
	Output o;
	// A command record (kind 0), executed on the harness too.
	FwHarness::Result run(const Msg &m, uint32_t outlen, unsigned slot = 0, uint8_t options = 0)
	{
		o.put(uint8_t(0)).put(uint16_t(m.b.size())).put(outlen).put(uint8_t(slot)).put(options).raw(m.b);
		return h.exec(m, outlen, slot);
	}
	void give_pages(uint16_t stage)
	{
		auto r = run(Msg(prm::op::QUERY_PAGES, stage, 16), 16);
		uint32_t n = be32_at(r.out, 0xc);
		Msg m(prm::op::MANAGE_PAGES, 1, 16 + 8ull * n);
		m.set({3, 31, 0}, n);
		for (uint32_t i = 0; i < n; ++i)
			m.be64(16 + 8ull * i, h.mem.alloc(4096, 4096));
		run(m, 16, 31);
	}
	void bring_up()
	{
		run(Msg(prm::op::ENABLE_HCA, 0, 16), 12);
		run(Msg(0x10a, 0, 8), 0x70); // QUERY_ISSI
		run(Msg(0x10b, 0, 16).set({2, 15, 0}, 1), 16); // SET_ISSI 1
		give_pages(1);
		run(Msg(0x100, 1, 16), 0x1010); // QUERY_HCA_CAP general, current
		give_pages(2);
		run(Msg(prm::op::INIT_HCA, 0, 32), 16);
	}
};

void cmd_seeds()
{
	const char *t = "cmd_fuzz";
	{
		Cmds c;
		c.bring_up();
		save(t, "bring_up", c.o.bytes);
	}
	{
		Cmds c;
		c.bring_up();
		for (uint16_t mod : {0x1, 0x3, 0x5, 0x7, 0x9, 0x11, 0x19})
			c.run(Msg(0x100, mod, 16), 0x1010);
		c.run(Msg(0x101, 0, 16), 0x110);                   // QUERY_ADAPTER
		c.run(Msg(0x750, 0, 16), 16);                      // QUERY_VPORT_STATE
		c.run(Msg(0x762, 0, 16).set({2, 15, 0}, 1), 0x110); // QUERY_HCA_VPORT_CONTEXT
		c.run(Msg(0x763, 0, 16).set({2, 15, 0}, 1), 0x110); // QUERY_HCA_VPORT_GID
		c.run(Msg(0x764, 0, 16).set({2, 15, 0}, 1), 0x110); // QUERY_HCA_VPORT_PKEY
		c.run(Msg(0x10d, 0, 16), 16);                      // NOP
		Msg reg(0x805, 1, 16 + 64); // ACCESS_REG read PAOS
		reg.set({2, 15, 0}, 0x5006);
		c.run(reg, 16 + 64);
		save(t, "queries", c.o.bytes);
	}
	{
		Cmds c;
		c.bring_up();
		auto uar = c.run(Msg(prm::op::ALLOC_UAR, 0, 16), 16);
		uint32_t u = be32_at(uar.out, 8) & 0xffffff;
		uint64_t buf;
		c.run(c.h.create_eq_msg(4, 0xffffffffull, 0, u, &buf), 16);
		auto pd = c.run(Msg(0x800, 0, 16), 16); // ALLOC_PD
		c.run(Msg(0x816, 0, 16), 16);            // ALLOC_TRANSPORT_DOMAIN
		c.run(Msg(0x770, 0, 16), 16);            // ALLOC_Q_COUNTER
		Msg mk(0x200, 0, 0x110 + 16); // CREATE_MKEY, PA mode
		mk.set({4, 9, 8}, 0).set({5, 7, 0}, 0x5a).set({7, 23, 0}, be32_at(pd.out, 8) & 0xffffff);
		mk.be64(0x28, ~0ull);
		c.run(mk, 16);
		c.run(Msg(0x105, 0, 16), 16); // TEARDOWN_HCA
		c.run(Msg(prm::op::DISABLE_HCA, 0, 16), 16);
		save(t, "resources", c.o.bytes);
	}
	for (unsigned bit = 0; bit < 8; ++bit) {
		Cmds c;
		c.run(Msg(prm::op::ENABLE_HCA, 0, 16), 12);
		c.give_pages(1);
		c.run(Msg(0x100, 1, 600), 0x1010, 0, uint8_t(1u << bit));
		save(t, "transport_" + std::to_string(bit), c.o.bytes);
	}
	{
		// A raw entry (kind 1) with two linked blocks, then a raw doorbell
		// of two slots (kind 2).
		Cmds c;
		Msg m(prm::op::ENABLE_HCA, 0, 16);
		uint8_t e[64] = {};
		e[FwHarness::kEntType] = 7;
		bits::store_be32(e + FwHarness::kEntInlen, 16);
		std::memcpy(e + FwHarness::kEntIn, m.b.data(), 16);
		bits::store_be32(e + FwHarness::kEntOutlen, 600);
		e[FwHarness::kEntStatusOwn] = 1;
		c.o.put(uint8_t(1)).put(uint8_t(0)).put(uint8_t(1));
		c.o.bytes.insert(c.o.bytes.end(), e, e + 64);
		c.o.put(uint8_t(2));
		c.o.bytes.resize(c.o.bytes.size() + 2 * 576);
		c.o.put(uint8_t(2)).put(uint32_t(3));
		save(t, "raw_entry_ring", c.o.bytes);
	}
}

// --- WQEs: the send queue of a DpFixture QP --------------------------------

// The input of wqe_fuzz: QP selector, doorbell WQEBB, the SQ's WQEBBs.
void wqe_seed(const std::string &name, unsigned qp, const std::vector<DpHca::Wr> &wrs)
{
	fuzz::DpFixture f;
	DpHca::Qp &q = f.send_qp(qp);
	uint16_t last = 0;
	for (const DpHca::Wr &w : wrs)
		last = f.a.post_send(q, w, false);
	Output o;
	o.put(uint8_t(qp)).put(uint8_t(last));
	o.raw(f.a.mem().bytes(f.sq(q), 64ull * q.sq_pi));
	save("wqe_fuzz", name, o.bytes);
	// Rung as the target rings it, the seed completes.
	f.a.ring_sq(q, o.bytes.data() + 2 + 64 * last);
	Cqe e;
	if (!f.a.poll(f.cq, &e))
		std::fprintf(stderr, "wqe_fuzz seed %s: no completion\n", name.c_str());
}

// A WQE given as its bytes (from byte 16 on: DpHca::post_wqe) on QP
// selector `qp`, posted alone.
void wqe_raw_seed(const std::string &name, unsigned qp, uint8_t opcode, uint32_t imm, std::vector<uint8_t> wqe)
{
	fuzz::DpFixture f;
	DpHca::Qp &q = f.send_qp(qp);
	f.a.post_wqe(q, opcode, F_SIGNALED, imm, std::move(wqe), false);
	Output o;
	o.put(uint8_t(qp)).put(uint8_t(0)).raw(f.a.mem().bytes(f.sq(q), 64ull * q.sq_pi));
	save("wqe_fuzz", name, o.bytes);
	f.a.ring_sq(q, o.bytes.data() + 2);
	Cqe e;
	if (!f.a.poll(f.cq, &e))
		std::fprintf(stderr, "wqe_fuzz seed %s: no completion\n", name.c_str());
}

// The segments of a UMR WQE after its control segment: UMR control
// (`flags`, `mask`, the translation's size), the mkey segment (start,
// length, 4 KiB pages, in use, every right), the inline translation `xlt`.
std::vector<uint8_t> umr_wqe(uint8_t flags, uint64_t mask, uint64_t start, uint64_t len, const std::vector<uint8_t> &xlt)
{
	std::vector<uint8_t> w(16 + 48 + 64, 0);
	w[16] = flags;
	bits::store_be16(&w[16 + 4], static_cast<uint16_t>(xlt.size() / 16));
	bits::store_be64(&w[16 + 8], mask);
	uint8_t *mkc = &w[16 + 48];
	bits::store_be32(mkc, 0x1fu << 10); // lr lw rr rw a, not free
	bits::store_be64(mkc + 0x10, start);
	bits::store_be64(mkc + 0x18, len);
	mkc[0x3b] = 12;
	w.insert(w.end(), xlt.begin(), xlt.end());
	return w;
}

void wqe_seeds()
{
	fuzz::DpFixture f; // the keys and addresses every fixture has
	const DpHca::Mr &m = f.mr;
	auto wr = [&](uint8_t op, uint32_t len, uint64_t off = 0) {
		return DpHca::rdma_wr(op, m, len, m.addr + 32768 + off, m.key, off);
	};
	wqe_seed("send", 0, {DpHca::send_wr(m, 100)});
	wqe_seed("send_imm_inline", 0, [&] {
		DpHca::Wr w;
		w.opcode = OP_SEND_IMM;
		w.imm = 0x1234;
		w.inl = std::vector<uint8_t>(60, 0xab);
		return std::vector<DpHca::Wr>{w};
	}());
	wqe_seed("send_multi_sge", 0, [&] {
		DpHca::Wr w = DpHca::send_wr(m, 10);
		w.sgl.push_back({m.addr + 512, 20, m.key});
		w.sgl.push_back({m.addr + 4096, 5000, m.key});
		return std::vector<DpHca::Wr>{w};
	}());
	wqe_seed("write", 0, {wr(OP_WRITE, 8192)});
	wqe_seed("write_imm", 0, {wr(OP_WRITE_IMM, 16)});
	wqe_seed("read", 0, {wr(OP_READ, 5000)});
	wqe_seed("atomics", 0, [&] {
		DpHca::Wr c = wr(OP_CAS, 8), a = wr(OP_FAA, 8, 8);
		c.swap_add = 5, c.compare = 0, a.swap_add = 3;
		return std::vector<DpHca::Wr>{c, a};
	}());
	wqe_seed("fenced_mix", 0, [&] {
		DpHca::Wr r = wr(OP_READ, 64), s = DpHca::send_wr(m, 64);
		s.flags = F_SIGNALED | F_FENCE | F_SOLICITED;
		return std::vector<DpHca::Wr>{r, s, wr(OP_WRITE, 64)};
	}());
	wqe_seed("bad_key", 0, [&] {
		DpHca::Wr w = DpHca::send_wr(m, 64);
		w.sgl[0].lkey ^= 0x100;
		return std::vector<DpHca::Wr>{w};
	}());
	wqe_seed("nop", 0, [&] {
		DpHca::Wr w;
		w.opcode = OP_NOP;
		return std::vector<DpHca::Wr>{w};
	}());
	wqe_seed("uc_send_write", 1, {DpHca::send_wr(m, 300), wr(OP_WRITE_IMM, 100)});
	wqe_seed("ud_send", 2, [&] {
		DpHca::Wr w = DpHca::send_wr(m, 256);
		w.dlid = f.a.lid();
		w.dqpn = f.qps[2].qpn;
		w.qkey = fuzz::DpFixture::kQkey;
		return std::vector<DpHca::Wr>{w};
	}());
	wqe_seed("ud_send_grh", 2, [&] {
		DpHca::Wr w = DpHca::send_wr(m, 256);
		w.dlid = f.a.lid();
		w.dqpn = f.qps[2].qpn;
		w.qkey = fuzz::DpFixture::kQkey;
		w.grh = true;
		w.hop_limit = 64;
		w.flow_label = 0x12345;
		return std::vector<DpHca::Wr>{w};
	}());
	// A UMR WQE (opcode 0x25) with empty control and mkey segments.
	wqe_raw_seed("umr", 0, 0x25, m.key, std::vector<uint8_t>(16 + 48 + 64, 0));
	// XRC initiator (selector 3) into the XRC SRQ of the target.
	auto xrc = [&](DpHca::Wr w) {
		w.xrc_srqn = f.xsrq.n;
		return w;
	};
	wqe_seed("xrc_send", 3, {xrc(DpHca::send_wr(m, 700))});
	wqe_seed("xrc_write_read", 3, {xrc(wr(OP_WRITE_IMM, 4096)), xrc(wr(OP_READ, 100))});
	wqe_seed("xrc_atomics", 3, [&] {
		DpHca::Wr c = xrc(wr(OP_CAS, 8)), a = xrc(wr(OP_FAA, 8, 8));
		c.swap_add = 7;
		return std::vector<DpHca::Wr>{c, a};
	}());
	// Only a control segment (ds 1): the UMR WQE that once threw out of
	// the parser on an XRC initiator (and its flush); on RC and the UMR
	// QP too.
	wqe_raw_seed("umr_ds1_xrc", 3, 0x25, 0, std::vector<uint8_t>(16, 0));
	wqe_raw_seed("umr_ds1_rc", 0, 0x25, 0, std::vector<uint8_t>(16, 0));
	wqe_raw_seed("umr_ds1_umr_qp", 4, 0x25, 0, std::vector<uint8_t>(16, 0));
	// The UMR QP (selector 4): a new translation for the MTT MR, a
	// window bound over the MR on the free KLM key, a NOP.
	wqe_raw_seed("umr_qp_mtt", 4, 0x25, f.umr_mr.key,
		     umr_wqe(0x80, 0x1ull | 0x2 | 0x40 | 0x60000, f.umr_mr.addr, 4 * 4096, [&] {
			     std::vector<uint8_t> x(64);
			     for (unsigned i = 0; i < 4; ++i)
				     bits::store_be64(&x[8 * i], (f.umr_mr.addr + 4096 * i) | 3);
			     return x;
		     }()));
	wqe_raw_seed("umr_qp_klm", 4, 0x25, f.klm_key,
		     umr_wqe(0x80 | 0x20, 0x1ull | 0x40 | 0x20000000 | 0x1e0000, m.addr, 4096, [&] {
			     std::vector<uint8_t> x(64);
			     bits::store_be32(&x[0], 4096);
			     bits::store_be32(&x[4], m.key);
			     bits::store_be64(&x[8], m.addr);
			     return x;
		     }()));
	wqe_raw_seed("umr_qp_nop", 4, 0x00, 0, std::vector<uint8_t>(16, 0));
}

// --- doorbells --------------------------------------------------------------

struct Bells {
	Output o;
	Bells &rec(uint8_t kind, unsigned size, uint32_t off, uint64_t value)
	{
		uint8_t s = size == 8 ? 3 : size == 4 ? 2 : size == 2 ? 1 : 0;
		o.put(kind).put(s).put(off).put(value);
		return *this;
	}
};

void doorbell_seeds()
{
	fuzz::DpFixture f;
	f.post_unrung_sends(); // as the target does
	auto ctrl = [&](unsigned q, unsigned i) { return f.doorbell(f.qps[q], i); };
	auto be32 = [](uint32_t x) { return uint64_t(htobe32(x)); };
	const char *t = "doorbell_fuzz";
	for (unsigned q = 0; q < 3; ++q) {
		Bells b;
		b.rec(3, 4, q | 4, be32(1)).rec(0, 8, 0x800, ctrl(q, 0));
		save(t, "sq_ring_qp" + std::to_string(q), b.o.bytes);
	}
	{
		Bells b;
		b.rec(3, 4, 4, be32(8));
		for (unsigned i = 0; i < 8; ++i)
			b.rec(0, 8, i & 1 ? 0x900 : 0x800, ctrl(0, i));
		save(t, "sq_ring_all_bf", b.o.bytes);
	}
	{
		Bells b;
		uint64_t v = ctrl(1, 0);
		b.rec(3, 4, 1 | 4, be32(1)).rec(0, 4, 0x800, uint32_t(v)).rec(0, 4, 0x804, v >> 32);
		save(t, "sq_ring_split", b.o.bytes);
	}
	{
		Bells b;
		uint8_t arm[8];
		bits::store_be32(arm, 1u << 24);
		bits::store_be32(arm + 4, f.cq.cqn);
		uint64_t v;
		std::memcpy(&v, arm, 8);
		b.rec(3, 4, 3, 0).rec(0, 8, 0x20, v).rec(3, 4, 4, be32(2)).rec(0, 8, 0x800, ctrl(0, 1));
		save(t, "cq_arm", b.o.bytes);
	}
	{
		Bells b;
		uint32_t eqn = f.a.eq.eqn;
		b.rec(0, 4, 0x48, be32(eqn << 24 | 1)).rec(0, 4, 0x40, be32(eqn << 24 | 1));
		save(t, "eq_doorbells", b.o.bytes);
	}
	{
		Bells b;
		b.rec(2, 4, 0, 0).rec(2, 4, 0x1fc, 0).rec(2, 8, 0x10, 0).rec(1, 4, 0x18, be32(1));
		b.rec(1, 4, 0x3800 + 4096 * 7, 0).rec(1, 8, uint32_t(f.a.h.cfg.bar0_size - 4096), 0x1122334455667788ull);
		save(t, "bar0_misc", b.o.bytes);
	}
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	g_dir = argv[1];
	::mkdir(g_dir.c_str(), 0755);
	vfio_user_seeds();
	cmd_seeds();
	wqe_seeds();
	doorbell_seeds();
	return 0;
}
