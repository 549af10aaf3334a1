/* CQ resize for user CQs only: ib_device_ops.resize_user_cq (v7.x) */
#include <rdma/ib_verbs.h>
static int probe_resize(struct ib_cq *cq, unsigned int cqe, struct ib_udata *udata)
{
	return 0;
}
const struct ib_device_ops probe_ops = { .resize_user_cq = probe_resize };
