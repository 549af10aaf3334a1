// SPDX-License-Identifier: GPL-2.0
// Shared receive queues in their three command families: SRQ
// (CREATE/DESTROY/QUERY_SRQ, ARM_RQ), XRC SRQ (CREATE/DESTROY/QUERY/
// ARM_XRC_SRQ) and RMP (CREATE/MODIFY/DESTROY/QUERY_RMP), all one object.
#include "exec/datapath.h"
#include "fw/cmd_pas.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/srq.h"

namespace mlx5emu {

namespace {

using namespace prm;
using bits::get;
using Kind = SrqConfig::Kind;

enum Reason : uint32_t {
	kPd = 1,
	kXrcd = 2,
	kCq = 3,
	kSize = 4,
	kStride = 5,
	kFull = 6,
	kNoSrq = 7,
	kBusy = 8,
	kUmem = 9,
	kType = 10,
	kState = 11,
	kPas = 12, // and 13
	kDbr = 14,
	kForeign = 15,
	kForeignPd = 16,
	kForeignXrcd = 17,
	kForeignCq = 18,
};

// The srqc and xrc_srqc share their layout except for the user index.
void read_srqc(const uint8_t *x, Kind kind, SrqConfig *s, uint32_t *log_page_12, uint64_t *offset)
{
	s->kind = kind;
	s->log_size = static_cast<uint8_t>(get(x, srqc::log_srq_size));
	s->log_stride = static_cast<uint8_t>(get(x, srqc::log_rq_stride) + 4);
	s->wq_signature = get(x, srqc::wq_signature);
	s->xrcd = get(x, srqc::xrcd);
	s->cqn = get(x, srqc::cqn);
	s->pd = get(x, srqc::pd);
	s->lwm = static_cast<uint16_t>(get(x, srqc::lwm));
	s->dbr_addr = bits::load_be64(x + srqc::kDbrAddr) & ~3ull;
	if (kind == Kind::XrcSrq)
		s->user_index = get(x, xrc_srqc::user_index);
	*log_page_12 = get(x, srqc::log_page_size);
	*offset = static_cast<uint64_t>(get(x, srqc::page_offset)) * ((4096ull << *log_page_12) / 64);
}

void read_wq(const uint8_t *w, SrqConfig *s, uint32_t *log_page_12, uint64_t *offset)
{
	s->kind = Kind::Rmp;
	s->log_size = static_cast<uint8_t>(get(w, wq::log_wq_sz));
	s->log_stride = static_cast<uint8_t>(get(w, wq::log_wq_stride));
	s->wq_signature = get(w, wq::wq_signature);
	s->pd = get(w, wq::pd);
	s->lwm = static_cast<uint16_t>(get(w, wq::lwm));
	s->dbr_addr = bits::load_be64(w + wq::kDbrAddr);
	*log_page_12 = get(w, wq::log_wq_pg_sz);
	*offset = static_cast<uint64_t>(get(w, wq::page_offset)) * ((4096ull << *log_page_12) / 64);
}

void create_common(CmdCtx &c, SrqConfig s, uint32_t log_page_12, uint64_t offset, unsigned pas_off)
{
	Firmware &fw = c.fw;
	if (s.log_size > fw.caps.gen(cmd_hca_cap::log_max_srq_sz))
		return c.fail(status::BAD_PARAM, kSize);
	if (s.log_stride < 4 || s.stride() > fw.caps.gen(cmd_hca_cap::max_wqe_sz_rq))
		return c.fail(status::BAD_PARAM, kStride);
	if (!s.dbr_addr)
		return c.fail(status::BAD_PARAM, kDbr);
	if (!read_page_list(c, pas_off, static_cast<uint64_t>(s.nwqes()) * s.stride(), log_page_12, offset, &s.buf,
			    kPas))
		return;
	auto lk = fw.dp().lock();
	Resources &r = fw.dp().res();
	if (!r.pds.contains(s.pd))
		return c.fail(status::BAD_PARAM, kPd);
	if (s.kind == Kind::XrcSrq && (!r.xrcds.contains(s.xrcd) || !r.cq(s.cqn)))
		return c.fail(status::BAD_PARAM, r.xrcds.contains(s.xrcd) ? kCq : kXrcd);
	// Objects of another user context cannot be named (cmd_uid.h).
	if (!uid_may_name(c, Obj::Pd, s.pd, kForeignPd))
		return;
	if (s.kind == Kind::XrcSrq &&
	    (!uid_may_name(c, Obj::Xrcd, s.xrcd, kForeignXrcd) || !uid_may_name(c, Obj::Cq, s.cqn, kForeignCq)))
		return;
	uint32_t n;
	if (!r.srqns.alloc(&n))
		return c.fail(status::NO_RESOURCES, kFull);
	auto srq = std::make_unique<Srq>();
	srq->number = n;
	srq->cfg = std::move(s);
	r.srqs.emplace(n, std::move(srq));
	uid_record(c, Obj::Srq, n);
	c.put(srq_cmd::number, n);
}

Srq *find(CmdCtx &c, Kind kind)
{
	Srq *s = c.fw.dp().res().srq(c.get(srq_cmd::number));
	if (!s || s->cfg.kind != kind) {
		c.fail(status::BAD_PARAM, kNoSrq);
		return nullptr;
	}
	if (!uid_may_touch(c, Obj::Srq, s->number, kForeign))
		return nullptr;
	return s;
}

void destroy_common(CmdCtx &c, Kind kind)
{
	auto lk = c.fw.dp().lock();
	Srq *s = find(c, kind);
	if (!s)
		return;
	Resources &r = c.fw.dp().res();
	if (r.srq_users(s->number))
		return c.fail(status::RESOURCE_BUSY, kBusy);
	uint32_t n = s->number;
	r.srqs.erase(n);
	r.srqns.release(n);
	uid_forget(c, Obj::Srq, n);
}

void arm_common(CmdCtx &c, Kind kind, uint16_t lwm)
{
	auto lk = c.fw.dp().lock();
	if (Srq *s = find(c, kind)) {
		s->cfg.lwm = lwm;
		s->limit_armed = lwm != 0;
	}
}

// srqc / xrc_srqc for the QUERY commands.
void write_srqc(const Srq &s, uint8_t *x)
{
	auto put = [x](bits::Field f, uint32_t v) { bits::set(x, f, v); };
	put(srqc::state, s.error ? srqc::STATE_ERROR : srqc::STATE_GOOD);
	put(srqc::log_srq_size, s.cfg.log_size);
	put(srqc::wq_signature, s.cfg.wq_signature);
	put(srqc::log_rq_stride, s.cfg.log_stride - 4u);
	put(srqc::xrcd, s.cfg.xrcd);
	put(srqc::page_offset, static_cast<uint32_t>(s.cfg.buf.offset / (s.cfg.buf.page_size() / 64)));
	put(srqc::cqn, s.cfg.cqn);
	put(srqc::log_page_size, s.cfg.buf.log_page - 12);
	put(srqc::pd, s.cfg.pd);
	put(srqc::lwm, s.cfg.lwm);
	put(srqc::wqe_cnt, s.consumed);
	if (s.cfg.kind == Kind::XrcSrq)
		put(xrc_srqc::user_index, s.cfg.user_index);
	bits::store_be64(x + srqc::kDbrAddr, s.cfg.dbr_addr);
}

// --- SRQ ---------------------------------------------------------------

void create_srq(CmdCtx &c)
{
	SrqConfig s;
	uint32_t lp;
	uint64_t off;
	read_srqc(c.in + srq_cmd::kSrqc, Kind::Srq, &s, &lp, &off);
	create_common(c, std::move(s), lp, off, srq_cmd::kSrqPas);
}
void destroy_srq(CmdCtx &c) { destroy_common(c, Kind::Srq); }
void query_srq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	if (Srq *s = find(c, Kind::Srq))
		write_srqc(*s, c.out + srq_cmd::kSrqc);
}
void arm_rq(CmdCtx &c)
{
	if (c.op_mod != srq_cmd::ARM_RQ_OPMOD_SRQ)
		return c.fail(status::BAD_PARAM, kType);
	auto lk = c.fw.dp().lock();
	Srq *s = c.fw.dp().res().srq(c.get(srq_cmd::number));
	if (!s || s->cfg.kind == Kind::XrcSrq)
		return c.fail(status::BAD_PARAM, kNoSrq);
	if (!uid_may_touch(c, Obj::Srq, s->number, kForeign))
		return;
	s->cfg.lwm = static_cast<uint16_t>(c.get(srq_cmd::arm_lwm));
	s->limit_armed = s->cfg.lwm != 0;
}

// --- XRC SRQ -------------------------------------------------------------

void create_xrc_srq(CmdCtx &c)
{
	if (c.get(srq_cmd::xrc_srq_umem_valid))
		return c.fail(status::BAD_PARAM, kUmem);
	SrqConfig s;
	uint32_t lp;
	uint64_t off;
	read_srqc(c.in + srq_cmd::kSrqc, Kind::XrcSrq, &s, &lp, &off);
	create_common(c, std::move(s), lp, off, srq_cmd::kSrqPas);
}
void destroy_xrc_srq(CmdCtx &c) { destroy_common(c, Kind::XrcSrq); }
void query_xrc_srq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	if (Srq *s = find(c, Kind::XrcSrq))
		write_srqc(*s, c.out + srq_cmd::kSrqc);
}
void arm_xrc_srq(CmdCtx &c) { arm_common(c, Kind::XrcSrq, static_cast<uint16_t>(c.get(srq_cmd::arm_lwm))); }

