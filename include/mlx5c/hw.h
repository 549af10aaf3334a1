/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts of the ConnectX device interface (PRM) that the kernel's mlx5
 * headers do not give us, each written once, for mlx5_core (core/ and
 * core/en/) and mlx5_ib.
 *
 * Taken from the kernel headers instead, and not repeated here: command
 * and context layouts (<linux/mlx5/mlx5_ifc.h>), EQE, CQE and
 * health-buffer layouts, event types (<linux/mlx5/device.h>). Those two
 * are the only mlx5 headers we include: the others of the kernel
 * (qp.h, cq.h, doorbell.h, port.h, vport.h...) are upstream mlx5_core's
 * or pull in its internal API header (driver.h there); make check fails
 * when a build of ours reads one of them (scripts/tests/kernel_headers_test.sh).
 * The WQE layouts are <mlx5c/wqe.h>'s.
 */
#ifndef MLX5C_HW_H
#define MLX5C_HW_H

#include <linux/bits.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/mlx5/device.h>
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

/* CQ doorbell: the arm word (sequence, command, consumer index), then the CQN. */
#define MLX5C_UAR_CQ_DB			0x20
/* EQ doorbells: consumer index with (ARM) or without (CI) re-arming. */
#define MLX5C_UAR_EQ_ARM_DB		0x40
#define MLX5C_UAR_EQ_CI_DB		0x48
/*
 * Send doorbell: the first eight bytes of the send WQE's control segment,
 * at the first BlueFlame register.
 */
#define MLX5C_UAR_BF			0x800

/* ---- Completion queue entries ----------------------------------------- */

/* op_own of struct mlx5_cqe64: opcode in 7:4, the owner bit in 0. */
#define MLX5C_CQE_OWNER_MASK		0x1

/* CQE opcodes. */
#define MLX5C_CQE_REQ			0x0	/* send completed */
#define MLX5C_CQE_RESP_WR_IMM		0x1	/* RDMA write with immediate received */
#define MLX5C_CQE_RESP_SEND		0x2
#define MLX5C_CQE_RESP_SEND_IMM		0x3
#define MLX5C_CQE_RESP_SEND_INV		0x4
#define MLX5C_CQE_REQ_ERR		0xd	/* struct mlx5_err_cqe */
#define MLX5C_CQE_RESP_ERR		0xe	/* struct mlx5_err_cqe */
#define MLX5C_CQE_INVALID		0xf	/* a slot the device has not written */

/* syndrome of an error CQE (struct mlx5_err_cqe). */
#define MLX5C_CQE_SYND_LOCAL_LENGTH		0x01
#define MLX5C_CQE_SYND_LOCAL_QP_OP		0x02
#define MLX5C_CQE_SYND_LOCAL_PROT		0x04
#define MLX5C_CQE_SYND_WR_FLUSH			0x05
#define MLX5C_CQE_SYND_MW_BIND			0x06
#define MLX5C_CQE_SYND_BAD_RESP			0x10
#define MLX5C_CQE_SYND_LOCAL_ACCESS		0x11
#define MLX5C_CQE_SYND_REMOTE_INVAL_REQ		0x12
#define MLX5C_CQE_SYND_REMOTE_ACCESS		0x13
#define MLX5C_CQE_SYND_REMOTE_OP		0x14
#define MLX5C_CQE_SYND_TRANSPORT_RETRY_EXC	0x15
#define MLX5C_CQE_SYND_RNR_RETRY_EXC		0x16
#define MLX5C_CQE_SYND_REMOTE_ABORTED		0x22

/* ---- MODIFY_CQ -------------------------------------------------------- */

/* op_mod 0 changes the moderation, op_mod 1 resizes the CQ. */
#define MLX5C_MODIFY_CQ_OPMOD_RESIZE	1
/* modify_field_select of a moderation change. */
#define MLX5C_MODIFY_CQ_PERIOD		BIT(0)
#define MLX5C_MODIFY_CQ_COUNT		BIT(1)
/* modify_field_select of a resize. */
#define MLX5C_MODIFY_CQ_LOG_SIZE	BIT(0)
#define MLX5C_MODIFY_CQ_PAGE_OFFSET	BIT(1)
#define MLX5C_MODIFY_CQ_LOG_PAGE_SIZE	BIT(2)
/* The largest cq_period the CQ context holds. */
#define MLX5C_MAX_CQ_PERIOD		(BIT(__mlx5_bit_sz(cqc, cq_period)) - 1)

/* ---- QP transitions: opt_param_mask ----------------------------------- */

/*
 * Which optional QP-context fields a transition command applies
 * (ib/qp_rules.h; the emulator's unit test QpRulesCompare has the same
 * values).
 */
#define MLX5C_QP_OPTPAR_RRE		BIT(1)
#define MLX5C_QP_OPTPAR_RAE		BIT(2)
#define MLX5C_QP_OPTPAR_RWE		BIT(3)
#define MLX5C_QP_OPTPAR_PKEY_INDEX	BIT(4)
#define MLX5C_QP_OPTPAR_Q_KEY		BIT(5)
#define MLX5C_QP_OPTPAR_RNR_TIMEOUT	BIT(6)
#define MLX5C_QP_OPTPAR_PRIMARY_ADDR_PATH BIT(7)
#define MLX5C_QP_OPTPAR_SRA_MAX		BIT(8)
#define MLX5C_QP_OPTPAR_RRA_MAX		BIT(9)
#define MLX5C_QP_OPTPAR_PM_STATE	BIT(10)
#define MLX5C_QP_OPTPAR_RETRY_COUNT	BIT(12)
#define MLX5C_QP_OPTPAR_RNR_RETRY	BIT(13)
#define MLX5C_QP_OPTPAR_ACK_TIMEOUT	BIT(14)
#define MLX5C_QP_OPTPAR_PRI_PORT	BIT(16)
#define MLX5C_QP_OPTPAR_COUNTER_SET_ID	BIT(25)

/* ---- Access register ids ---------------------------------------------- */

/*
 * Upstream's internal API header has them as well, but with the whole of
 * mlx5_core's structures; core/ includes only device.h and mlx5_ifc.h.
 */
#define MLX5C_REG_QPTS			0x4002
#define MLX5C_REG_QETCR			0x4005
#define MLX5C_REG_QTCT			0x400a
#define MLX5C_REG_QPDPM			0x4013
#define MLX5C_REG_QCAM			0x4019
#define MLX5C_REG_DCBX_PARAM		0x4020
#define MLX5C_REG_PCAP			0x5001
#define MLX5C_REG_PMTU			0x5003
#define MLX5C_REG_PTYS			0x5004
#define MLX5C_REG_PAOS			0x5006
#define MLX5C_REG_PFCC			0x5007
#define MLX5C_REG_PPTB			0x500b
#define MLX5C_REG_PBMC			0x500c
#define MLX5C_REG_PVLC			0x500f
#define MLX5C_REG_PCAM			0x507f
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
