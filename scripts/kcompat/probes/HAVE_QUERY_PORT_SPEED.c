/*
 * ib_device_ops.query_port_speed: a port's effective bandwidth for
 * ibv_query_port_speed (rdma-core 65's ibv_devinfo prints it as
 * effective_speed); in 7.2 and 7.3, not in 6.12
 */
#include <rdma/ib_verbs.h>
static int probe_speed(struct ib_device *ibdev, u32 port, u64 *speed)
{
	struct ib_port_attr attr = {};
	struct ib_port_speed_info info;

	*speed = 0;
	return ib_port_attr_to_speed_info(&attr, &info);
}
const struct ib_device_ops probe_ops = { .query_port_speed = probe_speed };
