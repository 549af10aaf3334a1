/* ib_device_ops.reg_user_mr takes a struct ib_dmah * (v6.17) */
#include <rdma/ib_verbs.h>
static struct ib_mr *probe_reg(struct ib_pd *pd, u64 start, u64 length,
			       u64 virt, int access, struct ib_dmah *dmah,
			       struct ib_udata *udata)
{
	return NULL;
}
const struct ib_device_ops probe_ops = { .reg_user_mr = probe_reg };
