// SPDX-License-Identifier: GPL-2.0
// An emulated HCA with an Ethernet port for tests: NIC queue commands
// (TIS, SQ, RQ, TIR, a match-all root flow table) and the port brought up.
#pragma once

#include "dp_harness.h"
#include "prm/prm.h"
#include "prm/eth.h"
#include "prm/mkey.h"

namespace mlx5emu::test {

class EthDev {
public:
	DpHca d;
	FwHarness &h = d.h;
	uint32_t td = 0;

	EthDev(std::shared_ptr<Fabric> fabric, unsigned index) : d(std::move(fabric), index, false, LinkType::Eth)
	{
		auto out = h.ok(Msg(prm::res_op::ALLOC_TRANSPORT_DOMAIN, 0, 16), 16);
		td = be32_at(out, 8) & 0xffffff;
	}

	struct Queue {
		uint32_t n = 0;
		uint64_t buf = 0, dbr = 0;
	};

	// CREATE_RQ / CREATE_SQ message of 2^log entries on `cqn`.
	Msg queue_msg(uint16_t op, uint32_t cqn, unsigned log, uint32_t tisn, Queue *q)
	{
		namespace nc = prm::nic_cmd;
		bool sq = op == prm::nic_op::CREATE_SQ;
		unsigned stride_log = sq ? 6 : 4;
		size_t bytes = size_t(1) << (log + stride_log);
		size_t pages = (bytes + 4095) / 4096;
		q->buf = h.mem.alloc(pages * 4096, 4096);
		q->dbr = h.mem.alloc(64, 64);
		Msg m(op, 0, nc::kQueuePas + 8 * pages);
		m.set((sq ? prm::sqc::cqn : prm::rqc::cqn).at(nc::kCtx), cqn);
		if (sq)
			m.set(prm::sqc::tis_lst_sz.at(nc::kCtx), tisn ? 1 : 0).set(prm::sqc::tis_num_0.at(nc::kCtx), tisn);
		else
			m.set(prm::rqc::vsd.at(nc::kCtx), 1);
		unsigned w = nc::kCtx + (sq ? prm::sqc::kWq : prm::rqc::kWq);
		m.set(prm::wq::wq_type.at(w), prm::wq::TYPE_CYCLIC).set(prm::wq::pd.at(w), d.pd);
		m.set(prm::wq::uar_page.at(w), d.uar);
		m.set(prm::wq::log_wq_stride.at(w), stride_log).set(prm::wq::log_wq_sz.at(w), log);
		m.be64(w + prm::wq::kDbrAddr, q->dbr);
		for (size_t i = 0; i < pages; ++i)
			m.be64(nc::kQueuePas + 8 * i, q->buf + 4096 * i);
		return m;
	}

	uint32_t create(const Msg &m)
	{
		auto out = h.ok(m, 16);
		return be32_at(out, 8) & 0xffffff;
	}

	uint32_t create_tis()
	{
		Msg tis(prm::nic_op::CREATE_TIS, 0, prm::nic_cmd::kCtx + 0xa0);
		tis.set(prm::tisc::transport_domain.at(prm::nic_cmd::kCtx), td);
		return create(tis);
	}

	// MODIFY_SQ / MODIFY_RQ from `cur` to `next`.
	Msg modify_msg(uint16_t op, uint32_t n, uint8_t cur, uint8_t next)
	{
		namespace nc = prm::nic_cmd;
		bits::Field state = op == prm::nic_op::MODIFY_SQ ? prm::sqc::state : prm::rqc::state;
		Msg m(op, 0, nc::kCreateSize);
		m.set(nc::number_in, n).set(nc::modify_state, cur).set(state.at(nc::kCtx), next);
		return m;
	}

	// A direct TIR to `rqn` and a root table whose one entry sends
	// everything there.
	void steer_all_to(uint32_t rqn)
	{
		namespace nc = prm::nic_cmd;
		Msg tir(prm::nic_op::CREATE_TIR, 0, nc::kCreateSize);
		tir.set(prm::tirc::inline_rqn.at(nc::kCtx), rqn).set(prm::tirc::transport_domain.at(nc::kCtx), td);
		uint32_t tirn = create(tir);
		Msg ft(prm::nic_op::CREATE_FLOW_TABLE, 0, 0x40);
		ft.set(prm::ftc::log_size.at(prm::ftc::kAt), 2);
		uint32_t table = create(ft);
		Msg fg(prm::nic_op::CREATE_FLOW_GROUP, 0, prm::create_fg::kSize);
		fg.set(prm::ft_in::table_id, table).set(prm::create_fg::end_flow_index, 0);
		uint32_t group = be32_at(h.ok(fg, 16), 8);
		Msg fte(prm::nic_op::SET_FLOW_TABLE_ENTRY, 0, prm::set_fte::kMinSize + 8);
		unsigned fc = prm::set_fte::kFlowContext;
		fte.set(prm::ft_in::table_id, table).set(prm::flow_ctx::group_id.at(fc), group);
		fte.set(prm::flow_ctx::action.at(fc), prm::flow_ctx::ACT_FWD_DEST);
		fte.set(prm::flow_ctx::destination_list_size.at(fc), 1);
		fte.set(prm::dest::type.at(fc + prm::flow_ctx::kDestinations), prm::dest::TIR);
		fte.set(prm::dest::id.at(fc + prm::flow_ctx::kDestinations), tirn);
		h.ok(fte, 16);
		h.ok(Msg(prm::nic_op::SET_FLOW_TABLE_ROOT, 0, 0x40).set(prm::ft_in::table_id, table), 16);
	}

	// PAOS admin up.
	void port_up()
	{
		namespace ar = prm::access_register_in;
		Msg m(prm::op::ACCESS_REG, ar::WRITE, ar::kData + prm::paos::kSize);
		m.set(bits::Field{2, 15, 0}, prm::reg_eth::PAOS);
		m.set(prm::paos::local_port.at(ar::kData), 1).set(prm::paos::ase.at(ar::kData), 1);
		m.set(prm::paos::admin_status.at(ar::kData), prm::paos::UP);
		h.ok(m, ar::kData + prm::paos::kSize);
	}
};

} // namespace mlx5emu::test
