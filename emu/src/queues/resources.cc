// SPDX-License-Identifier: GPL-2.0
#include "queues/resources.h"

#include "prm/qp.h"

namespace mlx5emu {

template <class M> static auto lookup(const M &m, uint32_t n) -> decltype(m.begin()->second.get())
{
	auto it = m.find(n);
	return it == m.end() ? nullptr : it->second.get();
}

Cq *Resources::cq(uint32_t n) const { return lookup(cqs, n); }
Qp *Resources::qp(uint32_t n) const { return lookup(qps, n); }
Srq *Resources::srq(uint32_t n) const { return lookup(srqs, n); }
NicSq *Resources::sq(uint32_t n) const { return lookup(sqs, n); }
NicRq *Resources::rq(uint32_t n) const { return lookup(rqs, n); }

Qp *Resources::qp_for_packet(uint32_t dqpn) const
{
	if (dqpn == 1)
		return qp1 ? qp(qp1) : nullptr;
	if (dqpn == 0)
		return qp0 ? qp(qp0) : nullptr;
	return qp(dqpn);
}

unsigned Resources::cq_users(uint32_t cqn) const
{
	unsigned n = 0;
	for (const auto &[q, p] : qps)
		n += (p->cfg.cqn_snd == cqn && !p->cfg.no_sq) + (p->cfg.cqn_rcv == cqn && p->cfg.has_rq());
	for (const auto &[s, p] : srqs)
		n += p->cfg.kind == SrqConfig::Kind::XrcSrq && p->cfg.cqn == cqn;
	for (const auto &[s, p] : sqs)
		n += p->cqn == cqn;
	for (const auto &[s, p] : rqs)
		n += p->cqn == cqn;
	return n;
}

unsigned Resources::srq_users(uint32_t srqn) const
{
	unsigned n = 0;
	// An XRC target's own SRQ field is unused (the requests name theirs).
	for (const auto &[q, p] : qps)
		n += p->cfg.rq_type == 1 && !p->cfg.is_xrc_tgt() && p->cfg.srqn == srqn;
	return n;
}

unsigned Resources::pd_users(uint32_t pd) const
{
	unsigned n = mkeys.pd_users(pd);
	// The UMR QP and XRC targets name no PD of theirs (cmd_qp.cc).
	for (const auto &[q, p] : qps)
		n += p->cfg.pd == pd && p->cfg.st != prm::qp_st::REG_UMR && !p->cfg.is_xrc_tgt();
	for (const auto &[s, p] : srqs)
		n += p->cfg.pd == pd;
	for (const auto &[s, p] : sqs)
		n += p->wq.pd == pd;
	for (const auto &[s, p] : rqs)
		n += p->wq.pd == pd;
	return n;
}

unsigned Resources::xrcd_users(uint32_t xrcd) const
{
	unsigned n = 0;
	for (const auto &[q, p] : qps)
		n += (p->cfg.st == prm::qp_st::XRC || p->cfg.is_xrc_tgt()) && p->cfg.xrcd == xrcd;
	for (const auto &[s, p] : srqs)
		n += p->cfg.kind == SrqConfig::Kind::XrcSrq && p->cfg.xrcd == xrcd;
	return n;
}

void Resources::clear()
{
	uctxs.clear();
	uids.clear();
	pds.clear();
	xrcds.clear();
	tds.clear();
	q_counters.clear();
	mkeys.clear();
	cqns.clear();
	qpns.clear();
	srqns.clear();
	cqs.clear();
	qps.clear();
	srqs.clear();
	mcgs.clear();
	umems.clear();
	qp0 = qp1 = 0;
	tisns.clear();
	tirns.clear();
	rqtns.clear();
	sqs.clear();
	rqs.clear();
	tises.clear();
	tirs.clear();
	rqts.clear();
	steering.clear();
}

const char *srq_kind_name(SrqConfig::Kind k)
{
	switch (k) {
	case SrqConfig::Kind::Srq:
		return "SRQ";
	case SrqConfig::Kind::Rmp:
		return "RMP";
	case SrqConfig::Kind::XrcSrq:
		return "XRC_SRQ";
	}
	return "?";
}

} // namespace mlx5emu
