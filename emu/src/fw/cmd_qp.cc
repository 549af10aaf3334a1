// SPDX-License-Identifier: GPL-2.0
// Queue pairs: CREATE_QP, DESTROY_QP, QUERY_QP and the state transitions
// (RST2INIT .. INIT2INIT, 2ERR, 2RST).
#include "exec/datapath.h"
#include "fw/cmd_pas.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/cmd_umem.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/qp.h"
#include "queues/qp_context.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kType = 1,
	kUmem = 2,
	kPd = 3,
	kUar = 4,
	kSendCq = 5,
	kRecvCq = 6,
	kSrq = 7,
	kRqSize = 8,
	kSqSize = 9,
	kSpecialBusy = 10,
	kFull = 11,
	kPas = 12, // and 13
	kDbr = 14,
	kNoQp = 15,
	kStride = 16,
	kRqType = 17,
	kXrcd = 18,
	kForeign = 19,
	kForeignPd = 20,
	kForeignSendCq = 21,
	kForeignRecvCq = 22,
	kForeignSrq = 23,
	kForeignXrcd = 24,
	kUserSpecial = 25,
	kBufUmem = 26, // and 27, 28 (cmd_umem.h)
	kDbrUmem = 29, // and 30, 31
};

bool supported_type(uint8_t st)
{
	// REG_UMR: the in-tree mlx5_ib creates its UMR QP before the first
	// memory registration even when no UMR feature is advertised.
	return st == qp_st::RC || st == qp_st::UC || st == qp_st::XRC || st == qp_st::UD || st == qp_st::QP0 || st == qp_st::QP1 || st == qp_st::REG_UMR ||
	       st == qp_st::DCI;
}

