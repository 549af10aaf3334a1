// SPDX-License-Identifier: GPL-2.0
// NIC queue commands of an Ethernet function: the SQ/RQ state machine
// (RST -> RDY -> ERR -> RST, the current state checked), TIS/RQT/TIR
// references, the port registers, the cable pull of the control channel,
// and their absence on an InfiniBand port.
#include <gtest/gtest.h>

#include "eth_harness.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
namespace nc = nic_cmd;

struct EthNic : ::testing::Test {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	EthDev e{fabric, 0};
	DpHca &d = e.d;
	FwHarness &h = e.h;
	uint32_t td = e.td;

	Msg queue_msg(uint16_t op, uint32_t cqn, unsigned log, uint32_t tisn = 0)
	{
		EthDev::Queue q;
		return e.queue_msg(op, cqn, log, tisn, &q);
	}
	uint32_t create(const Msg &m) { return e.create(m); }
	Msg modify_rq(uint32_t rqn, uint8_t cur, uint8_t next) { return e.modify_msg(nic_op::MODIFY_RQ, rqn, cur, next); }

	uint8_t rq_state(uint32_t rqn)
	{
		auto out = h.ok(Msg(nic_op::QUERY_RQ, 0, 16).set(nc::number_in, rqn), nc::kOutSize);
		return static_cast<uint8_t>(field(out, rqc::state.at(nc::kCtx)));
	}
};

TEST_F(EthNic, RqStateMachine)
{
	DpHca::Cq cq = d.create_cq(5);
	uint32_t rqn = create(queue_msg(nic_op::CREATE_RQ, cq.cqn, 4));
	EXPECT_EQ(rq_state(rqn), wq_state::RST);
	h.fails(modify_rq(rqn, wq_state::RST, wq_state::ERR), 16, status::BAD_PARAM);
	// The current state named must be the queue's.
	h.fails(modify_rq(rqn, wq_state::RDY, wq_state::RDY), 16, status::BAD_PARAM);
	h.ok(modify_rq(rqn, wq_state::RST, wq_state::RDY), 16);
	EXPECT_EQ(rq_state(rqn), wq_state::RDY);
	h.ok(modify_rq(rqn, wq_state::RDY, wq_state::RDY), 16);
	h.ok(modify_rq(rqn, wq_state::RDY, wq_state::ERR), 16);
	h.fails(modify_rq(rqn, wq_state::ERR, wq_state::RDY), 16, status::BAD_PARAM);
	h.ok(modify_rq(rqn, wq_state::ERR, wq_state::RST), 16);
	EXPECT_EQ(rq_state(rqn), wq_state::RST);
	h.ok(Msg(nic_op::DESTROY_RQ, 0, 16).set(nc::number_in, rqn), 16);
	h.fails(Msg(nic_op::QUERY_RQ, 0, 16).set(nc::number_in, rqn), nc::kOutSize, status::BAD_PARAM);
}

TEST_F(EthNic, SqNeedsItsTisAndRqtItsRqs)
{
	DpHca::Cq cq = d.create_cq(5);
	uint32_t tisn = e.create_tis();
	h.fails(queue_msg(nic_op::CREATE_SQ, cq.cqn, 4, tisn + 5), 16, status::BAD_PARAM);
	uint32_t sqn = create(queue_msg(nic_op::CREATE_SQ, cq.cqn, 4, tisn));
	h.fails(Msg(nic_op::DESTROY_TIS, 0, 16).set(nc::number_in, tisn), 16, status::RESOURCE_BUSY);
	h.ok(Msg(nic_op::DESTROY_SQ, 0, 16).set(nc::number_in, sqn), 16);
	h.ok(Msg(nic_op::DESTROY_TIS, 0, 16).set(nc::number_in, tisn), 16);

	uint32_t rqn = create(queue_msg(nic_op::CREATE_RQ, cq.cqn, 4));
	Msg rqt(nic_op::CREATE_RQT, 0, nc::kCtx + rqtc::kRqList + 8);
	rqt.set(rqtc::rqt_max_size.at(nc::kCtx), 2).set(rqtc::rqt_actual_size.at(nc::kCtx), 2);
	rqt.set(bits::Field{(nc::kCtx + rqtc::kRqList) / 4, 23, 0}, rqn);
	rqt.set(bits::Field{(nc::kCtx + rqtc::kRqList) / 4 + 1, 23, 0}, rqn + 77);
	h.fails(rqt, 16, status::BAD_PARAM); // an RQ that does not exist
	rqt.set(bits::Field{(nc::kCtx + rqtc::kRqList) / 4 + 1, 23, 0}, rqn);
	uint32_t rqtn = create(rqt);
	Msg tir(nic_op::CREATE_TIR, 0, nc::kCreateSize);
	tir.set(tirc::disp_type.at(nc::kCtx), tirc::DISP_INDIRECT).set(tirc::indirect_table.at(nc::kCtx), rqtn);
	tir.set(tirc::transport_domain.at(nc::kCtx), td).set(tirc::rx_hash_fn.at(nc::kCtx), tirc::HASH_TOEPLITZ);
	uint32_t tirn = create(tir);
	h.fails(Msg(nic_op::DESTROY_RQT, 0, 16).set(nc::number_in, rqtn), 16, status::RESOURCE_BUSY);
	h.fails(Msg(nic_op::DESTROY_RQ, 0, 16).set(nc::number_in, rqn), 16, status::RESOURCE_BUSY);
	h.ok(Msg(nic_op::DESTROY_TIR, 0, 16).set(nc::number_in, tirn), 16);
	h.ok(Msg(nic_op::DESTROY_RQT, 0, 16).set(nc::number_in, rqtn), 16);
	h.ok(Msg(nic_op::DESTROY_RQ, 0, 16).set(nc::number_in, rqn), 16);
	// LRO is not modelled: refused.
	Msg lro(nic_op::CREATE_TIR, 0, nc::kCreateSize);
	lro.set(tirc::inline_rqn.at(nc::kCtx), rqn).set(tirc::transport_domain.at(nc::kCtx), td);
	lro.set(tirc::packet_merge_mask.at(nc::kCtx), 1);
	h.fails(lro, 16, status::BAD_PARAM);
}

