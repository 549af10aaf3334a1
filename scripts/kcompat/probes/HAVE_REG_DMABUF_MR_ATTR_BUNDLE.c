/*
 * ib_device_ops.reg_user_mr_dmabuf takes a uverbs_attr_bundle (v6.10;
 * from v6.17 after a DMA handle, HAVE_REG_USER_MR_DMAH)
 */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
static struct ib_mr *probe_reg(struct ib_pd *pd, u64 offset, u64 length,
			       u64 virt, int fd, int access,
			       struct uverbs_attr_bundle *attrs)
{
	return NULL;
}
const struct ib_device_ops probe_ops = { .reg_user_mr_dmabuf = probe_reg };
