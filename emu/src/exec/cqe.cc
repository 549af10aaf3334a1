// SPDX-License-Identifier: GPL-2.0
// CQE contents and delivery: the 64-byte CQE, its timestamp, the CQ write, the
// completion event of an armed CQ, the CQ error event on overrun and the
// catastrophic error of a QP whose CQE the CQ in error refused.
#include <cstring>

#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/device_clock.h"
#include "queues/faults.h"
#include "prm/prm.h"
#include "prm/cq.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace cq = prm::cqe;
namespace op = prm::cqe_opcode;
using bits::store_be16;
using bits::store_be32;

void Completer::build_cqe(const CqeInfo &in, uint8_t *o)
{
	std::memset(o, 0, cq::kSize);
	bool error = in.opcode == op::REQ_ERR || in.opcode == op::RESP_ERR;
	store_be32(o + cq::kSrqnUidx, in.srqn_uidx & 0xffffff);
	store_be16(o + cq::kWqeCounter, in.wqe_counter);
	if (error) {
		o[cq::kSyndrome] = in.syndrome;
		o[cq::kVendorErrSynd] = in.vendor_syndrome;
		store_be32(o + cq::kSopDropQpn, static_cast<uint32_t>(in.wqe_opcode) << 24 | (in.qpn & 0xffffff));
	} else {
		store_be32(o + cq::kByteCnt, in.byte_cnt);
		if (in.has_imm)
			std::memcpy(o + cq::kImmInvalPkey, &in.imm, 4);
		store_be32(o + cq::kFlagsRqpn, in.flags_rqpn);
		store_be16(o + cq::kSlid, in.slid);
		o[cq::kMlPath] = in.ml_path;
		o[cq::kL4L3HdrType] = in.l4_l3_hdr_type;
		store_be16(o + cq::kVlanInfo, in.vlan_info);
		uint32_t sop = in.opcode == op::REQ ? static_cast<uint32_t>(in.wqe_opcode) << 24 : 0;
		store_be32(o + cq::kSopDropQpn, sop | (in.qpn & 0xffffff));
	}
	o[cq::kOpOwn] = static_cast<uint8_t>(in.opcode << 4);
}

bool Completer::complete(uint32_t cqn, const CqeInfo &info, bool solicited)
{
	uint8_t cqe[cq::kSize];
	build_cqe(info, cqe);
	return push_cqe(cqn, cqe, solicited, info.qpn);
}

bool Completer::push_cqe(uint32_t cqn, const uint8_t *in, bool solicited, uint32_t qpn)
{
	Cq *cq = dp_.res_.cq(cqn);
	if (!cq) {
		++dp_.c_.cqe_drops;
		return false;
	}
	// A successful CQE carries the device clock of the moment it is
	// written; an error CQE has its syndromes where the timestamp goes.
	uint8_t cqe[cq::kSize];
	std::memcpy(cqe, in, cq::kSize);
	uint8_t opcode = cqe[cq::kOpOwn] >> 4;
	if (opcode != op::REQ_ERR && opcode != op::RESP_ERR)
		bits::store_be64(cqe + cq::kTimestampH, device_clock_ns());
	// A device that misbehaves on purpose (control channel): the CQE
	// corrupted, or written twice.
	int copies = dp_.faults_ && dp_.faults_->apply_cqe(cqe) ? 2 : 1;
	for (int copy = 0; copy < copies; ++copy) {
		Cq::Push r = cq->push(dp_.mem_, cqe, solicited);
		if (r.overrun) {
			++dp_.c_.cq_overruns;
			uint8_t eqe[prm::eqe::kSize] = {};
			eqe[prm::eqe::kType] = prm::async_event::CQ_ERROR;
			store_be32(eqe + prm::async_event::kCqErrCqn, cqn);
			eqe[prm::async_event::kCqErrSyndrome] = prm::async_event::CQ_ERR_OVERRUN;
			++dp_.c_.async_events;
			dp_.events_.async_event(eqe);
		}
		if (!r.written) {
			++dp_.c_.cqe_drops;
			if (cq->overrun())
				cq_error_fatal(qpn);
			return copy > 0;
		}
		++dp_.c_.cqes;
		if (r.notify)
			comp_event(*cq);
		else if (r.hold_started)
			moderation_start(*cq);
	}
	return true;
}

void Completer::cq_error_fatal(uint32_t qpn)
{
	// IBA 11.6.3.1: a work queue that tries to post a CQE to a CQ in the
	// error state gets a local work queue catastrophic error; the QP goes
	// to ERR and what it had outstanding is flushed. Deferred to its own
	// engine task because complete() runs in the middle of queue walks
	// (rc_complete, flush_sq) that enter_error would invalidate.
	Qp *qp = dp_.res_.qp(qpn);
	if (!qp || qp->catas_pending || qp->state == prm::qp_state::ERR || qp->state == prm::qp_state::RST)
		return;
	qp->catas_pending = true;
	dp_.post_task([this, qpn] {
		dp_.guarded(qpn, [&] {
			Qp *q = dp_.res_.qp(qpn);
			if (!q || !q->catas_pending)
				return;
			q->catas_pending = false;
			if (q->state == prm::qp_state::ERR || q->state == prm::qp_state::RST)
				return;
			++q->ctr.errors;
			dp_.post_qp_event(prm::async_event::WQ_CATAS_ERROR, qpn);
			enter_error(*q);
		});
	});
}

uint32_t Completer::cqe_srqn_uidx(const Qp &qp, const Srq *srq) const
{
	// cqe_version 1: the user index names the resource; software that
	// does not use it (0xffffff) gets the SRQ number of SRQ receives.
	if (srq && srq->cfg.kind == SrqConfig::Kind::XrcSrq)
		return srq->cfg.user_index;
	if (qp.cfg.user_index != 0xffffff)
		return qp.cfg.user_index;
	return srq ? srq->number : 0xffffff;
}

CqeInfo Completer::req_cqe(const Qp &qp, const SendWr &wr) const
{
	CqeInfo ci;
	ci.qpn = qp.qpn;
	ci.wqe_counter = wr.index;
	ci.wqe_opcode = wr.opcode;
	ci.srqn_uidx = cqe_srqn_uidx(qp, nullptr);
	return ci;
}

CqeInfo Completer::resp_cqe(const Qp &qp, const RecvWqe &rw) const
{
	CqeInfo ci;
	ci.qpn = qp.dc.conn_of ? qp.dc.conn_of : qp.qpn; // a DCT's connection: the DCT
	ci.wqe_counter = rw.counter;
	ci.srqn_uidx = cqe_srqn_uidx(qp, rw.from_srq ? dp_.res_.srq(rw.srqn) : nullptr);
	return ci;
}

void Completer::complete_send_error(Qp &qp, const SendWr &wr, uint8_t syndrome)
{
	CqeInfo ci = req_cqe(qp, wr);
	ci.opcode = op::REQ_ERR;
	ci.syndrome = syndrome;
	++qp.ctr.cqes;
	complete(qp.cfg.cqn_snd, ci, true);
}

void Completer::complete_send(Qp &qp, const SendWr &wr, uint32_t byte_cnt)
{
	if (!wr.signaled)
		return;
	CqeInfo ci = req_cqe(qp, wr);
	ci.opcode = op::REQ;
	ci.byte_cnt = byte_cnt;
	++qp.ctr.cqes;
	complete(qp.cfg.cqn_snd, ci, false);
}

} // namespace mlx5emu
