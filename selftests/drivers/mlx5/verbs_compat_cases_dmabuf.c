// SPDX-License-Identifier: GPL-2.0
/*
 * DMA-BUF memory regions (ibv_reg_dmabuf_mr): the pages of a memfd
 * exported as a DMA-BUF by udmabuf, registered on device 0. The peer on
 * device 1 RDMA WRITEs into the region and READs from it, device 0 SENDs
 * and WRITEs from it; every transfer is checked through the memfd's own
 * mapping of the same pages, so the CPU and the device must have seen
 * the same memory.
 * dmabuf_dereg deregisters such a region while the peer's stream of
 * WRITEs and READs into it is still on the wire (verbs_compat_test.sh
 * slows the link down for it, so that the stream outlasts the
 * deregistration).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/*
 * Whether the DMA-BUF of inode @ino is still alive: 1 while debugfs's
 * list of every DMA-BUF (dma_buf/bufinfo: size, flags, mode, count,
 * exporter, inode, ...) names it, 0 once it is gone, -1 (errno set) when
 * the list cannot be read.
 */
static int dmabuf_alive(ino_t ino)
{
	FILE *f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "r");
	unsigned long long size, i;
	unsigned int flags, mode;
	char line[512], exp[64];
	long count;
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu %x %x %ld %63s %llu", &size, &flags, &mode, &count,
			   exp, &i) == 6 && i == (unsigned long long)ino)
			found = 1;
	fclose(f);
	return found;
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
	OBS_OR_SKIP("ibv_reg_dmabuf_mr", mr, err);
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

/* The stream: QP_DEPTH WRs of 64 KiB, WRITEs and READs in turn. */
#define STREAM_LEN (64 * 1024)

