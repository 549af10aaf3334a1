// SPDX-License-Identifier: GPL-2.0
// The Ethernet data path between two HCAs on the L2 switch: a send WQE
// (control + Ethernet segment with the inline L2 header, checksum flags,
// a data pointer) leaves A with its IPv4 and UDP checksums filled in,
// completes on A's send CQ, and lands in B's receive WQE through B's
// root flow table and direct TIR with an RX CQE (byte count, L3/L4 OK).
#include <gtest/gtest.h>

#include <endian.h>

#include "eth_harness.h"
#include "fw/prm_cq.h"
#include "steer/headers.h"

namespace mlx5emu::test {
namespace {

using namespace prm;

std::vector<uint8_t> udp_frame(unsigned payload)
{
	std::vector<uint8_t> f = {0x00, 0x02, 0xc9, 0x22, 0x22, 0x22, 0x00, 0x02, 0xc9, 0x11, 0x11, 0x11, 0x08, 0x00};
	unsigned ip_len = 20 + 8 + payload;
	f.insert(f.end(), {0x45, 0, static_cast<uint8_t>(ip_len >> 8), static_cast<uint8_t>(ip_len), 0, 1, 0, 0, 64,
			   17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2});
	unsigned udp_len = 8 + payload;
	f.insert(f.end(), {0x30, 0x39, 0x04, 0xd2, static_cast<uint8_t>(udp_len >> 8), static_cast<uint8_t>(udp_len),
			   0, 0});
	for (unsigned i = 0; i < payload; ++i)
		f.push_back(static_cast<uint8_t>(i * 7));
	return f;
}

TEST(EthDataPath, UdpFrameFromSqToRq)
{
	auto fabric = std::make_shared<Fabric>();
	EthDev a(fabric, 0), b(fabric, 1);
	a.port_up();
	b.port_up();

	// B: an RQ with one 2 KiB receive buffer, everything steered to it.
	DpHca::Cq bcq = b.d.create_cq(5);
	EthDev::Queue rq;
	rq.n = b.create(b.queue_msg(nic_op::CREATE_RQ, bcq.cqn, 4, 0, &rq));
	b.h.ok(b.modify_msg(nic_op::MODIFY_RQ, rq.n, wq_state::RST, wq_state::RDY), 16);
	b.steer_all_to(rq.n);
	DpHca::Mr rbuf = b.d.reg_mr(4096);
	uint8_t dseg[16];
	bits::store_be32(dseg, 2048);
	bits::store_be32(dseg + 4, rbuf.key);
	bits::store_be64(dseg + 8, rbuf.addr);
	b.h.mem.write(rq.buf, dseg, 16);
	uint8_t one[4];
	bits::store_be32(one, 1);
	b.h.mem.write(rq.dbr, one, 4);

	// A: a TIS, an SQ, and the frame: 18 bytes inline, the rest by pointer.
	DpHca::Cq acq = a.d.create_cq(5);
	uint32_t tisn = a.create_tis();
	EthDev::Queue sq;
	sq.n = a.create(a.queue_msg(nic_op::CREATE_SQ, acq.cqn, 4, tisn, &sq));
	a.h.ok(a.modify_msg(nic_op::MODIFY_SQ, sq.n, wq_state::RST, wq_state::RDY), 16);
	std::vector<uint8_t> f = udp_frame(300);
	DpHca::Mr sbuf = a.d.reg_mr(4096);
	a.h.mem.write(sbuf.addr, f.data() + 18, f.size() - 18);
	uint8_t wqe[64] = {};
	unsigned ds = 4; // ctrl, eth (+2 inline bytes), 16 more inline bytes, one data pointer
	bits::store_be32(wqe, 0x0a);
	bits::store_be32(wqe + 4, sq.n << 8 | ds);
	wqe[0xb] = 0x08; // CQ update
	wqe[16 + 4] = 0xc0; // L3 and L4 checksums
	bits::store_be16(wqe + 16 + 12, 18);
	std::memcpy(wqe + 16 + 14, f.data(), 18);
	bits::store_be32(wqe + 48, static_cast<uint32_t>(f.size() - 18));
	bits::store_be32(wqe + 52, sbuf.key);
	bits::store_be64(wqe + 56, sbuf.addr);
	a.h.mem.write(sq.buf, wqe, 64);
	uint64_t db = static_cast<uint64_t>(htobe32(sq.n << 8 | ds)) << 32 | htobe32(0x0a);
	a.h.hca->bar_write(a.d.uar * 4096ull + 0x800, 8, db);

	Cqe tx, rx;
	ASSERT_TRUE(a.d.poll(acq, &tx));
	EXPECT_EQ(tx.opcode, cqe_opcode::REQ);
	EXPECT_EQ(tx.qpn, sq.n);
	EXPECT_EQ(tx.wqe_counter, 0);
	ASSERT_TRUE(b.d.poll(bcq, &rx));
	EXPECT_EQ(rx.opcode, cqe_opcode::RESP_SEND);
	EXPECT_EQ(rx.byte_cnt, f.size());
	uint8_t flags = b.h.mem.byte(bcq.buf + 0x1c);
	EXPECT_EQ(flags & 7, 7) << "L2, L3 and L4 OK";
	EXPECT_EQ(b.h.mem.byte(bcq.buf + 0x1d), 2 << 4 | 2 << 2) << "UDP over IPv4";

	std::vector<uint8_t> got = b.h.mem.bytes(rbuf.addr, f.size());
	steer::Headers hh = steer::parse_headers(got.data(), got.size());
	EXPECT_TRUE(steer::ipv4_csum_ok(got.data(), got.size(), hh));
	EXPECT_TRUE(steer::l4_csum_ok(got.data(), got.size(), hh));
	// Apart from the two checksums the frame is the one sent.
	got[24] = got[25] = 0;
	got[40] = got[41] = 0;
	EXPECT_EQ(got, f);
}

} // namespace
} // namespace mlx5emu::test
