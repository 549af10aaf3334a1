// SPDX-License-Identifier: GPL-2.0
/*
 * DCB (IEEE 802.1Qaz) through dcbnl, on the port's vport group manager
 * when the device has the qos capability:
 * - ETS: priority -> traffic class (QTCT, one access per priority) and
 *   per TC its group and bandwidth share (QETCR, one write). ETS TCs share
 *   group 0 (group 1 for those with a share when some asked for 0 %, which
 *   then split group 0 evenly); strict TCs get the groups above, in TC
 *   order; TCs left to the device (vendor) sit in group 7 at 100 %.
 * - Rate limits per TC (QETCR): 100 Mb/s units up to 25.5 Gb/s, Gb/s
 *   above, 8-bit values.
 * - PFC (PFCC): the priorities paused in both directions, global pause
 *   off; `ethtool -A` changes global pause only.
 * - APP: DSCP entries only. The first one switches the port to DSCP
 *   trust (QPTS), each writes its DSCP's priority (QPDPM), deleting the
 *   last returns to PCP trust. `dcb apptrust` sets the trust directly
 *   (PCP or DSCP alone), where the kernel has it (not 6.1).
 * - Receive buffers (PBMC, PPTB), read only.
 * - DCBX is the host's (DCBX_PARAM in host mode); no firmware agent.
 * The device keeps all of it; what the driver keeps is what the registers
 * cannot say (the TSA a TC was given, the cable length, the APP count).
 */
#include <net/dcbnl.h>

#include "en.h"

#define EN_DCB_MAX_BW		100
#define EN_DCB_VENDOR_GROUP	7
#define EN_DCB_CELL_BYTES	128	/* no SBCAM: the port's buffer cell */
#define EN_DCB_INTERNAL_BUFS	2	/* PBMC buffers 8 and 9: the device's */
#define EN_DCB_MAX_CABLE_LEN	1000	/* meters */
#define EN_DCB_DEF_CABLE_LEN	7
#define EN_DCB_RATE_100M	3	/* QETCR max_bw_units */
#define EN_DCB_RATE_1G		4
#define EN_DCB_TRUST_PCP	1	/* QPTS trust_state */
#define EN_DCB_TRUST_DSCP	2
#define EN_DCB_KBPS_100M	(100 * 1000)
#define EN_DCB_KBPS_1G		(1000 * 1000)

static int dcb_reg(struct mlx5c_en_priv *priv, u16 reg, bool write, const void *in,
		   void *out, int size)
{
	return mlx5c_access_reg(priv->mdev, reg, write, in, out, size);
}

#define EN_CAP(priv, fld) MLX5_GET(cmd_hca_cap, mlx5c_cap_general((priv)->mdev), fld)

static int query_qetcr(struct mlx5c_en_priv *priv, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(qetc_reg)] = {};

	MLX5_SET(qetc_reg, in, port_number, 1);
	return dcb_reg(priv, MLX5C_REG_QETCR, false, in, out, MLX5_ST_SZ_BYTES(qetc_reg));
}

