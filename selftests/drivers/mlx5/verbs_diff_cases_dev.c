// SPDX-License-Identifier: GPL-2.0
/*
 * Device-level verbs: device, port, GID and P_Key queries, the clock, the
 * mlx5dv queries, and the optional verbs a driver may refuse (ECE, flows,
 * WQs, counters, ODP advise).
 */
#define _GNU_SOURCE
#include "verbs_diff.h"

int case_device(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct ibv_gid_entry ge, table[8];
	struct ibv_values_ex v;
	struct two t;
	struct ibv_context *c;
	uint16_t pkey;
	ssize_t n;
	int rc = KSFT_PASS, err, i, p;
	char var[32];

	tr_case = "device";
	CHECK(!two_open(&t), "open devices");
	c = t.d[0].ctx;
	{
		struct ibv_device_attr *a = &t.d[0].attr;

		tr("ibv_query_device", "mlx5_0", 0,
		   "fw=%s vendor=0x%x part=%u hw_ver=%u max_mr_size=0x%llx page_size_cap=0x%llx max_qp=%d max_qp_wr=%d cap_flags=0x%x max_sge=%d max_sge_rd=%d max_cq=%d max_cqe=%d max_mr=%d max_pd=%d max_qp_rd_atom=%d max_ee_rd_atom=%d max_res_rd_atom=%d max_qp_init_rd_atom=%d atomic_cap=%d max_mw=%d max_raw_ipv6_qp=%d max_raw_ethy_qp=%d max_mcast_grp=%d max_mcast_qp_attach=%d max_total_mcast_qp_attach=%d max_ah=%d max_fmr=%d max_srq=%d max_srq_wr=%d max_srq_sge=%d max_pkeys=%u local_ca_ack_delay=%u phys_port_cnt=%u",
		   a->fw_ver, a->vendor_id, a->vendor_part_id, a->hw_ver,
		   (unsigned long long)a->max_mr_size, (unsigned long long)a->page_size_cap,
		   a->max_qp, a->max_qp_wr, a->device_cap_flags, a->max_sge, a->max_sge_rd,
		   a->max_cq, a->max_cqe, a->max_mr, a->max_pd, a->max_qp_rd_atom,
		   a->max_ee_rd_atom, a->max_res_rd_atom, a->max_qp_init_rd_atom, a->atomic_cap,
		   a->max_mw, a->max_raw_ipv6_qp, a->max_raw_ethy_qp, a->max_mcast_grp,
		   a->max_mcast_qp_attach, a->max_total_mcast_qp_attach, a->max_ah, a->max_fmr,
		   a->max_srq, a->max_srq_wr, a->max_srq_sge, a->max_pkeys, a->local_ca_ack_delay,
		   a->phys_port_cnt);
	}
	memset(&ax, 0, sizeof(ax));
	err = ret_err(ibv_query_device_ex(c, NULL, &ax));
	tr("ibv_query_device_ex", "mlx5_0", err,
	   "comp_mask=0x%llx odp.general=0x%llx odp.rc=0x%x odp.uc=0x%x odp.ud=0x%x ts_mask=0x%llx hca_clock=%llu cap_flags_ex=0x%llx tso.max=%u tso.types=0x%x rss.tables=%u rss.table_size=%u rss.fields=0x%llx rss.types=0x%x max_wq_type_rq=%u pacing.min=%u pacing.max=%u pacing.types=0x%x raw_caps=0x%x tm.max_rndv_hdr=%u tm.max_num_tags=%u tm.flags=0x%x tm.max_ops=%u tm.max_sge=%u cq_mod.max_cq_count=%u cq_mod.max_cq_period=%u max_dm_size=%llu pci_atomic=%u/%u/%u xrc_odp=0x%x phys_port_cnt_ex=%u",
	   (unsigned long long)ax.comp_mask, (unsigned long long)ax.odp_caps.general_caps,
	   ax.odp_caps.per_transport_caps.rc_odp_caps, ax.odp_caps.per_transport_caps.uc_odp_caps,
	   ax.odp_caps.per_transport_caps.ud_odp_caps,
	   (unsigned long long)ax.completion_timestamp_mask, (unsigned long long)ax.hca_core_clock,
	   (unsigned long long)ax.device_cap_flags_ex, ax.tso_caps.max_tso,
	   ax.tso_caps.supported_qpts, ax.rss_caps.max_rwq_indirection_tables,
	   ax.rss_caps.max_rwq_indirection_table_size,
	   (unsigned long long)ax.rss_caps.rx_hash_fields_mask, ax.rss_caps.supported_qpts,
	   ax.max_wq_type_rq, ax.packet_pacing_caps.qp_rate_limit_min,
	   ax.packet_pacing_caps.qp_rate_limit_max, ax.packet_pacing_caps.supported_qpts,
	   ax.raw_packet_caps, ax.tm_caps.max_rndv_hdr_size, ax.tm_caps.max_num_tags,
	   ax.tm_caps.flags, ax.tm_caps.max_ops, ax.tm_caps.max_sge,
	   ax.cq_mod_caps.max_cq_count, ax.cq_mod_caps.max_cq_period,
	   (unsigned long long)ax.max_dm_size, ax.pci_atomic_caps.fetch_add,
	   ax.pci_atomic_caps.swap, ax.pci_atomic_caps.compare_swap, ax.xrc_odp_caps,
	   ax.phys_port_cnt_ex);
	{
		struct ibv_query_device_ex_input in = { .comp_mask = 1 };

		err = ret_err(ibv_query_device_ex(c, &in, &ax));
		tr("ibv_query_device_ex", "bad_comp_mask", err, NULL);
	}

	for (p = 0; p <= 2; p++) {
		memset(&pa, 0, sizeof(pa));
		errno = 0;
		err = ret_err(ibv_query_port(c, p, &pa));
		snprintf(var, sizeof(var), "port%d", p);
		if (err) {
			tr("ibv_query_port", var, err, NULL);
			continue;
		}
		tr("ibv_query_port", var, 0,
		   "state=%d max_mtu=%d active_mtu=%d gid_tbl_len=%d port_cap_flags=0x%x max_msg_sz=%u bad_pkey_cntr=%u qkey_viol_cntr=%u pkey_tbl_len=%u lid=%u sm_lid=%u lmc=%u max_vl_num=%u sm_sl=%u subnet_timeout=%u init_type_reply=%u active_width=%u active_speed=%u phys_state=%u link_layer=%u flags=0x%x port_cap_flags2=0x%x active_speed_ex=%u",
		   pa.state, pa.max_mtu, pa.active_mtu, pa.gid_tbl_len, pa.port_cap_flags,
		   pa.max_msg_sz, pa.bad_pkey_cntr, pa.qkey_viol_cntr, pa.pkey_tbl_len, pa.lid,
		   pa.sm_lid, pa.lmc, pa.max_vl_num, pa.sm_sl, pa.subnet_timeout,
		   pa.init_type_reply, pa.active_width, pa.active_speed, pa.phys_state,
		   pa.link_layer, pa.flags, pa.port_cap_flags2, pa.active_speed_ex);
	}
	for (i = 0; i < 4; i++) {
		int idx[] = { 0, 1, 127, 128 };

		snprintf(var, sizeof(var), "port1_idx%d", idx[i]);
		errno = 0;
		memset(&gid, 0xee, sizeof(gid));
		err = ret_err(ibv_query_gid(c, 1, idx[i], &gid));
		/* The GID is the node's (same emulator): prefix and GUID compare. */
		tr("ibv_query_gid", var, err, "gid=%016llx:%016llx",
		   err ? 0ULL : (unsigned long long)be64toh(gid.global.subnet_prefix),
		   err ? 0ULL : (unsigned long long)be64toh(gid.global.interface_id));
		memset(&ge, 0, sizeof(ge));
		err = ret_err(ibv_query_gid_ex(c, 1, idx[i], &ge, 0));
		tr("ibv_query_gid_ex", var, err, "gid=%016llx:%016llx type=%u port=%u",
		   err ? 0ULL : (unsigned long long)be64toh(ge.gid.global.subnet_prefix),
		   err ? 0ULL : (unsigned long long)be64toh(ge.gid.global.interface_id),
		   err ? 0 : ge.gid_type, err ? 0 : ge.port_num);
	}
	errno = 0;
	err = ret_err(ibv_query_gid(c, 2, 0, &gid));
	tr("ibv_query_gid", "port2", err, NULL);
	n = ibv_query_gid_table(c, table, 8, 0);
	tr("ibv_query_gid_table", "8", n < 0 ? (int)-n : 0, "n=%zd type0=%u", n,
	   n > 0 ? table[0].gid_type : 0);
	n = ibv_query_gid_table(c, table, 0, 0);
	tr("ibv_query_gid_table", "0", n < 0 ? (int)-n : 0, "n=%zd", n);
	for (i = 0; i < 4; i++) {
		int idx[] = { 0, 1, 127, 128 };

		snprintf(var, sizeof(var), "port1_idx%d", idx[i]);
		errno = 0;
		pkey = 0xdead;
		err = ret_err(ibv_query_pkey(c, 1, idx[i], &pkey));
		tr("ibv_query_pkey", var, err, "pkey=0x%x", err ? 0 : ntohs(pkey));
	}
	errno = 0;
	tr("ibv_get_pkey_index", "0xffff", 0, "idx=%d", ibv_get_pkey_index(c, 1, htons(0xffff)));
	errno = 0;
	tr("ibv_get_pkey_index", "0x1234", 0, "idx=%d", ibv_get_pkey_index(c, 1, htons(0x1234)));

	memset(&v, 0, sizeof(v));
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	err = ret_err(ibv_query_rt_values_ex(c, &v));
	tr("ibv_query_rt_values_ex", "raw_clock", err, "comp_mask=0x%x nonzero=%d", v.comp_mask,
	   v.raw_clock.tv_sec || v.raw_clock.tv_nsec);
	memset(&v, 0, sizeof(v));
	v.comp_mask = 0x80;
	err = ret_err(ibv_query_rt_values_ex(c, &v));
	tr("ibv_query_rt_values_ex", "bad_mask", err, "comp_mask=0x%x", v.comp_mask);

	tr("ibv_get_device_guid", "mlx5_0", 0, "guid=%016llx",
	   (unsigned long long)be64toh(ibv_get_device_guid(c->device)));
	tr("ibv_get_device_index", "mlx5_0", 0, "valid=%d", ibv_get_device_index(c->device) >= 0);
	tr("node_type", "mlx5_0", 0, "%s transport=%d", ibv_node_type_str(c->device->node_type),
	   c->device->transport_type);
	{
		struct ibv_device_attr_ex ax1;

		memset(&ax1, 0, sizeof(ax1));
		err = ret_err(ibv_query_device_ex(t.d[1].ctx, NULL, &ax1));
		tr("ibv_query_device_ex", "mlx5_1_same_as_mlx5_0", err, "same=%d",
		   ax1.orig_attr.max_qp == ax.orig_attr.max_qp &&
		   ax1.orig_attr.max_cqe == ax.orig_attr.max_cqe);
	}
out:
	two_close(&t);
	return rc;
}

