// SPDX-License-Identifier: GPL-2.0
// DC targets: CREATE_DCT, DESTROY_DCT, DRAIN_DCT, QUERY_DCT and
// ARM_DCT_FOR_KEY_VIOLATION. A DCT is a Qp numbered from the QPN space
// with dc.target (queues/qp.h); the data path serves it (exec/dc.cc). The
// QP commands do not reach it (cmd_qp.cc), these reach nothing else.
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {

using namespace prm;
using bits::get;

enum Reason : uint32_t {
	kPd = 1,
	kCq = 2,
	kSrq = 3,
	kMtu = 4,
	kPort = 5,
	kFull = 6,
	kNoDct = 7,
	kState = 8,
	kForeign = 9,
	kForeignPd = 10,
	kForeignCq = 11,
	kForeignSrq = 12,
	kLimit = 13,
};

// The DCT command `c` names, or null after failing `c`.
Qp *find_dct(CmdCtx &c)
{
	uint32_t n = c.get(dct_cmd::dctn);
	Qp *q = c.fw.dp().res().qp(n);
	if (!q || !q->dc.target) {
		c.fail(status::BAD_PARAM, kNoDct);
		return nullptr;
	}
	return uid_may_touch(c, Obj::Qp, n, kForeign) ? q : nullptr;
}

void create_dct(CmdCtx &c)
{
	Firmware &fw = c.fw;
	const uint8_t *x = c.in + dct_cmd::kDctc;
	QpConfig cfg;
	cfg.st = qp_st::RC; // its connections answer as RC responders
	cfg.no_sq = true;
	cfg.rq_type = rq_type::SRQ;
	cfg.pd = get(x, dctc::pd);
	cfg.srqn = get(x, dctc::srqn_xrqn);
	cfg.cqn_rcv = get(x, dctc::cqn);
	cfg.user_index = get(x, dctc::user_index);
	cfg.rre = get(x, dctc::rre);
	cfg.rwe = get(x, dctc::rwe);
	cfg.rae = get(x, dctc::rae);
	cfg.atomic_mode = static_cast<uint8_t>(get(x, dctc::atomic_mode));
	cfg.min_rnr_nak = static_cast<uint8_t>(get(x, dctc::min_rnr_nak));
	cfg.mtu = static_cast<uint8_t>(get(x, dctc::mtu));
	cfg.counter_set_id = static_cast<uint8_t>(get(x, dctc::counter_set_id));
	cfg.path.pkey_index = static_cast<uint16_t>(get(x, dctc::pkey_index));
	cfg.path.sgid_index = static_cast<uint8_t>(get(x, dctc::my_addr_index));
	cfg.path.hop_limit = static_cast<uint8_t>(get(x, dctc::hop_limit));
	cfg.path.tclass = static_cast<uint8_t>(get(x, dctc::tclass));
	cfg.path.flow_label = get(x, dctc::flow_label);
	cfg.log_rra_max = static_cast<uint8_t>(fw.caps.gen(cmd_hca_cap::log_max_ra_res_dc));
	cfg.log_msg_max = static_cast<uint8_t>(fw.caps.gen(cmd_hca_cap::log_max_msg));
	uint32_t port = get(x, dctc::port);
	if (port > 1)
		return c.fail(status::BAD_PARAM, kPort);
	if (cfg.mtu < 1 || cfg.mtu > fw.port().mtu)
		return c.fail(status::BAD_PARAM, kMtu);

	auto lk = fw.dp().lock();
	Resources &r = fw.dp().res();
	if (!r.pds.contains(cfg.pd))
		return c.fail(status::BAD_PARAM, kPd);
	if (!r.cq(cfg.cqn_rcv))
		return c.fail(status::BAD_PARAM, kCq);
	const Srq *srq = r.srq(cfg.srqn);
	if (!srq || srq->cfg.kind == SrqConfig::Kind::XrcSrq)
		return c.fail(status::BAD_PARAM, kSrq);
	if (!uid_may_name(c, Obj::Pd, cfg.pd, kForeignPd) || !uid_may_name(c, Obj::Cq, cfg.cqn_rcv, kForeignCq) ||
	    !uid_may_name(c, Obj::Srq, cfg.srqn, kForeignSrq))
		return;
	// At most as many DCTs as the function has QPs (log_max_qp).
	size_t dcts = 0;
	for (const auto &[n, q] : r.qps)
		dcts += q->dc.target;
	if (dcts >= (1u << fw.caps.gen(cmd_hca_cap::log_max_qp)))
		return c.fail(status::EXCEED_LIM, kLimit);
	uint32_t dctn;
	if (!r.qpns.alloc(&dctn))
		return c.fail(status::NO_RESOURCES, kFull);
	auto q = std::make_unique<Qp>();
	q->qpn = dctn;
	q->uid = c.uid;
	q->rlky = get(x, dctc::rlky);
	q->state = qp_state::RTR;
	q->cfg = std::move(cfg);
	q->dc.target = true;
	q->dc.dct_state = dct_state::ACTIVE;
	q->dc.key = bits::load_be64(x + dctc::kDcAccessKey);
	r.qps.emplace(dctn, std::move(q));
	uid_record(c, Obj::Qp, dctn);
	c.put(dct_cmd::create_out_dctn, dctn);
}

void destroy_dct(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Qp *q = find_dct(c);
	if (!q)
		return;
	uint32_t n = q->qpn;
	c.fw.dp().dct_retire(*q);
	Resources &r = c.fw.dp().res();
	r.qps.erase(n);
	r.qpns.release(n);
	uid_forget(c, Obj::Qp, n);
}

void drain_dct(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Qp *q = find_dct(c);
	if (!q)
		return;
	if (q->dc.dct_state != dct_state::ACTIVE)
		return c.fail(kStatusBadQpState, kState);
	c.fw.dp().dct_drain(*q);
}

void query_dct(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Qp *q = find_dct(c);
	if (!q)
		return;
	uint8_t *o = c.out + dct_cmd::kDctc;
	const QpConfig &k = q->cfg;
	auto put = [o](bits::Field f, uint32_t v) { bits::set(o, f, v); };
	put(dctc::state, q->dc.dct_state);
	put(dctc::user_index, k.user_index);
	put(dctc::cqn, k.cqn_rcv);
	put(dctc::counter_set_id, k.counter_set_id);
	put(dctc::atomic_mode, k.atomic_mode);
	put(dctc::rre, k.rre);
	put(dctc::rwe, k.rwe);
	put(dctc::rae, k.rae);
	put(dctc::rlky, q->rlky);
	put(dctc::min_rnr_nak, k.min_rnr_nak);
	put(dctc::srqn_xrqn, k.srqn);
	put(dctc::pd, k.pd);
	put(dctc::tclass, k.path.tclass);
	put(dctc::flow_label, k.path.flow_label);
	bits::store_be64(o + dctc::kDcAccessKey, q->dc.key);
	put(dctc::mtu, k.mtu);
	put(dctc::port, 1);
	put(dctc::pkey_index, k.path.pkey_index);
	put(dctc::my_addr_index, k.path.sgid_index);
	put(dctc::hop_limit, k.path.hop_limit);
	put(dctc::dc_access_key_violation_count, q->dc.key_violations);
}

void arm_dct(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Qp *q = find_dct(c);
	if (!q)
		return;
	q->dc.armed = true;
}

constexpr CmdSpec kCommands[] = {
	{dct_op::CREATE_DCT, create_dct, dct_cmd::kCreateInSize, 16, Need::Initialized},
	{dct_op::DESTROY_DCT, destroy_dct, dct_cmd::kSmallInSize, hdr_out::kMinLen, Need::Initialized},
	{dct_op::DRAIN_DCT, drain_dct, dct_cmd::kSmallInSize, hdr_out::kMinLen, Need::Initialized},
	{dct_op::QUERY_DCT, query_dct, dct_cmd::kSmallInSize, dct_cmd::kQueryOutSize, Need::Initialized},
	{dct_op::ARM_DCT_FOR_KEY_VIOLATION, arm_dct, dct_cmd::kSmallInSize, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> dct_commands() { return kCommands; }

} // namespace mlx5emu
