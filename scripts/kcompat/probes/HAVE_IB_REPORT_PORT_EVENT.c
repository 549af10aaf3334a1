/* ib_core turns netdev link changes into port events (report_port_event, v6.13) */
#include <rdma/ib_verbs.h>
static void probe_report(struct ib_device *ibdev, struct net_device *ndev,
			 unsigned long event)
{
}
const struct ib_device_ops probe_ops = { .report_port_event = probe_report };
