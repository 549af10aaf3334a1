// SPDX-License-Identifier: GPL-2.0
// Every data-path object of one HCA function: PDs, XRC and transport
// domains, Q counters, memory keys, CQs, QPs, SRQs and multicast groups; on
// an Ethernet function also the NIC queues (queues/nic.h) and the flow tables.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "queues/cq.h"
#include "queues/id_pool.h"
#include "queues/mcg_table.h"
#include "queues/mkey.h"
#include "queues/nic.h"
#include "queues/qp.h"
#include "queues/srq.h"
#include "steer/flow_table.h"

namespace mlx5emu {

struct Resources {
	static constexpr uint32_t kFirstQpn = 0x100; // 0 and 1 are the special QPs

	// User contexts (CREATE_UCTX): the uids software may put in command
	// headers; 0 is the kernel's (privileged).
	static constexpr unsigned kLogMaxUctx = 8;
	IdPool uctxs{1, 1u << kLogMaxUctx};
	IdPool pds{1, 1u << 16};
	IdPool xrcds{1, 1u << 16};
	IdPool tds{1, 1u << 16};
	IdPool q_counters{1, 256};
	MkeyTable mkeys;
	IdPool cqns{1, 1u << 12};
	IdPool qpns{kFirstQpn, 1u << 24};
	IdPool srqns{1, 1u << 12};
	std::map<uint32_t, std::unique_ptr<Cq>> cqs;
	std::map<uint32_t, std::unique_ptr<Qp>> qps;
	std::map<uint32_t, std::unique_ptr<Srq>> srqs;
	McgTable mcgs;
	uint32_t qp0 = 0, qp1 = 0; // QPNs of the special QPs (0: none)
	// NIC objects: SQ and RQ numbers come from `qpns`.
	IdPool tisns{1, 1u << 16};
	IdPool tirns{1, 1u << 16};
	IdPool rqtns{1, 1u << 16};
	std::map<uint32_t, std::unique_ptr<NicSq>> sqs;
	std::map<uint32_t, std::unique_ptr<NicRq>> rqs;
	std::map<uint32_t, Tis> tises;
	std::map<uint32_t, Tir> tirs;
	std::map<uint32_t, Rqt> rqts;
	steer::Steering steering;

	Cq *cq(uint32_t n) const;
	Qp *qp(uint32_t n) const;
	Srq *srq(uint32_t n) const;
	NicSq *sq(uint32_t n) const;
	NicRq *rq(uint32_t n) const;
	// The QP a packet to QP number `dqpn` reaches (1 is the GSI QP).
	Qp *qp_for_packet(uint32_t dqpn) const;
	// Objects still using a CQ / SRQ / PD (destroy refuses while > 0).
	unsigned cq_users(uint32_t cqn) const;
	unsigned srq_users(uint32_t srqn) const;
	void clear();
};

} // namespace mlx5emu
