// SPDX-License-Identifier: GPL-2.0
// NIC queue objects of an Ethernet function: TIS, TIR, RQT, SQ and RQ
// (CREATE/MODIFY/DESTROY/QUERY) and the SQ/RQ state machine
// (RST -> RDY -> ERR -> RST, RDY -> RDY, any -> RST). The objects live in
// the data path's Resources (queues/nic.h).
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_pas.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/eth.h"

namespace mlx5emu {

namespace {

using namespace prm;
namespace nc = nic_cmd;
namespace eg = eth_gen_caps;

enum Reason : uint32_t {
	kNoObject = 2,
	kFull = 3,
	kTd = 4,
	kPd = 5,
	kUar = 6,
	kCq = 7,
	kTis = 8,
	kWqType = 9,
	kWqSize = 10,
	kStride = 11,
	kDbr = 12,
	kPas = 13, // and 14
	kState = 15,
	kTransition = 16,
	kUmem = 17,
	kRqt = 18,
	kRq = 19,
	kDisp = 20,
	kHashFn = 21,
	kBusy = 22,
	kUnsupported = 23,
	kRqtSize = 24,
	kForeign = 25,
	kForeignPd = 26,
	kForeignCq = 27,
};

const uint8_t *ctx_in(const CmdCtx &c) { return c.in + nc::kCtx; }

// ---------------------------------------------------------------------------
// TIS

void create_tis(CmdCtx &c)
{
	const uint8_t *x = ctx_in(c);
	if (bits::get(x, tisc::tls_en) || bits::get(x, tisc::underlay_qpn))
		return c.fail(status::BAD_PARAM, kUnsupported);
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	Tis t;
	t.td = bits::get(x, tisc::transport_domain);
	t.prio = static_cast<uint8_t>(bits::get(x, tisc::prio));
	if (!r.tds.contains(t.td))
		return c.fail(status::BAD_PARAM, kTd);
	if (r.tises.size() >= (1u << c.fw.caps.gen(eg::log_max_tis)) || !r.tisns.alloc(&t.tisn))
		return c.fail(status::NO_RESOURCES, kFull);
	r.tises[t.tisn] = t;
	uid_record(c, Obj::Tis, t.tisn);
	c.put(nc::number_out, t.tisn);
}

void modify_tis(CmdCtx &c)
{
	// Only the priority (bitmask bit 0) and the LAG affinity (bit 1, one
	// port: nothing to change) are modifiable.
	auto lk = c.fw.dp().lock();
	auto it = c.fw.dp().res().tises.find(c.get(nc::number_in));
	if (it == c.fw.dp().res().tises.end())
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Tis, c.get(nc::number_in), kForeign))
		return;
	if (bits::load_be64(c.in + 0x10) & 1)
		it->second.prio = static_cast<uint8_t>(bits::get(ctx_in(c), tisc::prio));
}

void destroy_tis(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t n = c.get(nc::number_in);
	if (!r.tises.count(n))
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Tis, c.get(nc::number_in), kForeign))
		return;
	for (const auto &[s, sq] : r.sqs)
		if (sq->tisn == n)
			return c.fail(status::RESOURCE_BUSY, kBusy);
	r.tises.erase(n);
	r.tisns.release(n);
	uid_forget(c, Obj::Tis, n);
}

void query_tis(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	auto &m = c.fw.dp().res().tises;
	auto it = m.find(c.get(nc::number_in));
	if (it == m.end())
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Tis, c.get(nc::number_in), kForeign))
		return;
	uint8_t *o = c.out + nc::kCtx;
	bits::set(o, tisc::transport_domain, it->second.td);
	bits::set(o, tisc::prio, it->second.prio);
}

// ---------------------------------------------------------------------------
// RQT

