// SPDX-License-Identifier: GPL-2.0
// Firmware update: the boot-image component, what runs and what is
// stored, and the update state machine that MCC drives and MCDA feeds
// (the registers: fw_update.cc). One per function, under Firmware::mu.
//
// An update: LOCK_UPDATE_HANDLE (idle -> locked), UPDATE_COMPONENT with
// the image's size (-> download; a staging buffer of that size, at most
// kMaxComponentSize), MCDA blocks within it, VERIFY_COMPONENT (the image
// checked: magic, size, CRC, PSID; -> locked, or an error code that
// software reads and answers with CANCEL), ACTIVATE (the verified image
// becomes the stored one: pending until the next firmware reset),
// RELEASE_UPDATE_HANDLE (-> idle). A reset of the firmware (a software or
// device reset, FwUpdate::reset) runs the stored image and drops an
// update in progress. A bad image never touches what runs or is stored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fw/cmd_registry.h"

namespace mlx5emu {

class Health;

// A firmware version as MCQI and the health buffer carry it.
constexpr uint32_t fw_version(unsigned major, unsigned minor, unsigned sub)
{
	return (major & 0xffu) << 24 | (minor & 0xffu) << 16 | (sub & 0xffffu);
}
// "16.35.4030", as the init segment's fw_rev reads.
std::string fw_version_string(uint32_t v);

class FwUpdate {
public:
	// The largest image the component takes, and the largest MCDA block.
	static constexpr uint32_t kMaxComponentSize = 1u << 20;
	static constexpr uint16_t kMaxWriteSize = 1024;
	// The boot image's component index (MCQS scans from 0; index 0 is no
	// component, as the driver's scan allows).
	static constexpr uint16_t kBootImgIndex = 1;

	// The steps a fault can fail once (the control channel's `fw fail`).
	enum class Step : uint8_t { None, Download, Verify, Activate };

	// The board's PSID (QUERY_ADAPTER; an image must name it).
	static constexpr char kPsid[] = "MT_0000000008";

	explicit FwUpdate(Health &health) : health_(health) {}

	// ACCESS_REG of MCAM, MCQS, MCQI, MCC or MCDA; false for another
	// register.
	bool access(CmdCtx &c, uint16_t id);
	// A reset of the firmware: the stored image runs; an update in
	// progress is dropped (its handle released).
	void reset();

	// Control channel.
	uint32_t running() const;
	uint32_t stored() const { return pending_ ? stored_ : running(); }
	bool pending() const { return pending_; }
	// Sets the running (and stored) version, as a device that booted it.
	void set_running(uint32_t v);
	void fail_next(Step s) { fail_next_ = s; }
	std::vector<std::string> lines() const;

	// Tests: the image checks VERIFY_COMPONENT applies (an MCC error
	// code, mcc::ERR_OK when the image is good) and the CRC it uses.
	uint8_t check_image(const std::vector<uint8_t> &img, uint32_t *version) const;
	static uint32_t crc32(const uint8_t *p, size_t n, uint32_t crc = 0);

private:
	void reg_mcqs(CmdCtx &c);
	void reg_mcqi(CmdCtx &c);
	void reg_mcc(CmdCtx &c);
	void reg_mcda(CmdCtx &c);
	void mcc_instruction(CmdCtx &c, uint8_t instr);
	void drop_update();
	bool take_fault(Step s);

	Health &health_;
	uint8_t state_ = 0;       // mcc::IDLE, LOCKED, DOWNLOAD
	uint8_t error_ = 0;       // mcc::ERR_*, until CANCEL or RELEASE
	uint32_t handle_ = 1;     // the next (idle) or the locked handle
	std::vector<uint8_t> staging_; // the component being downloaded
	uint32_t written_ = 0;    // bytes of staging_ written so far (high mark)
	bool verified_ = false;   // staging_ holds a verified image
	uint32_t verified_version_ = 0;
	bool pending_ = false;    // stored_ waits for a reset to run
	uint32_t stored_ = 0;
	Step fail_next_ = Step::None;
};

} // namespace mlx5emu
