// SPDX-License-Identifier: GPL-2.0
// The Ethernet data path between two HCAs on the L2 switch: a send WQE
// (control + Ethernet segment with the inline L2 header, checksum flags,
// a data pointer) leaves A with its IPv4 and UDP checksums filled in,
// completes on A's send CQ, and lands in B's receive WQE through B's
// root flow table and direct TIR with an RX CQE (byte count, L3/L4 OK).
// On an e-switch whose manager limited its vport's rate, A's SQ is paced.
#include <gtest/gtest.h>

#include <endian.h>

#include "eth_harness.h"
#include "exec/datapath.h"
#include "prm/cq.h"
#include "prm/qos.h"
#include "steer/eswitch.h"
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

// A on the left sends, B on the right receives into RQ WQEs of 2 KiB.
struct EthPair : ::testing::Test {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	EthDev a{fabric, 0}, b{fabric, 1};
	DpHca::Cq acq, bcq;
	EthDev::Queue sq, rq;
	DpHca::Mr sbuf, rbuf;
	uint16_t sq_pi = 0;

	void SetUp() override
	{
		a.port_up();
		b.port_up();
		bcq = b.d.create_cq(5);
		rq.n = b.create(b.queue_msg(nic_op::CREATE_RQ, bcq.cqn, 4, 0, &rq));
		b.h.ok(b.modify_msg(nic_op::MODIFY_RQ, rq.n, wq_state::RST, wq_state::RDY), 16);
		b.steer_all_to(rq.n);
		rbuf = b.d.reg_mr(16 * 2048);
		for (unsigned i = 0; i < 16; ++i) {
			uint8_t dseg[16];
			bits::store_be32(dseg, 2048);
			bits::store_be32(dseg + 4, rbuf.key);
			bits::store_be64(dseg + 8, rbuf.addr + 2048 * i);
			b.h.mem.write(rq.buf + 16 * i, dseg, 16);
		}
		uint8_t pi[4];
		bits::store_be32(pi, 16);
		b.h.mem.write(rq.dbr, pi, 4);

		acq = a.d.create_cq(5);
		uint32_t tisn = a.create_tis();
		sq.n = a.create(a.queue_msg(nic_op::CREATE_SQ, acq.cqn, 4, tisn, &sq));
		a.h.ok(a.modify_msg(nic_op::MODIFY_SQ, sq.n, wq_state::RST, wq_state::RDY), 16);
		sbuf = a.d.reg_mr(64 * 1024);
	}

	// Posts one WQE: `inl` bytes of `f` inline, the rest by pointer.
	void send(uint8_t opcode, const std::vector<uint8_t> &f, unsigned inl, uint16_t mss = 0)
	{
		a.h.mem.write(sbuf.addr, f.data() + inl, f.size() - inl);
		uint8_t wqe[128] = {};
		unsigned inl_ds = (inl - 2 + 15) / 16;
		unsigned ds = 2 + inl_ds + 1;
		bits::store_be32(wqe, static_cast<uint32_t>(sq_pi) << 8 | opcode);
		bits::store_be32(wqe + 4, sq.n << 8 | ds);
		wqe[0xb] = 0x08;
		wqe[16 + 4] = 0xc0;
		bits::store_be16(wqe + 16 + 6, mss);
		bits::store_be16(wqe + 16 + 12, static_cast<uint16_t>(inl));
		std::memcpy(wqe + 16 + 14, f.data(), inl);
		uint8_t *d = wqe + 16 * (2 + inl_ds);
		bits::store_be32(d, static_cast<uint32_t>(f.size() - inl));
		bits::store_be32(d + 4, sbuf.key);
		bits::store_be64(d + 8, sbuf.addr);
		unsigned nbb = (ds * 16 + 63) / 64;
		for (unsigned k = 0; k < nbb; ++k)
			a.h.mem.write(sq.buf + 64 * ((sq_pi + k) & 15), wqe + 64 * k, 64);
		uint64_t db = static_cast<uint64_t>(htobe32(sq.n << 8 | ds)) << 32 | htobe32(sq_pi << 8 | opcode);
		sq_pi = static_cast<uint16_t>(sq_pi + nbb);
		a.h.hca->bar_write(a.d.uar * 4096ull + 0x800, 8, db);
	}
};