// The RQ list of an RQT context; false (command failed) for a size beyond
// the maximum or an RQ that does not exist.
bool read_rqt(CmdCtx &c, Resources &r, unsigned max_size, std::vector<uint32_t> *rqns)
{
	const uint8_t *x = ctx_in(c);
	unsigned n = bits::get(x, rqtc::rqt_actual_size);
	if (!n || n > max_size || nc::kCtx + rqtc::kRqList + 4ull * n > c.inlen) {
		c.fail(status::BAD_PARAM, kRqtSize);
		return false;
	}
	if (bits::get(x, rqtc::rq_vhca_id_format) || bits::get(x, rqtc::list_q_type)) {
		c.fail(status::BAD_PARAM, kUnsupported);
		return false;
	}
	rqns->clear();
	for (unsigned i = 0; i < n; ++i) {
		uint32_t rqn = bits::load_be32(x + rqtc::kRqList + 4 * i) & 0xffffff;
		if (!r.rq(rqn)) {
			c.fail(status::BAD_PARAM, kRq);
			return false;
		}
		rqns->push_back(rqn);
	}
	return true;
}

void create_rqt(CmdCtx &c)
{
	const uint8_t *x = ctx_in(c);
	unsigned max_size = bits::get(x, rqtc::rqt_max_size);
	if (!max_size || max_size > (1u << c.fw.caps.gen(eg::log_max_rqt_size)))
		return c.fail(status::BAD_PARAM, kRqtSize);
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	Rqt t;
	t.max_size = max_size;
	if (!read_rqt(c, r, max_size, &t.rqns))
		return;
	if (r.rqts.size() >= (1u << c.fw.caps.gen(eg::log_max_rqt)) || !r.rqtns.alloc(&t.rqtn))
		return c.fail(status::NO_RESOURCES, kFull);
	c.put(nc::number_out, t.rqtn);
	uid_record(c, Obj::Rqt, t.rqtn);
	r.rqts[t.rqtn] = std::move(t);
}

void modify_rqt(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	auto it = r.rqts.find(c.get(nc::number_in));
	if (it == r.rqts.end())
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Rqt, c.get(nc::number_in), kForeign))
		return;
	if (!(bits::load_be64(c.in + modify_rqt::kBitmask) & modify_rqt::RQN_LIST))
		return;
	std::vector<uint32_t> rqns;
	if (read_rqt(c, r, it->second.max_size, &rqns))
		it->second.rqns = std::move(rqns);
}

void destroy_rqt(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t n = c.get(nc::number_in);
	if (!r.rqts.count(n))
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Rqt, c.get(nc::number_in), kForeign))
		return;
	for (const auto &[t, tir] : r.tirs)
		if (tir.disp_type == tirc::DISP_INDIRECT && tir.rqtn == n)
			return c.fail(status::RESOURCE_BUSY, kBusy);
	r.rqts.erase(n);
	r.rqtns.release(n);
	uid_forget(c, Obj::Rqt, n);
}

void query_rqt(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	auto &m = c.fw.dp().res().rqts;
	auto it = m.find(c.get(nc::number_in));
	if (it == m.end())
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Rqt, c.get(nc::number_in), kForeign))
		return;
	uint8_t *o = c.out + nc::kCtx;
	bits::set(o, rqtc::rqt_max_size, it->second.max_size);
	bits::set(o, rqtc::rqt_actual_size, static_cast<uint32_t>(it->second.rqns.size()));
	for (size_t i = 0; i < it->second.rqns.size() && nc::kCtx + rqtc::kRqList + 4 * (i + 1) <= c.outlen; ++i)
		bits::store_be32(o + rqtc::kRqList + 4 * i, it->second.rqns[i]);
}

// ---------------------------------------------------------------------------
// TIR

void read_hash(const uint8_t *x, Tir *t)
{
	t->hash_fn = static_cast<uint8_t>(bits::get(x, tirc::rx_hash_fn));
	t->hash_symmetric = bits::get(x, tirc::rx_hash_symmetric);
	t->hash_l3_ipv6 = bits::get(x, tirc::hash_outer_l3);
	t->hash_l4_udp = bits::get(x, tirc::hash_outer_l4);
	t->hash_fields = bits::get(x, tirc::hash_outer_fields);
	std::memcpy(t->toeplitz_key.data(), x + tirc::kToeplitzKey, t->toeplitz_key.size());
}

