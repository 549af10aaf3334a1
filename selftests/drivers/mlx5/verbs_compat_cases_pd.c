// SPDX-License-Identifier: GPL-2.0
/*
 * Parent domains (ibv_alloc_parent_domain): an RC QP, its extended CQ and
 * an SRQ created on one, with and without custom allocators. With
 * allocators the mlx5 provider takes every ring and doorbell record from
 * them, so the kernel maps user memory the provider did not lay out
 * itself: rings at any aligned offset of a page, doorbell records next to
 * other objects' rings, all of it in one huge page.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <infiniband/mlx5dv.h>

#include "verbs_compat.h"

#define HUGE_SZ (2UL << 20)
#define NTYPES 6	/* MLX5DV_RES_TYPE_* & 0xff: QP 1, RWQ 2, DBR 3, SRQ 4, CQ 5 */

struct pd_mem {
	int allocs[NTYPES], frees[NTYPES];
	uint8_t *huge;		/* carve from this huge page, or posix_memalign */
	size_t used;
	bool bad_type;
};

static void *pd_alloc(struct ibv_pd *pd, void *ctx, size_t size, size_t align, uint64_t type)
{
	struct pd_mem *pm = ctx;
	unsigned int t = type & 0xff;
	void *p = NULL;

	(void)pd;
	if (type >> 32 != RDMA_DRIVER_MLX5 || t >= NTYPES) {
		pm->bad_type = true;
		return IBV_ALLOCATOR_USE_DEFAULT;
	}
	if (pm->huge) {
		size_t off = (pm->used + align - 1) & ~(align - 1);

		if (off + size > HUGE_SZ)
			return NULL;
		pm->used = off + size;
		p = pm->huge + off;
	} else if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size)) {
		return NULL;
	}
	memset(p, 0, size);
	pm->allocs[t]++;
	return p;
}

static void pd_free(struct ibv_pd *pd, void *ctx, void *ptr, uint64_t type)
{
	struct pd_mem *pm = ctx;

	(void)pd;
	pm->frees[(type & 0xff) % NTYPES]++;
	if (!pm->huge)
		free(ptr);
}

/* One end on a parent domain of d's PD: CQ_ex, optional SRQ, RC QP, MR. */
struct pd_end {
	struct ibv_pd *pdd;
	struct ibv_cq_ex *cq;
	struct ibv_srq *srq;
	struct ep e;
};

