// SPDX-License-Identifier: GPL-2.0
/*
 * mlx5dv verbs: the port query (an mlx5_ib ioctl method of the device
 * object) and mkey objects.
 */
#define _GNU_SOURCE
#include <infiniband/mlx5dv.h>

#include "verbs_compat.h"

int case_dv_query_port(void)
{
	static const uint32_t ports[] = { 1, 0, 3 };
	struct mlx5dv_port info;
	struct two t = {};
	int rc = KSFT_PASS, err, i;
	bool served = false;

	CHECK(!two_open(&t), "open devices");
	for (i = 0; i < 3; i++) {
		char key[32];

		memset(&info, 0xa5, sizeof(info));
		err = mlx5dv_query_port(t.d[0].ctx, ports[i], &info);
		snprintf(key, sizeof(key), "port %u", ports[i]);
		if (err) {
			obs(key, "%s", err_name(err));
			continue;
		}
		served = true;
		obs(key, "0, flags 0x%llx vport %u vport_vhca_id %u esw_owner_vhca_id %u",
		    (unsigned long long)info.flags, info.vport, info.vport_vhca_id,
		    info.esw_owner_vhca_id);
		if (info.flags & MLX5DV_QUERY_PORT_VPORT_STEERING_ICM_RX)
			obs(key, "steering ICM rx 0x%llx tx 0x%llx",
			    (unsigned long long)info.vport_steering_icm_rx,
			    (unsigned long long)info.vport_steering_icm_tx);
		if (info.flags & MLX5DV_QUERY_PORT_VPORT_REG_C0)
			obs(key, "reg_c0 0x%x/0x%x", info.reg_c0.value, info.reg_c0.mask);
		CHECK(ports[i] == 1, "port %u answered", ports[i]);
	}
	if (!served) {
		diag("SKIP: mlx5dv_query_port is not served on port 1");
		rc = KSFT_SKIP;
	}
out:
	two_close(&t);
	return rc;
}

int case_dv_mkey(void)
{
	struct mlx5dv_mkey_init_attr ma = {
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
		.max_entries = 4,
	};
	struct mlx5dv_mkey *mkey;
	struct two t = {};
	int rc = KSFT_PASS, err;

	CHECK(!two_open(&t), "open devices");
	ma.pd = t.d[0].pd;
	mkey = mlx5dv_create_mkey(&ma);
	err = mkey ? 0 : errno;
	obs("mlx5dv_create_mkey indirect", "%s", err_name(err));
	if (!mkey) {
		diag("SKIP: mlx5dv_create_mkey: %s", strerror(err));
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(mkey->lkey && mkey->lkey == mkey->rkey, "lkey 0x%x rkey 0x%x", mkey->lkey,
	      mkey->rkey);
	err = mlx5dv_destroy_mkey(mkey);
	CHECK(!err, "mlx5dv_destroy_mkey: %s", strerror(err));
out:
	two_close(&t);
	return rc;
}