static int en_dcb_getets(struct net_device *netdev, struct ieee_ets *ets)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u32 qetc[MLX5_ST_SZ_DW(qetc_reg)];
	u8 group[IEEE_8021QAZ_MAX_TCS];
	bool split = false;
	int i, err;

	if (!priv->dcb.ets)
		return -EOPNOTSUPP;
	memset(ets, 0, sizeof(*ets));
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		u32 in[MLX5_ST_SZ_DW(qtct_reg)] = {};
		u32 out[MLX5_ST_SZ_DW(qtct_reg)];

		MLX5_SET(qtct_reg, in, port_number, 1);
		MLX5_SET(qtct_reg, in, prio, i);
		err = dcb_reg(priv, MLX5C_REG_QTCT, false, in, out, sizeof(out));
		if (err)
			return err;
		ets->prio_tc[i] = MLX5_GET(qtct_reg, out, tclass);
	}
	err = query_qetcr(priv, qetc);
	if (err)
		return err;

	ets->ets_cap = priv->dcb.num_tc;
	for (i = 0; i < priv->dcb.num_tc; i++) {
		group[i] = MLX5_GET(qetc_reg, qetc, tc_configuration[i].group);
		ets->tc_tx_bw[i] = MLX5_GET(qetc_reg, qetc, tc_configuration[i].bw_allocation);
		if (priv->dcb.tsa[i] == IEEE_8021QAZ_TSA_ETS && group[i] == 1)
			split = true;
	}
	for (i = 0; i < priv->dcb.num_tc; i++) {
		/* A 0 % request shares group 0 evenly; it reads back as 0. */
		if (split && group[i] == 0)
			ets->tc_tx_bw[i] = 0;
		if (ets->tc_tx_bw[i] < EN_DCB_MAX_BW)
			priv->dcb.tsa[i] = IEEE_8021QAZ_TSA_ETS;
		ets->tc_tsa[i] = priv->dcb.tsa[i];
		if (ets->tc_tsa[i] != IEEE_8021QAZ_TSA_ETS)
			ets->tc_tx_bw[i] = 0;
	}
	return 0;
}

/* Group and share of each TC for @ets, as the file's header says. */
static void ets_layout(const struct ieee_ets *ets, int num_tc, u8 *group, u8 *bw)
{
	int zero = 0, last_zero = -1, ets_tcs = 0, next, i;

	for (i = 0; i < num_tc; i++) {
		if (ets->tc_tsa[i] != IEEE_8021QAZ_TSA_ETS)
			continue;
		ets_tcs++;
		if (!ets->tc_tx_bw[i]) {
			zero++;
			last_zero = i;
		}
	}
	next = (ets_tcs ? 1 : 0) + (zero ? 1 : 0);
	for (i = 0; i < num_tc; i++) {
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			if (ets->tc_tx_bw[i]) {
				group[i] = zero ? 1 : 0;
				bw[i] = ets->tc_tx_bw[i];
			} else {
				group[i] = 0;
				bw[i] = EN_DCB_MAX_BW / zero;
			}
			break;
		case IEEE_8021QAZ_TSA_STRICT:
			group[i] = next++;
			bw[i] = EN_DCB_MAX_BW;
			break;
		default:
			group[i] = EN_DCB_VENDOR_GROUP;
			bw[i] = EN_DCB_MAX_BW;
			break;
		}
	}
	if (last_zero >= 0)
		bw[last_zero] += EN_DCB_MAX_BW % zero;
}

static int ets_apply(struct mlx5c_en_priv *priv, const struct ieee_ets *ets)
{
	u32 qetc[MLX5_ST_SZ_DW(qetc_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(qetc_reg)];
	u8 group[IEEE_8021QAZ_MAX_TCS] = {};
	u8 bw[IEEE_8021QAZ_MAX_TCS] = {};
	int i, err;

	ets_layout(ets, priv->dcb.num_tc, group, bw);
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		u32 in[MLX5_ST_SZ_DW(qtct_reg)] = {};
		u32 qout[MLX5_ST_SZ_DW(qtct_reg)];

		MLX5_SET(qtct_reg, in, port_number, 1);
		MLX5_SET(qtct_reg, in, prio, i);
		MLX5_SET(qtct_reg, in, tclass, ets->prio_tc[i]);
		err = dcb_reg(priv, MLX5C_REG_QTCT, true, in, qout, sizeof(qout));
		if (err)
			return err;
	}
	MLX5_SET(qetc_reg, qetc, port_number, 1);
	for (i = 0; i < priv->dcb.num_tc; i++) {
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].g, 1);
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].group, group[i]);
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].b, 1);
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].bw_allocation, bw[i]);
	}
	err = dcb_reg(priv, MLX5C_REG_QETCR, true, qetc, out, sizeof(out));
	if (err)
		return err;
	memcpy(priv->dcb.tsa, ets->tc_tsa, sizeof(priv->dcb.tsa));
	return 0;
}