void create_tir(CmdCtx &c)
{
	const uint8_t *x = ctx_in(c);
	if (bits::get(x, tirc::tls_en) || bits::get(x, tirc::packet_merge_mask) ||
	    bits::get(x, tirc::tunneled_offload_en) || bits::get(x, tirc::hash_inner_fields))
		return c.fail(status::BAD_PARAM, kUnsupported); // no TLS, LRO, tunnels
	Tir t;
	t.td = bits::get(x, tirc::transport_domain);
	t.disp_type = static_cast<uint8_t>(bits::get(x, tirc::disp_type));
	t.self_lb_block = static_cast<uint8_t>(bits::get(x, tirc::self_lb_block));
	read_hash(x, &t);
	if (t.hash_fn > tirc::HASH_TOEPLITZ)
		return c.fail(status::BAD_PARAM, kHashFn);
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	if (!r.tds.contains(t.td))
		return c.fail(status::BAD_PARAM, kTd);
	if (t.disp_type == tirc::DISP_DIRECT) {
		t.inline_rqn = bits::get(x, tirc::inline_rqn);
		if (!r.rq(t.inline_rqn))
			return c.fail(status::BAD_PARAM, kRq);
	} else if (t.disp_type == tirc::DISP_INDIRECT) {
		t.rqtn = bits::get(x, tirc::indirect_table);
		if (!r.rqts.count(t.rqtn))
			return c.fail(status::BAD_PARAM, kRqt);
	} else {
		return c.fail(status::BAD_PARAM, kDisp);
	}
	if (r.tirs.size() >= (1u << c.fw.caps.gen(eg::log_max_tir)) || !r.tirns.alloc(&t.tirn))
		return c.fail(status::NO_RESOURCES, kFull);
	r.tirs[t.tirn] = t;
	uid_record(c, Obj::Tir, t.tirn);
	c.put(nc::number_out, t.tirn);
}

void modify_tir(CmdCtx &c)
{
	const uint8_t *x = ctx_in(c);
	uint64_t mask = bits::load_be64(c.in + modify_tir::kBitmask);
	if (mask & modify_tir::PACKET_MERGE && bits::get(x, tirc::packet_merge_mask))
		return c.fail(status::BAD_PARAM, kUnsupported);
	auto lk = c.fw.dp().lock();
	auto &m = c.fw.dp().res().tirs;
	auto it = m.find(c.get(nc::number_in));
	if (it == m.end())
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Tir, c.get(nc::number_in), kForeign))
		return;
	if (mask & modify_tir::HASH) {
		Tir t = it->second;
		read_hash(x, &t);
		if (t.hash_fn > tirc::HASH_TOEPLITZ)
			return c.fail(status::BAD_PARAM, kHashFn);
		it->second = t;
	}
	if (mask & modify_tir::SELF_LB_EN)
		it->second.self_lb_block = static_cast<uint8_t>(bits::get(x, tirc::self_lb_block));
}

void destroy_tir(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t n = c.get(nc::number_in);
	if (!r.tirs.count(n))
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Tir, c.get(nc::number_in), kForeign))
		return;
	r.tirs.erase(n);
	r.tirns.release(n);
	uid_forget(c, Obj::Tir, n);
}

void query_tir(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	auto &m = c.fw.dp().res().tirs;
	auto it = m.find(c.get(nc::number_in));
	if (it == m.end())
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Tir, c.get(nc::number_in), kForeign))
		return;
	const Tir &t = it->second;
	uint8_t *o = c.out + nc::kCtx;
	bits::set(o, tirc::disp_type, t.disp_type);
	bits::set(o, tirc::inline_rqn, t.inline_rqn);
	bits::set(o, tirc::indirect_table, t.rqtn);
	bits::set(o, tirc::transport_domain, t.td);
	bits::set(o, tirc::self_lb_block, t.self_lb_block);
	bits::set(o, tirc::rx_hash_fn, t.hash_fn);
	bits::set(o, tirc::rx_hash_symmetric, t.hash_symmetric);
	bits::set(o, tirc::hash_outer_l3, t.hash_l3_ipv6);
	bits::set(o, tirc::hash_outer_l4, t.hash_l4_udp);
	bits::set(o, tirc::hash_outer_fields, t.hash_fields);
	std::memcpy(o + tirc::kToeplitzKey, t.toeplitz_key.data(), t.toeplitz_key.size());
}

