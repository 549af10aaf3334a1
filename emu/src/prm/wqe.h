// SPDX-License-Identifier: GPL-2.0
// Work-queue-entry facts: send WQE segments (control, remote address,
// atomic, datagram/address vector, data pointer, inline data), receive WQE
// segments, WQE opcodes, and the send doorbell / BlueFlame registers.
// Byte offsets inside each 16-byte-aligned segment; all big-endian.
#pragma once

#include <cstdint>

namespace mlx5emu::prm {

namespace wqe {
constexpr unsigned kBasicBlock = 64; // WQEBB
constexpr unsigned kDsUnit = 16;     // ds counts 16-byte units
constexpr unsigned kMaxWqebbs = 16;

// Control segment (16 bytes).
constexpr unsigned kCtrlOpmodIdxOpcode = 0x0; // be32: opmod << 24 | wqe index << 8 | opcode
constexpr unsigned kCtrlQpnDs = 0x4;          // be32: qpn << 8 | ds
constexpr unsigned kCtrlSignature = 0x8;
constexpr unsigned kCtrlFmCeSe = 0xb;
constexpr unsigned kCtrlImm = 0xc; // be32: immediate / invalidated rkey
constexpr unsigned kCtrlSize = 16;
constexpr uint8_t kFenceMask = 0xe0;      // fm: bits [7:5]
constexpr uint8_t kCeMask = 0x0c;         // ce: bits [3:2]
constexpr uint8_t kCeCqUpdate = 0x08;     // ce = 2: always a CQE
constexpr uint8_t kSolicited = 0x02;
// fence modes (fm_ce_se >> 5)
enum : uint8_t { FM_NONE = 0, FM_INITIATOR_SMALL = 1, FM_FENCE = 2, FM_STRONG_ORDERING = 3, FM_SMALL_AND_FENCE = 4 };

// XRC segment (16 bytes, XRC initiator QPs, right after the control
// segment): the remote XRC SRQ number.
constexpr unsigned kXrcSrqn = 0x0; // be32, [23:0]
constexpr unsigned kXrcSize = 16;

// Remote address segment (16 bytes).
constexpr unsigned kRaddrVa = 0x0;   // be64
constexpr unsigned kRaddrRkey = 0x8; // be32
constexpr unsigned kRaddrSize = 16;

// Atomic segment (16 bytes): swap (or add), compare.
constexpr unsigned kAtomicSwapAdd = 0x0; // be64
constexpr unsigned kAtomicCompare = 0x8; // be64
constexpr unsigned kAtomicSize = 16;

// Datagram segment = address vector (48 bytes).
constexpr unsigned kAvQkey = 0x0;      // be32
constexpr unsigned kAvDcKey = 0x0;     // be64: DCI, the DC access key
constexpr unsigned kAvDqpDct = 0x8;    // be32: ext << 31 | remote QPN
constexpr unsigned kAvStatRateSl = 0xc; // u8: sl in [3:0]
constexpr unsigned kAvFlMlid = 0xd;    // u8: force loopback << 7 | source path bits
constexpr unsigned kAvRlid = 0xe;      // be16 (RoCE: the UDP source port)
constexpr unsigned kAvRmac = 0x14;     // 6 bytes (RoCE)
constexpr uint8_t kAvForceLoopback = 0x80; // in kAvFlMlid
constexpr unsigned kAvSgidIndexShift = 20; // in kAvGrhGidFl, 8 bits
constexpr unsigned kAvTclass = 0x1a;
constexpr unsigned kAvHopLimit = 0x1b;
constexpr unsigned kAvGrhGidFl = 0x1c; // be32: grh << 30 | sgid index [27:20] | flow label [19:0]
constexpr unsigned kAvRgid = 0x20;     // 16 bytes
constexpr unsigned kAvSize = 48;
constexpr unsigned kAvBaseSize = 16; // without the extended part
constexpr uint32_t kAvExtended = 0x80000000u;
constexpr uint32_t kAvGrh = 1u << 30; // in kAvGrhGidFl
constexpr uint32_t kAvFlowLabelMask = 0xfffff;

// Data pointer segment (16 bytes).
constexpr unsigned kDataByteCount = 0x0; // be32 (31 bits)
constexpr unsigned kDataLkey = 0x4;      // be32
constexpr unsigned kDataAddr = 0x8;      // be64
constexpr unsigned kDataSize = 16;
constexpr uint32_t kInlineFlag = 0x80000000u; // inline segment: be32 length | flag, then data
constexpr uint32_t kByteCountMask = 0x7fffffffu;

// The lkey that terminates a receive scatter list.
constexpr uint32_t kTerminateLkey = 0x100;

// SRQ / RMP "next" segment (16 bytes) at the start of every WQE.
constexpr unsigned kSrqNextIndex = 0x2; // be16
constexpr unsigned kSrqNextSize = 16;

// Send WQE opcodes.
enum : uint8_t {
	OP_NOP = 0x00,
	OP_SEND_INVAL = 0x01,
	OP_RDMA_WRITE = 0x08,
	OP_RDMA_WRITE_IMM = 0x09,
	OP_SEND = 0x0a,
	OP_SEND_IMM = 0x0b,
	OP_RDMA_READ = 0x10,
	OP_ATOMIC_CS = 0x11,
	OP_ATOMIC_FA = 0x12,
	OP_ATOMIC_MASKED_CS = 0x14,
	OP_ATOMIC_MASKED_FA = 0x15,
	OP_BIND_MW = 0x18,
	OP_LOCAL_INVAL = 0x1b,
	OP_UMR = 0x25,
};

// UMR control segment (48 bytes), after the control segment of a UMR WQE
// (opcode OP_UMR; the control segment's immediate names the mkey index).
constexpr unsigned kUmrFlags = 0x0;           // u8
constexpr unsigned kUmrXltOctowords = 0x4;    // be16: translation size in 16-byte units
constexpr unsigned kUmrXltOffset = 0x6;       // be16: translation offset [15:0] in 16-byte units
constexpr unsigned kUmrMkeyMask = 0x8;        // be64: mkey context fields to change
constexpr unsigned kUmrXltOffset47_16 = 0x10; // be32
constexpr unsigned kUmrCtrlSize = 48;
enum : uint8_t {
	UMR_INLINE = 0x80,         // translation entries follow the mkey segment
	UMR_FAIL_IF_FREE = 0x40,     // the mkey must be in use
	UMR_FAIL_IF_NOT_FREE = 0x20, // the mkey must be free
	UMR_XLT_OFFSET_EN = 0x10,  // the offset fields apply
	UMR_CHECK_QPN = 0x08,      // fail unless the mkey's qpn is the posting QP's
};
// mkey_mask bits: which fields of the mkey segment a UMR writes.
namespace mkey_mask {
enum : uint64_t {
	LEN = 1ull << 0,
	PAGE_SIZE = 1ull << 1,
	START_ADDR = 1ull << 6,
	PD = 1ull << 7,
	EN_RINVAL = 1ull << 8,
	EN_SIGERR = 1ull << 9,
	BSF_EN = 1ull << 12,
	KEY = 1ull << 13,
	QPN = 1ull << 14,
	LR = 1ull << 17,
	LW = 1ull << 18,
	RR = 1ull << 19,
	RW = 1ull << 20,
	A = 1ull << 21,
	SMALL_FENCE = 1ull << 23,
	FREE = 1ull << 29,
};
} // namespace mkey_mask
// The mkey segment (64 bytes) has the layout of the mkey context (mkey.h).
constexpr unsigned kUmrMkeySegSize = 64;
// Translation entries: MTT (8 bytes: be64 address | rd_en << 0 | wr_en << 1)
// and KLM (16 bytes: be32 byte count, be32 key, be64 address).
constexpr unsigned kMttSize = 8;
constexpr uint64_t kMttPresent = 0x3;
constexpr unsigned kKlmByteCount = 0x0;
constexpr unsigned kKlmKey = 0x4;
constexpr unsigned kKlmAddr = 0x8;
constexpr unsigned kKlmSize = 16;
} // namespace wqe

// Send doorbell / BlueFlame registers inside a UAR page: four registers
// of (1 << log_bf_reg_size) bytes from 0x800, each used as two halves.
namespace bf {
constexpr unsigned kOffset = 0x800;
constexpr unsigned kLogRegSize = 9; // 512-byte registers
constexpr unsigned kHalf = 1u << (kLogRegSize - 1);
} // namespace bf

} // namespace mlx5emu::prm