static int en_dcb_setets(struct net_device *netdev, struct ieee_ets *ets)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	bool have_ets = false;
	int sum = 0, i;

	if (!priv->dcb.ets)
		return -EOPNOTSUPP;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= priv->dcb.num_tc) {
			netdev_err(netdev, "ETS: priority %d maps to TC %u, past the last TC %d\n",
				   i, ets->prio_tc[i], priv->dcb.num_tc - 1);
			return -EINVAL;
		}
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			have_ets = true;
			sum += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			netdev_err(netdev, "ETS: TC %d: transmission selection %u is not supported\n",
				   i, ets->tc_tsa[i]);
			return -EOPNOTSUPP;
		}
	}
	if (have_ets && sum != EN_DCB_MAX_BW) {
		netdev_err(netdev, "ETS: the ETS TCs' bandwidth adds up to %d%%, not 100%%\n", sum);
		return -EINVAL;
	}
	return ets_apply(priv, ets);
}

static int en_dcb_getmaxrate(struct net_device *netdev, struct ieee_maxrate *maxrate)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u32 qetc[MLX5_ST_SZ_DW(qetc_reg)];
	int i, err;

	if (!priv->dcb.ets)
		return -EOPNOTSUPP;
	err = query_qetcr(priv, qetc);
	if (err)
		return err;
	memset(maxrate, 0, sizeof(*maxrate));
	for (i = 0; i < priv->dcb.num_tc; i++) {
		u64 v = MLX5_GET(qetc_reg, qetc, tc_configuration[i].max_bw_value);

		switch (MLX5_GET(qetc_reg, qetc, tc_configuration[i].max_bw_units)) {
		case EN_DCB_RATE_100M:
			maxrate->tc_maxrate[i] = v * EN_DCB_KBPS_100M;
			break;
		case EN_DCB_RATE_1G:
			maxrate->tc_maxrate[i] = v * EN_DCB_KBPS_1G;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int en_dcb_setmaxrate(struct net_device *netdev, struct ieee_maxrate *maxrate)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u32 qetc[MLX5_ST_SZ_DW(qetc_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(qetc_reg)];
	int i;

	if (!priv->dcb.ets)
		return -EOPNOTSUPP;
	MLX5_SET(qetc_reg, qetc, port_number, 1);
	for (i = 0; i < priv->dcb.num_tc; i++) {
		u64 kbps = maxrate->tc_maxrate[i];
		u32 units = 0, value = 0;

		if (kbps && kbps <= (u64)U8_MAX * EN_DCB_KBPS_100M) {
			units = EN_DCB_RATE_100M;
			value = max_t(u32, div_u64(kbps, EN_DCB_KBPS_100M), 1);
		} else if (kbps && kbps <= (u64)U8_MAX * EN_DCB_KBPS_1G) {
			units = EN_DCB_RATE_1G;
			value = div_u64(kbps, EN_DCB_KBPS_1G);
		} else if (kbps) {
			netdev_err(netdev, "TC %d: rate limit %llu kbit/s is above %u Gbit/s\n",
				   i, kbps, U8_MAX);
			return -EINVAL;
		}
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].r, 1);
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].max_bw_units, units);
		MLX5_SET(qetc_reg, qetc, tc_configuration[i].max_bw_value, value);
	}
	return dcb_reg(priv, MLX5C_REG_QETCR, true, qetc, out, sizeof(out));
}

static int query_pfcc(struct mlx5c_en_priv *priv, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(pfcc_reg)] = {};

	MLX5_SET(pfcc_reg, in, local_port, 1);
	return dcb_reg(priv, MLX5C_REG_PFCC, false, in, out, MLX5_ST_SZ_BYTES(pfcc_reg));
}

