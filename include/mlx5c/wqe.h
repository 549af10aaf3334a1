/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work-queue entries as the device reads them, for the netdev's send and
 * receive queues (core/en/) and the kernel QPs and SRQs of mlx5_ib: the
 * units a send queue is counted in, the segments a WQE is built from and
 * the bits of their flag fields. Big-endian on the device; every
 * layout's size is checked at build time below.
 *
 * A send WQE is a control segment followed by the segments its opcode
 * needs, counted in 16-byte units (the control segment's ds field) and
 * stored in 64-byte basic blocks. A receive WQE is a list of data
 * segments (an SRQ's after its next segment, <linux/mlx5/device.h>'s
 * struct mlx5_wqe_srq_next_seg).
 *
 * From <linux/mlx5/device.h>, not repeated here: the send opcodes
 * (MLX5_OPCODE_*), MLX5_INLINE_SEG (the byte-count bit of an inline
 * segment), the UMR mkey-mask bits (MLX5_MKEY_MASK_*).
 */
#ifndef MLX5C_WQE_H
#define MLX5C_WQE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* ---- Units ------------------------------------------------------------ */

#define MLX5C_SEND_WQE_BB		64	/* a send queue's basic block */
#define MLX5C_SEND_WQE_DS		16	/* the unit of the ds field */
/* The longest send WQE the device takes, in basic blocks. */
#define MLX5C_SEND_WQE_MAX_WQEBBS	16
/* The ds field of the control segment: 6 bits. */
#define MLX5C_WQE_CTRL_DS_MASK		0x3f

/*
 * Words of a QP's doorbell record: the receive counter first, the send
 * counter second (an RQ's or SRQ's record uses word 0 only).
 */
#define MLX5C_RCV_DBR			0
#define MLX5C_SND_DBR			1

/* ---- Control segment -------------------------------------------------- */

/**
 * struct mlx5c_wqe_ctrl_seg - the first 16 bytes of every send WQE
 * @opmod_idx_opcode: opcode modifier (31:24), WQE counter (23:8),
 *	opcode (7:0)
 * @qpn_ds: QP or SQ number (31:8), WQE length in 16-byte units (5:0)
 * @signature: WQE signature (unused: 0)
 * @rsvd: reserved
 * @fm_ce_se: fence mode (7:5), completion mode (3:2), solicited (1)
 * @imm: immediate data, the rkey a SEND_WITH_INV or LOCAL_INV names, or
 *	the key a UMR WQE changes
 */
struct mlx5c_wqe_ctrl_seg {
	__be32 opmod_idx_opcode;
	__be32 qpn_ds;
	u8 signature;
	u8 rsvd[2];
	u8 fm_ce_se;
	__be32 imm;
};

/* fm_ce_se bits. */
#define MLX5C_WQE_CTRL_SOLICITED	BIT(1)
/* Completion mode 2: a CQE for this WQE whether or not it fails. */
#define MLX5C_WQE_CTRL_CQ_UPDATE	(2 << 2)
/* Fence mode 2: wait for the RDMA reads and atomics before this WQE. */
#define MLX5C_WQE_CTRL_FENCE		(2 << 5)

/* ---- Ethernet segment ------------------------------------------------- */

/**
 * struct mlx5c_wqe_eth_seg - the second segment of an Ethernet send WQE
 * @swp: software-parser offsets (unused: 0)
 * @cs_flags: MLX5C_ETH_WQE_* checksum offloads
 * @swp_flags: software-parser flags (unused: 0)
 * @mss: segment size of an LSO WQE
 * @flow_table_metadata: metadata for the send flow tables (unused: 0)
 * @inline_hdr_sz: bytes of the frame's headers inlined in the WQE
 * @inline_hdr_start: their first two bytes; the rest follows the
 *	segment, padded to 16 bytes
 */
struct mlx5c_wqe_eth_seg {
	u8 swp[4];
	u8 cs_flags;
	u8 swp_flags;
	__be16 mss;
	__be32 flow_table_metadata;
	__be16 inline_hdr_sz;
	u8 inline_hdr_start[2];
};

/* cs_flags: the outer L3 and L4 checksums. */
#define MLX5C_ETH_WQE_L3_CSUM		BIT(6)
#define MLX5C_ETH_WQE_L4_CSUM		BIT(7)

/* ---- Data, inline, remote address, atomic ----------------------------- */

/**
 * struct mlx5c_wqe_data_seg - a gather (send) or scatter (receive) entry
 * @byte_count: length in bytes
 * @lkey: memory key
 * @addr: address in @lkey's space
 */
struct mlx5c_wqe_data_seg {
	__be32 byte_count;
	__be32 lkey;
	__be64 addr;
};

/**
 * struct mlx5c_wqe_inline_seg - data carried in the WQE itself
 * @byte_count: length in bytes, with MLX5_INLINE_SEG set
 * @data: the bytes, padded to 16 with the header
 */
struct mlx5c_wqe_inline_seg {
	__be32 byte_count;
	__be32 data[];
};

/**
 * struct mlx5c_wqe_raddr_seg - the remote side of an RDMA or atomic WQE
 * @raddr: remote address
 * @rkey: remote key
 * @reserved: reserved
 */
struct mlx5c_wqe_raddr_seg {
	__be64 raddr;
	__be32 rkey;
	u32 reserved;
};

/**
 * struct mlx5c_wqe_atomic_seg - the operands of an atomic WQE
 * @swap_add: swap value (compare and swap) or addend (fetch and add)
 * @compare: compare value (compare and swap)
 */
struct mlx5c_wqe_atomic_seg {
	__be64 swap_add;
	__be64 compare;
};

/* ---- Address vector, datagram segment --------------------------------- */

/**
 * struct mlx5c_av - an address vector: a UD send WQE's destination, and
 *	what mlx5_ib keeps per address handle
 * @qkey: Q_Key
 * @rsvd0: reserved (the high half of a DC key)
 * @dqp_dct: destination QP (23:0)
 * @stat_rate_sl: static rate (7:4), SL (3:0); on Ethernet the priority
 *	in 3:1
 * @fl_mlid: force loopback (7), source path bits (6:0)
 * @rlid: destination LID (InfiniBand)
 * @udp_sport: the RoCEv2 UDP source port (Ethernet), where the LID is
 * @rsvd1: reserved
 * @rmac: destination MAC (Ethernet)
 * @tclass: traffic class
 * @hop_limit: hop limit
 * @grh_gid_fl: GRH present (30), source GID index (27:20), flow label
 *	(19:0)
 * @rgid: destination GID
 */
struct mlx5c_av {
	__be32 qkey;
	__be32 rsvd0;
	__be32 dqp_dct;
	u8 stat_rate_sl;
	u8 fl_mlid;
	union {
		__be16 rlid;
		__be16 udp_sport;
	};
	u8 rsvd1[4];
	u8 rmac[6];
	u8 tclass;
	u8 hop_limit;
	__be32 grh_gid_fl;
	u8 rgid[16];
};

/* ---- UMR control segment ---------------------------------------------- */

/**
 * struct mlx5c_wqe_umr_ctrl_seg - what a UMR WQE changes in a memory key
 * @flags: UMR flags (inline translations, check free...)
 * @rsvd0: reserved
 * @xlt_octowords: translation entries written, in 16-byte units
 * @xlt_offset: offset of the first one (15:0), in 16-byte units
 * @mkey_mask: the MLX5_MKEY_MASK_* fields of the key context to change
 * @xlt_offset_47_16: the offset's high bits
 * @rsvd1: reserved
 */
struct mlx5c_wqe_umr_ctrl_seg {
	u8 flags;
	u8 rsvd0[3];
	__be16 xlt_octowords;
	__be16 xlt_offset;
	__be64 mkey_mask;
	__be32 xlt_offset_47_16;
	u8 rsvd1[28];
};

/* ---- The layouts, checked --------------------------------------------- */

static_assert(sizeof(struct mlx5c_wqe_ctrl_seg) == MLX5C_SEND_WQE_DS);
static_assert(offsetof(struct mlx5c_wqe_ctrl_seg, fm_ce_se) == 11);
static_assert(offsetof(struct mlx5c_wqe_ctrl_seg, imm) == 12);
static_assert(sizeof(struct mlx5c_wqe_eth_seg) == MLX5C_SEND_WQE_DS);
static_assert(offsetof(struct mlx5c_wqe_eth_seg, cs_flags) == 4);
static_assert(offsetof(struct mlx5c_wqe_eth_seg, mss) == 6);
static_assert(offsetof(struct mlx5c_wqe_eth_seg, inline_hdr_sz) == 12);
static_assert(offsetof(struct mlx5c_wqe_eth_seg, inline_hdr_start) == 14);
static_assert(sizeof(struct mlx5c_wqe_data_seg) == MLX5C_SEND_WQE_DS);
static_assert(offsetof(struct mlx5c_wqe_data_seg, addr) == 8);
static_assert(sizeof(struct mlx5c_wqe_inline_seg) == 4);
static_assert(sizeof(struct mlx5c_wqe_raddr_seg) == MLX5C_SEND_WQE_DS);
static_assert(offsetof(struct mlx5c_wqe_raddr_seg, rkey) == 8);
static_assert(sizeof(struct mlx5c_wqe_atomic_seg) == MLX5C_SEND_WQE_DS);
static_assert(sizeof(struct mlx5c_av) == 3 * MLX5C_SEND_WQE_DS);
static_assert(offsetof(struct mlx5c_av, dqp_dct) == 8);
static_assert(offsetof(struct mlx5c_av, stat_rate_sl) == 12);
static_assert(offsetof(struct mlx5c_av, rlid) == 14);
static_assert(offsetof(struct mlx5c_av, rmac) == 20);
static_assert(offsetof(struct mlx5c_av, tclass) == 26);
static_assert(offsetof(struct mlx5c_av, grh_gid_fl) == 28);
static_assert(offsetof(struct mlx5c_av, rgid) == 32);
static_assert(sizeof(struct mlx5c_wqe_umr_ctrl_seg) == 3 * MLX5C_SEND_WQE_DS);
static_assert(offsetof(struct mlx5c_wqe_umr_ctrl_seg, xlt_octowords) == 4);
static_assert(offsetof(struct mlx5c_wqe_umr_ctrl_seg, mkey_mask) == 8);
static_assert(offsetof(struct mlx5c_wqe_umr_ctrl_seg, xlt_offset_47_16) == 16);

#endif /* MLX5C_WQE_H */
