// SPDX-License-Identifier: GPL-2.0
// On-demand paging, transport page-fault scheme, responder side: an RDMA
// WRITE or READ that reaches a translation whose MTT entry is not present
// (a key software zapped through UMR, e.g. the in-tree mlx5_ib's DMA-BUF
// MRs after the exporter moved the buffer) raises a PAGE_FAULT EQE
// (sub_type RDMA: rkey, VA, length, token) when software listens for
// page faults, and the request is answered with an RNR NAK: the
// requester sends it again after the RNR timer. Until PAGE_FAULT_RESUME
// names the fault's token (the QP number), every request of that QP gets
// an RNR NAK and raises nothing more: one fault per QP at a time. A
// resume with the error bit makes the retried request fail with a remote
// access error (NAK, the QP in error, as for a bad rkey).
// Without a listening EQ a missing page is a remote access error, as
// before ODP.
#include <algorithm>

#include "exec/datapath.h"
#include "prm/bits.h"
#include "prm/prm.h"
#include "prm/cq.h"

namespace mlx5emu {

bool RdmaResponder::odp_hold(Qp &qp, const Packet &p, uint32_t rkey, uint64_t va, uint64_t len, uint64_t op_len,
			unsigned need, bool consume_recv)
{
	namespace o = prm::odp;
	Responder &r = qp.resp;
	if (r.fault_failed) {
		r.fault_failed = false;
		responder_error(qp, p, aeth::NAK_REMOTE_ACCESS, prm::cqe_syndrome::REMOTE_ACCESS, consume_recv);
		return true;
	}
	if (qp.cfg.is_uc() || !dp_.events_.listens(o::kEventPageFault))
		return false;
	if (r.fault_pending) {
		++dp_.c_.fault_naks;
		rnr_nak(qp, p);
		return true;
	}
	const Mkey *mk = nullptr;
	if (!check_rkey(qp, rkey, va, len, need, &mk) || dp_.res_.mkeys.present(*mk, va, static_cast<size_t>(len)))
		return false;

	uint8_t type = o::TYPE_RDMA | (need == ACC_REMOTE_WRITE ? o::TYPE_WRITE : 0);
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = o::kEventPageFault;
	eqe[prm::eqe::kSubType] = o::SUBTYPE_RDMA;
	bits::store_be32(eqe + o::kBytesCommitted, 0);
	bits::store_be32(eqe + o::kRkey, rkey);
	uint32_t pkt = static_cast<uint32_t>(std::min<uint64_t>(len, 0xffff));
	bits::store_be16(eqe + o::kPacketLength, static_cast<uint16_t>(pkt));
	bits::store_be32(eqe + o::kRdmaOpLen, static_cast<uint32_t>(std::min<uint64_t>(op_len, 0xffffffff)));
	bits::store_be64(eqe + o::kRdmaVa, va);
	bits::store_be32(eqe + o::kPftypeToken, static_cast<uint32_t>(type) << 24 | (qp.qpn & 0xffffff));
	r.fault_pending = true;
	r.fault_type = type;
	++dp_.c_.page_faults;
	dp_.events_.async_event(eqe);
	rnr_nak(qp, p);
	return true;
}

bool RdmaResponder::page_fault_resume(uint32_t token, uint32_t wq, uint8_t type, bool error)
{
	Qp *qp = dp_.res_.qp(token);
	if (!qp || wq != token || !qp->resp.fault_pending || qp->resp.fault_type != type)
		return false;
	qp->resp.fault_pending = false;
	qp->resp.fault_failed = error;
	++dp_.c_.fault_resumes;
	if (error)
		++dp_.c_.fault_errors;
	return true;
}

} // namespace mlx5emu
