// SPDX-License-Identifier: GPL-2.0
// Firmware update registers (fw_update.h): MCAM, MCQS, MCQI, MCC, MCDA.
// Errors a driver can make (a wrong handle, an instruction out of order, a
// block outside the component) fail the ACCESS_REG with BAD_PARAM and
// leave the state machine as it was; a bad image is the state machine's
// error code, as the driver expects from VERIFY_COMPONENT.
#include "fw/fw_update.h"

#include <algorithm>
#include <cstring>

#include "fw/firmware.h"
#include "fw/health.h"
#include "fw/port_regs.h"
#include "prm/mng.h"
#include "prm/prm.h"
#include "util/crc32.h"
#include "util/fmt.h"

namespace mlx5emu {

namespace {

using namespace prm;

// Syndrome reasons (opcode << 16 | reason), after port_qos.cc's.
enum Reason : uint32_t {
	kLen = 0x50,          // register data shorter than the register
	kComponent = 0x51,    // no such component index
	kInfoType = 0x52,     // MCQI info type not served
	kNoPending = 0x53,    // MCQI of the pending version with none pending
	kReadOnly = 0x54,     // MCQS/MCQI written
	kHandle = 0x55,       // MCC/MCDA with another update handle
	kState = 0x56,        // MCC instruction not valid in this state
	kInstruction = 0x57,  // MCC instruction unknown
	kTooBig = 0x58,       // UPDATE_COMPONENT beyond kMaxComponentSize
	kBlock = 0x59,        // MCDA block outside the component or too large
	kNotVerified = 0x5a,  // ACTIVATE without a verified image
	kInjected = 0x5b,     // the control channel's `fw fail`
};

} // namespace

std::string fw_version_string(uint32_t v)
{
	return fmt("%u.%u.%04u", v >> 24, v >> 16 & 0xff, v & 0xffff);
}

uint32_t FwUpdate::crc32(const uint8_t *p, size_t n, uint32_t crc)
{
	return ~crc32_update(~crc, p, n);
}

uint32_t FwUpdate::running() const { return health_.fw_version(); }

void FwUpdate::set_running(uint32_t v)
{
	health_.set_fw_version(v);
	pending_ = false;
}

bool FwUpdate::take_fault(Step s)
{
	if (fail_next_ != s)
		return false;
	fail_next_ = Step::None;
	return true;
}

void FwUpdate::drop_update()
{
	state_ = mcc::IDLE;
	error_ = mcc::ERR_OK;
	staging_ = {};
	written_ = 0;
	verified_ = false;
	handle_ = (handle_ + 1) & 0xffffff;
	if (!handle_)
		handle_ = 1;
}

void FwUpdate::reset()
{
	if (state_ != mcc::IDLE)
		drop_update();
	if (pending_) {
		health_.set_fw_version(stored_);
		pending_ = false;
	}
}

uint8_t FwUpdate::check_image(const std::vector<uint8_t> &img, uint32_t *version) const
{
	namespace fi = fw_image;
	if (img.size() < fi::kHeaderSize || std::memcmp(img.data(), fi::kMagic, fi::kMagicLen) != 0)
		return mcc::ERR_BAD_FORMAT;
	if (bits::load_be32(&img[fi::kSize]) != img.size())
		return mcc::ERR_BAD_FORMAT;
	std::vector<uint8_t> copy = img;
	std::memset(&copy[fi::kCrc], 0, 4);
	if (crc32(copy.data(), copy.size()) != bits::load_be32(&img[fi::kCrc]))
		return mcc::ERR_DIGEST;
	char psid[17] = {};
	std::memcpy(psid, &img[fi::kPsid], 16);
	if (std::strcmp(psid, kPsid) != 0)
		return mcc::ERR_NOT_APPLICABLE;
	*version = bits::load_be32(&img[fi::kVersion]);
	return mcc::ERR_OK;
}

bool FwUpdate::access(CmdCtx &c, uint16_t id)
{
	switch (id) {
	case reg_mng::MCAM:
		// Group 0 (0x9000-0x907f): what this file serves.
		reg_cam(PortReg{c, reg_mng::kMcamSize},
			{reg_mng::MCQS, reg_mng::MCQI, reg_mng::MCC, reg_mng::MCDA, reg_mng::MCAM}, reg_mng::kMcamBase);
		return true;
	case reg_mng::MCQS:
		reg_mcqs(c);
		return true;
	case reg_mng::MCQI:
		reg_mcqi(c);
		return true;
	case reg_mng::MCC:
		reg_mcc(c);
		return true;
	case reg_mng::MCDA:
		reg_mcda(c);
		return true;
	default:
		return false;
	}
}

void FwUpdate::reg_mcqs(CmdCtx &c)
{
	PortReg r{c, mcqs::kSize};
	if (c.inlen < access_register_in::kData + r.size || c.outlen < access_register_in::kData + r.size)
		return c.fail(status::BAD_INPUT_LEN, kLen);
	if (r.write())
		return c.fail(status::BAD_PARAM, kReadOnly);
	uint32_t idx = r.get(mcqs::component_index);
	if (idx > kBootImgIndex)
		return c.fail(status::BAD_PARAM, kComponent);
	std::memset(r.out(), 0, r.size);
	r.put(mcqs::component_index, idx);
	if (idx != kBootImgIndex)
		return; // index 0: no component (identifier 0, not present)
	r.put(mcqs::last_index_flag, 1);
	r.put(mcqs::identifier, mcqs::ID_BOOT_IMG);
	r.put(mcqs::component_status, mcqs::STATUS_PRESENT);
	uint32_t st = pending_ ? mcqs::UPDATE_ACTIVE_PENDING_RESET
		      : state_ != mcc::IDLE ? mcqs::UPDATE_IN_PROGRESS
					    : mcqs::UPDATE_IDLE;
	r.put(mcqs::component_update_state, st);
}

void FwUpdate::reg_mcqi(CmdCtx &c)
{
	PortReg r{c, mcqi::kData};
	if (c.inlen < access_register_in::kData + r.size || c.outlen < access_register_in::kData + r.size)
		return c.fail(status::BAD_INPUT_LEN, kLen);
	if (r.write())
		return c.fail(status::BAD_PARAM, kReadOnly);
	if (r.get(mcqi::component_index) != kBootImgIndex)
		return c.fail(status::BAD_PARAM, kComponent);
	uint32_t type = r.get(mcqi::info_type);
	bool want_pending = r.get(mcqi::read_pending_component);
	uint8_t info[mcqi::version::kSize] = {};
	unsigned size = 0;
	switch (type) {
	case mcqi::INFO_CAPABILITIES:
		size = mcqi::cap::kSize;
		bits::set(info, mcqi::cap::supported_info_bitmask,
			  1u << mcqi::INFO_CAPABILITIES | 1u << mcqi::INFO_VERSION | 1u << mcqi::INFO_ACTIVATION_METHOD);
		bits::set(info, mcqi::cap::max_component_size, kMaxComponentSize);
		bits::set(info, mcqi::cap::log_mcda_word_size, 2);
		bits::set(info, mcqi::cap::mcda_max_write_size, kMaxWriteSize);
		bits::set(info, mcqi::cap::match_psid, 1);
		break;
	case mcqi::INFO_VERSION: {
		if (want_pending && !pending_)
			return c.fail(status::BAD_PARAM, kNoPending);
		namespace v = mcqi::version;
		size = v::kSize;
		uint32_t ver = want_pending ? stored_ : running();
		std::string s = fw_version_string(ver);
		bits::set(info, v::version, ver);
		bits::set(info, v::version_string_length, static_cast<uint32_t>(s.size()));
		std::memcpy(info + v::kString, s.data(), std::min<size_t>(s.size(), v::kStringMax));
		break;
	}
	case mcqi::INFO_ACTIVATION_METHOD:
		size = mcqi::activation::kSize;
		bits::set(info, mcqi::activation::pending_fw_reset, 1);
		break;
	default:
		return c.fail(status::BAD_PARAM, kInfoType);
	}
	uint32_t off = r.get(mcqi::offset), want = r.get(mcqi::data_size);
	uint32_t room = c.outlen - access_register_in::kData - mcqi::kData;
	uint32_t n = off >= size ? 0 : std::min({want, size - off, room});
	std::memcpy(r.out(), r.in(), mcqi::kData);
	r.put(mcqi::info_size, size);
	r.put(mcqi::data_size, n);
	std::memcpy(r.out() + mcqi::kData, info + std::min(off, size), n);
}

void FwUpdate::reg_mcc(CmdCtx &c)
{
	PortReg r{c, mcc::kSize};
	if (c.inlen < access_register_in::kData + r.size || c.outlen < access_register_in::kData + r.size)
		return c.fail(status::BAD_INPUT_LEN, kLen);
	uint8_t instr = static_cast<uint8_t>(r.get(mcc::instruction));
	if (r.write() && instr)
		mcc_instruction(c, instr);
	if (!c.ok())
		return;
	std::memset(r.out(), 0, r.size);
	r.put(mcc::update_handle, handle_);
	r.put(mcc::error_code, error_);
	r.put(mcc::control_state, state_);
	if (state_ == mcc::DOWNLOAD)
		r.put(mcc::component_size, static_cast<uint32_t>(staging_.size()));
}

void FwUpdate::mcc_instruction(CmdCtx &c, uint8_t instr)
{
	PortReg r{c, mcc::kSize};
	if (r.get(mcc::update_handle) != handle_)
		return c.fail(status::BAD_PARAM, kHandle);
	switch (instr) {
	case mcc::LOCK_UPDATE_HANDLE:
		if (state_ != mcc::IDLE)
			return c.fail(status::BAD_PARAM, kState);
		state_ = mcc::LOCKED;
		error_ = mcc::ERR_OK;
		return;
	case mcc::RELEASE_UPDATE_HANDLE:
		if (state_ == mcc::IDLE)
			return c.fail(status::BAD_PARAM, kState);
		drop_update();
		return;
	case mcc::UPDATE_COMPONENT: {
		if (state_ != mcc::LOCKED || error_)
			return c.fail(status::BAD_PARAM, kState);
		if (r.get(mcc::component_index) != kBootImgIndex)
			return c.fail(status::BAD_PARAM, kComponent);
		uint32_t size = r.get(mcc::component_size);
		if (!size || size > kMaxComponentSize)
			return c.fail(status::BAD_PARAM, kTooBig);
		staging_.assign(size, 0);
		written_ = 0;
		verified_ = false;
		state_ = mcc::DOWNLOAD;
		return;
	}
	case mcc::VERIFY_COMPONENT: {
		if (state_ != mcc::DOWNLOAD || error_)
			return c.fail(status::BAD_PARAM, kState);
		if (r.get(mcc::component_index) != kBootImgIndex)
			return c.fail(status::BAD_PARAM, kComponent);
		uint32_t v = 0;
		uint8_t err = written_ != staging_.size() ? mcc::ERR_BAD_FORMAT : check_image(staging_, &v);
		if (take_fault(Step::Verify))
			err = mcc::ERR_DIGEST;
		if (err) {
			// Software reads the code, then CANCELs.
			error_ = err;
			return;
		}
		verified_ = true;
		verified_version_ = v;
		state_ = mcc::LOCKED;
		return;
	}
	case mcc::ACTIVATE:
		if (state_ != mcc::LOCKED || error_)
			return c.fail(status::BAD_PARAM, kState);
		if (!verified_)
			return c.fail(status::BAD_PARAM, kNotVerified);
		if (take_fault(Step::Activate)) {
			error_ = mcc::ERR_ERROR;
			return;
		}
		stored_ = verified_version_;
		pending_ = true;
		verified_ = false;
		staging_ = {};
		return;
	case mcc::CANCEL:
		if (state_ == mcc::IDLE)
			return c.fail(status::BAD_PARAM, kState);
		state_ = mcc::LOCKED;
		error_ = mcc::ERR_OK;
		staging_ = {};
		written_ = 0;
		verified_ = false;
		return;
	default:
		return c.fail(status::BAD_PARAM, kInstruction);
	}
}

void FwUpdate::reg_mcda(CmdCtx &c)
{
	PortReg r{c, mcda::kHeader};
	if (c.inlen < access_register_in::kData + r.size || c.outlen < access_register_in::kData + r.size)
		return c.fail(status::BAD_INPUT_LEN, kLen);
	if (!r.write())
		return c.fail(status::BAD_PARAM, kReadOnly); // rd_en 0: no read back
	if (r.get(mcda::update_handle) != handle_ || state_ == mcc::IDLE)
		return c.fail(status::BAD_PARAM, kHandle);
	if (state_ != mcc::DOWNLOAD || error_)
		return c.fail(status::BAD_PARAM, kState);
	uint32_t off = r.get(mcda::offset), size = r.get(mcda::size);
	if (off % 4 || size > kMaxWriteSize || off > staging_.size() || size > staging_.size() - off ||
	    c.inlen < access_register_in::kData + mcda::kHeader + size)
		return c.fail(status::BAD_PARAM, kBlock);
	if (take_fault(Step::Download))
		return c.fail(status::INTERNAL_ERR, kInjected);
	// The data are dwords, each as the driver's host order read it from
	// the image and wrote it big-endian: back to the image's byte order.
	const uint8_t *d = r.in() + mcda::kHeader;
	for (uint32_t i = 0; i + 4 <= size; i += 4)
		for (unsigned k = 0; k < 4; ++k)
			staging_[off + i + k] = d[i + 3 - k];
	written_ = std::max(written_, off + (size & ~3u));
	std::memset(r.out(), 0, r.size);
	std::memcpy(r.out(), r.in(), mcda::kHeader);
}

std::vector<std::string> FwUpdate::lines() const
{
	static constexpr const char *kState[] = {"idle", "locked", "initialize", "download"};
	std::vector<std::string> v;
	v.push_back(fmt("running %s", fw_version_string(running()).c_str()));
	v.push_back(fmt("stored %s%s", fw_version_string(stored()).c_str(), pending_ ? " pending reset" : ""));
	v.push_back(fmt("update %s handle %u error %u staged %u/%zu", kState[state_ & 3], handle_, error_, written_,
			staging_.size()));
	return v;
}

} // namespace mlx5emu