int case_dv(void)
{
	struct mlx5dv_context dc;
	struct mlx5dv_port dp;
	struct two t;
	struct ibv_context *c;
	struct ep e;
	int rc = KSFT_PASS, err;

	tr_case = "dv";
	memset(&e, 0, sizeof(e));
	CHECK(!two_open(&t), "open devices");
	c = t.d[0].ctx;
	tr("mlx5dv_is_supported", "mlx5_0", 0, "%d", mlx5dv_is_supported(c->device));
	memset(&dc, 0, sizeof(dc));
	dc.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP |
		       MLX5DV_CONTEXT_MASK_STRIDING_RQ | MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |
		       MLX5DV_CONTEXT_MASK_DYN_BFREGS | MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE |
		       MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS | MLX5DV_CONTEXT_MASK_DC_ODP_CAPS |
		       MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS | MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD |
		       MLX5DV_CONTEXT_MASK_DCI_STREAMS | MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH |
		       MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD | MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM |
		       MLX5DV_CONTEXT_MASK_REG_C0 | MLX5DV_CONTEXT_MASK_OOO_RECV_WRS;
	err = ret_err(mlx5dv_query_device(c, &dc));
	tr("mlx5dv_query_device", "all_masks", err,
	   "version=%u flags=0x%llx comp_mask=0x%llx cqe_comp.max=%u cqe_comp.formats=0x%x swp=0x%x/0x%x striding.min_log=%u striding.max_log=%u striding.min_num=%u striding.max_num=%u striding.qpts=0x%x tunnel=0x%x max_dynamic_bfregs=%u max_clock_info_update_nsec=%llu flow_action_flags=0x%x dc_odp=0x%x num_lag_ports=%u sig.block=0x%llx sig.prot=0x%x sig.t10=0x%x sig.crc=0x%x max_wr_memcpy=%zu crypto=0x%x max_dc_rd_atom=%llu max_dc_init_rd_atom=%llu ooo.rc=%u",
	   dc.version, (unsigned long long)dc.flags, (unsigned long long)dc.comp_mask,
	   dc.cqe_comp_caps.max_num, dc.cqe_comp_caps.supported_format,
	   dc.sw_parsing_caps.sw_parsing_offloads, dc.sw_parsing_caps.supported_qpts,
	   dc.striding_rq_caps.min_single_stride_log_num_of_bytes,
	   dc.striding_rq_caps.max_single_stride_log_num_of_bytes,
	   dc.striding_rq_caps.min_single_wqe_log_num_of_strides,
	   dc.striding_rq_caps.max_single_wqe_log_num_of_strides,
	   dc.striding_rq_caps.supported_qpts, dc.tunnel_offloads_caps,
	   dc.max_dynamic_bfregs, (unsigned long long)dc.max_clock_info_update_nsec,
	   dc.flow_action_flags, dc.dc_odp_caps, dc.num_lag_ports,
	   (unsigned long long)dc.sig_caps.block_size, dc.sig_caps.block_prot, dc.sig_caps.t10dif_bg,
	   dc.sig_caps.crc_type, dc.max_wr_memcpy_length, dc.crypto_caps.flags,
	   (unsigned long long)dc.max_dc_rd_atom, (unsigned long long)dc.max_dc_init_rd_atom,
	   dc.ooo_recv_wrs_caps.max_rc);
	for (int p = 0; p <= 2; p++) {
		char var[16];

		snprintf(var, sizeof(var), "port%d", p);
		memset(&dp, 0, sizeof(dp));
		err = ret_err(mlx5dv_query_port(c, p, &dp));
		tr("mlx5dv_query_port", var, err, "flags=0x%llx vport=%u",
		   (unsigned long long)dp.flags, dp.vport);
	}
	/* An RC QP and its CQ as the provider sees them. */
	if (!ep_create(&e, &t.d[0], NULL, NULL, 0, &default_opts)) {
		struct mlx5dv_qp dqp;
		struct mlx5dv_cq dcq;
		struct mlx5dv_obj o;

		memset(&dqp, 0, sizeof(dqp));
		memset(&dcq, 0, sizeof(dcq));
		o.qp.in = e.qp;
		o.qp.out = &dqp;
		o.cq.in = e.scq;
		o.cq.out = &dcq;
		err = ret_err(mlx5dv_init_obj(&o, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ));
		tr("mlx5dv_init_obj", "qp_cq", err,
		   "sq.wqe_cnt=%u sq.stride=%u rq.wqe_cnt=%u rq.stride=%u bf.size=%u cq.cqe_cnt=%u cq.cqe_size=%u",
		   dqp.sq.wqe_cnt, dqp.sq.stride, dqp.rq.wqe_cnt, dqp.rq.stride, dqp.bf.size,
		   dcq.cqe_cnt, dcq.cqe_size);
	}
	{
		struct mlx5dv_context_attr ca = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
		struct ibv_context *dx = mlx5dv_open_device(c->device, &ca);

		tr("mlx5dv_open_device", "devx", ptr_err(dx), NULL);
		if (dx)
			ibv_close_device(dx);
		ca.flags = 0;
		dx = mlx5dv_open_device(c->device, &ca);
		tr("mlx5dv_open_device", "plain", ptr_err(dx), NULL);
		if (dx)
			ibv_close_device(dx);
	}
	{
		struct ibv_cq_init_attr_ex cx = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS };
		struct mlx5dv_cq_init_attr dx = {
			.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE, .cqe_size = 128,
		};
		struct ibv_cq_ex *cq = mlx5dv_create_cq(c, &cx, &dx);

		tr("mlx5dv_create_cq", "cqe_size128", ptr_err(cq), NULL);
		if (cq)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
		dx.cqe_size = 96;
		errno = 0;
		cq = mlx5dv_create_cq(c, &cx, &dx);
		tr("mlx5dv_create_cq", "cqe_size96", ptr_err(cq), NULL);
		if (cq)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	}
