// SPDX-License-Identifier: GPL-2.0
// What the WQE and doorbell fuzz targets run against, built the same way
// for every input and by the seed generator (so the seeds' keys, QP
// numbers and addresses are the targets'): one HCA on a fabric of its own
// (dp_harness.h's DpHca), a 64 KiB MR with every right, one CQ, and three
// QPs of 64 send WQEBBs: RC and UC connected to themselves (loopback) and
// UD in RTS, each with 32 receives of 1 KiB posted.
#pragma once

#include "dp_harness.h"

namespace mlx5emu::fuzz {

using namespace mlx5emu::test;

struct DpFixture {
	static constexpr uint32_t kQkey = 0x11111111;
	static constexpr unsigned kLogSq = 6, kLogRq = 5;

	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	DpHca a{fabric, 0};
	DpHca::Mr mr = a.reg_mr(64 * 1024);
	DpHca::Cq cq = a.create_cq(8);
	DpHca::Qp qps[3] = {a.create_qp(ST_RC, cq, cq, kLogRq, kLogSq), a.create_qp(ST_UC, cq, cq, kLogRq, kLogSq),
			    a.create_qp(ST_UD, cq, cq, kLogRq, kLogSq)};

	DpFixture()
	{
		to_self(qps[0]);
		to_self(qps[1]);
		a.to_rts_ud(qps[2], kQkey);
		for (DpHca::Qp &q : qps)
			for (unsigned i = 0; i < 1u << kLogRq; ++i)
				a.post_recv(q, mr, 1024, 1024ull * i);
	}

	// An RC or UC QP aimed at itself, in RTS (its send PSN its receive PSN).
	void to_self(const DpHca::Qp &q)
	{
		DpHca::RcParams p;
		p.dlid = a.lid();
		p.dqpn = q.qpn;
		p.rq_psn = p.sq_psn;
		a.to_rts_rc(q, p);
	}

	// Posts a signaled 64-byte SEND into each of the first 8 WQEBBs of
	// every QP without ringing (UD: to itself).
	void post_unrung_sends()
	{
		for (DpHca::Qp &q : qps) {
			DpHca::Wr w = DpHca::send_wr(mr, 64);
			if (q.st == ST_UD) {
				w.dlid = a.lid();
				w.dqpn = q.qpn;
				w.qkey = kQkey;
			}
			for (int i = 0; i < 8; ++i)
				a.post_send(q, w, false);
		}
	}
	// The first 8 bytes of WQEBB `i` of the SQ of `q`: its doorbell.
	uint64_t doorbell(const DpHca::Qp &q, unsigned i)
	{
		uint64_t v = 0;
		a.mem().read(sq(q) + 64ull * i, &v, 8);
		return v;
	}

	// The SQ of a QP (DpHca::post_wqe's placement: after the RQ).
	uint64_t sq(const DpHca::Qp &q) const { return q.buf + q.rq_bytes(); }
};

} // namespace mlx5emu::fuzz
