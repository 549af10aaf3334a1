// SPDX-License-Identifier: GPL-2.0
// Port QoS (DCB) on an Ethernet PF: the caps that advertise it, the
// registers kept per port and read back (PFCC, QETCR, QTCT, QPTS, QPDPM,
// PBMC, PPTB, DCBX_PARAM, PCAM, QCAM), bad values refused with the port
// unchanged, the defaults back after a reload, and the control channel's
// view. None of it on an InfiniBand port or a VF.
#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>

#include <gtest/gtest.h>

#include "eth_harness.h"
#include "prm/qos.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
namespace ar = access_register_in;
using Sets = std::vector<std::pair<bits::Field, uint32_t>>;

constexpr uint16_t kWrite = ar::WRITE, kRead = ar::READ;

// ACCESS_REG of `id` (`size` bytes of data) with `set` applied to the
// data; `raw` edits the data bytes directly after that.
Msg reg_msg(uint16_t id, uint16_t op_mod, unsigned size, const Sets &set,
	    const std::function<void(uint8_t *)> &raw = nullptr)
{
	Msg m(op::ACCESS_REG, op_mod, ar::kData + size);
	m.set(bits::Field{2, 15, 0}, id);
	for (auto &[f, v] : set)
		m.set(f.at(ar::kData), v);
	if (raw)
		raw(m.b.data() + ar::kData);
	return m;
}

struct EthQos : ::testing::Test {
	std::shared_ptr<Fabric> fabric = std::make_shared<Fabric>();
	EthDev e{fabric, 0};
	FwHarness &h = e.h;

	std::vector<uint8_t> reg(uint16_t id, uint16_t op_mod, unsigned size, const Sets &set,
				 const std::function<void(uint8_t *)> &raw = nullptr)
	{
		auto out = h.ok(reg_msg(id, op_mod, size, set, raw), ar::kData + size);
		return std::vector<uint8_t>(out.begin() + ar::kData, out.end());
	}
	void refused(uint16_t id, unsigned size, const Sets &set, const std::function<void(uint8_t *)> &raw = nullptr)
	{
		h.fails(reg_msg(id, kWrite, size, set, raw), ar::kData + size, status::BAD_PARAM);
	}
	std::vector<uint8_t> qetcr() { return reg(reg_qos::QETCR, kRead, qetcr::kSize, {}); }
	static uint32_t tc_field(const std::vector<uint8_t> &d, unsigned tc, bits::Field f)
	{
		return bits::get(d.data() + qetcr::kTc + qetcr::kTcSize * tc, f);
	}
	std::vector<uint8_t> pfcc() { return reg(reg_eth::PFCC, kRead, pfcc::kSize, {{pfcc::local_port, 1}}); }
	const PortQos &qos() { return h.fw().eth.qos; }
};

// The in-tree mlx5e registers dcbnl_ops on vport_group_manager + qos,
// reads ETS with `ets`, the DCBX mode with `dcbx`, DSCP trust through QCAM
// and buffers through PCAM; PCAM keeps ppcnt so PPCNT is still read.
TEST_F(EthQos, CapsAdvertiseIt)
{
	const Caps &c = h.fw().caps;
	EXPECT_EQ(c.gen(cmd_hca_cap::vport_group_manager), 1u);
	EXPECT_EQ(c.gen(cmd_hca_cap::qos), 1u);
	EXPECT_EQ(c.gen(qos_gen_caps::ets), 1u);
	EXPECT_EQ(c.gen(qos_gen_caps::dcbx), 1u);
	EXPECT_EQ(c.gen(cmd_hca_cap::max_tc), 8u);
	EXPECT_EQ(c.gen(cmd_hca_cap::pcam_reg), 1u);
	EXPECT_EQ(c.gen(cmd_hca_cap::qcam_reg), 1u);
	EXPECT_EQ(c.gen(qos_gen_caps::sbcam_reg), 0u);
	EXPECT_NE(c.cur(cap_type_qos::QOS), nullptr);

	auto pcam = reg(reg_eth::PCAM, kRead, cam::kPcamSize, {});
	auto bit = [](const std::vector<uint8_t> &d, unsigned n) {
		return (d[cam::kRegMask + cam::kMaskSize - 1 - n / 8] >> (n % 8)) & 1;
	};
	for (unsigned n : {0x08u, 0x0bu, 0x0cu, 0x07u})
		EXPECT_EQ(bit(pcam, n), 1) << "PCAM bit " << n;
	EXPECT_EQ(bit(pcam, 0x23), 0); // no PPLM
	for (unsigned n = 0; n < 16; ++n)
		EXPECT_EQ(pcam[cam::kFeatureMask + n], 0) << "no PCAM features";
	auto qcam = reg(reg_qos::QCAM, kRead, cam::kQcamSize, {});
	for (unsigned n : {0x02u, 0x05u, 0x0au, 0x13u})
		EXPECT_EQ(bit(qcam, n), 1) << "QCAM bit " << n;
	// Another group lists nothing; the masks are read-only.
	auto other = reg(reg_qos::QCAM, kRead, cam::kQcamSize, {{cam::access_reg_group, 1}});
	EXPECT_EQ(bit(other, 0x02), 0);
	refused(reg_eth::PCAM, cam::kPcamSize, {});
}