// ---------------------------------------------------------------------------
// SQ and RQ

// The work-queue part of an SQ/RQ context: type, sizes, doorbell record,
// UAR, page list. `sq`: WQEBBs of 64 bytes, a cyclic queue.
bool read_wq(CmdCtx &c, bool sq, WqConfig *wq)
{
	const uint8_t *w = ctx_in(c) + (sq ? sqc::kWq : rqc::kWq);
	if (bits::get(w, wq::dbr_umem_valid) || bits::get(w, wq::wq_umem_valid)) {
		c.fail(status::BAD_PARAM, kUmem);
		return false;
	}
	wq->type = static_cast<uint8_t>(bits::get(w, wq::wq_type));
	if (wq->type != wq::TYPE_CYCLIC && (sq || wq->type != wq::TYPE_LINKED_LIST)) {
		c.fail(status::BAD_PARAM, kWqType); // no striding RQ
		return false;
	}
	if (bits::get(w, wq::shampo_enable) || bits::get(w, wq::wq_signature)) {
		c.fail(status::BAD_PARAM, kUnsupported);
		return false;
	}
	wq->pd = bits::get(w, wq::pd);
	wq->uar_page = bits::get(w, wq::uar_page);
	wq->dbr_addr = bits::load_be64(w + wq::kDbrAddr);
	wq->log_stride = static_cast<uint8_t>(bits::get(w, wq::log_wq_stride));
	wq->log_size = static_cast<uint8_t>(bits::get(w, wq::log_wq_sz));
	if (wq->log_size > c.fw.caps.gen(eth_gen_caps::log_max_wq_sz)) {
		c.fail(status::BAD_PARAM, kWqSize);
		return false;
	}
	unsigned max_stride = sq ? 64 : c.fw.caps.gen(cmd_hca_cap::max_wqe_sz_rq);
	if ((sq && wq->log_stride != 6) || wq->stride() < 16 || wq->stride() > max_stride) {
		c.fail(status::BAD_PARAM, kStride);
		return false;
	}
	if (!wq->dbr_addr || (wq->dbr_addr & 3)) {
		c.fail(status::BAD_PARAM, kDbr);
		return false;
	}
	uint32_t log_pg = bits::get(w, wq::log_wq_pg_sz);
	uint64_t offset = static_cast<uint64_t>(bits::get(w, wq::page_offset)) * 64;
	return read_page_list(c, nc::kQueuePas, wq->bytes(), log_pg, offset, &wq->buf, kPas);
}

// PD 0 is accepted for an RQ: the driver's drop RQ names none (it never
// has a receive WQE; one posted would fail its key check).
bool check_wq_refs(CmdCtx &c, Resources &r, const WqConfig &wq, uint32_t cqn, bool rq)
{
	if (!r.pds.contains(wq.pd) && !(rq && wq.pd == 0)) {
		c.fail(status::BAD_PARAM, kPd);
		return false;
	}
	if (!r.cq(cqn)) {
		c.fail(status::BAD_PARAM, kCq);
		return false;
	}
	// Another user context's PD or CQ cannot be named (cmd_uid.h).
	return uid_may_name(c, Obj::Pd, wq.pd, kForeignPd) && uid_may_name(c, Obj::Cq, cqn, kForeignCq);
}

// The SQ/RQ state machine: RST -> RDY, RDY -> RDY / ERR / RST, ERR -> RST.
// `cur` is the state the driver says the queue is in.
bool transition_ok(uint8_t have, uint8_t cur, uint8_t next)
{
	if (have != cur)
		return false;
	switch (next) {
	case wq_state::RST:
		return true;
	case wq_state::RDY:
		return cur == wq_state::RST || cur == wq_state::RDY;
	case wq_state::ERR:
		return cur == wq_state::RDY;
	default:
		return false;
	}
}