static int en_dcb_getpfc(struct net_device *netdev, struct ieee_pfc *pfc)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u32 out[MLX5_ST_SZ_DW(pfcc_reg)];
	int err;

	err = query_pfcc(priv, out);
	if (err)
		return err;
	memset(pfc, 0, sizeof(*pfc));
	pfc->pfc_cap = priv->dcb.num_tc;
	pfc->pfc_en = MLX5_GET(pfcc_reg, out, pfctx);
	if (priv->dcb.buffers)
		pfc->delay = priv->dcb.cable_len;
	return 0;
}

static int en_dcb_setpfc(struct net_device *netdev, struct ieee_pfc *pfc)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	u32 in[MLX5_ST_SZ_DW(pfcc_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(pfcc_reg)];
	int err;

	err = query_pfcc(priv, out);
	if (err)
		return err;
	if (MLX5_GET(pfcc_reg, out, pfctx) != pfc->pfc_en ||
	    MLX5_GET(pfcc_reg, out, pfcrx) != pfc->pfc_en) {
		/* PFC and global pause exclude each other: pause goes off. */
		MLX5_SET(pfcc_reg, in, local_port, 1);
		MLX5_SET(pfcc_reg, in, pfctx, pfc->pfc_en);
		MLX5_SET(pfcc_reg, in, pfcrx, pfc->pfc_en);
		MLX5_SET(pfcc_reg, in, prio_mask_tx, 0xff);
		MLX5_SET(pfcc_reg, in, prio_mask_rx, 0xff);
		err = dcb_reg(priv, MLX5C_REG_PFCC, true, in, out, sizeof(out));
		if (err)
			return err;
	}
	if (pfc->delay && pfc->delay < EN_DCB_MAX_CABLE_LEN)
		priv->dcb.cable_len = pfc->delay;
	return 0;
}

static int set_trust(struct mlx5c_en_priv *priv, u8 trust)
{
	u32 in[MLX5_ST_SZ_DW(qpts_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(qpts_reg)];
	int err;

	MLX5_SET(qpts_reg, in, local_port, 1);
	MLX5_SET(qpts_reg, in, trust_state, trust);
	err = dcb_reg(priv, MLX5C_REG_QPTS, true, in, out, sizeof(out));
	if (!err)
		priv->dcb.trust = trust;
	return err;
}

static int set_dscp_prio(struct mlx5c_en_priv *priv, u8 dscp, u8 prio)
{
	int sz = MLX5_ST_SZ_BYTES(qpdpm_reg);
	void *in, *out, *e;
	int err;

	in = kzalloc(sz, GFP_KERNEL);
	out = kzalloc(sz, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	/* Only the entry with `e` set changes. */
	MLX5_SET(qpdpm_reg, in, local_port, 1);
	e = MLX5_ADDR_OF(qpdpm_reg, in, dscp[dscp]);
	MLX5_SET16(qpdpm_dscp_reg, e, e, 1);
	MLX5_SET16(qpdpm_dscp_reg, e, prio, prio);
	err = dcb_reg(priv, MLX5C_REG_QPDPM, true, in, out, sz);
	if (!err)
		priv->dcb.dscp_prio[dscp] = prio;
out:
	kfree(out);
	kfree(in);
	return err;
}

static int en_dcb_setapp(struct net_device *netdev, struct dcb_app *app)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	struct dcb_app old;
	bool fresh;
	int err;

	if (!priv->dcb.dscp)
		return -EOPNOTSUPP;
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= MLX5C_EN_NUM_DSCP ||
	    app->priority >= IEEE_8021QAZ_MAX_TCS)
		return -EINVAL;

	if (!priv->dcb.dscp_apps) {
		err = set_trust(priv, EN_DCB_TRUST_DSCP);
		if (err)
			return err;
	}
	old.selector = IEEE_8021QAZ_APP_SEL_DSCP;
	old.protocol = app->protocol;
	old.priority = priv->dcb.dscp_prio[app->protocol];
	if (app->priority != old.priority) {
		err = set_dscp_prio(priv, app->protocol, app->priority);
		if (err)
			goto err_trust;
	}
	/* One entry per DSCP: the new one replaces the old. */
	fresh = dcb_ieee_delapp(netdev, &old) != 0;
	err = dcb_ieee_setapp(netdev, app);
	if (err)
		return err;
	if (fresh)
		priv->dcb.dscp_apps++;
	return 0;

err_trust:
	if (!priv->dcb.dscp_apps)
		set_trust(priv, EN_DCB_TRUST_PCP);
	return err;
}

