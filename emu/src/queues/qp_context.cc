// SPDX-License-Identifier: GPL-2.0
#include "queues/qp_context.h"

#include <cstring>

#include "prm/bits.h"
#include "prm/prm.h"
#include "prm/qp.h"

namespace mlx5emu {

namespace {

using namespace prm;
using bits::get;

// Groups of context fields a transition can take.
enum Group : uint32_t {
	G_PKEY = 1u << 0,
	G_PORT = 1u << 1,
	G_QKEY = 1u << 2,
	G_RRE = 1u << 3,
	G_RWE = 1u << 4,
	G_RAE = 1u << 5,
	G_PATH = 1u << 6, // rlid, sl, grh, source path bits, hop limit
	G_MTU = 1u << 7,
	G_REMOTE_QPN = 1u << 8,
	G_RQ_PSN = 1u << 9,
	G_RRA = 1u << 10,
	G_MIN_RNR = 1u << 11,
	G_SQ_PSN = 1u << 12,
	G_RETRY = 1u << 13,
	G_RNR_RETRY = 1u << 14,
	G_ACK_TIMEOUT = 1u << 15,
	G_SRA = 1u << 16,
	G_PM = 1u << 17,
	G_COUNTER = 1u << 18,
	G_MSG_MAX = 1u << 19,
	G_CQN_RCV = 1u << 20,
	G_SRQN = 1u << 21,
	G_ACCESS = G_RRE | G_RWE | G_RAE,
};

struct OptMap {
	uint32_t opt;
	uint32_t groups;
};
constexpr OptMap kOptGroups[] = {
	{optpar::RRE, G_RRE},
	{optpar::RAE, G_RAE},
	{optpar::RWE, G_RWE},
	{optpar::PKEY_INDEX, G_PKEY},
	{optpar::Q_KEY, G_QKEY},
	{optpar::RNR_TIMEOUT, G_MIN_RNR},
	{optpar::PRIMARY_ADDR_PATH, G_PATH | G_PKEY | G_PORT},
	{optpar::SRA_MAX, G_SRA},
	{optpar::RRA_MAX, G_RRA},
	{optpar::PM_STATE, G_PM},
	{optpar::RETRY_COUNT, G_RETRY},
	{optpar::RNR_RETRY, G_RNR_RETRY},
	{optpar::ACK_TIMEOUT, G_ACK_TIMEOUT},
	{optpar::PRI_PORT, G_PORT},
	{optpar::SRQN, G_SRQN},
	{optpar::CQN_RCV, G_CQN_RCV},
	{optpar::COUNTER_SET_ID, G_COUNTER},
};

struct Rule {
	uint16_t opcode;
	uint8_t from;       // required current state (0xff: any)
	uint8_t to;
	uint32_t rc_always; // RC (and XRC) fields the transition always takes
	uint32_t uc_always; // UC: no responder resources, RNR or retries
	uint32_t ud_always; // UD / QP0 / QP1
	uint32_t optional;  // fields it takes when opt_param_mask says so
};

constexpr uint8_t kAny = 0xff;
constexpr uint32_t kRst2InitRc = G_PKEY | G_PORT | G_ACCESS | G_PM | G_COUNTER;
constexpr uint32_t kInit2RtrUc = G_PATH | G_MTU | G_REMOTE_QPN | G_RQ_PSN | G_MSG_MAX;
constexpr Rule kRules[] = {
	{qp_op::RST2INIT_QP, qp_state::RST, qp_state::INIT, kRst2InitRc, kRst2InitRc,
	 G_PKEY | G_PORT | G_QKEY | G_COUNTER, 0},
	{qp_op::INIT2INIT_QP, qp_state::INIT, qp_state::INIT, 0, 0, 0, G_PKEY | G_PORT | G_QKEY | G_ACCESS | G_COUNTER},
	{qp_op::INIT2RTR_QP, qp_state::INIT, qp_state::RTR, kInit2RtrUc | G_RRA | G_MIN_RNR, kInit2RtrUc, 0,
	 G_PKEY | G_QKEY | G_ACCESS | G_COUNTER},
	{qp_op::RTR2RTS_QP, qp_state::RTR, qp_state::RTS, G_SQ_PSN | G_RETRY | G_RNR_RETRY | G_ACK_TIMEOUT | G_SRA,
	 G_SQ_PSN, G_SQ_PSN, G_QKEY | G_ACCESS | G_MIN_RNR | G_PM},
	{qp_op::RTS2RTS_QP, qp_state::RTS, qp_state::RTS, 0, 0, 0,
	 G_QKEY | G_ACCESS | G_MIN_RNR | G_PM | G_ACK_TIMEOUT | G_RETRY | G_RNR_RETRY | G_COUNTER},
	{qp_op::SQERR2RTS_QP, qp_state::SQER, qp_state::RTS, 0, 0, 0, G_QKEY | G_MIN_RNR | G_ACCESS},
	{qp_op::SQD_RTS_QP, qp_state::SQD, qp_state::RTS, 0, 0, 0, G_QKEY | G_ACCESS | G_MIN_RNR | G_PATH},
	{qp_op::QP_2ERR, kAny, qp_state::ERR, 0, 0, 0, 0},
	{qp_op::QP_2RST, kAny, qp_state::RST, 0, 0, 0, 0},
};

void read_path(const uint8_t *qpc, PathConfig *p)
{
	p->rlid = static_cast<uint16_t>(get(qpc, qpc::pp_rlid));
	p->sl = static_cast<uint8_t>(get(qpc, qpc::pp_sl));
	p->src_path_bits = static_cast<uint8_t>(get(qpc, qpc::pp_mlid));
	p->grh = get(qpc, qpc::pp_grh);
	p->hop_limit = static_cast<uint8_t>(get(qpc, qpc::pp_hop_limit));
	p->tclass = static_cast<uint8_t>(get(qpc, qpc::pp_tclass));
	p->flow_label = get(qpc, qpc::pp_flow_label);
	p->sgid_index = static_cast<uint8_t>(get(qpc, qpc::pp_src_addr_index));
	std::memcpy(p->rgid.data(), qpc + qpc::kPpRgid, 16);
	p->udp_sport = static_cast<uint16_t>(get(qpc, qpc::pp_udp_sport));
	p->dscp = static_cast<uint8_t>(get(qpc, qpc::pp_dscp));
	p->ecn = static_cast<uint8_t>(get(qpc, qpc::pp_ecn));
	bits::store_be16(p->rmac.data(), static_cast<uint16_t>(get(qpc, qpc::pp_rmac_47_32)));
	bits::store_be32(p->rmac.data() + 2, get(qpc, qpc::pp_rmac_31_0));
}

void apply(const uint8_t *qpc, uint32_t g, QpConfig *c)
{
	if (g & G_PKEY)
		c->path.pkey_index = static_cast<uint16_t>(get(qpc, qpc::pp_pkey_index));
	if (g & G_PORT) {
		uint32_t port = get(qpc, qpc::pp_vhca_port_num);
		c->path.port = static_cast<uint8_t>(port ? port : 1);
	}
	if (g & G_QKEY)
		c->qkey = get(qpc, qpc::q_key);
	if (g & G_RRE)
		c->rre = get(qpc, qpc::rre);
	if (g & G_RWE)
		c->rwe = get(qpc, qpc::rwe);
	if (g & G_RAE) {
		c->rae = get(qpc, qpc::rae);
		c->atomic_mode = static_cast<uint8_t>(get(qpc, qpc::atomic_mode));
	}
	if (g & G_PATH)
		read_path(qpc, &c->path);
	if (g & G_MTU)
		c->mtu = static_cast<uint8_t>(get(qpc, qpc::mtu));
	if (g & G_MSG_MAX)
		c->log_msg_max = static_cast<uint8_t>(get(qpc, qpc::log_msg_max));
	if (g & G_REMOTE_QPN)
		c->remote_qpn = get(qpc, qpc::remote_qpn);
	if (g & G_RQ_PSN)
		c->next_rcv_psn = get(qpc, qpc::next_rcv_psn);
	if (g & G_RRA)
		c->log_rra_max = static_cast<uint8_t>(get(qpc, qpc::log_rra_max));
	if (g & G_MIN_RNR)
		c->min_rnr_nak = static_cast<uint8_t>(get(qpc, qpc::min_rnr_nak));
	if (g & G_SQ_PSN)
		c->next_send_psn = get(qpc, qpc::next_send_psn);
	if (g & G_RETRY)
		c->retry_count = static_cast<uint8_t>(get(qpc, qpc::retry_count));
	if (g & G_RNR_RETRY)
		c->rnr_retry = static_cast<uint8_t>(get(qpc, qpc::rnr_retry));
	if (g & G_ACK_TIMEOUT)
		c->path.ack_timeout = static_cast<uint8_t>(get(qpc, qpc::pp_ack_timeout));
	if (g & G_SRA)
		c->log_sra_max = static_cast<uint8_t>(get(qpc, qpc::log_sra_max));
	if (g & G_PM)
		c->pm_state = static_cast<uint8_t>(get(qpc, qpc::pm_state));
	if (g & G_COUNTER)
		c->counter_set_id = static_cast<uint8_t>(get(qpc, qpc::counter_set_id));
	if (g & G_CQN_RCV)
		c->cqn_rcv = get(qpc, qpc::cqn_rcv);
	if (g & G_SRQN)
		c->srqn = get(qpc, qpc::srqn_rmpn_xrqn);
}

enum Reason : uint32_t {
	kBadState = 1,
	kBadMtu = 2,
	kBadRra = 3,
	kBadSra = 4,
	kBadPort = 5,
	kUnknown = 6,
	kNoContext = 7,
};

} // namespace

bool QpConfig::has_rq() const { return rq_type == rq_type::REGULAR; }
bool QpConfig::is_ud() const { return st == qp_st::UD || st == qp_st::QP0 || st == qp_st::QP1; }
bool QpConfig::is_rc() const { return st == qp_st::RC; }
bool QpConfig::is_uc() const { return st == qp_st::UC; }
bool QpConfig::is_xrc() const { return st == qp_st::XRC; }
bool QpConfig::is_xrc_tgt() const { return is_xrc() && no_sq; }
bool QpConfig::is_dci() const { return st == qp_st::DCI; }
bool QpConfig::is_connected() const { return is_rc() || is_uc() || is_xrc(); }

void qp_config_from_create(const uint8_t *qpc, QpConfig *c)
{
	c->st = static_cast<uint8_t>(get(qpc, qpc::st));
	c->pd = get(qpc, qpc::pd);
	c->pm_state = static_cast<uint8_t>(get(qpc, qpc::pm_state));
	c->wq_signature = get(qpc, qpc::wq_signature);
	c->block_lb_mc = get(qpc, qpc::block_lb_mc);
	c->mtu = static_cast<uint8_t>(get(qpc, qpc::mtu));
	c->log_msg_max = static_cast<uint8_t>(get(qpc, qpc::log_msg_max));
	c->log_rq_size = static_cast<uint8_t>(get(qpc, qpc::log_rq_size));
	c->log_rq_stride = static_cast<uint8_t>(get(qpc, qpc::log_rq_stride));
	c->no_sq = get(qpc, qpc::no_sq);
	c->log_sq_size = static_cast<uint8_t>(get(qpc, qpc::log_sq_size));
	c->uar_page = get(qpc, qpc::uar_page);
	c->user_index = get(qpc, qpc::user_index);
	c->cqn_snd = get(qpc, qpc::cqn_snd);
	c->cqn_rcv = get(qpc, qpc::cqn_rcv);
	c->dbr_addr = bits::load_be64(qpc + qpc::kDbrAddr);
	c->rq_type = static_cast<uint8_t>(get(qpc, qpc::rq_type));
	c->srqn = get(qpc, qpc::srqn_rmpn_xrqn);
	c->xrcd = get(qpc, qpc::xrcd);
	c->qkey = get(qpc, qpc::q_key);
	c->counter_set_id = static_cast<uint8_t>(get(qpc, qpc::counter_set_id));
	c->buf.log_page = 12 + get(qpc, qpc::log_page_size);
	c->buf.offset = static_cast<uint64_t>(get(qpc, qpc::page_offset)) * (c->buf.page_size() / 64);
}

uint8_t qp_transition(Qp &qp, uint16_t opcode, const uint8_t *qpc, uint32_t opt_mask, const QpLimits &lim,
		      uint32_t *reason)
{
	const Rule *r = nullptr;
	for (const Rule &x : kRules)
		if (x.opcode == opcode)
			r = &x;
	if (!r) {
		*reason = kUnknown;
		return status::BAD_OP;
	}
	if (r->from != kAny && qp.state != r->from) {
		*reason = kBadState;
		return kStatusBadQpState;
	}
	// XRC QPs take the RC fields: the same reliability, both directions.
	// DCIs too (the requester's fields; the path is a template, the
	// destination comes with each WQE).
	uint32_t groups = qp.cfg.is_rc() || qp.cfg.is_xrc() || qp.cfg.is_dci() ? r->rc_always : qp.cfg.is_uc() ? r->uc_always : r->ud_always;
	if (groups || r->optional) {
		if (!qpc) {
			*reason = kNoContext;
			return status::BAD_PARAM;
		}
		for (const OptMap &o : kOptGroups)
			if (opt_mask & o.opt)
				groups |= o.groups & r->optional;
		QpConfig next = qp.cfg;
		apply(qpc, groups, &next);
		if ((groups & G_MTU) && (next.mtu < 1 || next.mtu > lim.max_mtu)) {
			*reason = kBadMtu;
			return status::BAD_PARAM;
		}
		if ((groups & G_RRA) && next.log_rra_max > lim.log_max_ra_res) {
			*reason = kBadRra;
			return status::BAD_PARAM;
		}
		if ((groups & G_SRA) && next.log_sra_max > lim.log_max_ra_req) {
			*reason = kBadSra;
			return status::BAD_PARAM;
		}
		if ((groups & G_PORT) && next.path.port != 1) {
			*reason = kBadPort;
			return status::BAD_PARAM;
		}
		if (next.log_msg_max == 0 || next.log_msg_max > lim.log_max_msg)
			next.log_msg_max = lim.log_max_msg;
		qp.cfg = next;
	}
	qp.state = r->to;
	return status::OK;
}

std::vector<QpTransitionRule> qp_transition_rules()
{
	static_assert(kAny == kQpAnyState);
	std::vector<QpTransitionRule> out;
	for (const Rule &r : kRules) {
		uint32_t opt = 0;
		for (const OptMap &o : kOptGroups)
			if ((o.groups & r.optional) == o.groups)
				opt |= o.opt;
		out.push_back({r.opcode, r.from, r.to, opt});
	}
	return out;
}

void qp_config_to_qpc(const Qp &qp, uint8_t *p)
{
	const QpConfig &c = qp.cfg;
	auto put = [p](bits::Field f, uint32_t v) { bits::set(p, f, v); };
	put(qpc::state, qp.state);
	put(qpc::st, c.st);
	put(qpc::pm_state, c.pm_state);
	put(qpc::wq_signature, c.wq_signature);
	put(qpc::block_lb_mc, c.block_lb_mc);
	put(qpc::pd, c.pd);
	put(qpc::mtu, c.mtu);
	put(qpc::log_msg_max, c.log_msg_max);
	put(qpc::log_rq_size, c.log_rq_size);
	put(qpc::log_rq_stride, c.log_rq_stride);
	put(qpc::no_sq, c.no_sq);
	put(qpc::log_sq_size, c.log_sq_size);
	put(qpc::counter_set_id, c.counter_set_id);
	put(qpc::uar_page, c.uar_page);
	put(qpc::user_index, c.user_index);
	put(qpc::log_page_size, c.buf.log_page - 12);
	put(qpc::remote_qpn, c.remote_qpn);
	put(qpc::pp_pkey_index, c.path.pkey_index);
	put(qpc::pp_grh, c.path.grh);
	put(qpc::pp_mlid, c.path.src_path_bits);
	put(qpc::pp_rlid, c.path.rlid);
	put(qpc::pp_ack_timeout, c.path.ack_timeout);
	put(qpc::pp_hop_limit, c.path.hop_limit);
	put(qpc::pp_tclass, c.path.tclass);
	put(qpc::pp_flow_label, c.path.flow_label);
	put(qpc::pp_src_addr_index, c.path.sgid_index);
	std::memcpy(p + qpc::kPpRgid, c.path.rgid.data(), 16);
	put(qpc::pp_sl, c.path.sl);
	put(qpc::pp_vhca_port_num, c.path.port);
	put(qpc::pp_udp_sport, c.path.udp_sport);
	put(qpc::pp_dscp, c.path.dscp);
	put(qpc::pp_ecn, c.path.ecn);
	put(qpc::pp_rmac_47_32, bits::load_be16(c.path.rmac.data()));
	put(qpc::pp_rmac_31_0, bits::load_be32(c.path.rmac.data() + 2));
	put(qpc::log_sra_max, c.log_sra_max);
	put(qpc::retry_count, c.retry_count);
	put(qpc::rnr_retry, c.rnr_retry);
	put(qpc::cur_retry_count, qp.req.retry_left);
	put(qpc::cur_rnr_retry, qp.req.rnr_left);
	put(qpc::next_send_psn, qp.state >= qp_state::RTS ? qp.req.next_psn : c.next_send_psn);
	put(qpc::cqn_snd, c.cqn_snd);
	put(qpc::log_rra_max, c.log_rra_max);
	put(qpc::atomic_mode, c.atomic_mode);
	put(qpc::rre, c.rre);
	put(qpc::rwe, c.rwe);
	put(qpc::rae, c.rae);
	put(qpc::page_offset, static_cast<uint32_t>(c.buf.offset / (c.buf.page_size() / 64)));
	put(qpc::min_rnr_nak, c.min_rnr_nak);
	put(qpc::next_rcv_psn, qp.state >= qp_state::RTR ? qp.resp.epsn : c.next_rcv_psn);
	put(qpc::xrcd, c.xrcd);
	put(qpc::cqn_rcv, c.cqn_rcv);
	bits::store_be64(p + qpc::kDbrAddr, c.dbr_addr);
	put(qpc::q_key, c.qkey);
	put(qpc::rq_type, c.rq_type);
	put(qpc::srqn_rmpn_xrqn, c.srqn);
	put(qpc::rmsn, qp.resp.msn & 0xffffff);
	put(qpc::hw_sq_wqebb_counter, qp.req.sq_ci);
	put(qpc::sw_sq_wqebb_counter, qp.req.sq_pi);
	put(qpc::hw_rq_counter, qp.resp.rq_ci);
}

QpCounters &QpCounters::operator+=(const QpCounters &o)
{
	uint64_t *d = &sq_wqes;
	const uint64_t *x = &o.sq_wqes;
	for (size_t i = 0; i < sizeof(QpCounters) / sizeof(uint64_t); ++i)
		d[i] += x[i];
	return *this;
}

void Qp::reset_runtime()
{
	req = Requester{};
	resp = Responder{};
	dc.dest_set = false;
}

const char *qp_state_name(uint8_t s)
{
	static const char *const names[] = {"RST", "INIT", "RTR", "RTS", "SQER", "SQD", "ERR"};
	return s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *qp_type_name(uint8_t st)
{
	switch (st) {
	case qp_st::RC:
		return "RC";
	case qp_st::UC:
		return "UC";
	case qp_st::UD:
		return "UD";
	case qp_st::XRC:
		return "XRC";
	case qp_st::QP0:
		return "QP0";
	case qp_st::QP1:
		return "QP1";
	case qp_st::REG_UMR:
		return "UMR";
	case qp_st::DCI:
		return "DCI";
	default:
		return "?";
	}
}

} // namespace mlx5emu
