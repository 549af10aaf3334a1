// SPDX-License-Identifier: GPL-2.0
// Every data-path object of one HCA function: PDs, XRC and transport
// domains, Q counters, memory keys, CQs, QPs, SRQs and multicast groups; on
// an Ethernet function also the NIC queues (queues/nic.h) and the flow tables.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "queues/cq.h"
#include "util/id_pool.h"
#include "queues/mcg_table.h"
#include "queues/mkey.h"
#include "queues/nic.h"
#include "queues/qp.h"
#include "queues/srq.h"
#include "queues/umem.h"
#include "steer/flow_table.h"

namespace mlx5emu {

// Kinds of objects a command creates and later names by number.
enum class Obj : uint8_t { Pd, Xrcd, Td, QCounter, Mkey, Cq, Qp, Srq, Tis, Tir, Rqt, Sq, Rq, FlowTable, Umem };

// The uid each object was created with (the command header's; user
// contexts may touch only their own objects, fw/cmd_uid.h). Only uids
// other than 0 are stored: an object not here is the kernel's.
class ObjectUids {
public:
	void set(Obj kind, uint32_t id, uint16_t uid)
	{
		if (uid)
			m_[{kind, id}] = uid;
		else
			m_.erase({kind, id});
	}
	void erase(Obj kind, uint32_t id) { m_.erase({kind, id}); }
	uint16_t get(Obj kind, uint32_t id) const
	{
		auto it = m_.find({kind, id});
		return it == m_.end() ? 0 : it->second;
	}
	// Live objects created with `uid`.
	size_t count(uint16_t uid) const
	{
		size_t n = 0;
		for (const auto &[k, u] : m_)
			n += u == uid;
		return n;
	}
	void clear() { m_.clear(); }

private:
	std::map<std::pair<Obj, uint32_t>, uint16_t> m_;
};

struct Resources {
	static constexpr uint32_t kFirstQpn = 0x100; // 0 and 1 are the special QPs

	// User contexts (CREATE_UCTX): the uids software may put in command
	// headers; 0 is the kernel's (privileged).
	static constexpr unsigned kLogMaxUctx = 8;
	IdPool uctxs{1, 1u << kLogMaxUctx};
	ObjectUids uids;
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
	// Registered user memory (CREATE_UMEM) and the queues built on it.
	UmemTable umems;
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
	// Objects naming a PD / an XRC domain in their context (memory keys,
	// QPs, SRQs, NIC queues): DEALLOC refuses while > 0.
	unsigned pd_users(uint32_t pd) const;
	unsigned xrcd_users(uint32_t xrcd) const;
	void clear();
};

} // namespace mlx5emu
