// SPDX-License-Identifier: GPL-2.0
// Packet payloads by value or by reference into the sender's memory
// (fabric/packet.h, PayloadRef).
#include <algorithm>
#include <cstring>

#include "fabric/packet.h"

namespace mlx5emu {

namespace {

// Calls fn(sender_iova, at, n) for the pieces of the reference's
// [off, off + len); false when the range passes its end or fn fails.
template <class Fn> bool ref_pieces(const PayloadRef &r, uint64_t off, size_t len, Fn fn)
{
	if (off + len > r.len)
		return false;
	size_t at = 0;
	for (unsigned i = 0; i < r.n && at < len; ++i) {
		const PayloadRef::Extent &e = r.ext[i];
		if (off >= e.len) {
			off -= e.len;
			continue;
		}
		size_t k = std::min<uint64_t>(e.len - off, len - at);
		if (!fn(e.iova + off, at, k))
			return false;
		at += k;
		off = 0;
	}
	return at == len;
}

} // namespace

GuestMemory::Copy Packet::copy_payload(GuestMemory &dst, uint64_t iova, uint64_t off, size_t n) const
{
	using Copy = GuestMemory::Copy;
	if (!ref.mem) {
		if (off + n > payload.size())
			return Copy::BadSource;
		return dst.write(iova, payload.data() + off, n) ? Copy::Ok : Copy::BadDest;
	}
	Copy res = Copy::Ok;
	bool ok = ref_pieces(ref, off, n, [&](uint64_t from, size_t at, size_t k) {
		res = dst.copy_from(iova + at, *ref.mem, from, k);
		return res == Copy::Ok;
	});
	return ok ? Copy::Ok : res == Copy::Ok ? Copy::BadSource : res;
}

bool Packet::read_payload(uint64_t off, void *dst, size_t n) const
{
	auto *d = static_cast<uint8_t *>(dst);
	if (!ref.mem) {
		if (off + n > payload.size())
			return false;
		std::memcpy(d, payload.data() + off, n);
		return true;
	}
	GuestMemory *s = ref.mem->source();
	return s && ref_pieces(ref, off, n, [&](uint64_t from, size_t at, size_t k) { return s->read(from, d + at, k); });
}

bool Packet::materialize()
{
	if (!ref.mem)
		return true;
	std::vector<uint8_t> b(ref.len);
	bool ok = read_payload(0, b.data(), b.size());
	ref = PayloadRef{};
	if (!ok)
		return false;
	payload = std::move(b);
	return true;
}

Packet Packet::part(unsigned i) const
{
	Packet q = *this;
	if (burst <= 1)
		return q;
	bool first = i == 0, last = i + 1 == burst;
	q.burst = 1;
	q.last_opcode = 0;
	q.burst_mtu = 0;
	q.psn = psn_add(psn, i);
	q.opcode = first ? opcode : last ? last_opcode : middle_opcode(opcode);
	if (!first) {
		q.va = 0;
		q.rkey = 0;
		q.dma_len = 0;
	}
	if (!last) {
		q.solicited = false;
		q.ack_req = false;
		q.imm = 0;
		q.inv_rkey = 0;
	}
	uint64_t off = static_cast<uint64_t>(i) * burst_mtu;
	size_t total = payload_len();
	size_t n = last ? total - std::min<uint64_t>(off, total) : std::min<uint64_t>(burst_mtu, total - std::min<uint64_t>(off, total));
	if (!ref.mem) {
		q.payload.assign(payload.begin() + static_cast<ptrdiff_t>(std::min<uint64_t>(off, total)),
				 payload.begin() + static_cast<ptrdiff_t>(std::min<uint64_t>(off + n, total)));
		return q;
	}
	q.ref = PayloadRef{};
	if (!n)
		return q;
	q.ref.mem = ref.mem;
	ref_pieces(ref, off, n, [&](uint64_t from, size_t, size_t k) { return q.ref.add(from, k); });
	return q;
}

} // namespace mlx5emu