// --- RMP -----------------------------------------------------------------

void create_rmp(CmdCtx &c)
{
	const uint8_t *rmp = c.in + srq_cmd::kRmpc;
	const uint8_t *w = rmp + rmpc::kWq;
	if (get(w, wq::wq_umem_valid) || get(w, wq::dbr_umem_valid))
		return c.fail(status::BAD_PARAM, kUmem);
	if (get(w, wq::wq_type) != wq::TYPE_LINKED_LIST || get(rmp, rmpc::basic_cyclic_rcv_wqe))
		return c.fail(status::BAD_PARAM, kType);
	if (get(rmp, rmpc::state) != rmpc::STATE_RDY)
		return c.fail(status::BAD_PARAM, kState);
	SrqConfig s;
	uint32_t lp;
	uint64_t off;
	read_wq(w, &s, &lp, &off);
	create_common(c, std::move(s), lp, off, srq_cmd::kRmpPas);
}

void modify_rmp(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Srq *s = find(c, Kind::Rmp);
	if (!s)
		return;
	if (c.get(srq_cmd::modify_rmp_state) != rmpc::STATE_RDY)
		return c.fail(status::BAD_PARAM, kState);
	if (c.get(srq_cmd::modify_bitmask_lwm)) {
		s->cfg.lwm = static_cast<uint16_t>(get(c.in + srq_cmd::kRmpc + rmpc::kWq, wq::lwm));
		s->limit_armed = s->cfg.lwm != 0;
	}
}