// PAOS brings the port up (a port change event) and PTYS reports it.
TEST_F(EthNic, PortRegisters)
{
	auto reg = [&](uint16_t id, uint16_t op_mod, std::vector<std::pair<bits::Field, uint32_t>> set,
		       unsigned size) {
		Msg m(op::ACCESS_REG, op_mod, access_register_in::kData + size);
		m.set(bits::Field{2, 15, 0}, id);
		for (auto &[f, v] : set)
			m.set(f.at(access_register_in::kData), v);
		return h.ok(m, access_register_in::kData + size);
	};
	auto o = reg(reg_eth::PAOS, 1, {{paos::local_port, 1}}, paos::kSize);
	EXPECT_EQ(field(o, paos::oper_status.at(access_register_in::kData)), paos::DOWN);
	o = reg(reg_eth::PAOS, 0, {{paos::local_port, 1}, {paos::ase, 1}, {paos::admin_status, paos::UP}}, paos::kSize);
	EXPECT_EQ(field(o, paos::oper_status.at(access_register_in::kData)), paos::UP);
	o = reg(reg_eth::PTYS, 1, {{ptys::local_port, 1}, {ptys::proto_mask, ptys::PROTO_EN}}, ptys::kSize);
	EXPECT_EQ(field(o, ptys::eth_proto_oper.at(access_register_in::kData)), ptys::kMode100GbaseCr4);
	o = reg(reg_eth::PMTU, 1, {{pmtu::local_port, 1}}, pmtu::kSize);
	EXPECT_EQ(field(o, pmtu::max_mtu.at(access_register_in::kData)), EthPort::kMaxMtu);
}

// The control channel's cable pull takes the operational state down while
// the admin state stays up; plugging the cable back restores it. An
// InfiniBand port has no cable to pull.
TEST_F(EthNic, CablePullFlapsTheLink)
{
	auto paos_oper = [&](uint16_t op_mod, uint32_t admin) {
		Msg m(op::ACCESS_REG, op_mod, access_register_in::kData + paos::kSize);
		m.set(bits::Field{2, 15, 0}, reg_eth::PAOS);
		m.set(paos::local_port.at(access_register_in::kData), 1);
		if (admin) {
			m.set(paos::ase.at(access_register_in::kData), 1);
			m.set(paos::admin_status.at(access_register_in::kData), admin);
		}
		auto o = h.ok(m, access_register_in::kData + paos::kSize);
		return field(o, paos::oper_status.at(access_register_in::kData));
	};
	EXPECT_EQ(paos_oper(0, paos::UP), paos::UP);
	ASSERT_TRUE(h.fw().set_eth_cable(false));
	EXPECT_EQ(paos_oper(1, 0), paos::DOWN);
	ASSERT_TRUE(h.fw().set_eth_cable(true));
	EXPECT_EQ(paos_oper(1, 0), paos::UP);

	auto fabric2 = std::make_shared<Fabric>();
	DpHca ib(fabric2, 0);
	EXPECT_FALSE(ib.h.fw().set_eth_cable(false));
}

TEST(EthNicOnIb, NicCommandsAreNotThere)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca d(fabric, 0);
	Msg tis(nic_op::CREATE_TIS, 0, nc::kCtx + 0xa0);
	d.h.fails(tis, 16, status::BAD_OP);
	d.h.fails(Msg(nic_op::CREATE_FLOW_TABLE, 0, 0x40), 16, status::BAD_OP);
}

} // namespace
} // namespace mlx5emu::test
