/* CQ rings may come as an ioctl buffer attribute (v7.x) */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>
struct ib_umem *probe(struct ib_device *dev, struct uverbs_attr_bundle *attrs);
struct ib_umem *probe(struct ib_device *dev, struct uverbs_attr_bundle *attrs)
{
	return ib_umem_get_cq_buf_or_va(dev, attrs, 0, 4096, 0);
}
