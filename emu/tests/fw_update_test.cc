// SPDX-License-Identifier: GPL-2.0
// Firmware update (fw/fw_update.cc): MCAM names the registers, MCQS finds
// the boot image, MCQI reports the running version (the init segment's),
// and an update through MCC/MCDA as the in-tree driver's mlxfw runs it
// stores the new version, which runs after a reset. Bad images, blocks
// outside the component, instructions out of order and handles of
// another owner are refused with the old firmware still running.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "fw/firmware.h"
#include "fw/fw_update.h"
#include "fw_harness.h"
#include "prm/mng.h"
#include "prm/qos.h"

namespace mlx5emu::test {
namespace {

using namespace prm;
namespace ar = access_register_in;

constexpr uint16_t kWrite = ar::WRITE, kRead = ar::READ;
constexpr uint32_t kNew = fw_version(16, 36, 1000);

// An image as scripts/mkmfa2 writes it: header, payload, CRC.
std::vector<uint8_t> image(uint32_t version, size_t payload = 200, const char *psid = FwUpdate::kPsid)
{
	namespace fi = fw_image;
	std::vector<uint8_t> v(fi::kHeaderSize + payload);
	std::memcpy(v.data(), fi::kMagic, fi::kMagicLen);
	bits::store_be32(&v[fi::kVersion], version);
	bits::store_be32(&v[fi::kSize], static_cast<uint32_t>(v.size()));
	std::strncpy(reinterpret_cast<char *>(&v[fi::kPsid]), psid, 16);
	for (size_t i = fi::kHeaderSize; i < v.size(); ++i)
		v[i] = static_cast<uint8_t>(i * 7);
	bits::store_be32(&v[fi::kCrc], FwUpdate::crc32(v.data(), v.size()));
	return v;
}

struct FwUpd : ::testing::Test {
	FwHarness h;
	void SetUp() override { h.enable(); }