void create_qp(CmdCtx &c)
{
	Firmware &fw = c.fw;
	const uint8_t *x = c.in + qp_cmd_in::kQpc;
	// DEVX: the work queue and the doorbell record may live in umems
	// (their ids, a byte offset for the queue; dbr_addr the record's).
	bool buf_umem = c.get(qp_cmd_in::wq_umem_valid), dbr_umem = bits::get(x, qpc::dbr_umem_valid);
	QpConfig cfg;
	qp_config_from_create(x, &cfg);
	if (!supported_type(cfg.st))
		return c.fail(status::BAD_PARAM, kType);
	// QP0 (the SMI: VL15, any port's configuration), QP1 and the UMR QP
	// (writes any key's translations) are the kernel's: a user context
	// cannot create them.
	if (!uid_privileged(c.uid) && (cfg.st == qp_st::QP0 || cfg.st == qp_st::QP1 || cfg.st == qp_st::REG_UMR)) {
		++fw.refusals.privileged_qp;
		return c.fail(status::BAD_PARAM, kUserSpecial);
	}
	unsigned log_max_sz = fw.caps.gen(cmd_hca_cap::log_max_qp_sz);
	if (cfg.rq_type != rq_type::REGULAR && cfg.rq_type != rq_type::SRQ && cfg.rq_type != rq_type::ZERO_LEN)
		return c.fail(status::BAD_PARAM, kRqType);
	if (cfg.has_rq() && cfg.log_rq_size > log_max_sz)
		return c.fail(status::BAD_PARAM, kRqSize);
	if (cfg.has_rq() && cfg.rq_stride() > fw.caps.gen(cmd_hca_cap::max_wqe_sz_rq))
		return c.fail(status::BAD_PARAM, kStride);
	if (!cfg.no_sq && cfg.log_sq_size > log_max_sz)
		return c.fail(status::BAD_PARAM, kSqSize);
	// The UAR page rings the send queue: a QP without one (an XRC
	// target from the in-tree mlx5_ib) may name none.
	if (!cfg.no_sq && !fw.uars.count(cfg.uar_page))
		return c.fail(status::BAD_PARAM, kUar);
	uint64_t bytes = cfg.rq_bytes() + static_cast<uint64_t>(cfg.sq_wqebbs()) * 64;
	if (bytes && !cfg.dbr_addr && !dbr_umem)
		return c.fail(status::BAD_PARAM, kDbr);
	if (!buf_umem && !read_page_list(c, qp_cmd_in::kPas, bytes, cfg.buf.log_page - 12, cfg.buf.offset, &cfg.buf, kPas))
		return;

	auto lk = fw.dp().lock();
	Resources &r = fw.dp().res();
	uint32_t buf_id = c.get(qp_cmd_in::wq_umem_id), dbr_id = bits::get(x, qpc::dbr_umem_id);
	// A QP without a queue (no SQ, no RQ of its own) names its umem
	// without using it.
	if (buf_umem && bytes &&
	    !umem_buffer(c, buf_id, bits::load_be64(c.in + qp_cmd_in::kWqUmemOffset), bytes, &cfg.buf, kBufUmem))
		return;
	if (dbr_umem && !umem_address(c, dbr_id, cfg.dbr_addr, 8, &cfg.dbr_addr, kDbrUmem))
		return;
	// The UMR QP works on memory keys of every PD: it may name none. An
	// XRC target receives into the XRC SRQ each request names, with that
	// SRQ's PD and CQ (exec/xrc.cc): its own PD, receive CQ and SRQ are
	// never used, and may name none (the in-tree mlx5_ib names spare ones).
	bool xrc_tgt = cfg.is_xrc_tgt();
	if (!r.pds.contains(cfg.pd) && cfg.st != qp_st::REG_UMR && !xrc_tgt)
		return c.fail(status::BAD_PARAM, kPd);
	if (!cfg.no_sq && !r.cq(cfg.cqn_snd))
		return c.fail(status::BAD_PARAM, kSendCq);
	if (cfg.rq_type != rq_type::ZERO_LEN && !xrc_tgt && !r.cq(cfg.cqn_rcv))
		return c.fail(status::BAD_PARAM, kRecvCq);
	if (cfg.rq_type == rq_type::SRQ && !xrc_tgt && !r.srq(cfg.srqn))
		return c.fail(status::BAD_PARAM, kSrq);
	if (xrc_tgt && cfg.rq_type != rq_type::SRQ)
		return c.fail(status::BAD_PARAM, kRqType);
	// XRC: initiators name a domain too (the in-tree mlx5_ib's spare one).
	if (cfg.st == qp_st::XRC && !r.xrcds.contains(cfg.xrcd))
		return c.fail(status::BAD_PARAM, kXrcd);
	// Objects of another user context cannot be named (cmd_uid.h).
	if ((r.pds.contains(cfg.pd) && !uid_may_name(c, Obj::Pd, cfg.pd, kForeignPd)) ||
	    (r.cq(cfg.cqn_snd) && !uid_may_name(c, Obj::Cq, cfg.cqn_snd, kForeignSendCq)) ||
	    (r.cq(cfg.cqn_rcv) && !uid_may_name(c, Obj::Cq, cfg.cqn_rcv, kForeignRecvCq)) ||
	    (cfg.rq_type == rq_type::SRQ && r.srq(cfg.srqn) && !uid_may_name(c, Obj::Srq, cfg.srqn, kForeignSrq)) ||
	    (r.xrcds.contains(cfg.xrcd) && !uid_may_name(c, Obj::Xrcd, cfg.xrcd, kForeignXrcd)))
		return;
	if ((cfg.st == qp_st::QP0 && r.qp0) || (cfg.st == qp_st::QP1 && r.qp1))
		return c.fail(status::RESOURCE_BUSY, kSpecialBusy);
	uint32_t qpn;
	if (!r.qpns.alloc(&qpn))
		return c.fail(status::NO_RESOURCES, kFull);
	auto qp = std::make_unique<Qp>();
	qp->qpn = qpn;
	qp->uid = c.uid;
	qp->rlky = bits::get(x, qpc::rlky);
	qp->state = qp_state::RST;
	qp->cfg = std::move(cfg);
	if (qp->cfg.st == qp_st::QP0)
		r.qp0 = qpn;
	if (qp->cfg.st == qp_st::QP1)
		r.qp1 = qpn;
	if (!qp->cfg.no_sq)
		fw.dp().owners().add(DoorbellOwners::Kind::Sq, qpn, qp->cfg.uar_page);
	r.qps.emplace(qpn, std::move(qp));
	uid_record(c, Obj::Qp, qpn);
	if (buf_umem && bytes)
		umem_bind(c, Obj::Qp, qpn, buf_id);
	if (dbr_umem)
		umem_bind(c, Obj::Qp, qpn, dbr_id);
	c.put(create_qp_out::qpn, qpn);
}

