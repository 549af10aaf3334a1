// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs_raw.c - raw uverbs plumbing: write() commands, RDMA_VERBS_IOCTL
 * calls and mmap() of the device file, each returning 0 or -errno so that a
 * caller compares errnos. Used by ib_udata_test and by verbs_diff_test's
 * random raw commands; the program provides diag().
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ib_udata.h"

/* --- write() commands --------------------------------------------------- */

const char *dev_path;

int open_dev(void)
{
	int fd = open(dev_path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fd = -errno;
		diag("open %s: %d", dev_path, fd);
	}
	return fd;
}

/* Writes the command @msg, then splits the kernel's answer @out. */
static long uv_send(int fd, const uint8_t *msg, size_t total, const struct uv_cmd *c,
		    const uint8_t *out)
{
	ssize_t n = write(fd, msg, total);

	if (n < 0)
		return -errno;
	if ((size_t)n != total) {
		diag("uv_write: command %u took %zd of %zu bytes", c->cmd, n, total);
		return -EIO;
	}
	if (c->resp_len)
		memcpy(c->resp, out, c->resp_len);
	if (c->uresp_len)
		memcpy(c->uresp, out + c->resp_len, c->uresp_len);
	return 0;
}

long uv_write(int fd, const struct uv_cmd *c)
{
	static uint8_t msg[1024] __attribute__((aligned(8)));
	static uint8_t out[1024] __attribute__((aligned(8)));
	struct ib_uverbs_cmd_hdr *h = (struct ib_uverbs_cmd_hdr *)msg;
	size_t total = sizeof(*h) + c->req_len + c->udata_len;
	size_t out_len = c->resp_len + c->uresp_len;
	uint8_t *req = msg + sizeof(*h);

	if (total > sizeof(msg) || out_len > sizeof(out) || total % 4 || out_len % 4) {
		diag("uv_write: command %u of %zu bytes, response %zu: test bug",
		     c->cmd, total, out_len);
		return -E2BIG;
	}
	memcpy(req, c->req, c->req_len);
	if (c->udata_len)
		memcpy(req + c->req_len, c->udata, c->udata_len);
	if (out_len) {
		uint64_t resp_addr = addr(out);

		memcpy(req, &resp_addr, sizeof(resp_addr));
		memset(out, 0, out_len);
	}
	h->command = c->cmd;
	h->in_words = (uint16_t)(total / 4);
	h->out_words = (uint16_t)(out_len / 4);

	return uv_send(fd, msg, total, c, out);
}

long uv_write_ex(int fd, const struct uv_cmd *c)
{
	static uint8_t msg[1024] __attribute__((aligned(8)));
	static uint8_t out[1024] __attribute__((aligned(8)));
	struct ib_uverbs_cmd_hdr *h = (struct ib_uverbs_cmd_hdr *)msg;
	struct ib_uverbs_ex_cmd_hdr *x = (struct ib_uverbs_ex_cmd_hdr *)(h + 1);
	size_t total = sizeof(*h) + sizeof(*x) + c->req_len + c->udata_len;
	size_t out_len = c->resp_len + c->uresp_len;
	uint8_t *req = (uint8_t *)(x + 1);

	if (total > sizeof(msg) || out_len > sizeof(out) || c->req_len % 8 ||
	    c->udata_len % 8 || c->resp_len % 8 || c->uresp_len % 8) {
		diag("uv_write_ex: command %u of %zu bytes, response %zu: test bug",
		     c->cmd, total, out_len);
		return -E2BIG;
	}
	memset(x, 0, sizeof(*x));
	memcpy(req, c->req, c->req_len);
	if (c->udata_len)
		memcpy(req + c->req_len, c->udata, c->udata_len);
	memset(out, 0, out_len);
	h->command = IB_USER_VERBS_CMD_FLAG_EXTENDED | c->cmd;
	h->in_words = (uint16_t)(c->req_len / 8);
	h->out_words = (uint16_t)(c->resp_len / 8);
	x->response = out_len ? addr(out) : 0;
	x->provider_in_words = (uint16_t)(c->udata_len / 8);
	x->provider_out_words = (uint16_t)(c->uresp_len / 8);

	return uv_send(fd, msg, total, c, out);
}

