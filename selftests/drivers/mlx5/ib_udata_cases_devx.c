// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_cases_devx.c - DEVX, the firmware commands a process builds
 * itself: a context opened with MLX5_IB_ALLOC_UCTX_DEVX may query its own
 * function and own free KLM memory keys on its own PDs, and nothing else
 * reaches the firmware: commands off the list, queries of another
 * function, keys that name memory (MTT mode, translation entries, umems),
 * keys bound to a QP or on another context's PD. A PD is busy while a
 * DEVX key names it; a key whose answer cannot be copied out is destroyed.
 * A context without DEVX sends nothing.
 *
 * The commands are built here by PRM offsets (dword, bit): the kernel's
 * mlx5_ifc.h is not a uapi header. The valid key shows the offsets right.
 */
#include <endian.h>
#include <unistd.h>

#include "ib_udata.h"

#define OP_QUERY_HCA_CAP	0x100
#define OP_CREATE_MKEY		0x200
#define OP_QUERY_MKEY		0x201
#define OP_CREATE_QP		0x500

#define CREATE_MKEY_IN_DW	68	/* 0x110 bytes, no translation entry */
#define MKC			4	/* the key context's first dword */
#define MKC_MODE_MTT		1
#define MKC_MODE_KLMS		2

/* Sets @width bits of big-endian dword @dw, the lowest at bit @lo. */
static void put(uint32_t *p, unsigned int dw, unsigned int lo, unsigned int width,
		uint32_t v)
{
	uint32_t m = (width == 32 ? 0xffffffffu : (1u << width) - 1) << lo;

	p[dw] = htobe32((be32toh(p[dw]) & ~m) | ((v << lo) & m));
}

static uint32_t get(const uint32_t *p, unsigned int dw, unsigned int lo, unsigned int width)
{
	return (be32toh(p[dw]) >> lo) & (width == 32 ? 0xffffffffu : (1u << width) - 1);
}

/* The key libmlx5's mlx5dv_create_mkey asks for: free, KLM, UMR-enabled. */
static void mkey_in(uint32_t *in, uint32_t pdn)
{
	memset(in, 0, CREATE_MKEY_IN_DW * 4);
	put(in, 0, 16, 16, OP_CREATE_MKEY);
	put(in, 0, 0, 16, 0x1234);		/* a uid the driver overwrites */
	put(in, MKC + 0, 30, 1, 1);		/* free */
	put(in, MKC + 0, 15, 1, 1);		/* umr_en */
	put(in, MKC + 0, 10, 1, 1);		/* lr */
	put(in, MKC + 0, 8, 2, MKC_MODE_KLMS);	/* access_mode_1_0 */
	put(in, MKC + 1, 8, 24, 0xffffff);	/* qpn: none */
	put(in, MKC + 1, 0, 8, 0x42);		/* mkey_7_0 */
	put(in, MKC + 3, 0, 24, pdn);		/* pd */
	put(in, MKC + 13, 0, 32, 4);		/* translations_octword_size */
}

static long devx_other(int fd, const uint32_t *in, size_t inlen, uint32_t *out, size_t outlen)
{
	struct uv_ioctl u;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_OTHER);
	uv_attr_in(&u, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, in, inlen);
	uv_attr_out(&u, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, out, outlen);
	return uv_ioctl(fd, &u);
}

static long devx_create(int fd, const uint32_t *in, size_t inlen, uint32_t *out,
			size_t outlen, uint32_t *handle)
{
	struct ib_uverbs_attr *h;
	struct uv_ioctl u;
	long rc;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_CREATE);
	h = uv_attr_obj(&u, MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE, 0);
	uv_attr_in(&u, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN, in, inlen);
	uv_attr_out(&u, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out, outlen);
	rc = uv_ioctl(fd, &u);
	if (!rc)
		*handle = (uint32_t)h->data;
	return rc;
}

static long devx_query(int fd, uint32_t handle, const uint32_t *in, size_t inlen,
		       uint32_t *out, size_t outlen)
{
	struct uv_ioctl u;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_QUERY);
	uv_attr_obj(&u, MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE, handle);
	uv_attr_in(&u, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN, in, inlen);
	uv_attr_out(&u, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, out, outlen);
	return uv_ioctl(fd, &u);
}

static long devx_destroy(int fd, uint32_t handle)
{
	struct uv_ioctl u;

	uv_ioctl_init(&u, MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_DESTROY);
	uv_attr_obj(&u, MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE, handle);
	return uv_ioctl(fd, &u);
}

/* A CREATE_MKEY changed by @bad from the valid one must be refused. */
static void refused_key(int fd, uint32_t pdn, const char *name, int err,
			void (*bad)(uint32_t *in, size_t *inlen))
{
	uint32_t in[CREATE_MKEY_IN_DW + 4], out[4], h;
	size_t inlen = CREATE_MKEY_IN_DW * 4;
	long rc;

	mkey_in(in, pdn);
	bad(in, &inlen);
	rc = devx_create(fd, in, inlen, out, sizeof(out), &h);
	if (!rc)
		devx_destroy(fd, h);
	expect_err(name, rc, err);
}

static void bad_mtt(uint32_t *in, size_t *inlen)
{
	(void)inlen;
	put(in, MKC + 0, 30, 1, 0);
	put(in, MKC + 0, 8, 2, MKC_MODE_MTT);
}

static void bad_entries(uint32_t *in, size_t *inlen)
{
	memset(in + CREATE_MKEY_IN_DW, 0, 16);
	put(in, 24, 0, 32, 1);	/* translations_octword_actual_size */
	*inlen += 16;
}

