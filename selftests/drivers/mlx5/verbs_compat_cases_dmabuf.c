// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-BUF memory regions (ibv_reg_dmabuf_mr): the pages of a memfd
 * exported as a DMA-BUF by udmabuf, registered on device 0. The peer on
 * device 1 RDMA WRITEs into the region and READs from it, device 0 SENDs
 * and WRITEs from it; every transfer is checked through the memfd's own
 * mapping of the same pages, so the CPU and the device must have seen
 * the same memory.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/udmabuf.h>

#include "verbs_compat.h"

#define DMABUF_SIZE BUF_SIZE

struct udmabuf {
	int memfd, fd;
	uint8_t *cpu;	/* the memfd's mapping: what the CPU sees */
};

/* A DMA-BUF of @len bytes of memfd pages; 0 or an errno. */
static int udmabuf_new(struct udmabuf *u, size_t len)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = len };
	int dev, err;

	u->memfd = u->fd = -1;
	u->cpu = MAP_FAILED;
	dev = open("/dev/udmabuf", O_RDWR);
	if (dev < 0)
		return errno;
	u->memfd = memfd_create("verbs_compat_dmabuf", MFD_ALLOW_SEALING);
	if (u->memfd < 0 || ftruncate(u->memfd, (off_t)len) ||
	    fcntl(u->memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		goto err;
	c.memfd = (uint32_t)u->memfd;
	u->fd = ioctl(dev, UDMABUF_CREATE, &c);
	if (u->fd < 0)
		goto err;
	u->cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, u->memfd, 0);
	if (u->cpu == MAP_FAILED)
		goto err;
	close(dev);
	return 0;
err:
	err = errno;
	close(dev);
	return err;
}

static void udmabuf_free(struct udmabuf *u, size_t len)
{
	if (u->cpu != MAP_FAILED)
		munmap(u->cpu, len);
	if (u->fd >= 0)
		close(u->fd);
	if (u->memfd >= 0)
		close(u->memfd);
}

/* @b RDMA READs @len bytes at @off of @a's region into its own buffer. */
static bool read_ok(struct ep *b, struct ep *a, size_t off, uint32_t len, uint64_t wr_id)
{
	memset(b->m.buf, 0, len);
	if (post_rdma(b, IBV_WR_RDMA_READ, wr_id, 0, b->m.mr->lkey, len,
		      (uintptr_t)a->m.buf + off, a->m.mr->rkey))
		return false;
	if (!expect_wc(b->scq, wr_id, IBV_WC_SUCCESS, NULL))
		return false;
	return first_diff(a->m.buf + off, b->m.buf, len) < 0;
}

int case_dmabuf(void)
{
	struct ep a = {}, b = {};
	struct udmabuf u = { .memfd = -1, .fd = -1, .cpu = MAP_FAILED };
	struct ibv_mr *mr = NULL;
	struct two t = {};
	int rc = KSFT_PASS, err;
	const uint32_t big = 64 * 1024;

	CHECK(!two_open(&t), "open devices");
	err = udmabuf_new(&u, DMABUF_SIZE);
	CHECK(!err, "udmabuf of %d KiB: %s", DMABUF_SIZE / 1024, strerror(err));
	/* Accessed at the CPU address of the pages: SGEs name them alike. */
	mr = ibv_reg_dmabuf_mr(t.d[0].pd, 0, DMABUF_SIZE, (uintptr_t)u.cpu, u.fd, MR_ALL);
	err = mr ? 0 : errno;
	obs("ibv_reg_dmabuf_mr", "%s", err_name(err));
	if (!mr && err == EOPNOTSUPP) {
		diag("SKIP: ibv_reg_dmabuf_mr: %s", strerror(err));
		rc = KSFT_SKIP;
		goto out;
	}
	CHECK(mr, "ibv_reg_dmabuf_mr: %s", strerror(err));
	obs("DMA-BUF MR length", "%zu", mr->length);
	CHECK(mr->length == DMABUF_SIZE, "MR of %zu bytes, registered %d", mr->length,
	      DMABUF_SIZE);

	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, 0, &default_opts), "QP on device 0");
	a.m.buf = u.cpu;
	a.m.len = DMABUF_SIZE;
	a.m.mr = mr;
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &default_opts), "peer QP");
	CHECK(!pair_connect(&a, &b, &default_opts, &default_opts), "connect");

	/* SEND and RDMA WRITE out of the DMA-BUF (its lkey). */
	CHECK(!compat_traffic(&a, &b, false), "SEND and WRITE from the DMA-BUF MR");
	/* RDMA WRITE into it (its rkey): 64 B, then 64 KiB at 64 KiB. */
	CHECK(write_ok(&b, &a, 0xc0), "RDMA WRITE of 64 B into the DMA-BUF MR");
	fill(b.m.buf, big, 0xd0);
	memset(u.cpu + big, 0, big);
	CHECK(!post_rdma(&b, IBV_WR_RDMA_WRITE, 0xc1, 0, b.m.mr->lkey, big,
			 (uintptr_t)u.cpu + big, mr->rkey), "post RDMA WRITE of 64 KiB");
	CHECK(expect_wc(b.scq, 0xc1, IBV_WC_SUCCESS, NULL), "RDMA WRITE completion");
	CHECK(first_diff(b.m.buf, u.cpu + big, big) < 0,
	      "the memfd sees other data at byte %ld of the 64 KiB written",
	      first_diff(b.m.buf, u.cpu + big, big));
	obs("RDMA WRITE into the DMA-BUF MR", "data as written");
	/* RDMA READ out of it: data the CPU wrote into the memfd. */
	fill(u.cpu + 3 * big, big, 0xe0);
	CHECK(read_ok(&b, &a, 3 * big, big, 0xc2), "RDMA READ of 64 KiB from the DMA-BUF MR");
	obs("RDMA READ from the DMA-BUF MR", "data as the CPU wrote it");
	/* Outside the region: the device refuses it. */
	CHECK(!post_rdma(&b, IBV_WR_RDMA_WRITE, 0xc3, 0, b.m.mr->lkey, 64,
			 (uintptr_t)u.cpu + DMABUF_SIZE, mr->rkey), "post RDMA WRITE past the end");
	CHECK(expect_wc(b.scq, 0xc3, IBV_WC_REM_ACCESS_ERR, NULL),
	      "RDMA WRITE past the end of the DMA-BUF MR: remote access error");
	obs("RDMA WRITE past the end", "remote access error");
out:
	a.m = (struct mem){};
	ep_destroy(&a);
	ep_destroy(&b);
	if (mr)
		ibv_dereg_mr(mr);
	udmabuf_free(&u, DMABUF_SIZE);
	two_close(&t);
	return rc;
}
