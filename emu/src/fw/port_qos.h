// SPDX-License-Identifier: GPL-2.0
// The port's QoS state (DCB), as its registers hold it (port_qos.cc):
// ETS (QETCR), priority -> traffic class (QTCT), trust (QPTS), DSCP ->
// priority (QPDPM), receive buffers (PBMC) and priority -> buffer (PPTB),
// DCBX mode (DCBX_PARAM). Part of EthPort, guarded by Firmware::mu; a
// function reset restores the defaults below. PFC and global pause are
// EthPort's (PFCC).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlx5emu {

struct PortQos {
	static constexpr unsigned kNumPrio = 8, kNumTc = 8, kNumDscp = 64, kNumBuffers = 10;
	// The buffer's cell (no SBCAM to say otherwise: 128 bytes, the size
	// the in-tree driver assumes) and the port's whole buffer.
	static constexpr unsigned kCellBytes = 128;
	static constexpr uint16_t kPortBufferCells = 2048; // 256 KiB

	struct Tc {
		uint8_t group = 7;    // ETS group; 7, all TCs at 100 %: no sharing
		uint8_t bw = 100;     // percent of its group
		uint8_t max_bw_units = 0; // 0 no limit, 3 100 Mb/s, 4 Gb/s
		uint16_t max_bw_value = 0;
	};
	struct Buffer {
		bool lossy = true;
		bool epsb = false;
		uint16_t size = 0; // cells
		uint16_t xoff = 0, xon = 0;
	};

	std::array<uint8_t, kNumPrio> prio_tc{0, 1, 2, 3, 4, 5, 6, 7};
	std::array<Tc, kNumTc> tc{};
	uint8_t port_max_bw_units = 0;
	uint8_t port_max_bw_value = 0;
	uint8_t trust = 1; // QPTS PCP
	std::array<uint8_t, kNumDscp> dscp_prio = default_dscp_prio();
	std::array<Buffer, kNumBuffers> buffer = default_buffers();
	uint16_t xoff_timer = 0, xoff_refresh = 0;
	std::array<uint8_t, kNumPrio> prio_buffer{};
	uint8_t dcbx_version = 0; // DCBX_PARAM version_admin: 0 host
	bool dcbx_willing = false;

	// DSCP d -> priority d / 8 (its class selector).
	static std::array<uint8_t, kNumDscp> default_dscp_prio()
	{
		std::array<uint8_t, kNumDscp> a{};
		for (unsigned d = 0; d < kNumDscp; ++d)
			a[d] = static_cast<uint8_t>(d >> 3);
		return a;
	}
	// Buffer 0, half the port, takes every priority (lossy); the others
	// are empty until software sizes them.
	static std::array<Buffer, kNumBuffers> default_buffers()
	{
		std::array<Buffer, kNumBuffers> b{};
		b[0].size = kPortBufferCells / 2;
		return b;
	}

	// The control channel's view (`hca N qos`), one setting per line.
	std::vector<std::string> lines(uint8_t pfc_tx, uint8_t pfc_rx, bool pause_tx, bool pause_rx) const;
};

} // namespace mlx5emu
