// SPDX-License-Identifier: GPL-2.0
/*
 * dm_alloc DEVICE [LENGTH]: one ibv_alloc_dm of LENGTH bytes (default 64)
 * on DEVICE, written and read back through its mapping, then freed. For
 * device_misbehave_test.sh, which has the emulator answer ALLOC_MEMIC with
 * an address it was not asked for.
 *
 * Prints "alloc_dm: ok" or "alloc_dm: errno N (<message>)". Exit 0
 * when the allocation worked and the data came back, 1 when
 * ibv_alloc_dm failed, 2 on any other error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_alloc_dm_attr attr = { .length = 64 };
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	unsigned char want[256], got[256];
	struct ibv_dm *dm;
	int i, n, err, rc = 2;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s DEVICE [LENGTH]\n", argv[0]);
		return 2;
	}
	if (argc == 3)
		attr.length = strtoul(argv[2], NULL, 0);
	if (!attr.length || attr.length > sizeof(want)) {
		fprintf(stderr, "LENGTH: 1..%zu\n", sizeof(want));
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "%s: cannot open\n", argv[1]);
		goto out_list;
	}
	dm = ibv_alloc_dm(ctx, &attr);
	if (!dm) {
		err = errno;
		printf("alloc_dm: errno %d (%s)\n", err, strerror(err));
		rc = 1;
		goto out_ctx;
	}
	for (i = 0; i < (int)attr.length; i++)
		want[i] = (unsigned char)(i * 7 + 1);
	err = ibv_memcpy_to_dm(dm, 0, want, attr.length);
	if (!err)
		err = ibv_memcpy_from_dm(got, dm, 0, attr.length);
	if (err)
		printf("memcpy through the DM: %s\n", strerror(err));
	else if (memcmp(want, got, attr.length))
		printf("alloc_dm: the data read back differs\n");
	else {
		printf("alloc_dm: ok\n");
		rc = 0;
	}
	err = ibv_free_dm(dm);
	if (err) {
		printf("ibv_free_dm: %s\n", strerror(err));
		rc = 2;
	}
out_ctx:
	if (ctx)
		ibv_close_device(ctx);
out_list:
	if (list)
		ibv_free_device_list(list);
	return rc;
}
