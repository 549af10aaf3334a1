/* ib_umem_get() became ib_umem_get_va() with the umem refactoring (v7.x) */
#include <rdma/ib_umem.h>
struct ib_umem *probe(struct ib_device *dev);
struct ib_umem *probe(struct ib_device *dev)
{
	return ib_umem_get_va(dev, 0, 4096, 0);
}
