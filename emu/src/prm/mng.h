// SPDX-License-Identifier: GPL-2.0
// The management registers of firmware update (ACCESS_REG): the
// capability mask MCAM, the component query MCQS/MCQI, the update state
// machine MCC and its data MCDA. Same conventions as prm.h: Field{dword,
// high bit, low bit} from the start of the register's data.
#pragma once

#include "prm/bits.h"

namespace mlx5emu::prm {

using bits::Field;

namespace reg_mng {
enum : uint16_t {
	MCQS = 0x9060, // component query status
	MCQI = 0x9061, // component query information
	MCC = 0x9062,  // component control (the update state machine)
	MCDA = 0x9063, // component data access (image blocks)
	MCAM = 0x907f, // management capability mask
};
// MCAM group 0 names register 0x9000 + n by bit n of its mask.
constexpr uint16_t kMcamBase = 0x9000;
constexpr unsigned kMcamSize = 0x48;
} // namespace reg_mng

namespace mcqs {
constexpr unsigned kSize = 0x10;
constexpr Field last_index_flag{0, 31, 31};
constexpr Field component_index{0, 15, 0};
constexpr Field identifier{1, 15, 0};
constexpr Field component_status{2, 8, 4};
constexpr Field component_update_state{2, 3, 0};
enum : uint16_t { ID_BOOT_IMG = 0x1 };
enum : uint8_t { STATUS_NOT_PRESENT = 0, STATUS_PRESENT = 1 };
enum : uint8_t {
	UPDATE_IDLE = 0,
	UPDATE_IN_PROGRESS = 1,
	UPDATE_ACTIVE_PENDING_RESET = 4,
};
} // namespace mcqs

namespace mcqi {
constexpr Field read_pending_component{0, 31, 31};
constexpr Field component_index{0, 15, 0};
constexpr Field info_type{2, 4, 0};
constexpr Field info_size{3, 31, 0};
constexpr Field offset{4, 31, 0};
constexpr Field data_size{5, 15, 0};
constexpr unsigned kData = 0x18;
enum : uint8_t { INFO_CAPABILITIES = 0, INFO_VERSION = 1, INFO_ACTIVATION_METHOD = 5 };
// CAPABILITIES (at kData).
namespace cap {
constexpr unsigned kSize = 0x14;
constexpr Field supported_info_bitmask{0, 31, 0};
constexpr Field component_size{1, 31, 0};
constexpr Field max_component_size{2, 31, 0};
constexpr Field log_mcda_word_size{3, 31, 28};
constexpr Field mcda_max_write_size{3, 15, 0};
constexpr Field match_psid{4, 28, 28};
} // namespace cap
// VERSION (at kData).
namespace version {
constexpr unsigned kSize = 0x7c;
constexpr Field version_string_length{0, 7, 0};
constexpr Field version{1, 31, 0};
constexpr unsigned kString = 0x20;
constexpr unsigned kStringMax = 92;
} // namespace version
// ACTIVATION_METHOD (at kData).
namespace activation {
constexpr unsigned kSize = 4;
constexpr Field pending_fw_reset{0, 28, 28};
} // namespace activation
} // namespace mcqi

namespace mcc {
constexpr unsigned kSize = 0x20;
constexpr Field instruction{0, 7, 0};
constexpr Field component_index{1, 15, 0};
constexpr Field update_handle{2, 23, 0};
constexpr Field error_code{3, 15, 8};
constexpr Field control_state{3, 3, 0};
constexpr Field component_size{4, 31, 0};
enum : uint8_t {
	LOCK_UPDATE_HANDLE = 0x01,
	RELEASE_UPDATE_HANDLE = 0x02,
	UPDATE_COMPONENT = 0x03,
	VERIFY_COMPONENT = 0x04,
	ACTIVATE = 0x06,
	CANCEL = 0x08,
};
enum : uint8_t { IDLE = 0, LOCKED = 1, DOWNLOAD = 3 };
enum : uint8_t {
	ERR_OK = 0,
	ERR_ERROR = 1,
	ERR_DIGEST = 2,         // component hash mismatch
	ERR_NOT_APPLICABLE = 3, // not for this device (PSID)
	ERR_BAD_FORMAT = 8,
};
} // namespace mcc

namespace mcda {
constexpr unsigned kHeader = 0x10;
constexpr Field update_handle{0, 23, 0};
constexpr Field offset{1, 31, 0};
constexpr Field size{2, 15, 0};
} // namespace mcda

// The firmware image the emulated device takes in its boot-image
// component (the emulator's own format; scripts/mkmfa2 writes it inside an
// MFA2 package): a 48-byte header, then any payload, the whole a multiple
// of 4 bytes (MCDA moves dwords).
namespace fw_image {
constexpr char kMagic[] = "MLX5EMU-FWIMAGE!"; // 16 bytes, no NUL
constexpr unsigned kMagicLen = 16;
constexpr unsigned kVersion = 0x10;  // be32: major << 24 | minor << 16 | subminor
constexpr unsigned kSize = 0x14;     // be32: the whole image's bytes
constexpr unsigned kCrc = 0x18;      // be32: CRC-32 (zlib's) of the image, this field 0
constexpr unsigned kPsid = 0x1c;     // 16 bytes, NUL padded
constexpr unsigned kHeaderSize = 0x30;
} // namespace fw_image

} // namespace mlx5emu::prm
