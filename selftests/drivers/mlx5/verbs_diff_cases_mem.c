// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains and memory: MRs (each access flag, bad arguments,
 * iova, rereg), memory windows, device memory, import, thread and parent
 * domains.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "verbs_diff.h"

#define MEMLEN (64 * 1024)

static void tr_mr(const char *verb, const char *var, struct ibv_mr *mr, void *base)
{
	int err = ptr_err(mr);

	if (err) {
		tr(verb, var, err, NULL);
		return;
	}
	tr(verb, var, 0, "length=%zu addr_off=%lld lkey_is_rkey=%d", mr->length,
	   (long long)((char *)mr->addr - (char *)base), mr->lkey == mr->rkey);
}

int case_pd_mr(void)
{
	static const struct { const char *n; int a; } acc[] = {
		{ "none", 0 },
		{ "local_write", IBV_ACCESS_LOCAL_WRITE },
		{ "remote_read", IBV_ACCESS_REMOTE_READ },
		{ "remote_write_only", IBV_ACCESS_REMOTE_WRITE },
		{ "local_remote_write", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE },
		{ "remote_atomic_only", IBV_ACCESS_REMOTE_ATOMIC },
		{ "local_remote_atomic", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC },
		{ "mw_bind", IBV_ACCESS_MW_BIND },
		{ "zero_based", IBV_ACCESS_ZERO_BASED },
		{ "relaxed", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING },
		{ "flush_global", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_FLUSH_GLOBAL },
		{ "flush_persistent", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_FLUSH_PERSISTENT },
		{ "hugetlb", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_HUGETLB },
		{ "all", MR_ALL | IBV_ACCESS_MW_BIND },
		{ "unknown_bit", IBV_ACCESS_LOCAL_WRITE | (1 << 28) },
	};
	struct ibv_pd *pd, *pd2;
	struct ibv_mr *mr;
	struct two t;
	uint8_t *buf;
	int rc = KSFT_PASS, err;
	size_t i;

	tr_case = "pd_mr";
	buf = aligned_alloc(4096, 2 * MEMLEN);
	CHECK(buf, "memory");
	CHECK(!two_open(&t), "open devices");
	errno = 0;
	pd = ibv_alloc_pd(t.d[0].ctx);
	tr("ibv_alloc_pd", "plain", ptr_err(pd), NULL);
	CHECK(pd, "PD");
	pd2 = ibv_alloc_pd(t.d[0].ctx);
	CHECK(pd2, "second PD");
	for (i = 0; i < sizeof(acc) / sizeof(acc[0]); i++) {
		errno = 0;
		mr = ibv_reg_mr(pd, buf, MEMLEN, acc[i].a);
		tr_mr("ibv_reg_mr", acc[i].n, mr, buf);
		if (mr)
			tr("ibv_dereg_mr", acc[i].n, ret_err(ibv_dereg_mr(mr)), NULL);
	}
	errno = 0;
	mr = ibv_reg_mr(pd, buf + 100, 1000, IBV_ACCESS_LOCAL_WRITE);
	tr_mr("ibv_reg_mr", "unaligned", mr, buf);
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE);
	tr_mr("ibv_reg_mr", "zero_length", mr, buf);
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, (void *)0x100000000000UL, MEMLEN, IBV_ACCESS_LOCAL_WRITE);
	tr_mr("ibv_reg_mr", "unmapped", mr, buf);
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, buf, t.d[0].attr.max_mr_size + 4096, IBV_ACCESS_LOCAL_WRITE);
	tr_mr("ibv_reg_mr", "beyond_max_mr_size", mr, buf);
	if (mr)
		ibv_dereg_mr(mr);
	{
		/* Read-only memory: remote write needs it writable. */
		void *ro = mmap(NULL, MEMLEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		errno = 0;
		mr = ibv_reg_mr(pd, ro, MEMLEN, 0);
		tr_mr("ibv_reg_mr", "readonly_mem_no_write", mr, ro);
		if (mr)
			ibv_dereg_mr(mr);
		errno = 0;
		mr = ibv_reg_mr(pd, ro, MEMLEN, IBV_ACCESS_LOCAL_WRITE);
		tr_mr("ibv_reg_mr", "readonly_mem_write", mr, ro);
		if (mr)
			ibv_dereg_mr(mr);
		munmap(ro, MEMLEN);
	}
	errno = 0;
	mr = ibv_reg_mr_iova(pd, buf, MEMLEN, 0x10000000, IBV_ACCESS_LOCAL_WRITE);
	tr("ibv_reg_mr_iova", "iova", ptr_err(mr), "addr_is_buf=%d length=%zu",
	   mr && mr->addr == buf, mr ? mr->length : 0);
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr_iova2(pd, buf, MEMLEN, 0x123, IBV_ACCESS_LOCAL_WRITE);
	tr("ibv_reg_mr_iova2", "iova_unaligned", ptr_err(mr), "addr_is_buf=%d",
	   mr && mr->addr == buf);
	if (mr)
		ibv_dereg_mr(mr);

	/* rereg: each flag on its own, bad ones. */
	errno = 0;
	mr = ibv_reg_mr(pd, buf, MEMLEN, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "MR for rereg");
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	tr("ibv_rereg_mr", "access", err, "length=%zu", mr->length);
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf + MEMLEN, MEMLEN / 2, 0);
	tr("ibv_rereg_mr", "translation", err, "length=%zu addr_off=%lld", mr->length,
	   (long long)((uint8_t *)mr->addr - buf));
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	tr("ibv_rereg_mr", "pd", err, "pd_is_new=%d", mr->pd == pd2);
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_REMOTE_WRITE);
	tr("ibv_rereg_mr", "remote_write_without_local", err, NULL);
	err = ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0);
	tr("ibv_rereg_mr", "no_flags", err, NULL);
	err = ibv_rereg_mr(mr, 0x80, NULL, NULL, 0, 0);
	tr("ibv_rereg_mr", "unknown_flag", err, NULL);
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0, 0);
	tr("ibv_rereg_mr", "translation_zero_length", err, NULL);
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_ACCESS |
			   IBV_REREG_MR_CHANGE_PD, pd, buf, MEMLEN, MR_ALL);
	tr("ibv_rereg_mr", "all_three", err, "length=%zu", mr->length);

	/* A PD with an MR is busy. */
	errno = 0;
	err = ret_err(ibv_dealloc_pd(pd));
	tr("ibv_dealloc_pd", "with_mr", err, NULL);
	if (!err)
		pd = NULL;
	tr("ibv_dereg_mr", "rereged", ret_err(ibv_dereg_mr(mr)), NULL);
	mr = ibv_alloc_null_mr(pd ? pd : pd2);
	tr("ibv_alloc_null_mr", "plain", ptr_err(mr), NULL);
	if (mr)
		ibv_dereg_mr(mr);
	if (pd)
		tr("ibv_dealloc_pd", "after_dereg", ret_err(ibv_dealloc_pd(pd)), NULL);
	tr("ibv_dealloc_pd", "second", ret_err(ibv_dealloc_pd(pd2)), NULL);
