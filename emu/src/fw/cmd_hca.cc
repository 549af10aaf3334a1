// SPDX-License-Identifier: GPL-2.0
// HCA and function control: ENABLE/DISABLE_HCA, ISSI, capabilities,
// INIT/TEARDOWN_HCA, SET_DRIVER_VERSION, QUERY_ADAPTER.
#include <cstring>

#include "exec/datapath.h"
#include "fw/cmd_registry.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {

using namespace prm;

constexpr uint32_t kSupportedIssi = 0x3; // ISSI 0 and 1

// Only this function (function_id 0, not an embedded-CPU function) exists.
bool is_self(CmdCtx &c, bits::Field ec, bits::Field fid)
{
	return c.get(ec) == 0 && c.get(fid) == 0;
}

void enable_hca(CmdCtx &c)
{
	if (!is_self(c, enable_hca_in::embedded_cpu_function, enable_hca_in::function_id))
		return c.fail(status::BAD_PARAM, 1);
	Firmware &fw = c.fw;
	if (fw.state != FnState::Disabled)
		fw.function_reset("ENABLE_HCA of an enabled function");
	fw.state = FnState::Enabled;
}

void disable_hca(CmdCtx &c)
{
	if (!is_self(c, enable_hca_in::embedded_cpu_function, enable_hca_in::function_id))
		return c.fail(status::BAD_PARAM, 1);
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
	if (c.get(query_hca_cap_in::other_function))
		return c.fail(status::BAD_PARAM, 1); // no other functions to manage
	uint16_t type = c.op_mod >> 1;
	bool current = c.op_mod & 1;
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
	const char psid[] = "MT_0000000008";
	std::memcpy(c.out + qa::kPsid, psid, sizeof psid - 1);
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