TEST(EthQosOff, NotOnInfiniBandOrVf)
{
	auto fabric = std::make_shared<Fabric>();
	DpHca ib(fabric, 0);
	EXPECT_EQ(ib.h.fw().caps.gen(cmd_hca_cap::qos), 0u);
	EXPECT_EQ(ib.h.fw().caps.gen(qos_gen_caps::ets), 0u);
	ib.h.fails(reg_msg(reg_qos::QETCR, kRead, qetcr::kSize, {}), ar::kData + qetcr::kSize, status::BAD_PARAM);

	DpHca vf(fabric, 1, false, LinkType::Eth, false, pci::FunctionRole::Vf);
	EXPECT_EQ(vf.h.fw().caps.gen(cmd_hca_cap::qos), 0u);
	EXPECT_EQ(vf.h.fw().caps.gen(cmd_hca_cap::vport_group_manager), 0u);
	EXPECT_EQ(vf.h.fw().caps.gen(cmd_hca_cap::pcam_reg), 0u);
	// A VF reads the port's QoS and may not change it.
	vf.h.fails(reg_msg(reg_qos::QPTS, kWrite, qpts::kSize, {{qpts::local_port, 1}, {qpts::trust_state, 2}}),
		   ar::kData + qpts::kSize, status::BAD_PARAM);
}

// PFC per priority and global pause: a write changes pause unless masked
// out and PFC only for the priorities of its masks (`ethtool -A` leaves
// PFC alone); both on in one direction is refused.
TEST_F(EthQos, PfccMasksAndPauseExcludesPfc)
{
	auto d = pfcc();
	EXPECT_EQ(bits::get(d.data(), pfcc::pptx), 1u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pfctx), 0u);
	// As mlx5_set_port_pfc: both PFC masks, pause 0.
	reg(reg_eth::PFCC, kWrite, pfcc::kSize,
	    {{pfcc::local_port, 1}, {pfcc::pfctx, 0x08}, {pfcc::pfcrx, 0x08}, {pfcc_mask::prio_mask_tx, 0xff},
	     {pfcc_mask::prio_mask_rx, 0xff}});
	d = pfcc();
	EXPECT_EQ(bits::get(d.data(), pfcc::pfctx), 0x08u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pfcrx), 0x08u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pptx), 0u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pprx), 0u);
	// Pause on with PFC on: refused, nothing changes.
	refused(reg_eth::PFCC, pfcc::kSize, {{pfcc::local_port, 1}, {pfcc::pptx, 1}, {pfcc::pprx, 1}});
	d = pfcc();
	EXPECT_EQ(bits::get(d.data(), pfcc::pfctx), 0x08u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pptx), 0u);
	// Pause off with no PFC masks keeps PFC.
	reg(reg_eth::PFCC, kWrite, pfcc::kSize, {{pfcc::local_port, 1}});
	EXPECT_EQ(bits::get(pfcc().data(), pfcc::pfctx), 0x08u);
	// rx pause only: the rx priority masks clear rx PFC first.
	reg(reg_eth::PFCC, kWrite, pfcc::kSize,
	    {{pfcc::local_port, 1}, {pfcc::pprx, 1}, {pfcc_mask::pptx_mask_n, 1}, {pfcc_mask::prio_mask_rx, 0xff}});
	d = pfcc();
	EXPECT_EQ(bits::get(d.data(), pfcc::pprx), 1u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pfcrx), 0u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pfctx), 0x08u);
	EXPECT_EQ(bits::get(d.data(), pfcc::pptx), 0u);
}

