// SPDX-License-Identifier: GPL-2.0
// HCA and function control: ENABLE/DISABLE_HCA, ISSI, capabilities,
// INIT/TEARDOWN_HCA, SET_DRIVER_VERSION, QUERY_ADAPTER.
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "fw/fw_update.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

constexpr uint32_t kSupportedIssi = 0x3; // ISSI 0 and 1

// The function a command names: 0 for itself, n for VF n of its adapter
// (a PF with VFs addresses VF n as function_id n, its vport). -1, with the
// command failed BAD_PARAM, for anything else: an embedded-CPU function, a
// function the adapter does not have, any other function from a VF.
int target_function(CmdCtx &c, bits::Field ec, bits::Field fid)
{
	uint32_t n = c.get(fid);
	if (c.get(ec) == 0) {
		if (n == 0)
			return 0;
		const Firmware &fw = c.fw;
		if (!fw.cfg.is_vf() && fw.cfg.adapter && fw.cfg.adapter->valid_vf(n))
			return static_cast<int>(n);
	}
	c.fail(status::BAD_PARAM, 1);
	return -1;
}

// ENABLE_HCA / DISABLE_HCA of VF n by its PF. The PF sends ENABLE_HCA
// before it sets VF Enable (the in-tree mlx5_sriov_enable), so the VF is
// taken here and lives once VF Enable is set too. The firmware asks the PF
// for pages on the VF's behalf (PAGE_REQUEST func_id n); after DISABLE_HCA
// it gives back every page it holds for it (a negative request), which the
// PF's driver waits for, and the VF, if it lived, is reset.
void enable_vf(CmdCtx &c, uint16_t n, bool on)
{
	Firmware &fw = c.fw;
	Adapter &a = *fw.cfg.adapter;
	a.enable_vf(n, on);
	uint64_t held = fw.pages.held({false, n});
	if (on) {
		int32_t want = Adapter::kVfPfPages - static_cast<int32_t>(held);
		a.set_vf_pages_wanted(n, Adapter::kVfPfPages);
		if (want > 0)
			fw.post_page_request(n, want);
		return;
	}
	a.set_vf_pages_wanted(n, 0);
	if (held)
		fw.post_page_request(n, -static_cast<int32_t>(held));
}

void enable_hca(CmdCtx &c)
{
	int fn = target_function(c, enable_hca_in::embedded_cpu_function, enable_hca_in::function_id);
	if (fn < 0)
		return;
	if (fn > 0)
		return enable_vf(c, static_cast<uint16_t>(fn), true);
	Firmware &fw = c.fw;
	if (fw.state != FnState::Disabled)
		fw.function_reset("ENABLE_HCA of an enabled function");
	fw.state = FnState::Enabled;
}

void disable_hca(CmdCtx &c)
{
	int fn = target_function(c, enable_hca_in::embedded_cpu_function, enable_hca_in::function_id);
	if (fn < 0)
		return;
	if (fn > 0)
		return enable_vf(c, static_cast<uint16_t>(fn), false);
	c.fw.function_reset("DISABLE_HCA");
}

void query_issi(CmdCtx &c)
{
	c.put(query_issi_out::current_issi, c.fw.issi);
	c.put(query_issi_out::supported_issi_dw0, kSupportedIssi);
}

void set_issi(CmdCtx &c)
{
	uint32_t issi = c.get(set_issi_in::current_issi);
	if (issi > 31 || !((kSupportedIssi >> issi) & 1))
		return c.fail(status::BAD_PARAM, 1);
	c.fw.issi = static_cast<uint16_t>(issi);
}

void query_hca_cap(CmdCtx &c)
{
	uint16_t type = c.op_mod >> 1;
	bool current = c.op_mod & 1;
	if (c.get(query_hca_cap_in::other_function)) {
		// The manager reads a VF's caps (the in-tree e-switch: its
		// vhca_id and roce): the VF profile, as the VF's function
		// reads it at power-on (what the VF's own SET_HCA_CAP changes
		// is not followed).
		uint32_t n = c.get(query_hca_cap_in::function_id);
		const HcaConfig &pf = c.fw.cfg;
		if (pf.is_vf() || !pf.adapter || !pf.adapter->valid_vf(n))
			return c.fail(status::BAD_PARAM, 1);
		HcaConfig vc = pf;
		vc.role = pci::FunctionRole::Vf;
		vc.vf_index = static_cast<uint16_t>(n - 1);
		vc.adapter = nullptr;
		Caps vf(vc);
		const Caps::Block *b = current ? vf.cur(type) : vf.max(type);
		if (!b)
			return c.fail(status::BAD_PARAM, 2);
		std::memcpy(c.out + query_hca_cap_in::kCapability, b->data(), query_hca_cap_in::kCapSize);
		return;
	}
	const Caps::Block *b = current ? c.fw.caps.cur(type) : c.fw.caps.max(type);
	if (!b)
		return c.fail(status::BAD_PARAM, 2);
	std::memcpy(c.out + query_hca_cap_in::kCapability, b->data(), query_hca_cap_in::kCapSize);
}