void create_sq(CmdCtx &c)
{
	Firmware &fw = c.fw;
	const uint8_t *x = ctx_in(c);
	auto sq = std::make_unique<NicSq>();
	if (bits::get(x, sqc::hairpin) || bits::get(x, sqc::reg_umr) || bits::get(x, sqc::allow_swp) ||
	    bits::get(x, sqc::allow_multi_pkt_send_wqe) || bits::get(x, sqc::packet_pacing_rate_limit_index))
		return c.fail(status::BAD_PARAM, kUnsupported);
	if (bits::get(x, sqc::state) != wq_state::RST)
		return c.fail(status::BAD_PARAM, kState);
	// No TIS: an SQ of internal WQEs (the driver's ICOSQ posts NOPs); a
	// SEND on it fails.
	unsigned ntis = bits::get(x, sqc::tis_lst_sz);
	if (ntis > 1)
		return c.fail(status::BAD_PARAM, kTis);
	sq->cqn = bits::get(x, sqc::cqn);
	sq->tisn = ntis ? bits::get(x, sqc::tis_num_0) : 0;
	sq->user_index = bits::get(x, sqc::user_index);
	sq->min_inline_mode = static_cast<uint8_t>(bits::get(x, sqc::min_wqe_inline_mode));
	sq->rlky = bits::get(x, sqc::rlky);
	if (!read_wq(c, true, &sq->wq))
		return;
	if (!fw.uars.count(sq->wq.uar_page))
		return c.fail(status::BAD_PARAM, kUar);
	auto lk = fw.dp().lock();
	Resources &r = fw.dp().res();
	if (!check_wq_refs(c, r, sq->wq, sq->cqn, false))
		return;
	if (sq->tisn && !r.tises.count(sq->tisn))
		return c.fail(status::BAD_PARAM, kTis);
	if (r.sqs.size() >= (1u << fw.caps.gen(eg::log_max_sq)) || !r.qpns.alloc(&sq->sqn))
		return c.fail(status::NO_RESOURCES, kFull);
	sq->state = wq_state::RST;
	fw.dp().owners().add(DoorbellOwners::Kind::Sq, sq->sqn, sq->wq.uar_page);
	c.put(nc::number_out, sq->sqn);
	uid_record(c, Obj::Sq, sq->sqn);
	r.sqs[sq->sqn] = std::move(sq);
}

void modify_sq(CmdCtx &c)
{
	const uint8_t *x = ctx_in(c);
	uint8_t next = static_cast<uint8_t>(bits::get(x, sqc::state));
	uint8_t cur = static_cast<uint8_t>(c.get(nc::modify_state));
	uint64_t mask = bits::load_be64(c.in + nc::kModifyBitmask);
	if ((mask & modify_bitmask::SQ_PACKET_PACING_RATE_LIMIT_INDEX) &&
	    bits::get(x, sqc::packet_pacing_rate_limit_index))
		return c.fail(status::BAD_PARAM, kUnsupported);
	auto lk = c.fw.dp().lock();
	NicSq *sq = c.fw.dp().res().sq(c.get(nc::number_in));
	if (!sq)
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Sq, c.get(nc::number_in), kForeign))
		return;
	if (!transition_ok(sq->state, cur, next))
		return c.fail(status::BAD_PARAM, kTransition);
	c.fw.dp().nic_sq_state(*sq, next);
}

void destroy_sq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t n = c.get(nc::number_in);
	if (!r.sq(n))
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Sq, c.get(nc::number_in), kForeign))
		return;
	c.fw.dp().owners().remove(DoorbellOwners::Kind::Sq, n);
	r.sqs.erase(n);
	r.qpns.release(n);
	uid_forget(c, Obj::Sq, n);
}