int case_dmabuf_dereg(void)
{
	/* A slowed link: ACK timeout 4.096 us << 18 = 1 s, not 67 ms. */
	struct conn_opts o = default_opts;
	struct ep a = {}, b = {}, c = {}, d = {};
	struct udmabuf u = { .memfd = -1, .fd = -1, .cpu = MAP_FAILED };
	struct ibv_mr *mr = NULL, *mr2 = NULL;
	struct ibv_wc wc[QP_DEPTH];
	int rc = KSFT_PASS, err, i, got, ok = 0, flushed = 0, alive;
	enum ibv_wc_status first_err = IBV_WC_SUCCESS;
	struct two t = {};
	struct stat st;

	o.timeout = 18;
	CHECK(!two_open(&t), "open devices");
	err = udmabuf_new(&u, DMABUF_SIZE);
	CHECK(!err, "udmabuf of %d KiB: %s", DMABUF_SIZE / 1024, strerror(err));
	CHECK(!fstat(u.fd, &st), "fstat of the DMA-BUF: %s", strerror(errno));
	alive = dmabuf_alive(st.st_ino);
	CHECK(alive == 1, "the DMA-BUF is not in dma_buf/bufinfo (%d: %s)", alive,
	      alive < 0 ? strerror(errno) : "not listed");
	mr = ibv_reg_dmabuf_mr(t.d[0].pd, 0, DMABUF_SIZE, (uintptr_t)u.cpu, u.fd, MR_ALL);
	err = mr ? 0 : errno;
	OBS_OR_SKIP("ibv_reg_dmabuf_mr", mr, err);
	CHECK(mr, "ibv_reg_dmabuf_mr: %s", strerror(err));

	CHECK(!ep_create(&a, &t.d[0], NULL, NULL, 0, &o), "QP on device 0");
	a.m.buf = u.cpu;
	a.m.len = DMABUF_SIZE;
	a.m.mr = mr;
	CHECK(!ep_create(&b, &t.d[1], NULL, NULL, MR_ALL, &o), "peer QP");
	CHECK(!pair_connect(&a, &b, &o, &o), "connect");

	/* The peer's stream into the region: every WR signaled, in order. */
	for (i = 0; i < QP_DEPTH; i++) {
		size_t off = (size_t)(i % (DMABUF_SIZE / STREAM_LEN)) * STREAM_LEN;

		err = post_rdma(&b, i % 2 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE, i, off,
				b.m.mr->lkey, STREAM_LEN, (uintptr_t)u.cpu + off, mr->rkey);
		CHECK(!err, "post WR %d of the stream: %s", i, strerror(err));
	}
	/* Traffic flows: the first WR completed. */
	CHECK(wait_wc(b.scq, wc, 1, wait_ms) == 1, "no completion of the stream within %d ms",
	      wait_ms);
	CHECK(wc[0].wr_id == 0 && wc[0].status == IBV_WC_SUCCESS,
	      "first completion: wr_id %llu, %s", (unsigned long long)wc[0].wr_id,
	      wc_status(wc[0].status));
	err = ibv_dereg_mr(mr);
	obs("ibv_dereg_mr under traffic", "%s", err_name(err));
	CHECK(!err, "ibv_dereg_mr with WRs outstanding: %s", strerror(err));
	mr = NULL;
	a.m = (struct mem){};

	/*
	 * The rest of the stream: the WRs the responder served before the
	 * key went complete, then one remote access error (the first WR
	 * that reached the region after it), then every later WR flushed.
	 */
	got = wait_wc(b.scq, wc, QP_DEPTH - 1, wait_ms);
	CHECK(got == QP_DEPTH - 1, "%d of the %d other completions within %d ms", got,
	      QP_DEPTH - 1, wait_ms);
	for (i = 0; i < got; i++) {
		CHECK(wc[i].wr_id == (uint64_t)i + 1, "completion %d is of wr_id %llu", i + 1,
		      (unsigned long long)wc[i].wr_id);
		if (first_err == IBV_WC_SUCCESS) {
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			else
				first_err = wc[i].status;
			continue;
		}
		CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR, "WR %d after the error: %s", i + 1,
		      wc_status(wc[i].status));
		flushed++;
	}
	diag("stream: %d of %d WRs completed before the error, %d flushed", ok + 1, QP_DEPTH,
	     flushed);
	CHECK(first_err != IBV_WC_SUCCESS, "every WR of the stream completed: the stream "
	      "ended before the deregistration (nothing was outstanding)");
	obs("first error after deregistration", "%s", wc_status(first_err));
	CHECK(first_err == IBV_WC_REM_ACCESS_ERR, "first error %s, expected %s",
	      wc_status(first_err), wc_status(IBV_WC_REM_ACCESS_ERR));
	obs("peer QP after the error", "%s", qps_name(qp_state(b.qp)));
	CHECK(qp_state(b.qp) == IBV_QPS_ERR, "peer QP in %s, expected ERR",
	      qps_name(qp_state(b.qp)));

	/* The MR held the DMA-BUF's last other reference: closed, it goes. */
	close(u.fd);
	u.fd = -1;
	alive = dmabuf_alive(st.st_ino);
	obs("DMA-BUF after deregistration and close", "%s", alive ? "alive" : "released");
	CHECK(!alive, "the DMA-BUF is still alive after deregistration and close (%d)", alive);

	/* The devices go on: a new DMA-BUF MR of the same pages, new QPs. */
	ep_destroy(&a);
	ep_destroy(&b);
	{
		struct udmabuf_create cr = { .flags = UDMABUF_FLAGS_CLOEXEC,
					     .memfd = (uint32_t)u.memfd, .size = DMABUF_SIZE };
		int dev = open("/dev/udmabuf", O_RDWR);

		u.fd = dev < 0 ? -1 : ioctl(dev, UDMABUF_CREATE, &cr);
		err = errno;
		if (dev >= 0)
			close(dev);
		CHECK(u.fd >= 0, "a second udmabuf of the memfd: %s", strerror(err));
	}
	mr2 = ibv_reg_dmabuf_mr(t.d[0].pd, 0, DMABUF_SIZE, (uintptr_t)u.cpu, u.fd, MR_ALL);
	CHECK(mr2, "ibv_reg_dmabuf_mr again: %s", strerror(errno));
	CHECK(!ep_create(&c, &t.d[0], NULL, NULL, 0, &o), "new QP on device 0");
	c.m.buf = u.cpu;
	c.m.len = DMABUF_SIZE;
	c.m.mr = mr2;
	CHECK(!ep_create(&d, &t.d[1], NULL, NULL, MR_ALL, &o), "new peer QP");
	CHECK(!pair_connect(&c, &d, &o, &o), "connect the new pair");
	CHECK(write_ok(&d, &c, 0xd0), "RDMA WRITE into the new DMA-BUF MR");
	CHECK(read_ok(&d, &c, STREAM_LEN, STREAM_LEN, 0xd1), "RDMA READ from the new DMA-BUF MR");
	obs("new DMA-BUF MR after the error", "WRITE and READ as written");
out:
	a.m = (struct mem){};
	c.m = (struct mem){};
	ep_destroy(&a);
	ep_destroy(&b);
	ep_destroy(&c);
	ep_destroy(&d);
	if (mr)
		ibv_dereg_mr(mr);
	if (mr2)
		ibv_dereg_mr(mr2);
	udmabuf_free(&u, DMABUF_SIZE);
	two_close(&t);
	return rc;
}