void destroy_rmp(CmdCtx &c) { destroy_common(c, Kind::Rmp); }

void query_rmp(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Srq *s = find(c, Kind::Rmp);
	if (!s)
		return;
	uint8_t *rmp = c.out + srq_cmd::kRmpc;
	uint8_t *w = rmp + rmpc::kWq;
	auto put = [w](bits::Field f, uint32_t v) { bits::set(w, f, v); };
	bits::set(rmp, rmpc::state, s->error ? rmpc::STATE_ERR : rmpc::STATE_RDY);
	put(wq::wq_type, wq::TYPE_LINKED_LIST);
	put(wq::wq_signature, s->cfg.wq_signature);
	put(wq::page_offset, static_cast<uint32_t>(s->cfg.buf.offset / (s->cfg.buf.page_size() / 64)));
	put(wq::lwm, s->cfg.lwm);
	put(wq::pd, s->cfg.pd);
	bits::store_be64(w + wq::kDbrAddr, s->cfg.dbr_addr);
	put(wq::hw_counter, s->consumed);
	put(wq::log_wq_stride, s->cfg.log_stride);
	put(wq::log_wq_pg_sz, s->cfg.buf.log_page - 12);
	put(wq::log_wq_sz, s->cfg.log_size);
}

constexpr CmdSpec kCommands[] = {
	{srq_op::CREATE_SRQ, create_srq, srq_cmd::kCreateSize, 16, Need::Initialized},
	{srq_op::DESTROY_SRQ, destroy_srq, 16, hdr_out::kMinLen, Need::Initialized},
	{srq_op::QUERY_SRQ, query_srq, 16, srq_cmd::kSrqc + srqc::kSize, Need::Initialized},
	{srq_op::ARM_RQ, arm_rq, 16, hdr_out::kMinLen, Need::Initialized},
	{srq_op::CREATE_XRC_SRQ, create_xrc_srq, srq_cmd::kCreateSize, 16, Need::Initialized},
	{srq_op::DESTROY_XRC_SRQ, destroy_xrc_srq, 16, hdr_out::kMinLen, Need::Initialized},
	{srq_op::QUERY_XRC_SRQ, query_xrc_srq, 16, srq_cmd::kSrqc + srqc::kSize, Need::Initialized},
	{srq_op::ARM_XRC_SRQ, arm_xrc_srq, 16, hdr_out::kMinLen, Need::Initialized},
	{srq_op::CREATE_RMP, create_rmp, srq_cmd::kCreateSize, 16, Need::Initialized},
	{srq_op::MODIFY_RMP, modify_rmp, srq_cmd::kRmpc + rmpc::kWq + wq::kPas, hdr_out::kMinLen, Need::Initialized},
	{srq_op::DESTROY_RMP, destroy_rmp, 16, hdr_out::kMinLen, Need::Initialized},
	{srq_op::QUERY_RMP, query_rmp, 16, srq_cmd::kRmpPas, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> srq_commands() { return kCommands; }

} // namespace mlx5emu
