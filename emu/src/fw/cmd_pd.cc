// SPDX-License-Identifier: GPL-2.0
// Protection domains, XRC domains, transport domains, Q counters and the
// MAD demux setting.
#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/cmd_uid.h"
#include "fw/firmware.h"
#include "prm/prm.h"
#include "prm/mkey.h"

namespace mlx5emu {

namespace {

using namespace prm;

enum Reason : uint32_t {
	kFull = 1,
	kNone = 2,
	kForeign = 3,
	kBusy = 4,
};

void alloc_in(CmdCtx &c, IdPool Resources::*pool, Obj kind, bits::Field out)
{
	auto lk = c.fw.dp().lock();
	uint32_t n;
	if (!(c.fw.dp().res().*pool).alloc(&n))
		return c.fail(status::NO_RESOURCES, kFull);
	uid_record(c, kind, n);
	c.put(out, n);
}

// `users`: objects still naming it (a PD, an XRC domain cannot go before
// them: nothing changes, BAD_RES_STATE).
void dealloc_in(CmdCtx &c, IdPool Resources::*pool, Obj kind, bits::Field in,
		unsigned (Resources::*users)(uint32_t) const = nullptr)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t n = c.get(in);
	if (!(r.*pool).contains(n))
		return c.fail(status::BAD_PARAM, kNone);
	if (!uid_may_touch(c, kind, n, kForeign))
		return;
	if (users && (r.*users)(n)) {
		++c.fw.refusals.parent_busy;
		return c.fail(status::BAD_RES_STATE, kBusy);
	}
	(r.*pool).release(n);
	uid_forget(c, kind, n);
}

void alloc_pd(CmdCtx &c) { alloc_in(c, &Resources::pds, Obj::Pd, res_number::number); }
void dealloc_pd(CmdCtx &c) { dealloc_in(c, &Resources::pds, Obj::Pd, res_number::number, &Resources::pd_users); }
void alloc_xrcd(CmdCtx &c) { alloc_in(c, &Resources::xrcds, Obj::Xrcd, res_number::number); }
void dealloc_xrcd(CmdCtx &c)
{
	dealloc_in(c, &Resources::xrcds, Obj::Xrcd, res_number::number, &Resources::xrcd_users);
}
void alloc_td(CmdCtx &c) { alloc_in(c, &Resources::tds, Obj::Td, res_number::number); }
void dealloc_td(CmdCtx &c) { dealloc_in(c, &Resources::tds, Obj::Td, res_number::number); }

void alloc_q_counter(CmdCtx &c)
{
	alloc_in(c, &Resources::q_counters, Obj::QCounter, q_counter::alloc_counter_set_id);
}

void dealloc_q_counter(CmdCtx &c)
{
	dealloc_in(c, &Resources::q_counters, Obj::QCounter, q_counter::alloc_counter_set_id);
}

// The sum over the QPs bound to the counter set.
void query_q_counter(CmdCtx &c)
{
	auto lk = c.fw.dp().lock();
	Resources &r = c.fw.dp().res();
	uint32_t id = c.get(q_counter::query_counter_set_id);
	if (id && !r.q_counters.contains(id))
		return c.fail(status::BAD_PARAM, kNone);
	if (id && !uid_may_touch(c, Obj::QCounter, id, kForeign))
		return;
	QpCounters sum;
	uint64_t req_err = 0, resp_err = 0;
	for (const auto &[n, qp] : r.qps) {
		if (id && qp->cfg.counter_set_id != id)
			continue;
		const QpCounters &k = qp->ctr;
		sum.rx_write_requests += k.rx_write_requests;
		sum.rx_read_requests += k.rx_read_requests;
		sum.rx_atomic_requests += k.rx_atomic_requests;
		sum.out_of_buffer += k.out_of_buffer;
		sum.seq_naks += k.seq_naks;
		sum.duplicates += k.duplicates;
		sum.rnr_naks_rcvd += k.rnr_naks_rcvd;
		sum.timeouts += k.timeouts;
		sum.flushed += k.flushed;
		req_err += k.errors;
	}
	// NIC RQs bound to the set: frames that found no receive WQE.
	for (const auto &[n, rq] : r.rqs)
		if (!id || rq->counter_set_id == id)
			sum.out_of_buffer += rq->out_of_buffer;
	auto put = [&](bits::Field f, uint64_t v) { c.put(f, static_cast<uint32_t>(v)); };
	put(q_counter::rx_write_requests, sum.rx_write_requests);
	put(q_counter::rx_read_requests, sum.rx_read_requests);
	put(q_counter::rx_atomic_requests, sum.rx_atomic_requests);
	put(q_counter::out_of_buffer, sum.out_of_buffer);
	put(q_counter::out_of_sequence, sum.seq_naks);
	put(q_counter::duplicate_request, sum.duplicates);
	put(q_counter::rnr_nak_retry_err, sum.rnr_naks_rcvd);
	put(q_counter::packet_seq_err, sum.seq_naks);
	put(q_counter::local_ack_timeout_err, sum.timeouts);
	put(q_counter::req_cqe_error, req_err);
	put(q_counter::resp_cqe_error, resp_err);
	put(q_counter::req_cqe_flush_error, sum.flushed);
}

void set_mad_demux(CmdCtx &c)
{
	uint32_t mode = c.get(mad_demux::demux_mode);
	if (mode != mad_demux::PASS_ALL && mode != mad_demux::SELECTIVE)
		return c.fail(status::BAD_PARAM, 1);
}

void query_mad_demux(CmdCtx &c) { c.put(mad_demux::parameters, 0); }

constexpr CmdSpec kCommands[] = {
	{res_op::ALLOC_PD, alloc_pd, 16, 16, Need::Initialized},
	{res_op::DEALLOC_PD, dealloc_pd, 16, hdr_out::kMinLen, Need::Initialized},
	{res_op::ALLOC_XRCD, alloc_xrcd, 16, 16, Need::Initialized},
	{res_op::DEALLOC_XRCD, dealloc_xrcd, 16, hdr_out::kMinLen, Need::Initialized},
	{res_op::ALLOC_TRANSPORT_DOMAIN, alloc_td, 16, 16, Need::Initialized},
	{res_op::DEALLOC_TRANSPORT_DOMAIN, dealloc_td, 16, hdr_out::kMinLen, Need::Initialized},
	{res_op::ALLOC_Q_COUNTER, alloc_q_counter, 16, 16, Need::Initialized},
	{res_op::DEALLOC_Q_COUNTER, dealloc_q_counter, 16, hdr_out::kMinLen, Need::Initialized},
	{res_op::QUERY_Q_COUNTER, query_q_counter, 32, 16, Need::Initialized},
	{res_op::SET_MAD_DEMUX, set_mad_demux, 16, hdr_out::kMinLen, Need::Initialized},
	{res_op::QUERY_MAD_DEMUX, query_mad_demux, 16, mad_demux::kQueryOutSize, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> pd_commands() { return kCommands; }

} // namespace mlx5emu
