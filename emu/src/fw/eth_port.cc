// SPDX-License-Identifier: GPL-2.0
// Ethernet port state changes: the data path's link state and the port
// change event; the control channel's cable pull.
#include "exec/datapath.h"
#include "fw/firmware.h"
#include "prm/prm.h"

namespace mlx5emu {

namespace {
constexpr uint8_t kSubtypeDown = 1, kSubtypeActive = 4;
constexpr unsigned kPortByte = 0x20 + 8; // port number << 4
} // namespace

void Firmware::eth_port_changed(bool was_up)
{
	bool up = eth.oper_up();
	{
		auto lk = dp_->lock();
		dp_->set_eth_link(up, eth.admin_mtu);
	}
	if (up == was_up || state != FnState::Initialized)
		return;
	uint8_t eqe[prm::eqe::kSize] = {};
	eqe[prm::eqe::kType] = prm::event::PORT_CHANGE;
	eqe[prm::eqe::kSubType] = up ? kSubtypeActive : kSubtypeDown;
	eqe[kPortByte] = 1 << 4;
	post_event(eqe);
}

bool Firmware::set_eth_cable(bool up)
{
	if (!is_eth())
		return false;
	std::lock_guard<std::mutex> lk(mu);
	bool was_up = eth.oper_up();
	eth.cable_up = up;
	eth_port_changed(was_up);
	return true;
}

} // namespace mlx5emu