static int en_dcb_delapp(struct net_device *netdev, struct dcb_app *app)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	int err;

	if (!priv->dcb.dscp)
		return -EOPNOTSUPP;
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= MLX5C_EN_NUM_DSCP)
		return -EINVAL;
	if (!priv->dcb.dscp_apps || app->priority != priv->dcb.dscp_prio[app->protocol])
		return -ENOENT;
	err = dcb_ieee_delapp(netdev, app);
	if (err)
		return err;
	priv->dcb.dscp_apps--;
	/* Back to the DSCP's class selector, the device's default. */
	err = set_dscp_prio(priv, app->protocol, app->protocol >> 3);
	if (!priv->dcb.dscp_apps) {
		int terr = set_trust(priv, EN_DCB_TRUST_PCP);

		err = err ? err : terr;
	}
	return err;
}

#ifdef HAVE_DCBNL_APPTRUST
/*
 * The trust order, as QPTS has it: PCP alone or DSCP alone (no "both" in
 * QCAM). DSCP APP entries still switch it as they come and go.
 */
static int en_dcb_setapptrust(struct net_device *netdev, u8 *sel, int nsel)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	if (!priv->dcb.dscp)
		return -EOPNOTSUPP;
	if (nsel != 1 || (sel[0] != DCB_APP_SEL_PCP && sel[0] != IEEE_8021QAZ_APP_SEL_DSCP))
		return -EOPNOTSUPP;
	return set_trust(priv, sel[0] == DCB_APP_SEL_PCP ? EN_DCB_TRUST_PCP : EN_DCB_TRUST_DSCP);
}

static int en_dcb_getapptrust(struct net_device *netdev, u8 *sel, int *nsel)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);

	if (!priv->dcb.dscp)
		return -EOPNOTSUPP;
	sel[0] = priv->dcb.trust == EN_DCB_TRUST_DSCP ? IEEE_8021QAZ_APP_SEL_DSCP : DCB_APP_SEL_PCP;
	*nsel = 1;
	return 0;
}
#endif