// ETS as the in-tree setets writes it: groups, then shares, each write
// changing only what its valid bits say; shares that do not add up, a
// share over 100 %, a group past 7 and an unknown rate unit are refused.
TEST_F(EthQos, EtsGroupsSharesAndLimits)
{
	auto d = qetcr();
	for (unsigned t = 0; t < 8; ++t) {
		EXPECT_EQ(tc_field(d, t, qetcr::group), 7u);
		EXPECT_EQ(tc_field(d, t, qetcr::bw_allocation), 100u);
	}
	auto groups = [](std::array<uint8_t, 8> g) {
		return [g](uint8_t *p) {
			for (unsigned t = 0; t < 8; ++t) {
				uint8_t *x = p + qetcr::kTc + qetcr::kTcSize * t;
				bits::set(x, qetcr::g, 1);
				bits::set(x, qetcr::group, g[t]);
			}
		};
	};
	auto shares = [](std::array<uint8_t, 8> b) {
		return [b](uint8_t *p) {
			for (unsigned t = 0; t < 8; ++t) {
				uint8_t *x = p + qetcr::kTc + qetcr::kTcSize * t;
				bits::set(x, qetcr::b, 1);
				bits::set(x, qetcr::bw_allocation, b[t]);
			}
		};
	};
	// tc-tsa 0:ets 1:ets 2:strict, others vendor; tc-bw 0:30 1:70.
	reg(reg_qos::QETCR, kWrite, qetcr::kSize, {}, groups({0, 0, 1, 7, 7, 7, 7, 7}));
	reg(reg_qos::QETCR, kWrite, qetcr::kSize, {}, shares({30, 70, 100, 100, 100, 100, 100, 100}));
	d = qetcr();
	EXPECT_EQ(tc_field(d, 0, qetcr::group), 0u);
	EXPECT_EQ(tc_field(d, 0, qetcr::bw_allocation), 30u);
	EXPECT_EQ(tc_field(d, 1, qetcr::bw_allocation), 70u);
	EXPECT_EQ(tc_field(d, 2, qetcr::group), 1u);

	// Group 0's shares add up to 90: refused, unchanged.
	refused(reg_qos::QETCR, qetcr::kSize, {}, shares({30, 60, 100, 100, 100, 100, 100, 100}));
	refused(reg_qos::QETCR, qetcr::kSize, {}, shares({101, 0, 100, 100, 100, 100, 100, 100}));
	refused(reg_qos::QETCR, qetcr::kSize, {}, groups({8, 0, 1, 7, 7, 7, 7, 7}));
	d = qetcr();
	EXPECT_EQ(tc_field(d, 1, qetcr::bw_allocation), 70u);
	EXPECT_EQ(tc_field(d, 0, qetcr::group), 0u);

	// Rate limits: tc 1 at 5 Gb/s (port 1, as the in-tree maxrate write).
	auto limit = [](unsigned units, unsigned value) {
		return [units, value](uint8_t *p) {
			uint8_t *x = p + qetcr::kTc + qetcr::kTcSize;
			bits::set(x, qetcr::r, 1);
			bits::set(x, qetcr::max_bw_units, units);
			bits::set(x, qetcr::max_bw_value, value);
		};
	};
	reg(reg_qos::QETCR, kWrite, qetcr::kSize, {{qetcr::port_number, 1}}, limit(qetcr::BW_GBPS, 5));
	refused(reg_qos::QETCR, qetcr::kSize, {}, limit(5, 5));
	refused(reg_qos::QETCR, qetcr::kSize, {}, limit(qetcr::BW_GBPS, 300));
	d = qetcr();
	EXPECT_EQ(tc_field(d, 1, qetcr::max_bw_units), qetcr::BW_GBPS);
	EXPECT_EQ(tc_field(d, 1, qetcr::max_bw_value), 5u);
	EXPECT_EQ(tc_field(d, 1, qetcr::bw_allocation), 70u);
	EXPECT_EQ(tc_field(d, 0, qetcr::max_bw_units), 0u);
	// Port 2 does not exist.
	h.fails(reg_msg(reg_qos::QETCR, kRead, qetcr::kSize, {{qetcr::port_number, 2}}), ar::kData + qetcr::kSize,
		status::BAD_PARAM);
}

// Priority -> TC, one priority per access; the in-tree write leaves the
// port number 0, its read says 1.
TEST_F(EthQos, PriorityToTc)
{
	auto tc_of = [&](unsigned prio) {
		auto d = reg(reg_qos::QTCT, kRead, qtct::kSize, {{qtct::port_number, 1}, {qtct::prio, prio}});
		return bits::get(d.data(), qtct::tclass);
	};
	EXPECT_EQ(tc_of(3), 3u);
	reg(reg_qos::QTCT, kWrite, qtct::kSize, {{qtct::prio, 3}, {qtct::tclass, 5}});
	EXPECT_EQ(tc_of(3), 5u);
	EXPECT_EQ(tc_of(2), 2u);
	EXPECT_EQ(qos().prio_tc[3], 5u);
}

