// SPDX-License-Identifier: GPL-2.0
// Dynamically Connected transport. A DCI is an RC requester whose
// destination comes with each WQE (the address vector: DCT number, DC
// access key, LID / GRH); it moves to another DCT only once every earlier
// WQE completed, and the first packet to a new one carries `dc_connect`.
// A DCT (a Qp with dc.target, created by CREATE_DCT) checks the key and
// its state, then hands the request to the connection of its initiator
// (SLID, DCI QPN): a hidden RC responder Qp with the DCT's PD, SRQ, CQ,
// access rights and user index, opened (or opened again, the expected PSN
// being the connecting packet's) by a packet with `dc_connect` and a
// generation it does not have yet. All the
// RC responder's reliability (duplicates, sequence NAKs, RNR, READ
// responses, atomics replay) is the connection's. A wrong key is dropped
// without an answer (the DCI runs into its retry limit) and raises the
// DCT_KEY_VIOLATION event when the DCT is armed; a DCT drained or being
// destroyed loses its connections and answers nothing.
#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/cq.h"
#include "prm/prm.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {

// Connections one DCT keeps; beyond, an idle one makes room.
constexpr size_t kDcConnsPerDct = 64;

bool conn_idle(const Qp &c)
{
	return !c.resp.in_progress && c.resp.responses.empty() && !c.resp.fault_pending && !c.resp.ack_held;
}

} // namespace

void DataPath::dc_receive(Qp &dct, const Packet &p)
{
	namespace ds = prm::dct_state;
	if (is_rc_response(p.opcode) || p.opcode >= ibop::UC_BASE) {
		++c_.dropped_packets;
		return;
	}
	if (dct.dc.dct_state != ds::ACTIVE) {
		++c_.dc_not_active;
		return;
	}
	if (p.dc_key != dct.dc.key) {
		++c_.dc_key_violations;
		++dct.dc.key_violations;
		if (dct.dc.armed) {
			dct.dc.armed = false;
			uint8_t eqe[prm::eqe::kSize] = {};
			eqe[prm::eqe::kType] = prm::dct_event::KEY_VIOLATION;
			bits::store_be32(eqe + prm::dct_event::kDctn, dct.qpn & 0xffffff);
			++c_.async_events;
			events_.async_event(eqe);
		}
		return;
	}
	auto it = dct.dc.conns.find({p.slid, p.sqpn});
	Qp *conn = it == dct.dc.conns.end() ? nullptr : res_.qp(it->second);
	if (p.dc_connect && (!conn || conn->dc.gen != p.dc_gen))
		conn = dc_open(dct, p, conn);
	if (!conn || conn->dc.gen != p.dc_gen) {
		++c_.dc_no_conn;
		return;
	}
	deliver_to(*conn, p);
}

Qp *DataPath::dc_open(Qp &dct, const Packet &p, Qp *conn)
{
	if (!conn) {
		if (dct.dc.conns.size() >= kDcConnsPerDct) {
			uint32_t victim = 0;
			for (const auto &[k, n] : dct.dc.conns)
				if (const Qp *c = res_.qp(n); !c || conn_idle(*c)) {
					victim = n;
					break;
				}
			if (!victim)
				return nullptr;
			dc_close(dct, victim);
		}
		uint32_t qpn;
		if (!res_.qpns.alloc(&qpn))
			return nullptr;
		auto q = std::make_unique<Qp>();
		q->qpn = qpn;
		conn = q.get();
		res_.qps.emplace(qpn, std::move(q));
		dct.dc.conns[{p.slid, p.sqpn}] = qpn;
	} else {
		qp_destroying(*conn);
		conn->reset_runtime();
	}
	conn->uid = dct.uid;
	conn->rlky = dct.rlky;
	conn->cfg = dct.cfg;
	conn->cfg.remote_qpn = p.sqpn;
	conn->cfg.path.rlid = p.slid;
	conn->cfg.path.sl = p.sl;
	conn->cfg.path.grh = p.grh.present;
	if (p.grh.present)
		conn->cfg.path.rgid = p.grh.sgid;
	conn->state = prm::qp_state::RTS;
	conn->resp.epsn = p.psn;
	conn->dc = DcState{};
	conn->dc.conn_of = dct.qpn;
	conn->dc.gen = p.dc_gen;
	++c_.dc_conns_opened;
	return conn;
}

void DataPath::dc_close(Qp &dct, uint32_t conn_qpn)
{
	for (auto it = dct.dc.conns.begin(); it != dct.dc.conns.end(); ++it)
		if (it->second == conn_qpn) {
			dct.dc.conns.erase(it);
			break;
		}
	if (Qp *c = res_.qp(conn_qpn)) {
		qp_retired(*c);
		res_.qps.erase(conn_qpn);
		res_.qpns.release(conn_qpn);
	}
}

void DataPath::dct_retire(Qp &dct)
{
	while (!dct.dc.conns.empty())
		dc_close(dct, dct.dc.conns.begin()->second);
	qp_retired(dct);
}

void DataPath::dct_drain(Qp &dct)
{
	while (!dct.dc.conns.empty())
		dc_close(dct, dct.dc.conns.begin()->second);
	dct.dc.dct_state = prm::dct_state::DRAINED;
	// The event after the command's completion, as a device sends it.
	uint32_t dctn = dct.qpn;
	post_task([this, dctn] {
		guarded(0, [&] {
			uint8_t eqe[prm::eqe::kSize] = {};
			eqe[prm::eqe::kType] = prm::dct_event::DRAINED;
			bits::store_be32(eqe + prm::dct_event::kDctn, dctn & 0xffffff);
			++c_.async_events;
			events_.async_event(eqe);
		});
	});
}

bool DataPath::dci_destination(Qp &qp, SendWr &wr, bool earlier_done)
{
	DcState &d = qp.dc;
	wr.dc_connect = false;
	if (d.dest_set && d.dest_dct == wr.dct && d.dest_dlid == wr.dlid) {
		wr.dc_gen = d.gen;
		return true;
	}
	if (!earlier_done)
		return false;
	d.dest_set = true;
	d.gen = wr.dc_gen = ++dc_gen_;
	d.dest_dct = wr.dct;
	d.dest_dlid = wr.dlid;
	d.dest_key = wr.dc_key;
	wr.dc_connect = true;
	return true;
}

} // namespace mlx5emu