	Msg msg(uint16_t id, uint16_t op_mod, unsigned size, const std::vector<std::pair<bits::Field, uint32_t>> &set)
	{
		Msg m(op::ACCESS_REG, op_mod, ar::kData + size);
		m.set(bits::Field{2, 15, 0}, id);
		for (auto &[f, v] : set)
			m.set(f.at(ar::kData), v);
		return m;
	}
	std::vector<uint8_t> reg(uint16_t id, uint16_t op_mod, unsigned size,
				 const std::vector<std::pair<bits::Field, uint32_t>> &set, unsigned outsize = 0)
	{
		unsigned osz = outsize ? outsize : size;
		auto out = h.ok(msg(id, op_mod, size, set), ar::kData + osz);
		return std::vector<uint8_t>(out.begin() + ar::kData, out.end());
	}
	void refused(uint16_t id, uint16_t op_mod, unsigned size, const std::vector<std::pair<bits::Field, uint32_t>> &set)
	{
		h.fails(msg(id, op_mod, size, set), ar::kData + size, status::BAD_PARAM);
	}
	// MCC query: handle, error code, state.
	struct Mcc {
		uint32_t handle, error, state;
	};
	Mcc mcc_query()
	{
		auto d = reg(reg_mng::MCC, kRead, mcc::kSize, {});
		return {bits::get(d.data(), mcc::update_handle), bits::get(d.data(), mcc::error_code),
			bits::get(d.data(), mcc::control_state)};
	}
	void mcc(uint8_t instr, uint32_t handle, uint32_t size = 0)
	{
		reg(reg_mng::MCC, kWrite, mcc::kSize,
		    {{mcc::instruction, instr}, {mcc::update_handle, handle},
		     {mcc::component_index, FwUpdate::kBootImgIndex}, {mcc::component_size, size}});
	}
	void mcc_refused(uint8_t instr, uint32_t handle, uint32_t size = 0)
	{
		refused(reg_mng::MCC, kWrite, mcc::kSize,
			{{mcc::instruction, instr}, {mcc::update_handle, handle},
			 {mcc::component_index, FwUpdate::kBootImgIndex}, {mcc::component_size, size}});
	}
	// An MCDA block as the driver writes it: each dword of the image read
	// in host (little-endian) order and stored big-endian.
	Msg mcda_msg(uint32_t handle, uint32_t off, const uint8_t *p, uint16_t size)
	{
		Msg m = msg(reg_mng::MCDA, kWrite, mcda::kHeader + size,
			    {{mcda::update_handle, handle}, {mcda::offset, off}, {mcda::size, size}});
		uint8_t *d = m.b.data() + ar::kData + mcda::kHeader;
		for (unsigned i = 0; i + 4 <= size; i += 4)
			for (unsigned k = 0; k < 4; ++k)
				d[i + k] = p[i + 3 - k];
		return m;
	}
	void download(uint32_t handle, const std::vector<uint8_t> &img)
	{
		for (uint32_t off = 0; off < img.size(); off += FwUpdate::kMaxWriteSize) {
			auto n = static_cast<uint16_t>(std::min<size_t>(FwUpdate::kMaxWriteSize, img.size() - off));
			h.ok(mcda_msg(handle, off, img.data() + off, n), ar::kData + mcda::kHeader);
		}
	}
	// mlxfw's flash of one component up to VERIFY; returns the handle.
	uint32_t flash_to_verify(const std::vector<uint8_t> &img)
	{
		Mcc q = mcc_query();
		EXPECT_EQ(q.state, mcc::IDLE);
		mcc(mcc::LOCK_UPDATE_HANDLE, q.handle);
		EXPECT_EQ(mcc_query().state, mcc::LOCKED);
		mcc(mcc::UPDATE_COMPONENT, q.handle, static_cast<uint32_t>(img.size()));
		EXPECT_EQ(mcc_query().state, mcc::DOWNLOAD);
		download(q.handle, img);
		mcc(mcc::VERIFY_COMPONENT, q.handle);
		return q.handle;
	}
	uint32_t mcqi_version(bool pending)
	{
		auto d = reg(reg_mng::MCQI, kRead, mcqi::kData,
			     {{mcqi::component_index, FwUpdate::kBootImgIndex},
			      {mcqi::read_pending_component, pending ? 1u : 0u},
			      {mcqi::info_type, mcqi::INFO_VERSION},
			      {mcqi::data_size, mcqi::version::kSize}},
			     mcqi::kData + mcqi::version::kSize);
		return bits::get(d.data() + mcqi::kData, mcqi::version::version);
	}
	uint32_t update_state()
	{
		auto d = reg(reg_mng::MCQS, kRead, mcqs::kSize, {{mcqs::component_index, FwUpdate::kBootImgIndex}});
		return bits::get(d.data(), mcqs::component_update_state);
	}
	// The init segment's fw_rev, as the driver reads it.
	uint32_t iseg_version()
	{
		uint32_t a = h.rd32(0x0), b = h.rd32(0x4);
		return fw_version(a & 0xffff, a >> 16, b & 0xffff);
	}
};

TEST_F(FwUpd, McamNamesTheRegisters)
{
	EXPECT_EQ(h.fw().caps.gen(cmd_hca_cap::mcam_reg), 1u);
	auto d = reg(reg_mng::MCAM, kRead, reg_mng::kMcamSize, {});
	const uint8_t *mask = d.data() + cam::kRegMask;
	auto has = [&](uint16_t id) {
		unsigned n = id - reg_mng::kMcamBase;
		return (mask[cam::kMaskSize - 1 - n / 8] >> (n % 8)) & 1;
	};
	EXPECT_TRUE(has(reg_mng::MCQS));
	EXPECT_TRUE(has(reg_mng::MCQI));
	EXPECT_TRUE(has(reg_mng::MCC));
	EXPECT_TRUE(has(reg_mng::MCDA));
	EXPECT_FALSE(has(0x9028)); // MFRL: no sync reset
	// The in-tree driver's layout: mcqs is the last bit of dword 2 of
	// the mask (bit 0x1f of the access-register bits).
	EXPECT_EQ(d[cam::kRegMask + 3] & 0x0f, 0x0f);
	auto g2 = reg(reg_mng::MCAM, kRead, reg_mng::kMcamSize, {{cam::access_reg_group, 2}});
	for (unsigned i = 0; i < cam::kMaskSize; ++i)
		EXPECT_EQ(g2[cam::kRegMask + i], 0u);
	refused(reg_mng::MCAM, kWrite, reg_mng::kMcamSize, {});
}

TEST_F(FwUpd, McqsFindsTheBootImageAndMcqiItsVersion)
{
	auto d0 = reg(reg_mng::MCQS, kRead, mcqs::kSize, {{mcqs::component_index, 0}});
	EXPECT_EQ(bits::get(d0.data(), mcqs::last_index_flag), 0u);
	EXPECT_NE(bits::get(d0.data(), mcqs::identifier), uint32_t{mcqs::ID_BOOT_IMG});
	auto d1 = reg(reg_mng::MCQS, kRead, mcqs::kSize, {{mcqs::component_index, 1}});
	EXPECT_EQ(bits::get(d1.data(), mcqs::identifier), uint32_t{mcqs::ID_BOOT_IMG});
	EXPECT_EQ(bits::get(d1.data(), mcqs::last_index_flag), 1u);
	EXPECT_EQ(bits::get(d1.data(), mcqs::component_update_state), uint32_t{mcqs::UPDATE_IDLE});
	refused(reg_mng::MCQS, kRead, mcqs::kSize, {{mcqs::component_index, 2}});

	EXPECT_EQ(mcqi_version(false), fw_version(16, 35, 4030));
	EXPECT_EQ(mcqi_version(false), iseg_version());
	auto v = reg(reg_mng::MCQI, kRead, mcqi::kData,
		     {{mcqi::component_index, 1}, {mcqi::info_type, mcqi::INFO_VERSION},
		      {mcqi::data_size, mcqi::version::kSize}},
		     mcqi::kData + mcqi::version::kSize);
	std::string s(reinterpret_cast<const char *>(&v[mcqi::kData + mcqi::version::kString]),
		      bits::get(v.data() + mcqi::kData, mcqi::version::version_string_length));
	EXPECT_EQ(s, "16.35.4030");
	// No pending image: the stored version is not readable as pending.
	refused(reg_mng::MCQI, kRead, mcqi::kData,
		{{mcqi::component_index, 1}, {mcqi::read_pending_component, 1}, {mcqi::info_type, mcqi::INFO_VERSION}});

	auto c = reg(reg_mng::MCQI, kRead, mcqi::kData,
		     {{mcqi::component_index, 1}, {mcqi::info_type, mcqi::INFO_CAPABILITIES},
		      {mcqi::data_size, mcqi::cap::kSize}},
		     mcqi::kData + mcqi::cap::kSize);
	const uint8_t *cap = c.data() + mcqi::kData;
	EXPECT_EQ(bits::get(cap, mcqi::cap::max_component_size), FwUpdate::kMaxComponentSize);
	EXPECT_EQ(bits::get(cap, mcqi::cap::mcda_max_write_size), FwUpdate::kMaxWriteSize);
	EXPECT_EQ(bits::get(cap, mcqi::cap::log_mcda_word_size), 2u);
	refused(reg_mng::MCQI, kRead, mcqi::kData, {{mcqi::component_index, 0}, {mcqi::info_type, 1}});
	refused(reg_mng::MCQI, kRead, mcqi::kData, {{mcqi::component_index, 1}, {mcqi::info_type, 3}});
}

TEST_F(FwUpd, GoodImageIsStoredThenRunsAfterReset)
{
	auto img = image(kNew, 3000); // three MCDA blocks
	uint32_t handle = flash_to_verify(img);
	Mcc q = mcc_query();
	EXPECT_EQ(q.state, mcc::LOCKED);
	EXPECT_EQ(q.error, mcc::ERR_OK);
	EXPECT_EQ(update_state(), uint32_t{mcqs::UPDATE_IN_PROGRESS});
	mcc(mcc::ACTIVATE, handle);
	mcc(mcc::RELEASE_UPDATE_HANDLE, handle);
	EXPECT_EQ(mcc_query().state, mcc::IDLE);
	EXPECT_NE(mcc_query().handle, handle); // a new owner gets a new handle

	EXPECT_EQ(update_state(), uint32_t{mcqs::UPDATE_ACTIVE_PENDING_RESET});
	EXPECT_EQ(mcqi_version(true), kNew);
	EXPECT_EQ(mcqi_version(false), fw_version(16, 35, 4030));
	EXPECT_EQ(iseg_version(), fw_version(16, 35, 4030));

	// A function reset (DISABLE_HCA) is no firmware reset.
	h.ok(Msg(op::DISABLE_HCA, 0, 16), 12);
	h.enable();
	EXPECT_EQ(iseg_version(), fw_version(16, 35, 4030));

	h.hca->reset();
	h.init_cmdq();
	h.enable();
	EXPECT_EQ(iseg_version(), kNew);
	EXPECT_EQ(mcqi_version(false), kNew);
	EXPECT_EQ(update_state(), uint32_t{mcqs::UPDATE_IDLE});
	EXPECT_EQ(h.fw().health.buffer_dword(health::kFwVer), kNew);
}

struct BadImage {
	const char *name;
	void (*spoil)(std::vector<uint8_t> &);
	uint8_t error;
};

TEST_F(FwUpd, BadImagesAreRefusedAndTheOldFirmwareRuns)
{
	const BadImage cases[] = {
		{"flipped payload byte", [](std::vector<uint8_t> &v) { v[100] ^= 1; }, mcc::ERR_DIGEST},
		{"bad magic", [](std::vector<uint8_t> &v) { v[0] = 'X'; }, mcc::ERR_BAD_FORMAT},
		{"size field", [](std::vector<uint8_t> &v) { bits::store_be32(&v[fw_image::kSize], 64); },
		 mcc::ERR_BAD_FORMAT},
		{"other PSID",
		 [](std::vector<uint8_t> &v) {
			 std::memcpy(&v[fw_image::kPsid], "MT_0000000999", 13);
			 bits::store_be32(&v[fw_image::kCrc], 0);
			 bits::store_be32(&v[fw_image::kCrc], FwUpdate::crc32(v.data(), v.size()));
		 },
		 mcc::ERR_NOT_APPLICABLE},
	};
	for (const BadImage &b : cases) {
		SCOPED_TRACE(b.name);
		auto img = image(kNew);
		b.spoil(img);
		uint32_t handle = flash_to_verify(img);
		Mcc q = mcc_query();
		EXPECT_EQ(q.error, b.error);
		// mlxfw: the error seen, CANCEL, RELEASE; ACTIVATE is refused.
		mcc_refused(mcc::ACTIVATE, handle);
		mcc(mcc::CANCEL, handle);
		mcc_refused(mcc::ACTIVATE, handle);
		mcc(mcc::RELEASE_UPDATE_HANDLE, handle);
		EXPECT_EQ(update_state(), uint32_t{mcqs::UPDATE_IDLE});
	}
	h.hca->reset();
	EXPECT_EQ(iseg_version(), fw_version(16, 35, 4030));
	EXPECT_FALSE(h.fw().fwup.pending());
}

TEST_F(FwUpd, ShortDownloadFailsVerify)
{
	auto img = image(kNew, 3000);
	Mcc q = mcc_query();
	mcc(mcc::LOCK_UPDATE_HANDLE, q.handle);
	mcc(mcc::UPDATE_COMPONENT, q.handle, static_cast<uint32_t>(img.size()));
	h.ok(mcda_msg(q.handle, 0, img.data(), FwUpdate::kMaxWriteSize), ar::kData + mcda::kHeader);
	mcc(mcc::VERIFY_COMPONENT, q.handle);
	EXPECT_EQ(mcc_query().error, mcc::ERR_BAD_FORMAT);
}

TEST_F(FwUpd, BoundsHandlesAndOrder)
{
	auto img = image(kNew, 200);
	Mcc q = mcc_query();
	// Nothing before the lock; not the idle handle's neighbour either.
	mcc_refused(mcc::UPDATE_COMPONENT, q.handle, 256);
	mcc_refused(mcc::LOCK_UPDATE_HANDLE, q.handle + 1);
	mcc(mcc::LOCK_UPDATE_HANDLE, q.handle);
	mcc_refused(mcc::LOCK_UPDATE_HANDLE, q.handle); // already locked
	mcc_refused(mcc::VERIFY_COMPONENT, q.handle);   // nothing downloaded
	mcc_refused(mcc::ACTIVATE, q.handle);           // nothing verified
	// No component bigger than the staging bound, nor empty.
	mcc_refused(mcc::UPDATE_COMPONENT, q.handle, FwUpdate::kMaxComponentSize + 1);
	mcc_refused(mcc::UPDATE_COMPONENT, q.handle, 0);
	EXPECT_EQ(mcc_query().state, mcc::LOCKED);
	h.fails(mcda_msg(q.handle, 0, img.data(), 4), ar::kData + mcda::kHeader, status::BAD_PARAM); // not downloading

	mcc(mcc::UPDATE_COMPONENT, q.handle, static_cast<uint32_t>(img.size()));
	std::vector<uint8_t> big(FwUpdate::kMaxWriteSize + 4);
	// Past the component's end, straddling it, unaligned, too large a
	// block, another handle, a block longer than the command.
	h.fails(mcda_msg(q.handle, static_cast<uint32_t>(img.size()), img.data(), 4), ar::kData + mcda::kHeader,
		status::BAD_PARAM);
	h.fails(mcda_msg(q.handle, static_cast<uint32_t>(img.size()) - 4, img.data(), 8),
		ar::kData + mcda::kHeader, status::BAD_PARAM);
	h.fails(mcda_msg(q.handle, 2, img.data(), 4), ar::kData + mcda::kHeader, status::BAD_PARAM);
	h.fails(mcda_msg(q.handle, 0, big.data(), static_cast<uint16_t>(big.size())), ar::kData + mcda::kHeader,
		status::BAD_PARAM);
	h.fails(mcda_msg(q.handle + 1, 0, img.data(), 4), ar::kData + mcda::kHeader, status::BAD_PARAM);
	Msg m = mcda_msg(q.handle, 0, img.data(), 4);
	m.set(mcda::size.at(ar::kData), 64);
	h.fails(m, ar::kData + mcda::kHeader, status::BAD_PARAM);
	// The good image still goes through after all that.
	download(q.handle, img);
	mcc(mcc::VERIFY_COMPONENT, q.handle);
	EXPECT_EQ(mcc_query().error, mcc::ERR_OK);
	mcc(mcc::ACTIVATE, q.handle);
	mcc(mcc::RELEASE_UPDATE_HANDLE, q.handle);
	EXPECT_EQ(h.fw().fwup.stored(), kNew);
}

TEST_F(FwUpd, ResetDropsAnUpdateInProgress)
{
	auto img = image(kNew, 200);
	Mcc q = mcc_query();
	mcc(mcc::LOCK_UPDATE_HANDLE, q.handle);
	mcc(mcc::UPDATE_COMPONENT, q.handle, static_cast<uint32_t>(img.size()));
	h.hca->reset();
	h.init_cmdq();
	h.enable();
	Mcc after = mcc_query();
	EXPECT_EQ(after.state, mcc::IDLE);
	EXPECT_NE(after.handle, q.handle);
	EXPECT_EQ(iseg_version(), fw_version(16, 35, 4030));
}

TEST_F(FwUpd, InjectedFaultsFailOnce)
{
	auto img = image(kNew, 200);
	h.fw().fwup.fail_next(FwUpdate::Step::Verify);
	uint32_t handle = flash_to_verify(img);
	EXPECT_EQ(mcc_query().error, mcc::ERR_DIGEST);
	mcc(mcc::CANCEL, handle);
	mcc(mcc::RELEASE_UPDATE_HANDLE, handle);
	handle = flash_to_verify(img); // the next one passes
	EXPECT_EQ(mcc_query().error, mcc::ERR_OK);
	mcc(mcc::ACTIVATE, handle);
	EXPECT_TRUE(h.fw().fwup.pending());
}

TEST(FwUpdateVf, VfReadsVersionsButCannotFlash)
{
	HcaConfig c;
	c.role = pci::FunctionRole::Vf;
	FwHarness h(c);
	h.enable();
	Msg m(op::ACCESS_REG, ar::WRITE, ar::kData + mcc::kSize);
	m.set(bits::Field{2, 15, 0}, reg_mng::MCC);
	m.set(mcc::instruction.at(ar::kData), mcc::LOCK_UPDATE_HANDLE);
	m.set(mcc::update_handle.at(ar::kData), 1);
	h.fails(m, ar::kData + mcc::kSize, status::BAD_PARAM);
	Msg q(op::ACCESS_REG, ar::READ, ar::kData + mcqs::kSize);
	q.set(bits::Field{2, 15, 0}, reg_mng::MCQS);
	q.set(mcqs::component_index.at(ar::kData), 1);
	auto out = h.ok(q, ar::kData + mcqs::kSize);
	EXPECT_EQ(bits::get(out.data() + ar::kData, mcqs::identifier), uint32_t{mcqs::ID_BOOT_IMG});
}

TEST(FwUpdateCrc, MatchesZlib)
{
	const char s[] = "123456789";
	EXPECT_EQ(FwUpdate::crc32(reinterpret_cast<const uint8_t *>(s), 9), 0xcbf43926u);
}

} // namespace
} // namespace mlx5emu::test
