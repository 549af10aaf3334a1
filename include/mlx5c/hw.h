/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts of the ConnectX device interface (PRM) that the kernel's mlx5
 * headers do not give us, each written once, for mlx5_core (core/ and
 * core/en/) and mlx5_ib.
 *
 * Taken from the kernel headers instead, and not repeated here:
 * command and context layouts (<linux/mlx5/mlx5_ifc.h>), EQE, CQE and
 * health-buffer layouts, event types (<linux/mlx5/device.h>), the CQ
 * doorbell and the send doorbell (the first BlueFlame register) of a UAR
 * page, MLX5_CQ_DOORBELL and MLX5_BF_OFFSET (<linux/mlx5/doorbell.h>), and
 * the send-WQE units, MLX5_SEND_WQE_BB (64-byte basic block) and
 * MLX5_SEND_WQE_DS (16-byte data-segment unit) (<linux/mlx5/qp.h>).
 */
#ifndef MLX5C_HW_H
#define MLX5C_HW_H

#include <linux/bits.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/doorbell.h>
#include <linux/mlx5/mlx5_ifc.h>

/* ---- Initialization segment (BAR0, big-endian registers) -------------- */

#define MLX5C_ISEG_FW_REV		0x000
#define MLX5C_ISEG_CMDIF_REV_FW_SUB	0x004
#define MLX5C_ISEG_CMDQ_ADDR_H		0x010
#define MLX5C_ISEG_CMDQ_ADDR_L_SZ	0x014
#define MLX5C_ISEG_CMD_DBELL		0x018
#define MLX5C_ISEG_INITIALIZING		0x1fc
#define MLX5C_ISEG_HEALTH		0x200	/* struct health_buffer */
#define MLX5C_ISEG_CMD_EXEC_TO		0xff8	/* command timeout */
#define MLX5C_ISEG_CMD_Q_INIT_TO	0xffc	/* initializing-wait timeout */
#define MLX5C_ISEG_INTERNAL_TIMER_H	0x1000
#define MLX5C_ISEG_INTERNAL_TIMER_L	0x1004
#define MLX5C_ISEG_HEALTH_COUNTER	0x1010
#define MLX5C_ISEG_SIZE			0x2010

/* The command interface revision this driver speaks. */
#define MLX5C_CMDIF_REV			5

/* Bits of the initializing register. */
#define MLX5C_ISEG_INITIALIZING_BIT	BIT(31)
#define MLX5C_ISEG_FW_RESET_BIT		BIT(30)	/* software reset supported */
#define MLX5C_ISEG_ECPU_BIT		BIT(23)

/* NIC-interface field of cmdq_addr_l_sz, bits 10:8. */
#define MLX5C_NIC_IFC_FULL		0
#define MLX5C_NIC_IFC_DISABLED		1
#define MLX5C_NIC_IFC_SW_RESET		7

/**
 * mlx5c_iseg_timeout_ms() - decode a timeout register of the init segment
 * @reg: cmd_exec_to or cmd_q_init_to
 *
 * Bits 31:29 are the unit (0 ms, 1 s, 2 min, 3 h), bits 19:0 the value.
 * The register reads 0 when the firmware does not give timeouts: the
 * caller keeps its default then. Longer than UINT_MAX ms reads UINT_MAX.
 *
 * Return: the timeout in ms, 0 for a register of 0.
 */
static inline unsigned int mlx5c_iseg_timeout_ms(u32 reg)
{
	static const u32 unit_ms[] = { 1, 1000, 60 * 1000, 3600 * 1000 };
	u32 unit = reg >> 29;
	u64 ms;

	/* Units 4-7 are not defined: take the longest. */
	if (unit >= ARRAY_SIZE(unit_ms))
		unit = ARRAY_SIZE(unit_ms) - 1;
	ms = (u64)(reg & GENMASK(19, 0)) * unit_ms[unit];
	return ms > UINT_MAX ? UINT_MAX : ms;
}

/* ---- UAR page --------------------------------------------------------- */

/* EQ doorbells: consumer index with (ARM) or without (CI) re-arming. */
#define MLX5C_UAR_EQ_ARM_DB		0x40
#define MLX5C_UAR_EQ_CI_DB		0x48

/* ---- Access register ids ---------------------------------------------- */

/*
 * <linux/mlx5/driver.h> has them as well, but with the whole of upstream
 * mlx5_core's structures; core/ includes only device.h and mlx5_ifc.h.
 */
#define MLX5C_REG_PCAP			0x5001
#define MLX5C_REG_PMTU			0x5003
#define MLX5C_REG_PTYS			0x5004
#define MLX5C_REG_PAOS			0x5006
#define MLX5C_REG_PVLC			0x500f
#define MLX5C_REG_NODE_DESC		0x6001

/* PTYS proto_mask: which half of the register, InfiniBand or Ethernet. */
#define MLX5C_PTYS_PROTO_IB		BIT(0)
#define MLX5C_PTYS_PROTO_EN		BIT(2)

/*
 * The lkey that ends a receive scatter list shorter than the WQE's room
 * (and the reserved lkey's value: a data segment carrying it on a queue
 * without rlky is never used for data).
 */
#define MLX5C_INVALID_LKEY		0x100

/* ---- Memory key context ----------------------------------------------- */

/* Rights for mlx5c_mkc_fill(); local read is always granted. */
#define MLX5C_MKC_LW			BIT(0)	/* local write */
#define MLX5C_MKC_RR			BIT(1)	/* remote read */
#define MLX5C_MKC_RW			BIT(2)	/* remote write */
#define MLX5C_MKC_A			BIT(3)	/* remote atomic */

/* Length for mlx5c_mkc_fill(): the whole address space (length64). */
#define MLX5C_MKC_LEN64			U64_MAX

/**
 * mlx5c_mkc_fill() - the fields every mkey context of ours sets
 * @mkc: the mkey context (struct mkc) of a zeroed CREATE_MKEY input
 * @access_mode: MLX5_MKC_ACCESS_MODE_* (PA, MTT, KLMS, MEMIC...)
 * @rights: MLX5C_MKC_* rights
 * @pdn: protection domain
 * @variant: the key's low byte (mkey_7_0)
 * @start: first address (virtual, or device memory for MEMIC)
 * @len: length in bytes, or MLX5C_MKC_LEN64 for the whole address space
 *
 * Not bound to a QP (qpn 0xffffff). The caller adds what its kind of key
 * needs beyond this: translations, page size, free/umr_en...
 */
static inline void mlx5c_mkc_fill(void *mkc, u8 access_mode, u32 rights, u32 pdn,
				  u8 variant, u64 start, u64 len)
{
	MLX5_SET(mkc, mkc, access_mode_1_0, access_mode & 3);
	MLX5_SET(mkc, mkc, access_mode_4_2, access_mode >> 2);
	MLX5_SET(mkc, mkc, a, !!(rights & MLX5C_MKC_A));
	MLX5_SET(mkc, mkc, rw, !!(rights & MLX5C_MKC_RW));
	MLX5_SET(mkc, mkc, rr, !!(rights & MLX5C_MKC_RR));
	MLX5_SET(mkc, mkc, lw, !!(rights & MLX5C_MKC_LW));
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, pd, pdn);
	MLX5_SET(mkc, mkc, mkey_7_0, variant);
	MLX5_SET64(mkc, mkc, start_addr, start);
	if (len == MLX5C_MKC_LEN64)
		MLX5_SET(mkc, mkc, length64, 1);
	else
		MLX5_SET64(mkc, mkc, len, len);
}

#endif /* MLX5C_HW_H */