static u8 en_dcb_getdcbx(struct net_device *netdev)
{
	return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

static u8 en_dcb_setdcbx(struct net_device *netdev, u8 mode)
{
	/* Only what getdcbx says: the host runs IEEE DCBX. */
	return mode == (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) ? 0 : 1;
}

static int en_dcb_getbuffer(struct net_device *netdev, struct dcbnl_buffer *buf)
{
	struct mlx5c_en_priv *priv = netdev_priv(netdev);
	int sz = MLX5_ST_SZ_BYTES(pbmc_reg);
	u32 pptb_in[MLX5_ST_SZ_DW(pptb_reg)] = {};
	u32 pptb[MLX5_ST_SZ_DW(pptb_reg)];
	u32 internal = 0, map;
	void *in, *out;
	int i, err;

	if (!priv->dcb.buffers)
		return -EOPNOTSUPP;
	MLX5_SET(pptb_reg, pptb_in, local_port, 1);
	err = dcb_reg(priv, MLX5C_REG_PPTB, false, pptb_in, pptb, sizeof(pptb));
	if (err)
		return err;
	map = MLX5_GET(pptb_reg, pptb, prio_x_buff);
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		buf->prio2buffer[i] = (map >> (4 * i)) & 0xf;

	in = kzalloc(sz, GFP_KERNEL);
	out = kzalloc(sz, GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	MLX5_SET(pbmc_reg, in, local_port, 1);
	err = dcb_reg(priv, MLX5C_REG_PBMC, false, in, out, sz);
	if (err)
		goto out;
	for (i = 0; i < DCBX_MAX_BUFFERS; i++)
		buf->buffer_size[i] = MLX5_GET(bufferx_reg, MLX5_ADDR_OF(pbmc_reg, out, buffer[i]),
					       size) * EN_DCB_CELL_BYTES;
	for (i = DCBX_MAX_BUFFERS; i < DCBX_MAX_BUFFERS + EN_DCB_INTERNAL_BUFS; i++)
		internal += MLX5_GET(bufferx_reg, MLX5_ADDR_OF(pbmc_reg, out, buffer[i]), size);
	buf->total_size = (MLX5_GET(pbmc_reg, out, port_buffer_size) - internal) *
			  EN_DCB_CELL_BYTES;
out:
	kfree(out);
	kfree(in);
	return err;
}

static const struct dcbnl_rtnl_ops en_dcbnl_ops = {
	.ieee_getets = en_dcb_getets,
	.ieee_setets = en_dcb_setets,
	.ieee_getmaxrate = en_dcb_getmaxrate,
	.ieee_setmaxrate = en_dcb_setmaxrate,
	.ieee_getpfc = en_dcb_getpfc,
	.ieee_setpfc = en_dcb_setpfc,
	.ieee_setapp = en_dcb_setapp,
	.ieee_delapp = en_dcb_delapp,
	.getdcbx = en_dcb_getdcbx,
	.setdcbx = en_dcb_setdcbx,
	.dcbnl_getbuffer = en_dcb_getbuffer,
#ifdef HAVE_DCBNL_APPTRUST
	.dcbnl_setapptrust = en_dcb_setapptrust,
	.dcbnl_getapptrust = en_dcb_getapptrust,
#endif
};

/* Bit @n of a PCAM/QCAM register mask (bit 0 in the mask's last byte). */
static bool cam_bit(const u8 *mask, int n)
{
	return mask[15 - n / 8] & BIT(n % 8);
}

static bool cam_has(struct mlx5c_en_priv *priv, u16 reg, u16 base, const int *bits, int n)
{
	u32 in[MLX5_ST_SZ_DW(pcam_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(pcam_reg)];
	const u8 *mask = (const u8 *)out + 8;
	int i;

	/* PCAM and QCAM share the layout up to the register mask. */
	BUILD_BUG_ON(MLX5_BYTE_OFF(qcam_reg, qos_access_reg_cap_mask) != 8 ||
		     MLX5_BYTE_OFF(pcam_reg, port_access_reg_cap_mask) != 8);
	if (dcb_reg(priv, reg, false, in, out,
		    reg == MLX5C_REG_PCAM ? MLX5_ST_SZ_BYTES(pcam_reg) : MLX5_ST_SZ_BYTES(qcam_reg)))
		return false;
	for (i = 0; i < n; i++)
		if (!cam_bit(mask, bits[i] - base))
			return false;
	return true;
}

/**
 * mlx5c_en_dcb_init() - offer DCB on the netdev when the device has it
 * @priv: netdev private data, before register_netdev()
 *
 * On the port's manager with the qos capability: dcbnl_ops, the DCBX
 * mode set to host, and ETS as at power-on of the driver: every TC left
 * to the device, priority 0 on TC 1 and 1 on TC 0 (802.1Q's order of the
 * two), the rest on their own number. DSCP trust needs QPTS and QPDPM in
 * QCAM, the buffers PBMC and PPTB in PCAM.
 */
void mlx5c_en_dcb_init(struct mlx5c_en_priv *priv)
{
	static const int qcam_regs[] = { MLX5C_REG_QPTS, MLX5C_REG_QPDPM };
	static const int pcam_regs[] = { MLX5C_REG_PBMC, MLX5C_REG_PPTB };
	struct mlx5c_en_dcb *dcb = &priv->dcb;
	struct ieee_ets ets = {};
	int i;

	if (!EN_CAP(priv, vport_group_manager) || !EN_CAP(priv, qos))
		return;
	dcb->num_tc = EN_CAP(priv, max_tc) ?: IEEE_8021QAZ_MAX_TCS;
	dcb->num_tc = min_t(int, dcb->num_tc, IEEE_8021QAZ_MAX_TCS);
	dcb->cable_len = EN_DCB_DEF_CABLE_LEN;
	dcb->trust = EN_DCB_TRUST_PCP;
	for (i = 0; i < MLX5C_EN_NUM_DSCP; i++)
		dcb->dscp_prio[i] = i >> 3;
	dcb->dscp = EN_CAP(priv, qcam_reg) &&
		    cam_has(priv, MLX5C_REG_QCAM, 0x4000, qcam_regs, ARRAY_SIZE(qcam_regs));
	dcb->buffers = EN_CAP(priv, pcam_reg) &&
		       cam_has(priv, MLX5C_REG_PCAM, 0x5000, pcam_regs, ARRAY_SIZE(pcam_regs));
	if (dcb->dscp) {
		u32 in[MLX5_ST_SZ_DW(qpts_reg)] = {};
		u32 out[MLX5_ST_SZ_DW(qpts_reg)];

		/* A previous driver may have left DSCP trust: back to PCP. */
		MLX5_SET(qpts_reg, in, local_port, 1);
		if (!dcb_reg(priv, MLX5C_REG_QPTS, false, in, out, sizeof(out)) &&
		    MLX5_GET(qpts_reg, out, trust_state) != EN_DCB_TRUST_PCP)
			set_trust(priv, EN_DCB_TRUST_PCP);
	}
	if (EN_CAP(priv, dcbx)) {
		u32 param[MLX5_ST_SZ_DW(dcbx_param)] = {};
		u32 out[MLX5_ST_SZ_DW(dcbx_param)];

		MLX5_SET(dcbx_param, param, port_number, 1);
		if (!dcb_reg(priv, MLX5C_REG_DCBX_PARAM, false, param, out, sizeof(out)) &&
		    MLX5_GET(dcbx_param, out, version_oper)) {
			MLX5_SET(dcbx_param, out, version_admin, 0);
			MLX5_SET(dcbx_param, out, port_number, 1);
			if (dcb_reg(priv, MLX5C_REG_DCBX_PARAM, true, out, param, sizeof(out)))
				netdev_warn(priv->netdev, "DCBX stays with the device's agent\n");
		}
	}
	dcb->ets = EN_CAP(priv, ets);
	if (dcb->ets) {
		for (i = 0; i < dcb->num_tc; i++) {
			ets.tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
			ets.prio_tc[i] = i;
		}
		if (dcb->num_tc > 1) {
			ets.prio_tc[0] = 1;
			ets.prio_tc[1] = 0;
		}
		if (ets_apply(priv, &ets))
			netdev_warn(priv->netdev, "ETS: the initial TC layout was refused\n");
	}
	priv->netdev->dcbnl_ops = &en_dcbnl_ops;
}

/**
 * mlx5c_en_dcb_cleanup() - forget the netdev's DSCP APP entries
 * @priv: netdev private data, after unregister_netdev()
 *
 * dcbnl keeps APP entries by ifindex, beyond the netdev's life.
 */
void mlx5c_en_dcb_cleanup(struct mlx5c_en_priv *priv)
{
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	int i;

	for (i = 0; i < MLX5C_EN_NUM_DSCP && priv->dcb.dscp_apps; i++) {
		app.protocol = i;
		app.priority = priv->dcb.dscp_prio[i];
		if (!dcb_ieee_delapp(priv->netdev, &app))
			priv->dcb.dscp_apps--;
	}
}