out:
	two_close(&t);
	free(buf);
	return rc;
}

int case_mw(void)
{
	struct two t;
	struct ep a, b;
	struct ibv_mw *mw;
	int rc = KSFT_PASS, err;

	tr_case = "mw";
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	CHECK(!two_open(&t), "open devices");
	CHECK(!std_pair(&t, &a, &b, &default_opts, &default_opts), "RC pair");
	errno = 0;
	mw = ibv_alloc_mw(t.d[1].pd, IBV_MW_TYPE_1);
	tr("ibv_alloc_mw", "type1", ptr_err(mw), "type=%d", mw ? (int)mw->type : -1);
	if (mw) {
		struct ibv_mr *mr;
		struct ibv_mw_bind bind = { .wr_id = 0x51, .send_flags = IBV_SEND_SIGNALED };

		mr = ibv_reg_mr(t.d[1].pd, b.m.buf, 65536, MR_ALL | IBV_ACCESS_MW_BIND);
		bind.bind_info.mr = mr;
		bind.bind_info.addr = (uintptr_t)b.m.buf;
		bind.bind_info.length = 4096;
		bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
		err = ret_err(ibv_bind_mw(b.qp, mw, &bind));
		tr("ibv_bind_mw", "type1_4k", err, NULL);
		if (!err)
			tr_poll(b.scq, "bind_type1", 1, wait_ms, b.qp->qp_num, a.qp->qp_num);
		/* Beyond the MR. */
		bind.bind_info.length = 65536 * 2;
		err = ret_err(ibv_bind_mw(b.qp, mw, &bind));
		tr("ibv_bind_mw", "type1_beyond_mr", err, NULL);
		if (!err)
			tr_poll(b.scq, "bind_type1_beyond", 1, wait_ms, b.qp->qp_num, a.qp->qp_num);
		tr("ibv_dealloc_mw", "type1", ret_err(ibv_dealloc_mw(mw)), NULL);
		if (mr)
			ibv_dereg_mr(mr);
	}
	errno = 0;
	mw = ibv_alloc_mw(t.d[1].pd, IBV_MW_TYPE_2);
	tr("ibv_alloc_mw", "type2", ptr_err(mw), "type=%d", mw ? (int)mw->type : -1);
	if (mw)
		tr("ibv_dealloc_mw", "type2", ret_err(ibv_dealloc_mw(mw)), NULL);
	errno = 0;
	mw = ibv_alloc_mw(t.d[1].pd, 7);
	tr("ibv_alloc_mw", "type7", ptr_err(mw), NULL);
	if (mw)
		ibv_dealloc_mw(mw);
out:
	ep_destroy(&a);
	ep_destroy(&b);
	two_close(&t);
	return rc;
}