static int pd_end_create(struct pd_end *pe, struct dev *d, struct pd_mem *pm, bool srq)
{
	struct ibv_parent_domain_init_attr pa = { .pd = d->pd };
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 2 * QP_DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = QP_DEPTH, .max_sge = 1 } };
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = QP_DEPTH, .max_recv_wr = QP_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = port_num,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	memset(pe, 0, sizeof(*pe));
	if (pm) {
		pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
		pa.alloc = pd_alloc;
		pa.free = pd_free;
		pa.pd_context = pm;
	}
	pe->pdd = ibv_alloc_parent_domain(d->ctx, &pa);
	if (!pe->pdd) {
		diag("ibv_alloc_parent_domain: %s", strerror(errno));
		return -1;
	}
	ca.parent_domain = pe->pdd;
	pe->cq = ibv_create_cq_ex(d->ctx, &ca);
	if (!pe->cq) {
		diag("ibv_create_cq_ex on the parent domain: %s", strerror(errno));
		return -1;
	}
	if (srq) {
		pe->srq = ibv_create_srq(pe->pdd, &sa);
		if (!pe->srq) {
			diag("ibv_create_srq on the parent domain: %s", strerror(errno));
			return -1;
		}
	}
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(pe->cq);
	ia.srq = pe->srq;
	pe->e.d = d;
	pe->e.scq = pe->e.rcq = ia.send_cq;
	pe->e.qp = ibv_create_qp(pe->pdd, &ia);
	if (!pe->e.qp) {
		diag("ibv_create_qp on the parent domain: %s", strerror(errno));
		return -1;
	}
	if (ibv_modify_qp(pe->e.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS)) {
		diag("modify QP to INIT: %s", strerror(errno));
		return -1;
	}
	pe->e.m.len = BUF_SIZE;
	if (posix_memalign((void **)&pe->e.m.buf, 4096, BUF_SIZE)) {
		pe->e.m.buf = NULL;
		return -1;
	}
	pe->e.m.mr = ibv_reg_mr(pe->pdd, pe->e.m.buf, BUF_SIZE, MR_ALL);
	if (!pe->e.m.mr) {
		diag("ibv_reg_mr on the parent domain: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Destroys what pd_end_create made; returns -1 if a destroy failed. */
static int pd_end_destroy(struct pd_end *pe)
{
	int r = 0, err;

	if (pe->e.qp && ibv_destroy_qp(pe->e.qp)) {
		diag("ibv_destroy_qp: %s", strerror(errno));
		r = -1;
	}
	mem_free(&pe->e.m);
	err = pe->srq ? ibv_destroy_srq(pe->srq) : 0;
	if (err) {
		diag("ibv_destroy_srq: %s", strerror(err));
		r = -1;
	}
	err = pe->cq ? ibv_destroy_cq(ibv_cq_ex_to_cq(pe->cq)) : 0;
	if (err) {
		diag("ibv_destroy_cq: %s", strerror(err));
		r = -1;
	}
	err = pe->pdd ? ibv_dealloc_pd(pe->pdd) : 0;
	if (err) {
		diag("ibv_dealloc_pd(parent domain): %s", strerror(err));
		r = -1;
	}
	memset(pe, 0, sizeof(*pe));
	return r;
}

static int pd_case(bool alloc, bool huge, bool srq)
{
	static const char *const tname[NTYPES] = { "?", "QP", "RWQ", "DBR", "SRQ", "CQ" };
	struct pd_mem pm[2] = {};
	struct pd_end pe[2] = {};
	struct two t = {};
	int rc = KSFT_PASS, i, k;

	if (huge) {
		for (i = 0; i < 2; i++) {
			pm[i].huge = mmap(NULL, HUGE_SZ, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
			if (pm[i].huge == MAP_FAILED) {
				pm[i].huge = NULL;
				diag("SKIP: no 2 MiB huge page (vm.nr_hugepages): %s",
				     strerror(errno));
				rc = KSFT_SKIP;
				goto out_unmap;
			}
		}
	}
	CHECK(!two_open(&t), "open devices");
	for (i = 0; i < 2; i++)
		CHECK(!pd_end_create(&pe[i], &t.d[i], alloc ? &pm[i] : NULL, srq),
		      "end %d on a parent domain", i);
	CHECK(!pair_connect(&pe[0].e, &pe[1].e, &default_opts, &default_opts), "connect");
	CHECK(!compat_traffic(&pe[0].e, &pe[1].e, srq), "traffic 0 -> 1");
	CHECK(!compat_traffic(&pe[1].e, &pe[0].e, srq), "traffic 1 -> 0");
	obs("RC traffic both ways", "yes");
out:
	for (i = 0; i < 2; i++)
		if (pd_end_destroy(&pe[i]))
			rc = KSFT_FAIL;
	for (i = 0; alloc && i < 2; i++) {
		for (k = 1; k < NTYPES; k++) {
			char key[32];

			snprintf(key, sizeof(key), "end %d %s buffers", i, tname[k]);
			obs(key, "%d allocated, %d freed", pm[i].allocs[k], pm[i].frees[k]);
			if (pm[i].allocs[k] != pm[i].frees[k]) {
				diag("FAIL: end %d: %d %s buffers allocated, %d freed", i,
				     pm[i].allocs[k], tname[k], pm[i].frees[k]);
				rc = KSFT_FAIL;
			}
		}
		if (!pm[i].allocs[1] || !pm[i].allocs[3] || !pm[i].allocs[5] ||
		    (srq && !pm[i].allocs[4]) || pm[i].bad_type) {
			diag("FAIL: end %d: the provider did not use the allocator for every QP, CQ, SRQ and doorbell record",
			     i);
			rc = KSFT_FAIL;
		}
	}
	two_close(&t);
out_unmap:
	for (i = 0; i < 2; i++)
		if (pm[i].huge)
			munmap(pm[i].huge, HUGE_SZ);
	return rc;
}

int case_pd_no_alloc(void)
{
	return pd_case(false, false, false);
}

int case_pd_alloc(void)
{
	return pd_case(true, false, true);
}

int case_pd_alloc_huge(void)
{
	return pd_case(true, true, true);
}