TEST_F(EthPair, UdpFrameFromSqToRq)
{
	std::vector<uint8_t> f = udp_frame(300);
	send(0x0a, f, 18);
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

// ctl `sq-error`: the next WQE completes in error (local protection) and
// its SQ goes to ERR, where it executes nothing; the driver's recovery
// (ERR -> RST -> RDY, the ring from 0) gets a working SQ back.
TEST_F(EthPair, InjectedSqErrorStopsTheSqUntilReset)
{
	std::vector<uint8_t> f = udp_frame(100);
	a.h.fw().faults.fail_sq_wqe(1);
	send(0x0a, f, 18);
	Cqe tx, rx;
	ASSERT_TRUE(a.d.poll(acq, &tx));
	EXPECT_EQ(tx.opcode, cqe_opcode::REQ_ERR);
	EXPECT_EQ(a.h.mem.byte(acq.buf + cqe::kSyndrome), 0x04) << "local protection syndrome";
	EXPECT_FALSE(b.d.poll(bcq, &rx, 200ms)) << "nothing left the SQ";
	send(0x0a, f, 18);
	EXPECT_FALSE(a.d.poll(acq, &tx, 200ms)) << "an SQ in error executes nothing";
	a.h.fails(a.modify_msg(nic_op::MODIFY_SQ, sq.n, wq_state::ERR, wq_state::RDY), 16, status::BAD_PARAM);
	a.h.ok(a.modify_msg(nic_op::MODIFY_SQ, sq.n, wq_state::ERR, wq_state::RST), 16);
	a.h.ok(a.modify_msg(nic_op::MODIFY_SQ, sq.n, wq_state::RST, wq_state::RDY), 16);
	sq_pi = 0;
	send(0x0a, f, 18);
	ASSERT_TRUE(a.d.poll(acq, &tx));
	EXPECT_EQ(tx.opcode, cqe_opcode::REQ);
	ASSERT_TRUE(b.d.poll(bcq, &rx));
	EXPECT_EQ(rx.byte_cnt, f.size());
	EXPECT_FALSE(a.h.fw().faults.take_sq_wqe_failure()) << "one failure, then disarmed";
}

// LSO: a 3000-byte TCP payload with MSS 1000 arrives as three frames with
// their own lengths, sequence numbers, PSH only on the last, checksums.
TEST_F(EthPair, LsoCutsTcpIntoMssFrames)
{
	std::vector<uint8_t> f = udp_frame(0);
	f.resize(34); // Ethernet + IPv4
	f[23] = 6;    // TCP
	f.insert(f.end(), {0x30, 0x39, 0x04, 0xd2, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0});
	for (unsigned i = 0; i < 3000; ++i)
		f.push_back(static_cast<uint8_t>(i));
	send(0x0e, f, 54, 1000);
	Cqe tx;
	ASSERT_TRUE(a.d.poll(acq, &tx));
	EXPECT_EQ(tx.opcode, cqe_opcode::REQ);
	for (unsigned i = 0; i < 3; ++i) {
		Cqe rx;
		ASSERT_TRUE(b.d.poll(bcq, &rx)) << "segment " << i;
		EXPECT_EQ(rx.byte_cnt, 54u + 1000);
		std::vector<uint8_t> got = b.h.mem.bytes(rbuf.addr + 2048 * i, rx.byte_cnt);
		steer::Headers hh = steer::parse_headers(got.data(), got.size());
		EXPECT_EQ(hh.l3_len, 20u + 20 + 1000);
		EXPECT_TRUE(steer::ipv4_csum_ok(got.data(), got.size(), hh));
		EXPECT_TRUE(steer::l4_csum_ok(got.data(), got.size(), hh));
		EXPECT_EQ(bits::load_be32(got.data() + 38), 0x1000u + 1000 * i) << "sequence number";
		EXPECT_EQ(got[47] & 0x08, i == 2 ? 0x08 : 0) << "PSH on the last segment only";
		EXPECT_EQ(got[54], static_cast<uint8_t>(1000 * i));
	}
}

// A's vport limited to 8 Mb/s (1 byte/us) by its e-switch's scheduling
// elements: two 60000-byte LSO sends use the burst and overdraw it, the
// third waits until the rate paid for the second (about 60 ms), and is
// then sent: a shaper, nothing dropped.
TEST_F(EthPair, VportRatePacesTheSq)
{
	namespace se = sched_elem;
	steer::Eswitch esw(0, 4);
	DataPath &dp = a.h.fw().dp();
	{
		auto lk = dp.lock();
		dp.set_eswitch(&esw, 0);
		steer::SchedElement root, vp;
		uint32_t root_id = 0, vp_id = 0, r = 0;
		root.type = se::TYPE_TSAR;
		ASSERT_EQ(esw.qos().create(root, 100, &root_id, &r), 0);
		vp.type = se::TYPE_VPORT;
		vp.parent = root_id;
		vp.max_average_bw = 8;
		ASSERT_EQ(esw.qos().create(vp, 100, &vp_id, &r), 0);
	}
	std::vector<uint8_t> f = udp_frame(0);
	f.resize(34);
	f[23] = 6;
	f.insert(f.end(), {0x30, 0x39, 0x04, 0xd2, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0});
	f.resize(54 + 60000, 0x5a);
	auto t0 = std::chrono::steady_clock::now();
	for (unsigned i = 0; i < 3; ++i) {
		send(0x0e, f, 54, 1400);
		Cqe tx;
		ASSERT_TRUE(a.d.poll(acq, &tx, std::chrono::milliseconds(10000))) << "send " << i;
		EXPECT_EQ(tx.opcode, cqe_opcode::REQ);
	}
	auto took = std::chrono::steady_clock::now() - t0;
	EXPECT_GE(took, std::chrono::milliseconds(50)) << "the third send waited for the rate";
	auto lk = dp.lock();
	EXPECT_GT(dp.eth_counters().tx_rate_waits, 0u);
	EXPECT_EQ(dp.eth_counters().tx[0].packets, 3u * 43) << "every segment sent";
	dp.set_eswitch(nullptr, 0);
}

} // namespace
} // namespace mlx5emu::test