void query_sq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	NicSq *sq = c.fw.dp().res().sq(c.get(nc::number_in));
	if (!sq)
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Sq, c.get(nc::number_in), kForeign))
		return;
	uint8_t *o = c.out + nc::kCtx;
	bits::set(o, sqc::state, sq->state);
	bits::set(o, sqc::cqn, sq->cqn);
	bits::set(o, sqc::user_index, sq->user_index);
	bits::set(o, sqc::tis_lst_sz, sq->tisn ? 1 : 0);
	bits::set(o, sqc::tis_num_0, sq->tisn);
	uint8_t *w = o + sqc::kWq;
	bits::set(w, wq::wq_type, sq->wq.type);
	bits::set(w, wq::pd, sq->wq.pd);
	bits::set(w, wq::uar_page, sq->wq.uar_page);
	bits::store_be64(w + wq::kDbrAddr, sq->wq.dbr_addr);
	bits::set(w, wq::hw_counter, sq->ci);
	bits::set(w, wq::log_wq_stride, sq->wq.log_stride);
	bits::set(w, wq::log_wq_sz, sq->wq.log_size);
}

void create_rq(CmdCtx &c)
{
	Firmware &fw = c.fw;
	const uint8_t *x = ctx_in(c);
	auto rq = std::make_unique<NicRq>();
	if (bits::get(x, rqc::hairpin) || bits::get(x, rqc::mem_rq_type) != rqc::MEM_RQ_INLINE ||
	    bits::get(x, rqc::delay_drop_en))
		return c.fail(status::BAD_PARAM, kUnsupported);
	if (bits::get(x, rqc::state) != wq_state::RST)
		return c.fail(status::BAD_PARAM, kState);
	rq->cqn = bits::get(x, rqc::cqn);
	rq->user_index = bits::get(x, rqc::user_index);
	rq->vlan_strip = !bits::get(x, rqc::vsd);
	rq->scatter_fcs = bits::get(x, rqc::scatter_fcs);
	rq->counter_set_id = static_cast<uint8_t>(bits::get(x, rqc::counter_set_id));
	rq->rlky = bits::get(x, rqc::rlky);
	if (!read_wq(c, false, &rq->wq))
		return;
	auto lk = fw.dp().lock();
	Resources &r = fw.dp().res();
	if (!check_wq_refs(c, r, rq->wq, rq->cqn, true))
		return;
	if (rq->counter_set_id && !r.q_counters.contains(rq->counter_set_id))
		return c.fail(status::BAD_PARAM, kUnsupported);
	if (r.rqs.size() >= (1u << fw.caps.gen(eg::log_max_rq)) || !r.qpns.alloc(&rq->rqn))
		return c.fail(status::NO_RESOURCES, kFull);
	rq->state = wq_state::RST;
	c.put(nc::number_out, rq->rqn);
	uid_record(c, Obj::Rq, rq->rqn);
	r.rqs[rq->rqn] = std::move(rq);
}

void modify_rq(CmdCtx &c)
{
	const uint8_t *x = ctx_in(c);
	uint8_t next = static_cast<uint8_t>(bits::get(x, rqc::state));
	uint8_t cur = static_cast<uint8_t>(c.get(nc::modify_state));
	uint64_t mask = bits::load_be64(c.in + nc::kModifyBitmask);
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	NicRq *rq = r.rq(c.get(nc::number_in));
	if (!rq)
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Rq, c.get(nc::number_in), kForeign))
		return;
	if (!transition_ok(rq->state, cur, next))
		return c.fail(status::BAD_PARAM, kTransition);
	if (mask & modify_bitmask::RQ_COUNTER_SET_ID) {
		uint8_t id = static_cast<uint8_t>(bits::get(x, rqc::counter_set_id));
		if (id && !r.q_counters.contains(id))
			return c.fail(status::BAD_PARAM, kUnsupported);
		rq->counter_set_id = id;
	}
	if (mask & modify_bitmask::RQ_VSD)
		rq->vlan_strip = !bits::get(x, rqc::vsd);
	if (mask & modify_bitmask::RQ_SCATTER_FCS)
		rq->scatter_fcs = bits::get(x, rqc::scatter_fcs);
	c.fw.dp().nic_rq_state(*rq, next);
}