void set_hca_cap(CmdCtx &c)
{
	if (c.op_mod & 1)
		return c.fail(status::BAD_PARAM, 1);
	if (c.get(query_hca_cap_in::other_function))
		return c.fail(status::BAD_PARAM, 2);
	uint32_t reason = 0;
	uint8_t st = c.fw.caps.set(c.op_mod >> 1, c.in + query_hca_cap_in::kCapability, &reason);
	if (st)
		c.fail(st, 0x100 | reason);
}

void init_hca(CmdCtx &c)
{
	Firmware &fw = c.fw;
	// The device needs its boot and init pages before it can start.
	if (fw.pages.held({}) < static_cast<uint64_t>(PageTracker::kBootPages + PageTracker::kInitPages))
		return c.fail(status::NO_RESOURCES, 1);
	if (c.get(init_hca_in::sw_vhca_id))
		return c.fail(status::BAD_PARAM, 2); // sw_vhca_id is not advertised
	if (c.inlen >= init_hca_in::kSwOwnerId + 16)
		fw.sw_owner_id.assign(c.in + init_hca_in::kSwOwnerId, c.in + init_hca_in::kSwOwnerId + 16);
	fw.state = FnState::Initialized;
	fw.configure_datapath();
}

void teardown_hca(CmdCtx &c)
{
	Firmware &fw = c.fw;
	uint32_t profile = c.get(teardown_hca_in::profile);
	// Only the graceful profile: force_teardown and fast_teardown are
	// not advertised.
	if (profile != teardown_hca_in::GRACEFUL)
		return c.fail(status::BAD_PARAM, 1);
	{
		auto lk = fw.dp().lock();
		fw.dp().clear();
	}
	fw.eqs.clear();
	fw.uars.clear();
	fw.state = FnState::Enabled;
	c.put(teardown_hca_out::state, 0);
}

void set_driver_version(CmdCtx &c)
{
	const char *s = reinterpret_cast<const char *>(c.in + set_driver_version_in::kString);
	c.fw.driver_version.assign(s, strnlen(s, set_driver_version_in::kStringLen));
}

void query_adapter(CmdCtx &c)
{
	namespace qa = query_adapter_out;
	c.put(qa::ieee_vendor_id, 0x0002c9);
	c.put(qa::vsd_vendor_id, 0x15b3);
	std::memcpy(c.out + qa::kPsid, FwUpdate::kPsid, sizeof FwUpdate::kPsid - 1);
	char vsd[64];
	int n = std::snprintf(vsd, sizeof vsd, "mlx5-emu emulated ConnectX, hca %u", c.fw.cfg.index);
	std::memcpy(c.out + qa::kVsd, vsd, static_cast<size_t>(n));
}

constexpr CmdSpec kCommands[] = {
	{op::ENABLE_HCA, enable_hca, enable_hca_in::kSize, hdr_out::kMinLen, Need::Any},
	{op::DISABLE_HCA, disable_hca, enable_hca_in::kSize, hdr_out::kMinLen, Need::Any},
	{op::QUERY_ISSI, query_issi, 16, query_issi_out::kSize, Need::Enabled},
	{op::SET_ISSI, set_issi, 16, hdr_out::kMinLen, Need::NotInit},
	{op::QUERY_HCA_CAP, query_hca_cap, 16, query_hca_cap_in::kOutSize, Need::Enabled},
	{op::SET_HCA_CAP, set_hca_cap, query_hca_cap_in::kOutSize, hdr_out::kMinLen, Need::NotInit},
	{op::INIT_HCA, init_hca, 16, hdr_out::kMinLen, Need::NotInit},
	{op::TEARDOWN_HCA, teardown_hca, 16, hdr_out::kMinLen, Need::Initialized},
	{op::SET_DRIVER_VERSION, set_driver_version, set_driver_version_in::kString + set_driver_version_in::kStringLen,
	 hdr_out::kMinLen, Need::Initialized},
	{op::QUERY_ADAPTER, query_adapter, 16, query_adapter_out::kSize, Need::Initialized},
};

} // namespace

std::span<const CmdSpec> hca_commands() { return kCommands; }

} // namespace mlx5emu