int case_dm(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_alloc_dm_attr da = {};
	struct ibv_dm *dm;
	struct two t;
	int rc = KSFT_PASS, err;
	uint8_t in[64], outb[64];

	tr_case = "dm";
	CHECK(!two_open(&t), "open devices");
	memset(&ax, 0, sizeof(ax));
	CHECK(!ibv_query_device_ex(t.d[0].ctx, NULL, &ax), "query_device_ex");
	da.length = 4096;
	errno = 0;
	dm = ibv_alloc_dm(t.d[0].ctx, &da);
	tr("ibv_alloc_dm", "4k", ptr_err(dm), NULL);
	if (dm) {
		struct ibv_mr *mr;

		fill(in, sizeof(in), 7);
		err = ret_err(ibv_memcpy_to_dm(dm, 64, in, sizeof(in)));
		tr("ibv_memcpy_to_dm", "64@64", err, NULL);
		memset(outb, 0, sizeof(outb));
		err = ret_err(ibv_memcpy_from_dm(outb, dm, 64, sizeof(outb)));
		tr("ibv_memcpy_from_dm", "64@64", err, "same=%d", !memcmp(in, outb, 64));
		err = ret_err(ibv_memcpy_to_dm(dm, 4096 - 8, in, 64));
		tr("ibv_memcpy_to_dm", "beyond_end", err, NULL);
		err = ret_err(ibv_memcpy_to_dm(dm, 3, in, 8));
		tr("ibv_memcpy_to_dm", "unaligned_offset", err, NULL);
		errno = 0;
		mr = ibv_reg_dm_mr(t.d[0].pd, dm, 0, 4096, IBV_ACCESS_ZERO_BASED |
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
		tr("ibv_reg_dm_mr", "zero_based", ptr_err(mr), "length=%zu", mr ? mr->length : 0);
		if (mr)
			ibv_dereg_mr(mr);
		errno = 0;
		mr = ibv_reg_dm_mr(t.d[0].pd, dm, 0, 4096, IBV_ACCESS_LOCAL_WRITE);
		tr("ibv_reg_dm_mr", "not_zero_based", ptr_err(mr), NULL);
		if (mr)
			ibv_dereg_mr(mr);
		errno = 0;
		mr = ibv_reg_dm_mr(t.d[0].pd, dm, 0, 8192, IBV_ACCESS_ZERO_BASED);
		tr("ibv_reg_dm_mr", "beyond_dm", ptr_err(mr), NULL);
		if (mr)
			ibv_dereg_mr(mr);
		errno = 0;
		mr = ibv_reg_dm_mr(t.d[0].pd, dm, 4096, 0, IBV_ACCESS_ZERO_BASED);
		tr("ibv_reg_dm_mr", "zero_length_at_end", ptr_err(mr), "length=%zu", mr ? mr->length : 0);
		if (mr)
			ibv_dereg_mr(mr);
		tr("ibv_free_dm", "4k", ret_err(ibv_free_dm(dm)), NULL);
	}
	da.length = ax.max_dm_size + 4096;
	errno = 0;
	dm = ibv_alloc_dm(t.d[0].ctx, &da);
	tr("ibv_alloc_dm", "beyond_max", ptr_err(dm), NULL);
	if (dm)
		ibv_free_dm(dm);
	da.length = 0;
	errno = 0;
	dm = ibv_alloc_dm(t.d[0].ctx, &da);
	tr("ibv_alloc_dm", "zero", ptr_err(dm), NULL);
	if (dm)
		ibv_free_dm(dm);
	da.length = 100;
	errno = 0;
	dm = ibv_alloc_dm(t.d[0].ctx, &da);
	tr("ibv_alloc_dm", "100_bytes", ptr_err(dm), NULL);
	if (dm)
		ibv_free_dm(dm);
out:
	two_close(&t);
	return rc;
}

int case_import(void)
{
	struct ibv_context *ic;
	struct ibv_pd *ipd;
	struct ibv_mr *imr;
	struct two t;
	struct mem m = {};
	int rc = KSFT_PASS, fd;

	tr_case = "import";
	CHECK(!two_open(&t), "open devices");
	CHECK(!mem_reg(&m, &t.d[0], MEMLEN, MR_ALL), "MR");
	fd = dup(t.d[0].ctx->cmd_fd);
	errno = 0;
	ic = ibv_import_device(fd);
	tr("ibv_import_device", "dup_fd", ptr_err(ic), NULL);
	if (!ic) {
		close(fd);
		goto out;
	}
	errno = 0;
	ipd = ibv_import_pd(ic, t.d[0].pd->handle);
	tr("ibv_import_pd", "own", ptr_err(ipd), NULL);
	{
		struct ibv_pd *bp;

		errno = 0;
		bp = ibv_import_pd(ic, 0xfffff);
		tr("ibv_import_pd", "bad_handle", ptr_err(bp), NULL);
		if (bp)
			ibv_unimport_pd(bp);
	}
	if (ipd) {
		errno = 0;
		imr = ibv_import_mr(ipd, m.mr->handle);
		tr("ibv_import_mr", "own", ptr_err(imr), "same_keys=%d length=%zu same_addr=%d",
		   imr && imr->lkey == m.mr->lkey && imr->rkey == m.mr->rkey, imr ? imr->length : 0,
		   imr && imr->addr == m.mr->addr);
		if (imr)
			ibv_unimport_mr(imr);
		errno = 0;
		imr = ibv_import_mr(ipd, 0xfffff);
		tr("ibv_import_mr", "bad_handle", ptr_err(imr), NULL);
		if (imr)
			ibv_unimport_mr(imr);
		ibv_unimport_pd(ipd);
	}
	tr("ibv_close_device", "imported", ret_err(ibv_close_device(ic)), NULL);
	{
		int bad = open("/dev/null", O_RDWR);

		errno = 0;
		ic = ibv_import_device(bad);
		tr("ibv_import_device", "not_uverbs", ptr_err(ic), NULL);
		if (ic)
			ibv_close_device(ic);
		else
			close(bad);
	}
out:
	mem_free(&m);
	two_close(&t);
	return rc;
}

int case_td_parent(void)
{
	struct ibv_td_init_attr ta = {};
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_td *td;
	struct ibv_pd *ppd;
	struct two t;
	int rc = KSFT_PASS;

	tr_case = "td_parent";
	CHECK(!two_open(&t), "open devices");
	errno = 0;
	td = ibv_alloc_td(t.d[0].ctx, &ta);
	tr("ibv_alloc_td", "plain", ptr_err(td), NULL);
	ta.comp_mask = 1;
	errno = 0;
	{
		struct ibv_td *bad = ibv_alloc_td(t.d[0].ctx, &ta);

		tr("ibv_alloc_td", "bad_comp_mask", ptr_err(bad), NULL);
		if (bad)
			ibv_dealloc_td(bad);
	}
	pa.pd = t.d[0].pd;
	pa.td = td;
	errno = 0;
	ppd = ibv_alloc_parent_domain(t.d[0].ctx, &pa);
	tr("ibv_alloc_parent_domain", "with_td", ptr_err(ppd), NULL);
	if (ppd) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
			.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD | IBV_CQ_INIT_ATTR_MASK_FLAGS,
			.parent_domain = ppd,
			.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
		};
		struct ibv_cq_ex *cq = ibv_create_cq_ex(t.d[0].ctx, &ca);

		tr("ibv_create_cq_ex", "parent_domain", ptr_err(cq), NULL);
		if (cq) {
			struct ibv_qp_init_attr_ex qa = {
				.qp_type = IBV_QPT_RC, .send_cq = ibv_cq_ex_to_cq(cq),
				.recv_cq = ibv_cq_ex_to_cq(cq),
				.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
					 .max_recv_sge = 1 },
				.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = ppd,
			};
			struct ibv_qp *qp = ibv_create_qp_ex(t.d[0].ctx, &qa);

			tr("ibv_create_qp_ex", "parent_domain", ptr_err(qp), NULL);
			if (qp)
				ibv_destroy_qp(qp);
			tr("ibv_destroy_cq", "parent_domain", ret_err(ibv_destroy_cq(ibv_cq_ex_to_cq(cq))), NULL);
		}
		if (td) {
			int err = ret_err(ibv_dealloc_td(td));

			tr("ibv_dealloc_td", "in_use", err, NULL);
			if (!err)
				td = NULL;
		}
		tr("ibv_dealloc_pd", "parent_domain", ret_err(ibv_dealloc_pd(ppd)), NULL);
	}
	if (td)
		tr("ibv_dealloc_td", "plain", ret_err(ibv_dealloc_td(td)), NULL);
	pa.pd = t.d[0].pd;
	pa.td = NULL;
	pa.comp_mask = 0x40;
	errno = 0;
	ppd = ibv_alloc_parent_domain(t.d[0].ctx, &pa);
	tr("ibv_alloc_parent_domain", "bad_comp_mask", ptr_err(ppd), NULL);
	if (ppd)
		ibv_dealloc_pd(ppd);
out:
	two_close(&t);
	return rc;
}