static void bad_qpn(uint32_t *in, size_t *inlen)
{
	(void)inlen;
	put(in, MKC + 1, 8, 24, 1);
}

static void bad_umem(uint32_t *in, size_t *inlen)
{
	(void)inlen;
	put(in, 3, 30, 1, 1);
}

static void bad_opcode(uint32_t *in, size_t *inlen)
{
	(void)inlen;
	put(in, 0, 16, 16, OP_CREATE_QP);
}

void test_devx(void)
{
	uint32_t cap_in[4] = { 0 }, cap_out[0x1010 / 4];
	uint32_t in[CREATE_MKEY_IN_DW], out[4], q_in[4], q_out[256];
	struct mlx5_ib_alloc_ucontext_resp r;
	uint32_t pd, pdn, pd2, pdn2, other_pd, other_pdn, key, key2;
	int fd, ofd;
	long rc;

	fd = new_devx_context(&r);
	expect_ok("devx: a context opened with DEVX", fd < 0 ? fd : 0);
	if (fd < 0) {
		skip("devx: commands", "no DEVX context");
		return;
	}
	put(cap_in, 0, 16, 16, OP_QUERY_HCA_CAP);
	put(cap_in, 1, 0, 16, 1);	/* general capabilities, current */
	memset(cap_out, 0xff, sizeof(cap_out));
	rc = devx_other(fd, cap_in, sizeof(cap_in), cap_out, sizeof(cap_out));
	ok(!rc && get(cap_out, 0, 24, 8) == 0, "devx: QUERY_HCA_CAP of its own function");
	put(cap_in, 2, 31, 1, 1);	/* other_function */
	expect_err("devx: QUERY_HCA_CAP of another function",
		   devx_other(fd, cap_in, sizeof(cap_in), cap_out, sizeof(cap_out)), EINVAL);

	rc = alloc_pd_num(fd, &pd, &pdn);
	expect_ok("devx: a PD", rc);
	if (rc)
		goto out;
	mkey_in(in, pdn);
	expect_err("devx: CREATE_MKEY is not a query",
		   devx_other(fd, in, sizeof(in), out, sizeof(out)), EINVAL);
	memset(out, 0xff, sizeof(out));
	rc = devx_create(fd, in, sizeof(in), out, sizeof(out), &key);
	ok(!rc && get(out, 0, 24, 8) == 0 && get(out, 2, 0, 24),
	   "devx: a free KLM key on its PD");
	if (!rc) {
		memset(q_in, 0, sizeof(q_in));
		put(q_in, 0, 16, 16, OP_QUERY_MKEY);
		put(q_in, 2, 0, 24, get(out, 2, 0, 24));
		rc = devx_query(fd, key, q_in, sizeof(q_in), q_out, sizeof(q_out));
		ok(!rc && get(q_out, 0, 24, 8) == 0 && get(q_out, MKC + 1, 0, 8) == 0x42,
		   "devx: QUERY_MKEY of its key");
		put(q_in, 2, 0, 24, get(out, 2, 0, 24) + 1);
		expect_err("devx: QUERY_MKEY of another key",
			   devx_query(fd, key, q_in, sizeof(q_in), q_out, sizeof(q_out)), EINVAL);
		expect_err("devx: the key's PD is busy",
			   destroy_handle(fd, IB_USER_VERBS_CMD_DEALLOC_PD, pd), EBUSY);
		expect_ok("devx: key destroyed", devx_destroy(fd, key));
	} else {
		diag("DEVX CREATE_MKEY: %ld, status 0x%x syndrome 0x%x", rc, get(out, 0, 24, 8),
		     get(out, 1, 0, 32));
	}

	/* The answer cannot be written: the key goes again, its PD is free. */
	if (!alloc_pd_num(fd, &pd2, &pdn2)) {
		mkey_in(in, pdn2);
		expect_err("devx: a key whose answer cannot be written",
			   devx_create(fd, in, sizeof(in), (uint32_t *)UNMAPPED, sizeof(out), &key2),
			   EFAULT);
		expect_ok("devx: that key is gone, its PD free",
			  destroy_handle(fd, IB_USER_VERBS_CMD_DEALLOC_PD, pd2));
	} else {
		ok(0, "devx: a second PD");
	}

	refused_key(fd, pdn, "devx: an MTT key", EINVAL, bad_mtt);
	refused_key(fd, pdn, "devx: a key with translation entries", EINVAL, bad_entries);
	refused_key(fd, pdn, "devx: a key bound to a QP", EINVAL, bad_qpn);
	refused_key(fd, pdn, "devx: a key on a umem", EINVAL, bad_umem);
	refused_key(fd, pdn, "devx: an object other than a key", EOPNOTSUPP, bad_opcode);

	ofd = new_context(MLX5_LIB_CAP_4K_UAR, &r);
	if (ofd >= 0 && !alloc_pd_num(ofd, &other_pd, &other_pdn)) {
		mkey_in(in, other_pdn);
		rc = devx_create(fd, in, sizeof(in), out, sizeof(out), &key2);
		if (!rc)
			devx_destroy(fd, key2);
		expect_err("devx: a key on another context's PD", rc, EINVAL);
		mkey_in(in, other_pdn);
		expect_err("devx: nothing from a context without DEVX",
			   devx_create(ofd, in, sizeof(in), out, sizeof(out), &key2), EINVAL);
	} else {
		ok(0, "devx: a second, plain context with a PD");
	}
	if (ofd >= 0)
		close(ofd);

	/* A key and its PD left for close(): uverbs destroys the key first. */
	mkey_in(in, pdn);
	expect_ok("devx: a key left for close",
		  devx_create(fd, in, sizeof(in), out, sizeof(out), &key));
out:
	close(fd);
}
