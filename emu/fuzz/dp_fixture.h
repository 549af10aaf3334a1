// SPDX-License-Identifier: GPL-2.0
// What the WQE and doorbell fuzz targets run against, built the same way
// for every input and by the seed generator (so the seeds' keys, QP
// numbers and addresses are the targets'): one HCA on a fabric of its own
// (dp_harness.h's DpHca), a 64 KiB MR with every right, one CQ, and three
// QPs of 64 send WQEBBs: RC and UC connected to themselves (loopback) and
// UD in RTS, each with 32 receives of 1 KiB posted; then (created after
// those, whose numbers and addresses stay as they were) an XRC initiator
// of 64 WQEBBs connected to an XRC target on the same HCA, whose XRC SRQ
// has 32 receives of 1 KiB, a UMR QP of 64 WQEBBs (a kernel QP: rlky),
// and two keys UMR may change: a 16 KiB MTT MR and a free KLM key.
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
	uint32_t xrcd = a.alloc_xrcd();
	DpHca::Srq xsrq = a.create_xrc_srq(kLogRq, xrcd, cq, 0x123);
	DpHca::Qp xrc_ini = a.create_xrc_qp(false, cq, xrcd, xsrq, kLogSq);
	DpHca::Qp xrc_tgt = a.create_xrc_qp(true, cq, xrcd, xsrq);
	DpHca::Qp umr = a.create_qp(ST_UMR, cq, cq, 0, kLogSq);
	DpHca::Mr umr_mr = a.reg_mr(16 * 1024, A_ALL | A_UMR_EN);
	uint32_t klm_key = free_klm_key(16);

	// The QPs a WQE input may go to: RC, UC, UD, XRC initiator, UMR.
	static constexpr unsigned kSendQps = 5;
	DpHca::Qp &send_qp(unsigned i)
	{
		DpHca::Qp *all[kSendQps] = {&qps[0], &qps[1], &qps[2], &xrc_ini, &umr};
		return *all[i % kSendQps];
	}

	DpFixture()
	{
		to_self(qps[0]);
		to_self(qps[1]);
		a.to_rts_ud(qps[2], kQkey);
		for (DpHca::Qp &q : qps)
			for (unsigned i = 0; i < 1u << kLogRq; ++i)
				a.post_recv(q, mr, 1024, 1024ull * i);
		DpHca::RcParams p, t;
		aim_rc(a, xrc_ini, a, xrc_tgt, &p, &t);
		a.to_rts_rc(xrc_ini, p);
		a.to_rts_rc(xrc_tgt, t);
		for (unsigned i = 0; i < 1u << kLogRq; ++i)
			a.post_srq_recv(xsrq, {mr.addr + 1024ull * i, 1024, mr.key});
		a.to_rts_ud(umr, 0);
	}

	// A free KLM key with UMR enabled and `octowords` of room (a window
	// or a KLM MR before its first UMR).
	uint32_t free_klm_key(uint32_t octowords)
	{
		Msg c(0x200, 0, 0x110);
		c.set({ctx_dw(0), 30, 30}, 1).set({ctx_dw(0), 15, 15}, 1).set({ctx_dw(0), 14, 10}, A_ALL >> 10);
		c.set({ctx_dw(0), 9, 8}, 2).set({ctx_dw(1), 31, 8}, 0xffffff).set({ctx_dw(3), 23, 0}, a.pd);
		c.set({ctx_dw(0xd), 31, 0}, octowords);
		return (be32_at(a.h.ok(c, 16), 8) & 0xffffff) << 8;
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
