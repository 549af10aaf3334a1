// SPDX-License-Identifier: GPL-2.0
/*
 * ib_udata_lib.c - KTAP reporting of ib_udata_test (the raw uverbs
 * plumbing it uses is ib_uverbs_raw.c).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>

#include "ib_udata.h"

/* --- KTAP --------------------------------------------------------------- */

static int n_case, n_fail, n_skip;

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void ok(int pass, const char *name)
{
	printf("%s %d %s\n", pass ? "ok" : "not ok", ++n_case, name);
	if (!pass)
		n_fail++;
}

void skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++n_case, name, why);
	n_skip++;
}

void expect_err(const char *name, long rc, int err)
{
	if (rc != -err)
		diag("%s: got %ld, expected %d", name, rc, -err);
	ok(rc == -err, name);
}

void expect_err2(const char *name, long rc, int err, int err2)
{
	if (rc != -err && rc != -err2)
		diag("%s: got %ld, expected %d or %d", name, rc, -err, -err2);
	ok(rc == -err || rc == -err2, name);
}

void expect_ok(const char *name, long rc)
{
	if (rc)
		diag("%s: got %ld", name, rc);
	ok(rc == 0, name);
}

int ktap_finish(void)
{
	printf("1..%d\n", n_case);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       n_case - n_fail - n_skip, n_fail, n_skip);
	return n_fail ? 1 : 0;
}