// The QP a QP command names: DCTs and their connections (cmd_dct.cc,
// exec/dc.cc) are no QPs to these commands.
Qp *named_qp(Resources &r, uint32_t qpn)
{
	Qp *qp = r.qp(qpn);
	return qp && !qp->dc.target && !qp->dc.conn_of ? qp : nullptr;
}

void destroy_qp(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t qpn = c.get(qp_cmd_in::qpn);
	Qp *qp = named_qp(r, qpn);
	if (!qp)
		return c.fail(status::BAD_PARAM, kNoQp);
	if (!uid_may_touch(c, Obj::Qp, qpn, kForeign))
		return;
	c.fw.dp().qp_retired(*qp);
	if (r.qp0 == qpn)
		r.qp0 = 0;
	if (r.qp1 == qpn)
		r.qp1 = 0;
	c.fw.dp().owners().remove(DoorbellOwners::Kind::Sq, qpn);
	r.qps.erase(qpn);
	r.qpns.release(qpn);
	uid_forget(c, Obj::Qp, qpn);
	umem_unbind(c, Obj::Qp, qpn);
}

void query_qp(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Qp *qp = named_qp(c.fw.dp().res(), c.get(qp_cmd_in::qpn));
	if (!qp)
		return c.fail(status::BAD_PARAM, kNoQp);
	if (!uid_may_touch(c, Obj::Qp, qp->qpn, kForeign))
		return;
	qp_config_to_qpc(*qp, c.out + query_qp_out::kQpc);
	const std::vector<uint64_t> &pas = qp->cfg.buf.pas;
	for (size_t i = 0; i < pas.size() && query_qp_out::kPas + 8 * (i + 1) <= c.outlen; ++i)
		bits::store_be64(c.out + query_qp_out::kPas + 8 * i, pas[i]);
}

void modify_qp(CmdCtx &c)
{
	Firmware &fw = c.fw;
	QpLimits lim;
	lim.log_max_ra_req = static_cast<uint8_t>(fw.caps.gen(cmd_hca_cap::log_max_ra_req_qp));
	lim.log_max_ra_res = static_cast<uint8_t>(fw.caps.gen(cmd_hca_cap::log_max_ra_res_qp));
	lim.log_max_msg = static_cast<uint8_t>(fw.caps.gen(cmd_hca_cap::log_max_msg));
	lim.max_mtu = fw.port().mtu;
	const uint8_t *x = c.inlen >= qp_cmd_in::kQpc + qpc::kSize ? c.in + qp_cmd_in::kQpc : nullptr;

	auto lk = fw.dp().lock();
	Qp *qp = named_qp(fw.dp().res(), c.get(qp_cmd_in::qpn));
	if (!qp)
		return c.fail(status::BAD_PARAM, kNoQp);
	if (!uid_may_touch(c, Obj::Qp, qp->qpn, kForeign))
		return;
	uint8_t from = qp->state;
	uint32_t reason = 0;
	if (uint8_t st = qp_transition(*qp, c.opcode, x, c.get(qp_cmd_in::opt_param_mask), lim, &reason))
		return c.fail(st, 0x100 | reason);
	fw.dp().qp_state_changed(*qp, from);
}

constexpr unsigned kCtx = qp_cmd_in::kQpc + qpc::kSize;

constexpr CmdSpec kCommands[] = {
	{qp_op::CREATE_QP, create_qp, qp_cmd_in::kCreateSize, 16, Need::Initialized},
	{qp_op::DESTROY_QP, destroy_qp, 16, hdr_out::kMinLen, Need::Initialized},
	{qp_op::QUERY_QP, query_qp, 16, query_qp_out::kSize, Need::Initialized},
	{qp_op::RST2INIT_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::INIT2INIT_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::INIT2RTR_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::RTR2RTS_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::RTS2RTS_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::SQERR2RTS_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::SQD_RTS_QP, modify_qp, kCtx, hdr_out::kMinLen, Need::Initialized},
	{qp_op::QP_2ERR, modify_qp, 16, hdr_out::kMinLen, Need::Initialized},
	{qp_op::QP_2RST, modify_qp, 16, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> qp_commands() { return kCommands; }

} // namespace mlx5emu