out:
	ep_destroy(&e);
	two_close(&t);
	return rc;
}

int case_misc(void)
{
	struct two t;
	struct ep e;
	struct ibv_ece ece;
	int rc = KSFT_PASS, err;

	tr_case = "misc";
	memset(&e, 0, sizeof(e));
	CHECK(!two_open(&t), "open devices");
	CHECK(!ep_create(&e, &t.d[0], NULL, NULL, MR_ALL, &default_opts), "RC QP");
	memset(&ece, 0, sizeof(ece));
	err = ret_err(ibv_query_ece(e.qp, &ece));
	tr("ibv_query_ece", "init", err, "vendor=0x%x options=0x%x", ece.vendor_id, ece.options);
	ece.vendor_id = 0x02c9;
	ece.options = 0;
	err = ret_err(ibv_set_ece(e.qp, &ece));
	tr("ibv_set_ece", "zero", err, NULL);
	{
		struct ibv_counters_init_attr ca = {};
		struct ibv_counters *cn = ibv_create_counters(t.d[0].ctx, &ca);

		tr("ibv_create_counters", "plain", ptr_err(cn), NULL);
		if (cn)
			ibv_destroy_counters(cn);
	}
	{
		struct ibv_wq_init_attr wa = {
			.wq_type = IBV_WQT_RQ, .max_wr = 16, .max_sge = 1, .pd = t.d[0].pd,
			.cq = e.rcq,
		};
		struct ibv_wq *wq;

		errno = 0;
		wq = ibv_create_wq(t.d[0].ctx, &wa);
		tr("ibv_create_wq", "rq16", ptr_err(wq), NULL);
		if (wq) {
			struct ibv_rwq_ind_table_init_attr ia = {
				.log_ind_tbl_size = 0, .ind_tbl = &wq,
			};
			struct ibv_rwq_ind_table *it = ibv_create_rwq_ind_table(t.d[0].ctx, &ia);
			struct ibv_wq_attr wm = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };

			tr("ibv_create_rwq_ind_table", "1", ptr_err(it), NULL);
			err = ret_err(ibv_modify_wq(wq, &wm));
			tr("ibv_modify_wq", "rdy", err, NULL);
			if (it)
				tr("ibv_destroy_rwq_ind_table", "1", ret_err(ibv_destroy_rwq_ind_table(it)), NULL);
			tr("ibv_destroy_wq", "rq16", ret_err(ibv_destroy_wq(wq)), NULL);
		}
	}
	{
		struct ibv_sge sg = {
			.addr = (uintptr_t)e.m.buf, .length = 4096, .lkey = e.m.mr->lkey,
		};

		err = ret_err(ibv_advise_mr(t.d[0].pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
					    IBV_ADVISE_MR_FLAG_FLUSH, &sg, 1));
		tr("ibv_advise_mr", "prefetch_non_odp", err, NULL);
	}
	{
		struct ibv_mr *mr;
		void *b = malloc(65536);

		errno = 0;
		mr = ibv_reg_mr(t.d[0].pd, b, 65536, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
		tr("ibv_reg_mr", "odp", ptr_err(mr), NULL);
		if (mr)
			ibv_dereg_mr(mr);
		free(b);
	}
	{
		struct ibv_flow_attr fa = {
			.type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(fa), .num_of_specs = 0,
			.port = 1,
		};
		struct ibv_flow *f;

		errno = 0;
		f = ibv_create_flow(e.qp, &fa);
		tr("ibv_create_flow", "rc_qp_no_specs", ptr_err(f), NULL);
		if (f)
			ibv_destroy_flow(f);
	}
	tr("ibv_is_fork_initialized", "-", 0, "%d", ibv_is_fork_initialized());
out:
	ep_destroy(&e);
	two_close(&t);
	return rc;
}
