// SPDX-License-Identifier: GPL-2.0
// The port's QoS registers (DCB) on an Ethernet port, kept in
// EthPort::qos and read back as written:
// - QETCR: per TC its ETS group, its share of the group's bandwidth and
//   its rate limit; a write changes only what its g/b/r bits say.
// - QTCT: one priority's TC. QPTS: trust PCP or DSCP. QPDPM: DSCP ->
//   priority, the entries whose `e` bit is set.
// - PBMC: the receive buffers' sizes, lossy bits and XOFF/XON thresholds
//   (buffers 8 and 9 are the device's, read-only). PPTB: priority ->
//   buffer, the priorities of `pm`.
// - DCBX_PARAM: who runs DCBX. No firmware agent runs here: a mode other
//   than host is kept and reported, and exchanges nothing.
// - PCAM, QCAM: the registers above and the port's others, read-only.
// Nothing here changes how frames move: the data path has no priorities.
// Bad values fail BAD_PARAM with the port unchanged; QETCR and QTCT take
// port 0 too (the in-tree driver's writes leave it 0).
#include <cstring>

#include "fw/firmware.h"
#include "fw/port_regs.h"
#include "prm/eth.h"
#include "prm/qos.h"
#include "util/fmt.h"

namespace mlx5emu {

namespace {

using namespace prm;
using Reg = PortReg;

// Syndrome reasons (opcode << 16 | reason), after port_regs.cc's.
enum Reason : uint32_t {
	kGroup = 0x30,     // QETCR group > 7
	kBw = 0x31,        // QETCR bw_allocation > 100
	kBwSum = 0x32,     // QETCR a group's shares do not add up to 100
	kRateUnit = 0x33,  // QETCR max_bw_units not 0, 3 or 4
	kRateValue = 0x34, // QETCR max_bw_value over 8 bits
	kTrust = 0x35,     // QPTS trust state not PCP or DSCP
	kDscpPrio = 0x36,  // QPDPM priority > 7
	kThreshold = 0x37, // PBMC xon > xoff or xoff > size
	kOverflow = 0x38,  // PBMC buffers larger than the port's
	kBuffer = 0x39,    // PPTB buffer > 7
	kDcbxMode = 0x3a,  // DCBX_PARAM version_admin > 3
	kReadOnly = 0x3b,  // PCAM, QCAM written
	kCamLen = 0x3c,
};

bool rate_ok(Reg &r, uint32_t units, uint32_t value)
{
	if (units != qetcr::BW_NO_LIMIT && units != qetcr::BW_100_MBPS && units != qetcr::BW_GBPS) {
		r.c.fail(status::BAD_PARAM, kRateUnit);
		return false;
	}
	// No qetcr_qshr_max_bw_val_msb in QCAM: 8-bit values.
	if (value > 0xff) {
		r.c.fail(status::BAD_PARAM, kRateValue);
		return false;
	}
	return true;
}

// Within a group the TCs share its bandwidth: their shares add up to 100,
// or every one of them has 100 (the group is not shared by weight: strict
// priority, or the vendor group 7). Checked when a write sets shares.
bool shares_ok(const std::array<PortQos::Tc, PortQos::kNumTc> &tc)
{
	for (unsigned g = 0; g <= qetcr::kMaxGroup; ++g) {
		unsigned n = 0, sum = 0, full = 0;
		for (const PortQos::Tc &t : tc) {
			if (t.group != g)
				continue;
			++n;
			sum += t.bw;
			full += t.bw == qetcr::kFullBw;
		}
		if (n && sum != qetcr::kFullBw && full != n)
			return false;
	}
	return true;
}

void reg_qetcr(Reg r)
{
	if (!r.begin(qetcr::port_number, true))
		return;
	PortQos &q = r.c.fw.eth.qos;
	if (r.write()) {
		auto tc = q.tc;
		bool shares = false;
		for (unsigned i = 0; i < PortQos::kNumTc; ++i) {
			const uint8_t *t = r.in() + qetcr::kTc + qetcr::kTcSize * i;
			if (bits::get(t, qetcr::g)) {
				uint32_t g = bits::get(t, qetcr::group);
				if (g > qetcr::kMaxGroup)
					return r.c.fail(status::BAD_PARAM, kGroup);
				tc[i].group = static_cast<uint8_t>(g);
			}
			if (bits::get(t, qetcr::b)) {
				uint32_t bw = bits::get(t, qetcr::bw_allocation);
				if (bw > qetcr::kFullBw)
					return r.c.fail(status::BAD_PARAM, kBw);
				tc[i].bw = static_cast<uint8_t>(bw);
				shares = true;
			}
			if (bits::get(t, qetcr::r)) {
				uint32_t u = bits::get(t, qetcr::max_bw_units), v = bits::get(t, qetcr::max_bw_value);
				if (!rate_ok(r, u, v))
					return;
				tc[i].max_bw_units = static_cast<uint8_t>(u);
				tc[i].max_bw_value = static_cast<uint16_t>(u == qetcr::BW_NO_LIMIT ? 0 : v);
			}
		}
		const uint8_t *gl = r.in() + qetcr::kGlobal;
		uint32_t gu = q.port_max_bw_units, gv = q.port_max_bw_value;
		if (bits::get(gl, qetcr::global_r)) {
			gu = bits::get(gl, qetcr::global_max_bw_units);
			gv = bits::get(gl, qetcr::global_max_bw_value);
			if (!rate_ok(r, gu, gv))
				return;
		}
		if (shares && !shares_ok(tc))
			return r.c.fail(status::BAD_PARAM, kBwSum);
		q.tc = tc;
		q.port_max_bw_units = static_cast<uint8_t>(gu);
		q.port_max_bw_value = static_cast<uint8_t>(gu == qetcr::BW_NO_LIMIT ? 0 : gv);
	}
	std::memset(r.out() + 4, 0, r.size - 4);
	for (unsigned i = 0; i < PortQos::kNumTc; ++i) {
		uint8_t *t = r.out() + qetcr::kTc + qetcr::kTcSize * i;
		bits::set(t, qetcr::group, q.tc[i].group);
		bits::set(t, qetcr::bw_allocation, q.tc[i].bw);
		bits::set(t, qetcr::max_bw_units, q.tc[i].max_bw_units);
		bits::set(t, qetcr::max_bw_value, q.tc[i].max_bw_value);
	}
	uint8_t *gl = r.out() + qetcr::kGlobal;
	bits::set(gl, qetcr::global_max_bw_units, q.port_max_bw_units);
	bits::set(gl, qetcr::global_max_bw_value, q.port_max_bw_value);
}

void reg_qtct(Reg r)
{
	if (!r.begin(qtct::port_number, true))
		return;
	PortQos &q = r.c.fw.eth.qos;
	uint32_t prio = r.get(qtct::prio);
	if (r.write())
		q.prio_tc[prio] = static_cast<uint8_t>(r.get(qtct::tclass)); // 3 bits: every TC exists
	r.put(qtct::tclass, q.prio_tc[prio]);
}

void reg_qpts(Reg r)
{
	if (!r.begin(qpts::local_port))
		return;
	PortQos &q = r.c.fw.eth.qos;
	if (r.write()) {
		// No qpts_trust_both in QCAM.
		uint32_t t = r.get(qpts::trust_state);
		if (t != qpts::TRUST_PCP && t != qpts::TRUST_DSCP)
			return r.c.fail(status::BAD_PARAM, kTrust);
		q.trust = static_cast<uint8_t>(t);
	}
	r.put(qpts::trust_state, q.trust);
}

void reg_qpdpm(Reg r)
{
	if (!r.begin(qpdpm::local_port))
		return;
	PortQos &q = r.c.fw.eth.qos;
	if (r.write()) {
		auto map = q.dscp_prio;
		for (unsigned d = 0; d < PortQos::kNumDscp; ++d) {
			uint16_t e = bits::load_be16(r.in() + qpdpm::kDscp + 2 * d);
			if (!(e & qpdpm::kEntryE))
				continue;
			if ((e & qpdpm::kEntryPrio) >= PortQos::kNumPrio)
				return r.c.fail(status::BAD_PARAM, kDscpPrio);
			map[d] = static_cast<uint8_t>(e & qpdpm::kEntryPrio);
		}
		q.dscp_prio = map;
	}
	for (unsigned d = 0; d < PortQos::kNumDscp; ++d)
		bits::store_be16(r.out() + qpdpm::kDscp + 2 * d, q.dscp_prio[d]);
}

void reg_pbmc(Reg r)
{
	if (!r.begin(pbmc::local_port))
		return;
	PortQos &q = r.c.fw.eth.qos;
	if (r.write()) {
		auto buf = q.buffer;
		unsigned total = 0;
		for (unsigned i = 0; i < PortQos::kNumBuffers; ++i) {
			if (i < pbmc::kNumNetworkBuffers) {
				const uint8_t *b = r.in() + pbmc::kBuffer + pbmc::kBufferSize * i;
				PortQos::Buffer &x = buf[i];
				x.lossy = bits::get(b, pbmc::lossy);
				x.epsb = bits::get(b, pbmc::epsb);
				x.size = static_cast<uint16_t>(bits::get(b, pbmc::size));
				x.xoff = static_cast<uint16_t>(bits::get(b, pbmc::xoff_threshold));
				x.xon = static_cast<uint16_t>(bits::get(b, pbmc::xon_threshold));
				if (x.xon > x.xoff || x.xoff > x.size)
					return r.c.fail(status::BAD_PARAM, kThreshold);
			}
			total += buf[i].size;
		}
		if (total > PortQos::kPortBufferCells)
			return r.c.fail(status::BAD_PARAM, kOverflow);
		q.buffer = buf;
		q.xoff_timer = static_cast<uint16_t>(r.get(pbmc::xoff_timer_value));
		q.xoff_refresh = static_cast<uint16_t>(r.get(pbmc::xoff_refresh));
	}
	std::memset(r.out() + 4, 0, r.size - 4);
	r.put(pbmc::xoff_timer_value, q.xoff_timer);
	r.put(pbmc::xoff_refresh, q.xoff_refresh);
	r.put(pbmc::port_buffer_size, PortQos::kPortBufferCells);
	for (unsigned i = 0; i < PortQos::kNumBuffers; ++i) {
		uint8_t *b = r.out() + pbmc::kBuffer + pbmc::kBufferSize * i;
		const PortQos::Buffer &x = q.buffer[i];
		bits::set(b, pbmc::lossy, x.lossy);
		bits::set(b, pbmc::epsb, x.epsb);
		bits::set(b, pbmc::size, x.size);
		bits::set(b, pbmc::xoff_threshold, x.xoff);
		bits::set(b, pbmc::xon_threshold, x.xon);
	}
}

void reg_pptb(Reg r)
{
	if (!r.begin(pptb::local_port))
		return;
	PortQos &q = r.c.fw.eth.qos;
	if (r.write()) {
		auto map = q.prio_buffer;
		uint32_t pm = r.get(pptb::pm), all = r.get(pptb::prio_x_buff);
		for (unsigned p = 0; p < PortQos::kNumPrio; ++p) {
			if (!(pm & 1u << p))
				continue;
			uint32_t b = all >> 4 * p & 0xf;
			if (b >= pbmc::kNumNetworkBuffers)
				return r.c.fail(status::BAD_PARAM, kBuffer);
			map[p] = static_cast<uint8_t>(b);
		}
		if (r.get(pptb::cm) && r.get(pptb::ctrl_buff) >= pbmc::kNumNetworkBuffers)
			return r.c.fail(status::BAD_PARAM, kBuffer);
		if (r.get(pptb::um) && r.get(pptb::untagged_buff) >= pbmc::kNumNetworkBuffers)
			return r.c.fail(status::BAD_PARAM, kBuffer);
		q.prio_buffer = map;
	}
	uint32_t all = 0;
	for (unsigned p = 0; p < PortQos::kNumPrio; ++p)
		all |= static_cast<uint32_t>(q.prio_buffer[p]) << 4 * p;
	std::memset(r.out() + 4, 0, r.size - 4);
	r.put(pptb::pm, 0);
	r.put(pptb::cm, 0);
	r.put(pptb::um, 0);
	r.put(pptb::mm, 0);
	r.put(pptb::prio_x_buff, all);
}

void reg_dcbx_param(Reg r)
{
	if (!r.begin(dcbx_param::port_number))
		return;
	PortQos &q = r.c.fw.eth.qos;
	if (r.write()) {
		uint32_t v = r.get(dcbx_param::version_admin);
		if (v > dcbx_param::VER_AUTO)
			return r.c.fail(status::BAD_PARAM, kDcbxMode);
		q.dcbx_version = static_cast<uint8_t>(v);
		q.dcbx_willing = r.get(dcbx_param::willing_admin);
	}
	std::memset(r.out(), 0, r.size);
	r.put(dcbx_param::dcbx_cee_cap, 1);
	r.put(dcbx_param::dcbx_ieee_cap, 1);
	r.put(dcbx_param::port_number, 1);
	r.put(dcbx_param::version_oper, q.dcbx_version);
	r.put(dcbx_param::version_admin, q.dcbx_version);
	r.put(dcbx_param::willing_admin, q.dcbx_willing);
	r.put(dcbx_param::pfc_cap_oper, PortQos::kNumTc);
	r.put(dcbx_param::pfc_cap_admin, PortQos::kNumTc);
	r.put(dcbx_param::num_of_tc_oper, PortQos::kNumTc);
	r.put(dcbx_param::num_of_tc_admin, PortQos::kNumTc);
}

} // namespace

void reg_cam(PortReg r, std::initializer_list<uint16_t> regs, uint16_t base)
{
	if (r.c.inlen < access_register_in::kData + r.size || r.c.outlen < access_register_in::kData + r.size)
		return r.c.fail(status::BAD_INPUT_LEN, kCamLen);
	if (r.write())
		return r.c.fail(status::BAD_PARAM, kReadOnly);
	uint32_t fg = r.get(cam::feature_group), rg = r.get(cam::access_reg_group);
	std::memset(r.out(), 0, r.size);
	r.put(cam::feature_group, fg);
	r.put(cam::access_reg_group, rg);
	if (fg || rg)
		return;
	for (uint16_t id : regs)
		cam::set_bit(r.out() + cam::kRegMask, id - base);
}

bool eth_qos_register(CmdCtx &c, uint16_t id)
{
	switch (id) {
	case reg_qos::QETCR:
		reg_qetcr(Reg{c, qetcr::kSize});
		return true;
	case reg_qos::QTCT:
		reg_qtct(Reg{c, qtct::kSize});
		return true;
	case reg_qos::QPTS:
		reg_qpts(Reg{c, qpts::kSize});
		return true;
	case reg_qos::QPDPM:
		reg_qpdpm(Reg{c, qpdpm::kSize});
		return true;
	case reg_qos::DCBX_PARAM:
		reg_dcbx_param(Reg{c, dcbx_param::kSize});
		return true;
	case reg_eth::PBMC:
		reg_pbmc(Reg{c, pbmc::kSize});
		return true;
	case reg_eth::PPTB:
		reg_pptb(Reg{c, pptb::kSize});
		return true;
	case reg_eth::PCAM:
		reg_cam(Reg{c, cam::kPcamSize},
			{reg_eth::PMTU, reg_eth::PTYS, reg_eth::PAOS, reg_eth::PFCC, reg_eth::PPCNT, reg_eth::PPTB,
			 reg_eth::PBMC},
			0x5000);
		return true;
	case reg_qos::QCAM:
		reg_cam(Reg{c, cam::kQcamSize},
			{reg_qos::QPTS, reg_qos::QETCR, reg_qos::QTCT, reg_qos::QPDPM, reg_qos::QCAM,
			 reg_qos::DCBX_PARAM},
			0x4000);
		return true;
	default:
		return false;
	}
}

namespace {

const char *rate(uint8_t units)
{
	switch (units) {
	case qetcr::BW_100_MBPS:
		return "x100mbit";
	case qetcr::BW_GBPS:
		return "gbit";
	default:
		return "";
	}
}

std::string row(const char *name, const uint8_t *v, unsigned n)
{
	std::string s = name;
	for (unsigned i = 0; i < n; ++i)
		s += fmt(" %u", v[i]);
	return s;
}

} // namespace

std::vector<std::string> PortQos::lines(uint8_t pfc_tx, uint8_t pfc_rx, bool pause_tx, bool pause_rx) const
{
	static constexpr const char *kDcbx[] = {"host", "cee", "ieee", "auto"};
	std::vector<std::string> v;
	v.push_back(fmt("pause tx %s rx %s", pause_tx ? "on" : "off", pause_rx ? "on" : "off"));
	v.push_back(fmt("pfc tx 0x%02x rx 0x%02x", pfc_tx, pfc_rx));
	v.push_back(fmt("trust %s", trust == qpts::TRUST_DSCP ? "dscp" : "pcp"));
	v.push_back(row("prio_tc", prio_tc.data(), kNumPrio));
	for (unsigned i = 0; i < kNumTc; ++i) {
		const Tc &t = tc[i];
		std::string lim = t.max_bw_units ? fmt("%u%s", t.max_bw_value, rate(t.max_bw_units)) : "none";
		v.push_back(fmt("tc %u group %u bw %u limit %s", i, t.group, t.bw, lim.c_str()));
	}
	v.push_back(row("dscp_prio", dscp_prio.data(), kNumDscp));
	v.push_back(row("prio_buffer", prio_buffer.data(), kNumPrio));
	v.push_back(fmt("port_buffer cells %u cell_bytes %u", kPortBufferCells, kCellBytes));
	for (unsigned i = 0; i < kNumBuffers; ++i) {
		const Buffer &b = buffer[i];
		v.push_back(fmt("buffer %u size %u lossy %u xoff %u xon %u", i, b.size, b.lossy ? 1u : 0u, b.xoff, b.xon));
	}
	v.push_back(fmt("dcbx %s willing %u", kDcbx[dcbx_version & 3], dcbx_willing ? 1u : 0u));
	return v;
}

} // namespace mlx5emu