// Trust and the DSCP map: entries change only where `e` is set; trust
// both (not advertised), 0 and priorities past 7 are refused.
TEST_F(EthQos, TrustAndDscpMap)
{
	auto trust = [&] {
		return bits::get(reg(reg_qos::QPTS, kRead, qpts::kSize, {{qpts::local_port, 1}}).data(), qpts::trust_state);
	};
	EXPECT_EQ(trust(), qpts::TRUST_PCP);
	reg(reg_qos::QPTS, kWrite, qpts::kSize, {{qpts::local_port, 1}, {qpts::trust_state, qpts::TRUST_DSCP}});
	EXPECT_EQ(trust(), qpts::TRUST_DSCP);
	refused(reg_qos::QPTS, qpts::kSize, {{qpts::local_port, 1}, {qpts::trust_state, qpts::TRUST_BOTH}});
	refused(reg_qos::QPTS, qpts::kSize, {{qpts::local_port, 1}, {qpts::trust_state, 0}});
	EXPECT_EQ(trust(), qpts::TRUST_DSCP);

	auto map = [&] { return reg(reg_qos::QPDPM, kRead, qpdpm::kSize, {{qpdpm::local_port, 1}}); };
	auto prio = [](const std::vector<uint8_t> &d, unsigned dscp) {
		return bits::load_be16(d.data() + qpdpm::kDscp + 2 * dscp) & qpdpm::kEntryPrio;
	};
	auto d = map();
	EXPECT_EQ(prio(d, 24), 3u);
	EXPECT_EQ(prio(d, 63), 7u);
	reg(reg_qos::QPDPM, kWrite, qpdpm::kSize, {{qpdpm::local_port, 1}}, [](uint8_t *p) {
		bits::store_be16(p + qpdpm::kDscp + 2 * 24, qpdpm::kEntryE | 5);
		bits::store_be16(p + qpdpm::kDscp + 2 * 10, 7); // no e: unchanged
	});
	d = map();
	EXPECT_EQ(prio(d, 24), 5u);
	EXPECT_EQ(prio(d, 10), 1u);
	refused(reg_qos::QPDPM, qpdpm::kSize, {{qpdpm::local_port, 1}},
		[](uint8_t *p) { bits::store_be16(p + qpdpm::kDscp + 2 * 26, qpdpm::kEntryE | 9); });
	refused(reg_qos::QPDPM, qpdpm::kSize, {{qpdpm::local_port, 1}},
		[](uint8_t *p) { bits::store_be16(p + qpdpm::kDscp + 2 * 26, qpdpm::kEntryE | 8); });
	EXPECT_EQ(prio(map(), 26), 3u);
}

// Buffers: sizes, lossy bits and thresholds read back; more cells than
// the port has, or thresholds outside the buffer, are refused. Priority ->
// buffer changes only the priorities of `pm`.
TEST_F(EthQos, BuffersAndPriorityToBuffer)
{
	auto pbmc_read = [&] { return reg(reg_eth::PBMC, kRead, pbmc::kSize, {{pbmc::local_port, 1}}); };
	auto buf = [](const std::vector<uint8_t> &d, unsigned i, bits::Field f) {
		return bits::get(d.data() + pbmc::kBuffer + pbmc::kBufferSize * i, f);
	};
	auto d = pbmc_read();
	EXPECT_EQ(bits::get(d.data(), pbmc::port_buffer_size), PortQos::kPortBufferCells);
	EXPECT_EQ(buf(d, 0, pbmc::size), PortQos::kPortBufferCells / 2u);
	EXPECT_EQ(buf(d, 0, pbmc::lossy), 1u);

	// Read, change buffer 1, write back (what the in-tree buffer set does).
	auto set1 = [&](unsigned size, unsigned xoff, unsigned xon) {
		return [=](uint8_t *p) {
			std::memcpy(p, d.data(), pbmc::kSize);
			uint8_t *b = p + pbmc::kBuffer + pbmc::kBufferSize;
			bits::set(b, pbmc::size, size);
			bits::set(b, pbmc::lossy, 0);
			bits::set(b, pbmc::xoff_threshold, xoff);
			bits::set(b, pbmc::xon_threshold, xon);
		};
	};
	reg(reg_eth::PBMC, kWrite, pbmc::kSize, {}, set1(512, 300, 200));
	d = pbmc_read();
	EXPECT_EQ(buf(d, 1, pbmc::size), 512u);
	EXPECT_EQ(buf(d, 1, pbmc::lossy), 0u);
	EXPECT_EQ(buf(d, 1, pbmc::xoff_threshold), 300u);
	EXPECT_EQ(buf(d, 1, pbmc::xon_threshold), 200u);
	refused(reg_eth::PBMC, pbmc::kSize, {}, set1(1025, 300, 200)); // 1024 + 1025 > 2048
	refused(reg_eth::PBMC, pbmc::kSize, {}, set1(512, 300, 301));
	refused(reg_eth::PBMC, pbmc::kSize, {}, set1(512, 513, 200));
	EXPECT_EQ(buf(pbmc_read(), 1, pbmc::size), 512u);

	auto pptb_read = [&] {
		return bits::get(reg(reg_eth::PPTB, kRead, pptb::kSize, {{pptb::local_port, 1}}).data(), pptb::prio_x_buff);
	};
	EXPECT_EQ(pptb_read(), 0u);
	// Priority 3 to buffer 1; priority 4's nibble is outside pm.
	reg(reg_eth::PPTB, kWrite, pptb::kSize, {{pptb::local_port, 1}, {pptb::pm, 0x08}, {pptb::prio_x_buff, 0x51000}});
	EXPECT_EQ(pptb_read(), 0x1000u);
	refused(reg_eth::PPTB, pptb::kSize, {{pptb::local_port, 1}, {pptb::pm, 0x04}, {pptb::prio_x_buff, 0x900}});
	EXPECT_EQ(qos().prio_buffer[3], 1u);
	EXPECT_EQ(qos().prio_buffer[2], 0u);
}

