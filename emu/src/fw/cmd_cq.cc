// SPDX-License-Identifier: GPL-2.0
// Completion queues: CREATE_CQ, DESTROY_CQ, QUERY_CQ, MODIFY_CQ.
#include "exec/datapath.h"
#include "fw/cmd_pas.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/cmd_umem.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/cq.h"

namespace mlx5emu {

namespace {

using namespace prm;
using bits::get;

enum Reason : uint32_t {
	kUmem = 1,
	kSize = 2,
	kCqeSize = 3,
	kEqn = 4,
	kUar = 5,
	kCompression = 6,
	kFull = 7,
	kPas = 8, // and 9
	kNoCq = 10,
	kOpMod = 12,
	kResizeSize = 13,
	kResizeTooSmall = 14, // fewer entries than CQEs not polled yet
	kResizeFull = 15,     // no room for the resize CQE
	kResizeError = 16,    // CQ in error
	kResizePas = 17,      // and 18
	kResizeSelect = 19,
	kPeriodMode = 20,
	kForeign = 21,
	kBufUmem = 22,  // and 23, 24 (cmd_umem.h)
	kDbrUmem = 25,  // and 26, 27
};

void create_cq(CmdCtx &c)
{
	const uint8_t *x = c.in + cq_cmd::kCqc;
	Firmware &fw = c.fw;
	// DEVX: the buffer and the doorbell record may live in umems (their
	// ids, a byte offset for the buffer; dbr_addr the record's offset).
	bool buf_umem = c.get(cq_cmd::cq_umem_valid), dbr_umem = get(x, cqc::dbr_umem_valid);
	CqConfig cfg;
	cfg.log_size = static_cast<uint8_t>(get(x, cqc::log_cq_size));
	cfg.cqe_sz = static_cast<uint8_t>(get(x, cqc::cqe_sz));
	cfg.uar_page = get(x, cqc::uar_page);
	cfg.c_eqn = get(x, cqc::c_eqn);
	cfg.oi = get(x, cqc::oi);
	cfg.period = static_cast<uint16_t>(get(x, cqc::cq_period));
	cfg.max_count = static_cast<uint16_t>(get(x, cqc::cq_max_count));
	cfg.period_mode = static_cast<uint8_t>(get(x, cqc::cq_period_mode));
	cfg.dbr_addr = bits::load_be64(x + cqc::kDbrAddr);
	if (cfg.log_size > fw.caps.gen(cmd_hca_cap::log_max_cq_sz))
		return c.fail(status::BAD_PARAM, kSize);
	if (cfg.cqe_sz > cqc::CQE_SZ_128_PAD)
		return c.fail(status::BAD_PARAM, kCqeSize);
	if (get(x, cqc::cqe_comp_en) || get(x, cqc::cc))
		return c.fail(status::BAD_PARAM, kCompression);
	if (cfg.period_mode > cqc::PERIOD_FROM_CQE)
		return c.fail(status::BAD_PARAM, kPeriodMode);
	if (cfg.c_eqn > 0xff || !fw.eqs.serial(static_cast<uint8_t>(cfg.c_eqn)))
		return c.fail(status::BAD_PARAM, kEqn);
	if (!fw.uars.count(cfg.uar_page))
		return c.fail(status::BAD_PARAM, kUar);
	uint32_t log_page_12 = get(x, cqc::log_page_size);
	uint64_t offset = static_cast<uint64_t>(get(x, cqc::page_offset)) * ((4096ull << log_page_12) / 64);
	uint64_t bytes = static_cast<uint64_t>(cfg.nent()) * cfg.stride();
	if (!buf_umem && !read_page_list(c, cq_cmd::kPas, bytes, log_page_12, offset, &cfg.buf, kPas))
		return;

	auto lk = fw.dp().lock();
	Resources &r = fw.dp().res();
	uint32_t buf_id = c.get(cq_cmd::cq_umem_id), dbr_id = get(x, cqc::dbr_umem_id);
	if (buf_umem && !umem_buffer(c, buf_id, bits::load_be64(c.in + cq_cmd::kUmemOffset), bytes, &cfg.buf, kBufUmem))
		return;
	if (dbr_umem && !umem_address(c, dbr_id, cfg.dbr_addr, 8, &cfg.dbr_addr, kDbrUmem))
		return;
	uint32_t cqn;
	if (!r.cqns.alloc(&cqn))
		return c.fail(status::NO_RESOURCES, kFull);
	fw.dp().owners().add(DoorbellOwners::Kind::Cq, cqn, cfg.uar_page);
	// Nothing is written to the doorbell record (software's alone, the
	// device only reads it; a process's page may be pinned read-only).
	// On a polled page the sweep takes a record that differs from the
	// last arm applied for an arm whose register store was overwritten
	// (exec/doorbell_sweep.cc); before the first arm nothing was applied,
	// so the first sweep of the page takes the record as an arm, once.
	auto cq = std::make_unique<Cq>(cqn, cfg);
	r.cqs.emplace(cqn, std::move(cq));
	uid_record(c, Obj::Cq, cqn);
	if (buf_umem)
		umem_bind(c, Obj::Cq, cqn, buf_id);
	if (dbr_umem)
		umem_bind(c, Obj::Cq, cqn, dbr_id);
	c.put(cq_cmd::cqn, cqn);
}

void destroy_cq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t cqn = c.get(cq_cmd::cqn);
	if (!r.cq(cqn))
		return c.fail(status::BAD_PARAM, kNoCq);
	if (!uid_may_touch(c, Obj::Cq, cqn, kForeign))
		return;
	r.cqs.erase(cqn);
	c.fw.dp().owners().remove(DoorbellOwners::Kind::Cq, cqn);
	r.cqns.release(cqn);
	uid_forget(c, Obj::Cq, cqn);
	umem_unbind(c, Obj::Cq, cqn);
}

void query_cq(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Cq *cq = c.fw.dp().res().cq(c.get(cq_cmd::cqn));
	if (!cq)
		return c.fail(status::BAD_PARAM, kNoCq);
	if (!uid_may_touch(c, Obj::Cq, c.get(cq_cmd::cqn), kForeign))
		return;
	const CqConfig &f = cq->config();
	uint8_t *x = c.out + cq_cmd::kCqc;
	auto put = [x](bits::Field fd, uint32_t v) { bits::set(x, fd, v); };
	uint8_t st = cq->arm_state() == Cq::Arm::All	     ? cqc::ST_ARMED
		     : cq->arm_state() == Cq::Arm::Solicited ? cqc::ST_SOLICITED_ARMED
							     : cqc::ST_FIRED;
	put(cqc::status, cq->overrun() ? cqc::STATUS_OVERFLOW : cqc::STATUS_OK);
	put(cqc::cqe_sz, f.cqe_sz);
	put(cqc::oi, f.oi);
	put(cqc::cq_period_mode, f.period_mode);
	put(cqc::st, st);
	put(cqc::page_offset, static_cast<uint32_t>(f.buf.offset / (f.buf.page_size() / 64)));
	put(cqc::log_cq_size, f.log_size);
	put(cqc::uar_page, f.uar_page);
	put(cqc::cq_period, f.period);
	put(cqc::cq_max_count, f.max_count);
	put(cqc::c_eqn, f.c_eqn);
	put(cqc::log_page_size, f.buf.log_page - 12);
	put(cqc::last_notified_index, cq->last_notified() & 0xffffff);
	put(cqc::last_solicit_index, cq->last_solicited() & 0xffffff);
	put(cqc::consumer_counter, cq->read_consumer(c.fw.mem));
	put(cqc::producer_counter, cq->producer() & 0xffffff);
	bits::store_be64(x + cqc::kDbrAddr, f.dbr_addr);
	for (size_t i = 0; i < f.buf.pas.size() && cq_cmd::kPas + 8 * (i + 1) <= c.outlen; ++i)
		bits::store_be64(c.out + cq_cmd::kPas + 8 * i, f.buf.pas[i]);
}

// MODIFY_CQ op_mod 1: the CQ moves to a new buffer (log_cq_size, page
// size and offset from the context, the page list after it) at once;
// Cq::resize says where and how.
void resize_cq(CmdCtx &c)
{
	namespace m = modify_cq_in;
	const uint8_t *x = c.in + cq_cmd::kCqc;
	Firmware &fw = c.fw;
	if (c.get(cq_cmd::cq_umem_valid))
		return c.fail(status::BAD_PARAM, kUmem);
	constexpr uint32_t kAll = m::RESIZE_LOG_SIZE | m::RESIZE_PAGE_OFFSET | m::RESIZE_PAGE_SIZE;
	if ((c.get(m::field_select) & kAll) != kAll)
		return c.fail(status::BAD_PARAM, kResizeSelect);
	uint8_t log_size = static_cast<uint8_t>(get(x, cqc::log_cq_size));
	uint8_t cqe_sz = static_cast<uint8_t>(get(x, cqc::cqe_sz));
	if (log_size > fw.caps.gen(cmd_hca_cap::log_max_cq_sz))
		return c.fail(status::BAD_PARAM, kResizeSize);
	if (cqe_sz > cqc::CQE_SZ_128_PAD)
		return c.fail(status::BAD_PARAM, kCqeSize);
	uint32_t log_page_12 = get(x, cqc::log_page_size);
	uint64_t offset = static_cast<uint64_t>(get(x, cqc::page_offset)) * ((4096ull << log_page_12) / 64);
	PageList buf;
	uint64_t bytes = (1ull << log_size) * (cqe_sz == cqc::CQE_SZ_64 ? 64 : 128);
	if (!read_page_list(c, cq_cmd::kPas, bytes, log_page_12, offset, &buf, kResizePas))
		return;
	auto lk = fw.dp().lock();
	Cq *cq = fw.dp().res().cq(c.get(cq_cmd::cqn));
	if (!cq)
		return c.fail(status::BAD_PARAM, kNoCq);
	if (!uid_may_touch(c, Obj::Cq, c.get(cq_cmd::cqn), kForeign))
		return;
	switch (cq->resize(fw.mem, log_size, cqe_sz, std::move(buf))) {
	case Cq::Resize::Ok:
		return;
	case Cq::Resize::TooSmall:
		return c.fail(status::BAD_PARAM, kResizeTooSmall);
	case Cq::Resize::Full:
		return c.fail(status::BAD_PARAM, kResizeFull);
	case Cq::Resize::Error:
		return c.fail(status::BAD_RES_STATE, kResizeError);
	}
}

void modify_cq(CmdCtx &c)
{
	namespace m = modify_cq_in;
	if (c.op_mod == m::OPMOD_RESIZE)
		return resize_cq(c);
	if (c.op_mod != m::OPMOD_MODIFY)
		return c.fail(status::BAD_PARAM, kOpMod);
	auto lk = c.fw.dp().lock();
	Cq *cq = c.fw.dp().res().cq(c.get(cq_cmd::cqn));
	if (!cq)
		return c.fail(status::BAD_PARAM, kNoCq);
	if (!uid_may_touch(c, Obj::Cq, c.get(cq_cmd::cqn), kForeign))
		return;
	const uint8_t *x = c.in + cq_cmd::kCqc;
	uint32_t sel = c.get(m::field_select);
	if ((sel & m::SEL_PERIOD_MODE) && get(x, cqc::cq_period_mode) > cqc::PERIOD_FROM_CQE)
		return c.fail(status::BAD_PARAM, kPeriodMode);
	CqConfig &f = cq->config();
	if (sel & m::SEL_PERIOD)
		f.period = static_cast<uint16_t>(get(x, cqc::cq_period));
	if (sel & m::SEL_COUNT)
		f.max_count = static_cast<uint16_t>(get(x, cqc::cq_max_count));
	if (sel & m::SEL_OI)
		f.oi = get(x, cqc::oi);
	if (sel & m::SEL_PERIOD_MODE)
		f.period_mode = static_cast<uint8_t>(get(x, cqc::cq_period_mode));
}

constexpr CmdSpec kCommands[] = {
	{cq_op::CREATE_CQ, create_cq, cq_cmd::kCreateSize, 16, Need::Initialized},
	{cq_op::DESTROY_CQ, destroy_cq, 16, hdr_out::kMinLen, Need::Initialized},
	{cq_op::QUERY_CQ, query_cq, 16, cq_cmd::kPas, Need::Initialized},
	{cq_op::MODIFY_CQ, modify_cq, cq_cmd::kPas, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> cq_commands() { return kCommands; }

} // namespace mlx5emu
