// SPDX-License-Identifier: GPL-2.0
/*
 * Object import: a second ibv_context on a dup of the first one's command
 * fd (ibv_import_device), the first one's PD and MR imported into it by
 * handle; an RC QP of the imported context sends from the imported MR and
 * the peer writes into it by the imported rkey.
 */
#define _GNU_SOURCE
#include "verbs_compat.h"

int case_import(void)
{
	struct ibv_context *ictx = NULL;
	struct ibv_pd *ipd = NULL;
	struct ibv_mr *imr = NULL;
	struct ep a = {}, b = {};
	struct mem m = {};
	struct dev di;
	struct two t = {};
	int rc = KSFT_PASS, fd = -1, err;

	CHECK(!two_open(&t), "open devices");
	CHECK(!mem_reg(&m, &t.d[0], BUF_SIZE, MR_ALL), "register memory");
	fd = dup(t.d[0].ctx->cmd_fd);
	CHECK(fd >= 0, "dup: %s", strerror(errno));
	ictx = ibv_import_device(fd);
	err = ictx ? 0 : errno;
	OBS_OR_SKIP("ibv_import_device", ictx, err);
	CHECK(ictx, "ibv_import_device: %s", strerror(err));
	fd = -1;	/* the imported context owns it */
	ipd = ibv_import_pd(ictx, t.d[0].pd->handle);
	obs("ibv_import_pd", "%s", err_name(ipd ? 0 : errno));
	CHECK(ipd, "ibv_import_pd: %s", strerror(errno));
	imr = ibv_import_mr(ipd, m.mr->handle);
	obs("ibv_import_mr", "%s", err_name(imr ? 0 : errno));
	CHECK(imr, "ibv_import_mr: %s", strerror(errno));
	CHECK(imr->lkey == m.mr->lkey && imr->rkey == m.mr->rkey,
	      "imported keys 0x%x/0x%x, registered 0x%x/0x%x", imr->lkey, imr->rkey,
	      m.mr->lkey, m.mr->rkey);
	CHECK(imr->length == m.mr->length, "imported MR of %zu bytes, registered %zu",
	      imr->length, m.mr->length);
	/* The in-tree driver leaves the imported address 0 (the MR's iova). */
	obs("imported MR address", "%s", imr->addr == m.mr->addr ? "the registered one" :
	    imr->addr ? "another one" : "NULL");

	di = t.d[0];
	di.ctx = ictx;
	di.pd = ipd;
	CHECK(!ep_create(&a, &di, NULL, NULL, 0, &default_opts), "QP of the imported context");
	a.m.buf = m.buf;
	a.m.len = m.len;
	a.m.mr = imr;
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "peer QP");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");
	CHECK(!compat_traffic(&a, &b, false), "traffic from the imported MR");
	CHECK(write_ok(&b, &a, 0xc0), "RDMA WRITE into the imported MR");
	obs("traffic through the imported objects", "yes");
out:
	a.m = (struct mem){};
	ep_destroy(&a);
	ep_destroy(&b);
	if (imr)
		ibv_unimport_mr(imr);
	if (ipd)
		ibv_unimport_pd(ipd);
	if (ictx)
		ibv_close_device(ictx);
	if (fd >= 0)
		close(fd);
	mem_free(&m);
	two_close(&t);
	return rc;
}