// DCBX mode: host from power-on; AUTO (the in-tree setdcbx 0) is kept and
// reported; a mode past 3 is refused.
TEST_F(EthQos, DcbxMode)
{
	auto read = [&] { return reg(reg_qos::DCBX_PARAM, kRead, dcbx_param::kSize, {{dcbx_param::port_number, 1}}); };
	auto d = read();
	EXPECT_EQ(bits::get(d.data(), dcbx_param::version_oper), dcbx_param::VER_HOST);
	EXPECT_EQ(bits::get(d.data(), dcbx_param::dcbx_ieee_cap), 1u);
	EXPECT_EQ(bits::get(d.data(), dcbx_param::num_of_tc_oper), 8u);
	reg(reg_qos::DCBX_PARAM, kWrite, dcbx_param::kSize,
	    {{dcbx_param::port_number, 1}, {dcbx_param::version_admin, dcbx_param::VER_AUTO}, {dcbx_param::willing_admin, 1}});
	d = read();
	EXPECT_EQ(bits::get(d.data(), dcbx_param::version_oper), dcbx_param::VER_AUTO);
	EXPECT_EQ(bits::get(d.data(), dcbx_param::willing_admin), 1u);
	refused(reg_qos::DCBX_PARAM, dcbx_param::kSize, {{dcbx_param::port_number, 1}, {dcbx_param::version_admin, 5}});
	EXPECT_EQ(bits::get(read().data(), dcbx_param::version_oper), dcbx_param::VER_AUTO);
}

// What the driver set is the port's until the function is reset (the
// next probe): then the defaults. The control channel shows the state.
TEST_F(EthQos, ResetRestoresDefaultsAndCtlShowsState)
{
	reg(reg_qos::QPTS, kWrite, qpts::kSize, {{qpts::local_port, 1}, {qpts::trust_state, qpts::TRUST_DSCP}});
	reg(reg_qos::QTCT, kWrite, qtct::kSize, {{qtct::prio, 0}, {qtct::tclass, 6}});
	std::vector<std::string> lines;
	{
		std::lock_guard<std::mutex> lk(h.fw().mu);
		const EthPort &p = h.fw().eth;
		lines = p.qos.lines(p.pfc_tx, p.pfc_rx, p.pause_tx, p.pause_rx);
	}
	auto has = [&](const std::string &s) { return std::find(lines.begin(), lines.end(), s) != lines.end(); };
	EXPECT_TRUE(has("trust dscp"));
	EXPECT_TRUE(has("prio_tc 6 1 2 3 4 5 6 7"));
	EXPECT_TRUE(has("pause tx on rx on"));
	EXPECT_TRUE(has("tc 0 group 7 bw 100 limit none"));
	EXPECT_TRUE(has("dcbx host willing 0"));

	e.d.down();
	e.d.up();
	EXPECT_EQ(qos().trust, qpts::TRUST_PCP);
	EXPECT_EQ(qos().prio_tc[0], 0u);
}

} // namespace
} // namespace mlx5emu::test
