// SPDX-License-Identifier: GPL-2.0
// Event queue commands: CREATE_EQ, DESTROY_EQ, QUERY_EQ, GEN_EQE.
#include <cstring>

#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

void create_eq(CmdCtx &c)
{
	namespace ci = create_eq_in;
	Firmware &fw = c.fw;
	const uint8_t *ctx = c.in + ci::kEqc;
	EqContext e;
	e.log_size = static_cast<uint8_t>(bits::get(ctx, eqc::log_eq_size));
	e.uar_page = bits::get(ctx, eqc::uar_page);
	e.intr = static_cast<uint16_t>(bits::get(ctx, eqc::intr));
	e.log_page_size = static_cast<uint8_t>(bits::get(ctx, eqc::log_page_size));
	e.page_offset = static_cast<uint8_t>(bits::get(ctx, eqc::page_offset));
	e.oi = bits::get(ctx, eqc::oi);
	e.ec = bits::get(ctx, eqc::ec);
	e.st = static_cast<uint8_t>(bits::get(ctx, eqc::st));
	for (unsigned i = 0; i < 4; ++i)
		e.event_mask[i] = bits::load_be64(c.in + ci::kEventBitmask + 8 * i);

	if (e.log_size > fw.caps.log_max_eq_sz())
		return c.fail(status::BAD_PARAM, 1);
	if (e.intr >= fw.cfg.msix_vectors)
		return c.fail(status::BAD_PARAM, 2);
	if (!fw.uars.count(e.uar_page))
		return c.fail(status::BAD_PARAM, 3);
	if (e.log_page_size > 20)
		return c.fail(status::BAD_PARAM, 4);
	if (e.ec)
		return c.fail(status::BAD_PARAM, 5);
	size_t need = e.pages_needed();
	if ((c.inlen - ci::kPas) / 8 < need)
		return c.fail(status::BAD_INPUT_LEN, 6);
	uint64_t page = 4096ull << e.log_page_size;
	for (size_t i = 0; i < need; ++i) {
		uint64_t pa = bits::load_be64(c.in + ci::kPas + 8 * i);
		if (!pa || pa % page)
			return c.fail(status::BAD_PARAM, 7);
		e.pas.push_back(pa);
	}

	uint8_t eqn = 0;
	uint32_t reason = 0;
	if (uint8_t st = fw.eqs.create(e, &eqn, &reason))
		return c.fail(st, 0x10 | reason);
	c.put(eq_number_field::eq_number, eqn);
}

void destroy_eq(CmdCtx &c)
{
	if (!c.fw.eqs.destroy(static_cast<uint8_t>(c.get(eq_number_field::eq_number))))
		c.fail(status::BAD_RESOURCE, 1);
}

void query_eq(CmdCtx &c)
{
	EqSnapshot s;
	if (!c.fw.eqs.query(static_cast<uint8_t>(c.get(eq_number_field::eq_number)), &s))
		return c.fail(status::BAD_RESOURCE, 1);
	uint8_t *ctx = c.out + query_eq_out::kEqc;
	uint8_t st = s.ctx.st == eqc::ST_ALWAYS_ARMED ? eqc::ST_ALWAYS_ARMED : s.armed ? eqc::ST_ARMED : eqc::ST_FIRED;
	bits::set(ctx, eqc::status, s.overrun ? eqc::STATUS_OVERFLOW : eqc::STATUS_OK);
	bits::set(ctx, eqc::oi, s.ctx.oi);
	bits::set(ctx, eqc::st, st);
	bits::set(ctx, eqc::page_offset, s.ctx.page_offset);
	bits::set(ctx, eqc::log_eq_size, s.ctx.log_size);
	bits::set(ctx, eqc::uar_page, s.ctx.uar_page);
	bits::set(ctx, eqc::intr, s.ctx.intr);
	bits::set(ctx, eqc::log_page_size, s.ctx.log_page_size);
	bits::set(ctx, eqc::consumer_counter, s.consumer & 0xffffff);
	bits::set(ctx, eqc::producer_counter, s.producer & 0xffffff);
	bits::store_be64(c.out + query_eq_out::kEventBitmask, s.ctx.event_mask[0]);
	for (size_t i = 0; i < s.ctx.pas.size(); ++i) {
		size_t off = query_eq_out::kPas + 8 * i;
		if (off + 8 > c.outlen)
			break;
		bits::store_be64(c.out + off, s.ctx.pas[i]);
	}
}

void gen_eqe(CmdCtx &c)
{
	uint8_t eqn = static_cast<uint8_t>(c.get(eq_number_field::eq_number));
	if (!c.fw.eqs.serial(eqn))
		return c.fail(status::BAD_RESOURCE, 1);
	uint8_t eqe[eqe::kSize];
	std::memcpy(eqe, c.in + gen_eqe_in::kEqe, sizeof eqe);
	c.fw.post_event_to(eqn, eqe);
}

constexpr CmdSpec kCommands[] = {
	{op::CREATE_EQ, create_eq, create_eq_in::kPas, 16, Need::Initialized},
	{op::DESTROY_EQ, destroy_eq, 16, hdr_out::kMinLen, Need::Initialized},
	{op::QUERY_EQ, query_eq, 16, query_eq_out::kPas, Need::Initialized},
	{op::GEN_EQE, gen_eqe, gen_eqe_in::kSize, hdr_out::kMinLen, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> eq_commands() { return kCommands; }

} // namespace mlx5emu