void destroy_rq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t n = c.get(nc::number_in);
	if (!r.rq(n))
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Rq, c.get(nc::number_in), kForeign))
		return;
	for (const auto &[t, tir] : r.tirs)
		if (tir.disp_type == tirc::DISP_DIRECT && tir.inline_rqn == n)
			return c.fail(status::RESOURCE_BUSY, kBusy);
	for (const auto &[t, rqt] : r.rqts)
		for (uint32_t q : rqt.rqns)
			if (q == n)
				return c.fail(status::RESOURCE_BUSY, kBusy);
	r.rqs.erase(n);
	r.qpns.release(n);
	uid_forget(c, Obj::Rq, n);
}

void query_rq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	NicRq *rq = c.fw.dp().res().rq(c.get(nc::number_in));
	if (!rq)
		return c.fail(status::BAD_PARAM, kNoObject);
	if (!uid_may_touch(c, Obj::Rq, c.get(nc::number_in), kForeign))
		return;
	uint8_t *o = c.out + nc::kCtx;
	bits::set(o, rqc::state, rq->state);
	bits::set(o, rqc::cqn, rq->cqn);
	bits::set(o, rqc::user_index, rq->user_index);
	bits::set(o, rqc::vsd, !rq->vlan_strip);
	bits::set(o, rqc::scatter_fcs, rq->scatter_fcs);
	bits::set(o, rqc::counter_set_id, rq->counter_set_id);
	uint8_t *w = o + rqc::kWq;
	bits::set(w, wq::wq_type, rq->wq.type);
	bits::set(w, wq::pd, rq->wq.pd);
	bits::store_be64(w + wq::kDbrAddr, rq->wq.dbr_addr);
	bits::set(w, wq::hw_counter, rq->ci);
	bits::set(w, wq::log_wq_stride, rq->wq.log_stride);
	bits::set(w, wq::log_wq_sz, rq->wq.log_size);
}

constexpr uint32_t kIn = nc::kCreateSize;
constexpr uint32_t kTisIn = nc::kCtx + 0xa0; // the TIS context is 160 bytes
constexpr uint32_t kOut = hdr_out::kMinLen;

constexpr CmdSpec kCommands[] = {
	{nic_op::CREATE_TIS, create_tis, kTisIn, 16, Need::EthInitialized},
	{nic_op::MODIFY_TIS, modify_tis, kTisIn, kOut, Need::EthInitialized},
	{nic_op::DESTROY_TIS, destroy_tis, 16, kOut, Need::EthInitialized},
	{nic_op::QUERY_TIS, query_tis, 16, kTisIn, Need::EthInitialized},
	{nic_op::CREATE_TIR, create_tir, kIn, 16, Need::EthInitialized},
	{nic_op::MODIFY_TIR, modify_tir, kIn, kOut, Need::EthInitialized},
	{nic_op::DESTROY_TIR, destroy_tir, 16, kOut, Need::EthInitialized},
	{nic_op::QUERY_TIR, query_tir, 16, nc::kOutSize, Need::EthInitialized},
	{nic_op::CREATE_RQT, create_rqt, kIn, 16, Need::EthInitialized},
	{nic_op::MODIFY_RQT, modify_rqt, kIn, kOut, Need::EthInitialized},
	{nic_op::DESTROY_RQT, destroy_rqt, 16, kOut, Need::EthInitialized},
	{nic_op::QUERY_RQT, query_rqt, 16, nc::kOutSize, Need::EthInitialized},
	{nic_op::CREATE_SQ, create_sq, kIn, 16, Need::EthInitialized},
	{nic_op::MODIFY_SQ, modify_sq, kIn, kOut, Need::EthInitialized},
	{nic_op::DESTROY_SQ, destroy_sq, 16, kOut, Need::EthInitialized},
	{nic_op::QUERY_SQ, query_sq, 16, nc::kOutSize, Need::EthInitialized},
	{nic_op::CREATE_RQ, create_rq, kIn, 16, Need::EthInitialized},
	{nic_op::MODIFY_RQ, modify_rq, kIn, kOut, Need::EthInitialized},
	{nic_op::DESTROY_RQ, destroy_rq, 16, kOut, Need::EthInitialized},
	{nic_op::QUERY_RQ, query_rq, 16, nc::kOutSize, Need::EthInitialized},
};

} // namespace

std::span<const CmdSpec> nic_commands() { return kCommands; }

} // namespace mlx5emu