long destroy_handle(int fd, uint32_t cmd, uint32_t handle)
{
	union {
		struct ib_uverbs_destroy_cq_resp cq;
		struct ib_uverbs_destroy_qp_resp qp;
		struct ib_uverbs_destroy_srq_resp srq;
	} resp;
	struct uv_cmd c = { .cmd = cmd, .resp = &resp };

	switch (cmd) {
	case IB_USER_VERBS_CMD_DEALLOC_PD: {
		struct ib_uverbs_dealloc_pd d = { .pd_handle = handle };

		c.req = &d;
		c.req_len = sizeof(d);
		c.resp = NULL;
		return uv_write(fd, &c);
	}
	case IB_USER_VERBS_CMD_DEREG_MR: {
		struct ib_uverbs_dereg_mr d = { .mr_handle = handle };

		c.req = &d;
		c.req_len = sizeof(d);
		c.resp = NULL;
		return uv_write(fd, &c);
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ: {
		struct ib_uverbs_destroy_cq d = { .cq_handle = handle };

		c.req = &d;
		c.req_len = sizeof(d);
		c.resp_len = sizeof(resp.cq);
		return uv_write(fd, &c);
	}
	case IB_USER_VERBS_CMD_DESTROY_QP: {
		struct ib_uverbs_destroy_qp d = { .qp_handle = handle };

		c.req = &d;
		c.req_len = sizeof(d);
		c.resp_len = sizeof(resp.qp);
		return uv_write(fd, &c);
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ: {
		struct ib_uverbs_destroy_srq d = { .srq_handle = handle };

		c.req = &d;
		c.req_len = sizeof(d);
		c.resp_len = sizeof(resp.srq);
		return uv_write(fd, &c);
	}
	}
	diag("destroy_handle: command %u: test bug", cmd);
	return -EINVAL;
}

/* --- RDMA_VERBS_IOCTL --------------------------------------------------- */

void uv_ioctl_init(struct uv_ioctl *u, uint16_t object, uint16_t method)
{
	memset(u, 0, sizeof(*u));
	u->hdr.object_id = object;
	u->hdr.method_id = method;
	u->hdr.driver_id = RDMA_DRIVER_MLX5;
}

static struct ib_uverbs_attr *attr_add(struct uv_ioctl *u, uint16_t id, size_t len)
{
	struct ib_uverbs_attr *a;

	if (u->hdr.num_attrs == UV_MAX_ATTRS || len > UINT16_MAX) {
		diag("uv_ioctl: attribute %u does not fit: test bug", id);
		a = &u->attrs[UV_MAX_ATTRS - 1];
		a->flags = 0xffff;	/* the kernel refuses the call */
		return a;
	}
	a = &u->attrs[u->hdr.num_attrs++];
	a->attr_id = id;
	a->len = (uint16_t)len;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

struct ib_uverbs_attr *uv_attr_in(struct uv_ioctl *u, uint16_t id, const void *p,
				  size_t len)
{
	struct ib_uverbs_attr *a = attr_add(u, id, len);

	if (len <= sizeof(a->data))
		memcpy(&a->data, p, len);
	else
		a->data = addr(p);
	return a;
}

struct ib_uverbs_attr *uv_attr_out(struct uv_ioctl *u, uint16_t id, void *p, size_t len)
{
	struct ib_uverbs_attr *a = attr_add(u, id, len);

	a->data = addr(p);
	return a;
}

struct ib_uverbs_attr *uv_attr_obj(struct uv_ioctl *u, uint16_t id, uint32_t handle)
{
	struct ib_uverbs_attr *a = attr_add(u, id, 0);

	a->data = handle;
	return a;
}

long uv_ioctl(int fd, struct uv_ioctl *u)
{
	u->hdr.length = (uint16_t)(sizeof(u->hdr) + u->hdr.num_attrs * sizeof(u->attrs[0]));
	return ioctl(fd, RDMA_VERBS_IOCTL, u) ? -errno : 0;
}

/* --- memory ------------------------------------------------------------- */

long map_dev(int fd, unsigned long pgoff, size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, (off_t)(pgoff * PAGE));

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

void *anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}
